import HealthRecord

/// What an `Observation` says about its value beyond the value: its `referenceRange` (the first, the
/// normal range; `low`/`high` quantities and `text`), its `interpretation` (the HL7 code, else what its
/// words say) and its `note` (the texts, joined). A shape this does not know gives nothing, never an
/// error: the resource's raw JSON keeps it.
enum FHIRResultDetail {
    static func apply(_ r: FHIRElement, to entry: inout Entry) {
        entry.referenceRange = referenceRange(r)
        entry.interpretation = interpretation(r)
        entry.sourceNote = note(r)
    }

    /// What of `r`'s range and interpretation `entry` could keep only in part, as report notes.
    static func check(_ r: FHIRElement, _ entry: Entry, notes: inout FHIRMappingNotes) {
        if let range = entry.referenceRange, range.low == nil, range.high == nil {
            notes.add("a reference range given only in words: kept as its text, no value is flagged by it")
        }
        guard entry.interpretation == nil, let concepts = try? r.codeableConcepts("interpretation") else { return }
        for concept in concepts {
            guard let said = concept.codings.first?.code ?? nonEmpty(concept.text) else { continue }
            notes.add("an interpretation code that is not HL7's (\"\(said.prefix(20))\"): left out, the value kept")
            return
        }
    }

    static func referenceRange(_ r: FHIRElement) -> ReferenceRange? {
        guard let ranges = try? r.elements("referenceRange"), let range = ranges.first else { return nil }
        func bound(_ key: String) -> ReferenceRange.Bound? {
            guard let quantity = try? range.element(key), let value = (try? quantity.number("value"))?.double, value.isFinite else {
                return nil
            }
            let unit = nonEmpty(try? quantity.string("unit")) ?? nonEmpty(try? quantity.string("code"))
            return ReferenceRange.Bound(value: value, unit: unit)
        }
        let text = try? range.string("text")
        let low = bound("low"), high = bound("high")
        if low == nil, high == nil { return ReferenceRange.fromText(text) }
        return ReferenceRange(low: low, high: high, text: text)
    }

    static func interpretation(_ r: FHIRElement) -> String? {
        guard let concepts = try? r.codeableConcepts("interpretation") else { return nil }
        for concept in concepts {
            for coding in concept.codings {
                if let code = ResultInterpretation.code(system: coding.system, code: coding.code, display: coding.display) { return code }
            }
            if let code = ResultInterpretation.fromWords(concept.text) { return code }
        }
        return nil
    }

    static func note(_ r: FHIRElement) -> String? {
        guard let notes = try? r.elements("note") else { return nil }
        let texts = notes.compactMap { nonEmpty(try? $0.string("text"))?.trimmedWhitespace }.filter { !$0.isEmpty }
        guard !texts.isEmpty else { return nil }
        return String(texts.joined(separator: "\n").prefix(Entry.sourceNoteLimit))
    }
}
