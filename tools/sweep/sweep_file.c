/* The sweep file parser (docs/sweeps.md "The sweep file"). Line oriented: "[kind NAME]"
 * opens a section, "key = value" sets a key of it, '#' starts a comment line. */
#include "sweep_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/frame_range.h"

#define MAX_GRID_CELLS 100000

enum section { SEC_NONE, SEC_SWEEP, SEC_WORKLOAD, SEC_CONFIG, SEC_GRID, SEC_COLLECT };

/* One value list of a grid: "vary = KEY V1 V2 ...". */
typedef struct {
    char *key;
    char **vals;
    size_t nvals;
} grid_axis;

/* The parser's state while it reads the file. */
typedef struct {
    const char *path;
    int line;
    enum section sec;
    sweep_file *sf;
    sweep_config grid; /* the open [grid]: presets and sets shared by its cells */
    grid_axis axes[8];
    size_t naxes;
    char *err;
    size_t err_size;
    /* the configuration names defined so far, hashed (open addressing, at most half full):
     * a grid may define MAX_GRID_CELLS, and one linear scan per name made a 614-byte file
     * parse for minutes (issue 22, found by fuzz_sweep_file) */
    const char **names;
    size_t names_cap, nnames;
} parser;

static int fail(parser *p, const char *fmt, ...)
{
    int k = snprintf(p->err, p->err_size, "%s:%d: ", p->path, p->line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < p->err_size) vsnprintf(p->err + k, p->err_size - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

/* Room for element N of ARR, which holds N: the capacity doubles when N is a power of two,
 * so a grid of MAX_GRID_CELLS configurations is not copied once per cell (every array
 * grown here is only ever grown here, one element at a time). */
static void *grow(void *arr, size_t n, size_t elem)
{
    if (n & (n - 1)) return arr;
    void *a = realloc(arr, (n ? 2 * n : 1) * elem);
    if (!a) abort();
    return a;
}

static void push_str(char ***arr, size_t *n, const char *s)
{
    *arr = grow(*arr, *n, sizeof **arr);
    (*arr)[(*n)++] = xstrdup(s);
}

/* Names become directory names: letters, digits, '.', '_', '+', '-', not starting with '.'. */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || s[0] == '.') return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
              *s == '_' || *s == '+' || *s == '-'))
            return 0;
    return 1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

static size_t name_slot(const parser *p, const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
    size_t i = (size_t)h & (p->names_cap - 1);
    while (p->names[i] && strcmp(p->names[i], name)) i = (i + 1) & (p->names_cap - 1);
    return i;
}

/* Records NAME (kept by the caller) as a defined configuration: 0, or -1 if it already is. */
static int add_config_name(parser *p, const char *name)
{
    if (2 * (p->nnames + 1) > p->names_cap) {
        const char **old = p->names;
        size_t old_cap = p->names_cap;
        p->names_cap = old_cap ? 2 * old_cap : 64;
        p->names = calloc(p->names_cap, sizeof *p->names);
        if (!p->names) abort();
        for (size_t i = 0; i < old_cap; i++)
            if (old[i]) p->names[name_slot(p, old[i])] = old[i];
        free(old);
    }
    size_t i = name_slot(p, name);
    if (p->names[i]) return -1;
    p->names[i] = name;
    p->nnames++;
    return 0;
}

static int config_named(const sweep_file *sf, const char *name)
{
    for (size_t i = 0; i < sf->nconfigs; i++)
        if (!strcmp(sf->configs[i].name, name)) return 1;
    return 0;
}

static void free_config(sweep_config *c)
{
    free(c->name);
    for (size_t i = 0; i < c->npresets; i++) free(c->presets[i]);
    for (size_t i = 0; i < c->nsets; i++) free(c->sets[i]);
    free(c->presets);
    free(c->sets);
    memset(c, 0, sizeof *c);
}

static void free_axes(parser *p)
{
    for (size_t a = 0; a < p->naxes; a++) {
        free(p->axes[a].key);
        for (size_t v = 0; v < p->axes[a].nvals; v++) free(p->axes[a].vals[v]);
        free(p->axes[a].vals);
    }
    p->naxes = 0;
}

/* One configuration of the open grid: its sets, then KEY=VALUE of each axis at IDX[]. */
static int add_grid_cell(parser *p, const size_t *idx)
{
    char name[1024];
    size_t k = (size_t)snprintf(name, sizeof name, "%s", p->grid.name);
    for (size_t a = 0; a < p->naxes && k < sizeof name; a++)
        k += (size_t)snprintf(name + k, sizeof name - k, "-%s", p->axes[a].vals[idx[a]]);
    if (k >= sizeof name || !valid_name(name))
        return fail(p, "grid '%s': configuration name '%.80s' too long (64 characters at most)", p->grid.name, name);
    sweep_file *sf = p->sf;
    char *own = xstrdup(name);
    if (add_config_name(p, own)) {
        free(own);
        return fail(p, "grid '%s': configuration '%s' defined twice", p->grid.name, name);
    }
    sf->configs = grow(sf->configs, sf->nconfigs, sizeof *sf->configs);
    sweep_config *c = &sf->configs[sf->nconfigs++];
    memset(c, 0, sizeof *c);
    c->name = own;
    c->line = p->grid.line;
    for (size_t i = 0; i < p->grid.npresets; i++) push_str(&c->presets, &c->npresets, p->grid.presets[i]);
    for (size_t i = 0; i < p->grid.nsets; i++) push_str(&c->sets, &c->nsets, p->grid.sets[i]);
    for (size_t a = 0; a < p->naxes; a++) {
        char kv[1024];
        snprintf(kv, sizeof kv, "%s=%s", p->axes[a].key, p->axes[a].vals[idx[a]]);
        push_str(&c->sets, &c->nsets, kv);
    }
    return 0;
}

/* Closes the open [grid]: its cartesian product, the first axis varying slowest. */
static int finish_grid(parser *p)
{
    if (p->sec != SEC_GRID) return 0;
    int rc = 0;
    size_t total = 1;
    if (p->naxes == 0) rc = fail(p, "grid '%s' has no 'vary' line", p->grid.name);
    for (size_t a = 0; a < p->naxes && !rc; a++) {
        total *= p->axes[a].nvals;
        if (total > MAX_GRID_CELLS) rc = fail(p, "grid '%s' has more than %d cells", p->grid.name, MAX_GRID_CELLS);
    }
    size_t idx[8] = {0};
    for (size_t n = 0; n < total && !rc; n++) {
        rc = add_grid_cell(p, idx);
        for (size_t a = p->naxes; a-- > 0;) {
            if (++idx[a] < p->axes[a].nvals) break;
            idx[a] = 0;
        }
    }
    free_axes(p);
    free_config(&p->grid);
    p->sec = SEC_NONE;
    return rc;
}

/* "vary = KEY V1 V2 ...". */
static int parse_vary(parser *p, char *val)
{
    if (p->naxes == sizeof p->axes / sizeof p->axes[0]) return fail(p, "bad grid: more than 8 'vary' lines");
    char *save = NULL, *key = strtok_r(val, " \t", &save);
    if (!key || !strchr(key, '.') || strchr(key, '='))
        return fail(p, "bad grid: 'vary' needs KEY V1 V2 ... (a parameter name such as tile.raster_units)");
    for (size_t a = 0; a < p->naxes; a++)
        if (!strcmp(p->axes[a].key, key)) return fail(p, "bad grid: '%s' varied twice", key);
    grid_axis *ax = &p->axes[p->naxes++];
    memset(ax, 0, sizeof *ax);
    ax->key = xstrdup(key);
    for (char *v; (v = strtok_r(NULL, " \t", &save));) {
        if (!valid_name(v)) return fail(p, "bad grid: value '%s' of '%s' (letters, digits, . _ + - only)", v, key);
        for (size_t i = 0; i < ax->nvals; i++)
            if (!strcmp(ax->vals[i], v)) return fail(p, "bad grid: value '%s' of '%s' listed twice", v, key);
        push_str(&ax->vals, &ax->nvals, v);
    }
    if (ax->nvals == 0) return fail(p, "bad grid: 'vary = %s' lists no values", key);
    return 0;
}

static int parse_set(parser *p, sweep_config *c, const char *val)
{
    const char *eq = strchr(val, '=');
    if (!eq || eq == val || !eq[1] || strchr(val, ' ') || strchr(val, '\t'))
        return fail(p, "'set' needs KEY=VALUE without spaces, got '%s'", val);
    push_str(&c->sets, &c->nsets, val);
    return 0;
}

static int parse_u64(parser *p, const char *key, const char *val, uint64_t *out)
{
    char *end;
    errno = 0;
    if (val[0] < '0' || val[0] > '9') return fail(p, "'%s' needs a number, got '%s'", key, val);
    unsigned long long v = strtoull(val, &end, 10);
    if (errno || *end || v > 1000000000ull) return fail(p, "'%s' needs a number, got '%s'", key, val);
    *out = v;
    return 0;
}

static int set_once(parser *p, char **slot, const char *key, const char *val)
{
    if (*slot) return fail(p, "'%s' given twice", key);
    if (!*val) return fail(p, "'%s' has no value", key);
    *slot = xstrdup(val);
    return 0;
}

static int workload_key(parser *p, const char *key, char *val)
{
    sweep_workload *w = &p->sf->workloads[p->sf->nworkloads - 1];
    if (!strcmp(key, "dir")) return set_once(p, &w->dir, key, val);
    if (!strcmp(key, "trace")) return set_once(p, &w->trace, key, val);
    if (!strcmp(key, "replay_frames")) {
        uint64_t a, b;
        if (tbr_frame_range_parse(val, TBR_FRAMES_SINGLE, &a, &b) != TBR_FRAMES_OK)
            return fail(p, "'replay_frames' needs A-B, got '%s'", val);
        return set_once(p, &w->replay_frames, key, val);
    }
    if (!strcmp(key, "frames")) {
        if (w->has_frames) return fail(p, "'frames' given twice");
        if (tbr_frame_range_parse(val, TBR_FRAMES_SINGLE, &w->first, &w->last) != TBR_FRAMES_OK)
            return fail(p, "'frames' needs A-B (A <= B), got '%s'", val);
        w->has_frames = 1;
        return 0;
    }
    if (!strcmp(key, "shard")) {
        if (parse_u64(p, key, val, &w->shard_frames)) return -1;
        return w->shard_frames ? 0 : fail(p, "'shard' needs at least 1 frame");
    }
    if (!strcmp(key, "warmup")) return parse_u64(p, key, val, &w->warmup);
    return fail(p, "unknown key '%s' in [workload] (dir, trace, replay_frames, frames, shard, warmup)", key);
}

static int config_key(parser *p, sweep_config *c, const char *key, char *val)
{
    if (!strcmp(key, "preset")) {
        if (!*val) return fail(p, "'preset' has no value");
        push_str(&c->presets, &c->npresets, val);
        return 0;
    }
    if (!strcmp(key, "set")) return parse_set(p, c, val);
    if (p->sec == SEC_GRID && !strcmp(key, "vary")) return parse_vary(p, val);
    return fail(p, "unknown key '%s' in [%s] (preset, set%s)", key, p->sec == SEC_GRID ? "grid" : "config",
                p->sec == SEC_GRID ? ", vary" : "");
}

static int collect_key(parser *p, const char *key, char *val)
{
    sweep_file *sf = p->sf;
    if (!strcmp(key, "stat")) {
        char *save = NULL;
        int n = 0;
        for (char *s; (s = strtok_r(n ? NULL : val, " \t,", &save)); n++) {
            for (size_t i = 0; i < sf->nstats; i++)
                if (!strcmp(sf->stats[i], s)) return fail(p, "statistic '%s' listed twice", s);
            push_str(&sf->stats, &sf->nstats, s);
        }
        return n ? 0 : fail(p, "'stat' lists no statistic");
    }
    if (!strcmp(key, "normalize")) return set_once(p, &sf->normalize, key, val);
    return fail(p, "unknown key '%s' in [collect] (stat, normalize)", key);
}

static int key_value(parser *p, char *line)
{
    char *eq = strchr(line, '=');
    if (!eq) return fail(p, "expected 'key = value' or '[section]', got '%.60s'", line);
    *eq = 0;
    char *key = trim(line), *val = trim(eq + 1);
    switch (p->sec) {
        case SEC_NONE: return fail(p, "key '%s' outside a section", key);
        case SEC_SWEEP:
            if (!strcmp(key, "name")) return set_once(p, &p->sf->name, key, val);
            if (!strcmp(key, "output")) return set_once(p, &p->sf->output, key, val);
            return fail(p, "unknown key '%s' in [sweep] (name, output)", key);
        case SEC_WORKLOAD: return workload_key(p, key, val);
        case SEC_CONFIG: return config_key(p, &p->sf->configs[p->sf->nconfigs - 1], key, val);
        case SEC_GRID: return config_key(p, &p->grid, key, val);
        case SEC_COLLECT: return collect_key(p, key, val);
    }
    return -1;
}

static int check_workload(parser *p)
{
    if (p->sec != SEC_WORKLOAD) return 0;
    sweep_workload *w = &p->sf->workloads[p->sf->nworkloads - 1];
    int save = p->line, rc = 0;
    p->line = w->line;
    if (!w->dir == !w->trace)
        rc = fail(p, "workload '%s' needs exactly one of 'dir' (a tbr-replay output) and 'trace'", w->name);
    else if (w->replay_frames && !w->trace)
        rc = fail(p, "workload '%s': 'replay_frames' needs 'trace'", w->name);
    else if (w->shard_frames && !w->has_frames)
        rc = fail(p, "workload '%s': 'shard' needs 'frames = A-B'", w->name);
    else if (w->warmup && !w->shard_frames)
        rc = fail(p, "workload '%s': 'warmup' needs 'shard'", w->name);
    p->line = save;
    return rc;
}

static int open_section(parser *p, char *line)
{
    char *end = strchr(line, ']');
    if (!end || *trim(end + 1)) return fail(p, "a section header is '[kind NAME]', got '%.60s'", line);
    *end = 0;
    char *save = NULL, *kind = strtok_r(line + 1, " \t", &save), *name = strtok_r(NULL, " \t", &save);
    if (check_workload(p) || finish_grid(p)) return -1;
    if (!kind) return fail(p, "empty section header");
    sweep_file *sf = p->sf;
    int named = !strcmp(kind, "workload") || !strcmp(kind, "config") || !strcmp(kind, "grid");
    if (!named && (!strcmp(kind, "sweep") || !strcmp(kind, "collect"))) {
        if (name) return fail(p, "[%s] takes no name", kind);
        p->sec = kind[0] == 's' ? SEC_SWEEP : SEC_COLLECT;
        return 0;
    }
    if (!named) return fail(p, "unknown section '[%s]' (sweep, workload, config, grid, collect)", kind);
    if (!name || strtok_r(NULL, " \t", &save) || !valid_name(name))
        return fail(p, "[%s] needs one NAME (letters, digits, . _ + -; 64 at most)", kind);
    if (kind[0] == 'w') {
        for (size_t i = 0; i < sf->nworkloads; i++)
            if (!strcmp(sf->workloads[i].name, name)) return fail(p, "workload '%s' defined twice", name);
        sf->workloads = grow(sf->workloads, sf->nworkloads, sizeof *sf->workloads);
        sweep_workload *w = &sf->workloads[sf->nworkloads++];
        memset(w, 0, sizeof *w);
        w->name = xstrdup(name);
        w->line = p->line;
        p->sec = SEC_WORKLOAD;
    } else if (kind[0] == 'c') {
        char *own = xstrdup(name);
        if (add_config_name(p, own)) {
            free(own);
            return fail(p, "configuration '%s' defined twice", name);
        }
        sf->configs = grow(sf->configs, sf->nconfigs, sizeof *sf->configs);
        sweep_config *c = &sf->configs[sf->nconfigs++];
        memset(c, 0, sizeof *c);
        c->name = own;
        c->line = p->line;
        p->sec = SEC_CONFIG;
    } else {
        p->grid.name = xstrdup(name);
        p->grid.line = p->line;
        p->sec = SEC_GRID;
    }
    return 0;
}

/* The checks that need the whole file. */
static int check_file(parser *p)
{
    sweep_file *sf = p->sf;
    if (!sf->nworkloads) return fail(p, "no [workload NAME] section (a sweep needs at least one workload)");
    if (!sf->nconfigs) return fail(p, "no [config NAME] or [grid NAME] section");
    if (!sf->nstats) return fail(p, "no statistic to collect ([collect] stat = NAME ...)");
    if (sf->normalize && !config_named(sf, sf->normalize))
        return fail(p, "'normalize = %s' names no configuration", sf->normalize);
    return 0;
}

static int parse_lines(parser *p, const char *text, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        p->line++;
        if (e - pos > 4000) return fail(p, "line too long");
        char buf[4096];
        memcpy(buf, text + pos, e - pos);
        buf[e - pos] = 0;
        if (strlen(buf) != e - pos) return fail(p, "NUL byte in the line");
        pos = e + 1;
        char *line = trim(buf);
        if (!*line || *line == '#') continue;
        if (*line == '[' ? open_section(p, line) : key_value(p, line)) return -1;
    }
    return check_workload(p) || finish_grid(p) || check_file(p) ? -1 : 0;
}

int sweep_parse(const char *path, const char *text, size_t len, sweep_file *sf, char *err, size_t err_size)
{
    memset(sf, 0, sizeof *sf);
    sf->path = xstrdup(path);
    const char *slash = strrchr(path, '/');
    sf->base_dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
    if (!sf->base_dir) abort();
    parser p = {.path = path, .sf = sf, .err = err, .err_size = err_size};
    int rc = parse_lines(&p, text, len);
    free_axes(&p);
    free_config(&p.grid);
    free(p.names); /* the names themselves are the configurations' */
    if (rc) sweep_free(sf);
    return rc;
}

int sweep_load(const char *path, sweep_file *sf, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 > cap) {
            cap = (cap + 4096) * 2;
            text = realloc(text, cap);
            if (!text) abort();
        }
        size_t n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || len > (1u << 24)) {
        snprintf(err, err_size, "%s: %s", path, bad ? "read error" : "too large for a sweep file");
        free(text);
        return -1;
    }
    int rc = sweep_parse(path, text, len, sf, err, err_size);
    free(text);
    return rc;
}

void sweep_free(sweep_file *sf)
{
    for (size_t i = 0; i < sf->nworkloads; i++) {
        sweep_workload *w = &sf->workloads[i];
        free(w->name);
        free(w->dir);
        free(w->trace);
        free(w->replay_frames);
    }
    for (size_t i = 0; i < sf->nconfigs; i++) free_config(&sf->configs[i]);
    for (size_t i = 0; i < sf->nstats; i++) free(sf->stats[i]);
    free(sf->workloads);
    free(sf->configs);
    free(sf->stats);
    free(sf->path);
    free(sf->base_dir);
    free(sf->name);
    free(sf->output);
    free(sf->normalize);
    memset(sf, 0, sizeof *sf);
}

char *sweep_resolve(const sweep_file *sf, const char *p)
{
    if (p[0] == '/') return xstrdup(p);
    size_t n = strlen(sf->base_dir) + strlen(p) + 2;
    char *r = malloc(n);
    if (!r) abort();
    snprintf(r, n, "%s/%s", sf->base_dir, p);
    return r;
}
