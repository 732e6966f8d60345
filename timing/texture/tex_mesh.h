/* The 2D mesh that connects the Texture Caches of a NUCA texture organisation (seeds/003
 * sec. IV-A, Fig. 5): one router per node (Fragment Processor + Texture Cache), nodes laid out
 * row by row on a grid of ceil(sqrt(N)) columns, X-Y routing, `hop_latency` cycles per hop,
 * links `link_bytes` wide (one flit per cycle per direction).
 *
 * A message is timed when it is injected: its flits cross each link of the route one per
 * cycle, each in the first cycle (at or after it reached the link's router) in which the link
 * is free, and reach the next router `hop_latency` cycles later; the message arrives with its
 * tail flit. Each directed link keeps a calendar of the cycles it is reserved (a ring of
 * TEX_MESH_WINDOW cycles; a slot holding a later reservation counts as busy), so a message
 * injected later may still use cycles left free before earlier reservations. Cycles a head
 * flit waits for a busy link are link stall cycles.
 */
#ifndef TBR_TEX_MESH_H
#define TBR_TEX_MESH_H

#include <stdint.h>

#define TEX_MESH_WINDOW 256u

typedef struct {
    uint32_t nodes, cols, rows, hop_latency, link_bytes;
    uint64_t *busy;    /* rows x cols routers x 4 directed links (+x, -x, +y, -y) x TEX_MESH_WINDOW
                          * slots: 1 + the cycle reserved there (0: never) */
    uint64_t *flit_at; /* scratch: each flit's cycle at the current router */
    uint32_t max_flits;
    uint64_t messages, hops, flit_hops, stall_cycles;
} tex_mesh;

/* max_bytes: the longest message (a cache line). */
void tex_mesh_init(tex_mesh *m, uint32_t nodes, uint32_t hop_latency, uint32_t link_bytes, uint32_t max_bytes);
void tex_mesh_free(tex_mesh *m);
uint32_t tex_mesh_hops(const tex_mesh *m, uint32_t a, uint32_t b);
/* The node nearest the grid's centre (where a centralized table sits, Fig. 5a). */
uint32_t tex_mesh_centre(const tex_mesh *m);
/* Send `bytes` from a to b, head injected at cycle t: the cycle the tail arrives (t when a == b). */
uint64_t tex_mesh_send(tex_mesh *m, uint32_t a, uint32_t b, uint32_t bytes, uint64_t t);

#endif
