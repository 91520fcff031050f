import Foundation
import HealthRecord
@testable import Library
import LibraryPackBuilder
import Store
import Testing
import TestSupport

@Suite("A pack is verified before anything of it is used")
struct PackVerificationTests {
    let fixture = PackFixture.shared

    @Test("the starter pack built from the project's copy verifies, and its manifest says what it holds")
    func goodPackVerifies() throws {
        let scratch = TemporaryDirectory()
        let start = ContinuousClock.now
        let verified = try PackVerifier(trust: fixture.trust).verify(folder: fixture.folder, into: scratch.file("db.sqlite"))
        let elapsed = PackFixture.milliseconds(since: start)
        let manifest = verified.manifest
        #expect(manifest.format == 1 && manifest.version.text == "2025.10.1" && manifest.languages == ["en", "fr"])
        #expect(manifest.counts.topics == 1017 && manifest.counts.vaccines == 287)
        #expect(manifest.counts.codes > 437 && manifest.counts.strings > 30)
        #expect(verified.trustedBy == fixture.publicKey.fingerprint)
        let database = PackFiles.size(scratch.file("db.sqlite")) ?? 0
        print("starter pack: database \(database) bytes, gz \(manifest.database.bytes) bytes; built in \(Int(fixture.buildMilliseconds)) ms, verified in \(Int(elapsed)) ms (debug build)")
    }

    @Test("the same inputs build the same bytes")
    func deterministic() throws {
        let again = TemporaryDirectory()
        let output = try PackFixture.builder(version: "2025.10.1").build(into: again.file("pack"), key: fixture.key)
        #expect(output.manifestBytes == fileBytes(fixture.folder + "/manifest.json"))
        #expect(fileBytes(again.file("pack/manifest.json.sig")) == fileBytes(fixture.folder + "/manifest.json.sig"))
    }

    /// A way of breaking a pack, and the error it must give.
    struct Breakage: CustomTestStringConvertible, Sendable {
        let name: String
        let expected: String
        let trustOtherKey: Bool
        let apply: @Sendable (String, PackPrivateKey) throws -> Void
        var testDescription: String { name }

        init(_ name: String, _ expected: String, trustOtherKey: Bool = false, _ apply: @escaping @Sendable (String, PackPrivateKey) throws -> Void) {
            self.name = name
            self.expected = expected
            self.trustOtherKey = trustOtherKey
            self.apply = apply
        }
    }

    static let breakages: [Breakage] = [
        Breakage("one byte of the manifest changed", "signature_not_verified") { folder, _ in
            var bytes = fileBytes(folder + "/manifest.json")
            let index = bytes.firstIndex(of: UInt8(ascii: "1"))!
            bytes[index] = UInt8(ascii: "2")
            try PackEdit.writeManifest(bytes, in: folder, signedWith: nil)
        },
        Breakage("signed by a key that is not trusted", "signature_not_verified", trustOtherKey: true) { _, _ in },
        Breakage("the signature file is not base64", "signature_malformed") { folder, _ in
            try Data("not a signature!\n".utf8).write(to: URL(fileURLWithPath: folder + "/manifest.json.sig"))
        },
        Breakage("the signature file is missing", "file_missing") { folder, _ in
            try FileManager.default.removeItem(atPath: folder + "/manifest.json.sig")
        },
        Breakage("a newer format, signed", "unsupported_format") { folder, key in
            let text = String(decoding: fileBytes(folder + "/manifest.json"), as: UTF8.self).replacingOccurrences(of: #""format":1"#, with: #""format":2"#)
            try PackEdit.writeManifest(Array(text.utf8), in: folder, signedWith: key)
        },
        Breakage("a manifest without its database, signed", "manifest_malformed") { folder, key in
            try PackEdit.writeManifest(Array(#"{"format":1,"version":"1"}"#.utf8), in: folder, signedWith: key)
        },
        Breakage("a database file name with a folder in it, signed", "manifest_malformed") { folder, key in
            let text = String(decoding: fileBytes(folder + "/manifest.json"), as: UTF8.self)
                .replacingOccurrences(of: #""file":"library-"#, with: #""file":"../library-"#)
            try PackEdit.writeManifest(Array(text.utf8), in: folder, signedWith: key)
        },
        Breakage("the .gz truncated (an incomplete download)", "database_size_mismatch") { folder, _ in
            let path = folder + "/library-2025.10.1.sqlite.gz"
            try Data(fileBytes(path).dropLast(1000)).write(to: URL(fileURLWithPath: path))
        },
        Breakage("the .gz truncated and the manifest signed for it", "gzip_corrupt") { folder, key in
            var manifest = try PackEdit.manifest(folder)
            let path = folder + "/" + manifest.database.file
            let truncated = Array(fileBytes(path).dropLast(1000))
            try Data(truncated).write(to: URL(fileURLWithPath: path))
            manifest.database.bytes = Int64(truncated.count)
            manifest.database.gzSHA256 = PackBuilder.sha256(truncated)
            try PackEdit.writeManifest(manifest.serialized(), in: folder, signedWith: key)
        },
        Breakage("one byte of the .gz changed", "gzip_hash_mismatch") { folder, _ in
            let path = folder + "/library-2025.10.1.sqlite.gz"
            var bytes = fileBytes(path)
            bytes[bytes.count / 2] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        },
        Breakage("the database's hash in the manifest is another one, signed", "database_hash_mismatch") { folder, key in
            var manifest = try PackEdit.manifest(folder)
            manifest.database.sha256 = String(repeating: "0", count: 64)
            try PackEdit.writeManifest(manifest.serialized(), in: folder, signedWith: key)
        },
        Breakage("a database with an extra table, signed", "unexpected_schema") { folder, key in
            try PackEdit.database(in: folder, key: key) { db in try db.execute("CREATE TABLE extra (x TEXT)") }
        },
        Breakage("a database with a trigger, signed", "unexpected_schema") { folder, key in
            try PackEdit.database(in: folder, key: key) { db in
                try db.execute("CREATE TRIGGER t AFTER INSERT ON info BEGIN DELETE FROM topics; END")
            }
        },
        Breakage("a database whose info names another version, signed", "info_mismatch") { folder, key in
            try PackEdit.database(in: folder, key: key) { db in try db.execute("UPDATE info SET value = '2025.10.2' WHERE key = 'version'") }
        },
        Breakage("a database with a topic fewer than the manifest counts, signed", "info_mismatch") { folder, key in
            try PackEdit.database(in: folder, key: key) { db in try db.execute("DELETE FROM topics WHERE id = '6308'") }
        },
        Breakage("a .gz that is not gzip, signed", "gzip_corrupt") { folder, key in
            var manifest = try PackEdit.manifest(folder)
            let junk = Array("SQLite format 3\u{0} but not compressed".utf8)
            try Data(junk).write(to: URL(fileURLWithPath: folder + "/" + manifest.database.file))
            manifest.database.bytes = Int64(junk.count)
            manifest.database.gzSHA256 = PackBuilder.sha256(junk)
            try PackEdit.writeManifest(manifest.serialized(), in: folder, signedWith: key)
        },
    ]

    @Test("a bad pack is refused with its error, and the installed pack stays as it was", arguments: breakages)
    func badPackRefused(_ breakage: Breakage) throws {
        let scratch = TemporaryDirectory()
        let library = scratch.file("library")
        let installer = LibraryInstaller(directory: library, trust: fixture.trust)
        try installer.install(folder: fixture.folder, source: "test")
        let before = try #require(try installer.installed())
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: library).sorted()

        let bad = try fixture.copy(into: scratch, name: "bad")
        try breakage.apply(bad, fixture.key)
        // The broken pack claims to be newer, so that the version check is not what stops it.
        let trust: PackTrust = breakage.trustOtherKey ? .signature([try PackPrivateKey.generate().publicKey]) : fixture.trust
        var error: LibraryError?
        do { try LibraryInstaller(directory: library, trust: trust).install(folder: bad, source: "bad", policy: .any) } catch let caught { error = caught }
        #expect(error?.code == breakage.expected, "\(error.map { "\($0)" } ?? "installed")")
        #expect(error.map { "\($0)" }?.isEmpty == false)

        #expect(try installer.installed() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == filesBefore)
        let topic = try Library(directory: library).topic(id: "6308")
        #expect(topic?.title == "A1C")
    }

    @Test("the bundled pack is accepted by its manifest's recorded SHA-256, and refused by any other")
    func bundledTrust() throws {
        let scratch = TemporaryDirectory()
        let hash = PackBuilder.sha256(fileBytes(fixture.folder + "/manifest.json"))
        let verified = try PackVerifier(trust: .bundled(manifestSHA256: hash)).verify(folder: fixture.folder, into: scratch.file("a.sqlite"))
        #expect(verified.trustedBy == "bundled")
        #expect(throws: LibraryError.bundledPackMismatch) {
            try PackVerifier(trust: .bundled(manifestSHA256: String(repeating: "a", count: 64))).verify(folder: fixture.folder, into: scratch.file("b.sqlite"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b.sqlite")))
    }
}

@Suite("The manifest, versions, signatures and names")
struct PackFormatTests {
    @Test("versions compare number by number", arguments: [
        ("2025.10.1", "2025.9.9", true), ("2025.10", "2025.10.0", false), ("2025.10.1", "2025.10", true), ("10", "9", true), ("1.0.0.1", "1", true),
    ])
    func versions(_ newer: String, _ older: String, _ isNewer: Bool) throws {
        let a = try #require(PackVersion(newer)), b = try #require(PackVersion(older))
        #expect((a > b) == isNewer)
    }

    @Test("a version is numbers separated by dots", arguments: ["", "1.", ".1", "1..2", "v1", "1.-2", "1.2.3.4.5.6.7.8.9", "1234567890", "1 2"])
    func badVersions(_ text: String) {
        #expect(PackVersion(text) == nil)
    }

    @Test("RFC 3339 timestamps read and write in UTC")
    func timestamps() {
        #expect(Timestamp.format(1_761_868_800) == "2025-10-31T00:00:00Z")
        #expect(Timestamp.parse("2025-10-31T00:00:00Z") == 1_761_868_800)
        #expect(Timestamp.parse("2025-10-31T02:00:00.5+02:00") == 1_761_868_800)
        #expect(Timestamp.parse("2025-02-30T00:00:00Z") == nil)
        #expect(Timestamp.parse("2025-10-31 00:00:00") == nil)
    }

    @Test("a manifest writes and reads back, and refuses what it must")
    func manifestRoundTrip() throws {
        let manifest = PackManifest(version: PackVersion("2025.10.1")!, publisher: "hreaderd project", created: 1_761_868_800,
                                    counts: .init(topics: 1, vaccines: 2, codes: 3, strings: 4), languages: ["en", "pt-BR"],
                                    database: .init(file: "library-2025.10.1.sqlite.gz", bytes: 10, sha256: String(repeating: "a", count: 64),
                                                    gzSHA256: String(repeating: "b", count: 64)))
        #expect(try PackManifest.parse(manifest.serialized()) == manifest)
        let text = String(decoding: manifest.serialized(), as: UTF8.self)
        for (from, to, code) in [(#""bytes":10"#, #""bytes":"10""#, "manifest_malformed"), (#""languages":["en","pt-BR"]"#, #""languages":[]"#, "manifest_malformed"),
                                 (#""format":1"#, #""format":"1""#, "manifest_malformed"), (#""format":1"#, #""format":7"#, "unsupported_format"),
                                 (String(repeating: "a", count: 64), String(repeating: "A", count: 64), "manifest_malformed")] {
            var error: LibraryError?
            do { _ = try PackManifest.parse(Array(text.replacingOccurrences(of: from, with: to).utf8)) } catch let caught { error = caught }
            #expect(error?.code == code, "\(from) → \(to)")
        }
        #expect(throws: LibraryError.self) { try PackManifest.parse([UInt8](repeating: 0x20, count: PackManifest.maxBytes + 1)) }
    }

    @Test("a signature is 64 bytes of base64 and verifies only its own message under its own key")
    func signatures() throws {
        let key = try PackPrivateKey.generate(), other = try PackPrivateKey.generate()
        let message = Array("manifest".utf8)
        let text = PackSignature.encode(try key.sign(message))
        #expect(text.count == 89)
        let signature = try PackSignature.decode(text)
        #expect(try PackSignature.verify(signature, of: message, trustedKeys: [other.publicKey, key.publicKey]).fingerprint == key.publicKey.fingerprint)
        #expect(throws: LibraryError.signatureNotVerified(trustedKeys: 1)) { try PackSignature.verify(signature, of: message + [0], trustedKeys: [key.publicKey]) }
        #expect(throws: LibraryError.signatureNotVerified(trustedKeys: 1)) { try PackSignature.verify(signature, of: message, trustedKeys: [other.publicKey]) }
        let pem = try key.publicKey.pem
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(try PackPublicKey(pem: pem).rawBytes == key.publicKey.rawBytes)
        #expect(try PackPrivateKey(pem: key.pem).sign(message) == signature)
        #expect(throws: LibraryError.self) { try PackPublicKey(pem: Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)) }
    }

    @Test("names compare in lower case, without accents, apostrophes or punctuation")
    func names() {
        #expect(NameKey.normalise("Crème Brûlée") == "creme brulee")
        #expect(NameKey.normalise("Alzheimer's Disease") == "alzheimers disease")
        #expect(NameKey.normalise("  Diabetes, Type 2 ") == "diabetes type 2")
        #expect(NameKey.normalise("Cafe\u{0301}") == "cafe")
        #expect(NameKey.entryName("Diabetes mellitus type 2 (disorder)") == "diabetes mellitus type 2")
        #expect(NameKey.searchWords("Alzheimer's <b>") == ["alzheimer", "s", "b"])
    }

    @Test("entries' code systems are known by their names, URIs and OIDs")
    func codeSystems() {
        #expect(CodeSystem(entrySystem: "SNOMED-CT") == .snomedCT)
        #expect(CodeSystem(entrySystem: "http://snomed.info/sct") == .snomedCT)
        #expect(CodeSystem(entrySystem: "2.16.840.1.113883.6.59") == .cvx)
        #expect(CodeSystem(entrySystem: "ICD-9-CM") == nil)
        #expect(CodeSystem.cvx.normalise("8") == "08")
        #expect(CodeSystem.icd10CM.normalise("j45.32") == "J4532")
    }
}
