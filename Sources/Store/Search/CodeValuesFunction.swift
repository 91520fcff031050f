import HealthRecord
import CSQLCipher

/// `code_values(codes)`: the values of a codes column (`{"LOINC":["2823-3"],"SNOMED-CT":["77068002"]}`) as
/// words (`2823-3 77068002`), without the code systems' names. The search index holds an entry's codes by
/// their values only: a system's name in every row made the index's largest lists (`loinc`, `snomed`, `ct`,
/// `icd`, `10`, `cm`) and cost about 40% of its writing. A query that names a system before a code
/// (`LOINC 2823-3`) leaves the name out (`SearchTerms`).
///
/// A SQL function, so that the index's statements (`SearchIndexSchema`) stay one `INSERT … SELECT` each;
/// registered on every connection (`Database.init`). SQLite's own `json_each` does the same at three times
/// the cost, a correlated subquery a row.
enum CodeValuesFunction {
    static let name = "code_values"

    static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                   { context, count, arguments in
                                       guard count == 1, let argument = arguments?[0] else { return sqlite3_result_null(context) }
                                       CodeValuesFunction.call(context, argument)
                                   }, nil, nil, nil)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func call(_ context: OpaquePointer?, _ argument: OpaquePointer) {
        guard let text = sqlite3_value_text(argument) else { return sqlite3_result_null(context) }
        let length = Int(sqlite3_value_bytes(argument))
        let words = values(UnsafeBufferPointer(start: text, count: length))
        words.withUnsafeBufferPointer { buffer in
            sqlite3_result_text(context, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                Int32(buffer.count), transient)
        }
    }

    /// The strings inside the object's arrays, separated by spaces; escapes become spaces (the index's
    /// tokenizer splits on them anyway). Anything that is not such an object gives what strings it has in
    /// arrays, or nothing: the column is the store's own JSON, but the function never fails a statement.
    static func values(_ json: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var inString = false, escaped = false, inArray = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                    if inArray { out.append(0x20) }
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if inArray {
                    out.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if inArray, !out.isEmpty { out.append(0x20) }
            case UInt8(ascii: "["): inArray = true
            case UInt8(ascii: "]"): inArray = false
            default: break
            }
        }
        return out
    }
}
