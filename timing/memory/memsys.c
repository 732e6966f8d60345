/* Memory system: L2 + DRAM + port arbiter (see memsys.h). */
#include "memory/memsys.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char name[32];
    tbr_memq *out; /* client -> L2 */
    tbr_memq *in;  /* L2 -> client */
    tbr_memq own_out, own_in;
    bool owned;
    bool aux; /* texture / instruction caches: arbitrated after the other ports */
    tbr_stat *reads, *writes, *bytes, *stall;
} port;

struct memsys {
    tbr_cache *l2;
    tbr_dram *dram;
    port ports[MEMSYS_MAX_PORTS];
    int nports, rr;
    int base[MEMSYS_MAX_PORTS], nbase; /* ports in the main round robin */
    int aux[MEMSYS_MAX_PORTS], naux, rr_aux;
    /* out queues of base[] and aux[] in the same order: the arbiter's per-cycle emptiness
   * checks read these dense arrays instead of each port struct (refresh_outq) */
    tbr_memq *base_out[MEMSYS_MAX_PORTS], *aux_out[MEMSYS_MAX_PORTS];
    int late;           /* index + 1 of the late port (0: none), served after the aux rotation */
    uint64_t port_wake; /* min over the ports' out-queue head_ready (kept by the pushes through
                       * tbr_memq.wake and recomputed after each arbitration): in most cycles no
                       * port has a visible request and the arbiter is skipped */
    uint32_t line;
    bool have_pending;
    tbr_mem_msg pending; /* DRAM response waiting for room in the L2 fill queue */
    tbr_energy *en;
    tbr_energy_unit *noc;
    uint64_t data_flits; /* flits of one line */
    tbr_dram_source (*classify)(uint64_t addr, bool write);
    tbr_stats *st;
    tbr_stat *src_bytes[TBR_DSRC_COUNT]; /* DRAM bytes (line requests sent) by source */
    /* render-target DRAM bytes by plane (memsys_set_plane_classifier) */
    bool (*is_depth)(void *ctx, uint64_t addr);
    void *plane_ctx;
    tbr_stat *plane_bytes[2]; /* 0 color, 1 depth/stencil */
};

void memsys_set_plane_classifier(memsys *m, bool (*is_depth)(void *ctx, uint64_t addr), void *ctx)
{
    m->is_depth = is_depth;
    m->plane_ctx = ctx;
    if (!m->st) return;
    m->plane_bytes[0] = tbr_stats_counter(m->st, "dram.surface_bytes.color",
                                          "bytes of the L2's DRAM requests to render-target lines of color surfaces");
    m->plane_bytes[1] =
        tbr_stats_counter(m->st, "dram.surface_bytes.depth",
                          "bytes of the L2's DRAM requests to render-target lines of depth/stencil surfaces");
}

void memsys_set_energy(memsys *m, tbr_energy *e, tbr_energy_unit *noc, uint32_t flit_bits,
                       tbr_dram_source (*classify)(uint64_t addr, bool write))
{
    m->en = e;
    m->noc = noc;
    m->data_flits = flit_bits ? ((uint64_t)m->line * 8 + flit_bits - 1) / flit_bits : 1;
    m->classify = classify;
    if (m->st && classify)
        for (int k = 0; k < TBR_DSRC_COUNT; k++)
            m->src_bytes[k] = tbr_stats_counterf(
                m->st, "bytes of the requests the L2 sent to the DRAM caused by this source (reads + writes)",
                "dram.bytes_by_source.%s", tbr_dram_source_name((tbr_dram_source)k));
}

memsys *memsys_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
    memsys *m = tbr_xcalloc(1, sizeof *m);
    tbr_cache_params p;
    tbr_cache_params_from_config(cfg, "l2", "l2", &p);
    m->line = p.line_bytes;
    m->st = st;
    m->l2 = tbr_cache_new(&p, st, err, errlen);
    if (!m->l2) {
        free(m);
        return NULL;
    }
    m->dram = tbr_dram_new(cfg, st, err, errlen);
    if (!m->dram) {
        tbr_cache_free(m->l2);
        free(m);
        return NULL;
    }
    return m;
}

void memsys_free(memsys *m)
{
    if (!m) return;
    for (int i = 0; i < m->nports; i++)
        if (m->ports[i].owned) {
            tbr_memq_free(&m->ports[i].own_out);
            tbr_memq_free(&m->ports[i].own_in);
        }
    tbr_cache_free(m->l2);
    tbr_dram_free(m->dram);
    free(m);
}

void memsys_reset(memsys *m)
{
    tbr_cache_reset(m->l2);
    tbr_dram_reset(m->dram);
    for (int i = 0; i < m->nports; i++)
        if (m->ports[i].owned) { /* a cache port's queues are its cache's, reset by it */
            tbr_memq_reset(&m->ports[i].own_out);
            tbr_memq_reset(&m->ports[i].own_in);
        }
    m->rr = m->rr_aux = 0;
    m->port_wake = 0; /* recomputed by the next arbitration */
    m->have_pending = false;
}

static void refresh_outq(memsys *m)
{
    for (int k = 0; k < m->nbase; k++) m->base_out[k] = m->ports[m->base[k]].out;
    for (int k = 0; k < m->naux; k++) m->aux_out[k] = m->ports[m->aux[k]].out;
    for (int i = 0; i < m->nports; i++) m->ports[i].out->wake = &m->port_wake;
    m->port_wake = 0; /* recomputed by the next arbitration */
}

static uint64_t ports_earliest_head(const memsys *m)
{
    uint64_t w = UINT64_MAX;
    for (int i = 0; i < m->nports; i++) {
        uint64_t r = tbr_memq_head_ready(m->ports[i].out);
        w = r < w ? r : w;
    }
    return w;
}

static int add(memsys *m, const char *name, tbr_stats *st)
{
    (void)st;
    if (m->nports >= MEMSYS_MAX_PORTS) return -1; /* the caller reports it (memsys_port_error) */
    port *p = &m->ports[m->nports];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    m->base[m->nbase++] = m->nports;
    return m->nports++;
}

int memsys_add_cache_port(memsys *m, const char *name, tbr_cache *c)
{
    int i = add(m, name, NULL);
    if (i < 0) return -1;
    m->ports[i].out = tbr_cache_miss_out(c);
    m->ports[i].in = tbr_cache_fill_in(c);
    refresh_outq(m);
    return i;
}

int memsys_add_port(memsys *m, const char *name, uint32_t qcap)
{
    int i = add(m, name, NULL);
    if (i < 0) return -1;
    port *p = &m->ports[i];
    p->owned = true;
    tbr_memq_init(&p->own_out, qcap);
    tbr_memq_init(&p->own_in, qcap);
    p->out = &p->own_out;
    p->in = &p->own_in;
    refresh_outq(m);
    return i;
}

int memsys_port_error(const char *name, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "memory system: no port left for %s (at most %d sources: the units' caches and ports, e.g. "
             "fragment.processors x tile.raster_units texture caches)",
             name, MEMSYS_MAX_PORTS);
    return -1;
}

/* Stats are registered lazily by name so ports can be added before the registry is
 * known; tbr-sim calls this once after adding every port. */
void memsys_register_stats(memsys *m, tbr_stats *st)
{
    for (int i = 0; i < m->nports; i++) {
        port *p = &m->ports[i];
        p->reads = tbr_stats_counterf(st, "line reads sent to the L2 by this source", "mem.%s.reads", p->name);
        p->writes = tbr_stats_counterf(st, "line writes sent to the L2 by this source", "mem.%s.writes", p->name);
        p->bytes = tbr_stats_counterf(st, "bytes moved between this source and the L2", "mem.%s.bytes", p->name);
        p->stall = tbr_stats_counterf(st, "cycles a request of this source waited for the L2 queue",
                                      "mem.%s.stall_cycles", p->name);
    }
}

int memsys_add_aux_cache_port(memsys *m, const char *name, tbr_cache *c)
{
    int i = memsys_add_cache_port(m, name, c);
    if (i < 0) return -1;
    m->nbase--; /* take it out of the main rotation */
    m->ports[i].aux = true;
    m->aux[m->naux++] = i;
    refresh_outq(m);
    return i;
}

int memsys_add_late_port(memsys *m, const char *name, uint32_t qcap)
{
    if (m->late) return -1;
    int i = memsys_add_port(m, name, qcap);
    if (i < 0) return -1;
    m->nbase--; /* in no rotation */
    m->late = i + 1;
    refresh_outq(m);
    return i;
}

tbr_memq *memsys_req(memsys *m, int port) { return m->ports[port].out; }
tbr_memq *memsys_resp(memsys *m, int port) { return m->ports[port].in; }
tbr_cache *memsys_l2(memsys *m) { return m->l2; }
tbr_dram *memsys_dram(memsys *m) { return m->dram; }

#define EVENT_AT(t)                                                                                                    \
    do {                                                                                                               \
        uint64_t t_ = (t);                                                                                             \
        if (t_ <= now) return now;                                                                                     \
        if (t_ < ne) ne = t_;                                                                                          \
    } while (0)

uint64_t memsys_next_event(const memsys *m, uint64_t now)
{
    uint64_t ne = UINT64_MAX;
    const tbr_memq *resp = tbr_cache_resp_out(m->l2);
    if (resp->count) { /* L2 response to its port (blocked while the port queue is full) */
        const tbr_mem_msg *r = &resp->buf[resp->head];
        if (r->ready > now)
            EVENT_AT(r->ready);
        else if (r->src >= (uint32_t)m->nports || !tbr_memq_full(m->ports[r->src].in))
            return now;
    }
    if (m->have_pending) { /* DRAM response waiting for the L2 fill queue */
        if (!tbr_memq_full(tbr_cache_fill_in(m->l2))) return now;
    } else {
        EVENT_AT(tbr_dram_gpu_resp_ready(m->dram));
    }
    const tbr_memq *miss = tbr_cache_miss_out(m->l2);
    if (miss->count) {
        uint64_t r = miss->buf[miss->head].ready;
        if (r > now)
            EVENT_AT(r);
        else if (!tbr_dram_gpu_req_full(m->dram))
            return now;
    }
    bool req_full = tbr_memq_full(tbr_cache_req_in(m->l2));
    if (m->port_wake > now)
        EVENT_AT(m->port_wake); /* = the loop below when no head is visible */
    else
        for (int i = 0; i < m->nports; i++) { /* a ready request moves unless the L2 queue is full */
            uint64_t r = tbr_memq_head_ready(m->ports[i].out);
            if (r > now)
                EVENT_AT(r);
            else if (!req_full)
                return now;
        }
    EVENT_AT(tbr_cache_next_event(m->l2, now));
    return ne;
}

/* After the DRAM cycles up to the end of GPU cycle t - 1: would the GPU side see
 * something new from the DRAM at cycle t? */
static bool dram_visible_change(const memsys *m, uint64_t t, bool dram_idle)
{
    if (!m->have_pending && tbr_dram_gpu_resp_ready(m->dram) <= t) return true;
    if (tbr_memq_head_ready(tbr_cache_miss_out(m->l2)) <= t && !tbr_dram_gpu_req_full(m->dram)) return true;
    return tbr_dram_idle(m->dram) != dram_idle;
}

void memsys_tick(memsys *m, uint64_t now)
{
    uint64_t n = 1;
    memsys_tick_n(m, now, &n);
}

/* The arbiter's step for one port: its visible request, if any, into the L2 request
 * queue (stamped with the port), or a stall of the n cycles when that queue is full. */
static inline void forward_request(memsys *m, int pi, tbr_memq *out, tbr_memq *req, uint64_t now, uint64_t n)
{
    const tbr_mem_msg *q = tbr_memq_peek(out, now);
    if (!q) return;
    port *p = &m->ports[pi];
    tbr_mem_msg c = *q;
    c.src = (uint32_t)pi;
    c.ready = now + 1;
    if (!tbr_memq_push(req, &c)) {
        tbr_stat_add(p->stall, n);
        return;
    }
    tbr_memq_pop(out);
    tbr_energy_count(m->noc, TBR_EV_HOP, c.write ? 1 + m->data_flits : 1);
    tbr_stat_inc(c.write ? p->writes : p->reads);
    tbr_stat_add(p->bytes, m->line);
}

void memsys_tick_n(memsys *m, uint64_t now, uint64_t *np)
{
    /* L2 responses back to their source port (in order; a full port queue blocks). */
    tbr_memq *resp = tbr_cache_resp_out(m->l2);
    const tbr_mem_msg *r;
    while ((r = tbr_memq_peek(resp, now))) {
        if (r->src >= (uint32_t)m->nports) {
            tbr_memq_pop(resp);
            continue;
        }
        tbr_mem_msg c = *r;
        c.ready = now + 1;
        if (!tbr_memq_push(m->ports[r->src].in, &c)) break;
        tbr_memq_pop(resp);
        tbr_energy_count(m->noc, TBR_EV_HOP, c.write ? 1 : 1 + m->data_flits);
    }
    /* DRAM <-> L2 across the clock domains. */
    tbr_memq *fill = tbr_cache_fill_in(m->l2);
    tbr_mem_msg d;
    for (;;) {
        if (!m->have_pending) {
            if (!tbr_dram_gpu_recv(m->dram, now, &d)) break;
            m->pending = d;
            m->have_pending = true;
        }
        m->pending.ready = now;
        if (!tbr_memq_push(fill, &m->pending)) break;
        m->have_pending = false;
    }
    tbr_memq *miss = tbr_cache_miss_out(m->l2);
    while ((r = tbr_memq_peek(miss, now))) {
        if (!tbr_dram_gpu_send(m->dram, r, now)) break;
        if (m->en && m->classify) {
            tbr_dram_source src = m->classify(r->addr, r->write);
            tbr_energy_dram_source(m->en, src, !r->write, r->write);
            tbr_stat_add(m->src_bytes[src], m->line);
            if (m->is_depth && (src == TBR_DSRC_COLOR_FLUSH || src == TBR_DSRC_TILE_LOADS))
                tbr_stat_add(m->plane_bytes[m->is_depth(m->plane_ctx, r->addr)], m->line);
        }
        tbr_memq_pop(miss);
    }
    uint64_t n = *np;
    bool dram_idle = n > 1 && tbr_dram_idle(m->dram);
    for (uint64_t k = 0; k < n; k++) {
        tbr_dram_gpu_advance(m->dram, now + k);
        if (k + 1 < n && dram_visible_change(m, now + k + 1, dram_idle)) n = k + 1;
    }
    *np = n;
    /* Arbiter: one request per port per cycle, round robin, into the L2 request queue;
   * then the auxiliary ports (texture and instruction caches) in their own rotation. */
    tbr_memq *req = tbr_cache_req_in(m->l2);
    if (m->port_wake <= now) {
        for (int k = 0, j = m->rr; k < m->nbase; k++, j = j + 1 == m->nbase ? 0 : j + 1)
            forward_request(m, m->base[j], m->base_out[j], req, now, n);
        for (int k = 0, j = m->rr_aux; k < m->naux; k++, j = j + 1 == m->naux ? 0 : j + 1)
            forward_request(m, m->aux[j], m->aux_out[j], req, now, n);
        if (m->late) forward_request(m, m->late - 1, m->ports[m->late - 1].out, req, now, n);
        m->port_wake = ports_earliest_head(m);
    }
    m->rr = !m->nbase ? 0 : n == 1 ? (m->rr + 1 == m->nbase ? 0 : m->rr + 1) : (int)((m->rr + n) % (uint64_t)m->nbase);
    if (m->naux)
        m->rr_aux =
            n == 1 ? (m->rr_aux + 1 == m->naux ? 0 : m->rr_aux + 1) : (int)((m->rr_aux + n) % (uint64_t)m->naux);
    tbr_cache_tick_n(m->l2, now, n);
}

bool memsys_idle(const memsys *m)
{
    if (m->have_pending || !tbr_cache_idle(m->l2) || !tbr_dram_idle(m->dram)) return false;
    for (int i = 0; i < m->nports; i++)
        if (!tbr_memq_empty(m->ports[i].out) || !tbr_memq_empty(m->ports[i].in)) return false;
    return true;
}
