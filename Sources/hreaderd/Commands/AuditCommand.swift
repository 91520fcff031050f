import ArgumentParser
import FoundationEssentials
import HealthRecord
import Store

/// `audit`: the audit trail, newest first, one line an event.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit trail: who signed in, imported, exported, backed up, changed or deleted what, and when.",
        discussion: "Newest first. It names patients by the store's id and tokens by name; it never holds record contents."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Only this action (\(AuditEvent.Action.allCases.map(\.rawValue).joined(separator: ", "))).", valueName: "action"))
    var action: String?

    @Option(help: ArgumentHelp("Only events about this patient.", valueName: "id"))
    var patient: String?

    @Option(help: "At most this many events.") var limit = 50

    func run() throws {
        let chosen = try action.map { text -> AuditEvent.Action in
            guard let action = AuditEvent.Action(rawValue: text) else {
                throw CLIError("--action must be one of \(AuditEvent.Action.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return action
        }
        guard (1...10_000).contains(limit) else { throw CLIError("--limit must be from 1 to 10000") }
        let store = try global.openStore()
        defer { store.close() }
        for event in try store.auditEventsSync(action: chosen, patientID: patient, limit: limit) {
            Console.out([TimeText.instant(event.at), event.action.rawValue, event.actor,
                         event.patientID ?? "-", event.detail ?? ""].joined(separator: "\t"))
        }
    }
}

extension Store {
    /// A command-line action in the audit trail; a failure to note it does not fail the command.
    func auditFromCLI(_ action: AuditEvent.Action, patient: String? = nil, detail: String? = nil) {
        try? recordAudit(AuditEvent(action: action, actor: "cli", patientID: patient, detail: detail))
    }
}
