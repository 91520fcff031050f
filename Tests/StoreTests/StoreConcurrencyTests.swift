import Dispatch
import Foundation
import Testing
import HealthRecord
@testable import Store

@Suite("Store concurrency")
struct StoreConcurrencyTests {
    @Test("a reader is not blocked by a writer holding an open transaction, and sees the last commit")
    func readersDoNotWaitForTheWriter() async throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        _ = try store.importRecordSync(.record("first", entries: .numbered(3)))

        let writerInside = DispatchSemaphore(value: 0)
        let releaseWriter = DispatchSemaphore(value: 0)
        let writer = Task {
            try await store.write { db in
                try db.execute("INSERT INTO settings (key, value) VALUES ('pending', 'x')")
                writerInside.signal()
                releaseWriter.wait()
            }
        }
        await withCheckedContinuation { c in DispatchQueue.global().async { writerInside.wait(); c.resume() } }
        // The writer is now inside its transaction and will stay there until released.
        let (patients, pending) = try await store.read { db in
            (try db.scalar("SELECT count(*) FROM patients", as: Int.self),
             try db.scalar("SELECT count(*) FROM settings WHERE key = 'pending'", as: Int.self))
        }
        #expect(patients == 1)
        #expect(pending == 0, "a reader must not see an uncommitted write")
        releaseWriter.signal()
        try await writer.value
        let after = try await store.read { db in try db.scalar("SELECT count(*) FROM settings WHERE key = 'pending'", as: Int.self) }
        #expect(after == 1)
    }

    @Test("many tasks writing and reading at once lose no write")
    func concurrentWritersAndReaders() async throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask {
                    _ = try await store.importRecord(.record("rec-\(i)", entries: .numbered(10)))
                }
                group.addTask {
                    _ = try await store.patients()
                }
            }
            try await group.waitForAll()
        }
        let patients = try await store.patients()
        #expect(patients.count == 40)
        #expect(patients.allSatisfy { $0.entryCount == 10 })
    }

    @Test("a closed store refuses work with a clear error")
    func closedStore() async throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        store.close()
        await #expect(throws: StoreError.self) { try await store.patients() }
        #expect(throws: StoreError.self) { try store.importRecordSync(.record(entries: .numbered(3))) }
    }
}
