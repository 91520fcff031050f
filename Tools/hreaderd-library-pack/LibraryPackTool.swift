// hreaderd-library-pack: makes and checks the offline health library's content packs.
//   keygen  --output FILE                   a publisher's Ed25519 key pair: FILE (private, 0600), FILE.pub
//   build   --content DIR --key FILE --version V --output DIR [--codes DIR] [--strings DIR] [--created T]
//   verify  DIR --public-key FILE …         checks a pack; prints its summary
//   install DIR --library DIR (--public-key FILE … | --bundled-sha256 HEX) [--source S] [--any-version]
// The pack's format: docs/library-pack.md. On an error: one line on stderr, exit status 1.
import ArgumentParser
import Foundation
import Library
import LibraryPackBuilder

@main
struct LibraryPackTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hreaderd-library-pack",
        abstract: "Make and check hreaderd's library content packs.",
        subcommands: [Keygen.self, Build.self, Verify.self, Install.self]
    )
}

/// Prints one line on stderr and exits 1: a tool failure is one clear sentence.
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("hreaderd-library-pack: \(error)\n".utf8))
    Foundation.exit(1)
}

func seconds(since start: ContinuousClock.Instant) -> String {
    let duration = ContinuousClock.now - start
    let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return String(format: "%.0f ms", ms)
}

func trustedKeys(_ paths: [String]) -> [PackPublicKey] {
    var keys: [PackPublicKey] = []
    for path in paths {
        do { keys.append(try PackPublicKey(file: path)) } catch { fail(error) }
    }
    return keys
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make a publisher's Ed25519 key pair (PEM).")

    @Option(help: "The private key's file (mode 0600); the public key goes to FILE.pub.")
    var output: String

    func run() {
        guard !FileManager.default.fileExists(atPath: output) else { fail(BuildError("\(output) exists: not overwritten")) }
        do {
            let key = try PackPrivateKey.generate()
            let fd = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw BuildError("cannot create \(output): \(String(cString: strerror(errno)))") }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try handle.write(contentsOf: key.pem)
            try handle.synchronize()
            let publicKey = try key.publicKey
            try Data(publicKey.pem).write(to: URL(fileURLWithPath: output + ".pub"))
            print("private key: \(output) (mode 0600)")
            print("public key:  \(output).pub (fingerprint \(publicKey.fingerprint))")
        } catch { fail(error) }
    }
}

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Build a signed pack from the content's files.")

    @Option(help: "The content: medlineplus-topics.jsonl, cvx-vaccines.jsonl, crosswalk-cvx-medlineplus.tsv (each may be NAME.gz).")
    var content: String
    @Option(help: "The reviewed code tables (snomed-ct.tsv, icd-10-cm.tsv, loinc.tsv, rxnorm.tsv).")
    var codes: String?
    @Option(help: "The string tables (en.tsv, fr.tsv, …).")
    var strings: String?
    @Option(help: "The publisher's private key (PEM).")
    var key: String
    @Option(help: "The pack's version: numbers separated by dots (2025.10.1).")
    var version: String
    @Option(help: "The publisher's name in the manifest.")
    var publisher = "hreaderd project"
    @Option(help: "The manifest's creation time (RFC 3339); default: SOURCE_DATE_EPOCH, else now.")
    var created: String?
    @Option(help: "The folder to write the pack into.")
    var output: String

    func validate() throws {
        guard PackVersion(version) != nil else { throw ValidationError("--version must be numbers separated by dots, such as 2025.10.1") }
        if let created, Timestamp.parse(created) == nil { throw ValidationError("--created must be an RFC 3339 time, such as 2025-10-31T00:00:00Z") }
    }

    func run() {
        let start = ContinuousClock.now
        do {
            let time: Int64
            if let created, let parsed = Timestamp.parse(created) {
                time = parsed
            } else if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let value = Int64(epoch) {
                time = value
            } else {
                time = Int64(Date().timeIntervalSince1970)
            }
            let builder = PackBuilder(content: try ContentFolder(directory: content),
                                      codeTables: try codes.map { try CodeTables(directory: $0) } ?? CodeTables(rows: []),
                                      strings: try strings.map { try StringTables(directory: $0) } ?? StringTables(strings: [:]),
                                      version: PackVersion(version)!, publisher: publisher, created: time)
            let output = try builder.build(into: self.output, key: PackPrivateKey(file: key))
            let manifest = output.manifest
            print("built \(self.output)/ in \(seconds(since: start))")
            print("  \(manifest.database.file): \(manifest.database.bytes) bytes (database \(output.databaseBytes) bytes)")
            print("  topics \(manifest.counts.topics), vaccines \(manifest.counts.vaccines), codes \(manifest.counts.codes), strings \(manifest.counts.strings)")
            print("  manifest.json sha256 \(PackBuilder.sha256(output.manifestBytes))")
        } catch { fail(error) }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a pack: signature, hashes, database; print its summary.")

    @Argument(help: "The pack's folder.")
    var pack: String
    @Option(name: .customLong("public-key"), help: "A trusted public key (PEM); may be given several times.")
    var publicKeys: [String]

    func validate() throws {
        guard !publicKeys.isEmpty else { throw ValidationError("give at least one --public-key") }
    }

    func run() {
        let start = ContinuousClock.now
        let verifier = PackVerifier(trust: .signature(trustedKeys(publicKeys)))
        let scratch = NSTemporaryDirectory() + "hreaderd-library-verify-\(getpid()).sqlite"
        do {
            let verified = try verifier.verify(folder: pack, into: scratch)
            try? FileManager.default.removeItem(atPath: scratch)
            let m = verified.manifest
            print("ok: pack \(m.version) by \(m.publisher), created \(Timestamp.format(m.created)), format \(m.format)")
            print("  signed by key \(verified.trustedBy)")
            print("  \(m.database.file): \(m.database.bytes) bytes, database sha256 \(m.database.sha256)")
            print("  topics \(m.counts.topics), vaccines \(m.counts.vaccines), codes \(m.counts.codes), strings \(m.counts.strings); languages \(m.languages.joined(separator: ", "))")
            print("  verified in \(seconds(since: start))")
        } catch { fail(error) }
    }
}

struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install a pack into a library folder (STATE_DIR/library), atomically.",
        discussion: "The daemon's own commands will do this; this one is for scripts, the demo and tests.")

    @Argument(help: "The pack's folder.")
    var pack: String
    @Option(help: "The library folder (STATE_DIR/library).")
    var library: String
    @Option(name: .customLong("public-key"), help: "A trusted public key (PEM); may be given several times.")
    var publicKeys: [String] = []
    @Option(name: .customLong("bundled-sha256"), help: "Install the pack that comes with the program: the SHA-256 of its manifest.json.")
    var bundledSHA256: String?
    @Option(help: "Where the pack came from, as the library will report it.")
    var source: String?
    @Flag(name: .customLong("any-version"), help: "Install even when the version is not newer than the installed one.")
    var anyVersion = false

    func validate() throws {
        guard publicKeys.isEmpty != (bundledSHA256 == nil) else { throw ValidationError("give --public-key (one or more) or --bundled-sha256, not both") }
    }

    func run() {
        let start = ContinuousClock.now
        let trust: PackTrust = bundledSHA256.map { .bundled(manifestSHA256: $0) } ?? .signature(trustedKeys(publicKeys))
        do {
            let installed = try LibraryInstaller(directory: library, trust: trust)
                .install(folder: pack, source: source ?? (bundledSHA256 == nil ? pack : "bundled"), policy: anyVersion ? .any : .newerOnly)
            print("installed pack \(installed.version) into \(library)/ (\(installed.file)) in \(seconds(since: start))")
        } catch { fail(error) }
    }
}
