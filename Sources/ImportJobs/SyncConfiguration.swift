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
    /// Refresh an access token when fewer seconds than this remain (60, as the RHEx server's OAuth2 expects).
    public var refreshMarginSeconds: Int64 = 60
    /// Record parsing limits (a record is data from a server we do not control).
    public var parseLimits = ParseLimits()
    /// FHIR: the reader's limits for everything one patient's sync brings down.
    public var fhirLimits = FHIRLimits.standard
    /// A `429`'s `Retry-After` is waited out up to this many seconds; a longer one ends the run, to be
    /// retried by the job's backoff.
    public var longestRetryAfterSeconds: Double = 120
    /// `429` answers waited out within one request before the run gives up.
    public var rateLimitWaits = 5

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
    /// 32 MiB: one page of a FHIR search or `$everything` (a page of 50–1,000 resources is far smaller).
    public static let defaultFHIRPageBytes = 32 << 20
    public var fhirPageBytes = ResponseLimits.defaultFHIRPageBytes
    /// 1 MiB: a SMART configuration or a CapabilityStatement (a big server's is a few hundred KB).
    public static let defaultDiscoveryBytes = 1 << 20
    public var discoveryBytes = ResponseLimits.defaultDiscoveryBytes

    public init() {}
}
