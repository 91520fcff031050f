import Foundation
@testable import Store

/// Cheap scrypt settings so unit tests do not spend seconds on key derivation (the real defaults are
/// exercised by the CLI tests).
let fastScrypt = ScryptParameters(logN: 10, r: 8, p: 1)

func makeStore(in dir: TemporaryDirectory, password: String = "correct horse") throws -> (Store, RecoveryKey, StateDirectory) {
    let state = StateDirectory(path: dir.file("state"))
    let (store, recovery) = try Store.create(at: state, password: password, passwordParameters: fastScrypt, recoveryParameters: fastScrypt)
    return (store, recovery, state)
}

func sampleRecord(id: String = "rec-1", entries count: Int = 3, marker: String = "marker") -> PatientRecord {
    var entries: [Entry] = []
    for i in 0..<count {
        let type: EntryType = i % 2 == 0 ? .condition : .result
        let value: Double? = i % 2 == 0 ? nil : Double(i)
        let time: Int64 = 1_000_000 + Int64(i) * 86_400
        entries.append(Entry(id: "e_\(i)", type: type, description: "\(marker) \(i)", time: time, value: value,
                             codes: ["SNOMED-CT": ["\(i)"]], rawJSON: "{\"n\":\(i)}"))
    }
    return PatientRecord(recordID: id, firstName: "Ada", lastName: "Example", name: "Ada Example", gender: "F",
                         birthdate: -86_400 * 365, entries: entries)
}

/// The bytes of a file, or empty when it does not exist.
func fileBytes(_ path: String) -> [UInt8] {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? []
}

func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard !n.isEmpty, haystack.count >= n.count else { return false }
    let first = n[0]
    var i = 0
    while i <= haystack.count - n.count {
        if haystack[i] == first && Array(haystack[i..<i + n.count]) == n { return true }
        i += 1
    }
    return false
}

/// Runs a program, returns its exit status, stdout and stderr.
@discardableResult
func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// The directory holding the built products (the test bundle sits beside the executables).
var productsDirectory: String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (exe as NSString).deletingLastPathComponent
}

func which(_ tool: String) -> String? {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + tool) {
        return dir + "/" + tool
    }
    return nil
}
