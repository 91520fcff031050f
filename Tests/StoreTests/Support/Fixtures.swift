import Foundation
@_exported import TestSupport
import HealthRecord
@testable import Store

let fastScrypt = TestStore.fastScrypt

func makeStore(in dir: TemporaryDirectory, password: String = "correct horse") throws -> (Store, RecoveryKey, StateDirectory) {
    let state = StateDirectory(path: dir.file("state"))
    let (store, recovery) = try TestStore.create(at: state.path, password: password)
    return (store, recovery, state)
}

func sampleRecord(id: String = "rec-1", entries count: Int = 3, marker: String = "marker") -> PatientRecord {
    var entries: [Entry] = []
    for i in 0..<count {
        let type: EntryType = i % 2 == 0 ? .condition : .result
        let value: Double? = i % 2 == 0 ? nil : Double(i)
        let time: Int64 = 1_000_000 + Int64(i) * 86_400
        entries.append(Entry(id: "e_\(i)", type: type, description: "\(marker) \(i)", time: time, value: value,
                             codes: ["SNOMED-CT": ["\(i)"]], rawJSON: "{\"n\":\(i)}"))
    }
    return PatientRecord(recordID: id, firstName: "Ada", lastName: "Example", name: "Ada Example", gender: "F",
                         birthdate: -86_400 * 365, entries: entries)
}

