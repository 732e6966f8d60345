#include "imgcmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* SSIM stabilising constants: C1 = (K1 L)^2, C2 = (K2 L)^2, K1 = 0.01,
 * K2 = 0.03, L = 255. */
#define SSIM_C1 ((0.01 * 255.0) * (0.01 * 255.0))
#define SSIM_C2 ((0.03 * 255.0) * (0.03 * 255.0))

static const uint8_t *px(const tbr_image *img, uint32_t x, uint32_t y)
{
    return img->pixels + (size_t)y * img->stride + (size_t)x * 4;
}

int imgcmp_compare(const tbr_image *a, const tbr_image *b, unsigned tolerance, imgcmp_result *res)
{
    memset(res, 0, sizeof(*res));
    if (a->width != b->width || a->height != b->height) return 0;
    res->size_match = 1;

    uint32_t w = a->width, h = a->height;
    uint64_t sq_sum = 0; /* exact: at most 3 * 2^28 * 255^2 < 2^64 */
    res->total_pixels = (uint64_t)w * h;

    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *pa = px(a, x, y), *pb = px(b, x, y);
            unsigned pix_max = 0;
            for (int c = 0; c < 4; c++) {
                unsigned d = pa[c] > pb[c] ? (unsigned)(pa[c] - pb[c]) : (unsigned)(pb[c] - pa[c]);
                if (d > pix_max) pix_max = d;
                if (c < 3) sq_sum += (uint64_t)d * d;
            }
            if (pix_max == 0) continue;
            res->changed_pixels++;
            if (pix_max > res->max_diff) res->max_diff = pix_max;
            if (pix_max > tolerance) {
                if (!res->have_first) {
                    res->have_first = 1;
                    res->first_x = x;
                    res->first_y = y;
                    memcpy(res->first_a, pa, 4);
                    memcpy(res->first_b, pb, 4);
                }
                res->diff_pixels++;
            }
        }
    }

    res->exact = res->changed_pixels == 0;
    res->mse_rgb = (double)sq_sum / (3.0 * (double)res->total_pixels);
    res->psnr_inf = sq_sum == 0;
    res->psnr_rgb = res->psnr_inf ? 0.0 : 10.0 * log10(255.0 * 255.0 / res->mse_rgb);
    /* Identical pixels give SSIM 1 by definition; skip the filtering. */
    res->ssim = res->exact ? 1.0 : imgcmp_ssim_luma(a, b);
    if (isnan(res->ssim)) return -1; /* out of memory inside the SSIM pass */
    return 0;
}

/* Normalised 1-D Gaussian of n taps centred on the middle tap. */
static void gaussian(double *g, unsigned n)
{
    double sum = 0.0, mid = (n - 1) / 2.0;
    for (unsigned i = 0; i < n; i++) {
        double d = i - mid;
        g[i] = exp(-(d * d) / (2.0 * IMGCMP_SSIM_SIGMA * IMGCMP_SSIM_SIGMA));
        sum += g[i];
    }
    for (unsigned i = 0; i < n; i++) g[i] /= sum;
}

static void luma_row(const tbr_image *img, uint32_t y, double *out)
{
    const uint8_t *p = img->pixels + (size_t)y * img->stride;
    for (uint32_t x = 0; x < img->width; x++, p += 4) out[x] = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
}

/*
 * Gaussian-window SSIM over every window position fully inside the image
 * (no padding), averaged. The 2-D Gaussian is separable, so each row is
 * filtered horizontally once into a ring of `wh` rows, and the vertical pass
 * combines those; memory stays O(width). Images narrower or shorter than the
 * window use a window clipped to the image (a truncated, renormalised
 * Gaussian). Returns NAN if out of memory.
 */
double imgcmp_ssim_luma(const tbr_image *a, const tbr_image *b)
{
    const uint32_t w = a->width, h = a->height;
    const unsigned ww = w < IMGCMP_SSIM_WINDOW ? w : IMGCMP_SSIM_WINDOW;
    const unsigned wh = h < IMGCMP_SSIM_WINDOW ? h : IMGCMP_SSIM_WINDOW;
    const uint32_t ow = w - ww + 1, oh = h - wh + 1;
    double gx[IMGCMP_SSIM_WINDOW], gy[IMGCMP_SSIM_WINDOW];
    gaussian(gx, ww);
    gaussian(gy, wh);

    /* ring[row][map][ox]; maps: E[x], E[y], E[x^2], E[y^2], E[xy] */
    double *ring = malloc(sizeof(double) * wh * 5 * ow);
    double *la = malloc(sizeof(double) * w);
    double *lb = malloc(sizeof(double) * w);
    if (!ring || !la || !lb) {
        free(ring);
        free(la);
        free(lb);
        return NAN;
    }

    double total = 0.0;
    for (uint32_t r = 0; r < h; r++) {
        luma_row(a, r, la);
        luma_row(b, r, lb);
        double *dst = ring + (size_t)(r % wh) * 5 * ow;
        for (uint32_t ox = 0; ox < ow; ox++) {
            double s1 = 0, s2 = 0, s11 = 0, s22 = 0, s12 = 0;
            for (unsigned k = 0; k < ww; k++) {
                double x = la[ox + k], y = lb[ox + k], g = gx[k];
                s1 += g * x;
                s2 += g * y;
                s11 += g * x * x;
                s22 += g * y * y;
                s12 += g * x * y;
            }
            dst[ox] = s1;
            dst[ow + ox] = s2;
            dst[2 * ow + ox] = s11;
            dst[3 * ow + ox] = s22;
            dst[4 * ow + ox] = s12;
        }
        if (r + 1 < wh) continue;

        uint32_t oy = r + 1 - wh; /* window rows oy .. r */
        for (uint32_t ox = 0; ox < ow; ox++) {
            double m[5] = {0, 0, 0, 0, 0};
            for (unsigned k = 0; k < wh; k++) {
                const double *src = ring + (size_t)((oy + k) % wh) * 5 * ow;
                for (int j = 0; j < 5; j++) m[j] += gy[k] * src[j * ow + ox];
            }
            double mu1 = m[0], mu2 = m[1];
            double var1 = m[2] - mu1 * mu1, var2 = m[3] - mu2 * mu2;
            double cov = m[4] - mu1 * mu2;
            double num = (2.0 * mu1 * mu2 + SSIM_C1) * (2.0 * cov + SSIM_C2);
            double den = (mu1 * mu1 + mu2 * mu2 + SSIM_C1) * (var1 + var2 + SSIM_C2);
            total += num / den;
        }
    }

    free(ring);
    free(la);
    free(lb);
    return total / ((double)ow * (double)oh);
}

int imgcmp_diff_image(const tbr_image *a, const tbr_image *b, unsigned tolerance, tbr_image *out)
{
    if (a->width != b->width || a->height != b->height) return -1;
    if (tbr_image_alloc(out, a->width, a->height) != 0) return -1;
    for (uint32_t y = 0; y < a->height; y++) {
        uint8_t *o = out->pixels + (size_t)y * out->stride;
        for (uint32_t x = 0; x < a->width; x++, o += 4) {
            const uint8_t *pa = px(a, x, y), *pb = px(b, x, y);
            unsigned m = 0;
            for (int c = 0; c < 4; c++) {
                unsigned d = pa[c] > pb[c] ? (unsigned)(pa[c] - pb[c]) : (unsigned)(pb[c] - pa[c]);
                if (d > m) m = d;
            }
            if (m > tolerance) {
                o[0] = 255, o[1] = 0, o[2] = 255;
            } else if (m > 0) {
                o[0] = 255, o[1] = 255, o[2] = 0;
            } else {
                /* Dimmed to <= 77 so the highlights always stand out. */
                for (int c = 0; c < 3; c++) o[c] = (uint8_t)((pa[c] * 3 + 5) / 10);
            }
            o[3] = 255; /* opaque, or transparent regions of A would hide it */
        }
    }
    return 0;
}
