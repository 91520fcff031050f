import HealthRecord

/// The imported files the store keeps (`imported_files`), for `reimport` and the import report.
extension Store {
    /// Keeps a file: its name, with its hash and deflated bytes made ahead (`PreparedImportedFile`, on another
    /// thread while the input was read). `batch` nil starts a new batch (the file's own id).
    public func keepImportedFile(name: String, mediaType: String?, prepared file: PreparedImportedFile, batch: Int64?,
                                 now: Int64 = Store.now()) async throws(StoreError) -> ImportedFile {
        try await write { db in try ImportedFileQueries.insert(name: name, mediaType: mediaType, file: file, batch: batch, now: now, in: db) }
    }

    /// Removes kept files that an import kept and then imported nothing from.
    public func forgetImportedFiles(ids: [Int64]) async throws(StoreError) {
        try await write { db in
            let delete = try db.statement("DELETE FROM imported_files WHERE id = ?")
            for id in ids { try delete.execute([id]) }
        }
    }

    public func setImportedFileReport(id: Int64, reportJSON: String) async throws(StoreError) {
        try await write { db in try db.execute("UPDATE imported_files SET report = ? WHERE id = ?", [reportJSON, id]) }
    }

    /// Every kept file, oldest first, without its bytes.
    package func importedFilesSync() throws(StoreError) -> [ImportedFile] {
        try readSync { db in try ImportedFileQueries.list(in: db) }
    }

    /// The bytes of a kept file.
    package func importedFileContentSync(id: Int64) throws(StoreError) -> [UInt8]? {
        let stored = try readSync { db in
            try db.row("SELECT content, encoding, size FROM imported_files WHERE id = ?", [id]) { row in
                (row.bytes("content"), row.string("encoding"), Int(row.int64("size")))
            }
        }
        guard let (content, encoding, size) = stored else { return nil }
        return encoding == "zlib" ? try Deflate.decompress(content, size: size) : content
    }

    /// The resources of a patient that are kept and not shown.
    public func keptResources(patientID: String) async throws(StoreError) -> [KeptResource] {
        try await read { db in try KeptResources.read(patientID: patientID, in: db) }
    }

    /// The identifiers the store knows a patient by.
    package func patientIdentifiersSync(patientID: String) throws(StoreError) -> [PatientIdentifier] {
        try readSync { db in
            var out: [PatientIdentifier] = []
            try db.statement("SELECT system, value FROM patient_identifiers WHERE patient_id = ? ORDER BY system, value")
                .forEach([patientID]) { row in out.append(PatientIdentifier(system: row.string("system"), value: row.string("value"))) }
            return out
        }
    }
}

enum ImportedFileQueries {
    static let columns = "id, batch, name, media_type, sha256, size, imported_at, report"

    static func insert(name: String, mediaType: String?, file: PreparedImportedFile, batch: Int64?, now: Int64, in db: Database) throws -> ImportedFile {
        let hash = file.hash
        try db.execute("""
            INSERT INTO imported_files (batch, name, media_type, sha256, size, encoding, content, imported_at)
            VALUES (?, ?, ?, ?, ?, 'zlib', ?, ?)
            """, [batch ?? 0, name, mediaType, hash, file.size, file.deflated, now])
        let id = db.lastInsertRowID
        if batch == nil { try db.execute("UPDATE imported_files SET batch = id WHERE id = ?", [id]) }
        return ImportedFile(id: id, batch: batch ?? id, name: name, mediaType: mediaType, sha256: hash, size: file.size,
                            importedAt: now, reportJSON: "{}")
    }

    static func list(in db: Database) throws -> [ImportedFile] {
        var out: [ImportedFile] = []
        try db.statement("SELECT \(columns) FROM imported_files ORDER BY batch, id").forEach([]) { row in
            out.append(ImportedFile(id: row.int64("id"), batch: row.int64("batch"), name: row.string("name"),
                                    mediaType: row.stringOrNil("media_type"), sha256: row.bytes("sha256"), size: Int(row.int64("size")),
                                    importedAt: row.int64("imported_at"), reportJSON: row.string("report")))
        }
        return out
    }
}

/// A file's hash and deflated bytes, made before the write transaction so the writer is not held while a
/// large file is compressed (and, for an import, while its input is still being read).
public struct PreparedImportedFile: Sendable {
    let hash: [UInt8]
    let size: Int
    let deflated: [UInt8]

    public init(_ content: [UInt8]) throws(StoreError) {
        hash = Digests.sha256(content)
        size = content.count
        deflated = try Deflate.compress(content)
    }
}
