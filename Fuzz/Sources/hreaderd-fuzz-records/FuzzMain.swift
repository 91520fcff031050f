import FuzzSupport
import HealthRecord
import Records

/// The record formats' harnesses: RHEx record JSON, FHIR R4 input and C-CDA documents (through libxml2).
@main
enum FuzzMain {
    static func main() {
        FuzzDriver.run(["record": FuzzTargets.record, "fhir": FuzzTargets.fhir, "ccda": FuzzTargets.ccda])
    }
}

enum FuzzTargets {
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) { FuzzDriver.check(condition, message()) }

    /// Any bytes as a C-CDA document, through libxml2: no crash, no fetch, one answer.
    static func ccda(_ bytes: [UInt8]) {
        let first = Result { () throws(CCDAError) in try CCDAReader().read(bytes, name: "fuzz.xml") }
        let second = Result { () throws(CCDAError) in try CCDAReader().read(bytes, name: "fuzz.xml") }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            check(a.record.entries.map(\.id) == b.record.entries.map(\.id), "the C-CDA reader gave two answers for one input")
        case (.failure(let a), .failure(let b)):
            check(a == b, "the C-CDA reader failed two ways on one input")
        default: check(false, "the C-CDA reader failed once and succeeded once on one input")
        }
    }

    /// Any bytes as a FHIR input: no crash, and the same patients, entries and problems twice.
    static func fhir(_ bytes: [UInt8]) {
        let reader = FHIRReader()
        let first = Result { () throws(FHIRError) in try reader.read(bytes, name: "fuzz.json") }
        let second = Result { () throws(FHIRError) in try reader.read(bytes, name: "fuzz.json") }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            check(a.patients.map { $0.record?.entries.map(\.id) ?? [] } == b.patients.map { $0.record?.entries.map(\.id) ?? [] },
                  "the FHIR reader gave two answers for one input")
            check(a.problems == b.problems, "the FHIR reader reported different problems for one input")
        case (.failure(let a), .failure(let b)):
            check(a == b, "the FHIR reader failed two ways on one input")
        default: check(false, "the FHIR reader failed once and succeeded once on one input")
        }
    }

    static func record(_ bytes: [UInt8]) {
        let parser = RecordParser()
        let first = Result { () throws(RecordParseError) in try parser.parse(bytes) }
        let second = Result { () throws(RecordParseError) in try parser.parse(bytes) }
        switch (first, second) {
        case (.success(let a), .success(let b)):
            check(a.entries.count == b.entries.count, "the record parser gave two answers for one input")
        case (.failure, .failure): break
        default: check(false, "the record parser failed once and succeeded once on one input")
        }
    }
}
