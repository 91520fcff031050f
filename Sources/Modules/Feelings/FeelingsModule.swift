import HealthRecord

/// Pain, mood and energy: the levels posted from the timeline (0–10), each as a trend.
public struct FeelingsModule: SummaryModule {
    public init() {}
    public let id = "feelings"
    public let name = "How you feel"
    public let about = "The pain, mood and energy levels you post from the timeline, as trends."
    public var reads: ModuleReads { ModuleReads(posts: true) }
    static let levels = ["pain", "mood", "energy"]
    static let trendLength = 30

    public func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput {
        var series: [String: [(value: Double, date: Int64)]] = [:]
        for post in record.posts where post.kind == .levels {
            for name in Self.levels {
                if let value = Self.level(name, in: post.dataJSON) { series[name, default: []].append((value, post.createdAt)) }
            }
        }
        var members: [TileValue.Member] = []
        var parts: [String] = []
        for name in Self.levels {
            guard let points = series[name], let latest = points.last else { members.append(.init(key: name, value: nil)); continue }
            let trend = Self.trend(points.map(\.value))
            parts.append("\(name) \(Numbers.text(latest.value)) on \(record.day(latest.date))" + (trend == "steady" || points.count < 2 ? "" : ", \(trend)"))
            members.append(.init(key: name, value: [
                "latest": TileValue(latest.value), "date": .int(latest.date), "trend": .string(trend),
                "values": .array(points.suffix(Self.trendLength).map { ["value": TileValue($0.value), "date": .int($0.date)] }),
            ]))
        }
        guard !parts.isEmpty else {
            return ModuleOutput(message: record.none("Nothing posted") + record.advice("Record your pain, mood and energy from the timeline."),
                                tile: .object(members))
        }
        let first = parts[0].prefix(1).uppercased() + parts[0].dropFirst()
        return ModuleOutput(message: ([first] + parts.dropFirst()).joined(separator: "; ") + ".", tile: .object(members))
    }

    /// "up", "down" or "steady": the mean of the last three against the three before.
    static func trend(_ values: [Double]) -> String {
        guard values.count >= 2 else { return "steady" }
        let recent = values.suffix(3)
        let before = values.dropLast(recent.count).suffix(3)
        let earlier = before.isEmpty ? [values[values.count - 2]] : Array(before)
        let delta = recent.reduce(0, +) / Double(recent.count) - earlier.reduce(0, +) / Double(earlier.count)
        return delta >= 1 ? "up" : delta <= -1 ? "down" : "steady"
    }

    /// The number posted under `name` in a flat JSON object (`{"pain":"7"}` or `{"pain":7}`).
    static func level(_ name: String, in json: String) -> Double? {
        guard let key = json.firstRange(of: "\"\(name)\":") else { return nil }
        var text = json[key.upperBound...].drop { $0 == " " || $0 == "\"" }
        text = text.prefix { $0.isNumber || $0 == "." || $0 == "-" }
        guard let value = Double(text), (0...10).contains(value) else { return nil }
        return value
    }
}
