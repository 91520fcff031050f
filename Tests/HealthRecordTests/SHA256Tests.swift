import HealthRecord
import Testing

@Suite("SHA-256 of the record model")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { StableID.hex(bytes) }

    @Test("FIPS 180-4's examples and the padding edges", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        // 55, 56 and 64 bytes: the length fits in the last block, just does not, and a whole block.
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func knownDigests(input: String, expected: String) {
        #expect(Self.hex(SHA256.hash(Array(input.utf8))) == expected)
    }

    @Test("a million a's, fed in uneven pieces, as one input")
    func millionAs() {
        var hasher = SHA256()
        var fed = 0, piece = 1
        while fed < 1_000_000 {
            let n = min(piece, 1_000_000 - fed)
            hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: n))
            fed += n
            piece = piece * 3 % 997 + 1
        }
        #expect(Self.hex(hasher.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("a stable id is the same as every earlier release made it")
    func stableIDUnchanged() {
        // The first 80 bits of SHA-256("condition\u{1f}abc\u{1f}"): an entry keeps its id across versions.
        #expect(StableID.make("e", ["condition", "abc"]) == "e_" + String(Self.hex(SHA256.hash(Array("condition\u{1f}abc\u{1f}".utf8))).prefix(20)))
        #expect(StableID.make("e", ["ab", "c"]) != StableID.make("e", ["a", "bc"]))
    }

    @Test("random ids are 80 bits of hex and differ")
    func randomIDs() {
        let ids = (0..<100).map { _ in StableID.random("t") }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.hasPrefix("t_") && $0.count == 22 && $0.dropFirst(2).allSatisfy(\.isHexDigit) })
    }
}
