/// An imported document's readable text (C-CDA, C32): its title and time, and each section's narrative as
/// plain lines. Kept so that sections with narrative but no structured entries, common in real documents,
/// can still be read, exported and searched. Text only: a document is untrusted input and is never shown
/// as HTML.
public struct ClinicalDocument: Sendable, Equatable {
    /// The document's own id (`root|extension`), else a digest of its content.
    public var id: String
    public var title: String
    /// The document's effective time (epoch seconds), when it gives one.
    public var time: Int64?
    /// `ccda` or `c32`.
    public var format: String
    public var sections: [Section]
    /// When it was imported (set by the store).
    public var importedAt: Int64?

    public struct Section: Sendable, Equatable {
        public var title: String
        /// The section's LOINC code, when it has one.
        public var code: String?
        /// The narrative as lines; table cells separated by " | ".
        public var text: String
        /// Structured entries the section gave (0: narrative only).
        public var entries: Int

        public init(title: String, code: String?, text: String, entries: Int) {
            self.title = title
            self.code = code
            self.text = text
            self.entries = entries
        }
    }

    public init(id: String, title: String, time: Int64?, format: String, sections: [Section], importedAt: Int64? = nil) {
        self.id = id
        self.title = title
        self.time = time
        self.format = format
        self.sections = sections
        self.importedAt = importedAt
    }
}
