import HealthRecord
import Store

/// Vital signs grouped by description for the `vitals` array.
struct VitalGroup: Equatable {
    var description: String
    var units: String?
    var values: [Double] = []
    var dates: [Int64] = []
    var ids = CompactStrings()
}

/// Strings kept as one buffer of bytes: a vital-sign group of a long record holds hundreds of thousands
/// of ids, which as separate `String`s cost four times the memory.
struct CompactStrings: Equatable, Sequence {
    private var bytes: [UInt8] = []
    private var ends: [Int32] = []

    var count: Int { ends.count }

    mutating func append(_ string: String) {
        bytes.append(contentsOf: string.utf8)
        ends.append(Int32(bytes.count))
    }

    /// The bytes of the string at `index`, valid only inside `body`: written out without making a `String`.
    func withBytes<T>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<Int(ends[index])])) }
    }

    func makeIterator() -> AnyIterator<String> {
        var index = 0
        return AnyIterator {
            guard index < ends.count else { return nil }
            let start = index == 0 ? 0 : Int(ends[index - 1])
            defer { index += 1 }
            return String(decoding: bytes[start..<Int(ends[index])], as: UTF8.self)
        }
    }
}

enum VitalGroups {
    /// Groups readings (already in date order) by description. A reading without a number is left out, and
    /// so is a group with none; units come from the group's first reading. Groups sort by description,
    /// except blood-pressure groups, which come last, systolic before diastolic.
    static func make(_ readings: [StoredEntry]) -> [VitalGroup] {
        make(runs: [readings])
    }

    /// The same, of readings in runs (`TimelineSnapshot.vitalSignRuns`), each in date order after the one before.
    static func make(runs: [[StoredEntry]]) -> [VitalGroup] {
        var builder = Builder()
        for run in runs {
            for reading in run { builder.add(reading) }
        }
        return builder.groups
    }

    /// The groups built a reading at a time (`make` at once; a page written in parts, a part at a time).
    struct Builder {
        private var built: [VitalGroup] = []
        private var index: [String: Int] = [:]
        /// The group of the reading added last: readings of one kind come in runs.
        private var last: (description: String, position: Int)?

        mutating func add(_ reading: StoredEntry) {
            guard let value = reading.value, let date = reading.date else { return }
            let description = reading.description ?? ""
            let position: Int
            if let last, last.description == description {
                position = last.position
            } else if let known = index[description] {
                position = known
            } else {
                position = built.count
                index[description] = position
                built.append(VitalGroup(description: description, units: reading.units))
            }
            last = (description, position)
            // Appended in place: copying a group out and back would make this quadratic.
            built[position].values.append(value)
            built[position].dates.append(date)
            built[position].ids.append(reading.id)
        }

        /// The groups in the order they are shown.
        var groups: [VitalGroup] {
            built.sorted { a, b in
                let (ra, rb) = (VitalGroups.rank(a.description), VitalGroups.rank(b.description))
                return ra != rb ? ra < rb : a.description < b.description
            }
        }
    }

    /// 0 for ordinary vitals; blood pressure after them: systolic 1, diastolic 2, other blood pressure 3.
    static func rank(_ description: String) -> Int {
        let lower = description.lowercased()
        if lower.contains("systolic") { return 1 }
        if lower.contains("diastolic") { return 2 }
        if lower.contains("blood pressure") { return 3 }
        return 0
    }
}
