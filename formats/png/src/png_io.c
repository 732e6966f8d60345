/* PNG read/write on top of libpng. libpng reports errors by longjmp; each
 * setjmp lives in a small helper whose caller owns every resource (through a
 * context struct outside the helper's frame), so no local modified after
 * setjmp is ever read after the jump and cleanup happens in one place. */
#include "tbr/png_io.h"
#include "tbr/file_input.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* zlib level 1 and the SUB filter only: reference and simulated frames are written
 * on the replay's and the simulator's critical path, where level 6 with adaptive
 * filtering cost ~15% of an instrumented replay; files are ~1.5x larger. Fixed so
 * output never depends on libpng's defaults changing. */
#define TBR_PNG_ZLIB_LEVEL 1

/* Refuse to decode images beyond these, so a hostile or corrupt header cannot
 * make us allocate gigabytes: 32768 covers any GPU render target we model,
 * and 2^28 pixels is 1 GiB of RGBA8. */
#define TBR_PNG_MAX_DIM    32768u
#define TBR_PNG_MAX_PIXELS (1ull << 28)

static void set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

int tbr_image_alloc(tbr_image *img, uint32_t width, uint32_t height)
{
    memset(img, 0, sizeof(*img));
    if (width == 0 || height == 0) return -1;
    if ((uint64_t)width * height > SIZE_MAX / 4) return -1;
    size_t stride = (size_t)width * 4;
    uint8_t *p = calloc(height, stride);
    if (!p) return -1;
    img->width = width;
    img->height = height;
    img->stride = stride;
    img->pixels = p;
    return 0;
}

void tbr_image_free(tbr_image *img)
{
    if (!img) return;
    free(img->pixels);
    memset(img, 0, sizeof(*img));
}

/* State shared between the public functions, their setjmp helpers and the
 * libpng callbacks (reached through the error/io pointers). */
struct io_ctx {
    FILE *fp;
    png_structp png;
    png_infop info;
    uint8_t *pixels;
    png_bytep *rows;
    int truncated;    /* read hit EOF early */
    char io_msg[256]; /* set by our I/O callbacks before png_error() */
    char msg[512];    /* final libpng error text */
};

static void on_png_error(png_structp png, png_const_charp msg)
{
    struct io_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof(c->msg), "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

/* Warnings (e.g. a bad CRC in an ancillary chunk, which libpng then skips)
 * never change the decoded pixels, so they are not worth printing. */
static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* ---- writing ---- */

static void write_cb(png_structp png, png_bytep data, size_t len)
{
    struct io_ctx *c = png_get_io_ptr(png);
    if (fwrite(data, 1, len, c->fp) != len) {
        snprintf(c->io_msg, sizeof(c->io_msg), "write failed: %s", strerror(errno));
        png_error(png, c->io_msg);
    }
}

static void flush_cb(png_structp png)
{
    struct io_ctx *c = png_get_io_ptr(png);
    if (fflush(c->fp) != 0) {
        snprintf(c->io_msg, sizeof(c->io_msg), "write failed: %s", strerror(errno));
        png_error(png, c->io_msg);
    }
}

/* What of the RGBA8 pixels a PNG file holds. */
enum png_layout {
    LAYOUT_RGBA,  /* all four channels */
    LAYOUT_RGB,   /* the color channels, alpha dropped */
    LAYOUT_ALPHA, /* the alpha channel as a gray image */
};

static int write_png_jmp(struct io_ctx *c, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                         enum png_layout layout)
{
    if (setjmp(png_jmpbuf(c->png))) return -1;

    png_set_write_fn(c->png, c, write_cb, flush_cb);
    const int color = layout == LAYOUT_RGBA  ? PNG_COLOR_TYPE_RGBA
                      : layout == LAYOUT_RGB ? PNG_COLOR_TYPE_RGB
                                             : PNG_COLOR_TYPE_GRAY;
    png_set_IHDR(c->png, c->info, width, height, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(c->png, TBR_PNG_ZLIB_LEVEL);
    png_set_filter(c->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(c->png, c->info);
    if (layout == LAYOUT_RGB) png_set_filler(c->png, 0, PNG_FILLER_AFTER); /* RGBX rows in, RGB out */
    if (layout == LAYOUT_ALPHA && !(c->pixels = malloc(width))) png_error(c->png, "out of memory");
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        if (layout == LAYOUT_ALPHA) {
            for (uint32_t x = 0; x < width; x++) c->pixels[x] = row[(size_t)x * 4 + 3];
            row = c->pixels;
        }
        png_write_row(c->png, row);
    }
    png_write_end(c->png, NULL);
    return 0;
}

static int write_png(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                     enum png_layout layout, char *err, size_t err_size)
{
    if (!path || !pixels) {
        set_err(err, err_size, "%s: invalid arguments (NULL %s)", path ? path : "(null)", path ? "pixels" : "path");
        return -1;
    }
    /* PNG dimensions must be 1..2^31-1; libpng's own limit is lower still. */
    if (width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu || stride / 4 < width) {
        set_err(err, err_size, "%s: invalid image geometry %ux%u, stride %zu", path, (unsigned)width, (unsigned)height,
                stride);
        return -1;
    }

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) {
        set_err(err, err_size, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);

    struct io_ctx c;
    memset(&c, 0, sizeof(c));
    int ret = -1;

    c.fp = fopen(tmp, "wb");
    if (!c.fp) {
        set_err(err, err_size, "%s: cannot create temporary file %s: %s", path, tmp, strerror(errno));
        free(tmp);
        return -1;
    }

    c.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_png_error, on_png_warning);
    if (c.png) c.info = png_create_info_struct(c.png);
    if (!c.png || !c.info) {
        set_err(err, err_size, "%s: out of memory creating libpng state", path);
        goto out;
    }

    if (write_png_jmp(&c, pixels, width, height, stride, layout) != 0) {
        set_err(err, err_size, "%s: cannot write PNG: %s", path, c.msg);
        goto out;
    }
    ret = 0;

out:
    free(c.pixels);
    if (c.png) png_destroy_write_struct(&c.png, c.info ? &c.info : NULL);
    /* fclose flushes the last bytes: its failure (e.g. ENOSPC) is a failure. */
    if (fclose(c.fp) != 0 && ret == 0) {
        set_err(err, err_size, "%s: cannot write %s: %s", path, tmp, strerror(errno));
        ret = -1;
    }
    if (ret == 0 && rename(tmp, path) != 0) {
        set_err(err, err_size, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
        ret = -1;
    }
    if (ret != 0) unlink(tmp);
    free(tmp);
    return ret;
}

int tbr_png_write_rgba8(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                        char *err, size_t err_size)
{
    return write_png(path, pixels, width, height, stride, LAYOUT_RGBA, err, err_size);
}

int tbr_png_alpha_plane_path(const char *path, char *out, size_t out_size)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path + 1) : 0;
    int n = snprintf(out, out_size, "%.*salpha/%s", (int)dir, path, path + dir);
    return n < 0 || (size_t)n >= out_size ? -1 : 0;
}

static int all_opaque(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride)
{
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++)
            if (pixels[(size_t)y * stride + (size_t)x * 4 + 3] != 255) return 0;
    return 1;
}

int tbr_png_write_frame(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                        int raw_alpha, char *err, size_t err_size)
{
    if (raw_alpha) return write_png(path, pixels, width, height, stride, LAYOUT_RGBA, err, err_size);
    if (!path || !pixels) return write_png(path, pixels, width, height, stride, LAYOUT_RGB, err, err_size);
    char plane[4200];
    if (tbr_png_alpha_plane_path(path, plane, sizeof plane)) {
        set_err(err, err_size, "%s: path too long", path);
        return -1;
    }
    /* The plane first: once the frame's PNG exists, so does its alpha (readers wait for
     * the PNG). A frame that is opaque has no plane. */
    if (!all_opaque(pixels, width, height, stride)) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s", plane);
        *strrchr(dir, '/') = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            set_err(err, err_size, "%s: cannot create: %s", dir, strerror(errno));
            return -1;
        }
        if (write_png(plane, pixels, width, height, stride, LAYOUT_ALPHA, err, err_size)) return -1;
    } else if (unlink(plane) != 0 && errno != ENOENT) {
        set_err(err, err_size, "%s: cannot remove the stale alpha plane: %s", plane, strerror(errno));
        return -1;
    }
    return write_png(path, pixels, width, height, stride, LAYOUT_RGB, err, err_size);
}

int tbr_png_write_image(const char *path, const tbr_image *img, char *err, size_t err_size)
{
    if (!img) {
        set_err(err, err_size, "%s: invalid arguments (NULL image)", path ? path : "(null)");
        return -1;
    }
    return tbr_png_write_rgba8(path, img->pixels, img->width, img->height, img->stride, err, err_size);
}

/* ---- reading ---- */

static void read_cb(png_structp png, png_bytep data, size_t len)
{
    struct io_ctx *c = png_get_io_ptr(png);
    if (fread(data, 1, len, c->fp) != len) {
        if (ferror(c->fp)) {
            snprintf(c->io_msg, sizeof(c->io_msg), "read failed: %s", strerror(errno));
        } else {
            c->truncated = 1;
            snprintf(c->io_msg, sizeof(c->io_msg), "unexpected end of file");
        }
        png_error(png, c->io_msg);
    }
}

static int read_png_jmp(struct io_ctx *c, tbr_image *out)
{
    if (setjmp(png_jmpbuf(c->png))) return -1;

    png_set_read_fn(c->png, c, read_cb);
    png_set_sig_bytes(c->png, 8);
    png_set_user_limits(c->png, TBR_PNG_MAX_DIM, TBR_PNG_MAX_DIM);
    png_read_info(c->png, c->info);

    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(c->png, c->info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    if ((uint64_t)w * h > TBR_PNG_MAX_PIXELS) {
        snprintf(c->io_msg, sizeof(c->io_msg), "image too large (%ux%u pixels)", (unsigned)w, (unsigned)h);
        png_error(c->png, c->io_msg);
    }

    /* Normalise every format to 8-bit RGBA (see the header for the rules). */
    int has_trns = png_get_valid(c->png, c->info, PNG_INFO_tRNS) != 0;
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(c->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(c->png);
    if (has_trns) png_set_tRNS_to_alpha(c->png);
    if (depth == 16) png_set_scale_16(c->png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(c->png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !has_trns) png_set_add_alpha(c->png, 0xff, PNG_FILLER_AFTER);
    (void)png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);

    if (png_get_rowbytes(c->png, c->info) != (size_t)w * 4) {
        snprintf(c->io_msg, sizeof(c->io_msg), "unsupported format (color type %d, bit depth %d)", color, depth);
        png_error(c->png, c->io_msg);
    }

    size_t stride = (size_t)w * 4;
    c->pixels = malloc((size_t)h * stride);
    c->rows = malloc((size_t)h * sizeof(*c->rows));
    if (!c->pixels || !c->rows) png_error(c->png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) c->rows[y] = c->pixels + (size_t)y * stride;
    png_read_image(c->png, c->rows);
    png_read_end(c->png, NULL);

    out->width = w;
    out->height = h;
    out->stride = stride;
    out->pixels = c->pixels;
    c->pixels = NULL; /* ownership moved to the caller */
    return 0;
}

int tbr_png_read_rgba8(const char *path, tbr_image *out, char *err, size_t err_size)
{
    if (!out) {
        set_err(err, err_size, "%s: invalid arguments (NULL image)", path ? path : "(null)");
        return -1;
    }
    memset(out, 0, sizeof(*out));
    if (!path) {
        set_err(err, err_size, "(null): invalid arguments (NULL path)");
        return -1;
    }

    struct io_ctx c;
    memset(&c, 0, sizeof(c));
    int ret = -1;

    char oerr[256];
    c.fp = tbr_fopen_input(path, oerr, sizeof oerr); /* a regular file only: a FIFO would block */
    if (!c.fp) {
        set_err(err, err_size, "%s: %s", path, oerr);
        return -1;
    }

    /* Check the signature ourselves so "not a PNG at all" gets a plain
     * message instead of libpng's. */
    uint8_t sig[8];
    size_t got = fread(sig, 1, sizeof(sig), c.fp);
    if (got != sizeof(sig)) {
        if (ferror(c.fp))
            set_err(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        else if (got == 0)
            set_err(err, err_size, "%s: not a PNG file (empty file)", path);
        else
            set_err(err, err_size, "%s: not a PNG file (only %zu bytes long)", path, got);
        goto out;
    }
    if (png_sig_cmp(sig, 0, sizeof(sig)) != 0) {
        set_err(err, err_size, "%s: not a PNG file (bad signature)", path);
        goto out;
    }

    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_png_error, on_png_warning);
    if (c.png) c.info = png_create_info_struct(c.png);
    if (!c.png || !c.info) {
        set_err(err, err_size, "%s: out of memory creating libpng state", path);
        goto out;
    }

    if (read_png_jmp(&c, out) != 0) {
        if (c.truncated)
            set_err(err, err_size, "%s: truncated PNG: %s", path, c.msg);
        else
            set_err(err, err_size, "%s: corrupt or invalid PNG: %s", path, c.msg);
        memset(out, 0, sizeof(*out));
        goto out;
    }
    ret = 0;

out:
    if (c.png) png_destroy_read_struct(&c.png, c.info ? &c.info : NULL, NULL);
    free(c.rows);
    free(c.pixels);
    fclose(c.fp);
    return ret;
}

int tbr_png_read_frame(const char *path, tbr_image *out, char *err, size_t err_size)
{
    if (tbr_png_read_rgba8(path, out, err, err_size) != 0) return -1;
    char plane[4200];
    struct stat st;
    if (tbr_png_alpha_plane_path(path, plane, sizeof plane) || stat(plane, &st) != 0) return 0; /* no plane */
    tbr_image a;
    if (tbr_png_read_rgba8(plane, &a, err, err_size) != 0) {
        tbr_image_free(out);
        return -1;
    }
    int rc = 0;
    if (a.width != out->width || a.height != out->height) {
        set_err(err, err_size, "%s: alpha plane is %ux%u, the frame %ux%u", plane, a.width, a.height, out->width,
                out->height);
        tbr_image_free(out);
        rc = -1;
    } else {
        for (uint32_t y = 0; y < a.height; y++) /* gray was read as R = G = B */
            for (uint32_t x = 0; x < a.width; x++)
                out->pixels[(size_t)y * out->stride + (size_t)x * 4 + 3] =
                    a.pixels[(size_t)y * a.stride + (size_t)x * 4];
    }
    tbr_image_free(&a);
    return rc;
}

int tbr_png_pixel_md5(const char *path, char hex[33], char *err, size_t err_size)
{
    tbr_image img;
    if (tbr_png_read_frame(path, &img, err, err_size) != 0) return -1;
    tbr_rgba8_pixel_md5(img.pixels, img.width, img.height, img.stride, hex);
    tbr_image_free(&img);
    return 0;
}
