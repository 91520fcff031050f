import HealthRecord

/// One thing a search found: an entry, a timeline post or a section of an imported document.
public struct SearchHit: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case entry, post, section
    }

    public var kind: Kind
    /// The entry's id, the post's id, or `{document id}#{section number}`.
    public var id: String
    public var patientID: String
    /// The entry's type, the post's kind (`levels`, `medication`, `regimen`), or `document`.
    public var type: String
    public var date: Int64?
    /// The entry's description, the section's title (with its document's), the post's words.
    public var title: String
    /// Where the words were found, in order: plain text, and the matching words marked.
    public var snippet: [SnippetPart]
    /// Best first.
    public var score: Double

    public struct SnippetPart: Sendable, Equatable {
        public var text: String
        public var match: Bool

        public init(text: String, match: Bool) {
            self.text = text
            self.match = match
        }
    }
}

/// One page of results.
public struct SearchPage: Sendable, Equatable {
    public var hits: [SearchHit]
    /// Everything the query found with these filters.
    public var total: Int
    /// The offset of the next page, or nil on the last.
    public var nextOffset: Int?
}

/// What to search within: the patients (a person's linked patients), the kind of thing, a date range.
public struct SearchFilter: Sendable, Equatable {
    public var patientIDs: [String]
    /// An entry type's raw value, `post`, or `document`; nil for everything.
    public var type: String?
    public var from: Int64?
    public var to: Int64?

    public init(patientIDs: [String], type: String? = nil, from: Int64? = nil, to: Int64? = nil) {
        self.patientIDs = patientIDs
        self.type = type
        self.from = from
        self.to = to
    }

    /// The types a filter may name.
    public static let types: Set<String> = Set(EntryType.allCases.map(\.rawValue)).union(["post", "document"])
}
