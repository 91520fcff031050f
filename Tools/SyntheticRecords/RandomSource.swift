import HealthRecord
import Records
/// The generator's only source of randomness: SplitMix64 (Steele, Lea & Flood 2014), seeded from the
/// caller's seed and a few stream numbers. Our own, not `SystemRandomNumberGenerator`, and not the
/// standard library's `random(in:using:)` either, whose algorithm may change between Swift releases:
/// the same seed must give the same bytes on every machine and toolchain.
struct RandomSource {
    private var state: UInt64

    /// A source for one purpose (`streams` name it: patient, section, entry index…), independent of
    /// the sources for every other purpose, so any entry can be generated without generating the ones
    /// before it.
    init(seed: UInt64, _ streams: UInt64...) {
        var state = seed ^ 0x6A09_E667_F3BC_C908
        for stream in streams {
            state = RandomSource.mix(state &+ 0x9E37_79B9_7F4A_7C15 &* (stream &+ 1))
        }
        self.state = state
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return RandomSource.mix(state)
    }

    /// Uniform in `0..<bound` (bound > 0); the modulo bias is below 2⁻³² for the bounds we use.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Uniform in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Uniform in [low, high).
    mutating func double(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * unit()
    }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    mutating func pick<T>(_ elements: [T]) -> T {
        elements[below(elements.count)]
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
