import Foundation
import Testing
import HealthRecord
@testable import Store
import TimelineAPI

/// What an operator reads when the store's files fail: the condition named, SQLite's message kept.
@Suite("store error messages")
struct StoreErrorTests {
    @Test("each file-system condition is named in the message", arguments: [
        (Int32(13), "the disk is full"),                       // SQLITE_FULL
        (Int32(8), "read-only"),                               // SQLITE_READONLY
        (Int32(10 | 3 << 8), "read-only file system or I/O error"), // SQLITE_IOERR_WRITE
        (Int32(14), "state directory read-only"),              // SQLITE_CANTOPEN
        (Int32(5), "another process is writing to it"),        // SQLITE_BUSY
    ])
    func named(code: Int32, words: String) {
        let text = StoreError.database(DatabaseError(code: code, message: "sqlite says")).description
        #expect(text.contains(words), "\(text)")
        #expect(text.contains("sqlite says"))
    }

    @Test("a write while another process holds the write lock past the wait fails as busy, changes nothing, and works once the lock is let go")
    func busy() async throws {
        let dir = TemporaryDirectory()
        let state = StateDirectory(path: dir.file("state"))
        var options = Store.Options.timeline
        options.connection.busyTimeoutMilliseconds = 100
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let (store, _) = try Store.create(at: state, password: "pw", passwordParameters: fast, recoveryParameters: fast, options: options)
        defer { store.close() }
        let patient = try store.importRecordSync(.record(entries: .numbered(3))).patientID
        // The other process: `hreaderd import-file` in the middle of a long import.
        let other = try Database(path: state.databasePath, key: try state.keyVault.unlock(password: "pw"))
        try other.execute("BEGIN IMMEDIATE")
        await #expect {
            _ = try await store.addTimelinePost(patientID: patient, kind: .levels, dataJSON: #"{"pain":"3"}"#)
        } throws: { error in
            guard case let StoreError.database(db) = error, db.isBusy else { return false }
            return "\(error)".contains("another process is writing")
        }
        // Reads are not held up by the lock (WAL).
        #expect(try store.readSync { db in try db.scalar("SELECT count(*) FROM entries", as: Int.self) } == 3)
        try other.execute("ROLLBACK")
        #expect(try store.readSync { db in try db.scalar("SELECT count(*) FROM timeline_entries", as: Int.self) } == 0)
        _ = try await store.addTimelinePost(patientID: patient, kind: .levels, dataJSON: #"{"pain":"3"}"#)
        #expect(try store.readSync { db in try db.scalar("SELECT count(*) FROM timeline_entries", as: Int.self) } == 1)
    }
}
