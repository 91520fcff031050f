import HealthRecord

/// The audit trail (`audit_log`): appended by every action it lists, read by `/audit.json` and `hreaderd
/// audit`, pruned only by age. No query changes a row.
enum AuditQueries {
    /// A detail is a short note (a file name, a count): longer text is cut, so no caller can store contents.
    static let maximumDetail = 200

    static func append(_ event: AuditEvent, in db: Database) throws {
        var actor = event.actor
        // A token is named by its name (never its secret); the request knew only its id.
        if actor.hasPrefix("token:") {
            let id = String(actor.dropFirst(6))
            actor = "token " + (try db.scalar("SELECT name FROM api_tokens WHERE id = ?", [id], as: String.self) ?? id)
        }
        try db.execute("INSERT INTO audit_log (at, action, actor, patient_id, detail) VALUES (?, ?, ?, ?, ?)",
                       [event.at, event.action.rawValue, String(actor.prefix(maximumDetail)), event.patientID,
                        event.detail.map { String($0.prefix(maximumDetail)) }])
    }

    static func read(action: AuditEvent.Action?, patientID: String?, from: Int64?, to: Int64?, before: Int64?, limit: Int,
                     in db: Database) throws -> [AuditEvent] {
        var sql = "SELECT id, at, action, actor, patient_id, detail FROM audit_log WHERE 1"
        var arguments: [any DatabaseValueConvertible] = []
        if let action { sql += " AND action = ?"; arguments.append(action.rawValue) }
        if let patientID { sql += " AND patient_id = ?"; arguments.append(patientID) }
        if let from { sql += " AND at >= ?"; arguments.append(from) }
        if let to { sql += " AND at <= ?"; arguments.append(to) }
        if let before { sql += " AND id < ?"; arguments.append(before) }
        sql += " ORDER BY id DESC LIMIT ?"
        arguments.append(Int64(limit))
        var events: [AuditEvent] = []
        try db.statement(sql).forEach(arguments) { row in
            guard let action = AuditEvent.Action(rawValue: row.string("action")) else { return }
            events.append(AuditEvent(id: row.int64("id"), at: row.int64("at"), action: action, actor: row.string("actor"),
                                     patientID: row.stringOrNil("patient_id"), detail: row.stringOrNil("detail")))
        }
        return events
    }
}

extension Store {
    public func recordAudit(_ event: AuditEvent) throws(StoreError) {
        try writeSync { db in try AuditQueries.append(event, in: db) }
    }

    public func recordAudit(_ event: AuditEvent) async throws(StoreError) {
        try await write { db in try AuditQueries.append(event, in: db) }
    }

    /// The newest events first, `limit` of them, before the event `before` (a page's cursor).
    public func auditEvents(action: AuditEvent.Action? = nil, patientID: String? = nil, from: Int64? = nil, to: Int64? = nil,
                            before: Int64? = nil, limit: Int = 50) async throws(StoreError) -> [AuditEvent] {
        try await read { db in try AuditQueries.read(action: action, patientID: patientID, from: from, to: to, before: before, limit: limit, in: db) }
    }

    package func auditEventsSync(action: AuditEvent.Action? = nil, patientID: String? = nil, from: Int64? = nil, to: Int64? = nil,
                                before: Int64? = nil, limit: Int = 50) throws(StoreError) -> [AuditEvent] {
        try readSync { db in try AuditQueries.read(action: action, patientID: patientID, from: from, to: to, before: before, limit: limit, in: db) }
    }

    /// Removes events older than `cutoff` (the retention setting); the only deletion there is. Returns how many.
    @discardableResult
    public func pruneAudit(olderThan cutoff: Int64) throws(StoreError) -> Int {
        try writeSync { db in
            try db.execute("DELETE FROM audit_log WHERE at < ?", [cutoff])
            return Int(db.changes)
        }
    }
}
