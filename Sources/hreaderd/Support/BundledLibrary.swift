import FoundationEssentials
import HealthRecord
import Library

/// The library pack that comes with the program (`scripts/build-library-pack.sh`; `make install` puts it in
/// `PREFIX/share/hreaderd/library/default`), trusted by the SHA-256 of its manifest recorded beside it
/// (`manifest.json.sha256`, `PackTrust.bundled`; docs/library-pack.md, "Whom a pack is trusted from").
struct BundledLibrary: Sendable {
    let folder: String
    let manifestSHA256: String

    /// The pack in `folder`, or a one-line error when it is not one (no manifest, no recorded hash).
    init(folder: String) throws(CLIError) {
        let hashFile = folder + "/manifest.json.sha256"
        guard FileManager.default.fileExists(atPath: folder + "/manifest.json"),
              let data = FileManager.default.contents(atPath: hashFile) else {
            throw CLIError("\(folder) is not a bundled library pack (it needs manifest.json and manifest.json.sha256)")
        }
        self.folder = folder
        self.manifestSHA256 = String(decoding: data, as: UTF8.self).trimmedWhitespace.lowercased()
    }

    /// `--bundled-library`, else `$HREADERD_BUNDLED_LIBRARY`, else beside the binary: an installed one
    /// (`PREFIX/share/hreaderd/library/default`) or the build tree's (`.build/library/default`), as the web
    /// app's files are found. nil when there is none, or when the option or variable says `none`.
    static func locate(option: String?, environment: [String: String]) throws(CLIError) -> BundledLibrary? {
        for given in [option, environment["HREADERD_BUNDLED_LIBRARY"]] {
            guard let given, !given.isEmpty else { continue }
            return given == "none" ? nil : try BundledLibrary(folder: given)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binDirectory = parentDirectory(of: executable)
        let candidates = [
            binDirectory + "/../share/hreaderd/library/default",   // make install
            binDirectory + "/../library/default",                   // .build/debug/hreaderd, .build/release/hreaderd
            binDirectory + "/../../library/default",                // .build/release/dist/hreaderd, .build/<triple>/debug/hreaderd
            FileManager.default.currentDirectoryPath + "/.build/library/default",
        ]
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate + "/manifest.json.sha256") {
            return try? BundledLibrary(folder: StandardStreams.standardized(candidate))
        }
        return nil
    }

    /// The bundled pack's version, from its manifest (checked against the recorded hash).
    func version() throws(LibraryError) -> PackVersion {
        try PackVerifier(trust: .bundled(manifestSHA256: manifestSHA256)).checkManifest(folder: folder).manifest.version
    }

    /// Installs the bundled pack into the library folder when that has none, or an older one; nil when the
    /// installed pack is as new or newer (then nothing is touched). Blocks: call it on a thread of its own.
    func installIfNewer(into directory: String) throws(LibraryError) -> InstalledPack? {
        let offered = try version()
        if let installed = try Library(directory: directory).installed(), installed.version >= offered { return nil }
        return try LibraryInstaller(directory: directory, trust: .bundled(manifestSHA256: manifestSHA256)).install(folder: folder, source: "bundled")
    }
}
