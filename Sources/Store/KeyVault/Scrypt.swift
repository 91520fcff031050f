import HealthRecord
import CLibCrypto

/// scrypt cost parameters. They are written into the key file next to each wrapped key, so they can be
/// raised later without breaking existing files.
public struct ScryptParameters: Sendable, Equatable, Codable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    public var r: Int
    public var p: Int

    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// For passwords: N = 2^15, r = 8: 32 MiB and about 0.1 s per derivation on this class of machine.
    public static let password = ScryptParameters(logN: 15, r: 8, p: 1)
    /// The recovery key already has 160 random bits; a light derivation is plenty.
    public static let recoveryKey = ScryptParameters(logN: 12, r: 8, p: 1)

    /// The sanity bounds accepted from a key file: refuse parameters that would take forever or exhaust
    /// memory (a tampered file must not be able to hang the daemon).
    static let logNRange = 10...22
    static let rRange = 1...32
    static let pRange = 1...16

    var isWithinBounds: Bool {
        Self.logNRange.contains(logN) && Self.rRange.contains(r) && Self.pRange.contains(p)
    }

    /// Memory scrypt needs, plus slack; passed to OpenSSL, whose default cap (32 MiB) is too small for N=2^15.
    var memoryBound: UInt64 { UInt64(128 * r * p) + UInt64(128 * r) * (UInt64(1) << UInt64(logN) + 2) + 1 << 20 }
}

enum Scrypt {
    static func deriveKey(secret: [UInt8], salt: [UInt8], parameters: ScryptParameters, length: Int = 32) throws(KeyVaultError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        let rc = secret.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { saltBuffer in
                output.withUnsafeMutableBufferPointer { out in
                    pass.withMemoryRebound(to: CChar.self) { passChars in
                        EVP_PBE_scrypt(
                            passChars.baseAddress, pass.count,
                            saltBuffer.baseAddress, saltBuffer.count,
                            UInt64(1) << UInt64(parameters.logN), UInt64(parameters.r), UInt64(parameters.p),
                            parameters.memoryBound,
                            out.baseAddress, length)
                    }
                }
            }
        }
        guard rc == 1 else { throw .crypto("scrypt key derivation failed") }
        return output
    }
}
