import HealthRecord

/// Jobs of the `files` source: an uploaded file imported in the background, with its progress and, at
/// the end, its report. Such a job is never claimed by the runner (it claims remote sources only): the
/// process that started it runs it, and one it left running when it stopped is failed at the next start.
extension Store {
    /// A running job for an upload, owned by `owner`.
    public func startFileImportJob(owner: String, now: Int64 = Store.now()) async throws(StoreError) -> ImportJob {
        try await write { db in
            guard let sourceID = try db.scalar("SELECT id FROM sources WHERE name = ?", [Source.filesSourceName], as: Int64.self) else {
                throw StoreError.notFound("source \(Source.filesSourceName)")
            }
            try db.execute("""
                INSERT INTO import_jobs (source_id, state, trigger, attempts, created_at, started_at, owner, heartbeat_at)
                VALUES (?, 'running', ?, 1, ?, ?, ?, ?)
                """, [sourceID, ImportJob.Trigger.upload.rawValue, now, now, owner, now])
            let id = db.lastInsertRowID
            guard let job = try db.row("SELECT \(Store.jobColumns) WHERE j.id = ?", [id], Store.job) else {
                throw StoreError.notFound("import job \(id)")
            }
            return job
        }
    }

    public func setFileImportJobProgress(id: Int64, done: Int, total: Int, now: Int64 = Store.now()) async throws(StoreError) {
        try await write { db in
            try db.execute("UPDATE import_jobs SET progress_done = ?, progress_total = ?, heartbeat_at = ? WHERE id = ? AND state = 'running'",
                           [done, total, now, id])
        }
    }

    /// Ends an upload's job with what it did; `error` makes it `failed`.
    public func finishFileImportJob(id: Int64, counts: ImportCounts, reportJSON: String, error: String?,
                                    now: Int64 = Store.now()) async throws(StoreError) {
        try await write { db in
            try db.execute("""
                UPDATE import_jobs SET state = ?, last_error = ?, finished_at = ?, owner = NULL, report = ?, \(Store.countColumns)
                WHERE id = ?
                """, [error == nil ? "done" : "failed", error, now, reportJSON] + Store.countValues(counts) + [id])
            if error == nil {
                try db.execute("UPDATE sources SET last_sync_at = ? WHERE name = ?", [now, Source.filesSourceName])
            }
        }
    }

    /// Upload jobs left running by another process (one that stopped: only the serving daemon runs
    /// uploads): failed, with the reason.
    @discardableResult
    public func failInterruptedFileImportJobs(currentOwner: String, now: Int64 = Store.now()) async throws(StoreError) -> Int {
        try await write { db in
            try db.execute("""
                UPDATE import_jobs SET state = 'failed', finished_at = ?, owner = NULL,
                    last_error = 'interrupted: the daemon stopped during the import; the patients it finished are imported, upload the file again for the rest'
                WHERE state = 'running' AND trigger = 'upload' AND owner IS NOT ?
                """, [now, currentOwner])
            return db.changes
        }
    }

    /// A job's report (JSON), when it has one.
    public func importJobReport(id: Int64) async throws(StoreError) -> String? {
        try await read { db in try db.scalar("SELECT report FROM import_jobs WHERE id = ?", [id], as: String.self) }
    }
}
