/* Drawing on tbr_image canvases, colormaps, small utilities for the picture tools. */
#ifndef TBR_PIC_CANVAS_H
#define TBR_PIC_CANVAS_H
#include <stddef.h>
#include <stdint.h>

#include "tbr/png_io.h"

typedef struct {
    uint8_t r, g, b;
} pic_rgb;

/* Heatmap overlay alpha (out of 255): out = (A*map + (255-A)*frame + 127) / 255 per channel. */
#define PIC_HEAT_ALPHA 153

uint8_t pic_blend8(uint8_t over, uint8_t under, unsigned alpha);
void pic_fill(tbr_image *img, pic_rgb c);
void pic_fill_rect(tbr_image *img, int x, int y, int w, int h, pic_rgb c);
void pic_blend_rect(tbr_image *img, int x, int y, int w, int h, pic_rgb c, unsigned alpha);
void pic_rect_outline(tbr_image *img, int x, int y, int w, int h, pic_rgb c);
/* Draw text with the tbr 5x7 font, top-left at (x, y), each font pixel scale x scale. */
void pic_text(tbr_image *img, int x, int y, const char *s, int scale, pic_rgb c);
int pic_text_width(const char *s, int scale);
int pic_text_height(int scale);

/* Perceptually ordered colormap (viridis, 9 samples, linear interpolation in
 * sRGB, rounded): t in [0,1] (clamped). */
pic_rgb pic_colormap(double t);
/* The 9 control points (for tests/docs): t = i/8. */
pic_rgb pic_colormap_anchor(int i);
/* Categorical palette (colour-blind safe, 8 entries, cycling). */
pic_rgb pic_category_color(int i);

/* Compact number: 123, 12.3k, 1.23M, 0.875 (at most 4 significant digits). */
void pic_fmt_number(double v, char *buf, size_t n);

/* Write a whole file through PATH.tmp + rename. 0 ok, -1 with a message naming PATH. */
int pic_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t err_size);
/* mkdir -p; 0 ok. */
int pic_mkdirs(const char *path, char *err, size_t err_size);
#endif
