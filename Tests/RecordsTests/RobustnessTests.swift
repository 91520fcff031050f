import Records
import SyntheticRecords
import HealthRecord
import TestSupport
import Testing

/// Whatever bytes come in, the parser answers with a record or a typed error: never a crash, never a
/// hang. Cheap, deterministic relatives of the fuzzing the reliability target asks for.
@Suite("robustness")
struct RobustnessTests {
    private static let document: [UInt8] = {
        let generator = SyntheticRecords(seed: 1)
        return generator.record(for: generator.family()[0], entries: 16, shape: .gen1)
    }()

    @Test("every truncation of a record is an error at or before its end")
    func truncations() {
        let document = RobustnessTests.document
        for length in 0..<document.count {
            let prefix = Array(document[0..<length])
            switch parseError(prefix) {
            case let .notJSON(offset, _)?:
                #expect(offset <= length)
            case .invalidUTF8?:
                continue // cut inside a multi-byte character
            default:
                Issue.record("prefix of \(length) bytes gave \(String(describing: parseError(prefix)))")
                return
            }
        }
    }

    @Test("random byte changes give a record or a typed error", arguments: [UInt64(1), 2, 3, 4])
    func mutations(seed: UInt64) {
        var state = seed
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let replacements: [UInt8] = Array(#"{}[]":,\ 0-e.tnf"#.utf8) + [0x00, 0x80, 0xFF, 0xC3]
        for _ in 0..<300 {
            var bytes = RobustnessTests.document
            for _ in 0..<(1 + next() % 4) {
                let position = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[position] = replacements[next() % replacements.count]
                case 1: bytes.remove(at: position)
                default: bytes.insert(replacements[next() % replacements.count], at: position)
                }
            }
            do {
                let record = try RecordParser().parse(bytes)
                #expect(Set(record.entries.map(\.id)).count == record.entries.count)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
