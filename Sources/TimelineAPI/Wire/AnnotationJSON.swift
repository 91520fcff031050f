import HealthRecord
import Store

/// An annotation as every route writes it: in the timeline's entry objects, on its own, in the list and
/// in the export.
enum AnnotationJSON {
    static func write(_ annotation: Annotation, to json: inout JSONWriter, withEntryID: Bool = false) {
        json.beginObject()
        if withEntryID {
            json.key("entry_id"); json.string(annotation.entryID)
            json.key("orphaned"); json.bool(annotation.orphaned)
            // What the entry was, so that an orphaned annotation can say what it was on.
            json.key("entry")
            json.beginObject()
            json.key("type"); json.string(annotation.entryType?.rawValue)
            json.key("description"); json.string(annotation.entryDescription)
            json.key("date"); json.int(annotation.entryDate)
            json.endObject()
        }
        json.key("note"); json.string(annotation.note)
        json.key("struck"); json.bool(annotation.struck)
        json.key("reason"); json.string(annotation.reason)
        json.key("medication")
        if let medication = annotation.medication {
            json.beginObject()
            json.key("quantity"); json.string(medication.quantity)
            json.key("dose"); json.string(medication.dose)
            json.key("directions"); json.string(medication.directions)
            json.key("prescriber"); json.string(medication.prescriber)
            json.endObject()
        } else {
            json.null()
        }
        json.key("created_at"); json.int(annotation.createdAt)
        json.key("updated_at"); json.int(annotation.updatedAt)
        json.endObject()
    }

    /// `,"annotation":{…}`: what goes before an entry object's closing brace.
    static func member(_ annotation: Annotation) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        write(annotation, to: &json)
        return Array(#","annotation":"#.utf8) + json.bytes
    }

    /// An entry array with each marked entry's annotation, and for a linked person the sources that hold
    /// the same fact (`"sources": [names]`), written into its object.
    static func writeArray(_ list: EntryList, annotations: [String: Annotation], alsoFrom: [String: [String]] = [:],
                           to json: inout JSONWriter) {
        guard !list.annotated.isEmpty else {
            json.array(elements: list.json)
            return
        }
        json.array(elements: list.json, inserting: fragments(of: list, annotations: annotations, alsoFrom: alsoFrom))
    }

    /// The elements of an entry array (no brackets) with what `writeArray` writes into them: one part of an
    /// array written in parts.
    static func elements(_ list: EntryList, annotations: [String: Annotation]) -> [UInt8] {
        guard !list.annotated.isEmpty else { return list.json }
        var elements = JSONWriter(capacity: list.json.count + 256)
        elements.array(elements: list.json, inserting: fragments(of: list, annotations: annotations, alsoFrom: [:]))
        return Array(elements.bytes.dropFirst().dropLast())
    }

    private static func fragments(of list: EntryList, annotations: [String: Annotation],
                                  alsoFrom: [String: [String]]) -> [(offset: Int, bytes: [UInt8])] {
        list.annotated.compactMap { mark -> (offset: Int, bytes: [UInt8])? in
            var bytes: [UInt8] = []
            if let annotation = annotations[mark.entryID] { bytes += member(annotation) }
            if let sources = alsoFrom[mark.entryID] {
                var list = JSONWriter(capacity: 64)
                list.beginArray()
                for source in sources { list.string(source) }
                list.endArray()
                bytes += Array(#","sources":"#.utf8) + list.bytes
            }
            return bytes.isEmpty ? nil : (mark.closingBrace, bytes)
        }
    }
}
