import HealthRecord
import CSQLCipher

/// SQLite wants to know whether bound text and blobs must be copied: copied (`SQLITE_TRANSIENT`) when bound
/// from a Swift buffer, which is temporary; not (`SQLITE_STATIC`) when bound from the statement's own arena
/// (`Bindings`).
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Owned by the `Database` that made it and used on that connection's thread only.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    private unowned let database: Database

    init(database: Database, sql: String) throws(DatabaseError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(code: rc, sql: sql)
        }
        self.handle = stmt
        self.sql = sql
        self.database = database
    }

    // The arena is freed after this, when the statement no longer points into it.
    deinit { sqlite3_finalize(handle) }

    /// What `Bindings` binds text and blobs from, made at the statement's first run with it.
    private(set) lazy var arena = BindingArena()

    /// What an empty text is bound from (`bindText`).
    private static let empty: StaticString = ""

    /// Result column names → indexes, made at the first read by name (`Row`'s `string("name")`).
    private(set) lazy var columnIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for index in 0..<Int(sqlite3_column_count(handle)) {
            if let name = sqlite3_column_name(handle, Int32(index)) { indexes[String(cString: name)] = index }
        }
        return indexes
    }()

    /// Binds values to the `?` parameters, by position, replacing earlier bindings.
    public func bind(_ values: [any DatabaseValueConvertible]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw DatabaseError(code: SQLITE_RANGE, message: "statement expects \(expected) arguments, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value.databaseValue, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws(DatabaseError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v): rc = bindText(v, at: index)
        case .blob(let v): rc = bindBlob(v, at: index)
        }
        guard rc == SQLITE_OK else { throw database.error(code: rc, sql: sql) }
    }

    /// Binds text with its length (a NUL inside it is kept, where strlen would cut the text there), copied
    /// by SQLite. Never from a null pointer: SQLite binds NULL for one, and an empty string is not NULL.
    func bindText(_ value: String, at index: Int32) -> Int32 {
        var text = value
        return text.withUTF8 { bytes in
            UnsafeRawPointer(bytes.baseAddress ?? Self.empty.utf8Start).withMemoryRebound(to: CChar.self, capacity: max(bytes.count, 1)) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
    }

    /// Binds text (with its length) from a copy in `arena` (the statement's), which SQLite does not copy again
    /// (`Bindings`; a nil destructor is `SQLITE_STATIC`).
    func bindText(_ value: String, at index: Int32, copiedInto arena: BindingArena) -> Int32 {
        var text = value
        let (copy, count) = text.withUTF8 { (arena.copy(UnsafeRawBufferPointer($0)), $0.count) }
        return copy.withMemoryRebound(to: CChar.self, capacity: max(count, 1)) {
            sqlite3_bind_text(handle, index, $0, Int32(count), nil)
        }
    }

    /// Binds a blob from a copy in `arena` (`Bindings`).
    func bindBlob(_ value: [UInt8], at index: Int32, copiedInto arena: BindingArena) -> Int32 {
        let copy = value.withUnsafeBytes { arena.copy($0) }
        return sqlite3_bind_blob(handle, index, copy, Int32(value.count), nil)
    }

    /// Binds a blob, copied by SQLite.
    func bindBlob(_ value: [UInt8], at index: Int32) -> Int32 {
        value.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), SQLITE_TRANSIENT)
        }
    }

    /// Runs a statement that returns no rows (or whose rows are not wanted).
    public func execute(_ values: [any DatabaseValueConvertible] = []) throws(DatabaseError) {
        try bind(values)
        try step()
    }

    /// Steps the bound statement to its end, then resets it.
    func step() throws(DatabaseError) {
        defer { sqlite3_reset(handle) }
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            if rc != SQLITE_ROW { throw database.error(code: rc, sql: sql) }
        }
    }

    /// The error of a failed bind.
    func bindingError(_ rc: Int32) -> DatabaseError {
        database.error(code: rc, sql: sql)
    }

    /// Runs a query and calls `body` for each row. The row is valid only during the call.
    public func forEach(_ values: [any DatabaseValueConvertible] = [], _ body: (Row) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        let row = Row(statement: self)
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw database.error(code: rc, sql: sql) }
            try body(row)
        }
    }

    /// The next row of a read begun with `bind`, a row at a time (for reading several statements side by side,
    /// as a merge does), valid until the statement steps again; nil after the last (the statement is then
    /// reset).
    func nextRow() throws(DatabaseError) -> Row? {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return Row(statement: self) }
        let error = rc == SQLITE_DONE ? nil : database.error(code: rc, sql: sql)
        sqlite3_reset(handle)
        if let error { throw error }
        return nil
    }

    /// Ends a read before its last row.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Runs a query and maps each row.
    public func map<T>(_ values: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEach(values) { row in result.append(try transform(row)) }
        return result
    }

    /// The first row mapped, or nil when the query returns none.
    public func first<T>(_ values: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        let rc = sqlite3_step(handle)
        if rc == SQLITE_DONE { return nil }
        guard rc == SQLITE_ROW else { throw database.error(code: rc, sql: sql) }
        return try transform(Row(statement: self))
    }
}
