import ArgumentParser
import HealthRecord
import Store
import TimelineAPI

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the state directory (0700), the key file and the encrypted store. Refuses to overwrite.",
        discussion: "Prints a recovery key once: keep it somewhere safe. It sets a new password if the password is lost (`hreaderd passwd --recovery-key-file`)."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let directory = global.stateDirectory
        let password = try global.passwordSource.readNew(prompt: "New store password: ")
        let (store, recoveryKey) = try Store.create(at: directory, password: password, options: .timeline)
        store.close()
        Console.out("Created an encrypted store in \(directory.path)")
        Console.out("")
        Console.out("Recovery key (shown only now; store it apart from the password):")
        Console.out("")
        Console.out("    \(recoveryKey.formatted)")
        Console.out("")
        Console.out("If the password is lost: hreaderd passwd --recovery-key-file FILE --new-password-file FILE")
    }
}
