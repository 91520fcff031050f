#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
// The library's content packs: Ed25519 keys in PEM (Sources/Library/PackSignature.swift).
#include <openssl/bio.h>
#include <openssl/pem.h>
