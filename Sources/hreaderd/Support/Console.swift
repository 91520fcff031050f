import FoundationEssentials

/// Where a subcommand talks: results on stdout, progress and errors on stderr.
enum Console {
    static func out(_ line: String) {
        StandardStreams.out(Array((line + "\n").utf8))
    }

    static func err(_ line: String) {
        StandardStreams.err(Array((line + "\n").utf8))
    }
}
