import FoundationEssentials
import HealthRecord
import Store
import Synchronization

/// The progress of a run, shared by its downloads and its heartbeat.
public final class RunProgress: Sendable {
    private struct State {
        var total: Int?
        var done = 0
        var counts = ImportCounts()
        /// Failures by kind: transient ones make the job worth a retry.
        var transientFailures = 0
        var firstFailure: String?
    }

    private let state = Mutex(State())

    public var snapshot: (done: Int, total: Int?, counts: ImportCounts) {
        state.withLock { ($0.done, $0.total, $0.counts) }
    }

    public var failures: (transient: Int, first: String?) {
        state.withLock { ($0.transientFailures, $0.firstFailure) }
    }

    public func setTotal(_ total: Int) { state.withLock { $0.total = total } }

    /// Counts one more patient handled; returns the new count (written with that patient's import).
    public func advance() -> Int {
        state.withLock { state -> Int in
            state.done += 1
            return state.done
        }
    }

    public func record(_ summary: ImportSummary) { state.withLock { $0.counts.add(summary) } }
    public func recordNotModified() { state.withLock { $0.counts.patientsNotModified += 1 } }

    /// A patient failed. With `recordID`, the failure names the store's patient id instead: a record id is a
    /// medical record number, and job errors and logs never hold one (a record's URL holds it too, as path
    /// segments).
    public func recordFailure(_ error: SyncError, recordID: String? = nil, patientID: String? = nil) {
        var text = error.description
        if let recordID, let patientID, !recordID.isEmpty {
            let shown = "{patient \(patientID)}"
            text = text.replacing("record " + recordID + ":", with: "patient " + patientID + ":")
            for form in Set([recordID, PercentEncoding.encode(recordID)]) {
                text = text.replacing("/" + form + "/", with: "/" + shown + "/")
                    .replacing("/" + form + ".", with: "/" + shown + ".")
            }
        }
        state.withLock { state in
            state.counts.patientsFailed += 1
            if error.isTransient { state.transientFailures += 1 }
            if state.firstFailure == nil { state.firstFailure = text }
        }
    }
}
