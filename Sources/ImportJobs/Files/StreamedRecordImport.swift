import Dispatch
import Records
import Store

/// An RHEx record file too large to hold whole (`StreamedRecordFile`), imported as it is read: one thread
/// parses batches of entries and makes them ready to write (`Store.prepare`: their codes, digests and
/// timeline JSON) while the store's writer writes the batches before, in the one transaction of the
/// patient. Memory holds a few batches, never the record.
public enum StreamedRecordImport {
    /// Batches parsed ahead of the writer at most.
    static let batchesAhead = 4

    /// Imports the file's record. nil when the file is not one record (one record a line: read it with
    /// `RecordFileReader`). Throws a `RecordParseError` for a bad document, a `StoreError` when the store
    /// refuses it; either way nothing of it is written. `progress` is told the entries written so far, and
    /// how many the record holds: first (0, all) once the file is checked, then after each batch.
    public static func run(_ file: StreamedRecordFile, store: Store, options: ImportOptions,
                           progress: (_ written: Int, _ total: Int) -> Void = { _, _ in }) throws -> ImportSummary? {
        guard let (record, total) = try file.readHead() else { return nil }
        progress(0, total)
        let handoff = BatchHandoff<Store.PreparedEntries>(capacity: batchesAhead)
        let produced = DispatchSemaphore(value: 0)
        let reading = UncheckedFile(file: file)
        DispatchQueue.global().async {
            defer { produced.signal() }
            struct Stopped: Error {}
            do {
                try reading.file.readEntries(expected: total) { batch in
                    guard handoff.put(.batch(try store.prepare(batch))) else { throw Stopped() }
                }
                handoff.put(.end)
            } catch is Stopped {
                return
            } catch {
                handoff.put(.failed(error))
            }
        }
        // The reader is done with the mapped file before it goes.
        defer { produced.wait() }
        defer { handoff.stop() }
        var written = 0
        return try store.importRecordSync(record, entries: { write in
            while true {
                switch handoff.take() {
                case .batch(let batch):
                    try write(batch)
                    written += batch.count
                    progress(written, total)
                case .end:
                    return
                case .failed(let error):
                    throw error
                }
            }
        }, options: options)
    }

    /// The file, read by the producing thread only once the head is read: one thread at a time.
    private struct UncheckedFile: @unchecked Sendable {
        let file: StreamedRecordFile
    }
}
