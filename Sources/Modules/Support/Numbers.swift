import HealthRecord

/// Rounding and wording shared by the modules' tiles and messages.
enum Numbers {
    /// `value` rounded to `places` decimals (tiles carry rounded numbers: 22.46 → 22.5).
    static func rounded(_ value: Double, places: Int = 1) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// "22.5", "120": how a number reads in a message.
    static func text(_ value: Double, places: Int = 1) -> String {
        let r = rounded(value, places: places)
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }

    /// "3 days", "2 months", "1 year": how long ago, roughly, for "no weight recorded for …".
    static func span(_ seconds: Int64) -> String {
        let days = seconds / 86_400
        func plural(_ n: Int64, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        if days < 60 { return plural(max(days, 0), "day") }
        if days < 730 { return plural(days / 30, "month") }
        return plural(days / 365, "year")
    }
}

extension Array where Element == StoredEntry {
    /// The record's entries that are current: not of a closed status and not ended before `now`.
    func current(at now: Int64) -> [StoredEntry] {
        filter { entry in
            // An entry that names nothing (an empty RHEx allergy, a code-less placeholder) says nothing to list.
            if entry.description == nil && entry.codesJSON == "{}" { return false }
            if let status = entry.status?.lowercased(), Entry.closedStatuses.contains(status) || status == "entered-in-error" { return false }
            if let end = entry.endTime, end < now { return false }
            return true
        }
    }
}
