import Records
import HealthRecord
import Store

/// What one import of files did, file by file and patient by patient: what the command line prints,
/// what an upload's job reports, what the store keeps with each file.
public struct ImportReport: Sendable {
    public struct File: Sendable {
        public var name: String
        /// `fhir`, `ccda`, `rhex`
        public var format: String
        /// `bundle`, `ndjson`, `resource`, `record`, `document`
        public var shape: String
        public var bytes: Int
        /// FHIR resources, a C-CDA document's statements (its entries), or an RHEx file's records.
        public var resources: Int
        /// Why nothing of the file could be read; nil when it was read.
        public var error: String?
    }

    public struct Patient: Sendable {
        /// The store's patient id; nil when the patient was not imported.
        public var id: String?
        /// How the file names the person: `Patient/123`.
        public var reference: String
        public var name: String
        public var change: ImportSummary.PatientChange?
        public var entries: [EntryType: ImportSummary.EntryChanges] = [:]
        /// Resources kept with the patient, not shown, by resource type.
        public var kept: [String: Int] = [:]
        public var enteredInError = 0
        /// What became of every statement (C-CDA) or resource of a mapped type (FHIR) of this patient; nil
        /// for an RHEx record (a record is its entries).
        public var accounting: ImportAccounting?
        public var warnings: [String] = []
        /// Why nothing of this patient was imported.
        public var error: String?
        /// What `accounting` counts: `entries` (a C-CDA document's statements) or `resources` (FHIR).
        public var accountingUnit = "resources"
    }

    public var files: [File] = []
    public var patients: [Patient] = []
    /// Resources of no patient, by type (kept in the stored file only).
    public var unowned: [String: Int] = [:]
    /// Lines, entries and resources that could not be read.
    public var problems: [String] = []

    public init() {}

    /// Whether anything failed: a file, a patient, a line.
    public var hasFailures: Bool {
        files.contains { $0.error != nil } || patients.contains { $0.error != nil } || !problems.isEmpty
    }

    public var totals: ImportCounts {
        var counts = ImportCounts()
        for patient in patients {
            switch patient.change {
            case .added?: counts.patientsAdded += 1
            case .updated?: counts.patientsUpdated += 1
            case .unchanged?: counts.patientsUnchanged += 1
            case nil: counts.patientsFailed += 1
            }
            for changes in patient.entries.values {
                counts.entriesAdded += changes.added
                counts.entriesUpdated += changes.updated
                counts.entriesUnchanged += changes.unchanged
                counts.entriesRemoved += changes.removed
            }
        }
        return counts
    }

    public var entriesUnchanged: Int { totals.entriesUnchanged }

    // MARK: JSON

    public var json: String {
        var json = JSONWriter(capacity: 1024 + patients.count * 512)
        write(to: &json)
        return json.string
    }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("files")
        json.beginArray()
        for file in files {
            json.beginObject()
            json.key("name"); json.string(file.name)
            json.key("format"); json.string(file.format)
            json.key("shape"); json.string(file.shape)
            json.key("bytes"); json.int(Int64(file.bytes))
            json.key("resources"); json.int(Int64(file.resources))
            json.key("error"); json.string(file.error)
            json.endObject()
        }
        json.endArray()
        json.key("patients")
        json.beginArray()
        for patient in patients {
            json.beginObject()
            json.key("id"); json.string(patient.id)
            json.key("reference"); json.string(patient.reference)
            json.key("name"); json.string(patient.name)
            json.key("change"); json.string(patient.change?.rawValue)
            json.key("entries")
            json.beginObject()
            for type in EntryType.allCases {
                guard let changes = patient.entries[type] else { continue }
                json.key(type.section)
                json.beginObject()
                json.key("added"); json.int(Int64(changes.added))
                json.key("updated"); json.int(Int64(changes.updated))
                json.key("unchanged"); json.int(Int64(changes.unchanged))
                json.key("removed"); json.int(Int64(changes.removed))
                json.endObject()
            }
            json.endObject()
            json.key("kept"); Self.write(patient.kept, to: &json)
            json.key("entered_in_error"); json.int(Int64(patient.enteredInError))
            if let accounting = patient.accounting {
                json.key("accounted")
                json.beginObject()
                json.key("unit"); json.string(patient.accountingUnit)
                json.key("elements"); json.int(Int64(accounting.elements))
                json.key("imported"); json.int(Int64(accounting.imported))
                json.key("merged"); json.int(Int64(accounting.merged))
                json.key("left_out"); Self.write(accounting.leftOut, to: &json)
                json.endObject()
            }
            json.key("warnings"); json.beginArray(); for w in patient.warnings { json.string(w) }; json.endArray()
            json.key("error"); json.string(patient.error)
            json.endObject()
        }
        json.endArray()
        json.key("unowned"); Self.write(unowned, to: &json)
        json.key("problems"); json.beginArray(); for p in problems { json.string(p) }; json.endArray()
        let totals = self.totals
        json.key("totals")
        json.beginObject()
        json.key("patients_added"); json.int(Int64(totals.patientsAdded))
        json.key("patients_updated"); json.int(Int64(totals.patientsUpdated))
        json.key("patients_unchanged"); json.int(Int64(totals.patientsUnchanged))
        json.key("patients_failed"); json.int(Int64(totals.patientsFailed))
        json.key("entries_added"); json.int(Int64(totals.entriesAdded))
        json.key("entries_updated"); json.int(Int64(totals.entriesUpdated))
        json.key("entries_unchanged"); json.int(Int64(entriesUnchanged))
        json.key("entries_removed"); json.int(Int64(totals.entriesRemoved))
        json.endObject()
        json.endObject()
    }

    static func formatName(_ format: String) -> String {
        switch format {
        case "ccda": return "C-CDA"
        case "fhir": return "FHIR"
        case "rhex": return "RHEx"
        default: return format.uppercased()
        }
    }

    /// What a file's count counts: a C-CDA document's entries (its clinical statements), FHIR resources,
    /// an RHEx file's records.
    static func unit(of format: String, _ count: Int) -> String {
        switch format {
        case "ccda": return count == 1 ? "entry" : "entries"
        case "rhex": return count == 1 ? "record" : "records"
        default: return count == 1 ? "resource" : "resources"
        }
    }

    private static func write(_ counts: [String: Int], to json: inout JSONWriter) {
        json.beginObject()
        for key in counts.keys.sorted() { json.key(key); json.int(Int64(counts[key]!)) }
        json.endObject()
    }

    // MARK: Text

    /// The report as lines for a terminal: a line per file, per patient, per problem, and the totals.
    public var lines: [String] {
        var out: [String] = []
        for file in files {
            if let error = file.error {
                out.append("\(file.name): not imported: \(error)")
            } else {
                out.append("\(file.name): \(Self.formatName(file.format)) \(file.shape), \(file.resources) \(Self.unit(of: file.format, file.resources))")
            }
        }
        for patient in patients {
            let label = patient.name.isEmpty ? patient.reference : "\(patient.name) (\(patient.reference))"
            if let error = patient.error {
                out.append("  \(label): not imported: \(error)")
                continue
            }
            var line = "  \(label) → \(patient.id ?? "?"): \(patient.change?.rawValue ?? "?")"
            let byType = EntryType.allCases.compactMap { type -> String? in
                guard let c = patient.entries[type], c.added + c.updated + c.unchanged + c.removed > 0 else { return nil }
                var parts = ["\(c.added) added"]
                if c.updated > 0 { parts.append("\(c.updated) updated") }
                if c.unchanged > 0 { parts.append("\(c.unchanged) unchanged") }
                if c.removed > 0 { parts.append("\(c.removed) removed") }
                return "\(type.section) " + parts.joined(separator: ", ")
            }
            if !byType.isEmpty { line += "; " + byType.joined(separator: "; ") }
            out.append(line)
            if !patient.kept.isEmpty {
                out.append("    kept, not shown: " + patient.kept.keys.sorted().map { "\($0) \(patient.kept[$0]!)" }.joined(separator: ", "))
            }
            if let accounting = patient.accounting {
                out.append("    accounted: " + accounting.words(unit: patient.accountingUnit))
            } else if patient.enteredInError > 0 {
                out.append("    left out, entered in error: \(patient.enteredInError)")
            }
            for warning in patient.warnings { out.append("    warning: \(warning)") }
        }
        if !unowned.isEmpty {
            out.append("  kept in the file, of no patient: " + unowned.keys.sorted().map { "\($0) \(unowned[$0]!)" }.joined(separator: ", "))
        }
        for problem in problems { out.append("  problem: \(problem)") }
        let t = totals
        out.append("patients \(t.patientsAdded) added, \(t.patientsUpdated) updated, \(t.patientsUnchanged) unchanged"
                   + (t.patientsFailed > 0 ? ", \(t.patientsFailed) not imported" : "")
                   + "; entries \(t.entriesAdded) added, \(t.entriesUpdated) updated, \(entriesUnchanged) unchanged, \(t.entriesRemoved) removed")
        return out
    }
}
