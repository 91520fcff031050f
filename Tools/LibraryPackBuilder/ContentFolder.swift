import Foundation
import Library

/// The content a pack is built from, in the layout of `../shared/content/` (and of the project's copy in
/// `Resources/library/content/`, whose files are gzipped): `medlineplus-topics.jsonl`, `cvx-vaccines.jsonl`
/// and `crosswalk-cvx-medlineplus.tsv`, each read plain or as `NAME.gz`. Fields as that folder's README
/// describes them.
public struct ContentFolder: Sendable {
    public struct SourceTopic: Sendable, Decodable {
        public struct Related: Sendable, Decodable { public var id: String; public var title: String }
        public var id: String
        public var title: String
        public var url: String
        public var language: String
        public var also_called: [String]
        public var summary_text: String
        public var credit: String?
        public var groups: [String]
        public var related: [Related]
    }

    public struct SourceVaccine: Sendable, Decodable {
        public struct Group: Sendable, Decodable { public var code: String; public var name: String }
        public var code: String
        public var name: String
        public var short_name: String?
        public var note: String?
        public var status: String
        public var nonvaccine: Bool
        public var groups: [Group]
    }

    /// One row of the crosswalk: a CDC vaccine group → a MedlinePlus topic.
    public struct CrosswalkRow: Sendable {
        public var group: String
        public var groupName: String
        public var topicID: String
        public var topicTitle: String
    }

    public var topics: [SourceTopic]
    public var vaccines: [SourceVaccine]
    public var crosswalk: [CrosswalkRow]

    public static let topicsFile = "medlineplus-topics.jsonl"
    public static let vaccinesFile = "cvx-vaccines.jsonl"
    public static let crosswalkFile = "crosswalk-cvx-medlineplus.tsv"

    public init(topics: [SourceTopic], vaccines: [SourceVaccine], crosswalk: [CrosswalkRow]) {
        self.topics = topics
        self.vaccines = vaccines
        self.crosswalk = crosswalk
    }

    /// Reads the three files of `directory`.
    public init(directory: String) throws {
        let decoder = JSONDecoder()
        topics = try Self.lines(try Self.read(directory, Self.topicsFile)).enumerated().map { number, line in
            do { return try decoder.decode(SourceTopic.self, from: Data(line.utf8)) } catch {
                throw BuildError("\(Self.topicsFile) line \(number + 1): \(error)")
            }
        }
        vaccines = try Self.lines(try Self.read(directory, Self.vaccinesFile)).enumerated().map { number, line in
            do { return try decoder.decode(SourceVaccine.self, from: Data(line.utf8)) } catch {
                throw BuildError("\(Self.vaccinesFile) line \(number + 1): \(error)")
            }
        }
        crosswalk = try TSV.rows(try Self.read(directory, Self.crosswalkFile), file: Self.crosswalkFile,
                                 columns: ["group_cvx", "group_name", "topic_id", "topic_title"]).map {
            CrosswalkRow(group: $0[0], groupName: $0[1], topicID: $0[2], topicTitle: $0[3])
        }
    }

    /// The text of `name` in `directory`, or of `name.gz` there.
    public static func read(_ directory: String, _ name: String) throws -> String {
        let plain = directory + "/" + name
        if let data = FileManager.default.contents(atPath: plain) { return String(decoding: data, as: UTF8.self) }
        if let data = FileManager.default.contents(atPath: plain + ".gz") {
            guard let bytes = Gzip.decompress(Array(data)) else { throw BuildError("\(plain).gz is not a whole gzip file") }
            return String(decoding: bytes, as: UTF8.self)
        }
        throw BuildError("\(plain) is missing (and so is \(name).gz)")
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
    }
}

/// A build failure, said in one sentence.
public struct BuildError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Tab-separated tables with a header line: the crosswalk, the reviewed code tables, the string tables.
/// Lines starting with `#` are comments. In a cell, `\t`, `\n` and `\\` stand for a tab, a newline and a
/// backslash.
enum TSV {
    static func rows(_ text: String, file: String, columns: [String]) throws -> [[String]] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        lines = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let header = lines.first else { throw BuildError("\(file) is empty") }
        guard header.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) == columns else {
            throw BuildError("\(file): the header must be \(columns.joined(separator: ", ")) (tab-separated)")
        }
        return try lines.dropFirst().enumerated().map { number, line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map { unescape(String($0)) }
            guard cells.count == columns.count else {
                throw BuildError("\(file) row \(number + 1) has \(cells.count) cells, not \(columns.count)")
            }
            return cells
        }
    }

    static func unescape(_ cell: String) -> String {
        guard cell.contains("\\") else { return cell }
        var out = ""
        var escaping = false
        for character in cell {
            if escaping {
                switch character {
                case "t": out.append("\t")
                case "n": out.append("\n")
                default: out.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
