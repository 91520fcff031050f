import Foundation
import HealthRecord
import HTTPKit

/// The FHIR API: discovery, reads, type searches, `$everything`, and the next pages of a search.
extension FHIRSandbox {
    /// Who a bearer token speaks for.
    struct Access {
        var patientID: String
        var scope: String
    }

    // MARK: Discovery

    func smartConfigurationDocument(_ request: Request) async -> Response {
        let fault = begin(.metadata, kind: .open)
        if let answer = await answer(for: fault, style: .fhir) { return answer }
        guard configuration.smartConfiguration else {
            return Self.outcome(.notFound, code: "not-found", "This server publishes no SMART configuration; read the CapabilityStatement.")
        }
        let scopes = ["launch/patient", "offline_access", "online_access", "patient/*.read", "patient/*.rs"]
            + servedTypes().flatMap { ["patient/\($0.type).read", "patient/\($0.type).rs"] }
        let methods = configuration.clientSecret == nil ? ["none"] : ["client_secret_basic", "client_secret_post"]
        let body = """
            {"issuer":\(JSON.quoted(baseURL)),"authorization_endpoint":\(JSON.quoted(authorizeURL)),\
            "token_endpoint":\(JSON.quoted(tokenURL)),"token_endpoint_auth_methods_supported":\(Self.list(methods)),\
            "grant_types_supported":["authorization_code","refresh_token"],"response_types_supported":["code"],\
            "code_challenge_methods_supported":["S256"],"scopes_supported":\(Self.list(scopes)),\
            "capabilities":["launch-standalone","client-public","client-confidential-symmetric","context-standalone-patient",\
            "permission-offline","permission-patient","permission-v1","permission-v2"]}
            """
        var response = Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(ByteBuffer(string: body)))
        if fault == .truncate { response = Self.truncated(response) }
        return response
    }

    func capabilityStatement(_ request: Request) async -> Response {
        let fault = begin(.metadata, kind: .open)
        if let answer = await answer(for: fault, style: .fhir) { return answer }
        let everything = #"{"name":"everything","definition":"http://hl7.org/fhir/OperationDefinition/Patient-everything"}"#
        var resources: [String] = []
        for served in servedTypes() {
            var parameters = served.inCompartment || served.type == "Patient" ? ["_id", "_lastUpdated"] : ["_id"]
            if served.inCompartment { parameters = ["patient"] + parameters }
            if served.inCompartment, served.hasCategory { parameters.append("category") }
            if served.inCompartment, served.hasCode { parameters.append("code") }
            let searchParams = parameters.map { name in
                let type = name == "patient" ? "reference" : name == "_lastUpdated" ? "date" : "token"
                return #"{"name":"\#(name)","type":"\#(type)"}"#
            }
            var text = #"{"type":"\#(served.type)","interaction":[{"code":"read"},{"code":"search-type"}],"#
                + #""searchParam":[\#(searchParams.joined(separator: ","))]"#
            if served.type == "Patient", configuration.offersEverything { text += #","operation":[\#(everything)]"# }
            resources.append(text + "}")
        }
        let date = Instant.format(milliseconds: configuration.loadedAt * 1000)
        var body = #"{"resourceType":"CapabilityStatement","status":"active","date":"\#(date)","kind":"instance","#
            + #""software":{"name":"fhir-sandbox"},"implementation":{"description":"hreaderd's FHIR sandbox","url":\#(JSON.quoted(baseURL))},"#
            + #""fhirVersion":"4.0.1","format":["json"],"rest":[{"mode":"server","security":{"#
            + #""extension":[{"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris","extension":["#
            + #"{"url":"authorize","valueUri":\#(JSON.quoted(authorizeURL))},{"url":"token","valueUri":\#(JSON.quoted(tokenURL))}]}],"#
            + #""service":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/restful-security-service","code":"SMART-on-FHIR"}]}]},"#
            + #""resource":[\#(resources.joined(separator: ","))]"#
        if configuration.offersEverything { body += #","operation":[\#(everything)]"# }
        body += "}]}"
        let response = Self.fhir(Array(body.utf8))
        return fault == .truncate ? Self.truncated(response) : response
    }

    struct ServedType {
        var type: String
        var inCompartment: Bool
        var hasCategory: Bool
        var hasCode: Bool
    }

    /// The types of the data, Patient first, then by name.
    func servedTypes() -> [ServedType] {
        state.withLock { state in
            var types: [String: ServedType] = [:]
            for resource in state.resources.values {
                var served = types[resource.type] ?? ServedType(type: resource.type, inCompartment: false, hasCategory: false, hasCode: false)
                served.inCompartment = served.inCompartment || (resource.patientID != nil && resource.type != "Patient")
                served.hasCategory = served.hasCategory || resource.json["category"] != nil || resource.type == "Observation"
                served.hasCode = served.hasCode || resource.json["code"] != nil
                types[resource.type] = served
            }
            return types.values.sorted { ($0.type == "Patient" ? 0 : 1, $0.type) < ($1.type == "Patient" ? 0 : 1, $1.type) }
        }
    }

    // MARK: Reads

    func read(_ request: Request, type: String, id: String) async -> Response {
        await api(request, .read) { access in
            guard Self.scope(access.scope, allows: type) else { return forbidden("The token's scope does not cover \(type).") }
            if type == "Patient", id != access.patientID { return forbidden("This token is for another patient.") }
            guard let resource = state.withLock({ $0.resources[type + "/" + id] }) else {
                return Self.outcome(.notFound, code: "not-found", "There is no \(type)/\(id).")
            }
            if let owner = resource.patientID, owner != access.patientID { return forbidden("This token is for another patient.") }
            var response = Self.fhir(resource.bytes)
            response.headers.add(name: "ETag", value: "W/\"\(resource.version)\"")
            return response
        }
    }

    // MARK: Searches

    /// `GET /fhir/{type}?patient=…` (or `Patient/{id}/{type}`, the compartment form).
    func search(_ request: Request, type: String, compartment: String?) async -> Response {
        guard Self.isTypeName(type) else { return Self.outcome(.notFound, code: "not-supported", "Unknown resource type \(type).") }
        return await api(request, .search) { access in
            guard Self.scope(access.scope, allows: type) else { return forbidden("The token's scope does not cover \(type).") }
            let query = request.query
            var patient = compartment
            for name in ["patient", "subject"] {
                guard let value = query[name] else { continue }
                guard let id = Self.patientID(reference: value) else {
                    return Self.outcome(.badRequest, code: "invalid", "\(name)=\(value) names no patient.")
                }
                patient = id
            }
            let ids = query.values(for: "_id").flatMap { $0.split(separator: ",").map(String.init) }
            let lastUpdatedValues = query.values(for: "_lastUpdated")
            state.withLock { $0.stats.lastUpdatedValues += lastUpdatedValues }
            var bounds: [DateBound] = []
            for value in lastUpdatedValues {
                guard let bound = DateBound(value) else {
                    return Self.outcome(.badRequest, code: "invalid", "_lastUpdated=\(value) is not a prefix and an instant (a + in the time zone is sent as %2B).")
                }
                bounds.append(bound)
            }
            guard let count = pageSize(query) else {
                return Self.outcome(.badRequest, code: "invalid", "_count=\(query["_count"] ?? "") is not a number of entries.")
            }
            let categories = query.values(for: "category")
            let codes = query.values(for: "code")
            let includeMedications = query.values(for: "_include").contains { $0 == "*" || $0.hasSuffix(":medication") }

            if let patient, patient != access.patientID { return forbidden("This token is for another patient.") }
            let selected = state.withLock { state -> [StoredResource]? in
                let keys: [String]
                if type == "Patient" {
                    keys = ids.isEmpty || ids.contains(access.patientID) ? ["Patient/" + access.patientID] : []
                } else if let patient {
                    let prefix = type + "/"
                    let all = (state.compartments[patient] ?? []).filter { $0.hasPrefix(prefix) }
                    keys = ids.isEmpty ? all : all.filter { ids.contains(String($0.dropFirst(prefix.count))) }
                } else if !ids.isEmpty {
                    keys = ids.map { type + "/" + $0 }
                } else {
                    return nil
                }
                return keys.compactMap { state.resources[$0] }.filter { resource in
                    (resource.patientID == nil || resource.patientID == access.patientID)
                        && bounds.allSatisfy { $0.contains(resource.lastUpdated) }
                        && categories.allSatisfy { Self.matches(tokens: $0, resource.json["category"]) }
                        && codes.allSatisfy { Self.matches(tokens: $0, resource.json["code"]) }
                }
            }
            guard let selected else {
                return Self.outcome(.badRequest, code: "required", "Search \(type) with patient= (or _id=): this server searches one patient's records.")
            }
            let set = ResultSet(patientID: access.patientID, entries: selected.map { ResultSet.Entry(key: $0.key, include: false) },
                                total: selected.count, includeMedications: includeMedications, pageSize: count)
            return firstPage(of: set, request: request)
        }
    }

    /// `GET /fhir/Patient/{id}/$everything[?_since=…][&_type=…][&_count=…]`: the Patient and every resource
    /// that belongs to it, then the Medications they name (`search.mode` `include`). `_since` keeps those
    /// whose `lastUpdated` is at or after it: inclusive, so that a change in the same millisecond as the
    /// previous answer's `meta.lastUpdated` is not lost.
    func everything(_ request: Request, patientID: String) async -> Response {
        guard configuration.offersEverything else {
            let fault = begin(.everything, kind: .open)
            if let answer = await answer(for: fault, style: .fhir) { return answer }
            return Self.outcome(.notFound, code: "not-supported", "The operation $everything is not supported by this server.")
        }
        return await api(request, .everything) { access in
            guard patientID == access.patientID else { return forbidden("This token is for another patient.") }
            let query = request.query
            var since: Int64?
            if let value = query["_since"] {
                state.withLock { $0.stats.sinceValues.append(value) }
                guard let parsed = Instant.parse(value) else {
                    return Self.outcome(.badRequest, code: "invalid", "_since=\(value) is not an instant (a + in the time zone is sent as %2B).")
                }
                since = parsed
            }
            let types = query.values(for: "_type").flatMap { $0.split(separator: ",").map(String.init) }
            guard let count = pageSize(query) else {
                return Self.outcome(.badRequest, code: "invalid", "_count=\(query["_count"] ?? "") is not a number of entries.")
            }
            let scope = access.scope
            func wanted(_ resource: StoredResource) -> Bool {
                (types.isEmpty || types.contains(resource.type)) && Self.scope(scope, allows: resource.type)
            }
            let entries = state.withLock { state -> [ResultSet.Entry] in
                let changed = { (resource: StoredResource) in since.map { resource.lastUpdated >= $0 } ?? true }
                var entries: [ResultSet.Entry] = []
                var included = Set<String>()
                var all: [StoredResource] = []
                if let patient = state.resources["Patient/" + patientID] { all.append(patient) }
                all += (state.compartments[patientID] ?? []).compactMap { state.resources[$0] }
                for resource in all where wanted(resource) && changed(resource) {
                    entries.append(ResultSet.Entry(key: resource.key, include: false))
                }
                // Medications the record refers to: those a listed resource names, and those changed since.
                for resource in all {
                    let listed = changed(resource) && wanted(resource)
                    for key in resource.medications where !included.contains(key) {
                        guard let medication = state.resources[key], wanted(medication), listed || changed(medication) else { continue }
                        included.insert(key)
                        entries.append(ResultSet.Entry(key: key, include: true))
                    }
                }
                return entries
            }
            let set = ResultSet(patientID: patientID, entries: entries, total: entries.count, includeMedications: false, pageSize: count)
            return firstPage(of: set, request: request)
        }
    }

    /// `GET /fhir/_page?id=…&_offset=…`: a next page of a search kept in memory.
    func page(_ request: Request) async -> Response {
        await api(request, .page) { access in
            guard let id = request.query["id"], let offset = Int(request.query["_offset"] ?? "0"), offset >= 0 else {
                return Self.outcome(.badRequest, code: "invalid", "A page is asked for with id= and _offset=.")
            }
            guard let set = state.withLock({ $0.resultSets[id] }) else {
                return Self.outcome(.gone, code: "not-found", "This search has expired (or never was); search again.")
            }
            guard set.patientID == access.patientID else { return forbidden("This token is for another patient.") }
            let url = baseURL + "/_page?id=" + id + "&_offset=" + String(offset)
            return pageResponse(of: set, setID: id, offset: offset, selfURL: url)
        }
    }

    // MARK: Pages

    /// `_count`, at most `maxPageSize`, or the configured page size; nil when it is not a number.
    func pageSize(_ query: Query) -> Int? {
        guard let text = query["_count"] else { return configuration.pageSize }
        guard let count = Int(text), count >= 0 else { return nil }
        return min(count, configuration.maxPageSize)
    }

    func firstPage(of set: ResultSet, request: Request) -> Response {
        var setID = ""
        if set.pageSize > 0, set.pageSize < set.entries.count {
            setID = Self.randomToken(prefix: "s")
            state.withLock { state in
                state.resultSets[setID] = set
                state.resultSetOrder.append(setID)
                while state.resultSetOrder.count > Self.keptResultSets {
                    state.resultSets[state.resultSetOrder.removeFirst()] = nil
                }
            }
        }
        let url = origin + request.path + (request.rawQuery.map { "?" + $0 } ?? "")
        return pageResponse(of: set, setID: setID, offset: 0, selfURL: url)
    }

    /// A searchset Bundle: the entries from `offset`, the Medications they name when asked to, the
    /// total, and the links.
    func pageResponse(of set: ResultSet, setID: String, offset: Int, selfURL: String) -> Response {
        let end = min(set.entries.count, offset + set.pageSize)
        let slice = offset < end ? Array(set.entries[offset..<end]) : []
        let (resources, now) = state.withLock { state -> ([(StoredResource, Bool)], Int64) in
            var resources: [(StoredResource, Bool)] = slice.compactMap { entry in state.resources[entry.key].map { ($0, entry.include) } }
            if set.includeMedications {
                var seen = Set(resources.map { $0.0.key })
                for (resource, _) in resources {
                    for key in resource.medications where !seen.contains(key) {
                        seen.insert(key)
                        if let medication = state.resources[key] { resources.append((medication, true)) }
                    }
                }
            }
            state.stats.pagesServed += 1
            state.stats.resourcesServed += resources.count
            return (resources, Self.now(state))
        }
        var out: [UInt8] = []
        out.reserveCapacity(resources.reduce(512) { $0 + $1.0.bytes.count + 200 })
        out += Array(#"{"resourceType":"Bundle","id":"\#(Self.randomToken(prefix: "b"))","meta":{"lastUpdated":"\#(Instant.format(milliseconds: now))"},"#.utf8)
        out += Array(#""type":"searchset","total":\#(set.total),"link":[{"relation":"self","url":\#(JSON.quoted(selfURL))}"#.utf8)
        if set.pageSize > 0, end < set.entries.count {
            let next = baseURL + "/_page?id=" + setID + "&_offset=" + String(end)
            out += Array(#",{"relation":"next","url":\#(JSON.quoted(next))}"#.utf8)
        }
        out += Array("]".utf8)
        if !resources.isEmpty {
            out += Array(#","entry":["#.utf8)
            for (index, (resource, include)) in resources.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += Array(#"{"fullUrl":\#(JSON.quoted(baseURL + "/" + resource.key)),"resource":"#.utf8)
                out += resource.bytes
                out += Array(#","search":{"mode":"\#(include ? "include" : "match")"}}"#.utf8)
            }
            out += Array("]".utf8)
        }
        out += Array("}".utf8)
        return Self.fhir(out)
    }

    // MARK: Access

    /// Counts the request, applies its fault, checks the bearer token, then answers with `body`
    /// (truncated, if the fault says so).
    func api(_ request: Request, _ target: Target, _ body: (Access) async -> Response) async -> Response {
        let accept = request.headers[canonicalForm: "Accept"].map { $0.lowercased() }
        if !accept.contains(where: { $0.contains("json") }) { state.withLock { $0.stats.missingAccept += 1 } }
        let fault = begin(target, kind: .api)
        if let answer = await answer(for: fault, style: .fhir) { return answer }
        guard let access = authenticate(request) else {
            return Self.unauthorizedAnswer(error: request.headers.first(name: "Authorization") == nil && request.query["access_token"] == nil
                ? nil : "The access token is missing, unknown or expired.")
        }
        let response = await body(access)
        return fault == .truncate ? Self.truncated(response) : response
    }

    /// The grant of the request's bearer token; nil (counted as a `401`) when there is none that is valid.
    /// A token in the URL is counted and refused.
    func authenticate(_ request: Request) -> Access? {
        state.withLock { state -> Access? in
            if request.query["access_token"] != nil { state.stats.tokensInURL += 1 }
            guard request.query["access_token"] == nil, let header = request.headers.first(name: "Authorization"),
                  header.count > 7, header.prefix(7).lowercased() == "bearer " else {
                state.stats.unauthorized += 1
                return nil
            }
            let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
            guard let grant = state.accessTokens[token], grant.expiresAt > Self.now(state) else {
                state.stats.unauthorized += 1
                return nil
            }
            return Access(patientID: grant.patientID, scope: grant.scope)
        }
    }

    func forbidden(_ text: String) -> Response {
        state.withLock { $0.stats.forbidden += 1 }
        return Self.outcome(.forbidden, code: "forbidden", text)
    }

    /// Whether a SMART scope (v1 `patient/Observation.read`, `patient/*.*`; v2 `patient/Observation.rs`,
    /// with or without a `?…` restriction, which is not applied) lets the token read `type`.
    static func scope(_ scope: String, allows type: String) -> Bool {
        scope.split(separator: " ").contains { item in
            guard item.hasPrefix("patient/") || item.hasPrefix("user/") else { return false }
            var rest = item.drop { $0 != "/" }.dropFirst()
            if let question = rest.firstIndex(of: "?") { rest = rest[..<question] }
            guard let dot = rest.lastIndex(of: ".") else { return false }
            let scopeType = rest[..<dot]
            let permission = rest[rest.index(after: dot)...]
            guard scopeType == "*" || scopeType == type else { return false }
            if permission == "read" || permission == "*" { return true }
            return !permission.isEmpty && permission.allSatisfy { "cruds".contains($0) } && (permission.contains("r") || permission.contains("s"))
        }
    }

    /// The patient id of a `patient=` value: `ID`, `Patient/ID` or an absolute URL ending so.
    static func patientID(reference value: String) -> String? {
        if !value.contains("/") { return value.isEmpty ? nil : value }
        guard let target = FHIRDataset.target(of: value), target.type == "Patient" else { return nil }
        return target.id
    }

    /// Whether a token search value (`code`, `system|code`, `|code`, `system|`; alternatives separated by
    /// commas) matches a CodeableConcept, a list of them, a code or a list of codes.
    static func matches(tokens value: String, _ element: JSON?) -> Bool {
        guard let element else { return false }
        let codings = Self.codings(element)
        return value.split(separator: ",").contains { token in
            let system: Substring?
            let code: Substring
            if let bar = token.firstIndex(of: "|") {
                system = token[..<bar]
                code = token[token.index(after: bar)...]
            } else {
                system = nil
                code = token
            }
            return codings.contains { coding in
                if let system {
                    if system.isEmpty ? coding.system != nil : coding.system != String(system) { return false }
                }
                return code.isEmpty || coding.code == String(code)
            }
        }
    }

    static func codings(_ element: JSON) -> [(system: String?, code: String)] {
        switch element {
        case .array(let items): return items.flatMap { codings($0) }
        case .string(let code): return [(nil, code)]
        case .object:
            return (element["coding"]?.array ?? []).compactMap { coding in
                coding["code"]?.string.map { (coding["system"]?.string, $0) }
            }
        default: return []
        }
    }
}

/// One `_lastUpdated` value: a comparison (`gt`, `ge`, `lt`, `le`, `eq`, none for `eq`) and an instant or
/// a date. Compared as instants (a date stands for its first moment), but `eq` takes in the whole
/// precision of the value (`eq2026-01-01` is that day).
struct DateBound {
    var comparison: String
    var start: Int64
    var end: Int64

    init?(_ text: String) {
        var value = Substring(text)
        comparison = "eq"
        for prefix in ["gt", "ge", "lt", "le", "eq"] where value.hasPrefix(prefix) {
            comparison = prefix
            value = value.dropFirst(2)
            break
        }
        guard let start = Instant.parse(String(value)) else { return nil }
        self.start = start
        switch value.count {
        case 4: end = Instant.parse(String(Int(value)! + 1)) ?? start
        case 7:
            let year = Int64(value.prefix(4))!
            let month = Int64(value.suffix(2))!
            end = CivilDate.epochDays(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) * 86_400_000
        case 10: end = start + 86_400_000
        default: end = start + (value.contains(".") ? 1 : 1000)
        }
    }

    func contains(_ instant: Int64) -> Bool {
        switch comparison {
        case "gt": instant > start
        case "ge": instant >= start
        case "lt": instant < start
        case "le": instant <= start
        default: instant >= start && instant < end
        }
    }
}
