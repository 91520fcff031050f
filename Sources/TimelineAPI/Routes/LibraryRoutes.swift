import HTTPKit
import HealthRecord
import Library

/// The offline health library (docs/api.md, "The health library"): what is installed and offered, the
/// update, search, a topic, what the library says about one entry of a record, and the web app's strings.
///
/// - `GET /library.json`, `POST /library/update`
/// - `GET /library/search.json?q=…&limit=…`, `GET /library/topics/{id}.json`, `GET /library/strings.json?lang=…`
/// - `GET /library/groups.json`, `GET /library/groups/{id}.json`: browsing by group, without searching
/// - `GET /patients/{pid}/entries/{eid}/about.json`
///
/// Behind the access policy like every other route. The reader's calls run on the library's own thread
/// (`LibraryAccess`); the entry of `about.json` is read from the store first.
struct LibraryRoutes {
    let app: TimelineApp

    /// Results a search answers when `limit` is not given, and the most it may ask for.
    static let defaultLimit = 20
    static let maximumLimit = 100
    /// The longest `q`, in characters: a question, not a document.
    static let maximumQueryCharacters = 200
    /// The longest group id, in bytes (MedlinePlus's longest is 43).
    static let maximumGroupIDBytes = 128
    /// The most topics `about.json` lists for one entry.
    static let aboutLimit = 5

    static let noLibrary = HTTPError(.serviceUnavailable, code: "no_library",
                                     message: "No health library is installed yet: the daemon installs the bundled pack at start, or run hreaderd library install.")
    static let unknownTopic = HTTPError(.notFound, code: "unknown_topic", message: "The library has no topic with that id.")
    static let unknownGroup = HTTPError(.notFound, code: "unknown_group", message: "The library has no group with that id.")
    static let unknownEntry = HTTPError(.notFound, code: "unknown_entry", message: "The patient has no entry with that id.")
    static let badLanguage = HTTPError(.badRequest, code: "bad_lang", message: "lang must be a language tag such as en, fr or pt-BR.")
    static func badQuery(_ message: String) -> HTTPError { HTTPError(.badRequest, code: "bad_query", message: message) }

    func register(in router: inout Router) {
        router.get("/library.json") { _, _ in try await status() }
        router.post("/library/update") { _, _ in try update() }
        router.get("/library/search.json") { request, _ in try await search(request) }
        router.get("/library/strings.json") { request, _ in try await strings(request) }
        router.get("/library/topics/{file}") { _, context in try await topic(file: try context.parameters.require("file")) }
        router.get("/library/groups.json") { _, _ in try await groups() }
        router.get("/library/groups/{file}") { _, context in try await group(file: try context.parameters.require("file")) }
        router.get("/patients/{pid}/entries/{eid}/about.json") { _, context in
            try await about(patientID: try context.parameters.require("pid"), entryID: try context.parameters.require("eid"))
        }
    }

    /// The library, or `503 no_library` when the daemon keeps none.
    private func access() throws(HTTPError) -> LibraryAccess {
        guard let library = app.configuration.library else { throw Self.noLibrary }
        return library
    }

    // MARK: What is installed, and the update

    func status() async throws -> Response {
        let installed: InstalledPack?
        if let access = app.configuration.library {
            installed = try await access.read { try $0.installed() }
        } else {
            installed = nil
        }
        let update = app.configuration.library?.updates?.status()
        return .json(bytes: LibraryJSON.status(installed: installed, update: update))
    }

    func update() throws -> Response {
        guard let updates = try access().updates else { throw LibraryUpdateRefusal.noPublisher }
        let status = try updates.startUpdate()  // the update service logs it
        return .json(bytes: LibraryJSON.updateOnly(status), status: .accepted)
    }

    // MARK: Reading

    func search(_ request: Request) async throws -> Response {
        guard let query = request.query["q"], !query.trimmedWhitespace.isEmpty else {
            throw Self.badQuery("q is required: the words to look for in the library.")
        }
        guard query.count <= Self.maximumQueryCharacters else {
            throw Self.badQuery("q is longer than \(Self.maximumQueryCharacters) characters.")
        }
        let limit = try ListQuery.number(request.query["limit"], default: Self.defaultLimit, in: 1...Self.maximumLimit,
                                         error: ListQuery.badLimit(Self.maximumLimit))
        let hits = try await access().read { try $0.search(query, limit: limit) }
        return .json(bytes: LibraryJSON.search(hits, query: query))
    }

    func topic(file: String) async throws -> Response {
        guard file.hasSuffix(".json") else { throw HTTPError.notFound }
        let id = String(file.dropLast(5))
        guard Self.isTopicID(id) else { throw Self.unknownTopic }
        guard let topic = try await access().read({ try $0.topic(id: id) }) else { throw Self.unknownTopic }
        return .json(bytes: LibraryJSON.topic(topic))
    }

    func groups() async throws -> Response {
        let groups = try await access().read { try $0.groups() }
        return .json(bytes: LibraryJSON.groups(groups))
    }

    func group(file: String) async throws -> Response {
        guard file.hasSuffix(".json") else { throw HTTPError.notFound }
        let id = String(file.dropLast(5))
        // A group id is made of letters, digits and `-` (TopicGroup.id): anything else names no group.
        guard (1...Self.maximumGroupIDBytes).contains(id.utf8.count), TopicGroup.id(name: id) == id else { throw Self.unknownGroup }
        guard let page = try await access().read({ try $0.group(id: id) }) else { throw Self.unknownGroup }
        return .json(bytes: LibraryJSON.group(page))
    }

    func about(patientID: String, entryID: String) async throws -> Response {
        let access = try access()
        let entry: Entry
        switch try await app.store().entry(patientID: patientID, entryID: entryID) {
        case .unknownPatient: throw APIError.unknownPatient
        case .unknownEntry: throw Self.unknownEntry
        case .found(let found): entry = found
        }
        let (about, topics) = try await access.read { library in
            let about = try library.about(entry, limit: Self.aboutLimit)
            // Each topic's summary and credit, for the entry's details to show without another request.
            let topics = try about.topics.map { match in try library.topic(id: match.topic.id) }
            return (about, topics)
        }
        return .json(bytes: LibraryJSON.about(about, topics: topics, entryID: entry.id))
    }

    func strings(_ request: Request) async throws -> Response {
        let language = try Self.language(request)
        let (table, installed) = try await access().read { library in (try library.strings(language: language), try library.installed()) }
        return .json(bytes: LibraryJSON.strings(table, language: language, installed: installed))
    }

    // MARK: Helpers

    /// A topic id as publishers write them: 1 to 64 letters, digits, `-` or `_` (MedlinePlus: digits).
    static func isTopicID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
        }
    }

    /// `lang`, else the first language of `Accept-Language`, else English; the first subtag in lower case.
    static func language(_ request: Request) throws(HTTPError) -> String {
        if let given = request.query["lang"], !given.isEmpty {
            let tag = normalisedTag(given)
            guard PackManifest.isLanguageTag(tag) else { throw badLanguage }
            return tag
        }
        if let header = request.headers.first(name: "Accept-Language") {
            for part in header.split(separator: ",") {
                let tag = normalisedTag(String(part.split(separator: ";").first ?? "").trimmedWhitespace)
                if PackManifest.isLanguageTag(tag) { return tag }
            }
        }
        return "en"
    }

    private static func normalisedTag(_ tag: String) -> String {
        var parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, tag.utf8.count <= 35 else { return "" }
        parts[0] = parts[0].lowercased()
        return parts.joined(separator: "-")
    }
}
