/* Statistics registry.
 *
 * Models register counters, averages and histograms under hierarchical
 * names ("l2.read_hits") with a one-line description, keep the returned
 * handle and update it on their hot path. The registry takes per-frame
 * snapshots (tbr_stats_snapshot at each frame end) and dumps totals and
 * per-frame deltas as text or JSON. Output is sorted by name and uses only
 * integer and fixed-format arithmetic so equal runs give byte-identical dumps.
 *
 * All update functions accept a NULL handle (no-op) so a model can run
 * without a registry; tbr_stats_* registration with a NULL registry returns
 * NULL.
 */
#ifndef TBR_TIMING_STATS_H
#define TBR_TIMING_STATS_H

#include <stdint.h>
#include <stdio.h>

typedef enum {
    TBR_STAT_COUNTER,   /* monotonically increasing count */
    TBR_STAT_AVERAGE,   /* samples: count, sum, min, max, mean */
    TBR_STAT_HISTOGRAM, /* integer samples in linear buckets + overflow */
} tbr_stat_kind;

typedef struct tbr_stats tbr_stats;
typedef struct tbr_stat tbr_stat;

tbr_stats *tbr_stats_new(void);
void tbr_stats_free(tbr_stats *s);
/* Every statistic back to its value at registration and no frame snapshot; the
 * registrations (names, handles) stay (gpu_reset). */
void tbr_stats_reset(tbr_stats *s);

/* Registration. Names are [a-z0-9_.] with no empty component; a duplicate
 * or malformed name is a programming error and aborts. */
tbr_stat *tbr_stats_counter(tbr_stats *s, const char *name, const char *desc);
tbr_stat *tbr_stats_average(tbr_stats *s, const char *name, const char *desc);
/* Buckets [k*width, (k+1)*width) for k < nbuckets, then one overflow bucket. */
tbr_stat *tbr_stats_histogram(tbr_stats *s, const char *name, const char *desc, uint64_t bucket_width,
                              uint32_t nbuckets);
/* printf-style name helper for per-instance stats ("dram.ch%u.act"). */
tbr_stat *tbr_stats_counterf(tbr_stats *s, const char *desc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

tbr_stat *tbr_stats_find(const tbr_stats *s, const char *name);
size_t tbr_stats_size(const tbr_stats *s);

/* Updates. */
void tbr_stat_hsample(tbr_stat *st, uint64_t v); /* HISTOGRAM (also fine for AVERAGE) */
/* The per-cycle updates are inline (hot in tbr-sim's inner loops); the struct is
 * private to stats.c otherwise. */
struct tbr_stat { /* private: use the functions below */
    char *name, *desc;
    size_t id; /* registration position */
    tbr_stat_kind kind;
    uint64_t count; /* counter value / number of samples */
    double sum, min, max;
    /* since the last snapshot, for per-frame min/max */
    uint64_t fcount;
    double fmin, fmax;
    uint64_t width;
    uint32_t nb;
    uint64_t *buckets;   /* nb + 1 (overflow) */
    uint64_t prev_count; /* raw values at the previous snapshot */
    double prev_sum;
    uint64_t *prev_buckets; /* nb + 1 */
};

static inline void tbr_stat_inc(tbr_stat *st)
{
    if (st) st->count++;
}
static inline void tbr_stat_add(tbr_stat *st, uint64_t n)
{
    if (st) st->count += n;
}
/* n samples with minimum lo, maximum hi and sum `sum` added to an AVERAGE stat */
static inline void tbr_stat_merge_(tbr_stat *st, double lo, double hi, uint64_t n, double sum)
{
    if (st->count == 0 || lo < st->min) st->min = lo;
    if (st->count == 0 || hi > st->max) st->max = hi;
    if (st->fcount == 0 || lo < st->fmin) st->fmin = lo;
    if (st->fcount == 0 || hi > st->fmax) st->fmax = hi;
    st->count += n;
    st->fcount += n;
    st->sum += sum;
}
static inline void tbr_stat_sample_raw_(tbr_stat *st, double v) { tbr_stat_merge_(st, v, v, 1, v); }
static inline void tbr_stat_sample(tbr_stat *st, double v) /* AVERAGE */
{
    if (!st) return;
    if (st->kind == TBR_STAT_HISTOGRAM) {
        tbr_stat_hsample(st, v < 0 ? 0 : (uint64_t)v);
        return;
    }
    tbr_stat_sample_raw_(st, v);
}

/* n equal AVERAGE samples (the same result as n calls of tbr_stat_sample for the
 * integer-valued samples tbr-sim takes, e.g. queue occupancies): used when several
 * quiescent cycles are simulated at once. Always inlined: the Raster Units and the
 * geometry pipeline sample their queues every cycle. */
static inline __attribute__((always_inline)) void tbr_stat_sample_n(tbr_stat *st, double v, uint64_t n)
{
    if (!st || !n) return;
    if (st->kind == TBR_STAT_HISTOGRAM) {
        for (uint64_t i = 0; i < n; i++) tbr_stat_hsample(st, v < 0 ? 0 : (uint64_t)v);
        return;
    }
    tbr_stat_sample_raw_(st, v);
    if (n == 1) return; /* one cycle, the common case: nothing to add */
    st->count += n - 1;
    st->fcount += n - 1;
    st->sum += v * (double)(n - 1);
}

/* A queue's occupancy sampled every simulated cycle, accumulated in integers for one
 * AVERAGE stat and added to it by tbr_occupancy_fold (before any read of the stat):
 * the same result as a tbr_stat_sample_n per update, since a double holds these
 * integer sums exactly (below 2^53), at a fraction of the per-cycle cost. */
typedef struct {
    tbr_stat *st;
    uint64_t n, sum;
    uint32_t min, max; /* valid when n > 0 */
} tbr_occupancy;

void tbr_occupancy_init(tbr_occupancy *o, tbr_stat *average);
/* No sample since the last fold (gpu_reset). */
static inline void tbr_occupancy_reset(tbr_occupancy *o) { tbr_occupancy_init(o, o->st); }
static inline __attribute__((always_inline)) void tbr_occupancy_sample_n(tbr_occupancy *o, uint32_t v, uint64_t n)
{
    if (v < o->min) o->min = v;
    if (v > o->max) o->max = v;
    o->n += n;
    o->sum += (uint64_t)v * n;
}
/* Adds the samples accumulated since the last fold to the stat and restarts. */
void tbr_occupancy_fold(tbr_occupancy *o);

/* Reads (totals). */
tbr_stat_kind tbr_stat_kind_of(const tbr_stat *st);
uint64_t tbr_stat_value(const tbr_stat *st); /* counter value, or sample count */
double tbr_stat_sum(const tbr_stat *st);
double tbr_stat_mean(const tbr_stat *st); /* 0 when no samples */
double tbr_stat_min(const tbr_stat *st);
double tbr_stat_max(const tbr_stat *st);
/* Histogram percentile (0 < p <= 100): the upper edge minus one of the
 * bucket holding the p-th percentile sample (exact when width is 1), or the
 * maximum when it falls in the overflow bucket. */
uint64_t tbr_stat_percentile(const tbr_stat *st, double p);

/* End a frame: record the deltas since the previous snapshot. */
void tbr_stats_snapshot(tbr_stats *s, const char *label);
size_t tbr_stats_frames(const tbr_stats *s);

void tbr_stats_dump_text(const tbr_stats *s, FILE *out);
void tbr_stats_dump_json(const tbr_stats *s, FILE *out);

/* Write s as a JSON string literal (quotes and escapes). */
void tbr_json_string(FILE *out, const char *s);
/* Write a double as a JSON number ("null" if not finite), deterministic. */
void tbr_json_double(FILE *out, double v);

#endif
