import HealthRecord
import Library

/// The health library's answers (docs/api.md, "The health library"). Every text is the publisher's plain
/// text: the web app shows it as text (markup in a summary stays characters), never as HTML. A snippet is
/// parts, the matched words marked, as `/search.json`'s are.
enum LibraryJSON {
    // MARK: GET /library.json

    static func status(installed: InstalledPack?, update: LibraryUpdateStatus?) -> [UInt8] {
        var json = JSONWriter(capacity: 768)
        json.beginObject()
        json.key("installed")
        if let installed {
            json.beginObject()
            json.key("version"); json.string(installed.version.text)
            json.key("topics"); json.int(Int64(installed.counts.topics))
            json.key("vaccines"); json.int(Int64(installed.counts.vaccines))
            json.key("codes"); json.int(Int64(installed.counts.codes))
            json.key("installed_at"); json.int(installed.installedAt)
            json.key("source"); json.string(installed.source)
            json.key("publisher"); json.string(installed.publisher)
            json.key("created"); json.int(installed.created)
            json.key("languages")
            json.beginArray()
            for language in installed.languages { json.string(language) }
            json.endArray()
            json.endObject()
        } else {
            json.null()
        }
        // Offered only when newer than what is installed (an update just installed is no longer offered).
        json.key("available")
        if let offer = update?.available, installed.map({ offer.version > $0.version }) ?? true {
            json.beginObject()
            json.key("version"); json.string(offer.version.text)
            json.key("bytes"); json.int(offer.bytes)
            json.key("created"); json.int(offer.created)
            json.key("publisher"); json.string(offer.publisher)
            json.endObject()
        } else {
            json.null()
        }
        json.key("update")
        writeUpdate(update ?? LibraryUpdateStatus(), to: &json)
        json.key("publisher")
        if let update, let url = update.publisherURL {
            json.beginObject()
            json.key("url"); json.string(url)
            json.key("checked_at"); json.int(update.check.at)
            json.key("next_check_at"); json.int(update.check.nextAt)
            json.key("error"); json.string(update.check.error)
            json.key("error_code"); json.string(update.check.errorCode)
            json.endObject()
        } else {
            json.null()
        }
        json.endObject()
        return json.bytes
    }

    /// `POST /library/update`'s answer: `{"update": …}`.
    static func updateOnly(_ status: LibraryUpdateStatus) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("update")
        writeUpdate(status, to: &json)
        json.endObject()
        return json.bytes
    }

    static func writeUpdate(_ status: LibraryUpdateStatus, to json: inout JSONWriter) {
        json.beginObject()
        json.key("state"); json.string(status.state.rawValue)
        json.key("done"); json.int(status.done)
        json.key("total"); json.int(status.total)
        json.key("error"); json.string(status.error)
        json.key("error_code"); json.string(status.errorCode)
        json.key("started_at"); json.int(status.startedAt)
        json.key("finished_at"); json.int(status.finishedAt)
        json.endObject()
    }

    // MARK: Reading

    static func search(_ hits: [SearchHit], query: String) -> [UInt8] {
        var json = JSONWriter(capacity: 256 + hits.count * 512)
        json.beginObject()
        json.key("query"); json.string(query)
        json.key("results")
        json.beginArray()
        for hit in hits {
            json.beginObject()
            json.key("id"); json.string(hit.topic.id)
            json.key("title"); json.string(hit.topic.title)
            json.key("snippet")
            json.beginArray()
            for part in hit.snippet.parts {
                json.beginObject()
                json.key("text"); json.string(part.text)
                json.key("match"); json.bool(part.isMatch)
                json.endObject()
            }
            json.endArray()
            json.key("groups"); strings(hit.groups, to: &json)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// `groups.json`: every group of the pack, by name, with its id and how many topics it holds.
    static func groups(_ groups: [TopicGroup]) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + groups.count * 96)
        json.beginObject()
        json.key("groups")
        json.beginArray()
        for group in groups { groupHead(group, to: &json); json.endObject() }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// `groups/{id}.json`: the group and its topics by title.
    static func group(_ page: TopicGroupPage) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + page.topics.count * 64)
        groupHead(page.group, to: &json)
        json.key("topics")
        json.beginArray()
        for topic in page.topics { reference(topic, to: &json) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// Opens an object with the group's id, name and count (the caller closes it).
    private static func groupHead(_ group: TopicGroup, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(group.id)
        json.key("name"); json.string(group.name)
        json.key("count"); json.int(Int64(group.count))
    }

    static func topic(_ topic: Topic) -> [UInt8] {
        var json = JSONWriter(capacity: 1024 + topic.summary.utf8.count)
        json.beginObject()
        json.key("id"); json.string(topic.id)
        json.key("title"); json.string(topic.title)
        json.key("also_called"); strings(topic.alsoCalled, to: &json)
        json.key("summary"); json.string(topic.summary)
        json.key("credit"); json.string(topic.credit)
        json.key("language"); json.string(topic.language)
        json.key("url"); json.string(topic.url)
        json.key("groups"); strings(topic.groups, to: &json)
        json.key("related")
        json.beginArray()
        for related in topic.related { reference(related, to: &json) }
        json.endArray()
        json.key("attribution"); attribution(topic.attribution, to: &json)
        json.endObject()
        return json.bytes
    }

    /// `about.json`: the topics (best first, each with its summary), CDC's vaccine for an immunization, and
    /// the topics' attribution. `topics[i]` is the topic of `about.topics[i]`, nil when the pack lacks it.
    static func about(_ about: About, topics: [Topic?], entryID: String) -> [UInt8] {
        var json = JSONWriter(capacity: 512 + topics.count * 1024)
        json.beginObject()
        json.key("entry"); json.string(entryID)
        json.key("topics")
        json.beginArray()
        for (match, topic) in zip(about.topics, topics) {
            json.beginObject()
            json.key("id"); json.string(match.topic.id)
            json.key("title"); json.string(match.topic.title)
            json.key("summary"); json.string(topic?.summary)
            json.key("credit"); json.string(topic?.credit)
            json.key("url"); json.string(topic?.url)
            json.key("match"); json.string(match.basis.rawValue)
            json.key("matched"); json.string(match.matched)
            json.key("via"); json.string(match.via)
            json.endObject()
        }
        json.endArray()
        json.key("vaccine")
        if let vaccine = about.vaccine {
            json.beginObject()
            json.key("code"); json.string(vaccine.code)
            json.key("name"); json.string(vaccine.name)
            json.key("short_name"); json.string(vaccine.shortName)
            json.key("note"); json.string(vaccine.note)
            json.key("status"); json.string(vaccine.status)
            json.key("nonvaccine"); json.bool(vaccine.isNonvaccine)
            json.key("groups")
            json.beginArray()
            for group in vaccine.groups {
                json.beginObject()
                json.key("code"); json.string(group.code)
                json.key("name"); json.string(group.name)
                json.endObject()
            }
            json.endArray()
            json.key("attribution"); attribution(vaccine.attribution, to: &json)
            json.endObject()
        } else {
            json.null()
        }
        // The topics' source line and disclaimer; each topic's own credit is beside it above.
        json.key("attribution"); attribution(.medlinePlus(credit: nil), to: &json)
        json.endObject()
        return json.bytes
    }

    static func strings(_ table: [String: String], language: String, installed: InstalledPack?) -> [UInt8] {
        var json = JSONWriter(capacity: 256 + table.count * 96)
        json.beginObject()
        json.key("language"); json.string(language)
        json.key("languages"); strings(installed?.languages ?? [], to: &json)
        json.key("version"); json.string(installed?.version.text)
        json.key("strings")
        json.beginObject()
        for (key, text) in table.sorted(by: { $0.key < $1.key }) {
            json.key(key); json.string(text)
        }
        json.endObject()
        json.endObject()
        return json.bytes
    }

    // MARK: Parts

    static func attribution(_ attribution: Attribution, to json: inout JSONWriter) {
        json.beginObject()
        json.key("publisher"); json.string(attribution.publisher.rawValue)
        json.key("source"); json.string(attribution.source)
        json.key("credit"); json.string(attribution.credit)
        json.key("endorsement"); json.string(attribution.disclaimer)
        json.endObject()
    }

    static func reference(_ reference: TopicReference, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(reference.id)
        json.key("title"); json.string(reference.title)
        json.endObject()
    }

    static func strings(_ values: [String], to json: inout JSONWriter) {
        json.beginArray()
        for value in values { json.string(value) }
        json.endArray()
    }
}
