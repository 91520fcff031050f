import ArgumentParser
import FoundationEssentials
import HealthRecord
import Store
import TimelineAPI

/// `backup --output FILE`: an online, consistent backup in one file; `backup --verify FILE`: checks one.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a backup of the store to one file, or check one (--verify).",
        discussion: """
            The backup holds the encrypted database and its wrapped key: the password or the recovery key opens \
            it on another machine (`hreaderd restore`), and nothing in it is readable without them. It is taken \
            while the daemon serves and imports, and written through a temporary file: an interrupted backup \
            never leaves a file that looks complete.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Write the backup to this file (mode 0600; replaced if it exists).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Check this backup file whole (its layout and checksum) instead of writing one.", valueName: "file"))
    var verify: String?

    func validate() throws {
        guard (output == nil) != (verify == nil) else { throw ValidationError("give either --output FILE or --verify FILE") }
    }

    func run() throws {
        if let verify {
            let info = try BackupFile.verify(verify)
            Console.out("\(verify): a whole backup of \(Self.size(info.databaseBytes)) taken \(TimeText.instant(info.createdAt))")
            return
        }
        guard let output else { return }
        let store = try global.openStore()
        defer { store.close() }
        let start = Date()
        let info = try store.backup(to: output)
        store.auditFromCLI(.backup, detail: "\(info.fileBytes) bytes")
        Console.out("wrote \(output): \(Self.size(info.fileBytes)) in \(decimal(Date().timeIntervalSince(start), places: 1)) s")
    }

    static func size(_ bytes: Int64) -> String {
        bytes >= 1_000_000 ? decimal(Double(bytes) / 1e6, places: 1) + " MB" : decimal(Double(bytes) / 1e3, places: 0) + " KB"
    }
}

/// `restore FILE --state-dir DIR`: a backup back into a state directory.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into a state directory (checked whole, unlocked, integrity-checked).",
        discussion: "Unlocks with the password (--password-file, or a prompt) or with --recovery-key-file. Refuses a directory that holds a store unless --replace."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The backup file.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Unlock with the recovery key printed by `init` (in this file) instead of the password.", valueName: "file"))
    var recoveryKeyFile: String?

    @Flag(help: "Replace the store that is in the state directory.")
    var replace = false

    func run() throws {
        let directory = global.stateDirectory
        let recovery = try recoveryKeyFile.map { try RecoveryKey(parsing: try PasswordSource.readFile($0, what: "recovery key file")) }
        let password = recovery == nil ? try global.readPassword() : nil
        let info = try Store.restore(file, into: directory, replace: replace, announce: { step in Console.err("hreaderd: \(step)") }) { vault throws(StoreError) in
            if let recovery { return try vault.unlock(recoveryKey: recovery) }
            return try vault.unlock(password: password ?? "")
        }
        Console.out("restored \(file) (taken \(TimeText.instant(info.createdAt)), \(BackupCommand.size(info.databaseBytes))) into \(directory.path)")
    }
}
