#ifndef MERCURIAL_PNG_WRITER_H
#define MERCURIAL_PNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

/// Encodes 8-bit RGBA rows (stride width*4) as a PNG in memory with libpng's full
/// write API: `fast` uses no row filter, zlib level 1 and the RLE strategy (most of
/// a title is runs of transparent pixels); otherwise every filter and level 9.
/// Returns 1 and a malloc'd buffer in *out (free with mercurial_png_free), or 0 and
/// libpng's message. libpng's longjmp never leaves this function.
int mercurial_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int fast,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

void mercurial_png_free(uint8_t *buffer);

#endif
