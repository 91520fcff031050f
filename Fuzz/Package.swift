// swift-tools-version:6.0
import PackageDescription

// libFuzzer harnesses for hreaderd's parsers. A package of its own because a fuzz target has no main
// (libFuzzer brings it), so it must stay out of the normal build. Built by scripts/fuzz.sh with
// `-sanitize=fuzzer,address -parse-as-library`. Two executables: the record formats' fuzzer links only the
// record model and the readers (no SQLCipher, no SwiftNIO); the other links the daemon's modules.
let package = Package(
    name: "hreaderd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "hreaderd", path: ".."),
    ],
    targets: [
        // libFuzzer's driver, the target chosen by HREADERD_FUZZ_TARGET, and the checks every harness makes.
        .target(name: "FuzzSupport"),
        // record, fhir, ccda: the record formats.
        .executableTarget(
            name: "hreaderd-fuzz-records",
            dependencies: [
                "FuzzSupport",
                .product(name: "HealthRecord", package: "hreaderd"),
                .product(name: "Records", package: "hreaderd"),
            ]
        ),
        // form, json, query, feed, search: post bodies, the query string, the Atom feed, search queries.
        .executableTarget(
            name: "hreaderd-fuzz",
            dependencies: [
                "FuzzSupport",
                .product(name: "RHExClient", package: "hreaderd"),
                .product(name: "HTTPKit", package: "hreaderd"),
                .product(name: "TimelineAPI", package: "hreaderd"),
                .product(name: "Store", package: "hreaderd"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
