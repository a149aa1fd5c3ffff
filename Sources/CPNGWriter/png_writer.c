#include "png_writer.h"
#include "fast_deflate.h"

#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <libdeflate.h>

/* The Adler-32 of the image data's bytes (zlib's stream check) through libdeflate, which
   sums at the processor's vector width: zlib 1.2's adler32 adds a byte at a time, and was
   a third of the time deflate took on a 1080p title's rows (PNG encode 1.93–2.05 ms →
   1.74–1.81 without it; at 4K 6.1–6.7 → 5.3–5.7). The same checksum. */
static uint32_t checksum(uint32_t adler, const uint8_t *bytes, size_t count) {
    return libdeflate_adler32(adler, bytes, count);
}

/* Where libpng's error message goes: the first member of every libpng error pointer here. */
struct error_sink {
    char *message;
    size_t message_size;
};

struct buffer {
    struct error_sink sink;
    uint8_t *data;
    size_t size, capacity;
    int failed;
};

static void on_error(png_structp png, png_const_charp text) {
    struct error_sink *e = png_get_error_ptr(png);
    if (e->message && e->message_size) {
        strncpy(e->message, text, e->message_size - 1);
        e->message[e->message_size - 1] = 0;
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png; (void)text;
}

static void on_write(png_structp png, png_bytep data, size_t length) {
    struct buffer *b = png_get_io_ptr(png);
    if (b->failed) return;
    if (b->size + length > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 65536;
        while (capacity < b->size + length) capacity *= 2;
        uint8_t *grown = realloc(b->data, capacity);
        if (!grown) { b->failed = 1; png_error(png, "out of memory"); }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, data, length);
    b->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int mercurial_png_encode(const uint8_t *const *rows, uint32_t width, uint32_t height,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    return mercurial_png_encode_format(rows, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, 9, out, out_size,
                                       message, message_size);
}

int mercurial_png_encode_format(const uint8_t *const *rows, uint32_t width, uint32_t height, int bit_depth,
                                int color_type, int level, uint8_t **out, size_t *out_size, char *message,
                                size_t message_size) {
    struct buffer b = {0};
    b.sink.message = message;
    b.sink.message_size = message_size;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &b, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (message && message_size) strncpy(message, "cannot start libpng", message_size - 1);
        png_destroy_write_struct(&png, NULL);
        return 0;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(b.data);
        return 0;
    }

    png_set_write_fn(png, &b, on_write, on_flush);
    png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
    png_set_compression_level(png, level);
    png_write_info(png, info);
    png_write_image(png, (png_bytepp)rows);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = b.data;
    *out_size = b.size;
    return 1;
}

void mercurial_png_free(uint8_t *buffer) { free(buffer); }

/* PNG's filter type 4: `row` minus its Paeth predictions into out[0..<n] (`up`: the row above, NULL for the
   first), `bpp` bytes a pixel. The first pixel, whose left and corner are 0, is apart, so that the loop over
   the rest has no test in it and the compiler vectorises it (the predictor is selects);
   it was a fifth of an APNG frame's time, byte by byte. */
static void paeth_row(const uint8_t *restrict row, const uint8_t *restrict up, size_t n, size_t bpp,
                      uint8_t *restrict out) {
    size_t head = n < bpp ? n : bpp;
    if (!up) {   /* no row above: the predictor is the left byte */
        for (size_t i = 0; i < head; i++) out[i] = row[i];
        for (size_t i = head; i < n; i++) out[i] = (uint8_t)(row[i] - row[i - bpp]);
        return;
    }
    for (size_t i = 0; i < head; i++) out[i] = (uint8_t)(row[i] - up[i]);   /* paeth(0, b, 0) = b */
    for (size_t i = head; i < n; i++) {
        int a = row[i - bpp], b = up[i], c = up[i - bpp];
        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        int prediction = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
        out[i] = (uint8_t)(row[i] - prediction);
    }
}

/* The rows as the image data has them: 8-bit RGBA as given (4 channels), or RGB (3: an
   image with no transparent pixel written without alpha) packed from the RGBA rows a row at
   a time into one of two buffers, so that a row and the one above it are both at hand and
   memory does not grow with the band. Rows are still told apart by their RGBA pointers. */
struct row_source {
    const uint8_t *const *rows;
    size_t width, bpp, row_bytes;   /* row_bytes = width * bpp */
    uint8_t *packed[2];
    const uint8_t *packed_from[2];
    int next;
};

static int open_rows(struct row_source *s, const uint8_t *const *rows, size_t width, int channels) {
    memset(s, 0, sizeof *s);
    s->rows = rows;
    s->width = width;
    s->bpp = channels == 3 ? 3 : 4;
    s->row_bytes = width * s->bpp;
    if (s->bpp == 4) return 1;
    s->packed[0] = malloc(s->row_bytes ? s->row_bytes : 1);
    s->packed[1] = malloc(s->row_bytes ? s->row_bytes : 1);
    return s->packed[0] && s->packed[1];
}

static void close_rows(struct row_source *s) {
    free(s->packed[0]);
    free(s->packed[1]);
}

/* Row y's bytes: the row itself, or its RGB packed (the last two packed are kept; a
   caller holds at most the row above and the row, and the buffer packed into is never
   the one packed just before). */
static const uint8_t *row_bytes_at(struct row_source *s, uint32_t y) {
    const uint8_t *row = s->rows[y];
    if (s->bpp == 4) return row;
    for (int k = 0; k < 2; k++)
        if (s->packed_from[k] == row) return s->packed[k];
    int k = s->next;
    s->next ^= 1;
    uint8_t *out = s->packed[k];
    for (size_t x = 0; x < s->width; x++) {
        out[3 * x] = row[4 * x];
        out[3 * x + 1] = row[4 * x + 1];
        out[3 * x + 2] = row[4 * x + 2];
    }
    s->packed_from[k] = row;
    return out;
}

/* Output of a deflate band that grows as needed; z->next_out follows it. */
static int ensure_output(z_stream *z, uint8_t **buffer, size_t *capacity, size_t extra) {
    if (z->avail_out >= extra) return 1;
    size_t used = *capacity - z->avail_out, grown_capacity = *capacity * 2 + extra;
    uint8_t *grown = realloc(*buffer, grown_capacity);
    if (!grown) return 0;
    *buffer = grown;
    *capacity = grown_capacity;
    z->next_out = grown + used;
    z->avail_out = (uInt)(grown_capacity - used);
    return 1;
}

/* A raw deflate stream (no zlib header: the caller writes its own) at `level`, and its
   output buffer of *capacity bytes (0: deflate's bound for `raw` input bytes, plus a
   little); NULL, with the stream ended, if either cannot be had. */
static uint8_t *begin_deflate(z_stream *z, int level, int mem_level, int strategy, size_t raw, size_t *capacity) {
    memset(z, 0, sizeof *z);
    if (deflateInit2(z, level, Z_DEFLATED, -15, mem_level, strategy) != Z_OK) return NULL;
    if (*capacity == 0) *capacity = deflateBound(z, raw) + 64;
    uint8_t *buffer = malloc(*capacity);
    if (!buffer) { deflateEnd(z); return NULL; }
    z->next_out = buffer;
    z->avail_out = (uInt)*capacity;
    return buffer;
}

/* How many identical rows (one row pointer repeated, as the empty canvas around a
   title is) are deflated once and then copied: zlib's RLE pass still reads every
   byte of an empty row, which was two thirds of a 1080p title's instructions. */
enum { REPEAT_BLOCK = 16 };

/* `count` copies of `row` after filter byte `filter`, as a deflate segment of its own: a
   fresh stream (no reference to earlier bytes) ending in a sync flush (byte-aligned, not
   final), so it may be spliced into any stream just after a full flush. */
static uint8_t *repeated_row_segment(const uint8_t *row, size_t row_bytes, int level, int count, uint8_t filter,
                                     size_t *size) {
    z_stream z;
    size_t capacity = 0;
    uint8_t *buffer = begin_deflate(&z, level, 8, Z_RLE, (row_bytes + 1) * (size_t)count, &capacity);
    if (!buffer) return NULL;
    for (int k = 0; k < count; k++) {
        z.next_in = (Bytef *)&filter;
        z.avail_in = 1;
        if (deflate(&z, Z_NO_FLUSH) != Z_OK) goto fail;
        z.next_in = (Bytef *)row;
        z.avail_in = (uInt)row_bytes;
        if (deflate(&z, k + 1 == count ? Z_SYNC_FLUSH : Z_NO_FLUSH) != Z_OK) goto fail;
    }
    *size = capacity - z.avail_out;
    deflateEnd(&z);
    return buffer;
fail:
    deflateEnd(&z);
    free(buffer);
    return NULL;
}

/* Gives deflate all of `bytes`. With too little output space deflate returns before it
   has read its input (zlib may emit many rows' pending blocks at once), so room is
   made until none is left unread; taking one call as enough lost bytes from the
   stream. */
static int deflate_input(z_stream *z, uint8_t **buffer, size_t *capacity, const uint8_t *bytes, size_t count) {
    z->next_in = (Bytef *)bytes;
    z->avail_in = (uInt)count;
    while (z->avail_in > 0) {
        if (!ensure_output(z, buffer, capacity, count + 1024)) return 0;
        if (deflate(z, Z_NO_FLUSH) != Z_OK) return 0;
    }
    return 1;
}

/* Ends a band: the last with Z_FINISH, the others with a sync flush (byte-aligned, so
   that the next band's deflate output may follow), made complete as the splice is. */
static int end_band(z_stream *z, uint8_t **buffer, size_t *capacity, int last) {
    if (!ensure_output(z, buffer, capacity, 1024)) return 0;
    z->avail_in = 0;
    for (;;) {
        int status = deflate(z, last ? Z_FINISH : Z_SYNC_FLUSH);
        if (status == Z_STREAM_END || (!last && (status == Z_OK || status == Z_BUF_ERROR) && z->avail_out > 0)) return 1;
        if (status != Z_OK && status != Z_BUF_ERROR) return 0;
        if (!ensure_output(z, buffer, capacity, *capacity)) return 0;
    }
}

/* Where a band's deflate stream goes: fast_deflate's for the RLE strategy at level 1 (the
   same kind of stream, in a quarter of zlib's instructions), else zlib's and its growing
   buffer. */
struct band_out {
    int fast;
    struct fast_deflate f;
    z_stream z;
    uint8_t *buffer;
    size_t capacity;
};

/* Opens `o` at `level` with `strategy` (zlib: `mem_level`, output starting at `capacity`
   bytes, 0 for deflate's bound for `raw` input bytes). 1, or 0 with nothing left to free. */
static int out_begin(struct band_out *o, int level, int mem_level, int strategy, size_t capacity, size_t raw) {
    memset(o, 0, sizeof *o);
    o->fast = level == 1 && strategy == Z_RLE;
    if (o->fast) {
        if (fast_deflate_begin(&o->f)) return 1;
        fast_deflate_end(&o->f);
        return 0;
    }
    o->capacity = capacity;
    o->buffer = begin_deflate(&o->z, level, mem_level, strategy, raw, &o->capacity);
    return o->buffer != NULL;
}

static int out_write(struct band_out *o, const uint8_t *bytes, size_t count) {
    return o->fast ? fast_deflate_write(&o->f, bytes, count) : deflate_input(&o->z, &o->buffer, &o->capacity, bytes, count);
}

/* Ends the block so far, byte-aligned, with nothing after referring back (before a splice).
   zlib's full flush is complete only when it leaves output space unused: zlib may hold
   tens of kilobytes of pending blocks, and with too little room it returns early with the
   rest still inside, to come out after the splice (a corrupt stream). */
static int out_full_flush(struct band_out *o) {
    if (o->fast) return fast_deflate_sync(&o->f);
    z_stream *z = &o->z;
    z->avail_in = 0;
    for (;;) {
        if (!ensure_output(z, &o->buffer, &o->capacity, 4096)) return 0;
        int status = deflate(z, Z_FULL_FLUSH);
        if (status != Z_OK && status != Z_BUF_ERROR) return 0;
        if (z->avail_out > 0) return 1;
    }
}

/* Appends a byte-aligned segment after a full flush. */
static int out_splice(struct band_out *o, const uint8_t *bytes, size_t size) {
    if (o->fast) return fast_deflate_append_aligned(&o->f, bytes, size);
    z_stream *z = &o->z;
    if (!ensure_output(z, &o->buffer, &o->capacity, size)) return 0;
    memcpy(z->next_out, bytes, size);
    z->next_out += size;
    z->avail_out -= (uInt)size;
    return 1;
}

/* Closes `o`: when `ok`, ends the band (the last final, the others byte-aligned so that the
   next band's stream may follow) and hands its bytes to *out (malloc'd) and *out_size.
   Frees the rest either way; returns whether the band was ended. */
static int out_close(struct band_out *o, int ok, int last, uint8_t **out, size_t *out_size) {
    if (o->fast) {
        ok = ok && (last ? fast_deflate_finish(&o->f) : fast_deflate_sync(&o->f));
        if (ok) {
            *out = o->f.out;
            *out_size = o->f.size;
            o->f.out = NULL;
        }
        fast_deflate_end(&o->f);
        return ok;
    }
    ok = ok && end_band(&o->z, &o->buffer, &o->capacity, last);
    if (ok) {
        *out = o->buffer;
        *out_size = o->capacity - o->z.avail_out;
    } else {
        free(o->buffer);
    }
    deflateEnd(&o->z);
    return ok;
}

/* Segments of a repeated row (REPEAT_BLOCK rows, and one row), kept while they are
   among the last SEGMENT_CACHE made: every band of a canvas and every title of a
   batch has the same fill row. Each row's bytes are compared in full; one lock. */
struct row_segment {
    uint8_t *row;              /* a copy of the row */
    size_t row_bytes;
    int level, count;
    uint8_t filter;            /* the filter byte before each copy */
    uint8_t *bytes;
    size_t size;
    uint32_t adler;            /* of the `count` rows, filter bytes included */
};
enum { SEGMENT_CACHE = 8 };
static struct row_segment segment_cache[SEGMENT_CACHE];
static int segment_next;
static pthread_mutex_t segment_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct row_segment *find_segment(const uint8_t *row, size_t row_bytes, int level, int count,
                                              uint8_t filter) {
    for (int i = 0; i < SEGMENT_CACHE; i++) {
        const struct row_segment *e = &segment_cache[i];
        if (e->bytes && e->row_bytes == row_bytes && e->level == level && e->count == count && e->filter == filter
            && memcmp(e->row, row, row_bytes) == 0) return e;
    }
    return NULL;
}

/* Copies the segment of `count` copies of `row` (from the cache, or made and kept)
   to the end of the output; *segment_adler receives its Adler-32. The copy is made
   under the lock, so a slot reused by another band is never read half-replaced. */
static int splice_row_segment(struct band_out *o, const uint8_t *row, size_t row_bytes,
                              int level, int count, uint8_t filter, uint32_t row_adler, uint32_t *segment_adler) {
    pthread_mutex_lock(&segment_lock);
    const struct row_segment *e = find_segment(row, row_bytes, level, count, filter);
    if (!e) {
        pthread_mutex_unlock(&segment_lock);
        struct row_segment made = { .row_bytes = row_bytes, .level = level, .count = count, .filter = filter };
        made.row = malloc(row_bytes);
        made.bytes = made.row ? repeated_row_segment(row, row_bytes, level, count, filter, &made.size) : NULL;
        if (!made.bytes) { free(made.row); return 0; }
        memcpy(made.row, row, row_bytes);
        made.adler = adler32(0, NULL, 0);
        for (int k = 0; k < count; k++) made.adler = adler32_combine(made.adler, row_adler, (z_off_t)(row_bytes + 1));
        pthread_mutex_lock(&segment_lock);
        struct row_segment *slot = &segment_cache[segment_next];
        segment_next = (segment_next + 1) % SEGMENT_CACHE;
        free(slot->row);
        free(slot->bytes);
        *slot = made;
        e = slot;
    }
    int ok = out_splice(o, e->bytes, e->size);
    if (ok) *segment_adler = e->adler;
    pthread_mutex_unlock(&segment_lock);
    return ok;
}

/* Rows at `level` with the RLE strategy, unfiltered or with `up` PNG's Up filter (each
   byte minus the one above it). A run of one repeated row pointer (the empty canvas
   around a title) is spliced in from cached segments, REPEAT_BLOCK rows and then one row
   at a time: unfiltered, the row itself; with `up`, the run's first row is filtered as
   any row and the rest are rows of zeros (filter byte 2), the same segment whatever the
   fill. Unfiltered, an opaque background's 4-byte pixels give the RLE strategy no run
   to find: a 1200×630 card on a plain background was 885 KB unfiltered and 35 KB with
   the Up filter. `scratch` holds row_bytes + 1 bytes, `zeros` row_bytes zero bytes. */
static int rle_rows(struct band_out *o, struct row_source *source,
                    uint32_t row_begin, uint32_t row_end, int level, int up, uint8_t *scratch,
                    const uint8_t *zeros, uint32_t *adler) {
    const uint8_t *const *rows = source->rows;
    size_t row_bytes = source->row_bytes;
    static const uint8_t filter_none = 0, filter_up = 2;
    const uint8_t *previous = NULL;
    uint32_t previous_adler = 0;
    uint32_t zeros_adler = up ? checksum(checksum(1, &filter_up, 1), zeros, row_bytes) : 0;
    uint32_t a = adler32(0, NULL, 0);
    for (uint32_t y = row_begin; y < row_end;) {
        const uint8_t *row = rows[y], *bytes = row_bytes_at(source, y);
        if (!up && row != previous) {
            previous_adler = checksum(checksum(1, &filter_none, 1), bytes, row_bytes);
            previous = row;
        }
        uint32_t run = 1;
        while (y + run < row_end && rows[y + run] == row) run++;
        /* With `up`, a run is spliced from the row after its first: the first is filtered
           against whatever is above it, as any row. */
        if (run >= 2 && (!up || (y > 0 && rows[y - 1] == row))) {
            /* A full flush empties the window, so nothing after the splice refers back across it. */
            if (!out_full_flush(o)) return 0;
            while (run > 0) {
                int count = run >= REPEAT_BLOCK ? REPEAT_BLOCK : 1;
                uint32_t segment_adler;
                if (!splice_row_segment(o, up ? zeros : bytes, row_bytes, level, count,
                                        up ? filter_up : filter_none, up ? zeros_adler : previous_adler,
                                        &segment_adler)) return 0;
                a = adler32_combine(a, segment_adler, (z_off_t)((row_bytes + 1) * (size_t)count));
                y += (uint32_t)count;
                run -= (uint32_t)count;
            }
            continue;
        }
        if (up && y > 0) {
            const uint8_t *above = row_bytes_at(source, y - 1);   /* never packed over `bytes` */
            scratch[0] = filter_up;
            for (size_t i = 0; i < row_bytes; i++) scratch[i + 1] = (uint8_t)(bytes[i] - above[i]);
            a = adler32_combine(a, checksum(1, scratch, row_bytes + 1), (z_off_t)(row_bytes + 1));
            if (!out_write(o, scratch, row_bytes + 1)) return 0;
        } else {
            if (up) previous_adler = checksum(checksum(1, &filter_none, 1), bytes, row_bytes);
            a = adler32_combine(a, previous_adler, (z_off_t)(row_bytes + 1));
            if (!out_write(o, &filter_none, 1) || !out_write(o, bytes, row_bytes)) return 0;
        }
        y++;
    }
    *adler = a;
    return 1;
}

/* Row `row` filtered with PNG filter `type` (1 sub, 2 up, 3 average, 4 Paeth) into
   out[1...], out[0] = type; `up` is the row above (zeros for the first row). Returns the
   sum of the filtered bytes taken as signed, libpng's measure of how well a row will
   deflate (the smallest sum wins). Each filter is its own loop so that the compiler
   vectorises the first three. */
static uint64_t filter_row(int type, const uint8_t *row, const uint8_t *up, size_t n, size_t bpp, uint8_t *out) {
    uint8_t *o = out + 1;
    out[0] = (uint8_t)type;
    switch (type) {
    case 1:
        for (size_t i = 0; i < bpp && i < n; i++) o[i] = row[i];
        for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2:
        for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(row[i] - up[i]);
        break;
    case 3:
        for (size_t i = 0; i < bpp && i < n; i++) o[i] = (uint8_t)(row[i] - (up[i] >> 1));
        for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(row[i] - ((row[i - bpp] + up[i]) >> 1));
        break;
    default:
        paeth_row(row, up, n, bpp, o);
        break;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += o[i] < 128 ? o[i] : 256 - o[i];
    return sum;
}

/* Rows with PNG's adaptive filtering: each row takes, of the five filters, the one whose
   bytes have the smallest signed sum (libpng's heuristic); a row repeated from the one
   above (the same pointer) is Up-filtered to zeros at once. */
static int adaptive_rows(struct band_out *o, struct row_source *source,
                         uint32_t row_begin, uint32_t row_end, uint32_t *adler) {
    const uint8_t *const *rows = source->rows;
    size_t row_bytes = source->row_bytes;
    /* Five filtered candidates (the best is kept in place), and a row of zeros for "above" the first row. */
    uint8_t *candidates = malloc((row_bytes + 1) * 6), *zeros = calloc(row_bytes, 1);
    int ok = candidates && zeros;
    uint32_t a = adler32(0, NULL, 0);
    for (uint32_t y = row_begin; ok && y < row_end; y++) {
        uint8_t *best = candidates;
        if (y > 0 && rows[y] == rows[y - 1]) {
            best[0] = 2;
            memset(best + 1, 0, row_bytes);
        } else {
            const uint8_t *up = y > 0 ? row_bytes_at(source, y - 1) : zeros, *row = row_bytes_at(source, y);
            best[0] = 0;
            memcpy(best + 1, row, row_bytes);
            uint64_t least = 0;
            for (size_t i = 0; i < row_bytes; i++) least += row[i] < 128 ? row[i] : 256 - row[i];
            for (int type = 1; type <= 4 && least > 0; type++) {
                uint8_t *candidate = candidates + (row_bytes + 1) * (size_t)type;
                uint64_t sum = filter_row(type, row, up, row_bytes, source->bpp, candidate);
                if (sum < least) { least = sum; best = candidate; }
            }
        }
        a = checksum(a, best, row_bytes + 1);
        ok = out_write(o, best, row_bytes + 1);
    }
    free(candidates);
    free(zeros);
    *adler = a;
    return ok;
}

/* A band deflated unfiltered or with the Up filter (the RLE strategy, for speed) or
   adaptively filtered (zlib's default strategy, for size) at `level`, into output that
   starts at 64 KiB and grows; *adler receives the Adler-32 of the band's filtered bytes. */
static int deflate_band(struct row_source *source, uint32_t row_begin, uint32_t row_end,
                        int last, int level, int filter, uint8_t **out, size_t *out_size, uint32_t *adler) {
    size_t row_bytes = source->row_bytes;
    int rle = filter == MERCURIAL_FILTER_NONE || filter == MERCURIAL_FILTER_UP;
    int up = filter == MERCURIAL_FILTER_UP;
    uint8_t *scratch = up ? malloc(row_bytes + 1) : NULL, *zeros = up ? calloc(row_bytes ? row_bytes : 1, 1) : NULL;
    struct band_out o;
    int ok = (!up || (scratch && zeros)) && out_begin(&o, level, rle ? 8 : 9, rle ? Z_RLE : Z_DEFAULT_STRATEGY, 65536, 0);
    uint32_t a = 0;
    if (ok) {
        ok = rle ? rle_rows(&o, source, row_begin, row_end, level, up, scratch, zeros, &a)
                 : adaptive_rows(&o, source, row_begin, row_end, &a);
        ok = out_close(&o, ok, last, out, out_size);
    }
    free(scratch);
    free(zeros);
    if (ok) *adler = a;
    return ok;
}

/* Rows Paeth-filtered (every row, the row above the band counting, so that a band's
   filtered bytes do not depend on where the bands are cut), at `level` with the
   default or (`rle`) the RLE strategy. */
static int paeth_band(struct row_source *source, uint32_t row_begin, uint32_t row_end, int last, int level, int rle,
                      uint8_t **out, size_t *out_size, uint32_t *adler) {
    size_t row_bytes = source->row_bytes;
    uint8_t *filtered = malloc(row_bytes + 1);
    struct band_out o;
    int ok = filtered && out_begin(&o, level, 8, rle ? Z_RLE : Z_DEFAULT_STRATEGY, 0,
                                   (row_bytes + 1) * (row_end - row_begin));
    if (!ok) { free(filtered); return 0; }
    uint32_t a = adler32(0, NULL, 0);
    for (uint32_t y = row_begin; ok && y < row_end; y++) {
        const uint8_t *up = y > 0 ? row_bytes_at(source, y - 1) : NULL, *row = row_bytes_at(source, y);
        filtered[0] = 4;
        paeth_row(row, up, row_bytes, source->bpp, filtered + 1);
        a = adler32_combine(a, checksum(1, filtered, row_bytes + 1), (z_off_t)(row_bytes + 1));
        ok = out_write(&o, filtered, row_bytes + 1);
    }
    free(filtered);
    ok = out_close(&o, ok, last, out, out_size);
    if (ok) *adler = a;
    return ok;
}

int mercurial_deflate_filtered_rows(const uint8_t *const *rows, uint32_t width, int channels, uint32_t row_begin,
                                    uint32_t row_end, int last, int level, int filter, uint8_t **out, size_t *out_size,
                                    uint32_t *adler, size_t *raw_size) {
    struct row_source source;
    if (!open_rows(&source, rows, width, channels)) { close_rows(&source); return 0; }
    *raw_size = (source.row_bytes + 1) * (row_end - row_begin);
    int ok = filter == MERCURIAL_FILTER_PAETH || filter == MERCURIAL_FILTER_PAETH_RLE
        ? paeth_band(&source, row_begin, row_end, last, level, filter == MERCURIAL_FILTER_PAETH_RLE, out, out_size, adler)
        : deflate_band(&source, row_begin, row_end, last, level, filter, out, out_size, adler);
    close_rows(&source);
    return ok;
}

uint32_t mercurial_adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_length);
}

uint32_t mercurial_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    return (uint32_t)crc32(crc, bytes, (uInt)length);
}

int mercurial_zlib_compress(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_size) {
    uLongf bound = compressBound((uLong)length);
    uint8_t *buffer = malloc(bound);
    if (!buffer) return 0;
    if (compress2(buffer, &bound, bytes, (uLong)length, 9) != Z_OK) { free(buffer); return 0; }
    *out = buffer;
    *out_size = bound;
    return 1;
}

int mercurial_zlib_uncompress(const uint8_t *bytes, size_t length, size_t limit, uint8_t **out, size_t *out_size) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return 0;
    size_t capacity = length * 4 + 1024;
    if (capacity > limit + 1) capacity = limit + 1;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) { inflateEnd(&z); return 0; }
    z.next_in = (Bytef *)bytes;
    z.avail_in = (uInt)length;
    int status;
    do {
        if (z.total_out == capacity) {
            if (capacity > limit) break;   /* more than the limit: refuse */
            size_t grown = capacity * 2 > limit + 1 ? limit + 1 : capacity * 2;
            uint8_t *bigger = realloc(buffer, grown);
            if (!bigger) break;
            buffer = bigger;
            capacity = grown;
        }
        z.next_out = buffer + z.total_out;
        z.avail_out = (uInt)(capacity - z.total_out);
        status = inflate(&z, Z_NO_FLUSH);
    } while (status == Z_OK);
    size_t produced = z.total_out;
    inflateEnd(&z);
    if (status != Z_STREAM_END || produced > limit) { free(buffer); return 0; }
    *out = buffer;
    *out_size = produced;
    return 1;
}

/* MARK: Reading row by row */

struct mercurial_png_rows {
    struct error_sink sink;
    png_structp png;
    png_infop info;
    const uint8_t *bytes;
    size_t size, offset;
};

static void on_read(png_structp png, png_bytep data, size_t length) {
    struct mercurial_png_rows *r = png_get_io_ptr(png);
    if (length > r->size - r->offset) png_error(png, "unexpected end of file");
    memcpy(data, r->bytes + r->offset, length);
    r->offset += length;
}

void mercurial_png_rows_close(mercurial_png_rows *r) {
    if (!r) return;
    png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
    free(r);
}

mercurial_png_rows *mercurial_png_rows_open(const uint8_t *bytes, size_t size, uint32_t *width, uint32_t *height,
                                            int *interlaced, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    *interlaced = 0;
    struct mercurial_png_rows *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->bytes = bytes;
    r->size = size;
    r->sink.message = message;
    r->sink.message_size = message_size;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_error, on_warning);
    r->info = r->png ? png_create_info_struct(r->png) : NULL;
    if (!r->png || !r->info) {
        if (message && message_size) strncpy(message, "cannot start libpng", message_size - 1);
        mercurial_png_rows_close(r);
        return NULL;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        mercurial_png_rows_close(r);
        return NULL;
    }
    png_set_read_fn(r->png, r, on_read);
    /* libpng's own limit; the canvas limit is checked by the caller, with its message. */
    png_set_user_limits(r->png, 1000000, 1000000);
    png_set_chunk_cache_max(r->png, 128);
    png_set_chunk_malloc_max(r->png, 8 * 1024 * 1024);
    png_read_info(r->png, r->info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, colour = 0, interlace = 0;
    png_get_IHDR(r->png, r->info, &w, &h, &depth, &colour, &interlace, NULL, NULL);
    *width = w;
    *height = h;
    if (w > 16384 || h > 16384 || (uint64_t)w * h > 268435456u) {
        *interlaced = 2;
        mercurial_png_rows_close(r);
        return NULL;
    }
    if (interlace != PNG_INTERLACE_NONE) {
        *interlaced = 1;
        mercurial_png_rows_close(r);
        return NULL;
    }
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
    if (png_get_valid(r->png, r->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r->png);
    if (depth == 16) png_set_scale_16(r->png);
    if (colour == PNG_COLOR_TYPE_GRAY || colour == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(r->png);
    if (!(colour & PNG_COLOR_MASK_ALPHA) && !png_get_valid(r->png, r->info, PNG_INFO_tRNS))
        png_set_filler(r->png, 0xff, PNG_FILLER_AFTER);
    png_read_update_info(r->png, r->info);
    if (png_get_rowbytes(r->png, r->info) != (size_t)w * 4) png_error(r->png, "unexpected row layout");
    *width = w;
    *height = h;
    return r;
}

int mercurial_png_rows_read(mercurial_png_rows *r, uint8_t *row, char *message, size_t message_size) {
    r->sink.message = message;
    r->sink.message_size = message_size;
    if (setjmp(png_jmpbuf(r->png))) return 0;
    png_read_row(r->png, row, NULL);
    return 1;
}
