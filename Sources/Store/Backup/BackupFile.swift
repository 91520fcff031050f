import HealthRecord
import CLibCrypto
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One backup file: the store's wrapped key and its encrypted database, with a SHA-256 over both, so a
/// backup is one file that opens on another machine with the password or the recovery key, and nothing in
/// it is readable without them (the database pages are SQLCipher's, the key is wrapped).
///
/// Layout (integers little-endian): `HRDBAK01` · created at (Int64) · key file length (UInt32) · key file ·
/// database length (UInt64) · database · SHA-256 of everything before it.
public enum BackupFile {
    static let magic = Array("HRDBAK01".utf8)
    /// A key file is a few hundred bytes; anything larger is not one.
    static let maximumKeyFileBytes = 64 * 1024
    static let chunkBytes = 1 << 20

    public struct Info: Sendable, Equatable {
        public var createdAt: Int64
        public var databaseBytes: Int64
        public var fileBytes: Int64
    }

    /// Writes a backup from the key file's bytes and a database file, to `path` through a temporary file
    /// that is synced and renamed: an interrupted backup never leaves a file that looks complete.
    static func write(keyFile: [UInt8], database: String, createdAt: Int64, to path: String) throws(StoreError) -> Info {
        let temporary = path + ".partial-\(getpid())"
        unlink(temporary)
        let out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw .io("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var closed = false
        defer {
            if !closed { close(out) }
        }
        do {
            let input = open(database, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw StoreError.io("cannot read \(database): \(String(cString: strerror(errno)))") }
            defer { close(input) }
            var info = stat()
            guard fstat(input, &info) == 0 else { throw StoreError.io("cannot stat \(database)") }
            var digest = Digest()
            var written: Int64 = 0
            func put(_ bytes: [UInt8]) throws(StoreError) {
                digest.update(bytes)
                try writeAll(out, bytes, path: temporary)
                written += Int64(bytes.count)
            }
            try put(magic + le(UInt64(bitPattern: createdAt)) + le32(UInt32(keyFile.count)) + keyFile + le(UInt64(info.st_size)))
            var buffer = [UInt8](repeating: 0, count: chunkBytes)
            var remaining = Int64(info.st_size)
            while remaining > 0 {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, min($0.count, Int(remaining))) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw StoreError.io("\(database) ended early while being backed up") }
                try put(Array(buffer[0..<n]))
                remaining -= Int64(n)
            }
            let sum = digest.finish()
            try writeAll(out, sum, path: temporary)
            written += Int64(sum.count)
            guard fsync(out) == 0 else { throw StoreError.io("cannot sync \(temporary): \(String(cString: strerror(errno)))") }
            close(out)
            closed = true
            guard rename(temporary, path) == 0 else { throw StoreError.io("cannot rename the backup to \(path): \(String(cString: strerror(errno)))") }
            do { try FileSystem.syncDirectory(containing: path) } catch { throw StoreError.io(error.description) }
            return Info(createdAt: createdAt, databaseBytes: Int64(info.st_size), fileBytes: written)
        } catch {
            unlink(temporary)
            throw StoreError.wrap(error)
        }
    }

    /// Checks a backup whole: its layout, its lengths and its SHA-256. Returns what it holds, or why not.
    public static func verify(_ path: String) throws(StoreError) -> Info {
        try read(path, keyFileTo: nil, databaseTo: nil)
    }

    /// Reads a backup, checking it, and writes its key file and database where asked (nil: not written).
    static func read(_ path: String, keyFileTo keyPath: String?, databaseTo databasePath: String?) throws(StoreError) -> Info {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw .io("cannot stat \(path)") }
        let size = Int64(info.st_size)
        func bad(_ reason: String) -> StoreError { .invalidInput("\(path) is not a whole hreaderd backup: \(reason)") }
        var digest = Digest()
        func take(_ count: Int) throws(StoreError) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress! + got, count - got) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw bad("it ends early") }
                got += n
            }
            return bytes
        }
        let head = try take(magic.count + 8 + 4)
        guard Array(head[0..<magic.count]) == magic else { throw bad("it does not start as one") }
        let createdAt = Int64(bitPattern: UInt64(le: head[magic.count..<(magic.count + 8)]))
        let keyLength = Int(UInt32(le: head[(magic.count + 8)...]))
        guard keyLength > 0, keyLength <= maximumKeyFileBytes else { throw bad("its key file length is wrong") }
        digest.update(head)
        let keyFile = try take(keyLength)
        digest.update(keyFile)
        let lengthBytes = try take(8)
        digest.update(lengthBytes)
        let databaseLength = Int64(bitPattern: UInt64(le: lengthBytes[...]))
        let headerBytes = Int64(head.count + keyLength + 8)
        guard databaseLength >= 0, headerBytes + databaseLength + 32 == size else { throw bad("its length does not add up") }
        var output: Int32 = -1
        if let databasePath {
            unlink(databasePath)
            output = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard output >= 0 else { throw .io("cannot create \(databasePath): \(String(cString: strerror(errno)))") }
        }
        defer { if output >= 0 { close(output) } }
        var remaining = databaseLength
        while remaining > 0 {
            let chunk = try take(Int(min(remaining, Int64(chunkBytes))))
            digest.update(chunk)
            if output >= 0 { try writeAll(output, chunk, path: databasePath ?? "") }
            remaining -= Int64(chunk.count)
        }
        let sum = try take(32)
        guard sum == digest.finish() else { throw bad("its checksum does not match (it was changed or damaged)") }
        if output >= 0, fsync(output) != 0 { throw .io("cannot sync \(databasePath ?? "")") }
        if let keyPath {
            do { try FileSystem.writeAtomically(keyFile, to: keyPath, replace: true) } catch { throw .io(error.description) }
        }
        return Info(createdAt: createdAt, databaseBytes: databaseLength, fileBytes: size)
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        do { try FileSystem.writeAll(fd, bytes, path: path) } catch { throw .io(error.description) }
    }

    static func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// SHA-256 over bytes given in pieces (libcrypto's EVP interface).
    struct Digest {
        private let context: OpaquePointer?

        init() {
            context = EVP_MD_CTX_new()
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }

        mutating func update(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }

        func finish() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &out, &length)
            EVP_MD_CTX_free(context)
            return out
        }
    }
}

extension UInt64 {
    init(le bytes: ArraySlice<UInt8>) {
        self = bytes.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}

extension UInt32 {
    init(le bytes: ArraySlice<UInt8>) {
        self = bytes.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
}
