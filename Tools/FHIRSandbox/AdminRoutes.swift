import Foundation
import HTTPKit

/// `/_sandbox/…`: what a test drives the sandbox with when it runs as a process (the browser tests run
/// `fhir-sandbox`): faults, stats, the clock, resource updates. Only the sandbox has such routes, and
/// they are open to anyone who reaches the port: never a model for a real server.
extension FHIRSandbox {
    func addAdminRoutes(to router: inout Router) {
        // {"fault": "500" | "429=SECONDS" | "delay=SECONDS" | "truncate" | "expired-token" | "refuse-refresh"
        //  | "outcome=STATUS:TEXT", "target": "token" | "everything" | "search" | "page" | "read" | "metadata"
        //  | "authorize" | "any" (the default), "count": N (1 when absent) | null (always)}
        router.post("/_sandbox/faults", bodyLimit: 16 * 1024) { [self] request, _ in
            let object = try Self.jsonObject(request)
            guard let text = object["fault"] as? String else { throw HTTPError.badRequest("fault is required", code: "bad_fault") }
            let fault: Fault
            let target: Target
            do {
                fault = try Fault(parsing: text)
                guard let parsed = Target(rawValue: (object["target"] as? String) ?? "any") else {
                    throw SpecError("unknown target \(object["target"] ?? "")")
                }
                target = parsed
            } catch {
                throw HTTPError.badRequest("\(error)", code: "bad_fault")
            }
            let count: Int?
            switch object["count"] {
            case nil: count = 1
            case is NSNull: count = nil
            case let number as NSNumber where number.intValue > 0: count = number.intValue
            default: throw HTTPError.badRequest("count is a positive number or null (always)", code: "bad_fault")
            }
            inject(fault, target: target, count: count)
            return Response(status: .noContent)
        }
        router.delete("/_sandbox/faults") { [self] _, _ in
            clearFaults()
            return Response(status: .noContent)
        }
        router.get("/_sandbox/stats") { [self] _, _ in
            let data = try JSONSerialization.data(withJSONObject: Self.statsObject(stats), options: [.sortedKeys, .withoutEscapingSlashes])
            return .json(ByteBuffer(bytes: data))
        }
        router.delete("/_sandbox/stats") { [self] _, _ in
            resetStats()
            return Response(status: .noContent)
        }
        // {"now": EPOCH_SECONDS} sets the clock; {"advance": SECONDS} moves it on; {} back to the wall clock.
        router.post("/_sandbox/clock", bodyLimit: 1024) { [self] request, _ in
            let object = try Self.jsonObject(request)
            if let now = object["now"] as? NSNumber {
                setNow(now.int64Value)
            } else if let seconds = object["advance"] as? NSNumber {
                advanceClock(by: seconds.int64Value)
            } else {
                resumeWallClock()
            }
            return .json(#"{"now":\#(self.now)}"#)
        }
        // The body is the new resource: stamped with the clock's now, as `update` does.
        router.put("/_sandbox/resources/{type}/{id}", bodyLimit: 4 * 1024 * 1024) { [self] request, context in
            do {
                try update(resourceType: try context.parameters.require("type"), id: try context.parameters.require("id"),
                           json: Array(request.body.readableBytesView))
            } catch {
                throw HTTPError.badRequest("\(error)", code: "bad_resource")
            }
            return Response(status: .noContent)
        }
    }

    static func jsonObject(_ request: Request) throws -> [String: Any] {
        let bytes = Array(request.body.readableBytesView)
        guard !bytes.isEmpty else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw HTTPError.badRequest("The body is not a JSON object.", code: "bad_json")
        }
        return object
    }

    static func statsObject(_ stats: Stats) -> [String: Any] {
        var object: [String: Any] = [
            "requests": Dictionary(uniqueKeysWithValues: stats.requests.map { ($0.key.rawValue, $0.value) }),
            "grantsIssued": stats.grantsIssued,
            "grantsRefused": stats.grantsRefused,
            "clientAuthenticationFailures": stats.clientAuthenticationFailures,
            "pkceVerified": stats.pkceVerified,
            "pkceFailures": stats.pkceFailures,
            "sinceValues": stats.sinceValues,
            "lastUpdatedValues": stats.lastUpdatedValues,
            "pagesServed": stats.pagesServed,
            "resourcesServed": stats.resourcesServed,
            "unauthorized": stats.unauthorized,
            "forbidden": stats.forbidden,
            "tooManyRequests": stats.tooManyRequests,
            "tokensInURL": stats.tokensInURL,
            "missingAccept": stats.missingAccept,
            "faultsServed": stats.faultsServed,
        ]
        if let method = stats.lastClientAuthentication { object["lastClientAuthentication"] = method }
        if let query = stats.lastAuthorizeQuery {
            var fields: [String: Any] = [:]
            let pairs: [(String, String?)] = [
                ("response_type", query.responseType), ("client_id", query.clientID), ("redirect_uri", query.redirectURI),
                ("scope", query.scope), ("state", query.state), ("aud", query.aud), ("code_challenge", query.codeChallenge),
                ("code_challenge_method", query.codeChallengeMethod),
            ]
            for (name, value) in pairs { if let value { fields[name] = value } }
            object["lastAuthorizeQuery"] = fields
        }
        return object
    }
}
