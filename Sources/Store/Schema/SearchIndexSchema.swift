/// The full-text index (`search`, FTS4 with the unicode61 tokenizer, diacritics removed): one row a
/// searchable thing, kept by triggers in the same transaction as whatever changes it, so every import,
/// sync, post, note and delete is searchable at once with no code path able to forget it. Its pages are
/// encrypted like every other page of the store.
///
/// Rows: an entry (`docid` = the entry's `pk` × 2: its description, text value, codes and the person's
/// annotation), a timeline post and a document section (`docid` = a `search_docs` row × 2 + 1: stable
/// ids for rows whose tables have none of their own).
enum SearchIndexSchema {
    /// A codes column (`{"LOINC":["2823-3"]}`) as words: `LOINC 2823-3`.
    static func codesAsText(_ column: String) -> String {
        "replace(replace(replace(replace(replace(replace(replace(\(column), '{', ''), '}', ''), '\"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')"
    }

    /// A flat JSON object (a post's data) as words.
    static func jsonAsText(_ column: String) -> String { codesAsText(column) }

    static let entryText = """
        coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || \(codesAsText("e.codes"))
            || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
            || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
        """

    static let create = """
        CREATE VIRTUAL TABLE search USING fts4(
            body, patient_id, kind, ref, type, date,
            notindexed=patient_id, notindexed=kind, notindexed=ref, notindexed=type, notindexed=date,
            tokenize=unicode61 "remove_diacritics=1"
        );
        CREATE TABLE search_docs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            patient_id TEXT NOT NULL,
            ref TEXT NOT NULL,
            UNIQUE (kind, patient_id, ref)
        );

        CREATE VIEW search_entry_rows AS
            SELECT e.pk AS pk, e.pk * 2 AS docid, \(entryText) AS body, e.patient_id AS patient_id, 'entry' AS kind,
                   e.id AS ref, e.type AS type, e.date AS date
            FROM entries e LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id;

        CREATE TRIGGER search_entry_insert AFTER INSERT ON entries BEGIN
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows WHERE pk = NEW.pk;
        END;
        CREATE TRIGGER search_entry_update AFTER UPDATE OF description, text_value, codes, type, date, id, patient_id ON entries BEGIN
            DELETE FROM search WHERE docid = OLD.pk * 2;
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows WHERE pk = NEW.pk;
        END;
        CREATE TRIGGER search_entry_delete AFTER DELETE ON entries BEGIN
            DELETE FROM search WHERE docid = OLD.pk * 2;
        END;

        CREATE TRIGGER search_annotation_insert AFTER INSERT ON annotations BEGIN
            DELETE FROM search WHERE docid = (SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows
                WHERE pk = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
        END;
        CREATE TRIGGER search_annotation_update AFTER UPDATE ON annotations BEGIN
            DELETE FROM search WHERE docid = (SELECT pk * 2 FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows
                WHERE pk = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
        END;
        CREATE TRIGGER search_annotation_delete AFTER DELETE ON annotations BEGIN
            DELETE FROM search WHERE docid = (SELECT pk * 2 FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows
                WHERE pk = (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
        END;

        CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
            INSERT INTO search_docs (kind, patient_id, ref) VALUES ('post', NEW.patient_id, NEW.id);
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT id * 2 + 1, \(jsonAsText("NEW.data")), NEW.patient_id, 'post', NEW.id, NEW.kind, NEW.created_at
                FROM search_docs WHERE kind = 'post' AND patient_id = NEW.patient_id AND ref = NEW.id;
        END;
        CREATE TRIGGER search_post_delete AFTER DELETE ON timeline_entries BEGIN
            DELETE FROM search WHERE docid = (SELECT id * 2 + 1 FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id);
            DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
        END;

        CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
            INSERT INTO search_docs (kind, patient_id, ref) VALUES ('section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
            INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
                SELECT id * 2 + 1, NEW.title || ' ' || NEW.text, NEW.patient_id, 'section', ref, 'document',
                       (SELECT time FROM documents WHERE patient_id = NEW.patient_id AND id = NEW.document_id)
                FROM search_docs WHERE kind = 'section' AND patient_id = NEW.patient_id AND ref = NEW.document_id || '#' || NEW.ordinal;
        END;
        CREATE TRIGGER search_section_delete AFTER DELETE ON document_sections BEGIN
            DELETE FROM search WHERE docid = (SELECT id * 2 + 1 FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id
                                                                   AND ref = OLD.document_id || '#' || OLD.ordinal);
            DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
        END;
        """

    /// Fills the index from what a store already holds (the migration of an existing store).
    static let rebuild = """
        INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
            SELECT docid, body, patient_id, kind, ref, type, date FROM search_entry_rows;
        INSERT INTO search_docs (kind, patient_id, ref) SELECT 'post', patient_id, id FROM timeline_entries;
        INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
            SELECT d.id * 2 + 1, \(jsonAsText("t.data")), t.patient_id, 'post', t.id, t.kind, t.created_at
            FROM timeline_entries t JOIN search_docs d ON d.kind = 'post' AND d.patient_id = t.patient_id AND d.ref = t.id;
        INSERT INTO search_docs (kind, patient_id, ref) SELECT 'section', patient_id, document_id || '#' || ordinal FROM document_sections;
        INSERT INTO search (docid, body, patient_id, kind, ref, type, date)
            SELECT d.id * 2 + 1, s.title || ' ' || s.text, s.patient_id, 'section', d.ref, 'document',
                   (SELECT time FROM documents WHERE patient_id = s.patient_id AND id = s.document_id)
            FROM document_sections s JOIN search_docs d ON d.kind = 'section' AND d.patient_id = s.patient_id
                                                       AND d.ref = s.document_id || '#' || s.ordinal;
        """
}
