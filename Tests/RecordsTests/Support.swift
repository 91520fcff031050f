import Foundation
import Records
import HealthRecord
import TestSupport

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
