/* Image comparison metrics used by tbr-compare. */
#ifndef TBR_COMPARE_IMGCMP_H
#define TBR_COMPARE_IMGCMP_H

#include <stdint.h>

#include "tbr/png_io.h"

/* SSIM window: 11x11 Gaussian, sigma 1.5 (Wang et al. 2004). */
#define IMGCMP_SSIM_WINDOW 11
#define IMGCMP_SSIM_SIGMA  1.5

typedef struct imgcmp_result {
    int size_match; /* same width and height; nothing else valid if 0 */
    int exact;      /* every byte of every pixel equal */
    uint64_t total_pixels;
    uint64_t diff_pixels;    /* pixels with some channel off by > tolerance */
    uint64_t changed_pixels; /* pixels with some channel off at all */
    unsigned max_diff;       /* largest |A-B| over all channels incl. alpha */
    int have_first;          /* first_* valid: a pixel counted in diff_pixels */
    uint32_t first_x, first_y;
    uint8_t first_a[4], first_b[4];
    double mse_rgb;  /* mean squared error over R,G,B samples */
    int psnr_inf;    /* mse_rgb == 0 */
    double psnr_rgb; /* dB; valid when !psnr_inf */
    double ssim;     /* mean SSIM of luma */
} imgcmp_result;

/* Compare A and B. `tolerance` is the largest per-channel difference still
 * considered equal. Returns 0, or -1 if out of memory. */
int imgcmp_compare(const tbr_image *a, const tbr_image *b, unsigned tolerance, imgcmp_result *res);

/* Mean SSIM of the BT.601 luma of two same-sized images. */
double imgcmp_ssim_luma(const tbr_image *a, const tbr_image *b);

/* Build the diff image: A's colours at 30% brightness, opaque; pixels off by
 * more than `tolerance` in bright magenta, pixels off by at most
 * `tolerance` (but not identical) in yellow. Sizes must match. */
int imgcmp_diff_image(const tbr_image *a, const tbr_image *b, unsigned tolerance, tbr_image *out);

#endif
