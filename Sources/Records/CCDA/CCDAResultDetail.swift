import HealthRecord

/// What a result observation says about its value beyond the value: its `referenceRange` (the normal
/// one: an `observationRange` whose interpretation is `N` or not given; `value` IVL_PQ low/high, else its
/// `text`), its `interpretationCode`, and its comment (a Comment Activity, 2.16.840.1.113883.10.20.22.4.64).
enum CCDAResultDetail {
    static let commentTemplate = "2.16.840.1.113883.10.20.22.4.64"

    static func apply(_ observation: XMLNode, values: CCDAValues, to entry: inout Entry) {
        entry.referenceRange = referenceRange(observation, values: values)
        entry.interpretation = interpretation(observation)
        entry.sourceNote = comment(observation, values: values)
    }

    static func referenceRange(_ observation: XMLNode, values: CCDAValues) -> ReferenceRange? {
        let ranges = observation.nodes("hl7:referenceRange/hl7:observationRange")
        let normal = ranges.first { range in
            let code = range.node("hl7:interpretationCode")?.attribute("code")
            return code == nil || code == "N"
        }
        guard let range = normal ?? ranges.first else { return nil }
        let textNode = range.node("hl7:text")
        let text = values.narrativeText(textNode?.node("hl7:reference")?.attribute("value"))
            ?? textNode.map { CCDAValues.clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
        let value = range.node("hl7:value")
        func bound(_ name: String) -> ReferenceRange.Bound? {
            guard let node = value?.node("hl7:" + name), node.attribute("nullFlavor") == nil,
                  let number = node.attribute("value").flatMap(Double.init), number.isFinite else { return nil }
            let unit = node.attribute("unit").flatMap { $0.isEmpty || $0 == "1" ? nil : $0 }
            return ReferenceRange.Bound(value: number, unit: unit)
        }
        let low = bound("low"), high = bound("high")
        if low == nil, high == nil {
            // A value given as text (ST) is the range's words.
            let words = value.map { CCDAValues.clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
            return ReferenceRange.fromText(text ?? words)
        }
        return ReferenceRange(low: low, high: high, text: text)
    }

    static func interpretation(_ observation: XMLNode) -> String? {
        for code in observation.nodes("hl7:interpretationCode") {
            if let found = ResultInterpretation.code(system: code.attribute("codeSystem"), code: code.attribute("code"),
                                                     display: code.attribute("displayName")) { return found }
            if let text = code.node("hl7:originalText").map({ CCDAValues.clean($0.text) }), let found = ResultInterpretation.fromWords(text) {
                return found
            }
        }
        return nil
    }

    static func comment(_ observation: XMLNode, values: CCDAValues) -> String? {
        let texts = observation.nodes("hl7:entryRelationship/hl7:act[hl7:templateId/@root='\(commentTemplate)']/hl7:text").compactMap { node in
            values.narrativeText(node.node("hl7:reference")?.attribute("value")) ?? { let t = CCDAValues.clean(node.text); return t.isEmpty ? nil : t }()
        }
        guard !texts.isEmpty else { return nil }
        return String(texts.joined(separator: "\n").prefix(Entry.sourceNoteLimit))
    }
}
