import HealthRecord
import Synchronization

/// The record's measurements gathered as the store reads its vital signs and results (`StoredEntrySink`),
/// so that the summary of a long record holds a few numbers an entry instead of the entries: the summary
/// of a 1,000,000-entry record held every one of them, the daemon then at about 400 MB.
public final class MeasurementCollector: StoredEntrySink {
    private let gathered = Mutex(Measurements())

    public init() {}

    public func take(_ entry: StoredEntry) {
        gathered.withLock { $0.add(entry) }
    }

    /// What was gathered, with the person's readings; the collector is empty again after. Taken out, not
    /// copied: sorting a copy would hold the record's measurements twice.
    public func measurements(adding readings: [Reading]) -> Measurements {
        var done = gathered.withLock { measurements in
            var taken = Measurements()
            swap(&taken, &measurements)
            return taken
        }
        done.finish(adding: readings)
        return done
    }
}
