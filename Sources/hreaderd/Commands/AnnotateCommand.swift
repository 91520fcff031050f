import ArgumentParser
import HealthRecord
import Store

/// `annotate`: the person's note, strike-through and medication details on an entry; `annotations`: the list.
struct AnnotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotate",
        abstract: "Write (replace) or remove the note on an entry: a note, \"not mine / wrong\", medication details.",
        discussion: "Entry ids are in `hreaderd export` and /timeline.json. The annotation survives every re-import and sync."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The patient id.", valueName: "id"))
    var patient: String

    @Argument(help: ArgumentHelp("The entry id (e_…).", valueName: "entry"))
    var entry: String

    @Option(help: "A note.") var note: String?
    @Flag(help: "Mark the entry as not mine / wrong.") var struck = false
    @Option(help: "Why it is wrong.") var reason: String?
    @Option(help: "Medication: the quantity you have.") var quantity: String?
    @Option(help: "Medication: the dose you take.") var dose: String?
    @Option(help: "Medication: how you take it.") var directions: String?
    @Option(help: "Medication: who prescribed it.") var prescriber: String?
    @Flag(help: "Remove the annotation.") var remove = false

    func run() async throws {
        let store = try global.openStore()
        defer { store.close() }
        if remove {
            guard try await store.deleteAnnotation(patientID: patient, entryID: entry) else { throw CLIError("\(entry) has no annotation") }
            store.auditFromCLI(.annotation, patient: patient, detail: "entry \(entry) removed")
            Console.out("removed the annotation of \(entry)")
            return
        }
        let medication = Annotation.Medication(quantity: quantity, dose: dose, directions: directions, prescriber: prescriber)
        let annotation = Annotation(entryID: entry, note: note, struck: struck, reason: reason, medication: medication.isEmpty ? nil : medication)
        switch try await store.setAnnotation(annotation, patientID: patient) {
        case .failure(.unknownPatient): throw CLIError("there is no patient \(patient) (see `hreaderd patients`)")
        case .failure(.unknownEntry): throw CLIError("the patient has no entry \(entry)")
        case .success(let saved):
            store.auditFromCLI(.annotation, patient: patient, detail: "entry \(entry)")
            Console.out(AnnotationsCommand.line(saved))
        }
    }
}

struct AnnotationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "annotations",
        abstract: "List a patient's annotations; those whose entry the source removed are marked (orphaned)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The patient id.", valueName: "id"))
    var patient: String

    func run() async throws {
        let store = try global.openStore()
        defer { store.close() }
        for annotation in try await store.annotations(patientID: patient) { Console.out(Self.line(annotation)) }
    }

    static func line(_ a: Annotation) -> String {
        var parts = [a.entryID]
        if a.struck { parts.append("WRONG" + (a.reason.map { " (\($0))" } ?? "")) }
        if let note = a.note { parts.append("note: " + note) }
        if let m = a.medication {
            parts.append([m.quantity.map { "quantity \($0)" }, m.dose.map { "dose \($0)" }, m.directions.map { "directions \($0)" },
                          m.prescriber.map { "prescriber \($0)" }].compactMap { $0 }.joined(separator: ", "))
        }
        if a.orphaned { parts.append("(its entry was removed by the source)") }
        return parts.joined(separator: "\t")
    }
}
