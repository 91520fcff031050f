// fhir-sandbox: a local FHIR R4 server with SMART App Launch, to try hreaderd's FHIR sources against by
// hand, and for the browser tests. Test support, not product code: everything in memory, credentials from
// the command line.
import ArgumentParser
import Dispatch
import FHIRSandbox
import Foundation
import HTTPKit
import SandboxSupport

@main
struct FHIRSandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fhir-sandbox",
        abstract: "A local FHIR R4 server with SMART App Launch: discovery, PKCE, tokens, $everything, searches, paging, and faults on demand.",
        discussion: """
            Serves the patients of FHIR Bundles (.json), NDJSON files (a Bulk Data export) and folders of them \
            (--data, repeatable), e.g. --data ../shared/fhir-samples. Prints the FHIR base URL and the client id, \
            then serves until SIGINT or SIGTERM. Tests drive a running sandbox through /_sandbox/faults, \
            /_sandbox/stats, /_sandbox/clock and /_sandbox/resources/TYPE/ID.
            """
    )

    @Option(help: ArgumentHelp("Address to listen on.", valueName: "host:port")) var listen = "127.0.0.1:8422"
    @Option(help: ArgumentHelp("A FHIR Bundle, an NDJSON file or a folder of them (repeatable).", valueName: "path")) var data: [String] = []
    @Option(help: "The SMART client id.") var clientID = "hreaderd-fhir"
    @Option(help: "A client secret: the client is then confidential and must send it to the token endpoint.") var clientSecret: String?
    @Option(help: ArgumentHelp("A redirect URI the client registered (repeatable; none: any http(s) URL).", valueName: "uri")) var redirectURI: [String] = []
    @Option(help: ArgumentHelp("A user for the sign-in page (repeatable).", valueName: "name:password")) var user: [String] = []
    @Flag(help: "Approve every valid authorize request at once, without the sign-in page.") var autoApprove = false
    @Option(help: ArgumentHelp("The patient an auto-approved request gets (default: the first).", valueName: "id")) var patient: String?
    @Flag(help: "Do not offer Patient/{id}/$everything.") var noEverything = false
    @Flag(help: "No .well-known/smart-configuration: clients must read the CapabilityStatement.") var noSmartConfiguration = false
    @Option(help: ArgumentHelp("Entries a page unless the client asks for _count.", valueName: "n")) var pageSize = 50
    @Option(help: ArgumentHelp("Seconds an access token lives.", valueName: "seconds")) var tokenLifetime: Int64 = 3600
    @Flag(help: "Keep a refresh token when it is used, instead of replacing it.") var noRotation = false
    @Option(help: ArgumentHelp("""
        A fault for the first N requests of a kind (repeatable): KIND[@TARGET][xN], where KIND is 500 (any status), \
        429=SECONDS, delay=SECONDS, truncate, expired-token, refuse-refresh or outcome=STATUS:TEXT; TARGET is token, \
        everything, search, page, read, metadata, authorize or any (the default); N defaults to 1, and 'always' keeps it on.
        """, valueName: "fault")) var fault: [String] = []

    func validate() throws {
        guard !data.isEmpty else {
            throw ValidationError("give the data to serve with --data PATH: a FHIR Bundle (.json), an NDJSON file or a folder of them, e.g. --data ../shared/fhir-samples")
        }
        guard pageSize > 0 else { throw ValidationError("--page-size takes a positive number") }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime takes a positive number of seconds") }
    }

    func run() async throws {
        let (host, port) = try Self.address(listen)
        var configuration = FHIRSandbox.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.clientID = clientID
        configuration.clientSecret = clientSecret
        configuration.redirectURIs = redirectURI
        configuration.autoApprove = autoApprove
        configuration.autoApprovePatient = patient
        configuration.offersEverything = !noEverything
        configuration.smartConfiguration = !noSmartConfiguration
        configuration.pageSize = pageSize
        configuration.accessTokenLifetime = tokenLifetime
        configuration.rotatesRefreshTokens = !noRotation
        if !user.isEmpty {
            configuration.users = [:]
            for pair in user {
                let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--user takes name:password") }
                configuration.users[parts[0]] = parts[1]
            }
        }
        let specs: [FHIRSandbox.FaultSpec]
        do {
            specs = try fault.map { spec throws(FHIRSandbox.SpecError) in try FHIRSandbox.FaultSpec(parsing: spec) }
        } catch {
            throw ValidationError("--fault: \(error)")
        }
        let dataset: FHIRDataset
        do {
            dataset = try FHIRDataset(paths: data)
        } catch {
            throw ValidationError("--data: \(error)")
        }
        guard !dataset.patientIDs.isEmpty else { throw ValidationError("--data: no Patient resource in \(data.joined(separator: ", "))") }
        if let patient, !dataset.patientIDs.contains(patient) { throw ValidationError("--patient: no patient \(patient) in the data") }
        let sandbox = FHIRSandbox(configuration: configuration, data: dataset)
        for spec in specs { sandbox.inject(spec.fault, target: spec.target, count: spec.count) }
        try await sandbox.start()
        let firstUser = configuration.users.keys.sorted().first ?? "family"
        print("""
            fhir-sandbox: \(dataset.patientIDs.count) patients, \(dataset.count) resources on \(sandbox.baseURL)
              client id \(clientID)\(clientSecret.map { ", client secret \($0) (confidential)" } ?? " (public client, PKCE)")
              \(autoApprove ? "authorize requests are approved at once" : "sign in as \(firstUser) / \(configuration.users[firstUser] ?? "")")
              discovery \(noSmartConfiguration ? sandbox.baseURL + "/metadata" : sandbox.baseURL + "/.well-known/smart-configuration")
            """)
        if dataset.duplicatesSkipped > 0 { print("  \(dataset.duplicatesSkipped) resources skipped: the same type and id came before") }
        fflush(nil)
        await ShutdownSignal.wait(label: "fhir-sandbox")
        print("fhir-sandbox: stopping")
        await sandbox.shutdown()
    }

    static func address(_ text: String) throws -> (String, Int) {
        guard let address = ListenAddress.parse(text) else { throw ValidationError("--listen takes host:port") }
        return address
    }
}
