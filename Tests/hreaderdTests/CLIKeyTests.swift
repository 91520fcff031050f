import Foundation
import Testing
import TestSupport

/// The `init` and `passwd` subcommands, run as a user runs them: the real binary, real files.
@Suite("hreaderd init and passwd")
struct CLIKeyTests {
    let dir = TemporaryDirectory("hreaderd-cli")
    var state: String { dir.file("state") }
    var binary: String { productsDirectory + "/hreaderd" }

    func secretFile(_ name: String, _ content: String) throws -> String {
        let path = dir.file(name)
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func hreaderd(_ arguments: String..., environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try run(binary, arguments, environment: environment)
    }

    /// Runs `init` and returns the recovery key it printed.
    func initStore(password: String = "first password") throws -> String {
        let result = try hreaderd("init", "--state-dir", state, "--password-file", try secretFile("pw", password + "\n"))
        #expect(result.status == 0, "\(result.err)")
        let line = result.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 39 && $0.filter { $0 == "-" }.count == 7 }
        return try #require(line)
    }

    @Test("init creates a 0700 directory with a key file and a database, and prints a recovery key once")
    func initCreates() throws {
        let recovery = try initStore()
        let attributes = try FileManager.default.attributesOfItem(atPath: state)
        #expect(attributes[.posixPermissions] as? Int == 0o700)
        #expect(FileManager.default.fileExists(atPath: state + "/hreaderd.key"))
        #expect(FileManager.default.fileExists(atPath: state + "/hreaderd.db"))
        #expect(!String(decoding: fileBytes(state + "/hreaderd.key"), as: UTF8.self).contains(recovery))
    }

    @Test("init refuses to overwrite an existing store and leaves it as it was")
    func initRefusesOverwrite() throws {
        _ = try initStore()
        let key = fileBytes(state + "/hreaderd.key")
        let db = fileBytes(state + "/hreaderd.db")
        let second = try hreaderd("init", "--state-dir", state, "--password-file", try secretFile("pw2", "other"))
        #expect(second.status != 0)
        #expect(second.err.contains("already exists"))
        #expect(second.err.split(separator: "\n").count == 1)
        #expect(fileBytes(state + "/hreaderd.key") == key)
        #expect(fileBytes(state + "/hreaderd.db") == db)
    }

    @Test("a wrong password fails with one clear line and a non-zero exit")
    func wrongPassword() throws {
        _ = try initStore()
        let result = try hreaderd("passwd", "--state-dir", state, "--password-file", try secretFile("bad", "not it"),
                                  "--new-password-file", try secretFile("new", "new"))
        #expect(result.status == 1)
        #expect(result.err == "hreaderd: wrong password: it does not unlock this store's key\n")
    }

    @Test("after passwd only the new password opens the store")
    func passwdChangesPassword() throws {
        _ = try initStore(password: "old one")
        let old = try secretFile("old", "old one\n")
        let new = try secretFile("new", "new one\n")
        let changed = try hreaderd("passwd", "--state-dir", state, "--password-file", old, "--new-password-file", new)
        #expect(changed.status == 0, "\(changed.err)")
        let withOld = try hreaderd("passwd", "--state-dir", state, "--password-file", old, "--new-password-file", new)
        #expect(withOld.status == 1)
        #expect(withOld.err.contains("wrong password"))
        // Through the environment variable this time.
        let withNew = try hreaderd("passwd", "--state-dir", state, "--new-password-file", new,
                                   environment: ["HREADERD_PASSWORD_FILE": new])
        #expect(withNew.status == 0, "\(withNew.err)")
    }

    @Test("the recovery key sets a new password when the old one is lost")
    func recoveryKeyResetsPassword() throws {
        let recovery = try initStore(password: "forgotten")
        let keyFile = try secretFile("recovery", recovery.lowercased() + "\n")
        let new = try secretFile("new", "remembered")
        let reset = try hreaderd("passwd", "--state-dir", state, "--recovery-key-file", keyFile, "--new-password-file", new)
        #expect(reset.status == 0, "\(reset.err)")
        let forgotten = try secretFile("forgotten", "forgotten")
        #expect(try hreaderd("passwd", "--state-dir", state, "--password-file", forgotten, "--new-password-file", new).status == 1)
        #expect(try hreaderd("passwd", "--state-dir", state, "--password-file", new, "--new-password-file", new).status == 0)
        let wrongRecovery = try secretFile("wrong-recovery", "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA")
        let refused = try hreaderd("passwd", "--state-dir", state, "--recovery-key-file", wrongRecovery, "--new-password-file", new)
        #expect(refused.status == 1)
        #expect(refused.err.contains("wrong recovery key"))
    }

    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case truncatedKeyFile, tamperedKeyFile, emptyKeyFile, unreadableKeyFile, missingStateDirectory, emptyPasswordFile, missingPasswordFile
        var testDescription: String { rawValue }
    }

    @Test("bad input is one clear line on stderr, a non-zero exit, and nothing overwritten", arguments: BadInput.allCases)
    func badInput(_ bad: BadInput) throws {
        _ = try initStore(password: "pw")
        var passwordFile = try secretFile("pw-ok", "pw")
        var stateDir = state
        let keyPath = state + "/hreaderd.key"
        let keyBytes = fileBytes(keyPath)
        var expected = ""
        switch bad {
        case .truncatedKeyFile:
            try Data(keyBytes.prefix(100)).write(to: URL(fileURLWithPath: keyPath)); expected = "damaged"
        case .tamperedKeyFile:
            var bytes = keyBytes
            bytes[bytes.count / 3] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: keyPath)); expected = "damaged"
        case .emptyKeyFile:
            try Data().write(to: URL(fileURLWithPath: keyPath)); expected = "damaged"
        case .unreadableKeyFile:
            try FileManager.default.removeItem(atPath: keyPath)
            try FileManager.default.createDirectory(atPath: keyPath, withIntermediateDirectories: false)
            expected = "cannot read the key file"
        case .missingStateDirectory:
            stateDir = dir.file("does-not-exist"); expected = "does not exist"
        case .emptyPasswordFile:
            passwordFile = try secretFile("empty", ""); expected = "is empty"
        case .missingPasswordFile:
            passwordFile = dir.file("no-such-file"); expected = "does not exist"
        }
        let keyBefore = fileBytes(keyPath)
        let dbBefore = fileBytes(state + "/hreaderd.db")
        let result = try hreaderd("passwd", "--state-dir", stateDir, "--password-file", passwordFile,
                                  "--new-password-file", try secretFile("new", "new"))
        #expect(result.status != 0)
        #expect(result.err.hasPrefix("hreaderd: "))
        #expect(result.err.contains(expected), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(fileBytes(keyPath) == keyBefore)
        #expect(fileBytes(state + "/hreaderd.db") == dbBefore)
        #expect(!FileManager.default.fileExists(atPath: dir.file("does-not-exist")))
    }

    @Test("without a password file or a terminal, the command says how to give one")
    func noPasswordSource() throws {
        let result = try hreaderd("init", "--state-dir", state)
        #expect(result.status == 1)
        #expect(result.err.contains("--password-file"))
        #expect(!FileManager.default.fileExists(atPath: state + "/hreaderd.key"))
    }
}
