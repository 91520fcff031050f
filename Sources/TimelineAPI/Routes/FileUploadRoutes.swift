#if canImport(Glibc)
import Glibc
#endif
import HTTPKit
import ImportJobs
import HealthRecord
import Store

/// `POST /imports/files`: a file a person drops into the web app (or sends with `curl --data-binary`),
/// one file a request, its raw bytes with their media type. It is read at once (a file of which nothing
/// can be imported is a `400`, and nothing changes), then imported by a job in the background:
/// `202 Accepted` with the job, whose progress and, at the end, report `GET /imports/jobs/{id}` gives.
struct FileUploadRoutes {
    let app: TimelineApp

    /// What an upload may say it is. Browsers send a file's type from its extension, or nothing
    /// (`application/octet-stream`); the content decides the format either way.
    static let mediaTypes: Set<String> = [
        "application/fhir+json", "application/json", "application/json+fhir", "application/fhir+ndjson",
        "application/x-ndjson", "application/ndjson", "application/octet-stream", "text/plain",
        // C-CDA and C32 documents.
        "application/xml", "text/xml", "application/hl7-v3+xml", "application/hl7-cda+xml",
    ]

    /// This process, as the owner of the upload jobs it runs.
    static let owner = "upload:\(getpid()):\(StableID.random("o"))"

    /// The longest file name kept with an upload.
    static let maxNameLength = 200

    func register(in router: inout Router) {
        router.post("/imports/files", bodyLimit: app.configuration.uploadLimit) { request, _ in try await upload(request) }
        router.get("/imports/jobs/{id}") { _, context in try await job(try context.parameters.require("id")) }
    }

    func upload(_ request: Request) async throws -> Response {
        let mediaType = request.mediaType ?? "application/octet-stream"
        guard Self.mediaTypes.contains(mediaType) else {
            throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                            message: "Upload one file as its raw bytes (FHIR R4 JSON or NDJSON, a C-CDA or C32 document, or an RHEx record), not \(mediaType).")
        }
        let bytes = request.bodyBytes
        guard !bytes.isEmpty else { throw HTTPError(.badRequest, code: "bad_file", message: "The upload is empty.") }
        let store = try app.store()
        var options = ImportOptions(mode: request.query["replace"] == "1" ? .replace : .merge)
        if let patient = request.query["patient"], !patient.isEmpty {
            guard try await store.patient(id: patient) != nil else { throw APIError.unknownPatient }
            options.patientID = patient
        }
        let name = Self.fileName(request.query["name"])
        let importer = FileImporter(store: store)
        let plan = importer.plan([ImportInputFile(name: name, mediaType: mediaType, bytes: bytes)], options: options)
        guard plan.importsSomething else {
            throw HTTPError(.badRequest, code: "bad_file", message: APIError.sentence("nothing could be imported: \(plan.whyNothing)"))
        }
        try await store.failInterruptedFileImportJobs(currentOwner: Self.owner, now: app.now())
        let job = try await store.startFileImportJob(owner: Self.owner, now: app.now())
        let logger = app.logger
        Task {
            let report = await importer.apply(plan) { done, total in
                try? await store.setFileImportJobProgress(id: job.id, done: done, total: total)
            }
            let failed = report.patients.allSatisfy { $0.error != nil }
            do {
                try await store.finishFileImportJob(id: job.id, counts: report.totals, reportJSON: report.json,
                                                    error: failed ? "no patient could be imported" : nil)
            } catch {
                logger.error("import job \(job.id): cannot record its end: \(error)")
            }
        }
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("job")
        ImportRoutes.write(job, to: &json)
        json.endObject()
        var response = Response.json(writer: json, status: .accepted)
        response.headers.replaceOrAdd(name: "Location", value: "/imports/jobs/\(job.id)")
        return response
    }

    func job(_ idText: String) async throws -> Response {
        guard let id = Int64(idText) else { throw HTTPError.notFound }
        let store = try app.store()
        guard var job = try await store.importJob(id: id) else { throw HTTPError.notFound }
        if job.state == .running, job.trigger == ImportJob.Trigger.upload.rawValue, job.owner != Self.owner {
            try await store.failInterruptedFileImportJobs(currentOwner: Self.owner, now: app.now())
            job = try await store.importJob(id: id) ?? job
        }
        let report = try await store.importJobReport(id: id)
        var json = JSONWriter(capacity: 1024 + (report?.utf8.count ?? 0))
        json.beginObject()
        json.key("job")
        ImportRoutes.write(job, to: &json)
        json.key("report")
        if let report { json.raw(report) } else { json.null() }
        json.endObject()
        return .json(writer: json)
    }

    /// The name a file is kept and reported under: its last path segment, printable, bounded.
    static func fileName(_ given: String?) -> String {
        let last = given?.split(separator: "/").last.map(String.init) ?? ""
        let printable = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }))
        let trimmed = String(printable.prefix(maxNameLength))
        return trimmed.isEmpty ? "upload" : trimmed
    }
}
