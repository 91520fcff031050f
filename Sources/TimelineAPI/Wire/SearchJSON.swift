import HealthRecord
import Store

/// `/search.json`'s answer. A snippet is parts of plain text, the matching words marked: the web app
/// shows them as text (a `mark` element around a match), never as HTML.
enum SearchJSON {
    static func page(_ page: SearchPage, query: String, patientID: String) -> [UInt8] {
        var json = JSONWriter(capacity: 512 + page.hits.count * 512)
        json.beginObject()
        json.key("query"); json.string(query)
        json.key("patient"); json.string(patientID)
        json.key("total"); json.int(Int64(page.total))
        json.key("next_cursor"); json.string(page.nextOffset.map(String.init))
        json.key("results")
        json.beginArray()
        for hit in page.hits {
            json.beginObject()
            json.key("kind"); json.string(hit.kind.rawValue)
            json.key("id"); json.string(hit.id)
            json.key("patient"); json.string(hit.patientID)
            json.key("type"); json.string(hit.type)
            json.key("date"); json.int(hit.date)
            json.key("title"); json.string(hit.title)
            json.key("snippet")
            json.beginArray()
            for part in hit.snippet {
                json.beginObject()
                json.key("text"); json.string(part.text)
                json.key("match"); json.bool(part.match)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }
}
