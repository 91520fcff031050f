/// A topic that explains an entry of the record, and why the library thinks so.
public struct TopicMatch: Sendable, Equatable {
    public enum Basis: String, Sendable {
        /// The entry's code maps to the topic: a CVX code through its vaccine group, or a reviewed table.
        case code
        /// The entry's description is the topic's title or one of its also-called names (case and accents
        /// ignored), and no other topic has that name.
        case name
    }

    public var topic: TopicReference
    public var basis: Basis
    /// The code that matched, as `SYSTEM code` (`CVX 08`, `SNOMED-CT 44054006`), or the normalised name.
    public var matched: String
    /// How the code led to the topic (`cvx-group:45`, `snomed-ct.tsv`), or `title` / `also_called`.
    public var via: String
    public var attribution: Attribution

    public init(topic: TopicReference, basis: Basis, matched: String, via: String, attribution: Attribution) {
        self.topic = topic
        self.basis = basis
        self.matched = matched
        self.via = via
        self.attribution = attribution
    }
}

/// What the library has about one entry: the topics that explain it (best first; empty when none is
/// known to be right: no topic is better than a wrong one) and, for an immunization, CDC's vaccine.
public struct About: Sendable, Equatable {
    public var topics: [TopicMatch]
    public var vaccine: Vaccine?

    public init(topics: [TopicMatch], vaccine: Vaccine?) {
        self.topics = topics
        self.vaccine = vaccine
    }
}

/// A CVX vaccine code as CDC describes it.
public struct Vaccine: Sendable, Equatable {
    public struct Group: Sendable, Equatable {
        public var code: String
        public var name: String

        public init(code: String, name: String) {
            self.code = code
            self.name = name
        }
    }

    public var code: String
    public var name: String
    public var shortName: String?
    public var note: String?
    /// `Active`, `Inactive`, `Non-US`, `Never Active`.
    public var status: String
    /// Immune globulins, antibodies and other products that are not vaccines.
    public var isNonvaccine: Bool
    public var groups: [Group]
    public var attribution: Attribution { .cdc }

    public init(code: String, name: String, shortName: String?, note: String?, status: String, isNonvaccine: Bool, groups: [Group]) {
        self.code = code
        self.name = name
        self.shortName = shortName
        self.note = note
        self.status = status
        self.isNonvaccine = isNonvaccine
        self.groups = groups
    }
}
