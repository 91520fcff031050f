import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ImportJobs
import HealthRecord
import Store

/// The root command; the process starts in `Entry`, which runs `main()`.
struct Hreaderd: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "hreaderd",
        abstract: "A personal health record daemon: an encrypted store of a family's records, served on loopback.",
        version: version,
        subcommands: [
            InitCommand.self, PasswdCommand.self, ServeCommand.self, ImportFileCommand.self, PatientsCommand.self,
            ExportCommand.self, TokenCommand.self, SourceCommand.self, SyncCommand.self, ReimportCommand.self, AnnotateCommand.self, AnnotationsCommand.self,
            SearchCommand.self, BackupCommand.self, RestoreCommand.self, AuditCommand.self, LibraryCommand.self,
        ]
    )

    /// Runs the command; our own errors end as one line on stderr and exit status 1.
    static func main() async {
        // Everything this process creates (database, WAL, sockets, exports) is for its user alone.
        umask(0o077)
        do {
            var command = try parseAsRoot()
            MemoryTuning.apply()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as StoreError {
            fail(error.description)
        } catch let error as CLIError {
            fail(error.description)
        } catch let error as KeyVaultError {
            fail(error.description)
        } catch let error as SyncError {
            fail(error.description)
        } catch {
            exit(withError: error)
        }
    }

    static func fail(_ message: String) -> Never {
        Console.err("hreaderd: \(message)")
        Glibc.exit(1)
    }
}
