import Foundation
@testable import ImportJobs
import HealthRecord
import Records
@testable import RHExClient
import SyntheticRecords
import Testing

@Suite("The Atom patient feed")
struct FeedTests {
    let base = URL(string: "https://pds.example.org/rhex/")!

    func feed(_ entries: String, root: String = #"<feed xmlns="http://www.w3.org/2005/Atom">"#) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            \(root)<title>Records</title><id>tag:pds.example.org,2005:/records</id>
            \(entries)
            </feed>
            """.utf8)
    }

    func ids(_ bytes: [UInt8]) throws -> [String] {
        try PatientFeed.parse(bytes, url: base).entries.map(\.recordID)
    }

    @Test("the record id comes from the alternate link's last segment, however the href is written", arguments: [
        "https://pds.example.org/rhex/records/1001",
        "/rhex/records/1001",
        "records/1001",
        "../rhex/records/1001/",
    ])
    func alternate(href: String) throws {
        let bytes = feed(#"<entry><id>tag:pds.example.org,2005:Record/4e57b6c0</id><title>Sparks, Rhonda</title><link rel="alternate" href="\#(href)"/></entry>"#)
        #expect(try ids(bytes) == ["1001"])
    }

    @Test("without an alternate link, the root link's segment before root.xml is the id")
    func root() throws {
        let bytes = feed(#"""
            <entry><id>tag:x,2005:Record/1</id><link rel="root" type="application/xml" href="records/77/root.xml"/></entry>
            <entry><id>tag:x,2005:Record/2</id><link rel="root" href="https://pds.example.org/rhex/records/78/root.xml"/></entry>
            """#)
        #expect(try ids(bytes) == ["77", "78"])
    }

    @Test("the alternate link wins over the root link, and the <id> tag URI is never used")
    func precedence() throws {
        let bytes = feed(#"<entry><id>tag:pds,2005:Record/999</id><link rel="root" href="records/2/root.xml"/><link rel="alternate" href="records/1"/></entry>"#)
        #expect(try ids(bytes) == ["1"])
    }

    @Test("a link without rel is an alternate link (Atom's default)")
    func defaultRel() throws {
        #expect(try ids(feed(#"<entry><link href="records/5"/></entry>"#)) == ["5"])
    }

    @Test("percent-encoded ids are decoded; ids that could leave their path segment are skipped")
    func encodedIDs() throws {
        let bytes = feed(#"""
            <entry><link rel="alternate" href="records/MRN%20042"/></entry>
            <entry><link rel="alternate" href="records/a%2Fb"/></entry>
            <entry><link rel="alternate" href="records/%2E%2E"/></entry>
            <entry><title>no links at all</title></entry>
            <entry><link rel="alternate" href="records/7"/></entry>
            """#)
        #expect(try ids(bytes) == ["MRN 042", "7"])
    }

    @Test("an id listed twice is synced once")
    func duplicates() throws {
        #expect(try ids(feed(#"<entry><link href="records/1"/></entry><entry><link rel="root" href="records/1/root.xml"/></entry>"#)) == ["1"])
    }

    @Test("a namespace prefix is fine; titles are kept")
    func prefixed() throws {
        let bytes = Array("""
            <a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:entry><a:title> Smith, Henry </a:title><a:link rel="alternate" href="/records/44"/></a:entry></a:feed>
            """.utf8)
        let parsed = try PatientFeed.parse(bytes, url: base)
        #expect(parsed.entries == [PatientFeed.Entry(recordID: "44", title: "Smith, Henry")])
    }

    @Test("an empty feed has no patients")
    func empty() throws {
        #expect(try ids(feed("")) == [])
    }

    @Test("what is not an Atom feed is refused with a clear error", arguments: [
        "<html><body>Sign in</body></html>",
        #"{"records": []}"#,
        "<feed><entry><link href='records/1'/></entry>",
        "",
    ])
    func notAFeed(text: String) {
        #expect {
            try PatientFeed.parse(Array(text.utf8), url: base)
        } throws: { error in
            guard case SyncError.badFeed(let reason) = error else { return false }
            return !reason.isEmpty
        }
    }

    @Test("a DOCTYPE with external entities is refused as a bad feed, before anything outside the document is read")
    func externalEntity() throws {
        let entry = #"<entry><title>&x;</title><link href="records/1"/></entry>"#
        let withEntity = Array("""
            <?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <feed xmlns="http://www.w3.org/2005/Atom">\(entry)</feed>
            """.utf8)
        #expect {
            try PatientFeed.parse(withEntity, url: base)
        } throws: { error in
            guard case SyncError.badFeed(let reason) = error else { return false }
            return reason.contains("DTD") && !reason.contains("root:")
        }
        // The same feed without the DOCTYPE reads: the refusal is the DTD's.
        let plain = feed(entry.replacingOccurrences(of: "&x;", with: "Smith, Henry"))
        #expect(try PatientFeed.parse(plain, url: base).entries == [PatientFeed.Entry(recordID: "1", title: "Smith, Henry")])
    }
}
