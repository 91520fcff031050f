import HTTPKit
import Records
import HealthRecord
import Store

/// One person from many sources: `POST /patients/{pid}/links` (`{"patient": "p_…"}`) links another
/// patient into this person; `DELETE /patients/{pid}/links/{other}` takes it out again;
/// `GET /patients/{pid}/links.json` lists the person's patients and suggests others that look the same.
struct LinkRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.post("/patients/{pid}/links", bodyLimit: app.configuration.smallBodyLimit) { request, context in
            try await link(request, patientID: try context.parameters.require("pid"))
        }
        router.delete("/patients/{pid}/links/{other}") { _, context in
            try await unlink(try context.parameters.require("other"), from: try context.parameters.require("pid"))
        }
        router.get("/patients/{pid}/links.json") { _, context in try await list(patientID: try context.parameters.require("pid")) }
    }

    func link(_ request: Request, patientID: String) async throws -> Response {
        let fields = try PostBody.fields(of: request, limits: app.configuration.postLimits)
        guard case .string(let other)? = fields["patient"], !other.isEmpty else {
            throw HTTPError.badRequest("Send the patient to link as the field patient.", code: "bad_body")
        }
        guard other != patientID else {
            throw HTTPError.badRequest("A patient cannot be linked to itself.", code: "same_person")
        }
        switch try await app.store().linkPatient(other, into: patientID, now: app.now()) {
        case .failure(.unknownPatient): throw APIError.unknownPatient
        case .failure(.samePerson): throw HTTPError.badRequest("These patients are already one person.", code: "same_person")
        case .failure(.notLinked): throw HTTPError.badRequest("Nothing to link.", code: "bad_body")
        case .success: return try await list(patientID: patientID, status: .created)
        }
    }

    func unlink(_ other: String, from patientID: String) async throws -> Response {
        switch try await app.store().unlinkPatient(other, from: patientID) {
        case .failure(.unknownPatient): throw APIError.unknownPatient
        case .failure: throw HTTPError(.notFound, code: "not_linked", message: "That patient is not linked into this person.")
        case .success: return try await list(patientID: patientID)
        }
    }

    func list(patientID: String, status: HTTPResponseStatus = .ok) async throws -> Response {
        let store = try app.store()
        guard let person = try await store.person(of: patientID) else { throw APIError.unknownPatient }
        let everyone = try await store.patients()
        let byID = Dictionary(everyone.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let suggestions = try await store.linkSuggestions(for: patientID)
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("person"); json.string(person.head)
        json.key("patients")
        json.beginArray()
        for id in person.members { if let patient = byID[id] { Self.write(patient, to: &json) } }
        json.endArray()
        json.key("suggestions")
        json.beginArray()
        for patient in suggestions { Self.write(patient, to: &json, reason: "same name and birth date") }
        json.endArray()
        json.endObject()
        return .json(writer: json, status: status)
    }

    static func write(_ patient: Patient, to json: inout JSONWriter, reason: String? = nil) {
        json.beginObject()
        json.key("id"); json.string(patient.id)
        json.key("name"); json.string(patient.shownName)
        json.key("birthdate"); json.int(patient.birthdate)
        json.key("source"); json.string(patient.sourceName)
        json.key("entries"); json.int(Int64(patient.entryCount))
        if let reason { json.key("reason"); json.string(reason) }
        json.endObject()
    }
}
