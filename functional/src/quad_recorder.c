/* tbrsim recorder: QUADS records and their texels (quad_recorder.h). */
#include "quad_recorder.h"

#include <stdlib.h>
#include <string.h>

void qr_init(struct quad_recorder *qr, struct rec_status *st)
{
    qr->st = st;
    tbr_buf_init(&qr->quads);
    tbr_buf_init(&qr->tx_buf);
}

void qr_set_options(struct quad_recorder *qr, int derive_texels, uint32_t texel_reject_every)
{
    qr->derive_texels = derive_texels;
    qr->texel_reject_every = texel_reject_every;
}

void qr_set_depth_options(struct quad_recorder *qr, int derive_depths, uint32_t depth_reject_every)
{
    qr->derive_depths = derive_depths;
    qr->depth_reject_every = depth_reject_every;
}

void qr_prim(struct quad_recorder *qr, const struct tbr_hook_prim *p, const struct draw_recorder *dr)
{
    if (!qr->derive_depths) return;
    if (!qr->depth_draw_set || qr->depth_draw_seq != dr->rec.seq) {
        tbr_depth_draw_init(&qr->depth_draw, &dr->rec);
        qr->depth_draw_seq = dr->rec.seq;
        qr->depth_draw_set = 1;
        for (uint32_t i = 0; i < QR_DEPTH_RING; i++) qr->depth_ring[i].plane.valid = 0;
    }
    struct qr_depth_prim *r = &qr->depth_ring[qr->depth_ring_next];
    qr->depth_ring_next = (qr->depth_ring_next + 1) % QR_DEPTH_RING;
    r->index = p->index;
    r->plane.valid = 0;
    if (!(p->flags & TBR_HOOK_PRIM_CULLED)) tbr_depth_plane_init(&r->plane, &qr->depth_draw, p->kind, p->v);
}

/* Whether a reader derives quad q's depths exactly (records minor 12): its primitive's
 * plane gives softpipe's z[] bit for bit. Counted per HAS_Z quad. */
static int depths_derivable(struct quad_recorder *qr, const struct tbr_hook_quad *q, const struct draw_recorder *dr)
{
    if (!qr->derive_depths || !qr->depth_draw_set || qr->depth_draw_seq != dr->rec.seq) return 0;
    const tbr_depth_plane *pl = NULL;
    for (uint32_t i = 0; i < QR_DEPTH_RING && !pl; i++)
        if (qr->depth_ring[i].index == q->prim && qr->depth_ring[i].plane.valid) pl = &qr->depth_ring[i].plane;
    uint32_t z[4];
    if (!pl || tbr_depth_plane_quad(pl, &qr->depth_draw, q->x, q->y, z) != 0) return 0;
    if (memcmp(z, q->z, sizeof(z)) != 0) {
        qr->depths_mismatched++;
        return 0;
    }
    if (qr->depth_reject_every && ++qr->depth_reject_count % qr->depth_reject_every == 0) return 0;
    return 1;
}

void qr_free(struct quad_recorder *qr)
{
    tbr_buf_free(&qr->quads);
    for (uint32_t i = 0; i < qr->cap_closed; i++) tbr_buf_free(&qr->closed[i].buf);
    free(qr->closed);
    qr->closed = NULL;
    qr->nclosed = qr->cap_closed = 0;
    free(qr->batch);
    qr->batch = NULL;
    qr->batch_n = qr->cap_batch = 0;
    free(qr->slot_first);
    free(qr->slot_order);
    qr->slot_first = qr->slot_order = NULL;
    qr->cap_slot_first = qr->cap_slot_order = 0;
    qr->derive_texels = 0;
    qr->batch_waiting = 0;
    free(qr->tx_fetch);
    free(qr->tx_texel);
    tbr_buf_free(&qr->tx_buf);
    qr->tx_fetch = NULL;
    qr->tx_texel = NULL;
    qr->tx_head = qr->tx_nfetch = 0;
    qr->tx_ntexel = 0;
    qr->tx_capfetch = 0;
    qr->tx_captexel = 0;
}

/* Writes the pending fetches of quads before draw ordinal keep_from (closed records) as
 * a TEXELS record; fetches of later quads (the open record) stay pending. Only quads of
 * records that are not derived have fetches here (process_quads copies no others).
 * Pending fetches are tx_fetch[tx_head .. tx_nfetch), in draw-ordinal order. The written
 * prefix is dropped by moving tx_head; the arrays are compacted only once the dropped
 * part outgrows the kept one (this runs after every quads batch, and moving the open
 * record's fetches each time would copy them over and over). */
static void flush_texels(struct quad_recorder *qr, uint32_t keep_from, struct stream_writer *sw)
{
    uint32_t end = qr->tx_head;
    while (end < qr->tx_nfetch && qr->tx_fetch[end].quad < keep_from) end++;
    if (end == qr->tx_head) return;
    for (uint32_t i = qr->tx_head; i < end; i++) /* offsets -> pointers (dropped next) */
        qr->tx_fetch[i].texels = qr->tx_texel + (size_t)(uintptr_t)qr->tx_fetch[i].texels;
    tbr_buf_reset(&qr->tx_buf);
    if (tbr_rec_texels_encode(&qr->tx_buf, qr->tx_draw_seq, &qr->tx_fetch[qr->tx_head], end - qr->tx_head) != 0)
        rec_fail(qr->st, "cannot encode a TEXELS record");
    else
        sw_append(sw, TBR_REC_TEXELS, &qr->tx_buf);
    qr->tx_head = end;
    if (qr->tx_head == qr->tx_nfetch) {
        qr->tx_head = qr->tx_nfetch = 0;
        qr->tx_ntexel = 0;
    } else if (qr->tx_head > qr->tx_nfetch - qr->tx_head) {
        const size_t off0 = (size_t)(uintptr_t)qr->tx_fetch[qr->tx_head].texels;
        const uint32_t nkeep = qr->tx_nfetch - qr->tx_head;
        memmove(qr->tx_fetch, &qr->tx_fetch[qr->tx_head], nkeep * sizeof(*qr->tx_fetch));
        for (uint32_t i = 0; i < nkeep; i++)
            qr->tx_fetch[i].texels = (const tbr_rec_texel *)((uintptr_t)qr->tx_fetch[i].texels - off0);
        memmove(qr->tx_texel, &qr->tx_texel[off0], (qr->tx_ntexel - off0) * sizeof(*qr->tx_texel));
        qr->tx_ntexel -= off0;
        qr->tx_nfetch = nkeep;
        qr->tx_head = 0;
    }
}

/* The pending QUADS record becomes a closed one (written once its batch was compared). */
static void close_quads_record(struct quad_recorder *qr)
{
    if (!qr->quads_count) return;
    if (qr->nclosed == qr->cap_closed) {
        uint32_t nc = qr->cap_closed ? 2 * qr->cap_closed : 8;
        struct quads_closed *n = realloc(qr->closed, nc * sizeof(*n));
        if (!n) {
            rec_fail(qr->st, "out of memory (QUADS records)");
            return;
        }
        memset(n + qr->cap_closed, 0, (nc - qr->cap_closed) * sizeof(*n));
        qr->closed = n;
        qr->cap_closed = nc;
    }
    if (tbr_rec_quads_finish(&qr->quads, qr->quads_count) != 0) rec_fail(qr->st, "cannot finish a QUADS record");
    struct quads_closed *c = &qr->closed[qr->nclosed++];
    tbr_buf spare = c->buf; /* buffers are swapped, keeping their memory */
    c->buf = qr->quads;
    qr->quads = spare;
    tbr_buf_reset(&qr->quads);
    c->shaded = qr->open_shaded;
    c->fetches = qr->open_fetches;
    c->derivable = qr->open_derivable;
    qr->quads_count = 0;
}

/* Writes the closed QUADS records (all: the pending one too) and the TEXELS of their
 * quads whose texels are not derived. Only once the last batch was compared. */
static void write_quads(struct quad_recorder *qr, int all, const struct draw_recorder *dr, struct stream_writer *sw)
{
    if (all) close_quads_record(qr);
    for (uint32_t i = 0; i < qr->nclosed; i++) {
        struct quads_closed *c = &qr->closed[i];
        /* flagged only where texels are left out: a record whose quads read none needs no
         * recomputation for them */
        c->derivable = c->derivable && c->fetches > 0;
        if (c->derivable) {
            tbr_rec_quads_set_texels_derived(&c->buf, 1);
            qr->texels_derived += c->shaded;
        } else {
            qr->texels_recorded += c->shaded;
        }
        sw_append(sw, TBR_REC_QUADS, &c->buf);
    }
    flush_texels(qr, all ? UINT32_MAX : qr->quads_count ? qr->open_first_ord : (uint32_t)dr->end.quads, sw);
    for (uint32_t i = 0; i < qr->nclosed; i++) tbr_buf_reset(&qr->closed[i].buf);
    qr->nclosed = 0;
}

/* Counts a shaded quad whose texels (ntexels of softpipe's) go to TEXELS, under cause
 * why (nquads: 1, or 0 for texels of no quad). Cause names become status-file items: separators are replaced. */
static void note_cause(struct quad_recorder *qr, const char *why, uint32_t nquads, uint32_t ntexels)
{
    char name[sizeof(qr->causes[0].name)];
    snprintf(name, sizeof(name), "%s", why);
    for (char *p = name; *p; p++)
        if (*p == ',' || *p == ':' || *p == '\n' || *p == ' ') *p = '_';
    uint32_t i = 0;
    while (i < qr->ncauses && strcmp(qr->causes[i].name, name) != 0) i++;
    if (i == qr->ncauses && qr->ncauses >= QR_MAX_CAUSES - 1) { /* the last slot: "other" */
        snprintf(name, sizeof(name), "other");
        i = 0;
        while (i < qr->ncauses && strcmp(qr->causes[i].name, name) != 0) i++;
    }
    if (i == qr->ncauses) {
        snprintf(qr->causes[i].name, sizeof(qr->causes[i].name), "%s", name);
        qr->ncauses++;
    }
    qr->causes[i].quads += nquads;
    qr->causes[i].texels += ntexels;
}

void qr_write_causes(const struct quad_recorder *qr, FILE *f)
{
    uint32_t order[QR_MAX_CAUSES];
    for (uint32_t i = 0; i < qr->ncauses; i++) order[i] = i;
    for (uint32_t i = 1; i < qr->ncauses; i++) /* insertion sort, most texels first */
        for (uint32_t j = i; j > 0 && qr->causes[order[j]].texels > qr->causes[order[j - 1]].texels; j--) {
            const uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (uint32_t i = 0; i < qr->ncauses; i++) {
        const struct texel_cause *c = &qr->causes[order[i]];
        fprintf(f, "%s%s:%llu:%llu", i ? "," : "", c->name, (unsigned long long)c->quads,
                (unsigned long long)c->texels);
    }
}

static unsigned popcount4(uint32_t m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

/* softpipe's texel k of a batch in slot order (order: NULL if t already is) */
static inline const struct tbr_hook_texel *hook_texel_at(const struct tbr_hook_texel *t, const uint32_t *order,
                                                         uint32_t k)
{
    return &t[order ? order[k] : k];
}

/* End of the fetch starting at texel i (< to): consecutive entries with the same (slot,
 * fetch) are one texture instruction execution, split at TBR_REC_MAX_TEXELS_PER_FETCH
 * (as a TEXELS record holds them). */
static uint32_t hook_fetch_end(const struct tbr_hook_texel *t, const uint32_t *order, uint32_t i, uint32_t to)
{
    const struct tbr_hook_texel *first = hook_texel_at(t, order, i);
    uint32_t j = i + 1;
    while (j < to && hook_texel_at(t, order, j)->slot == first->slot &&
           hook_texel_at(t, order, j)->fetch == first->fetch && j - i < TBR_REC_MAX_TEXELS_PER_FETCH)
        j++;
    return j;
}

/* Appends softpipe's texels k in [from, to) (hook_texel_at) to the pending TEXELS record
 * as fetches of draw ordinal quad (UINT32_MAX: of their slot's quad). draw_seq: the
 * current draw's. */
static int pending_add_texels(struct quad_recorder *qr, uint32_t draw_seq, uint32_t quad,
                              const struct tbr_hook_texel *t, const uint32_t *order, uint32_t from, uint32_t to)
{
    qr->tx_draw_seq = draw_seq;
    for (uint32_t i = from; i < to;) {
        const struct tbr_hook_texel *first = hook_texel_at(t, order, i);
        const uint32_t j = hook_fetch_end(t, order, i, to);
        if (qr->tx_nfetch == qr->tx_capfetch) {
            uint32_t nc = qr->tx_capfetch ? qr->tx_capfetch * 2 : 1024;
            tbr_rec_texfetch *nf = realloc(qr->tx_fetch, nc * sizeof(*nf));
            if (!nf) {
                rec_fail(qr->st, "out of memory (texels)");
                return -1;
            }
            qr->tx_fetch = nf;
            qr->tx_capfetch = nc;
        }
        if (qr->tx_ntexel + (j - i) > qr->tx_captexel) {
            size_t nc = qr->tx_captexel ? qr->tx_captexel : 16384;
            while (nc < qr->tx_ntexel + (j - i)) nc *= 2;
            tbr_rec_texel *nt = realloc(qr->tx_texel, nc * sizeof(*nt));
            if (!nt) {
                rec_fail(qr->st, "out of memory (texels)");
                return -1;
            }
            qr->tx_texel = nt;
            qr->tx_captexel = nc;
        }
        tbr_rec_texfetch *f = &qr->tx_fetch[qr->tx_nfetch++];
        f->quad = quad == UINT32_MAX ? qr->batch_first + first->slot : quad;
        f->pc = first->pc;
        f->unit = first->unit;
        f->resource_id = first->resource_id;
        f->n_texels = j - i;
        f->texels = (const tbr_rec_texel *)(uintptr_t)qr->tx_ntexel; /* offset until flush */
        for (uint32_t k = i; k < j; k++) {
            const struct tbr_hook_texel *h = hook_texel_at(t, order, k);
            tbr_rec_texel *o = &qr->tx_texel[qr->tx_ntexel++];
            o->lane = h->lane & 3u;
            o->level = h->level;
            o->layer = h->layer;
            o->x = h->x;
            o->y = h->y;
        }
        i = j;
    }
    return 0;
}

/* A quad's recomputation compared, texel by texel as it runs, with softpipe's texels
 * of that quad (t[order(k)], k in [pos, end)): the same fetches in the same order (a
 * sampler call that reads no texel has no entry in either), each with the same pc,
 * unit, resource and texels (lane, level, layer, x, y) in the same order. */
struct texel_cmp {
    const tbr_computed_colors *cc; /* the draw's sampler units */
    const struct tbr_hook_texel *t;
    const uint32_t *order;
    uint32_t start, pos, end;
    uint32_t unit, pc; /* of the recomputation's current sampler call */
    uint32_t n;        /* texels it read so far */
    uint32_t fetch;    /* softpipe's fetch number matched by that call */
    uint32_t fetches;  /* sampler calls that read texels */
    int ok;
    int too_long; /* a call read more texels than a TEXELS fetch holds */
};

static void cmp_fetch(void *ctx, unsigned unit, unsigned pc)
{
    struct texel_cmp *c = ctx;
    c->unit = unit;
    c->pc = pc;
    c->n = 0;
}

static void cmp_texel(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    struct texel_cmp *c = ctx;
    if (!c->ok) return;
    if (c->pos >= c->end) {
        c->ok = 0;
        return;
    }
    const struct tbr_hook_texel *h = hook_texel_at(c->t, c->order, c->pos);
    if (c->n == 0) {
        /* the call's first texel: softpipe's previous fetch must have ended here */
        const struct tbr_hook_texel *prev = c->pos > c->start ? hook_texel_at(c->t, c->order, c->pos - 1) : NULL;
        if ((prev && prev->fetch == h->fetch) || h->pc != c->pc || h->unit != c->unit ||
            h->resource_id != tbr_cc_unit_resource(c->cc, c->unit)) {
            c->ok = 0;
            return;
        }
        c->fetch = h->fetch;
        c->fetches++;
    } else if (h->fetch != c->fetch || c->n == TBR_REC_MAX_TEXELS_PER_FETCH) {
        /* softpipe's fetch ended earlier, or its record would split this one */
        c->too_long = c->n == TBR_REC_MAX_TEXELS_PER_FETCH;
        c->ok = 0;
        return;
    }
    c->n++;
    if ((h->lane & 3u) != lane || h->level != level || h->layer != layer || h->x != x || h->y != y) c->ok = 0;
    c->pos++;
}

/* Why a compared shaded quad's texels are recorded, not derived. */
static const char *not_derived_cause(int injected, int ran, const struct texel_cmp *cmp, const tbr_computed_colors *cc)
{
    if (injected) return "test injection (TBR_TEST_TEXEL_REJECT_EVERY)";
    if (!ran) return tbr_cc_quad_cause(cc);
    if (cmp->too_long) return "a sampler call read more texels than a TEXELS fetch holds";
    return "recomputed texels differ from softpipe's";
}

/* slot_first / slot_order for the batch's n slots and softpipe's texels t[nt]. */
static int index_batch_texels(struct quad_recorder *qr, uint32_t n, const struct tbr_hook_texel *t, uint32_t nt,
                              const uint32_t **order)
{
    *order = NULL;
    if (n + 1 > qr->cap_slot_first) {
        uint32_t *ns = realloc(qr->slot_first, (n + 1) * sizeof(*ns));
        if (!ns) return rec_fail(qr->st, "out of memory (quad batch)"), -1;
        qr->slot_first = ns;
        qr->cap_slot_first = n + 1;
    }
    memset(qr->slot_first, 0, (n + 1) * sizeof(*qr->slot_first));
    int sorted = 1;
    for (uint32_t k = 0; k < nt; k++) {
        if (t[k].slot >= n) return rec_fail(qr->st, "texels hook: slot %u of a batch of %u quads", t[k].slot, n), -1;
        qr->slot_first[t[k].slot + 1]++;
        if (k && t[k].slot < t[k - 1].slot) sorted = 0;
    }
    for (uint32_t k = 0; k < n; k++) qr->slot_first[k + 1] += qr->slot_first[k];
    if (sorted) return 0;
    if (nt > qr->cap_slot_order) {
        uint32_t *no = realloc(qr->slot_order, nt * sizeof(*no));
        if (!no) return rec_fail(qr->st, "out of memory (quad batch)"), -1;
        qr->slot_order = no;
        qr->cap_slot_order = nt;
    }
    for (uint32_t k = 0; k < nt; k++) /* stable: a slot's texels keep softpipe's order */
        qr->slot_order[qr->slot_first[t[k].slot]++] = k;
    for (uint32_t k = n; k > 0; k--) /* the pass above moved each start to its end */
        qr->slot_first[k] = qr->slot_first[k - 1];
    qr->slot_first[0] = 0;
    *order = qr->slot_order;
    return 0;
}

static void count_texels(const struct tbr_hook_texel *t, uint32_t n, struct rec_counts *counts)
{
    for (uint32_t i = 0; i < n;) {
        const uint32_t j = hook_fetch_end(t, NULL, i, n);
        counts->frame.texel_fetches++;
        counts->total.texel_fetches++;
        counts->frame.texels += j - i;
        counts->total.texels += j - i;
        i = j;
    }
}

/* The QUADS record entry of hook quad q (the draw's color buffers only). */
static void quad_entry(tbr_rec_quad *r, const struct tbr_hook_quad *q, const struct draw_recorder *dr, uint32_t nc)
{
    r->x = q->x;
    r->y = q->y;
    r->prim = q->prim;
    r->prim_kind = q->prim_kind;
    r->flags = q->flags & 0x3fu;
    r->in_mask = q->in_mask & 15u;
    r->depth_mask = q->depth_mask & 15u;
    r->shade_mask = q->shade_mask & 15u;
    r->blend_mask = q->blend_mask & 15u;
    r->path = (q->flags & TBR_HOOK_QUAD_SHADED) ? q->path_id : 0;
    memcpy(r->z, q->z, sizeof(r->z));
    /* the encoder reads the record's color buffers only (quads_cbufs): clearing all
     * TBR_REC_MAX_CBUFS of them per quad was a measurable cost */
    memset(r->color, 0, dr->quads_cbufs * sizeof(r->color[0]));
    memcpy(r->color, q->color, nc * sizeof(r->color[0]));
    if (dr->write_all) /* what blend_fallback blends into every color buffer */
        for (uint32_t c = 1; c < nc; c++) memcpy(r->color[c], q->color[0], sizeof(r->color[c]));
    memset(r->packed, 0, dr->quads_cbufs * sizeof(r->packed[0]));
    memset(r->exact_mask, 0, dr->quads_cbufs * sizeof(r->exact_mask[0]));
}

/* Counts one recorded quad in the draw, frame and totals. */
static void count_quad(const struct tbr_hook_quad *q, struct draw_recorder *dr, struct rec_counts *counts)
{
    dr->end.quads++;
    unsigned shaded_in = 0;
    if (q->flags & TBR_HOOK_QUAD_SHADED) {
        dr->end.shaded_quads++;
        shaded_in = popcount4(dr->rec.early_z ? q->depth_mask : q->in_mask);
        dr->end.shaded_fragments += shaded_in;
    }
    if (q->flags & TBR_HOOK_QUAD_BLENDED) dr->end.blended_fragments += popcount4(q->blend_mask);
    counts->frame.quads++;
    counts->total.quads++;
    if (q->flags & TBR_HOOK_QUAD_SHADED) {
        counts->frame.shaded_quads++;
        counts->total.shaded_quads++;
        counts->frame.shaded_fragments += shaded_in;
        counts->total.shaded_fragments += shaded_in;
    }
    if (q->flags & TBR_HOOK_QUAD_BLENDED) counts->total.blended_fragments += popcount4(q->blend_mask);
}

/* One batch of quads into the pending QUADS record. compare (derived texels): t, nt are
 * softpipe's texels of the batch (none if the texels hook did not come); each shaded
 * quad's recomputation is compared with them, and the texels of quads in records that
 * are not derived go to the pending TEXELS record. */
static void process_quads(struct quad_recorder *qr, const struct tbr_hook_quad *qs, uint32_t n,
                          const struct tbr_hook_texel *t, uint32_t nt, int compare, struct draw_recorder *dr,
                          tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts)
{
    const uint32_t *order = NULL;
    if (compare && index_batch_texels(qr, n, t, nt, &order) != 0) return;
    for (uint32_t i = 0; i < n; i++) {
        const struct tbr_hook_quad *q = &qs[i];
        tbr_rec_quad r;
        uint32_t nc = dr->quads_cbufs < q->nr_cbufs ? dr->quads_cbufs : q->nr_cbufs;
        quad_entry(&r, q, dr, nc);
        /* computed colors: a QUADS record is all computed or all recorded; a change
         * starts the next record (order is kept: records follow each other) */
        uint32_t computed = 0;
        const int shaded = (q->flags & TBR_HOOK_QUAD_SHADED) != 0;
        struct texel_cmp cmp = {.cc = cc, .t = t, .order = order, .ok = 1};
        if (compare) {
            cmp.start = cmp.pos = qr->slot_first[i];
            cmp.end = qr->slot_first[i + 1];
        }
        const tbr_cc_texel_observer obs = {cmp_fetch, cmp_texel, &cmp};
        int ran = 0;
        if (cc && (q->flags & TBR_HOOK_QUAD_BLENDED))
            computed = (uint32_t)tbr_cc_quad(cc, q, (const float(*)[4][4])r.color, nc, compare ? &obs : NULL, &ran);
        else {
            if (compare && shaded) /* killed, or failed a late depth test */
                tbr_cc_quad(cc, q, (const float(*)[4][4])r.color, nc, &obs, &ran);
            if (qr->quads_count) computed = qr->quads_computed; /* nothing to store: keep the record going */
        }
        int texels_ok = compare && shaded && ran && cmp.ok && cmp.pos == cmp.end;
        if (compare && shaded && ran && !texels_ok && !cmp.too_long)
            qr->texels_mismatched++; /* recomputed, and softpipe read other texels */
        int injected = 0;
        if (texels_ok && qr->texel_reject_every && ++qr->texel_reject_count % qr->texel_reject_every == 0) {
            texels_ok = 0; /* injected: not a mismatch */
            injected = 1;
        }
        if (compare && shaded && !texels_ok && cmp.end > cmp.start)
            note_cause(qr, not_derived_cause(injected, ran, &cmp, cc), 1, cmp.end - cmp.start);
        /* derived depths (minor 12): a record leaves out all its depths or none */
        const int has_z = (q->flags & TBR_HOOK_QUAD_HAS_Z) != 0;
        const int depths_ok = has_z ? depths_derivable(qr, q, dr) : qr->derive_depths;
        if (has_z) {
            if (depths_ok)
                qr->depths_derived++;
            else
                qr->depths_recorded++;
        }
        if (qr->quads_count && (computed != qr->quads_computed ||
                                (compare && shaded && qr->open_derivable_known && texels_ok != qr->open_derivable) ||
                                (has_z && depths_ok != qr->open_depths_derived)))
            close_quads_record(qr);
        if (qr->quads_count == 0) {
            /* minor 11: fields in streams, positions as deltas (docs/trace-records.md QUADS) */
            qr->open_depths_derived = depths_ok;
            if (tbr_rec_quads_begin(&qr->quads, &qr->hdr, dr->end.seq, dr->quads_cbufs,
                                    dr->quads_packed | TBR_REC_QUADS_STREAMS | (computed ? TBR_REC_QUADS_COMPUTED : 0) |
                                        (depths_ok ? TBR_REC_QUADS_DEPTHS_DERIVED : 0))) {
                rec_fail(qr->st, "cannot start a QUADS record");
                return;
            }
            qr->quads_computed = computed;
            qr->open_first_ord = (uint32_t)dr->end.quads;
            qr->open_shaded = qr->open_fetches = 0;
            qr->open_derivable = 0;
            qr->open_derivable_known = 0;
        }
        if (shaded) {
            qr->open_shaded++;
            if (compare && !qr->open_derivable_known) {
                qr->open_derivable = texels_ok;
                qr->open_derivable_known = 1;
            }
            if (texels_ok) qr->open_fetches += cmp.fetches;
            if (compare && !qr->open_derivable && cmp.end > cmp.start &&
                pending_add_texels(qr, dr->end.seq, (uint32_t)dr->end.quads, t, order, cmp.start, cmp.end) != 0)
                return;
        }
        if (tbr_cs_quad(cs, &r, nc) != 0) {
            rec_fail(qr->st, "out of memory (color shadow)");
            return;
        }
        if (tbr_rec_quads_add(&qr->quads, &qr->hdr, &r) != 0) {
            rec_fail(qr->st, "cannot encode a quad");
            return;
        }
        qr->quads_count++;
        count_quad(q, dr, counts);
        if (qr->quads_count >= 256) close_quads_record(qr);
    }
}

/* A batch that waited for its texels gets none (another hook came first). */
void qr_process_waiting(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs,
                        tbr_computed_colors *cc, struct rec_counts *counts)
{
    if (!qr->batch_waiting) return;
    qr->batch_waiting = 0;
    process_quads(qr, qr->batch, qr->batch_n, NULL, 0, 1, dr, cs, cc, counts);
}

/* Writes every pending QUADS record (and TEXELS): before any other record. */
void qr_flush(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs, tbr_computed_colors *cc,
              struct rec_counts *counts, struct stream_writer *sw)
{
    qr_process_waiting(qr, dr, cs, cc, counts); /* no texels hook came: the batch read no texel */
    write_quads(qr, 1, dr, sw);
}

/* A batch of quads of the current draw (the frame is open). */
void qr_quads(struct quad_recorder *qr, const struct tbr_hook_quad *qs, uint32_t n, struct draw_recorder *dr,
              tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts, struct stream_writer *sw)
{
    qr_process_waiting(qr, dr, cs, cc, counts); /* the previous batch had no texels hook */
    write_quads(qr, 0, dr, sw);
    qr->batch_first = (uint32_t)dr->end.quads;
    if (!qr->derive_texels) {
        process_quads(qr, qs, n, NULL, 0, 0, dr, cs, cc, counts);
        return;
    }
    /* wait for the batch's texels (the next hook call, if it read any): a copy, since
     * softpipe reuses qs for its next batch */
    if (n > qr->cap_batch) {
        struct tbr_hook_quad *nb = realloc(qr->batch, n * sizeof(*nb));
        if (!nb) {
            rec_fail(qr->st, "out of memory (quad batch)");
            return;
        }
        qr->batch = nb;
        qr->cap_batch = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t nc = qs[i].nr_cbufs < TBR_HOOK_MAX_CBUFS ? qs[i].nr_cbufs : TBR_HOOK_MAX_CBUFS;
        memcpy(&qr->batch[i], &qs[i], offsetof(struct tbr_hook_quad, color) + nc * sizeof(qs[i].color[0]));
    }
    qr->batch_n = n;
    qr->batch_waiting = 1;
}

/* Texels of the batch just given to qr_quads (its slot k = draw ordinal batch_first + k). */
void qr_texels(struct quad_recorder *qr, const struct tbr_hook_texel *t, uint32_t n, struct draw_recorder *dr,
               tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts, struct stream_writer *sw)
{
    if (qr->tx_nfetch > qr->tx_head && qr->tx_draw_seq != dr->end.seq)
        flush_texels(qr, UINT32_MAX, sw); /* never: a DRAW record flushed them (its quads are written) */
    count_texels(t, n, counts);
    if (qr->batch_waiting) {
        qr->batch_waiting = 0;
        process_quads(qr, qr->batch, qr->batch_n, t, n, 1, dr, cs, cc, counts);
    } else {
        if (qr->derive_texels) note_cause(qr, "texels without a quads batch", 0, n);
        if (pending_add_texels(qr, dr->end.seq, UINT32_MAX, t, NULL, 0, n) != 0) return;
    }
    if (qr->tx_ntexel > (1u << 20))
        write_quads(qr, 1, dr, sw);
    else
        write_quads(qr, 0, dr, sw);
}
