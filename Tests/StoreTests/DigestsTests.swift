import HealthRecord
import Store
import Testing

@Suite("The two SHA-256s")
struct DigestsTests {
    /// Ids (the record model's Swift SHA-256) and files and secrets (OpenSSL's) must be the same function.
    @Test("Swift's SHA-256 agrees with OpenSSL's on every length to 300 bytes and on random inputs")
    func agree() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SHA256.hash(bytes) == Digests.sha256(bytes), "length \(length)")
        }
        let large = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(SHA256.hash(large) == Digests.sha256(large))
    }
}
