#ifndef MERCURIAL_PNG_WRITER_H
#define MERCURIAL_PNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

/// Encodes 8-bit RGBA rows (`rows[y]` points at row y, width*4 bytes) as a PNG in
/// memory with libpng's full write API, every row filter and zlib level 9 (the
/// `small` compression; `fast` is deflated in parallel with mercurial_deflate_filtered_rows).
/// Returns 1 and a malloc'd buffer in *out (free with mercurial_png_free), or 0 and
/// libpng's message. libpng's longjmp never leaves this function.
int mercurial_png_encode(const uint8_t *const *rows, uint32_t width, uint32_t height,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// The same for any bit depth (8 or 16; 16-bit samples big-endian, as PNG stores
/// them) and colour type (0 grey, 2 RGB, 6 RGBA) at zlib `level`.
int mercurial_png_encode_format(const uint8_t *const *rows, uint32_t width, uint32_t height, int bit_depth,
                                int color_type, int level, uint8_t **out, size_t *out_size, char *message,
                                size_t message_size);

void mercurial_png_free(uint8_t *buffer);

/// zlib streams (compress2 at level 9; inflate refusing more than `limit` bytes of
/// output). Return 1 and a malloc'd buffer (free with mercurial_png_free), or 0.
int mercurial_zlib_compress(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_size);
int mercurial_zlib_uncompress(const uint8_t *bytes, size_t length, size_t limit, uint8_t **out, size_t *out_size);

#endif

/// One band of a PNG's image data for parallel compression: rows [row_begin,
/// row_end) of 8-bit RGBA (`rows[y]` points at row y; see `channels` below), deflated as raw deflate at
/// `level`; the band ends on a byte boundary (Z_SYNC_FLUSH) unless it is the last
/// (Z_FINISH), so that bands compressed separately concatenate into one valid
/// deflate stream. With MERCURIAL_FILTER_NONE each row gets filter byte 0 (none) and
/// the RLE strategy, and a run of one repeated row pointer (the empty canvas
/// around a title) is deflated once per block and copied; MERCURIAL_FILTER_UP is the
/// same with PNG's Up filter (type 2) on every row but the image's first, a run's rows
/// after its first being copied in as zero rows. With MERCURIAL_FILTER_PAETH
/// every row is filtered with PNG's Paeth filter (type 4) and deflated with zlib's
/// default strategy, for pictures (gradients, shaded metal); with
/// MERCURIAL_FILTER_PAETH_RLE the same filter with zlib's RLE strategy (a full frame of
/// metal over a lit background at level 1: smaller than the default strategy's at
/// level 4 and in half the time); with
/// MERCURIAL_FILTER_ADAPTIVE each row takes the filter libpng's heuristic picks. The RLE
/// strategy at level 1 (MERCURIAL_FILTER_NONE, _UP and _PAETH_RLE) is made by fast_deflate.h's
/// encoder, not zlib, in a fifth of the time: the same kind of stream. *adler receives the Adler-32
/// of the band's uncompressed bytes. Returns 1, or 0 on failure.
/// `filter`: one of these.
enum { MERCURIAL_FILTER_NONE = 0, MERCURIAL_FILTER_PAETH = 1, MERCURIAL_FILTER_ADAPTIVE = 2, MERCURIAL_FILTER_UP = 3,
       MERCURIAL_FILTER_PAETH_RLE = 4 };
/// `channels`: 4 writes the RGBA rows as they are; 3 writes their RGB (PNG colour type 2,
/// for an image with no transparent pixel), packed a row at a time.
int mercurial_deflate_filtered_rows(const uint8_t *const *rows, uint32_t width, int channels, uint32_t row_begin,
                                    uint32_t row_end, int last, int level, int filter, uint8_t **out, size_t *out_size,
                                    uint32_t *adler, size_t *raw_size);

/// zlib's adler32_combine and crc32, for assembling the bands.
uint32_t mercurial_adler32_combine(uint32_t first, uint32_t second, size_t second_length);
uint32_t mercurial_crc32(uint32_t crc, const uint8_t *bytes, size_t length);

/// A PNG read one row at a time with libpng's row API, as 8-bit RGBA (palettes,
/// grey, low bit depths and tRNS expanded, 16-bit scaled to 8), so that a large
/// image never needs to be whole in memory. libpng's longjmp never leaves these
/// functions; its size limits (16384 px a side) and chunk limits are set.
typedef struct mercurial_png_rows mercurial_png_rows;

/// Opens the PNG in `bytes` (which must outlive the reader). Returns NULL and a
/// message on failure. *interlaced is set when the file is interlaced (Adam7),
/// which cannot be read row by row: the reader is then closed and NULL returned
/// with an empty message. A file over 16384 px a side or 268 M pixels is not
/// decoded: *interlaced is 2, *width and *height its size, and NULL is returned.
mercurial_png_rows *mercurial_png_rows_open(const uint8_t *bytes, size_t size, uint32_t *width, uint32_t *height,
                                            int *interlaced, char *message, size_t message_size);

/// Reads the next row (width*4 bytes) into `row`. Returns 1, or 0 and a message.
int mercurial_png_rows_read(mercurial_png_rows *reader, uint8_t *row, char *message, size_t message_size);

void mercurial_png_rows_close(mercurial_png_rows *reader);
