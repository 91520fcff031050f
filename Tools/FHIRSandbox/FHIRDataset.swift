import Foundation

/// The resources a sandbox serves, read from FHIR R4 JSON: Bundles (transaction, batch, collection,
/// searchset: their `entry[].resource`), NDJSON files (a Bulk Data export: one resource a line), single
/// resources, and folders of such files (every `*.json` and `*.ndjson` under them, read as one input).
///
/// Every Patient becomes a patient of the server. Every other resource belongs to the patient its
/// `patient`, `subject` or `beneficiary` reference names, written either `Patient/ID` (an absolute URL
/// ending so is fine) or as the `urn:uuid:…` fullUrl of a Patient entry, as Synthea writes them.
/// References to a fullUrl of the loaded data are rewritten to `Type/id`, as a FHIR server does when it
/// stores a transaction; other references stay as they are. Resources that belong to no patient
/// (Medication, Organization, Practitioner…) are served by id only, and Medications also with the
/// resources that refer to them.
public struct FHIRDataset: Sendable {
    public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case notJSON(source: String, reason: String)
        /// Valid JSON, but not a resource nor a Bundle (no `resourceType`).
        case notFHIR(source: String)
        /// A folder or a list of paths with no `.json` or `.ndjson` file in it.
        case noFiles(path: String)

        public var description: String {
            switch self {
            case let .unreadable(path, reason): "\(path): cannot be read (\(reason))"
            case let .notJSON(source, reason): "\(source): not JSON (\(reason))"
            case let .notFHIR(source): "\(source): not a FHIR resource or Bundle (no resourceType)"
            case let .noFiles(path): "\(path): no .json or .ndjson file"
            }
        }
    }

    struct Resource: Sendable {
        var type: String
        var id: String
        var json: JSON
        /// The patient it belongs to (its own id for a Patient); nil for a Medication, an Organization…
        var patientID: String?

        var key: String { type + "/" + id }
    }

    private(set) var resources: [Resource] = []
    /// Resources skipped because one with the same type and id came before them.
    public private(set) var duplicatesSkipped = 0

    /// The ids of the patients, in the order they were read.
    public var patientIDs: [String] { resources.filter { $0.type == "Patient" }.map(\.id) }

    public var count: Int { resources.count }

    /// How many resources of each type.
    public var typeCounts: [String: Int] { resources.reduce(into: [:]) { $0[$1.type, default: 0] += 1 } }

    /// How many resources belong to `patientID`, the Patient included.
    public func count(patient patientID: String) -> Int { resources.count(where: { $0.patientID == patientID }) }

    /// Reads documents: each a Bundle, a single resource, or NDJSON (one resource a line).
    public init(documents: [[UInt8]]) throws(LoadError) {
        try self.init(named: documents.enumerated().map { ("document \($0.offset + 1)", $0.element) })
    }

    /// Reads files and folders: a `.json` Bundle or resource, an `.ndjson` file, or a folder, in which
    /// every `*.json` and `*.ndjson` file (in subfolders too, hidden ones aside) is read, by path order.
    public init(paths: [String]) throws(LoadError) {
        var documents: [(String, [UInt8])] = []
        for path in paths {
            let files = try Self.files(at: path)
            for file in files {
                do {
                    documents.append((file, Array(try Data(contentsOf: URL(fileURLWithPath: file)))))
                } catch {
                    throw .unreadable(path: file, reason: error.localizedDescription)
                }
            }
        }
        try self.init(named: documents)
    }

    static func files(at path: String) throws(LoadError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            throw .unreadable(path: path, reason: "cannot list the folder")
        }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if name.hasSuffix(".json") || name.hasSuffix(".ndjson") { found.append(relative) }
        }
        guard !found.isEmpty else { throw .noFiles(path: path) }
        return found.sorted().map { (path as NSString).appendingPathComponent($0) }
    }

    private init(named documents: [(String, [UInt8])]) throws(LoadError) {
        // 1. Every resource, with the fullUrl it had in its Bundle.
        var read: [(resource: JSON, fullUrl: String?)] = []
        for (source, bytes) in documents {
            try Self.read(bytes, source: source, into: &read)
        }
        // 2. Ids and aliases (fullUrl → Type/id).
        var aliases: [String: String] = [:]
        var seen = Set<String>()
        var generated = 0
        for (json, fullUrl) in read {
            guard let type = json["resourceType"]?.string, !type.isEmpty else { continue }
            var resource = json
            var id = json["id"]?.string ?? ""
            if id.isEmpty {
                if let fullUrl, let last = fullUrl.split(separator: fullUrl.hasPrefix("urn:") ? ":" : "/").last {
                    id = String(last)
                } else {
                    generated += 1
                    id = "sandbox-\(generated)"
                }
                resource.set("id", .string(id), after: "resourceType")
            }
            let key = type + "/" + id
            guard seen.insert(key).inserted else {
                duplicatesSkipped += 1
                continue
            }
            if let fullUrl, fullUrl != key { aliases[fullUrl] = key }
            resources.append(Resource(type: type, id: id, json: resource, patientID: nil))
        }
        // 3. References to a fullUrl become Type/id; each resource finds its patient.
        for index in resources.indices {
            if !aliases.isEmpty {
                resources[index].json.rewriteReferences { aliases[$0] }
            }
            resources[index].patientID = Self.patientID(of: resources[index])
        }
    }

    /// Appends the resources of one document: a Bundle's entries, a resource, or NDJSON lines.
    static func read(_ bytes: [UInt8], source: String, into read: inout [(resource: JSON, fullUrl: String?)]) throws(LoadError) {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            guard let lines = try ndjson(bytes, source: source, wholeError: error) else {
                throw .notJSON(source: source, reason: error.description)
            }
            for line in lines { try take(line, source: source, into: &read) }
            return
        }
        try take(json, source: source, into: &read)
    }

    /// The lines of an NDJSON document, or nil when it is not one (a single broken JSON document).
    private static func ndjson(_ bytes: [UInt8], source: String, wholeError: JSON.ParseError) throws(LoadError) -> [JSON]? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .map { line in line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : Array(line) }
            .filter { line in line.contains { ![0x20, 0x09].contains($0) } }
        guard lines.count > 1 || source.hasSuffix(".ndjson") else { return nil }
        var values: [JSON] = []
        for (number, line) in lines.enumerated() {
            do {
                values.append(try JSON.parse(line))
            } catch {
                if number == 0 && !source.hasSuffix(".ndjson") { return nil }
                throw .notJSON(source: "\(source) line \(number + 1)", reason: error.description)
            }
        }
        return values
    }

    private static func take(_ json: JSON, source: String, into read: inout [(resource: JSON, fullUrl: String?)]) throws(LoadError) {
        guard let type = json["resourceType"]?.string else { throw .notFHIR(source: source) }
        if type == "Bundle", let entries = json["entry"]?.array {
            for entry in entries {
                guard let resource = entry["resource"], resource["resourceType"]?.string != nil else { continue }
                read.append((resource, entry["fullUrl"]?.string))
            }
        } else {
            read.append((json, nil))
        }
    }

    /// The patient a resource belongs to: itself, or the Patient of its `patient`, `subject` or
    /// `beneficiary` reference.
    static func patientID(of resource: Resource) -> String? {
        if resource.type == "Patient" { return resource.id }
        for field in ["patient", "subject", "beneficiary"] {
            if let reference = resource.json[field]?.reference, let target = target(of: reference), target.type == "Patient" {
                return target.id
            }
        }
        return nil
    }

    /// `Type/id` of a literal reference (`Patient/1`, `http://host/fhir/Patient/1/_history/2`); nil for a
    /// contained (`#…`), conditional (`Location?identifier=…`) or `urn:` reference.
    static func target(of reference: String) -> (type: String, id: String)? {
        guard !reference.hasPrefix("#"), !reference.hasPrefix("urn:"), !reference.contains("?") else { return nil }
        var parts = reference.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 4, parts[parts.count - 2] == "_history" { parts.removeLast(2) }
        guard parts.count >= 2 else { return nil }
        let type = parts[parts.count - 2]
        let id = parts[parts.count - 1]
        guard let first = type.first, first.isUppercase, !id.isEmpty else { return nil }
        return (String(type), String(id))
    }
}
