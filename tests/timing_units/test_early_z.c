/* timing_units.early_z: the Early-Z stage of a Raster Unit (timing/raster/early_z.c)
 * alone, with fake ports: its own post-rasterization queue, four Fragment Processor
 * queues of one entry each (nothing drains them unless the test pops one), a merge
 * queue, and a memory port pair nobody serves (the pass has no depth surface, so
 * nothing is loaded). Default parameters: early_z.quads_per_cycle = 4,
 * depth_buffer.latency = 1, fragment.quad_mapping = interleaved, 32x32 tiles.
 *
 * Worked by hand: interleaved mapping, processor = (qx + 2 qy) mod 4 with (qx, qy) the
 * quad's position in 2x2-pixel units. Tokens BEGIN(5), q0 (0,0) fp 0, q1 (2,0) fp 1 but
 * fails the depth test, q2 (4,0) fp 2, q3 (0,2) fp 2, q4 (6,0) fp 3, END(5), all visible
 * at cycle 0.
 *   cycle 0: BEGIN, q0 (shaded), q1 (killed), q2 (shaded): four tokens, the limit.
 *   cycle 1: q3 waits untested: processor 2's queue still holds q2. A stall cycle, and
 *            no event of its own (early_z_next_event = UINT64_MAX).
 *   cycle 2: the test pops q2 first; q3 and q4 go, then END: three tokens.
 * Merge tokens: BEGIN, ITEM 0, ITEM 2 (ready 1), ITEM 2, ITEM 3, END (ready 3). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/tcheck.h"
#include "raster/early_z.h"
#include "tiling/tile_tokens.h"

#define NFP 4

int main(void)
{
    char err[256];
    tbr_config *cfg = tbr_config_new();
    tbr_stats *st = tbr_stats_new();
    if (!cfg || !st) return 2;
    (void)err;

    /* the frame: one early-Z draw, five quads */
    sim_draw draw;
    memset(&draw, 0, sizeof draw);
    draw.rec.early_z = 1;
    sim_quad quads[5];
    memset(quads, 0, sizeof quads);
    const int32_t xy[5][2] = {{0, 0}, {2, 0}, {4, 0}, {0, 2}, {6, 0}};
    for (int i = 0; i < 5; i++) {
        quads[i].x = xy[i][0];
        quads[i].y = xy[i][1];
        quads[i].flags = i == 1 ? 0 : TBR_REC_QUAD_DEPTH_OUT; /* q1: every fragment fails */
        quads[i].depth_mask = i == 1 ? 0 : 0xf;
    }
    sim_pass pass;
    memset(&pass, 0, sizeof pass);
    sim_frame frame;
    memset(&frame, 0, sizeof frame);
    frame.draws = &draw;
    frame.ndraws = 1;
    frame.quads = quads;
    frame.nquads = 5;
    frame.passes = &pass;
    frame.npasses = 1;

    sim_func fn;
    memset(&fn, 0, sizeof fn);
    fn.surf_zs = -1; /* no depth surface: no depth-buffer loads */
    tile_stats tiles;
    memset(&tiles, 0, sizeof tiles);
    tile_stats_pass_begin(&tiles, 8);

    sim_env env;
    memset(&env, 0, sizeof env);
    env.cfg = cfg;
    env.st = st;
    env.frame = &frame;
    env.fn = &fn;
    env.tiles = &tiles;
    env.tiles_x = env.tiles_y = 4;
    env.tile_w = env.tile_h = 32;
    env.ncyc = 1;

    /* fake ports */
    sim_queue in, order, fp_in[NFP];
    simq_init(&in, 16);
    simq_init(&order, 16);
    for (int i = 0; i < NFP; i++) simq_init(&fp_in[i], 1);
    tbr_memq mreq, mresp;
    tbr_memq_init(&mreq, 4);
    tbr_memq_init(&mresp, 4);
    tbr_stat *tested = tbr_stats_counter(st, "quads.early_z_tested", ""),
             *killed = tbr_stats_counter(st, "quads.early_z_killed", ""),
             *shaded = tbr_stats_counter(st, "quads.shaded", ""),
             *loads = tbr_stats_counter(st, "tiles.buffer_load_lines", "");
    early_z z;
    const raster_energy no_energy = {0}; /* no energy structures: nothing counted */
    early_z_init(&z, &env, 0, tested, killed, shaded, loads, &no_energy);
    early_z_connect(&z, &in, fp_in, NFP, &order, &mreq, &mresp);
    early_z_begin_pass(&z);

    simq_push(&in, TOK(TOK_BEGIN, 5), 0);
    for (uint32_t q = 0; q < 5; q++) simq_push(&in, TOK(TOK_ITEM, q), 0);
    simq_push(&in, TOK(TOK_END, 5), 0);

    /* cycle 0 */
    env.now = 0;
    CHECK_EQ_U(early_z_next_event(&z), 0);
    early_z_tick(&z);
    CHECK_EQ_U(tbr_stat_value(tested), 3);
    CHECK_EQ_U(tbr_stat_value(killed), 1);
    CHECK_EQ_U(tbr_stat_value(shaded), 2);
    CHECK_EQ_U(tbr_stat_value(z.busy), 1);
    CHECK_EQ_U(in.count, 3); /* q3, q4, END left */
    CHECK_EQ_U(fp_in[0].count, 1);
    CHECK_EQ_U(fp_in[1].count, 0);
    CHECK_EQ_U(fp_in[2].count, 1);
    CHECK_EQ_U(order.count, 3);
    CHECK_EQ_U(tiles.frags[5], 8);

    /* cycle 1: q3 waits for processor 2 */
    env.now = 1;
    CHECK_EQ_U(early_z_next_event(&z), UINT64_MAX);
    early_z_tick(&z);
    CHECK_EQ_U(tbr_stat_value(tested), 3);
    CHECK_EQ_U(tbr_stat_value(z.stall), 1);
    CHECK_EQ_U(in.count, 3);

    /* cycle 2: processor 2 takes q2 */
    env.now = 2;
    uint32_t v;
    CHECK(simq_peek(&fp_in[2], 2, &v) && v == 2);
    simq_pop(&fp_in[2]);
    CHECK_EQ_U(early_z_next_event(&z), 2);
    early_z_tick(&z);
    CHECK_EQ_U(tbr_stat_value(tested), 5);
    CHECK_EQ_U(tbr_stat_value(shaded), 4);
    CHECK_EQ_U(tbr_stat_value(z.busy), 2);
    CHECK_EQ_U(in.count, 0);
    CHECK_EQ_U(fp_in[3].count, 1);
    CHECK_EQ_U(tiles.frags[5], 16);

    /* the merge queue: markers and each quad's processor, in order */
    const uint32_t want[6] = {TOK(TOK_BEGIN, 5), TOK(TOK_ITEM, 0), TOK(TOK_ITEM, 2),
                              TOK(TOK_ITEM, 2),  TOK(TOK_ITEM, 3), TOK(TOK_END, 5)};
    const uint64_t ready[6] = {1, 1, 1, 3, 3, 3};
    CHECK_EQ_U(order.count, 6);
    for (uint32_t i = 0; i < 6 && i < order.count; i++) {
        uint32_t k = (order.head + i) % order.cap;
        CHECK_EQ_U(order.buf[k], want[i]);
        CHECK_EQ_U(order.ready[k], ready[i]);
    }
    CHECK(early_z_idle(&z));
    CHECK_EQ_U(mreq.count, 0); /* no depth surface, no memory traffic */

    simq_free(&in);
    simq_free(&order);
    for (int i = 0; i < NFP; i++) simq_free(&fp_in[i]);
    tbr_memq_free(&mreq);
    tbr_memq_free(&mresp);
    tile_stats_free(&tiles);
    tbr_stats_free(st);
    tbr_config_free(cfg);
    return T_RESULT();
}
