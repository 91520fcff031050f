import HealthRecord
import FoundationEssentials

/// Import jobs: queued by `POST /imports`, `hreaderd sync` or the daemon's schedule, claimed under a lease
/// by one process at a time, and finished with what they did. Every step is one short transaction, so a
/// `hreaderd sync` beside a serving daemon never waits long for the writer.
extension Store {
    static let jobColumns = """
        j.id, j.source_id, s.name AS source_name, j.state, j.trigger, j.attempts, j.progress_done, j.progress_total, j.last_error,
        j.created_at, j.started_at, j.finished_at, j.next_run_at, j.owner, j.heartbeat_at,
        j.patients_added, j.patients_updated, j.patients_unchanged, j.patients_not_modified, j.patients_failed,
        j.entries_added, j.entries_updated, j.entries_removed, s.kind AS source_kind
        FROM import_jobs j JOIN sources s ON s.id = j.source_id
        """

    static func job(_ row: Row) -> ImportJob {
        var counts = ImportCounts()
        counts.patientsAdded = Int(row.int64("patients_added"))
        counts.patientsUpdated = Int(row.int64("patients_updated"))
        counts.patientsUnchanged = Int(row.int64("patients_unchanged"))
        counts.patientsNotModified = Int(row.int64("patients_not_modified"))
        counts.patientsFailed = Int(row.int64("patients_failed"))
        counts.entriesAdded = Int(row.int64("entries_added"))
        counts.entriesUpdated = Int(row.int64("entries_updated"))
        counts.entriesRemoved = Int(row.int64("entries_removed"))
        return ImportJob(
            id: row.int64("id"), sourceID: row.int64("source_id"), sourceName: row.string("source_name"),
            sourceKind: Source.Kind(rawValue: row.string("source_kind")) ?? .rhex,
            state: ImportJob.State(rawValue: row.string("state")) ?? .failed, trigger: row.string("trigger"),
            attempts: Int(row.int64("attempts")), progressDone: Int(row.int64("progress_done")),
            progressTotal: row.int64OrNil("progress_total").map { Int($0) }, lastError: row.stringOrNil("last_error"),
            createdAt: row.int64("created_at"), startedAt: row.int64OrNil("started_at"), finishedAt: row.int64OrNil("finished_at"),
            nextRunAt: row.int64OrNil("next_run_at"), owner: row.stringOrNil("owner"), heartbeatAt: row.int64OrNil("heartbeat_at"),
            counts: counts)
    }

    /// The counts' columns and values, in one order, for UPDATEs.
    static let countColumns = """
        patients_added = ?, patients_updated = ?, patients_unchanged = ?, patients_not_modified = ?, patients_failed = ?,
        entries_added = ?, entries_updated = ?, entries_removed = ?
        """

    static func countValues(_ c: ImportCounts) -> [any DatabaseValueConvertible] {
        [c.patientsAdded, c.patientsUpdated, c.patientsUnchanged, c.patientsNotModified, c.patientsFailed,
         c.entriesAdded, c.entriesUpdated, c.entriesRemoved]
    }

    /// Finished jobs kept per source, for the listing; older ones are deleted when a job finishes.
    public static let finishedJobsKept = 20

    // MARK: - Queueing

    /// Queues a sync of a source, unless one is already queued or running: then that job is returned
    /// (`created` false), and a queued one waiting out a retry's backoff is moved to now when `runNow`.
    public func enqueueImport(sourceID: Int64, trigger: ImportJob.Trigger, runNow: Bool = true,
                              now: Int64 = Store.now()) async throws(StoreError) -> (job: ImportJob, created: Bool) {
        try await write { db in
            guard let kind = try db.scalar("SELECT kind FROM sources WHERE id = ?", [sourceID], as: String.self),
                  Source.Kind(rawValue: kind)?.isRemote == true else {
                throw StoreError.notFound("remote source \(sourceID)")
            }
            if let active = try db.row("SELECT \(Store.jobColumns) WHERE j.source_id = ? AND j.state IN ('queued', 'running') ORDER BY j.id LIMIT 1",
                                       [sourceID], Store.job) {
                if runNow, active.state == .queued, let next = active.nextRunAt, next > now {
                    try db.execute("UPDATE import_jobs SET next_run_at = NULL WHERE id = ?", [active.id])
                    var moved = active
                    moved.nextRunAt = nil
                    return (moved, false)
                }
                return (active, false)
            }
            try db.execute("INSERT INTO import_jobs (source_id, state, trigger, created_at) VALUES (?, 'queued', ?, ?)",
                           [sourceID, trigger.rawValue, now])
            let id = db.lastInsertRowID
            guard let job = try db.row("SELECT \(Store.jobColumns) WHERE j.id = ?", [id], Store.job) else {
                throw StoreError.notFound("import job \(id)")
            }
            return (job, true)
        }
    }

    /// Queues a sync of every RHEx source that is due: in state `ok`, with no job queued or running, and
    /// whose last job finished at least its interval ago (the source's own setting, else
    /// `defaultIntervalSeconds`; 0 or less: never). A source that never synced is due at once.
    public func enqueueDueImports(defaultIntervalSeconds: Int64, now: Int64 = Store.now()) async throws(StoreError) -> [ImportJob] {
        try await write { db in
            let candidates = try db.rows("""
                SELECT s.id, s.settings, (SELECT max(coalesce(j.finished_at, j.created_at)) FROM import_jobs j WHERE j.source_id = s.id)
                FROM sources s
                WHERE s.kind IN ('rhex', 'fhir') AND s.state = 'ok'
                  AND NOT EXISTS (SELECT 1 FROM import_jobs a WHERE a.source_id = s.id AND a.state IN ('queued', 'running'))
                ORDER BY s.id
                """, []) { row in (row.int64(0), SourceSettings.decode(row.string(1)), row.int64OrNil(2)) }
            var queued: [ImportJob] = []
            for (sourceID, settings, last) in candidates {
                let interval = settings.syncIntervalSeconds ?? defaultIntervalSeconds
                guard interval > 0 else { continue }
                if let last, last + interval > now { continue }
                try db.execute("INSERT INTO import_jobs (source_id, state, trigger, created_at) VALUES (?, 'queued', ?, ?)",
                               [sourceID, ImportJob.Trigger.schedule.rawValue, now])
                if let job = try db.row("SELECT \(Store.jobColumns) WHERE j.id = ?", [db.lastInsertRowID], Store.job) {
                    queued.append(job)
                }
            }
            return queued
        }
    }

    // MARK: - Listing

    /// The newest jobs first.
    public func importJobs(limit: Int = 50) async throws(StoreError) -> [ImportJob] {
        try await read { db in try db.rows("SELECT \(Store.jobColumns) ORDER BY j.id DESC LIMIT ?", [limit], Store.job) }
    }

    public func importJobs(ids: [Int64]) async throws(StoreError) -> [ImportJob] {
        guard !ids.isEmpty else { return [] }
        return try await read { db in
            try db.rows("SELECT \(Store.jobColumns) WHERE j.id IN (\(Store.placeholders(ids.count))) ORDER BY j.id", ids, Store.job)
        }
    }

    public func importJob(id: Int64) async throws(StoreError) -> ImportJob? {
        try await read { db in try db.row("SELECT \(Store.jobColumns) WHERE j.id = ?", [id], Store.job) }
    }

    /// The owners of running jobs, for telling which of them belong to processes that died.
    public func runningImportJobOwners() async throws(StoreError) -> [String] {
        try await read { db in
            try db.rows("SELECT DISTINCT owner FROM import_jobs WHERE state = 'running' AND owner IS NOT NULL", []) { $0.string(0) }
        }
    }

    // MARK: - The lease

    /// Claims the job that should run next, if any may run now, for `owner`: a queued job that is due,
    /// or a running one whose lease has lapsed (no heartbeat for `leaseSeconds`) or whose owner is in
    /// `reclaimableOwners` (a process known to be dead, or this one after the store was locked under it).
    /// Never a second job of a source whose job runs under a live lease. The claimed job is `running`,
    /// owned by `owner`, with one more attempt and its progress and counts reset.
    public func claimImportJob(owner: String, leaseSeconds: Int64, reclaimableOwners: [String] = [], excluding: [Int64] = [],
                               only: [Int64]? = nil, now: Int64 = Store.now()) async throws(StoreError) -> ImportJob? {
        if let only, only.isEmpty { return nil }
        return try await write { db in
            let stale = now - leaseSeconds
            // Each condition is whole (its parentheses closed where it opens them); they are joined by AND.
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            func require(_ condition: String, _ values: [any DatabaseValueConvertible] = []) {
                conditions.append("(\(condition))")
                arguments += values
            }
            func list(_ count: Int) -> String { Store.placeholders(count) }
            let owners = reclaimableOwners as [any DatabaseValueConvertible]
            let mine = excluding as [any DatabaseValueConvertible]

            require("s.kind != 'file'")
            // Due: queued and past its backoff, or running under a lease that lapsed or that the caller may take.
            let takeable = reclaimableOwners.isEmpty ? "" : " OR j.owner IN (\(list(owners.count)))"
            require("""
                (j.state = 'queued' AND (j.next_run_at IS NULL OR j.next_run_at <= ?))
                OR (j.state = 'running' AND (j.heartbeat_at IS NULL OR j.heartbeat_at < ?\(takeable)))
                """, [now, stale] + owners)
            if !excluding.isEmpty { require("j.id NOT IN (\(list(mine.count)))", mine) }
            if let only { require("j.id IN (\(list(only.count)))", only as [any DatabaseValueConvertible]) }
            // No second job of a source whose other job runs under a live lease, or is one the caller runs.
            let liveLease = reclaimableOwners.isEmpty
                ? "o.heartbeat_at >= ?" : "o.heartbeat_at >= ? AND o.owner NOT IN (\(list(owners.count)))"
            let runByCaller = excluding.isEmpty ? "" : " OR o.id IN (\(list(mine.count)))"
            require("""
                NOT EXISTS (SELECT 1 FROM import_jobs o WHERE o.source_id = j.source_id AND o.id != j.id
                    AND o.state = 'running' AND ((\(liveLease))\(runByCaller)))
                """, [stale] + owners + mine)
            let sql = """
                SELECT j.id FROM import_jobs j JOIN sources s ON s.id = j.source_id
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY j.state = 'running' DESC, coalesce(j.next_run_at, j.created_at), j.id LIMIT 1
                """
            guard let id = try db.scalar(sql, arguments, as: Int64.self) else { return nil }
            try db.execute("""
                UPDATE import_jobs SET state = 'running', owner = ?, heartbeat_at = ?, started_at = ?, finished_at = NULL,
                    next_run_at = NULL, attempts = attempts + 1, progress_done = 0, progress_total = NULL, \(Store.countColumns)
                WHERE id = ?
                """, [owner, now, now] + Store.countValues(ImportCounts()) + [id])
            return try db.row("SELECT \(Store.jobColumns) WHERE j.id = ?", [id], Store.job)
        }
    }

    /// Renews the lease and records progress. False when `owner` no longer holds the job (it lapsed and
    /// another process took it, or the job or its source was removed): the caller must stop.
    public func heartbeatImportJob(id: Int64, owner: String, progressDone: Int, progressTotal: Int?, counts: ImportCounts,
                                   now: Int64 = Store.now()) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute("""
                UPDATE import_jobs SET heartbeat_at = ?, progress_done = max(progress_done, ?), progress_total = ?, \(Store.countColumns)
                WHERE id = ? AND owner = ? AND state = 'running'
                """, [now, progressDone, progressTotal] + Store.countValues(counts) + [id, owner])
            return db.changes == 1
        }
    }

    /// Imports one patient's record for a job: the record, the job's progress and its lease check in one
    /// transaction. Returns nil, writing nothing, when `owner` no longer holds the job.
    public func importRecord(_ record: PatientRecord, sourceName: String, etag: String?, jobID: Int64, owner: String,
                             progressDone: Int, options: ImportOptions = .replace, now: Int64 = Store.now()) async throws(StoreError) -> ImportSummary? {
        try await write { [entryEncoder] db in
            let holder = try db.scalar("SELECT owner FROM import_jobs WHERE id = ? AND state = 'running'", [jobID], as: String.self)
            guard holder == owner else { return nil }
            let summary = try RecordImport.apply(record, sourceName: sourceName, etag: etag, now: now, encoder: entryEncoder,
                                                 options: options, in: db)
            try db.execute("UPDATE import_jobs SET progress_done = max(progress_done, ?), heartbeat_at = ? WHERE id = ?",
                           [progressDone, now, jobID])
            return summary
        }
    }

    /// How a run of a job ended.
    public enum JobEnd: Sendable, Equatable {
        /// Every patient was imported (or not modified).
        case done
        /// Over; `reason` says why (the feed could not be read, some patients could not be imported…).
        case failed(reason: String)
        /// The server wants the user to sign in again; the source is marked too.
        case needsSignIn(reason: String)
        /// Queued again, to run at `at` (a retry after a backoff).
        case retry(reason: String, at: Int64)
        /// Queued again at once, this attempt not counted (the process is stopping).
        case release
    }

    /// Ends the run of a job held by `owner`, updating its source (last sync, state, last error) in the
    /// same transaction, and prunes the source's old finished jobs. False when `owner` did not hold it.
    @discardableResult
    public func finishImportJob(id: Int64, owner: String, end: JobEnd, progressDone: Int, progressTotal: Int?, counts: ImportCounts,
                                now: Int64 = Store.now()) async throws(StoreError) -> Bool {
        try await write { db in
            guard let sourceID = try db.scalar("SELECT source_id FROM import_jobs WHERE id = ? AND owner = ? AND state = 'running'",
                                               [id, owner], as: Int64.self) else { return false }
            let state: ImportJob.State
            var error: String?
            var nextRun: Int64?
            var finished: Int64? = now
            var attemptAdjustment = 0
            switch end {
            case .done:
                state = .done
            case .failed(let reason):
                state = .failed
                error = reason
            case .needsSignIn(let reason):
                state = .needsSignIn
                error = reason
            case .retry(let reason, let at):
                state = .queued
                error = reason
                nextRun = at
                finished = nil
            case .release:
                state = .queued
                finished = nil
                attemptAdjustment = -1
                error = try db.scalar("SELECT last_error FROM import_jobs WHERE id = ?", [id], as: String.self)
            }
            try db.execute("""
                UPDATE import_jobs SET state = ?, owner = NULL, heartbeat_at = NULL, finished_at = ?, next_run_at = ?, last_error = ?,
                    attempts = max(0, attempts + ?), progress_done = ?, progress_total = ?, \(Store.countColumns)
                WHERE id = ?
                """, [state.rawValue, finished, nextRun, error, attemptAdjustment, progressDone, progressTotal]
                    + Store.countValues(counts) + [id])
            switch end {
            case .done:
                try db.execute("UPDATE sources SET last_sync_at = ?, state = 'ok', last_error = NULL WHERE id = ?", [now, sourceID])
            case .failed(let reason), .retry(let reason, _):
                try db.execute("UPDATE sources SET last_error = ? WHERE id = ?", [reason, sourceID])
            case .needsSignIn(let reason):
                try db.execute("""
                    UPDATE sources SET state = 'needs_sign_in', last_error = ?, access_token = NULL, access_token_expires_at = NULL,
                        refresh_token = NULL, authorization_code = NULL
                    WHERE id = ?
                    """, [reason, sourceID])
            case .release:
                break
            }
            if state.isFinal {
                try db.execute("""
                    DELETE FROM import_jobs WHERE source_id = ? AND state IN ('done', 'failed', 'needs_sign_in') AND id NOT IN (
                        SELECT id FROM import_jobs WHERE source_id = ? AND state IN ('done', 'failed', 'needs_sign_in')
                        ORDER BY id DESC LIMIT ?)
                    """, [sourceID, sourceID, Store.finishedJobsKept])
            }
            return true
        }
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
