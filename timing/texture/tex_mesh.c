/* 2D mesh between the Texture Caches (see tex_mesh.h; seeds/003 sec. IV-A). */
#include "texture/tex_mesh.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void tex_mesh_init(tex_mesh *m, uint32_t nodes, uint32_t hop_latency, uint32_t link_bytes, uint32_t max_bytes)
{
    memset(m, 0, sizeof *m);
    m->nodes = nodes ? nodes : 1;
    m->cols = 1;
    while (m->cols * m->cols < m->nodes) m->cols++;
    m->rows = (m->nodes + m->cols - 1) / m->cols;
    m->hop_latency = hop_latency;
    m->link_bytes = link_bytes ? link_bytes : 1;
    m->max_flits = max_bytes > m->link_bytes ? (max_bytes + m->link_bytes - 1) / m->link_bytes : 1;
    /* every grid position has a router (a partly filled last row still routes X first) */
    m->busy = tbr_xcalloc((size_t)m->rows * m->cols * 4 * TEX_MESH_WINDOW, sizeof *m->busy);
    m->flit_at = tbr_xcalloc(m->max_flits, sizeof *m->flit_at);
}

void tex_mesh_free(tex_mesh *m)
{
    free(m->busy);
    free(m->flit_at);
    m->busy = m->flit_at = NULL;
}

static uint32_t dist(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

uint32_t tex_mesh_hops(const tex_mesh *m, uint32_t a, uint32_t b)
{
    return dist(a % m->cols, b % m->cols) + dist(a / m->cols, b / m->cols);
}

uint32_t tex_mesh_centre(const tex_mesh *m)
{
    uint32_t c = (m->rows / 2) * m->cols + m->cols / 2;
    return c < m->nodes ? c : m->nodes - 1;
}

/* The flits at router `at` (flit_at) cross link `dir`, each in the first free cycle at or after
 * it is there and after the flit ahead of it; they are at the next router hop_latency later. */
static void hop(tex_mesh *m, uint32_t at, uint32_t dir, uint32_t flits)
{
    uint64_t *cal = &m->busy[((size_t)at * 4 + dir) * TEX_MESH_WINDOW];
    uint64_t c = 0;
    for (uint32_t k = 0; k < flits; k++) {
        c = k && c + 1 > m->flit_at[k] ? c + 1 : m->flit_at[k];
        while (cal[c % TEX_MESH_WINDOW] > c) c++;
        if (!k) m->stall_cycles += c - m->flit_at[0];
        cal[c % TEX_MESH_WINDOW] = c + 1;
        m->flit_at[k] = c + m->hop_latency;
    }
    m->hops++;
    m->flit_hops += flits;
}

uint64_t tex_mesh_send(tex_mesh *m, uint32_t a, uint32_t b, uint32_t bytes, uint64_t t)
{
    if (a == b) return t;
    uint32_t flits = bytes ? (bytes + m->link_bytes - 1) / m->link_bytes : 1;
    if (flits > m->max_flits) flits = m->max_flits;
    for (uint32_t k = 0; k < flits; k++) m->flit_at[k] = t + k; /* injected one per cycle */
    m->messages++;
    uint32_t x = a % m->cols, y = a / m->cols, bx = b % m->cols, by = b / m->cols;
    while (x != bx) { /* X first */
        hop(m, y * m->cols + x, x < bx ? 0 : 1, flits);
        x = x < bx ? x + 1 : x - 1;
    }
    while (y != by) {
        hop(m, y * m->cols + x, y < by ? 2 : 3, flits);
        y = y < by ? y + 1 : y - 1;
    }
    return m->flit_at[flits - 1];
}
