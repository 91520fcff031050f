import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HealthRecord
import Library

/// Where library packs come from: the publisher's URL (`--library-url`, a folder served as static files:
/// `manifest.json`, `manifest.json.sig`, the `.gz`) and the public keys whose signatures are trusted
/// (`--library-public-key`, repeatable).
struct LibraryPublisher: Sendable {
    /// The folder's URL, without a trailing slash.
    let url: URL
    let text: String
    let keys: [PackPublicKey]

    /// Checks the URL (https, or http to a loopback address: tests and local mirrors; nothing else) and reads
    /// the keys (at least one). Each failure is one line.
    init(url text: String, keyFiles: [String]) throws(CLIError) {
        self.url = try Self.parseURL(text)
        self.text = url.absoluteString
        guard !keyFiles.isEmpty else {
            throw CLIError("--library-url needs at least one --library-public-key: the publisher's keys are what a pack is trusted by")
        }
        var keys: [PackPublicKey] = []
        for file in keyFiles {
            do { keys.append(try PackPublicKey(file: file)) } catch { throw CLIError("--library-public-key: \(error.description)") }
        }
        self.keys = keys
    }

    /// The URL of a file of the publisher's folder.
    func file(_ name: String) -> URL {
        URL(string: text + "/" + name) ?? url
    }

    static func parseURL(_ text: String) throws(CLIError) -> URL {
        let refused = CLIError("--library-url must be an https URL, or http to a loopback address (127.0.0.1, [::1], localhost): \(text.prefix(200))")
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
              components.query == nil, components.fragment == nil else { throw refused }
        guard scheme == "https" || (scheme == "http" && isLoopback(host)) else { throw refused }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed) else { throw refused }
        return url
    }

    /// `localhost`, an address in 127.0.0.0/8, or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" { return true }
        var address = in_addr()
        guard inet_pton(AF_INET, name, &address) == 1 else { return false }
        return UInt32(bigEndian: address.s_addr) >> 24 == 127
    }
}
