import HealthRecord

/// Imported documents' text (`documents`, `document_sections`): written with the document's import, read
/// by the export, the documents route and search.
enum DocumentQueries {
    /// Keeps a document's text, replacing what an earlier import of the same document kept. True when the
    /// document is new to this patient.
    static func keep(_ document: ClinicalDocument, patientID: String, now: Int64, in db: Database) throws -> Bool {
        let known = try db.scalar("SELECT 1 FROM documents WHERE patient_id = ? AND id = ?", [patientID, document.id], as: Int64.self) != nil
        if known {
            try db.execute("DELETE FROM document_sections WHERE patient_id = ? AND document_id = ?", [patientID, document.id])
            try db.execute("UPDATE documents SET title = ?, time = ?, format = ? WHERE patient_id = ? AND id = ?",
                           [document.title, document.time, document.format, patientID, document.id])
        } else {
            try db.execute("INSERT INTO documents (patient_id, id, title, time, format, imported_at) VALUES (?, ?, ?, ?, ?, ?)",
                           [patientID, document.id, document.title, document.time, document.format, now])
        }
        let insert = try db.statement("""
            INSERT INTO document_sections (patient_id, document_id, ordinal, title, code, text, entries) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (ordinal, section) in document.sections.enumerated() {
            try insert.execute([patientID, document.id, Int64(ordinal), section.title, section.code, section.text, Int64(section.entries)])
        }
        return !known
    }

    /// The documents of these patients, newest first, each with its sections in document order.
    static func read(patientIDs: [String], in db: Database) throws -> [ClinicalDocument] {
        var documents: [ClinicalDocument] = []
        let sections = try db.statement("""
            SELECT title, code, text, entries FROM document_sections WHERE patient_id = ? AND document_id = ? ORDER BY ordinal
            """)
        let list = try db.statement("""
            SELECT id, title, time, format, imported_at FROM documents WHERE patient_id = ? ORDER BY time DESC, imported_at DESC, id
            """)
        for patientID in patientIDs {
            let first = documents.count
            try list.forEach([patientID]) { row in
                documents.append(ClinicalDocument(id: row.string("id"), title: row.string("title"), time: row.int64OrNil("time"),
                                                  format: row.string("format"), sections: [], importedAt: row.int64("imported_at")))
            }
            for index in first..<documents.count {
                try sections.forEach([patientID, documents[index].id]) { row in
                    documents[index].sections.append(ClinicalDocument.Section(
                        title: row.string("title"), code: row.stringOrNil("code"), text: row.string("text"), entries: Int(row.int64("entries"))))
                }
            }
        }
        return documents.sorted { ($0.time ?? 0, $0.importedAt ?? 0) > ($1.time ?? 0, $1.importedAt ?? 0) }
    }
}

extension Store {
    /// The documents of a patient and of the patients linked with it into one person, newest first.
    public func documents(patientID: String) async throws(StoreError) -> [ClinicalDocument]? {
        try await read { db in
            guard try db.scalar("SELECT 1 FROM patients WHERE id = ?", [patientID], as: Int64.self) != nil else { return nil }
            return try DocumentQueries.read(patientIDs: LinkQueries.person(of: patientID, in: db).members, in: db)
        }
    }
}
