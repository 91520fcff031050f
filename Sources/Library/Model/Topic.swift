/// A health topic of the installed pack, as the library view and "about this" show it. Every text is plain
/// text exactly as the publisher wrote it: the web app escapes it (markup in a summary is shown as text).
public struct Topic: Sendable, Equatable {
    /// The publisher's id (MedlinePlus topic id, `"6308"`), stable across packs.
    public var id: String
    public var title: String
    public var alsoCalled: [String]
    public var summary: String
    /// The agency credit line that ended the summary (`"NIH: National Cancer Institute"`), or nil.
    public var credit: String?
    public var language: String
    /// The publisher's page for the topic.
    public var url: String
    /// MedlinePlus groups (`"Diagnostic Tests"`).
    public var groups: [String]
    /// Related topics, in the publisher's order.
    public var related: [TopicReference]
    public var attribution: Attribution

    public init(id: String, title: String, alsoCalled: [String], summary: String, credit: String?, language: String, url: String,
                groups: [String], related: [TopicReference], attribution: Attribution) {
        self.id = id
        self.title = title
        self.alsoCalled = alsoCalled
        self.summary = summary
        self.credit = credit
        self.language = language
        self.url = url
        self.groups = groups
        self.related = related
        self.attribution = attribution
    }
}

/// A topic named by id and title (a related topic, a match).
public struct TopicReference: Sendable, Equatable, Hashable {
    public var id: String
    public var title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
