import HealthRecord

/// The schema, as named steps. SQLCipher 3.4.1 is SQLite 3.15.2: no JSON functions, no UPSERT, no window
/// functions, so JSON columns are plain text written and read by Swift.
///
/// Each step talks only to the database, in SQL frozen when it was written, and never calls the store's code
/// of today (GRDB's rule): a store of any version upgrades the same way forever. A change to the schema, the
/// search index's included, is a new step, never an edit of one that has shipped.
enum Schema {
    static let migrations: [Migration] = [
        Migration(version: 1, name: "create core tables") { db in
            try db.execute("""
                CREATE TABLE sources (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL CHECK (kind IN ('file', 'rhex')),
                    url TEXT,
                    settings TEXT NOT NULL DEFAULT '{}',
                    client_secret TEXT,
                    user_password TEXT,
                    access_token TEXT,
                    access_token_expires_at INTEGER,
                    refresh_token TEXT,
                    state TEXT NOT NULL DEFAULT 'ok',
                    last_error TEXT,
                    last_sync_at INTEGER,
                    created_at INTEGER NOT NULL
                );

                CREATE TABLE patients (
                    id TEXT PRIMARY KEY,
                    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
                    record_id TEXT NOT NULL,
                    mrn TEXT,
                    name TEXT NOT NULL,
                    first_name TEXT,
                    last_name TEXT,
                    gender TEXT,
                    birthdate INTEGER,
                    relationship TEXT,
                    other_fields TEXT NOT NULL DEFAULT '{}',
                    etag TEXT,
                    revision INTEGER NOT NULL DEFAULT 1,
                    entry_count INTEGER NOT NULL DEFAULT 0,
                    imported_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    UNIQUE (source_id, record_id)
                );

                -- Clinical entries. `date` is the first of time, start, end; an entry is in a timeline window
                -- when its date, start or end lies in it, so each of the three has its own index and a
                -- window's read is index range scans: its cost follows the window. (Migration 3 makes the
                -- indexes covering; TimelineWindowQuery says how the timeline reads them.)
                CREATE TABLE entries (
                    pk INTEGER PRIMARY KEY,
                    id TEXT NOT NULL,
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    type TEXT NOT NULL,
                    description TEXT,
                    date INTEGER,
                    time INTEGER,
                    start_time INTEGER,
                    end_time INTEGER,
                    status TEXT,
                    value REAL,
                    text_value TEXT,
                    units TEXT,
                    codes TEXT NOT NULL DEFAULT '{}',
                    source_entry_id TEXT,
                    raw TEXT NOT NULL,
                    content_hash BLOB NOT NULL,
                    -- For conditions, medications and allergies whose status is not closed: the end time, or
                    -- the largest integer when open-ended. NULL for every other entry. Indexed (partial index)
                    -- so that the "ongoing" query reads only candidates whose end lies after the window.
                    ongoing_end INTEGER,
                    UNIQUE (patient_id, id)
                );
                CREATE INDEX entries_by_date ON entries (patient_id, date);
                CREATE INDEX entries_by_start ON entries (patient_id, start_time);
                CREATE INDEX entries_by_end ON entries (patient_id, end_time);
                CREATE INDEX entries_ongoing ON entries (patient_id, ongoing_end) WHERE ongoing_end IS NOT NULL;

                -- What the user posts on the timeline (levels, new medications, regimen adherence).
                CREATE TABLE timeline_entries (
                    id TEXT PRIMARY KEY,
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('levels', 'medication', 'regimen')),
                    created_at INTEGER NOT NULL,
                    data TEXT NOT NULL
                );
                CREATE INDEX timeline_entries_by_time ON timeline_entries (patient_id, created_at);

                CREATE TABLE import_jobs (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'needs_sign_in')),
                    trigger TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    progress_done INTEGER NOT NULL DEFAULT 0,
                    progress_total INTEGER,
                    last_error TEXT,
                    created_at INTEGER NOT NULL,
                    started_at INTEGER,
                    finished_at INTEGER,
                    next_run_at INTEGER,
                    owner TEXT,
                    heartbeat_at INTEGER
                );
                CREATE INDEX import_jobs_by_state ON import_jobs (state, next_run_at);

                -- API tokens: only a SHA-256 of the token is kept.
                CREATE TABLE api_tokens (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER
                );

                CREATE TABLE settings (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );

                INSERT INTO sources (name, kind, created_at) VALUES ('files', 'file', strftime('%s','now'));
                """)
        },
        Migration(version: 2, name: "import job results and authorization codes") { db in
            try db.execute("""
                -- An OAuth2 authorization code given at `source add`, exchanged (and cleared) at the first sync.
                ALTER TABLE sources ADD COLUMN authorization_code TEXT;

                -- What one run of a job did, for `/imports.json` and `hreaderd sync`.
                ALTER TABLE import_jobs ADD COLUMN patients_added INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN patients_updated INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN patients_unchanged INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN patients_not_modified INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN patients_failed INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN entries_added INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN entries_updated INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE import_jobs ADD COLUMN entries_removed INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX import_jobs_by_source ON import_jobs (source_id, id);
                """)
        },
        // A timeline read copies each entry's JSON object as stored (`timeline_json`; none for vital signs,
        // which the timeline groups from their columns) instead of reading twelve columns and encoding them
        // on every request. With it and the columns the queries test in the indexes, a read is one range scan
        // of compact index pages in (date, id) order: no lookup of each row in the table, whose pages also
        // hold every entry's raw source JSON, and no sort. Measured with a 100,000-entry patient: see
        // docs/benchmarks.md. The column is filled by the store's entry encoder, not here: a migration talks
        // only to the database (`EntryJSONRefresh` encodes every entry when the encoder's version is not the
        // one recorded, and this migration clears the record).
        Migration(version: 3, name: "timeline JSON of each entry, in covering indexes") { db in
            try db.execute("""
                ALTER TABLE entries ADD COLUMN timeline_json TEXT;
                DELETE FROM settings WHERE key = 'entry_json_version';
                """)
            try db.execute("""
                DROP INDEX entries_by_date;
                CREATE INDEX entries_by_date
                    ON entries (patient_id, date, id, type, timeline_json, description, value, units, start_time, end_time);
                DROP INDEX entries_by_start;
                CREATE INDEX entries_by_start ON entries (patient_id, start_time, date);
                DROP INDEX entries_by_end;
                CREATE INDEX entries_by_end ON entries (patient_id, end_time, date);
                DROP INDEX entries_ongoing;
                CREATE INDEX entries_ongoing ON entries (patient_id, ongoing_end, date, id, start_time, time, end_time, timeline_json)
                    WHERE ongoing_end IS NOT NULL;
                """)
        },
        // FHIR (and later C-CDA) files: the person found again by the source's identifiers; the resources of a
        // person that are not entries kept verbatim; every imported file kept (encrypted, like the rest) with
        // its hash and what it produced, for `reimport`; a job's report.
        Migration(version: 4, name: "patient identifiers, kept resources, imported files") { db in
            try db.execute("""
                CREATE TABLE patient_identifiers (
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    system TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (system, value, patient_id)
                );
                CREATE INDEX patient_identifiers_by_patient ON patient_identifiers (patient_id);

                CREATE TABLE kept_resources (
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    raw TEXT NOT NULL,
                    PRIMARY KEY (patient_id, id)
                );

                CREATE TABLE imported_files (
                    id INTEGER PRIMARY KEY,
                    -- The files of one folder import share a batch (the id of its first file).
                    batch INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    media_type TEXT,
                    sha256 BLOB NOT NULL,
                    -- The file's own size; `content` holds it deflated (zlib) when `encoding` says so.
                    size INTEGER NOT NULL,
                    encoding TEXT NOT NULL DEFAULT 'identity' CHECK (encoding IN ('identity', 'zlib')),
                    content BLOB NOT NULL,
                    imported_at INTEGER NOT NULL,
                    -- What the import produced, as JSON (the report of this file).
                    report TEXT NOT NULL DEFAULT '{}'
                );
                CREATE INDEX imported_files_by_batch ON imported_files (batch, id);
                CREATE INDEX imported_files_by_hash ON imported_files (sha256);

                ALTER TABLE import_jobs ADD COLUMN report TEXT;
                """)
        },
        // The person's own changes: annotations on entries (kept apart from the imported data, keyed by the
        // entry's stable id and not tied to the entry row, so a re-import never drops one and an entry the
        // source removed leaves its annotation behind, shown as orphaned); how each person is named and
        // ordered; which patients are the same person; which records a person removed (not brought back).
        Migration(version: 5, name: "annotations, people, links, removed records") { db in
            try db.execute("""
                CREATE TABLE annotations (
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    entry_id TEXT NOT NULL,
                    note TEXT,
                    struck INTEGER NOT NULL DEFAULT 0,
                    reason TEXT,
                    quantity TEXT,
                    dose TEXT,
                    directions TEXT,
                    prescriber TEXT,
                    -- What the entry was when the annotation was last written, so that an annotation whose entry
                    -- the source removed can still say what it was on.
                    entry_type TEXT,
                    entry_description TEXT,
                    entry_date INTEGER,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (patient_id, entry_id)
                );

                ALTER TABLE patients ADD COLUMN display_name TEXT;
                ALTER TABLE patients ADD COLUMN display_order INTEGER;

                -- A patient linked into a person: the person is known by the id of its first patient.
                CREATE TABLE patient_links (
                    patient_id TEXT PRIMARY KEY REFERENCES patients(id) ON DELETE CASCADE,
                    person_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    linked_at INTEGER NOT NULL,
                    CHECK (patient_id <> person_id)
                );
                CREATE INDEX patient_links_by_person ON patient_links (person_id);

                -- The patients a server offers (its people feed): imported when chosen, or when the source imports
                -- all; new ones are offered, not imported silently.
                CREATE TABLE offered_patients (
                    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
                    record_id TEXT NOT NULL,
                    title TEXT,
                    first_seen_at INTEGER NOT NULL,
                    last_seen_at INTEGER NOT NULL,
                    chosen INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (source_id, record_id)
                );

                -- Records a person removed: an import or a sync of the same record does not bring it back.
                CREATE TABLE removed_records (
                    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
                    record_id TEXT NOT NULL,
                    removed_at INTEGER NOT NULL,
                    PRIMARY KEY (source_id, record_id)
                );
                """)
        },
        // Documents (C-CDA, C32): each one's sections as readable text, narrative-only ones included; the time
        // an entry and a person's demographics were last said by a document, so an older document imported
        // after a newer one changes nothing the newer one said.
        Migration(version: 6, name: "documents, their sections' text, the time facts were said") { db in
            try db.execute("""
                CREATE TABLE documents (
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    time INTEGER,
                    format TEXT NOT NULL,
                    imported_at INTEGER NOT NULL,
                    PRIMARY KEY (patient_id, id)
                );
                CREATE TABLE document_sections (
                    patient_id TEXT NOT NULL,
                    document_id TEXT NOT NULL,
                    ordinal INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    code TEXT,
                    text TEXT NOT NULL,
                    entries INTEGER NOT NULL,
                    PRIMARY KEY (patient_id, document_id, ordinal),
                    FOREIGN KEY (patient_id, document_id) REFERENCES documents(patient_id, id) ON DELETE CASCADE
                );

                ALTER TABLE entries ADD COLUMN as_of INTEGER;
                ALTER TABLE patients ADD COLUMN as_of INTEGER;
                """)
        },
        // Search: the full-text index inside the encrypted store, kept by triggers, filled from what an existing
        // store holds. The index in the shape migration 13 gives it (which makes it anew), as SearchIndexSchema
        // wrote it when this SQL was frozen (issue 37): its tables, the view FTS4 reads the text through, the
        // index, the triggers; every row queued, then written. `code_values` is the store's SQL function
        // (`CodeValuesFunction`, on every connection): the view calls it at every read, and the index must hold
        // the words the view gives, so this uses that function, not a frozen copy of it.
        Migration(version: 7, name: "full-text search index") { db in
            try db.execute("""
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

                CREATE VIEW search_text (rowid, body) AS
                    SELECT docid, body FROM search_old
                    UNION ALL
                    SELECT e.pk, coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || code_values(e.codes)
                    || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
                    || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
                        FROM entries e LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id
                        WHERE NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = e.pk)
                    UNION ALL
                    SELECT d.id, replace(replace(replace(replace(replace(replace(replace(t.data, '{', ''), '}', ''), '"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')
                        FROM search_docs d JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                        WHERE d.kind = 'post' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id)
                    UNION ALL
                    SELECT d.id, s.title || ' ' || s.text
                        FROM search_docs d JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                        WHERE d.kind = 'section' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id);

                CREATE VIRTUAL TABLE search USING fts4(
                    content="search_text", body,
                    tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3
                );

                -- An entry's insert and update are indexed and copied by the import itself (RecordImport), not by a
                -- trigger: with foreign keys on, a trigger makes every one-row statement keep a statement journal, and an
                -- import of 100,000 entries took six times as long. Deletes keep theirs: a person or source removed
                -- deletes their entries in one cascading statement.
                CREATE TRIGGER search_entry_delete BEFORE DELETE ON entries BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = OLD.pk;
                END;

                CREATE TRIGGER search_annotation_insert BEFORE INSERT ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                END;
                CREATE TRIGGER search_annotation_update BEFORE UPDATE ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                END;
                CREATE TRIGGER search_annotation_delete BEFORE DELETE ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                END;

                CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
                    INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref) VALUES (max(1099511627776, coalesce((SELECT max(id) FROM search_docs), 0) + 1), 'post', NEW.patient_id, NEW.id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT id FROM search_docs WHERE kind = 'post' AND patient_id = NEW.patient_id AND ref = NEW.id);
                END;
                CREATE TRIGGER search_post_delete BEFORE DELETE ON timeline_entries BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id);
                    DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
                END;

                CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
                    INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref)
                        VALUES (max(1099511627776, coalesce((SELECT max(id) FROM search_docs), 0) + 1), 'section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT id FROM search_docs WHERE kind = 'section' AND patient_id = NEW.patient_id AND ref = NEW.document_id || '#' || NEW.ordinal);
                END;
                CREATE TRIGGER search_section_delete BEFORE DELETE ON document_sections BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal);
                    DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
                END;

                INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) SELECT 'post', patient_id, id FROM timeline_entries;
                INSERT OR IGNORE INTO search_docs (kind, patient_id, ref) SELECT 'section', patient_id, document_id || '#' || ordinal FROM document_sections;
                UPDATE search_docs SET id = id + 1099511627776 WHERE id < 1099511627776;
                DELETE FROM search_queue;
                DELETE FROM search_old;
                DELETE FROM search_rows;
                INSERT OR IGNORE INTO search_queue (docid) SELECT pk FROM entries;
                INSERT OR IGNORE INTO search_queue (docid) SELECT id FROM search_docs;

                DELETE FROM search_rows WHERE docid IN (SELECT docid FROM search_old);
                DELETE FROM search_old;
                INSERT OR IGNORE INTO search_people (patient_id)
                    SELECT e.patient_id FROM search_queue q JOIN entries e ON e.pk = q.docid
                    UNION SELECT d.patient_id FROM search_queue q JOIN search_docs d ON d.id = q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || code_values(e.codes)
                    || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
                    || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
                    FROM search_queue q JOIN entries e ON e.pk = q.docid
                    LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id
                    WHERE q.docid < 1099511627776 ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, e.date
                    FROM search_queue q JOIN entries e ON e.pk = q.docid JOIN search_people p ON p.patient_id = e.patient_id
                    WHERE q.docid < 1099511627776 ORDER BY q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, replace(replace(replace(replace(replace(replace(replace(t.data, '{', ''), '}', ''), '"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid
                    JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'post' ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, t.created_at
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
                    JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'post' ORDER BY q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, s.title || ' ' || s.text
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid
                    JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                    WHERE q.docid >= 1099511627776 AND d.kind = 'section' ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, doc.time
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
                    JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                    JOIN documents doc ON doc.patient_id = s.patient_id AND doc.id = s.document_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'section' ORDER BY q.docid;
                DELETE FROM search_queue;
                """)
        },
        // The audit trail: who did what to which patient, and when (never record contents). Rows are only
        // appended, and removed by age; an update is refused by the database itself.
        Migration(version: 8, name: "audit trail") { db in
            try db.execute("""
                CREATE TABLE audit_log (
                    id INTEGER PRIMARY KEY,
                    at INTEGER NOT NULL,
                    action TEXT NOT NULL,
                    actor TEXT NOT NULL,
                    patient_id TEXT,
                    detail TEXT
                );
                CREATE INDEX audit_log_by_time ON audit_log (at);
                CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log BEGIN
                    SELECT RAISE(ABORT, 'the audit trail is append-only');
                END;
                """)
        },
        // The person's own readings (self-reported vital signs, never touched by an import) and which summary
        // modules each patient shows, in order (none: the defaults for the patient's age).
        Migration(version: 9, name: "readings and summary modules") { db in
            try db.execute("""
                CREATE TABLE readings (
                    id TEXT PRIMARY KEY,
                    patient_id TEXT NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('weight', 'height', 'blood_pressure', 'pulse', 'glucose')),
                    taken_at INTEGER NOT NULL,
                    -- As entered, in `unit`; a blood pressure's diastolic in `second_value`.
                    value REAL NOT NULL,
                    second_value REAL,
                    unit TEXT NOT NULL,
                    context TEXT,
                    note TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX readings_by_time ON readings (patient_id, taken_at);

                CREATE TABLE patient_modules (
                    patient_id TEXT PRIMARY KEY REFERENCES patients(id) ON DELETE CASCADE,
                    -- A JSON array of module ids, in the order shown.
                    modules TEXT NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                """)
        },
        // FHIR patient-access servers as sources (SMART App Launch): the `kind` check widened, the PKCE verifier
        // kept with the authorization code until it is exchanged, and sign-ins begun but not yet completed.
        Migration(version: 10, name: "FHIR sources and pending sign-ins", rewritesSchemaText: true) { db in
            // SQLite cannot alter a CHECK constraint. Widening one in the stored schema text is the procedure
            // its documentation gives for such changes (lang_altertable.html, "making other kinds of table
            // schema changes"): nothing on disk changes, and the schema version is raised so that every
            // connection reads the new text.
            try db.execute("""
                ALTER TABLE sources ADD COLUMN pkce_verifier TEXT;

                -- A sign-in begun by `source add --fhir` or `POST /sources`: completed by the redirect to
                -- /sources/callback (or `source add NAME --auth-code`) with the same `state`, before it expires.
                CREATE TABLE pending_sign_ins (
                    state TEXT PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    fhir_url TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    client_secret TEXT,
                    redirect_uri TEXT NOT NULL,
                    pkce_verifier TEXT NOT NULL,
                    authorize_url TEXT NOT NULL,
                    token_url TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    sync_interval_seconds INTEGER,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                """)
            // Last: a statement that changes `sources` after this, on this connection, would use its stale text.
            let version = try db.scalar("PRAGMA schema_version", as: Int64.self) ?? 0
            try db.execute("PRAGMA writable_schema = ON")
            try db.execute("""
                UPDATE sqlite_master SET sql = replace(sql, 'CHECK (kind IN (''file'', ''rhex''))', 'CHECK (kind IN (''file'', ''rhex'', ''fhir''))')
                WHERE type = 'table' AND name = 'sources'
                """)
            try db.execute("PRAGMA schema_version = \(version + 1)")
            try db.execute("PRAGMA writable_schema = OFF")
        },
        // The search index written again in a slimmer shape (codes by their values only, no columns that the
        // docid gives). Superseded by migration 13, which makes the index anew whatever shape it has: a store
        // that comes to this version goes on to that one.
        Migration(version: 11, name: "search index without code systems' names") { _ in },
        // The start and end indexes hold only entries that have a start or an end: results and vital signs
        // (most of a long record) have neither, and every such row was an index entry written at each import
        // and never read, as a window's range on start or end never matches NULL (which also lets SQLite use
        // the partial indexes for those ranges).
        Migration(version: 12, name: "start and end indexes without entries that have none") { db in
            try db.execute("""
                DROP INDEX entries_by_start;
                CREATE INDEX entries_by_start ON entries (patient_id, start_time, date) WHERE start_time IS NOT NULL;
                DROP INDEX entries_by_end;
                CREATE INDEX entries_by_end ON entries (patient_id, end_time, date) WHERE end_time IS NOT NULL;
                """)
        },
        // The search index without a copy of its text: FTS4 reads the text from the store's own rows through
        // the view `search_text` (see SearchIndexSchema), and posts' and sections' docids move above the
        // entries', which are their `pk`s. Made anew from what the store holds, whatever shape the index had:
        // every object of any shape dropped, the tables kept (made when missing), the objects made again, every
        // row queued and written. Frozen SQL, as migration 7's (issue 37).
        Migration(version: 13, name: "search index over the store's own text") { db in
            try db.execute("""
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

                UPDATE search_docs SET id = id + 1099511627776 WHERE id < 1099511627776;

                CREATE VIEW search_text (rowid, body) AS
                    SELECT docid, body FROM search_old
                    UNION ALL
                    SELECT e.pk, coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || code_values(e.codes)
                    || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
                    || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
                        FROM entries e LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id
                        WHERE NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = e.pk)
                    UNION ALL
                    SELECT d.id, replace(replace(replace(replace(replace(replace(replace(t.data, '{', ''), '}', ''), '"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')
                        FROM search_docs d JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                        WHERE d.kind = 'post' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id)
                    UNION ALL
                    SELECT d.id, s.title || ' ' || s.text
                        FROM search_docs d JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                        WHERE d.kind = 'section' AND NOT EXISTS (SELECT 1 FROM search_old o WHERE o.docid = d.id);

                CREATE VIRTUAL TABLE search USING fts4(
                    content="search_text", body,
                    tokenize=unicode61 "remove_diacritics=1", matchinfo=fts3
                );

                -- An entry's insert and update are indexed and copied by the import itself (RecordImport), not by a
                -- trigger: with foreign keys on, a trigger makes every one-row statement keep a statement journal, and an
                -- import of 100,000 entries took six times as long. Deletes keep theirs: a person or source removed
                -- deletes their entries in one cascading statement.
                CREATE TRIGGER search_entry_delete BEFORE DELETE ON entries BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = OLD.pk;
                END;

                CREATE TRIGGER search_annotation_insert BEFORE INSERT ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                END;
                CREATE TRIGGER search_annotation_update BEFORE UPDATE ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = NEW.patient_id AND id = NEW.entry_id);
                END;
                CREATE TRIGGER search_annotation_delete BEFORE DELETE ON annotations BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT pk FROM entries WHERE patient_id = OLD.patient_id AND id = OLD.entry_id);
                END;

                CREATE TRIGGER search_post_insert AFTER INSERT ON timeline_entries BEGIN
                    INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref) VALUES (max(1099511627776, coalesce((SELECT max(id) FROM search_docs), 0) + 1), 'post', NEW.patient_id, NEW.id);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT id FROM search_docs WHERE kind = 'post' AND patient_id = NEW.patient_id AND ref = NEW.id);
                END;
                CREATE TRIGGER search_post_delete BEFORE DELETE ON timeline_entries BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id);
                    DELETE FROM search_docs WHERE kind = 'post' AND patient_id = OLD.patient_id AND ref = OLD.id;
                END;

                CREATE TRIGGER search_section_insert AFTER INSERT ON document_sections BEGIN
                    INSERT OR IGNORE INTO search_docs (id, kind, patient_id, ref)
                        VALUES (max(1099511627776, coalesce((SELECT max(id) FROM search_docs), 0) + 1), 'section', NEW.patient_id, NEW.document_id || '#' || NEW.ordinal);
                    INSERT OR IGNORE INTO search_queue (docid) SELECT (SELECT id FROM search_docs WHERE kind = 'section' AND patient_id = NEW.patient_id AND ref = NEW.document_id || '#' || NEW.ordinal);
                END;
                CREATE TRIGGER search_section_delete BEFORE DELETE ON document_sections BEGIN
                    INSERT OR IGNORE INTO search_old (docid, body) SELECT rowid, body FROM search_text WHERE rowid = (SELECT id FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal);
                    DELETE FROM search_docs WHERE kind = 'section' AND patient_id = OLD.patient_id AND ref = OLD.document_id || '#' || OLD.ordinal;
                END;

                DELETE FROM search_queue;
                DELETE FROM search_old;
                DELETE FROM search_rows;
                INSERT OR IGNORE INTO search_queue (docid) SELECT pk FROM entries;
                INSERT OR IGNORE INTO search_queue (docid) SELECT id FROM search_docs;

                DELETE FROM search_rows WHERE docid IN (SELECT docid FROM search_old);
                DELETE FROM search_old;
                INSERT OR IGNORE INTO search_people (patient_id)
                    SELECT e.patient_id FROM search_queue q JOIN entries e ON e.pk = q.docid
                    UNION SELECT d.patient_id FROM search_queue q JOIN search_docs d ON d.id = q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, coalesce(e.description, '') || ' ' || coalesce(e.text_value, '') || ' ' || code_values(e.codes)
                    || coalesce(' ' || a.note, '') || coalesce(' ' || a.reason, '') || coalesce(' ' || a.quantity, '')
                    || coalesce(' ' || a.dose, '') || coalesce(' ' || a.directions, '') || coalesce(' ' || a.prescriber, '')
                    FROM search_queue q JOIN entries e ON e.pk = q.docid
                    LEFT JOIN annotations a ON a.patient_id = e.patient_id AND a.entry_id = e.id
                    WHERE q.docid < 1099511627776 ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, e.date
                    FROM search_queue q JOIN entries e ON e.pk = q.docid JOIN search_people p ON p.patient_id = e.patient_id
                    WHERE q.docid < 1099511627776 ORDER BY q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, replace(replace(replace(replace(replace(replace(replace(t.data, '{', ''), '}', ''), '"', ''), '[', ' '), ']', ''), ':', ' '), ',', ' ')
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid
                    JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'post' ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, t.created_at
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
                    JOIN timeline_entries t ON t.id = d.ref AND t.patient_id = d.patient_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'post' ORDER BY q.docid;

                INSERT INTO search (docid, body)
                    SELECT q.docid, s.title || ' ' || s.text
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid
                    JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                    WHERE q.docid >= 1099511627776 AND d.kind = 'section' ORDER BY q.docid;
                INSERT OR REPLACE INTO search_rows (docid, person, date)
                    SELECT q.docid, p.number, doc.time
                    FROM search_queue q JOIN search_docs d ON d.id = q.docid JOIN search_people p ON p.patient_id = d.patient_id
                    JOIN document_sections s ON s.patient_id = d.patient_id AND d.ref = s.document_id || '#' || s.ordinal
                    JOIN documents doc ON doc.patient_id = s.patient_id AND doc.id = s.document_id
                    WHERE q.docid >= 1099511627776 AND d.kind = 'section' ORDER BY q.docid;
                DELETE FROM search_queue;
                """)
        },
        // What the source said about a result (its normal range, its interpretation, its own note) and that a
        // person has died (issue 38). Entries of older stores have none until they are imported again (their
        // raw JSON holds it); the timeline JSON is encoded anew at open (`EntryJSONRefresh`, cleared here).
        Migration(version: 14, name: "reference ranges, interpretations, notes; deceased") { db in
            try db.execute("""
                ALTER TABLE entries ADD COLUMN ref_low REAL;
                ALTER TABLE entries ADD COLUMN ref_low_unit TEXT;
                ALTER TABLE entries ADD COLUMN ref_high REAL;
                ALTER TABLE entries ADD COLUMN ref_high_unit TEXT;
                ALTER TABLE entries ADD COLUMN ref_text TEXT;
                ALTER TABLE entries ADD COLUMN interpretation TEXT;
                ALTER TABLE entries ADD COLUMN source_note TEXT;
                ALTER TABLE patients ADD COLUMN deceased INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE patients ADD COLUMN deceased_at INTEGER;
                DELETE FROM settings WHERE key = 'entry_json_version';
                """)
        },
        // The timeline's covering index by type, then date, in place of the one by date (issue 41). A page is
        // written array by array, one type at a time, and the `all` page of a long record reads each type's
        // entries apart: along the date index each type's read was a pass over the whole record (seven passes
        // a page, nearly all of it page decryption), along this one it is a range of its own. No index by date
        // alone is kept: it cost 12 % of the dense million's import, and the few reads by date across types
        // merge the types' ranges instead (`EntriesByDateQuery`). Start and end leave the index: no read by it
        // wants them.
        Migration(version: 15, name: "timeline's covering index by type, then date") { db in
            try db.execute("""
                DROP INDEX entries_by_date;
                CREATE INDEX entries_by_type
                    ON entries (patient_id, type, date, id, timeline_json, description, value, units);
                """)
        },
    ]
}
