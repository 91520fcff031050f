import Records
import SyntheticRecords
import HealthRecord
import TestSupport
import Testing

/// The synthetic generator: deterministic, realistic enough, and read back by the real parser.
@Suite("synthetic records")
struct SyntheticRecordsTests {
    @Test("the same seed gives the same bytes; another seed other bytes", arguments: SyntheticRecords.Shape.allCases)
    func deterministic(shape: SyntheticRecords.Shape) {
        let a = SyntheticRecords(seed: 7)
        let b = SyntheticRecords(seed: 7)
        #expect(a.family() == b.family())
        let patient = a.family()[1]
        let bytes = a.record(for: patient, entries: 500, shape: shape)
        #expect(bytes == b.record(for: patient, entries: 500, shape: shape))
        #expect(a.record(for: patient, entries: 500, shape: shape, pretty: true) == b.record(for: patient, entries: 500, shape: shape, pretty: true))
        let other = SyntheticRecords(seed: 8)
        #expect(other.record(for: other.family()[1], entries: 500, shape: shape) != bytes)
    }

    @Test("a known seed keeps its family: the generator's output is pinned, not just self-consistent")
    func pinned() {
        let family = SyntheticRecords(seed: 2012).family()
        // Read off one run; a change here means every seed's demo and benchmark data changed.
        #expect(family.map(\.relationship) == pinnedRelationships)
        #expect(family.map(\.name) == pinnedNames)
        #expect(family[0].birthdate == pinnedPrimaryBirthdate)
        #expect(family[0].recordID == pinnedPrimaryRecordID)
    }

    @Test("a family: 4 to 6 people, self first, born from the 1940s to the 2010s, distinct ids", arguments: [1, 2, 3, 42, 2012, 99_999] as [UInt64])
    func family(seed: UInt64) {
        let family = SyntheticRecords(seed: seed).family()
        #expect((4...6).contains(family.count))
        #expect(family.first?.relationship == .primary)
        #expect(family.map(\.index) == Array(0..<family.count))
        #expect(Set(family.map(\.relationship)) == [.primary, .spouse, .child, .parent])
        #expect(Set(family.map(\.recordID)).count == family.count)
        #expect(Set(family.map(\.medicalRecordNumber)).count == family.count)
        #expect(Set(family.map(\.firstName)).count == family.count)
        let jan1940: Int64 = -946_771_200
        let jan2020: Int64 = 1_577_836_800
        for person in family {
            #expect(person.birthdate >= jan1940 && person.birthdate < jan2020, "\(person)")
            #expect(person.gender == "M" || person.gender == "F")
            #expect(person.recordID.count == 24 && person.recordID.allSatisfy(\.isHexDigit))
        }
        for child in family where child.relationship == .child {
            #expect(child.birthdate > family[0].birthdate)
        }
    }

    @Test("section counts add up to the entries asked for", arguments: [0, 1, 7, 13, 200, 999, 100_000])
    func counts(entries: Int) {
        let counts = SyntheticRecords.sectionCounts(entries: entries)
        #expect(counts.values.reduce(0, +) == entries)
    }

    @Test("section counts of 1,000 entries follow the shares exactly")
    func shares() {
        #expect(SyntheticRecords.sectionCounts(entries: 1_000) == [
            .vitalSign: 400, .result: 300, .encounter: 100, .medication: 60,
            .procedure: 50, .condition: 40, .immunization: 30, .allergy: 20,
        ])
    }

    @Test("generated records parse back with their counts and demographics", arguments: SyntheticRecords.Shape.allCases)
    func parsesBack(shape: SyntheticRecords.Shape) throws {
        let generator = SyntheticRecords(seed: 11)
        for patient in generator.family() {
            let record = try RecordParser().parse(generator.record(for: patient, entries: 1_234, shape: shape))
            #expect(record.recordID == patient.recordID)
            #expect(record.medicalRecordNumber == patient.medicalRecordNumber)
            #expect(record.name == patient.name)
            #expect(record.gender == patient.gender)
            #expect(record.birthdate == patient.birthdate)
            var counts: [EntryType: Int] = [:]
            for entry in record.entries { counts[entry.type, default: 0] += 1 }
            #expect(counts == SyntheticRecords.sectionCounts(entries: 1_234))
            #expect(Set(record.entries.map(\.id)).count == record.entries.count)
            for entry in record.entries {
                let date = try #require(entry.date)
                #expect(date >= patient.birthdate && date <= SyntheticRecords.referenceEnd + 86_400, "\(entry.rawJSON)")
                #expect(entry.description != nil && !entry.codes.isEmpty)
                if let end = entry.endTime, let start = entry.startTime { #expect(end > start) }
            }
            switch shape {
            case .gen1: #expect(record.entries.allSatisfy { $0.sourceID != nil })
            case .gen2: #expect(record.entries.allSatisfy { $0.sourceID == nil })
            }
        }
    }

    @Test("the shapes differ as the generations do", arguments: SyntheticRecords.Shape.allCases)
    func shapes(shape: SyntheticRecords.Shape) throws {
        let generator = SyntheticRecords(seed: 5)
        let record = try RecordParser().parse(generator.record(for: generator.family()[0], entries: 200, shape: shape))
        let vital = try #require(record.entries.first { $0.type == .vitalSign })
        let condition = try #require(record.entries.first { $0.type == .condition })
        switch shape {
        case .gen1:
            #expect(vital.rawJSON.contains(#""value":{"scalar":""#))
            #expect(vital.rawJSON.contains(#""status":"completed""#))
            #expect(record.otherFieldsJSON.contains(#""_id":""#))
            #expect(record.otherFieldsJSON.contains(#""medical_record_number":""#))
        case .gen2:
            #expect(vital.rawJSON.contains(#""values":[{"scalar":"#))
            #expect(vital.rawJSON.contains(#""status_code":{"HL7 ActStatus":["completed"]}"#))
            #expect(condition.rawJSON.contains(#""status_code":{"SNOMED-CT":[""#))
            #expect(record.otherFieldsJSON.contains(#""_id":{"$oid":""#))
            #expect(!record.otherFieldsJSON.contains(#""medical_record_number":""#))
        }
        #expect(["active", "inactive", "resolved"].contains(condition.status ?? ""))
    }

    @Test("a long record's life course: each condition, drug and allergy open at most once, in both shapes", arguments: [
        SyntheticRecords.Shape.gen1, .gen2,
    ])
    func lifeCourse(shape: SyntheticRecords.Shape) throws {
        let generator = SyntheticRecords(seed: 5)
        let record = try RecordParser().parse(generator.record(for: generator.family()[0], entries: 20_000, shape: shape))
        for type in [EntryType.condition, .medication, .allergy] {
            let all = record.entries.filter { $0.type == type }
            let open = all.filter { $0.endTime == nil && $0.canBeOngoing }
            #expect(all.count > 300, "\(type): \(all.count)")
            #expect(!open.isEmpty, "\(type): something stays open")
            #expect(Set(open.map(\.description)).count == open.count, "\(type): \(open.count) open, some twice")
            // What repeats is closed: a flare that resolved, a course that ended, an earlier record.
            #expect(open.count < 60 && all.count - open.count > all.count / 2, "\(type): \(open.count) of \(all.count) open")
        }
    }

    @Test("vital signs read like a chart: paired blood pressures with units, plausible values, some text results")
    func realistic() throws {
        let generator = SyntheticRecords(seed: 3)
        let record = try RecordParser().parse(generator.record(for: generator.family()[0], entries: 2_000, shape: .gen1))
        let systolic = record.entries.filter { $0.description == "Systolic Blood Pressure" }
        let diastolic = record.entries.filter { $0.description == "Diastolic Blood Pressure" }
        #expect(systolic.count == diastolic.count)
        #expect(systolic.count > 100)
        #expect(systolic.map(\.time) == diastolic.map(\.time))
        for (high, low) in zip(systolic, diastolic) {
            let high = try #require(high.value)
            let low = try #require(low.value)
            #expect(high > low && (70...200).contains(high) && (40...130).contains(low))
        }
        #expect(systolic.allSatisfy { $0.units == "mm[Hg]" && $0.codes == ["LOINC": ["8480-6"]] })
        let heartRates = record.entries.filter { $0.description == "Heart Rate" }.compactMap(\.value)
        #expect(heartRates.allSatisfy { (40...170).contains($0) })
        #expect(record.entries.contains { $0.type == .result && $0.textValue != nil && $0.value == nil })
        #expect(record.entries.contains { $0.type == .result && $0.value != nil && $0.units != nil })
        let times = record.entries.compactMap(\.date)
        #expect((times.max() ?? 0) - (times.min() ?? 0) > 10 * 365 * 86_400)
    }

    @Test("pretty output is the same record; streaming in small chunks gives the same bytes")
    func prettyAndStreaming() throws {
        let generator = SyntheticRecords(seed: 9)
        let patient = generator.family()[2]
        let compact = generator.record(for: patient, entries: 300, shape: .gen2)
        let pretty = generator.record(for: patient, entries: 300, shape: .gen2, pretty: true)
        #expect(pretty.count > compact.count)
        #expect(try RecordParser().parse(pretty) == RecordParser().parse(compact))
        var chunks: [[UInt8]] = []
        generator.writeRecord(for: patient, entries: 300, shape: .gen2, chunkBytes: 1_000) { chunks.append($0) }
        #expect(chunks.count > 10)
        #expect(Array(chunks.joined()) == compact)
    }

    @Test("a pretty generated record is read from a file as one document")
    func prettyFile() throws {
        let generator = SyntheticRecords(seed: 4)
        let bytes = generator.record(for: generator.family()[0], entries: 50, shape: .gen1, pretty: true)
        let items = try withTemporaryFile(bytes) { try RecordFileReader(path: $0).readAll() }
        #expect(items.count == 1)
        #expect(try items[0].result.get().entries.count == 50)
    }

    @Test("a 100,000-entry record is generated and parsed whole")
    func large() throws {
        let generator = SyntheticRecords(seed: 2012)
        let bytes = generator.record(for: generator.family()[0], entries: 100_000, shape: .gen1)
        #expect(bytes.count < ParseLimits.defaultMaxDocumentBytes)
        let record = try RecordParser().parse(bytes)
        #expect(record.entries.count == 100_000)
        #expect(Set(record.entries.map(\.id)).count == 100_000)
    }
}

// The family of seed 2012, read off one run of the generator.
private let pinnedRelationships: [SyntheticPatient.Relationship] = [.primary, .spouse, .child, .parent]
private let pinnedNames = ["David Taylor", "Matthew Anderson", "Cynthia Taylor", "Emily Taylor"]
private let pinnedPrimaryBirthdate: Int64 = 312_638_400 // 1979-11-28T12:00:00Z
private let pinnedPrimaryRecordID = "720c87e6c3bf0a0000000000"
