import HealthRecord

/// Immunizations: the last dose of each vaccine, and how many doses the record holds.
public struct ImmunizationsModule: SummaryModule {
    public init() {}
    public let id = "immunizations"
    public let name = "Immunizations"
    public let about = "The last dose of each vaccine in your record."
    public var reads: ModuleReads { ModuleReads(entryTypes: [.immunization]) }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        struct Vaccine { var name: String; var last: Int64?; var doses: Int; var id: String }
        var order: [String] = []
        var vaccines: [String: Vaccine] = [:]
        for entry in record.entries(.immunization) {
            if let status = entry.status?.lowercased(), ["not-done", "entered-in-error", "cancelled", "refused"].contains(status) { continue }
            let name = entry.description ?? "Vaccine"
            // One vaccine by its CVX code when it has one, else by its name.
            let key = Self.cvx(entry.codesJSON) ?? name.lowercased()
            if vaccines[key] == nil { order.append(key); vaccines[key] = Vaccine(name: name, last: nil, doses: 0, id: entry.id) }
            vaccines[key]?.doses += 1
            if let date = entry.date, date >= (vaccines[key]?.last ?? .min) {
                vaccines[key]?.last = date
                vaccines[key]?.id = entry.id
                vaccines[key]?.name = name
            }
        }
        let list = order.compactMap { vaccines[$0] }.sorted { ($0.last ?? .min) > ($1.last ?? .min) }
        guard let newest = list.first else {
            return ModuleOutput(message: record.none("No immunizations in the record"), tile: ["vaccines": []])
        }
        var message = "\(list.count) vaccine\(list.count == 1 ? "" : "s") in the record"
        if let last = newest.last { message += "; the latest, \(newest.name), on \(record.day(last))" }
        message += "."
        return ModuleOutput(message: message, tile: ["vaccines": .array(list.map { v -> TileValue in
            ["name": .string(v.name), "last_date": TileValue(v.last), "doses": .int(Int64(v.doses)), "entry": .string(v.id)]
        })])
    }

    static func cvx(_ codes: String) -> String? {
        guard let code = CodesJSON.codes("CVX", in: codes).first, !code.isEmpty else { return nil }
        return "cvx:" + code
    }
}
