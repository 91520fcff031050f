import Foundation
import Testing
import HealthRecord
@testable import Store

@Suite("Key vault")
struct KeyVaultTests {
    func isError(_ expected: KeyVaultError) -> (any Error) -> Bool {
        { error in
            if case StoreError.keyVault(let actual) = error { return actual == expected }
            return false
        }
    }

    @Test("the right password unwraps the same key that opens the store")
    func rightPassword() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "right")
        store.close()
        let reopened = try Store.open(at: state, password: "right")
        #expect(try reopened.patientsSync().isEmpty)
    }

    @Test("a wrong password is detected by the GCM tag and reported as such")
    func wrongPassword() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "right")
        store.close()
        #expect(performing: { try state.keyVault.unlock(password: "wrong") }, throws: isError(.wrongPassword))
        #expect(performing: { try state.keyVault.unlock(password: "") }, throws: isError(.emptyPassword))
    }

    @Test("after a password change only the new password opens the store; the recovery key still does")
    func changePassword() throws {
        let dir = TemporaryDirectory()
        let (store, recovery, state) = try makeStore(in: dir, password: "old")
        _ = try store.importRecordSync(.record(entries: .numbered(3)))
        store.close()
        let key = try state.keyVault.unlock(password: "old")
        try state.keyVault.changePassword(key: key, to: "new", parameters: fastScrypt)
        #expect(performing: { try state.keyVault.unlock(password: "old") }, throws: isError(.wrongPassword))
        let reopened = try Store.open(at: state, password: "new")
        #expect(try reopened.patientsSync().count == 1)
        reopened.close()
        #expect(try state.keyVault.unlock(recoveryKey: recovery).hexString() == key.hexString())
    }

    @Test("the recovery key parses however it is typed, and a wrong one is refused")
    func recoveryKey() throws {
        let dir = TemporaryDirectory()
        let (store, recovery, state) = try makeStore(in: dir)
        store.close()
        let typed = recovery.formatted.lowercased().replacingOccurrences(of: "-", with: " ") + "\n"
        #expect(try RecoveryKey(parsing: typed) == recovery)
        #expect(recovery.formatted.count == 39)
        let other = try RecoveryKey.random()
        #expect(performing: { try state.keyVault.unlock(recoveryKey: other) }, throws: isError(.wrongRecoveryKey))
        #expect(throws: KeyVaultError.malformedRecoveryKey) { try RecoveryKey(parsing: "not-a-key") }
        #expect(throws: KeyVaultError.malformedRecoveryKey) { try RecoveryKey(parsing: String(recovery.formatted.dropLast())) }
    }

    @Test("creating a store where one exists is refused and changes nothing")
    func refusesToOverwrite() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        let keyBefore = fileBytes(state.keyFilePath)
        let dbBefore = fileBytes(state.databasePath)
        #expect {
            try Store.create(at: state, password: "other", passwordParameters: fastScrypt, recoveryParameters: fastScrypt)
        } throws: { error in
            if case StoreError.alreadyInitialised = error { return true }
            return false
        }
        #expect(fileBytes(state.keyFilePath) == keyBefore)
        #expect(fileBytes(state.databasePath) == dbBefore)
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case empty, truncated, flippedByte, notJSON, directoryInstead
        var testDescription: String { rawValue }
    }

    @Test("a damaged key file is a clear error, never a wrong-password guess", arguments: Damage.allCases)
    func damagedKeyFile(_ damage: Damage) throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "pw")
        store.close()
        let original = fileBytes(state.keyFilePath)
        let path = state.keyFilePath
        switch damage {
        case .empty: try Data().write(to: URL(fileURLWithPath: path))
        case .truncated: try Data(original.prefix(original.count / 2)).write(to: URL(fileURLWithPath: path))
        case .flippedByte:
            var bytes = original
            bytes[40] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        case .notJSON:
            let body = Array("hello".utf8)
            try Data(body + Array("\nsha256:\(KeyFile.sha256Hex(body))\n".utf8)).write(to: URL(fileURLWithPath: path))
        case .directoryInstead:
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let before = fileBytes(state.databasePath)
        #expect {
            try state.keyVault.unlock(password: "pw")
        } throws: { error in
            guard case StoreError.keyVault(let vaultError) = error else { return false }
            switch (damage, vaultError) {
            case (.directoryInstead, .keyFileUnreadable): return true
            case (.directoryInstead, _): return false
            case (_, .keyFileDamaged): return !vaultError.description.isEmpty && !vaultError.description.contains("\n")
            default: return false
            }
        }
        #expect(fileBytes(state.databasePath) == before)
    }

    @Test("a key file whose cost parameters were lowered no longer unwraps (they are authenticated)")
    func loweredParametersAreDetected() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "pw")
        store.close()
        var file = try state.keyVault.load()
        file.slots[0].kdf.r = 4
        try FileSystem.writeAtomically(try file.serialized(), to: state.keyFilePath, replace: true)
        #expect(performing: { try state.keyVault.unlock(password: "pw") }, throws: isError(.wrongPassword))
    }

    @Test("a key file of a future format version is refused with an upgrade hint")
    func futureVersion() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "pw")
        store.close()
        var file = try state.keyVault.load()
        file.version = 99
        try FileSystem.writeAtomically(try file.serialized(), to: state.keyFilePath, replace: true)
        #expect(performing: { try state.keyVault.unlock(password: "pw") },
                throws: isError(.unsupportedVersion(path: state.keyFilePath, version: 99)))
    }

    @Test("a missing key file or state directory says what to do")
    func missingFiles() throws {
        let dir = TemporaryDirectory()
        let missing = StateDirectory(path: dir.file("nope"))
        #expect {
            try Store.open(at: missing, password: "pw")
        } throws: { error in
            guard case StoreError.stateDirectoryMissing = error else { return false }
            return "\(error)".contains("hreaderd init")
        }
        try FileManager.default.createDirectory(atPath: missing.path, withIntermediateDirectories: false)
        #expect(performing: { try Store.open(at: missing, password: "pw") },
                throws: isError(.keyFileMissing(path: missing.keyFilePath)))
    }

    @Test("the key file records its scrypt parameters")
    func parametersRecorded() throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        store.close()
        #expect(try state.keyVault.passwordParameters() == fastScrypt)
        let text = String(decoding: fileBytes(state.keyFilePath), as: UTF8.self)
        #expect(text.contains("\"log_n\":10"))
        #expect(text.contains("\"version\":1"))
    }

    @Test("AES-GCM opens what it sealed and nothing that was altered")
    func aesGCM() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let sealed = try AESGCM.seal(Array("secret".utf8), key: key, associatedData: [1, 2])
        #expect(try AESGCM.open(sealed, key: key, associatedData: [1, 2]) == Array("secret".utf8))
        #expect(try AESGCM.open(sealed, key: key, associatedData: [1, 3]) == nil)
        var altered = sealed
        altered.ciphertext[0] ^= 1
        #expect(try AESGCM.open(altered, key: key, associatedData: [1, 2]) == nil)
        var otherKey = key
        otherKey[0] = 8
        #expect(try AESGCM.open(sealed, key: otherKey, associatedData: [1, 2]) == nil)
    }
}
