/* Rendering Elimination: Signature Unit, Signature Buffer, tile signatures (see
 * signature_unit.h; RE paper seeds/001 sec. III-C..F, IV-C; docs/techniques.md). */
#include "techniques/signature_unit.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "tbr/records.h"

#define GROWP(arr, n, cap)                                                                                             \
    do {                                                                                                               \
        if ((n) == (cap)) {                                                                                            \
            (cap) = (cap) ? (cap)*2 : 256;                                                                             \
            (arr) = tbr_xrealloc((arr), (cap) * sizeof *(arr));                                                        \
        }                                                                                                              \
    } while (0)

/* ---------------- per-frame input blocks ---------------- */

void su_frame_data_free(su_frame_data *fd)
{
    free(fd->prim_crc);
    free(fd->prim_len);
    free(fd->draw_crc);
    free(fd->draw_len);
    free(fd->draw_slen);
    free(fd->draw_ssign);
    free(fd->prim_shape);
    free(fd->prim_draw);
    free(fd->draw_shape);
    free(fd->upload_res);
    memset(fd, 0, sizeof *fd);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); } /* little-endian host (docs/pixel-exactness.md) */

/* Attribute block of a primitive: kind vertices x nr_attrs x vec4 f32 as setup receives
 * them; attribute 0 is the window position (x, y, z, 1/w), so the block also fixes where
 * and at which depth the primitive lands. This is the paper's primitive message (sec.
 * III-G: 3 vertices x 4 components x 4 bytes = 48 bytes per attribute; 3 attributes = 18
 * 64-bit subblocks). The {kind, nr_attrs} header is signed with the drawcall's state
 * instead (both are fixed by the draw: primitive mode, rasterizer state, linked shaders),
 * except in a draw whose primitives differ in them, which gets it per primitive. */
size_t su_prim_block(const tbr_rec_prim *p, bool with_header, uint8_t *out, size_t cap)
{
    unsigned nv = p->kind >= 1 && p->kind <= 3 ? p->kind : 3;
    unsigned na = p->nr_attrs <= TBR_REC_MAX_ATTRIBS ? p->nr_attrs : TBR_REC_MAX_ATTRIBS;
    size_t o = with_header ? 8 : 0;
    size_t len = o + (size_t)nv * na * 16;
    if (len > cap) return 0;
    if (with_header) {
        put32(out, p->kind);
        put32(out + 4, na);
    }
    for (unsigned v = 0; v < nv; v++)
        for (unsigned a = 0; a < na; a++) {
            memcpy(out + o, p->v[v][a], 16);
            o += 16;
        }
    return len;
}

/* Finishes the frame's blocks once every PRIM is known: a draw whose primitives all have
 * the same {kind, nr_attrs} signs that 8-byte shape after its state (the Command
 * Processor knows both when it issues the draw); otherwise its primitives carry it as a
 * header. Drawcall block in the tile message = {CRC32, length} of state + shape. */
static void finish_blocks(su_frame_data *fd, const uint32_t *draw_scrc)
{
    for (size_t d = 0; d < fd->ndraws; d++) {
        uint8_t shape[8], blk[8];
        uint32_t sh = fd->draw_shape[d];
        if (sh == UINT32_MAX) {
            put32(shape, UINT32_MAX);
            put32(shape + 4, 0);
        } else {
            put32(shape, sh >> 16);
            put32(shape + 4, sh & 0xffffu);
        }
        uint32_t scrc = tbr_crc32_combine(draw_scrc[d], tbr_crc32_blocks64(shape, 8), 8);
        fd->draw_slen[d] += 8;
        put32(blk, scrc);
        put32(blk + 4, fd->draw_slen[d]);
        fd->draw_crc[d] = tbr_crc32_blocks64(blk, 8);
        fd->draw_len[d] = 8;
    }
    for (size_t i = 0; i < fd->nprims; i++) {
        uint32_t d = fd->prim_draw[i];
        if (d < fd->ndraws && fd->draw_shape[d] != UINT32_MAX) continue;
        uint8_t hdr[8];
        put32(hdr, fd->prim_shape[i] >> 16);
        put32(hdr + 4, fd->prim_shape[i] & 0xffffu);
        fd->prim_crc[i] = tbr_crc32_combine(tbr_crc32_blocks64(hdr, 8), fd->prim_crc[i], fd->prim_len[i]);
        fd->prim_len[i] += 8;
        fd->prims_with_header++;
    }
}

/* Compute CRC work for a drawcall's state: the Command Processor holds the state
 * registers and the Constant CRC of the previous drawcall; only what the application
 * changed comes with the new draw (sec. III-F: "the average command that updates
 * constants modifies 16 values ... 8 cycles"). CRC is linear: for messages of equal
 * length crc(S') = crc(S) ^ crc(S ^ S') ^ crc(0), so the unit signs the changed 64-bit
 * subblocks of S ^ S' (Algorithm 2) and skips each run of unchanged ones with one
 * multiply by its shift operator: changed subblocks + runs. A state of another length
 * (e.g. other constant buffers) or the pass's first draw is signed in full. */
static uint32_t state_sign_cost(const uint8_t *s, size_t len, const uint8_t *prev, size_t plen)
{
    if (!prev || plen != len) return (uint32_t)(len / 8);
    uint32_t changed = 0, runs = 0;
    bool in_run = false;
    for (size_t o = 0; o < len; o += 8) {
        bool ch = memcmp(s + o, prev + o, 8) != 0;
        if (ch) {
            changed++;
            if (!in_run) runs++;
        }
        in_run = ch;
    }
    return changed + runs;
}

void su_scan_begin(su_scan *s, su_frame_data *fd)
{
    s->fd = fd;
    s->plen = 0; /* the frame's first draw is signed in full */
    s->nres = s->nup = 0;
    s->failed = false;
    fd->nprims = fd->ndraws = 0;
    fd->prims_with_header = 0;
    fd->uploads = fd->shader_creates = fd->buffer_uploads = fd->internal_shader_creates = fd->zs_clear_writes = 0;
    fd->nupload_res = 0;
    fd->tile_cache_writes = 0;
    fd->valid = false;
}

static void scan_prim(su_scan *s, const tbr_rec_prim *prim)
{
    su_frame_data *fd = s->fd;
    size_t len = su_prim_block(prim, false, s->pblock, sizeof s->pblock);
    GROWP(fd->prim_crc, fd->nprims, fd->cap_prims);
    fd->prim_len = tbr_xrealloc(fd->prim_len, fd->cap_prims * sizeof *fd->prim_len);
    fd->prim_shape = tbr_xrealloc(fd->prim_shape, fd->cap_prims * sizeof *fd->prim_shape);
    fd->prim_draw = tbr_xrealloc(fd->prim_draw, fd->cap_prims * sizeof *fd->prim_draw);
    uint32_t na = prim->nr_attrs <= TBR_REC_MAX_ATTRIBS ? prim->nr_attrs : TBR_REC_MAX_ATTRIBS;
    uint32_t shape = (prim->kind & 0xffffu) << 16 | na;
    uint32_t d = fd->ndraws ? (uint32_t)fd->ndraws - 1 : UINT32_MAX; /* PRIMs follow their DRAW (sim_trace.c) */
    if (d != UINT32_MAX) {
        if (fd->draw_shape[d] == UINT32_MAX - 1)
            fd->draw_shape[d] = shape; /* first primitive */
        else if (fd->draw_shape[d] != shape)
            fd->draw_shape[d] = UINT32_MAX; /* mixed */
    }
    fd->prim_shape[fd->nprims] = shape;
    fd->prim_draw[fd->nprims] = d;
    fd->prim_crc[fd->nprims] = tbr_crc32_blocks64(s->pblock, len);
    fd->prim_len[fd->nprims++] = (uint32_t)len;
}

/* Drawcall block = the whole DRAW record: constants (vs/fs constant buffers), the shader
 * ids, the texture bindings and sampler state, and every piece of raster, depth/stencil
 * and blend state softpipe used; zero-padded to 64-bit subblocks. */
static void scan_draw(su_scan *s, const uint8_t *p, size_t n)
{
    su_frame_data *fd = s->fd;
    size_t len = (n + 7) & ~(size_t)7;
    if (len > s->dcap) {
        s->dcap = len;
        s->dbuf = tbr_xrealloc(s->dbuf, s->dcap);
    }
    memcpy(s->dbuf, p, n);
    memset(s->dbuf + n, 0, len - n);
    GROWP(fd->draw_crc, fd->ndraws, fd->cap_draws);
    fd->draw_len = tbr_xrealloc(fd->draw_len, fd->cap_draws * sizeof *fd->draw_len);
    fd->draw_slen = tbr_xrealloc(fd->draw_slen, fd->cap_draws * sizeof *fd->draw_slen);
    fd->draw_shape = tbr_xrealloc(fd->draw_shape, fd->cap_draws * sizeof *fd->draw_shape);
    s->scrc = tbr_xrealloc(s->scrc, fd->cap_draws * sizeof *s->scrc);
    /* The Compute CRC unit signs the whole state once per drawcall, when the Command
     * Processor issues it, into a Constant CRC register; the tile message carries that
     * CRC and the state length as one 64-bit subblock, so combining a drawcall into a
     * tile costs one Accumulate step instead of one per state subblock (our state block
     * is far larger than the paper's 16 constants, sec. III-F). finish_blocks. */
    fd->draw_ssign = tbr_xrealloc(fd->draw_ssign, fd->cap_draws * sizeof *fd->draw_ssign);
    s->scrc[fd->ndraws] = tbr_crc32_blocks64(s->dbuf, len);
    fd->draw_slen[fd->ndraws] = (uint32_t)len;
    fd->draw_ssign[fd->ndraws] = state_sign_cost(s->dbuf, len, s->plen ? s->pbuf : NULL, s->plen);
    if (len > s->pcap) {
        s->pcap = len;
        s->pbuf = tbr_xrealloc(s->pbuf, s->pcap);
    }
    if (len) memcpy(s->pbuf, s->dbuf, len);
    s->plen = len;
    fd->draw_shape[fd->ndraws] = UINT32_MAX - 1; /* no primitive yet */
    fd->draw_len[fd->ndraws++] = 8;
}

int su_scan_record(void *ctx, const tbr_rec_decoded *rec, char *err, size_t errlen)
{
    su_scan *s = ctx;
    su_frame_data *fd = s->fd;
    if (rec->bad != TBR_REC_BAD_NONE) {
        char msg[128];
        tbr_rec_decode_error_text(rec, msg, sizeof msg);
        snprintf(err, errlen, "signature unit: %s", msg);
        s->failed = true;
        return -1;
    }
    switch (rec->type) {
        case TBR_REC_PRIM: scan_prim(s, &rec->u.prim); break;
        case TBR_REC_DRAW: scan_draw(s, rec->payload, rec->len); break;
        case TBR_REC_RESOURCE:
            GROWP(s->rid, s->nres, s->cres);
            s->rid[s->nres++] = ((uint64_t)rec->u.resource.id << 32) | (rec->u.resource.target == 0 /* PIPE_BUFFER */);
            break;
        case TBR_REC_UPLOAD:
            /* softpipe clears only the depth (or only the stencil) of a combined depth/stencil
             * buffer by writing memory (util_clear_depth_stencil): the recorder flags that
             * write's UPLOAD as TBR_REC_UPLOAD_CLEAR_WRITE. It is part of the clear, which the
             * tile signature already holds, not an application upload: it must not disable RE
             * (sec. III-E). */
            if (rec->u.upload.flags & TBR_REC_UPLOAD_CLEAR_WRITE) {
                fd->zs_clear_writes++;
                break;
            }
            /* softpipe's tile cache writing back what a pass rendered when the frame buffer
             * changes (records minor 8): rendering the TILE events already hold, a write of
             * that pass in the render-target history, not new contents (sec. III-E) */
            if (rec->u.upload.flags & TBR_REC_UPLOAD_TILE_CACHE) {
                fd->tile_cache_writes++;
                break;
            }
            GROWP(s->uid, s->nup, s->cup);
            s->uid[s->nup++] = rec->u.upload.resource_id;
            break;
        case TBR_REC_SHADER_CREATE:
            if (rec->u.shader.internal)
                fd->internal_shader_creates++;
            else
                fd->shader_creates++;
            break;
        default: break;
    }
    return 0;
}

void su_scan_end(su_scan *s)
{
    su_frame_data *fd = s->fd;
    /* RE sec. III-E: uploads to buffers (vertex, index, constant data) reach the tiles
     * through the signed PRIM attributes and DRAW constants, so only uploads to
     * non-buffer resources (textures) disable RE. The resource is looked up among the
     * frame's RESOURCE records (every resource a frame references has one); an upload
     * whose resource is not found is taken as a texture upload (conservative). */
    for (size_t i = 0; i < s->nup; i++) {
        int buffer = 0;
        for (size_t k = 0; k < s->nres; k++)
            if ((uint32_t)(s->rid[k] >> 32) == s->uid[i]) {
                buffer = (int)(s->rid[k] & 1);
                break;
            }
        if (buffer)
            fd->buffer_uploads++;
        else
            fd->uploads++;
        GROWP(fd->upload_res, fd->nupload_res, fd->cap_upload_res);
        fd->upload_res[fd->nupload_res++] = s->uid[i];
    }
    finish_blocks(fd, s->scrc);
}

void su_scan_free(su_scan *s)
{
    free(s->dbuf);
    free(s->pbuf);
    free(s->scrc);
    free(s->rid);
    free(s->uid);
    memset(s, 0, sizeof *s);
}

/* ---------------- Signature Unit timing (sec. III-F, Fig. 7) ---------------- */

void su_reset(sig_unit *u)
{
    u->on = false;
    u->jhead = u->jcount = 0;
    u->ot_head = u->ot_count = 0;
    u->acc_left = 0;
    u->acc_busy = false;
    u->progress = 0;
    if (u->ndcap) {
        memset(u->dcyc, 0, u->ndcap * sizeof *u->dcyc);
        memset(u->dprims, 0, u->ndcap * sizeof *u->dprims);
    }
    u->dissued = u->dsigned = u->first_draw = u->const_live = 0;
    if (u->bitmap) memset(u->bitmap, 0, u->nbitmap * sizeof *u->bitmap);
    u->fd = NULL;
    u->frame = NULL;
}

void su_init(sig_unit *u, uint32_t cps, bool combine, uint32_t aps, uint32_t ccy, uint32_t ot_cap, tbr_stats *st)
{
    memset(u, 0, sizeof *u);
    u->cps = cps;
    u->combine = combine;
    u->aps = aps;
    u->ccy = ccy;
    u->ot_cap = ot_cap ? ot_cap : 1;
    /* The unit holds the attributes of the primitives it has not finished. Every such
   * primitive has a tile in the OT queue, except the one the PLB is still pushing and the
   * one being combined after its last pop: ot_cap + 2 entries never fill before the OT
   * queue does, so the OT queue stays the only stall (sec. V). */
    u->jcap = u->ot_cap + 2;
    u->jobs = tbr_xrealloc(NULL, u->jcap * sizeof *u->jobs);
    u->ot = tbr_xrealloc(NULL, u->ot_cap * sizeof *u->ot);
    u->compute_sb = tbr_stats_counter(st, "re.su.compute_subblocks",
                                      "64-bit subblocks signed by the Compute CRC unit (8 LUT reads each)");
    u->acc_sb = tbr_stats_counter(st, "re.su.accumulate_shifts",
                                  "64-bit shift steps of the iterative Accumulate CRC unit (Algorithm 3)");
    u->combines = tbr_stats_counter(st, "re.su.combines",
                                    "GF(2) multiplies of the combine Accumulate CRC unit (one per OT entry, one per "
                                    "primitive to fold in the constants)");
    u->ot_push = tbr_stats_counter(st, "re.su.ot_pushes",
                                   "Overlapped-Tiles queue writes (tile ids from the Polygon List Builder)");
    u->ot_pop = tbr_stats_counter(st, "re.su.ot_pops", "Overlapped-Tiles queue reads");
    u->bm_read = tbr_stats_counter(st, "re.su.bitmap_reads", "constants bitmap reads (one per OT entry)");
    u->bm_write = tbr_stats_counter(st, "re.su.bitmap_writes", "constants bitmap bit sets");
    u->bm_clear = tbr_stats_counter(st, "re.su.bitmap_clears", "constants bitmap clears (new drawcall constants)");
    u->sb_read = tbr_stats_counter(st, "re.su.sigbuf_reads", "Signature Buffer reads (accumulate + compare)");
    u->sb_write = tbr_stats_counter(st, "re.su.sigbuf_writes", "Signature Buffer writes (accumulated tile signatures)");
    u->const_comb =
        tbr_stats_counter(st, "re.su.constant_combines", "drawcall constant CRCs combined into a tile signature");
    u->busy = tbr_stats_counter(st, "re.su.busy_cycles", "cycles the Compute or Accumulate CRC unit worked");
    u->ot_stall = tbr_stats_counter(st, "re.su.plb_stall_cycles",
                                    "Polygon List Builder cycles stalled by the Signature Unit: Overlapped-Tiles queue "
                                    "full (the paper's only stall, sec. V)");
    u->buf_stall = tbr_stats_counter(st, "re.su.prim_buffer_stall_cycles",
                                     "Polygon List Builder cycles stalled because the Signature Unit's primitive "
                                     "attribute buffer was full (sized never to fill first: expected 0)");
    u->prims = tbr_stats_counter(st, "re.su.primitives", "primitives signed");
    u->cmp = tbr_stats_counter(st, "re.compares", "tile signature comparisons at tile dispatch");
    u->const_regs = tbr_stats_average(st, "re.su.constant_registers",
                                      "Constant CRC registers in use when a drawcall is issued (drawcalls whose "
                                      "primitives are not all combined yet; the max is the registers needed)");
}

void su_free(sig_unit *u)
{
    free(u->ot);
    free(u->jobs);
    free(u->bitmap);
    free(u->dcyc);
    free(u->dprims);
    memset(u, 0, sizeof *u);
}

void su_begin_pass(sig_unit *u, bool on, const sim_frame *f, const su_frame_data *fd, uint32_t ntiles,
                   uint32_t first_draw, uint32_t ndraws)
{
    u->on = on;
    u->frame = f;
    u->fd = fd;
    u->jhead = u->jcount = 0;
    u->ot_head = u->ot_count = 0;
    u->acc_left = 0;
    u->acc_busy = false;
    u->const_live = 0;
    u->first_draw = first_draw;
    u->dissued = u->dsigned = 0;
    if (ntiles > u->nbitmap) {
        u->bitmap = tbr_xrealloc(u->bitmap, ntiles * sizeof *u->bitmap);
        u->nbitmap = ntiles;
    }
    if (u->nbitmap) memset(u->bitmap, 0, u->nbitmap * sizeof *u->bitmap); /* (none before a pass of tiles) */
    if (ndraws > u->ndcap) {
        u->dcyc = tbr_xrealloc(u->dcyc, ndraws * sizeof *u->dcyc);
        u->dprims = tbr_xrealloc(u->dprims, ndraws * sizeof *u->dprims);
        u->ndcap = ndraws;
    }
    for (uint32_t k = 0; k < ndraws; k++) {
        u->dprims[k] = f->draws[first_draw + k].nprims;
        u->dcyc[k] = 0;
    }
}

static uint32_t sb8(uint32_t len) { return (len + 7) / 8; }

/* A draw's Constant CRC register is free once it is signed and all its primitives are
 * combined or dropped. */
static void draw_retire_prim(sig_unit *u, uint32_t draw)
{
    uint32_t k = draw - u->first_draw;
    if (k >= u->ndcap || !u->dprims[k]) return;
    if (--u->dprims[k] == 0 && k < u->dissued) u->const_live--;
}

void su_draw_issue(sig_unit *u, uint32_t draw)
{
    if (!u->on) return;
    uint32_t k = draw - u->first_draw;
    if (k != u->dissued || k >= u->ndcap) return; /* in order, once */
    /* sec. III-F: new constants clear the bitmap and are signed into a Constant CRC
   * register: the changed part of the state block (state_sign_cost), its shape subblock
   * and the {CRC, length} subblock the tiles combine. */
    uint32_t sbs = u->fd->draw_ssign[draw] + 2; /* + shape + {CRC, length} */
    tbr_stat_inc(u->bm_clear);
    tbr_stat_add(u->compute_sb, sbs);
    u->dcyc[k] = sbs * u->cps;
    u->dissued++;
    if (u->dprims[k]) u->const_live++;
    tbr_stat_sample(u->const_regs, u->const_live);
}

bool su_can_accept(sig_unit *u)
{
    if (!u->on || u->jcount < u->jcap) return true;
    tbr_stat_inc(u->buf_stall);
    return false;
}

void su_accept(sig_unit *u, uint32_t prim, uint32_t ntiles)
{
    if (!u->on) return;
    uint32_t sbs = sb8(u->fd->prim_len[prim]);
    tbr_stat_add(u->compute_sb, sbs);
    tbr_stat_inc(u->prims);
    /* combine unit: one more multiply folds the Constant CRC in front of the primitive,
   * {x^(c+p), CRC_C * x^p ^ CRC_P} (c = 64 bits), so a tile that still lacks the
   * drawcall's constants also takes a single multiply (docs/techniques.md). */
    uint32_t extra = u->combine ? u->ccy : 0;
    if (u->combine) tbr_stat_inc(u->combines);
    u->jobs[(u->jhead + u->jcount++) % u->jcap] =
        (su_job){.prim = prim, .compute_left = sbs * u->cps + extra, .ntiles = ntiles};
}

void su_prim_dropped(sig_unit *u, uint32_t prim)
{
    if (u->on) draw_retire_prim(u, u->frame->prims[prim].draw);
}

bool su_ot_has_room(sig_unit *u)
{
    if (!u->on || u->ot_count < u->ot_cap) return true;
    tbr_stat_inc(u->ot_stall);
    return false;
}

void su_ot_push(sig_unit *u, uint32_t tile)
{
    if (!u->on) return;
    u->ot[(u->ot_head + u->ot_count++) % u->ot_cap] = tile;
    tbr_stat_inc(u->ot_push);
}

void su_tick(sig_unit *u)
{
    if (!u->on || (!u->jcount && u->dsigned == u->dissued)) return;
    bool worked = false;
    /* Compute CRC: the oldest primitive not yet signed, else the oldest drawcall. */
    uint32_t k = 0;
    while (k < u->jcount && !u->jobs[(u->jhead + k) % u->jcap].compute_left) k++;
    if (k < u->jcount) {
        u->jobs[(u->jhead + k) % u->jcap].compute_left--;
        worked = true;
    } else if (u->dsigned < u->dissued) {
        if (u->dcyc[u->dsigned]) {
            u->dcyc[u->dsigned]--;
            worked = true;
        }
        if (!u->dcyc[u->dsigned]) u->dsigned++;
    }
    /* Accumulate CRC: the oldest primitive's tiles, once it and its constants are signed. */
    su_job *h = u->jcount ? &u->jobs[u->jhead] : NULL;
    uint32_t draw = h ? u->frame->prims[h->prim].draw : 0;
    bool ready = h && !h->compute_left && draw - u->first_draw < u->dsigned;
    if (h && u->acc_busy) {
        worked = true;
        if (--u->acc_left == 0) {
            u->acc_busy = false;
            h->done++;
            tbr_stat_inc(u->sb_write);
        }
    } else if (ready && h->done < h->ntiles && u->ot_count) {
        uint32_t t = u->ot[u->ot_head];
        u->ot_head = (u->ot_head + 1) % u->ot_cap;
        u->ot_count--;
        tbr_stat_inc(u->ot_pop);
        tbr_stat_inc(u->bm_read);
        tbr_stat_inc(u->sb_read);
        uint32_t n = sb8(u->fd->prim_len[h->prim]);
        if (t < u->nbitmap && u->bitmap[t] != draw + 1) { /* constants not yet in this tile */
            u->bitmap[t] = draw + 1;
            n += sb8(u->fd->draw_len[draw]);
            tbr_stat_inc(u->bm_write);
            tbr_stat_inc(u->const_comb);
        }
        if (u->combine) {
            /* The Compute CRC unit has built the shift operator of the primitive's block (and
       * of constants + primitive) in parallel with Algorithm 2: whatever the block
       * lengths, one multiplication per entry (zlib crc32_combine_op). */
            tbr_stat_inc(u->combines);
            u->acc_left = u->ccy;
        } else {
            /* Algorithm 3: one 64-bit Shift step per subblock of the combined blocks. */
            tbr_stat_add(u->acc_sb, n);
            u->acc_left = n * u->aps;
        }
        /* the pop's cycle is the combine's first: an entry per re.combine_cycles */
        if (u->acc_left) {
            u->acc_left--;
            worked = true;
        }
        if (u->acc_left)
            u->acc_busy = true;
        else {
            h->done++;
            tbr_stat_inc(u->sb_write);
        }
    }
    if (ready && h->done == h->ntiles && !u->acc_busy) {
        draw_retire_prim(u, draw);
        u->jhead = (u->jhead + 1) % u->jcap;
        u->jcount--;
    }
    if (worked) {
        tbr_stat_inc(u->busy);
        u->progress++;
    }
}

bool su_idle(const sig_unit *u) { return !u->on || (!u->jcount && !u->ot_count && u->dsigned == u->dissued); }

/* ---------------- functional tile signature ---------------- */

static void grow_scratch(uint8_t **s, size_t *cap, size_t need)
{
    if (need > *cap) {
        *cap = need * 2;
        *s = tbr_xrealloc(*s, *cap);
    }
}

uint32_t re_target_crc(const sim_func *fn, uint32_t *len)
{
    uint8_t b[(TBR_MAX_COLOR_BUFS + 1) * 16];
    memset(b, 0, sizeof b);
    for (unsigned i = 0; i <= TBR_MAX_COLOR_BUFS; i++) {
        int k = i < TBR_MAX_COLOR_BUFS ? fn->surf_cbuf[i] : fn->surf_zs;
        if (k < 0) {
            put32(b + i * 16, 0xffffffffu);
            continue;
        }
        const sim_surf *s = &fn->surfs[k];
        put32(b + i * 16, s->res);
        put32(b + i * 16 + 4, s->level);
        put32(b + i * 16 + 8, s->layer);
        put32(b + i * 16 + 12, (uint32_t)s->fmt);
    }
    *len = sizeof b;
    return tbr_crc32_blocks64(b, sizeof b);
}

uint32_t re_tile_signature(const sim_func *fn, const su_frame_data *fd, unsigned tx, unsigned ty, const uint32_t *plist,
                           uint32_t n, uint32_t target, bool *eligible, uint8_t **scratch, size_t *scratch_cap)
{
    const sim_frame *f = fn->frame;
    *eligible = true;
    /* 1. the bound render targets (they receive the colors; sec. "what the signature holds") */
    uint32_t tlen;
    uint32_t sig = re_target_crc(fn, &tlen);
    (void)target;
    /* 2. per drawcall its state block once (the constants bitmap), per primitive its
   *    attribute block, in Polygon List Builder order (Algorithm 1). */
    uint32_t last_draw = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = plist[k];
        if (k && p <= plist[k - 1]) *eligible = false; /* order assumption for the check below */
        uint32_t d = f->prims[p].draw;
        if (d != last_draw) {
            sig = tbr_crc32_combine(sig, fd->draw_crc[d], fd->draw_len[d]);
            last_draw = d;
        }
        sig = tbr_crc32_combine(sig, fd->prim_crc[p], fd->prim_len[p]);
    }
    /* 3. the tile's softpipe tile-cache events (where softpipe quantized, with the clear
   *    colors), each with its position among the tile's quads; and the checks that the
   *    tile's colors depend on nothing but signed inputs. */
    uint32_t ni;
    const uint32_t *items = sim_func_tile_items(fn, tx, ty, &ni);
    unsigned nr = fn->tb.nr_cbufs;
    unsigned need_c = 0;
    for (unsigned i = 0; i < nr; i++)
        if (fn->surf_cbuf[i] >= 0) need_c |= 1u << i;
    unsigned def_c = 0;
    bool def_depth = false, def_stencil = false; /* cleared in this tile before use */
    uint32_t quads = 0, lk = 0;
    size_t len = 0;
    if (64 % fn->tile_w || 64 % fn->tile_h) *eligible = false; /* a tile inside one softpipe tile */
    for (uint32_t k = 0; k < ni; k++) {
        const sim_item *it = &f->items[items[k]];
        if (it->kind == SIM_ITEM_QUAD) {
            const sim_quad *q = &f->quads[it->idx];
            quads++;
            if (q->prim == UINT32_MAX) {
                *eligible = false;
                continue;
            }
            while (lk < n && plist[lk] < q->prim) lk++;
            if (lk == n || plist[lk] != q->prim) *eligible = false; /* quad of an unsigned primitive */
            if ((def_c & need_c) != need_c) *eligible = false;      /* blends into unsigned contents */
            const tbr_rec_draw *d = &f->draws[q->draw].rec;
            if (fn->surf_zs >= 0 && ((!def_depth && d->depth_enabled) ||
                                     (!def_stencil && (d->stencil[0].enabled || d->stencil[1].enabled))))
                *eligible = false; /* tests against unsigned depth/stencil */
            continue;
        }
        grow_scratch(scratch, scratch_cap, len + 64);
        uint8_t *e = *scratch + len;
        memset(e, 0, 64);
        put32(e, quads);
        if (it->kind == SIM_ITEM_TILE) {
            const sim_tile_ev *ev = &f->tiles[it->idx];
            const tbr_rec_tile *t = &ev->t;
            uint32_t v[9] = {t->kind,  t->is_zs,  t->cbuf,   t->resource_id, t->level,
                             t->layer, t->tile_x, t->tile_y, t->tile_size};
            for (int i = 0; i < 9; i++) put32(e + 4 + 4 * i, v[i]);
            bool clr = t->kind == TBR_REC_TILE_LOAD_CLEAR || t->kind == TBR_REC_TILE_STORE_CLEAR;
            if (clr) {
                memcpy(e + 40, ev->clear_color, 16);
                memcpy(e + 56, &ev->zs_clear, 8);
            }
            if (t->is_zs) {
                if (clr) def_depth = def_stencil = true;
            } else {
                for (unsigned i = 0; i < nr; i++) {
                    int s = fn->surf_cbuf[i];
                    if (s < 0 || fn->surfs[s].res != t->resource_id || fn->surfs[s].level != t->level ||
                        fn->surfs[s].layer != t->layer)
                        continue;
                    if (clr)
                        def_c |= 1u << i;
                    else if (!(def_c & (1u << i)))
                        *eligible = false; /* LOAD/STORE of unsigned contents */
                }
            }
        } else {
            /* a depth-only / stencil-only clear (softpipe writes memory; sim_func bins it to
       * every tile): that part of the zs buffer is defined by the signed clear value */
            const tbr_rec_clear *c = &f->clears[it->idx];
            if (c->buffers & 1u) def_depth = true;
            if (c->buffers & 2u) def_stencil = true;
            put32(e + 4, 0x100u | c->buffers);
            memcpy(e + 8, &c->depth, 8);
            put32(e + 16, c->stencil);
            memcpy(e + 24, &c->zs_packed, sizeof c->zs_packed < 8 ? sizeof c->zs_packed : 8);
        }
        len += 64;
    }
    if (len) sig = tbr_crc32_combine(sig, tbr_crc32_blocks64(*scratch, len), len);
    (void)tlen;
    return sig;
}
