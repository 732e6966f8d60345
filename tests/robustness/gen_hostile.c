/* Writes the tiny hostile activity traces of tests/robustness/robustness.sh (issue 22): each
 * a valid one-frame trace of an 8x8 (or larger) render target with one field set to what
 * crashed, hung or exhausted a reader before the decode-time limits.
 *
 *   tbr-test-gen-hostile KIND DIR      (writes DIR/activity.tbrt)
 *
 * KIND: ok (the control: a cleared 8x8 frame), tile_level (a TILE event of mip level
 * 2^31: a shift by 2^31 in tbr-sim), zero_pass (a 0x0 render pass: the Signature Unit's
 * memset of a null array with RE on), huge_target (a 16384x16384 render target: allowed, but
 * 5 GB of surface memory), huge_pass (a RENDER_PASS 2^32-1 wide: tbr-characterize's
 * unchecked calloc), path_long (a PATH of 16385 entries, beyond softpipe's 16384),
 * resource_levels (a RESOURCE with last_level 2^32-1). */
#include <stdio.h>
#include <string.h>

#include "synth_trace.h"

#define BGRA "PIPE_FORMAT_B8G8R8A8_UNORM"

static void frame_of(uint32_t w, uint32_t h, uint32_t pw, uint32_t ph)
{
    synth_begin_frame(0);
    synth_resource(1, BGRA, w, h, 4, 1);
    synth_render_pass(0, pw, ph, 1, 0);
    synth_clear(4, 0, 1, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tbr-test-gen-hostile KIND DIR\n");
        return 2;
    }
    const char *kind = argv[1];
    synth_trace_open(argv[2], "test_robustness");
    if (!strcmp(kind, "ok") || !strcmp(kind, "tile_level") || !strcmp(kind, "path_long") ||
        !strcmp(kind, "resource_levels")) {
        frame_of(8, 8, 8, 8);
        if (!strcmp(kind, "tile_level")) {
            tbr_rec_tile t = {TBR_REC_TILE_LOAD, 0, 0, 1, 1u << 31, 0, 0, 0, 64};
            SYNTH_EMIT(TBR_REC_TILE, tbr_rec_tile_encode, &t);
        } else if (!strcmp(kind, "path_long")) {
            static uint16_t pc[16385];
            static uint8_t mask[16385];
            tbr_rec_path p = {1, 2, TBR_REC_STAGE_FS, 1, 16385, NULL, pc, mask};
            SYNTH_EMIT(TBR_REC_PATH, tbr_rec_path_encode, &p);
        } else if (!strcmp(kind, "resource_levels")) {
            tbr_rec_resource r = {.id = 2,
                                  .target = 2,
                                  .width = 8,
                                  .height = 8,
                                  .depth = 1,
                                  .array_size = 1,
                                  .last_level = UINT32_MAX,
                                  .block_bytes = 4};
            snprintf(r.format_name, sizeof r.format_name, "%s", BGRA);
            SYNTH_EMIT(TBR_REC_RESOURCE, tbr_rec_resource_encode, &r);
        }
        synth_frame_end(0, 8, 8);
    } else if (!strcmp(kind, "zero_pass")) {
        frame_of(8, 8, 0, 0);
        synth_frame_end(0, 8, 8);
    } else if (!strcmp(kind, "huge_target")) {
        frame_of(16384, 16384, 16384, 16384);
        synth_frame_end(0, 16384, 16384);
    } else if (!strcmp(kind, "huge_pass")) {
        frame_of(8, 8, UINT32_MAX, 8);
        synth_frame_end(0, 8, 8);
    } else {
        fprintf(stderr, "tbr-test-gen-hostile: unknown kind '%s'\n", kind);
        return 2;
    }
    synth_end_frame();
    synth_trace_close();
    return 0;
}
