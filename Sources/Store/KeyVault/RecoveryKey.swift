import HealthRecord

/// The recovery key printed once by `hreaderd init`: 160 random bits, written as 32 base32 characters in
/// groups of four. It wraps the same store key as the password, so it can set a new password when the
/// password is lost (the original app's security questions, done properly).
public struct RecoveryKey: Sendable, Equatable {
    public static let byteCount = 20
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func random() throws(KeyVaultError) -> RecoveryKey {
        RecoveryKey(bytes: try secureRandomBytes(byteCount))
    }

    /// Parses what the user typed or saved: case, spaces, dashes and line breaks do not matter.
    public init(parsing text: String) throws(KeyVaultError) {
        var bits: UInt64 = 0
        var bitCount = 0
        var output: [UInt8] = []
        var characters = 0
        for scalar in text.uppercased().unicodeScalars {
            if scalar == "-" || scalar == " " || scalar == "\n" || scalar == "\r" || scalar == "\t" { continue }
            guard scalar.isASCII, let value = Self.alphabet.firstIndex(of: UInt8(scalar.value)) else {
                throw .malformedRecoveryKey
            }
            characters += 1
            bits = (bits << 5) | UInt64(value)
            bitCount += 5
            if bitCount >= 8 {
                output.append(UInt8(truncatingIfNeeded: bits >> UInt64(bitCount - 8)))
                bitCount -= 8
            }
        }
        guard characters == 32, output.count == Self.byteCount else { throw .malformedRecoveryKey }
        bytes = output
    }

    /// `ABCD-EFGH-…`, eight groups of four.
    public var formatted: String {
        var characters: [Character] = []
        var bits: UInt64 = 0
        var bitCount = 0
        for byte in bytes {
            bits = (bits << 8) | UInt64(byte)
            bitCount += 8
            while bitCount >= 5 {
                characters.append(Character(Unicode.Scalar(Self.alphabet[Int((bits >> UInt64(bitCount - 5)) & 31)])))
                bitCount -= 5
            }
        }
        return stride(from: 0, to: characters.count, by: 4)
            .map { String(characters[$0..<min($0 + 4, characters.count)]) }
            .joined(separator: "-")
    }
}
