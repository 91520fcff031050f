#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// Turns the bytes of one file into FHIR resources, whatever its shape, decided from the content and
/// never from the file name: a `Bundle` of any type (its `entry[].resource`s), NDJSON (one resource a
/// line, as in Bulk Data exports), or a single resource.
public enum FHIRInput {
    public enum Shape: String, Sendable {
        case bundle, ndjson, resource
    }

    /// What one file held: its resources, its shape, and the lines or entries that could not be read
    /// (each a message; the rest of the file still counts).
    public struct File: Sendable {
        public var name: String
        public var shape: Shape
        public var resources: [FHIRResource]
        public var problems: [String]
    }

    /// Whether the bytes look like FHIR JSON at all (an object with `resourceType` near its start, or
    /// NDJSON whose first line is one): how `import-file` tells FHIR from RHEx record JSON without
    /// reading the file whole.
    public static func looksLikeFHIR(_ prefix: [UInt8]) -> Bool {
        // `"resourceType"` is a member name no RHEx record has.
        let needle = Array("\"resourceType\"".utf8)
        guard prefix.count >= needle.count else { return false }
        for start in 0...(prefix.count - needle.count) where prefix[start] == needle[0] {
            if Array(prefix[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    /// Reads one file. Throws only when nothing of it can be read (not JSON, not FHIR, over a limit).
    /// The file's JSON is checked whole; its resources keep their place in `bytes` and are parsed when mapped.
    public static func read(_ bytes: [UInt8], name: String, limits: FHIRLimits = .standard) throws(FHIRError) -> File {
        let source = FHIRSourceBytes(bytes, maxDepth: limits.maxDepth)
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(FHIRError) -> File in try read(buffer, source: source, name: name, limits: limits) }
        }
        return try result.get()
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, source: FHIRSourceBytes, name: String,
                             limits: FHIRLimits) throws(FHIRError) -> File {
        let start: Int
        do { start = try JSONDocument.checkedBody(bytes, maxBytes: limits.maxFileBytes) } catch { throw .notJSON(error) }
        if let firstLineEnd = ndjsonFirstLineEnd(bytes, from: start) {
            return try readLines(bytes, source: source, from: start, firstLineEnd: firstLineEnd, name: name, limits: limits)
        }
        var scanner = JSONScanner(bytes: bytes, maxDepth: limits.maxDepth, offset: start)
        do {
            switch scanner.peekKind() {
            case .object: break
            case nil where scanner.isAtEnd: throw FHIRError.notFHIR("the file is empty")
            default:
                try scanner.skipValue()
                try scanner.expectEnd()
                throw FHIRError.notFHIR("the top level is not an object (expected a resource, a Bundle or NDJSON)")
            }
            var walk = BundleWalk(scanner: scanner, source: source, name: name, limits: limits)
            try walk.read()
            guard let type = walk.resourceType else {
                throw FHIRError.notFHIR("the object has no resourceType")
            }
            if type == "Bundle" {
                return File(name: name, shape: .bundle, resources: walk.resources, problems: walk.problems)
            }
            // A single resource: read it again whole (the walk set `entry` members aside).
            var again = JSONScanner(bytes: bytes, maxDepth: limits.maxDepth, offset: start)
            let resource = try resource(&again, source: source, place: .file(name))
            try again.expectEnd()
            return File(name: name, shape: .resource, resources: [resource], problems: [])
        } catch let error as FHIRError {
            throw error
        } catch let error as JSONScanError {
            throw .notJSON(error)
        } catch {
            throw .notFHIR(String(describing: error))
        }
    }

    /// One resource object at the scanner's position: its JSON checked whole, its `resourceType`, `id` and
    /// patient references read, and its place in `source` noted (`base`: where the scanner's bytes start
    /// in the file). A resource of the wrong shape is read to its end before its error is thrown, so that
    /// the walk of a bundle goes on after it.
    static func resource(_ scanner: inout JSONScanner, source: FHIRSourceBytes, base: Int = 0, place: FHIRResource.Place,
                         fullUrl: String? = nil) throws -> FHIRResource {
        func origin() -> String {
            place.description
        }
        guard scanner.peekKind() == .object else {
            try scanner.skipValue()
            throw FHIRError.notFHIR("\(origin()) is not an object")
        }
        var type: String?
        var typeIsString = true
        var id: String?
        var idIsString = true
        var references = FHIRPatientReference.Candidates()
        let from = scanner.offset
        let whitespaceBefore = scanner.whitespaceBytes
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            // As `JSONObject`'s subscript reads a member given twice: the last one counts.
            if scanner.token(key, equals: "resourceType") {
                typeIsString = scanner.peekKind() == .string
                type = typeIsString ? scanner.string(try scanner.readStringToken()) : nil
                if !typeIsString { try scanner.skipValue() }
            } else if scanner.token(key, equals: "id") {
                switch scanner.peekKind() {
                case .string:
                    idIsString = true
                    let text = scanner.string(try scanner.readStringToken())
                    id = text.isEmpty ? nil : text
                case .null:
                    idIsString = true
                    id = nil
                    try scanner.skipValue()
                default:
                    idIsString = false
                    try scanner.skipValue()
                }
            } else if let field = FHIRPatientReference.field(key, of: scanner) {
                references.set(field, try FHIRPatientReference.read(&scanner))
            } else {
                try scanner.skipValue()
            }
        }
        guard typeIsString, let type, !type.isEmpty else {
            throw FHIRError.notFHIR("\(origin()) has no resourceType")
        }
        guard idIsString else {
            throw FHIRError.badField(resource: type + "@" + origin(), path: "id", expected: "a string")
        }
        return FHIRResource(type: type, id: id, fullUrl: fullUrl, patientReference: references.first, source: source,
                            range: (base + from)..<(base + scanner.offset), isCompact: scanner.whitespaceBytes == whitespaceBefore,
                            place: place)
    }

    // MARK: NDJSON

    /// The end of the first line when the file is NDJSON: its first non-blank line is a whole JSON
    /// value and something other than whitespace follows it.
    private static func ndjsonFirstLineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var lineStart = start
        while lineStart < bytes.count, isSpace(bytes[lineStart]) { lineStart += 1 }
        // memchr: a bundle is one line or has its first newline far in, and a loop a byte at a time over a
        // 57 MB bundle was a tenth of its reading.
        guard let base = bytes.baseAddress, lineStart < bytes.count,
              let found = memchr(base + lineStart, 0x0A, bytes.count - lineStart) else { return nil }
        let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
        // A second line first (cheap): a one-line bundle of 50 MB is not copied and balanced for nothing.
        guard (newline..<bytes.count).contains(where: { !isSpace(bytes[$0]) }) else { return nil }
        guard JSONBalance.isCompleteValue(Array(bytes[lineStart..<newline])) else { return nil }
        return newline
    }

    private static func readLines(_ bytes: UnsafeBufferPointer<UInt8>, source: FHIRSourceBytes, from start: Int, firstLineEnd: Int,
                                  name: String, limits: FHIRLimits) throws(FHIRError) -> File {
        var file = File(name: name, shape: .ndjson, resources: [], problems: [])
        var lineStart = start
        var number = 0
        while lineStart < bytes.count {
            number += 1
            var lineEnd = bytes.count
            if let base = bytes.baseAddress, let found = memchr(base + lineStart, 0x0A, bytes.count - lineStart) {
                lineEnd = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            }
            defer { lineStart = lineEnd + 1 }
            guard (lineStart..<lineEnd).contains(where: { !isSpace(bytes[$0]) }) else { continue }
            guard file.resources.count < limits.maxResources else {
                throw .overLimit("\(name) holds more than \(limits.maxResources) resources")
            }
            let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            var scanner = JSONScanner(bytes: line, maxDepth: limits.maxDepth)
            do {
                scanner.skipWhitespace()
                let resource = try resource(&scanner, source: source, base: lineStart, place: .line(file: name, number: number))
                try scanner.expectEnd()
                file.resources.append(resource)
            } catch {
                file.problems.append("\(name):\(number): \(describe(error))")
            }
        }
        return file
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as FHIRError: return error.description
        case let error as JSONScanError: return error.description
        default: return String(describing: error)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

/// The walk over a top-level object that may be a Bundle: `resourceType` is noted, and each
/// `entry[].resource` is read with its exact source slice, so a bundle is read once.
private struct BundleWalk {
    var scanner: JSONScanner
    let source: FHIRSourceBytes
    let name: String
    let limits: FHIRLimits
    var resourceType: String?
    var resources: [FHIRResource] = []
    var problems: [String] = []

    init(scanner: JSONScanner, source: FHIRSourceBytes, name: String, limits: FHIRLimits) {
        self.scanner = scanner
        self.source = source
        self.name = name
        self.limits = limits
    }

    mutating func read() throws {
        try scanner.beginObject()
        var isFirst = true
        while let key = try scanner.nextKey(isFirst: &isFirst) {
            if scanner.token(key, equals: "resourceType"), scanner.peekKind() == .string {
                resourceType = scanner.string(try scanner.readStringToken())
            } else if scanner.token(key, equals: "entry"), scanner.peekKind() == .array {
                try readEntries()
            } else {
                try scanner.skipValue()
            }
        }
        try scanner.expectEnd()
    }

    private mutating func readEntries() throws {
        try scanner.beginArray()
        var isFirst = true
        var index = 0
        while try scanner.nextElement(isFirst: &isFirst) {
            defer { index += 1 }
            guard scanner.peekKind() == .object else {
                try scanner.skipValue()
                problems.append("\(name)#entry[\(index)]: not an object")
                continue
            }
            try scanner.beginObject()
            var first = true
            var fullUrl: String?
            var resource: FHIRResource?
            var problem: String?
            while let key = try scanner.nextKey(isFirst: &first) {
                if scanner.token(key, equals: "fullUrl"), scanner.peekKind() == .string {
                    fullUrl = scanner.string(try scanner.readStringToken())
                } else if scanner.token(key, equals: "resource"), scanner.peekKind() == .object {
                    do {
                        // With the `fullUrl` when it came first (as it mostly does): the resource's key is made once.
                        resource = try FHIRInput.resource(&scanner, source: source, place: .entry(file: name, index: index),
                                                          fullUrl: fullUrl)
                    } catch let error as FHIRError {
                        // The value was read whole before its shape was checked: the walk goes on.
                        problem = "\(name)#entry[\(index)]: \(error)"
                    }
                } else {
                    try scanner.skipValue()
                }
            }
            if let problem { problems.append(problem); continue }
            // A batch-response or a transaction without resources (request only) has nothing to import.
            guard let resource else { continue }
            guard resources.count < limits.maxResources else {
                throw FHIRError.overLimit("\(name) holds more than \(limits.maxResources) resources")
            }
            resources.append(resource.fullUrl == fullUrl ? resource : resource.with(fullUrl: fullUrl))
        }
    }
}
