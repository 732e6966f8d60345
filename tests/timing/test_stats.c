/* timing.stats: registry, per-frame snapshots, percentiles, and the text /
 * JSON dumps (timing/core/stats.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "tcheck.h"

/* ---- minimal JSON validator (RFC 8259 subset: enough to prove the dump
 * parses: objects, arrays, strings with escapes, numbers, literals) ---- */
static const char *jp;
static int jvalue(void);
static void jws(void)
{
    while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r') jp++;
}
static int jstring(void)
{
    if (*jp != '"') return 0;
    jp++;
    while (*jp && *jp != '"') {
        if ((unsigned char)*jp < 0x20) return 0;
        if (*jp == '\\') {
            jp++;
            if (!strchr("\"\\/bfnrtu", *jp)) return 0;
        }
        jp++;
    }
    if (*jp != '"') return 0;
    jp++;
    return 1;
}
static int jnumber(void)
{
    const char *s = jp;
    if (*jp == '-') jp++;
    if (!isdigit((unsigned char)*jp)) return 0;
    if (*jp == '0' && isdigit((unsigned char)jp[1])) return 0;
    while (isdigit((unsigned char)*jp)) jp++;
    if (*jp == '.') {
        jp++;
        if (!isdigit((unsigned char)*jp)) return 0;
        while (isdigit((unsigned char)*jp)) jp++;
    }
    return jp > s;
}
static int jcontainer(char open, char close, int keyed)
{
    if (*jp != open) return 0;
    jp++;
    jws();
    if (*jp == close) {
        jp++;
        return 1;
    }
    for (;;) {
        jws();
        if (keyed) {
            if (!jstring()) return 0;
            jws();
            if (*jp++ != ':') return 0;
        }
        if (!jvalue()) return 0;
        jws();
        if (*jp == ',') {
            jp++;
            continue;
        }
        if (*jp == close) {
            jp++;
            return 1;
        }
        return 0;
    }
}
static int jvalue(void)
{
    jws();
    if (*jp == '{') return jcontainer('{', '}', 1);
    if (*jp == '[') return jcontainer('[', ']', 0);
    if (*jp == '"') return jstring();
    if (!strncmp(jp, "null", 4) || !strncmp(jp, "true", 4)) return jp += 4, 1;
    if (!strncmp(jp, "false", 5)) return jp += 5, 1;
    return jnumber();
}
static int json_valid(const char *s)
{
    jp = s;
    if (!jvalue()) return 0;
    jws();
    return *jp == '\0';
}

static char *dump(const tbr_stats *s, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (json)
        tbr_stats_dump_json(s, m);
    else
        tbr_stats_dump_text(s, m);
    fclose(m);
    return buf;
}

/* Build the same registry content in one of two registration orders. */
static tbr_stats *build(int reverse)
{
    tbr_stats *s = tbr_stats_new();
    tbr_stat *hits, *lat, *h;
    if (!reverse) {
        hits = tbr_stats_counter(s, "l2.read_hits", "read hits");
        lat = tbr_stats_average(s, "l2.miss_latency", "miss lat");
        h = tbr_stats_histogram(s, "dram.lat", "lat", 10, 3);
    } else {
        h = tbr_stats_histogram(s, "dram.lat", "lat", 10, 3);
        lat = tbr_stats_average(s, "l2.miss_latency", "miss lat");
        hits = tbr_stats_counter(s, "l2.read_hits", "read hits");
    }
    /* frame 0 */
    tbr_stat_add(hits, 3);
    tbr_stat_sample(lat, 10);
    tbr_stat_sample(lat, 20);
    tbr_stat_hsample(h, 5);
    tbr_stat_hsample(h, 15);
    tbr_stat_hsample(h, 15);
    tbr_stats_snapshot(s, "f0");
    /* frame 1, with a stat registered mid-run */
    tbr_stat *late = tbr_stats_counter(s, "a.b", "quote \"x\"");
    tbr_stat_add(late, 7);
    tbr_stat_inc(hits);
    tbr_stat_inc(hits);
    tbr_stat_sample(lat, 30);
    tbr_stat_hsample(h, 99); /* >= 3 buckets * 10: overflow */
    tbr_stats_snapshot(s, "f1");
    return s;
}

/* Worked by hand:
 *   l2.read_hits   frame0 3, frame1 2, total 5
 *   l2.miss_latency samples 10 20 | 30: total count 3 sum 60 mean 20 min 10
 *                  max 30; f0 count 2 sum 30 mean 15; f1 count 1 sum 30
 *   dram.lat (width 10, 3 buckets) samples 5 15 15 | 99: buckets [0,10)=1,
 *                  [10,20)=2, overflow 1; total sum 134 mean 33.5; f0 sum 35
 *                  mean 35/3 = 11.666667 min 5 max 15; f1 only overflow
 *   a.b            registered in frame 1: absent from frame 0, 7 in frame 1
 * Keys sorted by name: a.b < dram.lat < l2.miss_latency < l2.read_hits. */
static const char *k_expected =
    "{\n"
    "  \"schema\": \"tbr-stats-1\",\n"
    "  \"stats\": {\n"
    "    \"a.b\": {\"kind\": \"counter\", \"desc\": \"quote \\\"x\\\"\", \"value\": 7},\n"
    "    \"dram.lat\": {\"kind\": \"histogram\", \"desc\": \"lat\", \"value\": {\"count\": 4, \"sum\": 134, "
    "\"mean\": 33.500000, \"min\": 5, \"max\": 99, \"bucket_width\": 10, \"buckets\": [1, 2], \"overflow\": 1}},\n"
    "    \"l2.miss_latency\": {\"kind\": \"average\", \"desc\": \"miss lat\", \"value\": {\"count\": 3, \"sum\": 60, "
    "\"mean\": 20, \"min\": 10, \"max\": 30}},\n"
    "    \"l2.read_hits\": {\"kind\": \"counter\", \"desc\": \"read hits\", \"value\": 5}\n"
    "  },\n"
    "  \"frames\": [\n"
    "    {\"frame\": 0, \"label\": \"f0\", \"stats\": {\n"
    "      \"dram.lat\": {\"count\": 3, \"sum\": 35, \"mean\": 11.666667, \"min\": 5, \"max\": 15, "
    "\"bucket_width\": 10, \"buckets\": [1, 2], \"overflow\": 0},\n"
    "      \"l2.miss_latency\": {\"count\": 2, \"sum\": 30, \"mean\": 15, \"min\": 10, \"max\": 20},\n"
    "      \"l2.read_hits\": 3\n"
    "    }},\n"
    "    {\"frame\": 1, \"label\": \"f1\", \"stats\": {\n"
    "      \"a.b\": 7,\n"
    "      \"dram.lat\": {\"count\": 1, \"sum\": 99, \"mean\": 99, \"min\": 99, \"max\": 99, "
    "\"bucket_width\": 10, \"buckets\": [], \"overflow\": 1},\n"
    "      \"l2.miss_latency\": {\"count\": 1, \"sum\": 30, \"mean\": 30, \"min\": 30, \"max\": 30},\n"
    "      \"l2.read_hits\": 2\n"
    "    }}\n"
    "  ]\n"
    "}\n";

/* tbr_occupancy: integer accumulation folded at phase ends must dump exactly what one
 * tbr_stat_sample_n per cycle gives, over snapshots and with folds of nothing. */
static void test_occupancy(void)
{
    tbr_stats *direct = tbr_stats_new(), *folded = tbr_stats_new();
    tbr_stat *d = tbr_stats_average(direct, "q.occupancy", "entries per cycle");
    tbr_occupancy o;
    tbr_occupancy_init(&o, tbr_stats_average(folded, "q.occupancy", "entries per cycle"));
    tbr_occupancy_fold(&o); /* nothing sampled yet: the stat stays empty */
    static const uint32_t v[] = {3, 0, 7, 7, 512, 1, 2, 9};
    static const uint64_t n[] = {1, 5, 1, 1000000, 1, 3, 1, 2};
    for (int frame = 0; frame < 3; frame++) {
        for (int k = 0; k < 8; k++) {
            uint32_t x = (v[k] * (uint32_t)(frame + 1)) % 600;
            tbr_stat_sample_n(d, x, n[k]);
            tbr_occupancy_sample_n(&o, x, n[k]);
            if (k == 3 || k == 7) tbr_occupancy_fold(&o); /* two phases per frame */
        }
        tbr_occupancy_fold(&o);
        tbr_stats_snapshot(direct, "f");
        tbr_stats_snapshot(folded, "f");
    }
    char *jd = dump(direct, 1), *jf = dump(folded, 1);
    CHECK(strcmp(jd, jf) == 0);
    /* frame 0 by hand: count 1000014, min 0, max 512 */
    CHECK_STR_CONTAINS(jf, "{\"count\": 1000014, ");
    CHECK_STR_CONTAINS(jf, "\"min\": 0, \"max\": 512}");
    free(jd);
    free(jf);
    tbr_stats_free(direct);
    tbr_stats_free(folded);
}

/* The name index (stats.c) past several growths: every one of 3,000 names finds its own
 * stat, names never registered find none. */
static void test_find_many(void)
{
    tbr_stats *s = tbr_stats_new();
    enum { N = 3000 };
    tbr_stat *reg[N];
    for (int i = 0; i < N; i++) reg[i] = tbr_stats_counterf(s, "many", "u%d.c%d", i % 7, i);
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        char name[32], other[32];
        snprintf(name, sizeof name, "u%d.c%d", i % 7, i);
        snprintf(other, sizeof other, "u%d.c%d", (i + 1) % 7, i);
        wrong += tbr_stats_find(s, name) != reg[i] || reg[i]->id != (size_t)i || tbr_stats_find(s, other) != NULL;
    }
    CHECK_EQ_U(wrong, 0);
    CHECK_EQ_U(tbr_stats_size(s), N);
    tbr_stats_free(s);
}

int main(void)
{
    test_occupancy();
    test_find_many();
    tbr_stats *a = build(0), *b = build(1);
    char *ja = dump(a, 1), *jb = dump(b, 1);
    if (strcmp(ja, k_expected) != 0) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", ja, k_expected);
    CHECK(strcmp(ja, k_expected) == 0);
    CHECK(json_valid(ja));
    /* registration order does not change the dump; dumping twice is stable */
    CHECK(strcmp(ja, jb) == 0);
    char *ja2 = dump(a, 1);
    CHECK(strcmp(ja, ja2) == 0);
    /* the validator really rejects broken JSON */
    CHECK(!json_valid("{\"a\": 1,}"));
    CHECK(!json_valid("{\"a\": nan}"));

    /* reads */
    tbr_stat *h = tbr_stats_find(a, "dram.lat");
    CHECK(h != NULL);
    CHECK_EQ_U(tbr_stat_value(h), 4);
    /* p50: rank ceil(0.5*4) = 2 falls in bucket [10,20) -> reported 19;
   * p99: rank 4 is the overflow sample -> the maximum, 99 */
    CHECK_EQ_U(tbr_stat_percentile(h, 50), 19);
    CHECK_EQ_U(tbr_stat_percentile(h, 99), 99);
    CHECK_EQ_U(tbr_stat_percentile(h, 25), 9); /* rank 1: bucket [0,10) */
    CHECK(tbr_stat_mean(tbr_stats_find(a, "l2.miss_latency")) == 20.0);
    CHECK_EQ_U(tbr_stats_frames(a), 2);
    CHECK_EQ_U(tbr_stats_size(a), 4);
    CHECK(tbr_stats_find(a, "nope") == NULL);

    /* text dump: sorted, with descriptions and frame sections */
    char *t = dump(a, 0);
    CHECK_STR_CONTAINS(t, "# totals\n");
    CHECK_STR_CONTAINS(t, "l2.read_hits                             5  # read hits\n");
    CHECK_STR_CONTAINS(t, "count=4 mean=33.500000 min=5 max=99 p50=19 p90=99 p99=99");
    CHECK_STR_CONTAINS(t, "# frame 1 f1\n");
    CHECK(strstr(t, "a.b") < strstr(t, "dram.lat"));

    /* NULL handles and registries are no-ops (models may run without stats) */
    tbr_stat_inc(NULL);
    tbr_stat_sample(NULL, 1);
    CHECK(tbr_stats_counter(NULL, "x", "y") == NULL);

    /* empty registry dumps valid JSON */
    tbr_stats *e = tbr_stats_new();
    char *je = dump(e, 1);
    CHECK(json_valid(je));
    free(je);
    tbr_stats_free(e);

    free(t);
    free(ja);
    free(ja2);
    free(jb);
    tbr_stats_free(a);
    tbr_stats_free(b);
    return T_RESULT();
}
