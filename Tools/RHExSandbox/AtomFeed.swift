import Foundation
import SandboxSupport

/// The patient feed as the RHEx server writes it: one `<entry>` per record, titled "Last, First", with
/// a `tag:` id (which clients must not use), a `rel="alternate"` link to `/records/{id}` and a
/// `rel="root"` link to `/records/{id}/root.xml`.
///
/// The hrefs vary on purpose, entry by entry, so that clients meet every form a server may use: an
/// absolute URL, an absolute path, and an entry with only a relative `root` link.
enum AtomFeed {
    static func document(records: [SandboxRecord], base: String, updated: Int64) -> [UInt8] {
        let stamp = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(updated)))
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom">
              <id>tag:rhex-sandbox,2012:/records</id>
              <title>Records</title>
              <updated>\(stamp)</updated>

            """
        for (index, record) in records.enumerated() {
            let segment = escape(encodeSegment(record.id))
            xml += "  <entry>\n    <id>tag:rhex-sandbox,2012:Record/\(escape(record.id))</id>\n"
            xml += "    <title>\(escape(record.title))</title>\n    <updated>\(stamp)</updated>\n"
            switch index % 3 {
            case 0:
                xml += "    <link rel=\"alternate\" type=\"application/atom+xml\" href=\"\(escape(base))/records/\(segment)\"/>\n"
                xml += "    <link rel=\"root\" type=\"application/xml\" href=\"\(escape(base))/records/\(segment)/root.xml\"/>\n"
            case 1:
                xml += "    <link rel=\"alternate\" type=\"application/atom+xml\" href=\"/records/\(segment)\"/>\n"
                xml += "    <link rel=\"root\" type=\"application/xml\" href=\"/records/\(segment)/root.xml\"/>\n"
            default:
                xml += "    <link rel=\"root\" type=\"application/xml\" href=\"records/\(segment)/root.xml\"/>\n"
            }
            xml += "  </entry>\n"
        }
        xml += "</feed>\n"
        return Array(xml.utf8)
    }

    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }

    static func encodeSegment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
