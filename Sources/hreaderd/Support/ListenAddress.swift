import ArgumentParser
import HTTPKit

/// `--listen HOST:PORT`, with IPv6 hosts in brackets (`[::1]:8420`).
struct ListenAddress: ExpressibleByArgument, Equatable {
    let host: String
    let port: Int

    init?(argument: String) {
        let hostPart: Substring
        let portPart: Substring
        if argument.hasPrefix("[") {
            guard let close = argument.firstIndex(of: "]"), argument[argument.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = argument[argument.index(after: argument.startIndex)..<close]
            portPart = argument[argument.index(close, offsetBy: 2)...]
        } else {
            guard let colon = argument.lastIndex(of: ":"), !argument[..<colon].contains(":") else { return nil }
            hostPart = argument[..<colon]
            portPart = argument[argument.index(after: colon)...]
        }
        guard !hostPart.isEmpty, let port = Int(portPart), (0...65_535).contains(port) else { return nil }
        self.host = String(hostPart)
        self.port = port
    }

    var listener: Listener { .tcp(host: host, port: port) }

    static let `default` = ListenAddress(argument: "127.0.0.1:8420")!
}
