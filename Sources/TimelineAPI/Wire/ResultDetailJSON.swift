import HealthRecord

/// What the source said about a result, as the timeline and the export write it (docs/api.md): each member
/// only when the source gave it. `"reference_range": {"low": {"value", "unit"}, "high": {"value", "unit"},
/// "text"}`, `"interpretation": "H"`, `"source_note": "…"`.
enum ResultDetailJSON {
    static func write(_ entry: StoredEntry, to json: inout JSONWriter) {
        if let range = entry.referenceRange {
            json.key("reference_range")
            json.beginObject()
            if let low = range.low { json.key("low"); writeBound(low, to: &json) }
            if let high = range.high { json.key("high"); writeBound(high, to: &json) }
            if let text = range.text { json.key("text"); json.string(text) }
            json.endObject()
        }
        if let interpretation = entry.interpretation { json.key("interpretation"); json.string(interpretation) }
        if let note = entry.sourceNote { json.key("source_note"); json.string(note) }
    }

    private static func writeBound(_ bound: ReferenceRange.Bound, to json: inout JSONWriter) {
        json.beginObject()
        json.key("value"); json.number(bound.value)
        json.key("unit"); json.string(bound.unit)
        json.endObject()
    }

    /// `"deceased": true|false, "deceased_date": seconds|null`: how every patient object says it.
    static func writeDeceased(_ patient: Patient, to json: inout JSONWriter) {
        json.key("deceased"); json.bool(patient.deceased)
        json.key("deceased_date"); json.int(patient.deceasedDate)
    }
}
