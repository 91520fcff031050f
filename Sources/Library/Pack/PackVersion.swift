/// A pack's version: numbers separated by dots (`2025.10.1`), compared number by number, a missing
/// number counting as 0 (`2025.10` == `2025.10.0` < `2025.10.1` < `2025.11`).
public struct PackVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let text: String
    public let parts: [UInt32]

    /// Nil unless `text` is 1 to 8 numbers of at most 9 digits each, separated by single dots.
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...8).contains(pieces.count) else { return nil }
        var parts: [UInt32] = []
        for piece in pieces {
            guard (1...9).contains(piece.utf8.count), piece.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = UInt32(piece) else { return nil }
            parts.append(number)
        }
        self.text = text
        self.parts = parts
    }

    public var description: String { text }

    public static func < (a: PackVersion, b: PackVersion) -> Bool {
        for index in 0..<max(a.parts.count, b.parts.count) {
            let x = index < a.parts.count ? a.parts[index] : 0
            let y = index < b.parts.count ? b.parts[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: PackVersion, b: PackVersion) -> Bool { !(a < b) && !(b < a) }

    public func hash(into hasher: inout Hasher) {
        var trimmed = parts
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}
