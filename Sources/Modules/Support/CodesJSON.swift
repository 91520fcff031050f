/// The codes of one system in an entry's canonical codes JSON (`{"CVX":["09"],"LOINC":["8480-6"]}`, as the
/// store writes it: sorted keys, string arrays, no spaces), read without a JSON parser.
enum CodesJSON {
    static func codes(_ system: String, in json: String) -> [String] {
        guard let start = json.firstRange(of: "\"\(system)\":[") else { return [] }
        let rest = json[start.upperBound...]
        guard let end = rest.firstIndex(of: "]") else { return [] }
        return rest[..<end].split(separator: ",").map { String($0.filter { $0 != "\"" }) }
    }
}
