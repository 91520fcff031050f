import Modules
import HealthRecord
import Store

/// `GET /patients/{id}/summary.json`: `{"patient": {…, "age"}, "modules": [{"id", "name", "description",
/// "accepts", "message", "tile"}, …]}` in the person's order, and `/patients/{id}/modules`' list.
enum SummaryJSON {
    static func summary(patient: Patient, age: Double?, generatedAt: Int64,
                        outputs: [(module: any SummaryModule, output: ModuleOutput)]) -> JSONWriter {
        var json = JSONWriter(capacity: 4096)
        json.beginObject()
        json.key("patient")
        json.beginObject()
        json.key("id"); json.string(patient.id)
        json.key("name"); json.string(patient.shownName)
        json.key("gender"); json.string(patient.gender)
        json.key("birthdate"); json.int(patient.birthdate)
        ResultDetailJSON.writeDeceased(patient, to: &json)
        json.key("age"); json.number(age.map { ($0 * 10).rounded(.down) / 10 })
        json.endObject()
        json.key("generated_at"); json.int(generatedAt)
        json.key("modules")
        json.beginArray()
        for (module, output) in outputs {
            json.beginObject()
            json.key("id"); json.string(module.id)
            json.key("name"); json.string(module.name)
            json.key("description"); json.string(module.about)
            json.key("accepts"); json.beginArray(); for kind in module.accepts { json.string(kind.rawValue) }; json.endArray()
            json.key("message"); json.string(output.message)
            json.key("tile"); TileJSON.write(output.tile, to: &json)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json
    }

    static func moduleList(patientID: String, shown: [String], chosen: Bool, catalog: ModuleCatalog) -> JSONWriter {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("patient"); json.string(patientID)
        json.key("modules"); json.beginArray(); for id in shown { json.string(id) }; json.endArray()
        json.key("chosen"); json.bool(chosen)
        json.key("available")
        json.beginArray()
        for module in catalog.modules {
            json.beginObject()
            json.key("id"); json.string(module.id)
            json.key("name"); json.string(module.name)
            json.key("description"); json.string(module.about)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json
    }
}
