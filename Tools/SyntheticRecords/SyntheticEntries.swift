import Records
import HealthRecord

/// One synthetic clinical entry, before it is written in a record generation's shape.
struct SyntheticEntry {
    enum Status: String {
        case active, inactive, resolved, completed

        /// The SNOMED-CT concept HDS writes for the status in `status_code`.
        var snomed: String? {
            switch self {
            case .active: return "55561003"
            case .inactive: return "73425007"
            case .resolved: return "413322009"
            case .completed: return nil
            }
        }
    }

    enum Measurement {
        case number(Double, decimals: Int, units: String?)
        case text(String)
    }

    let type: EntryType
    /// Position within its section.
    let index: Int
    var codes: [Vocabulary.Code]
    var description: String
    var time: Int64?
    var startTime: Int64?
    var endTime: Int64?
    var status: Status?
    var measurement: Measurement?
    var reaction: Vocabulary.Code?
    var severity: Vocabulary.Code?
}

/// Makes the entries of one synthetic patient. Every entry is a pure function of (seed, patient,
/// section, index): sections can be written in any order, any entry can be made without the others,
/// and a million-entry record needs no memory beyond the bytes being written.
///
/// Entries fall on visits. The patient's care spans from birth (or 1990, for the older generation)
/// to `SyntheticRecords.referenceEnd`; it holds as many visits as there are encounters, spread evenly
/// with jitter, and each section's entries are spread over the visits in order, so vital signs and
/// labs share days with encounters and a blood pressure's two readings share one time.
struct SyntheticEntryFactory {
    static let year: Double = 365.25 * 86_400
    /// Records of older people start in 1990, when electronic records would.
    static let earliestRecord: Int64 = 631_152_000

    let seed: UInt64
    let patient: SyntheticPatient
    let counts: [EntryType: Int]
    private let careStart: Int64
    private let careSpan: Int64
    private let visitCount: Int
    private let baseline: Baseline

    /// What stays the same about a patient across visits.
    private struct Baseline {
        let systolic: Double
        let heartRate: Double
        let adultHeight: Double
        let adultBMI: Double
        let labShift: Double
    }

    /// `span`: how far back from `end` the history reaches at most (never before birth); nil, from 1990.
    init(seed: UInt64, patient: SyntheticPatient, counts: [EntryType: Int], end: Int64, span: Int64? = nil) {
        self.seed = seed
        self.patient = patient
        self.counts = counts
        careStart = max(patient.birthdate + 30 * 86_400, span.map { end - $0 } ?? SyntheticEntryFactory.earliestRecord)
        careSpan = max(end - careStart, 86_400)
        visitCount = max(counts[.encounter] ?? 0, 1)
        var random = RandomSource(seed: seed, Stream.patient, UInt64(patient.index))
        let male = patient.gender == "M"
        baseline = Baseline(
            systolic: random.double(108, 132),
            heartRate: random.double(60, 82),
            adultHeight: male ? random.double(166, 192) : random.double(152, 178),
            adultBMI: random.double(20, 32),
            labShift: random.double(-0.15, 0.15)
        )
    }

    /// The `index`th entry of `type`'s section.
    func entry(_ type: EntryType, _ index: Int) -> SyntheticEntry {
        var random = RandomSource(seed: seed, Stream.entry, UInt64(patient.index), UInt64(sectionNumber(type)), UInt64(index))
        let count = counts[type] ?? 1
        switch type {
        case .encounter: return encounter(index, &random)
        case .vitalSign: return vitalSign(index, count: count, &random)
        case .result: return result(index, visit: visit(index, of: count), &random)
        case .condition: return condition(index, visit: visit(index, of: count), &random)
        case .medication: return medication(index, visit: visit(index, of: count), &random)
        case .procedure: return procedure(index, visit: visit(index, of: count), &random)
        case .immunization: return immunization(index, visit: visit(index, of: count), &random)
        case .allergy: return allergy(index, visit: visit(index, of: count), &random)
        case .socialHistory, .careGoal, .medicalEquipment:
            // RHEx records carry these sections raw; `sectionCounts` never asks for them.
            preconditionFailure("the RHEx generator writes no \(type.section)")
        }
    }

    // MARK: Time

    private func visit(_ index: Int, of count: Int) -> Int {
        Int(Int64(index) * Int64(visitCount) / Int64(max(count, 1)))
    }

    /// The time of a visit: its share of the span, jittered, during office hours.
    private func visitTime(_ visit: Int) -> Int64 {
        var random = RandomSource(seed: seed, Stream.visit, UInt64(patient.index), UInt64(visit))
        let position = (Double(visit) + random.double(0.1, 0.9)) / Double(visitCount)
        let moment = careStart + Int64(Double(careSpan) * position)
        let day = moment - moment % 86_400
        return day + Int64(random.int(in: 8...16)) * 3_600 + Int64(random.below(4)) * 900
    }

    private func age(at time: Int64) -> Double {
        Double(time - patient.birthdate) / SyntheticEntryFactory.year
    }

    private func sectionNumber(_ type: EntryType) -> Int {
        EntryType.allCases.firstIndex(of: type) ?? 0
    }

    // MARK: Sections

    private func encounter(_ index: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let start = visitTime(index)
        let total = Vocabulary.encounters.reduce(0) { $0 + $1.weight }
        var roll = random.below(total)
        var kind = Vocabulary.encounters[0]
        for candidate in Vocabulary.encounters {
            if roll < candidate.weight { kind = candidate; break }
            roll -= candidate.weight
        }
        let length: Int64
        switch kind.setting {
        case .office: length = Int64(random.int(in: 15...45)) * 60
        case .emergency: length = Int64(random.int(in: 2...8)) * 3_600
        case .inpatient: length = Int64(random.int(in: 1...5)) * 86_400
        }
        return SyntheticEntry(
            type: .encounter, index: index, codes: [Vocabulary.Code(system: "CPT", value: kind.cpt)],
            description: kind.description, time: start, startTime: start, endTime: start + length,
            status: .completed
        )
    }

    private func vitalSign(_ index: Int, count: Int, _ random: inout RandomSource) -> SyntheticEntry {
        // Readings come in sets of five: blood pressure (two), heart rate, weight, and one more.
        let set = index / 5
        let sets = (count + 4) / 5
        let time = visitTime(visit(set, of: sets)) + 600
        let age = max(age(at: time), 0)
        let growth = age < 18 ? 0.3 + 0.7 * growthCurve(age) : 1
        let height = baseline.adultHeight * growth
        // Children grow into their adult build: BMI moves from 15.5 toward the adult figure by 18.
        let typicalBMI = age < 18 ? 15.5 + (baseline.adultBMI - 15.5) * age / 18 : baseline.adultBMI
        let bmi = typicalBMI + random.double(-1, 1)
        let weight = bmi * (height / 100) * (height / 100)
        let vital: Vocabulary.Vital
        let value: Double
        switch index % 5 {
        case 0:
            vital = Vocabulary.systolic
            value = typicalSystolic(age) + random.double(-10, 10)
        case 1:
            vital = Vocabulary.diastolic
            value = typicalSystolic(age) * 0.63 + random.double(-6, 6)
        case 2:
            vital = Vocabulary.heartRate
            value = (age < 12 ? 125 - age * 4.5 : baseline.heartRate) + random.double(-8, 8)
        case 3:
            vital = Vocabulary.weight
            value = weight
        default:
            switch set % 5 {
            case 0:
                vital = Vocabulary.temperature
                value = random.chance(0.1) ? random.double(37.8, 39.4) : random.double(36.3, 37.3)
            case 1:
                vital = Vocabulary.respiratoryRate
                value = (age < 12 ? 28 - age : 15) + random.double(-3, 3)
            case 2:
                vital = Vocabulary.oxygenSaturation
                value = random.double(94, 99.5)
            case 3:
                vital = Vocabulary.height
                value = height
            default:
                vital = Vocabulary.bodyMassIndex
                value = bmi
            }
        }
        return SyntheticEntry(
            type: .vitalSign, index: index, codes: [Vocabulary.Code(system: "LOINC", value: vital.loinc)],
            description: vital.description, time: time, status: .completed,
            measurement: .number(value, decimals: vital.decimals, units: vital.units)
        )
    }

    private func result(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let test = random.pick(Vocabulary.labTests)
        let measurement: SyntheticEntry.Measurement
        if test.answers.isEmpty {
            let width = test.range.upperBound - test.range.lowerBound
            let middle = test.range.lowerBound + width * (0.5 + baseline.labShift)
            let value = max(test.range.lowerBound * 0.8, middle + width * random.double(-0.45, 0.45))
            measurement = .number(value, decimals: test.decimals, units: test.units)
        } else {
            measurement = .text(random.pick(test.answers))
        }
        return SyntheticEntry(
            type: .result, index: index, codes: [Vocabulary.Code(system: "LOINC", value: test.loinc)],
            description: test.description, time: visitTime(visit) + Int64(random.int(in: 30...120)) * 60,
            status: .completed, measurement: measurement
        )
    }

    private func condition(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let start = visitTime(visit)
        let age = age(at: start)
        let candidates = Vocabulary.conditions.filter { Double($0.minimumAge) <= age }
        let term = random.pick(candidates.isEmpty ? Vocabulary.conditions : candidates)
        var entry = SyntheticEntry(
            type: .condition, index: index, codes: term.codes, description: term.description,
            startTime: start, status: .active
        )
        if !term.chronic {
            entry.endTime = start + Int64(random.int(in: 7...30)) * 86_400
            entry.status = .resolved
        } else if random.chance(0.15) {
            entry.endTime = start + Int64(random.int(in: 365...3_650)) * 86_400
            entry.status = .inactive
        }
        return entry
    }

    private func medication(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let start = visitTime(visit)
        let age = age(at: start)
        let candidates = Vocabulary.medications.filter { Double($0.minimumAge) <= age }
        let term = random.pick(candidates.isEmpty ? Vocabulary.medications : candidates)
        var entry = SyntheticEntry(
            type: .medication, index: index, codes: [Vocabulary.Code(system: "RxNorm", value: term.rxnorm)],
            description: term.description, startTime: start, status: .active
        )
        if !term.longTerm {
            entry.endTime = start + Int64(random.int(in: 5...14)) * 86_400
            entry.status = .completed
        } else if random.chance(0.25) {
            entry.endTime = start + Int64(random.int(in: 180...2_000)) * 86_400
            entry.status = .completed
        }
        return entry
    }

    private func procedure(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let time = visitTime(visit) + Int64(random.int(in: 20...90)) * 60
        let age = age(at: time)
        let candidates = Vocabulary.procedures.filter { Double($0.minimumAge) <= age }
        let term = random.pick(candidates.isEmpty ? Vocabulary.procedures : candidates)
        return SyntheticEntry(
            type: .procedure, index: index, codes: term.codes, description: term.description,
            time: time, status: .completed
        )
    }

    private func immunization(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let time = visitTime(visit) + Int64(random.int(in: 10...40)) * 60
        let age = Int(self.age(at: time))
        let candidates = Vocabulary.vaccines.filter { $0.ages.contains(age) }
        let vaccine = random.pick(candidates.isEmpty ? Vocabulary.vaccines : candidates)
        return SyntheticEntry(
            type: .immunization, index: index, codes: [Vocabulary.Code(system: "CVX", value: vaccine.cvx)],
            description: vaccine.description, time: time, status: .completed
        )
    }

    private func allergy(_ index: Int, visit: Int, _ random: inout RandomSource) -> SyntheticEntry {
        let allergy = random.pick(Vocabulary.allergies)
        return SyntheticEntry(
            type: .allergy, index: index, codes: [allergy.code], description: allergy.description,
            startTime: visitTime(visit), status: .active,
            reaction: random.pick(Vocabulary.reactions), severity: random.pick(Vocabulary.severities)
        )
    }

    /// Blood pressure rises through childhood and again after 40.
    private func typicalSystolic(_ age: Double) -> Double {
        age < 18 ? 92 + age * 1.6 : baseline.systolic + max(age - 40, 0) * 0.4
    }

    /// How much of the way to adult height a child is, 0 at birth to 1 at 18: a gentle curve that
    /// grows fastest when young, without Foundation's `pow`.
    private func growthCurve(_ age: Double) -> Double {
        let x = age / 18
        return x * (1.2 - 0.2 * x)
    }
}
