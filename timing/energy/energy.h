/* Energy and power accounting of the timing simulator (docs/energy-model.md).
 *
 * Units register their hardware structures (name, technique group, kind,
 * geometry) and get a handle; the model prices each event from the
 * structure's geometry (energy_models.h). Activity is counted either
 * directly on the handle (tbr_energy_count: one add, no call into this
 * module) or by binding an event to a counter of the statistics registry
 * (tbr_energy_bind), or both (they add up). At each frame end the caller
 * passes cumulative GPU cycles and DRAM command counts; the module takes the
 * deltas and computes per unit dynamic = sum(events x pJ/event) and
 * static = leakage x frame time, DRAM energy by command and by traffic
 * source (dram_power.h), average power and energy-delay product. Reports:
 * text and JSON (deterministic), per frame and total.
 */
#ifndef TBR_TIMING_ENERGY_H
#define TBR_TIMING_ENERGY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "memory/dram.h"
#include "energy/dram_power.h"
#include "energy/energy_models.h"
#include "core/stats.h"

/* Who caused a DRAM request (attribution of DRAM energy). */
typedef enum {
    TBR_DSRC_VERTICES,         /* vertex fetch */
    TBR_DSRC_PARAMETER_BUFFER, /* PLB writes + Tile Fetcher reads of the parameter buffer */
    TBR_DSRC_TEXTURES,         /* texture fetches */
    TBR_DSRC_COLOR_FLUSH,      /* tile color (and depth) write-back to the frame buffer */
    TBR_DSRC_TILE_LOADS,       /* tile color/depth loads at tile start */
    TBR_DSRC_INSTRUCTIONS,     /* shader instruction fetch */
    TBR_DSRC_OTHER,
    TBR_DSRC_COUNT
} tbr_dram_source;

/* The handle: cumulative event counts, incremented by the simulator. */
typedef struct tbr_energy_unit {
    uint64_t ev[TBR_EV_COUNT];
} tbr_energy_unit;

static inline void tbr_energy_count(tbr_energy_unit *u, tbr_energy_event ev, uint64_t n)
{
    if (u) u->ev[ev] += n;
}

typedef struct tbr_energy tbr_energy;

/* Reads gpu.tech_nm, gpu.voltage_v, gpu.clock_mhz, energy.*, dram.* and
 * dram_power.* from a validated config. */
tbr_energy *tbr_energy_new(const tbr_config *cfg, char *err, size_t errlen);
void tbr_energy_free(tbr_energy *e);
/* Every count zero and no frame ended; the structures and prices stay (gpu_reset). */
void tbr_energy_reset(tbr_energy *e);

/* Register a structure. `group` is "baseline" or the technique that adds
 * it ("re", "ptr", "dtm", ...); overheads are reported per group. Names are
 * unique. NULL with a message on a bad geometry or duplicate name. */
tbr_energy_unit *tbr_energy_add(tbr_energy *e, const char *name, const char *group, tbr_energy_kind kind,
                                const tbr_energy_geom *g, char *err, size_t errlen);
tbr_energy_unit *tbr_energy_find(const tbr_energy *e, const char *name);
/* Also charge `ev` of `u` with the value of a stats counter (read at each
 * frame end; several stats may be bound to the same event). */
void tbr_energy_bind(tbr_energy *e, tbr_energy_unit *u, tbr_energy_event ev, const tbr_stat *st);
/* Per-structure overrides (calibration against a published figure). */
void tbr_energy_set_event_pj(tbr_energy *e, tbr_energy_unit *u, tbr_energy_event ev, double pj);
void tbr_energy_set_leak_mw(tbr_energy *e, tbr_energy_unit *u, double mw);
const tbr_energy_costs *tbr_energy_unit_costs(const tbr_energy *e, const tbr_energy_unit *u);

/* The thesis-baseline structures (caches, tile buffers, queues, shader ALUs
 * and register files, fixed-function units; Primitive Table in group
 * "ptr_tf" when the Tile Fetcher is pipelined), geometry from cfg. With a
 * stats registry, events are bound to the cache counters (<prefix>.hits ->
 * read, .misses -> tag_lookup, .fills + .write_hits -> write). */
int tbr_energy_add_baseline(tbr_energy *e, const tbr_config *cfg, tbr_stats *stats, char *err, size_t errlen);
/* Rendering Elimination structures (group "re"): Signature Buffer (2 frames
 * x tiles x 32 bit), Compute CRC (8 LUTs), Accumulate CRC (4 LUTs), OT
 * queue (`ot_entries` tile ids), constants bitmap (1 bit/tile), comparator. */
int tbr_energy_add_re(tbr_energy *e, const tbr_config *cfg, uint32_t ot_entries, char *err, size_t errlen);

/* Count DRAM requests (of dram.request_bytes) by source, cumulative: call
 * when a request is sent to the DRAM (or add counts in bulk). */
void tbr_energy_dram_source(tbr_energy *e, tbr_dram_source src, uint64_t reads, uint64_t writes);

/* End a frame. All arguments are cumulative since the start: GPU cycles,
 * DRAM command counts (NULL: no DRAM energy), DRAM cycles, and optionally
 * DRAM rank residency (NULL: estimated, see dram_power.h). */
void tbr_energy_frame_end(tbr_energy *e, const char *label, uint64_t gpu_cycles, const tbr_dram_counts *dram,
                          uint64_t dram_cycles, const tbr_dram_residency *res);

typedef struct {
    double gpu_dynamic_pj, gpu_static_pj, gpu_pj;
    double dram_pj, total_pj;
    double seconds; /* GPU time */
    double avg_power_w;
    double edp_js; /* total energy x time */
    tbr_dram_energy dram;
    double dram_by_source[TBR_DSRC_COUNT + 1]; /* [TBR_DSRC_COUNT] = refresh + background + unattributed */
} tbr_energy_summary;

#define TBR_ENERGY_TOTAL ((size_t)-1)
size_t tbr_energy_frames(const tbr_energy *e);
/* frame index or TBR_ENERGY_TOTAL; -1 if out of range */
int tbr_energy_summary_of(const tbr_energy *e, size_t frame, tbr_energy_summary *out);
/* Dynamic and static energy (pJ) of one unit in a frame / in total. */
double tbr_energy_unit_dynamic_pj(const tbr_energy *e, size_t frame, const tbr_energy_unit *u);
double tbr_energy_unit_static_pj(const tbr_energy *e, size_t frame, const tbr_energy_unit *u);
/* Energy (pJ) of all units of a group in a frame / in total. */
double tbr_energy_group_pj(const tbr_energy *e, size_t frame, const char *group);

void tbr_energy_report_text(const tbr_energy *e, FILE *out);
void tbr_energy_report_json(const tbr_energy *e, FILE *out);

const char *tbr_dram_source_name(tbr_dram_source s);

#endif
