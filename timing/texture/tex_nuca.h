/* NUCA organisations of the Fragment Processors' Texture Caches (seeds/003; docs/techniques.md
 * "DTM-NUCA"). texture_cache.organization:
 *   private       each Texture Cache serves its own processor (no tex_nuca object exists)
 *   shared        one banked texture cache: node i's cache is bank i, a line's home bank is
 *                 (line + line / sets) mod nodes (consecutive lines interleave over the banks
 *                 and every bank uses all its sets); a request to another bank crosses the mesh
 *   dnuca         conventional D-NUCA without replication (sec. VI): a line lives in the cache
 *                 of the first node that missed it; a local miss looks the line up in a
 *                 centralized directory (an ideal one: it knows every cache's contents) and
 *                 reads it remotely when another cache has it, else fills it locally from L2
 *   dtm_nuca      DTM-NUCA with the centralized Affinity Table (sec. III, IV-A)
 *   dtm_nuca_dist DTM-NUCA with per-node tables synchronised at epochs (sec. IV-B)
 *
 * DTM-NUCA: a line present in the local cache is served locally (dtm.replication = true: the
 * copies left behind by ownership changes and by the distributed tables' lag are used, the
 * paper's "allowed replication"; false: only the bucket's owner serves it). Otherwise the
 * bucket's owner (affinity_table.h) serves it: the local cache itself (fetching from L2) when
 * the requester owns the bucket, else the owner's cache over the mesh (tex_mesh.h), which
 * fetches the line from L2 into its own cache on a miss. Every texture access updates the
 * table. The centralized table (and D-NUCA's directory) sits at the mesh centre: a local miss
 * asks it over the mesh before going on; the distributed copy is read in parallel with the
 * local tag check.
 *
 * Timing of a remote access from node r to node o at cycle t: the local tag check
 * (texture_cache.latency), the table lookup (centralized: a 1-flit round trip to the centre +
 * 1 cycle), the 1-flit request over the mesh into o's cache request queue, o's cache (hit
 * latency, or its miss to L2), the line back over the mesh (line_bytes / noc.link_bytes flits).
 */
#ifndef TBR_TEX_NUCA_H
#define TBR_TEX_NUCA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/stats.h"
#include "energy/energy.h"
#include "memory/cache.h"
#include "memory/memq.h"
#include "texture/affinity_table.h"
#include "texture/tex_mesh.h"

typedef enum { TEX_ORG_PRIVATE, TEX_ORG_DNUCA, TEX_ORG_DTM, TEX_ORG_DTM_DIST, TEX_ORG_SHARED } tex_org;

typedef struct tex_nuca {
    tex_org org;
    uint32_t nodes, line_shift, line_bytes, sets, table_node, probe_latency;
    bool replication;
    tbr_cache **tc;                   /* per node, attached by the texture units */
    tbr_memq *req_inbox, *resp_inbox; /* per node: requests for its cache, responses for it */
    tex_mesh mesh;
    affinity_table at;
    struct {
        tbr_stat *local_hits, *local_misses, *replicated_hits, *remote_hits, *remote_misses, *table_accesses, *epochs,
            *owner_changes, *mesh_messages, *mesh_hops, *mesh_flit_hops, *link_stalls, *sync_flit_hops;
    } st;
    tbr_energy_unit *eu_table, *eu_mesh;
} tex_nuca;

/* texture_cache.organization = private: *out = NULL (nothing to build). -1 with err. */
int tex_nuca_create(tex_nuca **out, const tbr_config *cfg, tbr_stats *st, uint32_t nodes, char *err, size_t errlen);
void tex_nuca_free(tex_nuca *f);
/* Node `node`'s Texture Cache (its texture unit calls this from its init). */
void tex_nuca_attach(tex_nuca *f, uint32_t node, tbr_cache *tc);
/* A line request of node's texture unit: into the local cache or over the mesh to another
 * node's. false (nothing changed) when the queue it goes to is full. */
bool tex_nuca_send(tex_nuca *f, uint32_t node, const tbr_mem_msg *rq, uint64_t now);
/* Node's share of the fabric's work at `now`: one arrived remote request into its cache. */
void tex_nuca_tick_node(tex_nuca *f, uint32_t node, uint64_t now);
/* A response of node's cache to a remote requester (src = requester + 1) back over the mesh;
 * false when the requester's inbox is full. */
bool tex_nuca_reply(tex_nuca *f, uint32_t node, const tbr_mem_msg *resp, uint64_t now);
/* Responses that came back over the mesh for node (the texture unit pops them). */
tbr_memq *tex_nuca_resp_inbox(tex_nuca *f, uint32_t node);
uint64_t tex_nuca_next_event(const tex_nuca *f, uint32_t node, uint64_t now);
bool tex_nuca_idle(const tex_nuca *f, uint32_t node);
/* The Affinity Table(s) and the mesh as energy structures (group "dtm"). */
int tex_nuca_energy(tex_nuca *f, tbr_energy *e, char *err, size_t errlen);

#endif
