import ArgumentParser
import FoundationEssentials
import HealthRecord
import Store
import TimelineAPI

/// `search`: the family's records searched inside the store, as `/search.json` does, one line a hit.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the records: entries, notes, posts and documents' text, best match first.",
        discussion: """
            Words in any order; a word of three letters or more also finds longer ones (potas: potassium); "a phrase" \
            in quotes; a code (2823-3, LOINC 2823-3). Case and accents are ignored. Prints one line a hit: date, \
            type, what it is, where the words are (in [brackets]), the patient and the id.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("What to search for.", valueName: "query"))
    var query: [String]

    @Option(help: ArgumentHelp("Search only this patient (and the patients linked with it); default: everyone.", valueName: "id"))
    var patient: String?

    @Option(help: ArgumentHelp("Only this type: an entry type (result, condition, …), post or document.", valueName: "type"))
    var type: String?

    @Option(help: ArgumentHelp("From this day (YYYY-MM-DD, an RFC 3339 time or epoch seconds).", valueName: "day"))
    var from: String?

    @Option(help: ArgumentHelp("Up to this day, included.", valueName: "day"))
    var to: String?

    @Option(help: "At most this many hits.") var limit = 20

    func run() async throws {
        let terms: SearchTerms
        do { terms = try SearchTerms.parse(query.joined(separator: " ")) } catch { throw CLIError(error.description) }
        if let type, !SearchFilter.types.contains(type) {
            throw CLIError("--type must be one of \(SearchFilter.types.sorted().joined(separator: ", "))")
        }
        guard (1...1000).contains(limit) else { throw CLIError("--limit must be from 1 to 1000") }
        func time(_ text: String?, _ name: String, dayStart: Bool) throws -> Int64? {
            guard let text else { return nil }
            guard let value = WindowEnd.parse(text, calendar: .current, dayStart: dayStart) else {
                throw CLIError("--\(name) must be a day (YYYY-MM-DD), an RFC 3339 time or epoch seconds")
            }
            return value
        }
        let store = try global.openStore()
        defer { store.close() }
        let patients: [String]
        if let patient {
            guard let person = try await store.person(of: patient) else { throw CLIError("there is no patient \(patient) (see `hreaderd patients`)") }
            patients = person.members
        } else {
            patients = try await store.patients().map(\.id)
        }
        let filter = SearchFilter(patientIDs: patients, type: type, from: try time(from, "from", dayStart: true), to: try time(to, "to", dayStart: false))
        let page = try await store.search(terms, filter: filter, limit: limit)
        for hit in page.hits { Console.out(Self.line(hit)) }
        if page.total > page.hits.count { Console.out("… \(page.total - page.hits.count) more (--limit)") }
        if page.total == 0 { Console.out("nothing found") }
    }

    static func line(_ hit: SearchHit) -> String {
        let snippet = hit.snippet.map { $0.match ? "[" + $0.text + "]" : $0.text }.joined()
            .split(whereSeparator: { $0 == "\n" }).joined(separator: " ")
        return [hit.date.map(TimeText.day) ?? "undated", hit.type, hit.title, snippet, hit.patientID, hit.id].joined(separator: "\t")
    }
}
