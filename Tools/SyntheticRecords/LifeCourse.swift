import HealthRecord

/// Keeps a synthetic record's life course believable as its entries are written in order, in every
/// format: a chronic condition already open is not diagnosed again (a repeat is a flare that resolves
/// within weeks), a drug already being taken is not started twice (a repeat is a course of 90 days that
/// ends), and an allergy already on the record is not recorded as a second open one (a repeat is an
/// earlier record, inactive). A person then has a few dozen things open at once, as people do, however
/// long their record: not one more with every visit.
struct LifeCourse {
    private var open: [EntryType: Set<String>] = [:]

    mutating func settle(_ item: inout SyntheticEntry) {
        guard item.endTime == nil, [.condition, .medication, .allergy].contains(item.type) else { return }
        guard open[item.type, default: []].contains(item.description) else {
            open[item.type, default: []].insert(item.description)
            return
        }
        let start = item.startTime ?? item.time ?? 0
        switch item.type {
        case .condition:
            item.endTime = start + 21 * 86_400
            item.status = .resolved
        case .medication:
            item.endTime = start + 90 * 86_400
            item.status = .completed
        default:
            item.endTime = start + 86_400
            item.status = .inactive
        }
    }
}
