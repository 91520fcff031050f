import HTTPKit
import Modules
import Records
import HealthRecord
import Store

/// The summary: `GET /patients/{id}/summary.json` (each shown module's message and tile, in the person's
/// order) and `GET`/`PUT /patients/{id}/modules` (which modules show, in what order).
struct SummaryRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        router.get("/patients/{pid}/summary.json") { request, context in
            try await summary(patientID: try context.parameters.require("pid"), all: try Self.everyModule(request))
        }
        router.get("/patients/{pid}/modules") { _, context in try await modules(patientID: try context.parameters.require("pid")) }
        router.put("/patients/{pid}/modules", bodyLimit: app.configuration.smallBodyLimit) { request, context in
            try await setModules(request, patientID: try context.parameters.require("pid"))
        }
    }

    var catalog: ModuleCatalog { app.configuration.modules }

    /// `?modules=all`: every module the daemon has, in the catalog's order, whatever the person chose (the
    /// printed summary for a doctor wants medications even when the tile is hidden).
    static func everyModule(_ request: Request) throws(HTTPError) -> Bool {
        switch request.query["modules"] {
        case nil, "shown"?: return false
        case "all"?: return true
        default: throw bad("modules takes all or shown.")
        }
    }

    func summary(patientID: String, all: Bool = false) async throws -> Response {
        let store = try app.store()
        let now = app.now()
        var (shown, _) = try await shownModules(patientID: patientID, store: store, now: now)
        if all { shown = catalog.modules.map(\.id) }
        let reads = catalog.reads(shown)
        // Vital signs and results are read as measurements, as they come: never held as entries.
        let collector = reads.measures ? MeasurementCollector() : nil
        guard let source = try await store.summarySource(patientID: patientID, types: reads.entryTypes,
                                                         measured: reads.measures ? Measurements.entryTypes : [], sink: collector,
                                                         readings: reads.readings, posts: reads.posts) else { throw APIError.unknownPatient }
        var details: [String: AllergyDetail] = [:]
        for (id, raw) in source.allergySources {
            let (reaction, severity) = AllergyDetails.read(raw)
            if reaction != nil || severity != nil { details[id] = AllergyDetail(reaction: reaction, severity: severity) }
        }
        let offset = Int64(app.configuration.calendar.timeZone.secondsFromGMT())
        let record = ModuleRecord(patient: source.patient, now: now, utcOffset: offset, entries: source.entries, readings: source.readings,
                                  measurements: collector?.measurements(adding: source.readings),
                                  posts: source.posts, annotations: source.annotations, allergyDetails: details)
        return .json(writer: SummaryJSON.summary(patient: source.patient, age: record.age, generatedAt: now,
                                                 outputs: catalog.evaluate(shown, record: record)))
    }

    func modules(patientID: String) async throws -> Response {
        let store = try app.store()
        let (shown, chosen) = try await shownModules(patientID: patientID, store: store, now: app.now())
        return .json(writer: SummaryJSON.moduleList(patientID: patientID, shown: shown, chosen: chosen, catalog: catalog))
    }

    /// `{"modules": ["blood-pressure", …]}` sets the list and its order; `{"modules": null}` goes back to the
    /// defaults for the patient's age.
    func setModules(_ request: Request, patientID: String) async throws -> Response {
        let chosen = try choice(JSONObjectBody.parse(request, limit: app.configuration.smallBodyLimit, depth: 2, what: "the module list"))
        let store = try app.store()
        do {
            try await store.setModuleChoice(patientID: patientID, modules: chosen, now: app.now())
        } catch .notFound {
            throw APIError.unknownPatient
        }
        return try await modules(patientID: patientID)
    }

    /// The list a body asks for: known ids, none twice; nil for the defaults.
    func choice(_ object: JSONObject) throws(HTTPError) -> [String]? {
        guard object.members.count == 1, let value = object["modules"] else {
            throw Self.bad("Send {\"modules\": [module ids, in order]} or {\"modules\": null} for the defaults.")
        }
        if case .null = value { return nil }
        guard case .array(let elements) = value else { throw Self.bad("modules must be a list of module ids, or null.") }
        var ids: [String] = []
        for element in elements {
            guard case .string(let id) = element else { throw Self.bad("Module ids are strings.") }
            ids.append(id)
        }
        if case .failure(let error) = catalog.validate(ids) {
            switch error {
            case .unknown(let id):
                throw Self.bad("There is no module \(String(id.prefix(64))); the modules are \(catalog.modules.map(\.id).joined(separator: ", ")).")
            case .repeated(let id): throw Self.bad("\(id) is listed twice.")
            }
        }
        return ids
    }

    /// The person's list (without the ids of modules this daemon no longer has), else the defaults by age.
    func shownModules(patientID: String, store: Store, now: Int64) async throws -> (shown: [String], chosen: Bool) {
        guard try await store.patient(id: patientID) != nil else { throw APIError.unknownPatient }
        if let choice = try await store.moduleChoice(patientID: patientID) { return (choice.filter { catalog.module($0) != nil }, true) }
        guard let patient = try await store.patient(id: try await store.person(of: patientID)?.head ?? patientID) else {
            throw APIError.unknownPatient
        }
        return (catalog.defaults(age: patient.birthdate.map { Age.years(from: $0, to: patient.ageTime(now: now)) }), false)
    }

    static func bad(_ message: String) -> HTTPError { HTTPError(.badRequest, code: "bad_modules", message: message) }
}
