import HealthRecord
import FoundationEssentials

/// `manifest.json`: what a pack holds and the hashes that tie its database to the signature. The
/// signature (`manifest.json.sig`) covers the manifest's exact bytes, and the manifest carries the
/// SHA-256 of both the `.gz` file and the database inside it: one signature covers all three files.
///
/// ```json
/// {"format":1,"version":"2025.10.1","publisher":"hreaderd project","created":"2025-10-31T00:00:00Z",
///  "counts":{"topics":1017,"vaccines":287,"codes":412,"strings":60},"languages":["en","fr"],
///  "database":{"file":"library-2025.10.1.sqlite.gz","bytes":1234567,"sha256":"…","gz_sha256":"…"}}
/// ```
///
/// Read with FoundationEssentials' `JSONDecoder` (as the key file is) after a size cap, then checked field
/// by field; written by `HealthRecord`'s `JSONWriter` in this key order. Fields a later version of the same
/// format adds are ignored; a new `format` is refused as a whole (`LibraryError.unsupportedFormat`).
public struct PackManifest: Sendable, Equatable {
    /// The one format this hreaderd reads and writes.
    public static let currentFormat = 1
    /// A manifest is a few hundred bytes.
    public static let maxBytes = 64 * 1024

    public struct Counts: Sendable, Equatable, Codable {
        public var topics: Int
        public var vaccines: Int
        /// Rows of `code_topics`: CVX codes through the crosswalk and the reviewed tables' codes.
        public var codes: Int
        /// Rows of `strings`, every language together.
        public var strings: Int

        public init(topics: Int, vaccines: Int, codes: Int, strings: Int) {
            self.topics = topics
            self.vaccines = vaccines
            self.codes = codes
            self.strings = strings
        }
    }

    public struct DatabaseFile: Sendable, Equatable {
        /// The `.gz` file's name in the pack's folder (`library-2025.10.1.sqlite.gz`).
        public var file: String
        /// The `.gz` file's size.
        public var bytes: Int64
        /// SHA-256 (hex) of the decompressed database.
        public var sha256: String
        /// SHA-256 (hex) of the `.gz` file.
        public var gzSHA256: String

        public init(file: String, bytes: Int64, sha256: String, gzSHA256: String) {
            self.file = file
            self.bytes = bytes
            self.sha256 = sha256
            self.gzSHA256 = gzSHA256
        }
    }

    public var format: Int
    public var version: PackVersion
    public var publisher: String
    /// Epoch seconds; RFC 3339 in the file.
    public var created: Int64
    public var counts: Counts
    public var languages: [String]
    public var database: DatabaseFile

    public init(format: Int = PackManifest.currentFormat, version: PackVersion, publisher: String, created: Int64,
                counts: Counts, languages: [String], database: DatabaseFile) {
        self.format = format
        self.version = version
        self.publisher = publisher
        self.created = created
        self.counts = counts
        self.languages = languages
        self.database = database
    }

    /// The manifest's fields that the database's `info` table repeats, as the text both hold.
    package var infoValues: [(key: String, value: String)] {
        [("format", "\(format)"), ("version", version.text), ("publisher", publisher), ("created", Timestamp.format(created)),
         ("languages", Self.jsonArray(languages)), ("counts.topics", "\(counts.topics)"), ("counts.vaccines", "\(counts.vaccines)"),
         ("counts.codes", "\(counts.codes)"), ("counts.strings", "\(counts.strings)")]
    }

    static func jsonArray(_ strings: [String]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        for string in strings { writer.string(string) }
        writer.endArray()
        return writer.string
    }

    // MARK: Writing

    /// The bytes of `manifest.json`: compact JSON in a fixed key order, and a newline.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("format"); writer.int(Int64(format))
        writer.key("version"); writer.string(version.text)
        writer.key("publisher"); writer.string(publisher)
        writer.key("created"); writer.string(Timestamp.format(created))
        writer.key("counts")
        writer.beginObject()
        writer.key("topics"); writer.int(Int64(counts.topics))
        writer.key("vaccines"); writer.int(Int64(counts.vaccines))
        writer.key("codes"); writer.int(Int64(counts.codes))
        writer.key("strings"); writer.int(Int64(counts.strings))
        writer.endObject()
        writer.key("languages")
        writer.beginArray()
        for language in languages { writer.string(language) }
        writer.endArray()
        writer.key("database")
        writer.beginObject()
        writer.key("file"); writer.string(database.file)
        writer.key("bytes"); writer.int(database.bytes)
        writer.key("sha256"); writer.string(database.sha256)
        writer.key("gz_sha256"); writer.string(database.gzSHA256)
        writer.endObject()
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    // MARK: Reading

    private struct Header: Decodable { var format: Int }

    private struct Fields: Decodable {
        struct Database: Decodable {
            var file: String
            var bytes: Int64
            var sha256: String
            var gz_sha256: String
        }
        var format: Int
        var version: String
        var publisher: String
        var created: String
        var counts: Counts
        var languages: [String]
        var database: Database
    }

    /// Parses and checks a manifest. The format is read first, so that a pack of a newer format is
    /// refused as such even when the rest of its manifest has another shape.
    public static func parse(_ bytes: [UInt8]) throws(LibraryError) -> PackManifest {
        guard bytes.count <= maxBytes else { throw .manifestMalformed(reason: "it is larger than \(maxBytes) bytes") }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        let header: Header
        do { header = try decoder.decode(Header.self, from: data) } catch {
            throw .manifestMalformed(reason: "it is not a JSON object with an integer \"format\"")
        }
        guard header.format == currentFormat else { throw .unsupportedFormat(found: header.format, supported: currentFormat) }
        let fields: Fields
        do { fields = try decoder.decode(Fields.self, from: data) } catch {
            throw .manifestMalformed(reason: "a field is missing or of the wrong type (\(Self.describe(error)))")
        }
        guard let version = PackVersion(fields.version) else {
            throw .manifestMalformed(reason: "version \"\(fields.version.prefix(40))\" is not numbers separated by dots")
        }
        guard !fields.publisher.isEmpty, fields.publisher.count <= 200, !fields.publisher.contains(where: \.isNewline) else {
            throw .manifestMalformed(reason: "publisher must be one line of 1 to 200 characters")
        }
        guard let created = Timestamp.parse(fields.created) else {
            throw .manifestMalformed(reason: "created is not an RFC 3339 timestamp")
        }
        let counts = fields.counts
        guard [counts.topics, counts.vaccines, counts.codes, counts.strings].allSatisfy({ $0 >= 0 && $0 <= 10_000_000 }) else {
            throw .manifestMalformed(reason: "a count is negative or out of range")
        }
        guard !fields.languages.isEmpty, fields.languages.count <= 100, fields.languages.allSatisfy(isLanguageTag) else {
            throw .manifestMalformed(reason: "languages must be 1 to 100 language tags such as \"en\" or \"pt-BR\"")
        }
        let database = fields.database
        guard isSafeFileName(database.file), database.file.hasSuffix(".sqlite.gz") else {
            throw .manifestMalformed(reason: "database.file must be a plain file name ending in .sqlite.gz")
        }
        guard database.bytes > 0 else { throw .manifestMalformed(reason: "database.bytes must be positive") }
        guard isSHA256Hex(database.sha256), isSHA256Hex(database.gz_sha256) else {
            throw .manifestMalformed(reason: "database.sha256 and database.gz_sha256 must be 64 lower-case hex digits")
        }
        return PackManifest(format: fields.format, version: version, publisher: fields.publisher, created: created, counts: counts,
                            languages: fields.languages,
                            database: DatabaseFile(file: database.file, bytes: database.bytes, sha256: database.sha256, gzSHA256: database.gz_sha256))
    }

    /// `en`, `fr`, `pt-BR`, `xx-test`: 2 or 3 lower-case letters, then parts of 1 to 8 letters or digits.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.utf8.count), first.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.utf8.count) && part.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
        }
    }

    /// A name with no folder in it: letters, digits, `.`, `_`, `-`, not starting with a dot, at most 200 bytes.
    static func isSafeFileName(_ name: String) -> Bool {
        guard (1...200).contains(name.utf8.count), name.first != "." else { return false }
        return name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
    }

    static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, context)?: return "no \(path(context.codingPath + [key]))"
        case let .typeMismatch(_, context)?: return "\(path(context.codingPath)) has the wrong type"
        case let .valueNotFound(_, context)?: return "\(path(context.codingPath)) is null"
        case .dataCorrupted?: return "not valid JSON"
        default: return "not valid JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map(\.stringValue).joined(separator: ".")
    }
}
