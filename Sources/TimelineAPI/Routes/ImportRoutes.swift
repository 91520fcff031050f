import FoundationEssentials
import HTTPKit
import ImportJobs
import HealthRecord
import Store

/// `GET /imports.json`: the sources and their recent import jobs; `POST /imports`: start a sync now.
/// Never a secret: no client secret, password, code or token is read here.
struct ImportRoutes {
    let app: TimelineApp

    /// Jobs listed by `GET /imports.json`, newest first.
    static let listedJobs = 50

    func register(in router: inout Router) {
        router.get("/imports.json") { _, _ in try await list() }
        router.post("/imports", bodyLimit: app.configuration.smallBodyLimit) { request, _ in try await start(request) }
    }

    func list() async throws -> Response {
        let store = try app.store()
        var sources: [Source] = []
        if let files = try await store.source(named: Source.filesSourceName) { sources.append(files) }
        sources += try await store.remoteSources()
        let jobs = try await store.importJobs(limit: Self.listedJobs)
        var json = JSONWriter(capacity: 512 + jobs.count * 400 + sources.count * 300)
        json.beginObject()
        json.key("sources")
        json.beginArray()
        for source in sources { Self.write(source, to: &json) }
        json.endArray()
        json.key("jobs")
        Self.write(jobs, to: &json)
        json.endObject()
        return .json(writer: json)
    }

    func start(_ request: Request) async throws -> Response {
        var name: String?
        // No body (what the web app sends for "all"), or an empty JSON object, syncs every source.
        let body = request.bodyText?.trimmedWhitespace ?? "-"
        if !body.isEmpty && body != "{}" {
            let fields = try PostBody.fields(of: request, limits: app.configuration.postLimits)
            switch fields["source"] {
            case .string(let value)?: name = value.isEmpty ? nil : value
            case nil: name = nil
            default: throw HTTPError.badRequest("source must be a source's name (a string).", code: "bad_body")
            }
        }
        let store = try app.store()
        let jobs = try await ImportQueue.enqueue(name, trigger: .request, store: store, now: app.now())
        var json = JSONWriter(capacity: 128 + jobs.count * 400)
        json.beginObject()
        json.key("jobs")
        Self.write(jobs, to: &json)
        json.endObject()
        var response = Response.json(writer: json, status: .accepted)
        response.headers.replaceOrAdd(name: "Location", value: "/imports.json")
        return response
    }

    static func write(_ source: Source, to json: inout JSONWriter) {
        json.beginObject()
        json.key("name"); json.string(source.name)
        json.key("kind"); json.string(source.kind.rawValue)
        json.key("url"); json.string(source.url)
        json.key("state"); json.string(source.state.rawValue)
        json.key("last_sync_at"); json.int(source.lastSyncAt)
        json.key("last_error"); json.string(source.lastError)
        if source.kind.isRemote {
            json.key("client_id"); json.string(source.settings.clientID)
            if source.kind == .rhex { json.key("username"); json.string(source.settings.username) }
            if source.kind == .fhir { json.key("patient"); json.string(source.settings.fhirPatient) }
            json.key("signed_in"); json.bool(source.hasToken)
            json.key("sync_interval"); json.int(source.settings.syncIntervalSeconds)
            json.key("import_all"); json.bool(source.settings.importsAll)
        }
        json.endObject()
    }

    static func write(_ jobs: [ImportJob], to json: inout JSONWriter) {
        json.beginArray()
        for job in jobs { write(job, to: &json) }
        json.endArray()
    }

    static func write(_ job: ImportJob, to json: inout JSONWriter) {
            json.beginObject()
            json.key("id"); json.int(job.id)
            json.key("source"); json.string(job.sourceName)
            json.key("state"); json.string(job.state.rawValue)
            json.key("trigger"); json.string(job.trigger)
            json.key("attempts"); json.int(Int64(job.attempts))
            json.key("progress_done"); json.int(Int64(job.progressDone))
            json.key("progress_total"); json.int(job.progressTotal.map { Int64($0) })
            json.key("last_error"); json.string(job.lastError)
            json.key("created_at"); json.int(job.createdAt)
            json.key("started_at"); json.int(job.startedAt)
            json.key("finished_at"); json.int(job.finishedAt)
            json.key("next_run_at"); json.int(job.nextRunAt)
            json.key("patients")
            json.beginObject()
            json.key("added"); json.int(Int64(job.counts.patientsAdded))
            json.key("updated"); json.int(Int64(job.counts.patientsUpdated))
            json.key("unchanged"); json.int(Int64(job.counts.patientsUnchanged))
            json.key("not_modified"); json.int(Int64(job.counts.patientsNotModified))
            json.key("failed"); json.int(Int64(job.counts.patientsFailed))
            json.endObject()
            json.key("entries")
            json.beginObject()
            json.key("added"); json.int(Int64(job.counts.entriesAdded))
            json.key("updated"); json.int(Int64(job.counts.entriesUpdated))
            json.key("removed"); json.int(Int64(job.counts.entriesRemoved))
            json.endObject()
            json.endObject()
    }
}
