// A tiny HTTPKit server for the wrk benchmark (bench/http/run.sh) and for trying HTTPKit by
// hand: `GET /hello` answers a fixed text (`/hello-inline` too, started on the event loop),
// `POST /echo` returns its body, `/static/` serves a directory.
//
//   httpkit-bench-server [--host 127.0.0.1] [--port 8081] [--static DIR] [--threads N]
//                        [--unix PATH] [--verbose]
import Dispatch
import HTTPKit
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var host = "127.0.0.1"
    var port = 8081
    var staticDirectory: String?
    var threads: Int?
    var unixPath: String?
    var verbose = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--host": self.host = rest.popFirst() ?? self.host
            case "--port": self.port = rest.popFirst().flatMap { Int($0) } ?? self.port
            case "--static": self.staticDirectory = rest.popFirst()
            case "--threads": self.threads = rest.popFirst().flatMap { Int($0) }
            case "--unix": self.unixPath = rest.popFirst()
            case "--verbose": self.verbose = true
            default: fail("unknown argument \(argument)", status: 2)
            }
        }
    }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let level: Logger.Level = options.verbose ? .info : .warning
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return handler
}

var router = Router()
router.get("/hello") { _, _ in
    .text("Hello, world!\n")
}
// The same answer, started on the event loop (Router.on(_:_:startsOnEventLoop:)): measures
// what handing each request to the concurrency pool and back costs.
router.get("/hello-inline", startsOnEventLoop: true) { _, _ in
    .text("Hello, world!\n")
}
router.post("/echo", bodyLimit: 64 * 1024) { request, _ in
    Response(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: .bytes(request.body))
}
if let directory = options.staticDirectory {
    do {
        router.mount("/static/", files: try FileServer(root: directory))
    } catch {
        fail("cannot serve \(directory): \(error)")
    }
}

var configuration = HTTPServer.Configuration()
configuration.listeners = [.tcp(host: options.host, port: options.port)]
if let path = options.unixPath { configuration.listeners.append(.unix(path: path)) }
if let threads = options.threads { configuration.eventLoopThreads = threads }
configuration.limits.maxConnections = 4096

let server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "httpkit-bench-server"))
do {
    let addresses = try await server.start()
    print("listening on \(addresses.map(\.description).joined(separator: ", "))")
} catch {
    fail("cannot start: \(error)")
}

// Stop gracefully on SIGTERM or SIGINT.
await waitForTerminationSignal()
await server.shutdown(gracePeriod: .seconds(5))

/// Returns on SIGTERM or SIGINT. Not on the main actor: the signal handlers run on a
/// Dispatch queue.
nonisolated func waitForTerminationSignal() async {
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let (signals, continuation) = AsyncStream<Int32>.makeStream()
    let sources = [SIGTERM, SIGINT].map { number in
        let source = DispatchSource.makeSignalSource(signal: number)
        source.setEventHandler { continuation.yield(number) }
        source.resume()
        return source
    }
    for await _ in signals {
        break
    }
    sources.forEach { $0.cancel() }
}
