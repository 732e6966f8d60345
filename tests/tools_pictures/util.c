/* Test helper of tests/tools_pictures: fixture generator and picture measurements.
 *   util fixture DIR              writes DIR/{a,b,c} (tbr-sim output dirs) and DIR/replay/reference
 *   util heat-cycles MAP.png      checks tile-centre colours of the cycles heatmap of DIR/a frame 0
 *   util heat-cat MAP.png KIND    KIND = ru-derived | re-skipped
 *   util pixel IMG.png X Y        prints R G B
 *   util legend MAP.png           legend strip present (not uniform)
 *   util bars CHART.png NSERIES   prints the bar heights of each series, left to right
 * Exit 0 = pass, 1 = check failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tbr/png_io.h"

/* the fixture: 64x48 frames, 16x16 tiles -> 4 x 3 tiles; frame colour (200,100,50) */
#define FW 64
#define FH 48
#define T  16
static const unsigned char FRAME_RGB[3] = {200, 100, 50};
/* cycles per tile, row-major; min 0, max 800 -> t = v/800 = k/8 hits the colormap's control
 * points exactly; -1 = null (no value: the frame shows through unchanged) */
static const int CYC[12] = {0, 100, 200, 300, 400, 500, 600, 700, 800, 400, 200, -1};
static const int SKIP[12] = {0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1};
/* viridis control points as documented in docs/tools-pictures.md */
static const unsigned char VIR[9][3] = {{68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                        {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}};
static const unsigned char CAT[2][3] = {{0, 114, 178}, {230, 159, 0}};

static int blend(int over, int under) { return (153 * over + 102 * under + 127) / 255; }

static int write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fputs(s, f);
    return fclose(f);
}

static int write_frame(const char *path, int variant)
{
    tbr_image im;
    if (tbr_image_alloc(&im, FW, FH)) return -1;
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++) {
            unsigned char *p = im.pixels + y * im.stride + x * 4;
            p[0] = FRAME_RGB[0];
            p[1] = FRAME_RGB[1];
            p[2] = (unsigned char)(FRAME_RGB[2] + variant);
            p[3] = 255;
        }
    char err[TBR_PNG_ERR_SIZE];
    int r = tbr_png_write_image(path, &im, err, sizeof err);
    if (r) fprintf(stderr, "%s\n", err);
    tbr_image_free(&im);
    return r;
}

static int run_dir(const char *base, const char *name, int total, int raster, int with_tiles)
{
    char p[4096], s[8192], tiles[4096] = "";
    snprintf(p, sizeof p, "%s/%s", base, name);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/%s/frames", base, name);
    mkdir(p, 0777);
    for (int f = 0; f < 2; f++) {
        snprintf(p, sizeof p, "%s/%s/frames/frame_%05d.png", base, name, f);
        if (write_frame(p, 0)) return -1;
    }
    if (with_tiles) {
        char c[512] = "", k[512] = "", fr[512] = "";
        for (int i = 0; i < 12; i++) {
            char v[32];
            if (CYC[i] < 0)
                snprintf(v, sizeof v, "%snull", i ? "," : "");
            else
                snprintf(v, sizeof v, "%s%d", i ? "," : "", CYC[i]);
            strcat(c, v);
            snprintf(v, sizeof v, "%s%d", i ? "," : "", SKIP[i]);
            strcat(k, v);
            snprintf(v, sizeof v, "%s%d", i ? "," : "", 256 * (i + 1)); /* overdraw i+1 */
            strcat(fr, v);
        }
        snprintf(tiles, sizeof tiles,
                 ",\n \"tiles\": {\"tile_width\": 16, \"tile_height\": 16, \"cols\": 4, \"rows\": 3, \"frames\": [\n"
                 "  {\"frame\": 0, \"cycles\": [%s], \"re_skipped\": [%s], \"fragments\": [%s]},\n"
                 "  {\"frame\": 1, \"cycles\": [%s], \"re_skipped\": [%s]}]}",
                 c, k, fr, c, k);
    }
    snprintf(s, sizeof s,
             "{\"tool\": \"tbr-sim\", \"version\": \"test\", \"total_cycles\": %d, \"frames_simulated\": 2,\n"
             " \"frames\": [{\"frame\": 0, \"cycles\": %d, \"reference_checked\": true, \"bit_exact\": true, "
             "\"diff_pixels\": 0, \"max_diff\": 0},\n"
             "            {\"frame\": 1, \"cycles\": %d, \"reference_checked\": true, \"bit_exact\": true, "
             "\"diff_pixels\": 0, \"max_diff\": 0}],\n"
             " \"config\": {\"tile.width\": 16, \"tile.height\": 16, \"tile.raster_units\": 2, \"tile.ru_assignment\": "
             "\"static\", \"tile.order\": \"scanline\"},\n"
             " \"stats\": {\"schema\": \"tbr-stats-1\", \"stats\": {\"cycles.raster\": {\"kind\": \"counter\", "
             "\"desc\": \"x\", \"value\": %d},\n"
             "   \"dram.bytes\": {\"kind\": \"counter\", \"desc\": \"x\", \"value\": 4096}},\n"
             "   \"frames\": [{\"frame\": 0, \"stats\": {\"cycles.raster\": %d}}, {\"frame\": 1, \"stats\": "
             "{\"cycles.raster\": %d}}]}%s}\n",
             total, total / 2, total - total / 2, raster, raster / 2, raster - raster / 2, tiles);
    snprintf(p, sizeof p, "%s/%s/stats.json", base, name);
    return write_text(p, s);
}

static int fixture(const char *dir)
{
    char p[4096];
    mkdir(dir, 0777);
    /* a: 1000 total / 600 raster; b: 500 / 450 (0.5, 0.75 of a); c: 750 / 150 (0.75, 0.25) */
    if (run_dir(dir, "a", 1000, 600, 1) || run_dir(dir, "b", 500, 450, 0) || run_dir(dir, "c", 750, 150, 0)) return 1;
    snprintf(p, sizeof p, "%s/replay", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/replay/reference", dir);
    mkdir(p, 0777);
    for (int f = 0; f < 2; f++) {
        snprintf(p, sizeof p, "%s/replay/reference/frame_%05d.png", dir, f);
        if (write_frame(p, 5)) return 1;
    }
    snprintf(p, sizeof p, "%s/bad.json", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/bad.json/stats.json", dir);
    return write_text(p, "{\"frames\": [1, 2,, 3]}\n") ? 1 : 0;
}

static int load(const char *path, tbr_image *im)
{
    char err[TBR_PNG_ERR_SIZE];
    if (tbr_png_read_rgba8(path, im, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static const unsigned char *px(const tbr_image *im, int x, int y) { return im->pixels + y * im->stride + x * 4; }

static int expect(const tbr_image *im, int tile, int r, int g, int b)
{
    int x = (tile % 4) * T + T / 2, y = (tile / 4) * T + T / 2;
    const unsigned char *p = px(im, x, y);
    if (p[0] != r || p[1] != g || p[2] != b) {
        fprintf(stderr, "tile %d centre (%d,%d): got (%d,%d,%d), expected (%d,%d,%d)\n", tile, x, y, p[0], p[1], p[2],
                r, g, b);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "fixture")) return fixture(argv[2]);
    tbr_image im = {0};
    if (argc < 3 || load(argv[2], &im)) return 2;
    int bad = 0;
    if (!strcmp(argv[1], "heat-cycles")) {
        /* hand-computed: (153*map + 102*frame + 127) / 255 per channel over frame (200,100,50)
     * tile 0: v=0   -> (68,1,84)    -> (121,41,70)
     * tile 4: v=400 -> (33,144,141) -> (100,126,105)
     * tile 8: v=800 -> (253,231,37) -> (232,179,42)
     * tile 11: null -> frame colour (200,100,50) */
        bad |= expect(&im, 0, 121, 41, 70);
        bad |= expect(&im, 4, 100, 126, 105);
        bad |= expect(&im, 8, 232, 179, 42);
        bad |= expect(&im, 11, 200, 100, 50);
        for (int i = 0; i < 11; i++) {
            const unsigned char *v = VIR[CYC[i] / 100];
            bad |= expect(&im, i, blend(v[0], 200), blend(v[1], 100), blend(v[2], 50));
        }
    } else if (!strcmp(argv[1], "heat-cat") && argc >= 4) {
        int ru = !strcmp(argv[3], "ru-derived");
        /* ru-derived: static round robin over 2 RUs in scanline order -> RU = tile % 2
     * tile 0 RU0 (0,114,178) -> (80,108,127); tile 1 RU1 (230,159,0) -> (218,135,20) */
        if (ru) {
            bad |= expect(&im, 0, 80, 108, 127);
            bad |= expect(&im, 1, 218, 135, 20);
        }
        for (int i = 0; i < 12; i++) {
            int c = ru ? i % 2 : SKIP[i];
            bad |= expect(&im, i, blend(CAT[c][0], 200), blend(CAT[c][1], 100), blend(CAT[c][2], 50));
        }
    } else if (!strcmp(argv[1], "pixel") && argc >= 5) {
        int x = atoi(argv[3]), y = atoi(argv[4]);
        if (x < 0 || y < 0 || x >= (int)im.width || y >= (int)im.height)
            bad = 1;
        else
            printf("%d %d %d\n", px(&im, x, y)[0], px(&im, x, y)[1], px(&im, x, y)[2]);
    } else if (!strcmp(argv[1], "legend")) {
        if (im.width < FW || im.height <= FH + 10) {
            fprintf(stderr, "no legend strip: %ux%u\n", im.width, im.height);
            bad = 1;
        }
        int distinct = 0;
        const unsigned char *first = px(&im, 0, FH);
        for (unsigned y = FH; y < im.height; y++)
            for (unsigned x = 0; x < im.width; x++)
                if (memcmp(px(&im, (int)x, (int)y), first, 3)) distinct++;
        if (distinct < 50) {
            fprintf(stderr, "legend region nearly uniform (%d differing pixels)\n", distinct);
            bad = 1;
        }
    } else if (!strcmp(argv[1], "bars") && argc >= 4) {
        /* bars of series s are filled with the categorical colour s; a bar = a run of adjacent
     * columns that contain that colour, its height = pixels of that colour in its middle column.
     * Runs after the plot (the legend swatch) are printed too; the caller takes the first ones. */
        static const unsigned char SER[4][3] = {{0, 114, 178}, {230, 159, 0}, {0, 158, 115}, {204, 121, 167}};
        int ns = atoi(argv[3]);
        for (int s = 0; s < ns && s < 4; s++) {
            int x = 0;
            printf("series%d:", s);
            while (x < (int)im.width) {
                int cnt = 0;
                for (unsigned y = 0; y < im.height; y++) cnt += !memcmp(px(&im, x, (int)y), SER[s], 3);
                if (!cnt) {
                    x++;
                    continue;
                }
                int x0 = x;
                while (x < (int)im.width) {
                    int c2 = 0;
                    for (unsigned y = 0; y < im.height; y++) c2 += !memcmp(px(&im, x, (int)y), SER[s], 3);
                    if (!c2) break;
                    x++;
                }
                int mid = (x0 + x) / 2, h = 0;
                for (unsigned y = 0; y < im.height; y++) h += !memcmp(px(&im, mid, (int)y), SER[s], 3);
                printf(" %d", h);
            }
            printf("\n");
        }
    } else {
        fprintf(stderr, "unknown command\n");
        bad = 2;
    }
    tbr_image_free(&im);
    return bad;
}
