/// What the daemon needs of string trimming, without Foundation (whose `trimmingCharacters(in:)` comes
/// with its NSString bridge and ICU): white space and newlines off both ends.
extension StringProtocol {
    public var trimmedWhitespace: String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// A path's folder, as `NSString.deletingLastPathComponent` gave it: "" for a bare name, "/" for a file at
/// the root.
public func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// `n` in decimal, left-padded with zeros to `width` digits (`String(format: "%02d")` without Foundation).
public func zeroPadded(_ n: Int, _ width: Int) -> String {
    let digits = String(n.magnitude)
    return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `value` rounded to `places` decimals, as text (`String(format: "%.1f")` without Foundation).
public func decimal(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<max(0, places) { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int64(scaled / scale), fraction = Int64(scaled.truncatingRemainder(dividingBy: scale))
    let sign = value < 0 && scaled > 0 ? "-" : ""
    return places > 0 ? "\(sign)\(whole).\(zeroPadded(Int(fraction), places))" : "\(sign)\(whole)"
}
