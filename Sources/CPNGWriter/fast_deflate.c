/* A deflate encoder for `fast` PNG bands: runs of one byte as distance-1 matches (zlib's
   RLE strategy) and every other byte a literal, each block with Huffman codes made for it.

   Written here rather than taken from zlib or libdeflate because neither fits: zlib's RLE
   strategy at level 1 took 57.7 M of a 1080p title's 174.5 M instructions, this encoder
   15.5 M for the same rows (one frame on one core: 8.4 against 1.6 ms, 160,095 against
   160,081 bytes); libdeflate, faster than zlib at the same ratio, has no sync flush, so
   the bands deflated on each core could not be joined into one stream.
   zlib-ng, which has both, is not in Debian 12. The output is ordinary deflate: zlib
   inflates it (FastDeflateTests check that on many inputs), and the PNG's bands still
   join as zlib's do, each ending byte-aligned after an empty stored block. */

#include "fast_deflate.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { LITLEN_SYMBOLS = 286, DIST_SYMBOLS = 30, CODELEN_SYMBOLS = 19, END_OF_BLOCK = 256, MAX_BITS = 15,
       MAX_CODELEN_BITS = 7, MAX_RUN = 258, MIN_RUN = 3 };

/* Length 3…258: its symbol (257…285), how many extra bits follow and their value. */
static uint16_t length_symbol[MAX_RUN + 1];
static uint8_t length_extra_bits[MAX_RUN + 1];
static uint16_t length_extra_value[MAX_RUN + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_length_tables(void) {
    static const uint16_t base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
    static const uint8_t extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                       3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
    for (int code = 0; code < 29; code++) {
        int last = code == 28 ? 258 : (code == 27 ? 257 : base[code] + (1 << extra[code]) - 1);
        for (int length = base[code]; length <= last && length <= MAX_RUN; length++) {
            length_symbol[length] = (uint16_t)(257 + code);
            length_extra_bits[length] = extra[code];
            length_extra_value[length] = (uint16_t)(length - base[code]);
        }
    }
}

/* Output bits, least significant first, as deflate packs them. */
static int reserve(struct fast_deflate *d, size_t more) {
    if (d->capacity - d->size >= more) return 1;
    size_t capacity = d->capacity ? d->capacity : 65536;
    while (capacity - d->size < more) capacity *= 2;
    uint8_t *grown = realloc(d->out, capacity);
    if (!grown) return 0;
    d->out = grown;
    d->capacity = capacity;
    return 1;
}

/* At most 32 bits at once; the caller has reserved room. */
static inline void put_bits(struct fast_deflate *d, uint32_t value, unsigned count) {
    d->bits |= (uint64_t)value << d->bit_count;
    d->bit_count += count;
    if (d->bit_count >= 32) {
        uint32_t low = (uint32_t)d->bits;
        memcpy(d->out + d->size, &low, 4);   /* little-endian, as deflate's bytes are */
        d->size += 4;
        d->bits >>= 32;
        d->bit_count -= 32;
    }
}

/* The bits still held, padded with zeros to a byte boundary. */
static void flush_bits(struct fast_deflate *d) {
    while (d->bit_count > 0) {
        d->out[d->size++] = (uint8_t)d->bits;
        d->bits >>= 8;
        d->bit_count = d->bit_count > 8 ? d->bit_count - 8 : 0;
    }
    d->bits = 0;
}

static uint32_t reversed(uint32_t code, unsigned length) {
    uint32_t r = 0;
    for (unsigned i = 0; i < length; i++) { r = (r << 1) | (code & 1); code >>= 1; }
    return r;
}

struct symbol_weight { uint32_t weight; uint16_t symbol; };

static int by_weight(const void *a, const void *b) {
    const struct symbol_weight *x = a, *y = b;
    if (x->weight != y->weight) return x->weight < y->weight ? -1 : 1;
    return x->symbol < y->symbol ? -1 : (x->symbol > y->symbol);
}

/* Huffman code lengths for `count` symbols' frequencies, none over `limit` bits, and
   their codes (bit-reversed, ready for put_bits). The lengths come from Moffat and
   Katajainen's in-place method on the used symbols sorted by weight; lengths over the
   limit are then folded back so that the code stays complete (Kraft sum exactly 1). A
   single used symbol gets a 1-bit code, which inflate accepts. */
static void make_code(const uint32_t *freq, int count, int limit, uint8_t *lengths, uint16_t *codes) {
    struct symbol_weight used[LITLEN_SYMBOLS];
    int n = 0;
    for (int s = 0; s < count; s++) {
        lengths[s] = 0;
        codes[s] = 0;
        if (freq[s]) used[n++] = (struct symbol_weight){ freq[s], (uint16_t)s };
    }
    if (n == 0) return;
    if (n == 1) { lengths[used[0].symbol] = 1; return; }
    qsort(used, (size_t)n, sizeof used[0], by_weight);
    uint32_t a[LITLEN_SYMBOLS];
    for (int i = 0; i < n; i++) a[i] = used[i].weight;
    /* Moffat–Katajainen: a[] becomes each symbol's depth, the lightest first. */
    int root = 0, leaf = 2, next;
    a[0] += a[1];
    for (next = 1; next < n - 1; next++) {
        if (leaf >= n || a[root] < a[leaf]) { a[next] = a[root]; a[root++] = (uint32_t)next; }
        else a[next] = a[leaf++];
        if (leaf >= n || (root < next && a[root] < a[leaf])) { a[next] += a[root]; a[root++] = (uint32_t)next; }
        else a[next] += a[leaf++];
    }
    a[n - 2] = 0;
    for (next = n - 3; next >= 0; next--) a[next] = a[a[next]] + 1;
    int available = 1, taken = 0, depth = 0;
    root = n - 2;
    next = n - 1;
    while (available > 0) {
        while (root >= 0 && (int)a[root] == depth) { taken++; root--; }
        while (available > taken) { a[next--] = (uint32_t)depth; available--; }
        available = 2 * taken;
        depth++;
        taken = 0;
    }
    /* How many codes of each length; the deepest folded into `limit` and the Kraft sum mended. */
    int per_length[64] = { 0 };
    for (int i = 0; i < n; i++) per_length[a[i] < 63 ? a[i] : 63]++;
    for (int l = limit + 1; l < 64; l++) { per_length[limit] += per_length[l]; per_length[l] = 0; }
    uint64_t kraft = 0;
    for (int l = 1; l <= limit; l++) kraft += (uint64_t)per_length[l] << (limit - l);
    while (kraft > (1ull << limit)) {
        per_length[limit]--;
        for (int l = limit - 1; l > 0; l--) {
            if (per_length[l]) { per_length[l]--; per_length[l + 1] += 2; break; }
        }
        kraft--;
    }
    /* The shortest lengths to the heaviest symbols. */
    int j = n;
    for (int l = 1; l <= limit; l++)
        for (int k = per_length[l]; k > 0; k--) lengths[used[--j].symbol] = (uint8_t)l;
    /* Canonical codes: by length, then symbol. */
    uint32_t next_code[MAX_BITS + 2] = { 0 };
    int counted[MAX_BITS + 2] = { 0 };
    for (int s = 0; s < count; s++) counted[lengths[s]]++;
    counted[0] = 0;
    uint32_t code = 0;
    for (int l = 1; l <= limit; l++) { code = (code + (uint32_t)counted[l - 1]) << 1; next_code[l] = code; }
    for (int s = 0; s < count; s++)
        if (lengths[s]) codes[s] = (uint16_t)reversed(next_code[lengths[s]]++, lengths[s]);
}

/* Writes the block of the tokens held (a dynamic-Huffman block; `final` sets BFINAL). */
static int write_block(struct fast_deflate *d, int final) {
    uint32_t *litlen_freq = d->litlen_freq, dist_freq[DIST_SYMBOLS] = { 0 };
    litlen_freq[END_OF_BLOCK] = 1;
    dist_freq[0] = 1;   /* the runs' one distance; given a code even with no run, as inflate needs one */
    uint8_t litlen_length[LITLEN_SYMBOLS], dist_length[DIST_SYMBOLS];
    uint16_t litlen_code[LITLEN_SYMBOLS], dist_code[DIST_SYMBOLS];
    make_code(litlen_freq, LITLEN_SYMBOLS, MAX_BITS, litlen_length, litlen_code);
    make_code(dist_freq, DIST_SYMBOLS, MAX_BITS, dist_length, dist_code);

    int hlit = LITLEN_SYMBOLS;
    while (hlit > 257 && litlen_length[hlit - 1] == 0) hlit--;
    int hdist = 1;
    /* The code lengths, run-length coded with symbols 16 (repeat the last 3–6 times),
       17 (3–10 zeros) and 18 (11–138 zeros). */
    uint8_t all[LITLEN_SYMBOLS + DIST_SYMBOLS];
    memcpy(all, litlen_length, (size_t)hlit);
    memcpy(all + hlit, dist_length, (size_t)hdist);
    int total = hlit + hdist;
    uint8_t packed[LITLEN_SYMBOLS + DIST_SYMBOLS][2];   /* symbol, extra value */
    int packed_count = 0;
    uint32_t codelen_freq[CODELEN_SYMBOLS] = { 0 };
    for (int i = 0; i < total;) {
        uint8_t length = all[i];
        int run = 1;
        while (i + run < total && all[i + run] == length) run++;
        i += run;
        if (length == 0) {
            while (run >= 11) { int r = run > 138 ? 138 : run; packed[packed_count][0] = 18; packed[packed_count++][1] = (uint8_t)(r - 11); run -= r; }
            if (run >= 3) { packed[packed_count][0] = 17; packed[packed_count++][1] = (uint8_t)(run - 3); run = 0; }
        } else {
            packed[packed_count][0] = length; packed[packed_count++][1] = 0;
            run--;
            while (run >= 3) { int r = run > 6 ? 6 : run; packed[packed_count][0] = 16; packed[packed_count++][1] = (uint8_t)(r - 3); run -= r; }
        }
        while (run-- > 0) { packed[packed_count][0] = length; packed[packed_count++][1] = 0; }
    }
    for (int i = 0; i < packed_count; i++) codelen_freq[packed[i][0]]++;
    /* Inflate refuses an incomplete code-length code, which one used symbol would make. */
    int codelen_used = 0;
    for (int s = 0; s < CODELEN_SYMBOLS; s++) codelen_used += codelen_freq[s] != 0;
    if (codelen_used < 2) codelen_freq[codelen_freq[0] ? 1 : 0] = 1;
    uint8_t codelen_length[CODELEN_SYMBOLS];
    uint16_t codelen_code[CODELEN_SYMBOLS];
    make_code(codelen_freq, CODELEN_SYMBOLS, MAX_CODELEN_BITS, codelen_length, codelen_code);
    static const uint8_t order[CODELEN_SYMBOLS] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    int hclen = CODELEN_SYMBOLS;
    while (hclen > 4 && codelen_length[order[hclen - 1]] == 0) hclen--;

    /* Room: the header, and at most 15 + 5 + 15 bits a token. */
    if (!reserve(d, 1024 + d->token_count * 5)) return 0;
    put_bits(d, (uint32_t)(final ? 1 : 0) | (2u << 1), 3);
    put_bits(d, (uint32_t)(hlit - 257), 5);
    put_bits(d, (uint32_t)(hdist - 1), 5);
    put_bits(d, (uint32_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++) put_bits(d, codelen_length[order[i]], 3);
    for (int i = 0; i < packed_count; i++) {
        uint8_t s = packed[i][0];
        put_bits(d, codelen_code[s], codelen_length[s]);
        if (s == 16) put_bits(d, packed[i][1], 2);
        else if (s == 17) put_bits(d, packed[i][1], 3);
        else if (s == 18) put_bits(d, packed[i][1], 7);
    }
    const uint16_t *tokens = d->tokens;
    uint32_t distance_bits = dist_code[0];
    unsigned distance_length = dist_length[0];
    for (size_t i = 0; i < d->token_count; i++) {
        uint16_t t = tokens[i];
        if (t < 256) {
            put_bits(d, litlen_code[t], litlen_length[t]);
        } else {
            unsigned length = t - 256, symbol = length_symbol[length];
            put_bits(d, litlen_code[symbol] | ((uint32_t)length_extra_value[length] << litlen_length[symbol]),
                     litlen_length[symbol] + length_extra_bits[length]);
            put_bits(d, distance_bits, distance_length);
        }
    }
    put_bits(d, litlen_code[END_OF_BLOCK], litlen_length[END_OF_BLOCK]);
    d->token_count = 0;
    memset(d->litlen_freq, 0, sizeof d->litlen_freq);
    return 1;
}

int fast_deflate_begin(struct fast_deflate *d) {
    pthread_once(&tables_once, make_length_tables);
    memset(d, 0, sizeof *d);
    d->tokens = malloc(sizeof(uint16_t) * FAST_DEFLATE_BLOCK_TOKENS);
    return d->tokens && reserve(d, 65536);
}

void fast_deflate_end(struct fast_deflate *d) {
    free(d->tokens);
    free(d->out);
    memset(d, 0, sizeof *d);
}

/* Length of the run of `byte` at the start of bytes[0..<count], at most MAX_RUN. */
static inline size_t run_length(const uint8_t *bytes, size_t count, uint8_t byte) {
    size_t limit = count < MAX_RUN ? count : MAX_RUN, r = 0;
    uint64_t pattern = 0x0101010101010101ull * byte;
    while (r + 8 <= limit) {
        uint64_t word;
        memcpy(&word, bytes + r, 8);
        uint64_t differ = word ^ pattern;
        if (differ) return r + (size_t)(__builtin_ctzll(differ) >> 3);
        r += 8;
    }
    while (r < limit && bytes[r] == byte) r++;
    return r;
}

int fast_deflate_write(struct fast_deflate *d, const uint8_t *bytes, size_t count) {
    size_t i = 0;
    while (i < count) {
        if (d->token_count >= FAST_DEFLATE_BLOCK_TOKENS - 1 && !write_block(d, 0)) return 0;
        size_t room = FAST_DEFLATE_BLOCK_TOKENS - 1 - d->token_count, end = i + room < count ? i + room : count;
        uint16_t *tokens = d->tokens + d->token_count;
        uint32_t *freq = d->litlen_freq;
        size_t made = 0;
        int has_previous = d->has_previous;
        uint8_t previous = d->previous;
        while (i < end) {
            uint8_t b = bytes[i];
            if (has_previous && b == previous) {
                size_t run = run_length(bytes + i, count - i, previous);
                if (run >= MIN_RUN) {
                    tokens[made++] = (uint16_t)(256 + run);
                    freq[length_symbol[run]]++;
                    i += run;
                    continue;
                }
            }
            tokens[made++] = b;
            freq[b]++;
            previous = b;
            has_previous = 1;
            i++;
        }
        d->token_count += made;
        d->has_previous = has_previous;
        d->previous = previous;
    }
    return 1;
}

int fast_deflate_sync(struct fast_deflate *d) {
    if (d->token_count > 0 && !write_block(d, 0)) return 0;
    if (!reserve(d, 16)) return 0;
    /* An empty stored block, not final: three bits, then zeros to the byte, then LEN 0, NLEN 0xFFFF. */
    put_bits(d, 0, 3);
    flush_bits(d);
    static const uint8_t empty[4] = { 0, 0, 0xFF, 0xFF };
    memcpy(d->out + d->size, empty, 4);
    d->size += 4;
    return 1;
}

int fast_deflate_append_aligned(struct fast_deflate *d, const uint8_t *segment, size_t size) {
    if (d->bit_count != 0 || d->token_count != 0 || !reserve(d, size)) return 0;
    memcpy(d->out + d->size, segment, size);
    d->size += size;
    d->has_previous = 0;   /* nothing after the segment refers back into it */
    return 1;
}

int fast_deflate_finish(struct fast_deflate *d) {
    if (!reserve(d, 16)) return 0;
    if (d->token_count > 0) {
        if (!write_block(d, 1)) return 0;
    } else {
        /* An empty final block with the fixed codes: BFINAL, type 01, end of block (seven zero bits). */
        put_bits(d, 1 | (1u << 1), 3);
        put_bits(d, 0, 7);
    }
    flush_bits(d);
    return 1;
}
