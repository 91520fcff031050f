#if canImport(Glibc)
import Glibc
#endif
import HTTPKit
import ImportJobs
import HealthRecord
import Logging
import Store

/// `POST /imports/files`: a file a person drops into the web app (or sends with `curl --data-binary`),
/// one file a request, its raw bytes with their media type. It is read at once (a file of which nothing
/// can be imported is a `400`, and nothing changes), then imported by a job in the background:
/// `202 Accepted` with the job, whose progress and, at the end, report `GET /imports/jobs/{id}` gives.
/// The reading and the job belong to `UploadWork` (the app's `uploads`): on threads of their own, and known
/// to the daemon's shutdown, which waits for the job or stops it cleanly.
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
        guard request.body.readableBytes > 0 else { throw HTTPError(.badRequest, code: "bad_file", message: "The upload is empty.") }
        let store = try app.store()
        var options = ImportOptions(mode: request.query["replace"] == "1" ? .replace : .merge)
        if let patient = request.query["patient"], !patient.isEmpty {
            guard try await store.patient(id: patient) != nil else { throw APIError.unknownPatient }
            options.patientID = patient
        }
        let importer = FileImporter(store: store)
        // Read and mapped on the uploads' own thread: this task waits without holding one of the pool's.
        let plan = try await app.uploads.plan(request.body, name: Self.fileName(request.query["name"]), mediaType: mediaType,
                                              options: options, importer: importer)
        guard plan.importsSomething else {
            throw HTTPError(.badRequest, code: "bad_file", message: APIError.sentence("nothing could be imported: \(plan.whyNothing)"))
        }
        try await store.failInterruptedFileImportJobs(currentOwner: Self.owner, now: app.now())
        let job = try await store.startFileImportJob(owner: Self.owner, now: app.now())
        let logger = app.logger
        // Taken by the job: the last reference is then the job's, which frees it on a thread of its own
        // (`FileImporter.letGo`), rather than the task's closure, freed on the pool.
        let handed = FileImporter.PlanSlot(plan)
        let started = app.uploads.start(jobID: job.id) {
            guard let plan = handed.take() else { return }
            await Self.runJob(job.id, plan: plan, importer: importer, store: store, logger: logger)
        }
        guard started else {
            // The daemon began to stop between the reading and now: the job ends before it began.
            try? await store.finishFileImportJob(id: job.id, counts: ImportCounts(), reportJSON: ImportReport().json,
                                                 error: "the daemon stopped before the import began; upload the file again")
            throw UploadWork.stopping
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

    /// The import of an upload, as `UploadWork` runs it: its progress and end recorded in the job. Stopped by a
    /// shutdown (its task cancelled), it ends as one a crash interrupted: `failed`, the patients it finished
    /// imported, none in part.
    static func runJob(_ id: Int64, plan: consuming FileImporter.Plan, importer: FileImporter, store: Store, logger: Logger) async {
        let report = await importer.apply(plan) { done, total in
            try? await store.setFileImportJobProgress(id: id, done: done, total: total)
        }
        let error: String?
        if Task.isCancelled, report.patients.contains(where: { $0.error == FileImporter.stoppedReason }) {
            error = interruptedReason
        } else {
            error = report.patients.allSatisfy { $0.error != nil } ? "no patient could be imported" : nil
        }
        do {
            try await store.finishFileImportJob(id: id, counts: report.totals, reportJSON: report.json, error: error)
        } catch {
            logger.error("import job \(id): cannot record its end: \(error)")
        }
        // Its resources freed on a thread of their own, not this task's, and the memory given back: after the
        // job's end is recorded, which then never waits for either.
        FileImporter.letGo(plan)
    }

    /// The end of a job the daemon stopped: the same words as for one a stopped daemon left running.
    static let interruptedReason =
        "interrupted: the daemon stopped during the import; the patients it finished are imported, upload the file again for the rest"

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
