import CSQLCipher

/// SQLite copies bound text and blobs: the Swift buffers they come from live only for the call.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Values bound to a statement's parameters in order, each by its own type, for a statement run very many
/// times (an import's insert of each entry): no array of values, no value boxed, text bound with its length.
/// `Statement.execute(_:)` with an array of values does the same for every other statement.
public struct Bindings: ~Copyable {
    private let statement: Statement
    private var index: Int32 = 1

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// How many parameters were bound.
    var count: Int { Int(index) - 1 }

    public mutating func bind(_ value: String?) throws(DatabaseError) {
        guard var value else { return try bindNull() }
        let (handle, index) = (statement.handle, index)
        let rc = value.withUTF8 { text in
            // Never a null pointer: SQLite binds NULL for one, and an empty string is not NULL.
            let bytes = text.baseAddress ?? Statement.empty.utf8Start
            return UnsafeRawPointer(bytes).withMemoryRebound(to: CChar.self, capacity: max(text.count, 1)) { chars in
                sqlite3_bind_text(handle, index, chars, Int32(text.count), SQLITE_TRANSIENT)
            }
        }
        try advance(rc)
    }

    public mutating func bind(_ value: Int64?) throws(DatabaseError) {
        guard let value else { return try bindNull() }
        try advance(sqlite3_bind_int64(statement.handle, index, value))
    }

    public mutating func bind(_ value: Double?) throws(DatabaseError) {
        guard let value else { return try bindNull() }
        try advance(sqlite3_bind_double(statement.handle, index, value))
    }

    public mutating func bind(_ value: [UInt8]) throws(DatabaseError) {
        let rc = value.withUnsafeBytes { raw in
            sqlite3_bind_blob(statement.handle, index, raw.baseAddress, Int32(raw.count), SQLITE_TRANSIENT)
        }
        try advance(rc)
    }

    private mutating func bindNull() throws(DatabaseError) {
        try advance(sqlite3_bind_null(statement.handle, index))
    }

    private mutating func advance(_ rc: Int32) throws(DatabaseError) {
        guard rc == SQLITE_OK else { throw statement.bindingError(rc) }
        index += 1
    }
}

extension Statement {
    /// Runs the statement with the parameters `bind` binds, in order (all of them), and no result rows.
    public func execute(binding bind: (inout Bindings) throws(DatabaseError) -> Void) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var bindings = Bindings(self)
        try bind(&bindings)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard bindings.count == expected else {
            throw DatabaseError(code: SQLITE_RANGE, message: "statement expects \(expected) arguments, got \(bindings.count)", sql: sql)
        }
        try step()
    }
}
