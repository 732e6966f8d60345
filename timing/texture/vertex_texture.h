/* Vertex texture unit (vertex_texture.c). */
#ifndef TBR_VERTEX_TEXTURE_H
#define TBR_VERTEX_TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/cache.h"
#include "shader/shader_core.h"
#include "sim_env.h"
#include "texture/texture_unit.h"

#define VTOK_GROUP 0x80000000u /* vertex token = frame VS group (VERTICES), else draw index */

/* ---- Vertex texture unit (vertex_texture.c): serves the TEX instructions of every Vertex
 * Processor (vertex texturing, VS_TEXELS). vertex.texture_path = l2: lines are read from
 * the shared L2 directly (thesis Table 4.1 gives texture caches to the fragment
 * processors only); cache: through a vertex texture cache with the texture_cache.*
 * geometry (texture_cache.<fragment.processors>, as a unified-shader design would have). */
typedef struct {
    sim_env *env;
    shader_core *cores; /* the Vertex Processors */
    uint32_t ncores, threads;
    tbr_cache *tc; /* NULL: l2 path */
    int port;      /* memsys port (l2 path) */
    tex_req *req;  /* per (processor, thread slot): id = processor * threads + slot */
    uint32_t *fifo, head, count, cap;
    uint32_t outstanding;
    tbr_stat *requests, *texels, *samples, *lines, *nolines, *wait_cycles;
} vtex_unit;

/* -1 with err (its cache or memory port could not be made) */
int vtex_unit_init(vtex_unit *u, sim_env *e, shader_core *cores, uint32_t ncores, uint32_t threads, char *err,
                   size_t errlen);
void vtex_unit_free(vtex_unit *u);
/* No access outstanding, its cache (if any) empty (gpu_reset). */
void vtex_unit_reset(vtex_unit *u);
void vtex_unit_tick(vtex_unit *u);
bool vtex_unit_idle(const vtex_unit *u);
uint64_t vtex_unit_next_event(const vtex_unit *u);

#endif
