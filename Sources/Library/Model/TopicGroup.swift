/// A MedlinePlus group of topics (`"Diagnostic Tests"`), for browsing the library without searching.
///
/// The pack keeps a topic's groups as names; `id` is made from the name (`diagnostic-tests`: lower-case
/// letters and digits, runs of anything else as one `-`), so that a group has an address of its own.
public struct TopicGroup: Sendable, Equatable {
    public var id: String
    public var name: String
    /// How many topics are in the group.
    public var count: Int

    public init(id: String, name: String, count: Int) {
        self.id = id
        self.name = name
        self.count = count
    }

    /// The id of the group named `name`: `"Genetics/Birth Defects"` → `"genetics-birth-defects"`. Letters
    /// outside ASCII are kept as they are (lower-cased), so that no two names of a pack in another language
    /// collapse to one id.
    public static func id(name: String) -> String {
        var id = ""
        var pendingDash = false
        for character in name.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingDash, !id.isEmpty { id.append("-") }
                pendingDash = false
                id.append(character)
            } else {
                pendingDash = true
            }
        }
        return id
    }
}

/// One group and its topics, by title.
public struct TopicGroupPage: Sendable, Equatable {
    public var group: TopicGroup
    public var topics: [TopicReference]

    public init(group: TopicGroup, topics: [TopicReference]) {
        self.group = group
        self.topics = topics
    }
}
