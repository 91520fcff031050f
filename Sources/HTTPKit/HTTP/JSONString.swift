/// Minimal JSON string quoting, so that HTTPKit can write its error bodies without an encoder.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included. Control characters, quotes and
    /// backslashes are escaped; `<`, `>` and `&` are too, so that the output is also safe to
    /// embed in HTML.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += unicodeEscape(scalar.value)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += unicodeEscape(scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
