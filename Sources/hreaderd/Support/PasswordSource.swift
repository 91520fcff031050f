import FoundationEssentials
import HealthRecord
import Store
#if canImport(Glibc)
import Glibc
#endif

/// A password from a file (its first line) or typed at the terminal.
enum PasswordSource: Equatable {
    case file(String)
    case terminal

    /// Password files are one line; refuse to slurp anything big by mistake.
    static let maximumFileSize = 64 * 1024

    func read(prompt: String) throws -> String {
        switch self {
        case .file(let path): return try Self.readFile(path)
        case .terminal: return try Self.prompt(prompt)
        }
    }

    static func readFile(_ path: String, what: String = "password file") throws -> String {
        let data: [UInt8]
        do { data = try FileSystem.readFile(path, limit: maximumFileSize) } catch {
            switch error.errnoValue {
            case ENOENT: throw CLIError("the \(what) \(path) does not exist")
            case EACCES: throw CLIError("cannot read the \(what) \(path): permission denied")
            case EFBIG: throw CLIError("the \(what) \(path) is too large (over \(maximumFileSize) bytes)")
            default: throw CLIError("cannot read the \(what) \(path): \(String(cString: strerror(error.errnoValue)))")
            }
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw CLIError("the \(what) \(path) is not UTF-8 text") }
        let firstLine = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let value = firstLine.hasSuffix("\r") ? String(firstLine.dropLast()) : firstLine
        guard !value.isEmpty else { throw CLIError("the \(what) \(path) is empty: its first line must hold the secret") }
        return value
    }

    static func prompt(_ prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIError("no password: pass --password-file FILE (or set HREADERD_PASSWORD_FILE), or run on a terminal")
        }
        // getpass() reads from the controlling terminal with echo off.
        guard let raw = getpass(prompt) else { throw CLIError("cannot read a password from the terminal") }
        let value = String(cString: raw)
        guard !value.isEmpty else { throw CLIError("the password is empty") }
        return value
    }

    /// For a new password on a terminal: asks twice.
    func readNew(prompt: String) throws -> String {
        let first = try read(prompt: prompt)
        if case .terminal = self {
            let second = try Self.prompt("Repeat: ")
            guard first == second else { throw CLIError("the two passwords differ") }
        }
        return first
    }
}
