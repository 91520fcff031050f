import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HealthRecord
import ImportJobs
import Library

/// Why a check or an update of the library failed: the publisher (unreachable, slow, an error status, a cut
/// download) or the pack (`LibraryError`: a signature, a hash, a format…). One sentence, and a stable code for
/// `/library.json`.
enum LibraryUpdateError: Error, Sendable, Equatable, CustomStringConvertible {
    case publisher(SyncError)
    case pack(LibraryError)
    /// The publisher offers nothing newer than what is installed.
    case noUpdate(installed: String, offered: String)

    var code: String {
        switch self {
        case .pack(let error): return error.code
        case .noUpdate: return "no_update"
        case .publisher(let error):
            switch error {
            case .network: return "publisher_unreachable"
            case .timedOut, .stalled: return "publisher_timeout"
            case .truncated: return "download_cut"
            case .file: return "download_not_written"
            case .stopped: return "stopped"
            default: return "publisher_error"
            }
        }
    }

    var description: String {
        switch self {
        case .pack(let error): return error.description
        case let .noUpdate(installed, offered):
            return "The publisher offers version \(offered), not newer than the installed \(installed): nothing to install."
        case .publisher(let error):
            let text = error.description
            let sentence = (text.first.map { $0.uppercased() + text.dropFirst() } ?? text) + "."
            switch error {
            case .truncated: return sentence + " The part received is kept: the next update resumes after it. The installed pack stays."
            default: return sentence + " The installed pack stays."
            }
        }
    }
}

/// The library's updates from a publisher, without a schedule: `check` reads the publisher's signed manifest,
/// `update` checks and then downloads, verifies and installs a newer pack. The daemon's service runs them on
/// its schedule and when asked; `hreaderd library` runs them once.
///
/// The `.gz` is downloaded into `LIBRARY/download/` beside the manifest and signature it was offered with.
/// After a cut, the part received stays there with that manifest (its size and hash): the next update of
/// the same pack resumes with `Range`; an update to another pack starts over. The installer verifies the
/// folder and switches atomically (`LibraryInstaller`); until then, and after any failure, the installed pack
/// serves.
struct LibraryUpdater: Sendable {
    /// A pack the publisher offers, its manifest signed by a trusted key.
    struct Offer: Sendable, Equatable {
        var manifest: PackManifest
        var manifestBytes: [UInt8]
        var signatureBytes: [UInt8]
        /// The fingerprint of the key that signed it.
        var signedBy: String
    }

    /// What an update is doing, for its progress.
    enum Phase: Sendable, Equatable {
        case checking
        case downloading(done: Int64, total: Int64?)
        case verifying
    }

    let publisher: LibraryPublisher
    /// `STATE_DIR/library`.
    let directory: String
    /// How long the manifest and signature may take; a download may stall for as long.
    var timeoutSeconds: Double = 30
    /// Attempts of one download within an update (each resuming after the last), for cut connections.
    var downloadAttempts = 3
    var pauseBetweenAttempts: Duration = .seconds(1)
    /// A pack's `.gz` larger than this is refused before it is fetched (the starter pack's is about 2 MB).
    static let maxPackBytes: Int64 = 256 << 20

    var downloadDirectory: String { directory + "/download" }

    // MARK: Check

    /// The publisher's manifest and signature, the signature verified under a trusted key and the manifest
    /// read (a pack of a newer format is refused here).
    func check(fetcher: HTTPFetcher) async throws(LibraryUpdateError) -> Offer {
        let manifestBytes = try await fetch(PackVerifier.manifestName, limit: PackManifest.maxBytes, fetcher: fetcher)
        let signatureBytes = try await fetch(PackVerifier.signatureName, limit: PackSignature.maxBytes, fetcher: fetcher)
        do throws(LibraryError) {
            let key = try PackSignature.verify(try PackSignature.decode(signatureBytes), of: manifestBytes, trustedKeys: publisher.keys)
            let manifest = try PackManifest.parse(manifestBytes)
            guard manifest.database.bytes <= Self.maxPackBytes else {
                throw .fileTooLarge(path: publisher.file(manifest.database.file).absoluteString, limit: Int(Self.maxPackBytes))
            }
            return Offer(manifest: manifest, manifestBytes: manifestBytes, signatureBytes: signatureBytes, signedBy: key.fingerprint)
        } catch {
            throw .pack(error)
        }
    }

    private func fetch(_ name: String, limit: Int, fetcher: HTTPFetcher) async throws(LibraryUpdateError) -> [UInt8] {
        let url = publisher.file(name)
        do throws(SyncError) {
            let answer = try await fetcher.fetch(HTTPRequest(url: url), limit: limit)
            guard answer.status == 200 else { throw SyncError.status(url: HTTPFetcher.display(url), code: answer.status) }
            return answer.body
        } catch {
            throw .publisher(error)
        }
    }

    // MARK: Update

    /// Checks the publisher again, and when it offers a pack newer than the installed one, downloads it
    /// (resuming a part kept from before), verifies it and switches to it. `report` hears each phase and the
    /// download's progress (from the transfer's thread).
    func update(fetcher: HTTPFetcher, report: @escaping @Sendable (Phase) -> Void = { _ in }) async throws(LibraryUpdateError) -> InstalledPack {
        report(.checking)
        let offer = try await check(fetcher: fetcher)
        let installed: InstalledPack?
        do { installed = try Library(directory: directory).installed() } catch { throw .pack(error) }
        if let installed, offer.manifest.version <= installed.version {
            throw .noUpdate(installed: installed.version.text, offered: offer.manifest.version.text)
        }
        let gzPath = try prepareDownload(offer)
        let bytes = offer.manifest.database.bytes
        report(.downloading(done: PackFilesLite.size(gzPath) ?? 0, total: bytes))
        try await download(offer, to: gzPath, fetcher: fetcher, report: report)
        report(.verifying)
        let folder = downloadDirectory, directory = self.directory, keys = publisher.keys, source = publisher.text
        let result: Result<InstalledPack, LibraryError> = await DetachedThread.run(named: "library-install") {
            do throws(LibraryError) {
                return .success(try LibraryInstaller(directory: directory, trust: .signature(keys)).install(folder: folder, source: source))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let pack):
            clearDownloads()
            return pack
        case .failure(let error):
            // A file that is not the signed one is no start for a resumed download: the next update fetches it anew.
            switch error {
            case .databaseSizeMismatch, .gzipHashMismatch, .gzipCorrupt, .databaseHashMismatch, .databaseUnreadable, .unexpectedSchema,
                 .infoMismatch, .databaseTooLarge:
                unlink(gzPath)
            default: break
            }
            throw .pack(error)
        }
    }

    /// `download/` with the offer's manifest and signature; a part of the same `.gz` kept there from before
    /// stays (to resume), anything else goes. Returns the `.gz` file's path.
    private func prepareDownload(_ offer: Offer) throws(LibraryUpdateError) -> String {
        let folder = downloadDirectory
        let database = offer.manifest.database
        let kept = (try? PackFilesLite.read(folder + "/" + PackVerifier.manifestName, limit: PackManifest.maxBytes)).flatMap { try? PackManifest.parse($0) }
        do {
            if PackFilesLite.exists(folder), kept?.database != database {
                for name in PackFilesLite.names(in: folder) { unlink(folder + "/" + name) }
            }
            try PackFilesLite.makeDirectory(folder)
            try PackFilesLite.replace(folder + "/" + PackVerifier.manifestName, with: offer.manifestBytes)
            try PackFilesLite.replace(folder + "/" + PackVerifier.signatureName, with: offer.signatureBytes)
        } catch {
            throw .publisher(error)
        }
        let gzPath = folder + "/" + database.file
        if let size = PackFilesLite.size(gzPath), size > database.bytes { unlink(gzPath) }
        return gzPath
    }

    private func download(_ offer: Offer, to path: String, fetcher: HTTPFetcher,
                          report: @escaping @Sendable (Phase) -> Void) async throws(LibraryUpdateError) {
        let bytes = offer.manifest.database.bytes
        var request = HTTPDownload(url: publisher.file(offer.manifest.database.file), path: path, limit: bytes)
        request.stallSeconds = timeoutSeconds
        var attempt = 0
        while PackFilesLite.size(path) != bytes {
            attempt += 1
            do {
                _ = try await fetcher.download(request) { done, _ in report(.downloading(done: done, total: bytes)) }
            } catch {
                switch error {
                case .status(_, 416):
                    unlink(path)  // the part kept is not a start of the publisher's file
                case .truncated, .network:
                    break
                default:
                    throw .publisher(error)
                }
                guard attempt < downloadAttempts, !Task.isCancelled else { throw .publisher(error) }
                try? await Task.sleep(for: pauseBetweenAttempts)
                continue
            }
            // A whole answer of another size than the signed one: the installer says so (database_size_mismatch).
            break
        }
    }

    /// Removes what `download/` holds.
    func clearDownloads() {
        for name in PackFilesLite.names(in: downloadDirectory) { unlink(downloadDirectory + "/" + name) }
        rmdir(downloadDirectory)
    }
}

/// The few file calls the updater makes (the library's own `PackFiles` is internal to it).
enum PackFilesLite {
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func exists(_ path: String) -> Bool { size(path) != nil }

    static func read(_ path: String, limit: Int) throws -> [UInt8] {
        guard let size = size(path), size <= limit else { throw SyncError.file(path: path, reason: "missing or too large") }
        guard let data = FileManager.default.contents(atPath: path) else { throw SyncError.file(path: path, reason: "unreadable") }
        return [UInt8](data)
    }

    static func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func makeDirectory(_ path: String) throws(SyncError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file(path: path, reason: "\(error)")
        }
    }

    /// Writes `bytes` to a temporary file beside `path`, fsyncs it and renames it over `path`.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SyncError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .file(path: temporary, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(n < 0 ? errno : EIO))
                close(fd)
                unlink(temporary)
                throw .file(path: temporary, reason: reason)
            }
            written += n
        }
        guard fsync(fd) == 0, close(fd) == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .file(path: path, reason: reason)
        }
    }
}
