/* Unit tests of DFSL's two pure pieces (timing/techniques/dfsl.h; Emerald, seeds/002
 * sec. 6): the controller of Algorithm 1 on a synthetic sequence of frame times, and the
 * work-tile schedule on a small grid. Hand-worked values in the comments.
 * usage: test_dfsl choice|schedule */
#include <stdio.h>
#include <string.h>

#include "techniques/dfsl.h"

#include "check.h"

/* Candidates 1..4, run phase of 3 frames. Evaluation 1 measures N = 1..4: 1000, 900, 950,
 * 900 cycles: N = 2 is the fastest (N = 4 ties with it; the smaller size stays), so frames
 * 4-6 use 2 whatever they take. Evaluation 2 (frames 7-10) measures 700, 800, 650, 660:
 * N = 3 wins, frames 11-13 use it, frame 14 begins the third evaluation with N = 1. */
static void test_choice(void)
{
    static const uint64_t times[15] = {1000, 900, 950, 900, 880, 870, 860, 700, 800, 650, 660, 500, 500, 500, 500};
    static const uint32_t want_n[15] = {1, 2, 3, 4, 2, 2, 2, 1, 2, 3, 4, 3, 3, 3, 1};
    static const int want_eval[15] = {1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1};
    dfsl_ctl c;
    dfsl_ctl_init(&c, 4, 3);
    for (int f = 0; f < 15; f++) {
        uint32_t n = dfsl_ctl_frame_begin(&c);
        bool eval = dfsl_ctl_frame_end(&c, times[f]);
        if (n != want_n[f] || eval != (want_eval[f] == 1))
            fprintf(stderr, "frame %d: N %u (want %u), evaluation %d (want %d)\n", f, n, want_n[f], eval, want_eval[f]);
        CHECK(n == want_n[f]);
        CHECK(eval == (want_eval[f] == 1));
    }
}

/* A 5 x 3 grid (tiles 0-14, row-major), 2 x 2 work tiles, 2 Raster Units, scanline schedule.
 * Work tiles in order of their first tile: W0 = {0,1,5,6}, W1 = {2,3,7,8}, W2 = {4,9},
 * W3 = {10,11}, W4 = {12,13}, W5 = {14}. Unit 0 gets W0, W2, W4: 0 1 5 6 4 9 12 13; unit 1
 * W1, W3, W5: 2 3 7 8 10 11 14. Interleaved: 0 2 1 3 5 7 6 8 4 10 9 11 12 14 13. N = 1 keeps
 * the schedule and deals it round robin (the static interleaving). */
static void test_schedule(void)
{
    static const uint32_t want[15] = {0, 2, 1, 3, 5, 7, 6, 8, 4, 10, 9, 11, 12, 14, 13};
    uint32_t order[15], unit_at[15];
    for (uint32_t k = 0; k < 15; k++) order[k] = k;
    work_tile_schedule(order, 5, 3, 2, 2, unit_at);
    for (uint32_t k = 0; k < 15; k++) {
        CHECK(order[k] == want[k]);
        CHECK(unit_at[k] == (k == 14 ? 0u : k % 2));
    }
    for (uint32_t k = 0; k < 15; k++) order[k] = k;
    work_tile_schedule(order, 5, 3, 1, 3, unit_at);
    for (uint32_t k = 0; k < 15; k++) {
        CHECK(order[k] == k);
        CHECK(unit_at[k] == k % 3);
    }
    /* a snake schedule (row 1 right to left): the work tiles keep their ranks, the tiles
     * inside follow the schedule: W0 = 0 1 6 5, W1 = 2 3 8 7 */
    static const uint32_t snake[15] = {0, 1, 2, 3, 4, 9, 8, 7, 6, 5, 10, 11, 12, 13, 14};
    static const uint32_t want_snake[15] = {0, 2, 1, 3, 6, 8, 5, 7, 4, 10, 9, 11, 12, 14, 13};
    memcpy(order, snake, sizeof order);
    work_tile_schedule(order, 5, 3, 2, 2, unit_at);
    for (uint32_t k = 0; k < 15; k++) CHECK(order[k] == want_snake[k]);
}

int main(int argc, char **argv)
{
    const char *t = argc > 1 ? argv[1] : "";
    if (!strcmp(t, "choice"))
        test_choice();
    else if (!strcmp(t, "schedule"))
        test_schedule();
    else {
        fprintf(stderr, "usage: test_dfsl choice|schedule\n");
        return 2;
    }
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
