import HTTPKit
import HealthRecord
import Store

/// Imported documents' text: `GET /patients/{pid}/documents.json`, the sections of every C-CDA or C32
/// document of the person, narrative-only ones included, as plain text.
struct DocumentRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/patients/{pid}/documents.json") { _, context in try await list(patientID: try context.parameters.require("pid")) }
    }

    func list(patientID: String) async throws -> Response {
        guard let documents = try await app.store().documents(patientID: patientID) else { throw APIError.unknownPatient }
        return .json(bytes: DocumentJSON.list(documents, patientID: patientID))
    }
}
