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
void tbr_stat_inc(tbr_stat *st);
void tbr_stat_add(tbr_stat *st, uint64_t n);
void tbr_stat_sample(tbr_stat *st, double v);   /* AVERAGE */
void tbr_stat_hsample(tbr_stat *st, uint64_t v); /* HISTOGRAM (also fine for AVERAGE) */

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
