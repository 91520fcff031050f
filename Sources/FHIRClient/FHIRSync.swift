import FoundationEssentials
import ImportJobs
import Records
import HealthRecord
import Store

/// The FHIR `SourceSyncer`: one run of one job for a FHIR patient-access server.
public struct FHIRSyncer: SourceSyncer {
    public init() {}

    public func sync(_ run: JobRun) async throws(SyncError) -> SyncOutcome {
        try await FHIRSync(run: run, sleep: { seconds in try await Task.sleep(for: .seconds(seconds)) }).sync()
    }
}

/// One run: the token (the first run exchanges the authorization code with its PKCE verifier), the
/// patient the token names, its record read with `Patient/{id}/$everything` where the server has it, else
/// a search a resource type, each paged to its end; on later runs only what changed since the last
/// complete one (`_since`, `_lastUpdated`). All of it is one patient, imported in one transaction: the
/// first time whole (what the source no longer has is removed), later as changes (nothing removed).
struct FHIRSync: Sendable {
    let run: JobRun
    let sleep: @Sendable (Double) async throws -> Void

    /// What is searched when there is no `$everything`: every type the mapping shows (docs/import-mapping.md).
    static let searchedTypes = [
        "AllergyIntolerance", "Condition", "Encounter", "Immunization", "MedicationRequest", "MedicationStatement",
        "MedicationAdministration", "Observation", "Procedure", "DiagnosticReport", "CarePlan", "Goal", "Device", "DeviceUseStatement",
    ]
    /// Servers that want a category with every Observation search (many patient-access APIs) get these.
    static let observationCategories = ["vital-signs", "laboratory", "social-history", "survey", "exam", "imaging", "procedure", "activity"]
    /// Answers that mean "not here" for an operation or a type: the sync goes on without it.
    static let notOffered: Set<Int> = [400, 403, 404, 405, 501]

    func sync() async throws(SyncError) -> SyncOutcome {
        let store = run.store
        let (source, credentials) = try await run.sourceAndCredentials()
        guard source.kind == .fhir, let url = source.url, let server = try? FHIRServerURL(url) else {
            throw .configuration("the source \(source.name) has no FHIR server URL")
        }
        guard let tokenText = source.settings.tokenURL, let tokenURL = URL(string: tokenText) else {
            throw .configuration("the source \(source.name) has no token endpoint: sign in again (source add \(source.name) --fhir …)")
        }
        let configuration = run.configuration
        let oauth = OAuthClient(tokenURL: tokenURL, clientID: source.settings.clientID, clientSecret: credentials.secrets.clientSecret,
                                fetcher: run.fetcher, limit: configuration.limits.tokenBytes)
        let keeper = TokenKeeper(sourceID: source.id, store: store, oauth: oauth, settings: source.settings, secrets: credentials.secrets,
                                 tokens: credentials.tokens, refreshMarginSeconds: configuration.refreshMarginSeconds, now: run.now)
        _ = try await keeper.token()
        guard let patient = await keeper.grantedPatient ?? source.settings.fhirPatient else {
            throw .configuration("\(server.text) named no patient when it granted the token: hreaderd reads one patient's record (scope launch/patient)")
        }
        if patient != source.settings.fhirPatient {
            do { try await store.saveFHIRProgress(sourceID: source.id, patient: patient, since: nil) } catch { throw SyncError.from(error) }
        }
        run.progress.setTotal(1)
        run.onProgress(0, 1)

        let api = FHIRAPI(keeper: keeper, fetcher: run.fetcher, configuration: configuration, sleep: sleep)
        let pages = FHIRPages(api: api, server: server, limits: configuration.fhirLimits, pageBytes: configuration.limits.fhirPageBytes)
        let since = source.settings.fhirSince
        let progress = run.progress
        var read = FHIRPages.Read()
        // The Patient itself, always: it carries the identity the record is kept under, and `_since`
        // leaves it out when it did not change.
        let patientAnswer = try await api.get(server.url(["Patient", patient]), limit: configuration.limits.fhirPageBytes)
        do { read.files.append(try FHIRInput.read(patientAnswer.body, name: "Patient/\(patient)", limits: configuration.fhirLimits)) } catch {
            throw .badRecord(recordID: "Patient/\(patient)", reason: "\(error)")
        }
        do {
            let everything = try await pages.read(server.url(["Patient", patient, "$everything"], query: since.map { [("_since", $0)] } ?? []),
                                                  name: "$everything")
            read.files += everything.files
            read.serverTime = everything.serverTime
        } catch {
            guard Self.isNotOffered(error) else { throw error }
            let searched = try await searches(pages, patient: patient, since: since)
            read.files += searched.files
            read.serverTime = searched.serverTime
        }

        let result = FHIRReader(limits: configuration.fhirLimits).assemble(read.files)
        guard let found = result.patients.first(where: { $0.reference == "Patient/\(patient)" }) ?? result.patients.first,
              let record = found.record else {
            let reason = result.patients.first?.error ?? result.problems.first ?? "no patient in what the server sent"
            throw .badRecord(recordID: "Patient/\(patient)", reason: reason)
        }
        let summary: ImportSummary?
        do {
            summary = try await store.importRecord(record, sourceName: source.name, etag: nil, jobID: run.job.id, owner: run.owner,
                                                   progressDone: 1, options: since == nil ? .replace : .merge, now: run.now())
        } catch {
            throw SyncError.from(error)
        }
        guard let summary else { return .leaseLost }
        progress.record(summary)
        _ = progress.advance()
        run.onProgress(1, 1)
        // The next run asks only for what changed after this one began on the server's clock.
        if let time = read.serverTime ?? patientAnswer.header("date").flatMap(Self.instant) {
            do { try await store.saveFHIRProgress(sourceID: source.id, patient: nil, since: time) } catch { throw SyncError.from(error) }
        }
        return .done
    }

    /// The record as one search a type, each paged; a type the server does not offer (or the scope does
    /// not allow) is left out. Observation searches that need a category get one a category.
    func searches(_ pages: FHIRPages, patient: String, since: String?) async throws(SyncError) -> FHIRPages.Read {
        var read = FHIRPages.Read()
        let changed = since.map { [("_lastUpdated", "gt" + $0)] } ?? []
        for type in Self.searchedTypes {
            let url = pages.server.url([type], query: [("patient", patient)] + changed)
            do {
                let found = try await pages.read(url, name: type)
                read.files += found.files
                if read.serverTime == nil { read.serverTime = found.serverTime }
            } catch {
                guard Self.isNotOffered(error) else { throw error }
                guard type == "Observation" else { continue }
                for category in Self.observationCategories {
                    let byCategory = pages.server.url([type], query: [("patient", patient), ("category", category)] + changed)
                    do {
                        read.files += try await pages.read(byCategory, name: "\(type) \(category)").files
                    } catch {
                        guard Self.isNotOffered(error) else { throw error }
                    }
                }
            }
        }
        return read
    }

    static func isNotOffered(_ error: SyncError) -> Bool {
        switch error {
        case .status(_, let code), .outcome(_, let code, _): return notOffered.contains(code)
        default: return false
        }
    }

    /// An HTTP `Date` header (`Tue, 24 Nov 2026 11:15:21 GMT`, RFC 9110's preferred form) as a FHIR instant,
    /// for a server whose bundles carry no `meta.lastUpdated`; nil for any other form.
    static func instant(_ httpDate: String) -> String? {
        let parts = httpDate.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), (1...31).contains(day), (1970...9999).contains(year) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2]) else { return nil }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(monthIndex + 1))-\(two(day))T\(two(time[0])):\(two(time[1])):\(two(time[2]))Z"
    }
}
