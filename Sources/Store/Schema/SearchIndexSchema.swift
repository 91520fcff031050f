import HealthRecord

/// The full-text index (`search`, FTS4 with the unicode61 tokenizer, diacritics removed): one row a
/// searchable thing, inside the encrypted database like every other page.
///
/// The index keeps no copy of the text it holds words of: it is FTS4 with external content, and the
/// content is the view `search_text` over the store's own rows (an entry's description, text value,
/// codes' values and the person's annotation on it; a post's data; a document section's title and text).
/// Writing that text a second time, into FTS4's own content table, was half of what the index added to an
/// import. A snippet reads the text through the view.
///
/// FTS4 removes a row's words by reading the row's text again, so the text as it was indexed must still be
/// there when the row is removed. Whatever changes or deletes an indexed row first copies its text into
/// `search_old` (`capture`: by triggers on annotations, posts, document sections and entry deletes, and by
/// the import before it updates an entry), and the view answers from that copy until the index is brought
/// up to date. At the end of each write transaction the store applies the changes (`SearchIndex.apply`): the
/// copied rows removed from the index (looked up, or in one pass when they are many), the copies dropped,
/// then the queued rows (`search_queue`) written from what is there now, in a few statements. The entries an import adds go in a few thousand at a time, one
/// statement each (`indexNewEntries`, from `RecordImport`). The index is not written row by row: FTS4
/// flushes its pending terms at every statement savepoint, and a trigger runs in one for each row, which
/// made a 100,000-entry import eight times slower.
///
/// Docids: an entry's is its `pk`; a post's or a section's is its `search_docs` row's id, which starts at
/// `documentDocidBase` (stable ids for rows whose tables have none of their own). What a search filters and
/// ranks on (patient, date) is in `search_rows`, a narrow row a docid written with the index: read
/// for each match, the store's own wide rows made a search three times slower.
///
/// A copy of more words than were indexed is harmless (FTS4 notes the removal of a word the row did not
/// have, and a later write of the row wins over it); a copy of fewer would leave words behind. So a copy is
/// always taken before the change, and the first copy of a row in a transaction is the one kept.
///
/// The index's objects (its tables, the view `search_text`, the FTS4 table, the triggers) are made by
/// migration 13, in SQL frozen there; these are the statements that keep the index and search it. The text
/// they write (`entryText`, `postText`, `sectionText`) must be the text the view gives, or FTS4 leaves words
/// behind: a change to either is a new migration that makes the view and the index again (SearchTests'
/// integrity checks tell when they part).
enum SearchIndexSchema {
    /// The first docid of a post or a document section: far above any entry's `pk`.
    static let documentDocidBase: Int64 = 1 << 40

    /// A flat JSON object (a post's data, `{"pain":"7"}`) as words: `pain 7`.
    static func jsonAsText(_ column: String) -> String {
        "replace(replace(replace(replace(replace(replace(replace(\(column), '{', ''), '}', ''), '\"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')"
    }

    /// What an entry says itself: description, text value, codes' values.
    static let entryOwnText = """
        coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || \(CodeValuesFunction.name)(e.codes)
        """

    /// An entry's row: what it says, and the person's annotation on it (`a`, joined).
    static let entryText = """
        \(entryOwnText)
            || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
            || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
        """

    /// How each kind of row finds its text's tables: an entry (`e`) its annotation (`a`); a `search_docs` row
    /// (`d`) its post (`t`) or its section (`s`). The view (migration 13) joins the same way.
    static let annotationJoin = "LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id"
    static let postJoin = "JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id"
    static let sectionJoin = "JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal"

    /// A post's row (`t`) and a section's (`s`).
    static let postText = jsonAsText("t.data")
    static let sectionText = "s.title || ' ' || s.text"

    /// A match's type, in a search (`search.docid`): an entry's type, a post's kind, or `document`.
    static let matchType = """
        (CASE WHEN search.docid < \(documentDocidBase) THEN (SELECT type FROM entries WHERE pk = search.docid)
              ELSE (SELECT CASE kind WHEN 'section' THEN 'document' ELSE 'post' END FROM search_docs WHERE id = search.docid) END)
        """

    /// A row's text as it is now, copied into `search_old` (unless a copy is there already) before it changes.
    static func capture(_ docid: String) -> String {
        "INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = \(docid)"
    }

    /// The entries one import added (rowids from `?` up), in one statement: FTS4 then writes them in bulk.
    /// Without their annotations: a new entry seldom has one (`copyAnnotatedNewEntries` finds those).
    static let indexNewEntries = """
        INSERT INTO search (docid, body)
            SELECT e.pk, \(entryOwnText) FROM entries e WHERE e.pk >= ? ORDER BY e.pk
        """

    /// Their filter rows, with the patient's number (`?2`).
    static let indexNewEntryRows = """
        INSERT INTO search_rows (docid, person, date)
            SELECT e.pk, ?2, e.date FROM entries e WHERE e.pk >= ?1 ORDER BY e.pk
        """

    /// The new entries (rowids from `?2` up) of a patient (`?1`) that an annotation is waiting for (one the
    /// source dropped and brings back): their text as just indexed copied, and queued, so that their rows are
    /// written again with it.
    static let copyAnnotatedNewEntries = """
        INSERT OR IGNORE INTO search_old (docid, body)
            SELECT e.pk, \(entryOwnText) FROM annotations a JOIN entries e ON e.patient_id = a.patient_id AND e.id = a.entry_id
            WHERE a.patient_id = ?1 AND e.pk >= ?2
        """
    static let queueAnnotatedNewEntries = """
        INSERT OR IGNORE INTO search_queue (docid)
            SELECT e.pk FROM annotations a JOIN entries e ON e.patient_id = a.patient_id AND e.id = a.entry_id
            WHERE a.patient_id = ?1 AND e.pk >= ?2
        """

    /// An entry's text copied before the import updates it (its docid bound).
    static let captureEntry = capture("?")

    /// The copied rows' words removed from the index (FTS4 reads them from the copies), each found by its
    /// docid. SQLite 3.15's FTS4 prepares its statement over the view anew for each docid it looks up
    /// (about 70 µs), so many rows are found by one pass over the whole index instead (`+docid`: not a
    /// lookup), whose rows cost a few µs each (see `SearchIndex.apply`).
    static let removeCopied = "DELETE FROM search WHERE docid IN (SELECT docid FROM search_old)"
    static let removeCopiedInOnePass = "DELETE FROM search WHERE +docid IN (SELECT docid FROM search_old)"

    /// The rest of the changes applied, once the copied rows' words are removed: their filter rows and the
    /// copies dropped, then the queued rows written from what is there, one statement a kind (each finds its rows
    /// by primary key); a queued row that is gone is only removed.
    static let applyChanges = """
        DELETE FROM search_rows WHERE docid IN (SELECT docid FROM search_old);
        DELETE FROM search_old;
        INSERT OR IGNORE INTO search_people (patient_id)
            SELECT e.patient_id FROM search_queue q JOIN entries e ON e.pk = q.docid
            UNION SELECT d.patient_id FROM search_queue q JOIN search_docs d ON d.id = q.docid;

        INSERT INTO search (docid, body)
            SELECT q.docid, \(entryText)
            FROM search_queue q JOIN entries e ON e.pk = q.docid
            \(annotationJoin)
            WHERE q.docid < \(documentDocidBase) ORDER BY q.docid;
        INSERT OR REPLACE INTO search_rows (docid, person, date)
            SELECT q.docid, p.number, e.date
            FROM search_queue q JOIN entries e ON e.pk = q.docid JOIN search_people p ON p.patient_id = e.patient_id
            WHERE q.docid < \(documentDocidBase) ORDER BY q.docid;

        INSERT INTO search (docid, body)
            SELECT q.docid, \(postText)
            FROM search_queue q JOIN search_docs d ON d.id = q.docid
            \(postJoin)
            WHERE q.docid >= \(documentDocidBase) AND d.kind = 'post' ORDER BY q.docid;
        INSERT OR REPLACE INTO search_rows (docid, person, date)
            SELECT q.docid, p.number, t.created_at
            FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
            \(postJoin)
            WHERE q.docid >= \(documentDocidBase) AND d.kind = 'post' ORDER BY q.docid;

        INSERT INTO search (docid, body)
            SELECT q.docid, \(sectionText)
            FROM search_queue q JOIN search_docs d ON d.id = q.docid
            \(sectionJoin)
            WHERE q.docid >= \(documentDocidBase) AND d.kind = 'section' ORDER BY q.docid;
        INSERT OR REPLACE INTO search_rows (docid, person, date)
            SELECT q.docid, p.number, doc.time
            FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
            \(sectionJoin)
            JOIN documents doc ON doc.patient_id = s.patient_id AND doc.id = s.document_id
            WHERE q.docid >= \(documentDocidBase) AND d.kind = 'section' ORDER BY q.docid;
        DELETE FROM search_queue;
        """
}

/// Applies the changes to the index (`SearchIndexSchema`): called by the store at the end of
/// each write transaction.
enum SearchIndex {
    /// Removing more than one row of the index in this many, the rows are found in one pass over it: each
    /// row looked up costs about 70 µs, each row passed over a few (a 100,000-entry patient removed in 7.8 s
    /// by lookups).
    static let onePassShare = 20

    static func apply(in db: Database) throws {
        guard try db.scalar("SELECT 1 FROM search_queue UNION ALL SELECT 1 FROM search_old LIMIT 1", as: Int64.self) != nil else { return }
        let removing = try db.scalar("SELECT count(*) FROM search_old", as: Int.self) ?? 0
        if removing > 0 {
            // Counted only as far as the choice needs: a note changed on a long record counts 20 rows, not all.
            let enough = removing * onePassShare
            let rows = try db.scalar("SELECT count(*) FROM (SELECT 1 FROM search_rows LIMIT ?)", [enough + 1], as: Int.self) ?? 0
            try db.execute(enough > rows ? SearchIndexSchema.removeCopiedInOnePass : SearchIndexSchema.removeCopied)
        }
        try db.execute(SearchIndexSchema.applyChanges)
    }
}
