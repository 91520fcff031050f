// swift-tools-version:6.0
import PackageDescription

// Arrows go one way (see ../shared/DESIGN.md):
// hreaderd → TimelineAPI → (HTTPKit, Store, RHExClient), RHExClient → Store.
let package = Package(
    name: "hreaderd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hreaderd", targets: ["hreaderd"]),
        // For the libFuzzer harnesses in Fuzz/ (their own package: a fuzz target has no main).
        .library(name: "RHExClient", targets: ["RHExClient"]),
        .library(name: "HTTPKit", targets: ["HTTPKit"]),
        .library(name: "TimelineAPI", targets: ["TimelineAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // System libraries from Debian: libsqlcipher-dev (SQLCipher 3.4.1) and libssl-dev (libcrypto).
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "Store",
            dependencies: ["CSQLCipher", "CLibCrypto"]
        ),
        .target(
            name: "HTTPKit",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "RHExClient",
            dependencies: ["Store"]
        ),
        .target(
            name: "TimelineAPI",
            dependencies: ["HTTPKit", "Store", "RHExClient", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "hreaderd",
            dependencies: [
                "Store", "HTTPKit", "RHExClient", "TimelineAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks print figures; they are executables, not tests.
        .executableTarget(
            name: "hreaderd-bench",
            dependencies: ["Store", "RHExClient", "TimelineAPI", "RHExSandbox"]
        ),
        // Test support: writes into a store in large transactions so that tests can SIGKILL it mid-write.
        .executableTarget(
            name: "hreaderd-crashwriter",
            dependencies: ["Store"]
        ),
        // Test support for the reliability tests: integrity check, posts and patients of a store, one a line.
        .executableTarget(
            name: "hreaderd-storecheck",
            dependencies: ["Store"]
        ),
        // Shared by the test targets: temporary directories, running the built executables.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "StoreTests", dependencies: ["Store", "CSQLCipher", "TestSupport"]),
        // Serves a trivial route and a static directory for bench/http/run.sh (wrk against nginx).
        .executableTarget(
            name: "httpkit-bench-server",
            dependencies: ["HTTPKit", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "HTTPKitTests", dependencies: [
            "HTTPKit",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TimelineAPITests", dependencies: ["TimelineAPI", "HTTPKit", "Store", "RHExClient", "TestSupport"]),
        .testTarget(name: "RHExClientTests", dependencies: ["RHExClient", "Store"]),
        .testTarget(name: "hreaderdTests", dependencies: ["hreaderd", "Store", "RHExClient", "TestSupport", "RHExSandbox"]),
        // A local RHEx server (OAuth2, Atom feed, record JSON, faults) for tests, the demo and benchmarks.
        .target(
            name: "RHExSandbox",
            dependencies: ["HTTPKit", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "rhex-sandbox",
            dependencies: ["RHExSandbox", "RHExClient", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "RHExSyncTests", dependencies: ["RHExClient", "RHExSandbox", "Store", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
