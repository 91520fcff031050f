import HTTPKit
import Store

/// `GET /patients.json`, `POST /patients/current`, `GET /patients/{id}/export.json`.
struct PatientRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/patients.json") { _, _ in try await list() }
        router.post("/patients/current", bodyLimit: app.configuration.smallBodyLimit) { request, _ in try await select(request) }
        router.get("/patients/{id}/export.json") { _, context in try await export(try context.parameters.require("id")) }
    }

    func list() async throws -> Response {
        let store = try app.store()
        let patients = try await store.patientsWithSpans()
        let current = try await store.currentPatientID()
        var json = JSONWriter(capacity: 256 + patients.count * 160)
        json.beginObject()
        json.key("current"); json.string(current)
        json.key("patients")
        json.beginArray()
        for (patient, span) in patients {
            json.beginObject()
            json.key("id"); json.string(patient.id)
            json.key("name"); json.string(patient.name)
            json.key("gender"); json.string(patient.gender)
            json.key("birthdate"); json.int(patient.birthdate)
            json.key("source"); json.string(patient.sourceName)
            json.key("entries"); json.int(Int64(patient.entryCount))
            json.key("earliest"); json.int(span.earliest)
            json.key("latest"); json.int(span.latest)
            json.endObject()
        }
        json.endArray()
        // The statuses that end a condition, medication or allergy (the timeline's `ongoing` rule), so
        // that a client draws open bands by the server's rule instead of a copy of it.
        json.key("closed_statuses")
        json.beginArray()
        for status in Entry.closedStatuses.sorted() { json.string(status) }
        json.endArray()
        json.endObject()
        return .json(writer: json)
    }

    func select(_ request: Request) async throws -> Response {
        let fields = try PostBody.fields(of: request, limits: app.configuration.postLimits)
        guard case .string(let id)? = fields["id"], !id.isEmpty else {
            throw HTTPError.badRequest("Send the patient's id as the field id.", code: "bad_body")
        }
        let store = try app.store()
        guard try await store.setCurrentPatient(id: id) else { throw APIError.unknownPatient }
        if request.prefersHTML { return .redirect(to: "/timeline/", status: .seeOther) }
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("current"); json.string(id)
        json.endObject()
        return .json(writer: json)
    }

    func export(_ id: String) async throws -> Response {
        let store = try app.store()
        guard let document = try await ExportDocument.encode(patientID: id, from: store, exportedAt: app.now()) else { throw APIError.unknownPatient }
        var response = Response.json(bytes: document)
        // The id is ours (p_ and hex), safe in a header.
        response.headers.replaceOrAdd(name: "Content-Disposition", value: "attachment; filename=\"hreaderd-\(id.filter { $0.isLetter || $0.isNumber || $0 == "_" }).json\"")
        return response
    }
}
