import ImportJobs
import Records
import FoundationEssentials

/// The RHEx server's patient list: an Atom feed at the server's root, one `<entry>` per patient.
///
/// A patient's record id (its medical record number) comes from the entry's `rel="alternate"` link (its
/// last path segment) or, failing that, its `rel="root"` link (the segment before `root.xml`). Links are
/// resolved against the feed's URL first, so relative and absolute hrefs give the same id. The `<id>`
/// element is not used: servers fill it with `tag:` URIs. There is no pagination.
public struct PatientFeed: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The record id, percent-decoded.
        public var recordID: String
        /// The entry's title ("Last, First"), for messages.
        public var title: String?
    }

    /// The patients, in feed order, each record id once.
    public var entries: [Entry]

    /// The most entries a feed may list: far more than a family, few enough to bound the work.
    public static let maximumEntries = 100_000

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a feed document fetched from `url`. Entries without a usable link are skipped; a document
    /// that is not XML, or whose root is not a `feed`, is `badFeed`. XML through libxml2 (`XMLDocument`):
    /// no network, no DTD, no entity substitution.
    public static func parse(_ bytes: [UInt8], url: URL) throws(SyncError) -> PatientFeed {
        // RHEx servers send UTF-8; anything else is not a feed of theirs.
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .badFeed("the document is not UTF-8 text") }
        let document: XMLDocument
        do { document = try XMLDocument(bytes) } catch { throw .badFeed(error.description) }
        // Atom elements, or the same names without a namespace (servers that leave it out).
        func atom(_ name: String) -> String { "atom:\(name) | \(name)" }
        guard let feed = document.node("/atom:feed | /feed") else {
            throw .badFeed("the document is not an Atom feed (its root element is \(document.root.name.prefix(40)))")
        }
        let count = document.count("atom:entry | entry", in: feed)
        guard count <= maximumEntries else { throw .badFeed("more than \(maximumEntries) entries") }
        var seen = Set<String>()
        var entries: [Entry] = []
        for entry in feed.nodes(atom("entry")) {
            var alternateID: String?, rootID: String?
            for link in entry.nodes(atom("link")) {
                let rel = link.attribute("rel") ?? "alternate"
                guard let href = link.attribute("href"), let id = recordID(href: href, rel: rel, base: url) else { continue }
                if rel == "alternate", alternateID == nil { alternateID = id }
                if rel == "root", rootID == nil { rootID = id }
            }
            guard let id = alternateID ?? rootID, seen.insert(id).inserted else { continue }
            let title = entry.node(atom("title")).map { String($0.text.prefix(1024)).trimmedWhitespace }
            entries.append(Entry(recordID: id, title: title))
        }
        return PatientFeed(entries: entries)
    }

    /// The record id a link's href names, or nil: `…/{id}` for `alternate`, `…/{id}/root.xml` for `root`.
    static func recordID(href: String, rel: String, base: URL) -> String? {
        guard let url = URL(string: href.trimmedWhitespace, relativeTo: base)?.absoluteURL,
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return nil }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let encoded: String?
        switch rel {
        case "alternate":
            encoded = segments.last
        case "root":
            guard segments.count >= 2, segments.last == "root.xml" else { return nil }
            encoded = segments[segments.count - 2]
        default:
            encoded = nil
        }
        guard let encoded, let id = PercentEncoding.decode(encoded) else { return nil }
        return isUsableRecordID(id) ? id : nil
    }

    /// A record id becomes a URL path segment and a patient identity: it must be short, printable (inner
    /// spaces are fine), and unable to climb out of its segment.
    static func isUsableRecordID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 256 && id != "." && id != ".." && !id.contains("/")
            && id.trimmedWhitespace == id
            && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f && !(0x80...0x9f).contains($0.value) }
    }
}
