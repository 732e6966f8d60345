/* tbrsim recorder: packed QUADS colors and the shadow of softpipe's tile colors.
 * See color_shadow.h and docs/trace-records.md QUADS "Packed colors". */
#include "color_shadow.h"

#include <stdlib.h>
#include <string.h>

#include "blend_record.h"

struct tbr_cs_tile {
    uint32_t resource_id, level, layer, tile_x, tile_y;
    uint32_t nflagged;                        /* pixels with flags != 0 */
    uint8_t flags[TBR_CS_TILE * TBR_CS_TILE]; /* TBR_MASK_* channels held in v */
    float v[TBR_CS_TILE * TBR_CS_TILE][4];    /* softpipe's float value of those channels */
};

bool tbr_cs_format_packable(tbr_pixel_format f)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    return info && info->is_color && info->normalized && !info->is_float && info->bytes <= 4;
}

void tbr_cs_free(tbr_color_shadow *cs)
{
    tbr_cs_drop_all(cs);
    free(cs->tiles);
    cs->tiles = NULL;
    cs->cap_tiles = 0;
}

void tbr_cs_set_cbuf(tbr_color_shadow *cs, uint32_t i, bool valid, uint32_t resource_id, uint32_t level,
                     uint32_t first_layer, uint32_t last_layer, const char *format_name)
{
    if (i >= TBR_REC_MAX_CBUFS) return;
    struct tbr_cs_cbuf *c = &cs->cbuf[i];
    c->valid = valid;
    c->resource_id = resource_id;
    c->level = level;
    c->layer = first_layer;
    c->layered = last_layer != first_layer;
    c->format = valid && format_name ? tbr_format_from_name(format_name) : TBR_PF_NONE;
    c->packable = valid && !c->layered && tbr_cs_format_packable(c->format);
    /* RGBA8/BGRA8-like formats (every channel stored in its own byte) take a direct path
     * in tbr_cs_quad; where each channel lands is found by packing unit colors */
    c->rgba8 = c->packable && tbr_format_get_info(c->format)->bytes == 4;
    uint32_t seen = 0;
    for (int ch = 0; ch < 4 && c->rgba8; ch++) {
        float unit[4] = {0, 0, 0, 0};
        unit[ch] = 1.0f;
        uint8_t b[4] = {0, 0, 0, 0};
        tbr_pack_rgba_float(c->format, unit, b);
        const uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        int k = 0;
        while (k < 4 && v != 0xffu << (8 * k)) k++;
        if (k == 4 || (seen & (1u << k)))
            c->rgba8 = false; /* not one whole byte per channel (e.g. RGBX, 10-bit, 565) */
        else {
            seen |= 1u << k;
            c->byte_shift[ch] = (uint8_t)(8 * k);
        }
    }
}

void tbr_cs_set_nr_cbufs(tbr_color_shadow *cs, uint32_t nr_cbufs)
{
    cs->nr_cbufs = nr_cbufs > TBR_REC_MAX_CBUFS ? TBR_REC_MAX_CBUFS : nr_cbufs;
    for (uint32_t i = cs->nr_cbufs; i < TBR_REC_MAX_CBUFS; i++) cs->cbuf[i].valid = false;
}

uint32_t tbr_cs_begin_draw(tbr_color_shadow *cs, const tbr_rec_draw *draw, bool enable)
{
    tbr_blend_state_from_draw(&cs->blend, draw);
    tbr_pixel_format formats[TBR_MAX_COLOR_BUFS];
    for (uint32_t i = 0; i < cs->nr_cbufs; i++) formats[i] = cs->cbuf[i].valid ? cs->cbuf[i].format : TBR_PF_NONE;
    cs->path = tbr_blend_choose_path(&cs->blend, cs->nr_cbufs, formats);
    cs->packed_mask = 0;
    if (!enable || draw->logicop_enable || cs->path == TBR_BLEND_PATH_NOOP) return 0;
    const uint32_t n = tbr_blend_path_cbufs(cs->path, cs->nr_cbufs);
    for (uint32_t i = 0; i < n && i < draw->nr_cbufs; i++) {
        const tbr_rt_blend_state *rt = &cs->blend.rt[cs->blend.independent_blend_enable ? i : 0];
        if (cs->cbuf[i].packable && !rt->blend_enable && !tbr_blend_is_dual(&cs->blend, i)) cs->packed_mask |= 1u << i;
    }
    return cs->packed_mask;
}

static bool tile_is(const tbr_cs_tile *t, const struct tbr_cs_cbuf *c, uint32_t tx, uint32_t ty)
{
    return t->tile_x == tx && t->tile_y == ty && t->resource_id == c->resource_id && t->level == c->level &&
           t->layer == c->layer;
}

static tbr_cs_tile *lookup(tbr_color_shadow *cs, const struct tbr_cs_cbuf *c, uint32_t tx, uint32_t ty, bool create)
{
    if (cs->last && tile_is(cs->last, c, tx, ty)) return cs->last;
    tbr_cs_tile *t = NULL;
    for (uint32_t k = 0; k < cs->ntiles && !t; k++)
        if (tile_is(cs->tiles[k], c, tx, ty)) t = cs->tiles[k];
    if (!t && create) {
        if (cs->ntiles == cs->cap_tiles) {
            uint32_t nc = cs->cap_tiles ? cs->cap_tiles * 2 : 16;
            tbr_cs_tile **nt = realloc(cs->tiles, nc * sizeof(*nt));
            if (!nt) return NULL;
            cs->tiles = nt;
            cs->cap_tiles = nc;
        }
        t = calloc(1, sizeof(*t));
        if (!t) return NULL;
        t->resource_id = c->resource_id;
        t->level = c->level;
        t->layer = c->layer;
        t->tile_x = tx;
        t->tile_y = ty;
        cs->tiles[cs->ntiles++] = t;
        if (cs->ntiles > cs->shadow_tiles_max) cs->shadow_tiles_max = cs->ntiles;
    }
    if (t) cs->last = t;
    return t;
}

static void drop_index(tbr_color_shadow *cs, uint32_t k)
{
    if (cs->last == cs->tiles[k]) cs->last = NULL;
    free(cs->tiles[k]);
    cs->tiles[k] = cs->tiles[--cs->ntiles];
}

static void set_flags(tbr_cs_tile *t, uint32_t p, uint8_t flags)
{
    if (!t->flags[p] && flags)
        t->nflagged++;
    else if (t->flags[p] && !flags)
        t->nflagged--;
    t->flags[p] = flags;
}

static uint32_t pack_u32(tbr_pixel_format f, const float rgba[4])
{
    uint8_t b[4] = {0, 0, 0, 0};
    tbr_pack_rgba_float(f, rgba, b);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* index of fragment j of quad r in its 64x64 tile */
static uint32_t tile_pixel(const tbr_rec_quad *r, int j)
{
    return (uint32_t)(r->x % TBR_CS_TILE + (j & 1)) + (uint32_t)(r->y % TBR_CS_TILE + (j >> 1)) * TBR_CS_TILE;
}

int tbr_cs_quad(tbr_color_shadow *cs, tbr_rec_quad *r, uint32_t nr_cbufs)
{
    if (!(r->flags & TBR_REC_QUAD_BLENDED) || r->x < 0 || r->y < 0) return 0;
    const uint32_t tx = (uint32_t)r->x / TBR_CS_TILE, ty = (uint32_t)r->y / TBR_CS_TILE;
    const uint32_t n = tbr_blend_path_cbufs(cs->path, cs->nr_cbufs);
    for (uint32_t cb = 0; cb < n && cb < nr_cbufs; cb++) {
        const struct tbr_cs_cbuf *c = &cs->cbuf[cb];
        if (!c->packable) continue; /* never packed, so never flagged */
        const unsigned written = tbr_blend_written_channels(&cs->blend, cs->path, cb);
        if (cs->packed_mask & (1u << cb)) {
            tbr_cs_tile *t = NULL;
            for (int j = 0; j < 4; j++) {
                if (!(r->blend_mask & (1u << j))) continue;
                const float zero[4] = {0, 0, 0, 0};
                float src[4], out[4], back[4];
                for (int ch = 0; ch < 4; ch++) src[ch] = r->color[cb][ch][j];
                tbr_blend_pixel(&cs->blend, cs->path, cb, c->format, src, NULL, zero, out);
                for (int ch = 0; ch < 4; ch++)
                    if (!(written & (1u << ch))) out[ch] = 0.0f;
                /* channels whose float the simulator's unpacked value does not equal */
                unsigned differ = 0;
                if (c->rgba8) { /* the same values as the general path below */
                    uint32_t packed = 0;
                    for (int ch = 0; ch < 4; ch++) {
                        const uint8_t ub = tbr_float_to_ubyte(out[ch]);
                        packed |= (uint32_t)ub << c->byte_shift[ch];
                        back[ch] = tbr_ubyte_to_float(ub);
                    }
                    r->packed[cb][j] = packed;
                } else {
                    r->packed[cb][j] = pack_u32(c->format, out);
                    uint8_t b[4];
                    for (int k = 0; k < 4; k++) b[k] = (uint8_t)(r->packed[cb][j] >> (8 * k));
                    tbr_unpack_rgba_float(c->format, b, back);
                }
                cs->packed_fragments++;
                for (int ch = 0; ch < 4; ch++)
                    if ((written & (1u << ch)) && memcmp(&back[ch], &out[ch], sizeof(float)) != 0) differ |= 1u << ch;
                const uint32_t px = tile_pixel(r, j);
                if (!t) t = lookup(cs, c, tx, ty, differ != 0);
                if (!t) {
                    if (differ) {
                        cs->out_of_memory = 1;
                        return -1;
                    }
                    continue;
                }
                for (int ch = 0; ch < 4; ch++)
                    if (differ & (1u << ch)) t->v[px][ch] = out[ch];
                set_flags(t, px, (uint8_t)((t->flags[px] & ~written) | differ));
            }
            continue;
        }
        /* a float color buffer: a blend (or logic op) reads the destination */
        tbr_cs_tile *t = lookup(cs, c, tx, ty, false);
        if (!t) continue;
        const tbr_rt_blend_state *rt = &cs->blend.rt[cs->blend.independent_blend_enable ? cb : 0];
        const bool reads = rt->blend_enable || cs->blend.logicop_enable;
        for (int j = 0; j < 4; j++) {
            if (!(r->blend_mask & (1u << j))) continue;
            const uint32_t px = tile_pixel(r, j);
            const uint8_t fl = t->flags[px];
            if (!fl) continue;
            if (reads) {
                for (int ch = 0; ch < 4; ch++)
                    if (fl & (1u << ch)) {
                        r->exact_mask[cb] |= 1u << (4 * j + ch);
                        r->exact[cb][ch][j] = t->v[px][ch];
                        cs->exact_values++;
                    }
            }
            set_flags(t, px, (uint8_t)(fl & ~written));
        }
    }
    return 0;
}

void tbr_cs_tile_event(tbr_color_shadow *cs, uint32_t kind, uint32_t resource_id, uint32_t level, uint32_t layer,
                       uint32_t tile_x, uint32_t tile_y)
{
    for (uint32_t k = 0; k < cs->ntiles;) {
        tbr_cs_tile *t = cs->tiles[k];
        const bool surface = t->resource_id == resource_id && t->level == level && t->layer == layer;
        if (surface && (kind == TBR_REC_TILE_CLEAR_ALL || (t->tile_x == tile_x && t->tile_y == tile_y)))
            drop_index(cs, k);
        else
            k++;
    }
}

void tbr_cs_drop_all(tbr_color_shadow *cs)
{
    while (cs->ntiles) drop_index(cs, cs->ntiles - 1);
    cs->last = NULL;
}
