/* tbr_image_quality_compare (formats/png/src/image_quality.c) against values derived by
 * hand from the definitions of PSNR and SSIM (Wang et al. 2004). */
#include "tbr/image_quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void check_near(const char *what, double got, double want, double tol)
{
    int ok = isinf(want) ? isinf(got) && (got > 0) == (want > 0) : fabs(got - want) <= tol;
    printf("%s %s: got %.6f, expected %.6f\n", ok ? "ok  " : "FAIL", what, got, want);
    if (!ok) failures++;
}

static void fill(tbr_image *img, uint32_t w, uint32_t h, uint8_t (*f)(uint32_t x, uint32_t y, int c))
{
    if (tbr_image_alloc(img, w, h)) {
        fprintf(stderr, "image_quality_test: out of memory\n");
        exit(2);
    }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) img->pixels[y * img->stride + 4 * x + c] = f(x, y, c);
}

static uint8_t flat100(uint32_t x, uint32_t y, int c)
{
    (void)x, (void)y;
    return c == 3 ? 255 : 100;
}
static uint8_t flat110_alpha7(uint32_t x, uint32_t y, int c)
{
    (void)x, (void)y;
    return c == 3 ? 7 : 110; /* alpha differs: it must not count */
}
static uint8_t stripes(uint32_t x, uint32_t y, int c)
{
    (void)y;
    return c == 3 ? 255 : (x & 1) ? 200 : 50;
}
static uint8_t stripes_inverted(uint32_t x, uint32_t y, int c)
{
    (void)y;
    return c == 3 ? 255 : (x & 1) ? 50 : 200;
}
static uint8_t one_red_pixel_off(uint32_t x, uint32_t y, int c)
{
    return (x == 5 && y == 5 && c == 0) ? 130 : stripes(x, y, c);
}

int main(void)
{
    tbr_image a, b, c, d, e, small_a, small_b;
    tbr_image_quality q;
    char err[256];
    fill(&a, 32, 24, flat100);
    fill(&b, 32, 24, flat110_alpha7);
    fill(&c, 32, 24, stripes);
    fill(&d, 32, 24, stripes_inverted);
    fill(&e, 32, 24, one_red_pixel_off);

    /* identical RGB: PSNR infinite, SSIM 1 */
    if (tbr_image_quality_compare(&c, &c, &q, err, sizeof err)) return 2;
    check_near("identical psnr", q.psnr_db, INFINITY, 0);
    check_near("identical ssim", q.ssim, 1.0, 1e-12);

    /* flat 100 vs flat 110: mse 100, PSNR 10 log10(65025/100); no variance, so SSIM is the
     * luminance term (2*100*110 + C1) / (100^2 + 110^2 + C1), C1 = 6.5025 */
    if (tbr_image_quality_compare(&a, &b, &q, err, sizeof err)) return 2;
    check_near("flat mse", q.mse, 100.0, 1e-9);
    check_near("flat psnr", q.psnr_db, 10.0 * log10(65025.0 / 100.0), 1e-9);
    check_near("flat ssim", q.ssim, (22000.0 + 6.5025) / (22100.0 + 6.5025), 1e-9);

    /* stripes vs inverted stripes: equal means and variances, correlation -1, so SSIM is
     * about (C2 - 2 var) / (2 var + C2) with var the windowed variance of 50/200 stripes;
     * it must be strongly negative, and PSNR = 10 log10(65025 / 150^2) */
    if (tbr_image_quality_compare(&c, &d, &q, err, sizeof err)) return 2;
    check_near("inverted psnr", q.psnr_db, 10.0 * log10(65025.0 / 22500.0), 1e-9);
    if (!(q.ssim < -0.9)) {
        printf("FAIL inverted ssim %.6f not below -0.9\n", q.ssim);
        failures++;
    } else {
        printf("ok   inverted ssim %.6f < -0.9\n", q.ssim);
    }

    /* one red sample off by 70 (200 -> 130) of 32*24*3: mse = 4900 / 2304 */
    if (tbr_image_quality_compare(&c, &e, &q, err, sizeof err)) return 2;
    check_near("one pixel mse", q.mse, 4900.0 / 2304.0, 1e-9);
    if (!(q.ssim < 1.0 && q.ssim > 0.95)) {
        printf("FAIL one pixel ssim %.6f not in (0.95, 1)\n", q.ssim);
        failures++;
    } else {
        printf("ok   one pixel ssim %.6f in (0.95, 1)\n", q.ssim);
    }

    /* smaller than the window: one uniform window; flat images give the luminance term */
    fill(&small_a, 4, 4, flat100);
    fill(&small_b, 4, 4, flat110_alpha7);
    if (tbr_image_quality_compare(&small_a, &small_b, &q, err, sizeof err)) return 2;
    check_near("small flat ssim", q.ssim, (22000.0 + 6.5025) / (22100.0 + 6.5025), 1e-9);

    /* sizes differ: an error that names both sizes */
    if (tbr_image_quality_compare(&a, &small_a, &q, err, sizeof err) == 0) {
        printf("FAIL size mismatch accepted\n");
        failures++;
    } else {
        printf("ok   size mismatch: %s\n", err);
    }
    tbr_image_free(&a);
    tbr_image_free(&b);
    tbr_image_free(&c);
    tbr_image_free(&d);
    tbr_image_free(&e);
    tbr_image_free(&small_a);
    tbr_image_free(&small_b);
    return failures ? 1 : 0;
}
