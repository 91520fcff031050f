import HealthRecord

/// The CDA data types the mapping reads: coded values (CD, CE, CO) with their description and codes,
/// times (TS, IVL_TS), and measurements (PQ, IVL_PQ, ST, REAL, INT).
struct CCDAValues {
    /// Narrative elements by `ID`, for `reference/@value` ("#problem1").
    let narrative: [String: XMLNode]

    /// The narrative a `#ID` reference points to, as one line. A table row is named by its first cell (the
    /// others hold its date and status).
    func narrativeText(_ reference: String?) -> String? {
        guard let reference, reference.hasPrefix("#"), let node = narrative[String(reference.dropFirst())] else { return nil }
        let text = node.name == "tr" ? node.node("hl7:td | hl7:th").map { Self.clean($0.text) } ?? "" : Self.clean(node.text)
        return text.isEmpty ? nil : text
    }

    /// What a person reads for a code: its originalText (a reference resolved into the narrative), else
    /// its displayName, else the code with its system's name.
    func description(_ code: XMLNode?) -> String? {
        guard let code else { return nil }
        if let original = code.node("hl7:originalText") {
            if let text = narrativeText(original.node("hl7:reference")?.attribute("value")) { return text }
            let text = Self.clean(original.text)
            if !text.isEmpty { return text }
        }
        if let display = code.attribute("displayName"), !display.isEmpty { return display }
        if let value = code.attribute("code"), !CodeValue.isNullLike(value) { return Self.systemName(code.attribute("codeSystem")) + " " + value }
        return nil
    }

    /// The codes of a coded element and its translations, by the store's system names.
    func codes(_ code: XMLNode?) -> [String: [String]] {
        guard let code else { return [:] }
        var out: [String: [String]] = [:]
        for node in [code] + code.nodes("hl7:translation") {
            guard let value = node.attribute("code"), !CodeValue.isNullLike(value) else { continue }
            let system = Self.systemName(node.attribute("codeSystem"))
            if !(out[system]?.contains(value) ?? false) { out[system, default: []].append(value) }
        }
        return out
    }

    static func systemName(_ oid: String?) -> String {
        guard let oid, !oid.isEmpty else { return "unknown" }
        // A system FHIR's table does not name keeps its bare OID.
        return FHIRCodeSystems.names["urn:oid:" + oid] ?? oid
    }

    /// An `effectiveTime` as (time, start, end): `@value` is a point (or `center`), `low`/`high` a span.
    func times(_ node: XMLNode?) -> (time: Int64?, start: Int64?, end: Int64?) {
        guard let node else { return (nil, nil, nil) }
        if let value = node.attribute("value"), let time = HL7Time.parse(value) { return (time, nil, nil) }
        if let center = node.node("hl7:center")?.attribute("value").flatMap(HL7Time.parse) { return (center, nil, nil) }
        let low = node.node("hl7:low")?.attribute("value").flatMap(HL7Time.parse)
        let high = node.node("hl7:high")?.attribute("value").flatMap(HL7Time.parse)
        return (nil, low, high)
    }

    /// An observation's `value`: a quantity is a number and its unit (a non-UCUM one is in `translation`);
    /// a range, a string or a code is text.
    func measurement(_ value: XMLNode?) -> Measurement? {
        guard let value else { return nil }
        let type = value.xsiType.map { $0.split(separator: ":").last.map(String.init) ?? $0 }
        switch type {
        case "PQ"?, "REAL"?, "INT"?:
            if let number = value.attribute("value"), let double = Double(number) {
                return Measurement(value: double, text: nil, units: value.attribute("unit").flatMap { $0 == "1" ? nil : $0 })
            }
            // Non-UCUM units: `nullFlavor="OTH"`, the real number and unit in a translation.
            if let translation = value.node("hl7:translation"), let number = translation.attribute("value"), let double = Double(number) {
                let unit = translation.node("hl7:originalText").map { Self.clean($0.text) } ?? translation.attribute("code")
                return Measurement(value: double, text: nil, units: unit)
            }
            return nil
        case "IVL_PQ"?:
            let low = value.node("hl7:low")?.attribute("value"), high = value.node("hl7:high")?.attribute("value")
            let unit = value.node("hl7:low")?.attribute("unit") ?? value.node("hl7:high")?.attribute("unit")
            switch (low, high) {
            case let (l?, h?) where Double(l) == 0: return Measurement(value: nil, text: "≤ " + h, units: unit)
            case let (l?, h?): return Measurement(value: nil, text: l + "–" + h, units: unit)
            case let (l?, nil): return Measurement(value: nil, text: "≥ " + l, units: unit)
            case let (nil, h?): return Measurement(value: nil, text: "≤ " + h, units: unit)
            default: return nil
            }
        case "ST"?, "ED"?:
            let text = Self.clean(value.text)
            return text.isEmpty ? nil : Measurement(value: nil, text: text, units: nil)
        case "CD"?, "CE"?, "CO"?, "CV"?:
            return description(value).map { Measurement(value: nil, text: $0, units: nil) }
        default:
            let text = Self.clean(value.text)
            return text.isEmpty ? nil : Measurement(value: nil, text: text, units: nil)
        }
    }

    /// Text with its runs of white space folded: narrative is laid out for a page.
    static func clean(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
