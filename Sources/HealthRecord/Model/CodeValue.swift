/// Code values that say "no code": sources write them where a code is unknown ("Unknown" under RxNorm,
/// `UNK`, `NA`, "null"), and every reader treats them as no code at all, so that no entry claims a code it
/// does not have.
public enum CodeValue {
    static let nullLike: Set<String> = ["", "unknown", "unk", "na", "n/a", "null", "nil", "ni", "nask", "asku", "msk"]

    /// Whether `code` says there is no code.
    public static func isNullLike(_ code: String) -> Bool {
        // Most codes start with a digit or a letter none of these starts with: then no trimming, no lowercasing
        // (a mapped resource's codes went through here several times each).
        if let first = code.utf8.first, first < 0x80, !mayStartNullLike(first) { return false }
        return nullLike.contains(code.trimmedWhitespace.lowercased())
    }

    /// Whether a code starting with the ASCII `byte` may be null-like: a letter one of `nullLike` starts with, in
    /// either case, or a space or control character that trimming may drop.
    private static func mayStartNullLike(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, UInt8(ascii: "a"), UInt8(ascii: "A"), UInt8(ascii: "m"), UInt8(ascii: "M"),
             UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "u"), UInt8(ascii: "U"):
            return true
        default:
            return false
        }
    }
}
