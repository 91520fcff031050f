// rhex-sandbox: a local RHEx server to try `hreaderd source add` and `hreaderd sync` against by hand.
// Test support, not product code: everything in memory, credentials from the command line.
import ArgumentParser
import Dispatch
import Foundation
import HTTPKit
import SandboxSupport
import SyntheticRecords
import RHExSandbox

@main
struct RHExSandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rhex-sandbox",
        abstract: "A local RHEx server: OAuth2 token endpoint, Atom patient feed, record JSON with ETags, and faults on demand.",
        discussion: """
            Serves the records of an NDJSON file (--records), of a folder of .json/.ndjson files (--dir), or a \
            synthetic family (--synthetic SEED, the default). Prints the base URL and the credentials to give \
            `hreaderd source add`, then serves until SIGINT or SIGTERM.
            """
    )

    @Option(help: ArgumentHelp("Address to listen on.", valueName: "host:port")) var listen = "127.0.0.1:8421"
    @Option(help: ArgumentHelp("Serve the records of a line-delimited JSON file.", valueName: "file")) var records: String?
    @Option(help: ArgumentHelp("Serve every .json and .ndjson file of a folder.", valueName: "dir")) var dir: String?
    @Option(help: ArgumentHelp("Serve a synthetic family made from this seed.", valueName: "seed")) var synthetic: UInt64?
    @Option(help: ArgumentHelp("Entries per synthetic record.", valueName: "n")) var entries = 400
    @Option(help: "The OAuth2 client id.") var clientID = "hreaderd"
    @Option(help: "The OAuth2 client secret.") var clientSecret = "sandbox-client-secret"
    @Option(help: ArgumentHelp("A user for the password grant (repeatable).", valueName: "name:password")) var user: [String] = []
    @Option(help: ArgumentHelp("Seconds an access token lives.", valueName: "seconds")) var tokenLifetime: Int64 = 3600
    @Option(help: ArgumentHelp("""
        A fault for the first N requests of a kind (repeatable): KIND[@TARGET][xN], where KIND is 500 (any status), \
        delay=SECONDS, truncate, huge=BYTES, signin (302 to the sign-in page), invalid-grant or unauthorized; TARGET is \
        feed, records, token or record=ID; N defaults to 1, and 'always' keeps it on.
        """, valueName: "fault")) var fault: [String] = []

    func run() async throws {
        let loaded: [SandboxRecord]
        if let records {
            loaded = try SandboxRecord.load(ndjson: records)
        } else if let dir {
            loaded = try SandboxRecord.load(directory: dir)
        } else {
            let generator = SyntheticRecords(seed: synthetic ?? 2012)
            loaded = generator.family().enumerated().map { index, person in
                SandboxRecord(id: String(index + 1), bytes: generator.record(for: person, entries: entries, shape: .gen1))
            }
        }
        let (host, port) = try Self.address(listen)
        var configuration = RHExSandbox.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.clientID = clientID
        configuration.clientSecret = clientSecret
        configuration.accessTokenLifetime = tokenLifetime
        if !user.isEmpty {
            configuration.users = [:]
            for pair in user {
                let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--user takes name:password") }
                configuration.users[parts[0]] = parts[1]
            }
        }
        let sandbox = RHExSandbox(configuration: configuration, records: loaded)
        for spec in fault {
            let (kind, target, times) = try Self.fault(spec)
            sandbox.inject(kind, on: target, times: times)
        }
        try await sandbox.start()
        let firstUser = configuration.users.keys.sorted().first ?? "family"
        print("""
            rhex-sandbox: \(loaded.count) records on \(sandbox.baseURL)
              client id \(clientID), client secret \(clientSecret), user \(firstUser) / \(configuration.users[firstUser] ?? "")
              hreaderd source add sandbox --url \(sandbox.baseURL) --client-id \(clientID) --client-secret-file SECRET_FILE \\
                  --username \(firstUser) --user-password-file PASSWORD_FILE --patients all
            """)
        fflush(nil)
        await ShutdownSignal.wait(label: "rhex-sandbox")
        print("rhex-sandbox: stopping")
        await sandbox.stop()
    }

    static func address(_ text: String) throws -> (String, Int) {
        guard let address = ListenAddress.parse(text) else { throw ValidationError("--listen takes host:port") }
        return address
    }

    static func fault(_ spec: String) throws -> (RHExSandbox.Fault, RHExSandbox.Target, Int?) {
        var rest = Substring(spec)
        var times: Int? = 1
        if let x = rest.lastIndex(of: "x"), let count = Int(rest[rest.index(after: x)...]) {
            times = count
            rest = rest[..<x]
        } else if rest.hasSuffix("always") {
            times = nil
            rest = rest.dropLast("always".count)
            if rest.hasSuffix(",") || rest.hasSuffix("x") { rest = rest.dropLast() }
        }
        let parts = rest.split(separator: "@", maxSplits: 1).map(String.init)
        let kindText = parts.first ?? ""
        let kind: RHExSandbox.Fault
        if let status = Int(kindText) {
            kind = .status(status)
        } else if kindText.hasPrefix("delay="), let seconds = Double(kindText.dropFirst(6)) {
            kind = .delay(seconds: seconds)
        } else if kindText.hasPrefix("huge="), let bytes = Int(kindText.dropFirst(5)) {
            kind = .hugeBody(bytes: bytes)
        } else {
            switch kindText {
            case "truncate": kind = .truncate
            case "signin": kind = .redirectToSignIn
            case "invalid-grant": kind = .invalidGrant
            case "unauthorized": kind = .unauthorized
            default: throw ValidationError("unknown fault \(spec)")
            }
        }
        var target = RHExSandbox.Target.any
        if parts.count == 2 {
            switch parts[1] {
            case "feed": target = .feed
            case "records": target = .records
            case "token": target = .token
            case let other where other.hasPrefix("record="): target = .record(String(other.dropFirst(7)))
            default: throw ValidationError("unknown fault target in \(spec)")
            }
        }
        return (kind, target, times)
    }
}
