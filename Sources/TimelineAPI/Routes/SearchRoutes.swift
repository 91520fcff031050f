import HTTPKit
import HealthRecord
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

    func search(_ request: Request) async throws -> Response {
        guard let query = request.query["q"] else { throw Self.badQuery("q is required: the words to search for.") }
        let terms: SearchTerms
        do { terms = try SearchTerms.parse(query) } catch { throw Self.badQuery(APIError.sentence(error.description)) }
        let type = try request.query["type"].flatMap { $0.isEmpty ? nil : $0 }.map { type throws(HTTPError) -> String in
            guard SearchFilter.types.contains(type) else { throw Self.badType }
            return type
        }
        let (from, to) = try ListQuery.range(request, calendar: app.configuration.calendar)
        let limit = try ListQuery.number(request.query["limit"], default: Self.defaultLimit, in: 1...Self.maximumLimit,
                                         error: ListQuery.badLimit(Self.maximumLimit))
        let offset = try ListQuery.number(request.query["cursor"], default: 0, in: 0...Self.maximumCursor, error: ListQuery.badCursor)

        let store = try app.store()
        let patientID = try await app.patientID(request, store: store)
        guard let person = try await store.person(of: patientID) else { throw APIError.unknownPatient }
        let page = try await store.search(terms, filter: SearchFilter(patientIDs: person.members, type: type, from: from, to: to),
                                          offset: offset, limit: limit)
        return .json(bytes: SearchJSON.page(page, query: query, patientID: patientID))
    }
}
