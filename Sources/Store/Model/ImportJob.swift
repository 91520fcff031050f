import HealthRecord

/// One sync of one RHEx source, persisted so that it survives restarts (docs/api.md, "Imports and sync").
///
/// A job is `queued` (possibly with `nextRunAt` in the future: a retry after a backoff), `running` under
/// a lease (`owner` and `heartbeatAt`: a process that stops renewing it loses the job to the next one),
/// or final: `done`, `failed`, `needsSignIn`.
public struct ImportJob: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case queued
        case running
        case done
        case failed
        case needsSignIn = "needs_sign_in"

        /// Whether the job is over (nothing will run it again).
        public var isFinal: Bool { self == .done || self == .failed || self == .needsSignIn }
    }

    /// Why a job was created.
    public enum Trigger: String, Sendable {
        /// `POST /imports`.
        case request
        /// `hreaderd sync`.
        case command
        /// The daemon's periodic sync.
        case schedule
        /// A file uploaded to `POST /imports/files` (a job of the `files` source).
        case upload
    }

    public var id: Int64
    public var sourceID: Int64
    public var sourceName: String
    /// Which syncer runs it.
    public var sourceKind: Source.Kind
    public var state: State
    public var trigger: String
    /// Runs started so far (a retry or a resumption after a crash is one more).
    public var attempts: Int
    public var progressDone: Int
    /// Patients in the feed, once it has been read.
    public var progressTotal: Int?
    public var lastError: String?
    public var createdAt: Int64
    public var startedAt: Int64?
    public var finishedAt: Int64?
    /// When a queued job may run (a retry's backoff); nil: at once.
    public var nextRunAt: Int64?
    /// The process holding the lease while running (`host:pid:nonce`).
    public var owner: String?
    public var heartbeatAt: Int64?
    public var counts: ImportCounts

    public init(id: Int64, sourceID: Int64, sourceName: String, sourceKind: Source.Kind = .rhex, state: State, trigger: String, attempts: Int,
                progressDone: Int, progressTotal: Int?, lastError: String?, createdAt: Int64, startedAt: Int64?,
                finishedAt: Int64?, nextRunAt: Int64?, owner: String?, heartbeatAt: Int64?, counts: ImportCounts) {
        self.id = id
        self.sourceID = sourceID
        self.sourceName = sourceName
        self.sourceKind = sourceKind
        self.state = state
        self.trigger = trigger
        self.attempts = attempts
        self.progressDone = progressDone
        self.progressTotal = progressTotal
        self.lastError = lastError
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.nextRunAt = nextRunAt
        self.owner = owner
        self.heartbeatAt = heartbeatAt
        self.counts = counts
    }
}

/// What a run of a job did to the store, patient by patient.
public struct ImportCounts: Sendable, Equatable {
    public var patientsAdded = 0
    public var patientsUpdated = 0
    /// Downloaded again, but identical to what is stored.
    public var patientsUnchanged = 0
    /// Not downloaded: the server answered `304 Not Modified`.
    public var patientsNotModified = 0
    /// Could not be downloaded, parsed or stored; nothing of these patients changed.
    public var patientsFailed = 0
    public var entriesAdded = 0
    public var entriesUpdated = 0
    /// Imported again as they were. Not kept with a job (`import_jobs` has no column for it): 0 in a job read
    /// back; `import-file` and a file's import report count it.
    public var entriesUnchanged = 0
    public var entriesRemoved = 0

    public init() {}

    /// Patients handled, whatever the outcome.
    public var patientsDone: Int {
        patientsAdded + patientsUpdated + patientsUnchanged + patientsNotModified + patientsFailed
    }

    public mutating func add(_ summary: ImportSummary) {
        switch summary.patient {
        case .added: patientsAdded += 1
        case .updated: patientsUpdated += 1
        case .unchanged: patientsUnchanged += 1
        }
        entriesAdded += summary.entriesAdded
        entriesUpdated += summary.entriesUpdated
        entriesUnchanged += summary.entriesUnchanged
        entriesRemoved += summary.entriesRemoved
    }

    /// One line: "500 patients: 500 added, 0 updated, 0 unchanged, 0 not modified, 0 failed; entries …".
    public var summary: String {
        "\(patientsDone) patients: \(patientsAdded) added, \(patientsUpdated) updated, \(patientsUnchanged) unchanged, "
            + "\(patientsNotModified) not modified, \(patientsFailed) failed; "
            + "entries \(entriesAdded) added, \(entriesUpdated) updated, \(entriesRemoved) removed"
    }
}
