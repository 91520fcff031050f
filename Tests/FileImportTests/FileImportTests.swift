import Foundation
import ImportJobs
import Records
import HealthRecord
import Store
import TestSupport
import Testing
import TimelineAPI

/// The import machinery the command line, the upload route and `reimport` share, against a real
/// encrypted store: identity across re-imports, merge and replace, kept files and resources.
@Suite("importing files into the store")
struct FileImportTests {
    static let patient = #"{"resourceType":"Patient","id":"p1","identifier":[{"system":"urn:mrn","value":"42"}],"name":[{"given":["Ada"],"family":"Lovelace"}],"gender":"female","birthDate":"1815-12-10"}"#

    static func condition(_ id: String, patient: String = "p1", onset: String = "2012-04-01", status: String = "active") -> String {
        #"{"resourceType":"Condition","id":"\#(id)","subject":{"reference":"Patient/\#(patient)"},"code":{"text":"Condition \#(id)"},"clinicalStatus":{"coding":[{"code":"\#(status)"}]},"onsetDateTime":"\#(onset)"}"#
    }

    static func bundle(_ resources: [String]) -> [UInt8] {
        Array((#"{"resourceType":"Bundle","type":"collection","entry":["# + resources.map { #"{"resource":\#($0)}"# }.joined(separator: ",") + "]}").utf8)
    }

    /// `streamed`: every FHIR patient mapped as it is written (`StreamedFHIRImport`), as a long record is;
    /// the tests that take it run both ways and must see the same.
    static func withStore(streamed: Bool = false, _ body: (Store, FileImporter) async throws -> Void) async throws {
        let dir = TemporaryDirectory("hreaderd-import")
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        try await body(store, FileImporter(store: store, mapsWhileWritingFrom: streamed ? 1 : .max))
    }

    static func entries(_ store: Store, _ patientID: String) throws -> [String: String] {
        var out: [String: String] = [:]
        _ = try store.readSync { db in
            try db.statement("SELECT id, description FROM entries WHERE patient_id = ?").forEach([patientID]) { row in
                out[row.string(0)] = row.string(1)
            }
        }
        return out
    }

    @Test("importing the same file again changes nothing and keeps every id; an edited resource updates in place", arguments: [false, true])
    func reimportAndEdit(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let first = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1"), Self.condition("c2")]))])
            let id = try #require(first.patients.first?.id)
            #expect(first.totals.patientsAdded == 1 && first.totals.entriesAdded == 2)
            let before = try Self.entries(store, id)

            let again = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1"), Self.condition("c2")]))])
            #expect(again.totals.patientsUnchanged == 1 && again.entriesUnchanged == 2 && again.totals.entriesAdded == 0)
            #expect(try Self.entries(store, id) == before)

            let edited = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1", status: "resolved"), Self.condition("c2")]))])
            #expect(edited.totals.entriesUpdated == 1 && edited.entriesUnchanged == 1)
            #expect(Set(try Self.entries(store, id).keys) == Set(before.keys))
            let status = try store.readSync { db in
                try db.scalar("SELECT status FROM entries WHERE patient_id = ? AND source_entry_id = 'Condition/c1'", [id], as: String.self)
            }
            #expect(status == "resolved")
        }
    }

    @Test("an ordinary import adds and updates; only a replacing one removes what the file no longer has", arguments: [false, true])
    func mergeAndReplace(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let first = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1"), Self.condition("c2")]))])
            let id = try #require(first.patients.first?.id)
            let partial = Self.bundle([Self.patient, Self.condition("c3")])
            let merged = await importer.importFiles([ImportInputFile(name: "b.json", bytes: partial)])
            #expect(merged.totals.entriesAdded == 1 && merged.totals.entriesRemoved == 0)
            #expect(try Self.entries(store, id).count == 3)
            #expect(try store.patientsSync().first?.entryCount == 3)
            let replaced = await importer.importFiles([ImportInputFile(name: "b.json", bytes: partial)], options: .replace)
            #expect(replaced.totals.entriesRemoved == 2)
            #expect(try Self.entries(store, id).count == 1)
        }
    }

    @Test("the same person from another file with other resource ids is found by identifier", arguments: [false, true])
    func foundByIdentifier(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let first = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1")]))])
            let other = Self.patient.replacingOccurrences(of: #""id":"p1""#, with: #""id":"zz9""#)
            let second = await importer.importFiles([ImportInputFile(name: "b.ndjson", bytes: Array((other + "\n" + Self.condition("c7", patient: "zz9") + "\n").utf8))])
            #expect(second.patients.first?.id == first.patients.first?.id)
            #expect(second.totals.patientsAdded == 0)
            #expect(try store.patientsSync().count == 1)
            let id = try #require(first.patients.first?.id)
            #expect(try store.patientIdentifiersSync(patientID: id) == [PatientIdentifier(system: "urn:mrn", value: "42")])
        }
    }

    @Test("--patient puts a file's records with a chosen person; a file of two people is refused for it", arguments: [false, true])
    func chosenPatient(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let first = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1")]))])
            let id = try #require(first.patients.first?.id)
            let apple = Array(Self.condition("x1", patient: "apple-123").utf8)
            let chosen = await importer.importFiles([ImportInputFile(name: "x.json", bytes: apple)], options: ImportOptions(mode: .merge, patientID: id))
            #expect(chosen.patients.first?.id == id)
            #expect(try Self.entries(store, id).count == 2)
            #expect(try store.patientsSync().count == 1)
            let two = Self.bundle([Self.condition("y1", patient: "a"), Self.condition("y2", patient: "b")])
            let refused = await importer.importFiles([ImportInputFile(name: "two.json", bytes: two)], options: ImportOptions(mode: .merge, patientID: id))
            #expect(refused.patients.allSatisfy { $0.error != nil })
            #expect(try Self.entries(store, id).count == 2)
        }
    }

    @Test("each imported file is kept with its hash and report; a file of which nothing imports is not kept and changes nothing", arguments: [false, true])
    func keptFiles(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let bytes = Self.bundle([Self.patient, Self.condition("c1")])
            let report = await importer.importFiles([ImportInputFile(name: "a.json", mediaType: "application/fhir+json", bytes: bytes)])
            let files = try store.importedFilesSync()
            #expect(files.count == 1)
            #expect(files[0].name == "a.json" && files[0].size == bytes.count && files[0].sha256 == Digests.sha256(bytes))
            #expect(files[0].reportJSON == report.json)
            #expect(try store.importedFileContentSync(id: files[0].id) == bytes)

            for bad in ["not json", #"{"resourceType":"Bundle","type":"collection","entry":[]}"#,
                        #"{"resourceType":"Condition","id":"c","subject":{"reference":"Patient/p1"},"onsetDateTime":5}"#] {
                let failed = await importer.importFiles([ImportInputFile(name: "bad.json", bytes: Array(bad.utf8))])
                #expect(failed.hasFailures)
                #expect(try store.importedFilesSync().count == 1)
            }
            #expect(try store.patientsSync().count == 1)
        }
    }

    @Test("the export holds every entry's resource, the kept resources and the identifiers", arguments: [false, true])
    func export(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let claim = #"{"resourceType":"Claim","id":"cl1","patient":{"reference":"Patient/p1"},"total":{"value":12.5}}"#
            let report = await importer.importFiles([ImportInputFile(name: "a.json", bytes: Self.bundle([Self.patient, Self.condition("c1"), claim]))])
            let id = try #require(report.patients.first?.id)
            #expect(report.patients.first?.kept == ["Claim": 1])
            let document = try #require(try ExportDocument.encodeSync(patientID: id, from: store))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
            let kept = object["kept_resources"] as? [[String: Any]] ?? []
            #expect(kept.count == 1 && kept.first?["id"] as? String == "Claim/cl1")
            #expect((kept.first?["raw"] as? [String: Any])?["total"] != nil)
            let entries = object["entries"] as? [[String: Any]] ?? []
            #expect((entries.first?["raw"] as? [String: Any])?["resourceType"] as? String == "Condition")
            let patient = object["patient"] as? [String: Any]
            #expect((patient?["identifiers"] as? [[String: Any]])?.first?["value"] as? String == "42")
        }
    }

    @Test("a Bulk Data export's files imported one at a time make the same people as the folder at once",
          .enabled(if: SharedSamples.fhir.available, SharedSamples.fhir.skipReason), arguments: [false, true])
    func bulkFilesOneByOne(streamed: Bool) async throws {
        try await Self.withStore(streamed: streamed) { store, importer in
            let folder = SharedSamples.fhir.path("bulk-10-patients")
            // The Device file first: its people are known only by reference until the Patient file comes.
            for name in ["Device.000.ndjson", "Patient.000.ndjson", "Immunization.000.ndjson", "AllergyIntolerance.000.ndjson"] {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                let report = await importer.importFiles([ImportInputFile(name: name, bytes: bytes)])
                #expect(!report.hasFailures, "\(name): \(report.lines)")
            }
            let patients = try store.patientsSync()
            #expect(patients.count == 13)
            #expect(patients.allSatisfy { !$0.name.hasPrefix("Unnamed") })
            #expect(patients.reduce(0) { $0 + $1.entryCount } == 188)
        }
    }

    @Test("a note and a strike-through survive a C-CDA re-import and a newer overlapping document of the same person",
          .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
    func annotationsSurviveCCDA() async throws {
        try await Self.withStore { store, importer in
            let companion = try SharedSamples.ccda.bytes("ccda21_companion_ccd.xml")
            let first = await importer.importFiles([ImportInputFile(name: "ccd.xml", bytes: companion)])
            let patient = try #require(first.patients.first?.id)
            let entries = try store.entriesSync(patientID: patient, from: Int64.min / 2, to: Int64.max / 2)
            let condition = try #require(entries.first { $0.type == .condition })
            let allergy = try #require(entries.first { $0.type == .allergy })
            guard case .success = try await store.setAnnotation(Annotation(entryID: condition.id, note: "since childhood"), patientID: patient),
                  case .success = try await store.setAnnotation(Annotation(entryID: allergy.id, struck: true, reason: "never had it"), patientID: patient)
            else { throw TestFailure("could not annotate") }

            let again = await importer.importFiles([ImportInputFile(name: "ccd.xml", bytes: companion)])
            #expect(again.totals.entriesAdded == 0 && again.patients.first?.id == patient)
            let newer = await importer.importFiles([ImportInputFile(name: "full.xml", bytes: try SharedSamples.ccda.bytes("hl7_ccda21_ccd1_full.xml"))])
            #expect(newer.patients.first?.id == patient)
            let annotations = try store.annotationsSync(patientID: patient)
            #expect(annotations.first { $0.entryID == condition.id }.map { $0.note == "since childhood" && !$0.orphaned } == true)
            #expect(annotations.first { $0.entryID == allergy.id }.map { $0.struck && $0.reason == "never had it" && !$0.orphaned } == true)
        }
    }
}

/// Documents of one person over time: the same document twice, a newer one giving the same facts with new
/// statement ids and one changed value, and the older one imported again after it.
@Suite("C-CDA documents over time", .enabled(if: SharedSamples.ccda.available, SharedSamples.ccda.skipReason))
struct DocumentsOverTimeTests {
    /// The HL7 CCD (2013-08-15), and a copy made newer (2014-01-02): another document id, every statement
    /// with a new id, the hemoglobin 13.2 g/dL now 12.5.
    static func documents() throws -> (older: [UInt8], newer: [UInt8]) {
        let older = try SharedSamples.ccda.bytes("hl7_ccda21_ccd1_full.xml")
        var text = String(decoding: older, as: UTF8.self)
        text = text.replacingOccurrences(of: #"<id extension="TT988""#, with: #"<id extension="TT989""#)
            .replacingOccurrences(of: #"<effectiveTime value="201308151030-0800" />"#, with: #"<effectiveTime value="20140102" />"#)
            .replacingOccurrences(of: #"<id root="([^"]+)" ?/>"#, with: #"<id root="$1" extension="2014"/>"#, options: .regularExpression)
            .replacingOccurrences(of: #"value="13.2" unit="g/dL""#, with: #"value="12.5" unit="g/dL""#)
        return (older, Array(text.utf8))
    }

    static func hemoglobin(_ store: Store, _ patientID: String) throws -> [Double] {
        try store.readSync { db in
            var values: [Double] = []
            try db.statement("SELECT value FROM entries WHERE patient_id = ? AND units = 'g/dL' AND codes LIKE '%718-7%'").forEach([patientID]) { row in
                values.append(row.double(0))
            }
            return values
        }
    }

    static func count(_ store: Store, _ patientID: String) throws -> Int64 {
        try store.readSync { db in try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patientID], as: Int64.self) ?? -1 }
    }

    @Test("each fact once: the same document twice, a newer one with new statement ids; a changed value updated; an older one changes nothing")
    func overTime() async throws {
        let (older, newer) = try Self.documents()
        try await FileImportTests.withStore { store, importer in
            let first = await importer.importFiles([ImportInputFile(name: "2013.xml", bytes: older)])
            let patient = try #require(first.patients.first?.id)
            let facts = try Self.count(store, patient)
            #expect(facts > 30)
            #expect(try Self.hemoglobin(store, patient) == [13.2])

            let twice = await importer.importFiles([ImportInputFile(name: "2013.xml", bytes: older)])
            #expect(twice.totals.entriesAdded == 0 && twice.totals.entriesUpdated == 0)
            #expect(try Self.count(store, patient) == facts)

            let update = await importer.importFiles([ImportInputFile(name: "2014.xml", bytes: newer)])
            #expect(update.patients.first?.id == patient)
            #expect(update.totals.entriesAdded == 0, "new statement ids, the same facts: \(update.totals)")
            #expect(update.totals.entriesUpdated == 1)
            #expect(try Self.count(store, patient) == facts)
            #expect(try Self.hemoglobin(store, patient) == [12.5])

            let late = await importer.importFiles([ImportInputFile(name: "2013-again.xml", bytes: older)])
            #expect(late.totals.entriesAdded == 0 && late.totals.entriesUpdated == 0)
            #expect(late.patients.first?.warnings.contains { $0.hasPrefix("1 entries said otherwise by a newer document") } == true)
            #expect(try Self.hemoglobin(store, patient) == [12.5])
            #expect(try Self.count(store, patient) == facts)

            // Both documents' texts are kept, newest first, narrative-only sections among them.
            let documents = try #require(try await store.documents(patientID: patient))
            #expect(documents.map(\.id) == ["2.16.840.1.113883.19.5.99999.1|TT989", "2.16.840.1.113883.19.5.99999.1|TT988"])
            let sections = try #require(documents.first?.sections)
            #expect(sections.count >= 12)
            #expect(sections.contains { $0.title.uppercased().contains("FAMILY HISTORY") && $0.entries == 0 && !$0.text.isEmpty })
            #expect(sections.contains { $0.title.uppercased().contains("ALLERG") && $0.entries > 0 && $0.text.contains("Penicillin") })
            let export = String(decoding: try #require(try await ExportDocument.encode(patientID: patient, from: store)), as: UTF8.self)
            #expect(export.contains(#""documents":[{"id":"2.16.840.1.113883.19.5.99999.1|TT989""#))
        }
    }
}
