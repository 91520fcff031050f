import ArgumentParser
import Foundation
import Store

struct PatientsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patients",
        abstract: "List patients: id, name, birthdate, entry count."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openStore()
        defer { store.close() }
        let patients = try store.patientsSync()
        guard !patients.isEmpty else {
            Console.err("no patients yet: import a record with `hreaderd import-file FILE`")
            return
        }
        let rows = patients.map { p in
            [p.id, p.name, p.birthdate.map(Self.day) ?? "-", String(p.entryCount)]
        }
        let header = ["ID", "NAME", "BIRTHDATE", "ENTRIES"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            Console.out(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces))
        }
    }

    /// A birthdate as a calendar day in UTC: birthdates are days, not moments.
    static func day(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
