/* SHA256_Init/Update/Final are OpenSSL 3's deprecated low-level API, used on purpose
   (see mercurial_sha256_*): without the suppression each use would warn. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>

/* SHA-256 through OpenSSL's own block functions (SHA-NI or AVX2 where the processor has
   them), not through EVP: EVP's first use reads openssl.cnf and loads the default
   provider: 0.7 ms of every process, which hashes the shading cache's key (a few
   hundred bytes), about 8 % of a 64×64 title's. The digests are the same. */
static inline void mercurial_sha256_begin(SHA256_CTX *context) { SHA256_Init(context); }
static inline void mercurial_sha256_add(SHA256_CTX *context, const void *bytes, size_t count) {
    SHA256_Update(context, bytes, count);
}
static inline void mercurial_sha256_end(SHA256_CTX *context, unsigned char digest[32]) { SHA256_Final(digest, context); }
