/// A failure of a subcommand that is not the store's: bad files, bad options. One line for stderr.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
