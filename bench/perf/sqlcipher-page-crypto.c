// What SQLCipher 3.4.1 (Debian's) pays OpenSSL 3 for each 4 KiB page it writes or reads, against the same
// work with the cipher fetched once and its contexts kept (docs/perf/README.md, "A FHIR upload, looked at
// again"). SQLCipher makes and frees an EVP cipher context and an HMAC context for every page, each with an
// implicit fetch of its algorithm. Not part of the product:
//
//     cc -O2 bench/perf/sqlcipher-page-crypto.c -o /tmp/page-crypto -lcrypto && /tmp/page-crypto
#define OPENSSL_API_COMPAT 0x10100000L  // SQLCipher 3.4.1 uses the HMAC_CTX calls OpenSSL 3 deprecates
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { PAGES = 100000, PAGE = 4096, RESERVED = 48, HMAC_BYTES = 20 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void report(const char *what, double started) {
    printf("%-44s %5.2f us a page\n", what, (now() - started) / PAGES * 1e6);
}

// As SQLCipher 3.4.1 ciphers a page (mode 1: encrypt, 0: decrypt): a new context, the cipher fetched again.
static void cipher_anew(const EVP_CIPHER *cipher, const unsigned char *key, const unsigned char *iv,
                        const unsigned char *in, unsigned char *out, int mode) {
    int length, last;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_CipherInit_ex(c, cipher, NULL, NULL, NULL, mode);
    EVP_CIPHER_CTX_set_padding(c, 0);
    EVP_CipherInit_ex(c, NULL, NULL, key, iv, mode);
    EVP_CipherUpdate(c, out, &length, in, PAGE - RESERVED);
    EVP_CipherFinal_ex(c, out + length, &last);
    EVP_CIPHER_CTX_free(c);
}

// As SQLCipher 3.4.1 authenticates a page: a new HMAC context over the page and its number.
static void hmac_anew(const unsigned char *key, const unsigned char *page, int number, unsigned char *mac) {
    unsigned int mac_length;
    HMAC_CTX *h = HMAC_CTX_new();
    HMAC_Init_ex(h, key, 32, EVP_sha1(), NULL);
    HMAC_Update(h, page, PAGE - RESERVED + 16);
    HMAC_Update(h, (const unsigned char *)&number, sizeof number);
    HMAC_Final(h, mac, &mac_length);
    HMAC_CTX_free(h);
}

int main(void) {
    unsigned char key[32], hmac_key[32], iv[16], in[PAGE], out[PAGE], mac[HMAC_BYTES];
    unsigned int mac_length;
    int length, last;
    RAND_bytes(key, sizeof key);
    RAND_bytes(hmac_key, sizeof hmac_key);
    memset(in, 7, sizeof in);
    const EVP_CIPHER *legacy = EVP_get_cipherbyname("aes-256-cbc");

    // As SQLCipher 3.4.1 writes a page: a random IV, a new cipher context, a new HMAC context.
    double started = now();
    for (int i = 0; i < PAGES; i++) {
        RAND_bytes(iv, sizeof iv);
        cipher_anew(legacy, key, iv, in, out, 1);
        hmac_anew(hmac_key, out, i, mac);
    }
    report("a page written, as SQLCipher 3.4.1 does", started);

    started = now();
    for (int i = 0; i < PAGES; i++) RAND_bytes(iv, sizeof iv);
    report("  of which the random IV", started);

    // The same with the cipher fetched once and both contexts kept.
    EVP_CIPHER *fetched = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    EVP_CIPHER_CTX *encrypt = EVP_CIPHER_CTX_new(), *decrypt = EVP_CIPHER_CTX_new();
    EVP_CipherInit_ex2(encrypt, fetched, key, iv, 1, NULL);
    EVP_CipherInit_ex2(decrypt, fetched, key, iv, 0, NULL);
    EVP_CIPHER_CTX_set_padding(encrypt, 0);
    EVP_CIPHER_CTX_set_padding(decrypt, 0);
    EVP_MD *sha1 = EVP_MD_fetch(NULL, "SHA1", NULL);
    HMAC_CTX *kept = HMAC_CTX_new();
    HMAC_Init_ex(kept, hmac_key, sizeof hmac_key, sha1, NULL);
    started = now();
    for (int i = 0; i < PAGES; i++) {
        RAND_bytes(iv, sizeof iv);
        EVP_CipherInit_ex2(encrypt, NULL, NULL, iv, 1, NULL);
        EVP_CipherUpdate(encrypt, out, &length, in, PAGE - RESERVED);
        EVP_CipherFinal_ex(encrypt, out + length, &last);
        HMAC_Init_ex(kept, NULL, 0, NULL, NULL);
        HMAC_Update(kept, out, PAGE - RESERVED + sizeof iv);
        HMAC_Update(kept, (unsigned char *)&i, sizeof i);
        HMAC_Final(kept, mac, &mac_length);
    }
    report("a page written, contexts kept", started);

    // A page read: its HMAC checked, then decrypted.
    started = now();
    for (int i = 0; i < PAGES; i++) {
        hmac_anew(hmac_key, in, i, mac);
        cipher_anew(legacy, key, iv, in, out, 0);
    }
    report("a page read, as SQLCipher 3.4.1 does", started);

    started = now();
    for (int i = 0; i < PAGES; i++) {
        HMAC_Init_ex(kept, NULL, 0, NULL, NULL);
        HMAC_Update(kept, in, PAGE - RESERVED + sizeof iv);
        HMAC_Update(kept, (unsigned char *)&i, sizeof i);
        HMAC_Final(kept, mac, &mac_length);
        EVP_CipherInit_ex2(decrypt, NULL, NULL, iv, 0, NULL);
        EVP_CipherUpdate(decrypt, out, &length, in, PAGE - RESERVED);
        EVP_CipherFinal_ex(decrypt, out + length, &last);
    }
    report("a page read, contexts kept", started);

    HMAC_CTX_free(kept);
    EVP_MD_free(sha1);
    EVP_CIPHER_CTX_free(encrypt);
    EVP_CIPHER_CTX_free(decrypt);
    EVP_CIPHER_free(fetched);
    return 0;
}
