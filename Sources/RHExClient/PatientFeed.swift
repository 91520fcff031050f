import ImportJobs
import Records
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

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
    /// that is not XML, or whose root is not a `feed`, is `badFeed`.
    public static func parse(_ bytes: [UInt8], url: URL) throws(SyncError) -> PatientFeed {
        if let reason = unsafeForXMLParser(bytes) { throw .badFeed(reason) }
        let reader = FeedReader(base: url)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let failure = reader.failure { throw .badFeed(failure) }
        guard parsed else {
            let reason = parser.parserError.map { "\(($0 as NSError).code)" } ?? "unknown"
            throw .badFeed("not well-formed XML (line \(parser.lineNumber), error \(reason))")
        }
        guard reader.sawFeed else { throw .badFeed("the document is not an Atom feed") }
        // libxml2 does not always report a document cut short: insist on the closing tag.
        guard reader.closedFeed else { throw .badFeed("the feed ends before its closing </feed> tag") }
        var seen = Set<String>()
        let unique = reader.entries.filter { seen.insert($0.recordID).inserted }
        return PatientFeed(entries: unique)
    }

    /// The record id a link's href names, or nil: `…/{id}` for `alternate`, `…/{id}/root.xml` for `root`.
    static func recordID(href: String, rel: String, base: URL) -> String? {
        guard let url = URL(string: href.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: base)?.absoluteURL,
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
        guard let encoded, let id = encoded.removingPercentEncoding else { return nil }
        return isUsableRecordID(id) ? id : nil
    }

    /// A record id becomes a URL path segment and a patient identity: it must be short, printable (inner
    /// spaces are fine), and unable to climb out of its segment.
    static func isUsableRecordID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 256 && id != "." && id != ".." && !id.contains("/")
            && id.trimmingCharacters(in: .whitespaces) == id
            && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f && !(0x80...0x9f).contains($0.value) }
    }
}

/// XMLParser's delegate: collects each entry's links and title.
private final class FeedReader: NSObject, XMLParserDelegate {
    static let atom = "http://www.w3.org/2005/Atom"

    let base: URL
    var entries: [PatientFeed.Entry] = []
    var sawFeed = false
    var closedFeed = false
    var failure: String?
    private var depth = 0
    private var inEntry = false
    private var alternateID: String?
    private var rootID: String?
    private var title: String?
    private var collectingTitle = false
    private var text = ""

    init(base: URL) { self.base = base }

    private func isAtom(_ namespace: String?) -> Bool {
        namespace == nil || namespace == "" || namespace == Self.atom
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        depth += 1
        guard isAtom(namespaceURI) else { return }
        if depth == 1 {
            sawFeed = name == "feed"
            if !sawFeed {
                failure = "the document is not an Atom feed (its root element is \(name.prefix(40)))"
                parser.abortParsing()
            }
            return
        }
        if depth == 2 && name == "entry" {
            inEntry = true
            alternateID = nil
            rootID = nil
            title = nil
            return
        }
        guard inEntry, depth == 3 else { return }
        switch name {
        case "link":
            let rel = attributes["rel"] ?? "alternate"
            guard let href = attributes["href"] else { return }
            if let id = PatientFeed.recordID(href: href, rel: rel, base: base) {
                if rel == "alternate", alternateID == nil { alternateID = id }
                if rel == "root", rootID == nil { rootID = id }
            }
        case "title":
            collectingTitle = true
            text = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if collectingTitle, text.utf8.count < 1024 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer { depth -= 1 }
        guard isAtom(namespaceURI) else { return }
        if depth == 1 && name == "feed" { closedFeed = true }
        if collectingTitle && depth == 3 && name == "title" {
            collectingTitle = false
            title = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if inEntry && depth == 2 && name == "entry" {
            inEntry = false
            if let id = alternateID ?? rootID {
                guard entries.count < PatientFeed.maximumEntries else {
                    failure = "more than \(PatientFeed.maximumEntries) entries"
                    parser.abortParsing()
                    return
                }
                entries.append(PatientFeed.Entry(recordID: id, title: title))
            }
        }
    }
}
