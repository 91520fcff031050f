import Records

/// Everything a sync can be told, each with a default for real servers. Tests shorten the times.
public struct SyncConfiguration: Sendable {
    /// Patient records downloaded at once, over all jobs of a runner.
    public var maxConcurrentDownloads = 4
    /// Sources synced at once by one runner.
    public var maxConcurrentJobs = 2
    /// Seconds one request may take in all (connect, send, wait, receive). libcurl's own timer, set from
    /// this too, counts whole seconds.
    public var requestTimeoutSeconds: Double = 30
    public var limits = ResponseLimits()
    /// Retries of one request within a run, on network errors, time-outs and `5xx`.
    public var requestRetry = Backoff(attempts: 3, baseSeconds: 0.5, maximumSeconds: 8)
    /// Runs of one job, on the same errors when a request's retries did not help: the job is queued again
    /// after the backoff, and fails after the last attempt.
    public var jobRetry = Backoff(attempts: 5, baseSeconds: 30, maximumSeconds: 30 * 60)
    /// A running job's lease: another process may take the job over when it was not renewed for this long.
    public var leaseSeconds: Int64 = 60
    /// How often a running job renews its lease and writes its progress.
    public var heartbeatSeconds: Double = 5
    /// How often an idle runner looks for work (new jobs wake it at once when queued in this process).
    public var pollSeconds: Double = 2
    /// The daemon's periodic sync of each source, in seconds; 0 or less: only when asked.
    public var syncIntervalSeconds: Int64 = 60 * 60
    /// Refresh an access token when fewer seconds than this remain (DESIGN.md: 60).
    public var refreshMarginSeconds: Int64 = 60
    /// Record parsing limits (a record is data from a server we do not control).
    public var parseLimits = ParseLimits()

    public init() {}
}

/// Caps on the size of what a server may send, by kind. An answer over its cap is abandoned as soon as
/// that is known (from `Content-Length`, or while it arrives).
public struct ResponseLimits: Sendable {
    /// 64 KiB: a token response is a few hundred bytes.
    public static let defaultTokenBytes = 64 << 10
    /// 16 MiB: an Atom feed of 10,000 patients is about 4 MB.
    public static let defaultFeedBytes = 16 << 20
    /// The parser's own limit: a larger record would be refused anyway.
    public static let defaultRecordBytes = ParseLimits.defaultMaxDocumentBytes

    public var tokenBytes = ResponseLimits.defaultTokenBytes
    public var feedBytes = ResponseLimits.defaultFeedBytes
    public var recordBytes = ResponseLimits.defaultRecordBytes

    public init() {}
}
