import HealthRecord

/// One code of an entry: the store's system name (`SNOMED-CT`, `LOINC`…), the code, and the display text
/// the source gave with it, when it gave one.
struct SharedCode: Sendable, Equatable {
    var system: String
    var code: String
    var display: String?

    /// The system's URI for FHIR: the one the reader maps to this name, else the name itself when it is a
    /// URI already, else nil (a code in a system that has no URI is written as text only).
    var uri: String? { SharedCodeSystems.uri(system) }
    /// The system's OID for C-CDA; nil when it has none, or when the code has a space (a CDA `cs` has none).
    var oid: String? { code.utf8.contains(where: { $0 <= 0x20 }) ? nil : SharedCodeSystems.oid(system) }
}

/// The store's code-system names (those `FHIRCodeSystems` reads) to FHIR URIs and HL7 OIDs: the reverse
/// of the readers' tables, so that a code written out is read back under the same name.
enum SharedCodeSystems {
    static let systems: [String: (uri: String, oid: String)] = [
        "SNOMED-CT": ("http://snomed.info/sct", "2.16.840.1.113883.6.96"),
        "LOINC": ("http://loinc.org", "2.16.840.1.113883.6.1"),
        "RxNorm": ("http://www.nlm.nih.gov/research/umls/rxnorm", "2.16.840.1.113883.6.88"),
        "CVX": ("http://hl7.org/fhir/sid/cvx", "2.16.840.1.113883.12.292"),
        "ICD-10-CM": ("http://hl7.org/fhir/sid/icd-10-cm", "2.16.840.1.113883.6.90"),
        "ICD-9-CM": ("http://hl7.org/fhir/sid/icd-9-cm", "2.16.840.1.113883.6.103"),
        "ICD-10-PCS": ("http://www.cms.gov/Medicare/Coding/ICD10", "2.16.840.1.113883.6.4"),
        "HCPCS": ("urn:oid:2.16.840.1.113883.6.285", "2.16.840.1.113883.6.285"),
        "CPT": ("http://www.ama-assn.org/go/cpt", "2.16.840.1.113883.6.12"),
        "NDC": ("http://hl7.org/fhir/sid/ndc", "2.16.840.1.113883.6.69"),
    ]

    static func uri(_ name: String) -> String? {
        if let known = systems[name] { return known.uri }
        // A system the reader did not know keeps its URI (or `urn:oid:`) as its name.
        if name.hasPrefix("http://") || name.hasPrefix("https://") || name.hasPrefix("urn:") { return name }
        if isOID(name) { return "urn:oid:" + name }
        return nil
    }

    static func oid(_ name: String) -> String? {
        if let known = systems[name] { return known.oid }
        if name.hasPrefix("urn:oid:"), isOID(String(name.dropFirst(8))) { return String(name.dropFirst(8)) }
        return isOID(name) ? name : nil
    }

    static func isOID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.first != UInt8(ascii: ".") && text.utf8.last != UInt8(ascii: ".")
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") } && text.utf8.contains(UInt8(ascii: "."))
    }

    /// An entry's codes from its canonical codes JSON (`{"LOINC":["8480-6"]}`), with the displays its
    /// source JSON gave (FHIR codings), in system order.
    static func codes(json: String, raw: String) -> [SharedCode] {
        guard json != "{}" else { return [] }
        var out = plainCodes(json) ?? []
        if out.isEmpty, case .object(let object)? = try? JSONDocument.parse(Array(json.utf8), maxBytes: maximumBytes, maxDepth: 4) {
            for member in object.members {
                for value in member.value.arrayValue ?? [] {
                    if let code = value.stringValue { out.append(SharedCode(system: member.key, code: code)) }
                }
            }
        }
        // FHIR's `code` and CDA's `cs` allow no white space at the ends (sources send "46008-9 ").
        out = out.compactMap { code in
            guard let first = code.code.utf8.first, let last = code.code.utf8.last, first <= 0x20 || last <= 0x20 else {
                return code.code.isEmpty ? nil : code
            }
            let trimmed = code.code.trimmedWhitespace
            return trimmed.isEmpty ? nil : SharedCode(system: code.system, code: trimmed)
        }
        guard !out.isEmpty, raw.utf8.count <= maximumBytes, Self.mentionsDisplay(raw) else { return out }
        let displays = displays(in: raw)
        guard !displays.isEmpty else { return out }
        for index in out.indices {
            out[index].display = displays[out[index].system + "|" + out[index].code]
        }
        return out
    }

    /// The canonical codes JSON the store writes (`{"LOINC":["8480-6"],"SNOMED-CT":["1","2"]}`) read byte by
    /// byte; nil when it holds anything else (an escape, a space), which the JSON reader then reads.
    static func plainCodes(_ json: String) -> [SharedCode]? {
        var json = json
        return json.withUTF8 { bytes -> [SharedCode]? in
            var out: [SharedCode] = []
            var index = 0
            func take(_ byte: UInt8) -> Bool {
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            func string() -> String? {
                guard take(UInt8(ascii: "\"")) else { return nil }
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") { return nil }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            guard take(UInt8(ascii: "{")) else { return nil }
            if take(UInt8(ascii: "}")) { return index == bytes.count ? [] : nil }
            repeat {
                guard let system = string(), take(UInt8(ascii: ":")), take(UInt8(ascii: "[")) else { return nil }
                if !take(UInt8(ascii: "]")) {
                    repeat {
                        guard let code = string() else { return nil }
                        out.append(SharedCode(system: system, code: code))
                    } while take(UInt8(ascii: ","))
                    guard take(UInt8(ascii: "]")) else { return nil }
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), index == bytes.count else { return nil }
            return out
        }
    }

    /// Whether the source JSON has a `"display"` key at all (a byte search: most sources have none).
    static func mentionsDisplay(_ raw: String) -> Bool {
        var raw = raw
        let needle = Array("\"display\"".utf8)
        return raw.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            var index = 0
            while index <= bytes.count - needle.count {
                if bytes[index] == needle[0] && bytes[index + 1] == needle[1] {
                    var match = true
                    for offset in 2..<needle.count where bytes[index + offset] != needle[offset] { match = false; break }
                    if match { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// A source larger than this is not read for displays.
    static let maximumBytes = 256 * 1024

    /// `system name|code` → display of every coding in a FHIR resource.
    static func displays(in raw: String) -> [String: String] {
        guard let value = try? JSONDocument.parse(Array(raw.utf8), maxBytes: maximumBytes, maxDepth: 32) else { return [:] }
        var out: [String: String] = [:]
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let object):
                if let code = object["code"]?.stringValue, let display = object["display"]?.stringValue, !display.isEmpty {
                    let key = FHIRCodeSystems.name(object["system"]?.stringValue) + "|" + code
                    if out[key] == nil { out[key] = display }
                }
                for member in object.members { walk(member.value) }
            case .array(let elements): for element in elements { walk(element) }
            default: break
            }
        }
        walk(value)
        return out
    }
}
