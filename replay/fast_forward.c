#include "fast_forward.h"
#include "subprocess.h"
#include "tbr/clock.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ff_cut_window(const char *trace, long first, long last, const char *dir, struct ff_cut *cut, char *why,
                  size_t why_size)
{
    memset(cut, 0, sizeof *cut);
    if ((size_t)snprintf(cut->path, sizeof cut->path, "%s/window.trace", dir) >= sizeof cut->path) {
        snprintf(why, why_size, "%s: path too long", dir);
        return -1;
    }
    char frames[64];
    snprintf(frames, sizeof frames, "--frames=%ld-%ld", first, last);
    /* gltrim keeps the calls that build the state the window uses (objects, textures,
     * shaders, render-to-texture results) and drops the rest: the same cut as
     * tbr-capture --cut (docs/capture.md "Frames windows"). Its chatter goes nowhere. */
    char *argv[] = {"apitrace", "gltrim", frames, "-o", cut->path, (char *)trace, NULL};
    double t0 = tbr_monotonic_seconds();
    int rc = tbr_run_capture(argv, NULL, NULL, 1);
    cut->seconds = tbr_monotonic_seconds() - t0;
    if (rc != 0) {
        snprintf(why, why_size, "apitrace gltrim failed (exit status %d)", rc);
        unlink(cut->path);
        return -1;
    }
    long want = last - first + 1, got = tbr_apitrace_frame_count(cut->path);
    /* gltrim ends the setup part with one extra swap; a cut without it starts at first */
    if (got != want && got != want + 1) {
        snprintf(why, why_size, "apitrace gltrim wrote %ld frames, expected %ld or %ld", got, want, want + 1);
        unlink(cut->path);
        return -1;
    }
    cut->base = first - (got - want);
    return 0;
}

void ff_progress(const char *program, long swaps_seen, long base, long first, long total, double elapsed)
{
    long done = swaps_seen - base, todo = first - base;
    double rate = elapsed > 0 ? done / elapsed : 0;
    fprintf(stderr, "%s: fast-forward: frame %ld of %ld (window starts at %ld of %ld), %.1f s, %.2f frames/s", program,
            done, todo, first, total, elapsed, rate);
    if (rate > 0 && done > 0)
        fprintf(stderr, ", about %.0f s left\n", (todo - done) / rate);
    else
        fputc('\n', stderr);
}
