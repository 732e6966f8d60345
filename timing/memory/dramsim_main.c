/* tbr-dramsim: run the DRAM model (dram.c) standalone on a request trace and
 * report bandwidth, read latency, row-buffer behaviour and command counts.
 * Trace format and report fields: docs/dram-model.md. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "memory/dram.h"
#include "core/stats.h"
#include "core/util.h"
#include "energy/dram_power.h"
#include "memory/dramsim_trace.h"
#include "tbr/file_input.h"

#ifndef TBR_VERSION
#define TBR_VERSION "unknown"
#endif

/* Limits of the trace (docs/dram-model.md): request cycles up to 2^48 (65 hours of
 * DRAM time at 1.2 GHz; later cycles would overflow the model's cycle arithmetic) and
 * lines of at most 4095 characters. */
#define TRACE_MAX_CYCLE (1ull << 48)
#define TRACE_MAX_LINE  4096

static void usage(FILE *out)
{
    fprintf(out, "usage: tbr-dramsim [options] TRACE\n"
                 "Run the timing simulator's DRAM model standalone on a request trace.\n"
                 "\n"
                 "TRACE: one request per line: ADDRESS R|W CYCLE\n"
                 "  ADDRESS  byte address, decimal or 0x-prefixed hex\n"
                 "  R|W      read or write of dram.request_bytes bytes\n"
                 "  CYCLE    earliest cycle the request may enter the controller (non-decreasing,\n"
                 "           at most 2^48); lines of at most 4095 characters\n"
                 "  '#' starts a comment; blank lines are ignored; '-' reads stdin.\n"
                 "\n"
                 "options:\n"
                 "  --config FILE     load a config file (key = value), may be repeated\n"
                 "  --set KEY=VALUE   override one parameter after the config files, may be repeated\n"
                 "  --clock dram|gpu  clock of the CYCLE column and of reported latencies (default dram);\n"
                 "                    gpu goes through the clock-domain crossing at gpu.clock_mhz\n"
                 "  --json            print the report as JSON\n"
                 "  --stats FILE      also write the full statistics registry as JSON to FILE\n"
                 "  --cycles N        stop after N cycles (of the --clock domain); requests not yet\n"
                 "                    answered are left out of the latency figures\n"
                 "  -q, --quiet       no progress messages on stderr\n"
                 "  --list-params     print the parameter table and exit\n"
                 "  --dump-config     print the effective configuration (text, or JSON with --json) and exit\n"
                 "  -h, --help        this help\n"
                 "  --version         print the version\n"
                 "\n"
                 "read latency: from the request's arrival at the controller (it entered the DRAM\n"
                 "queues, or with --clock gpu the clock-domain FIFO) to its data returned\n"
                 "\n"
                 "exit status: 0 ok, 2 bad usage or bad input (messages name file:line)\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

/* Reads one line (without its newline) into buf of TRACE_MAX_LINE bytes. Returns 1, 0 at
 * the end of the input, -1 with a message: a read error (the OS reason), a NUL byte or
 * an over-long line (so that /dev/zero or a binary file is an error, not a huge line). */
static int read_line(FILE *f, const char *path, long lineno, char *buf, char *err, size_t errlen)
{
    size_t len = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0') {
            snprintf(err, errlen, "%s:%ld: NUL byte in trace (not a text file?)", path, lineno);
            return -1;
        }
        if (len == TRACE_MAX_LINE - 1) {
            snprintf(err, errlen, "%s:%ld: line longer than %d characters", path, lineno, TRACE_MAX_LINE - 1);
            return -1;
        }
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        return -1;
    }
    return c == EOF && len == 0 ? 0 : 1;
}

/* Opens the trace ('-' = stdin); NULL with a message (a directory is named as such). */
static FILE *open_trace(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0) return stdin;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a trace file", path);
        return NULL;
    }
    /* a regular file only: a FIFO given by name would block */
    char oerr[256] = "";
    FILE *f = tbr_fopen_input(path, oerr, sizeof oerr);
    if (!f) snprintf(err, errlen, "%s: %s", path, oerr);
    return f;
}

/* Reads the whole trace; returns -1 with a file:line message on bad input. */
int tbr_dramsim_load_trace(const char *path, treq **out, size_t *n_out, char *err, size_t errlen)
{
    FILE *f = open_trace(path, err, errlen);
    if (!f) return -1;
    treq *v = NULL;
    size_t n = 0, cap = 0;
    char line[TRACE_MAX_LINE];
    long lineno = 0;
    uint64_t last_cycle = 0;
    int rc = 0, got;
    while ((got = read_line(f, path, lineno + 1, line, err, errlen)) > 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *tok[4];
        int nt = 0;
        for (char *p = strtok(line, " \t\r\n,"); p && nt < 4; p = strtok(NULL, " \t\r\n,")) tok[nt++] = p;
        if (nt == 0) continue;
        if (nt != 3) {
            snprintf(err, errlen, "%s:%ld: expected 'ADDRESS R|W CYCLE', got %d field%s", path, lineno, nt,
                     nt == 1 ? "" : "s");
            rc = -1;
            break;
        }
        treq r;
        if (parse_u64(tok[0], &r.addr) != 0) {
            snprintf(err, errlen, "%s:%ld: bad address '%s'", path, lineno, tok[0]);
            rc = -1;
            break;
        }
        if (strlen(tok[1]) != 1 || !strchr("RrWw", tok[1][0])) {
            snprintf(err, errlen, "%s:%ld: bad operation '%s' (expected R or W)", path, lineno, tok[1]);
            rc = -1;
            break;
        }
        r.write = toupper((unsigned char)tok[1][0]) == 'W';
        if (parse_u64(tok[2], &r.cycle) != 0) {
            snprintf(err, errlen, "%s:%ld: bad cycle '%s'", path, lineno, tok[2]);
            rc = -1;
            break;
        }
        if (r.cycle > TRACE_MAX_CYCLE) {
            snprintf(err, errlen, "%s:%ld: cycle %llu is beyond the limit 2^48 = %llu", path, lineno,
                     (unsigned long long)r.cycle, (unsigned long long)TRACE_MAX_CYCLE);
            rc = -1;
            break;
        }
        if (r.cycle < last_cycle) {
            snprintf(err, errlen, "%s:%ld: cycle %llu is before the previous request's %llu", path, lineno,
                     (unsigned long long)r.cycle, (unsigned long long)last_cycle);
            rc = -1;
            break;
        }
        last_cycle = r.cycle;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = tbr_xrealloc(v, cap * sizeof *v);
        }
        v[n++] = r;
    }
    if (got < 0) rc = -1;
    if (f != stdin) fclose(f);
    if (rc != 0) {
        free(v);
        return -1;
    }
    *out = v;
    *n_out = n;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted array */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
    if (!n) return 0;
    size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}

/* The command line. */
struct dramsim_options {
    const char *configs[64];
    int nconfigs;
    const char *sets[256];
    int nsets;
    const char *trace, *stats_path;
    int json, quiet, list, dump, gpu_clock;
    uint64_t max_cycles; /* --cycles; 0 = until every request is answered */
};

/* An option that takes a value (--config, --set, --clock, --stats). Returns 0 or 2. */
static int take_option_value(const char *a, const char *v, struct dramsim_options *o)
{
    if (!strcmp(a, "--config")) {
        if (o->nconfigs == 64) {
            fprintf(stderr, "tbr-dramsim: too many --config\n");
            return 2;
        }
        o->configs[o->nconfigs++] = v;
    } else if (!strcmp(a, "--set")) {
        if (o->nsets == 256) {
            fprintf(stderr, "tbr-dramsim: too many --set\n");
            return 2;
        }
        o->sets[o->nsets++] = v;
    } else if (!strcmp(a, "--stats")) {
        o->stats_path = v;
    } else if (!strcmp(a, "--cycles")) {
        if (parse_u64(v, &o->max_cycles) != 0 || o->max_cycles == 0 || o->max_cycles > TRACE_MAX_CYCLE) {
            fprintf(stderr, "tbr-dramsim: --cycles must be an integer in [1, 2^48], got '%s'\n", v);
            return 2;
        }
    } else if (!strcmp(v, "dram") || !strcmp(v, "gpu")) {
        o->gpu_clock = !strcmp(v, "gpu");
    } else {
        fprintf(stderr, "tbr-dramsim: --clock must be dram or gpu, got '%s'\n", v);
        return 2;
    }
    return 0;
}

/* Fills *o from the command line. Returns -1 to go on, or the exit status when main must
 * return at once (help, version, bad usage). */
static int parse_args(int argc, char **argv, struct dramsim_options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("tbr-dramsim %s\n", TBR_VERSION);
            return 0;
        } else if (!strcmp(a, "--config") || !strcmp(a, "--set") || !strcmp(a, "--clock") || !strcmp(a, "--stats") ||
                   !strcmp(a, "--cycles")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tbr-dramsim: %s needs an argument\n", a);
                return 2;
            }
            if (take_option_value(a, argv[++i], o)) return 2;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--list-params")) {
            o->list = 1;
        } else if (!strcmp(a, "--dump-config")) {
            o->dump = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "tbr-dramsim: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (!o->trace) {
            o->trace = a;
        } else {
            fprintf(stderr, "tbr-dramsim: more than one trace file given ('%s', '%s')\n", o->trace, a);
            return 2;
        }
    }
    return -1;
}

/* The configuration: the config files in order, then the --set overrides, validated.
 * Returns NULL (message given) on error. */
static tbr_config *load_config(const struct dramsim_options *o)
{
    char err[1024];
    tbr_config *cfg = tbr_config_new();
    for (int i = 0; i < o->nconfigs; i++)
        if (tbr_config_load_file(cfg, o->configs[i], err, sizeof err) != 0) {
            fprintf(stderr, "tbr-dramsim: %s\n", err);
            tbr_config_free(cfg);
            return NULL;
        }
    for (int i = 0; i < o->nsets; i++)
        if (tbr_config_apply_override(cfg, o->sets[i], err, sizeof err) != 0) {
            fprintf(stderr, "tbr-dramsim: %s\n", err);
            tbr_config_free(cfg);
            return NULL;
        }
    if (tbr_config_validate(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "tbr-dramsim: invalid configuration: %s\n", err);
        tbr_config_free(cfg);
        return NULL;
    }
    return cfg;
}

/* What the run measured: the read latencies (nlat of them) and when the last response was
 * ready. */
struct dramsim_run {
    uint64_t *lat;
    size_t nlat;
    uint64_t last_ready;
    uint64_t end; /* the cycle the run stopped at (--cycles) */
};

/* Counts one response from the DRAM model. */
static void record_response(const tbr_mem_msg *r, struct dramsim_run *run, size_t *ndone)
{
    if (!r->write) run->lat[run->nlat++] = r->ready - r->issued;
    if (r->ready > run->last_ready) run->last_ready = r->ready;
    (*ndone)++;
}

/* Feeds the requests to the DRAM model, each no earlier than its cycle, until all are
 * answered (or --cycles): in DRAM cycles directly, or with --clock gpu through the
 * clock-domain crossing one GPU cycle at a time. A request's latency counts from the cycle
 * the model took it (issued = that cycle). Idle time before the next request is skipped
 * (tbr_dram_skip_to: exact, refresh included). Progress on stderr every 10M cycles unless
 * --quiet. */
static void run_requests(tbr_dram *d, const treq *reqs, size_t n, const struct dramsim_options *o,
                         struct dramsim_run *run)
{
    run->lat = tbr_xcalloc(n ? n : 1, sizeof *run->lat);
    run->nlat = 0;
    run->last_ready = 0;
    size_t ndone = 0, next = 0;
    uint64_t progress_every = 10000000, next_progress = progress_every;
    run->end = 0;
    uint64_t now = 0; /* in the trace's clock */
    const uint64_t end = o->max_cycles ? o->max_cycles : UINT64_MAX;
    while ((next < n || !tbr_dram_idle(d)) && now < end) {
        tbr_mem_msg r;
        if (!o->gpu_clock) {
            now = tbr_dram_now(d);
            while (next < n && reqs[next].cycle <= now && tbr_dram_can_accept(d, reqs[next].addr, reqs[next].write)) {
                tbr_mem_msg m = {
                    .addr = reqs[next].addr, .id = next, .issued = now, .write = (uint8_t)reqs[next].write};
                tbr_dram_enqueue(d, &m);
                next++;
            }
            if (tbr_dram_idle(d) && next < n && reqs[next].cycle > now) /* idle until the next request */
                tbr_dram_skip_to(d, reqs[next].cycle < end ? reqs[next].cycle : end);
            else
                tbr_dram_tick(d);
            while (tbr_dram_pop_response(d, &r)) record_response(&r, run, &ndone);
            now = tbr_dram_now(d);
        } else {
            if (tbr_dram_idle(d) && next < n && reqs[next].cycle > now) { /* idle until the next request */
                uint64_t g = reqs[next].cycle < end ? reqs[next].cycle : end;
                tbr_dram_skip_to(d, tbr_dram_gpu_to_dram_edge(d, g));
                now = g;
                continue;
            }
            while (next < n && reqs[next].cycle <= now) {
                tbr_mem_msg m = {
                    .addr = reqs[next].addr, .id = next, .issued = now, .write = (uint8_t)reqs[next].write};
                if (!tbr_dram_gpu_send(d, &m, now)) break;
                next++;
            }
            tbr_dram_gpu_advance(d, now);
            while (tbr_dram_gpu_recv(d, now, &r)) record_response(&r, run, &ndone);
            now++;
        }
        if (!o->quiet && now >= next_progress) {
            fprintf(stderr, "tbr-dramsim: cycle %llu, %zu/%zu requests completed\n", (unsigned long long)now, ndone, n);
            next_progress = (now / progress_every + 1) * progress_every;
        }
    }
    run->end = now;
}

/* The report's figures, in the clock named by unit. lat is sorted. */
struct dramsim_summary {
    const char *trace, *unit;
    size_t n;
    const uint64_t *lat;
    size_t nlat;
    double avg_latency;
    tbr_dram_counts c;
    uint64_t elapsed;
    double bytes_per_cycle, gbps, peak_gbps, hit_rate;
    uint64_t hist[64];      /* read latencies in power-of-two buckets [2^k, 2^(k+1)) */
    tbr_dram_energy energy; /* over the DRAM cycles simulated (energy_cycles) */
    uint64_t energy_cycles;
    double avg_power_mw;
};

/* DRAM energy of the run from the simulator's IDD model (energy/dram_power.h), with the
 * model's own rank residency; average power = energy / simulated DRAM time (pJ/ns = mW). */
static void summarize_energy(tbr_dram *d, const tbr_config *cfg, struct dramsim_summary *s)
{
    tbr_dram_power_params p;
    char err[256];
    if (tbr_dram_power_params_from_config(cfg, &p, err, sizeof err) != 0) return;
    tbr_dram_residency res = {0};
    tbr_dram_rank_cycles(d, &res.act_stby, &res.pre_stby);
    s->energy_cycles = tbr_dram_now(d);
    tbr_dram_power_compute(&p, &s->c, s->energy_cycles, &res, &s->energy);
    double ns = (double)s->energy_cycles * p.tck_ns;
    s->avg_power_mw = ns > 0 ? s->energy.total / ns : 0;
}

static void summarize(tbr_dram *d, const tbr_config *cfg, const struct dramsim_options *o, const treq *reqs, size_t n,
                      struct dramsim_run *run, struct dramsim_summary *s)
{
    memset(s, 0, sizeof *s);
    qsort(run->lat, run->nlat, sizeof *run->lat, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < run->nlat; i++) sum += (double)run->lat[i];
    s->trace = o->trace;
    s->n = n;
    s->lat = run->lat;
    s->nlat = run->nlat;
    s->avg_latency = run->nlat ? sum / (double)run->nlat : 0.0;
    tbr_dram_get_counts(d, &s->c);
    double f_mhz = (double)(o->gpu_clock ? tbr_cfg_uint(cfg, "gpu.clock_mhz") : tbr_cfg_uint(cfg, "dram.clock_mhz"));
    uint64_t first_cycle = n ? reqs[0].cycle : 0;
    s->elapsed = n ? run->last_ready - first_cycle : 0;
    if (o->max_cycles) s->elapsed = run->end; /* a fixed window from cycle 0, as DRAMsim3 reports */
    s->bytes_per_cycle = s->elapsed ? (double)s->c.bytes / (double)s->elapsed : 0;
    s->gbps = s->bytes_per_cycle * f_mhz * 1e6 / 1e9;
    s->peak_gbps = tbr_dram_peak_bytes_per_cycle(d) * (double)tbr_cfg_uint(cfg, "dram.clock_mhz") * 1e6 / 1e9;
    uint64_t accesses = s->c.row_hits + s->c.row_misses + s->c.row_conflicts;
    s->hit_rate = accesses ? (double)s->c.row_hits / (double)accesses : 0;
    s->unit = o->gpu_clock ? "gpu" : "dram";
    for (size_t i = 0; i < run->nlat; i++) {
        int k = 0;
        while (k < 63 && (run->lat[i] >> (k + 1))) k++;
        s->hist[run->lat[i] ? k : 0]++;
    }
    summarize_energy(d, cfg, s);
}

static void print_json(const struct dramsim_summary *s)
{
    const tbr_dram_counts *c = &s->c;
    size_t nlat = s->nlat;
    const uint64_t *lat = s->lat;
    printf("{\n  \"tool\": \"tbr-dramsim\",\n  \"version\": \"%s\",\n  \"clock\": \"%s\",\n", TBR_VERSION, s->unit);
    printf("  \"requests\": %zu,\n  \"reads\": %llu,\n  \"writes\": %llu,\n", s->n, (unsigned long long)c->reads,
           (unsigned long long)c->writes);
    printf("  \"bytes\": %llu,\n  \"elapsed_cycles\": %llu,\n", (unsigned long long)c->bytes,
           (unsigned long long)s->elapsed);
    printf("  \"bandwidth_bytes_per_cycle\": %.6f,\n  \"bandwidth_gbps\": %.6f,\n  \"peak_gbps\": %.6f,\n"
           "  \"efficiency\": %.6f,\n",
           s->bytes_per_cycle, s->gbps, s->peak_gbps, s->peak_gbps > 0 ? s->gbps / s->peak_gbps : 0);
    printf("  \"read_latency\": {\"count\": %zu, \"min\": %llu, \"avg\": %.6f, \"p50\": %llu, \"p90\": %llu, "
           "\"p99\": %llu, \"max\": %llu, \"histogram\": [",
           nlat, (unsigned long long)(nlat ? lat[0] : 0), s->avg_latency, (unsigned long long)pct(lat, nlat, 50),
           (unsigned long long)pct(lat, nlat, 90), (unsigned long long)pct(lat, nlat, 99),
           (unsigned long long)(nlat ? lat[nlat - 1] : 0));
    int first = 1;
    for (int k = 0; k < 64; k++)
        if (s->hist[k]) {
            printf("%s{\"lo\": %llu, \"hi\": %llu, \"count\": %llu}", first ? "" : ", ",
                   (unsigned long long)(k ? 1ull << k : 0), (unsigned long long)((2ull << k) - 1),
                   (unsigned long long)s->hist[k]);
            first = 0;
        }
    printf("]},\n");
    printf("  \"row_buffer\": {\"hits\": %llu, \"misses\": %llu, \"conflicts\": %llu, \"hit_rate\": %.6f},\n",
           (unsigned long long)c->row_hits, (unsigned long long)c->row_misses, (unsigned long long)c->row_conflicts,
           s->hit_rate);
    const tbr_dram_energy *e = &s->energy;
    printf("  \"latency_definition\": \"read latency: arrival at the controller to data returned\",\n");
    printf("  \"energy_pj\": {\"act\": %.1f, \"pre\": %.1f, \"rd\": %.1f, \"wr\": %.1f, \"ref\": %.1f, "
           "\"act_stby\": %.1f, \"pre_stby\": %.1f, \"background\": %.1f, \"total\": %.1f, \"dram_cycles\": %llu},\n",
           e->act, e->pre, e->rd, e->wr, e->ref, e->act_stby, e->pre_stby, e->background, e->total,
           (unsigned long long)s->energy_cycles);
    printf("  \"average_power_mw\": %.3f,\n", s->avg_power_mw);
    printf("  \"commands\": {\"ACT\": %llu, \"PRE\": %llu, \"RD\": %llu, \"WR\": %llu, \"REF\": %llu}\n}\n",
           (unsigned long long)c->act, (unsigned long long)c->pre, (unsigned long long)c->rd, (unsigned long long)c->wr,
           (unsigned long long)c->ref);
}

static void print_text(const struct dramsim_summary *s)
{
    const tbr_dram_counts *c = &s->c;
    size_t nlat = s->nlat;
    const uint64_t *lat = s->lat;
    printf("tbr-dramsim %s: %s\n", TBR_VERSION, s->trace);
    printf("requests            %zu (%llu reads, %llu writes)\n", s->n, (unsigned long long)c->reads,
           (unsigned long long)c->writes);
    printf("elapsed             %llu %s cycles\n", (unsigned long long)s->elapsed, s->unit);
    printf("bandwidth           %.3f B/%s-cycle, %.3f GB/s (peak %.3f GB/s, %.1f%%)\n", s->bytes_per_cycle, s->unit,
           s->gbps, s->peak_gbps, s->peak_gbps > 0 ? 100.0 * s->gbps / s->peak_gbps : 0.0);
    printf("read latency        min %llu  avg %.2f  p50 %llu  p90 %llu  p99 %llu  max %llu (%s cycles)\n",
           (unsigned long long)(nlat ? lat[0] : 0), s->avg_latency, (unsigned long long)pct(lat, nlat, 50),
           (unsigned long long)pct(lat, nlat, 90), (unsigned long long)pct(lat, nlat, 99),
           (unsigned long long)(nlat ? lat[nlat - 1] : 0), s->unit);
    for (int k = 0; k < 64; k++)
        if (s->hist[k])
            printf("  [%6llu, %6llu]  %llu\n", (unsigned long long)(k ? 1ull << k : 0),
                   (unsigned long long)((2ull << k) - 1), (unsigned long long)s->hist[k]);
    printf("row buffer          %llu hits, %llu misses (closed bank), %llu conflicts; hit rate %.1f%%\n",
           (unsigned long long)c->row_hits, (unsigned long long)c->row_misses, (unsigned long long)c->row_conflicts,
           100.0 * s->hit_rate);
    printf("commands            ACT %llu  PRE %llu  RD %llu  WR %llu  REF %llu\n", (unsigned long long)c->act,
           (unsigned long long)c->pre, (unsigned long long)c->rd, (unsigned long long)c->wr,
           (unsigned long long)c->ref);
    const tbr_dram_energy *e = &s->energy;
    printf("energy (pJ)         ACT %.4g  PRE %.4g  RD %.4g  WR %.4g  REF %.4g  act_stby %.4g  pre_stby %.4g  "
           "total %.4g over %llu dram cycles\n",
           e->act, e->pre, e->rd, e->wr, e->ref, e->act_stby, e->pre_stby, e->total,
           (unsigned long long)s->energy_cycles);
    printf("average power       %.2f mW (IDD model, docs/energy-model.md)\n", s->avg_power_mw);
    printf("read latency is from the request's arrival at the controller to its data returned\n");
}

/* --stats FILE: the whole statistics registry, written to FILE.tmp-PID and renamed, so
 * that FILE is either complete or untouched. Returns 0 or 2 (message with the OS reason). */
static int write_stats(const char *path, tbr_stats *stats)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        fprintf(stderr, "tbr-dramsim: %s: path too long\n", path);
        return 2;
    }
    FILE *sf = fopen(tmp, "w");
    if (!sf) {
        fprintf(stderr, "tbr-dramsim: %s: cannot write: %s\n", path, strerror(errno));
        return 2;
    }
    tbr_stats_dump_json(stats, sf);
    int bad = fflush(sf) != 0 || ferror(sf);
    int err = errno;
    if (fclose(sf) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        fprintf(stderr, "tbr-dramsim: %s: cannot write: %s\n", path, strerror(err));
        remove(tmp);
        return 2;
    }
    return 0;
}

/* Standard output flushed and closed without error, else a message and 2 (a report lost
 * to a full disk or a closed pipe is not a success). */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "tbr-dramsim: cannot write standard output: %s\n", strerror(errno));
        return 2;
    }
    return rc;
}

#ifndef TBR_DRAMSIM_NO_MAIN /* (the fuzz target of the parser has its own) */
int main(int argc, char **argv)
{
    struct dramsim_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (o.list) {
        tbr_params_print(stdout);
        return finish_stdout(0);
    }
    tbr_config *cfg = load_config(&o);
    if (!cfg) return 2;
    if (o.dump) {
        if (o.json)
            tbr_config_dump_json(cfg, stdout);
        else
            tbr_config_dump_text(cfg, stdout);
        tbr_config_free(cfg);
        return finish_stdout(0);
    }
    if (!o.trace) {
        fprintf(stderr, "tbr-dramsim: no trace file given (see --help)\n");
        tbr_config_free(cfg);
        return 2;
    }
    char err[1024];
    treq *reqs = NULL;
    size_t n = 0;
    if (tbr_dramsim_load_trace(o.trace, &reqs, &n, err, sizeof err) != 0) {
        fprintf(stderr, "tbr-dramsim: %s\n", err);
        tbr_config_free(cfg);
        return 2;
    }

    tbr_stats *stats = tbr_stats_new();
    tbr_dram *d = tbr_dram_new(cfg, stats, err, sizeof err);
    if (!d) {
        fprintf(stderr, "tbr-dramsim: %s\n", err);
        return 2;
    }
    struct dramsim_run run;
    run_requests(d, reqs, n, &o, &run);

    struct dramsim_summary s;
    summarize(d, cfg, &o, reqs, n, &run, &s);
    if (o.json)
        print_json(&s);
    else
        print_text(&s);
    rc = 0;
    if (o.stats_path) rc = write_stats(o.stats_path, stats);
    free(run.lat);
    free(reqs);
    tbr_dram_free(d);
    tbr_stats_free(stats);
    tbr_config_free(cfg);
    return finish_stdout(rc);
}
#endif
