import Dispatch
import Records
import HealthRecord
import Store

/// An RHEx record file too large to hold whole (`StreamedRecordFile`), imported as it is read: one thread
/// parses batches of entries and makes them ready to write (`Store.prepare`: their codes, digests and
/// timeline JSON) while the store's writer writes the batches before, in the one transaction of the
/// patient. Memory holds a few batches and the ids given so far (16 bytes each), never the record.
public enum StreamedRecordImport {
    /// Batches parsed ahead of the writer at most.
    static let batchesAhead = 4

    /// Imports the file's record, whose head (`StreamedRecordFile.readHead`) the caller has read. Throws a
    /// `RecordParseError` or `RecordFileError` for a bad or changed file, a `StoreError` when the store
    /// refuses the record; either way nothing of it is written. `progress` is told the entries written so
    /// far after each batch. The file is read on another thread while this waits: the caller must not use
    /// it until this returns.
    public static func run(_ file: StreamedRecordFile, head: StreamedRecordFile.Head, store: Store, options: ImportOptions,
                           progress: (_ written: Int) -> Void = { _ in }) throws -> ImportSummary {
        let handoff = BatchHandoff<Store.PreparedEntries>(capacity: batchesAhead)
        let produced = DispatchSemaphore(value: 0)
        let reading = UncheckedFile(file: file)
        DetachedThread.start(named: "record-reading") {
            defer { produced.signal() }
            struct Stopped: Error {}
            do {
                try reading.file.readEntries(of: head) { batch in
                    handoff.freeGivenBack()
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
        return try store.importRecordSync(head.record, entries: { write in
            while true {
                switch try handoff.take(whileWaiting: write.writeOutChangedPages) {
                case .batch(let batch):
                    try write(batch)
                    written += batch.count
                    handoff.giveBack(batch)
                    progress(written)
                case .end:
                    return
                case .failed(let error):
                    throw error
                }
            }
        }, options: options)
    }

    /// The file, read by the producing thread while `run` waits for it: one thread at a time.
    private struct UncheckedFile: @unchecked Sendable {
        let file: StreamedRecordFile
    }
}
