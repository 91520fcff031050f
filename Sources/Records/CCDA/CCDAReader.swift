import HealthRecord

/// Reads a C-CDA (R1.1, R2.1) or HITSP C32 document into the person it is about: `recordTarget` for the
/// demographics and identity, each known section's entries from their entry templates, mapped to the
/// same entry types as FHIR (`docs/import-mapping.md`). Parsing only: no network, no store; XML through
/// libxml2 safely (`XMLDocument`).
public struct CCDAReader: Sendable {
    /// A 1 MB document is large; 32 MiB is far beyond any real one.
    public static let defaultMaxBytes = 32 << 20

    /// A section's narrative is kept up to this many bytes (a real one is a few kilobytes).
    public static let defaultMaxSectionTextBytes = 256 << 10

    public var maxBytes: Int
    public var maxSectionTextBytes: Int

    public init(maxBytes: Int = CCDAReader.defaultMaxBytes, maxSectionTextBytes: Int = CCDAReader.defaultMaxSectionTextBytes) {
        self.maxBytes = maxBytes
        self.maxSectionTextBytes = maxSectionTextBytes
    }

    public struct Result: Sendable {
        public var record: PatientRecord
        /// Sections the reader knows, found in the document.
        public var sections: Int
        /// Sections with narrative but no structured entries: kept in the document, for the person to read.
        public var narrativeOnly: [String]
        /// What became of every statement of the structured body: imported, merged, left out and why.
        public var accounting: ImportAccounting
        /// What the report says of the document (statements sharing an id, an act with no observation…).
        public var warnings: [String]
        /// Statements the document negates ("no known allergies"): not entries.
        public var negated: Int { accounting.leftOut[ImportAccounting.LeftOut.negated.rawValue] ?? 0 }
        /// The statements found, as the report counts them.
        public var statements: Int { accounting.elements }
    }

    /// Whether bytes look like a CDA document: XML whose root is `ClinicalDocument`.
    public static func looksLikeCDA(_ prefix: [UInt8]) -> Bool {
        let text = String(decoding: prefix.prefix(4096), as: UTF8.self)
        return text.contains("<ClinicalDocument") || text.contains(":ClinicalDocument")
    }

    public func read(_ bytes: [UInt8], name: String) throws(CCDAError) -> Result {
        guard bytes.count <= maxBytes else { throw .notXML(.tooLarge(bytes: bytes.count, maxBytes: maxBytes)) }
        let document: XMLDocument
        do { document = try XMLDocument(bytes) } catch { throw .notXML(error) }
        guard document.root.name == "ClinicalDocument" else {
            throw .notCDA("the root element is \(document.root.name), not ClinicalDocument")
        }
        guard let patientRole = document.node("/hl7:ClinicalDocument/hl7:recordTarget/hl7:patientRole") else {
            throw .notCDA("the document has no recordTarget/patientRole: it is not about one person")
        }
        var narrative: [String: XMLNode] = [:]
        for node in document.nodes("//hl7:section/hl7:text/descendant-or-self::*[@ID]") {
            if let id = node.attribute("ID") { narrative[id] = node }
        }
        var reader = CCDAEntryReader(values: CCDAValues(narrative: narrative))
        var record = patient(patientRole, reader.values)
        // The recordTarget is the person's demographic document: a newer document's names update them (a
        // record with "{}" here would be taken as one without demographics, as FHIR resources without
        // their Patient are).
        record.otherFieldsJSON = #"{"format":"cda"}"#
        var sections = 0
        var narrativeOnly: [String] = []
        var texts: [ClinicalDocument.Section] = []
        for section in document.nodes("//hl7:section") {
            let templates = section.nodes("hl7:templateId").compactMap { $0.attribute("root") }
            let code = section.node("hl7:code")
            let kind = CCDASection.of(templates: templates, code: code?.attribute("code"))
            let title = section.node("hl7:title").map { CCDAValues.clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
                ?? code?.attribute("displayName") ?? kind.map { "LOINC \($0.loinc)" } ?? "Untitled section"
            let before = reader.factCount
            if let kind {
                sections += 1
                for entry in section.nodes("hl7:entry") { reader.read(entry, in: kind) }
            } else {
                reader.unmapped(section.nodes("hl7:entry").count)
            }
            // Every section's narrative is kept as text, to be read, exported and searched: sections the
            // reader has no entries for (assessment, reason for referral…) are often the ones that matter.
            let text = section.node("hl7:text")?.blockText(maxBytes: maxSectionTextBytes)
            guard let text, !text.text.isEmpty else { continue }
            let entries = reader.factCount - before
            if entries == 0, kind != nil { narrativeOnly.append(title) }
            texts.append(ClinicalDocument.Section(title: title, code: code?.attribute("code"),
                                                  text: text.truncated ? text.text + "\n[…]" : text.text, entries: entries))
        }
        reader.finish()
        record.entries = reader.entries
        let time = document.node("/hl7:ClinicalDocument/hl7:effectiveTime")?.attribute("value").flatMap(HL7Time.parse)
        record.asOf = time
        record.documents = [ClinicalDocument(
            id: Self.documentID(document, bytes: bytes),
            title: document.node("/hl7:ClinicalDocument/hl7:title").map { CCDAValues.clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 } ?? name,
            time: time, format: Self.isC32(document) ? "c32" : "ccda", sections: texts)]
        return Result(record: record, sections: sections, narrativeOnly: narrativeOnly, accounting: reader.accounting,
                      warnings: reader.warnings)
    }

    /// The document's own id (`root|extension`); a document without one is known by its content.
    private static func documentID(_ document: XMLDocument, bytes: [UInt8]) -> String {
        if let id = document.node("/hl7:ClinicalDocument/hl7:id[@root]"), let root = id.attribute("root"), !root.isEmpty {
            return root + (id.attribute("extension").map { "|" + $0 } ?? "")
        }
        return StableID.make("doc", [String(decoding: bytes, as: UTF8.self)])
    }

    /// A HITSP C32 document says so in its templateIds.
    private static func isC32(_ document: XMLDocument) -> Bool {
        document.node("/hl7:ClinicalDocument/hl7:templateId[@root='2.16.840.1.113883.3.88.11.32.1']") != nil
    }

    /// The person: identifiers from `patientRole/id`, name, gender, birth time.
    private func patient(_ role: XMLNode, _ values: CCDAValues) -> PatientRecord {
        var identifiers: [PatientIdentifier] = []
        for id in role.nodes("hl7:id") {
            guard let root = id.attribute("root"), !root.isEmpty else { continue }
            identifiers.append(PatientIdentifier(system: "urn:oid:" + root, value: id.attribute("extension") ?? root))
        }
        let person = role.node("hl7:patient")
        let name = person?.node("hl7:name[@use='L']") ?? person?.node("hl7:name")
        let given = name?.nodes("hl7:given").map { CCDAValues.clean($0.text) }.filter { !$0.isEmpty } ?? []
        let family = name?.node("hl7:family").map { CCDAValues.clean($0.text) }
        let full = ([given.joined(separator: " "), family ?? ""]).filter { !$0.isEmpty }.joined(separator: " ")
        let gender: String? = switch person?.node("hl7:administrativeGenderCode")?.attribute("code") {
        case "M"?: "M"
        case "F"?: "F"
        case let other?: other
        case nil: nil
        }
        var record = PatientRecord(
            recordID: identifiers.first.map { "cda:" + $0.system + "|" + $0.value } ?? "cda:unidentified",
            firstName: given.isEmpty ? nil : given.joined(separator: " "), lastName: family,
            name: full.isEmpty ? (name.map { CCDAValues.clean($0.text) } ?? "") : full, gender: gender,
            birthdate: person?.node("hl7:birthTime")?.attribute("value").flatMap(HL7Time.parse))
        record.identifiers = identifiers
        // SDTC's extension: `sdtc:deceasedInd` (true/false) and `sdtc:deceasedTime` (which says both).
        let deceasedTime = person?.node("sdtc:deceasedTime")?.attribute("value").flatMap(HL7Time.parse)
        let indicator = person?.node("sdtc:deceasedInd")?.attribute("value")
        record.deceased = deceasedTime != nil ? true : indicator.map { $0 == "true" }
        record.deceasedDate = deceasedTime
        return record
    }
}

public enum CCDAError: Error, Sendable, Equatable, CustomStringConvertible {
    case notXML(XMLError)
    case notCDA(String)

    public var description: String {
        switch self {
        case let .notXML(error): return error.description
        case let .notCDA(reason): return "not a C-CDA or C32 document: \(reason)"
        }
    }
}
