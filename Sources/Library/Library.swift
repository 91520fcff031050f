import HealthRecord
import Store
import FoundationEssentials
import Glibc
import Synchronization

/// The offline health library: reads the installed pack of a library folder (`STATE_DIR/library/`).
///
/// - `installed()`: what is installed (version, counts, when, from where), or nil.
/// - `topic(id:)`: one topic with its related topics and attribution.
/// - `search(_:limit:)`: topics whose title, also-called names or summary hold the words, best first,
///   with snippets and groups.
/// - `groups()`, `group(id:)`: the topic groups, and one group's topics, for browsing without searching.
/// - `about(_:)`: the topics that explain an entry of the record, by code first, then by name.
/// - `vaccine(code:)`: CDC's description of a CVX code.
/// - `strings(language:)`: the web app's string table, English where the language lacks a key.
///
/// The pack is public content and is read without encryption, read-only, through the store's SQLite
/// binding. Nothing is opened until the first call; every call checks whether `current.json` was replaced
/// (one `stat`) and then opens the new pack, so an install by this process or another is seen at the next
/// call, while a call running on the old pack finishes on it. `closeIfIdle(seconds:)` lets the daemon's
/// periodic work give the connection's memory back.
///
/// Calls are synchronous and serialised on one connection (each takes well under a few milliseconds on the
/// starter pack): call them off an event loop, as the store's reads are.
/// Errors: `LibraryError.notInstalled` when no pack is installed (only `installed()` answers nil instead),
/// `installedPackDamaged` when the pack's files cannot be read.
public final class Library: Sendable {
    public let directory: String
    private let state = Mutex(State())
    /// The page cache of the library's connection, in KiB: the pack is small and reads are short.
    static let cacheSizeKiB = 1024

    private struct State: ~Copyable {
        var connection: Connection?
        var lastUsed: Int64 = 0
    }

    /// The open pack: its connection, what `current.json` said, and that file's identity when read.
    private final class Connection {
        let db: Database
        let pack: InstalledPack
        let pointer: FileIdentity

        init(db: Database, pack: InstalledPack, pointer: FileIdentity) {
            self.db = db
            self.pack = pack
            self.pointer = pointer
        }
    }

    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    // MARK: What is installed

    /// The pack `current.json` names, or nil when none is installed. Opens nothing.
    public func installed() throws(LibraryError) -> InstalledPack? {
        try CurrentPointer.read(directory: directory)
    }

    /// Closes the pack's connection when no call used it for `seconds`; the next call opens it again.
    /// Returns whether it closed it.
    @discardableResult
    public func closeIfIdle(seconds: Int64) -> Bool {
        let now = Int64(time(nil))
        return state.withLock { state in
            guard state.connection != nil, now - state.lastUsed >= seconds else { return false }
            state.connection = nil
            return true
        }
    }

    /// Closes the pack's connection now; the next call opens it again.
    public func close() {
        state.withLock { $0.connection = nil }
    }

    // MARK: Topics

    /// The topic with the publisher's id `id`, or nil when the pack has none.
    public func topic(id: String) throws(LibraryError) -> Topic? {
        try withPack { db, _ in
            guard let topic = try db.row("""
                SELECT id, title, also_called, summary, credit, language, url, groups FROM topics WHERE id = ?
                """, [id], { row in
                    Topic(id: row.string(0), title: row.string(1), alsoCalled: Self.stringArray(row.string(2)), summary: row.string(3),
                          credit: row.stringOrNil(4), language: row.string(5), url: row.string(6), groups: Self.stringArray(row.string(7)),
                          related: [], attribution: .medlinePlus(credit: row.stringOrNil(4)))
                }) else { return nil }
            var result = topic
            result.related = try db.rows("""
                SELECT t.id, t.title FROM topic_related r JOIN topics t ON t.id = r.related_id WHERE r.topic_id = ? ORDER BY r.position
                """, [id]) { TopicReference(id: $0.string(0), title: $0.string(1)) }
            return result
        }
    }

    /// Topics whose title, also-called names or summary hold every word of `query` (the last word may be
    /// the start of one: `diab` finds diabetes), case and accents ignored; best first: a topic whose title
    /// or also-called name is the query, then by where and how often the words occur (title over names
    /// over summary) and how rare they are. At most 50 words of a query are read, and at most `limit`
    /// (1…100) hits returned. Markup in the query is just characters; it never reaches FTS4's syntax.
    public func search(_ query: String, limit: Int = 20) throws(LibraryError) -> [SearchHit] {
        let limit = min(max(limit, 1), 100)
        let words = NameKey.searchWords(String(query.prefix(500))).prefix(50)
        guard !words.isEmpty else { return [] }
        // Each word is letters and digits only after NameKey: no FTS4 operator or quote can be in it.
        let match = words.enumerated().map { $0.offset == words.count - 1 && $0.element.count >= 2 ? "\($0.element)*" : String($0.element) }
            .joined(separator: " ")
        let exact = NameKey.normalise(query)
        return try withPack { db, _ in
            var scores: [Int64: Double] = [:]
            try db.statement("SELECT docid, matchinfo(topic_search, 'pcnx') FROM topic_search WHERE topic_search MATCH ?")
                .forEach([match]) { row in scores[row.int64(0)] = Self.score(matchinfo: row.bytes(1)) }
            guard !scores.isEmpty else { return [] }
            for rowid in try db.rows("SELECT t.rowid FROM names n JOIN topics t ON t.id = n.topic_id WHERE n.name = ?", [exact], { $0.int64(0) }) {
                scores[rowid, default: 0] += 1_000_000
            }
            let top = scores.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit)
            let list = top.map { String($0.key) }.joined(separator: ",")
            var titles: [Int64: (TopicReference, [String])] = [:]
            try db.statement("SELECT rowid, id, title, groups FROM topics WHERE rowid IN (\(list))").forEach { row in
                titles[row.int64(0)] = (TopicReference(id: row.string(1), title: row.string(2)), Self.stringArray(row.string(3)))
            }
            var snippets: [Int64: Snippet] = [:]
            try db.statement("""
                SELECT docid, snippet(topic_search, char(2), char(3), '…', -1, 24) FROM topic_search \
                WHERE topic_search MATCH ? AND docid IN (\(list))
                """).forEach([match]) { row in
                snippets[row.int64(0)] = Snippet.parse(row.string(1), start: "\u{2}", end: "\u{3}")
            }
            return top.compactMap { rowid, score in
                titles[rowid].map { SearchHit(topic: $0.0, snippet: snippets[rowid] ?? Snippet(parts: []), score: score, groups: $0.1) }
            }
        }
    }

    // MARK: Groups

    /// The pack's topic groups (MedlinePlus's), by name, each with how many topics it holds.
    public func groups() throws(LibraryError) -> [TopicGroup] {
        try withPack { db, _ in
            var counts: [String: (name: String, count: Int)] = [:]
            try db.statement("SELECT groups FROM topics").forEach { row in
                for name in Self.stringArray(row.string(0)) where !name.isEmpty {
                    let id = TopicGroup.id(name: name)
                    guard !id.isEmpty else { continue }
                    counts[id, default: (name, 0)].count += 1
                }
            }
            return counts.map { TopicGroup(id: $0.key, name: $0.value.name, count: $0.value.count) }
                .sorted { $0.name.lowercased() != $1.name.lowercased() ? $0.name.lowercased() < $1.name.lowercased() : $0.id < $1.id }
        }
    }

    /// The group whose id is `id` (`TopicGroup.id(name:)`) with its topics by title, or nil when no topic
    /// of the pack is in it.
    public func group(id: String) throws(LibraryError) -> TopicGroupPage? {
        try withPack { db, _ in
            var name: String?
            var topics: [TopicReference] = []
            try db.statement("SELECT id, title, groups FROM topics").forEach { row in
                guard let found = Self.stringArray(row.string(2)).first(where: { TopicGroup.id(name: $0) == id }) else { return }
                if name == nil { name = found }
                topics.append(TopicReference(id: row.string(0), title: row.string(1)))
            }
            guard let name, !id.isEmpty else { return nil }
            topics.sort { $0.title.lowercased() != $1.title.lowercased() ? $0.title.lowercased() < $1.title.lowercased() : $0.id < $1.id }
            return TopicGroupPage(group: TopicGroup(id: id, name: name, count: topics.count), topics: topics)
        }
    }

    // MARK: About an entry

    /// The topics that explain `entry`, and for an immunization, CDC's vaccine.
    ///
    /// By code first: each code of a system the library maps (CVX, SNOMED CT, ICD-10-CM, LOINC, RxNorm, in
    /// that order; other systems are ignored) is looked up in the pack's `code_topics`: a CVX code through its
    /// CDC vaccine group and the crosswalk (a vaccine whose groups have no topic gets "Vaccines"), the others
    /// through the reviewed tables. Only when no code matched, and no code is reviewed as having no right
    /// topic, by name: the entry's description (less a SNOMED CT tag such as "(disorder)") equal to one
    /// topic's title, else to one topic's also-called name, case and accents ignored; a name that several
    /// topics share matches none. No topic is better than a wrong one.
    public func about(_ entry: Entry, limit: Int = 5) throws(LibraryError) -> About {
        let codes = Self.codes(of: entry)
        let name = entry.description.map(NameKey.entryName) ?? ""
        return try withPack { db, _ in
            var matches: [TopicMatch] = []
            var reviewedNone = false
            var vaccine: Vaccine?
            for (system, code) in codes {
                if system == .cvx, vaccine == nil { vaccine = try Self.vaccine(code: code, in: db) }
                try db.statement("""
                    SELECT c.topic_id, c.via, t.title FROM code_topics c LEFT JOIN topics t ON t.id = c.topic_id \
                    WHERE c.system = ? AND c.code = ? ORDER BY c.via, c.topic_id
                    """).forEach([system.rawValue, code]) { row in
                    guard let title = row.stringOrNil(2) else { reviewedNone = true; return }
                    let id = row.string(0)
                    guard !matches.contains(where: { $0.topic.id == id }) else { return }
                    matches.append(TopicMatch(topic: TopicReference(id: id, title: title), basis: .code, matched: "\(system.rawValue) \(code)",
                                              via: row.string(1), attribution: .medlinePlus(credit: nil)))
                }
            }
            if matches.isEmpty, !reviewedNone, !name.isEmpty {
                var byKind: [String: [TopicReference]] = [:]
                try db.statement("""
                    SELECT n.kind, t.id, t.title FROM names n JOIN topics t ON t.id = n.topic_id WHERE n.name = ? ORDER BY t.id
                    """).forEach([name]) { row in
                    byKind[row.string(0), default: []].append(TopicReference(id: row.string(1), title: row.string(2)))
                }
                for kind in ["title", "also_called"] {
                    guard let found = byKind[kind] else { continue }
                    if found.count == 1 {
                        matches.append(TopicMatch(topic: found[0], basis: .name, matched: name, via: kind, attribution: .medlinePlus(credit: nil)))
                    }
                    break  // several topics of one name: none is known to be the right one
                }
            }
            // For a vaccine, the topic about the vaccine before those about the diseases it prevents.
            let vaccineFirst = matches.enumerated().sorted { a, b in
                let x = Self.isVaccineTopic(a.element), y = Self.isVaccineTopic(b.element)
                return x != y ? x : a.offset < b.offset
            }
            matches = vaccineFirst.map(\.element)
            // Each topic's own credit line goes with it.
            for index in matches.indices {
                let credit = try db.scalar("SELECT credit FROM topics WHERE id = ?", [matches[index].topic.id], as: String.self)
                matches[index].attribution = .medlinePlus(credit: credit)
            }
            return About(topics: Array(matches.prefix(max(limit, 0))), vaccine: vaccine)
        }
    }

    private static func isVaccineTopic(_ match: TopicMatch) -> Bool {
        match.matched.hasPrefix("CVX ") && (match.topic.title.contains("Vaccine") || match.topic.title.contains("Shot"))
    }

    /// CDC's description of a CVX code (`08` or `8`), or nil.
    public func vaccine(code: String) throws(LibraryError) -> Vaccine? {
        guard let code = CodeSystem.cvx.normalise(code) else { return nil }
        return try withPack { db, _ in try Self.vaccine(code: code, in: db) }
    }

    // MARK: Strings

    /// The web app's strings in `language` (`fr`, `pt-BR`: then `pt`), each key the pack lacks in it taken
    /// from English. Keys and texts are the pack's, as plain text.
    public func strings(language: String) throws(LibraryError) -> [String: String] {
        var chain = ["en"]
        let primary = String(language.split(separator: "-").first ?? "")
        if !primary.isEmpty, primary != "en" { chain.append(primary) }
        if language.contains("-"), language != primary { chain.append(language) }
        return try withPack { db, _ in
            var table: [String: String] = [:]
            for tag in chain {
                try db.statement("SELECT key, text FROM strings WHERE language = ?").forEach([tag]) { table[$0.string(0)] = $0.string(1) }
            }
            return table
        }
    }

    // MARK: The connection

    private var pointerPath: String { directory + "/" + CurrentPointer.name }

    /// Runs `body` on the current pack, opening it (again) when `current.json` changed.
    private func withPack<T: Sendable>(_ body: (Database, InstalledPack) throws -> T) throws(LibraryError) -> T {
        let now = Int64(time(nil))
        return try state.withLock { (state) throws(LibraryError) -> T in
            let identity = PackFiles.identity(pointerPath)
            if state.connection?.pointer != identity || identity == nil {
                state.connection = nil
                guard let identity, let pack = try CurrentPointer.read(directory: directory) else { throw .notInstalled }
                state.connection = try Self.open(pack, in: directory, pointer: identity)
            }
            guard let connection = state.connection else { throw .notInstalled }
            state.lastUsed = now
            do {
                return try body(connection.db, connection.pack)
            } catch let error as LibraryError {
                throw error
            } catch let error as DatabaseError {
                throw .installedPackDamaged(reason: error.message)
            } catch {
                throw .installedPackDamaged(reason: "\(error)")
            }
        }
    }

    private static func open(_ pack: InstalledPack, in directory: String, pointer: FileIdentity) throws(LibraryError) -> Connection {
        var configuration = Database.Configuration()
        configuration.cacheSizeKiB = cacheSizeKiB
        do {
            let db = try Database(path: directory + "/" + pack.file, key: nil, mode: .readOnly, configuration: configuration)
            let format = try db.scalar("PRAGMA user_version", as: Int.self) ?? 0
            guard format == PackSchema.format else {
                throw LibraryError.installedPackDamaged(reason: "\(pack.file) is in format \(format), not \(PackSchema.format)")
            }
            return Connection(db: db, pack: pack, pointer: pointer)
        } catch let error as LibraryError {
            throw error
        } catch let error as DatabaseError {
            throw .installedPackDamaged(reason: "\(pack.file): \(error.message)")
        } catch {
            throw .installedPackDamaged(reason: "\(pack.file): \(error)")
        }
    }

    // MARK: Helpers

    private static func vaccine(code: String, in db: Database) throws -> Vaccine? {
        try db.row("SELECT code, name, short_name, note, status, nonvaccine, groups FROM vaccines WHERE code = ?", [code]) { row in
            Vaccine(code: row.string(0), name: row.string(1), shortName: row.stringOrNil(2), note: row.stringOrNil(3), status: row.string(4),
                    isNonvaccine: row.int64(5) != 0, groups: groups(row.string(6)))
        }
    }

    /// The entry's codes the library maps, as (system, normalised code), in `CodeSystem`'s order.
    static func codes(of entry: Entry) -> [(CodeSystem, String)] {
        var found: [(CodeSystem, String)] = []
        for system in CodeSystem.allCases {
            for (name, codes) in entry.codes.sorted(by: { $0.key < $1.key }) where CodeSystem(entrySystem: name) == system {
                for code in codes {
                    guard let code = system.normalise(code), !found.contains(where: { $0 == (system, code) }) else { continue }
                    found.append((system, code))
                }
            }
        }
        return found
    }

    private static func stringArray(_ json: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
    }

    private static func groups(_ json: String) -> [Vaccine.Group] {
        struct Group: Decodable { var code: String; var name: String }
        return ((try? JSONDecoder().decode([Group].self, from: Data(json.utf8))) ?? []).map { Vaccine.Group(code: $0.code, name: $0.name) }
    }

    /// Weights of the search index's columns: title, also-called names, summary.
    private static let columnWeights: [Double] = [10, 5, 1]

    /// A BM25-like score from FTS4's `matchinfo(…, 'pcnx')`: for each phrase and column, the hits in this
    /// topic (damped), times the column's weight, times how rare the phrase is across topics.
    static func score(matchinfo bytes: [UInt8]) -> Double {
        // 32-bit integers in the machine's order (little-endian here).
        var values: [UInt32] = []
        var offset = 0
        while offset + 4 <= bytes.count {
            let b0 = UInt32(bytes[offset]), b1 = UInt32(bytes[offset + 1]), b2 = UInt32(bytes[offset + 2]), b3 = UInt32(bytes[offset + 3])
            values.append(b0 | b1 << 8 | b2 << 16 | b3 << 24)
            offset += 4
        }
        guard values.count >= 3 else { return 0 }
        let phrases = Int(values[0]), columns = Int(values[1]), documents = Double(values[2])
        guard values.count >= 3 + phrases * columns * 3 else { return 0 }
        var score = 0.0
        for phrase in 0..<phrases {
            for column in 0..<columns {
                let base = 3 + (phrase * columns + column) * 3
                let hits = Double(values[base]), withHits = Double(values[base + 2])
                guard hits > 0 else { continue }
                let rarity = log((documents - withHits + 0.5) / (withHits + 0.5) + 1)
                score += (column < columnWeights.count ? columnWeights[column] : 1) * (1 + log(hits)) * rarity
            }
        }
        return score
    }
}
