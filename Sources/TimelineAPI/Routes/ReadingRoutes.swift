import HTTPKit
import HealthRecord
import Store

/// The person's own readings: `POST /patients/{id}/readings`, `GET /patients/{id}/readings.json`, and
/// `GET`, `PUT`, `DELETE /readings/{id}`.
struct ReadingRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        let limit = app.configuration.readingBodyLimit
        router.post("/patients/{pid}/readings", bodyLimit: limit) { request, context in
            try await add(request, patientID: try context.parameters.require("pid"))
        }
        router.get("/patients/{pid}/readings.json") { _, context in try await list(patientID: try context.parameters.require("pid")) }
        router.get("/readings/{id}") { _, context in try await get(try context.parameters.require("id")) }
        router.put("/readings/{id}", bodyLimit: limit) { request, context in try await edit(request, id: try context.parameters.require("id")) }
        router.delete("/readings/{id}") { _, context in try await delete(try context.parameters.require("id")) }
    }

    static let unknownReading = HTTPError(.notFound, code: "unknown_reading", message: "There is no reading with that id.")

    func add(_ request: Request, patientID: String) async throws -> Response {
        let now = app.now()
        let fields = try ReadingBody.parse(request, limit: app.configuration.readingBodyLimit, calendar: app.configuration.calendar, now: now)
        let store = try app.store()
        let reading: Reading
        do {
            reading = try await store.addReading(Self.reading(fields, id: "", patientID: patientID, createdAt: now, now: now))
        } catch .notFound {
            throw APIError.unknownPatient
        }
        var response = Response.json(writer: Self.answer(reading), status: .created)
        response.headers.replaceOrAdd(name: "Location", value: "/readings/\(reading.id)")
        return response
    }

    func list(patientID: String) async throws -> Response {
        let store = try app.store()
        guard try await store.patient(id: patientID) != nil else { throw APIError.unknownPatient }
        let readings = try await store.readings(patientID: patientID)
        var json = JSONWriter(capacity: 128 + readings.count * 200)
        json.beginObject()
        json.key("patient"); json.string(patientID)
        json.key("readings"); ReadingJSON.writeArray(readings, to: &json)
        json.endObject()
        return .json(writer: json)
    }

    func get(_ id: String) async throws -> Response {
        guard let reading = try await app.store().reading(id: id) else { throw Self.unknownReading }
        return .json(writer: Self.answer(reading))
    }

    /// A `PUT` replaces what the reading says (its date only when the body gives one); its kind may change
    /// too (a slip of the form).
    func edit(_ request: Request, id: String) async throws -> Response {
        let now = app.now()
        let store = try app.store()
        guard let old = try await store.reading(id: id) else { throw Self.unknownReading }
        var fields = try ReadingBody.parse(request, limit: app.configuration.readingBodyLimit, calendar: app.configuration.calendar, now: now)
        if !fields.dated { fields.takenAt = old.takenAt }
        guard let updated = try await store.updateReading(Self.reading(fields, id: id, patientID: old.patientID, createdAt: old.createdAt, now: now))
        else { throw Self.unknownReading }
        return .json(writer: Self.answer(updated))
    }

    func delete(_ id: String) async throws -> Response {
        guard try await app.store().deleteReading(id: id) else { throw Self.unknownReading }
        return Response(status: .noContent)
    }

    static func reading(_ fields: ReadingBody.Fields, id: String, patientID: String, createdAt: Int64, now: Int64) -> Reading {
        Reading(id: id, patientID: patientID, kind: fields.kind, takenAt: fields.takenAt, value: fields.value, secondValue: fields.secondValue,
                unit: fields.unit, context: fields.context, note: fields.note, createdAt: createdAt, updatedAt: now)
    }

    static func answer(_ reading: Reading) -> JSONWriter {
        var json = JSONWriter(capacity: 320)
        json.beginObject()
        json.key("reading"); ReadingJSON.write(reading, to: &json)
        json.endObject()
        return json
    }
}
