import FoundationEssentials
import HTTPKit
import Records
import HealthRecord
import Store

/// `GET /patients.json`, `POST /patients/current`, `PATCH` and `DELETE /patients/{id}`,
/// `GET /patients/{id}/export.json`.
struct PatientRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/patients.json") { _, _ in try await list() }
        router.post("/patients/current", bodyLimit: app.configuration.smallBodyLimit) { request, _ in try await select(request) }
        router.get("/patients/{id}/export.json") { _, context in try await export(try context.parameters.require("id")) }
        router.patch("/patients/{id}", bodyLimit: app.configuration.smallBodyLimit) { request, context in
            try await update(request, id: try context.parameters.require("id"))
        }
        router.delete("/patients/{id}") { _, context in try await remove(try context.parameters.require("id")) }
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
        for (patient, span, person) in patients {
            json.beginObject()
            json.key("id"); json.string(patient.id)
            Self.writeNames(patient, to: &json)
            json.key("person"); json.string(person)
            json.key("gender"); json.string(patient.gender)
            json.key("birthdate"); json.int(patient.birthdate)
            ResultDetailJSON.writeDeceased(patient, to: &json)
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

    /// The longest display name, in bytes of UTF-8.
    static let maximumDisplayNameBytes = 200

    /// `{"relationship", "order", "display_name"}`, each optional; null clears.
    func update(_ request: Request, id: String) async throws -> Response {
        let object = try JSONObjectBody.parse(request, limit: app.configuration.smallBodyLimit, depth: 2, what: "the change")
        guard !object.members.isEmpty else {
            throw HTTPError.badRequest("Send a JSON object with relationship, order or display_name.", code: "bad_body")
        }
        var change = Store.PersonChange()
        for member in object.members {
            switch (member.key, member.value) {
            case ("relationship", .null): change.relationship = .some(nil)
            case ("relationship", .string(let text)):
                guard let relationship = Patient.Relationship(rawValue: text) else {
                    throw HTTPError.badRequest("relationship must be one of \(Patient.Relationship.allCases.map(\.rawValue).joined(separator: ", ")).",
                                               code: "bad_relationship")
                }
                change.relationship = .some(relationship)
            case ("order", .null): change.order = .some(nil)
            case ("order", .number(let number)):
                guard let order = number.int64, (0...1_000_000).contains(order) else {
                    throw HTTPError.badRequest("order must be a whole number from 0 to 1000000.", code: "bad_body")
                }
                change.order = .some(order)
            case ("display_name", .null): change.displayName = .some(nil)
            case ("display_name", .string(let text)):
                let trimmed = text.trimmedWhitespace
                guard trimmed.utf8.count <= Self.maximumDisplayNameBytes, !trimmed.utf8.contains(where: { $0 < 0x20 }) else {
                    throw HTTPError.badRequest("display_name must be one line of at most \(Self.maximumDisplayNameBytes) bytes.", code: "bad_body")
                }
                change.displayName = .some(trimmed.isEmpty ? nil : trimmed)
            default:
                throw HTTPError.badRequest("A person takes relationship, order and display_name (strings, a number, or null), not \(member.key) as given.",
                                           code: "bad_body")
            }
        }
        guard let patient = try await app.store().updatePerson(id: id, change, now: app.now()) else { throw APIError.unknownPatient }
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("id"); json.string(patient.id)
        Self.writeNames(patient, to: &json)
        json.endObject()
        return .json(writer: json)
    }

    /// How a person is named, related and ordered: in the list and in the answer to a change.
    static func writeNames(_ patient: Patient, to json: inout JSONWriter) {
        json.key("name"); json.string(patient.shownName)
        json.key("source_name"); json.string(patient.name)
        json.key("display_name"); json.string(patient.displayName)
        json.key("relationship"); json.string(patient.relationship?.rawValue)
        json.key("order"); json.int(patient.order)
    }

    /// Removes the patient and everything that is theirs; the source does not bring them back.
    func remove(_ id: String) async throws -> Response {
        guard try await app.store().removePatient(id: id, now: app.now()) else { throw APIError.unknownPatient }
        return Response(status: .noContent)
    }

    func export(_ id: String) async throws -> Response {
        let store = try app.store()
        var response: Response
        if let person = try await store.person(of: id), person.members.count == 1,
           let patient = try await store.patient(id: id), patient.entryCount >= app.configuration.streamedPageEntries {
            // A long record's export is written as it is read (as its `all` page is): never whole in memory.
            let stream = ExportStream(store: store, patientID: id, exportedAt: app.now())
            response = Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
                                body: .stream(stream.response))
        } else {
            guard let document = try await ExportDocument.encodePerson(patientID: id, from: store, exportedAt: app.now()) else {
                throw APIError.unknownPatient
            }
            response = Response.json(bytes: document)
        }
        // The id is ours (p_ and hex), safe in a header.
        response.headers.replaceOrAdd(name: "Content-Disposition", value: "attachment; filename=\"hreaderd-\(id.filter { $0.isLetter || $0.isNumber || $0 == "_" }).json\"")
        return response
    }
}
