import Foundation

/// A search of the full-text index (`SearchIndexSchema`): the matches of the terms within the filter,
/// ranked by BM25 over the index's own statistics (best first, then newest), one page of them with a
/// snippet each.
enum SearchQuery {
    /// BM25's usual constants.
    static let k1 = 1.2, b = 0.75
    /// Snippet: words around the match.
    static let snippetTokens = 12

    static func run(_ terms: SearchTerms, filter: SearchFilter, offset: Int, limit: Int, in db: Database) throws -> SearchPage {
        guard !filter.patientIDs.isEmpty else { return SearchPage(hits: [], total: 0, nextOffset: nil) }
        var sql = "SELECT docid, kind, ref, patient_id, type, date, matchinfo(search, 'pcnalx') FROM search WHERE search MATCH ?"
        var arguments: [any DatabaseValueConvertible] = [terms.matchExpression]
        sql += " AND patient_id IN (" + Array(repeating: "?", count: filter.patientIDs.count).joined(separator: ", ") + ")"
        arguments += filter.patientIDs as [any DatabaseValueConvertible]
        switch filter.type {
        case "post"?: sql += " AND kind = 'post'"
        case let type?:
            sql += " AND type = ? AND kind <> 'post'"
            arguments.append(type)
        case nil: break
        }
        if let from = filter.from {
            sql += " AND date >= ?"
            arguments.append(from)
        }
        if let to = filter.to {
            sql += " AND date <= ?"
            arguments.append(to)
        }
        struct Match {
            var docid: Int64, kind: String, ref: String, patientID: String, type: String, date: Int64?, score: Double
        }
        var matches: [Match] = []
        try db.statement(sql).forEach(arguments) { row in
            matches.append(Match(docid: row.int64(0), kind: row.string(1), ref: row.string(2), patientID: row.string(3),
                                 type: row.string(4), date: row.int64OrNil(5), score: score(row.bytes(6))))
        }
        matches.sort { a, c in
            if a.score != c.score { return a.score > c.score }
            if a.date != c.date { return (a.date ?? .min) > (c.date ?? .min) }
            return a.docid < c.docid
        }
        let page = matches.dropFirst(offset).prefix(limit)
        let snippet = try db.statement("SELECT snippet(search, ?, ?, ?, 0, ?) FROM search WHERE search MATCH ? AND docid = ?")
        var hits: [SearchHit] = []
        for match in page {
            guard let kind = SearchHit.Kind(rawValue: match.kind) else { continue }
            var text = ""
            try snippet.forEach(["\u{2}", "\u{3}", "…", Int64(snippetTokens), terms.matchExpression, match.docid]) { row in text = row.string(0) }
            hits.append(SearchHit(kind: kind, id: match.ref, patientID: match.patientID, type: match.type, date: match.date,
                                  title: try title(of: match.kind, ref: match.ref, docid: match.docid, patientID: match.patientID, in: db),
                                  snippet: parts(text), score: match.score))
        }
        let next = offset + page.count < matches.count ? offset + page.count : nil
        return SearchPage(hits: hits, total: matches.count, nextOffset: next)
    }

    /// BM25 of the body column from `matchinfo(…, 'pcnalx')`: p phrases, c columns, n rows, the average
    /// and this row's token counts by column, then by phrase and column: hits here, hits in all rows,
    /// rows with hits.
    static func score(_ blob: [UInt8]) -> Double {
        let values: [UInt32] = stride(from: 0, to: blob.count - 3, by: 4).map { i in
            UInt32(blob[i]) | UInt32(blob[i + 1]) << 8 | UInt32(blob[i + 2]) << 16 | UInt32(blob[i + 3]) << 24
        }
        guard values.count >= 3 else { return 0 }
        let phrases = Int(values[0]), columns = Int(values[1]), rows = Double(values[2])
        let averageAt = 3, lengthAt = 3 + columns, hitsAt = 3 + 2 * columns
        guard values.count >= hitsAt + 3 * phrases * columns, columns > 0 else { return 0 }
        let average = max(Double(values[averageAt]), 1), length = Double(values[lengthAt])
        var total = 0.0
        for phrase in 0..<phrases {
            let at = hitsAt + 3 * (phrase * columns)
            let frequency = Double(values[at]), withHits = Double(values[at + 2])
            guard frequency > 0 else { continue }
            let idf = max(log((rows - withHits + 0.5) / (withHits + 0.5)), 0.01)
            total += idf * frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * length / average))
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

    /// What a person reads as the hit's name.
    static func title(of kind: String, ref: String, docid: Int64, patientID: String, in db: Database) throws -> String {
        switch kind {
        case "entry":
            return try db.scalar("SELECT coalesce(description, type) FROM entries WHERE pk = ?", [docid / 2], as: String.self) ?? ""
        case "section":
            guard let hash = ref.lastIndex(of: "#"), let ordinal = Int64(ref[ref.index(after: hash)...]) else { return "" }
            let document = String(ref[..<hash])
            return try db.row("""
                SELECT s.title AS section, d.title AS document FROM document_sections s
                JOIN documents d ON d.patient_id = s.patient_id AND d.id = s.document_id
                WHERE s.patient_id = ? AND s.document_id = ? AND s.ordinal = ?
                """, [patientID, document, ordinal]) { row in row.string("section") + " — " + row.string("document") } ?? ""
        default:
            return try db.scalar("SELECT body FROM search WHERE docid = ?", [docid], as: String.self) ?? ""
        }
    }
}

extension Store {
    /// One page of what `terms` find in the patients of `filter`.
    public func search(_ terms: SearchTerms, filter: SearchFilter, offset: Int = 0, limit: Int = 20) async throws(StoreError) -> SearchPage {
        try await read { db in try SearchQuery.run(terms, filter: filter, offset: offset, limit: limit, in: db) }
    }

    public func searchSync(_ terms: SearchTerms, filter: SearchFilter, offset: Int = 0, limit: Int = 20) throws(StoreError) -> SearchPage {
        try readSync { db in try SearchQuery.run(terms, filter: filter, offset: offset, limit: limit, in: db) }
    }
}
