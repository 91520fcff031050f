/// SHA-256 (FIPS 180-4) in Swift, so that the record's model links nothing: stable ids are made wherever
/// a record is read (the readers, the fuzzers, the tools), and their inputs are a few short strings.
/// Secrets and whole files are hashed by the store with OpenSSL's (`Store.Digests`), which is faster on
/// megabytes; the tests check that the two agree.
public struct SHA256: Sendable {
    private var state: State = SHA256.initial
    /// The bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    public static func hash<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    /// The one-shot path stable ids take: whole blocks straight from the input, no copy.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var state = initial
        bytes.withUnsafeBufferPointer { input in
            let whole = input.count / 64 * 64
            var offset = 0
            while offset < whole {
                compress(&state, UnsafeRawPointer(input.baseAddress! + offset))
                offset += 64
            }
            finish(&state, tail: UnsafeBufferPointer(rebasing: input[whole...]), length: UInt64(input.count))
        }
        return digest(state)
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        guard pending.count >= 64 else { return }
        let whole = pending.count / 64 * 64
        pending.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < whole {
                SHA256.compress(&state, UnsafeRawPointer(buffer.baseAddress! + offset))
                offset += 64
            }
        }
        pending.removeFirst(whole)
    }

    public mutating func finish() -> [UInt8] {
        pending.withUnsafeBufferPointer { SHA256.finish(&state, tail: $0, length: length) }
        pending.removeAll()
        length = 0
        let out = SHA256.digest(state)
        state = SHA256.initial
        return out
    }

    // MARK: The function

    private typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    private static let initial: State =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)

    /// The last bytes (fewer than 64), the 0x80 marker, zeros and the length in bits: one or two blocks.
    private static func finish(_ state: inout State, tail: UnsafeBufferPointer<UInt8>, length: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { block in
            let count = tail.count < 56 ? 64 : 128
            block.initialize(repeating: 0)
            for i in 0..<tail.count { block[i] = tail[i] }
            block[tail.count] = 0x80
            let bits = length &* 8
            for i in 0..<8 { block[count - 1 - i] = UInt8(truncatingIfNeeded: bits >> UInt64(i * 8)) }
            compress(&state, UnsafeRawPointer(block.baseAddress!))
            if count == 128 { compress(&state, UnsafeRawPointer(block.baseAddress! + 64)) }
        }
    }

    private static func digest(_ state: State) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            for (i, word) in words.enumerated() {
                out[i * 4] = UInt8(truncatingIfNeeded: word >> 24)
                out[i * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                out[i * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
                out[i * 4 + 3] = UInt8(truncatingIfNeeded: word)
            }
            count = 32
        }
    }

    private static func compress(_ state: inout State, _ block: UnsafeRawPointer) {
        // The message schedule on the stack: a heap array a block would cost more than the rounds.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            k.withUnsafeBufferPointer { k in rounds(&state, block, w.baseAddress!, k.baseAddress!) }
        }
    }

    /// The 64 rounds, with no closure around them: working variables captured by a closure live in memory,
    /// and the function then runs at half speed.
    private static func rounds(_ state: inout State, _ block: UnsafeRawPointer, _ w: UnsafeMutablePointer<UInt32>,
                               _ k: UnsafePointer<UInt32>) {
        for i in 0..<16 { w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)) }
        for i in 16..<64 {
            let x = w[i &- 15], y = w[i &- 2]
            let s0 = rotate(x, 7) ^ rotate(x, 18) ^ (x &>> 3)
            let s1 = rotate(y, 17) ^ rotate(y, 19) ^ (y &>> 10)
            w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        // Eight rounds at a time, the working variables' roles rotating instead of their values moving.
        var i = 0
        while i < 64 {
            round(a, b, c, &d, e, f, g, &h, k[i] &+ w[i])
            round(h, a, b, &c, d, e, f, &g, k[i &+ 1] &+ w[i &+ 1])
            round(g, h, a, &b, c, d, e, &f, k[i &+ 2] &+ w[i &+ 2])
            round(f, g, h, &a, b, c, d, &e, k[i &+ 3] &+ w[i &+ 3])
            round(e, f, g, &h, a, b, c, &d, k[i &+ 4] &+ w[i &+ 4])
            round(d, e, f, &g, h, a, b, &c, k[i &+ 5] &+ w[i &+ 5])
            round(c, d, e, &f, g, h, a, &b, k[i &+ 6] &+ w[i &+ 6])
            round(b, c, d, &e, f, g, h, &a, k[i &+ 7] &+ w[i &+ 7])
            i &+= 8
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    /// One round: `d` takes the new `e`, `h` the new `a` (the caller renames the rest).
    @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
                              _ h: inout UInt32, _ kw: UInt32) {
        let t1 = h &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ kw
        let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
        d = d &+ t1
        h = t1 &+ t2
    }

    @inline(__always) private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x &>> n | x &<< (32 &- n) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
