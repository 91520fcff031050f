import Foundation
import SandboxSupport

/// One patient record the sandbox serves: its id in the feed (the medical record number) and the bytes
/// of its record JSON, with a strong ETag (SHA-256 of the bytes) and a title for the feed.
public struct SandboxRecord: Sendable, Equatable {
    public let id: String
    public let bytes: [UInt8]
    /// `"…"`: the SHA-256 of the bytes, in hex.
    public let etag: String
    /// "Last, First", as the RHEx server titles feed entries.
    public let title: String

    public init(id: String, bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
        self.etag = "\"" + SHA256.hex(bytes) + "\""
        self.title = Self.title(of: bytes) ?? id
    }

    /// A record whose id is taken from the JSON: `medical_record_number`, else `_id` (a string or
    /// `{"$oid": …}`), else `fallbackID`.
    public init?(json bytes: [UInt8], fallbackID: String? = nil) {
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
        guard let id = object.flatMap(Self.identifier) ?? fallbackID else { return nil }
        self.init(id: id, bytes: bytes)
    }

    static func identifier(_ object: [String: Any]) -> String? {
        func text(_ value: Any?) -> String? {
            switch value {
            case let string as String: return string.isEmpty ? nil : string
            case let number as NSNumber: return number.stringValue
            case let object as [String: Any]: return text(object["$oid"])
            default: return nil
            }
        }
        return text(object["medical_record_number"]) ?? text(object["_id"])
    }

    static func title(of bytes: [UInt8]) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return nil }
        let first = object["first"] as? String
        let last = object["last"] as? String
        switch (last, first) {
        case let (last?, first?): return "\(last), \(first)"
        case let (last?, nil): return last
        case let (nil, first?): return first
        default: return object["name"] as? String
        }
    }

    /// Every line of a line-delimited file (mongoexport, `pds_records_500.ndjson`) that is a record.
    public static func load(ndjson path: String) throws -> [SandboxRecord] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var records: [SandboxRecord] = []
        var number = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            number += 1
            var bytes = Array(line)
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard bytes.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
            if let record = SandboxRecord(json: bytes, fallbackID: "line-\(number)") { records.append(record) }
        }
        return records
    }

    /// Every `*.json` file of a folder (one record each; its id from the JSON, else the file name) and
    /// every `*.ndjson` file's lines, in file-name order.
    public static func load(directory path: String) throws -> [SandboxRecord] {
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        var records: [SandboxRecord] = []
        for name in names {
            let file = (path as NSString).appendingPathComponent(name)
            if name.hasSuffix(".ndjson") {
                records += try load(ndjson: file)
            } else if name.hasSuffix(".json") {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
                if let record = SandboxRecord(json: bytes, fallbackID: String(name.dropLast(5))) { records.append(record) }
            }
        }
        return records
    }
}
