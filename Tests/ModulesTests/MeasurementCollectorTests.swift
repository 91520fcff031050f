import Modules
import HealthRecord
import TestSupport
import Testing

/// The summary's measurements gathered as the store reads them (`MeasurementCollector`, `StoredEntrySink`)
/// are the ones found in the entries held whole.
@Suite("measurements gathered as they are read")
struct MeasurementCollectorTests {
    static let base: Int64 = 1_700_000_000

    /// Vital signs and results of several kinds, some not measures, some without a value, out of date order.
    static func entries() -> [StoredEntry] {
        var entries: [Entry] = []
        for index in 0..<300 {
            let date = base - Int64((index * 7_919) % 300) * 86_400
            switch index % 6 {
            case 0: entries.append(.entry(.vitalSign, "Body Weight", id: "w\(index)", at: date, value: 70 + Double(index % 10), units: "kg"))
            case 1: entries.append(.entry(.vitalSign, "Systolic blood pressure", id: "s\(index)", at: date, value: 120, units: "mm[Hg]",
                                          codes: ["LOINC": ["8480-6"]]))
            case 2: entries.append(.entry(.vitalSign, "Body Weight", id: "l\(index)", at: date, value: 160, units: "lb"))
            case 3: entries.append(.entry(.result, "Cholesterol, total", id: "c\(index)", at: date, value: 190, units: "mg/dL",
                                          codes: ["LOINC": ["2093-3"]]))
            case 4: entries.append(.entry(.vitalSign, "Temperature", id: "t\(index)", at: date, value: 37, units: "Cel"))
            default: entries.append(.entry(.result, "Glucose", id: "n\(index)", at: date, text: "high"))
            }
        }
        return .stored(entries)
    }

    @Test("the same measurements, readings included, in date order, as from the entries held whole")
    func sameAsWhole() throws {
        let entries = Self.entries()
        let readings = [ModuleTests.reading(.weight, 71, at: Self.base - 5), ModuleTests.reading(.bloodPressure, 130, 85, at: Self.base - 9)]
        let collector = MeasurementCollector()
        for entry in entries { collector.take(entry) }
        let gathered = collector.measurements(adding: readings)
        let whole = ModuleRecord(patient: .patient(), now: Self.base,
                                 entries: Dictionary(grouping: entries, by: \.type), readings: readings).measurements
        #expect(gathered.byMeasure == whole.byMeasure)
        #expect(gathered[.weight].count == 100 + 1 && gathered[.systolic].count == 50 + 1 && gathered[.totalCholesterol].count == 50)
        #expect(gathered[.weight].map(\.date) == gathered[.weight].map(\.date).sorted())
        #expect(gathered[.diastolic].map(\.value) == [85])
    }

    @Test("the store hands the measured types to the sink, not held, and the struck-out entries to neither")
    func storeHandsThemOver() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let record = PatientRecord.record("m", name: "Measured", entries: [
            .entry(.vitalSign, "Body Weight", id: "w1", at: Self.base, value: 70, units: "kg"),
            .entry(.vitalSign, "Body Weight", id: "w2", at: Self.base + 60, value: 71, units: "kg"),
            .entry(.condition, "Asthma", id: "c1", at: Self.base),
        ])
        let patientID = try store.importRecordSync(record).patientID
        _ = try await store.setAnnotation(Annotation(entryID: "w2", struck: true), patientID: patientID)
        let collector = MeasurementCollector()
        let source = try #require(try await store.summarySource(patientID: patientID, types: [.condition], measured: Measurements.entryTypes,
                                                              sink: collector, readings: false, posts: false))
        #expect(source.entries[.condition]?.map(\.id) == ["c1"])
        #expect(source.entries[.vitalSign] == nil)
        #expect(collector.measurements(adding: [])[.weight].map(\.id) == ["w1"])
    }
}
