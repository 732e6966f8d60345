/* tbr-compare: compare rendered frames against reference frames, pixel by
 * pixel, and check frames against pixel-MD5 checksum files.
 * See docs/tools-compare.md. */
#include "imgcmp.h"
#include "tbr/file_input.h"
#include "tbr/out_file.h"
#include "tbr/png_io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TBR_VERSION
#define TBR_VERSION "unknown"
#endif

/* Exit statuses (documented in --help). */
enum { EXIT_MATCH = 0, EXIT_DIFF = 1, EXIT_BAD = 2 };

static const char *prog = "tbr-compare";

struct options {
    const char *diff; /* --diff: output PNG (pair) or directory (dirs) */
    int json;
    unsigned tolerance;
    int tolerance_set;
    int checksum;           /* --checksum */
    const char *check_sums; /* --check-sums SUMS */
    int quiet;              /* -q: stdout discarded, the exit status is the answer */
};

static int worse(int a, int b) { return a > b ? a : b; }

static void usage(FILE *f)
{
    fprintf(f,
            "Usage:\n"
            "  %s [OPTIONS] A.png B.png       compare two images\n"
            "  %s [OPTIONS] DIR_A DIR_B       compare same-named *.png files\n"
            "  %s --checksum FILE.png|DIR...  print '<pixel md5>  <name>' lines\n"
            "  %s --check-sums SUMS DIR       verify DIR against a checksum file\n"
            "\n"
            "Options:\n"
            "  -d, --diff=PATH       write a diff image (pair mode: PATH is a PNG;\n"
            "                        directory mode: PATH is a directory that gets\n"
            "                        one diff per differing frame)\n"
            "  -t, --tolerance=N     largest per-channel difference still counted\n"
            "                        as equal (0-255, default 0 = exact)\n"
            "      --json            print a machine-readable JSON result on stdout\n"
            "  -q, --quiet           print nothing on stdout: the exit status says\n"
            "  -c, --checksum        checksum mode (see above)\n"
            "  -s, --check-sums=SUMS checksum verification mode (see above)\n"
            "  -h, --help            show this help\n"
            "  -V, --version         show the version\n"
            "\n"
            "Metrics: differing pixels (any of R,G,B,A off by more than the\n"
            "tolerance), max channel difference, first differing pixel (raster\n"
            "order), PSNR over R,G,B (alpha excluded; 'inf' when identical), mean\n"
            "SSIM of BT.601 luma with an 11x11 Gaussian window (sigma 1.5,\n"
            "K1=0.01, K2=0.03, L=255).\n"
            "The pixel md5 is the MD5 of the decoded RGBA8 pixels, rows top to\n"
            "bottom, no padding.\n"
            "\n"
            "Exit status: 0 all match, 1 some difference or failed check,\n"
            "2 bad usage or unreadable/invalid input.\n",
            prog, prog, prog, prog);
}

static void bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    exit(EXIT_BAD);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(EXIT_BAD);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static char *join_path(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    int slash = dl > 0 && dir[dl - 1] != '/';
    char *p = xmalloc(dl + slash + nl + 1);
    memcpy(p, dir, dl);
    if (slash) p[dl] = '/';
    memcpy(p + dl + slash, name, nl + 1);
    return p;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- JSON output ---- */

static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
            case '"': fputs("\\\"", stdout); break;
            case '\\': fputs("\\\\", stdout); break;
            case '\n': fputs("\\n", stdout); break;
            case '\r': fputs("\\r", stdout); break;
            case '\t': fputs("\\t", stdout); break;
            default:
                if (*p < 0x20)
                    printf("\\u%04x", *p);
                else
                    putchar(*p);
        }
    }
    putchar('"');
}

static void json_key(const char *k)
{
    json_str(k);
    putchar(':');
}

static void json_px(const uint8_t p[4]) { printf("[%u,%u,%u,%u]", p[0], p[1], p[2], p[3]); }

/* ---- comparing one pair of files ---- */

enum status {
    ST_IDENTICAL,
    ST_MATCH, /* differences all within tolerance */
    ST_DIFFERENT,
    ST_SIZE, /* size mismatch */
    ST_ONLY_A,
    ST_ONLY_B,
    ST_ERROR,
};

static const char *status_json[] = {
    "identical", "match", "different", "size_mismatch", "only_a", "only_b", "error",
};

static int status_exit(enum status s)
{
    switch (s) {
        case ST_IDENTICAL:
        case ST_MATCH: return EXIT_MATCH;
        case ST_ERROR: return EXIT_BAD;
        default: return EXIT_DIFF;
    }
}

struct outcome {
    const char *name; /* directory mode: file name; else NULL */
    char *path_a, *path_b;
    enum status status;
    uint32_t wa, ha, wb, hb;
    imgcmp_result r;
    char *diff_path; /* diff image written here, or NULL */
    char err[TBR_PNG_ERR_SIZE];
};

/* Compare o->path_a with o->path_b. A diff image goes to diff_path (if not
 * NULL) when the sizes match and, unless always_diff, the pixels differ. */
static void compare_files(struct outcome *o, const char *diff_path, int always_diff, const struct options *opt)
{
    tbr_image a = {0}, b = {0};
    if (tbr_png_read_frame(o->path_a, &a, o->err, sizeof(o->err)) != 0 ||
        tbr_png_read_frame(o->path_b, &b, o->err, sizeof(o->err)) != 0) {
        o->status = ST_ERROR;
        goto out;
    }
    o->wa = a.width, o->ha = a.height, o->wb = b.width, o->hb = b.height;
    if (imgcmp_compare(&a, &b, opt->tolerance, &o->r) != 0) {
        snprintf(o->err, sizeof(o->err), "out of memory comparing %s and %s", o->path_a, o->path_b);
        o->status = ST_ERROR;
        goto out;
    }
    if (!o->r.size_match)
        o->status = ST_SIZE;
    else if (o->r.exact)
        o->status = ST_IDENTICAL;
    else if (o->r.diff_pixels == 0)
        o->status = ST_MATCH;
    else
        o->status = ST_DIFFERENT;

    if (diff_path && o->r.size_match && (always_diff || !o->r.exact)) {
        tbr_image d;
        if (imgcmp_diff_image(&a, &b, opt->tolerance, &d) != 0) {
            snprintf(o->err, sizeof(o->err), "%s: out of memory", diff_path);
            o->status = ST_ERROR;
        } else {
            if (tbr_png_write_image(diff_path, &d, o->err, sizeof(o->err)) == 0)
                o->diff_path = xstrdup(diff_path);
            else
                o->status = ST_ERROR;
            tbr_image_free(&d);
        }
    }
out:
    if (o->status == ST_ERROR) fprintf(stderr, "%s: %s\n", prog, o->err);
    tbr_image_free(&a);
    tbr_image_free(&b);
}

static void json_outcome(const struct outcome *o)
{
    putchar('{');
    if (o->name) {
        json_key("name");
        json_str(o->name);
        putchar(',');
    }
    json_key("a");
    json_str(o->path_a);
    putchar(',');
    json_key("b");
    json_str(o->path_b);
    putchar(',');
    json_key("status");
    json_str(status_json[o->status]);
    if (o->status == ST_ERROR) {
        putchar(',');
        json_key("error");
        json_str(o->err);
    }
    if (o->wa) {
        printf(",\"size_a\":[%u,%u],\"size_b\":[%u,%u]", (unsigned)o->wa, (unsigned)o->ha, (unsigned)o->wb,
               (unsigned)o->hb);
    }
    if (o->r.size_match) {
        const imgcmp_result *r = &o->r;
        printf(",\"exact\":%s,\"pixels\":%llu,\"differing_pixels\":%llu,"
               "\"changed_pixels\":%llu,\"max_channel_diff\":%u,",
               r->exact ? "true" : "false", (unsigned long long)r->total_pixels, (unsigned long long)r->diff_pixels,
               (unsigned long long)r->changed_pixels, r->max_diff);
        json_key("first_diff");
        if (r->have_first) {
            printf("{\"x\":%u,\"y\":%u,\"a\":", (unsigned)r->first_x, (unsigned)r->first_y);
            json_px(r->first_a);
            fputs(",\"b\":", stdout);
            json_px(r->first_b);
            putchar('}');
        } else {
            fputs("null", stdout);
        }
        printf(",\"mse_rgb\":%.6f,\"psnr_rgb\":", r->mse_rgb);
        if (r->psnr_inf)
            fputs("\"inf\"", stdout);
        else
            printf("%.4f", r->psnr_rgb);
        printf(",\"ssim_luma\":%.6f", r->ssim);
    }
    if (o->diff_path) {
        putchar(',');
        json_key("diff_image");
        json_str(o->diff_path);
    }
    putchar('}');
}

static void fmt_psnr(const imgcmp_result *r, char *buf, size_t n)
{
    if (r->psnr_inf)
        snprintf(buf, n, "inf");
    else
        snprintf(buf, n, "%.2f", r->psnr_rgb);
}

static void free_outcome(struct outcome *o)
{
    free(o->path_a);
    free(o->path_b);
    free(o->diff_path);
}

/* ---- mode: two files ---- */

static int run_pair(const char *pa, const char *pb, const struct options *opt)
{
    struct outcome o;
    memset(&o, 0, sizeof(o));
    o.path_a = xstrdup(pa);
    o.path_b = xstrdup(pb);
    compare_files(&o, opt->diff, 1, opt);
    int rc = status_exit(o.status);

    if (opt->json) {
        printf("{\"mode\":\"pair\",\"tolerance\":%u,\"result\":", opt->tolerance);
        json_outcome(&o);
        printf(",\"exit_status\":%d}\n", rc);
        free_outcome(&o);
        return rc;
    }
    if (o.status == ST_ERROR) {
        free_outcome(&o);
        return rc; /* message already on stderr */
    }

    const imgcmp_result *r = &o.r;
    printf("A: %s (%ux%u)\n", pa, (unsigned)o.wa, (unsigned)o.ha);
    printf("B: %s (%ux%u)\n", pb, (unsigned)o.wb, (unsigned)o.hb);
    switch (o.status) {
        case ST_SIZE:
            printf("result: SIZE MISMATCH (%ux%u vs %ux%u)\n", (unsigned)o.wa, (unsigned)o.ha, (unsigned)o.wb,
                   (unsigned)o.hb);
            if (opt->diff) printf("diff image: not written (sizes differ)\n");
            free_outcome(&o);
            return rc;
        case ST_IDENTICAL: printf("result: IDENTICAL\n"); break;
        case ST_MATCH: printf("result: MATCH (within tolerance %u)\n", opt->tolerance); break;
        default: printf("result: DIFFERENT\n"); break;
    }
    printf("differing pixels: %llu of %llu (%.4f%%)\n", (unsigned long long)r->diff_pixels,
           (unsigned long long)r->total_pixels, 100.0 * (double)r->diff_pixels / (double)r->total_pixels);
    if (opt->tolerance) printf("changed pixels (any difference): %llu\n", (unsigned long long)r->changed_pixels);
    printf("max channel difference: %u\n", r->max_diff);
    if (r->have_first) {
        printf("first differing pixel: (%u,%u) A=(%u,%u,%u,%u) "
               "B=(%u,%u,%u,%u)\n",
               (unsigned)r->first_x, (unsigned)r->first_y, r->first_a[0], r->first_a[1], r->first_a[2], r->first_a[3],
               r->first_b[0], r->first_b[1], r->first_b[2], r->first_b[3]);
    }
    char psnr[32];
    fmt_psnr(r, psnr, sizeof(psnr));
    printf("PSNR (RGB): %s dB\n", psnr);
    printf("SSIM (luma, 11x11 Gaussian): %.6f\n", r->ssim);
    if (o.diff_path) printf("diff image: %s\n", o.diff_path);
    free_outcome(&o);
    return rc;
}

/* ---- directory listing ---- */

struct names {
    char **v;
    size_t n, cap;
};

static void names_add(struct names *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **nv = realloc(l->v, l->cap * sizeof(*nv));
        if (!nv) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(EXIT_BAD);
        }
        l->v = nv;
    }
    l->v[l->n++] = xstrdup(s);
}

static void names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_png_name(const char *n)
{
    size_t l = strlen(n);
    return l > 4 && strcmp(n + l - 4, ".png") == 0;
}

/* Regular files named *.png in `dir`, sorted. Returns 0, or -1 (message
 * printed) if the directory cannot be read. */
static int list_pngs(const char *dir, struct names *out)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s: cannot open directory: %s\n", prog, dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_png_name(e->d_name)) continue;
        char *p = join_path(dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) names_add(out, e->d_name);
        free(p);
    }
    closedir(d);
    if (out->n) qsort(out->v, out->n, sizeof(*out->v), cmp_names);
    return 0;
}

/* ---- mode: two directories ---- */

static int run_dirs(const char *da, const char *db, const struct options *opt)
{
    struct names la = {0}, lb = {0};
    if (list_pngs(da, &la) != 0 || list_pngs(db, &lb) != 0) {
        names_free(&la);
        names_free(&lb);
        if (opt->json)
            printf("{\"mode\":\"dirs\",\"error\":\"cannot read directory\","
                   "\"exit_status\":2}\n");
        return EXIT_BAD;
    }
    if (opt->diff && mkdir(opt->diff, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: cannot create diff directory: %s\n", prog, opt->diff, strerror(errno));
        names_free(&la);
        names_free(&lb);
        return EXIT_BAD;
    }

    unsigned long long count[ST_ERROR + 1] = {0};
    int rc = EXIT_MATCH;
    if (opt->json) {
        printf("{\"mode\":\"dirs\",\"a\":");
        json_str(da);
        printf(",\"b\":");
        json_str(db);
        printf(",\"tolerance\":%u,\"frames\":[", opt->tolerance);
    }

    size_t i = 0, j = 0, nout = 0;
    while (i < la.n || j < lb.n) {
        struct outcome o;
        memset(&o, 0, sizeof(o));
        int c = i >= la.n ? 1 : j >= lb.n ? -1 : strcmp(la.v[i], lb.v[j]);
        o.name = c <= 0 ? la.v[i] : lb.v[j];
        o.path_a = join_path(da, o.name);
        o.path_b = join_path(db, o.name);
        if (c < 0) {
            o.status = ST_ONLY_A;
            i++;
        } else if (c > 0) {
            o.status = ST_ONLY_B;
            j++;
        } else {
            char *dp = opt->diff ? join_path(opt->diff, o.name) : NULL;
            /* Only frames that differ get a diff image: fewer files to wade
             * through. */
            compare_files(&o, dp, 0, opt);
            free(dp);
            i++;
            j++;
        }
        count[o.status]++;
        rc = worse(rc, status_exit(o.status));

        if (opt->json) {
            if (nout++) putchar(',');
            json_outcome(&o);
        } else {
            const imgcmp_result *r = &o.r;
            char psnr[32];
            switch (o.status) {
                case ST_IDENTICAL: printf("%s: identical\n", o.name); break;
                case ST_MATCH:
                case ST_DIFFERENT:
                    fmt_psnr(r, psnr, sizeof(psnr));
                    printf("%s: %s pixels=%llu/%llu max=%u", o.name,
                           o.status == ST_MATCH ? "match (within tolerance)" : "DIFFERENT",
                           (unsigned long long)r->diff_pixels, (unsigned long long)r->total_pixels, r->max_diff);
                    if (r->have_first) printf(" first=(%u,%u)", (unsigned)r->first_x, (unsigned)r->first_y);
                    printf(" psnr=%s ssim=%.6f\n", psnr, r->ssim);
                    break;
                case ST_SIZE:
                    printf("%s: SIZE MISMATCH %ux%u vs %ux%u\n", o.name, (unsigned)o.wa, (unsigned)o.ha, (unsigned)o.wb,
                           (unsigned)o.hb);
                    break;
                case ST_ONLY_A: printf("%s: ONLY IN %s\n", o.name, da); break;
                case ST_ONLY_B: printf("%s: ONLY IN %s\n", o.name, db); break;
                case ST_ERROR: printf("%s: ERROR %s\n", o.name, o.err); break;
            }
        }
        free_outcome(&o);
    }

    unsigned long long total =
        (unsigned long long)(la.n + lb.n) -
        (count[ST_IDENTICAL] + count[ST_MATCH] + count[ST_DIFFERENT] + count[ST_SIZE] + count[ST_ERROR]);
    /* Two empty directories almost always mean a renderer wrote nothing. */
    int empty = la.n == 0 && lb.n == 0;
    if (empty) {
        fprintf(stderr, "%s: no *.png files in %s or %s\n", prog, da, db);
        rc = worse(rc, EXIT_DIFF);
    }
    if (opt->json) {
        printf("],\"totals\":{\"frames\":%llu", total);
        for (int s = 0; s <= ST_ERROR; s++) printf(",\"%s\":%llu", status_json[s], count[s]);
        printf("},\"exit_status\":%d}\n", rc);
    } else {
        printf("total: %llu frames; %llu identical, %llu within tolerance, "
               "%llu different, %llu size mismatch, %llu only in A, "
               "%llu only in B, %llu errors\n",
               total, count[ST_IDENTICAL], count[ST_MATCH], count[ST_DIFFERENT], count[ST_SIZE], count[ST_ONLY_A],
               count[ST_ONLY_B], count[ST_ERROR]);
        printf("result: %s\n", rc == EXIT_MATCH ? "PASS" : "FAIL");
    }
    names_free(&la);
    names_free(&lb);
    return rc;
}

/* ---- mode: --checksum ---- */

static int checksum_one(const char *path, int json, size_t *nout)
{
    char hex[33], err[TBR_PNG_ERR_SIZE];
    int ok = tbr_png_pixel_md5(path, hex, err, sizeof(err)) == 0;
    if (!ok) fprintf(stderr, "%s: %s\n", prog, err);
    if (json) {
        if ((*nout)++) putchar(',');
        printf("{\"path\":");
        json_str(path);
        printf(",\"name\":");
        json_str(base_name(path));
        printf(ok ? ",\"md5\":" : ",\"error\":");
        json_str(ok ? hex : err);
        putchar('}');
    } else if (ok) {
        printf("%s  %s\n", hex, base_name(path));
    }
    return ok ? EXIT_MATCH : EXIT_BAD;
}

static int run_checksum(int n, char **paths, const struct options *opt)
{
    int rc = EXIT_MATCH;
    size_t nout = 0;
    if (opt->json) printf("{\"mode\":\"checksum\",\"files\":[");
    for (int k = 0; k < n; k++) {
        struct stat st;
        if (stat(paths[k], &st) == 0 && S_ISDIR(st.st_mode)) {
            struct names l = {0};
            if (list_pngs(paths[k], &l) != 0) {
                rc = EXIT_BAD;
                continue;
            }
            if (l.n == 0) {
                fprintf(stderr, "%s: %s: no *.png files\n", prog, paths[k]);
                rc = EXIT_BAD;
            }
            for (size_t i = 0; i < l.n; i++) {
                char *p = join_path(paths[k], l.v[i]);
                rc = worse(rc, checksum_one(p, opt->json, &nout));
                free(p);
            }
            names_free(&l);
        } else {
            rc = worse(rc, checksum_one(paths[k], opt->json, &nout));
        }
    }
    if (opt->json) printf("],\"exit_status\":%d}\n", rc);
    return rc;
}

/* ---- mode: --check-sums ---- */

struct sum_entry {
    char md5[33];
    char *name;
};

/* A name of a checksum file stays inside the checked directory: relative, and no '..'
 * component (a hostile SUMS file must not make tbr-compare read ../../etc/passwd). */
static int name_inside(const char *name)
{
    if (name[0] == '/') return 0;
    for (const char *c = name; *c;) {
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == 2 && c[0] == '.' && c[1] == '.') return 0;
        c += len + (e ? 1 : 0);
    }
    return 1;
}

/* Parse md5sum-style lines "<32 hex>  <name>" (also "<hex> *<name>" and a
 * single space); blank lines and '#' comments are skipped. Returns the number
 * of entries, or -1 after reporting every malformed line. */
static long parse_sums(const char *sums_path, struct sum_entry **out)
{
    char oerr[256];
    FILE *f = tbr_fopen_input(sums_path, oerr, sizeof oerr); /* a regular file only: a FIFO would block */
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, sums_path, oerr);
        return -1;
    }
    struct sum_entry *v = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    int bad = 0;
    while ((len = getline(&line, &lcap, f)) != -1) {
        lineno++;
        while (len > 0 &&
               (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0' || *p == '#') continue;
        int ok = 1;
        for (int k = 0; k < 32; k++)
            if (!isxdigit((unsigned char)p[k])) ok = 0;
        char *name = p + 32;
        if (ok && (*name == ' ' || *name == '\t')) {
            name++;
            if (*name == ' ' || *name == '*') name++;
        } else {
            ok = 0;
        }
        if (!ok || *name == '\0') {
            fprintf(stderr,
                    "%s: %s:%lu: malformed line (want '<32 hex md5>  "
                    "<file name>')\n",
                    prog, sums_path, lineno);
            bad = 1;
            continue;
        }
        if (!name_inside(name)) {
            fprintf(stderr, "%s: %s:%lu: file name '%s' leaves the directory (absolute or with '..')\n", prog,
                    sums_path, lineno, name);
            bad = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct sum_entry *nv = realloc(v, cap * sizeof(*nv));
            if (!nv) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(EXIT_BAD);
            }
            v = nv;
        }
        for (int k = 0; k < 32; k++) v[n].md5[k] = (char)tolower((unsigned char)p[k]);
        v[n].md5[32] = '\0';
        v[n].name = xstrdup(name);
        n++;
    }
    int read_err = ferror(f);
    free(line);
    fclose(f);
    if (read_err) {
        fprintf(stderr, "%s: %s: read error\n", prog, sums_path);
        bad = 1;
    } else if (!bad && n == 0) {
        fprintf(stderr, "%s: %s: no checksum entries\n", prog, sums_path);
        bad = 1;
    }
    if (bad) {
        for (size_t k = 0; k < n; k++) free(v[k].name);
        free(v);
        return -1;
    }
    *out = v;
    return (long)n;
}

static int run_check_sums(const char *sums_path, const char *dir, const struct options *opt)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: not a directory\n", prog, dir);
        return EXIT_BAD;
    }
    struct sum_entry *v = NULL;
    long n = parse_sums(sums_path, &v);
    if (n < 0) {
        if (opt->json)
            printf("{\"mode\":\"check_sums\",\"error\":\"invalid checksum "
                   "file\",\"exit_status\":2}\n");
        return EXIT_BAD;
    }

    enum { OK, MISMATCH, MISSING, ERROR, NKIND };
    static const char *kind_json[NKIND] = {"ok", "mismatch", "missing", "error"};
    unsigned long long count[NKIND] = {0};
    int rc = EXIT_MATCH;
    if (opt->json) {
        printf("{\"mode\":\"check_sums\",\"sums_file\":");
        json_str(sums_path);
        printf(",\"dir\":");
        json_str(dir);
        printf(",\"entries\":[");
    }
    for (long k = 0; k < n; k++) {
        char *path = join_path(dir, v[k].name);
        char hex[33] = "", err[TBR_PNG_ERR_SIZE] = "";
        int kind;
        if (stat(path, &st) != 0 && errno == ENOENT)
            kind = MISSING;
        else if (tbr_png_pixel_md5(path, hex, err, sizeof(err)) != 0)
            kind = ERROR;
        else
            kind = strcmp(hex, v[k].md5) == 0 ? OK : MISMATCH;
        count[kind]++;
        rc = worse(rc, kind == OK ? EXIT_MATCH : kind == ERROR ? EXIT_BAD : EXIT_DIFF);
        if (kind == ERROR) fprintf(stderr, "%s: %s\n", prog, err);

        if (opt->json) {
            if (k) putchar(',');
            printf("{\"name\":");
            json_str(v[k].name);
            printf(",\"status\":\"%s\",\"expected\":\"%s\"", kind_json[kind], v[k].md5);
            if (hex[0]) printf(",\"actual\":\"%s\"", hex);
            if (kind == ERROR) {
                printf(",\"error\":");
                json_str(err);
            }
            putchar('}');
        } else {
            switch (kind) {
                case OK: printf("%s: OK\n", v[k].name); break;
                case MISMATCH: printf("%s: MISMATCH expected %s got %s\n", v[k].name, v[k].md5, hex); break;
                case MISSING: printf("%s: MISSING (%s)\n", v[k].name, path); break;
                default: printf("%s: ERROR %s\n", v[k].name, err); break;
            }
        }
        free(path);
        free(v[k].name);
    }
    free(v);
    if (opt->json) {
        printf("],\"totals\":{\"entries\":%ld,\"ok\":%llu,\"mismatch\":%llu,"
               "\"missing\":%llu,\"error\":%llu},\"exit_status\":%d}\n",
               n, count[OK], count[MISMATCH], count[MISSING], count[ERROR], rc);
    } else {
        printf("total: %ld entries; %llu ok, %llu mismatch, %llu missing, "
               "%llu errors\n",
               n, count[OK], count[MISMATCH], count[MISSING], count[ERROR]);
        printf("result: %s\n", rc == EXIT_MATCH ? "PASS" : "FAIL");
    }
    return rc;
}

/* ---- main ---- */

static unsigned parse_tolerance(const char *s)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || errno || v > 255)
        bad_usage("invalid --tolerance '%s' (want an integer 0-255)", s);
    return (unsigned)v;
}

static int compare_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"diff", required_argument, NULL, 'd'},
        {"tolerance", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'J'},
        {"quiet", no_argument, NULL, 'q'},
        {"checksum", no_argument, NULL, 'c'},
        {"check-sums", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct options opt = {0};
    int ch;
    opterr = 0; /* we print our own messages */
    while ((ch = getopt_long(argc, argv, ":d:t:qcs:hV", longopts, NULL)) != -1) {
        switch (ch) {
            case 'd': opt.diff = optarg; break;
            case 't':
                opt.tolerance = parse_tolerance(optarg);
                opt.tolerance_set = 1;
                break;
            case 'J': opt.json = 1; break;
            case 'q': opt.quiet = 1; break;
            case 'c': opt.checksum = 1; break;
            case 's': opt.check_sums = optarg; break;
            case 'h': usage(stdout); return EXIT_MATCH;
            case 'V': printf("%s (tbrsim) %s\n", prog, TBR_VERSION); return EXIT_MATCH;
            case ':': bad_usage("option '%s' needs an argument", argv[optind - 1]); break;
            default:
                /* optopt is set for an unknown short option; for an unknown long
             * one the offending word is the last argument consumed. */
                if (optopt) {
                    char s[3] = {'-', (char)optopt, '\0'};
                    bad_usage("unknown option '%s'", s);
                }
                bad_usage("unknown option '%s'", argv[optind - 1]);
                break;
        }
    }
    int npos = argc - optind;
    char **pos = argv + optind;
    if (opt.quiet && !freopen("/dev/null", "w", stdout)) {
        fprintf(stderr, "%s: --quiet: cannot open /dev/null: %s\n", prog, strerror(errno));
        return EXIT_BAD;
    }

    if (opt.checksum || opt.check_sums) {
        if (opt.checksum && opt.check_sums) bad_usage("%s", "--checksum and --check-sums are exclusive");
        if (opt.diff || opt.tolerance_set)
            bad_usage("%s", "--diff and --tolerance apply only to image "
                            "comparison");
        if (opt.checksum) {
            if (npos < 1) bad_usage("%s", "--checksum needs at least one file");
            return run_checksum(npos, pos, &opt);
        }
        if (npos != 1) bad_usage("%s", "--check-sums SUMS needs exactly one directory");
        return run_check_sums(opt.check_sums, pos[0], &opt);
    }

    if (npos != 2) bad_usage("%s", "expected two images or two directories");
    struct stat sa, sb;
    for (int k = 0; k < 2; k++) {
        if (stat(pos[k], k ? &sb : &sa) != 0) {
            char msg[TBR_PNG_ERR_SIZE];
            snprintf(msg, sizeof(msg), "%s: cannot access: %s", pos[k], strerror(errno));
            fprintf(stderr, "%s: %s\n", prog, msg);
            if (opt.json) {
                printf("{\"mode\":\"pair\",\"error\":");
                json_str(msg);
                printf(",\"exit_status\":2}\n");
            }
            return EXIT_BAD;
        }
    }
    int da = S_ISDIR(sa.st_mode), db = S_ISDIR(sb.st_mode);
    if (da != db) {
        fprintf(stderr, "%s: %s is a directory but %s is not\n", prog, da ? pos[0] : pos[1], da ? pos[1] : pos[0]);
        return EXIT_BAD;
    }
    return da ? run_dirs(pos[0], pos[1], &opt) : run_pair(pos[0], pos[1], &opt);
}

int main(int argc, char **argv)
{
    int rc = compare_main(argc, argv);
    /* The result on stdout must arrive: a full disk or /dev/full is an error, not exit 0. */
    if (tbr_stdout_close(prog)) rc = EXIT_BAD;
    return rc;
}
