// swift-tools-version:6.0
import PackageDescription

// libFuzzer harnesses for hreaderd's parsers. A package of its own because a fuzz target has no main
// (libFuzzer brings it), so it must stay out of the normal build. Built by scripts/fuzz.sh with
// `-sanitize=fuzzer,address -parse-as-library`.
let package = Package(
    name: "hreaderd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "hreaderd", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "hreaderd-fuzz",
            dependencies: [
                .product(name: "Records", package: "hreaderd"),
                .product(name: "RHExClient", package: "hreaderd"),
                .product(name: "HTTPKit", package: "hreaderd"),
                .product(name: "TimelineAPI", package: "hreaderd"),
                .product(name: "Store", package: "hreaderd"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
