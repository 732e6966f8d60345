/*
 * Full-reference image quality of one RGBA8 image against another of the same size:
 * PSNR over the R, G and B samples and SSIM on luma (Wang, Bovik, Sheikh, Simoncelli,
 * "Image quality assessment: from error visibility to structural similarity", IEEE TIP
 * 13(4), 2004: 11x11 Gaussian window, sigma 1.5, K1 = 0.01, K2 = 0.03, L = 255, mean of
 * the SSIM map over every window position inside the image). Alpha is ignored: it is
 * not what a display shows, and apitrace's snapshots have none.
 * Used by tbr-replay --crosscheck (docs/verification.md "Crosscheck against llvmpipe").
 */
#ifndef TBR_IMAGE_QUALITY_H
#define TBR_IMAGE_QUALITY_H

#include "tbr/png_io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tbr_image_quality {
    double mse;     /* mean squared error per R/G/B sample (0..65025) */
    double psnr_db; /* 10 log10(255^2 / mse); INFINITY when the RGB samples are identical */
    double ssim;    /* mean SSIM of the luma planes, -1..1 (1 = identical) */
} tbr_image_quality;

/* Compares `test` against `ref`. Returns 0, or -1 if the sizes differ or memory runs out
 * (message in err, which may be NULL). Images smaller than the window in either
 * direction use one window covering the whole image. */
int tbr_image_quality_compare(const tbr_image *ref, const tbr_image *test, tbr_image_quality *q, char *err,
                              size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
