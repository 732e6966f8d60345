/* NUCA organisations of the Texture Caches (see tex_nuca.h; seeds/003 sec. III, IV, VI). */
#include "texture/tex_nuca.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQ_BYTES   8  /* a request: address + requester (one flit on any link width >= 8 B) */
#define INBOX_SLOTS 64 /* per node and direction; a full inbox stalls the sender */

static void register_stats(tex_nuca *f, tbr_stats *st)
{
#define C(field, name, desc) f->st.field = tbr_stats_counter(st, "nuca." name, desc)
    C(local_hits, "local_hits", "texture line requests served by the requester's own cache holding the line");
    C(local_misses, "local_misses", "texture line requests served by the requester's own cache fetching from L2");
    C(replicated_hits, "replicated_hits",
      "local hits on a line whose bucket another node owns (a replica; part of local_hits)");
    C(remote_hits, "remote_hits", "texture line requests served over the mesh by another cache holding the line");
    C(remote_misses, "remote_misses", "texture line requests served over the mesh by another cache fetching from L2");
    C(table_accesses, "table_accesses", "Affinity Table (or D-NUCA directory) accesses");
    C(epochs, "epochs", "Affinity Table epochs completed (dtm.epoch_accesses accesses each)");
    C(owner_changes, "owner_changes", "bucket ownership changes (distributed: per table copy)");
    C(mesh_messages, "mesh_messages", "messages sent over the texture caches' 2D mesh (requests, lines, lookups)");
    C(mesh_hops, "mesh_hops", "router-to-router hops of those messages");
    C(mesh_flit_hops, "mesh_flit_hops", "flits x hops on the mesh (energy)");
    C(link_stalls, "link_stall_cycles", "cycles message heads waited for a busy mesh link");
    C(sync_flit_hops, "sync_flit_hops", "flit hops of the distributed tables' epoch broadcasts (in mesh_flit_hops)");
#undef C
}

/* Mesh statistics follow the mesh's own counters (it is timed at injection). */
static void mesh_stats(tex_nuca *f, const tex_mesh *before, uint32_t bytes)
{
    tbr_stat_add(f->st.mesh_messages, f->mesh.messages - before->messages);
    tbr_stat_add(f->st.mesh_hops, f->mesh.hops - before->hops);
    tbr_stat_add(f->st.mesh_flit_hops, f->mesh.flit_hops - before->flit_hops);
    tbr_stat_add(f->st.link_stalls, f->mesh.stall_cycles - before->stall_cycles);
    /* energy per 64-bit word carried over one hop: a 1-flit request on a wide link does not
     * toggle the whole link */
    tbr_energy_count(f->eu_mesh, TBR_EV_HOP, (f->mesh.hops - before->hops) * ((bytes + 7) / 8));
}

static uint64_t send(tex_nuca *f, uint32_t a, uint32_t b, uint32_t bytes, uint64_t t)
{
    tex_mesh before = f->mesh;
    uint64_t arrive = tex_mesh_send(&f->mesh, a, b, bytes, t);
    mesh_stats(f, &before, bytes);
    return arrive;
}

/* Latency of the distributed tables' broadcast from `from` to `to` (one flit per bucket owned
 * behind a header; counted as mesh traffic when the epoch runs). */
static uint64_t sync_delay(const void *ctx, uint32_t from, uint32_t to)
{
    const tex_nuca *f = ctx;
    return (uint64_t)tex_mesh_hops(&f->mesh, from, to) * f->mesh.hop_latency + 1;
}

int tex_nuca_create(tex_nuca **out, const tbr_config *cfg, tbr_stats *st, uint32_t nodes, char *err, size_t errlen)
{
    *out = NULL;
    tex_org org = (tex_org)tbr_cfg_enum(cfg, "texture_cache.organization");
    if (org == TEX_ORG_PRIVATE) return 0;
    tex_nuca *f = tbr_xcalloc(1, sizeof *f);
    f->org = org;
    f->nodes = nodes;
    f->line_bytes = (uint32_t)tbr_cfg_uint(cfg, "texture_cache.line_bytes");
    while ((1u << f->line_shift) < f->line_bytes) f->line_shift++;
    f->probe_latency = (uint32_t)tbr_cfg_uint(cfg, "texture_cache.latency");
    f->replication = tbr_cfg_bool(cfg, "dtm.replication");
    tex_mesh_init(&f->mesh, nodes, (uint32_t)tbr_cfg_uint(cfg, "noc.hop_latency"),
                  (uint32_t)tbr_cfg_uint(cfg, "noc.link_bytes"), f->line_bytes);
    f->table_node = tex_mesh_centre(&f->mesh);
    if ((org == TEX_ORG_DTM || org == TEX_ORG_DTM_DIST) &&
        at_init(&f->at, nodes, (uint32_t)tbr_cfg_uint(cfg, "dtm.buckets"),
                (uint32_t)tbr_cfg_uint(cfg, "dtm.page_blocks"), (uint32_t)tbr_cfg_uint(cfg, "dtm.counter_bits"),
                (uint32_t)tbr_cfg_uint(cfg, "dtm.hysteresis_percent"), tbr_cfg_uint(cfg, "dtm.epoch_accesses"),
                org == TEX_ORG_DTM_DIST, err, errlen)) {
        tex_nuca_free(f);
        return -1;
    }
    f->tc = tbr_xcalloc(nodes, sizeof *f->tc);
    f->req_inbox = tbr_xcalloc(nodes, sizeof *f->req_inbox);
    f->resp_inbox = tbr_xcalloc(nodes, sizeof *f->resp_inbox);
    for (uint32_t i = 0; i < nodes; i++) {
        tbr_memq_init(&f->req_inbox[i], INBOX_SLOTS);
        tbr_memq_init(&f->resp_inbox[i], INBOX_SLOTS);
    }
    register_stats(f, st);
    *out = f;
    return 0;
}

void tex_nuca_free(tex_nuca *f)
{
    if (!f) return;
    for (uint32_t i = 0; f->req_inbox && i < f->nodes; i++) {
        tbr_memq_free(&f->req_inbox[i]);
        tbr_memq_free(&f->resp_inbox[i]);
    }
    free(f->req_inbox);
    free(f->resp_inbox);
    free(f->tc);
    tex_mesh_free(&f->mesh);
    at_free(&f->at);
    free(f);
}

void tex_nuca_attach(tex_nuca *f, uint32_t node, tbr_cache *tc)
{
    if (node < f->nodes) f->tc[node] = tc;
    if (!f->sets) f->sets = tbr_cache_sets(tc);
}

tbr_memq *tex_nuca_resp_inbox(tex_nuca *f, uint32_t node) { return &f->resp_inbox[node]; }

/* D-NUCA's ideal directory: the nearest other cache holding the line (ties: lowest node). */
static uint32_t dnuca_holder(const tex_nuca *f, uint32_t node, uint64_t addr)
{
    uint32_t best = node, best_hops = UINT32_MAX;
    for (uint32_t n = 0; n < f->nodes; n++) {
        if (n == node || !tbr_cache_contains(f->tc[n], addr, NULL)) continue;
        uint32_t h = tex_mesh_hops(&f->mesh, node, n);
        if (h < best_hops) best = n, best_hops = h;
    }
    return best;
}

/* Where the request goes (no side effects): the serving node; *local_hit: the line is in
 * node's own cache and is served there. */
static uint32_t target_of(const tex_nuca *f, uint32_t node, uint64_t addr, uint64_t now, bool *local_hit)
{
    uint64_t line = addr >> f->line_shift;
    bool present = tbr_cache_contains(f->tc[node], addr, NULL);
    *local_hit = false;
    switch (f->org) {
        case TEX_ORG_SHARED: {
            uint32_t home = (uint32_t)((line + line / (f->sets ? f->sets : 1)) % f->nodes);
            *local_hit = home == node && present;
            return home;
        }
        case TEX_ORG_DNUCA: *local_hit = present; return present ? node : dnuca_holder(f, node, addr);
        default: {
            uint32_t owner = at_owner(&f->at, node, line, now);
            *local_hit = present && (f->replication || owner == node);
            return *local_hit ? node : owner;
        }
    }
}

/* The table (or directory) lookup a local miss makes before going on: the cycle it is done. */
static uint64_t lookup_done(tex_nuca *f, uint32_t node, uint64_t t)
{
    if (f->org == TEX_ORG_SHARED || f->org == TEX_ORG_DTM_DIST) return t; /* static home / local copy */
    uint64_t at_table = send(f, node, f->table_node, REQ_BYTES, t) + 1;
    return send(f, f->table_node, node, REQ_BYTES, at_table);
}

static void table_access(tex_nuca *f, uint32_t node, uint64_t addr, uint64_t now)
{
    if (f->org != TEX_ORG_DTM && f->org != TEX_ORG_DTM_DIST) return;
    uint64_t changes = f->at.changes, flit_hops = 0;
    bool epoch = false;
    at_access(&f->at, node, addr >> f->line_shift, now, &epoch, sync_delay, f);
    tbr_stat_inc(f->st.table_accesses);
    tbr_energy_count(f->eu_table, TBR_EV_READ, 1);
    tbr_energy_count(f->eu_table, TBR_EV_WRITE, 1);
    if (epoch) {
        tbr_stat_inc(f->st.epochs);
        if (f->org == TEX_ORG_DTM_DIST) /* every bucket's owner broadcast to every other node */
            for (uint32_t b = 0; b < f->at.buckets; b++)
                for (uint32_t j = 0; j < f->nodes; j++)
                    flit_hops += tex_mesh_hops(&f->mesh, (uint32_t)f->at.next[(size_t)j * f->at.buckets + b], j);
        tbr_stat_add(f->st.sync_flit_hops, flit_hops);
        tbr_stat_add(f->st.mesh_flit_hops, flit_hops);
        tbr_energy_count(f->eu_mesh, TBR_EV_HOP, flit_hops); /* one word per bucket entry */
    }
    tbr_stat_add(f->st.owner_changes, f->at.changes - changes);
}

bool tex_nuca_send(tex_nuca *f, uint32_t node, const tbr_mem_msg *rq, uint64_t now)
{
    bool local_hit;
    uint32_t target = target_of(f, node, rq->addr, now, &local_hit);
    tbr_memq *local_q = tbr_cache_req_in(f->tc[node]);
    if (tbr_memq_full(target == node ? local_q : &f->req_inbox[target])) return false;
    if (local_hit && f->org != TEX_ORG_SHARED && f->org != TEX_ORG_DNUCA &&
        at_owner(&f->at, node, rq->addr >> f->line_shift, now) != node)
        tbr_stat_inc(f->st.replicated_hits);
    table_access(f, node, rq->addr, now);
    tbr_mem_msg m = *rq;
    if (local_hit) {
        tbr_stat_inc(f->st.local_hits);
        return tbr_memq_push(local_q, &m);
    }
    uint64_t t = lookup_done(f, node, now + (f->org == TEX_ORG_SHARED ? 0 : f->probe_latency));
    if (target == node) {
        tbr_stat_inc(f->st.local_misses);
        m.ready = f->org == TEX_ORG_SHARED ? now : t - f->probe_latency; /* the cache checks its tags again */
        return tbr_memq_push(local_q, &m);
    }
    tbr_stat_inc(tbr_cache_contains(f->tc[target], rq->addr, NULL) ? f->st.remote_hits : f->st.remote_misses);
    m.src = node + 1;
    m.ready = send(f, node, target, REQ_BYTES, t);
    return tbr_memq_push(&f->req_inbox[target], &m);
}

void tex_nuca_tick_node(tex_nuca *f, uint32_t node, uint64_t now)
{
    const tbr_mem_msg *m = tbr_memq_peek(&f->req_inbox[node], now);
    if (!m) return;
    tbr_mem_msg c = *m;
    c.ready = now;
    if (tbr_memq_push(tbr_cache_req_in(f->tc[node]), &c)) tbr_memq_pop(&f->req_inbox[node]);
}

bool tex_nuca_reply(tex_nuca *f, uint32_t node, const tbr_mem_msg *resp, uint64_t now)
{
    uint32_t to = resp->src - 1;
    if (tbr_memq_full(&f->resp_inbox[to])) return false;
    tbr_mem_msg c = *resp;
    c.src = 0;
    c.ready = send(f, node, to, f->line_bytes, now);
    return tbr_memq_push(&f->resp_inbox[to], &c);
}

uint64_t tex_nuca_next_event(const tex_nuca *f, uint32_t node, uint64_t now)
{
    (void)now;
    uint64_t a = tbr_memq_head_ready(&f->req_inbox[node]), b = tbr_memq_head_ready(&f->resp_inbox[node]);
    return a < b ? a : b;
}

bool tex_nuca_idle(const tex_nuca *f, uint32_t node)
{
    return tbr_memq_empty(&f->req_inbox[node]) && tbr_memq_empty(&f->resp_inbox[node]);
}

int tex_nuca_energy(tex_nuca *f, tbr_energy *e, char *err, size_t errlen)
{
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.width_bits = 64; /* priced per 64-bit word and hop (mesh_stats) */
    g.count = f->nodes;
    f->eu_mesh = tbr_energy_add(e, "texture_mesh", "dtm", TBR_EK_NOC, &g, err, errlen);
    if (!f->eu_mesh) return -1;
    if (f->org != TEX_ORG_DTM && f->org != TEX_ORG_DTM_DIST) return 0;
    uint64_t bits = at_bits(&f->at);
    memset(&g, 0, sizeof g);
    g.bytes = (bits + 7) / 8;
    g.width_bits = (uint32_t)(bits / f->at.buckets); /* one entry */
    g.count = f->org == TEX_ORG_DTM_DIST ? f->nodes : 1;
    f->eu_table = tbr_energy_add(e, "affinity_table", "dtm", TBR_EK_SRAM, &g, err, errlen);
    return f->eu_table ? 0 : -1;
}
