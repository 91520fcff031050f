import Foundation
import RHExClient
import Store

/// Parses a record written inline in a test.
func parseRecord(_ json: String, recordID: String? = nil, limits: ParseLimits = .standard) throws(RecordParseError) -> PatientRecord {
    try RecordParser(limits: limits).parse(Array(json.utf8), recordID: recordID)
}

/// The error parsing `bytes` gives, or nil when it parses.
func parseError(_ bytes: [UInt8], limits: ParseLimits = .standard) -> RecordParseError? {
    do {
        _ = try RecordParser(limits: limits).parse(bytes)
        return nil
    } catch {
        return error
    }
}

func parseError(_ json: String, limits: ParseLimits = .standard) -> RecordParseError? {
    parseError(Array(json.utf8), limits: limits)
}

/// The one entry of a record whose `section` holds just `entryJSON`.
func parseEntry(_ entryJSON: String, section: String = "results") throws -> Entry {
    let record = try parseRecord(#"{"_id":"r","\#(section)":[\#(entryJSON)]}"#)
    guard record.entries.count == 1, let entry = record.entries.first else {
        throw TestFailure("expected one entry, got \(record.entries.count)")
    }
    return entry
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A file in a fresh temporary directory, removed when the test's `body` returns.
func withTemporaryFile<T>(_ contents: [UInt8], _ body: (String) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rhex-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("record.json")
    try Data(contents).write(to: file)
    return try body(file.path)
}

func withTemporaryFile<T>(_ contents: String, _ body: (String) throws -> T) throws -> T {
    try withTemporaryFile(Array(contents.utf8), body)
}
