/* tbrsim recorder: GL contexts, threads, and the tiles each context holds in its tile
 * caches (docs/instrumentation.md "Several contexts and threads"). Records of every
 * context go into the one stream in submission order; the issuing GL context is
 * identified by libglapi's current-context pointer. */
#ifndef TBR_CONTEXTS_H
#define TBR_CONTEXTS_H

#include <pthread.h>
#include <stdint.h>

#include "tbr_mesa_hooks.h"

#include "rec_status.h"

struct gl_contexts {
    struct rec_status *st;
    int live; /* live softpipe contexts */
    int created;
    void *(*glapi_get_context)(void);
    int glapi_resolved;
    pthread_t gl_thread; /* thread of the last recorded GL work */
    int have_gl_thread;
    uint64_t thread_switches;
    /* 64x64 tiles held in a softpipe tile cache (loaded, not yet stored), with the
     * context that holds them: two contexts caching one tile at once is rejected */
    struct held_tile {
        const void *ctx;
        uint32_t resource_id, level, layer, tile_x, tile_y, is_zs;
    } * held;
    uint32_t nheld, cap_held;
};

void ctx_init(struct gl_contexts *c, struct rec_status *st);
void ctx_free(struct gl_contexts *c);
/* The GL context of the calling thread (NULL if libglapi cannot be found). */
const void *ctx_current(struct gl_contexts *c);
/* Fails on GL work of a second thread while a draw (in_draw) is being recorded. */
void ctx_check_thread(struct gl_contexts *c, int in_draw);
void ctx_created(struct gl_contexts *c, const struct tbr_hook_context_info *info);
/* The current context is destroyed: its tiles are dropped unstored. */
void ctx_destroyed(struct gl_contexts *c);
/* A tile-cache event of the current context; fails if two contexts would hold a tile. */
void ctx_track_tile(struct gl_contexts *c, const struct tbr_hook_tile *t);
/* 1 if a tile cache holds a tile of the color surface (its memory is then incomplete). */
int ctx_color_tiles_held(const struct gl_contexts *c, uint32_t res, uint32_t level, uint32_t layer);

#endif
