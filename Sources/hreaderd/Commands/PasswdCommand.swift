import ArgumentParser
import HealthRecord
import Store
import TimelineAPI

struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Re-wrap the store key under a new password (the database is not re-encrypted).",
        discussion: "Unlocks with the current password (--password-file, or a prompt), or with the recovery key when the password is lost."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("A file whose first line is the new password; default: a prompt on a terminal.", valueName: "file"))
    var newPasswordFile: String?

    @Option(help: ArgumentHelp("Unlock with the recovery key printed by `init` (in this file) instead of the current password.", valueName: "file"))
    var recoveryKeyFile: String?

    func run() throws {
        let directory = global.stateDirectory
        try directory.checkExists()
        let vault = directory.keyVault
        let key: StoreKey
        if let recoveryKeyFile {
            let text = try PasswordSource.readFile(recoveryKeyFile, what: "recovery key file")
            key = try vault.unlock(recoveryKey: try RecoveryKey(parsing: text))
        } else {
            key = try vault.unlock(password: try global.readPassword(prompt: "Current password: "))
        }
        // Prove the key opens this database before replacing anything.
        var options = Store.Options.timeline
        options.onUpgrade = { step in Console.err("hreaderd: \(step)") }
        let store = try Store.open(at: directory, key: key, options: options)
        store.close()
        let newSource: PasswordSource = newPasswordFile.map { .file($0) } ?? .terminal
        let newPassword = try newSource.readNew(prompt: "New password: ")
        try vault.changePassword(key: key, to: newPassword)
        Console.out("The store password was changed; the recovery key still works.")
    }
}
