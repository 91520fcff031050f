import Testing
@testable import Store

/// What an operator reads when the store's files fail: the condition named, SQLite's message kept.
@Suite("store error messages")
struct StoreErrorTests {
    @Test("each file-system condition is named in the message", arguments: [
        (Int32(13), "the disk is full"),                       // SQLITE_FULL
        (Int32(8), "read-only"),                               // SQLITE_READONLY
        (Int32(10 | 3 << 8), "read-only file system or I/O error"), // SQLITE_IOERR_WRITE
        (Int32(14), "state directory read-only"),              // SQLITE_CANTOPEN
    ])
    func named(code: Int32, words: String) {
        let text = StoreError.database(DatabaseError(code: code, message: "sqlite says")).description
        #expect(text.contains(words), "\(text)")
        #expect(text.contains("sqlite says"))
    }
}
