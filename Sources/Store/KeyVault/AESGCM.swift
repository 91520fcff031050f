import HealthRecord
import CLibCrypto

/// AES-256-GCM through OpenSSL's EVP interface: a 12-byte nonce, a 16-byte tag, and associated data that
/// binds the ciphertext to its context (the key-file slot and its KDF parameters).
enum AESGCM {
    static let nonceByteCount = 12
    static let tagByteCount = 16

    struct Sealed: Equatable {
        var nonce: [UInt8]
        var ciphertext: [UInt8]
        var tag: [UInt8]
    }

    static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(KeyVaultError) -> Sealed {
        guard key.count == 32 else { throw .crypto("AES-256 needs a 32-byte key") }
        let nonce = try secureRandomBytes(nonceByteCount)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        var length: Int32 = 0
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonceByteCount), nil) == 1,
              EVP_EncryptInit_ex(ctx, nil, nil, key, nonce) == 1,
              EVP_EncryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)) == 1,
              EVP_EncryptUpdate(ctx, &ciphertext, &length, plaintext, Int32(plaintext.count)) == 1
        else { throw .crypto("AES-GCM encryption failed") }
        var finalLength: Int32 = 0
        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + Int(length), &finalLength)
        }
        guard finished == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), &tag) == 1
        else { throw .crypto("AES-GCM finalisation failed") }
        return Sealed(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Returns nil when the tag does not verify: wrong key, or altered nonce, ciphertext, tag or context.
    static func open(_ sealed: Sealed, key: [UInt8], associatedData: [UInt8]) throws(KeyVaultError) -> [UInt8]? {
        guard key.count == 32, sealed.nonce.count == nonceByteCount, sealed.tag.count == tagByteCount else { return nil }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var plaintext = [UInt8](repeating: 0, count: sealed.ciphertext.count)
        var tag = sealed.tag
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonceByteCount), nil) == 1,
              EVP_DecryptInit_ex(ctx, nil, nil, key, sealed.nonce) == 1,
              EVP_DecryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)) == 1,
              EVP_DecryptUpdate(ctx, &plaintext, &length, sealed.ciphertext, Int32(sealed.ciphertext.count)) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount), &tag) == 1
        else { throw .crypto("AES-GCM decryption failed") }
        var finalLength: Int32 = 0
        let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(ctx, buffer.baseAddress.map { $0 + Int(length) }, &finalLength)
        }
        guard verified == 1 else {
            wipe(&plaintext)
            return nil
        }
        return plaintext
    }
}
