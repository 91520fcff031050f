import HTTPKit
import Store

/// `GET /search.json?q=…&patient=…&type=…&from=…&to=…&limit=…&cursor=…`: the person's whole record
/// searched inside the encrypted store (entries, notes, posts, documents' sections), best first.
struct SearchRoutes {
    let app: TimelineApp

    /// Results a page when `limit` is not given, and the most a page may ask for.
    static let defaultLimit = 20
    static let maximumLimit = 100
    /// A cursor is where the next page starts; further than this is not a page a person reached.
    static let maximumCursor = 100_000

    func register(in router: inout Router) {
        router.get("/search.json") { request, _ in try await search(request) }
    }

    static func badQuery(_ message: String) -> HTTPError { HTTPError(.badRequest, code: "bad_query", message: message) }
    static let badType = HTTPError(.badRequest, code: "bad_type", message: "type must be one of \(SearchFilter.types.sorted().joined(separator: ", ")).")
    static let badDate = HTTPError(.badRequest, code: "bad_date",
                                   message: "from and to must be RFC 3339 timestamps, YYYY-MM-DD days or epoch seconds.")
    static let badLimit = HTTPError(.badRequest, code: "bad_limit", message: "limit must be a whole number from 1 to \(maximumLimit).")
    static let badCursor = HTTPError(.badRequest, code: "bad_cursor", message: "cursor must be the next_cursor of an earlier page.")

    func search(_ request: Request) async throws -> Response {
        guard let query = request.query["q"] else { throw Self.badQuery("q is required: the words to search for.") }
        let terms: SearchTerms
        do { terms = try SearchTerms.parse(query) } catch { throw Self.badQuery(APIError.sentence(error.description)) }
        let type = try request.query["type"].flatMap { $0.isEmpty ? nil : $0 }.map { type throws(HTTPError) -> String in
            guard SearchFilter.types.contains(type) else { throw Self.badType }
            return type
        }
        let calendar = app.configuration.calendar
        func time(_ name: String, dayStart: Bool) throws(HTTPError) -> Int64? {
            guard let text = request.query[name], !text.isEmpty else { return nil }
            guard let value = WindowEnd.parse(text, calendar: calendar, dayStart: dayStart) else { throw Self.badDate }
            return value
        }
        let from = try time("from", dayStart: true), to = try time("to", dayStart: false)
        let limit = try Self.number(request.query["limit"], default: Self.defaultLimit, in: 1...Self.maximumLimit, error: Self.badLimit)
        let offset = try Self.number(request.query["cursor"], default: 0, in: 0...Self.maximumCursor, error: Self.badCursor)

        let store = try app.store()
        let patientID = try await app.patientID(request, store: store)
        guard let person = try await store.person(of: patientID) else { throw APIError.unknownPatient }
        let page = try await store.search(terms, filter: SearchFilter(patientIDs: person.members, type: type, from: from, to: to),
                                          offset: offset, limit: limit)
        return .json(bytes: SearchJSON.page(page, query: query, patientID: patientID))
    }

    static func number(_ text: String?, default value: Int, in range: ClosedRange<Int>, error: HTTPError) throws(HTTPError) -> Int {
        guard let text, !text.isEmpty else { return value }
        guard text.utf8.count <= 7, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(text), range.contains(number) else { throw error }
        return number
    }
}
