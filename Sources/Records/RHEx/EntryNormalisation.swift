import HealthRecord

/// One source entry to one `Entry`.
enum EntryNormalisation {
    static func entry(
        _ type: EntryType, fields: EntryFields, rawJSON: String, identity: inout EntryIdentity
    ) -> Entry {
        let sourceID = ValueNormalisation.identifier(fields.id)
        // Gen 1 exporters sometimes leave `description` null and put the words in `name`
        // (hreader_ns_nancy_smith.json conditions carry both members).
        let description = ValueNormalisation.text(fields.description) ?? ValueNormalisation.text(fields.name)
        let time = ValueNormalisation.epochSeconds(fields.time)
        let startTime = ValueNormalisation.epochSeconds(fields.startTime)
        let endTime = ValueNormalisation.epochSeconds(fields.endTime)
        let codes = CodeNormalisation.codes(fields.codes)
        let measurement = ValueNormalisation.measurement(value: fields.value, values: fields.values)
        let status = StatusNormalisation.status(
            status: fields.status, statusCode: fields.statusCode,
            coded: [fields.problemStatus, fields.statusOfMedication]
        )
        let id = identity.id(
            section: type.section, sourceID: sourceID, codes: codes,
            time: time, startTime: startTime, endTime: endTime, description: description
        )
        return Entry(
            id: id, type: type, description: description,
            time: time, startTime: startTime, endTime: endTime,
            status: status, value: measurement.value, textValue: measurement.text, units: measurement.units,
            codes: codes, sourceID: sourceID, rawJSON: rawJSON,
            referenceRange: ResultDetailNormalisation.referenceRange(fields.referenceRange),
            interpretation: ResultDetailNormalisation.interpretation(fields.interpretation)
        )
    }
}
