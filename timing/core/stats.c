/* Statistics registry (see stats.h). */
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t count;
    double sum, min, max;
    uint64_t *buckets;
} frame_val;

typedef struct {
    char *label;
    size_t nstats; /* stats registered at snapshot time (prefix of s->v) */
    frame_val *vals;
} frame_t;

/* Stats are allocated side by side in blocks, in registration order, apart from their
 * names: a unit's counters, updated together every simulated cycle, then share cache
 * lines instead of each sitting between its own name and description on the heap. */
#define STAT_BLOCK 256

struct tbr_stats {
    tbr_stat **v;
    size_t n, cap;
    /* name -> stat, open addressing (0 = empty, else id + 1): registration checks every
     * name for a duplicate, and a linear search made building a GPU quadratic in its
     * ~450 statistics (23% of fuzz_sim_frame's time per input, issue 22) */
    uint32_t *index;
    size_t index_cap;  /* a power of two, at least twice n */
    tbr_stat **blocks; /* every STAT_BLOCK stats of v live in one block */
    size_t nblocks;
    frame_t *frames;
    size_t nframes, fcap;
};

tbr_stats *tbr_stats_new(void) { return tbr_xcalloc(1, sizeof(tbr_stats)); }

void tbr_stats_free(tbr_stats *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nframes; i++) {
        for (size_t j = 0; j < s->frames[i].nstats; j++) free(s->frames[i].vals[j].buckets);
        free(s->frames[i].vals);
        free(s->frames[i].label);
    }
    free(s->frames);
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i]->name);
        free(s->v[i]->desc);
        free(s->v[i]->buckets);
        free(s->v[i]->prev_buckets);
    }
    for (size_t i = 0; i < s->nblocks; i++) free(s->blocks[i]);
    free(s->blocks);
    free(s->v);
    free(s->index);
    free(s);
}

void tbr_stats_reset(tbr_stats *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nframes; i++) {
        for (size_t j = 0; j < s->frames[i].nstats; j++) free(s->frames[i].vals[j].buckets);
        free(s->frames[i].vals);
        free(s->frames[i].label);
    }
    s->nframes = 0;
    for (size_t i = 0; i < s->n; i++) {
        tbr_stat *st = s->v[i];
        st->count = st->fcount = st->prev_count = 0;
        st->sum = st->min = st->max = st->fmin = st->fmax = st->prev_sum = 0;
        if (st->buckets) memset(st->buckets, 0, ((size_t)st->nb + 1) * sizeof *st->buckets);
        if (st->prev_buckets) memset(st->prev_buckets, 0, ((size_t)st->nb + 1) * sizeof *st->prev_buckets);
    }
}

static bool valid_name(const char *n)
{
    if (!*n || *n == '.') return false;
    for (const char *p = n; *p; p++) {
        bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.';
        if (!ok) return false;
        if (*p == '.' && (p[1] == '.' || p[1] == '\0')) return false;
    }
    return true;
}

static size_t name_hash(const char *name) /* FNV-1a */
{
    uint64_t h = 14695981039346656037u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 1099511628211u;
    return (size_t)h;
}

/* The index slot of `name`: its stat's, or the empty slot where it would go. */
static size_t index_slot(const tbr_stats *s, const char *name)
{
    size_t mask = s->index_cap - 1, i = name_hash(name) & mask;
    while (s->index[i] && strcmp(s->v[s->index[i] - 1]->name, name) != 0) i = (i + 1) & mask;
    return i;
}

static void index_add(tbr_stats *s, tbr_stat *st)
{
    if (2 * (s->n + 1) > s->index_cap) { /* grow and re-insert every stat */
        free(s->index);
        s->index_cap = s->index_cap ? 2 * s->index_cap : 256;
        s->index = tbr_xcalloc(s->index_cap, sizeof *s->index);
        for (size_t k = 0; k < s->n; k++) s->index[index_slot(s, s->v[k]->name)] = (uint32_t)k + 1;
    }
    s->index[index_slot(s, st->name)] = (uint32_t)st->id + 1;
}

tbr_stat *tbr_stats_find(const tbr_stats *s, const char *name)
{
    if (!s || !s->index) return NULL;
    uint32_t e = s->index[index_slot(s, name)];
    return e ? s->v[e - 1] : NULL;
}

size_t tbr_stats_size(const tbr_stats *s) { return s ? s->n : 0; }

static tbr_stat *reg(tbr_stats *s, const char *name, const char *desc, tbr_stat_kind kind, uint64_t width, uint32_t nb)
{
    if (!s) return NULL;
    if (!valid_name(name)) {
        fprintf(stderr, "tbr stats: invalid stat name '%s'\n", name);
        abort();
    }
    if (tbr_stats_find(s, name)) {
        fprintf(stderr, "tbr stats: stat '%s' registered twice\n", name);
        abort();
    }
    if (s->n == s->nblocks * STAT_BLOCK) {
        s->blocks = tbr_xrealloc(s->blocks, (s->nblocks + 1) * sizeof *s->blocks);
        s->blocks[s->nblocks++] = tbr_xcalloc(STAT_BLOCK, sizeof(tbr_stat));
    }
    tbr_stat *st = &s->blocks[s->n / STAT_BLOCK][s->n % STAT_BLOCK];
    st->name = tbr_xstrdup(name);
    st->desc = tbr_xstrdup(desc ? desc : "");
    st->kind = kind;
    st->width = width ? width : 1;
    st->nb = nb;
    if (kind == TBR_STAT_HISTOGRAM) {
        st->buckets = tbr_xcalloc((size_t)nb + 1, sizeof(uint64_t));
        st->prev_buckets = tbr_xcalloc((size_t)nb + 1, sizeof(uint64_t));
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = tbr_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    st->id = s->n;
    index_add(s, st);
    s->v[s->n++] = st;
    return st;
}

tbr_stat *tbr_stats_counter(tbr_stats *s, const char *name, const char *desc)
{
    return reg(s, name, desc, TBR_STAT_COUNTER, 1, 0);
}
tbr_stat *tbr_stats_average(tbr_stats *s, const char *name, const char *desc)
{
    return reg(s, name, desc, TBR_STAT_AVERAGE, 1, 0);
}
tbr_stat *tbr_stats_histogram(tbr_stats *s, const char *name, const char *desc, uint64_t bucket_width,
                              uint32_t nbuckets)
{
    return reg(s, name, desc, TBR_STAT_HISTOGRAM, bucket_width, nbuckets);
}
tbr_stat *tbr_stats_counterf(tbr_stats *s, const char *desc, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return tbr_stats_counter(s, name, desc);
}

void tbr_stat_hsample(tbr_stat *st, uint64_t v)
{
    if (!st) return;
    tbr_stat_sample_raw_(st, (double)v);
    if (st->kind == TBR_STAT_HISTOGRAM) {
        uint64_t k = v / st->width;
        st->buckets[k < st->nb ? k : st->nb]++;
    }
}

tbr_stat_kind tbr_stat_kind_of(const tbr_stat *st) { return st->kind; }
uint64_t tbr_stat_value(const tbr_stat *st) { return st ? st->count : 0; }
void tbr_occupancy_init(tbr_occupancy *o, tbr_stat *average)
{
    o->st = average;
    o->n = o->sum = 0;
    o->min = UINT32_MAX;
    o->max = 0;
}

void tbr_occupancy_fold(tbr_occupancy *o)
{
    tbr_stat *st = o->st;
    if (st && o->n) {
        if (st->kind != TBR_STAT_AVERAGE) abort(); /* histograms sample one by one */
        tbr_stat_merge_(st, o->min, o->max, o->n, (double)o->sum);
    }
    tbr_occupancy_init(o, st);
}

double tbr_stat_sum(const tbr_stat *st) { return st ? st->sum : 0; }
double tbr_stat_mean(const tbr_stat *st) { return st && st->count ? st->sum / (double)st->count : 0; }
double tbr_stat_min(const tbr_stat *st) { return st && st->count ? st->min : 0; }
double tbr_stat_max(const tbr_stat *st) { return st && st->count ? st->max : 0; }

static uint64_t percentile(const uint64_t *buckets, uint32_t nb, uint64_t width, uint64_t count, double maxv, double p)
{
    if (count == 0) return 0;
    /* rank of the sample: ceil(p/100 * count), at least 1 */
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)count);
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    uint64_t acc = 0;
    for (uint32_t k = 0; k < nb; k++) {
        acc += buckets[k];
        if (acc >= rank) {
            uint64_t v = (uint64_t)k * width + (width - 1);
            return (double)v > maxv ? (uint64_t)maxv : v;
        }
    }
    return (uint64_t)maxv;
}

uint64_t tbr_stat_percentile(const tbr_stat *st, double p)
{
    if (!st || st->kind != TBR_STAT_HISTOGRAM) return 0;
    return percentile(st->buckets, st->nb, st->width, st->count, st->max, p);
}

void tbr_stats_snapshot(tbr_stats *s, const char *label)
{
    if (!s) return;
    if (s->nframes == s->fcap) {
        s->fcap = s->fcap ? s->fcap * 2 : 16;
        s->frames = tbr_xrealloc(s->frames, s->fcap * sizeof *s->frames);
    }
    frame_t *f = &s->frames[s->nframes++];
    f->label = tbr_xstrdup(label ? label : "");
    f->nstats = s->n;
    f->vals = tbr_xcalloc(s->n, sizeof *f->vals);
    for (size_t i = 0; i < s->n; i++) {
        tbr_stat *st = s->v[i];
        frame_val *fv = &f->vals[i];
        fv->count = st->count - st->prev_count;
        fv->sum = st->sum - st->prev_sum;
        fv->min = st->fcount ? st->fmin : 0;
        fv->max = st->fcount ? st->fmax : 0;
        if (st->kind == TBR_STAT_HISTOGRAM) {
            fv->buckets = tbr_xcalloc((size_t)st->nb + 1, sizeof(uint64_t));
            for (uint32_t k = 0; k <= st->nb; k++) {
                fv->buckets[k] = st->buckets[k] - st->prev_buckets[k];
                st->prev_buckets[k] = st->buckets[k];
            }
        }
        st->prev_count = st->count;
        st->prev_sum = st->sum;
        st->fcount = 0;
    }
}

size_t tbr_stats_frames(const tbr_stats *s) { return s ? s->nframes : 0; }

/* ---- output ---- */

static int cmp_stat(const void *a, const void *b)
{
    const tbr_stat *x = *(tbr_stat *const *)a, *y = *(tbr_stat *const *)b;
    return strcmp(x->name, y->name);
}

/* Indices of the first n stats in name order. */
static size_t *sorted_index(const tbr_stats *s, size_t n)
{
    tbr_stat **tmp = tbr_xcalloc(n, sizeof *tmp);
    if (n) memcpy(tmp, s->v, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_stat);
    size_t *idx = tbr_xcalloc(n, sizeof *idx);
    for (size_t i = 0; i < n; i++) idx[i] = tmp[i]->id;
    free(tmp);
    return idx;
}

void tbr_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
            case '"': fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            default:
                if (*p < 0x20)
                    fprintf(out, "\\u%04x", *p);
                else
                    fputc(*p, out);
        }
    }
    fputc('"', out);
}

void tbr_json_double(FILE *out, double v)
{
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    /* integers print without a fraction; others with 6 decimals (fixed
   * format keeps dumps byte-stable and diff-friendly) */
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.6f", v);
}

static void text_value(FILE *out, const tbr_stat *st, uint64_t count, double sum, double min, double max,
                       const uint64_t *buckets)
{
    if (st->kind == TBR_STAT_COUNTER) {
        fprintf(out, "%llu", (unsigned long long)count);
        return;
    }
    fprintf(out, "count=%llu mean=%.6f min=%.0f max=%.0f", (unsigned long long)count, count ? sum / (double)count : 0.0,
            min, max);
    if (st->kind == TBR_STAT_HISTOGRAM) {
        fprintf(out, " p50=%llu p90=%llu p99=%llu",
                (unsigned long long)percentile(buckets, st->nb, st->width, count, max, 50),
                (unsigned long long)percentile(buckets, st->nb, st->width, count, max, 90),
                (unsigned long long)percentile(buckets, st->nb, st->width, count, max, 99));
    }
}

void tbr_stats_dump_text(const tbr_stats *s, FILE *out)
{
    size_t *idx = sorted_index(s, s->n);
    fprintf(out, "# totals\n");
    for (size_t i = 0; i < s->n; i++) {
        const tbr_stat *st = s->v[idx[i]];
        fprintf(out, "%-40s ", st->name);
        text_value(out, st, st->count, st->sum, tbr_stat_min(st), tbr_stat_max(st), st->buckets);
        fprintf(out, "  # %s\n", st->desc);
    }
    free(idx);
    for (size_t f = 0; f < s->nframes; f++) {
        const frame_t *fr = &s->frames[f];
        fprintf(out, "# frame %zu %s\n", f, fr->label);
        size_t *fi = sorted_index(s, fr->nstats);
        for (size_t i = 0; i < fr->nstats; i++) {
            const tbr_stat *st = s->v[fi[i]];
            const frame_val *fv = &fr->vals[fi[i]];
            fprintf(out, "%-40s ", st->name);
            text_value(out, st, fv->count, fv->sum, fv->min, fv->max, fv->buckets);
            fputc('\n', out);
        }
        free(fi);
    }
}

static void json_value(FILE *out, const tbr_stat *st, uint64_t count, double sum, double min, double max,
                       const uint64_t *buckets)
{
    if (st->kind == TBR_STAT_COUNTER) {
        fprintf(out, "%llu", (unsigned long long)count);
        return;
    }
    fprintf(out, "{\"count\": %llu, \"sum\": ", (unsigned long long)count);
    tbr_json_double(out, sum);
    fprintf(out, ", \"mean\": ");
    tbr_json_double(out, count ? sum / (double)count : 0.0);
    fprintf(out, ", \"min\": ");
    tbr_json_double(out, min);
    fprintf(out, ", \"max\": ");
    tbr_json_double(out, max);
    if (st->kind == TBR_STAT_HISTOGRAM) {
        fprintf(out, ", \"bucket_width\": %llu, \"buckets\": [", (unsigned long long)st->width);
        /* trailing empty buckets are omitted to keep dumps short */
        uint32_t last = 0;
        for (uint32_t k = 0; k < st->nb; k++)
            if (buckets[k]) last = k + 1;
        for (uint32_t k = 0; k < last; k++) fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)buckets[k]);
        fprintf(out, "], \"overflow\": %llu", (unsigned long long)buckets[st->nb]);
    }
    fputc('}', out);
}

static const char *kind_name(tbr_stat_kind k)
{
    return k == TBR_STAT_COUNTER ? "counter" : k == TBR_STAT_AVERAGE ? "average" : "histogram";
}

void tbr_stats_dump_json(const tbr_stats *s, FILE *out)
{
    size_t *idx = sorted_index(s, s->n);
    fprintf(out, "{\n  \"schema\": \"tbr-stats-1\",\n  \"stats\": {");
    for (size_t i = 0; i < s->n; i++) {
        const tbr_stat *st = s->v[idx[i]];
        fprintf(out, "%s\n    ", i ? "," : "");
        tbr_json_string(out, st->name);
        fprintf(out, ": {\"kind\": \"%s\", \"desc\": ", kind_name(st->kind));
        tbr_json_string(out, st->desc);
        fprintf(out, ", \"value\": ");
        json_value(out, st, st->count, st->sum, tbr_stat_min(st), tbr_stat_max(st), st->buckets);
        fputc('}', out);
    }
    fprintf(out, "%s},\n  \"frames\": [", s->n ? "\n  " : "");
    free(idx);
    for (size_t f = 0; f < s->nframes; f++) {
        const frame_t *fr = &s->frames[f];
        fprintf(out, "%s\n    {\"frame\": %zu, \"label\": ", f ? "," : "", f);
        tbr_json_string(out, fr->label);
        fprintf(out, ", \"stats\": {");
        size_t *fi = sorted_index(s, fr->nstats);
        for (size_t i = 0; i < fr->nstats; i++) {
            const tbr_stat *st = s->v[fi[i]];
            const frame_val *fv = &fr->vals[fi[i]];
            fprintf(out, "%s\n      ", i ? "," : "");
            tbr_json_string(out, st->name);
            fprintf(out, ": ");
            json_value(out, st, fv->count, fv->sum, fv->min, fv->max, fv->buckets);
        }
        fprintf(out, "%s}}", fr->nstats ? "\n    " : "");
        free(fi);
    }
    fprintf(out, "%s]\n}\n", s->nframes ? "\n  " : "");
}
