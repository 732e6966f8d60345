/* Unit tests of tbr_png: MD5 vectors, PNG round trip, atomic writes, error
 * reporting and the format conversions of the reader.
 * Usage: test_png_io SUBTEST WORKDIR   (one ctest entry per subtest) */
#include "tbr/png_io.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static const char *workdir;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static char *wpath(const char *name)
{
    static char buf[8][4096];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof(buf[0]), "%s/%s", workdir, name);
    return p;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

/* ---- MD5 ---- */

static void md5_str_hex(const char *s, char hex[33])
{
    uint8_t d[16];
    tbr_md5(s, strlen(s), d);
    tbr_md5_hex(d, hex);
}

static void test_md5(void)
{
    /* RFC 1321, appendix A.5 test suite. */
    static const char *vec[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"1234567890123456789012345678901234567890123456789012345678901234567"
         "8901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
        char hex[33];
        md5_str_hex(vec[i][0], hex);
        if (strcmp(hex, vec[i][1]) != 0) fprintf(stderr, "md5(\"%s\") = %s, want %s\n", vec[i][0], hex, vec[i][1]);
        CHECK(strcmp(hex, vec[i][1]) == 0);

        /* Byte-at-a-time updates must give the same digest (exercises the
         * partial-block buffering). */
        tbr_md5_ctx ctx;
        uint8_t d[16];
        tbr_md5_init(&ctx);
        for (const char *p = vec[i][0]; *p; p++) tbr_md5_update(&ctx, p, 1);
        tbr_md5_final(&ctx, d);
        tbr_md5_hex(d, hex);
        CHECK(strcmp(hex, vec[i][1]) == 0);
    }

    /* Lengths around the 56/64-byte padding boundaries, split unevenly. */
    char buf[200];
    for (size_t i = 0; i < sizeof(buf); i++) buf[i] = (char)('A' + i % 23);
    for (size_t n = 50; n < 140; n++) {
        uint8_t d1[16], d2[16];
        tbr_md5(buf, n, d1);
        tbr_md5_ctx ctx;
        tbr_md5_init(&ctx);
        tbr_md5_update(&ctx, buf, n / 3);
        tbr_md5_update(&ctx, buf + n / 3, n - n / 3);
        tbr_md5_final(&ctx, d2);
        CHECK(memcmp(d1, d2, 16) == 0);
    }
    /* 1,000,000 x 'a' (widely published value, FIPS-style long test). */
    {
        tbr_md5_ctx ctx;
        uint8_t d[16];
        char hex[33];
        char chunk[1000];
        memset(chunk, 'a', sizeof(chunk));
        tbr_md5_init(&ctx);
        for (int i = 0; i < 1000; i++) tbr_md5_update(&ctx, chunk, sizeof(chunk));
        tbr_md5_final(&ctx, d);
        tbr_md5_hex(d, hex);
        CHECK(strcmp(hex, "7707d6ae4e027c70eea2a935c2296f21") == 0);
    }
}

static void test_pixel_md5(void)
{
    /* A 1x1 image whose RGBA bytes are "abcd": its pixel checksum is
     * md5("abcd") (coreutils md5sum: e2fc714c...). */
    const uint8_t px[4] = {'a', 'b', 'c', 'd'};
    char hex[33], err[TBR_PNG_ERR_SIZE];
    tbr_rgba8_pixel_md5(px, 1, 1, 4, hex);
    CHECK(strcmp(hex, "e2fc714c4727ee9395f324cd2e7f331f") == 0);

    /* 2x2 with row padding: the padding must not be hashed. Rows are
     * "abcdefgh" and "ijklmnop"; the 2 bytes of padding are 'X'. */
    const uint8_t padded[] = "abcdefghXXijklmnopXX";
    tbr_rgba8_pixel_md5(padded, 2, 2, 10, hex);
    uint8_t d[16];
    char want[33];
    tbr_md5("abcdefghijklmnop", 16, d);
    tbr_md5_hex(d, want);
    CHECK(strcmp(hex, want) == 0);

    /* Through a PNG file. */
    const char *p = wpath("md5.png");
    CHECK(tbr_png_write_rgba8(p, padded, 2, 2, 10, err, sizeof(err)) == 0);
    CHECK(tbr_png_pixel_md5(p, hex, err, sizeof(err)) == 0);
    CHECK(strcmp(hex, want) == 0);
    CHECK(tbr_png_pixel_md5(wpath("no-such.png"), hex, err, sizeof(err)) != 0);
    CHECK(strstr(err, "no-such.png") != NULL);
}

/* ---- write / read ---- */

static void make_pattern(uint8_t *px, uint32_t w, uint32_t h, size_t stride)
{
    memset(px, 0xEE, (size_t)h * stride); /* padding marker */
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = px + (size_t)y * stride + (size_t)x * 4;
            p[0] = (uint8_t)(x * 7 + y);
            p[1] = (uint8_t)(y * 13 + x * 3);
            p[2] = (uint8_t)((x ^ y) * 5);
            p[3] = (uint8_t)(255 - x - y);
        }
}

static void test_roundtrip(void)
{
    const uint32_t w = 37, h = 23;
    const size_t stride = w * 4 + 12; /* padded rows */
    uint8_t *px = malloc(h * stride);
    make_pattern(px, w, h, stride);

    char err[TBR_PNG_ERR_SIZE] = "";
    const char *p = wpath("rt.png");
    unlink(p);
    int rc = tbr_png_write_rgba8(p, px, w, h, stride, err, sizeof(err));
    if (rc) fprintf(stderr, "write: %s\n", err);
    CHECK(rc == 0);
    CHECK(file_exists(p));
    CHECK(!file_exists(wpath("rt.png.tmp")));

    tbr_image img;
    rc = tbr_png_read_rgba8(p, &img, err, sizeof(err));
    if (rc) fprintf(stderr, "read: %s\n", err);
    CHECK(rc == 0);
    CHECK(img.width == w && img.height == h && img.stride == w * 4);
    if (rc == 0 && img.width == w && img.height == h) {
        for (uint32_t y = 0; y < h; y++) CHECK(memcmp(img.pixels + y * img.stride, px + y * stride, w * 4) == 0);
    }

    /* Deterministic bytes: a second write of the same pixels is identical;
     * and writing over an existing file replaces it. */
    const char *p2 = wpath("rt2.png");
    spit(p2, "old contents", 12);
    CHECK(tbr_png_write_image(p2, &img, err, sizeof(err)) == 0);
    size_t l1, l2;
    void *b1 = slurp(p, &l1), *b2 = slurp(p2, &l2);
    CHECK(b1 && b2 && l1 == l2 && memcmp(b1, b2, l1) == 0);
    /* No ancillary chunks: exactly IHDR, IDAT..., IEND. */
    if (b1 && l1 > 33) {
        const uint8_t *b = b1;
        size_t off = 8;
        while (off + 8 <= l1) {
            uint32_t len = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 | b[off + 3];
            const char *type = (const char *)b + off + 4;
            CHECK(memcmp(type, "IHDR", 4) == 0 || memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0);
            off += 12 + (size_t)len;
        }
        CHECK(off == l1);
    }
    free(b1);
    free(b2);

    tbr_image_free(&img);
    tbr_image_free(&img); /* double free is harmless by design */
    free(px);
}

static void test_unwritable(void)
{
    uint8_t px[16] = {0};
    char err[TBR_PNG_ERR_SIZE] = "";

    /* Tests may run as root, who can write into a mode-0555 directory, so
     * use paths no one can create: a missing directory and a regular file
     * used as a directory. */
    const char *p = wpath("no-such-dir/out.png");
    CHECK(tbr_png_write_rgba8(p, px, 2, 2, 8, err, sizeof(err)) != 0);
    CHECK(strstr(err, "no-such-dir/out.png") != NULL);
    CHECK(!file_exists(p));
    fprintf(stderr, "(expected) %s\n", err);

    const char *f = wpath("plainfile");
    spit(f, "x", 1);
    p = wpath("plainfile/out.png");
    err[0] = '\0';
    CHECK(tbr_png_write_rgba8(p, px, 2, 2, 8, err, sizeof(err)) != 0);
    CHECK(strstr(err, "plainfile/out.png") != NULL);
    CHECK(file_size(f) == 1);

    /* Failure after the temp file was created: the target is a directory, so
     * rename fails; the temp file must be removed and the dir untouched. */
    const char *d = wpath("target-is-dir.png");
    mkdir(d, 0755);
    err[0] = '\0';
    CHECK(tbr_png_write_rgba8(d, px, 2, 2, 8, err, sizeof(err)) != 0);
    CHECK(strstr(err, "target-is-dir.png") != NULL);
    CHECK(!file_exists(wpath("target-is-dir.png.tmp")));
    fprintf(stderr, "(expected) %s\n", err);

    /* Bad geometry is rejected before any file is created. */
    p = wpath("bad-geom.png");
    CHECK(tbr_png_write_rgba8(p, px, 0, 2, 8, err, sizeof(err)) != 0);
    CHECK(tbr_png_write_rgba8(p, px, 3, 1, 8, err, sizeof(err)) != 0);
    CHECK(!file_exists(p) && !file_exists(wpath("bad-geom.png.tmp")));

    /* NULL err buffer is allowed. */
    CHECK(tbr_png_write_rgba8(wpath("no-such-dir/x.png"), px, 2, 2, 8, NULL, 0) != 0);
}

static void expect_read_error(const char *path, const char *needle)
{
    tbr_image img = {1, 1, 4, (uint8_t *)&img}; /* must be cleared on error */
    char err[TBR_PNG_ERR_SIZE] = "";
    CHECK(tbr_png_read_rgba8(path, &img, err, sizeof(err)) != 0);
    CHECK(img.pixels == NULL && img.width == 0);
    CHECK(strstr(err, path) != NULL);
    if (!strstr(err, needle)) {
        fprintf(stderr, "error for %s lacks \"%s\": %s\n", path, needle, err);
        failures++;
    } else {
        fprintf(stderr, "(expected) %s\n", err);
    }
}

static void test_read_errors(void)
{
    expect_read_error(wpath("missing.png"), "cannot open");
    spit(wpath("empty.png"), "", 0);
    expect_read_error(wpath("empty.png"), "not a PNG");
    spit(wpath("garbage.png"), "GIF89a this is not a png at all", 31);
    expect_read_error(wpath("garbage.png"), "not a PNG");
    spit(wpath("short.png"), "\x89PNG", 4);
    expect_read_error(wpath("short.png"), "not a PNG");

    /* A valid PNG cut at several points. */
    uint32_t w = 40, h = 40;
    uint8_t *px = malloc(w * h * 4);
    make_pattern(px, w, h, w * 4);
    char err[TBR_PNG_ERR_SIZE];
    const char *full = wpath("full.png");
    CHECK(tbr_png_write_rgba8(full, px, w, h, w * 4, err, sizeof(err)) == 0);
    size_t len;
    uint8_t *data = slurp(full, &len);
    CHECK(data && len > 100);
    size_t cuts[] = {12, 30, len / 2, len - 5};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "trunc%zu.png", i);
        spit(wpath(name), data, cuts[i]);
        expect_read_error(wpath(name), "truncated");
    }
    /* Flip a byte inside the IDAT data: CRC (or zlib) error. */
    data[len / 2] ^= 0x55;
    spit(wpath("corrupt.png"), data, len);
    expect_read_error(wpath("corrupt.png"), "corrupt");
    /* A directory is not a PNG either. */
    mkdir(wpath("adir.png"), 0755);
    expect_read_error(wpath("adir.png"), "adir.png");
    free(data);
    free(px);
}

/* ---- reader conversions: files written with raw libpng ---- */

struct raw_png {
    uint32_t w, h;
    int depth, color, interlace;
    const uint8_t *data; /* packed rows, PNG byte order */
    size_t rowbytes;
    const png_color *plte;
    int nplte;
    const uint8_t *trns_alpha; /* palette alpha */
    int ntrns;
    const png_color_16 *trns_color; /* colour key */
};

static int write_raw(const char *path, const struct raw_png *r)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, r->w, r->h, r->depth, r->color, r->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (r->plte) png_set_PLTE(png, info, r->plte, r->nplte);
    if (r->trns_alpha || r->trns_color) png_set_tRNS(png, info, r->trns_alpha, r->ntrns, r->trns_color);
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (uint32_t y = 0; y < r->h; y++) png_write_row(png, r->data + y * r->rowbytes);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return 0;
}

static void expect_pixels(const char *name, const struct raw_png *r, const uint8_t *want)
{
    const char *p = wpath(name);
    CHECK(write_raw(p, r) == 0);
    tbr_image img;
    char err[TBR_PNG_ERR_SIZE];
    int rc = tbr_png_read_rgba8(p, &img, err, sizeof(err));
    if (rc) fprintf(stderr, "%s\n", err);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(img.width == r->w && img.height == r->h);
    for (uint32_t i = 0; i < r->w * r->h * 4; i++) {
        if (img.pixels[i] != want[i]) {
            fprintf(stderr, "%s: byte %u (pixel %u ch %u) = %u, want %u\n", name, i, i / 4, i % 4, img.pixels[i],
                    want[i]);
            failures++;
            break;
        }
    }
    tbr_image_free(&img);
}

static void test_formats(void)
{
    /* 8-bit gray: replicated into RGB, opaque. */
    {
        const uint8_t d[] = {0, 200};
        struct raw_png r = {2, 1, 8, PNG_COLOR_TYPE_GRAY, 0, d, 2, 0, 0, 0, 0, 0};
        const uint8_t want[] = {0, 0, 0, 255, 200, 200, 200, 255};
        expect_pixels("gray8.png", &r, want);
    }
    /* 1-bit gray 0b10110000: 1 -> 255, 0 -> 0. */
    {
        const uint8_t d[] = {0xB0};
        struct raw_png r = {8, 1, 1, PNG_COLOR_TYPE_GRAY, 0, d, 1, 0, 0, 0, 0, 0};
        uint8_t want[32];
        const uint8_t v[8] = {255, 0, 255, 255, 0, 0, 0, 0};
        for (int i = 0; i < 8; i++) {
            want[4 * i] = want[4 * i + 1] = want[4 * i + 2] = v[i];
            want[4 * i + 3] = 255;
        }
        expect_pixels("gray1.png", &r, want);
    }
    /* 16-bit gray: 0x1234 = 4660 -> 4660*255/65535 = 18.13 -> 18;
     * 0xC000 = 49152 -> 191.25 -> 191. */
    {
        const uint8_t d[] = {0x12, 0x34, 0xC0, 0x00};
        struct raw_png r = {2, 1, 16, PNG_COLOR_TYPE_GRAY, 0, d, 4, 0, 0, 0, 0, 0};
        const uint8_t want[] = {18, 18, 18, 255, 191, 191, 191, 255};
        expect_pixels("gray16.png", &r, want);
    }
    /* 16-bit gray+alpha: gray 0xC000 -> 191, alpha 0x1234 -> 18. */
    {
        const uint8_t d[] = {0xC0, 0x00, 0x12, 0x34};
        struct raw_png r = {1, 1, 16, PNG_COLOR_TYPE_GRAY_ALPHA, 0, d, 4, 0, 0, 0, 0, 0};
        const uint8_t want[] = {191, 191, 191, 18};
        expect_pixels("graya16.png", &r, want);
    }
    /* 16-bit RGB: 0xFFFF -> 255, 0 -> 0, 0x8080 = 32896 -> 128.0 -> 128. */
    {
        const uint8_t d[] = {0xFF, 0xFF, 0x00, 0x00, 0x80, 0x80};
        struct raw_png r = {1, 1, 16, PNG_COLOR_TYPE_RGB, 0, d, 6, 0, 0, 0, 0, 0};
        const uint8_t want[] = {255, 0, 128, 255};
        expect_pixels("rgb16.png", &r, want);
    }
    /* 4-bit palette with tRNS for entry 0 only: indices 0,1 in one byte. */
    {
        const png_color pal[2] = {{10, 20, 30}, {200, 100, 50}};
        const uint8_t ta[1] = {128};
        const uint8_t d[] = {0x01};
        struct raw_png r = {2, 1, 4, PNG_COLOR_TYPE_PALETTE, 0, d, 1, pal, 2, ta, 1, 0};
        const uint8_t want[] = {10, 20, 30, 128, 200, 100, 50, 255};
        expect_pixels("pal4.png", &r, want);
    }
    /* 8-bit RGB with a tRNS colour key (1,2,3): that colour -> alpha 0. */
    {
        png_color_16 key = {0, 1, 2, 3, 0};
        const uint8_t d[] = {1, 2, 3, 4, 5, 6};
        struct raw_png r = {2, 1, 8, PNG_COLOR_TYPE_RGB, 0, d, 6, 0, 0, 0, 0, &key};
        const uint8_t want[] = {1, 2, 3, 0, 4, 5, 6, 255};
        expect_pixels("rgbkey.png", &r, want);
    }
    /* Interlaced (Adam7) RGBA: same pixels as stored. */
    {
        uint32_t w = 13, h = 9;
        uint8_t *d = malloc(w * h * 4);
        make_pattern(d, w, h, w * 4);
        struct raw_png r = {w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_ADAM7, d, w * 4, 0, 0, 0, 0, 0};
        expect_pixels("adam7.png", &r, d);
        free(d);
    }
}

/* mkdir -p: ctest gives a work dir whose parents may not exist yet. */
static void make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    mkdir(buf, 0755);
}

/* A frame written as the display shows it (issue 24): an RGB PNG that a plain read gives
 * back opaque, the alpha in alpha/NAME, and tbr_png_read_frame and the pixel md5 give the
 * framebuffer's RGBA as written; an opaque frame has no plane and a stale one is removed;
 * raw_alpha writes one RGBA PNG. */
static void test_frame_alpha(void)
{
    char err[TBR_PNG_ERR_SIZE];
    const uint8_t px[] = {10, 20, 30, 182, 40, 50, 60, 255, 70, 80, 90, 0, 1, 2, 3, 182};
    const char *p = wpath("frame_00001.png");
    CHECK(tbr_png_write_frame(p, px, 2, 2, 8, 0, err, sizeof err) == 0);
    CHECK(file_exists(wpath("alpha/frame_00001.png")));
    tbr_image shown, frame;
    CHECK(tbr_png_read_rgba8(p, &shown, err, sizeof err) == 0);
    CHECK(shown.pixels && shown.pixels[3] == 255 && shown.pixels[11] == 255 && shown.pixels[8] == 70);
    CHECK(tbr_png_read_frame(p, &frame, err, sizeof err) == 0);
    CHECK(frame.pixels && memcmp(frame.pixels, px, sizeof px) == 0);
    char hex[33], want[33];
    tbr_rgba8_pixel_md5(px, 2, 2, 8, want);
    CHECK(tbr_png_pixel_md5(p, hex, err, sizeof err) == 0 && !strcmp(hex, want));
    tbr_image_free(&shown);
    tbr_image_free(&frame);

    const uint8_t opaque[] = {1, 2, 3, 255, 4, 5, 6, 255};
    CHECK(tbr_png_write_frame(p, opaque, 2, 1, 8, 0, err, sizeof err) == 0);
    CHECK(!file_exists(wpath("alpha/frame_00001.png")));
    CHECK(tbr_png_read_frame(p, &frame, err, sizeof err) == 0);
    CHECK(frame.pixels && memcmp(frame.pixels, opaque, sizeof opaque) == 0);
    tbr_image_free(&frame);

    const char *raw = wpath("raw.png");
    CHECK(tbr_png_write_frame(raw, px, 2, 2, 8, 1, err, sizeof err) == 0);
    CHECK(!file_exists(wpath("alpha/raw.png")));
    CHECK(tbr_png_read_rgba8(raw, &frame, err, sizeof err) == 0);
    CHECK(frame.pixels && memcmp(frame.pixels, px, sizeof px) == 0);
    tbr_image_free(&frame);

    /* a plane of another size is an error, not a silently opaque frame */
    CHECK(tbr_png_write_frame(p, px, 2, 2, 8, 0, err, sizeof err) == 0);
    CHECK(tbr_png_write_rgba8(wpath("alpha/frame_00001.png"), opaque, 2, 1, 8, err, sizeof err) == 0);
    CHECK(tbr_png_read_frame(p, &frame, err, sizeof err) != 0 && strstr(err, "alpha plane"));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SUBTEST WORKDIR\n", argv[0]);
        return 2;
    }
    workdir = argv[2];
    make_dirs(workdir);
    const char *t = argv[1];
    if (!strcmp(t, "md5"))
        test_md5();
    else if (!strcmp(t, "pixel_md5"))
        test_pixel_md5();
    else if (!strcmp(t, "roundtrip"))
        test_roundtrip();
    else if (!strcmp(t, "unwritable"))
        test_unwritable();
    else if (!strcmp(t, "read_errors"))
        test_read_errors();
    else if (!strcmp(t, "formats"))
        test_formats();
    else if (!strcmp(t, "frame_alpha"))
        test_frame_alpha();
    else {
        fprintf(stderr, "unknown subtest %s\n", t);
        return 2;
    }
    if (failures) fprintf(stderr, "%s: %d check(s) failed\n", t, failures);
    return failures ? 1 : 0;
}
