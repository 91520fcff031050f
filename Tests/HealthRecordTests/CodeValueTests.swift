@testable import HealthRecord
import Testing

/// Codes that say there is no code ("UNK", "n/a"), as sources write them.
@Suite("null-like codes")
struct CodeValueTests {
    @Test("each null-like value is one in any case and with spaces around it")
    func nullLike() {
        for value in CodeValue.nullLike {
            for variant in [value, value.uppercased(), " " + value + "\t", "\n" + value.prefix(1).uppercased() + value.dropFirst() + " \r"] {
                #expect(CodeValue.isNullLike(variant), "\(variant.debugDescription)")
            }
        }
    }

    @Test("real codes are not, whatever they start with; nor is a null-like word inside a longer code")
    func realCodes() {
        let codes = ["8867-4", "38341003", "E11.9", "Z00.00", "J45", "unknown-x", "nullify", "NAK", "mska", "ask",
                     "ünknown", "\u{212A}", "-", "*", "Ø"]
        for code in codes { #expect(!CodeValue.isNullLike(code), "\(code.debugDescription)") }
        // Every ASCII start: only those a null-like value may start with can be one.
        for byte in UInt8(0x21)..<0x7F {
            let code = String(UnicodeScalar(byte)) + "sk"
            #expect(CodeValue.isNullLike(code) == CodeValue.nullLike.contains(code.lowercased()), "\(code)")
        }
    }
}
