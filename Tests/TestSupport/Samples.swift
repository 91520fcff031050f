import Foundation
import Testing

/// The third-party sample records in `../shared/rhex-samples/` (never copied into the project).
public enum SharedSamples {
    public static let directory: String = {
        // Tests/TestSupport/Samples.swift → repository root → its sibling `shared`.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/rhex-samples").path
    }()

    public static var available: Bool { FileManager.default.fileExists(atPath: directory + "/hreader_hs_henry_smith.json") }

    /// Why a test is skipped when the folder is absent.
    public static let skipReason: Comment = "../shared/rhex-samples is absent: the sample-record tests need it"

    public static func path(_ name: String) -> String { directory + "/" + name }

    public static func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }
}
