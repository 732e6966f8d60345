/* tbr-replay's way to a late frame window: cut the window out of the source trace with
 * apitrace's state-preserving trim (gltrim) so that the replay skips the frames before it,
 * and the fast-forward progress line (docs/verification.md "Fast-forward"). */
#ifndef TBR_REPLAY_FAST_FORWARD_H
#define TBR_REPLAY_FAST_FORWARD_H

#include <stddef.h>

/* A window cut out of the source trace. */
struct ff_cut {
    char path[4096]; /* the cut trace */
    long base;       /* source frame number of the cut's first swap (TBR_FRAME_BASE) */
    double seconds;  /* time apitrace gltrim took */
};

/* Cuts frames first..last (first > 0) of trace into dir/window.trace with apitrace gltrim.
 * gltrim puts the state setup in an extra leading frame: base = first - 1 then (that frame
 * is fast-forwarded like any frame before the window). Returns 0, or -1 with the reason in
 * why (the caller then replays the whole trace). */
int ff_cut_window(const char *trace, long first, long last, const char *dir, struct ff_cut *cut, char *why,
                  size_t why_size);

/* Fast-forward progress: "fast-forward: frame N of A (T in the trace), R frames/s, about S s
 * left" from the swaps seen so far (swaps counted from the replayed trace's first swap,
 * which is source frame base). */
void ff_progress(const char *program, long swaps_seen, long base, long first, long total, double elapsed);

#endif
