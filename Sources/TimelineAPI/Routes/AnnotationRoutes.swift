import HTTPKit
import HealthRecord
import Store

/// A person's annotations on the entries of a record: `PUT`, `GET` and `DELETE
/// /patients/{pid}/entries/{eid}/annotation`, and `GET /patients/{pid}/annotations.json`.
struct AnnotationRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        let path = "/patients/{pid}/entries/{eid}/annotation"
        router.put(path, bodyLimit: app.configuration.annotationBodyLimit) { request, context in
            try await put(request, patientID: try context.parameters.require("pid"), entryID: try context.parameters.require("eid"))
        }
        router.get(path) { _, context in
            try await get(patientID: try context.parameters.require("pid"), entryID: try context.parameters.require("eid"))
        }
        router.delete(path) { _, context in
            try await delete(patientID: try context.parameters.require("pid"), entryID: try context.parameters.require("eid"))
        }
        router.get("/patients/{pid}/annotations.json") { _, context in try await list(patientID: try context.parameters.require("pid")) }
    }

    static let noAnnotation = HTTPError(.notFound, code: "no_annotation", message: "That entry has no annotation.")
    static let unknownEntry = HTTPError(.notFound, code: "unknown_entry", message: "The patient has no entry with that id.")

    func put(_ request: Request, patientID: String, entryID: String) async throws -> Response {
        let change = try AnnotationBody.parse(request, limit: app.configuration.annotationBodyLimit)
        let store = try app.store()
        // Nothing written is no annotation: an empty one removes what was there.
        if change.annotation(entryID: entryID).isEmpty {
            _ = try await store.deleteAnnotation(patientID: patientID, entryID: entryID)
            guard try await store.hasEntry(patientID: patientID, entryID: entryID) else { throw Self.unknownEntry }
            return Response(status: .noContent)
        }
        switch try await store.setAnnotation(change.annotation(entryID: entryID), patientID: patientID, now: app.now()) {
        case .failure(.unknownPatient): throw APIError.unknownPatient
        case .failure(.unknownEntry): throw Self.unknownEntry
        case .success(let annotation): return Self.answer(annotation)
        }
    }

    func get(patientID: String, entryID: String) async throws -> Response {
        let store = try app.store()
        guard let annotation = try await store.annotation(patientID: patientID, entryID: entryID) else {
            throw try await store.hasEntry(patientID: patientID, entryID: entryID) ? Self.noAnnotation : Self.unknownEntry
        }
        return Self.answer(annotation)
    }

    func delete(patientID: String, entryID: String) async throws -> Response {
        guard try await app.store().deleteAnnotation(patientID: patientID, entryID: entryID) else { throw Self.noAnnotation }
        return Response(status: .noContent)
    }

    func list(patientID: String) async throws -> Response {
        let store = try app.store()
        guard try await store.patient(id: patientID) != nil else { throw APIError.unknownPatient }
        let annotations = try await store.annotations(patientID: patientID)
        var json = JSONWriter(capacity: 128 + annotations.count * 256)
        json.beginObject()
        json.key("patient"); json.string(patientID)
        json.key("annotations")
        json.beginArray()
        for annotation in annotations { AnnotationJSON.write(annotation, to: &json, withEntryID: true) }
        json.endArray()
        json.endObject()
        return .json(writer: json)
    }

    static func answer(_ annotation: Annotation) -> Response {
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("annotation")
        AnnotationJSON.write(annotation, to: &json, withEntryID: true)
        json.endObject()
        return .json(writer: json)
    }
}
