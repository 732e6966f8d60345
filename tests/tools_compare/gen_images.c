/* Writes the test images for test_compare.sh into WORKDIR, each with a
 * difference whose metrics are known by construction (see the comments and
 * the expected values asserted in the script). Usage: gen_images WORKDIR */
#include "tbr/png_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define W 64
#define H 48

static const char *dir;

static void put(const char *name, const uint8_t *px, uint32_t w, uint32_t h)
{
    char path[4096], err[TBR_PNG_ERR_SIZE];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (tbr_png_write_rgba8(path, px, w, h, (size_t)w * 4, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

static void put_raw(const char *name, const uint8_t *px, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(px, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void sub(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    mkdir(path, 0755);
}

/* Base picture: smooth gradients plus a checker, RGB kept within 10..240 so
 * +-1 and +37 edits never clip; alpha varies but stays opaque-ish. */
static void base(uint8_t *px)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = px + (y * W + x) * 4;
            p[0] = (uint8_t)(10 + x * 3);
            p[1] = (uint8_t)(10 + y * 4);
            p[2] = (uint8_t)(((x / 8 + y / 8) & 1) ? 200 : 40);
            p[3] = (uint8_t)(200 + (x + y) % 50);
        }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    mkdir(dir, 0755);

    static uint8_t a[W * H * 4], b[W * H * 4];
    base(a);
    put("base.png", a, W, H);
    put("same.png", a, W, H);
    put_raw("base.rgba", a, sizeof(a)); /* for an independent md5sum */

    /* One pixel at (17,9): G raised by 37 -> 1 differing pixel, max 37. */
    memcpy(b, a, sizeof(a));
    b[(9 * W + 17) * 4 + 1] += 37;
    put("onepix.png", b, W, H);

    /* Expected diff image for base vs onepix: every pixel is base RGB * 0.3
     * rounded ((v*3+5)/10), opaque; (17,9) is magenta. */
    {
        static uint8_t d[W * H * 4];
        for (int i = 0; i < W * H; i++) {
            for (int c = 0; c < 3; c++) d[i * 4 + c] = (uint8_t)((a[i * 4 + c] * 3 + 5) / 10);
            d[i * 4 + 3] = 255;
        }
        uint8_t *m = d + (9 * W + 17) * 4;
        m[0] = 255, m[1] = 0, m[2] = 255;
        put("expected_diff.png", d, W, H);
    }

    /* Every R,G,B off by exactly 1 (alternating sign), alpha unchanged:
     * MSE = 1 -> PSNR = 10 log10(255^2) = 48.1308 dB. */
    memcpy(b, a, sizeof(a));
    for (int i = 0; i < W * H * 4; i++)
        if (i % 4 != 3) b[i] = (uint8_t)(b[i] + ((i & 1) ? 1 : -1));
    put("off1.png", b, W, H);

    /* Only alpha changed, by 9, on one pixel (3,4): differs, but RGB PSNR is
     * infinite and luma SSIM 1. */
    memcpy(b, a, sizeof(a));
    b[(4 * W + 3) * 4 + 3] -= 9;
    put("alpha.png", b, W, H);

    /* Two pixels off by 2 in B: pass with --tolerance 2, fail with 1. */
    memcpy(b, a, sizeof(a));
    b[(0 * W + 5) * 4 + 0] += 2;
    b[(40 * W + 60) * 4 + 2] -= 2;
    put("tol2.png", b, W, H);

    /* Uniform gray 100 vs 110 (32x32, opaque): MSE 100 -> PSNR 28.1308 dB;
     * flat windows -> SSIM = (2*100*110 + C1) / (100^2 + 110^2 + C1) with
     * C1 = 6.5025 -> 0.995476. */
    {
        static uint8_t g1[32 * 32 * 4], g2[32 * 32 * 4];
        for (int i = 0; i < 32 * 32; i++) {
            memset(g1 + i * 4, 100, 3);
            memset(g2 + i * 4, 110, 3);
            g1[i * 4 + 3] = g2[i * 4 + 3] = 255;
        }
        put("gray100.png", g1, 32, 32);
        put("gray110.png", g2, 32, 32);
    }

    /* Different size. */
    put("small.png", a, 32, 24);

    /* Directories: ref/ has 3 frames; same/ equal; missing/ lacks frame 2;
     * diff/ has frame 1 = onepix; extra/ has a frame 3 too. Raw bytes of the
     * reference frames go to raw/ for md5sum. */
    sub("ref");
    sub("same");
    sub("missing");
    sub("diff");
    sub("extra");
    sub("raw");
    for (int f = 0; f < 4; f++) {
        char name[64], raw[64];
        memcpy(b, a, sizeof(a));
        for (int i = 0; i < W * H; i++) b[i * 4 + 2] = (uint8_t)(b[i * 4 + 2] + f * 5);
        snprintf(name, sizeof(name), "%s/frame_%05d.png", "extra", f);
        put(name, b, W, H);
        if (f == 3) break;
        snprintf(raw, sizeof(raw), "raw/frame_%05d.rgba", f);
        put_raw(raw, b, sizeof(b));
        const char *dirs[] = {"ref", "same", "missing", "diff"};
        for (int k = 0; k < 4; k++) {
            if (k == 2 && f == 2) continue;
            if (k == 3 && f == 1) b[(9 * W + 17) * 4 + 1] += 37;
            snprintf(name, sizeof(name), "%s/frame_%05d.png", dirs[k], f);
            put(name, b, W, H);
        }
    }
    return 0;
}
