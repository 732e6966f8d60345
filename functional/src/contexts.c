/* tbrsim recorder: GL contexts, threads and held tiles (contexts.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "contexts.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

void ctx_init(struct gl_contexts *c, struct rec_status *st) { c->st = st; }

void ctx_free(struct gl_contexts *c)
{
    free(c->held);
    c->held = NULL;
    c->nheld = c->cap_held = 0;
}

/* The GL context that issued the work being recorded: libglapi's current
 * context of the calling thread (a TLS read). softpipe creates one pipe_context
 * per GL context, and Mesa flushes the old context before it changes the current
 * one, so this names the pipe_context whose hooks run. NULL if libglapi cannot
 * be found (then context switches are not told apart). */
const void *ctx_current(struct gl_contexts *c)
{
    if (!c->glapi_resolved) {
        c->glapi_resolved = 1;
        void *h = dlopen("libglapi.so.0", RTLD_LAZY | RTLD_NOLOAD);
        void *sym = dlsym(h ? h : RTLD_DEFAULT, "_glapi_get_context");
        memcpy(&c->glapi_get_context, &sym, sizeof(sym));
        if (h) dlclose(h); /* RTLD_NOLOAD: drops only the reference just taken */
    }
    return c->glapi_get_context ? c->glapi_get_context() : NULL;
}

/* softpipe runs every context's hooks through process-wide state (and so does
 * this library): GL work of two threads at the same time cannot be recorded.
 * Work of several threads one after another (apitrace's retrace) is fine.
 * in_draw: a draw is being recorded. */
void ctx_check_thread(struct gl_contexts *c, int in_draw)
{
    pthread_t self = pthread_self();
    if (c->have_gl_thread && pthread_equal(c->gl_thread, self)) return;
    if (in_draw) {
        rec_fail(c->st, "GL work from two threads at the same time (a draw of one thread was still being "
                        "recorded): softpipe's instrumentation records one thread at a time");
        return;
    }
    if (c->have_gl_thread) c->thread_switches++;
    c->gl_thread = self;
    c->have_gl_thread = 1;
}

void ctx_created(struct gl_contexts *c, const struct tbr_hook_context_info *info)
{
    c->live++;
    c->created++;
    if (info && info->driver && strcmp(info->driver, "softpipe") != 0)
        rec_fail(c->st, "driver is '%s', not softpipe", info->driver);
}

void ctx_destroyed(struct gl_contexts *c)
{
    if (c->live > 0) c->live--;
    /* st/mesa makes the dying context current while it is destroyed; softpipe
     * frees its tile caches without storing them */
    const void *ctx = ctx_current(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nheld; i++)
        if (c->held[i].ctx != ctx) c->held[k++] = c->held[i];
    c->nheld = k;
}

/* Tile ownership across contexts. Each softpipe context has its own tile caches,
 * but a trace (and tbr-sim, which keeps one image per surface) has one copy of
 * each tile: a tile loaded by a context while another one still holds it
 * (rendering into a surface that another context has not flushed, e.g. with
 * EGL_CONTEXT_RELEASE_BEHAVIOR_NONE) has no correct representation. Mesa flushes
 * the old context at every eglMakeCurrent, so ordinary switches never hit this. */
static int same_surface(const struct held_tile *h, const struct tbr_hook_tile *t)
{
    return h->resource_id == t->resource_id && h->level == t->level && h->is_zs == t->is_zs;
}

void ctx_track_tile(struct gl_contexts *c, const struct tbr_hook_tile *t)
{
    const void *ctx = ctx_current(c);
    if (!ctx) return;
    uint32_t i = 0, k = 0;
    switch (t->kind) {
        case TBR_HOOK_TILE_CLEAR_ALL: /* this context's cache of the surface emptied */
            for (i = 0; i < c->nheld; i++)
                if (!(c->held[i].ctx == ctx && same_surface(&c->held[i], t))) c->held[k++] = c->held[i];
            c->nheld = k;
            return;
        case TBR_HOOK_TILE_LOAD:
        case TBR_HOOK_TILE_LOAD_CLEAR:
            for (i = 0; i < c->nheld; i++) {
                struct held_tile *h = &c->held[i];
                if (!same_surface(h, t) || h->layer != t->layer || h->tile_x != t->tile_x || h->tile_y != t->tile_y)
                    continue;
                if (h->ctx != ctx)
                    rec_fail(c->st,
                             "two GL contexts hold tile (%u,%u) of resource %u in their tile caches at "
                             "once (one renders to a surface the other has not flushed): the trace "
                             "cannot represent two copies of a tile",
                             t->tile_x, t->tile_y, t->resource_id);
                return;
            }
            if (c->nheld == c->cap_held) {
                uint32_t nc = c->cap_held ? c->cap_held * 2 : 256;
                struct held_tile *nh = realloc(c->held, nc * sizeof(*nh));
                if (!nh) {
                    rec_fail(c->st, "out of memory (tiles)");
                    return;
                }
                c->held = nh;
                c->cap_held = nc;
            }
            c->held[c->nheld++] =
                (struct held_tile){ctx, t->resource_id, t->level, t->layer, t->tile_x, t->tile_y, t->is_zs};
            return;
        default: /* STORE, STORE_CLEAR: the tile leaves the cache */
            for (i = 0; i < c->nheld; i++) {
                struct held_tile *h = &c->held[i];
                if (same_surface(h, t) && h->layer == t->layer && h->tile_x == t->tile_x && h->tile_y == t->tile_y) {
                    c->held[i] = c->held[--c->nheld];
                    return;
                }
            }
            return;
    }
}

/* 1 if a tile cache holds a tile of the color surface (its memory is then incomplete). */
int ctx_color_tiles_held(const struct gl_contexts *c, uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < c->nheld; i++)
        if (!c->held[i].is_zs && c->held[i].resource_id == res && c->held[i].level == level &&
            c->held[i].layer == layer)
            return 1;
    return 0;
}
