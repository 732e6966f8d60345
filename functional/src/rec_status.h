/* tbrsim recorder: the recording's fatal error, unsupported features and counters.
 * Every recorder object keeps a pointer to the recorder's one rec_status (given at its
 * init): a fatal error anywhere stops all recording. */
#ifndef TBR_REC_STATUS_H
#define TBR_REC_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define MAX_UNSUPPORTED 32

struct counters {
    uint64_t draws, internal_draws, quads, shaded_quads, shaded_fragments, blended_fragments;
    uint64_t prims, culled_prims, clears, uploads, upload_bytes, shaders_created, tiles, flushes;
    uint64_t texel_fetches, texels, vertices, vertex_groups, vertices_fetched;
    uint64_t vs_texel_fetches, vs_texels;
};

/* What the current frame (FRAME_END) and the whole recording (status file) counted. */
struct rec_counts {
    struct counters frame, total;
};

struct rec_status {
    int ok; /* 0 after a fatal error: nothing more is recorded */
    char error[512];
    struct {
        char name[64];
        uint64_t count;
    } unsupported[MAX_UNSUPPORTED];
    int n_unsupported;
};

/* The first error is kept (and printed on stderr); recording stops. */
void rec_fail(struct rec_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A feature the recorder does not model, counted by name. */
void rec_note_unsupported(struct rec_status *st, const char *name);
/* src (NULL: "") into dst, truncated. */
void rec_copy_name(char *dst, size_t size, const char *src);

#endif
