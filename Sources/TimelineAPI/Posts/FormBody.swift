import HTTPKit

/// `application/x-www-form-urlencoded`: `name=value&…`, percent-decoded, `+` is a space. A repeated field
/// keeps every value, as an array (the original kept only the last one, undecoded).
public enum FormBody {
    public static func parse(_ body: [UInt8], limits: PostLimits = .default) throws(PostBodyError) -> PostFields {
        guard body.count <= limits.maximumBodyBytes else { throw .tooLarge("over \(limits.maximumBodyBytes) bytes") }
        var order: [String] = []
        var values: [String: [String]] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0])
            let value = parts.count > 1 ? try decode(parts[1]) : ""
            guard !name.isEmpty else { throw .badEncoding("a field has no name") }
            guard name.utf8.count <= limits.maximumNameBytes else { throw .tooLarge("a field name is over \(limits.maximumNameBytes) bytes") }
            guard value.utf8.count <= limits.maximumValueBytes else { throw .tooLarge("the value of \(name) is over \(limits.maximumValueBytes) bytes") }
            if values[name] == nil {
                order.append(name)
                guard order.count <= limits.maximumFields else { throw .tooLarge("more than \(limits.maximumFields) fields") }
            }
            values[name, default: []].append(value)
            guard values[name]!.count <= limits.maximumValuesPerField else {
                throw .tooLarge("more than \(limits.maximumValuesPerField) values for \(name)")
            }
        }
        guard !order.isEmpty else { throw .empty }
        return PostFields(fields: order.map { name in
            let all = values[name] ?? []
            return (name, all.count == 1 ? .string(all[0]) : .list(all))
        })
    }

    /// Percent-decoding with `+` as space (HTTPKit's decoder); the result must be UTF-8 without NUL.
    public static func decode<C: Collection>(_ bytes: C) throws(PostBodyError) -> String where C.Element == UInt8 {
        guard let decoded = PercentDecoding.decodedBytes(bytes, plusAsSpace: true) else {
            throw .badEncoding("a % is not followed by two hex digits")
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw .notUTF8 }
        guard !text.unicodeScalars.contains(where: { $0.value == 0 }) else { throw .badEncoding("a value holds a NUL character") }
        return text
    }
}
