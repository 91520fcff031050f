import HealthRecord
import Glibc

/// Installs verified packs into a library folder (`STATE_DIR/library/`), atomically: until the new pack is
/// verified and in place, the old one serves, and after any failure (a bad pack, a full disk, a crash) the
/// old one still does.
///
/// The folder holds `current.json` (the pointer), the databases it may name (`pack-VERSION-HASH.sqlite`),
/// and while an install runs, `.install.lock` and a temporary `.incoming-*.sqlite`. An install:
///
/// 1. takes `.install.lock` (one install at a time, across processes; a second one gets `installInProgress`);
/// 2. checks the signed manifest's version is newer than the installed one (unless `VersionPolicy.any`);
/// 3. verifies the pack (`PackVerifier`), inflating its database into `.incoming-*.sqlite` in the same folder
///    (same file system: the rename below is atomic), fsynced;
/// 4. renames the database to `pack-VERSION-HASH.sqlite` and fsyncs the folder;
/// 5. writes the new pointer to a temporary file, fsyncs it, renames it over `current.json` and fsyncs the
///    folder: the switch, one rename;
/// 6. removes the databases `current.json` no longer names. POSIX keeps a removed file readable for
///    whoever still holds it open, so a reader opened before the switch finishes its work on the old pack,
///    and nothing opens it again: `Library` opens the file `current.json` names.
///
/// A failure before step 5 removes what the install wrote and leaves `current.json` as it was.
public struct LibraryInstaller: Sendable {
    public enum VersionPolicy: Sendable {
        /// Refuse a pack whose version is not newer than the installed one (`LibraryError.notNewer`).
        case newerOnly
        /// Install whatever version (a repair, a deliberate downgrade).
        case any
    }

    /// The points an install passes, for tests that make one fail there (a full disk during the switch).
    enum Step: Sendable {
        case verified, packInPlace, pointerWritten, switched
    }

    public let directory: String
    public var verifier: PackVerifier
    /// Called at each step; a test throws from it to simulate a failure at that point.
    var faultInjection: (@Sendable (Step) throws(LibraryError) -> Void)?
    /// The clock for `installedAt`.
    var now: @Sendable () -> Int64 = { Int64(time(nil)) }

    public init(directory: String, trust: PackTrust) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.verifier = PackVerifier(trust: trust)
    }

    /// Verifies the pack in `folder` and, when it passes, makes it the library's current pack.
    /// - Parameters:
    ///   - source: what `installed` will say it came from: `bundled`, the URL it was downloaded from, a path.
    /// - Returns: the pack now installed.
    @discardableResult
    public func install(folder: String, source: String, policy: VersionPolicy = .newerOnly) throws(LibraryError) -> InstalledPack {
        try PackFiles.makeDirectory(directory)
        let lock = try takeLock()
        defer { close(lock) }
        removeLeftovers()
        // The version first, from the signed manifest alone: an old pack is refused before it is inflated.
        if policy == .newerOnly, let current = try CurrentPointer.read(directory: directory) {
            let offered = try verifier.checkManifest(folder: folder).manifest.version
            guard offered > current.version else { throw .notNewer(installed: current.version.text, offered: offered.text) }
        }
        let incoming = directory + "/.incoming-\(PackFiles.uniqueSuffix()).sqlite"
        let verified = try verifier.verify(folder: folder, into: incoming)
        var placed: String?
        do throws(LibraryError) {
            try faultInjection?(.verified)
            let manifest = verified.manifest
            let current = try CurrentPointer.read(directory: directory)
            let file = "pack-\(manifest.version.text)-\(manifest.database.sha256.prefix(12)).sqlite"
            if file == current?.file {
                unlink(incoming)  // the same database is in place already
            } else {
                try PackFiles.rename(incoming, to: directory + "/" + file)
                placed = directory + "/" + file
            }
            try PackFiles.syncDirectory(directory)
            try faultInjection?(.packInPlace)
            let pack = InstalledPack(version: manifest.version, publisher: manifest.publisher, created: manifest.created, installedAt: now(),
                                     source: source, counts: manifest.counts, languages: manifest.languages, file: file,
                                     sha256: manifest.database.sha256)
            let pointer = directory + "/" + CurrentPointer.name
            let temporary = pointer + ".tmp-\(PackFiles.uniqueSuffix())"
            try PackFiles.create(temporary, CurrentPointer.serialized(pack, manifestSHA256: verified.manifestSHA256))
            do throws(LibraryError) {
                try faultInjection?(.pointerWritten)
                try PackFiles.rename(temporary, to: pointer)
            } catch {
                unlink(temporary)
                throw error
            }
            placed = nil  // from here on, current.json names it
            // The switch is made; a failure to make it durable is reported, and the next install repeats it.
            try PackFiles.syncDirectory(directory)
            try faultInjection?(.switched)
            removeUnused(keeping: file)
            return pack
        } catch {
            unlink(incoming)
            if let placed { unlink(placed) }
            throw error
        }
    }

    /// The pack `current.json` names, or nil.
    public func installed() throws(LibraryError) -> InstalledPack? {
        try CurrentPointer.read(directory: directory)
    }

    private func takeLock() throws(LibraryError) -> Int32 {
        let path = directory + "/.install.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system("open", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            throw code == EWOULDBLOCK ? .installInProgress : .system("lock", path, code)
        }
        return fd
    }

    /// Temporary files of an install that died (the lock is ours: no install is running).
    private func removeLeftovers() {
        for name in PackFiles.names(in: directory) where name.hasPrefix(".incoming-") || name.hasPrefix(CurrentPointer.name + ".tmp-") {
            unlink(directory + "/" + name)
        }
    }

    /// Every installed database but `file`.
    private func removeUnused(keeping file: String) {
        for name in PackFiles.names(in: directory) where name.hasPrefix("pack-") && name.hasSuffix(".sqlite") && name != file {
            unlink(directory + "/" + name)
        }
    }
}
