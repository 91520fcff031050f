import Foundation
import HTTPKit
import TestSupport
import Testing

@Suite("Static files")
struct FileServerTests {
    static let secret = "TOP SECRET outside the root"
    /// 3 MB that are not all alike, made once for all tests.
    static let bigFile: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: 3_000_000)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 997) { buffer[index] = UInt8(truncatingIfNeeded: index / 997) }
        }
        return bytes
    }()

    /// root/ with files of several kinds, and outside/ next to it with a secret.
    static func fixture() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("httpkit-tests")
        try directory.file("root/index.html", "<h1>home</h1>")
        try directory.file("root/app.js", "console.log(1)")
        try directory.file("root/style.css", "body{}")
        try directory.file("root/data.json", "{}")
        try directory.file("root/logo.png", bytes: [0x89, 0x50, 0x4E, 0x47])
        try directory.file("root/notes.xyz", "?")
        try directory.file("root/PAGE.HTML", "<p>upper</p>")
        try directory.file("root/sub/index.html", "<h1>sub</h1>")
        try directory.file("root/sub/page.txt", "page")
        try directory.directory("root/empty")
        try directory.file("root/.hidden", "hidden")
        try directory.file("root/big.bin", bytes: bigFile)
        try directory.file("outside/secret.txt", secret)
        try directory.symlink("root/link-inside.js", to: directory.path + "/root/app.js")
        try directory.symlink("root/alias", to: "sub")
        try directory.symlink("root/link-out", to: directory.path + "/outside/secret.txt")
        try directory.symlink("root/link-dir-out", to: directory.path + "/outside")
        _ = mkfifo(directory.path + "/root/pipe", 0o600)
        return directory
    }

    func withFileServer(_ body: (TestServer, TemporaryDirectory) async throws -> Void) async throws {
        let directory = try Self.fixture()
        defer { directory.remove() }
        var router = Router()
        router.mount("/files/", files: try FileServer(root: directory.path + "/root"))
        try await withServer(router: router) { server in
            try await body(server, directory)
        }
    }

    func get(_ server: TestServer, _ path: String, _ headers: String...) async throws -> ParsedResponse {
        try await server.roundTrip(http(["GET \(path) HTTP/1.1", "Host: x"] + headers))
    }

    @Test("files are served with a content type from their extension", arguments: [
        ("/files/index.html", "text/html; charset=utf-8"),
        ("/files/app.js", "text/javascript; charset=utf-8"),
        ("/files/style.css", "text/css; charset=utf-8"),
        ("/files/data.json", "application/json; charset=utf-8"),
        ("/files/logo.png", "image/png"),
        ("/files/notes.xyz", "application/octet-stream"),
        ("/files/PAGE.HTML", "text/html; charset=utf-8"),
        ("/files/sub/page.txt", "text/plain; charset=utf-8"),
    ])
    func contentTypes(path: String, type: String) async throws {
        try await self.withFileServer { server, _ in
            let response = try await self.get(server, path)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == type)
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.header("ETag")?.hasPrefix("\"") == true)
            #expect(response.header("Last-Modified")?.hasSuffix(" GMT") == true)
        }
    }

    @Test("a directory serves its index.html; without the slash it redirects to it")
    func directories() async throws {
        try await self.withFileServer { server, _ in
            #expect(try await self.get(server, "/files/").bodyText == "<h1>home</h1>")
            #expect(try await self.get(server, "/files/sub/").bodyText == "<h1>sub</h1>")
            let redirect = try await self.get(server, "/files/sub")
            #expect(redirect.status == 301)
            #expect(redirect.header("Location") == "/files/sub/")
            let top = try await self.get(server, "/files")
            #expect(top.status == 301)
            #expect(top.header("Location") == "/files/")
            #expect(try await self.get(server, "/files/empty/").status == 404)
            #expect(try await self.get(server, "/files/app.js/").status == 404)
            #expect(try await self.get(server, "/files/app.js/x").status == 404)
        }
    }

    @Test("a matching If-None-Match or a fresh If-Modified-Since is 304 without a body")
    func notModified() async throws {
        try await self.withFileServer { server, _ in
            let first = try await self.get(server, "/files/app.js")
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))

            let byTag = try await self.get(server, "/files/app.js", "If-None-Match: \(etag)")
            #expect(byTag.status == 304)
            #expect(byTag.header("ETag") == etag)
            #expect(byTag.header("Cache-Control") == "no-cache")
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("Content-Length") == nil)
            #expect(try await self.get(server, "/files/app.js", "If-None-Match: \"other\", W/\(etag)").status == 304)
            #expect(try await self.get(server, "/files/app.js", "If-None-Match: *").status == 304)
            #expect(try await self.get(server, "/files/app.js", "If-Modified-Since: \(modified)").status == 304)

            #expect(try await self.get(server, "/files/app.js", "If-None-Match: \"stale\"").status == 200)
            #expect(try await self.get(server, "/files/app.js", "If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT").status == 200)
            // If-None-Match wins over If-Modified-Since.
            let both = try await self.get(server, "/files/app.js", "If-None-Match: \"stale\"", "If-Modified-Since: \(modified)")
            #expect(both.status == 200)
            #expect(both.bodyText == "console.log(1)")
        }
    }

    @Test("a changed file gets a new ETag and is sent again")
    func changedFile() async throws {
        try await self.withFileServer { server, directory in
            let etag = try #require(try await self.get(server, "/files/sub/page.txt").header("ETag"))
            try directory.file("root/sub/page.txt", "page, longer now")
            let again = try await self.get(server, "/files/sub/page.txt", "If-None-Match: \(etag)")
            #expect(again.status == 200)
            #expect(again.bodyText == "page, longer now")
            #expect(again.header("ETag") != etag)
        }
    }

    @Test("HEAD on a file gives its length and no body")
    func headFile() async throws {
        try await self.withFileServer { server, _ in
            let client = try await server.connect()
            try await client.send(http("HEAD /files/big.bin HTTP/1.1", "Host: x") + http("GET /files/app.js HTTP/1.1", "Host: x"))
            let head = try await client.response(bodyless: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "3000000")
            #expect(try await client.response().bodyText == "console.log(1)")
            await client.close()
        }
    }

    @Test("a large file arrives whole and intact")
    func largeFile() async throws {
        try await self.withFileServer { server, directory in
            let response = try await self.get(server, "/files/big.bin")
            let expected = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/root/big.bin"))
            #expect(response.body.count == 3_000_000)
            #expect(Data(response.body) == expected)
        }
    }

    @Test("a large file that shrinks while it is sent ends the connection instead of hanging it")
    func shrinkingFile() async throws {
        try await self.withFileServer { server, directory in
            let path = directory.path + "/root/huge.bin"
            try directory.file("root/huge.bin", bytes: [])
            #expect(truncate(path, 64 << 20) == 0)  // sparse: 64 MB of zeros, at once
            let client = try await RawClient.connect(to: server.address, reading: false)
            try await client.send(http("GET /files/huge.bin HTTP/1.1", "Host: x"))
            try await Task.sleep(for: .milliseconds(200))  // the socket buffers fill up
            #expect(truncate(path, 1000) == 0)
            try await client.startReading()
            #expect(await client.waitUntilClosed())
            #expect(client.pendingBytes.count < 64 << 20)
        }
    }

    @Test("a client that stops reading a large file is closed after the write timeout")
    func stalledDownload() async throws {
        let directory = try Self.fixture()
        defer { directory.remove() }
        let path = directory.path + "/root/huge.bin"
        try directory.file("root/huge.bin", bytes: [])
        #expect(truncate(path, 64 << 20) == 0)
        var router = Router()
        router.mount("/files/", files: try FileServer(root: directory.path + "/root"))
        let configuration = testConfiguration { $0.limits.responseWriteTimeout = .milliseconds(300) }
        try await withServer(configuration, router: router) { server in
            let client = try await RawClient.connect(to: server.address, reading: false)
            try await client.send(http("GET /files/huge.bin HTTP/1.1", "Host: x"))
            #expect(await server.waitForNoConnections())
            await client.close()
        }
    }

    @Test("symlinks that stay inside the root are followed, to files and directories")
    func symlinkInside() async throws {
        try await self.withFileServer { server, _ in
            let file = try await self.get(server, "/files/link-inside.js")
            #expect(file.status == 200)
            #expect(file.bodyText == "console.log(1)")
            #expect(try await self.get(server, "/files/alias/page.txt").bodyText == "page")
            #expect(try await self.get(server, "/files/alias/").bodyText == "<h1>sub</h1>")
        }
    }

    @Test("no path leaves the root", arguments: [
        ("/files/../outside/secret.txt", 400),
        ("/files/%2e%2e/outside/secret.txt", 400),
        ("/files/%2E%2E/outside/secret.txt", 400),
        ("/files/sub/../../outside/secret.txt", 400),
        ("/files/%2e%2e%2foutside%2fsecret.txt", 404),
        ("/files/..%2Foutside%2Fsecret.txt", 404),
        ("/files/..%5Coutside%5Csecret.txt", 404),
        ("/files/sub%2F..%2F..%2Foutside%2Fsecret.txt", 404),
        ("/files/%252e%252e/outside/secret.txt", 404),
        ("/files//outside/secret.txt", 404),
        ("/files/app.js%00.txt", 404),
        ("/files/%00", 404),
        ("/files/link-out", 404),
        ("/files/link-dir-out/secret.txt", 404),
        ("/files/.hidden", 404),
        ("/files/%2ehidden", 404),
        ("/files/pipe", 404),
    ])
    func traversal(path: String, status: Int) async throws {
        try await self.withFileServer { server, _ in
            let response = try await self.get(server, path)
            #expect(response.status == status)
            #expect(!response.bodyText.contains("SECRET"))
            #expect(!response.bodyText.contains("hidden"))
        }
    }

    @Test("files answer only GET and HEAD")
    func methods() async throws {
        try await self.withFileServer { server, _ in
            let response = try await server.roundTrip(http("POST /files/app.js HTTP/1.1", "Host: x", "Content-Length: 0"))
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
        }
    }

    @Test("a root that is missing or not a directory is refused")
    func badRoot() throws {
        let directory = try Self.fixture()
        defer { directory.remove() }
        #expect(throws: FileServer.RootError.notFound(directory.path + "/nope")) {
            try FileServer(root: directory.path + "/nope")
        }
        #expect(throws: FileServer.RootError.notADirectory(directory.path + "/root/app.js")) {
            try FileServer(root: directory.path + "/root/app.js")
        }
    }
}
