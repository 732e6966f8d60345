/* tbrsim recorder: packed QUADS colors and the shadow of softpipe's tile colors
 * (docs/trace-records.md QUADS, "Packed colors").
 *
 * Where a draw does not blend (no blending, no logic op) into a render target whose
 * format round-trips (unpack then pack gives the same pixel), the trace stores each
 * fragment's color as the pixel the render target would hold: 4 bytes instead of 16.
 * The simulator blends unpack(pixel), which packs to the same memory. softpipe's tile,
 * however, keeps the float value until the tile is stored; a later BLENDED draw that
 * reads it before then must see the float. The recorder therefore keeps, per pixel of
 * each softpipe tile in a tile cache, the float channels whose trace value was packed
 * and differs from the float, and gives them with the blended quad that reads them
 * (exact_mask / exact). The shadow of a tile is dropped when softpipe loads or stores
 * it (TILE events), exactly when softpipe's float copy is replaced or discarded. */
#ifndef TBR_COLOR_SHADOW_H
#define TBR_COLOR_SHADOW_H

#include <stdbool.h>
#include <stdint.h>

#include "blending.h"
#include "pixel_formats.h"
#include "tbr/records.h"

#define TBR_CS_TILE 64 /* softpipe's TILE_SIZE */

typedef struct tbr_cs_tile tbr_cs_tile;

typedef struct tbr_color_shadow {
    struct tbr_cs_cbuf {
        bool valid;
        uint32_t resource_id, level, layer;
        tbr_pixel_format format; /* TBR_PF_NONE if not modelled: never packed */
        bool layered;            /* a layer range: quads do not say their layer, never packed */
        bool packable;           /* valid, not layered, format packable: may be packed */
        bool rgba8;              /* packable with four 8-bit unorm channels: byte_shift */
        uint8_t byte_shift[4];   /* bit position of channel r, g, b, a in the pixel */
    } cbuf[TBR_REC_MAX_CBUFS];
    uint32_t nr_cbufs; /* of the framebuffer */
    /* the current draw */
    tbr_blend_state blend;
    tbr_blend_path path;
    uint32_t packed_mask;
    /* shadow tiles (only tiles holding packed channels that differ from the float) */
    tbr_cs_tile **tiles;
    uint32_t ntiles, cap_tiles;
    tbr_cs_tile *last;
    /* counters */
    uint64_t packed_fragments, exact_values, shadow_tiles_max;
    int out_of_memory;
} tbr_color_shadow;

void tbr_cs_free(tbr_color_shadow *cs);

/* The framebuffer binding: color buffer i is (resource, level, first_layer..last_layer)
 * in the format named format_name (Gallium name; NULL or unknown: never packed). */
void tbr_cs_set_cbuf(tbr_color_shadow *cs, uint32_t i, bool valid, uint32_t resource_id, uint32_t level,
                     uint32_t first_layer, uint32_t last_layer, const char *format_name);
void tbr_cs_set_nr_cbufs(tbr_color_shadow *cs, uint32_t nr_cbufs);

/* A draw begins: returns the QUADS packed_mask of its color buffers (0 if !enable). */
uint32_t tbr_cs_begin_draw(tbr_color_shadow *cs, const tbr_rec_draw *draw, bool enable);

/* One quad of the current draw that reached the blend stage (r->flags has BLENDED;
 * r->color holds the shader outputs, as the hook gave them): fills r->packed for the
 * packed color buffers and r->exact_mask / r->exact for the others, and updates the
 * shadow. Returns -1 if out of memory. */
int tbr_cs_quad(tbr_color_shadow *cs, tbr_rec_quad *r, uint32_t nr_cbufs);

/* softpipe tile-cache events of a color buffer (TBR_REC_TILE_* kinds). */
void tbr_cs_tile_event(tbr_color_shadow *cs, uint32_t kind, uint32_t resource_id, uint32_t level, uint32_t layer,
                       uint32_t tile_x, uint32_t tile_y);
/* Every tile cache of every context discarded (a context was destroyed). */
void tbr_cs_drop_all(tbr_color_shadow *cs);

/* 1 if packing is exact for format f: every pixel value round-trips through
 * unpack/pack (unorm formats of at most 32 bits). */
bool tbr_cs_format_packable(tbr_pixel_format f);

#endif
