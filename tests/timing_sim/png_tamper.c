/* png_tamper IN OUT X Y: copies the PNG IN to OUT with the red channel of pixel (X,Y)
 * changed by 1: the one-pixel negative control of the frame check (timing_sim.frame_check). */
#include <stdio.h>
#include <stdlib.h>

#include "tbr/png_io.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: png_tamper IN OUT X Y\n");
        return 2;
    }
    char err[TBR_PNG_ERR_SIZE];
    tbr_image im;
    if (tbr_png_read_rgba8(argv[1], &im, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    unsigned x = (unsigned)atoi(argv[3]), y = (unsigned)atoi(argv[4]);
    if (x >= im.width || y >= im.height) {
        fprintf(stderr, "png_tamper: (%u,%u) outside %ux%u\n", x, y, im.width, im.height);
        return 2;
    }
    uint8_t *p = im.pixels + (size_t)y * im.stride + (size_t)x * 4;
    p[0] = p[0] == 255 ? 254 : (uint8_t)(p[0] + 1);
    int rc = tbr_png_write_image(argv[2], &im, err, sizeof err) ? 2 : 0;
    if (rc) fprintf(stderr, "%s\n", err);
    tbr_image_free(&im);
    return rc;
}
