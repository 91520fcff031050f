import HealthRecord
import Store

/// An imported document's text as the documents route and the export write it. The text is plain text,
/// for the web app to show as text (never as HTML).
enum DocumentJSON {
    static func write(_ document: ClinicalDocument, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(document.id)
        json.key("title"); json.string(document.title)
        json.key("time"); json.int(document.time)
        json.key("format"); json.string(document.format)
        json.key("imported_at"); json.int(document.importedAt)
        json.key("sections")
        json.beginArray()
        for section in document.sections {
            json.beginObject()
            json.key("title"); json.string(section.title)
            json.key("code"); json.string(section.code)
            json.key("entries"); json.int(Int64(section.entries))
            json.key("narrative_only"); json.bool(section.entries == 0)
            json.key("text"); json.string(section.text)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// `{"patient": id, "documents": […]}`.
    static func list(_ documents: [ClinicalDocument], patientID: String) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        json.beginObject()
        json.key("patient"); json.string(patientID)
        json.key("documents")
        json.beginArray()
        for document in documents { write(document, to: &json) }
        json.endArray()
        json.endObject()
        return json.bytes
    }
}
