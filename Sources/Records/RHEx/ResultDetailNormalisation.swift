import HealthRecord

/// HDS's result fields beyond the value: `referenceRange` (text such as "70-99 mg/dL", or `{low, high}`
/// with `{scalar|value, units|unit}` bounds) and `interpretation` (`{code, code_system}`, `{code,
/// codeSystem}` or a bare code). Anything else gives nothing; the raw JSON keeps it.
enum ResultDetailNormalisation {
    static func referenceRange(_ value: JSONValue?) -> ReferenceRange? {
        switch value {
        case let .string(text)?:
            return ReferenceRange.fromText(text)
        case let .object(object)?:
            func bound(_ key: String) -> ReferenceRange.Bound? {
                guard let member = object[key] else { return nil }
                let measurement = ValueNormalisation.measurement(value: member, values: nil)
                guard let number = measurement.value else { return nil }
                return ReferenceRange.Bound(value: number, unit: measurement.units)
            }
            return ReferenceRange(low: bound("low"), high: bound("high"), text: ValueNormalisation.text(object["text"]))
        default:
            return nil
        }
    }

    static func interpretation(_ value: JSONValue?) -> String? {
        switch value {
        case let .string(code)?:
            return ResultInterpretation.code(system: nil, code: code, display: code)
        case let .object(object)?:
            let system = ValueNormalisation.text(object["code_system"] ?? object["codeSystem"])
            return ResultInterpretation.code(system: system, code: ValueNormalisation.text(object["code"]),
                                             display: ValueNormalisation.text(object["description"] ?? object["displayName"]))
        default:
            return nil
        }
    }
}
