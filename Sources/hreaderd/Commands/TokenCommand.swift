import ArgumentParser
import FoundationEssentials
import HealthRecord
import Store

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "API tokens for curl and scripts (Authorization: Bearer TOKEN).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it once; only its hash is stored.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "A name to recognise the token by.") var name: String = "api"

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            let (token, info) = try await store.createToken(name: name)
            store.auditFromCLI(.tokenCreated, detail: "token \(info.name) (\(info.id))")
            Console.err("created token \(info.id) (\(info.name)); it is shown only now:")
            Console.out(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens: id, name, created, last used.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            let tokens = try await store.tokens()
            if tokens.isEmpty { Console.err("no tokens: create one with `hreaderd token create --name NAME`") }
            for token in tokens {
                Console.out("\(token.id)  \(token.name)  created \(TimeText.instant(token.createdAt))  last used \(token.lastUsedAt.map(TimeText.instant) ?? "never")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: it stops working at once, also in a running daemon.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The token id (k_…, see `hreaderd token list`).", valueName: "id")) var id: String

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            guard try await store.revokeToken(id: id) else { throw CLIError("there is no token \(id) (see `hreaderd token list`)") }
            store.auditFromCLI(.tokenRevoked, detail: "token \(id)")
            Console.out("revoked \(id)")
        }
    }
}
