import ArgumentParser
import FoundationEssentials
import HealthRecord
import ImportJobs
import Library
import Store
import Synchronization

/// `hreaderd library status|update|install`: the health library of a state directory (`STATE_DIR/library/`),
/// from the command line. The library is public content: no password is needed, and a running daemon sees
/// an install at its next request (the switch is one rename).
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "The offline health library: what is installed, updates from a publisher, installing a pack folder.",
        subcommands: [Status.self, Update.self, Install.self]
    )

    static func libraryDirectory(_ global: GlobalOptions) throws -> String {
        let directory = global.stateDirectory
        try directory.checkExists()
        return directory.path + "/library"
    }

    static func describe(_ pack: InstalledPack) -> String {
        "\(pack.version) (\(pack.counts.topics) topics, \(pack.counts.vaccines) vaccines; \(pack.languages.joined(separator: ", "))), "
            + "installed \(TimeText.instant(pack.installedAt)) from \(pack.source)"
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the installed pack, and with a publisher (--library-url), the pack it offers.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var library: LibraryOptions
        @Option(name: .long, help: ArgumentHelp("Ask this publisher instead of --library-url.", valueName: "url")) var from: String?

        func run() async throws {
            let directory = try LibraryCommand.libraryDirectory(global)
            let installed: InstalledPack?
            do { installed = try Library(directory: directory).installed() } catch { throw CLIError(error.description) }
            Console.out("installed: " + (installed.map(LibraryCommand.describe) ?? "none"))
            guard let publisher = try library.publisher(url: from) else {
                Console.out("available: unknown (give --library-url and --library-public-key to ask a publisher)")
                return
            }
            let updater = LibraryUpdater(publisher: publisher, directory: directory)
            let fetcher = HTTPFetcher(timeoutSeconds: updater.timeoutSeconds, maxConnectionsPerHost: 1)
            defer { fetcher.close() }
            let offer: LibraryUpdater.Offer
            do { offer = try await updater.check(fetcher: fetcher) } catch { throw CLIError("the check of \(publisher.text) failed: \(error)") }
            let version = offer.manifest.version
            if let installed, version <= installed.version {
                Console.out("available: nothing newer (\(publisher.text) offers \(version))")
            } else {
                Console.out("available: \(version) (\(offer.manifest.database.bytes) bytes) from \(publisher.text)")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the publisher and install a newer pack: downloaded (resumed after a cut), verified, switched atomically.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var library: LibraryOptions
        @Option(name: .long, help: ArgumentHelp("The publisher to update from (else --library-url).", valueName: "url")) var from: String?

        func run() async throws {
            let directory = try LibraryCommand.libraryDirectory(global)
            guard let publisher = try library.publisher(url: from) else {
                throw CLIError("no publisher: give --from URL (or --library-url) and --library-public-key")
            }
            let updater = LibraryUpdater(publisher: publisher, directory: directory)
            let fetcher = HTTPFetcher(timeoutSeconds: updater.timeoutSeconds, maxConnectionsPerHost: 1)
            defer { fetcher.close() }
            let shown = Mutex<Int64>(-1)
            do {
                let pack = try await updater.update(fetcher: fetcher) { phase in
                    switch phase {
                    case .checking: Console.err("checking \(publisher.text)")
                    case let .downloading(done, total):
                        // A line every tenth of the way (and at the end), not one per chunk.
                        let step = max(1, (total ?? 1) / 10)
                        let print = shown.withLock { last -> Bool in
                            guard done == total || last < 0 || done - last >= step else { return false }
                            last = done
                            return true
                        }
                        if print { Console.err("downloading: \(done) of \(total.map(String.init) ?? "?") bytes") }
                    case .verifying: Console.err("verifying and installing")
                    }
                }
                Console.out("installed " + LibraryCommand.describe(pack))
            } catch {
                if case .noUpdate = error {
                    Console.out("the library is up to date: \(error)")
                    return
                }
                throw CLIError("the update failed (\(error.code)): \(error)")
            }
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install a pack folder (manifest.json, manifest.json.sig, the .gz), its signature checked against the given keys.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The pack's folder, or its manifest.json.", valueName: "pack")) var pack: String
        @Option(name: .customLong("library-public-key"), help: ArgumentHelp("A publisher's public key (PEM) to trust (repeatable).", valueName: "file"))
        var keys: [String] = []
        @Option(name: .long, help: ArgumentHelp("Trust a bundled pack by its manifest's SHA-256 instead of a signature.", valueName: "hex"))
        var bundledSha256: String?
        @Flag(name: .long, help: "Install even when the pack is not newer than the installed one.") var force = false

        func run() async throws {
            let directory = try LibraryCommand.libraryDirectory(global)
            var folder = pack.hasSuffix("/" + PackVerifier.manifestName) ? parentDirectory(of: pack) : pack
            if pack == PackVerifier.manifestName { folder = "." }
            if !folder.hasPrefix("/") { folder = StandardStreams.standardized(FileManager.default.currentDirectoryPath + "/" + folder) }
            let trust: PackTrust
            if let bundledSha256 {
                trust = .bundled(manifestSHA256: bundledSha256)
            } else {
                guard !keys.isEmpty else { throw CLIError("give --library-public-key FILE (the publisher's key), or --bundled-sha256 HEX") }
                var loaded: [PackPublicKey] = []
                for key in keys {
                    do { loaded.append(try PackPublicKey(file: key)) } catch { throw CLIError(error.description) }
                }
                trust = .signature(loaded)
            }
            let source = bundledSha256 == nil ? folder : "bundled"
            let policy: LibraryInstaller.VersionPolicy = force ? .any : .newerOnly
            let packFolder = folder
            let result: Result<InstalledPack, LibraryError> = await DetachedThread.run(named: "library-install") {
                do throws(LibraryError) {
                    return .success(try LibraryInstaller(directory: directory, trust: trust).install(folder: packFolder, source: source, policy: policy))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(let installed): Console.out("installed " + LibraryCommand.describe(installed))
            case .failure(let error): throw CLIError("the pack was not installed (\(error.code)): \(error)")
            }
        }
    }
}
