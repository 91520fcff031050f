import HealthRecord
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Wraps and unwraps the store key held in the key file. The raw key never touches the disk unwrapped.
public struct KeyVault: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public var exists: Bool { FileSystem.exists(path) }

    /// Writes a new key file for `key`, wrapped under the password and under a fresh recovery key, which
    /// is returned to be shown once. Never replaces an existing file.
    public func create(
        key: StoreKey,
        password: String,
        passwordParameters: ScryptParameters = .password,
        recoveryParameters: ScryptParameters = .recoveryKey
    ) throws(StoreError) -> RecoveryKey {
        guard !password.isEmpty else { throw .keyVault(.emptyPassword) }
        let recovery = try wrap(RecoveryKey.random)
        let file = KeyFile(slots: [
            try wrap { () throws(KeyVaultError) in try Self.seal(key, kind: .password, secret: Array(password.utf8), parameters: passwordParameters) },
            try wrap { () throws(KeyVaultError) in try Self.seal(key, kind: .recovery, secret: recovery.bytes, parameters: recoveryParameters) },
        ])
        try write(file, replace: false)
        return recovery
    }

    /// Unwraps the store key with the password. A wrong password fails the GCM tag: `.wrongPassword`.
    public func unlock(password: String) throws(StoreError) -> StoreKey {
        guard !password.isEmpty else { throw .keyVault(.emptyPassword) }
        let file = try load()
        guard let slot = file.slot(.password) else { throw .keyVault(.keyFileDamaged(path: path, reason: "no password slot")) }
        guard let key = try wrap({ () throws(KeyVaultError) in try Self.open(slot, secret: Array(password.utf8), path: path) }) else {
            throw .keyVault(.wrongPassword)
        }
        return key
    }

    /// Unwraps the store key with the recovery key.
    public func unlock(recoveryKey: RecoveryKey) throws(StoreError) -> StoreKey {
        let file = try load()
        guard let slot = file.slot(.recovery) else { throw .keyVault(.noRecoverySlot(path: path)) }
        guard let key = try wrap({ () throws(KeyVaultError) in try Self.open(slot, secret: recoveryKey.bytes, path: path) }) else {
            throw .keyVault(.wrongRecoveryKey)
        }
        return key
    }

    /// Re-wraps the same store key under a new password (the database is not re-encrypted). The recovery
    /// slot is kept as it is.
    public func changePassword(key: StoreKey, to newPassword: String, parameters: ScryptParameters = .password) throws(StoreError) {
        guard !newPassword.isEmpty else { throw .keyVault(.emptyPassword) }
        var file = try load()
        let slot = try wrap { () throws(KeyVaultError) in try Self.seal(key, kind: .password, secret: Array(newPassword.utf8), parameters: parameters) }
        file.slots.removeAll { $0.kind == .password }
        file.slots.insert(slot, at: 0)
        try write(file, replace: true)
    }

    /// The scrypt parameters of the password slot, as recorded in the file.
    public func passwordParameters() throws(StoreError) -> ScryptParameters {
        let file = try load()
        return file.slot(.password)!.kdf.parameters
    }

    // MARK: - Internals

    func load() throws(StoreError) -> KeyFile {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: KeyFile.maximumSize)
        } catch {
            if error.errnoValue == ENOENT { throw .keyVault(.keyFileMissing(path: path)) }
            if error.errnoValue == EFBIG { throw .keyVault(.keyFileDamaged(path: path, reason: "it is far too large to be a key file")) }
            throw .keyVault(.keyFileUnreadable(path: path, reason: String(cString: strerror(error.errnoValue))))
        }
        return try wrap { () throws(KeyVaultError) in try KeyFile.parse(bytes, path: path) }
    }

    private func write(_ file: KeyFile, replace: Bool) throws(StoreError) {
        let bytes = try wrap { () throws(KeyVaultError) in try file.serialized() }
        do {
            try FileSystem.writeAtomically(bytes, to: path, mode: 0o600, replace: replace)
        } catch {
            if error.errnoValue == EEXIST { throw .alreadyInitialised(path: path) }
            throw .io(error.description)
        }
    }

    private func wrap<T>(_ body: () throws(KeyVaultError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw .keyVault(error) }
    }

    static func seal(_ key: StoreKey, kind: KeyFile.Slot.Kind, secret: [UInt8], parameters: ScryptParameters) throws(KeyVaultError) -> KeyFile.Slot {
        let salt = try secureRandomBytes(16)
        var kek = try Scrypt.deriveKey(secret: secret, salt: salt, parameters: parameters)
        defer { wipe(&kek) }
        var slot = KeyFile.Slot(
            kind: kind,
            kdf: .init(logN: parameters.logN, r: parameters.r, p: parameters.p, salt: Data(salt).base64EncodedString()),
            nonce: "", wrappedKey: "", tag: "")
        var plaintext = key.withBytes { Array($0) }
        defer { wipe(&plaintext) }
        let sealed = try AESGCM.seal(plaintext, key: kek, associatedData: slot.associatedData)
        slot.nonce = Data(sealed.nonce).base64EncodedString()
        slot.wrappedKey = Data(sealed.ciphertext).base64EncodedString()
        slot.tag = Data(sealed.tag).base64EncodedString()
        return slot
    }

    /// nil when the secret is wrong (the tag does not verify).
    static func open(_ slot: KeyFile.Slot, secret: [UInt8], path: String) throws(KeyVaultError) -> StoreKey? {
        guard let salt = Data(base64Encoded: slot.kdf.salt), let nonce = Data(base64Encoded: slot.nonce),
              let wrapped = Data(base64Encoded: slot.wrappedKey), let tag = Data(base64Encoded: slot.tag),
              wrapped.count == StoreKey.byteCount
        else { throw .keyFileDamaged(path: path, reason: "a wrapped key is malformed") }
        var kek = try Scrypt.deriveKey(secret: secret, salt: Array(salt), parameters: slot.kdf.parameters)
        defer { wipe(&kek) }
        let sealed = AESGCM.Sealed(nonce: Array(nonce), ciphertext: Array(wrapped), tag: Array(tag))
        guard var raw = try AESGCM.open(sealed, key: kek, associatedData: slot.associatedData) else { return nil }
        return try StoreKey(consuming: &raw)
    }
}
