import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The daemon's backups: taken on request and on schedule, listed with the last attempt, the oldest
/// removed beyond `keep`, and a failed one reported, audited and never removing the good ones.
@Suite("scheduled backups")
struct BackupRouteTests {
    static let record = PatientRecord.record("bk", name: "Back Up", entries: [.entry(.condition, "Asthma", id: "e_1", at: 1)])

    @Test("POST /backups writes one; /backups.json lists them; beyond keep the oldest go; a failure keeps them all")
    func schedule() async throws {
        let dir = TemporaryDirectory("hreaderd-backups")
        let settings = BackupSchedule.Settings(directory: dir.file("backups"), everySeconds: 3600, keep: 2)
        try await ServedApp.with(records: [Self.record], backups: settings) { (served: ServedApp) async throws in
            #expect(try await served.client.get("/backups.json").object["backups"].map { ($0 as? [Any])?.count } == 0)
            var names: [String] = []
            for step in 0..<3 {
                served.setNow(1_700_000_000 + Int64(step) * 3600)
                let answer = try await served.client.send("POST", "/backups")
                #expect(answer.status == 201)
                let backup = try #require(answer.object["backup"] as? [String: Any])
                #expect(backup["ok"] as? Bool == true)
                names.append(try #require(backup["file"] as? String))
            }
            let listed = try await served.client.get("/backups.json").object
            #expect((listed["backups"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [names[2], names[1]])
            // Each listed with its real size on disk.
            for backup in listed["backups"] as? [[String: Any]] ?? [] {
                let path = dir.file("backups") + "/" + (backup["name"] as? String ?? "")
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                #expect(backup["bytes"] as? Int == size && (size ?? 0) > 1000)
            }
            #expect((listed["last_good"] as? [String: Any])?["file"] as? String == names[2])
            #expect(listed["keep"] as? Int == 2 && listed["every_hours"] as? Double == 1)
            for name in names.suffix(2) { #expect(throws: Never.self) { try BackupFile.verify(settings.directory + "/" + name) } }

            // The next one cannot be written (its temporary name is taken by a directory): reported, audited,
            // and the two good backups stay.
            served.setNow(1_700_000_000 + 3 * 3600)
            let blocked = settings.directory + "/hreaderd-" + BackupSchedule.stamp(served.app.now()) + ".hrdbak"
            try FileManager.default.createDirectory(atPath: blocked + ".partial-\(getpid())", withIntermediateDirectories: true)
            let failed = try await served.client.send("POST", "/backups")
            #expect(failed.status == 500)
            #expect((failed.object["backup"] as? [String: Any])?["ok"] as? Bool == false)
            let after = try await served.client.get("/backups.json").object
            #expect((after["backups"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [names[2], names[1]])
            #expect((after["last"] as? [String: Any])?["ok"] as? Bool == false)
            #expect((after["last"] as? [String: Any])?["error"] as? String != nil)
            #expect((after["last_good"] as? [String: Any])?["file"] as? String == names[2])
            let actions = try served.store.auditEventsSync().map(\.action)
            #expect(actions.filter { $0 == .backup }.count == 3 && actions.filter { $0 == .backupFailed }.count == 1)
        }
    }

    @Test("without --backup-dir: backups.json says so, POST /backups is 409")
    func disabled() async throws {
        try await ServedApp.with(records: [Self.record]) { (served: ServedApp) async throws in
            #expect(try await served.client.get("/backups.json").object["enabled"] as? Bool == false)
            #expect(try await served.client.send("POST", "/backups").status == 409)
        }
    }
}
