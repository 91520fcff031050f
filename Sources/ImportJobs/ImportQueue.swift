import HealthRecord
import Store

/// Queues syncs: what `POST /imports` and `hreaderd sync` call. Wakes this process's runners.
public enum ImportQueue {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownSource(String)
        case noSources
        case store(StoreError)

        public var description: String {
            switch self {
            case .unknownSource(let name): return "there is no RHEx or FHIR source named \(name)"
            case .noSources: return "there is no RHEx or FHIR source yet: add one with `hreaderd source add`"
            case .store(let error): return error.description
            }
        }

        public static func == (a: Failure, b: Failure) -> Bool { a.description == b.description }
    }

    /// Queues a sync of the source `name`, or of every remote source (RHEx, FHIR) when nil. A source that already has a
    /// job queued or running gets no second one: that job is returned (moved to now when it was waiting
    /// out a retry's backoff).
    public static func enqueue(_ name: String?, trigger: ImportJob.Trigger, store: Store,
                               now: Int64 = Store.now()) async throws(Failure) -> [ImportJob] {
        let sources: [Source]
        do {
            if let name {
                guard let source = try await store.source(named: name), source.kind.isRemote else { throw Failure.unknownSource(name) }
                sources = [source]
            } else {
                sources = try await store.remoteSources()
            }
        } catch let error as Failure {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.io("\(error)"))
        }
        guard !sources.isEmpty else { throw .noSources }
        var jobs: [ImportJob] = []
        for source in sources {
            do { jobs.append(try await store.enqueueImport(sourceID: source.id, trigger: trigger, runNow: true, now: now).job) } catch {
                throw .store(error)
            }
        }
        Wakeup.jobs.signal()
        return jobs
    }
}
