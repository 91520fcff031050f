import ArgumentParser
import FoundationEssentials
import HealthRecord
import Store

/// `patients`: the family, and the family's say about each person (name, relationship, order, links,
/// removal).
struct PatientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patients",
        abstract: "List the patients, and set how each person is named, related and ordered; link, unlink, remove.",
        subcommands: [ListPatients.self, SetPerson.self, RemovePatient.self, LinkPatient.self, UnlinkPatient.self, ShowLinks.self],
        defaultSubcommand: ListPatients.self
    )

    struct ListPatients: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List patients: id, name, birthdate, entry count, relationship, person.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let patients = try store.patientsSync()
            guard !patients.isEmpty else {
                Console.err("no patients yet: import a record with `hreaderd import-file FILE`")
                return
            }
            let heads = try store.readSync { db in
                try db.rows("SELECT patient_id, person_id FROM patient_links", []) { ($0.string(0), $0.string(1)) }
            }
            let personOf = Dictionary(heads, uniquingKeysWith: { a, _ in a })
            let rows = patients.map { p in
                [p.id, p.shownName, p.birthdate.map(TimeText.day) ?? "-", String(p.entryCount), p.relationship?.rawValue ?? "-",
                 personOf[p.id].map { "linked into \($0)" } ?? ""]
            }
            let header = ["ID", "NAME", "BIRTHDATE", "ENTRIES", "RELATIONSHIP", ""]
            let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            for row in [header] + rows {
                Console.out(zip(row, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }.joined(separator: "  ")
                    .trimmedWhitespace)
            }
        }
    }

    struct SetPerson: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a person's relationship, place in the list or display name.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The patient id (see `hreaderd patients`).", valueName: "id"))
        var patient: String

        @Option(help: "me, spouse, partner, child, parent, family or other; `none` clears it.")
        var relationship: String?

        @Option(help: "The person's place in the family's list (0…1000000); -1 clears it.")
        var order: Int64?

        @Option(help: "The name the family uses; an empty string clears it.")
        var displayName: String?

        func validate() throws {
            if let relationship, relationship != "none", Patient.Relationship(rawValue: relationship) == nil {
                throw ValidationError("--relationship must be one of \(Patient.Relationship.allCases.map(\.rawValue).joined(separator: ", ")), or none")
            }
            if let order, order != -1, !(0...1_000_000).contains(order) { throw ValidationError("--order must be 0…1000000, or -1") }
            if relationship == nil && order == nil && displayName == nil {
                throw ValidationError("say what to set: --relationship, --order or --display-name")
            }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            var change = Store.PersonChange()
            if let relationship { change.relationship = .some(Patient.Relationship(rawValue: relationship)) }
            if let order { change.order = .some(order == -1 ? nil : order) }
            if let displayName {
                let trimmed = displayName.trimmedWhitespace
                change.displayName = .some(trimmed.isEmpty ? nil : trimmed)
            }
            guard let patient = try store.updatePersonSync(id: patient, change) else {
                throw CLIError("there is no patient \(self.patient) (see `hreaderd patients`)")
            }
            store.auditFromCLI(.patientChange, patient: patient.id, detail: "names, relationship or order")
            Console.out("\(patient.id): \(patient.shownName), relationship \(patient.relationship?.rawValue ?? "-"), order \(patient.order.map(String.init) ?? "-")")
        }
    }

    struct RemovePatient: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove",
            abstract: "Remove a patient and everything that is theirs (entries, notes, posts); a sync will not bring them back.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The patient id.", valueName: "id"))
        var patient: String

        @Flag(help: "Confirm the removal (nothing is removed without it).")
        var yes = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let found = try store.patientsSync().first(where: { $0.id == patient }) else {
                throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
            }
            guard yes else {
                throw CLIError("this removes \(found.shownName) with \(found.entryCount) entries and every note on them; run again with --yes to do it")
            }
            _ = try store.removePatientSync(id: patient)
            store.auditFromCLI(.deletion, patient: patient, detail: "patient removed")
            Console.out("removed \(patient) (\(found.shownName))")
        }
    }

    struct LinkPatient: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "link", abstract: "Link a patient into another's person: one timeline, one export.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The person's patient id.", valueName: "id"))
        var patient: String

        @Argument(help: ArgumentHelp("The patient that is the same person.", valueName: "other"))
        var other: String

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard other != patient else { throw CLIError("a patient cannot be linked to itself") }
            switch try await store.linkPatient(other, into: patient) {
            case .failure(.unknownPatient(let id)): throw CLIError("there is no patient \(id) (see `hreaderd patients`)")
            case .failure: throw CLIError("\(patient) and \(other) are one person already")
            case .success(let members):
                store.auditFromCLI(.patientChange, patient: patient, detail: "linked")
                Console.out("one person: \(members.joined(separator: ", "))")
            }
        }
    }

    struct UnlinkPatient: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unlink", abstract: "Take a patient out of a linked person again.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The person's patient id.", valueName: "id"))
        var patient: String

        @Argument(help: ArgumentHelp("The patient to take out.", valueName: "other"))
        var other: String

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            switch try await store.unlinkPatient(other, from: patient) {
            case .failure(.unknownPatient(let id)): throw CLIError("there is no patient \(id) (see `hreaderd patients`)")
            case .failure: throw CLIError("\(other) is not linked into the person of \(patient)")
            case .success:
                store.auditFromCLI(.patientChange, patient: patient, detail: "unlinked from \(other)")
                Console.out("\(other) is a person of its own again")
            }
        }
    }

    struct ShowLinks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "links", abstract: "Show the patients of a person and the ones that look the same.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("A patient id.", valueName: "id"))
        var patient: String

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let person = try await store.person(of: patient) else { throw CLIError("there is no patient \(patient) (see `hreaderd patients`)") }
            let names = Dictionary(try store.patientsSync().map { ($0.id, $0.shownName) }, uniquingKeysWith: { a, _ in a })
            for member in person.members { Console.out("\(member)\t\(names[member] ?? "")\(member == person.head ? "\t(head)" : "")") }
            for suggestion in try await store.linkSuggestions(for: patient) {
                Console.out("suggested: \(suggestion.id)\t\(suggestion.shownName)\t(same name and birth date; `hreaderd patients link \(person.head) \(suggestion.id)`)")
            }
        }
    }
}
