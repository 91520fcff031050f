import Foundation
import Testing

/// One folder of third-party samples in `../shared/` (never copied into the project). Tests read them
/// where they are; where the folder is absent (a clone without `shared/`), the tests that need it are
/// skipped with `skipReason`. An environment variable may point elsewhere.
public struct SharedSampleFolder: Sendable {
    /// The folder's name under `../shared/` (`rhex-samples`).
    public let name: String
    /// Overrides the folder (`HREADERD_RHEX_SAMPLES`).
    public let environmentOverride: String

    public var directory: String {
        if let override = ProcessInfo.processInfo.environment[environmentOverride], !override.isEmpty {
            return override
        }
        return SharedSamples.sharedRoot + "/" + name
    }

    /// The folder's README is there: the samples are.
    public var available: Bool { FileManager.default.fileExists(atPath: directory + "/README.md") }

    public var skipReason: Comment {
        Comment(rawValue: "../shared/\(name) is absent (set \(environmentOverride) to another folder): the tests that read it are skipped")
    }

    public func path(_ file: String) -> String { directory + "/" + file }

    public func bytes(_ file: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(file)))) }
}

/// The shared samples: `rhex-samples/` (the default, for the RHEx-era tests), `fhir-samples/`,
/// `ccda-samples/` and `growth/`.
public enum SharedSamples {
    /// `<repo>/../shared`: this file is `<repo>/Tests/TestSupport/Samples.swift`.
    static let sharedRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // TestSupport
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // repository
            .deletingLastPathComponent()
            .appendingPathComponent("shared").path
    }()

    public static let rhex = SharedSampleFolder(name: "rhex-samples", environmentOverride: "HREADERD_RHEX_SAMPLES")
    public static let fhir = SharedSampleFolder(name: "fhir-samples", environmentOverride: "HREADERD_FHIR_SAMPLES")
    public static let ccda = SharedSampleFolder(name: "ccda-samples", environmentOverride: "HREADERD_CCDA_SAMPLES")
    public static let growth = SharedSampleFolder(name: "growth", environmentOverride: "HREADERD_GROWTH_TABLES")
    /// 196 certification C-CDA documents of 25 vendors, a folder each.
    public static let ccdaVendors = SharedSampleFolder(name: "ccda-vendors", environmentOverride: "HREADERD_CCDA_VENDORS")
    /// FHIR files of real producers and specifications, a folder each.
    public static let fhirVendors = SharedSampleFolder(name: "fhir-vendors", environmentOverride: "HREADERD_FHIR_VENDORS")

    // The RHEx samples, the ones most tests read.
    public static var directory: String { rhex.directory }
    public static var available: Bool { rhex.available }
    public static var skipReason: Comment { rhex.skipReason }
    public static func path(_ name: String) -> String { rhex.path(name) }
    public static func bytes(_ name: String) throws -> [UInt8] { try rhex.bytes(name) }
}
