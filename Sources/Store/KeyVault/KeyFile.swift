import HealthRecord
import CLibCrypto
import FoundationEssentials

/// The on-disk key file: the store key wrapped once per slot (password, recovery key).
///
/// Layout: line 1 is compact JSON, line 2 is `sha256:<hex>` of line 1. The checksum tells a damaged file
/// (truncated, bit rot) apart from a wrong password; the GCM tag then decides the password.
struct KeyFile: Codable, Equatable {
    static let formatName = "hreaderd-key"
    static let currentVersion = 1
    /// A key file is a few hundred bytes; anything much bigger is not ours.
    static let maximumSize = 64 * 1024

    var format: String = formatName
    var version: Int = currentVersion
    var slots: [Slot]

    struct Slot: Codable, Equatable {
        enum Kind: String, Codable { case password, recovery }
        struct KDF: Codable, Equatable {
            var algorithm: String = "scrypt"
            var logN: Int
            var r: Int
            var p: Int
            var salt: String

            enum CodingKeys: String, CodingKey { case algorithm, logN = "log_n", r, p, salt }
            var parameters: ScryptParameters { ScryptParameters(logN: logN, r: r, p: p) }
        }
        var kind: Kind
        var kdf: KDF
        var cipher: String = "aes-256-gcm"
        var nonce: String
        var wrappedKey: String
        var tag: String

        enum CodingKeys: String, CodingKey { case kind, kdf, cipher, nonce, wrappedKey = "wrapped_key", tag }

        /// Associated data: the slot's kind and KDF parameters are authenticated with the wrapped key,
        /// so lowering the cost in the file, or swapping slots, breaks the tag.
        var associatedData: [UInt8] {
            Array("\(KeyFile.formatName)/\(KeyFile.currentVersion)/\(kind.rawValue)/\(kdf.algorithm)/\(kdf.logN)/\(kdf.r)/\(kdf.p)/\(cipher)".utf8)
        }
    }

    func slot(_ kind: Slot.Kind) -> Slot? { slots.first { $0.kind == kind } }

    func serialized() throws(KeyVaultError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json: [UInt8]
        do { json = Array(try encoder.encode(self)) } catch { throw .crypto("cannot encode the key file") }
        return json + Array("\nsha256:\(Self.sha256Hex(json))\n".utf8)
    }

    static func parse(_ bytes: [UInt8], path: String) throws(KeyVaultError) -> KeyFile {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            throw .keyFileDamaged(path: path, reason: bytes.isEmpty ? "it is empty" : "it is truncated")
        }
        let json = Array(bytes[..<newline])
        var rest = bytes[(newline + 1)...]
        if rest.last == UInt8(ascii: "\n") { rest = rest.dropLast() }
        let checksumLine = String(decoding: rest, as: UTF8.self)
        guard checksumLine.hasPrefix("sha256:") else { throw .keyFileDamaged(path: path, reason: "it is truncated") }
        guard checksumLine == "sha256:\(sha256Hex(json))" else {
            throw .keyFileDamaged(path: path, reason: "its checksum does not match")
        }
        struct Header: Decodable { var format: String; var version: Int }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: Data(json)), header.format == formatName else {
            throw .keyFileDamaged(path: path, reason: "it is not an hreaderd key file")
        }
        guard header.version == currentVersion else { throw .unsupportedVersion(path: path, version: header.version) }
        guard let file = try? decoder.decode(KeyFile.self, from: Data(json)) else {
            throw .keyFileDamaged(path: path, reason: "fields are missing or malformed")
        }
        for slot in file.slots {
            guard slot.kdf.algorithm == "scrypt", slot.cipher == "aes-256-gcm", slot.kdf.parameters.isWithinBounds else {
                throw .keyFileDamaged(path: path, reason: "unknown or out-of-range key derivation parameters")
            }
        }
        guard file.slot(.password) != nil else { throw .keyFileDamaged(path: path, reason: "it holds no password slot") }
        return file
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { StableID.hex(Digests.sha256(bytes)) }
}
