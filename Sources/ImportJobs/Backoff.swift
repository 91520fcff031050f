/// Exponential backoff with jitter: attempt n (from 1) waits between half and all of
/// `min(maximum, base · 2^(n-1))` seconds, so that retries spread out and many clients that failed
/// together do not come back together.
public struct Backoff: Sendable, Equatable {
    /// Tries in all, the first included.
    public var attempts: Int
    public var baseSeconds: Double
    public var maximumSeconds: Double

    public init(attempts: Int, baseSeconds: Double, maximumSeconds: Double) {
        self.attempts = max(1, attempts)
        self.baseSeconds = max(0, baseSeconds)
        self.maximumSeconds = max(0, maximumSeconds)
    }

    /// The ceiling of the wait after the `attempt`-th failure (1-based).
    public func ceiling(after attempt: Int) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 30))
        return min(maximumSeconds, baseSeconds * pow2(exponent))
    }

    /// The wait after the `attempt`-th failure: half the ceiling plus up to half again, at random.
    public func delay<R: RandomNumberGenerator>(after attempt: Int, using random: inout R) -> Double {
        let ceiling = ceiling(after: attempt)
        guard ceiling > 0 else { return 0 }
        return ceiling / 2 + Double.random(in: 0...(ceiling / 2), using: &random)
    }

    public func delay(after attempt: Int) -> Double {
        var random = SystemRandomNumberGenerator()
        return delay(after: attempt, using: &random)
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        var n = Int(exponent)
        while n > 0 { result *= 2; n -= 1 }
        return result
    }
}
