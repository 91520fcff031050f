import Foundation
import HealthRecord
import Library
import Store

/// Builds a pack folder (`manifest.json`, `manifest.json.sig`, `library-VERSION.sqlite.gz`) from content,
/// code tables and string tables. The same inputs give the same bytes: rows are inserted in sorted order,
/// the database is vacuumed, the gzip header has no name and no time, `created` is given, and Ed25519
/// signatures are deterministic.
public struct PackBuilder {
    public var content: ContentFolder
    public var codeTables: CodeTables
    public var strings: StringTables
    public var version: PackVersion
    public var publisher: String
    /// Epoch seconds.
    public var created: Int64

    /// The topic a vaccine gets when none of its CDC groups has one: "Vaccines".
    public static let vaccinesTopic = "294"

    public init(content: ContentFolder, codeTables: CodeTables, strings: StringTables, version: PackVersion,
                publisher: String = "hreaderd project", created: Int64) {
        self.content = content
        self.codeTables = codeTables
        self.strings = strings
        self.version = version
        self.publisher = publisher
        self.created = created
    }

    public struct Output: Sendable {
        public var manifest: PackManifest
        public var manifestBytes: [UInt8]
        public var folder: String
        /// The uncompressed database's size.
        public var databaseBytes: Int
    }

    /// The `.gz` file's name for a version.
    public static func databaseFileName(_ version: PackVersion) -> String { "library-\(version.text).sqlite.gz" }

    /// Writes the pack into `folder` (created when missing; the three files replaced), signed with `key`.
    package func build(into folder: String, key: PackPrivateKey) throws -> Output {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = folder + "/.building-\(getpid()).sqlite"
        try? FileManager.default.removeItem(atPath: temporary)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let counts = try writeDatabase(at: temporary)
        let database = Array(try Data(contentsOf: URL(fileURLWithPath: temporary)))
        guard let gz = Gzip.compress(database) else { throw BuildError("gzip failed") }
        let gzName = Self.databaseFileName(version)
        let manifest = PackManifest(version: version, publisher: publisher, created: created, counts: counts, languages: languages,
                                    database: .init(file: gzName, bytes: Int64(gz.count), sha256: Self.sha256(database), gzSHA256: Self.sha256(gz)))
        let manifestBytes = manifest.serialized()
        try write(gz, to: folder + "/" + gzName)
        try write(manifestBytes, to: folder + "/" + PackVerifier.manifestName)
        try write(PackSignature.encode(try key.sign(manifestBytes)), to: folder + "/" + PackVerifier.signatureName)
        return Output(manifest: manifest, manifestBytes: manifestBytes, folder: folder, databaseBytes: database.count)
    }

    /// The languages of the pack: the topics' and the string tables', sorted, English first.
    var languages: [String] {
        let all = Set(content.topics.map(\.language)).union(strings.strings.keys).union(["en"])
        return ["en"] + all.subtracting(["en"]).sorted()
    }

    /// Writes the database and returns its counts.
    package func writeDatabase(at path: String) throws -> PackManifest.Counts {
        let topicsByID = Dictionary(content.topics.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        guard topicsByID.count == content.topics.count else { throw BuildError("two topics have the same id") }
        for topic in content.topics {
            try Self.checkText([topic.id, topic.title, topic.summary_text, topic.url, topic.credit ?? ""] + topic.also_called + topic.groups,
                               what: "topic \(topic.id)")
        }
        let codeRows = try self.codeRows(topicsByID)
        let db = try Database(path: path, key: nil, mode: .readWriteCreate)
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.transaction { db in
            try PackSchema.create(in: db)
            let topics = content.topics.sorted { $0.id < $1.id }
            let insertTopic = try db.statement("""
                INSERT INTO topics (id, title, also_called, summary, credit, language, url, groups) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let insertSearch = try db.statement("INSERT INTO topic_search (docid, title, also_called, summary) VALUES (?, ?, ?, ?)")
            let insertRelated = try db.statement("INSERT INTO topic_related (topic_id, related_id, position) VALUES (?, ?, ?)")
            for topic in topics {
                try insertTopic.execute([topic.id, topic.title, Self.json(topic.also_called), topic.summary_text, topic.credit, topic.language,
                                         topic.url, Self.json(topic.groups)])
                try insertSearch.execute([db.lastInsertRowID, topic.title, topic.also_called.joined(separator: "; "), topic.summary_text])
                for (position, related) in topic.related.enumerated() {
                    guard topicsByID[related.id] != nil else { throw BuildError("topic \(topic.id) names a related topic \(related.id) that is not there") }
                    guard !topic.related.prefix(position).contains(where: { $0.id == related.id }) else { continue }
                    try insertRelated.execute([topic.id, related.id, position])
                }
            }
            let insertName = try db.statement("INSERT OR IGNORE INTO names (name, topic_id, kind) VALUES (?, ?, ?)")
            var names: [(String, String, String)] = []
            for topic in topics {
                names.append((NameKey.normalise(topic.title), topic.id, "title"))
                for name in topic.also_called { names.append((NameKey.normalise(name), topic.id, "also_called")) }
            }
            // The title first where a topic's also-called name normalises to its title.
            for (name, id, kind) in names.sorted(by: { ($0.0, $0.1, $0.2 == "title" ? 0 : 1) < ($1.0, $1.1, $1.2 == "title" ? 0 : 1) }) where !name.isEmpty {
                try insertName.execute([name, id, kind])
            }
            let insertVaccine = try db.statement("""
                INSERT INTO vaccines (code, name, short_name, note, status, nonvaccine, groups) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for vaccine in content.vaccines.sorted(by: { $0.code < $1.code }) {
                try Self.checkText([vaccine.code, vaccine.name, vaccine.short_name ?? "", vaccine.note ?? "", vaccine.status], what: "CVX \(vaccine.code)")
                var groups = JSONWriter(capacity: 128)
                groups.beginArray()
                for group in vaccine.groups {
                    groups.beginObject()
                    groups.key("code"); groups.string(group.code)
                    groups.key("name"); groups.string(group.name)
                    groups.endObject()
                }
                groups.endArray()
                try insertVaccine.execute([vaccine.code, vaccine.name, vaccine.short_name, vaccine.note, vaccine.status, vaccine.nonvaccine,
                                           groups.string])
            }
            let insertCode = try db.statement("INSERT INTO code_topics (system, code, topic_id, via) VALUES (?, ?, ?, ?)")
            for row in codeRows { try insertCode.execute([row.system, row.code, row.topic, row.via]) }
            let insertString = try db.statement("INSERT INTO strings (language, key, text) VALUES (?, ?, ?)")
            for language in strings.strings.keys.sorted() {
                for (key, text) in (strings.strings[language] ?? [:]).sorted(by: { $0.key < $1.key }) {
                    try insertString.execute([language, key, text])
                }
            }
        }
        let counts = PackManifest.Counts(topics: content.topics.count, vaccines: content.vaccines.count, codes: codeRows.count,
                                         strings: strings.strings.values.reduce(0) { $0 + $1.count })
        let manifest = PackManifest(version: version, publisher: publisher, created: created, counts: counts, languages: languages,
                                    database: .init(file: "", bytes: 0, sha256: "", gzSHA256: ""))
        try db.transaction { db in
            let insert = try db.statement("INSERT INTO info (key, value) VALUES (?, ?)")
            for (key, value) in manifest.infoValues { try insert.execute([key, value]) }
        }
        try db.execute("INSERT INTO topic_search(topic_search) VALUES ('optimize')")
        try db.execute("VACUUM")
        return counts
    }

    struct CodeRow: Comparable {
        var system: String
        var code: String
        var topic: String
        var via: String
        static func < (a: CodeRow, b: CodeRow) -> Bool { (a.system, a.code, a.topic) < (b.system, b.code, b.topic) }
    }

    /// CVX codes through their groups and the crosswalk, and the reviewed tables' rows, sorted.
    func codeRows(_ topics: [String: ContentFolder.SourceTopic]) throws -> [CodeRow] {
        var byGroup: [String: [String]] = [:]
        // A group with no topic of its own has a row with an empty topic (adenovirus, typhoid, yellow fever).
        for row in content.crosswalk where !row.topicID.isEmpty {
            guard let topic = topics[row.topicID] else { throw BuildError("the crosswalk names topic \(row.topicID), which is not there") }
            guard topic.title == row.topicTitle else {
                throw BuildError("the crosswalk calls topic \(row.topicID) \"\(row.topicTitle)\"; its title is \"\(topic.title)\"")
            }
            byGroup[row.group, default: []].append(row.topicID)
        }
        guard topics[Self.vaccinesTopic] != nil else { throw BuildError("the content has no \"Vaccines\" topic (\(Self.vaccinesTopic))") }
        var rows: [String: CodeRow] = [:]
        for vaccine in content.vaccines {
            guard let code = CodeSystem.cvx.normalise(vaccine.code) else { continue }
            for group in vaccine.groups {
                for topic in byGroup[group.code] ?? [] where rows["CVX|\(code)|\(topic)"] == nil {
                    rows["CVX|\(code)|\(topic)"] = CodeRow(system: "CVX", code: code, topic: topic, via: "cvx-group:\(group.code)")
                }
            }
            // A vaccine none of whose groups has a topic of its own (adenovirus, typhoid, yellow fever, or no
            // group at all) is explained by "Vaccines"; an immune globulin or "no vaccine" by nothing.
            if !vaccine.nonvaccine, !rows.keys.contains(where: { $0.hasPrefix("CVX|\(code)|") }) {
                let via = vaccine.groups.first.map { "cvx-group:\($0.code) fallback" } ?? "cvx fallback"
                rows["CVX|\(code)|\(Self.vaccinesTopic)"] = CodeRow(system: "CVX", code: code, topic: Self.vaccinesTopic, via: via)
            }
        }
        for row in codeTables.rows {
            guard let system = CodeSystem(entrySystem: row.system), let code = system.normalise(row.code) else {
                throw BuildError("\(row.file): \(row.code) is not a \(row.system) code")
            }
            if let id = row.topicID {
                guard let topic = topics[id] else { throw BuildError("\(row.file): code \(row.code) names topic \(id), which is not there") }
                guard topic.title == row.topicTitle else {
                    throw BuildError("\(row.file): code \(row.code) calls topic \(id) \"\(row.topicTitle)\"; its title is \"\(topic.title)\"")
                }
            }
            let key = "\(system.rawValue)|\(code)|\(row.topicID ?? "")"
            guard rows[key] == nil else { throw BuildError("\(row.file): \(row.code) → \(row.topicID ?? "none") is there twice") }
            rows[key] = CodeRow(system: system.rawValue, code: code, topic: row.topicID ?? "", via: row.file)
        }
        return rows.values.sorted()
    }

    /// Refuses control characters (other than tab and newline) in the publisher's text: none belongs there,
    /// and the search's snippets use two of them as markers.
    static func checkText(_ texts: [String], what: String) throws {
        for text in texts where text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7F }) {
            throw BuildError("\(what) holds a control character: refused")
        }
    }

    static func json(_ strings: [String]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        for string in strings { writer.string(string) }
        writer.endArray()
        return writer.string
    }

    public static func sha256(_ bytes: [UInt8]) -> String { StableID.hex(Digests.sha256(bytes)) }

    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
