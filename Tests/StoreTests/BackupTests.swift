import Foundation
import Synchronization
import Testing
import HealthRecord
@testable import Store

/// Backups: online and consistent while a writer posts, restored with the password or the recovery key,
/// refused when a byte changed, unreadable without the key.
@Suite("Backups")
struct BackupTests {
    static func posts(_ store: Store, patientID: String) throws -> Set<String> {
        try store.readSync { db in Set(try db.rows("SELECT id FROM timeline_entries WHERE patient_id = ?", [patientID]) { $0.string(0) }) }
    }

    @Test("a backup taken while a writer posts and a sync imports restores whole: integrity ok, every post acknowledged before it began")
    func online() async throws {
        let dir = TemporaryDirectory()
        let (store, recovery, _) = try makeStore(in: dir)
        let marker = "MARKER-\(UUID().uuidString)"
        let patient = try store.importRecordSync(.record(entries: .numbered(2000, marker: marker))).patientID
        let acknowledged = Mutex<[String]>([])
        final class Flag: Sendable { let raised = Atomic<Bool>(false) }
        let stop = Flag()
        let writer = Task.detached {
            var n = 0
            while !stop.raised.load(ordering: .relaxed) {
                let post = try await store.addTimelinePost(patientID: patient, kind: .levels, dataJSON: #"{"pain":"\#(n % 10)"}"#)
                acknowledged.withLock { $0.append(post.id) }
                n += 1
            }
            return n
        }
        // And a sync: another patient's record imported again and again, as a source's sync does.
        let syncer = Task.detached {
            var n = 0
            while !stop.raised.load(ordering: .relaxed) {
                _ = try await store.importRecord(.record("synced", entries: .numbered(200 + n % 50, marker: "sync")))
                n += 1
            }
            return n
        }
        // Some posts acknowledged before the backup begins (however busy the machine is).
        for _ in 0..<500 where acknowledged.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(20)) }
        let before = Set(acknowledged.withLock { $0 })
        let file = dir.file("store.hrdbak")
        let info = try store.backup(to: file)
        stop.raised.store(true, ordering: .relaxed)
        let written = try await writer.value
        let synced = try await syncer.value
        #expect(written > 0 && synced > 0 && !before.isEmpty)
        #expect(info.fileBytes > info.databaseBytes && info.databaseBytes > 0)
        #expect(try BackupFile.verify(file) == info)
        store.close()

        // Nothing in it is readable: not the marker, not the name.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.range(of: Data(marker.utf8)) == nil && bytes.range(of: Data("Test Patient".utf8)) == nil)

        for (name, unlock) in [("password", { (vault: KeyVault) throws(StoreError) -> StoreKey in try vault.unlock(password: "correct horse") }),
                               ("recovery key", { (vault: KeyVault) throws(StoreError) -> StoreKey in try vault.unlock(recoveryKey: recovery) })] {
            let target = StateDirectory(path: dir.file("restored-\(name.replacingOccurrences(of: " ", with: "-"))"))
            _ = try Store.restore(file, into: target, unlock: unlock)
            let restored = try Store.open(at: target, password: "correct horse")
            #expect(try restored.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
            #expect(before.isSubset(of: try Self.posts(restored, patientID: patient)), "\(name)")
            #expect(try restored.readSync { db in try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patient], as: Int.self) } == 2000)
            restored.close()
        }
    }

    @Test("a backup with one byte changed, cut short or not one at all is refused by verify and restore; nothing is restored")
    func damaged() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        _ = try store.importRecordSync(.record(entries: .numbered(50)))
        let file = dir.file("good.hrdbak")
        _ = try store.backup(to: file)
        store.close()
        let good = try Data(contentsOf: URL(fileURLWithPath: file))
        for (name, bytes) in [("one byte", { var d = good; d[d.count / 2] ^= 0x01; return d }()), ("cut", good.prefix(good.count - 100)),
                              ("last byte", { var d = good; d[d.count - 1] ^= 0x80; return d }()), ("not one", Data("hello".utf8))] {
            let bad = dir.file("\(name).hrdbak")
            try bytes.write(to: URL(fileURLWithPath: bad))
            #expect(throws: StoreError.self, "\(name)") { try BackupFile.verify(bad) }
            let target = StateDirectory(path: dir.file("restore-\(name)"))
            #expect(throws: StoreError.self, "\(name)") {
                try Store.restore(bad, into: target) { vault throws(StoreError) in try vault.unlock(password: "correct horse") }
            }
            #expect(!FileManager.default.fileExists(atPath: target.databasePath) && !FileManager.default.fileExists(atPath: target.keyFilePath))
        }
    }

    @Test("restore refuses a directory that holds a store unless told to replace it, and a wrong password changes nothing")
    func refusals() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        _ = try store.importRecordSync(.record(entries: .numbered(5)))
        let file = dir.file("b.hrdbak")
        _ = try store.backup(to: file)
        store.close()
        #expect {
            try Store.restore(file, into: state) { vault throws(StoreError) in try vault.unlock(password: "correct horse") }
        } throws: { error in
            guard case StoreError.alreadyInitialised = error else { return false }
            return true
        }
        let other = StateDirectory(path: dir.file("other"))
        #expect(throws: StoreError.self) { try Store.restore(file, into: other) { vault throws(StoreError) in try vault.unlock(password: "wrong") } }
        #expect(!FileManager.default.fileExists(atPath: other.databasePath))
        _ = try Store.restore(file, into: state, replace: true) { vault throws(StoreError) in try vault.unlock(password: "correct horse") }
        let reopened = try Store.open(at: state, password: "correct horse")
        #expect(try reopened.readSync { db in try db.scalar("SELECT count(*) FROM entries", as: Int.self) } == 5)
        reopened.close()
    }

    @Test("the audit trail is append-only in the database itself; pruning removes only old events")
    func auditAppendOnly() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        try store.recordAudit(AuditEvent(at: 100, action: .export, actor: "cli", patientID: "p_1"))
        try store.recordAudit(AuditEvent(at: 200, action: .backup, actor: "daemon", detail: String(repeating: "x", count: 1000)))
        #expect(throws: StoreError.self) { try store.writeSync { db in try db.execute("UPDATE audit_log SET actor = 'someone else'") } }
        let events = try store.auditEventsSync()
        #expect(events.map(\.action) == [.backup, .export])
        #expect(events.first?.detail?.count == 200)
        #expect(try store.pruneAudit(olderThan: 150) == 1)
        #expect(try store.auditEventsSync().map(\.action) == [.backup])
    }
}
