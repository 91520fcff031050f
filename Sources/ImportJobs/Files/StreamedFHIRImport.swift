import Records
import HealthRecord
import Store
import Synchronization

/// One patient of a long FHIR record imported as it is mapped: a thread of its own (`DetachedThread`) maps the
/// patient's resources a batch at a time and makes the entries ready to write (`Store.prepare`) while the
/// store's writer writes the batches before, in the one transaction of the patient. The writer starts as soon
/// as the first batch is ready, instead of after the whole record is mapped.
enum StreamedFHIRImport {
    /// Resources mapped in one batch.
    static let batchResources = 2_048
    /// Batches made ready ahead of the writer at most.
    static let batchesAhead = 4

    /// Imports `record` (the person and kept resources) with the entries of `pending`. A resource that
    /// cannot be mapped throws its `FHIRError`, an error of the store a `StoreError`; either way nothing of
    /// the patient is written. Returns what the store did and what the mapping gave.
    static func run(_ record: PatientRecord, pending: FHIRPendingEntries, store: Store, sourceName: String,
                    options: ImportOptions) async throws -> (ImportSummary, FHIRPendingEntries.Tally) {
        let handoff = BatchHandoff<Store.PreparedEntries>(capacity: batchesAhead)
        // However the write ends (even before it asks for a batch), the mapping thread is told to stop.
        defer { handoff.stop() }
        let tally = Mutex(FHIRPendingEntries.Tally())
        DetachedThread.start(named: "fhir-mapping") {
            var counted = FHIRPendingEntries.Tally()
            var start = 0
            do {
                while start < pending.count {
                    let end = min(start + batchResources, pending.count)
                    handoff.freeGivenBack()
                    let entries = try pending.entries(start..<end, tally: &counted)
                    // False when the writer has stopped (the store failed): nothing more is wanted.
                    guard handoff.put(.batch(try store.prepare(entries))) else { return }
                    start = end
                }
                tally.withLock { $0 = counted }
                handoff.put(.end)
            } catch {
                handoff.put(.failed(error))
            }
        }
        // Cancelled (the daemon shuts down): the writer's next batch is the error, which undoes the transaction.
        let summary = try await withTaskCancellationHandler {
            try await store.importRecord(record, entries: { write in
                while true {
                    switch try handoff.take(whileWaiting: write.writeOutChangedPages) {
                    case .batch(let batch):
                        try write(batch)
                        handoff.giveBack(batch)
                    case .end: return
                    case .failed(let error): throw error
                    }
                }
            }, sourceName: sourceName, options: options)
        } onCancel: {
            handoff.cancel(CancellationError())
        }
        return (summary, tally.withLock { $0 })
    }
}
