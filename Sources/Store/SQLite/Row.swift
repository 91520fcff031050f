import HealthRecord
import CSQLCipher

/// The current row of a statement being stepped. Columns are read by index, typed. A row is only valid
/// inside the closure it is handed to: the statement moves on afterwards.
public struct Row {
    let statement: Statement

    init(statement: Statement) { self.statement = statement }

    public var columnCount: Int { Int(sqlite3_column_count(statement.handle)) }

    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(statement.handle, Int32(index)) == SQLITE_NULL
    }

    public subscript(_ index: Int) -> DatabaseValue {
        let i = Int32(index)
        let h = statement.handle
        switch sqlite3_column_type(h, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(h, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(h, i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB: return .blob(blob(i))
        default: return .null
        }
    }

    /// Reads a column as `T`; throws when the stored value does not fit the type (a schema bug, not user input).
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(DatabaseError) -> T {
        let value = self[index]
        guard let converted = T.fromDatabaseValue(value) else {
            throw DatabaseError(code: SQLITE_MISMATCH, message: "column \(index) holds \(value), not \(T.self)", sql: statement.sql)
        }
        return converted
    }

    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement.handle, Int32(index)) }
    public func int64OrNil(_ index: Int) -> Int64? { isNull(index) ? nil : int64(index) }
    public func double(_ index: Int) -> Double { sqlite3_column_double(statement.handle, Int32(index)) }
    public func doubleOrNil(_ index: Int) -> Double? { isNull(index) ? nil : double(index) }
    public func string(_ index: Int) -> String { text(Int32(index)) }
    public func stringOrNil(_ index: Int) -> String? { isNull(index) ? nil : text(Int32(index)) }
    public func bytes(_ index: Int) -> [UInt8] { blob(Int32(index)) }

    /// The bytes of a text column, handed to `body` without a copy; valid only inside it.
    public func withText<T>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let i = Int32(index)
        let pointer = sqlite3_column_text(statement.handle, i)
        let count = Int(sqlite3_column_bytes(statement.handle, i))
        return body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    private func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(statement.handle, i) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    private func blob(_ i: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement.handle, i))
        guard count > 0, let p = sqlite3_column_blob(statement.handle, i) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: p, count: count))
    }
}

/// Columns by name, for cold paths where a name reads better than a position (GRDB's `row["date"]`). A
/// name that the query does not select is a programming error, caught by the tests of that query.
extension Row {
    public func index(of column: String) -> Int {
        guard let index = statement.columnIndexes[column] else {
            preconditionFailure("the query selects no column named \(column): \(statement.sql)")
        }
        return index
    }

    public func isNull(_ column: String) -> Bool { isNull(index(of: column)) }
    public func int64(_ column: String) -> Int64 { int64(index(of: column)) }
    public func int64OrNil(_ column: String) -> Int64? { int64OrNil(index(of: column)) }
    public func double(_ column: String) -> Double { double(index(of: column)) }
    public func doubleOrNil(_ column: String) -> Double? { doubleOrNil(index(of: column)) }
    public func string(_ column: String) -> String { string(index(of: column)) }
    public func stringOrNil(_ column: String) -> String? { stringOrNil(index(of: column)) }
    public func bytes(_ column: String) -> [UInt8] { bytes(index(of: column)) }
}
