/// One topic found by `Library.search`: its id, title and MedlinePlus groups, and a snippet of where the
/// words matched.
public struct SearchHit: Sendable, Equatable {
    public var topic: TopicReference
    public var snippet: Snippet
    /// Higher is better; only the order matters.
    public var score: Double
    /// The topic's MedlinePlus groups (`"Diagnostic Tests"`), for a result list grouped or filtered by them.
    public var groups: [String]

    public init(topic: TopicReference, snippet: Snippet, score: Double, groups: [String] = []) {
        self.topic = topic
        self.snippet = snippet
        self.score = score
        self.groups = groups
    }
}

/// A few words of a topic around the query's words, as parts: the matched words are parts with
/// `isMatch`, so that a client can emphasise them without parsing markup. The text is the publisher's,
/// unescaped; "…" marks text left out.
public struct Snippet: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var text: String
        public var isMatch: Bool

        public init(text: String, isMatch: Bool) {
            self.text = text
            self.isMatch = isMatch
        }
    }

    public var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }

    /// The snippet as one plain text.
    public var text: String { parts.map(\.text).joined() }

    /// Splits FTS4's snippet text at its markers (`start` … `end`).
    static func parse(_ marked: String, start: Character, end: Character) -> Snippet {
        var parts: [Part] = []
        var current = ""
        var inMatch = false
        for character in marked {
            if character == start || character == end {
                if !current.isEmpty { parts.append(Part(text: current, isMatch: inMatch)) }
                current = ""
                inMatch = character == start
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(Part(text: current, isMatch: inMatch)) }
        return Snippet(parts: parts)
    }
}
