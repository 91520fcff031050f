import HealthRecord

/// One row of the audit trail: who did what to which patient, and when; never what the record holds.
public struct AuditEvent: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        case signIn = "sign_in", signInFailed = "sign_in_failed", signOut = "sign_out", lock
        case tokenCreated = "token_created", tokenUsed = "token_used", tokenRevoked = "token_revoked"
        case importFiles = "import", sync, export, backup, backupFailed = "backup_failed", restore
        case deletion, annotation, patientChange = "patient_change", reading
    }

    public var id: Int64?
    public var at: Int64
    public var action: Action
    /// Who: `session ab12cd` (a digest of the session, never the cookie), `token NAME`, `cli`, `daemon`,
    /// `source NAME`.
    public var actor: String
    /// The store's own id of the patient, never a name or a record number.
    public var patientID: String?
    /// What it was done to, by id or name of a file, token or source; counts. Never record contents.
    public var detail: String?

    public init(id: Int64? = nil, at: Int64 = Store.now(), action: Action, actor: String, patientID: String? = nil, detail: String? = nil) {
        self.id = id
        self.at = at
        self.action = action
        self.actor = actor
        self.patientID = patientID
        self.detail = detail
    }
}
