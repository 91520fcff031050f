/// The code systems the library maps to topics, under the names the pack's `code_topics` uses, and the
/// spellings entries carry them in: the store's names (`SNOMED-CT`, `ICD-10-CM`, `LOINC`, `RxNorm`,
/// `CVX`), other spellings (`SNOMED CT`, `snomed`), FHIR's URIs and HL7's OIDs (a C-CDA reader keeps an
/// OID it has no name for, such as CVX's older `2.16.840.1.113883.6.59`).
package enum CodeSystem: String, CaseIterable, Sendable {
    case cvx = "CVX"
    case snomedCT = "SNOMED-CT"
    case icd10CM = "ICD-10-CM"
    case loinc = "LOINC"
    case rxNorm = "RxNorm"

    /// The system an entry's code-system name stands for, or nil for one the library does not map.
    package init?(entrySystem name: String) {
        let key = String(name.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." })
        guard let system = Self.aliases[key] else { return nil }
        self = system
    }

    private static let aliases: [String: CodeSystem] = [
        "cvx": .cvx, "2.16.840.1.113883.12.292": .cvx, "2.16.840.1.113883.6.59": .cvx, "urnoid2.16.840.1.113883.12.292": .cvx,
        "httphl7.orgfhirsidcvx": .cvx,
        "snomedct": .snomedCT, "snomed": .snomedCT, "sct": .snomedCT, "2.16.840.1.113883.6.96": .snomedCT,
        "httpsnomed.infosct": .snomedCT, "urnoid2.16.840.1.113883.6.96": .snomedCT,
        "icd10cm": .icd10CM, "2.16.840.1.113883.6.90": .icd10CM, "httphl7.orgfhirsidicd10cm": .icd10CM,
        "urnoid2.16.840.1.113883.6.90": .icd10CM,
        "loinc": .loinc, "2.16.840.1.113883.6.1": .loinc, "httploinc.org": .loinc, "urnoid2.16.840.1.113883.6.1": .loinc,
        "rxnorm": .rxNorm, "2.16.840.1.113883.6.88": .rxNorm, "httpwww.nlm.nih.govresearchumlsrxnorm": .rxNorm,
        "urnoid2.16.840.1.113883.6.88": .rxNorm,
    ]

    /// A code as the pack stores it: trimmed; CVX as CDC writes it (`8` → `08`); ICD-10-CM upper case
    /// without its dot (`j45.32` → `J4532`); LOINC upper case. Nil for an empty code.
    package func normalise(_ code: String) -> String? {
        let trimmed = String(code.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        switch self {
        case .cvx:
            return trimmed.utf8.count == 1 && trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? "0" + trimmed : trimmed
        case .icd10CM:
            return trimmed.uppercased().replacingDots()
        case .loinc:
            return trimmed.uppercased()
        case .snomedCT, .rxNorm:
            return trimmed
        }
    }
}

extension String {
    fileprivate func replacingDots() -> String { String(unicodeScalars.filter { $0 != "." }) }
}
