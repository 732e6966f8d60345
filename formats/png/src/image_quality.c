/* PSNR and SSIM of two RGBA8 images (tbr/image_quality.h). */
#include "tbr/image_quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SSIM_WINDOW 11 /* Wang et al. 2004, sec. III-C: 11x11 circular-symmetric Gaussian */
#define SSIM_SIGMA  1.5
#define SSIM_K1     0.01
#define SSIM_K2     0.03
#define SSIM_PEAK   255.0

/* ITU-R BT.601 luma, the plane the SSIM paper evaluates on. */
static double luma(const uint8_t *p) { return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]; }

static double rgb_mse(const tbr_image *a, const tbr_image *b)
{
    double sum = 0;
    for (uint32_t y = 0; y < a->height; y++) {
        const uint8_t *pa = a->pixels + y * a->stride, *pb = b->pixels + y * b->stride;
        for (uint32_t x = 0; x < a->width; x++)
            for (int c = 0; c < 3; c++) {
                double d = (double)pa[4 * x + c] - (double)pb[4 * x + c];
                sum += d * d;
            }
    }
    return sum / (3.0 * a->width * a->height);
}

/* SSIM of one window from its first and second moments. */
static double ssim_of_moments(double mx, double my, double sxx, double syy, double sxy)
{
    const double c1 = (SSIM_K1 * SSIM_PEAK) * (SSIM_K1 * SSIM_PEAK);
    const double c2 = (SSIM_K2 * SSIM_PEAK) * (SSIM_K2 * SSIM_PEAK);
    double vx = sxx - mx * mx, vy = syy - my * my, cov = sxy - mx * my;
    return ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
}

/* Five weighted sums per window: x, y, x^2, y^2, xy. */
enum { M_X, M_Y, M_XX, M_YY, M_XY, M_COUNT };

/* One window over the whole image with equal weights (images smaller than the window). */
static double ssim_single_window(const double *x, const double *y, size_t n)
{
    double m[M_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        m[M_X] += x[i];
        m[M_Y] += y[i];
        m[M_XX] += x[i] * x[i];
        m[M_YY] += y[i] * y[i];
        m[M_XY] += x[i] * y[i];
    }
    for (int k = 0; k < M_COUNT; k++) m[k] /= (double)n;
    return ssim_of_moments(m[M_X], m[M_Y], m[M_XX], m[M_YY], m[M_XY]);
}

/* Gaussian-weighted moments by a separable filter: rows first into `rows` (w - 10 columns
 * per row), then columns; the mean of the SSIM map over the valid positions. */
static double ssim_gaussian(const double *x, const double *y, uint32_t w, uint32_t h, double *rows)
{
    double g[SSIM_WINDOW], gsum = 0;
    for (int i = 0; i < SSIM_WINDOW; i++) {
        double d = i - SSIM_WINDOW / 2;
        g[i] = exp(-d * d / (2 * SSIM_SIGMA * SSIM_SIGMA));
        gsum += g[i];
    }
    for (int i = 0; i < SSIM_WINDOW; i++) g[i] /= gsum;
    const uint32_t ow = w - SSIM_WINDOW + 1, oh = h - SSIM_WINDOW + 1;
    for (uint32_t r = 0; r < h; r++)
        for (uint32_t c = 0; c < ow; c++) {
            double *m = &rows[((size_t)r * ow + c) * M_COUNT];
            for (int k = 0; k < M_COUNT; k++) m[k] = 0;
            for (int i = 0; i < SSIM_WINDOW; i++) {
                size_t p = (size_t)r * w + c + (size_t)i;
                m[M_X] += g[i] * x[p];
                m[M_Y] += g[i] * y[p];
                m[M_XX] += g[i] * x[p] * x[p];
                m[M_YY] += g[i] * y[p] * y[p];
                m[M_XY] += g[i] * x[p] * y[p];
            }
        }
    double total = 0;
    for (uint32_t r = 0; r < oh; r++)
        for (uint32_t c = 0; c < ow; c++) {
            double m[M_COUNT] = {0};
            for (int i = 0; i < SSIM_WINDOW; i++) {
                const double *s = &rows[(((size_t)r + (size_t)i) * ow + c) * M_COUNT];
                for (int k = 0; k < M_COUNT; k++) m[k] += g[i] * s[k];
            }
            total += ssim_of_moments(m[M_X], m[M_Y], m[M_XX], m[M_YY], m[M_XY]);
        }
    return total / ((double)ow * oh);
}

int tbr_image_quality_compare(const tbr_image *ref, const tbr_image *test, tbr_image_quality *q, char *err,
                              size_t err_size)
{
    if (ref->width != test->width || ref->height != test->height) {
        if (err)
            snprintf(err, err_size, "image sizes differ: %ux%u against %ux%u", test->width, test->height, ref->width,
                     ref->height);
        return -1;
    }
    const uint32_t w = ref->width, h = ref->height;
    const size_t n = (size_t)w * h;
    const int small = w < SSIM_WINDOW || h < SSIM_WINDOW;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *rows = small ? NULL : malloc(n * M_COUNT * sizeof *rows);
    if (!x || !y || (!small && !rows)) {
        free(x);
        free(y);
        free(rows);
        if (err) snprintf(err, err_size, "out of memory comparing %ux%u images", w, h);
        return -1;
    }
    for (uint32_t r = 0; r < h; r++)
        for (uint32_t c = 0; c < w; c++) {
            x[(size_t)r * w + c] = luma(ref->pixels + r * ref->stride + 4 * c);
            y[(size_t)r * w + c] = luma(test->pixels + r * test->stride + 4 * c);
        }
    q->mse = rgb_mse(ref, test);
    q->psnr_db = q->mse > 0 ? 10.0 * log10(SSIM_PEAK * SSIM_PEAK / q->mse) : INFINITY;
    q->ssim = small ? ssim_single_window(x, y, n) : ssim_gaussian(x, y, w, h, rows);
    free(x);
    free(y);
    free(rows);
    return 0;
}
