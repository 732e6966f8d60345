/* Shared helpers for the trace container tests: checks, a deterministic
 * reference trace generator, and comparison of a reader against it. */
#ifndef TBR_TEST_TRACE_COMMON_H
#define TBR_TEST_TRACE_COMMON_H

#include "tbr/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            g_failures++;                                                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

static inline uint64_t rng_next(uint64_t *s)
{
    /* xorshift64*: deterministic, so failures reproduce */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

typedef struct ref_rec {
    uint16_t type;
    size_t len;
    uint8_t *data;
} ref_rec;

typedef struct ref_frame {
    uint64_t number;
    size_t n;
    ref_rec *recs;
} ref_frame;

typedef struct ref_trace {
    size_t nframes;
    ref_frame *frames;
} ref_trace;

/* Varied records: empty payloads, types 0 and 65535, small and mid-size
 * payloads, occasional ones larger than big_len (pass > chunk size to get
 * oversized records), frames with zero records, non-contiguous numbers. */
static inline void ref_generate(ref_trace *t, uint64_t seed, size_t nframes, size_t max_recs, size_t big_len)
{
    uint64_t s = seed | 1;
    t->nframes = nframes;
    t->frames = xmalloc(nframes * sizeof *t->frames);
    uint64_t number = 1000 + rng_next(&s) % 50;
    for (size_t f = 0; f < nframes; f++) {
        ref_frame *fr = &t->frames[f];
        fr->number = number;
        number += 1 + rng_next(&s) % 3;
        fr->n = (f % 5 == 2) ? 0 : (size_t)(rng_next(&s) % (max_recs + 1));
        fr->recs = xmalloc(fr->n * sizeof *fr->recs);
        for (size_t i = 0; i < fr->n; i++) {
            ref_rec *r = &fr->recs[i];
            uint64_t k = rng_next(&s) % 100;
            r->type = k < 3 ? 0 : k < 6 ? 65535 : (uint16_t)(rng_next(&s) % 300);
            if (k < 10)
                r->len = 0;
            else if (k < 93)
                r->len = (size_t)(rng_next(&s) % 200);
            else if (k < 98)
                r->len = (size_t)(rng_next(&s) % 4000);
            else
                r->len = big_len + (size_t)(rng_next(&s) % 1000);
            r->data = xmalloc(r->len);
            /* half compressible (repeating), half random */
            for (size_t j = 0; j < r->len; j++)
                r->data[j] = (j & 64) ? (uint8_t)rng_next(&s) : (uint8_t)(j * 7 + r->type);
        }
    }
}

static inline void ref_free(ref_trace *t)
{
    for (size_t f = 0; f < t->nframes; f++) {
        for (size_t i = 0; i < t->frames[f].n; i++) free(t->frames[f].recs[i].data);
        free(t->frames[f].recs);
    }
    free(t->frames);
}

static inline uint64_t ref_total_records(const ref_trace *t)
{
    uint64_t n = 0;
    for (size_t f = 0; f < t->nframes; f++) n += t->frames[f].n;
    return n;
}

/* Writes the reference trace (background: compress on the writer's worker thread);
 * returns 0 or -1 with the message printed. */
static inline int ref_write_ex(const ref_trace *t, const char *path, const char *meta, size_t chunk_size,
                               int background, tbr_trace_writer_stats *stats)
{
    tbr_trace_writer_options o = {.chunk_size = chunk_size, .background = background};
    tbr_trace_error e;
    tbr_trace_writer *w = tbr_trace_writer_open_ex(path, meta, &o, &e);
    if (!w) {
        fprintf(stderr, "open: %s\n", e.msg);
        return -1;
    }
    for (size_t f = 0; f < t->nframes; f++) {
        const ref_frame *fr = &t->frames[f];
        if (tbr_trace_writer_begin_frame(w, fr->number) < 0) break;
        for (size_t i = 0; i < fr->n; i++)
            if (tbr_trace_writer_append(w, fr->recs[i].type, fr->recs[i].data, fr->recs[i].len) < 0) break;
        if (tbr_trace_writer_end_frame(w) < 0) break;
    }
    if (tbr_trace_writer_close(w, stats, &e) < 0) {
        fprintf(stderr, "close: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static inline int ref_write(const ref_trace *t, const char *path, const char *meta, size_t chunk_size,
                            tbr_trace_writer_stats *stats)
{
    return ref_write_ex(t, path, meta, chunk_size, 0, stats);
}

static inline const ref_frame *ref_find(const ref_trace *t, uint64_t number)
{
    for (size_t f = 0; f < t->nframes; f++)
        if (t->frames[f].number == number) return &t->frames[f];
    return NULL;
}

/* Reads the current frame of r and compares it with fr. Returns the number
 * of records that matched before the end / error / first mismatch; *rc gets
 * the last next_record result, *mismatch is set if a record differed (or
 * there were more records than the reference has). */
static inline size_t ref_compare_frame(tbr_trace_reader *r, const ref_frame *fr, int *rc, int *mismatch)
{
    size_t i = 0;
    uint16_t type;
    const uint8_t *p;
    size_t len;
    *mismatch = 0;
    while ((*rc = tbr_trace_reader_next_record(r, &type, &p, &len)) > 0) {
        if (!fr || i >= fr->n || fr->recs[i].type != type || fr->recs[i].len != len ||
            (len && memcmp(fr->recs[i].data, p, len) != 0)) {
            *mismatch = 1;
            return i;
        }
        i++;
    }
    return i;
}

/* Temporary directory removed at exit by the caller via rm_tree(). */
static inline void make_tmpdir(char *buf, size_t n, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, n, "%s/tbr_%s.XXXXXX", base && *base ? base : "/tmp", tag);
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(2);
    }
}

static inline int file_exists(const char *p) { return access(p, F_OK) == 0; }

static inline uint8_t *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = xmalloc((size_t)n);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(b);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static inline int write_whole(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

#endif
