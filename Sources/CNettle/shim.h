/* SHA-256, HMAC-SHA256 and a constant-time comparison from Nettle (nettle-dev), whose
   SHA-256 uses the processor's SHA extensions where it has them. Not OpenSSL's libcrypto:
   loading and relocating its 4.5 MB took 0.5 ms of every process (a trivial C program
   linked against it, 1.25 against 0.70 ms; against Nettle 0.77 ms), for a few hashes.
   Nettle's names are macros (sha256_init is nettle_sha256_init), which Swift does not
   import: these wrappers give them one name each. */
#include <nettle/sha2.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>

static inline void mercurial_sha256_begin(struct sha256_ctx *context) { sha256_init(context); }
static inline void mercurial_sha256_add(struct sha256_ctx *context, const void *bytes, size_t count) {
    sha256_update(context, count, (const uint8_t *)bytes);
}
static inline void mercurial_sha256_end(struct sha256_ctx *context, unsigned char digest[32]) {
    sha256_digest(context, SHA256_DIGEST_SIZE, digest);
}

/* HMAC-SHA256 of `message` under `key` into `digest` (32 bytes). */
static inline void mercurial_hmac_sha256(const void *key, size_t key_count, const void *message, size_t count,
                                         unsigned char digest[32]) {
    struct hmac_sha256_ctx context;
    hmac_sha256_set_key(&context, key_count, (const uint8_t *)key);
    hmac_sha256_update(&context, count, (const uint8_t *)message);
    hmac_sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
}

/* Whether the `count` bytes at `a` and `b` are equal, in time that does not depend on where they differ. */
static inline int mercurial_same_in_constant_time(const void *a, const void *b, size_t count) {
    return memeql_sec(a, b, count);
}
