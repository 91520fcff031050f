import Foundation
import HealthRecord
import Records
@testable import RHExClient
import ImportJobs
import TestSupport
import Testing

/// Inputs that scripts/fuzz.sh found crashing a parser; each must now give a clear error.
@Suite("fuzz regressions")
struct FuzzRegressionTests {
    static let url = URL(string: "http://127.0.0.1:8421/")!

    @Test("a feed whose element name is not UTF-8 is badFeed, not a crash", arguments: [
        // The fuzzer's find, shortened: an element name with bytes 0xFF in it.
        Array(#"<feed xmlns="http://www.w3.org/2005/Atom"><li"#.utf8) + [0xFF, 0xFF] + Array(#" nk rel="x"/></feed>"#.utf8),
        Array(#"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><"#.utf8) + [0xC3] + Array("/></feed>".utf8),
        Array(#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>a"#.utf8) + [0xFF] + Array("</title></entry></feed>".utf8),
    ])
    func feedNotUTF8(bytes: [UInt8]) {
        #expect(throws: SyncError.self) { try PatientFeed.parse(bytes, url: Self.url) }
    }

    @Test("a processing instruction (once a NULL read in Foundation's XMLParser) is read past: libxml2 reads the feed", arguments: [
        #"<?x?><feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="records/1"/></entry></feed>"#,
        #"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><?x?><entry><link href="records/1"/></entry></feed>"#,
        #"<feed xmlns="http://www.w3.org/2005/Atom"><entry><?pi data?><link href="records/1"/></entry></feed>"#,
    ])
    func feedProcessingInstruction(text: String) throws {
        #expect(try PatientFeed.parse(Array(text.utf8), url: Self.url).entries.map(\.recordID) == ["1"])
    }

    @Test("an unknown declared encoding does not let bytes that are not UTF-8 through")
    func feedUnknownEncoding() {
        let bytes = Array(#"<?xml version="1.0" encoding="UTF-%"?><feed xmlns="http://www.w3.org/2005/Atom"><"#.utf8)
            + [0xE7] + Array("d>x</d></feed>".utf8)
        #expect(throws: SyncError.self) { try PatientFeed.parse(bytes, url: Self.url) }
    }

    @Test("a feed that declares Latin-1 but is plain ASCII still reads")
    func feedLatin1ASCII() throws {
        let bytes = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Rene</title><link rel="alternate" href="records/7"/></entry></feed>"#.utf8)
        let feed = try PatientFeed.parse(bytes, url: Self.url)
        #expect(feed.entries.map(\.recordID) == ["7"])
    }
}
