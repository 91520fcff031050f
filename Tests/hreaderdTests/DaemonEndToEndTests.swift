import Foundation
import Testing
import TestSupport

/// The real `hreaderd` process, used with `curl` as a user would.
@Suite("hreaderd serve, end to end with curl", .enabled(if: which("curl") != nil, "needs curl"))
struct DaemonEndToEndTests {
    let dir = TemporaryDirectory("hreaderd-e2e")
    var state: String { dir.file("state") }
    var environment: [String: String] { ["HREADERD_STATE_DIR": state, "HREADERD_PASSWORD_FILE": dir.file("pw"), "TZ": "UTC"] }

    func hreaderd(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(productsDirectory + "/hreaderd", arguments, environment: environment)
    }

    /// curl with the API token of the test (set once the store exists).
    final class Token: @unchecked Sendable { var value = "" }
    let token = Token()

    func curl(_ arguments: String...) throws -> (status: Int, body: String) {
        let auth = token.value.isEmpty ? [] : ["-H", "Authorization: Bearer \(token.value)"]
        let result = try run(which("curl")!, ["-s", "-o", "-", "-w", "\n%{http_code}"] + auth + arguments)
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test("GET every page, POST a form and a JSON entry, see them echoed, delete one",
          .enabled(if: SharedSamples.available, SharedSamples.skipReason))
    func userSession() throws {
        try "e2e password\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("init").status == 0)
        #expect(try hreaderd("import-file", SharedSamples.path("hreader_hs_henry_smith.json")).status == 0)
        token.value = try hreaderd("token", "create", "--name", "e2e").out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.value.hasPrefix("hrd_"))
        let daemon = try Daemon(state: state, environment: environment)
        defer { #expect(daemon.stop() == 0) }
        let base = "http://127.0.0.1:\(daemon.port)"

        let health = try curl("\(base)/healthz")
        #expect(health.status == 200)
        #expect(json(health.body)["locked"] as? Bool == false)

        for page in ["day", "week", "month", "year", "decade", "all"] {
            let response = try curl("\(base)/timeline.json?page=\(page)&end=2011-01-01")
            #expect(response.status == 200, "page \(page)")
            let body = json(response.body)
            #expect((body["patient"] as? [String: Any])?["name"] as? String == "Henry Smith")
            #expect(body["vitals"] != nil && body["ongoing"] != nil)
        }
        #expect((json(try curl("\(base)/timeline.json?page=year&end=2011-01-01").body)["results"] as? [Any])?.isEmpty == false)

        let form = try curl("-X", "POST", "--data", "pain=4&mood=6+ok", "\(base)/timeline.json?key=Levels")
        #expect(form.status == 201)
        let formID = try #require(json(form.body)["id"] as? String)
        let medication = try curl("-H", "Content-Type: application/json", "--data", #"{"description":"Ibuprofen 200","select-choice-freq":"BID"}"#,
                                  "\(base)/timeline.json?key=NewMedication")
        #expect(medication.status == 201)

        let today = json(try curl("\(base)/timeline.json?page=day").body)
        #expect(today["levels"] as? [String: [String]] == ["pain": ["4"], "mood": ["6 ok"]])
        #expect(today["timeline_medications"] as? [[String: String]] == [["description": "Ibuprofen 200", "select-choice-freq": "BID"]])

        #expect(try curl("-X", "DELETE", "\(base)/timeline/entries/\(formID)").status == 204)
        let after = json(try curl("\(base)/timeline.json?page=day").body)
        #expect((after["levels"] as? [String: Any])?.isEmpty == true)
        #expect((after["timeline_entries"] as? [Any])?.count == 1)

        let patients = json(try curl("\(base)/patients.json").body)
        let id = try #require((patients["patients"] as? [[String: Any]])?.first?["id"] as? String)
        let export = try curl("\(base)/patients/\(id)/export.json")
        #expect(export.status == 200)
        #expect((json(export.body)["entries"] as? [Any])?.count == 138)
        #expect(try curl("\(base)/timeline.json?page=fortnight").status == 400)
    }

    @Test("the password, a token and a record's description never appear in the daemon's log",
          .enabled(if: SharedSamples.available, SharedSamples.skipReason))
    func secretsStayOutOfTheLog() throws {
        let password = "log-check password \(UUID().uuidString)"
        try (password + "\n").write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("init").status == 0)
        #expect(try hreaderd("import-file", SharedSamples.path("hreader_hs_henry_smith.json")).status == 0)
        let secretToken = try hreaderd("token", "create").out.trimmingCharacters(in: .whitespacesAndNewlines)
        // Started locked, with debug logging: the sign-in carries the password through the server.
        let daemon = try Daemon(state: state, arguments: ["--locked"],
                                environment: ["HREADERD_STATE_DIR": state, "TZ": "UTC", "HREADERD_LOG_LEVEL": "debug"])
        let base = "http://127.0.0.1:\(daemon.port)"
        #expect(try curl("\(base)/patients.json").status == 423)
        #expect(try curl("--data-urlencode", "password=wrong \(password)", "\(base)/session").status == 401)
        let signIn = try curl("-c", dir.file("cookies"), "--data-urlencode", "password=\(password)", "\(base)/session")
        #expect(signIn.status == 200)
        let cookie = String(decoding: fileBytes(dir.file("cookies")), as: UTF8.self)
            .split(separator: "\n").last?.split(separator: "\t").last.map(String.init) ?? ""
        #expect(!cookie.isEmpty)
        let timeline = try curl("-H", "Authorization: Bearer \(secretToken)", "\(base)/timeline.json?page=all&end=2011-01-01&patient=")
        #expect(timeline.status == 200)
        #expect(timeline.body.contains("Prostate Specific Antigen Test"))
        #expect(try curl("-H", "Authorization: Bearer \(secretToken)", "--data", "note=private+note+\(password.count)", "\(base)/timeline.json?key=levels").status == 201)
        // A search, an export, the audit trail: their queries and answers stay out of the log too.
        #expect(try curl("-H", "Authorization: Bearer \(secretToken)", "\(base)/search.json?q=Smith%20prostate").status == 200)
        let id = try #require((json(try curl("-H", "Authorization: Bearer \(secretToken)", "\(base)/patients.json").body)["patients"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try curl("-H", "Authorization: Bearer \(secretToken)", "\(base)/patients/\(id)/export.json").status == 200)
        let audit = try curl("-H", "Authorization: Bearer \(secretToken)", "\(base)/audit.json")
        #expect(audit.status == 200 && audit.body.contains("\"export\""))
        #expect(daemon.stop() == 0)
        let log = daemon.output
        #expect(log.contains("POST /session"), "the access log is there")
        // Henry Smith's identifiers: his names, his record's id, his birth date (1939-03-08) in the forms a log could print.
        for secret in [password, secretToken, cookie, "Prostate Specific Antigen Test", "Henry Smith", "private note", "Henry", "Smith",
                       "4f4e9fcbb615219f0a000001", "-972586800", "1939-03-08", "19390308"] {
            #expect(!log.contains(secret), "the log holds \(secret)")
        }
    }

    @Test("SIGTERM stops the daemon cleanly, and it says where it listened")
    func stopsCleanly() throws {
        try "pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("init").status == 0)
        let daemon = try Daemon(state: state, environment: environment)
        #expect(try curl("http://127.0.0.1:\(daemon.port)/healthz").status == 200)
        #expect(daemon.stop() == 0)
        #expect(daemon.output.contains("listening on 127.0.0.1:\(daemon.port)"))
        #expect(daemon.output.contains("stopped"))
    }

    @Test("a change by another process shows at once, though the page was answered from the cache; a token revoked by the CLI stops at once")
    func otherProcessWrites() throws {
        try "pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("init").status == 0)
        #expect(try run(productsDirectory + "/generate-records", ["--seed", "5", "--entries", "200", "--output", dir.file("family.ndjson")]).status == 0)
        let first = try #require(String(decoding: fileBytes(dir.file("family.ndjson")), as: UTF8.self).split(separator: "\n").first)
        try String(first).write(toFile: dir.file("record.json"), atomically: true, encoding: .utf8)
        #expect(try hreaderd("import-file", dir.file("record.json")).status == 0)
        token.value = try hreaderd("token", "create").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let daemon = try Daemon(state: state, environment: environment)
        defer { #expect(daemon.stop() == 0) }
        let page = "http://127.0.0.1:\(daemon.port)/timeline.json?page=year&end=2024-12-31"
        let before = try curl(page)
        #expect(before.status == 200)
        #expect(try curl(page).body == before.body, "the same page again, now from the cache")
        #expect(!before.body.contains("Cross-process marker"))

        // The same record with one more condition, imported by another process while the daemon serves.
        var record = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        var conditions = record["conditions"] as? [[String: Any]] ?? []
        conditions.append(["_id": "cross-process-1", "description": "Cross-process marker", "start_time": 1_730_000_000,
                           "codes": ["SNOMED-CT": ["38341003"]]])
        record["conditions"] = conditions
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: dir.file("record.json")))
        #expect(try hreaderd("import-file", dir.file("record.json")).status == 0)
        #expect(try curl(page).body.contains("Cross-process marker"), "the cached page is not served after the import")

        let id = try #require(try hreaderd("token", "list").out.split(separator: "\n").last?.split(separator: " ").first.map(String.init))
        #expect(try hreaderd("token", "revoke", id).status == 0)
        #expect(try curl(page).status == 401, "revoked by another process: refused at once")
    }
}
