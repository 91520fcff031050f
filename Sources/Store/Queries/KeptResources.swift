import HealthRecord

/// The resources of a patient that are not entries, kept verbatim (`kept_resources`).
enum KeptResources {
    /// Writes `resources` for the patient; with `replacing`, those no longer given are removed. Whether
    /// anything changed.
    static func apply(_ resources: [KeptResource], patientID: String, replacing: Bool, in db: Database) throws -> Bool {
        var stored: [String: String] = [:]
        try db.statement("SELECT id, raw FROM kept_resources WHERE patient_id = ?").forEach([patientID]) { row in
            stored[row.string("id")] = row.string("raw")
        }
        var changed = false
        let write = try db.statement("INSERT OR REPLACE INTO kept_resources (patient_id, id, type, raw) VALUES (?, ?, ?, ?)")
        var given = Set<String>(minimumCapacity: resources.count)
        for resource in resources {
            given.insert(resource.id)
            guard stored[resource.id] != resource.rawJSON else { continue }
            try write.execute([patientID, resource.id, resource.type, resource.rawJSON])
            changed = true
        }
        if replacing {
            let delete = try db.statement("DELETE FROM kept_resources WHERE patient_id = ? AND id = ?")
            for id in stored.keys where !given.contains(id) {
                try delete.execute([patientID, id])
                changed = true
            }
        }
        return changed
    }

    static func read(patientID: String, in db: Database) throws -> [KeptResource] {
        var out: [KeptResource] = []
        try db.statement("SELECT id, type, raw FROM kept_resources WHERE patient_id = ? ORDER BY type, id").forEach([patientID]) { row in
            out.append(KeptResource(id: row.string("id"), type: row.string("type"), rawJSON: row.string("raw")))
        }
        return out
    }
}
