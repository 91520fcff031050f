import Foundation
import HealthRecord

/// What a FHIR sample holds, computed in the test from the JSON itself with Foundation's parser (never
/// with the importer's code): the resources of each patient, and the entries the mapping rules of
/// docs/import-mapping.md say they make.
struct FHIRSampleExpectations {
    typealias Object = [String: Any]

    var resources: [Object] = []

    init(files: [URL]) throws {
        for file in files {
            let data = try Data(contentsOf: file)
            let text = String(decoding: data, as: UTF8.self)
            if let whole = try? JSONSerialization.jsonObject(with: data) as? Object {
                if whole["resourceType"] as? String == "Bundle" {
                    for entry in whole["entry"] as? [Object] ?? [] {
                        if let resource = entry["resource"] as? Object { resources.append(resource) }
                    }
                } else {
                    resources.append(whole)
                }
            } else {
                for line in text.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
                    if let resource = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? Object { resources.append(resource) }
                }
            }
        }
    }

    static func type(_ resource: Object) -> String { resource["resourceType"] as? String ?? "" }

    static func enteredInError(_ resource: Object) -> Bool {
        if resource["status"] as? String == "entered-in-error" { return true }
        let verification = resource["verificationStatus"] as? Object
        let codings = verification?["coding"] as? [Object] ?? []
        return codings.contains { $0["code"] as? String == "entered-in-error" }
    }

    static func categoryCodes(_ resource: Object) -> [String] {
        (resource["category"] as? [Object] ?? []).flatMap { ($0["coding"] as? [Object] ?? []).compactMap { $0["code"] as? String } }
    }

    static func hasValue(_ object: Object) -> Bool {
        object.keys.contains { $0.hasPrefix("value") }
    }

    /// The entries one resource makes, by type (the mapping rules, restated).
    static func entries(of resource: Object) -> [EntryType] {
        if enteredInError(resource) { return [] }
        switch type(resource) {
        case "AllergyIntolerance": return [.allergy]
        case "Condition": return [.condition]
        case "Encounter": return [.encounter]
        case "Immunization": return [.immunization]
        case "MedicationRequest", "MedicationStatement", "MedicationAdministration": return [.medication]
        case "Procedure": return [.procedure]
        case "CarePlan", "Goal": return [.careGoal]
        case "Device", "DeviceUseStatement": return [.medicalEquipment]
        case "Observation":
            let categories = categoryCodes(resource)
            let kind: EntryType = categories.contains("vital-signs") ? .vitalSign
                : categories.contains("social-history") ? .socialHistory : .result
            let components = (resource["component"] as? [Object] ?? []).filter(hasValue)
            if !hasValue(resource), !components.isEmpty { return Array(repeating: kind, count: components.count) }
            return [kind]
        default: return []
        }
    }

    /// Entries by type over all resources.
    var entryCounts: [EntryType: Int] {
        var counts: [EntryType: Int] = [:]
        for resource in resources { for type in Self.entries(of: resource) { counts[type, default: 0] += 1 } }
        return counts
    }

    var patientCount: Int { resources.filter { Self.type($0) == "Patient" }.count }

    /// The resources that are a patient's but make no entry (kept, not shown), by type.
    static let nobodys: Set<String> = ["Organization", "Practitioner", "PractitionerRole", "Location", "Medication", "Patient"]

    var keptCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for resource in resources where Self.entries(of: resource).isEmpty && !Self.enteredInError(resource) {
            let type = Self.type(resource)
            guard !Self.nobodys.contains(type) else { continue }
            counts[type, default: 0] += 1
        }
        return counts
    }

    /// Epoch seconds of a FHIR date, by Foundation: a dateTime exactly; a date as noon UTC of its first day.
    static func seconds(_ text: String) -> Int64? {
        let full = ISO8601DateFormatter()
        full.formatOptions = [.withInternetDateTime]
        if let date = full.date(from: text) { return Int64(date.timeIntervalSince1970) }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard (1...3).contains(parts.count) else { return nil }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts.count > 1 ? parts[1] : 1
        components.day = parts.count > 2 ? parts[2] : 1
        components.hour = 12
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { Int64($0.timeIntervalSince1970) }
    }
}
