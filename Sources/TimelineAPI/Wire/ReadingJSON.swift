import HealthRecord
import Store

/// A reading as the API gives it: `{"id", "patient", "kind", "date", "value" | "systolic" + "diastolic",
/// "unit", "context", "note", "created_at", "updated_at"}`, values as entered.
enum ReadingJSON {
    static func write(_ reading: Reading, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(reading.id)
        json.key("patient"); json.string(reading.patientID)
        json.key("kind"); json.string(reading.kind.rawValue)
        json.key("date"); json.int(reading.takenAt)
        if reading.kind == .bloodPressure {
            json.key("systolic"); json.number(reading.value)
            json.key("diastolic"); json.number(reading.secondValue)
        } else {
            json.key("value"); json.number(reading.value)
        }
        json.key("unit"); json.string(reading.unit)
        json.key("context"); json.string(reading.context?.rawValue)
        json.key("note"); json.string(reading.note)
        json.key("created_at"); json.int(reading.createdAt)
        json.key("updated_at"); json.int(reading.updatedAt)
        json.endObject()
    }

    static func writeArray(_ readings: [Reading], to json: inout JSONWriter) {
        json.beginArray()
        for reading in readings { write(reading, to: &json) }
        json.endArray()
    }
}
