import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A search of the full-text index (`SearchIndexSchema`): the matches of the terms within the filter,
/// ranked by a TF-IDF score over the index's own statistics (best first, then newest), one page of them
/// with a snippet each.
enum SearchQuery {
    /// How quickly repeats of a word stop adding to a score (BM25's usual constant).
    static let k1 = 1.2
    /// Snippet: words around the match.
    static let snippetTokens = 12

    static func run(_ terms: SearchTerms, filter: SearchFilter, offset: Int, limit: Int, in db: Database) throws -> SearchPage {
        guard !filter.patientIDs.isEmpty else { return SearchPage(hits: [], total: 0, nextOffset: nil) }
        // The first pass reads as little of each match as it can: its score from the index, its date and
        // patient from its narrow filter row (`search_rows`). A filter on every patient the store has (one
        // person, or the whole family) reads no patient; only a type filter reads the row's own table.
        var sql = """
            SELECT search.docid, matchinfo(search, 'pcx'), r.date FROM search JOIN search_rows r ON r.docid = search.docid
            WHERE search MATCH ?
            """
        var arguments: [any DatabaseValueConvertible] = [terms.matchExpression]
        let placeholders = "(" + Array(repeating: "?", count: filter.patientIDs.count).joined(separator: ", ") + ")"
        let everyone = try db.scalar("SELECT count(*) FROM patients", as: Int.self) ?? 0
        let named = try db.scalar("SELECT count(*) FROM patients WHERE id IN " + placeholders, filter.patientIDs, as: Int.self) ?? 0
        if named < everyone {
            sql += " AND r.person IN (SELECT number FROM search_people WHERE patient_id IN " + placeholders + ")"
            arguments += filter.patientIDs as [any DatabaseValueConvertible]
        }
        if let type = filter.type {
            // `post`: every post; another type: entries of that type, or sections for `document` (a post's kind
            // is not its type here).
            sql += " AND " + SearchIndexSchema.matchType + " = ?"
            arguments.append(type)
        }
        if let from = filter.from {
            sql += " AND r.date >= ?"
            arguments.append(from)
        }
        if let to = filter.to {
            sql += " AND r.date <= ?"
            arguments.append(to)
        }
        struct Match {
            var docid: Int64, date: Int64?, score: Double
        }
        var matches: [Match] = []
        try db.statement(sql).forEach(arguments) { row in
            matches.append(Match(docid: row.int64(0), date: row.int64OrNil(2), score: score(row.bytes(1))))
        }
        matches.sort { a, c in
            if a.score != c.score { return a.score > c.score }
            if a.date != c.date { return (a.date ?? .min) > (c.date ?? .min) }
            return a.docid < c.docid
        }
        let page = matches.dropFirst(offset).prefix(limit)
        // The page's snippets in one statement: FTS4 reads each row's text through a statement over the view
        // that it prepares once a statement (see `SearchIndexSchema.removeCopied`), not once a hit.
        var snippets: [Int64: String] = [:]
        if !page.isEmpty {
            let docids = "(" + Array(repeating: "?", count: page.count).joined(separator: ", ") + ")"
            let snippet = try db.statement("SELECT docid, snippet(search, ?, ?, ?, 0, ?) FROM search WHERE search MATCH ? AND +docid IN " + docids)
            let arguments: [any DatabaseValueConvertible] = ["\u{2}", "\u{3}", "…", Int64(snippetTokens), terms.matchExpression]
                + page.map(\.docid) as [any DatabaseValueConvertible]
            try snippet.forEach(arguments) { row in snippets[row.int64(0)] = row.string(1) }
        }
        var hits: [SearchHit] = []
        for match in page {
            guard let text = snippets[match.docid], let found = try what(docid: match.docid, in: db) else { continue }
            hits.append(SearchHit(kind: found.kind, id: found.ref, patientID: found.patientID, type: found.type, date: match.date,
                                  title: try title(of: found.kind, ref: found.ref, docid: match.docid, patientID: found.patientID, in: db),
                                  snippet: parts(text), score: match.score))
        }
        let next = offset + page.count < matches.count ? offset + page.count : nil
        return SearchPage(hits: hits, total: matches.count, nextOffset: next)
    }

    /// A TF-IDF score of the body column from `matchinfo(…, 'pcx')` (the index keeps no document lengths,
    /// `matchinfo=fts3`, which saves a write a row): p phrases, c columns, then by phrase and column: hits
    /// in this row, hits in all rows, rows with hits. Each phrase adds idf × tf / (tf + k1): rare words
    /// count more, repeats count less and less.
    static func score(_ blob: [UInt8]) -> Double {
        let values: [UInt32] = stride(from: 0, to: blob.count - 3, by: 4).map { (i: Int) -> UInt32 in
            let low = UInt32(blob[i]) | UInt32(blob[i + 1]) << 8
            let high = UInt32(blob[i + 2]) << 16 | UInt32(blob[i + 3]) << 24
            return low | high
        }
        guard values.count >= 2 else { return 0 }
        let phrases = Int(values[0]), columns = Int(values[1])
        guard columns > 0, values.count >= 2 + 3 * phrases * columns else { return 0 }
        var total = 0.0
        for phrase in 0..<phrases {
            let at = 2 + 3 * (phrase * columns)
            let frequency = Double(values[at]), withHits = Double(values[at + 2])
            guard frequency > 0 else { continue }
            // Rarer words weigh more (the index keeps no row count: a fixed scale stands in for it).
            let idf = log(1 + 1_000_000 / max(withHits, 1))
            total += idf * frequency * (k1 + 1) / (frequency + k1)
        }
        return total
    }

    /// A snippet with the marks FTS4 put around matches (\u{2} … \u{3}) as parts.
    static func parts(_ text: String) -> [SearchHit.SnippetPart] {
        var parts: [SearchHit.SnippetPart] = []
        var current = ""
        var inMatch = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{2}" || scalar == "\u{3}" {
                if !current.isEmpty { parts.append(.init(text: current, match: inMatch)) }
                current = ""
                inMatch = scalar == "\u{2}"
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { parts.append(.init(text: current, match: inMatch)) }
        return parts
    }

    /// What an index row is, from its docid (see `SearchIndexSchema`): an entry, or a post or a document
    /// section, with its id or reference, its patient and its type.
    static func what(docid: Int64, in db: Database) throws -> (kind: SearchHit.Kind, ref: String, patientID: String, type: String)? {
        if docid < SearchIndexSchema.documentDocidBase {
            return try db.row("SELECT id, patient_id, type FROM entries WHERE pk = ?", [docid]) { row in
                (SearchHit.Kind.entry, row.string("id"), row.string("patient_id"), row.string("type"))
            }
        }
        return try db.row("""
            SELECT d.kind, d.ref, d.patient_id, coalesce(t.kind, 'document') AS type FROM search_docs d
            LEFT JOIN timeline_entries t ON d.kind = 'post' AND t.patient_id = d.patient_id AND t.id = d.ref WHERE d.id = ?
            """, [docid]) { row in
            SearchHit.Kind(rawValue: row.string("kind")).map { ($0, row.string("ref"), row.string("patient_id"), row.string("type")) }
        } ?? nil
    }

    /// What a person reads as the hit's name.
    static func title(of kind: SearchHit.Kind, ref: String, docid: Int64, patientID: String, in db: Database) throws -> String {
        switch kind {
        case .entry:
            return try db.scalar("SELECT coalesce(description, type) FROM entries WHERE pk = ?", [docid], as: String.self) ?? ""
        case .section:
            guard let hash = ref.lastIndex(of: "#"), let ordinal = Int64(ref[ref.index(after: hash)...]) else { return "" }
            let document = String(ref[..<hash])
            return try db.row("""
                SELECT s.title AS section, d.title AS document FROM document_sections s
                JOIN documents d ON d.patient_id = s.patient_id AND d.id = s.document_id
                WHERE s.patient_id = ? AND s.document_id = ? AND s.ordinal = ?
                """, [patientID, document, ordinal]) { row in row.string("section") + " — " + row.string("document") } ?? ""
        case .post:
            return try db.scalar("SELECT body FROM search WHERE docid = ?", [docid], as: String.self) ?? ""
        }
    }
}

extension Store {
    /// One page of what `terms` find in the patients of `filter`.
    public func search(_ terms: SearchTerms, filter: SearchFilter, offset: Int = 0, limit: Int = 20) async throws(StoreError) -> SearchPage {
        try await read { db in try SearchQuery.run(terms, filter: filter, offset: offset, limit: limit, in: db) }
    }

    package func searchSync(_ terms: SearchTerms, filter: SearchFilter, offset: Int = 0, limit: Int = 20) throws(StoreError) -> SearchPage {
        try readSync { db in try SearchQuery.run(terms, filter: filter, offset: offset, limit: limit, in: db) }
    }
}
