/* Texture unit of a Fragment Processor (texture_unit.c). */
#ifndef TBR_TEXTURE_UNIT_H
#define TBR_TEXTURE_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/cache.h"
#include "shader/shader_core.h"
#include "sim_env.h"
#include "texture/tex_nuca.h"

/* texture.* statistics, shared by the texture units of every Fragment Processor */
typedef struct {
    tbr_stat *requests, *texels, *samples, *lines, *nolines, *wait_cycles;
    tbr_stat *l2_reads, *line_latency;
} texture_stats;
void texture_stats_register(texture_stats *ts, tbr_stats *st);

/* ---- Texture unit (one per Fragment Processor, texture_unit.c) ---- */
typedef struct {
    const uint64_t *lines; /* the access's distinct memory lines (in the frame or the derived set) */
    uint32_t nlines, sent, back;
    uint64_t start; /* cycle the TEX instruction issued */
} tex_req;

typedef struct {
    sim_env *env;
    const texture_stats *stats;
    shader_core *core;
    tbr_cache *tc;  /* the processor's Texture Cache (texture_cache.<i>) */
    tex_nuca *nuca; /* the NUCA organisation the cache belongs to (NULL: private) */
    uint32_t node;  /* the cache's global number = its node in the organisation */
    const uint64_t *installs;
    uint64_t seen_installs; /* lines the cache installed (= read from L2) so far, for texture.l2_reads */
    tbr_occupancy line_lat; /* texture.line_latency, accumulated in integers (tex_unit_fold_stats) */
    char name[32];
    tex_req *req;                     /* per thread slot: its outstanding texture access */
    uint32_t *fifo, head, count, cap; /* slots with lines still to send, in issue order */
    uint32_t outstanding;             /* accesses not yet complete */
} tex_unit;

/* index: the texture cache's global number (texture_cache.<index>). -1 with err. */
int tex_unit_init(tex_unit *u, sim_env *e, shader_core *core, const texture_stats *stats, uint32_t index, char *err,
                  size_t errlen);
void tex_unit_free(tex_unit *u);
/* No access outstanding, its Texture Cache empty (gpu_reset; private caches only). */
void tex_unit_reset(tex_unit *u);
void tex_unit_tick(tex_unit *u);
bool tex_unit_idle(const tex_unit *u);
uint64_t tex_unit_next_event(const tex_unit *u);
/* Adds the accumulated texture.l2_reads and texture.line_latency to the statistics (the
 * Raster Unit calls it at the end of each raster phase, before they are read). */
void tex_unit_fold_stats(tex_unit *u);

#endif
