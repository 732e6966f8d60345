/* tbrsim: on-chip tile buffers (Color Buffer per render target, Depth/Stencil Buffer)
 * of one W x H screen tile, functionally equal to softpipe's tile cache entries:
 * colors as 4 floats per pixel, depth/stencil as raw stored words.
 *
 * Quantization points (see docs/pixel-exactness.md):
 *  - load:  surface bits -> float via the format's unpack (pipe_get_tile_rgba);
 *  - store: float -> surface bits via the format's pack (pipe_put_tile_rgba);
 *  - clear: the tile holds the RAW float clear color (clear_tile_rgba), not the packed
 *           one; it gets quantized only when stored. If softpipe flushed the cleared
 *           buffer before drawing (e.g. a depth-only clear of a packed depth+stencil
 *           buffer maps it and flushes all tile caches), call
 *           tbr_tile_requantize_color() after the clear (= store + reload).
 * Depth/stencil load/store are raw copies (pipe_get_tile_raw / pipe_put_tile_raw).
 */
#ifndef TBR_TILE_BUFFERS_H
#define TBR_TILE_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blending.h"
#include "depth_stencil.h"
#include "pixel_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_TILE_DEFAULT_W 32 /* thesis Table 4.1 */
#define TBR_TILE_DEFAULT_H 32

/* A frame buffer surface in memory (linear, like softpipe_resource_layout). */
typedef struct {
    tbr_pixel_format format;
    unsigned width, height;
    size_t stride; /* bytes per row */
    uint8_t *data;
} tbr_surface;

typedef struct {
    unsigned w, h; /* tile size in pixels */
    int x0, y0;    /* screen position of the tile's top-left pixel */
    unsigned nr_cbufs;
    tbr_pixel_format cformat[TBR_MAX_COLOR_BUFS]; /* TBR_PF_NONE = unbound slot */
    float *color[TBR_MAX_COLOR_BUFS];             /* w*h*4 floats, row-major, RGBA */
    tbr_pixel_format zsformat;                    /* TBR_PF_NONE = no depth/stencil */
    uint64_t *zs;                                 /* w*h raw words */
} tbr_tile_buffers;

/* Allocates the buffers (contents zero). Returns false on bad arguments/OOM. */
bool tbr_tile_init(tbr_tile_buffers *tb, unsigned w, unsigned h, unsigned nr_cbufs, const tbr_pixel_format *cformats,
                   tbr_pixel_format zsformat);
void tbr_tile_free(tbr_tile_buffers *tb);
/* Moves the tile to screen position (x0, y0) (contents unchanged). */
void tbr_tile_set_origin(tbr_tile_buffers *tb, int x0, int y0);

/* Pixel accessors (tile-local coordinates; NULL if out of range). */
float *tbr_tile_color_at(tbr_tile_buffers *tb, unsigned cbuf, int x, int y);
uint64_t *tbr_tile_zs_at(tbr_tile_buffers *tb, int x, int y);

/* ---- clear ---- */
/* sp_tile_cache clear of a color tile: every pixel = rgba as given (raw float; an
 * all-zero color, -0.0 included, is a memset to +0.0). */
void tbr_tile_clear_color(tbr_tile_buffers *tb, unsigned cbuf, const float rgba[4]);
/* Full depth/stencil clear (softpipe_clear with both buffers, or a format with only one
 * of them): every word = util_pack64_z_stencil(format, depth, stencil). */
void tbr_tile_clear_zs(tbr_tile_buffers *tb, double depth, uint8_t stencil);
/* Partial clear of a combined format (util_clear_depth_stencil read-modify-write):
 * clear_depth / clear_stencil select what is replaced. For a combined format with only
 * one of the two, softpipe also flushes all its tile caches first (the lead must
 * requantize color tiles). */
void tbr_tile_clear_zs_masked(tbr_tile_buffers *tb, bool clear_depth, bool clear_stencil, double depth,
                              uint8_t stencil);
/* The same clear as a word operation: every word w becomes (w & ~mask) | value (value
 * within mask); false if it changes nothing. Consecutive clears compose into one:
 * (m1, v1) then (m2, v2) = (m1 | m2, (v1 & ~m2) | v2), applied once by tbr_tile_zs_apply. */
bool tbr_tile_zs_clear_op(const tbr_tile_buffers *tb, bool clear_depth, bool clear_stencil, double depth,
                          uint8_t stencil, uint64_t *mask, uint64_t *value);
void tbr_tile_zs_apply(tbr_tile_buffers *tb, uint64_t mask, uint64_t value);

/* ---- load / store (tile <-> frame buffer in memory) ----
 * Pixels of the tile outside the surface are not touched (u_clip_tile). */
bool tbr_tile_load_color(tbr_tile_buffers *tb, unsigned cbuf, const tbr_surface *s);
bool tbr_tile_store_color(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s);
bool tbr_tile_load_zs(tbr_tile_buffers *tb, const tbr_surface *s);
bool tbr_tile_store_zs(const tbr_tile_buffers *tb, tbr_surface *s);
/* In-place pack + unpack of every pixel (= what a flush and reload does). */
void tbr_tile_requantize_color(tbr_tile_buffers *tb, unsigned cbuf);

/* The same on a screen-space rectangle (x, y, w, h) intersected with the tile (and,
 * for load/store, with the surface): to replay softpipe's own 64x64 tile events
 * (trace TILE records) on buffers of another size. */
void tbr_tile_clear_color_rect(tbr_tile_buffers *tb, unsigned cbuf, const float rgba[4], int x, int y, unsigned w,
                               unsigned h);
bool tbr_tile_load_color_rect(tbr_tile_buffers *tb, unsigned cbuf, const tbr_surface *s, int x, int y, unsigned w,
                              unsigned h);
/* tbr_tile_store_color_rect for a rectangle whose tile-buffer pixels all hold the same
 * floats (just cleared): the same bytes, packed once. */
bool tbr_tile_store_uniform_color_rect(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s, int x, int y,
                                       unsigned w, unsigned h);
bool tbr_tile_store_color_rect(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s, int x, int y, unsigned w,
                               unsigned h);
void tbr_tile_requantize_color_rect(tbr_tile_buffers *tb, unsigned cbuf, int x, int y, unsigned w, unsigned h);

/* ---- quad operations on the tile (x, y: screen coordinates of the quad's top-left
 * pixel, even; pixel j at (x + (j & 1), y + (j >> 1))) ---- */

/* Depth-bounds/alpha/stencil/depth test of one quad with the fallback algorithm,
 * updating the tile's depth/stencil words. Returns the surviving mask. */
unsigned tbr_tile_ds_quad(tbr_tile_buffers *tb, const tbr_dsa_state *st, int x, int y, const tbr_ds_quad *q);
/* Softpipe's Z16 fast path on a batch (see tbr_ds_z16_fast_batch). */
void tbr_tile_ds_z16_fast_batch(tbr_tile_buffers *tb, tbr_compare_func func, float a0, float dzdx, float dzdy,
                                const int *x, const int *y, unsigned *masks, unsigned nr);

/* Blend one quad into the color buffers, as the blend stage's chosen path does.
 * colors[cbuf][chan][j] = output.color[cbuf][chan][j] (softpipe layout); for
 * fs_color0_writes_all_cbufs only colors[0] is read; dual-source reads colors[cbuf+1].
 * ncolors = number of entries in colors. Only covered pixels are written. */
void tbr_tile_blend_quad(tbr_tile_buffers *tb, const tbr_blend_state *bs, tbr_blend_path path, int x, int y,
                         unsigned mask, const float (*colors)[4][4], unsigned ncolors);

#ifdef __cplusplus
}
#endif
#endif
