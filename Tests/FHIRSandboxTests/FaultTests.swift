import Foundation
@testable import FHIRSandbox
import TestSupport
import Testing

@Suite("Faults")
struct FaultTests {
    enum Request: String, CustomStringConvertible {
        case everything, search, page, read, metadata, code, refresh
        var description: String { rawValue }
    }

    static let cases: [(FHIRSandbox.Fault, FHIRSandbox.Target, Request)] = [
        (.status(500), .everything, .everything),
        (.status(503), .token, .code),
        (.status(502), .any, .metadata),
        (.tooManyRequests(retryAfter: 7), .search, .search),
        (.tooManyRequests(retryAfter: 2), .token, .refresh),
        (.delay(seconds: 0.4), .page, .page),
        (.truncate, .everything, .everything),
        (.truncate, .page, .page),
        (.truncate, .token, .code),
        (.truncate, .metadata, .metadata),
        (.expiredToken, .read, .read),
        (.expiredToken, .any, .search),
        (.refuseRefresh, .token, .refresh),
        (.operationOutcome(status: 503, text: "Down for maintenance"), .search, .search),
    ]

    @Test("each fault answers as it says once, then the same request succeeds", arguments: cases)
    func once(fault: FHIRSandbox.Fault, target: FHIRSandbox.Target, request: Request) async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let first = try await harness.get("/fhir/Observation?patient=alice&_count=2", token: tokens.access)
            let next = try #require(((first.object["link"] as? [[String: Any]]) ?? []).last?["url"] as? String)
            var refreshToken = try #require(tokens.refresh)
            let send = { () async throws -> HTTPTestClient.Response in
                switch request {
                case .everything: return try await harness.get("/fhir/Patient/alice/$everything", token: tokens.access)
                case .search: return try await harness.get("/fhir/Observation?patient=alice", token: tokens.access)
                case .page: return try await harness.get(next, token: tokens.access)
                case .read: return try await harness.get("/fhir/Patient/alice", token: tokens.access)
                case .metadata: return try await harness.get("/fhir/metadata", token: nil)
                case .code: return try await harness.exchange(code: try await harness.code())
                case .refresh:
                    let response = try await harness.refresh(refreshToken)
                    if let rotated = response.object["refresh_token"] as? String { refreshToken = rotated }
                    return response
                }
            }
            harness.sandbox.resetStats()
            harness.sandbox.inject(fault, target: target, count: 1)
            let started = ContinuousClock.now
            let faulty = try await send()
            let elapsed = ContinuousClock.now - started
            switch fault {
            case .status(let code):
                #expect(faulty.status == code)
                if request == .code {
                    #expect(faulty.object["error"] as? String == "temporarily_unavailable")
                } else {
                    #expect(faulty.object["resourceType"] as? String == "OperationOutcome")
                }
            case .tooManyRequests(let seconds):
                #expect(faulty.status == 429)
                #expect(faulty.header("Retry-After") == String(seconds))
                #expect(harness.sandbox.stats.tooManyRequests == 1)
            case .delay(let seconds):
                #expect(faulty.status == 200)
                #expect(elapsed >= .milliseconds(Int64(seconds * 1000)))
            case .truncate:
                #expect(faulty.status == 200)
                let promised = try #require(faulty.header("Content-Length").flatMap { Int($0) })
                #expect(faulty.body.count < promised)
                #expect(faulty.body.count >= promised / 2 - 1)
                #expect((try? JSONSerialization.jsonObject(with: Data(faulty.body))) == nil)
            case .expiredToken:
                #expect(faulty.status == 401)
                #expect(faulty.header("WWW-Authenticate")?.contains("invalid_token") == true)
            case .refuseRefresh:
                #expect(faulty.status == 400 && faulty.object["error"] as? String == "invalid_grant")
                #expect(harness.sandbox.stats.grantsRefused["refresh_token"] == 1)
            case .operationOutcome(let status, let text):
                #expect(faulty.status == status && faulty.diagnostics == text)
            }
            #expect(harness.sandbox.stats.faultsServed == 1)
            let normal = try await send()
            #expect(normal.status == 200, "\(normal.text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(normal.body))) != nil)
            #expect(harness.sandbox.stats.faultsServed == 1)
        }
    }

    @Test("a fault on a target leaves the others alone; count nil keeps it on until cleared; faults go in order")
    func targetsAndCounts() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            harness.sandbox.inject(.status(500), target: .everything, count: nil)
            harness.sandbox.inject(.status(503), target: .search, count: 2)
            harness.sandbox.inject(.status(504), target: .search, count: 1)
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).status == 200)
            for _ in 0..<3 { #expect(try await harness.get("/fhir/Patient/alice/$everything", token: tokens.access).status == 500) }
            let statuses = try await [0, 1, 2, 3].asyncMap { _ in try await harness.get("/fhir/Condition?patient=alice", token: tokens.access).status }
            #expect(statuses == [503, 503, 504, 200])
            harness.sandbox.clearFaults()
            #expect(try await harness.get("/fhir/Patient/alice/$everything", token: tokens.access).status == 200)
            // expired-token skips what needs no token; refuse-refresh skips code exchanges.
            harness.sandbox.inject(.expiredToken)
            harness.sandbox.inject(.refuseRefresh)
            #expect(try await harness.get("/fhir/metadata", token: nil).status == 200)
            #expect(try await harness.exchange(code: try await harness.code()).status == 200)
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).status == 401)
            #expect(try await harness.refresh(try #require(tokens.refresh)).status == 400)
        }
    }

    @Test("a hang ends when the sandbox shuts down")
    func hang() async throws {
        var configuration = FHIRSandbox.Configuration()
        configuration.autoApprove = true
        let sandbox = try FHIRSandbox(configuration: configuration, bundles: [TestData.bundle])
        let port = try await sandbox.start()
        sandbox.inject(.delay(seconds: 600), target: .metadata)
        let started = ContinuousClock.now
        async let answer = HTTPTestClient(port: port).get("/fhir/metadata")
        try await Task.sleep(for: .milliseconds(300))
        await sandbox.shutdown()
        _ = try? await answer
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("the admin routes: faults from JSON, stats as JSON, the clock, resources")
    func admin() async throws {
        try await Harness.with { harness in
            let tokens = try await harness.signIn()
            let injected = try await harness.http.post("/_sandbox/faults", json: #"{"fault":"429=3","target":"read","count":2}"#)
            #expect(injected.status == 204)
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).header("Retry-After") == "3")
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).status == 429)
            #expect(try await harness.get("/fhir/Patient/alice", token: tokens.access).status == 200)
            #expect(try await harness.http.post("/_sandbox/faults", json: #"{"fault":"500","count":null}"#).status == 204)
            #expect(try await harness.get("/fhir/metadata", token: nil).status == 500)
            #expect(try await harness.get("/fhir/metadata", token: nil).status == 500)
            #expect(try await harness.http.send("DELETE", "/_sandbox/faults").status == 204)
            #expect(try await harness.get("/fhir/metadata", token: nil).status == 200)
            #expect(try await harness.http.post("/_sandbox/faults", json: #"{"fault":"explode"}"#).status == 400)

            let stats = try await harness.http.get("/_sandbox/stats")
            #expect(stats.status == 200)
            #expect((stats.object["requests"] as? [String: Int])?["read"] == 3)
            #expect(stats.object["tooManyRequests"] as? Int == 2)
            #expect(stats.object["pkceVerified"] as? Bool == true)
            #expect((stats.object["lastAuthorizeQuery"] as? [String: String])?["code_challenge_method"] == "S256")

            let clock = try await harness.http.post("/_sandbox/clock", json: #"{"now":1770000000}"#)
            #expect(clock.object["now"] as? Int == 1_770_000_000)
            let put = try await harness.http.send("PUT", "/_sandbox/resources/Observation/obs-1", headers: ["Content-Type": "application/json"],
                                                     body: Array(#"{"resourceType":"Observation","status":"cancelled","subject":{"reference":"Patient/alice"}}"#.utf8))
            #expect(put.status == 204)
            let changed = try await harness.allPages("/fhir/Observation?patient=alice&_lastUpdated=ge2026-02-02T02:40:00Z", token: tokens.access)
            #expect(changed.entries.count == 1)
            #expect(try await harness.http.send("DELETE", "/_sandbox/stats").status == 204)
            #expect(harness.sandbox.stats == FHIRSandbox.Stats())
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
