import FoundationEssentials
import HTTPKit
import Records
import HealthRecord
import Store

/// The body of `POST /patients/{id}/readings` and `PUT /readings/{id}`: a JSON object
/// `{"kind", "value" | "systolic" + "diastolic", "unit", "date", "context", "note"}`. `unit` defaults to the
/// kind's first; `date` (epoch seconds, RFC 3339 or `YYYY-MM-DD`) to now. A value outside the kind's
/// plausible range, a date in the future, or a member the kind does not take is a `400` that says which.
enum ReadingBody {
    /// The longest note, in bytes of UTF-8: a reading's note is a few words ("after the walk").
    static let maximumNoteBytes = 2 * 1024
    /// A reading dated later than this after now is a mistake (a clock a little ahead is not).
    static let futureAllowance: Int64 = 24 * 3600
    /// Nothing is measured before this (1900-01-01T00:00:00Z).
    static let earliestDate: Int64 = -2_208_988_800

    struct Fields {
        var kind: Reading.Kind
        var value: Double
        var secondValue: Double?
        var unit: String
        var takenAt: Int64
        /// Whether the body gave a date (an edit without one keeps the reading's own).
        var dated = false
        var context: Reading.Context?
        var note: String?
    }

    static func parse(_ request: Request, limit: Int, calendar: Calendar, now: Int64) throws -> Fields {
        let object: JSONObject
        do { object = try JSONObjectBody.parse(request, limit: limit, depth: 1, what: "the reading") } catch let error as HTTPError
            where error.code == "bad_body" {
            throw bad(error.message)
        }
        var members: [String: JSONValue] = [:]
        for member in object.members {
            guard ["kind", "value", "systolic", "diastolic", "unit", "date", "context", "note"].contains(member.key) else {
                throw bad("A reading takes kind, value, systolic, diastolic, unit, date, context and note, not \(member.key).")
            }
            guard members[member.key] == nil else { throw bad("\(member.key) is given twice.") }
            members[member.key] = member.value
        }
        guard case .string(let kindName)? = members["kind"] else {
            throw bad("kind is required: one of \(Reading.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard let kind = Reading.Kind(rawValue: kindName) else {
            throw bad("kind must be one of \(Reading.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not \(kindName).")
        }

        let unit = try text(members["unit"], "unit") ?? kind.units[0]
        guard kind.units.contains(unit) else { throw bad("A \(kind.rawValue) reading is in \(kind.units.joined(separator: " or ")), not \(unit).") }

        var fields = Fields(kind: kind, value: 0, unit: unit, takenAt: now)
        if kind == .bloodPressure {
            guard members["value"] == nil else { throw bad("A blood pressure is given as systolic and diastolic, not value.") }
            fields.value = try number(members["systolic"], "systolic", in: kind.plausible)
            let diastolic = try number(members["diastolic"], "diastolic", in: 20...200)
            guard diastolic < fields.value else { throw bad("The diastolic pressure must be below the systolic.") }
            fields.secondValue = diastolic
        } else {
            guard members["systolic"] == nil, members["diastolic"] == nil else {
                throw bad("Only a blood pressure takes systolic and diastolic; a \(kind.rawValue) reading takes value.")
            }
            fields.value = try number(members["value"], "value", in: nil)
            let canonical = Reading.canonical(fields.value, unit: unit)
            guard kind.plausible.contains(canonical) else {
                throw bad("A \(kind.rawValue) of \(fields.value) \(unit) is not a plausible reading.")
            }
        }

        if let contextName = try text(members["context"], "context") {
            guard kind == .glucose else { throw bad("Only a glucose reading takes a context.") }
            guard let context = Reading.Context(rawValue: contextName) else {
                throw bad("context must be one of \(Reading.Context.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            fields.context = context
        }
        fields.note = try text(members["note"], "note")
        if let note = fields.note, note.utf8.count > maximumNoteBytes {
            throw HTTPError(.payloadTooLarge, code: "too_large", message: "note is over \(maximumNoteBytes) bytes.")
        }

        switch members["date"] {
        case nil, .null?: break
        case .number(let number)?:
            guard let seconds = number.int64 else { throw bad("date must be whole epoch seconds.") }
            fields.takenAt = seconds
            fields.dated = true
        case .string(let text)?:
            guard let seconds = WindowEnd.parse(text, calendar: calendar, dayStart: true) else {
                throw bad("date must be epoch seconds, RFC 3339 or YYYY-MM-DD, not \(text.prefix(40)).")
            }
            fields.takenAt = seconds
            fields.dated = true
        default: throw bad("date must be epoch seconds, RFC 3339 or YYYY-MM-DD.")
        }
        guard fields.takenAt <= now + futureAllowance else { throw bad("The reading's date is in the future.") }
        guard fields.takenAt >= earliestDate else { throw bad("The reading's date is before 1900.") }
        return fields
    }

    private static func number(_ value: JSONValue?, _ name: String, in range: ClosedRange<Double>?) throws -> Double {
        guard case .number(let literal)? = value, literal.double.isFinite else { throw bad("\(name) is required, as a number.") }
        let number = literal.double
        if let range, !range.contains(number) {
            throw bad("\(name) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)).")
        }
        return number
    }

    private static func text(_ value: JSONValue?, _ name: String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            guard !text.utf8.contains(0) else { throw bad("\(name) holds a NUL character.") }
            return text.isEmpty ? nil : text
        default: throw bad("\(name) must be a string.")
        }
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: "bad_reading", message: message)
    }
}
