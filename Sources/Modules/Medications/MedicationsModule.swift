import HealthRecord

/// Active medications with the person's own notes on them (dose, directions, a note), and the
/// medications they added on the timeline.
public struct MedicationsModule: SummaryModule {
    public init() {}
    public let id = "medications"
    public let name = "Medications"
    public let about = "The medications you take now, with your own notes on them."
    public var reads: ModuleReads { ModuleReads(entryTypes: [.medication], posts: true) }

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        let active = record.entries(.medication).current(at: record.now).reversed()
        var tiles: [TileValue] = active.map { entry in
            let note = record.annotations[entry.id]
            return ["id": .string(entry.id), "description": TileValue(entry.description), "since": TileValue(entry.startTime ?? entry.date),
                    "directions": TileValue(note?.medication?.directions ?? entry.textValue), "dose": TileValue(note?.medication?.dose),
                    "note": TileValue(note?.note), "self_reported": false]
        }
        // Medications the person added on the timeline ("NewMedication"): their own words.
        let added = record.posts.filter { $0.kind == .medication }.reversed()
        for post in added {
            tiles.append(["id": .string(post.id), "description": TileValue(Self.field("description", in: post.dataJSON) ?? Self.field("name", in: post.dataJSON)),
                          "since": .int(post.createdAt), "directions": TileValue(Self.field("select-choice-freq", in: post.dataJSON)),
                          "dose": nil, "note": nil, "self_reported": true])
        }
        var message: String
        switch tiles.count {
        case 0: message = "No active medications in the record."
        case 1: message = "1 active medication."
        default: message = "\(tiles.count) active medications."
        }
        // Not "takes now": the record's list as it stood when they died.
        if record.patient.deceased, !tiles.isEmpty { message = String(message.dropLast()) + " in the record when they died." }
        return ModuleOutput(message: message, tile: ["active": .array(tiles), "count": .int(Int64(tiles.count))])
    }

    /// A string field of a flat JSON object, unescaped only for the common cases (quotes and backslashes).
    static func field(_ name: String, in json: String) -> String? {
        guard let key = json.firstRange(of: "\"\(name)\":\"") else { return nil }
        var out = ""
        var escaped = false
        for character in json[key.upperBound...] {
            if escaped { out.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "\"" { break }
            out.append(character)
        }
        return out.isEmpty ? nil : out
    }
}
