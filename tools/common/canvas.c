#include "canvas.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "font.h"

uint8_t pic_blend8(uint8_t over, uint8_t under, unsigned alpha)
{
    return (uint8_t)((alpha * over + (255u - alpha) * under + 127u) / 255u);
}

static uint8_t *px(tbr_image *img, int x, int y) { return img->pixels + (size_t)y * img->stride + (size_t)x * 4; }

void pic_blend_rect(tbr_image *img, int x, int y, int w, int h, pic_rgb c, unsigned alpha)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w, y1 = y + h;
    if (x1 > (int)img->width) x1 = (int)img->width;
    if (y1 > (int)img->height) y1 = (int)img->height;
    for (int yy = y0; yy < y1; yy++)
        for (int xx = x0; xx < x1; xx++) {
            uint8_t *p = px(img, xx, yy);
            if (alpha >= 255) {
                p[0] = c.r;
                p[1] = c.g;
                p[2] = c.b;
            } else {
                p[0] = pic_blend8(c.r, p[0], alpha);
                p[1] = pic_blend8(c.g, p[1], alpha);
                p[2] = pic_blend8(c.b, p[2], alpha);
            }
            p[3] = 255;
        }
}

void pic_fill_rect(tbr_image *img, int x, int y, int w, int h, pic_rgb c) { pic_blend_rect(img, x, y, w, h, c, 255); }

void pic_fill(tbr_image *img, pic_rgb c) { pic_fill_rect(img, 0, 0, (int)img->width, (int)img->height, c); }

void pic_rect_outline(tbr_image *img, int x, int y, int w, int h, pic_rgb c)
{
    pic_fill_rect(img, x, y, w, 1, c);
    pic_fill_rect(img, x, y + h - 1, w, 1, c);
    pic_fill_rect(img, x, y, 1, h, c);
    pic_fill_rect(img, x + w - 1, y, 1, h, c);
}

void pic_text(tbr_image *img, int x, int y, const char *s, int scale, pic_rgb c)
{
    for (; *s; s++, x += TBR_FONT_ADVANCE * scale)
        for (int r = 0; r < TBR_FONT_H; r++)
            for (int col = 0; col < TBR_FONT_W; col++)
                if (tbr_font_glyph_bit(*s, col, r)) pic_fill_rect(img, x + col * scale, y + r * scale, scale, scale, c);
}

int pic_text_width(const char *s, int scale) { return tbr_font_text_width(s, scale); }
int pic_text_height(int scale) { return TBR_FONT_H * scale; }

static const pic_rgb VIRIDIS9[9] = {
    {68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
    {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
};

pic_rgb pic_colormap_anchor(int i)
{
    if (i < 0) i = 0;
    if (i > 8) i = 8;
    return VIRIDIS9[i];
}

pic_rgb pic_colormap(double t)
{
    if (!(t > 0)) t = 0; /* also NaN */
    if (t > 1) t = 1;
    double f = t * 8;
    int i = (int)f;
    if (i >= 8) return VIRIDIS9[8];
    double u = f - i;
    pic_rgb a = VIRIDIS9[i], b = VIRIDIS9[i + 1];
    pic_rgb o = {(uint8_t)lround(a.r + (b.r - a.r) * u), (uint8_t)lround(a.g + (b.g - a.g) * u),
                 (uint8_t)lround(a.b + (b.b - a.b) * u)};
    return o;
}

pic_rgb pic_category_color(int i)
{
    static const pic_rgb P[8] = {
        {0, 114, 178},  {230, 159, 0}, {0, 158, 115},  {204, 121, 167},
        {86, 180, 233}, {213, 94, 0},  {240, 228, 66}, {120, 120, 120},
    };
    if (i < 0) i = -i;
    return P[i % 8];
}

void pic_fmt_number(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (isnan(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    if (a >= 1e9)
        snprintf(buf, n, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, n, "%.3gk", v / 1e3);
    else if (a == floor(a))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.3g", v);
}

int pic_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 5);
    if (!tmp) {
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int bad = len && fwrite(data, 1, len, f) != len;
    if (fclose(f)) bad = 1;
    if (bad || rename(tmp, path)) {
        snprintf(err, err_size, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int pic_mkdirs(const char *path, char *err, size_t err_size)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        snprintf(err, err_size, "%s: bad directory name", path);
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0777) && errno != EEXIST) {
                snprintf(err, err_size, "%s: cannot create directory: %s", buf, strerror(errno));
                return -1;
            }
            buf[i] = c;
        }
    }
    struct stat st;
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s: not a directory", path);
        return -1;
    }
    return 0;
}
