/// A measurement as the timeline shows it: a number, or the source's text when it is not a number.
struct Measurement: Equatable {
    var value: Double?
    var text: String?
    var units: String?
}

/// Turning the many ways record generations write scalars, times and identifiers into one form.
/// Anything that does not fit becomes nil rather than an error: the entry's raw JSON still holds it,
/// and one odd field must not cost a patient their whole record.
enum ValueNormalisation {
    /// The measurement of an entry from Gen 1 `value: {scalar, units}` (hreader_hs_henry_smith.json,
    /// pds_records_500.ndjson) or Gen 2/3 `values: [{scalar, units}]` (hds_v2.1.1_rosa.json,
    /// hds_v4_barry_berry.json). `value: {}` (Gen 1's "no value") and a missing `value` fall through
    /// to `values`. Of several `values` the first with a scalar counts; a coded value (no scalar) gives
    /// its description as text.
    static func measurement(value: JSONValue?, values: JSONValue?) -> Measurement {
        if let value, let measurement = measurement(of: value) { return measurement }
        guard let elements = values?.arrayValue else { return Measurement() }
        for element in elements {
            if let measurement = measurement(of: element) { return measurement }
        }
        for element in elements {
            if let object = element.objectValue, let description = text(object["description"]) {
                return Measurement(value: nil, text: description, units: nil)
            }
        }
        return Measurement()
    }

    /// One `{scalar, units}` object (or a bare scalar); nil when it holds no scalar at all.
    private static func measurement(of value: JSONValue) -> Measurement? {
        switch value {
        case let .object(object):
            // `scalar` is RHEx's name; HDS quantities elsewhere say `{value, unit}`.
            guard let scalar = object["scalar"] ?? object["value"], !scalar.isNull else { return nil }
            let (number, text) = self.scalar(scalar)
            return Measurement(value: number, text: text, units: self.text(object["units"] ?? object["unit"]))
        case .null, .array:
            return nil
        case .string, .number, .bool:
            let (number, text) = scalar(value)
            return Measurement(value: number, text: text, units: nil)
        }
    }

    /// A scalar as (number, text): `118` and `"118.0"` are numbers; `"Positive"` is text; `""` is
    /// neither — an empty scalar means "no value", not 0.
    static func scalar(_ value: JSONValue) -> (Double?, String?) {
        switch value {
        case let .number(number):
            return number.double.isFinite ? (number.double, nil) : (nil, number.literal)
        case let .string(string):
            if let number = DecimalNumber.double(lenientText: string) { return (number, nil) }
            return string.allSatisfy(\.isWhitespace) ? (nil, nil) : (nil, string)
        case let .bool(flag):
            return (nil, flag ? "true" : "false")
        case .null, .array, .object:
            return (nil, nil)
        }
    }

    /// Epoch seconds from a number (fractions dropped toward the past) or a numeric string; nil for
    /// null, other shapes and values outside 64 bits. Negative values (before 1970) are normal.
    static func epochSeconds(_ value: JSONValue?) -> Int64? {
        let double: Double
        switch value {
        case let .number(number)?:
            if let exact = number.int64 { return exact }
            double = number.double
        case let .string(string)?:
            guard let parsed = DecimalNumber.double(lenientText: string) else { return nil }
            double = parsed
        default:
            return nil
        }
        let seconds = double.rounded(.down)
        guard seconds >= -9.2e18, seconds <= 9.2e18 else { return nil }
        return Int64(seconds)
    }

    /// A text field: a non-empty string, else nil.
    static func text(_ value: JSONValue?) -> String? {
        guard case let .string(string)? = value, !string.isEmpty else { return nil }
        return string
    }

    /// An identifier: a string, MongoDB's `{"$oid": "…"}` (pds_records_500.ndjson), or a number
    /// written as its literal (`"medical_record_number": 56789` in hds_v4_barry_berry.json).
    static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case let .string(string)?:
            return string.isEmpty ? nil : string
        case let .number(number)?:
            return number.literal
        case let .object(object)?:
            return text(object["$oid"])
        default:
            return nil
        }
    }
}
