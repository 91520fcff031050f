import ArgumentParser
import FHIRClient
import FoundationEssentials
import ImportJobs
import RHExClient
import HealthRecord
import Store

struct SourceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source",
        abstract: "Servers to pull records from (RHEx, FHIR with SMART sign-in): add, list, remove; the patients each offers.",
        subcommands: [Add.self, List.self, Remove.self, Patients.self, Choose.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an RHEx server or a FHIR patient-access server (or, with --update, sign in to an RHEx one again).",
            discussion: """
                RHEx (--url): sign in with the user's name and password (--username, --user-password-file), or with an \
                OAuth2 authorization code (--auth-code, --redirect-uri) that the server's /oauth2/authorize page gave. \
                Nothing is fetched now: run `hreaderd sync NAME`, or let the daemon sync on its schedule.

                FHIR (--fhir URL --client-id ID): SMART App Launch. The server is discovered, the sign-in is kept \
                (10 minutes) and the URL to open in your browser is printed on stdout. After you sign in there, \
                the server sends your browser back to the redirect URI (default: the daemon's own \
                http://127.0.0.1:8420/sources/callback), which completes it and starts the first sync. For a \
                daemon on another machine, copy the `code` from the address your browser lands on and run \
                `hreaderd source add NAME --auth-code CODE`. Public clients need no secret; a confidential \
                client gives --client-secret-file.

                Secrets (client secrets, passwords, tokens) are kept only inside the encrypted store.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("A name for the source (letters, digits, '.', '-', '_').", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("An RHEx server's base URL (its patient feed), http or https.", valueName: "url"))
        var url: String?

        @Option(help: ArgumentHelp("A FHIR R4 server's base URL: sign in with SMART App Launch.", valueName: "url"))
        var fhir: String?

        @Option(help: ArgumentHelp("The OAuth2 client id.", valueName: "id"))
        var clientID: String?

        @Option(help: ArgumentHelp("A file whose first line is the OAuth2 client secret (RHEx: required; FHIR: a confidential client).",
                                   valueName: "file"))
        var clientSecretFile: String?

        @Option(help: ArgumentHelp("The user, for the password grant.", valueName: "user"))
        var username: String?

        @Option(help: ArgumentHelp("A file whose first line is the user's password on the server.", valueName: "file"))
        var userPasswordFile: String?

        @Option(help: ArgumentHelp("An OAuth2 authorization code (single use; exchanged at the first sync). Alone, for FHIR: completes the sign-in begun with --fhir.",
                                   valueName: "code"))
        var authCode: String?

        @Option(help: ArgumentHelp("The redirect URI the authorization code was (or is to be) issued for. FHIR default: \(Self.defaultRedirectURI).",
                                   valueName: "uri"))
        var redirectURI: String?

        /// The daemon's own callback at its default address.
        static let defaultRedirectURI = "http://127.0.0.1:8420/sources/callback"

        @Option(help: ArgumentHelp("Sync this source every so many minutes in the daemon (0: only when asked). Default: the daemon's --sync-interval.",
                                   valueName: "minutes"))
        var syncInterval: Int?

        @Flag(help: "Replace the settings and credentials of an existing source of that name (to sign in again); its patients stay.")
        var update = false

        /// Which of the server's patients a sync imports.
        enum PatientChoice: String, ExpressibleByArgument, CaseIterable {
            case all, chosen
        }

        @Option(help: ArgumentHelp("all: import every patient the server offers; chosen (the default for a new source): only the ones chosen with `source choose`, the others offered (see `source patients`). With --update, unchanged unless given.",
                                   valueName: "all|chosen"))
        var patients: PatientChoice?

        /// What the options ask for.
        enum Mode { case rhex(url: String, clientID: String, secretFile: String), fhirBegin(url: String, clientID: String), fhirComplete(code: String) }

        var mode: Mode? {
            if let url, let clientID, let clientSecretFile { return .rhex(url: url, clientID: clientID, secretFile: clientSecretFile) }
            if let fhir, let clientID { return .fhirBegin(url: fhir, clientID: clientID) }
            if url == nil, fhir == nil, clientID == nil, let authCode { return .fhirComplete(code: authCode) }
            return nil
        }

        func validate() throws {
            guard Source.isValidName(name), name != Source.filesSourceName else {
                throw ValidationError("the name must be 1 to 64 letters, digits, '.', '-' or '_', and not \"files\"")
            }
            guard !(url != nil && fhir != nil) else { throw ValidationError("--url (RHEx) and --fhir exclude each other") }
            if let syncInterval, syncInterval < 0 || syncInterval > 525_600 { throw ValidationError("--sync-interval must be 0…525600 minutes") }
            switch mode {
            case nil:
                throw ValidationError("add an RHEx server with --url, --client-id and --client-secret-file; a FHIR server with --fhir and --client-id; or complete a FHIR sign-in with --auth-code alone")
            case .fhirBegin(let fhirURL, let clientID)?:
                if let problem = FHIRServerURL.problem(with: fhirURL) { throw ValidationError(problem) }
                guard !clientID.isEmpty else { throw ValidationError("--client-id must not be empty") }
                guard username == nil, userPasswordFile == nil, authCode == nil, !update, patients == nil else {
                    throw ValidationError("a FHIR source takes --fhir, --client-id, --client-secret-file, --redirect-uri and --sync-interval")
                }
                if let redirectURI, let problem = SMARTSignIn.problem(withRedirectURI: redirectURI) { throw ValidationError(problem) }
                return
            case .fhirComplete(let code)?:
                guard !code.isEmpty, code.utf8.count <= 4096 else { throw ValidationError("--auth-code must not be empty") }
                guard redirectURI == nil, username == nil, userPasswordFile == nil, clientSecretFile == nil, !update else {
                    throw ValidationError("--auth-code alone completes a FHIR sign-in begun with --fhir (an RHEx code needs --url and --redirect-uri)")
                }
                return
            case .rhex(let url, let clientID, _)?:
                if let problem = RHExEndpoints.problem(with: url) { throw ValidationError(problem) }
                guard !clientID.isEmpty else { throw ValidationError("--client-id must not be empty") }
            }
            let password = username != nil || userPasswordFile != nil
            let code = authCode != nil || redirectURI != nil
            guard password != code else {
                throw ValidationError("sign in with either --username and --user-password-file, or --auth-code and --redirect-uri")
            }
            if password, username?.isEmpty ?? true || userPasswordFile == nil {
                throw ValidationError("--username and --user-password-file go together")
            }
            if code, authCode?.isEmpty ?? true || redirectURI?.isEmpty ?? true {
                throw ValidationError("--auth-code and --redirect-uri go together")
            }
        }

        func run() async throws {
            switch mode {
            case .rhex(let url, let clientID, let secretFile)?: try await addRHEx(url: url, clientID: clientID, secretFile: secretFile)
            case .fhirBegin(let url, let clientID)?: try await beginFHIR(url: url, clientID: clientID)
            case .fhirComplete(let code)?: try await completeFHIR(code: code)
            case nil: throw CLIError("nothing to add")
            }
        }

        /// Discovers the server, keeps the sign-in, prints the URL to open.
        func beginFHIR(url: String, clientID: String) async throws {
            let secret = try clientSecretFile.map { try PasswordSource.readFile($0, what: "client secret file") }
            let store = try global.openStore()
            defer { store.close() }
            let fetcher = HTTPFetcher(timeoutSeconds: SyncConfiguration().requestTimeoutSeconds, maxConnectionsPerHost: 2)
            defer { fetcher.close() }
            let signIn = SMARTSignIn(name: name, server: try FHIRServerURL(url), clientID: clientID, clientSecret: secret,
                                     redirectURI: redirectURI ?? Self.defaultRedirectURI, syncIntervalSeconds: syncInterval.map { Int64($0) * 60 })
            let authorize: URL
            do { authorize = try await signIn.begin(store: store, fetcher: fetcher) } catch { throw CLIError("cannot begin the sign-in: \(error)") }
            Console.err("open this address in your browser within 10 minutes and sign in; the daemon completes the sign-in at \(signIn.redirectURI)"
                        + " (or run `hreaderd source add \(name) --auth-code CODE` with the code the address you land on carries):")
            Console.out(authorize.absoluteString)
        }

        /// Completes a FHIR sign-in with a code copied by hand; the next sync (or the daemon) exchanges it.
        func completeFHIR(code: String) async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let source = try await store.completeSignIn(.name(name), code: code, now: Store.now()) else {
                throw CLIError("there is no sign-in for \(name) waiting (it lasts 10 minutes): begin again with `hreaderd source add \(name) --fhir URL --client-id ID`")
            }
            _ = try await ImportQueue.enqueue(source.name, trigger: .request, store: store)
            Console.out("signed in to \(source.name) (\(source.url ?? "")); its first sync is queued: run `hreaderd sync \(source.name)` or let the daemon run it")
        }

        func addRHEx(url: String, clientID: String, secretFile: String) async throws {
            let secret = try PasswordSource.readFile(secretFile, what: "client secret file")
            let userPassword = try userPasswordFile.map { try PasswordSource.readFile($0, what: "user password file") }
            let store = try global.openStore()
            defer { store.close() }
            let existing = try await store.source(named: name)
            if !update, existing != nil {
                throw CLIError("there is already a source named \(name); pass --update to replace its settings and sign in again")
            }
            let importAll = patients.map { $0 == .all } ?? existing.map { $0.settings.importsAll } ?? false
            let settings = SourceSettings(clientID: clientID, username: username, redirectURI: redirectURI,
                                          syncIntervalSeconds: syncInterval.map { Int64($0) * 60 }, importAll: importAll)
            let source = try await store.addSource(
                Store.NewSource(name: name, url: url, settings: settings,
                                secrets: SourceSecrets(clientSecret: secret, userPassword: userPassword, authorizationCode: authCode)),
                replacing: update)
            if (try? RHExEndpoints(url: url))?.isInsecure == true {
                Console.err("warning: \(url) is plain http off this machine: tokens and records would cross the network unencrypted")
            }
            Console.out("\(update ? "updated" : "added") source \(source.name) (\(source.url ?? "")); run `hreaderd sync \(source.name)` to import now"
                        + (importAll ? "" : " (it imports the patients you choose: see `hreaderd source patients \(source.name)` after a sync)"))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the sources: name, kind, URL, state, last sync, patients, last error.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            let sources = try await store.remoteSources()
            if sources.isEmpty { Console.err("no sources: add one with `hreaderd source add NAME --url URL …` (RHEx) or `--fhir URL …` (FHIR)") }
            for source in sources {
                let patients = try await store.patientCount(sourceID: source.id)
                var line = "\(source.name)  \(source.kind.rawValue)  \(source.url ?? "")  \(source.state.rawValue)  "
                line += "last sync \(source.lastSyncAt.map(TimeText.instant) ?? "never")  \(patients) patient\(patients == 1 ? "" : "s")"
                if let error = source.lastError { line += "  last error: \(error)" }
                Console.out(line)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a source (RHEx or FHIR), its credentials and its import jobs.",
            discussion: "A source whose records made patients is removed only with --delete-patients, which deletes those patients, their entries and their timeline posts."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The source's name.", valueName: "name")) var name: String
        @Flag(help: "Also delete the patients this source's records made (their entries and posts too).") var deletePatients = false

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            let removed: Int?
            do {
                removed = try await store.removeSource(named: name, deletingPatients: deletePatients)
            } catch .invalidInput(let reason) {
                throw CLIError("\(reason): pass --delete-patients to delete them with it")
            }
            guard let removed else { throw CLIError("there is no source named \(name) (see `hreaderd source list`)") }
            Console.out("removed source \(name)" + (removed > 0 ? " and its \(removed) patient\(removed == 1 ? "" : "s")" : ""))
        }
    }

    struct Patients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The patients a server offers (as its feed listed them at the last sync): record id, title, and whether chosen or imported.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The source's name.", valueName: "name")) var name: String

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let source = try await store.source(named: name), source.kind == .rhex else {
                throw CLIError("there is no RHEx source named \(name) (see `hreaderd source list`)")
            }
            let offered = try await store.offeredPatients(sourceID: source.id)
            if offered.isEmpty { Console.err("\(name) has offered no patients yet: run `hreaderd sync \(name)`") }
            Console.err(source.settings.importsAll ? "\(name) imports every patient it offers" : "\(name) imports the patients chosen")
            for patient in offered {
                let state = patient.removed ? "removed" : patient.imported ? "imported" : patient.chosen ? "chosen" : "offered"
                Console.out("\(patient.recordID)\t\(patient.title ?? "")\t\(state)")
            }
        }
    }

    struct Choose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose which offered patients a source imports (the next sync imports them), or --all.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The source's name.", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("Record ids from `source patients`.", valueName: "record")) var records: [String] = []
        @Flag(help: "Stop importing these (their patients already imported stay).") var not = false
        @Flag(help: "Import every patient the server offers, from now on.") var all = false
        @Flag(help: "Import only the patients chosen, from now on.") var onlyChosen = false

        func validate() throws {
            guard !(all && onlyChosen) else { throw ValidationError("--all and --only-chosen exclude each other") }
            guard all || onlyChosen || !records.isEmpty else { throw ValidationError("name the records to choose, or pass --all or --only-chosen") }
        }

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let source = try await store.source(named: name), source.kind == .rhex else {
                throw CLIError("there is no RHEx source named \(name) (see `hreaderd source list`)")
            }
            if all || onlyChosen { try await store.setImportAll(sourceID: source.id, all) }
            if !records.isEmpty {
                let offered = Set(try await store.offeredPatients(sourceID: source.id).map(\.recordID))
                if let unknown = records.first(where: { !offered.contains($0) }) {
                    throw CLIError("\(name) has not offered \(unknown) (see `hreaderd source patients \(name)`)")
                }
                _ = try await store.chooseOfferedPatients(sourceID: source.id, recordIDs: records, chosen: !not)
            }
            Console.out("\(name): " + (all ? "imports every patient it offers" : onlyChosen ? "imports the chosen patients" : "\(records.count) record\(records.count == 1 ? "" : "s") \(not ? "no longer chosen" : "chosen")")
                        + "; run `hreaderd sync \(name)` to import now")
        }
    }
}
