/// A quick structural look at one line, without parsing it: used to tell a line-delimited file from a
/// pretty-printed one before committing to either.
enum JSONBalance {
    /// Whether `bytes` hold one whole JSON object or array: it opens with `{` or `[`, its brackets
    /// (outside strings) balance, and only whitespace follows the closing one. Says nothing about
    /// whether the value is valid JSON; the parser decides that.
    static func isCompleteValue(_ bytes: [UInt8]) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        var closed = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                continue
            case _ where closed:
                return false
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { return false }
                if depth == 0 { closed = true }
            case UInt8(ascii: "\""):
                if depth == 0 { return false }
                inString = true
            default:
                if depth == 0 { return false }
            }
        }
        return closed
    }
}
