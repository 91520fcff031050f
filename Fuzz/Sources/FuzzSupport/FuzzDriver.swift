#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer's driver (in the runtime that `-sanitize=fuzzer` links). SwiftPM gives an executable target
/// its own `main`, so libFuzzer's is not used: ours hands the command line to the driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// One libFuzzer harness a parser; `HREADERD_FUZZ_TARGET` picks the parser (read once). Each harness feeds
/// the bytes to a parser and checks what must hold for any input: no crash (the address sanitizer watches
/// memory), the same answer twice, and a round trip where the parser has one.
public enum FuzzDriver {
    nonisolated(unsafe) static var harness: ([UInt8]) -> Void = { _ in }

    /// Runs libFuzzer on the harness named by `HREADERD_FUZZ_TARGET` (or the first); never returns.
    public static func run(_ harnesses: KeyValuePairs<String, ([UInt8]) -> Void>) -> Never {
        let names = harnesses.map(\.key)
        let target = getenv("HREADERD_FUZZ_TARGET").map { String(cString: $0) } ?? names[0]
        guard let chosen = harnesses.first(where: { $0.key == target }) else {
            say("unknown HREADERD_FUZZ_TARGET \(target) (\(names.joined(separator: ", ")))")
            exit(2)
        }
        harness = chosen.value
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
    }

    public static func say(_ line: String) {
        let bytes = Array("hreaderd-fuzz: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// A broken property: say what, then abort so that libFuzzer keeps the input.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            say(message())
            abort()
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.harness(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
