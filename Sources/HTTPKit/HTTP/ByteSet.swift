/// A set of bytes as 256 bits: membership is a shift and a mask.
struct ByteSet: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(_ members: String) {
        for byte in members.utf8 {
            let bit = UInt64(1) << UInt64(byte & 63)
            switch byte >> 6 {
            case 0: self.words.0 |= bit
            case 1: self.words.1 |= bit
            case 2: self.words.2 |= bit
            default: self.words.3 |= bit
            }
        }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let word: UInt64
        switch byte >> 6 {
        case 0: word = self.words.0
        case 1: word = self.words.1
        case 2: word = self.words.2
        default: word = self.words.3
        }
        return word & (UInt64(1) << UInt64(byte & 63)) != 0
    }
}
