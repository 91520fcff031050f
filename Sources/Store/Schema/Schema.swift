import HealthRecord

/// The schema, as named steps. SQLCipher 3.4.1 is SQLite 3.15.2: no JSON functions, no UPSERT, no window
/// functions, so JSON columns are plain text written and read by Swift.
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
        // Search: the full-text index inside the encrypted store, kept by triggers (SearchIndexSchema), filled
        // from what an existing store holds.
        Migration(version: 7, name: "full-text search index") { db in
            try db.execute(SearchIndexSchema.create)
            try db.execute(SearchIndexSchema.rebuild)
            try SearchIndex.apply(in: db)
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
        // entries', which are their `pk`s. Made anew from what the store holds, whatever shape the index had.
        Migration(version: 13, name: "search index over the store's own text") { db in
            try db.execute(SearchIndexSchema.dropObjects)
            try db.execute(SearchIndexSchema.createTables)
            try db.execute(SearchIndexSchema.renumberDocs)
            try db.execute(SearchIndexSchema.createObjects)
            try db.execute(SearchIndexSchema.queueEverything)
            try SearchIndex.apply(in: db)
        },
    ]
}
