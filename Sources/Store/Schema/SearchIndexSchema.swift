/// The full-text index (`search`, FTS4 with the unicode61 tokenizer, diacritics removed): one row a
/// searchable thing, inside the encrypted database like every other page.
///
/// Kept in the transaction of the write that changes what is searched. The entries an import adds go in a
/// few thousand at a time, one statement each (`indexNewEntries`, from `RecordImport`). Every other change is noted in
/// `search_queue`: by triggers on annotations, posts, document sections and entry deletes, and by the import
/// for the entries it updates (`RecordImport`, the only writer of entries). At the end of each write
/// transaction the store applies the queue (`SearchIndex.apply`) in a few statements of its own. The index is not written row by row: FTS4 flushes its pending terms at every statement
/// savepoint, and a trigger runs in one for each row, which made a 100,000-entry import eight times slower.
///
/// Rows: an entry (`docid` = the entry's `pk` × 2: its description, text value, codes' values and the
/// person's annotation), a timeline post and a document section (`docid` = a `search_docs` row × 2 + 1:
/// stable ids for rows whose tables have none of their own). Beside the indexed `body`, a row keeps only
/// what a search filters on (patient, type, date); what a hit is (entry, post or section, and its id) is
/// read from `entries` or `search_docs` by the docid, for the page shown. Every column kept in the index is
/// written once more a row: the slimmer row and the codes without their systems' names (`code_values`)
/// made the import's index work 40% cheaper.
enum SearchIndexSchema {
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

    /// The index itself. `type`: the entry's type, the post's kind, or `document` for a section.
    static let createIndex = """
        CREATE VIRTUAL TABLE search USING fts4(
            body, patient_id, type, date,
            notindexed=patient_id, notindexed=type, notindexed=date,
            tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3
        );
        """

    /// Whether a row is a timeline post, in SQL over the index's columns: posts and sections have odd docids,
    /// and a section's type is `document`.
    static let isPost = "(docid % 2 = 1 AND type <> 'document')"

    static let create = createIndex + """
        CREATE TABLE search_docs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            patient_id TEXT NOT NULL,
            ref TEXT NOT NULL,
            UNIQUE (kind, patient_id, ref)
        );
        -- Index rows to refresh at the end of the transaction: deleted, then written again from what is there.
        CREATE TABLE search_queue (docid INTEGER PRIMARY KEY);

        -- An entry's insert and update are indexed and queued by the import itself (RecordImport), not by a trigger: with
        -- foreign keys on, a trigger makes every one-row statement keep a statement journal, and an import of
        -- 100,000 entries took six times as long. Deletes keep theirs: a person or source removed deletes
        -- their entries in one cascading statement.
        CREATE TRIGGER search_entry_delete AFTER DELETE ON entries BEGIN
            INSERT OR IGNORE INTO search_queue (docid) VALUES (OLD.pk * 2);
        END;

        CREATE TRIGGER search_annotation_insert AFTER INSERT ON annotations BEGIN
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id;
        END;
        CREATE TRIGGER search_annotation_update AFTER UPDATE ON annotations BEGIN
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id;
        END;
        CREATE TRIGGER search_annotation_delete AFTER DELETE ON annotations BEGIN
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT pk * 2 FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id;
        END;

        CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
            INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) VALUES ('post', NEW.patient_id, NEW.id);
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT id * 2 + 1 FROM search_docs WHERE kind = 'post' AND patient_id = NEW.patient_id AND ref = NEW.id;
        END;
        CREATE TRIGGER search_post_delete AFTER DELETE ON timeline_entries BEGIN
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT id * 2 + 1 FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
            DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
        END;

        CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
            INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) VALUES ('section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT id * 2 + 1 FROM search_docs WHERE kind = 'section' AND patient_id = NEW.patient_id
                                                     AND ref = NEW.document_id || '#' || NEW.ordinal;
        END;
        CREATE TRIGGER search_section_delete AFTER DELETE ON document_sections BEGIN
            INSERT OR IGNORE INTO search_queue (docid)
                SELECT id * 2 + 1 FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id
                                                     AND ref = OLD.document_id || '#' || OLD.ordinal;
            DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
        END;
        """

    /// Queues every searchable row of a store that has none indexed yet (the migration of an existing store).
    static let rebuild = """
        INSERT INTO search_docs (kind, patient_id, ref) SELECT 'post', patient_id, id FROM timeline_entries;
        INSERT INTO search_docs (kind, patient_id, ref) SELECT 'section', patient_id, document_id || '#' || ordinal FROM document_sections;
        INSERT OR IGNORE INTO search_queue (docid) SELECT pk * 2 FROM entries;
        INSERT OR IGNORE INTO search_queue (docid) SELECT id * 2 + 1 FROM search_docs;
        """

    /// Every row of the index written again (a migration that changes the index's shape, after `createIndex`).
    static let queueEverything = """
        DELETE FROM search_queue;
        INSERT OR IGNORE INTO search_queue (docid) SELECT pk * 2 FROM entries;
        INSERT OR IGNORE INTO search_queue (docid) SELECT id * 2 + 1 FROM search_docs;
        """

    /// The entries one import added (rowids from `?` up), in one statement: FTS4 then writes them in bulk.
    /// Without their annotations: a new entry seldom has one (`queueAnnotatedNewEntries` finds those).
    static let indexNewEntries = """
        INSERT INTO search (docid, body, patient_id, type, date)
            SELECT e.pk * 2, \(entryOwnText), e.patient_id, e.type, e.date
            FROM entries e WHERE e.pk >= ? ORDER BY e.pk
        """

    /// The new entries (rowids from `?2` up) of a patient (`?1`) that an annotation is waiting for (one the
    /// source dropped and brings back): queued, so that their rows are written again with it.
    static let queueAnnotatedNewEntries = """
        INSERT OR IGNORE INTO search_queue (docid)
            SELECT e.pk * 2 FROM annotations a JOIN entries e ON e.patient_id = a.patient_id AND e.id = a.entry_id
            WHERE a.patient_id = ?1 AND e.pk >= ?2
        """

    /// The queued rows written again from what is there, one statement a kind (each finds its rows by
    /// primary key); a queued row that is gone is only deleted.
    static let applyQueue = """
        DELETE FROM search WHERE docid IN (SELECT docid FROM search_queue);
        INSERT INTO search (docid, body, patient_id, type, date)
            SELECT q.docid, \(entryText), e.patient_id, e.type, e.date
            FROM search_queue q JOIN entries e ON e.pk = q.docid / 2
            LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id
            WHERE q.docid % 2 = 0 ORDER BY q.docid;
        INSERT INTO search (docid, body, patient_id, type, date)
            SELECT q.docid, \(jsonAsText("t.data")), t.patient_id, t.kind, t.created_at
            FROM search_queue q JOIN search_docs d ON d.id = (q.docid - 1) / 2
            JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
            WHERE q.docid % 2 = 1 AND d.kind = 'post' ORDER BY q.docid;
        INSERT INTO search (docid, body, patient_id, type, date)
            SELECT q.docid, s.title || ' ' || s.text, s.patient_id, 'document', doc.time
            FROM search_queue q JOIN search_docs d ON d.id = (q.docid - 1) / 2
            JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
            JOIN documents doc ON doc.patient_id = s.patient_id AND doc.id = s.document_id
            WHERE q.docid % 2 = 1 AND d.kind = 'section' ORDER BY q.docid;
        DELETE FROM search_queue;
        """
}

/// Applies the queue of index rows to refresh (`SearchIndexSchema`): called by the store at the end of
/// each write transaction, and by the migration that creates the index.
enum SearchIndex {
    static func apply(in db: Database) throws {
        guard try db.scalar("SELECT 1 FROM search_queue LIMIT 1", as: Int64.self) != nil else { return }
        try db.execute(SearchIndexSchema.applyQueue)
    }
}
