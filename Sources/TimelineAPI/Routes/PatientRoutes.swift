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
        let (patients, current): ([Patient], String?)
        do {
            patients = try await store.patients()
            current = try await store.currentPatientID()
        } catch { throw APIError.store(error) }
        var json = JSONWriter(capacity: 256 + patients.count * 160)
        json.beginObject()
        json.key("current"); json.string(current)
        json.key("patients")
        json.beginArray()
        for patient in patients {
            json.beginObject()
            json.key("id"); json.string(patient.id)
            json.key("name"); json.string(patient.name)
            json.key("gender"); json.string(patient.gender)
            json.key("birthdate"); json.int(patient.birthdate)
            json.key("source"); json.string(patient.sourceName)
            json.key("entries"); json.int(Int64(patient.entryCount))
            json.endObject()
        }
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
        let selected: Bool
        do { selected = try await store.setCurrentPatient(id: id) } catch { throw APIError.store(error) }
        guard selected else { throw APIError.unknownPatient }
        if request.prefersHTML { return .redirect(to: "/timeline/", status: .seeOther) }
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("current"); json.string(id)
        json.endObject()
        return .json(writer: json)
    }

    func export(_ id: String) async throws -> Response {
        let store = try app.store()
        let document: [UInt8]?
        do { document = try await store.exportDocument(patientID: id, exportedAt: app.now()) } catch { throw APIError.store(error) }
        guard let document else { throw APIError.unknownPatient }
        var response = Response.json(bytes: document)
        // The id is ours (p_ and hex), safe in a header.
        response.headers.replaceOrAdd(name: "Content-Disposition", value: "attachment; filename=\"hreaderd-\(id.filter { $0.isLetter || $0.isNumber || $0 == "_" }).json\"")
        return response
    }
}
