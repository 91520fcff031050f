/// How one run of a job ended.
public enum SyncOutcome: Sendable, Equatable {
    case done
    /// Over, for a reason that a retry soon would not fix.
    case failed(String)
    case needsSignIn(String)
    /// Worth another run after a backoff (network trouble, time-outs, `5xx` that the request's own
    /// retries did not get past).
    case retry(String)
    /// The store was locked or the process is stopping: the job goes back to the queue.
    case stopped
    /// Another process holds the job now (or it was removed): leave it alone.
    case leaseLost
}
