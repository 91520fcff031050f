import Foundation
import Records
import HealthRecord
import Store
import SyntheticRecords
import TimelineAPI

/// A backup of a store holding a generated 100,000-entry patient: the time to write it (online, from a
/// reader's snapshot), its size against the database's, and the time to verify and to restore it.
enum BackupBenchmark {
    struct Result {
        var entries: Int
        var databaseBytes: Int64
        var backupBytes: Int64
        var backupSeconds: Double
        var verifySeconds: Double
        var restoreSeconds: Double
    }

    static func run(entries: Int = 100_000) throws -> Result {
        let generator = SyntheticRecords(seed: 2012)
        let bytes = generator.record(for: generator.family()[0], entries: entries, shape: .gen1)
        let record = try RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count))).parse(bytes)
        let directory = NSTemporaryDirectory() + "hreaderd-backup-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let state = StateDirectory(path: directory + "/state")
        let (store, _) = try Store.create(at: state, password: "bench", passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        _ = try store.importRecordSync(record)
        let file = directory + "/store.hrdbak"
        let start = DispatchTime.now()
        let info = try store.backup(to: file)
        let backupSeconds = StoreBenchmark.seconds(since: start)
        store.close()
        let databaseBytes = (try? FileManager.default.attributesOfItem(atPath: state.databasePath)[.size] as? Int).map(Int64.init) ?? 0
        let verifyStart = DispatchTime.now()
        _ = try BackupFile.verify(file)
        let verifySeconds = StoreBenchmark.seconds(since: verifyStart)
        let restoreStart = DispatchTime.now()
        _ = try Store.restore(file, into: StateDirectory(path: directory + "/restored")) { vault throws(StoreError) in try vault.unlock(password: "bench") }
        let restoreSeconds = StoreBenchmark.seconds(since: restoreStart)
        return Result(entries: record.entries.count, databaseBytes: databaseBytes, backupBytes: info.fileBytes,
                      backupSeconds: backupSeconds, verifySeconds: verifySeconds, restoreSeconds: restoreSeconds)
    }

    static func printTable(_ r: Result) {
        print("")
        print("Backup of a store with a generated \(r.entries)-entry patient (hreaderd backup: online copy, one file)")
        print(String(repeating: "-", count: 64))
        print("database \(String(format: "%.1f", Double(r.databaseBytes) / 1e6)) MB; backup file \(String(format: "%.1f", Double(r.backupBytes) / 1e6)) MB")
        print("backup \(String(format: "%.2f", r.backupSeconds)) s; verify \(String(format: "%.2f", r.verifySeconds)) s; restore (with integrity check) \(String(format: "%.2f", r.restoreSeconds)) s")
    }

    static func json(_ r: Result) -> String {
        #"{"entries":\#(r.entries),"database_bytes":\#(r.databaseBytes),"backup_bytes":\#(r.backupBytes),"backup_seconds":\#(r.backupSeconds),"verify_seconds":\#(r.verifySeconds),"restore_seconds":\#(r.restoreSeconds)}"#
    }
}
