/* Rendering Elimination (RE paper seeds/001 sec. III, IV-C) and the Signature Buffer it
 * shares with Transaction Elimination (transaction_elim.h).
 *
 * - su_frame_data: per frame, the CRC32 of every primitive's attribute block and of every
 *   drawcall's state block, read from the trace's PRIM / DRAW records (sim_trace drops the
 *   payloads), plus the UPLOAD / SHADER_CREATE counts that disable RE (sec. III-E).
 * - sig_unit: timing of the Signature Unit beside the Polygon List Builder (sec. III-F,
 *   Fig. 7): Compute CRC unit (one 64-bit subblock per re.crc_cycles_per_subblock,
 *   Algorithm 2), Overlapped-Tiles queue filled by the PLB (full = PLB stall), constants
 *   bitmap, Accumulate CRC unit: one GF(2) multiply per combine by the shift operator the
 *   Compute unit built alongside (re.accumulate_unit=combine), or one shift step per
 *   subblock (iterative, Algorithm 3).
 * - the Signature Buffer (per frame and render pass) is in signature_buffer.h.
 * - re_tile_signature: the functional signature of a tile (what the SU computes).
 * Docs: docs/techniques.md. */
#ifndef TBR_SIGNATURE_UNIT_H
#define TBR_SIGNATURE_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "render/sim_func.h"
#include "frontend/sim_trace.h"
#include "techniques/signature_buffer.h"
#include "core/stats.h"
#include "tbr/trace.h"

typedef struct {
    uint32_t *prim_crc, *prim_len;                 /* per frame prim (sim_frame.prims order): block CRC, bytes */
    uint32_t *draw_crc, *draw_len;                 /* per frame draw: CRC / bytes of its block in the tile message */
    uint32_t *draw_slen;                           /* per frame draw: bytes of its state (+ shape subblock) */
    uint32_t *draw_ssign;                          /* per frame draw: state subblocks the Compute CRC unit signs */
    uint32_t *prim_shape, *prim_draw, *draw_shape; /* scan scratch: kind << 16 | nr_attrs; owning draw */
    size_t nprims, ndraws, cap_prims, cap_draws;
    uint64_t prims_with_header; /* primitives of draws with mixed kinds/attribute counts */
    /* RE disable rule (sec. III-E, docs/techniques.md): `uploads` = UPLOADs to non-buffer
   * resources (textures), `shader_creates` = application SHADER_CREATEs; both disable RE.
   * Buffer uploads and Mesa-internal shader creations do not (counted for the stats). */
    uint64_t uploads, shader_creates, buffer_uploads, internal_shader_creates;
    uint64_t zs_clear_writes;   /* UPLOADs that are softpipe's depth-only/stencil-only clear writes */
    uint64_t tile_cache_writes; /* UPLOADs that are softpipe's tile-cache write-backs (minor 8) */
    uint32_t *upload_res;       /* resource of every UPLOAD but the clear writes (rt_history) */
    size_t nupload_res, cap_upload_res;
    bool valid; /* counts match the loaded sim_frame */
} su_frame_data;

void su_frame_data_free(su_frame_data *fd);
/* The scan of a frame's records that fills an su_frame_data: a reader of the frame
 * loader's pass (sim_record_observer: types SU_SCAN_TYPES, record su_scan_record, ctx the
 * su_scan), so each frame is decoded once. Its scratch is kept across frames. */
#define SU_SCAN_TYPES                                                                                                  \
    (TBR_REC_MASK(TBR_REC_PRIM) | TBR_REC_MASK(TBR_REC_DRAW) | TBR_REC_MASK(TBR_REC_RESOURCE) |                        \
     TBR_REC_MASK(TBR_REC_UPLOAD) | TBR_REC_MASK(TBR_REC_SHADER_CREATE))
typedef struct {
    su_frame_data *fd;
    uint8_t pblock[8 + 3 * TBR_REC_MAX_ATTRIBS * 16]; /* a primitive's attribute block */
    uint8_t *dbuf, *pbuf;                             /* this and the previous draw's state block */
    size_t dcap, pcap, plen;
    uint32_t *scrc; /* per draw: CRC of its state block */
    uint64_t *rid;  /* RESOURCE: id << 32 | is_buffer */
    uint32_t *uid;  /* UPLOAD: resource id */
    size_t nres, cres, nup, cup;
    bool failed;
} su_scan;
/* Only the frame's CPU writes (upload_res; Transaction Elimination without RE). */
#define SU_SCAN_WRITE_TYPES (TBR_REC_MASK(TBR_REC_RESOURCE) | TBR_REC_MASK(TBR_REC_UPLOAD))
/* Starts the scan of a frame into fd (after tbr_trace_reader_next_frame). */
void su_scan_begin(su_scan *s, su_frame_data *fd);
/* One record (sim_record_observer.record): 0, or -1 with "signature unit: ..." in err. */
int su_scan_record(void *ctx, const tbr_rec_decoded *rec, char *err, size_t errlen);
/* Finishes the frame's blocks once every record was seen. */
void su_scan_end(su_scan *s);
void su_scan_free(su_scan *s);
/* Attribute block of a primitive (exposed for the tests: its CRC equals zlib's crc32):
 * with_header prepends the 8-byte {kind, nr_attrs} header, needed only when the draw's
 * state does not fix them (see finish_blocks). Returns the length, 0 if cap is short. */
size_t su_prim_block(const tbr_rec_prim *p, bool with_header, uint8_t *out, size_t cap);

/* ---- Signature Unit timing (sec. III-F, Fig. 7) ----
 * Compute CRC unit: a drawcall's constants/state arrive when the Command Processor issues
 * the draw (su_draw_issue) and are signed while its vertices are fetched and shaded; a
 * primitive's attributes arrive when the Polygon List Builder takes it (su_accept).
 * Primitives go first (the OT queue waits for them), drawcalls in the unit's idle
 * cycles; both in order. The Accumulate CRC unit retires the primitives in order, one
 * Overlapped-Tiles queue entry at a time, once the primitive and its drawcall's
 * constants are signed. */
typedef struct {
    uint32_t prim;         /* frame primitive index */
    uint32_t compute_left; /* Compute CRC cycles still to go */
    uint32_t ntiles, done; /* tiles overlapped / combined into their signatures */
} su_job;

typedef struct sig_unit {
    bool on;      /* re.enabled and the frame is signable */
    bool combine; /* re.accumulate_unit = combine (else iterative, Algorithm 3) */
    uint32_t cps, aps, ccy, ot_cap;
    su_job *jobs;
    uint32_t jhead, jcount, jcap; /* primitives in the unit (attribute buffer, ring) */
    uint32_t *ot;
    uint32_t ot_head, ot_count;
    uint32_t acc_left;
    bool acc_busy;
    uint64_t progress; /* cycles that did CRC work (deadlock watchdog, gpu.c) */
    /* per draw of the pass (index - first_draw): Compute cycles left for its constants,
   * primitives not yet retired; drawcalls issued / signed (in order) */
    uint32_t *dcyc, *dprims, ndcap, dissued, dsigned, first_draw;
    uint32_t const_live; /* Constant CRC registers in use */
    uint32_t *bitmap;
    uint32_t nbitmap; /* per tile: draw+1 whose constants are combined */
    const su_frame_data *fd;
    const sim_frame *frame;
    tbr_stat *compute_sb, *acc_sb, *combines, *ot_push, *ot_pop, *bm_read, *bm_write, *bm_clear, *sb_read, *sb_write,
        *const_comb, *busy, *ot_stall, *buf_stall, *prims, *cmp, *const_regs;
} sig_unit;

/* cps: Compute CRC cycles per subblock; combine/aps/ccy: Accumulate CRC unit kind and its
 * cycles per shift step (iterative) or per combine (combine); ot_cap: OT queue entries. */
void su_init(sig_unit *u, uint32_t cps, bool combine, uint32_t aps, uint32_t ccy, uint32_t ot_cap, tbr_stats *st);
void su_free(sig_unit *u);
/* Empty: no primitive, OT entry or draw in the unit (gpu_reset). */
void su_reset(sig_unit *u);
/* first_draw, ndraws: the pass's draws (frame draw indices). */
void su_begin_pass(sig_unit *u, bool on, const sim_frame *f, const su_frame_data *fd, uint32_t ntiles,
                   uint32_t first_draw, uint32_t ndraws);
/* Command Processor issues frame draw `draw`: its constants/state enter the Compute CRC unit. */
void su_draw_issue(sig_unit *u, uint32_t draw);
/* PLB: can the unit take a primitive (attribute buffer not full)? Counts the stall if not. */
bool su_can_accept(sig_unit *u);
void su_accept(sig_unit *u, uint32_t prim, uint32_t ntiles);
/* PLB dropped a culled primitive (never signed). */
void su_prim_dropped(sig_unit *u, uint32_t prim);
/* PLB: is there room in the Overlapped-Tiles queue (counts the stall if not)? / push. */
bool su_ot_has_room(sig_unit *u);
void su_ot_push(sig_unit *u, uint32_t tile);
void su_tick(sig_unit *u);
bool su_idle(const sig_unit *u);

/* Functional signature of tile (tx, ty) of the pass set up in fn: blocks in Polygon List
 * Builder order (plist = the tile's primitive list): target block, then per drawcall
 * (first primitive of that draw in the tile) its state block, per primitive its attribute
 * block, then the tile's softpipe tile-event block. *eligible = false when the tile's
 * colors also depend on memory contents not covered by the signature. */
uint32_t re_tile_signature(const sim_func *fn, const su_frame_data *fd, unsigned tx, unsigned ty, const uint32_t *plist,
                           uint32_t n, uint32_t target, bool *eligible, uint8_t **scratch, size_t *scratch_cap);
/* CRC of the bound surfaces' identities (resource, level, layer, format). */
uint32_t re_target_crc(const sim_func *fn, uint32_t *len);

#endif
