import HealthRecord

/// Active problems, and allergies with their reactions and severity.
public struct ProblemsAllergiesModule: SummaryModule {
    public init() {}
    public let id = "problems-allergies"
    public let name = "Problems and allergies"
    public let about = "Your active problems, and your allergies with their reactions and severity."
    public var reads: ModuleReads { ModuleReads(entryTypes: [.condition, .allergy]) }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let problems = record.entries(.condition).current(at: record.now).reversed()
        let allergies = record.entries(.allergy).current(at: record.now).reversed()
        let problemTiles = problems.map { entry -> TileValue in
            ["id": .string(entry.id), "description": TileValue(entry.description), "since": TileValue(entry.startTime ?? entry.date),
             "status": TileValue(entry.status), "note": TileValue(record.annotations[entry.id]?.note)]
        }
        let allergyTiles = allergies.map { entry -> TileValue in
            let detail = record.allergyDetails[entry.id]
            return ["id": .string(entry.id), "description": TileValue(entry.description), "reaction": TileValue(detail?.reaction),
                    "severity": TileValue(detail?.severity), "since": TileValue(entry.startTime ?? entry.date),
                    "note": TileValue(record.annotations[entry.id]?.note)]
        }
        func count(_ n: Int, _ one: String, _ many: String) -> String { n == 0 ? "no \(many)" : "\(n) \(n == 1 ? one : many)" }
        var message = "\(count(problems.count, "active problem", "active problems")) and \(count(allergies.count, "allergy", "allergies"))"
        message = message.prefix(1).uppercased() + message.dropFirst() + " in the record."
        let severe = allergies.filter { (record.allergyDetails[$0.id]?.severity?.lowercased() ?? "").contains("severe") }
        if let first = severe.first?.description {
            message += " Severe: \(first)\(severe.count > 1 ? " and \(severe.count - 1) more" : "")."
        }
        return ModuleOutput(message: message, tile: ["problems": .array(Array(problemTiles)), "allergies": .array(Array(allergyTiles))])
    }
}
