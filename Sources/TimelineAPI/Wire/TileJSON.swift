import Modules
import HealthRecord
import Store

/// Any module's tile, written as it built it: the wire format needs to know no module.
enum TileJSON {
    static func write(_ value: TileValue, to json: inout JSONWriter) {
        switch value {
        case .null: json.null()
        case .bool(let flag): json.bool(flag)
        case .int(let number): json.int(number)
        case .number(let number): json.number(number)
        case .string(let text): json.string(text)
        case .array(let elements):
            json.beginArray()
            for element in elements { write(element, to: &json) }
            json.endArray()
        case .object(let members):
            json.beginObject()
            for member in members { json.key(member.key); write(member.value, to: &json) }
            json.endObject()
        }
    }
}
