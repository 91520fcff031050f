import HealthRecord
import Store

/// `timeline_medications`, `regimens`, `levels` in the original shapes, and `timeline_entries` with ids.
enum PostsEncoding {
    static func write(_ posts: [TimelinePost], to json: inout JSONWriter) {
        json.key("timeline_medications")
        json.beginArray()
        for post in posts where post.kind == .medication { json.raw(post.dataJSON) }
        json.endArray()

        json.key("regimens")
        json.beginArray()
        for post in posts where post.kind == .regimen { json.raw(post.dataJSON) }
        json.endArray()

        // levels: every value posted under a name, as strings, oldest first.
        var order: [String] = []
        var levels: [String: [String]] = [:]
        for post in posts where post.kind == .levels {
            guard let fields = try? FlatJSONBody.parse(Array(post.dataJSON.utf8), limits: .stored) else { continue }
            for (name, value) in fields.fields {
                if levels[name] == nil { order.append(name) }
                levels[name, default: []].append(contentsOf: value.texts)
            }
        }
        json.key("levels")
        json.beginObject()
        for name in order {
            json.key(name)
            json.beginArray()
            for value in levels[name] ?? [] { json.string(value) }
            json.endArray()
        }
        json.endObject()

        json.key("timeline_entries")
        json.beginArray()
        for post in posts { writePost(post, to: &json) }
        json.endArray()
    }

    static func writePost(_ post: TimelinePost, to json: inout JSONWriter) {
        json.beginObject()
        json.key("id"); json.string(post.id)
        json.key("type"); json.string(post.kind.rawValue)
        json.key("created_at"); json.int(post.createdAt)
        json.key("data"); json.raw(post.dataJSON)
        json.endObject()
    }
}

extension PostLimits {
    /// Reading back what was stored: it passed the real limits when it was posted.
    static let stored: PostLimits = {
        var limits = PostLimits()
        limits.maximumBodyBytes = Int.max
        limits.maximumFields = Int.max
        limits.maximumValuesPerField = Int.max
        return limits
    }()
}
