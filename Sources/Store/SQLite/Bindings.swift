import HealthRecord
import CSQLCipher

/// Values bound to a statement's parameters in order, each by its own type, for a statement run very many
/// times (an import's insert of each entry): no array of values, no value boxed, text bound with its length,
/// and text and blobs copied once, into the statement's arena, which SQLite binds without a copy of its own
/// (`BindingArena`). `Statement.execute(_:)` with an array of values does the same for every other statement,
/// SQLite copying what it binds.
public struct Bindings: ~Copyable {
    private let statement: Statement
    private let arena: BindingArena
    private var index: Int32 = 1

    init(_ statement: Statement) {
        self.statement = statement
        arena = statement.arena
    }

    /// How many parameters were bound.
    var count: Int { Int(index) - 1 }

    public mutating func bind(_ value: String?) throws(DatabaseError) {
        guard let value else { return try bindNull() }
        try advance(statement.bindText(value, at: index, copiedInto: arena))
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
        try advance(statement.bindBlob(value, at: index, copiedInto: arena))
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
        // Every run ends reset (`step`); only one left in the middle of a read is reset here.
        if sqlite3_stmt_busy(handle) != 0 { sqlite3_reset(handle) }
        // No sqlite3_clear_bindings: every parameter is bound again below (counted), and the copies of the run
        // before are forgotten only now, when nothing will read them.
        arena.reset()
        // A value past the arena's block is freed when the run is over, and the bindings that point to it cleared.
        defer {
            if arena.holdsOwnBlocks {
                sqlite3_clear_bindings(handle)
                arena.reset()
            }
        }
        var bindings = Bindings(self)
        try bind(&bindings)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard bindings.count == expected else {
            throw DatabaseError(code: SQLITE_RANGE, message: "statement expects \(expected) arguments, got \(bindings.count)", sql: sql)
        }
        try step()
    }
}
