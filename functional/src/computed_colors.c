/*
 * computed_colors.c - the recorder decides, quad by quad, whether the trace may
 * omit a blended quad's colors: it recomputes them with functional/reference from
 * exactly what the trace gives tbr-sim (PRIM attributes, DRAW state and constants,
 * the sampled textures' memory) and compares bit for bit with softpipe's.
 */
#include "computed_colors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_quad.h"
#include "setup_coef.h"
#include "tgsi_interp.h"

struct cc_program {
    uint32_t id;
    struct tbr_tgsi_program *prog; /* NULL: not supported (reason) */
    char reason[120];
};

struct cc_prim {
    uint32_t index;
    int valid; /* coefficients computed */
    struct tbr_setup_coefs coefs;
};

struct tbr_computed_colors {
    struct cc_program *progs;
    uint32_t nprogs, cap_progs;
    int draw_on; /* the current draw's quads may be computed */
    int early_z; /* the current draw tests depth before shading */
    uint32_t fs_id;
    tbr_fs_draw draw;
    uint32_t units[TBR_FS_MAX_UNITS];
    uint32_t unit_res[TBR_FS_MAX_UNITS]; /* resource id of units[i] (DRAW record) */
    uint32_t nunits;
    struct cc_prim ring[TBR_CC_RING];
    uint32_t ring_next;
    tbr_cc_stats stats;
    char draw_reason[160];  /* why the current draw is not computed ("" if it is) */
    const char *quad_cause; /* why the last tbr_cc_quad did not run (NULL if it ran) */
};

tbr_computed_colors *tbr_cc_create(void) { return calloc(1, sizeof(tbr_computed_colors)); }

void tbr_cc_destroy(tbr_computed_colors *cc)
{
    if (!cc) return;
    for (uint32_t i = 0; i < cc->nprogs; i++) tbr_tgsi_free(cc->progs[i].prog);
    free(cc->progs);
    free(cc);
}

const tbr_cc_stats *tbr_cc_stats_get(const tbr_computed_colors *cc) { return &cc->stats; }

static struct cc_program *find_program(tbr_computed_colors *cc, uint32_t id)
{
    for (uint32_t i = 0; i < cc->nprogs; i++)
        if (cc->progs[i].id == id) return &cc->progs[i];
    return NULL;
}

void tbr_cc_shader(tbr_computed_colors *cc, uint32_t id, const char *text)
{
    if (!text || find_program(cc, id)) /* ids are never reused: parse once */
        return;
    if (cc->nprogs == cc->cap_progs) {
        uint32_t nc = cc->cap_progs ? 2 * cc->cap_progs : 32;
        struct cc_program *n = realloc(cc->progs, nc * sizeof(*n));
        if (!n) return; /* not computed: colors stay in the trace */
        cc->progs = n;
        cc->cap_progs = nc;
    }
    struct cc_program *p = &cc->progs[cc->nprogs++];
    memset(p, 0, sizeof(*p));
    p->id = id;
    p->prog = tbr_tgsi_parse(text, p->reason, sizeof(p->reason));
}

static void not_computable(tbr_computed_colors *cc, const char *why)
{
    cc->draw_on = 0;
    snprintf(cc->draw_reason, sizeof(cc->draw_reason), "%s", why);
    cc->stats.draws_not_computable++;
    if (!cc->stats.first_reason[0]) snprintf(cc->stats.first_reason, sizeof(cc->stats.first_reason), "%s", why);
}

/* A sampler view of the draw: its DRAW record entry (what tbr-sim will see) over
 * softpipe's memory of the resource (hook). */
static void view_of_unit(struct tbr_texture_view *v, const tbr_rec_texture *rec, const struct tbr_hook_texture *t)
{
    tbr_fs_view_from_record(v, rec);
    v->target = t->res.target;
    v->resource_format = t->res.format;
    v->width0 = t->res.width;
    v->height0 = t->res.height;
    v->depth0 = t->res.depth;
    v->array_size = t->res.array_size;
    v->res_last_level = t->res.last_level;
    for (uint32_t l = 0; t->data && l < t->num_levels && l < TBR_SAMPLER_MAX_LEVELS; l++) {
        v->levels[l].data = (const uint8_t *)t->data + t->level_offset[l];
        v->levels[l].row_stride = t->stride[l];
        v->levels[l].layer_stride = t->img_stride[l];
    }
}

int tbr_cc_begin_draw(tbr_computed_colors *cc, const struct tbr_hook_draw *d, const tbr_rec_texture *textures,
                      uint32_t num_textures, uint32_t fb_height)
{
    char why[160];
    cc->draw_on = 0;
    cc->draw_reason[0] = 0;
    cc->nunits = 0;
    for (uint32_t i = 0; i < TBR_CC_RING; i++) cc->ring[i].valid = 0;
    struct cc_program *p = find_program(cc, d->fs_id);
    if (!p) {
        not_computable(cc, "fragment shader text not seen");
        return 0;
    }
    if (!p->prog) {
        snprintf(why, sizeof(why), "shader: %s", p->reason);
        not_computable(cc, why);
        return 0;
    }
    if (d->unsupported && d->unsupported[0]) {
        snprintf(why, sizeof(why), "draw uses %s", d->unsupported);
        not_computable(cc, why);
        return 0;
    }
    tbr_fs_draw_state st;
    memset(&st, 0, sizeof(st));
    st.flatshade = (int)d->flatshade;
    st.flatshade_first = (int)d->flatshade_first;
    st.front_ccw = (int)d->front_ccw;
    st.half_pixel_center = (int)d->half_pixel_center;
    st.fb_height = fb_height;
    st.nr_cbufs = d->nr_cbufs;
    for (int i = 0; i < 4; i++) {
        st.consts[i] = d->fs_const[i].data;
        st.const_bytes[i] = d->fs_const[i].data ? d->fs_const[i].size : 0;
    }
    if (tbr_fs_draw_prepare(&cc->draw, p->prog, &st, why, sizeof(why)) != 0) {
        not_computable(cc, why);
        return 0;
    }
    uint32_t used = tbr_fs_program_units(p->prog);
    for (uint32_t u = 0; u < TBR_FS_MAX_UNITS; u++) {
        if (!(used & (1u << u))) continue;
        const tbr_rec_texture *rec = NULL;
        for (uint32_t k = 0; k < num_textures; k++)
            if (textures[k].unit == u) rec = &textures[k];
        if (!rec || u >= d->num_textures || !d->textures[u].valid || !d->textures[u].has_sampler) {
            snprintf(why, sizeof(why), "sampler unit %u unbound", u);
            not_computable(cc, why);
            return 0;
        }
        struct tbr_texture_view v;
        view_of_unit(&v, rec, &d->textures[u]);
        if (tbr_fs_draw_set_view(&cc->draw, u, &v, why, sizeof(why)) != 0) {
            not_computable(cc, why);
            return 0;
        }
        cc->unit_res[cc->nunits] = rec->resource_id;
        cc->units[cc->nunits++] = u;
    }
    cc->early_z = d->early_z != 0;
    cc->fs_id = d->fs_id;
    cc->draw_on = 1;
    cc->stats.draws_computable++;
    return 1;
}

uint32_t tbr_cc_draw_units(const tbr_computed_colors *cc, const uint32_t **units)
{
    *units = cc->units;
    return cc->draw_on ? cc->nunits : 0;
}

void tbr_cc_disable_draw(tbr_computed_colors *cc, const char *why)
{
    if (!cc->draw_on) return;
    cc->stats.draws_computable--;
    not_computable(cc, why);
}

void tbr_cc_prim(tbr_computed_colors *cc, const struct tbr_hook_prim *p)
{
    if (!cc->draw_on) return;
    struct cc_prim *r = &cc->ring[cc->ring_next];
    cc->ring_next = (cc->ring_next + 1) % TBR_CC_RING;
    r->index = p->index;
    r->valid = 0;
    if (p->kind != 3 || (p->flags & TBR_HOOK_PRIM_CULLED)) return; /* points and lines: colors recorded */
    char why[120];
    r->valid = tbr_setup_triangle_coefs(&cc->draw.setup, p->v, p->nr_attrs, &r->coefs, why, sizeof(why)) == 0;
}

static void dbg_fetch(void *ctx, unsigned unit, unsigned pc)
{
    (void)ctx;
    fprintf(stderr, "tbr_cc:   fetch unit %u pc %u:", unit, pc);
}

static void dbg_texel(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    (void)ctx;
    fprintf(stderr, " l%u:%u/%u(%d,%d)", lane, level, layer, x, y);
}

/* TBR_CC_DEBUG=1: the first mismatches on stderr (which shader, quad, value), to find
 * what the shading library does differently from softpipe. */
static void report_mismatch(tbr_computed_colors *cc, const struct tbr_hook_quad *q, const struct cc_prim *pr,
                            unsigned mask, const float (*out)[4][4], const float (*colors)[4][4], uint32_t nr_cbufs)
{
    static int reported;
    const char *dbg = getenv("TBR_CC_DEBUG");
    if (!dbg || strcmp(dbg, "1") != 0 || reported >= 20) return;
    reported++;
    for (uint32_t cb = 0; out && cb < nr_cbufs; cb++)
        for (int j = 0; j < 4; j++)
            for (int ch = 0; ch < 4; ch++)
                if ((q->blend_mask & (1u << j)) && memcmp(&out[cb][ch][j], &colors[cb][ch][j], sizeof(float)) != 0) {
                    fprintf(stderr,
                            "tbr_cc: fs %u quad (%d,%d) prim %u masks in %x depth %x blend %x cb %u lane %d ch %d: "
                            "computed %.9g softpipe %.9g\n",
                            cc->fs_id, q->x, q->y, q->prim, q->in_mask, q->depth_mask, q->blend_mask, cb, j, ch,
                            out[cb][ch][j], colors[cb][ch][j]);
                    if (reported <= 3) { /* the texels this library read, to compare with TEXELS */
                        float again[TBR_FS_MAX_CBUFS][4][4];
                        tbr_fs_quad_colors_observed(&cc->draw, &pr->coefs, q->x, q->y, mask, again, dbg_fetch,
                                                    dbg_texel, NULL);
                        fprintf(stderr, "\n");
                    }
                    return;
                }
    fprintf(stderr, "tbr_cc: fs %u quad (%d,%d): not computable\n", cc->fs_id, q->x, q->y);
}

int tbr_cc_quad(tbr_computed_colors *cc, const struct tbr_hook_quad *q, const float (*colors)[4][4], uint32_t nr_cbufs,
                const tbr_cc_texel_observer *obs, int *ran)
{
    const int blended = (q->flags & TBR_HOOK_QUAD_BLENDED) != 0;
    *ran = 0;
    cc->quad_cause = "quad not shaded";
    if (!(q->flags & TBR_HOOK_QUAD_SHADED) || (!blended && !obs)) return 0;
    int ok = 0;
    const struct cc_prim *pr = NULL;
    if (cc->draw_on)
        for (uint32_t i = 0; i < TBR_CC_RING; i++)
            if (cc->ring[i].valid && cc->ring[i].index == q->prim) pr = &cc->ring[i];
    cc->quad_cause = !cc->draw_on ? cc->draw_reason
                     : !pr        ? "not a triangle (line, point) or its setup failed"
                                  : "color buffers differ from the draw's";
    if (pr && (!blended || nr_cbufs == cc->draw.nr_cbufs)) {
        /* lanes entering the shader (quad->inout.mask): after the depth test
         * with early Z, the rasterizer's coverage otherwise */
        const unsigned mask = cc->early_z ? q->depth_mask : q->in_mask;
        float out[TBR_FS_MAX_CBUFS][4][4];
        /* the interpreter without validity tracking, exactly tbr-sim's computation
         * (sim_func.c): the comparison below decides what tbr-sim reproduces, also for a
         * quad whose shader reads a stale register (only if the values still match) */
        const int computed = (obs ? tbr_fs_quad_colors_verified_observed(&cc->draw, &pr->coefs, q->x, q->y, mask, out,
                                                                         obs->fetch, obs->texel, obs->ctx)
                                  : tbr_fs_quad_colors_verified(&cc->draw, &pr->coefs, q->x, q->y, mask, out)) == 0;
        *ran = computed;
        cc->quad_cause = computed ? NULL : "shader run failed (interpreter or sampler call unsupported)";
        if (computed && blended) {
            ok = 1;
            for (uint32_t cb = 0; cb < nr_cbufs && ok; cb++)
                for (int j = 0; j < 4; j++) {
                    if (!(q->blend_mask & (1u << j))) continue;
                    for (int ch = 0; ch < 4; ch++)
                        if (memcmp(&out[cb][ch][j], &colors[cb][ch][j], sizeof(float)) != 0) ok = 0;
                }
        }
        if (!ok && blended) {
            cc->stats.quads_mismatched++;
            report_mismatch(cc, q, pr, mask, computed ? (const float(*)[4][4])out : NULL, colors, nr_cbufs);
        }
    }
    if (!blended) return 0;
    if (ok)
        cc->stats.quads_computed++;
    else
        cc->stats.quads_recorded++;
    return ok;
}

const char *tbr_cc_quad_cause(const tbr_computed_colors *cc) { return cc->quad_cause ? cc->quad_cause : "recomputed"; }

uint32_t tbr_cc_unit_resource(const tbr_computed_colors *cc, uint32_t unit)
{
    for (uint32_t i = 0; cc->draw_on && i < cc->nunits; i++)
        if (cc->units[i] == unit) return cc->unit_res[i];
    return 0;
}

unsigned tbr_cc_attr_components(const tbr_computed_colors *cc, uint32_t slot)
{
    if (!cc->draw_on || slot == 0 || slot > tbr_tgsi_num_inputs(cc->draw.prog)) return 0xfu;
    return tbr_tgsi_input(cc->draw.prog, slot - 1)->usage_mask & 0xfu;
}
