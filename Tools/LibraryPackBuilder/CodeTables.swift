import Foundation
import Library

/// The reviewed code tables: one TSV a code system (`snomed-ct.tsv`, `icd-10-cm.tsv`, `loinc.tsv`,
/// `rxnorm.tsv`), columns `code`, `description`, `topic_id`, `topic_title`, `source`. A row maps a code to
/// the topic that clearly is the thing the code names; `topic_id` `none` records a code reviewed as having
/// no right topic (which also keeps a match by name away). `topic_title` must be the topic's title in the
/// content (a check against typos in `topic_id`); `source` says how the row was checked.
public struct CodeTables: Sendable {
    public struct Row: Sendable {
        public var system: String
        public var code: String
        public var description: String
        /// Nil for `none`.
        public var topicID: String?
        public var topicTitle: String
        public var source: String
        /// The table's file name, the `via` of its rows in the pack.
        public var file: String
    }

    public static let files: [(file: String, system: String)] = [
        ("snomed-ct.tsv", "SNOMED-CT"), ("icd-10-cm.tsv", "ICD-10-CM"), ("loinc.tsv", "LOINC"), ("rxnorm.tsv", "RxNorm"),
    ]
    public static let columns = ["code", "description", "topic_id", "topic_title", "source"]

    public var rows: [Row]

    public init(rows: [Row]) { self.rows = rows }

    /// Reads the tables of `directory`; a table that is not there is empty. Any other `.tsv` is an error.
    public init(directory: String) throws {
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in present where name.hasSuffix(".tsv") && !Self.files.contains(where: { $0.file == name }) {
            throw BuildError("\(directory)/\(name): no code system is known by that file name (\(Self.files.map(\.file).joined(separator: ", ")))")
        }
        var rows: [Row] = []
        for (file, system) in Self.files where present.contains(file) {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for cells in try TSV.rows(text, file: file, columns: Self.columns) {
                guard !cells[0].isEmpty, !cells[4].isEmpty else { throw BuildError("\(file): code \(cells[0]) has no code or no source") }
                rows.append(Row(system: system, code: cells[0], description: cells[1], topicID: cells[2] == "none" ? nil : cells[2],
                                topicTitle: cells[3], source: cells[4], file: file))
            }
        }
        self.rows = rows
    }
}

/// The web app's string tables: `LANGUAGE.tsv` (`en.tsv`, `fr.tsv`), columns `key`, `text`. English is
/// the fallback for a key another language lacks.
public struct StringTables: Sendable {
    public var strings: [String: [String: String]]

    public init(strings: [String: [String: String]]) { self.strings = strings }

    public init(directory: String) throws {
        var strings: [String: [String: String]] = [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".tsv") }.sorted()
        for name in names {
            let language = String(name.dropLast(4))
            guard PackManifest.isLanguageTag(language) else { throw BuildError("\(directory)/\(name): \(language) is not a language tag") }
            let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            var table: [String: String] = [:]
            for cells in try TSV.rows(text, file: name, columns: ["key", "text"]) {
                guard table[cells[0]] == nil else { throw BuildError("\(name): the key \(cells[0]) is there twice") }
                table[cells[0]] = cells[1]
            }
            strings[language] = table
        }
        if !strings.isEmpty, strings["en"] == nil { throw BuildError("\(directory) has no en.tsv: English is every other language's fallback") }
        self.strings = strings
    }
}
