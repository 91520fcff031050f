/// Code values that say "no code": sources write them where a code is unknown ("Unknown" under RxNorm,
/// `UNK`, `NA`, "null"), and every reader treats them as no code at all, so that no entry claims a code it
/// does not have.
public enum CodeValue {
    static let nullLike: Set<String> = ["", "unknown", "unk", "na", "n/a", "null", "nil", "ni", "nask", "asku", "msk"]

    /// Whether `code` says there is no code.
    public static func isNullLike(_ code: String) -> Bool {
        nullLike.contains(code.trimmedWhitespace.lowercased())
    }
}
