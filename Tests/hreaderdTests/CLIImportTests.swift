import Foundation
import HealthRecord
import Testing
import TestSupport

/// `import-file`, `patients` and `export`, run as a user runs them.
@Suite("hreaderd import-file, patients, export")
struct CLIImportTests {
    let dir = TemporaryDirectory("hreaderd-import")
    var state: String { dir.file("state") }
    var binary: String { productsDirectory + "/hreaderd" }
    var environment: [String: String] { ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw")] }

    init() throws {
        try "import pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let created = try run(productsDirectory + "/hreaderd", ["init"], environment: ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw")])
        #expect(created.status == 0, "\(created.err)")
    }

    func hreaderd(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(binary, arguments, environment: environment)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func exportedIDs(_ patientID: String) throws -> [String] {
        let export = try hreaderd("export", "--patient", patientID)
        let json = try JSONSerialization.jsonObject(with: Data(export.out.utf8)) as? [String: Any]
        return (json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
    }

    @Test("a second import of the same file reports everything unchanged and keeps every id",
          .enabled(if: SharedSamples.available, SharedSamples.skipReason))
    func reimportUnchanged() throws {
        let file = SharedSamples.path("hreader_hs_henry_smith.json")
        let first = try hreaderd("import-file", file)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("patients 1 added"))
        let patients = try hreaderd("patients").out
        let id = try #require(patients.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        #expect(patients.contains("Henry Smith"))
        let idsBefore = try exportedIDs(id)
        let second = try hreaderd("import-file", file)
        #expect(second.out.contains("patients 0 added, 0 updated, 1 unchanged; entries 0 added, 0 updated, \(idsBefore.count) unchanged, 0 removed"))
        #expect(try exportedIDs(id) == idsBefore)
    }

    @Test("a record file over the download limit (64 MiB) imports; one over the files' limit (256 MiB) is refused unread")
    func fileRecordLimit() throws {
        let record = #"{"_id":"big","first":"Ann","last":"Lee","results":[{"_id":"a","description":"A","time":1}]}"#
        // Padded with white space past the limit a server's record is held to.
        let padded = dir.file("padded.json")
        #expect(FileManager.default.createFile(atPath: padded, contents: Data(record.utf8)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: padded))
        try handle.seekToEnd()
        let spaces = Data(repeating: 0x20, count: 1 << 20)
        for _ in 0...(64 + 1) { try handle.write(contentsOf: spaces) }
        try handle.close()
        let admitted = try hreaderd("import-file", padded)
        #expect(admitted.status == 0, "\(admitted.err)")
        #expect(admitted.out.contains("patients 1 added"), "\(admitted.out)")

        // One byte over the files' limit: refused by its size, never read (the file is sparse).
        let huge = dir.file("huge.json")
        #expect(FileManager.default.createFile(atPath: huge, contents: Data(record.utf8)))
        #expect(truncate(huge, off_t((256 << 20) + 1)) == 0)
        let refused = try hreaderd("import-file", huge)
        #expect(refused.status == 1)
        #expect(refused.err.contains("over the limit of 268435456 bytes"), "\(refused.err)")
    }

    /// A record of `count` results padded with white space to `bytes`, written to `name`.
    func largeRecord(_ name: String, count: Int, bytes: Int, cutAt: Int? = nil) throws -> String {
        let record = PatientRecord.record("long", name: "Ann Lee", entries: (0..<count).map { i in
            .entry(.result, "Sodium", at: 1_000 + Int64(i), value: 140, sourceID: "r\(i)")
        })
        var text = Data(record.rhexJSON().utf8)
        if let cutAt { text = text.prefix(cutAt) }
        text.append(Data(repeating: 0x20, count: bytes - text.count))
        let path = dir.file(name)
        #expect(FileManager.default.createFile(atPath: path, contents: text))
        return path
    }

    @Test("a record file of 32 MiB or more is imported as it is read; again, it is unchanged; cut short, nothing of it is kept")
    func largeRecordFile() throws {
        // 5,000 entries: three batches of the reader.
        let large = try largeRecord("large.json", count: 5_000, bytes: 33 << 20)
        let first = try hreaderd("import-file", large)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("patients 1 added, 0 updated, 0 unchanged; entries 5000 added"), "\(first.out)")
        #expect(first.err.contains("large.json: one record of 5000 entries, imported as it is read…"), "\(first.err)")
        let again = try hreaderd("import-file", large)
        #expect(again.out.contains("patients 0 added, 0 updated, 1 unchanged; entries 0 added, 0 updated, 5000 unchanged, 0 removed"), "\(again.out)")

        // The same record cut short half-way through its entries (white space after): an error, and the record
        // as it was.
        let cut = try largeRecord("cut.json", count: 5_000, bytes: 33 << 20, cutAt: 200_000)
        let refused = try hreaderd("import-file", cut)
        #expect(refused.status == 1)
        #expect(refused.err.contains("cut.json:1: not JSON at byte \(33 << 20)"), "\(refused.err)")
        #expect(!refused.err.contains("imported as it is read"))
        let id = try #require(try hreaderd("patients").out.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        #expect(try exportedIDs(id).count == 5_000)
    }

    @Test("a changed record updates in place: same ids for what remains, new for what is new, removed what is gone")
    func changedRecordUpdates() throws {
        let v1 = try write("v1.json", #"{"_id":"r1","first":"Ann","last":"Lee","results":[{"_id":"a","description":"A","time":1,"value":{"scalar":"1"}},{"_id":"b","description":"B","time":2},{"_id":"c","description":"C","time":3}]}"#)
        let v2 = try write("v2.json", #"{"_id":"r1","first":"Ann","last":"Lee","results":[{"_id":"a","description":"A","time":1,"value":{"scalar":"2"}},{"_id":"b","description":"B","time":2},{"_id":"d","description":"D","time":4}]}"#)
        _ = try hreaderd("import-file", v1)
        let id = try #require(try hreaderd("patients").out.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        let before = try exportedIDs(id)
        let result = try hreaderd("import-file", v2)
        #expect(result.out.contains("patients 0 added, 1 updated, 0 unchanged; entries 1 added, 1 updated, 1 unchanged, 1 removed"), "\(result.out)")
        let after = try exportedIDs(id)
        #expect(Set(before).intersection(after).count == 2)
        #expect(after.count == 3)
    }

    @Test("a corrupt line in an NDJSON file is reported with its line number; the other lines import")
    func corruptLine() throws {
        let file = try write("family.ndjson", """
            {"_id":"one","first":"A","last":"One","conditions":[{"_id":"x","description":"X","start_time":5}]}
            {"_id":"two","first":"B","last":"Two","conditions":[{"_id":"y","description":"Y","start_time":5}]
            {"_id":"three","first":"C","last":"Three"}
            """)
        let result = try hreaderd("import-file", file)
        #expect(result.status == 1)
        #expect(result.err.contains("family.ndjson:2:"), "\(result.err)")
        #expect(result.out.contains("patients 2 added"))
        let patients = try hreaderd("patients").out
        #expect(patients.contains("A One") && patients.contains("C Three") && !patients.contains("B Two"))
    }

    enum Bad: String, CaseIterable, CustomTestStringConvertible {
        case notJSON, wrongShape, deeplyNested, invalidUTF8, huge
        var testDescription: String { rawValue }
    }

    @Test("bad files are clear errors and store nothing", arguments: Bad.allCases)
    func badFiles(_ bad: Bad) throws {
        let path = dir.file("bad-\(bad.rawValue).json")
        switch bad {
        case .notJSON: try Data("hello, world".utf8).write(to: URL(fileURLWithPath: path))
        case .wrongShape: try Data(#"[{"_id":"a"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        case .deeplyNested: try Data((#"{"_id":"a","x":"# + String(repeating: "[", count: 100_000)).utf8).write(to: URL(fileURLWithPath: path))
        case .invalidUTF8: try Data([0x7b, 0x22, 0x5f, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).write(to: URL(fileURLWithPath: path))
        case .huge:
            // 100 MB of one JSON document: refused by size, without reading it all into memory.
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: Data(#"{"_id":"big","first":"Big","results":["#.utf8))
            try handle.truncate(atOffset: 100 * 1024 * 1024)
            try handle.close()
        }
        let result = try hreaderd("import-file", path)
        #expect(result.status == 1)
        #expect(result.err.contains("bad-\(bad.rawValue).json"))
        #expect(result.err.split(separator: "\n").allSatisfy { !$0.isEmpty })
        #expect(result.out.contains("patients 0 added"))
        #expect(try hreaderd("patients").err.contains("no patients yet"))
    }

    @Test("export writes the whole record to a 0600 file; an unknown patient is a clear error")
    func export() throws {
        let file = try write("p.json", #"{"_id":"r9","first":"Exp","last":"Ort","results":[{"_id":"a","description":"A","time":1,"extra":{"kept":true}}]}"#)
        _ = try hreaderd("import-file", file)
        let id = try #require(try hreaderd("patients").out.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        let out = dir.file("export.json")
        #expect(try hreaderd("export", "--patient", id, "--output", out).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        let raw = ((json["entries"] as? [[String: Any]])?.first?["raw"] as? [String: Any])?["extra"] as? [String: Bool]
        #expect(raw == ["kept": true])
        let missing = try hreaderd("export", "--patient", "p_nobody")
        #expect(missing.status == 1)
        #expect(missing.err == "hreaderd: there is no patient p_nobody (see `hreaderd patients`)\n")
        // Written under a temporary name and renamed: neither export leaves one behind, the failed one no file.
        let missingFile = dir.file("missing.json")
        #expect(try hreaderd("export", "--patient", "p_nobody", "--output", missingFile).status == 1)
        #expect(!FileManager.default.fileExists(atPath: missingFile))
        let names = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: out).deletingLastPathComponent().path)
        #expect(!names.contains { $0.contains(".partial-") }, "\(names)")
        // To stdout: the same document (its time aside), and a newline.
        let printed = try hreaderd("export", "--patient", id)
        #expect(printed.status == 0 && printed.out.hasSuffix("}\n"))
        let again = try #require(try JSONSerialization.jsonObject(with: Data(printed.out.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: again.filter { $0.key != "exported_at" })
                == NSDictionary(dictionary: json.filter { $0.key != "exported_at" }))
    }

    @Test("export --since limits an IPS's and a CCD's results to a period, as the route's ?since=; a bad time is a clear error")
    func exportSince() throws {
        let file = try write("s.json", #"{"_id":"r8","first":"Sin","last":"Ce","results":[{"_id":"old","description":"Old","time":1000000000},{"_id":"new","description":"New","time":1600000000}]}"#)
        _ = try hreaderd("import-file", file)
        let id = try #require(try hreaderd("patients").out.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        func observations(_ arguments: String...) throws -> [String] {
            let out = try run(binary, ["export", "--patient", id, "--format", "ips"] + arguments, environment: environment)
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(out.out.utf8)) as? [String: Any], "\(out.err)")
            return (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
                .filter { $0["resourceType"] as? String == "Observation" }
                .compactMap { ($0["code"] as? [String: Any])?["text"] as? String }.sorted()
        }
        #expect(try observations() == ["New", "Old"])
        #expect(try observations("--since", "2015-01-01") == ["New"])
        #expect(try observations("--since", "1600000001") == [])
        let ccd = try hreaderd("export", "--patient", id, "--format", "ccda", "--since", "2015-01-01T00:00:00Z")
        #expect(ccd.status == 0 && ccd.out.contains(">New<") && !ccd.out.contains(">Old<"))
        let bad = try hreaderd("export", "--patient", id, "--format", "ips", "--since", "yesterday")
        #expect(bad.status == 1 && bad.err == "hreaderd: --since must be a day (YYYY-MM-DD), an RFC 3339 time or epoch seconds\n")
        let json = try hreaderd("export", "--patient", id, "--since", "2015-01-01")
        #expect(json.status == 1 && json.err == "hreaderd: --sections and --since are for --format ips or ccda\n")
    }
}
