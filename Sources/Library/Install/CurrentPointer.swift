import HealthRecord
import FoundationEssentials

/// `current.json` in the library folder: which installed database the library serves, and what it is.
/// It is replaced whole by a rename (`LibraryInstaller`), so a reader sees the old pointer or the new one,
/// never a mix; whoever opens the library reads it first and opens the file it names.
enum CurrentPointer {
    static let name = "current.json"
    static let maxBytes = 64 * 1024

    static func serialized(_ pack: InstalledPack, manifestSHA256: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("file"); writer.string(pack.file)
        writer.key("sha256"); writer.string(pack.sha256)
        writer.key("version"); writer.string(pack.version.text)
        writer.key("publisher"); writer.string(pack.publisher)
        writer.key("created"); writer.string(Timestamp.format(pack.created))
        writer.key("installed_at"); writer.string(Timestamp.format(pack.installedAt))
        writer.key("source"); writer.string(pack.source)
        writer.key("counts")
        writer.beginObject()
        writer.key("topics"); writer.int(Int64(pack.counts.topics))
        writer.key("vaccines"); writer.int(Int64(pack.counts.vaccines))
        writer.key("codes"); writer.int(Int64(pack.counts.codes))
        writer.key("strings"); writer.int(Int64(pack.counts.strings))
        writer.endObject()
        writer.key("languages")
        writer.beginArray()
        for language in pack.languages { writer.string(language) }
        writer.endArray()
        writer.key("manifest_sha256"); writer.string(manifestSHA256)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    private struct Fields: Decodable {
        var file: String
        var sha256: String
        var version: String
        var publisher: String
        var created: String
        var installed_at: String
        var source: String
        var counts: PackManifest.Counts
        var languages: [String]
    }

    /// The installed pack `current.json` in `directory` names; nil when there is none.
    static func read(directory: String) throws(LibraryError) -> InstalledPack? {
        let bytes: [UInt8]
        do { bytes = try PackFiles.read(directory + "/" + name, limit: maxBytes) } catch {
            if case .fileMissing = error { return nil }
            throw error
        }
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(bytes)),
              let version = PackVersion(fields.version), PackManifest.isSafeFileName(fields.file),
              let created = Timestamp.parse(fields.created), let installedAt = Timestamp.parse(fields.installed_at) else {
            throw .installedPackDamaged(reason: "\(directory)/\(name) is not a pointer this hreaderd wrote")
        }
        return InstalledPack(version: version, publisher: fields.publisher, created: created, installedAt: installedAt, source: fields.source,
                             counts: fields.counts, languages: fields.languages, file: fields.file, sha256: fields.sha256)
    }
}
