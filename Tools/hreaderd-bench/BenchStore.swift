import Foundation
import Store

/// A new encrypted store in a temporary folder of its own, for one benchmark, opened with the timeline's
/// encoder; `remove()` closes it and deletes the folder.
struct BenchStore {
    let store: Store
    let state: StateDirectory

    /// A cheap KDF: the store's key derivation is not what the benchmarks measure.
    static let fastKDF = ScryptParameters(logN: 10, r: 8, p: 1)

    /// `inPlace`: opened as `import-file` opens it, a large import written in place (`Store.Options`).
    init(name: String, inPlace: Bool) throws {
        let directory = NSTemporaryDirectory() + "hreaderd-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        var options = Store.Options.timeline
        options.largeImportsInPlace = inPlace
        state = StateDirectory(path: directory)
        (store, _) = try Store.create(at: state, password: "bench", passwordParameters: Self.fastKDF,
                                      recoveryParameters: Self.fastKDF, options: options)
    }

    func remove() {
        store.close()
        try? FileManager.default.removeItem(atPath: state.path)
    }
}
