import Foundation
@testable import ImportJobs
import Records
@testable import RHExClient
import SyntheticRecords
import RHExSandbox
import HealthRecord
import Store
import Testing

@Suite("OAuth2 and RHEx protocol pieces")
struct ProtocolTests {
    @Test("a token response gives the access token, its lifetime and the refresh token")
    func tokenResponse() throws {
        let parsed = try TokenResponse.parse(Array(#"{"access_token":"at_1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt_1"}"#.utf8))
        #expect(parsed == TokenResponse(accessToken: "at_1", expiresIn: 3600, refreshToken: "rt_1"))
        let stringLifetime = try TokenResponse.parse(Array(#"{"access_token":"at_2","expires_in":"120"}"#.utf8))
        #expect(stringLifetime.expiresIn == 120)
        #expect(stringLifetime.refreshToken == nil)
    }

    @Test("token responses that are not bearer tokens are refused", arguments: [
        #"{"token_type":"bearer"}"#,
        #"{"access_token":"","token_type":"bearer"}"#,
        #"{"access_token":"at","token_type":"mac"}"#,
        #"{"access_token":"has space","token_type":"bearer"}"#,
        "[1,2]",
        "not json",
    ])
    func badTokenResponse(body: String) {
        #expect(throws: SyncError.self) { try TokenResponse.parse(Array(body.utf8)) }
    }

    @Test("the error code of an OAuth2 error answer")
    func errorCode() {
        #expect(TokenResponse.errorCode(Array(#"{"error":"invalid_grant","error_description":"expired"}"#.utf8)) == "invalid_grant")
        #expect(TokenResponse.errorCode(Array(#"{"error":"<script>"}"#.utf8)) == nil)
        #expect(TokenResponse.errorCode(Array("<html>".utf8)) == nil)
    }

    @Test("form fields are percent-encoded, all but the unreserved characters")
    func formEncoding() {
        #expect(OAuthClient.formEncode([("grant_type", "password"), ("password", "p&ss=w+rd é/ ~")])
                == "grant_type=password&password=p%26ss%3Dw%2Brd%20%C3%A9%2F%20~")
    }

    @Test("endpoints resolve beneath the base URL, with the record id as one encoded segment")
    func endpoints() throws {
        let endpoints = try RHExEndpoints(url: "https://pds.example.org/rhex")
        #expect(endpoints.feed.absoluteString == "https://pds.example.org/rhex/")
        #expect(endpoints.token.absoluteString == "https://pds.example.org/rhex/oauth2/token")
        #expect(endpoints.record("42").absoluteString == "https://pds.example.org/rhex/records/42/c32/42.json")
        #expect(endpoints.record("a b/é").absoluteString == "https://pds.example.org/rhex/records/a%20b%2F%C3%A9/c32/a%20b%2F%C3%A9.json")
        #expect(endpoints.isInsecure == false)
        #expect(try RHExEndpoints(url: "http://127.0.0.1:8421/").isInsecure == false)
        #expect(try RHExEndpoints(url: "http://pds.example.org/").isInsecure == true)
    }

    @Test("a source URL must be http(s) with a host, and carry no credentials, query or fragment", arguments: [
        "ftp://pds.example.org/", "pds.example.org", "https://", "https://user:pw@pds.example.org/",
        "https://pds.example.org/?access_token=x", "https://pds.example.org/#top",
    ])
    func badURL(url: String) {
        #expect(RHExEndpoints.problem(with: url) != nil)
        #expect(throws: SyncError.self) { try RHExEndpoints(url: url) }
    }

    @Test("backoff grows exponentially to its cap, with jitter in the upper half", arguments: 1...8)
    func backoff(attempt: Int) {
        let backoff = Backoff(attempts: 10, baseSeconds: 1, maximumSeconds: 20)
        let ceiling = backoff.ceiling(after: attempt)
        #expect(ceiling == min(20, Double(1 << (attempt - 1))))
        for _ in 0..<50 {
            let delay = backoff.delay(after: attempt)
            #expect(delay >= ceiling / 2 && delay <= ceiling)
        }
    }

    @Test("only network trouble, time-outs, truncation, 408, 429 and 5xx are worth a retry")
    func transient() {
        #expect(SyncError.network(url: "u", reason: "r").isTransient)
        #expect(SyncError.timedOut(url: "u", seconds: 1).isTransient)
        #expect(SyncError.truncated(url: "u", received: 1, expected: 2).isTransient)
        #expect(SyncError.status(url: "u", code: 503).isTransient)
        #expect(SyncError.status(url: "u", code: 429).isTransient)
        #expect(!SyncError.status(url: "u", code: 404).isTransient)
        #expect(!SyncError.needsSignIn("x").isTransient)
        #expect(!SyncError.badRecord(recordID: "1", reason: "x").isTransient)
        #expect(!SyncError.tooLarge(url: "u", limit: 1).isTransient)
    }

    @Test("the sandbox's ETag is the SHA-256 of the record's bytes")
    func sandboxETag() {
        #expect(SandboxRecord(id: "1", bytes: Array("abc".utf8)).etag
                == "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"")
        #expect(SandboxRecord(id: "1", bytes: []).etag
                == "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"")
        let long = [UInt8](repeating: 0x61, count: 1000)
        #expect(SandboxRecord(id: "1", bytes: long).etag == "\"41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3\"")
    }

    @Test("secrets and tokens never show in descriptions")
    func redaction() {
        let secrets = SourceSecretsProbe.secrets
        #expect(!"\(secrets)".contains("hunter2"))
        #expect(!String(reflecting: secrets).contains("hunter2"))
        var dumped = ""
        dump(secrets, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }
}

enum SourceSecretsProbe {
    static let secrets = SourceSecrets(clientSecret: "hunter2", userPassword: "hunter2", authorizationCode: "hunter2")
}
