import Foundation
import HealthRecord
import Store
import TestSupport
import Testing
@testable import TimelineAPI

/// `POST /imports/files` and `GET /imports/jobs/{id}`: an upload is read at once, imported by a job, and
/// reported; bad uploads are refused and change nothing.
@Suite("uploading files")
struct FileUploadTests {
    static let bundle = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"p1","name":[{"given":["Ada"],"family":"Lovelace"}],"birthDate":"1815-12-10"}},{"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"},"onsetDateTime":"2010-01-01"}},{"resource":{"resourceType":"Claim","id":"x","patient":{"reference":"Patient/p1"}}}]}"#

    static func upload(_ served: ServedApp, _ body: String, type: String = "application/fhir+json", query: String = "name=ada.json") async throws -> HTTPTestClient.Response {
        try await served.client.send("POST", "/imports/files?\(query)", headers: ["Content-Type": type], body: Array(body.utf8))
    }

    /// The job once it is over.
    static func finished(_ served: ServedApp, _ location: String) async throws -> [String: Any] {
        for _ in 0..<200 {
            let response = try await served.client.get(location)
            let job = response.object["job"] as? [String: Any]
            if let state = job?["state"] as? String, state != "running" { return response.object }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the job did not finish")
    }

    @Test("an upload answers 202 with its job; the job ends with the report; the patient is on the timeline")
    func uploads() async throws {
        try await ServedApp.with { served in
            let response = try await Self.upload(served, Self.bundle)
            #expect(response.status == 202)
            let location = try #require(response.header("Location"))
            #expect((response.object["job"] as? [String: Any])?["trigger"] as? String == "upload")
            let done = try await Self.finished(served, location)
            let job = try #require(done["job"] as? [String: Any])
            #expect(job["state"] as? String == "done")
            #expect((job["entries"] as? [String: Any])?["added"] as? Int == 1)
            let report = try #require(done["report"] as? [String: Any])
            let patient = try #require((report["patients"] as? [[String: Any]])?.first)
            #expect(patient["name"] as? String == "Ada Lovelace")
            #expect(patient["change"] as? String == "added")
            #expect(patient["kept"] as? [String: Int] == ["Claim": 1])
            #expect(((patient["entries"] as? [String: Any])?["conditions"] as? [String: Int])?["added"] == 1)
            let id = try #require(patient["id"] as? String)
            let timeline = try await served.client.get("/timeline.json?page=all&patient=\(id)")
            #expect((timeline.object["conditions"] as? [[String: Any]])?.first?["description"] as? String == "Asthma")
            #expect(try served.store.importedFilesSync().map(\.name) == ["ada.json"])
        }
    }

    @Test("not JSON, an empty bundle, a refused patient: 400 bad_file, nothing kept, no job")
    func badFiles() async throws {
        try await ServedApp.with { served in
            for bad in ["not json", #"{"resourceType":"Bundle","type":"collection","entry":[]}"#,
                        #"{"resourceType":"Condition","id":"c","subject":{"reference":"Patient/p"},"onsetDateTime":false}"#, ""] {
                let response = try await Self.upload(served, bad)
                #expect(response.status == 400, "\(bad)")
                #expect(response.errorCode == "bad_file")
            }
            #expect(try served.store.importedFilesSync().isEmpty)
            #expect(try served.store.patientsSync().isEmpty)
            #expect(try await served.store.importJobs().isEmpty)
        }
    }

    @Test("another media type is 415; an unknown patient= is 404")
    func refused() async throws {
        try await ServedApp.with { served in
            let html = try await Self.upload(served, Self.bundle, type: "text/html")
            #expect(html.status == 415 && html.errorCode == "unsupported_media_type")
            let form = try await Self.upload(served, Self.bundle, type: "multipart/form-data; boundary=x")
            #expect(form.status == 415)
            let unknown = try await Self.upload(served, Self.bundle, query: "name=a.json&patient=p_nobody")
            #expect(unknown.status == 404)
            #expect(try served.store.patientsSync().isEmpty)
        }
    }

    @Test("the upload limit, at its edge: exactly the limit is taken, one byte more is 413")
    func limit() async throws {
        let limit = Self.bundle.utf8.count + 100
        try await ServedApp.with(uploadLimit: limit) { served in
            let exact = Self.bundle + String(repeating: " ", count: 100)
            #expect(try await Self.upload(served, exact).status == 202)
            let over = try await Self.upload(served, exact + " ")
            #expect(over.status == 413)
        }
    }

    @Test("a job left running by a stopped daemon reads as failed, interrupted")
    func interrupted() async throws {
        try await ServedApp.with { served in
            let job = try await served.store.startFileImportJob(owner: "upload:1:gone")
            let response = try await served.client.get("/imports/jobs/\(job.id)")
            let state = response.object["job"] as? [String: Any]
            #expect(state?["state"] as? String == "failed")
            #expect((state?["last_error"] as? String)?.hasPrefix("interrupted") == true)
            #expect(try await served.client.get("/imports/jobs/999").status == 404)
            #expect(try await served.client.get("/imports/jobs/abc").status == 404)
        }
    }

    @Test("file names are kept as their last segment, printable and bounded")
    func names() {
        #expect(FileUploadRoutes.fileName("../../etc/passwd") == "passwd")
        #expect(FileUploadRoutes.fileName("a\u{7}b.json") == "ab.json")
        #expect(FileUploadRoutes.fileName(nil) == "upload")
        #expect(FileUploadRoutes.fileName(String(repeating: "x", count: 500)).count == FileUploadRoutes.maxNameLength)
    }
}
