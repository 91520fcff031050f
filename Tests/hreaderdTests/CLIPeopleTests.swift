import Foundation
import HealthRecord
import Testing
import TestSupport

/// `patients set/remove/link/unlink/links`, `annotate`, `annotations`, run as a user runs them.
@Suite("hreaderd patients set/link/remove, annotate")
struct CLIPeopleTests {
    let dir = TemporaryDirectory("hreaderd-people-cli")
    var binary: String { productsDirectory + "/hreaderd" }
    var environment: [String: String] { ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw")] }

    init() throws {
        try "people pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try run(binary, ["init"], environment: environment).status == 0)
        for (id, result) in [("a", Entry.entry(.result, "Potassium", at: 100, codes: ["LOINC": ["2823-3"]], sourceID: "r1")),
                             ("b", Entry.entry(.result, "Sodium", at: 200, codes: ["LOINC": ["2951-2"]], sourceID: "r2"))] {
            let path = dir.file("\(id).json")
            try PatientRecord.record(id, name: "Ada Lovelace", birthdate: -4_861_684_800, entries: [result]).rhexJSON()
                .write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try hreaderd("import-file", path).status == 0)
        }
    }

    func hreaderd(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(binary, arguments, environment: environment)
    }

    func ids() throws -> [String] {
        try hreaderd("patients").out.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test("set a display name, relationship and order; annotate an entry; link, see the suggestion and the union; unlink; remove with --yes only")
    func everything() throws {
        let (a, b) = (try ids()[0], try ids()[1])
        let set = try hreaderd("patients", "set", a, "--display-name", "Ada", "--relationship", "me", "--order", "2")
        #expect(set.status == 0 && set.out.contains("Ada, relationship me, order 2"))
        #expect(try hreaderd("patients", "set", a, "--relationship", "cousin").status != 0)
        #expect(try hreaderd("patients").out.contains("Ada "))

        let links = try hreaderd("patients", "links", a)
        #expect(links.out.contains("suggested: \(b)"))
        #expect(try hreaderd("patients", "link", a, b).status == 0)
        #expect(try hreaderd("patients", "link", b, a).status == 1)
        #expect(try hreaderd("patients").out.contains("linked into \(a)"))
        let export = try JSONSerialization.jsonObject(with: Data(try hreaderd("export", "--patient", b).out.utf8)) as? [String: Any]
        #expect((export?["records"] as? [Any])?.count == 2)

        let entry = try #require(((export?["records"] as? [[String: Any]])?[1]["entries"] as? [[String: Any]])?.first?["id"] as? String)
        let note = try hreaderd("annotate", "--patient", a, entry, "--note", "fasting", "--struck", "--reason", "lab mix-up")
        #expect(note.status == 0, "\(note.err)")
        #expect(try hreaderd("annotations", "--patient", b).out.contains("WRONG (lab mix-up)\tnote: fasting"))
        #expect(try hreaderd("annotate", "--patient", a, "e_nothing", "--note", "x").status == 1)

        #expect(try hreaderd("patients", "unlink", a, b).status == 0)
        #expect(!(try hreaderd("patients").out.contains("linked into")))
        let refused = try hreaderd("patients", "remove", b)
        #expect(refused.status == 1 && refused.err.contains("--yes"))
        #expect(try ids().count == 2)
        #expect(try hreaderd("patients", "remove", b, "--yes").status == 0)
        #expect(try ids() == [a])
    }

    @Test("search: every patient by default, one person with --patient, a type filter; bad queries exit 1 with a reason")
    func search() throws {
        let (a, b) = (try ids()[0], try ids()[1])
        let potassium = try hreaderd("search", "potas")
        #expect(potassium.status == 0)
        #expect(potassium.out.contains("result\tPotassium\t[Potassium]"), "\(potassium.out)")
        #expect(potassium.out.contains(a) || potassium.out.contains(b))
        let code = try hreaderd("search", "LOINC", "2951-2")
        #expect(code.out.contains("Sodium") && !code.out.contains("Potassium"))
        let other = try hreaderd("search", "potassium", "--patient", try #require(try ids().first { !potassium.out.contains($0) }))
        #expect(other.out.contains("nothing found"))
        #expect(try hreaderd("search", "sodium", "--type", "condition").out.contains("nothing found"))
        let bad = try hreaderd("search", "\"")
        #expect(bad.status == 1 && bad.err.contains("no words"))
        #expect(try hreaderd("search", "x", "--type", "banana").status == 1)
        #expect(try hreaderd("search", "x", "--from", "someday").status == 1)
    }
}
