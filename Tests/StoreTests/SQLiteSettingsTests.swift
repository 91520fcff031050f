import Testing
@testable import Store

/// SQLite's process-wide settings (`Database.libraryConfigured`: memory statistics off, no bulk page cache
/// allocation) are taken only before SQLite is first used: a connection opened some other way first would
/// leave them unset without an error anywhere else.
@Suite("SQLite's process-wide settings")
struct SQLiteSettingsTests {
    @Test("SQLite took every setting before the first connection opened")
    func settingsTaken() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.file("s.db"), key: nil, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (n INTEGER)")
        #expect(Database.libraryConfigured)
    }
}
