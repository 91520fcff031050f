import ArgumentParser

/// The library's publisher, for `serve` and `hreaderd library`: where packs come from and whose signatures
/// are trusted.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library publisher: a folder of packs served over https (or http to a loopback address).",
        discussion: "Its manifest.json is checked at start and daily; a newer pack signed by a trusted key is offered, and installed by POST /library/update.",
        valueName: "url"))
    var libraryUrl: String?

    @Option(name: .customLong("library-public-key"), help: ArgumentHelp(
        "A publisher's Ed25519 public key in PEM whose signatures are trusted (repeatable).", valueName: "file"))
    var libraryPublicKeys: [String] = []

    /// The publisher, nil without `--library-url`; one clear line when the URL or a key is refused.
    func publisher(url: String? = nil) throws(CLIError) -> LibraryPublisher? {
        guard let text = url ?? libraryUrl, !text.isEmpty else {
            guard libraryPublicKeys.isEmpty else { throw CLIError("--library-public-key is for a publisher: give --library-url too") }
            return nil
        }
        return try LibraryPublisher(url: text, keyFiles: libraryPublicKeys)
    }
}
