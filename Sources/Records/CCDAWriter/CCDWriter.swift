import HealthRecord

/// A person's record as a C-CDA R2.1 Continuity of Care Document: the US Realm Header with the person as
/// the record target and author, then one section a shared section (its LOINC code and templateIds, R2.1's
/// with their R1.1 twins), each with a narrative table whose rows the entries reference. The CCD's
/// required sections are always there: with no entries (or not chosen) they say so with `nullFlavor="NI"`.
/// `docs/export-mapping.md` gives the mapping as tables.
public enum CCDWriter {
    public static func write(_ record: SharedRecord, options: SharingOptions) -> [UInt8] {
        var writer = CCDDocumentWriter(content: SharedContent(record: record, options: options))
        return writer.write()
    }
}

/// A CCD section's template and code.
struct CCDSectionTemplate {
    var root: String
    var `extension`: String?
    var loinc: String
    var title: String
    var display: String
    /// The CCD requires it (with entries, or `nullFlavor="NI"`).
    var required: Bool

    static func of(_ section: SharedSection) -> CCDSectionTemplate {
        switch section {
        case .allergies: return .init(root: "2.16.840.1.113883.10.20.22.2.6.1", extension: "2015-08-01", loinc: section.loinc,
                                      title: "Allergies and Intolerances", display: "Allergies and adverse reactions Document", required: true)
        case .medications: return .init(root: "2.16.840.1.113883.10.20.22.2.1.1", extension: "2014-06-09", loinc: section.loinc,
                                        title: "Medications", display: "History of Medication use Narrative", required: true)
        case .problems: return .init(root: "2.16.840.1.113883.10.20.22.2.5.1", extension: "2015-08-01", loinc: section.loinc,
                                     title: "Problems", display: "Problem list - Reported", required: true)
        case .immunizations: return .init(root: "2.16.840.1.113883.10.20.22.2.2.1", extension: "2015-08-01", loinc: section.loinc,
                                          title: "Immunizations", display: "History of Immunization Narrative", required: false)
        case .results: return .init(root: "2.16.840.1.113883.10.20.22.2.3.1", extension: "2015-08-01", loinc: section.loinc,
                                    title: "Results", display: "Relevant diagnostic tests/laboratory data Narrative", required: true)
        case .vitalSigns: return .init(root: "2.16.840.1.113883.10.20.22.2.4.1", extension: "2015-08-01", loinc: section.loinc,
                                       title: "Vital Signs", display: "Vital signs", required: true)
        case .procedures: return .init(root: "2.16.840.1.113883.10.20.22.2.7.1", extension: "2014-06-09", loinc: section.loinc,
                                       title: "Procedures", display: "History of Procedures Document", required: false)
        case .devices: return .init(root: "2.16.840.1.113883.10.20.22.2.23", extension: "2014-06-09", loinc: section.loinc,
                                    title: "Medical Equipment", display: "History of medical device use", required: false)
        case .pastIllness: return .init(root: "2.16.840.1.113883.10.20.22.2.20", extension: "2015-08-01", loinc: section.loinc,
                                        title: "Past Medical History", display: "History of Past illness Narrative", required: false)
        case .planOfCare: return .init(root: "2.16.840.1.113883.10.20.22.2.10", extension: "2014-06-09", loinc: section.loinc,
                                       title: "Plan of Treatment", display: "Plan of care note", required: false)
        }
    }

    static let socialHistory = CCDSectionTemplate(root: "2.16.840.1.113883.10.20.22.2.17", extension: "2015-08-01", loinc: "29762-2",
                                                   title: "Social History", display: "Social history Narrative", required: true)
}

struct CCDDocumentWriter {
    let content: SharedContent
    var xml: XMLOutput
    /// The root of every id in the document about this person: the entry's stable id is the extension.
    let idRoot: String

    static let loinc = "2.16.840.1.113883.6.1"
    static let snomed = "2.16.840.1.113883.6.96"
    static let observationInterpretation = "2.16.840.1.113883.5.83"

    init(content: SharedContent) {
        self.content = content
        xml = XMLOutput(capacity: 8192 + content.record.items.count * 2000)
        idRoot = ResourceUUID.make(["ccda", "person", content.record.person.id]).uppercased()
    }

    mutating func write() -> [UInt8] {
        xml.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        xml.open("ClinicalDocument", [("xmlns", "urn:hl7-org:v3"), ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
                                      ("xmlns:sdtc", "urn:hl7-org:sdtc")])
        header()
        xml.open("component")
        xml.open("structuredBody")
        let chosen = Set(content.options.sections)
        for (index, part) in content.parts.enumerated() {
            let template = CCDSectionTemplate.of(part.section)
            if part.facts.isEmpty && !template.required { continue }
            section(part, template: template, index: index + 1)
        }
        for section in [SharedSection.results, .vitalSigns] where !chosen.contains(section) {
            notIncluded(CCDSectionTemplate.of(section), text: "Not included in this summary.")
        }
        notIncluded(CCDSectionTemplate.socialHistory, text: "There is no information about social history.")
        xml.close()
        xml.close()
        xml.close()
        xml.raw("\n")
        return xml.bytes
    }

    // MARK: Header

    mutating func templateIDs(_ root: String, _ ext: String?) {
        if let ext { xml.empty("templateId", [("root", root), ("extension", ext)]) }
        xml.empty("templateId", [("root", root)])
    }

    private mutating func header() {
        let now = content.options.now
        let person = content.record.person
        xml.empty("realmCode", [("code", "US")])
        xml.empty("typeId", [("root", "2.16.840.1.113883.1.3"), ("extension", "POCD_HD000040")])
        templateIDs("2.16.840.1.113883.10.20.22.1.1", "2015-08-01")
        templateIDs("2.16.840.1.113883.10.20.22.1.2", "2015-08-01")
        xml.empty("id", [("root", ResourceUUID.make(["ccda", "document", person.id, String(now)]).uppercased())])
        xml.empty("code", [("code", "34133-9"), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"),
                           ("displayName", "Summarization of Episode Note")])
        xml.text("title", "Continuity of Care Document: " + (MarkupText.clean(person.name) ?? "(no name)"))
        xml.empty("effectiveTime", [("value", SharedTime.hl7(now))])
        xml.empty("confidentialityCode", [("code", "N"), ("codeSystem", "2.16.840.1.113883.5.25"), ("displayName", "normal")])
        xml.empty("languageCode", [("code", "en-US")])
        xml.open("recordTarget")
        xml.open("patientRole")
        xml.empty("id", [("root", idRoot), ("extension", person.id)])
        for identifier in person.identifiers {
            guard let oid = SharedCodeSystems.oid(identifier.system), let value = MarkupText.clean(identifier.value) else { continue }
            xml.empty("id", [("root", oid), ("extension", value)])
        }
        xml.empty("addr", [("nullFlavor", "UNK")])
        xml.empty("telecom", [("nullFlavor", "UNK")])
        xml.open("patient")
        name(person)
        switch IPSBundleWriter.gender(person.gender) {
        case "male"?: xml.empty("administrativeGenderCode", [("code", "M"), ("codeSystem", "2.16.840.1.113883.5.1"), ("displayName", "Male")])
        case "female"?: xml.empty("administrativeGenderCode", [("code", "F"), ("codeSystem", "2.16.840.1.113883.5.1"), ("displayName", "Female")])
        default: xml.empty("administrativeGenderCode", [("nullFlavor", "UNK")])
        }
        if let birthdate = person.birthdate {
            xml.empty("birthTime", [("value", SharedTime.hl7Date(birthdate))])
        } else {
            xml.empty("birthTime", [("nullFlavor", "UNK")])
        }
        // SDTC's extension, where its schema puts it: after birthTime, before maritalStatusCode and raceCode.
        if person.deceased {
            xml.empty("sdtc:deceasedInd", [("value", "true")])
            if let died = person.deceasedDate { xml.empty("sdtc:deceasedTime", [("value", SharedTime.hl7(died))]) }
        }
        xml.empty("raceCode", [("nullFlavor", "UNK")])
        xml.empty("ethnicGroupCode", [("nullFlavor", "UNK")])
        xml.close()
        xml.close()
        xml.close()
        // The person hands over their own record: they are its author.
        xml.open("author")
        xml.empty("time", [("value", SharedTime.hl7(now))])
        xml.open("assignedAuthor")
        xml.empty("id", [("root", idRoot), ("extension", person.id)])
        xml.empty("code", [("code", "116154003"), ("codeSystem", Self.snomed), ("displayName", "Patient")])
        xml.empty("addr", [("nullFlavor", "UNK")])
        xml.empty("telecom", [("nullFlavor", "UNK")])
        xml.open("assignedPerson")
        name(person)
        xml.close()
        xml.close()
        xml.close()
        xml.open("custodian")
        xml.open("assignedCustodian")
        xml.open("representedCustodianOrganization")
        xml.empty("id", [("root", idRoot)])
        xml.text("name", "The patient's personal health record (hreaderd)")
        xml.empty("telecom", [("nullFlavor", "UNK")])
        xml.empty("addr", [("nullFlavor", "UNK")])
        xml.close()
        xml.close()
        xml.close()
        xml.open("documentationOf")
        xml.open("serviceEvent", [("classCode", "PCPR")])
        xml.open("effectiveTime")
        let earliest = content.parts.lazy.flatMap(\.facts).compactMap(\.date).min()
        if let low = earliest ?? person.birthdate { xml.empty("low", [("value", SharedTime.hl7(min(low, now)))]) } else { xml.empty("low", [("nullFlavor", "UNK")]) }
        xml.empty("high", [("value", SharedTime.hl7(now))])
        xml.close()
        xml.close()
        xml.close()
    }

    /// A US Realm Person Name: given and family (the name split at its last space when the source gave only one).
    private mutating func name(_ person: SharedRecord.Person) {
        let full = MarkupText.clean(person.name) ?? ""
        var given = MarkupText.clean(person.firstName)
        var family = MarkupText.clean(person.lastName)
        if given == nil && family == nil {
            if let space = full.lastIndex(of: " ") {
                given = String(full[..<space]).trimmedWhitespace
                family = String(full[full.index(after: space)...])
            } else if !full.isEmpty {
                family = full
            }
        }
        guard given != nil || family != nil else { xml.empty("name", [("nullFlavor", "UNK")]); return }
        xml.open("name")
        if let given { for part in given.split(separator: " ") { xml.text("given", String(part)) } }
        if let family { xml.text("family", family) } else { xml.empty("family", [("nullFlavor", "UNK")]) }
        xml.close()
    }

    // MARK: Sections

    private mutating func notIncluded(_ template: CCDSectionTemplate, text: String) {
        xml.open("component")
        xml.open("section", [("nullFlavor", "NI")])
        templateIDs(template.root, template.extension)
        xml.empty("code", [("code", template.loinc), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"), ("displayName", template.display)])
        xml.text("title", template.title)
        xml.open("text")
        xml.text("paragraph", text)
        xml.close()
        xml.close()
        xml.close()
    }

    private mutating func section(_ part: SharedContent.Part, template: CCDSectionTemplate, index: Int) {
        guard !part.facts.isEmpty else {
            var text = SharedNarrative.nothing(part.section)
            if let sentence = SharedContent.struckSentence(part.struck) { text += " " + sentence }
            notIncluded(template, text: text)
            return
        }
        xml.open("component")
        xml.open("section")
        templateIDs(template.root, template.extension)
        xml.empty("code", [("code", template.loinc), ("codeSystem", Self.loinc), ("codeSystemName", "LOINC"), ("displayName", template.display)])
        xml.text("title", template.title)
        narrative(part, index: index)
        for (row, fact) in part.facts.enumerated() {
            let reference = Self.rowID(index, row)
            xml.open("entry", [("typeCode", "DRIV")])
            entry(fact, in: part.section, reference: reference)
            xml.close()
        }
        xml.close()
        xml.close()
    }

    static func rowID(_ section: Int, _ row: Int) -> String { "s\(section)r\(row + 1)" }

    /// The section's table; each row has an ID the entry's text references, its note cell one of its own.
    private mutating func narrative(_ part: SharedContent.Part, index: Int) {
        let table = SharedNarrative(part)
        let noteColumn = table.headers.last == "Note" ? table.headers.count - 1 : nil
        xml.open("text")
        xml.open("table", [("border", "1"), ("width", "100%")])
        xml.open("thead")
        xml.open("tr")
        for header in table.headers { xml.text("th", header) }
        xml.close()
        xml.close()
        xml.open("tbody")
        for (row, cells) in table.rows.enumerated() {
            let id = Self.rowID(index, row)
            xml.open("tr", [("ID", id)])
            for (column, cell) in cells.enumerated() {
                if column == noteColumn, !cell.isEmpty {
                    xml.open("td")
                    xml.text("content", cell, [("ID", id + "note")])
                    xml.close()
                } else {
                    xml.text("td", cell)
                }
            }
            xml.close()
        }
        xml.close()
        xml.close()
        if let sentence = SharedContent.struckSentence(part.struck) { xml.text("paragraph", sentence) }
        xml.close()
    }
}
