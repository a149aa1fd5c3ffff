#ifndef MERCURIAL_FAST_DEFLATE_H
#define MERCURIAL_FAST_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* A raw deflate stream made as zlib's RLE strategy makes one (runs of a byte as
   distance-1 matches, every other byte a literal), each block with Huffman codes made
   for it, in about a quarter of zlib's instructions (see fast_deflate.c). Not thread-safe:
   one stream per thread. */
enum { FAST_DEFLATE_BLOCK_TOKENS = 1 << 14 };

struct fast_deflate {
    uint8_t *out;            /* the stream so far (malloc'd; the caller takes it or fast_deflate_end frees it) */
    size_t size, capacity;
    uint64_t bits;           /* bits not yet stored, least significant first */
    unsigned bit_count;
    uint16_t *tokens;        /* the block being gathered: a literal byte, or 256 + a run's length */
    size_t token_count;
    uint32_t litlen_freq[286];
    uint8_t previous;        /* the last byte given, which a run repeats */
    int has_previous;
};

/* 1, or 0 when memory ran out (then fast_deflate_end still frees what was made). */
int fast_deflate_begin(struct fast_deflate *d);
void fast_deflate_end(struct fast_deflate *d);
/* Appends `count` bytes of input. */
int fast_deflate_write(struct fast_deflate *d, const uint8_t *bytes, size_t count);
/* Ends the block being gathered (not final) and aligns the stream to a byte with an
   empty stored block, as zlib's Z_SYNC_FLUSH does. */
int fast_deflate_sync(struct fast_deflate *d);
/* After a sync: appends a byte-aligned deflate segment made elsewhere (blocks, none
   final, none referring to bytes before it); later input does not refer back into it. */
int fast_deflate_append_aligned(struct fast_deflate *d, const uint8_t *segment, size_t size);
/* Ends the stream: the last block final, padded to a byte. */
int fast_deflate_finish(struct fast_deflate *d);

#endif
