/// Bounds on what one FHIR import may cost. Bundles and exports come from other people's software:
/// a 2 GB file or 10,000 levels of brackets must be refused quickly and clearly.
public struct FHIRLimits: Sendable, Equatable {
    /// One file (a bundle, an NDJSON file, a resource): 64 MiB, the RHEx record limit. A large Synthea
    /// patient is 1–5 MB; Bulk Data NDJSON files larger than this are read line by line elsewhere.
    public static let defaultMaxFileBytes = 64 << 20
    /// A resource nests a few levels (contained resources, nested extensions); 64 is far beyond any
    /// real one and far from the recursive descent's stack limit.
    public static let defaultMaxDepth = 64
    /// Resources in one import (a file or a folder).
    public static let defaultMaxResources = 1_000_000
    /// Files in one folder import.
    public static let defaultMaxFiles = 10_000
    /// Bytes of all the files of one folder import together.
    public static let defaultMaxTotalBytes = 512 << 20

    public static let standard = FHIRLimits()

    public var maxFileBytes: Int
    public var maxDepth: Int
    public var maxResources: Int
    public var maxFiles: Int
    public var maxTotalBytes: Int

    public init(maxFileBytes: Int = defaultMaxFileBytes, maxDepth: Int = defaultMaxDepth,
                maxResources: Int = defaultMaxResources, maxFiles: Int = defaultMaxFiles,
                maxTotalBytes: Int = defaultMaxTotalBytes) {
        self.maxFileBytes = maxFileBytes
        self.maxDepth = maxDepth
        self.maxResources = maxResources
        self.maxFiles = maxFiles
        self.maxTotalBytes = maxTotalBytes
    }
}
