extension Substring {
    /// Splits at every `separator` byte, which must be ASCII (so every piece is whole UTF-8).
    /// `split(separator:)` on characters does grapheme breaking, which paths and queries never need.
    func splitUTF8(on separator: UInt8, omittingEmpty: Bool) -> [Substring] {
        var pieces: [Substring] = []
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == separator {
                if !(omittingEmpty && start == index) { pieces.append(self[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if !(omittingEmpty && start == utf8.endIndex) { pieces.append(self[start..<utf8.endIndex]) }
        return pieces
    }
}
