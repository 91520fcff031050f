import HTTPKit
import HealthRecord
import Store

/// `GET /audit.json?action=…&patient=…&from=…&to=…&limit=…&cursor=…`: the audit trail, newest first. No
/// route changes or deletes a row.
struct AuditRoutes {
    let app: TimelineApp

    static let defaultLimit = 50
    static let maximumLimit = 500

    func register(in router: inout Router) {
        router.get("/audit.json") { request, _ in try await list(request) }
    }

    static let badAction = HTTPError(.badRequest, code: "bad_action",
                                     message: "action must be one of \(AuditEvent.Action.allCases.map(\.rawValue).joined(separator: ", ")).")

    func list(_ request: Request) async throws -> Response {
        let action = try request.query["action"].flatMap { $0.isEmpty ? nil : $0 }.map { text throws(HTTPError) -> AuditEvent.Action in
            guard let action = AuditEvent.Action(rawValue: text) else { throw Self.badAction }
            return action
        }
        let (from, to) = try ListQuery.range(request, calendar: app.configuration.calendar)
        let limit = try ListQuery.number(request.query["limit"], default: Self.defaultLimit, in: 1...Self.maximumLimit,
                                         error: ListQuery.badLimit(Self.maximumLimit))
        let cursor = try request.query["cursor"].flatMap { $0.isEmpty ? nil : $0 }.map { text throws(HTTPError) -> Int64 in
            guard text.utf8.count <= 18, let id = Int64(text), id > 0 else { throw ListQuery.badCursor }
            return id
        }
        let events = try await app.store().auditEvents(action: action, patientID: request.query["patient"].flatMap { $0.isEmpty ? nil : $0 },
                                                       from: from, to: to,
                                                       before: cursor, limit: limit)
        var json = JSONWriter(capacity: 256 + events.count * 160)
        json.beginObject()
        json.key("events")
        json.beginArray()
        for event in events {
            json.beginObject()
            json.key("id"); json.int(event.id)
            json.key("at"); json.int(event.at)
            json.key("action"); json.string(event.action.rawValue)
            json.key("actor"); json.string(event.actor)
            json.key("patient"); json.string(event.patientID)
            json.key("detail"); json.string(event.detail)
            json.endObject()
        }
        json.endArray()
        json.key("next_cursor"); json.string(events.count == limit ? events.last?.id.map(String.init) : nil)
        json.endObject()
        return .json(writer: json)
    }
}
