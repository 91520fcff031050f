import FoundationEssentials
import HealthRecord
import Store

/// Where the web app's files are, when `--public-dir` does not say: beside an installed binary
/// (`PREFIX/share/hreaderd/timeline`), or in the source tree the binary was built from.
enum PublicDirectory {
    static func locate(option: String?, environment: [String: String]) -> String? {
        if let option { return option }
        if let value = environment["HREADERD_PUBLIC_DIR"], !value.isEmpty { return value }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binDirectory = parentDirectory(of: executable)
        let candidates = [
            binDirectory + "/../share/hreaderd/timeline",           // make install
            binDirectory + "/../../Public/timeline",                // .build/debug/hreaderd
            binDirectory + "/../../../Public/timeline",             // .build/x86_64-unknown-linux-gnu/debug/hreaderd
            FileManager.default.currentDirectoryPath + "/Public/timeline",
        ]
        return candidates.first { StandardStreams.isDirectory($0) }.map(StandardStreams.standardized)
    }
}
