// swift-tools-version:6.0
import PackageDescription

// The modules and their arrows are drawn in docs/architecture.md, whose tables list every target below
// with its dependencies (Tests/ArchitectureTests fails when the two disagree): hreaderd → TimelineAPI →
// (HTTPKit, Modules, FHIRClient, ImportJobs, Records, Store) → HealthRecord; Library → Store → HealthRecord. HTTPKit and Store never import
// each other; Records and Modules import HealthRecord, never Store.
// What is not the product (sandbox servers, generators, benchmarks, test helpers) lives under Tools/.
let package = Package(
    name: "hreaderd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hreaderd", targets: ["hreaderd"]),
        // For the libFuzzer harnesses in Fuzz/ (their own package: a fuzz target has no main).
        .library(name: "HealthRecord", targets: ["HealthRecord"]),
        .library(name: "Records", targets: ["Records"]),
        .library(name: "RHExClient", targets: ["RHExClient"]),
        .library(name: "HTTPKit", targets: ["HTTPKit"]),
        .library(name: "TimelineAPI", targets: ["TimelineAPI"]),
        .library(name: "Store", targets: ["Store"]),
        .executable(name: "hreaderd-library-pack", targets: ["hreaderd-library-pack"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // MARK: The product

        // System libraries from Debian: libsqlcipher-dev (SQLCipher 3.4.1) and libssl-dev (libcrypto).
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        // libxml2 (libxml2-dev) behind a C shim: C-CDA and C32 documents, the Atom feed (see docs/architecture.md).
        // Its headers only: the shim loads libxml2 with dlopen at the first document, so nothing links it (no
        // pkg-config here, whose `-lxml2` would).
        .systemLibrary(
            name: "CLibXML2",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(
            name: "CXMLShim",
            dependencies: ["CLibXML2"],
            cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]
        ),
        // glibc's <malloc.h>: the daemon's allocator settings (hreaderd's MemoryTuning).
        .systemLibrary(name: "CMalloc"),
        // zlib (zlib1g-dev): the kept files are stored deflated.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libcurl (libcurl4-openssl-dev): the sync's outbound HTTP, on its C API (no FoundationNetworking).
        // Not linked: loaded with dlopen at the first request (see Sources/CLibCurl/shim.h); only its header is used here.
        .systemLibrary(
            name: "CLibCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The record's model, shared by every module that reads or writes records: patients, entries, codes,
        // readings, posts, stable ids, text and date helpers, the JSON writer. Pure values: it links nothing
        // but the standard library.
        .target(name: "HealthRecord"),
        // The encrypted store: SQLCipher binding, key vault, migrations, queries, search, backups.
        .target(
            name: "Store",
            dependencies: ["HealthRecord", "CSQLCipher", "CLibCrypto", "CZlib"]
        ),
        // The HTTP/1.1 server on SwiftNIO; knows nothing of health data.
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
        // Record formats, no network: one reader per format (RHEx record JSON today), each turning a file
        // into the store's patients and entries; the JSON scanner they share.
        .target(
            name: "Records",
            dependencies: ["HealthRecord", "CXMLShim"]
        ),
        // Background import jobs for every kind of source: the queue, the runner (leases, retries,
        // periodic sync), outbound HTTP.
        .target(
            name: "ImportJobs",
            dependencies: ["HealthRecord", "Records", "Store", "CLibCurl", "CMalloc"]
        ),
        // The RHEx protocol: OAuth2, the Atom patient feed, conditional record downloads.
        .target(
            name: "RHExClient",
            dependencies: ["HealthRecord", "ImportJobs", "Records", "Store"]
        ),
        // The summary's modules (hReader's tiles, SelfHub's modules): one folder a module behind one protocol,
        // and the rules they apply, with their sources.
        .target(
            name: "Modules",
            dependencies: ["HealthRecord"]
        ),
        // FHIR patient-access servers: SMART App Launch (discovery, PKCE, the sign-in), and `FHIRSyncer`, the
        // FHIR `SourceSyncer` ($everything or a search a type, paged, only what changed).
        .target(
            name: "FHIRClient",
            dependencies: ["HealthRecord", "ImportJobs", "Records", "Store"]
        ),
        // The offline health library: signed content packs (format, signature, verification, atomic
        // installation) and their reader (topics, search, an entry's topics, the string table).
        .target(
            name: "Library",
            dependencies: ["HealthRecord", "Store", "CLibCrypto", "CZlib"]
        ),
        // The product's routes, access policy and wire format; its background work as services (the backup
        // schedule, the idle lock, audit pruning, the uploads' owner, whose parsing threads are a NIOThreadPool).
        .target(
            name: "TimelineAPI",
            dependencies: [
                "HTTPKit", "HealthRecord", "Store", "Records", "ImportJobs", "Modules", "FHIRClient", "Library",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The executable: CLI, configuration, lifecycle (one ServiceGroup for the server and every background
        // service), wiring.
        .executableTarget(
            name: "hreaderd",
            dependencies: [
                "HealthRecord", "Store", "HTTPKit", "Records", "ImportJobs", "RHExClient", "FHIRClient", "TimelineAPI", "Modules", "Library", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Tools: not the product

        // Synthetic families' records (no real person's data) for the demo, tests and benchmarks.
        .target(
            name: "SyntheticRecords",
            dependencies: ["HealthRecord", "Records"],
            path: "Tools/SyntheticRecords"
        ),
        .executableTarget(
            name: "generate-records",
            dependencies: ["SyntheticRecords", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/generate-records"
        ),
        // What the two sandbox servers share: their HTTP listener, SHA-256, waiting for a stop signal.
        .target(
            name: "SandboxSupport",
            dependencies: ["HTTPKit", "CLibCrypto", .product(name: "Logging", package: "swift-log")],
            path: "Tools/SandboxSupport"
        ),
        // A local RHEx server (OAuth2, Atom feed, record JSON, faults) for tests, the demo and benchmarks.
        .target(
            name: "RHExSandbox",
            dependencies: ["HTTPKit", "SandboxSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tools/RHExSandbox"
        ),
        .executableTarget(
            name: "rhex-sandbox",
            dependencies: ["HTTPKit", "RHExSandbox", "SandboxSupport", "SyntheticRecords", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/rhex-sandbox"
        ),
        // A local FHIR R4 server with SMART App Launch (discovery, PKCE, tokens, $everything, searches, paging,
        // faults) for tests, the demo and benchmarks: the RHEx sandbox's sibling.
        .target(
            name: "FHIRSandbox",
            dependencies: ["HealthRecord", "HTTPKit", "SandboxSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tools/FHIRSandbox"
        ),
        .executableTarget(
            name: "fhir-sandbox",
            dependencies: ["FHIRSandbox", "HTTPKit", "SandboxSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/fhir-sandbox"
        ),
        // Builds library packs from the content's files (MedlinePlus topics, CVX, the crosswalk, the reviewed
        // code tables, the string tables): for the pack tool and the library's tests.
        .target(
            name: "LibraryPackBuilder",
            dependencies: ["HealthRecord", "Library", "Store"],
            path: "Tools/LibraryPackBuilder"
        ),
        // The pack tool: keygen, build, verify, install.
        .executableTarget(
            name: "hreaderd-library-pack",
            dependencies: ["Library", "LibraryPackBuilder", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/hreaderd-library-pack"
        ),
        // Benchmarks print figures; they are executables, not tests.
        .executableTarget(
            name: "hreaderd-bench",
            dependencies: ["HealthRecord", "Store", "Records", "TimelineAPI", "SyntheticRecords", "RHExClient", "ImportJobs", "RHExSandbox",
                           "FHIRClient", "FHIRSandbox"],
            path: "Tools/hreaderd-bench"
        ),
        // Serves a trivial route and a static directory for bench/http/run.sh (wrk against nginx).
        .executableTarget(
            name: "httpkit-bench-server",
            dependencies: ["HTTPKit", .product(name: "Logging", package: "swift-log")],
            path: "Tools/httpkit-bench-server"
        ),
        // The most a SwiftNIO server answers on this machine, layer by layer (bench/perf/nio-ceiling.py).
        .executableTarget(
            name: "nio-ceiling",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tools/nio-ceiling"
        ),
        // Writes into a store in large transactions so that tests can SIGKILL it mid-write.
        .executableTarget(
            name: "hreaderd-crashwriter",
            dependencies: ["HealthRecord", "Store", "TimelineAPI"],
            path: "Tools/hreaderd-crashwriter"
        ),
        // For the reliability tests: integrity check, posts and patients of a store, one a line.
        .executableTarget(
            name: "hreaderd-storecheck",
            dependencies: ["HealthRecord", "Store"],
            path: "Tools/hreaderd-storecheck"
        ),

        // MARK: Tests

        // Shared by every test target: temporary folders, the shared samples, test stores, processes, the record builder.
        .target(name: "TestSupport", dependencies: ["HealthRecord", "Store", "TimelineAPI", "Library", "LibraryPackBuilder"], path: "Tests/TestSupport"),
        .testTarget(name: "HealthRecordTests", dependencies: ["HealthRecord"]),
        // Reads Package.swift, docs/architecture.md and every source file's imports: the map stays true.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "StoreTests", dependencies: ["HealthRecord", "Store", "CSQLCipher", "TimelineAPI", "TestSupport"]),
        .testTarget(name: "HTTPKitTests", dependencies: [
            "HTTPKit", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "RecordsTests", dependencies: ["HealthRecord", "Records", "SyntheticRecords", "TestSupport"]),
        .testTarget(name: "SyntheticRecordsTests", dependencies: ["HealthRecord", "SyntheticRecords", "Records", "TestSupport"]),
        .testTarget(name: "TimelineAPITests", dependencies: [.product(name: "Logging", package: "swift-log"), "HealthRecord", 
            "TimelineAPI", "HTTPKit", "Store", "Records", "ImportJobs", "Modules", "FHIRClient", "FHIRSandbox", "Library", "LibraryPackBuilder",
            "TestSupport",
        ]),
        .testTarget(name: "ModulesTests", dependencies: ["HealthRecord", "Modules", "TestSupport"]),
        .testTarget(name: "LibraryTests", dependencies: ["HealthRecord", "Library", "LibraryPackBuilder", "Records", "Store", "TestSupport"]),
        .testTarget(name: "RHExSyncTests", dependencies: ["HealthRecord", 
            "RHExClient", "ImportJobs", "Records", "RHExSandbox", "SyntheticRecords", "Store", "TimelineAPI", "TestSupport",
        ]),
        .testTarget(name: "FHIRSandboxTests", dependencies: ["FHIRSandbox", "SandboxSupport", "TestSupport"]),
        .testTarget(name: "FHIRSyncTests", dependencies: ["HealthRecord", 
            "FHIRClient", "FHIRSandbox", "ImportJobs", "Records", "Store", "TimelineAPI", "TestSupport",
        ]),
        .testTarget(name: "FileImportTests", dependencies: ["HealthRecord", "ImportJobs", "Records", "Store", "TimelineAPI", "TestSupport"]),
        .testTarget(name: "hreaderdTests", dependencies: [
            "hreaderd", "HealthRecord", "Store", "ImportJobs", "TestSupport", "RHExSandbox", "FHIRSandbox", "Library", "LibraryPackBuilder",
            "TimelineAPI", "HTTPKit", .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
