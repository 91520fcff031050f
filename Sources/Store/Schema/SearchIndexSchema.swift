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
    /// (`d`) its post (`t`) or its section (`s`). The view and the writes of the index join the same way.
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

    /// The tables of the index's upkeep; kept across reshapes of the index.
    static let createTables = """
        CREATE TABLE IF NOT EXISTS search_docs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            patient_id TEXT NOT NULL,
            ref TEXT NOT NULL,
            UNIQUE (kind, patient_id, ref)
        );
        -- Index rows to write again at the end of the transaction, from what is there then.
        CREATE TABLE IF NOT EXISTS search_queue (docid INTEGER PRIMARY KEY);
        -- The text of index rows as they were indexed, copied before a change: what the index removes.
        CREATE TABLE IF NOT EXISTS search_old (docid INTEGER PRIMARY KEY, body TEXT NOT NULL);
        -- What a search filters and ranks on for every match, a row a docid: its patient (their number in
        -- `search_people`) and its date, apart from the store's wide rows. The type, which a search seldom
        -- filters on, is read from the row's own table.
        CREATE TABLE IF NOT EXISTS search_rows (docid INTEGER PRIMARY KEY, person INTEGER NOT NULL, date INTEGER);
        -- A number for each patient the index has held (kept when they are removed: a few bytes, and the same
        -- number if they come back).
        CREATE TABLE IF NOT EXISTS search_people (number INTEGER PRIMARY KEY, patient_id TEXT NOT NULL UNIQUE);
        """

    /// Posts' and sections' docids moved above every entry's (the first shape of the index numbered them apart
    /// by parity).
    static let renumberDocs = "UPDATE search_docs SET id = id + \(documentDocidBase) WHERE id < \(documentDocidBase)"

    /// The next `search_docs` id, in a trigger.
    static let nextDocID = "max(\(documentDocidBase), coalesce((SELECT max(id) FROM search_docs), 0) + 1)"

    /// The text of each row of the index, as FTS4 reads it (`SELECT … WHERE rowid = ?`, which SQLite pushes into
    /// each arm): the copy in `search_old` while there is one, else the row's text now.
    static let createContent = """
        CREATE VIEW search_text (rowid, body) AS
            SELECT docid, body FROM search_old
            UNION ALL
            SELECT e.pk, \(entryText)
                FROM entries e \(annotationJoin)
                WHERE NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = e.pk)
            UNION ALL
            SELECT d.id, \(postText)
                FROM search_docs d \(postJoin)
                WHERE d.kind = 'post' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id)
            UNION ALL
            SELECT d.id, \(sectionText)
                FROM search_docs d \(sectionJoin)
                WHERE d.kind = 'section' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id);
        """

    /// The index itself.
    static let createIndex = """
        CREATE VIRTUAL TABLE search USING fts4(
            content="search_text", body,
            tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3
        );
        """

    /// A row's text as it is now, copied into `search_old` (unless a copy is there already) before it changes.
    static func capture(_ docid: String) -> String {
        "INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = \(docid)"
    }

    /// In a trigger on annotations: the docid of the entry of the annotation `row` (`NEW` or `OLD`).
    static func entryOf(_ row: String) -> String {
        "(SELECT pk FROM entries WHERE patient_id = \(row).patient_id AND id = \(row).entry_id)"
    }

    /// In a trigger on posts or sections: the docid of the `kind` row of `row`'s patient named `ref`.
    static func docOf(_ kind: String, _ row: String, _ ref: String) -> String {
        "(SELECT id FROM search_docs WHERE kind = '\(kind)' AND patient_id = \(row).patient_id AND ref = \(ref))"
    }

    /// The triggers that copy a row's text before it changes and queue it to be written again.
    static let createTriggers = """
        -- An entry's insert and update are indexed and copied by the import itself (RecordImport), not by a
        -- trigger: with foreign keys on, a trigger makes every one-row statement keep a statement journal, and an
        -- import of 100,000 entries took six times as long. Deletes keep theirs: a person or source removed
        -- deletes their entries in one cascading statement.
        CREATE TRIGGER search_entry_delete BEFORE DELETE ON entries BEGIN
            \(capture("OLD.pk"));
        END;

        CREATE TRIGGER search_annotation_insert BEFORE INSERT ON annotations BEGIN
            \(capture(entryOf("NEW")));
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(entryOf("NEW"));
        END;
        CREATE TRIGGER search_annotation_update BEFORE UPDATE ON annotations BEGIN
            \(capture(entryOf("OLD")));
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(entryOf("OLD"));
            \(capture(entryOf("NEW")));
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(entryOf("NEW"));
        END;
        CREATE TRIGGER search_annotation_delete BEFORE DELETE ON annotations BEGIN
            \(capture(entryOf("OLD")));
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(entryOf("OLD"));
        END;

        CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
            INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref) VALUES (\(nextDocID), 'post', NEW.patient_id, NEW.id);
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(docOf("post", "NEW", "NEW.id"));
        END;
        CREATE TRIGGER search_post_delete BEFORE DELETE ON timeline_entries BEGIN
            \(capture(docOf("post", "OLD", "OLD.id")));
            DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
        END;

        CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
            INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref)
                VALUES (\(nextDocID), 'section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
            INSERT OR IGNORE INTO search_queue (docid) SELECT \(docOf("section", "NEW", "NEW.document_id || '#' || NEW.ordinal"));
        END;
        CREATE TRIGGER search_section_delete BEFORE DELETE ON document_sections BEGIN
            \(capture(docOf("section", "OLD", "OLD.document_id || '#' || OLD.ordinal")));
            DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
        END;
        """

    /// The index's objects: what `dropObjects` removes and a reshape makes again.
    static let createObjects = createContent + createIndex + createTriggers
    /// The whole index, tables and objects.
    static let create = createTables + createObjects

    /// Every object of the index but its tables, of any shape it has had (a reshape starts from here).
    static let dropObjects = """
        DROP TRIGGER IF EXISTS search_entry_delete;
        DROP TRIGGER IF EXISTS search_annotation_insert;
        DROP TRIGGER IF EXISTS search_annotation_update;
        DROP TRIGGER IF EXISTS search_annotation_delete;
        DROP TRIGGER IF EXISTS search_post_insert;
        DROP TRIGGER IF EXISTS search_post_delete;
        DROP TRIGGER IF EXISTS search_section_insert;
        DROP TRIGGER IF EXISTS search_section_delete;
        DROP TABLE IF EXISTS search;
        DROP VIEW IF EXISTS search_text;
        """

    /// Queues every searchable row of a store that has none indexed yet (the migration of an existing store).
    static let rebuild = """
        INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) SELECT 'post', patient_id, id FROM timeline_entries;
        INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) SELECT 'section', patient_id, document_id || '#' || ordinal FROM document_sections;
        \(renumberDocs);
        """ + queueEverything

    /// Every row of the index written again (a migration that makes the index anew, after `createIndex`).
    static let queueEverything = """
        DELETE FROM search_queue;
        DELETE FROM search_old;
        DELETE FROM search_rows;
        INSERT OR IGNORE INTO search_queue (docid) SELECT pk FROM entries;
        INSERT OR IGNORE INTO search_queue (docid) SELECT id FROM search_docs;
        """

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
/// each write transaction, and by the migration that creates the index.
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
