import HTTPKit
import ImportJobs
import Records
import HealthRecord
import Store

/// The patients an RHEx server offers, and the person's choice: `GET /sources/{name}/patients.json`;
/// `POST /sources/{name}/patients` with `{"record_ids": [...], "import": true|false}` or `{"import_all": bool}`.
/// Choosing to import queues a sync.
struct SourcePatientRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/sources/{name}/patients.json") { _, context in try await list(try context.parameters.require("name")) }
        router.post("/sources/{name}/patients", bodyLimit: app.configuration.smallBodyLimit) { request, context in
            try await choose(request, name: try context.parameters.require("name"))
        }
    }

    static let unknownSource = HTTPError(.notFound, code: "unknown_source", message: "There is no RHEx source with that name.")

    func source(_ name: String, in store: Store) async throws -> Source {
        guard let source = try await store.source(named: name), source.kind == .rhex else { throw Self.unknownSource }
        return source
    }

    func list(_ name: String, status: HTTPResponseStatus = .ok) async throws -> Response {
        let store = try app.store()
        let source = try await source(name, in: store)
        let offered = try await store.offeredPatients(sourceID: source.id)
        var json = JSONWriter(capacity: 256 + offered.count * 160)
        json.beginObject()
        json.key("source"); json.string(source.name)
        json.key("import_all"); json.bool(source.settings.importsAll)
        json.key("patients")
        json.beginArray()
        for patient in offered {
            json.beginObject()
            json.key("record_id"); json.string(patient.recordID)
            json.key("title"); json.string(patient.title)
            json.key("state"); json.string(patient.removed ? "removed" : patient.imported ? "imported" : patient.chosen ? "chosen" : "offered")
            json.key("first_seen_at"); json.int(patient.firstSeenAt)
            json.key("last_seen_at"); json.int(patient.lastSeenAt)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(writer: json, status: status)
    }

    func choose(_ request: Request, name: String) async throws -> Response {
        let object = try JSONObjectBody.parse(request, limit: app.configuration.smallBodyLimit, depth: 2, what: "the choice")
        let store = try app.store()
        let source = try await source(name, in: store)
        var importing = false
        if case .bool(let all)? = object["import_all"] {
            try await store.setImportAll(sourceID: source.id, all)
            importing = all
        } else if case .array(let values)? = object["record_ids"], case .bool(let take)? = object["import"] {
            var ids: [String] = []
            for value in values {
                guard case .string(let id) = value else { throw HTTPError.badRequest("record_ids must be strings.", code: "bad_body") }
                ids.append(id)
            }
            let offered = Set(try await store.offeredPatients(sourceID: source.id).map(\.recordID))
            if let unknown = ids.first(where: { !offered.contains($0) }) {
                throw HTTPError(.notFound, code: "not_offered", message: "\(name) has not offered the record \(unknown).")
            }
            _ = try await store.chooseOfferedPatients(sourceID: source.id, recordIDs: ids, chosen: take)
            importing = take && !ids.isEmpty
        } else {
            throw HTTPError.badRequest(#"Send {"record_ids": [...], "import": true|false} or {"import_all": true|false}."#, code: "bad_body")
        }
        if importing { _ = try await ImportQueue.enqueue(name, trigger: .request, store: store, now: app.now()) }
        return try await list(name, status: importing ? .accepted : .ok)
    }
}
