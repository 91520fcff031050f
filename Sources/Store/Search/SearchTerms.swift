import HealthRecord

/// What a person typed into a search box, as terms of the full-text index: words in any order (each a
/// prefix once it has `minimumPrefixLength` characters, or when it ends in `*`), phrases in double quotes,
/// codes (`2823-3` is the phrase `2823 3`, as the index splits it; `LOINC 2823-3` the same code). A query is never SQL and never FTS
/// syntax: every term is written out as a quoted phrase of letters and digits, so quotes, `*` alone,
/// `NEAR`, `OR`, `-` and NUL bytes are words, separators or nothing, never operators.
public struct SearchTerms: Sendable, Equatable {
    /// A query longer than this is not a search a person typed.
    public static let maximumQueryBytes = 512
    /// At most this many terms (words and phrases).
    public static let maximumTerms = 16
    /// A shorter word matches only itself: a one- or two-letter prefix would match most of a record.
    public static let minimumPrefixLength = 3

    public enum Term: Sendable, Equatable {
        /// Tokens that must follow each other; the last a prefix when `prefix`.
        case phrase([String], prefix: Bool)
    }

    public let terms: [Term]

    /// The FTS4 `MATCH` expression: each term a quoted phrase, all of them required.
    public var matchExpression: String {
        terms.map { term in
            switch term {
            case let .phrase(tokens, prefix): "\"" + tokens.joined(separator: " ") + (prefix ? "*" : "") + "\""
            }
        }.joined(separator: " ")
    }

    /// The words of the query (for highlighting and plain-scan comparisons), lower case.
    public var tokens: [String] {
        terms.flatMap { term -> [String] in
            switch term { case let .phrase(tokens, _): tokens.map { $0.lowercased() } }
        }
    }

    public init(terms: [Term]) {
        self.terms = terms
    }

    public static func parse(_ text: String) throws(SearchQueryError) -> SearchTerms {
        guard text.utf8.count <= maximumQueryBytes else { throw .tooLong(bytes: text.utf8.count, maximumBytes: maximumQueryBytes) }
        var terms: [Term] = []
        var rest = Substring(text)
        while let first = rest.first {
            if first == "\"" {
                // A phrase runs to the next quote, or to the end when the quote is not closed.
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                let tokens = Self.tokens(body[..<end])
                if !tokens.isEmpty { terms.append(.phrase(tokens, prefix: false)) }
                rest = end < body.endIndex ? body[body.index(after: end)...] : body[end...]
                continue
            }
            if first.isWhitespace {
                rest = rest.dropFirst()
                continue
            }
            let end = rest.firstIndex { $0.isWhitespace || $0 == "\"" } ?? rest.endIndex
            let chunk = rest[..<end]
            rest = rest[end...]
            let tokens = Self.tokens(chunk)
            guard !tokens.isEmpty else { continue }
            if tokens.count == 1 {
                let explicit = chunk.hasSuffix("*")
                terms.append(.phrase(tokens, prefix: explicit || tokens[0].count >= minimumPrefixLength))
            } else {
                // A code or a word with punctuation in it (2823-3, o'brien): its parts in order, exactly.
                terms.append(.phrase(tokens, prefix: false))
            }
        }
        terms = withoutSystemNamesBeforeCodes(terms)
        guard !terms.isEmpty else { throw .noWords }
        guard terms.count <= maximumTerms else { throw .tooManyTerms(count: terms.count, maximum: maximumTerms) }
        return SearchTerms(terms: terms)
    }

    /// Names of code systems, as people and the store write them (their words joined by `-`, lower case).
    static let codeSystemNames: Set<String> = [
        "loinc", "snomed", "snomed-ct", "sct", "rxnorm", "cvx", "cpt", "hcpcs", "ndc",
        "icd", "icd-9", "icd-9-cm", "icd-10", "icd-10-cm", "icd-10-pcs", "icd9", "icd10",
    ]

    /// `LOINC 2823-3` is the code `2823-3`: the index holds codes by their values only (see
    /// `CodeValuesFunction`), so a system's name just before a code (a term with a digit) is left out. A
    /// name alone, or before a word, stays a word.
    static func withoutSystemNamesBeforeCodes(_ terms: [Term]) -> [Term] {
        var kept: [Term] = []
        for (index, term) in terms.enumerated() {
            guard case let .phrase(tokens, _) = term,
                  codeSystemNames.contains(tokens.joined(separator: "-").lowercased()),
                  index + 1 < terms.count, case let .phrase(next, _) = terms[index + 1],
                  next.first?.contains(where: \.isNumber) == true
            else {
                kept.append(term)
                continue
            }
        }
        return kept
    }

    /// Letters and digits, as the unicode61 tokenizer reads them; everything else separates.
    static func tokens(_ text: Substring) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }
}

public enum SearchQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    case noWords
    case tooLong(bytes: Int, maximumBytes: Int)
    case tooManyTerms(count: Int, maximum: Int)

    public var description: String {
        switch self {
        case .noWords: return "the query has no words to search for (letters or digits)"
        case let .tooLong(bytes, maximum): return "the query is \(bytes) bytes long; at most \(maximum) are searched"
        case let .tooManyTerms(count, maximum): return "the query has \(count) words or phrases; at most \(maximum) are searched"
        }
    }
}
