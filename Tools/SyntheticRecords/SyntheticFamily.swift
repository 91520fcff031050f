import HealthRecord
import Records
/// A family of synthetic patients from a seed: a primary person born 1968–1982, a spouse, one to three
/// children born from the 1990s to the 2010s, and a parent born in the 1940s or 1950s — the people a
/// family's caretaker would keep records for.
enum SyntheticFamily {
    static func make(seed: UInt64) -> [SyntheticPatient] {
        var random = RandomSource(seed: seed, Stream.family)
        let lastName = random.pick(Vocabulary.lastNames)
        let primaryMale = random.chance(0.5)
        let primaryYear = random.int(in: 1968...1982)
        var people: [(relationship: Relationship, male: Bool, year: Int, last: String)] = []
        people.append((.primary, primaryMale, primaryYear, lastName))
        let spouseMale = random.chance(0.9) ? !primaryMale : primaryMale
        let spouseLast = random.chance(0.7) ? lastName : random.pick(Vocabulary.lastNames)
        people.append((.spouse, spouseMale, min(1985, max(1960, primaryYear + random.int(in: -5...5))), spouseLast))
        for _ in 0..<random.int(in: 1...3) {
            people.append((.child, random.chance(0.5), min(2019, primaryYear + random.int(in: 24...38)), lastName))
        }
        people.append((.parent, random.chance(0.5), max(1940, primaryYear - random.int(in: 24...32)), lastName))

        let mrnBase = 100_000 + random.below(800_000)
        let idPrefix = hex(random.next(), digits: 14)
        var family: [SyntheticPatient] = []
        for (index, person) in people.enumerated() {
            let names = person.male ? Vocabulary.maleFirstNames : Vocabulary.femaleFirstNames
            var first = random.pick(names)
            // Two family members with one first name would make the demo's patient list ambiguous.
            while family.contains(where: { $0.firstName == first }) { first = random.pick(names) }
            let day = random.below(365)
            family.append(SyntheticPatient(
                index: index,
                recordID: idPrefix + hex(UInt64(index), digits: 10),
                medicalRecordNumber: String(mrnBase + index),
                firstName: first,
                lastName: person.last,
                gender: person.male ? "M" : "F",
                birthdate: (CivilDate.epochDays(year: Int64(person.year), month: 1, day: 1) + Int64(day)) * 86_400 + 43_200,
                relationship: person.relationship
            ))
        }
        return family
    }

    typealias Relationship = SyntheticPatient.Relationship

    /// Lower-case hex of the low `digits` nibbles of `value`, zero-padded.
    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        if text.count >= digits { return String(text.suffix(digits)) }
        return String(repeating: "0", count: digits - text.count) + text
    }

}

/// Stream numbers for `RandomSource`: one per purpose, so purposes never share random numbers.
enum Stream {
    static let family: UInt64 = 1
    static let patient: UInt64 = 2
    static let visit: UInt64 = 3
    static let entry: UInt64 = 4
    static let death: UInt64 = 5
}
