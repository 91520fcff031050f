import HealthRecord
import Store
import Glibc

/// Whom a pack must come from.
public enum PackTrust: Sendable {
    /// Signed (`manifest.json.sig`) by one of these publisher keys: every pack that is downloaded.
    case signature([PackPublicKey])
    /// The pack installed with the program (`scripts/build-library-pack.sh`): trusted because it comes with
    /// the program, and accepted by the SHA-256 (hex) of its `manifest.json` recorded when it was built,
    /// whatever key signed it. The manifest carries the database's hashes, so this pins the whole pack.
    case bundled(manifestSHA256: String)
}

/// A pack that passed every check, its database inflated and checked at `databasePath`.
public struct VerifiedPack: Sendable {
    public var manifest: PackManifest
    /// SHA-256 (hex) of `manifest.json`.
    public var manifestSHA256: String
    /// The fingerprint of the key that signed it, or `bundled`.
    public var trustedBy: String
    /// The decompressed database: a temporary file the caller moves or removes.
    public var databasePath: String
}

/// Checks a pack's folder (`manifest.json`, `manifest.json.sig`, the database's `.gz`), in this order, and
/// stops at the first failure with a `LibraryError`: the signature verifies under a trusted key (or the
/// bundled pack's manifest has its recorded hash); the manifest is well formed and of a format this
/// hreaderd reads; the `.gz` file has the manifest's size and SHA-256 (checked before it is inflated); the
/// inflated database has the manifest's SHA-256 (and inflates to at most `maxDatabaseBytes`); the database opens, passes SQLite's quick check, has exactly the schema of
/// `PackSchema` (an extra table is refused), and its `info` and row counts agree with the manifest.
public struct PackVerifier: Sendable {
    public var trust: PackTrust
    /// A database inflating to more than this is refused (the starter pack's is about 8 MB).
    public var maxDatabaseBytes: Int64

    public init(trust: PackTrust, maxDatabaseBytes: Int64 = 512 << 20) {
        self.trust = trust
        self.maxDatabaseBytes = maxDatabaseBytes
    }

    public static let manifestName = "manifest.json"
    public static let signatureName = "manifest.json.sig"

    /// Checks the manifest and its signature only (no database): what `verify` does first.
    public func checkManifest(folder: String) throws(LibraryError) -> (manifest: PackManifest, bytes: [UInt8], trustedBy: String) {
        let bytes = try PackFiles.read(folder + "/" + Self.manifestName, limit: PackManifest.maxBytes)
        let trustedBy: String
        switch trust {
        case let .signature(keys):
            let signature = try PackSignature.decode(PackFiles.read(folder + "/" + Self.signatureName, limit: PackSignature.maxBytes))
            trustedBy = try PackSignature.verify(signature, of: bytes, trustedKeys: keys).fingerprint
        case let .bundled(expected):
            guard StreamingSHA256.hex(bytes) == expected.lowercased() else { throw .bundledPackMismatch }
            trustedBy = "bundled"
        }
        return (try PackManifest.parse(bytes), bytes, trustedBy)
    }

    /// Checks the pack in `folder`, inflating its database to `databasePath`, a new file (the folder it is
    /// in must exist). On failure the file is removed and the error thrown.
    public func verify(folder: String, into databasePath: String) throws(LibraryError) -> VerifiedPack {
        let (manifest, bytes, trustedBy) = try checkManifest(folder: folder)
        let gzPath = folder + "/" + manifest.database.file
        guard let size = PackFiles.size(gzPath) else { throw .fileMissing(path: gzPath) }
        guard size == manifest.database.bytes else { throw .databaseSizeMismatch(expected: manifest.database.bytes, found: size) }
        // The .gz is authenticated (its hash is in the signed manifest) before zlib reads a byte of it.
        guard try Self.sha256(of: gzPath) == manifest.database.gzSHA256 else { throw .gzipHashMismatch }
        let fd = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system("create", databasePath) }
        do throws(LibraryError) {
            let inflated: Gzip.Inflated
            do throws(LibraryError) {
                inflated = try Gzip.inflate(gzPath, into: fd, targetPath: databasePath, limit: maxDatabaseBytes)
                guard fsync(fd) == 0 else { throw LibraryError.system("fsync", databasePath) }
            } catch {
                close(fd)
                throw error
            }
            guard close(fd) == 0 else { throw LibraryError.system("close", databasePath) }
            guard inflated.gzSHA256 == manifest.database.gzSHA256 else { throw LibraryError.gzipHashMismatch }
            guard inflated.sha256 == manifest.database.sha256 else { throw LibraryError.databaseHashMismatch }
            try Self.checkDatabase(at: databasePath, against: manifest)
        } catch {
            unlink(databasePath)
            throw error
        }
        return VerifiedPack(manifest: manifest, manifestSHA256: StreamingSHA256.hex(bytes), trustedBy: trustedBy, databasePath: databasePath)
    }

    /// SHA-256 (hex) of a file, read in 64 KiB pieces.
    static func sha256(of path: String) throws(LibraryError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("open", path) }
        defer { close(fd) }
        var hasher = StreamingSHA256()
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Gzip.chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, Gzip.chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("read", path)
            }
            if n == 0 { return hasher.finishHex() }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }

    /// The database's own checks: it opens, passes `quick_check`, has exactly `PackSchema`'s objects, and its
    /// `info` and row counts are the manifest's.
    static func checkDatabase(at path: String, against manifest: PackManifest) throws(LibraryError) {
        let db: Database
        // The library's small page cache: quick_check reads every page, and with the store's 16 MiB cache a
        // daemon that installed a pack kept the whole database's worth of freed heap (6.7 MiB) resident.
        var configuration = Database.Configuration()
        configuration.cacheSizeKiB = Library.cacheSizeKiB
        do { db = try Database(path: path, key: nil, mode: .readOnly, configuration: configuration) } catch {
            throw .databaseUnreadable(reason: error.message)
        }
        do {
            let check = try db.scalar("PRAGMA quick_check", as: String.self) ?? ""
            guard check == "ok" else { throw LibraryError.databaseUnreadable(reason: "SQLite's check says: \(check.prefix(200))") }
            let version = try db.scalar("PRAGMA user_version", as: Int.self) ?? 0
            guard version == PackSchema.format else {
                throw LibraryError.unexpectedSchema(reason: "its user_version is \(version), not format \(PackSchema.format)")
            }
            let expected = try PackSchema.expectedObjects.get()
            let found = try PackSchema.objects(in: db)
            if found != expected {
                let extra = Set(found).subtracting(expected).map(\.description).sorted()
                let missing = Set(expected).subtracting(found).map(\.description).sorted()
                var parts: [String] = []
                if !extra.isEmpty { parts.append("unexpected or changed: \(extra.joined(separator: ", "))") }
                if !missing.isEmpty { parts.append("missing: \(missing.joined(separator: ", "))") }
                throw LibraryError.unexpectedSchema(reason: parts.joined(separator: "; "))
            }
            var info: [String: String] = [:]
            try db.statement("SELECT key, value FROM info").forEach { info[$0.string(0)] = $0.string(1) }
            let values = manifest.infoValues
            for (key, value) in values where info[key] != value {
                throw LibraryError.infoMismatch(key: key, manifest: value, database: info[key] ?? "(absent)")
            }
            if let extraKey = info.keys.sorted().first(where: { key in !values.contains { $0.key == key } }) {
                throw LibraryError.unexpectedSchema(reason: "info holds an unknown key \(extraKey.prefix(40))")
            }
            let counts: [(String, String, Int)] = [("counts.topics", "topics", manifest.counts.topics),
                                                   ("counts.vaccines", "vaccines", manifest.counts.vaccines),
                                                   ("counts.codes", "code_topics", manifest.counts.codes),
                                                   ("counts.strings", "strings", manifest.counts.strings)]
            for (key, table, count) in counts {
                let rows = try db.scalar("SELECT count(*) FROM \(table)", as: Int.self) ?? 0
                guard rows == count else { throw LibraryError.infoMismatch(key: key, manifest: "\(count)", database: "\(rows) rows") }
            }
        } catch let error as LibraryError {
            throw error
        } catch let error as DatabaseError {
            throw .databaseUnreadable(reason: error.message)
        } catch {
            throw .databaseUnreadable(reason: "\(error)")
        }
    }
}
