/*
 * tbr_png: PNG image I/O, MD5 and the reference-frame checksum shared by the
 * functional simulator, the timing simulator and the tools.
 *
 * Images in memory are always RGBA8: 4 bytes per pixel in R,G,B,A order,
 * rows from top to bottom, each row starting `stride` bytes after the previous
 * one (stride >= width * 4).
 *
 * All functions that can fail return 0 on success and -1 on failure; on
 * failure they write a NUL-terminated message that names the file into
 * `err` (which may be NULL; TBR_PNG_ERR_SIZE bytes is always enough room).
 */
#ifndef TBR_PNG_IO_H
#define TBR_PNG_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size of an error buffer that never truncates a message (paths included,
 * up to PATH_MAX). Smaller buffers get a truncated message. */
#define TBR_PNG_ERR_SIZE 4608

/* An RGBA8 image owned by the caller; free it with tbr_image_free(). */
typedef struct tbr_image {
    uint32_t width;
    uint32_t height;
    size_t stride;   /* bytes from one row to the next */
    uint8_t *pixels; /* height * stride bytes */
} tbr_image;

/* Allocate a zero-filled (transparent black) image with stride = width * 4.
 * Returns 0, or -1 if the size is 0, too large or memory runs out. */
int tbr_image_alloc(tbr_image *img, uint32_t width, uint32_t height);

/* Release the pixels and zero the struct; safe on a zeroed or freed image. */
void tbr_image_free(tbr_image *img);

/*
 * Write an RGBA8 image as an 8-bit RGBA, non-interlaced PNG.
 *
 * Atomic: the data goes to "PATH.tmp" which is renamed to PATH only once it
 * is completely written and closed, so readers never see a partial frame; on
 * any error the temporary file is removed and PATH is left untouched.
 *
 * Deterministic: fixed zlib level and filter choice, no tIME/tEXt/gAMA or
 * other ancillary chunks, so the same pixels give the same file bytes with the
 * same libpng/zlib (compare frames by pixels, see tbr_png_pixel_md5, not by
 * file bytes across machines).
 */
int tbr_png_write_rgba8(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                        char *err, size_t err_size);

/* Same, for a tbr_image. */
int tbr_png_write_image(const char *path, const tbr_image *img, char *err, size_t err_size);

/*
 * A rendered frame (reference or simulated, docs/verification.md "What is compared"):
 * by default written as the display shows it, an 8-bit RGB PNG (opaque), and the
 * framebuffer's alpha, when any pixel's is not 255, as an 8-bit gray PNG of the same
 * name in the subdirectory alpha/ beside it (the "alpha plane"; written first, a stale
 * one removed). With raw_alpha, one RGBA PNG with the framebuffer's alpha, as before.
 * tbr_png_read_frame gives back the framebuffer's RGBA either way.
 */
int tbr_png_write_frame(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                        int raw_alpha, char *err, size_t err_size);

/* DIR/alpha/NAME for DIR/NAME. 0, or -1 when it does not fit out_size. */
int tbr_png_alpha_plane_path(const char *path, char *out, size_t out_size);

/* Reads a frame's PNG as tbr_png_read_rgba8 does, with the alpha taken from its alpha
 * plane when there is one: the framebuffer as rendered, whichever way it was written.
 * An alpha plane of another size is an error. */
int tbr_png_read_frame(const char *path, tbr_image *out, char *err, size_t err_size);

/*
 * Read any PNG into an RGBA8 image (stride = width * 4). Conversions:
 *   - gray        -> R = G = B = gray value
 *   - palette     -> the palette entry's RGB
 *   - bit depth 1/2/4 -> scaled up to 0..255 (e.g. 1-bit 1 -> 255)
 *   - bit depth 16 -> reduced to 8 bits with rounding: v8 = round(v16 * 255 / 65535)
 *                     (16-bit precision is lost)
 *   - alpha       -> taken from the alpha channel, or from tRNS (palette
 *                    entry alpha / colour key), otherwise 255 (opaque)
 *   - interlaced images are de-interlaced
 *   - gAMA/cHRM/sRGB/iCCP are ignored: stored sample values are returned as is
 * On failure `out` is left zeroed. Errors: missing/unreadable file, not a PNG
 * (bad signature), truncated or corrupt data (with libpng's reason).
 */
int tbr_png_read_rgba8(const char *path, tbr_image *out, char *err, size_t err_size);

/* ---- MD5 (RFC 1321) ---- */

typedef struct tbr_md5_ctx {
    uint32_t state[4];
    uint64_t length;    /* bytes hashed so far */
    uint8_t buffer[64]; /* partial block */
} tbr_md5_ctx;

void tbr_md5_init(tbr_md5_ctx *ctx);
void tbr_md5_update(tbr_md5_ctx *ctx, const void *data, size_t len);
void tbr_md5_final(tbr_md5_ctx *ctx, uint8_t digest[16]);

/* One-shot MD5 of a buffer. */
void tbr_md5(const void *data, size_t len, uint8_t digest[16]);

/* Lower-case hex of a digest: 32 characters plus NUL. */
void tbr_md5_hex(const uint8_t digest[16], char hex[33]);

/*
 * The reference-frame checksum: MD5 of the decoded RGBA8 pixels, rows top to
 * bottom, width * 4 bytes per row with no padding (stride is skipped over).
 * Independent of PNG encoding details (compression, filters, chunks, bit depth
 * of equivalent 8-bit data).
 */
void tbr_rgba8_pixel_md5(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, char hex[33]);

/* The same checksum for a frame read from a PNG file (tbr_png_read_frame: with its alpha
 * plane, so a frame has one checksum however it was written). */
int tbr_png_pixel_md5(const char *path, char hex[33], char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* TBR_PNG_IO_H */
