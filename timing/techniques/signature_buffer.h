/* The Signature Buffer of Rendering / Transaction Elimination, kept per render pass (RE
 * paper seeds/001 sec. IV-C; docs/techniques.md "Several render passes"), and the
 * render-target write history that decides whether a pass of an earlier frame is still
 * a sound reference.
 *
 * - sig_buffer: the signatures of every signed pass of frames N-2, N-1 and N. A pass is
 *   matched to the pass of the reference frame (N-1, or N-2 when double-buffered) with
 *   the same bound surfaces (re_target_crc) and the same rank among the passes of its
 *   frame that bind them (its occurrence), and the same tile count.
 * - rt_history: for every surface (resource, level, layer), the number of the last pass
 *   that wrote it. Passes are numbered across frames. A skipped tile (or a dropped flush)
 *   keeps what memory holds, which is only the reference pass's output if nothing wrote
 *   the pass's surfaces since; and a signature holds the ids of the textures a draw
 *   samples, not their contents, which is only enough if nothing wrote them since the
 *   reference sampled them. */
#ifndef TBR_SIGNATURE_BUFFER_H
#define TBR_SIGNATURE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/sim_func.h"
#include "frontend/sim_trace.h"

/* One signed pass: per tile its signature and whether it covers the tile's inputs. */
typedef struct {
    uint32_t *sig;
    uint8_t *ok;
    uint32_t ntiles, cap;
    uint32_t target;     /* re_target_crc of the bound surfaces */
    uint32_t occurrence; /* earlier signed passes of its frame with the same target */
    uint64_t seq;        /* the pass's number (rt_history) */
    bool valid;          /* complete, and usable as a reference (sec. III-E) */
} sig_slot;

typedef struct {
    sig_slot *pass;
    uint32_t npass, cap;
} sig_frame_slots;

typedef struct {
    sig_frame_slots f[3]; /* frames N-2, N-1, N */
    bool dbl;             /* double-buffered: the reference frame is N-2 */
} sig_buffer;

void sigbuf_free(sig_buffer *b);
/* New frame: rotate; the current frame starts without passes (slots keep their memory). */
void sigbuf_next_frame(sig_buffer *b);
/* A signed pass of the current frame begins: its (invalid) slot. Valid until the next
 * sigbuf_begin / sigbuf_next_frame. */
sig_slot *sigbuf_begin(sig_buffer *b, uint32_t target, uint32_t ntiles, uint64_t seq);
/* The slot of the reference frame's pass matching cur (same target, occurrence and tile
 * count, valid), or NULL. Whether it is still sound is rt_history's question. */
const sig_slot *sigbuf_ref(const sig_buffer *b, const sig_slot *cur);

/* ---- render-target write history ---- */
typedef struct {
    uint32_t res, level, layer; /* level = UINT32_MAX: the whole resource (an UPLOAD) */
    uint64_t at;                /* when it was last written (signature_buffer.c: AT_RENDER) */
} rt_write;

typedef struct {
    rt_write *w;
    uint32_t n, cap;
    uint64_t seq;      /* number of the current pass (passes and frame boundaries: from 1) */
    uint32_t *prev_up; /* the previous frame's UPLOAD resources */
    size_t nprev, cap_prev;
    rt_write bound[TBR_MAX_COLOR_BUFS + 1];
    uint32_t nbound; /* the current pass's bound surfaces */
} rt_history;

void rth_free(rt_history *h);
/* A frame begins: the resources its UPLOAD records write (CPU writes, anywhere in the
 * frame: taken as written both before its first pass and after its last). */
void rth_frame_begin(rt_history *h, const uint32_t *upload_res, size_t n);
/* Pass `pass` of f, set up in fn, begins: numbers it (returned), notes its bound
 * surfaces, and writes now what sim_func_begin_pass writes at once: the tile events of
 * surfaces it does not bind. */
uint64_t rth_pass_begin(rt_history *h, const sim_func *fn, const sim_frame *f, size_t pass);
/* No pass after ref_seq wrote a surface the current pass binds. */
bool rth_bound_unwritten_since(const rt_history *h, uint64_t ref_seq);
/* No write, since the reference pass ref_seq sampled it (its own rendering included), to
 * a resource a draw of the current pass samples (fragment textures: DRAW textures[]). What a vertex
 * shader samples reaches the tiles only through the PRIM attributes, which are signed. */
bool rth_samples_unwritten_since(const rt_history *h, const sim_frame *f, size_t pass, uint64_t ref_seq);
/* The pass ends: its bound surfaces are written, unless every tile was skipped (each
 * skipped tile keeps what memory held, snapshot restored). */
void rth_pass_end(rt_history *h, bool all_tiles_skipped);

#endif
