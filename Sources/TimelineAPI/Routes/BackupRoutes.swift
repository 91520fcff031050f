import HTTPKit
import HealthRecord
import Store

/// `GET /backups.json`: the daemon's backups, their schedule and the last attempt; `POST /backups`: one now.
struct BackupRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/backups.json") { _, _ in try list() }
        router.post("/backups", bodyLimit: app.configuration.smallBodyLimit) { _, context in
            try await now(actor: (context.values[ActorKey.self] ?? nil) ?? "daemon")
        }
    }

    static let notScheduled = HTTPError(.conflict, code: "no_backup_dir",
                                        message: "The daemon takes no backups: start it with --backup-dir DIR (and --backup-every HOURS).")

    func list() throws -> Response {
        _ = try app.store()
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        guard let schedule = app.backups else {
            json.key("enabled"); json.bool(false)
            json.key("backups"); json.beginArray(); json.endArray()
            json.endObject()
            return .json(writer: json)
        }
        let status = schedule.status
        json.key("enabled"); json.bool(true)
        json.key("directory"); json.string(schedule.settings.directory)
        json.key("every_hours"); json.number(Double(schedule.settings.everySeconds) / 3600)
        json.key("keep"); json.int(Int64(schedule.settings.keep))
        json.key("next_at"); json.int(status.nextAt)
        json.key("last"); Self.write(status.last, to: &json)
        json.key("last_good"); Self.write(status.lastGood, to: &json)
        json.key("backups")
        json.beginArray()
        for file in schedule.files() {
            json.beginObject()
            json.key("name"); json.string(file.name)
            json.key("bytes"); json.int(file.bytes)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(writer: json)
    }

    func now(actor: String) async throws -> Response {
        let store = try app.store()
        guard let schedule = app.backups else { throw Self.notScheduled }
        let attempt = await schedule.backUp(store: store, actor: actor)
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("backup"); Self.write(attempt, to: &json)
        json.endObject()
        return .json(writer: json, status: attempt.ok ? .created : .internalServerError)
    }

    static func write(_ attempt: BackupSchedule.Attempt?, to json: inout JSONWriter) {
        guard let attempt else { json.null(); return }
        json.beginObject()
        json.key("at"); json.int(attempt.at)
        json.key("ok"); json.bool(attempt.ok)
        json.key("file"); json.string(attempt.file)
        json.key("bytes"); json.int(attempt.bytes)
        json.key("seconds"); json.number(attempt.seconds)
        json.key("error"); json.string(attempt.error)
        json.endObject()
    }
}
