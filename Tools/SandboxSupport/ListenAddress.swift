/// A sandbox's `--listen host:port` (an IPv6 host in brackets: `[::1]:8421`).
public enum ListenAddress {
    /// The host and port, or nil when `text` is not `host:port` with a port of 0…65535.
    public static func parse(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }
}
