import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HealthRecord
import Store
import TimelineAPI

/// The options every subcommand shares: where the state lives and where the password comes from.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The state directory (key file and encrypted database).",
        discussion: "Default: $HREADERD_STATE_DIR, else $STATE_DIRECTORY under systemd, else ~/.local/share/hreaderd.",
        valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp(
        "A file whose first line is the store password.",
        discussion: "Default: $HREADERD_PASSWORD_FILE, else $CREDENTIALS_DIRECTORY/password under systemd, else a prompt on a terminal.",
        valueName: "file"))
    var passwordFile: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    var stateDirectory: StateDirectory {
        StateDirectory(path: Self.resolveStateDirectory(option: stateDir, environment: environment))
    }

    static func resolveStateDirectory(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let value = environment["HREADERD_STATE_DIR"], !value.isEmpty { return value }
        // systemd's StateDirectory= sets $STATE_DIRECTORY (colon-separated when several are configured).
        if let value = environment["STATE_DIRECTORY"], !value.isEmpty {
            return String(value.split(separator: ":").first ?? Substring(value))
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.passwordDatabaseHome
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        return dataHome + "/hreaderd"
    }

    /// Where the password comes from: the option, the environment, a systemd credential, then a terminal
    /// (README.md, "The command line"); nil when there is no file and no terminal.
    var passwordSource: PasswordSource {
        if let passwordFile, !passwordFile.isEmpty { return .file(passwordFile) }
        if let value = environment["HREADERD_PASSWORD_FILE"], !value.isEmpty { return .file(value) }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            return .file(directory + "/password")
        }
        return .terminal
    }

    /// Reads the store password, failing with one clear line when there is none.
    func readPassword(prompt: String = "Password: ") throws -> String {
        try passwordSource.read(prompt: prompt)
    }
}

extension GlobalOptions {
    /// Unlocks the store with the password (file, credential or prompt) and opens it.
    /// `largeImportsInPlace`: for a command that imports with the store to itself (`Store.Options`).
    func openStore(largeImportsInPlace: Bool = false) throws -> Store {
        let directory = stateDirectory
        try directory.checkExists()
        guard directory.keyVault.exists else { throw StoreError.keyVault(.keyFileMissing(path: directory.keyFilePath)) }
        var options = Store.Options.timeline
        options.largeImportsInPlace = largeImportsInPlace
        options.onUpgrade = { step in Console.err("hreaderd: \(step)") }
        return try Store.open(at: directory, password: try readPassword(), options: options)
    }

    /// The user's home from the password database, for a process started without `HOME`.
    static var passwordDatabaseHome: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}
