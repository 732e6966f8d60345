/* tbrsim recorder: the per-frame table of distinct executed instruction paths (PATH
 * records, referenced by QUADS and VERTICES). */
#ifndef TBR_PATHS_H
#define TBR_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "tbr/trace.h"

#include "rec_sink.h"
#include "rec_status.h"

struct path_recorder {
    struct rec_status *st;
    struct path_entry {
        uint64_t hash;
        uint32_t id, shader, stage, n;
        size_t off;
    } * paths;
    uint32_t npaths, cap_paths;
    uint32_t *buckets; /* open addressing: index+1 into paths, 0 = empty */
    uint32_t nbuckets;
    tbr_buf arena; /* pc (u16 LE) + mask bytes, 3 per entry */
    uint64_t execs, records;
};

void paths_init(struct path_recorder *pr, struct rec_status *st);
void paths_new_frame(struct path_recorder *pr);
void paths_free(struct path_recorder *pr);
/* One execution of a shader's instruction stream (pc and execution mask per executed
 * instruction): returns the id of its path in this frame, writing a PATH record the
 * first time the path occurs; 0 on failure. */
uint32_t paths_exec(struct path_recorder *pr, uint32_t shader_id, uint32_t stage, const uint16_t *pc,
                    const uint8_t *mask, uint32_t n, uint32_t truncated, const struct rec_sink *out);

#endif
