import Store

/// Vital signs grouped by description for the `vitals` array.
struct VitalGroup: Equatable {
    var description: String
    var units: String?
    var values: [Double] = []
    var dates: [Int64] = []
    var ids: [String] = []
}

enum VitalGroups {
    /// Groups readings (already in date order) by description. A reading without a number is left out, and
    /// so is a group with none; units come from the group's first reading. Groups sort by description,
    /// except blood-pressure groups, which come last, systolic before diastolic.
    static func make(_ readings: [StoredEntry]) -> [VitalGroup] {
        var groups: [VitalGroup] = []
        var index: [String: Int] = [:]
        for reading in readings {
            guard let value = reading.value, let date = reading.date else { continue }
            let description = reading.description ?? ""
            let position: Int
            if let known = index[description] {
                position = known
            } else {
                position = groups.count
                index[description] = position
                groups.append(VitalGroup(description: description, units: reading.units))
            }
            // Appended in place: copying a group out and back would make this quadratic.
            groups[position].values.append(value)
            groups[position].dates.append(date)
            groups[position].ids.append(reading.id)
        }
        return groups.sorted { a, b in
            let (ra, rb) = (rank(a.description), rank(b.description))
            return ra != rb ? ra < rb : a.description < b.description
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
