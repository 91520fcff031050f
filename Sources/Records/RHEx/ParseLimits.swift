/// Limits that bound the work and memory one record document can cost. A record is data from a
/// server or a file we do not control: a 1 GB body or a document of 100,000 nested brackets must be
/// refused quickly and clearly, not exhaust memory or the stack.
public struct ParseLimits: Sendable, Equatable {
    /// Deeper nesting than any record needs (the samples nest 6 levels), shallow enough that the
    /// recursive descent can never come near the stack's end.
    public static let defaultMaxDepth = 64

    /// 64 MiB: a 100,000-entry record is about 20 MB; anything much larger is not a personal health
    /// record but a mistake or an attack.
    public static let defaultMaxDocumentBytes = 64 << 20

    /// 256 MiB: a record file a person imports from their own disk (`import-file`) may be the whole of a
    /// long life's record: 1,000,000 entries are about 210 MB. A download from a server keeps the
    /// standard limit.
    public static let defaultMaxFileDocumentBytes = 256 << 20

    public static let standard = ParseLimits()

    /// The limits of a record file read from the person's own disk.
    public static let files = ParseLimits(maxDocumentBytes: defaultMaxFileDocumentBytes)

    public var maxDepth: Int
    public var maxDocumentBytes: Int

    public init(maxDepth: Int = ParseLimits.defaultMaxDepth, maxDocumentBytes: Int = ParseLimits.defaultMaxDocumentBytes) {
        self.maxDepth = maxDepth
        self.maxDocumentBytes = maxDocumentBytes
    }
}
