#include "json.h"
#include "tbr/file_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s, *end;
    int line;
    char *err;
    size_t err_size;
    int depth;
} pj_parser;

static int fail(pj_parser *p, const char *what)
{
    if (p->err && p->err_size) snprintf(p->err, p->err_size, "line %d: %s", p->line, what);
    return -1;
}

static void skip_ws(pj_parser *p)
{
    while (p->s < p->end) {
        char c = *p->s;
        if (c == '\n')
            p->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
        p->s++;
    }
}

static void free_inner(pj_value *v)
{
    if (!v) return;
    free(v->str);
    for (size_t i = 0; i < v->n; i++) {
        free_inner(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int parse_string(pj_parser *p, char **out)
{
    p->s++; /* opening quote */
    const char *q = p->s;
    size_t cap = 0;
    while (q < p->end && *q != '"') {
        if (*q == '\\') q++;
        q++;
        cap++;
    }
    if (q >= p->end) return fail(p, "unterminated string");
    char *o = malloc(cap * 4 + 1);
    if (!o) return fail(p, "out of memory");
    size_t n = 0;
    while (*p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20) {
            free(o);
            return fail(p, "control character in string");
        }
        if (c != '\\') {
            o[n++] = c;
            continue;
        }
        c = *p->s++;
        switch (c) {
            case '"': o[n++] = '"'; break;
            case '\\': o[n++] = '\\'; break;
            case '/': o[n++] = '/'; break;
            case 'b': o[n++] = '\b'; break;
            case 'f': o[n++] = '\f'; break;
            case 'n': o[n++] = '\n'; break;
            case 'r': o[n++] = '\r'; break;
            case 't': o[n++] = '\t'; break;
            case 'u': {
                if (p->end - p->s < 4) {
                    free(o);
                    return fail(p, "bad \\u escape");
                }
                unsigned cp = 0;
                for (int i = 0; i < 4; i++) {
                    int h = hexval(p->s[i]);
                    if (h < 0) {
                        free(o);
                        return fail(p, "bad \\u escape");
                    }
                    cp = cp * 16 + (unsigned)h;
                }
                p->s += 4;
                n += (size_t)put_utf8(o + n, cp);
                break;
            }
            default: free(o); return fail(p, "bad escape in string");
        }
    }
    p->s++;
    o[n] = 0;
    *out = o;
    return 0;
}

static int parse_value(pj_parser *p, pj_value *v);

static int parse_container(pj_parser *p, pj_value *v, int is_obj)
{
    char close = is_obj ? '}' : ']';
    v->type = is_obj ? PJ_OBJ : PJ_ARR;
    p->s++;
    size_t cap = 0;
    skip_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return 0;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 8;
            pj_value *ni = realloc(v->items, cap * sizeof *ni);
            if (!ni) return fail(p, "out of memory");
            v->items = ni;
            if (is_obj) {
                char **nk = realloc(v->keys, cap * sizeof *nk);
                if (!nk) return fail(p, "out of memory");
                v->keys = nk;
            }
        }
        memset(&v->items[v->n], 0, sizeof v->items[0]);
        skip_ws(p);
        if (is_obj) {
            v->keys[v->n] = NULL;
            if (p->s >= p->end || *p->s != '"') {
                v->n++;
                return fail(p, "expected a string key");
            }
            if (parse_string(p, &v->keys[v->n])) {
                v->n++;
                return -1;
            }
            skip_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                v->n++;
                return fail(p, "expected ':'");
            }
            p->s++;
        }
        int r = parse_value(p, &v->items[v->n]);
        v->n++;
        if (r) return r;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return 0;
        }
        return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(pj_parser *p, pj_value *v)
{
    skip_ws(p);
    if (p->s >= p->end) return fail(p, "unexpected end of input");
    if (++p->depth > 200) return fail(p, "nesting too deep");
    int r = 0;
    char c = *p->s;
    if (c == '{' || c == '[')
        r = parse_container(p, v, c == '{');
    else if (c == '"') {
        v->type = PJ_STR;
        r = parse_string(p, &v->str);
    } else if (p->end - p->s >= 4 && !memcmp(p->s, "null", 4)) {
        v->type = PJ_NULL;
        p->s += 4;
    } else if (p->end - p->s >= 4 && !memcmp(p->s, "true", 4)) {
        v->type = PJ_BOOL;
        v->num = 1;
        p->s += 4;
    } else if (p->end - p->s >= 5 && !memcmp(p->s, "false", 5)) {
        v->type = PJ_BOOL;
        p->s += 5;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t n = 0;
        while (p->s + n < p->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[n])) n++;
        memcpy(buf, p->s, n);
        buf[n] = 0;
        char *e;
        errno = 0;
        v->type = PJ_NUM;
        v->num = strtod(buf, &e);
        if (e != buf + n || n == 0) r = fail(p, "bad number");
        p->s += n;
    } else
        r = fail(p, "unexpected character");
    p->depth--;
    return r;
}

pj_value *pj_parse(const char *text, size_t len, char *err, size_t err_size)
{
    pj_parser p = {text, text + len, 1, err, err_size, 0};
    pj_value *v = calloc(1, sizeof *v);
    if (!v) {
        fail(&p, "out of memory");
        return NULL;
    }
    if (parse_value(&p, v)) {
        pj_free(v);
        return NULL;
    }
    skip_ws(&p);
    if (p.s != p.end) {
        fail(&p, "trailing data after the JSON value");
        pj_free(v);
        return NULL;
    }
    return v;
}

pj_value *pj_parse_file(const char *path, char *err, size_t err_size)
{
    char oerr[256];
    FILE *f = tbr_fopen_input(path, oerr, sizeof oerr); /* a regular file only: a FIFO would block */
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, oerr);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int ioerr = ferror(f);
    fclose(f);
    if (!buf || ioerr) {
        free(buf);
        snprintf(err, err_size, "%s: read error", path);
        return NULL;
    }
    char msg[256];
    pj_value *v = pj_parse(buf, n, msg, sizeof msg);
    free(buf);
    if (!v) snprintf(err, err_size, "%s: invalid JSON: %s", path, msg);
    return v;
}

void pj_free(pj_value *v)
{
    if (!v) return;
    free_inner(v);
    free(v);
}

const pj_value *pj_get(const pj_value *obj, const char *key)
{
    if (!obj || obj->type != PJ_OBJ) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}

const pj_value *pj_path(const pj_value *root, const char *dotted)
{
    if (!root) return NULL;
    if (!*dotted) return root;
    if (root->type != PJ_OBJ) return NULL;
    size_t len = strlen(dotted);
    /* longest key first: stat names such as "re.tiles_skipped" contain dots */
    for (size_t i = 0; i < root->n; i++) {
        size_t kl = strlen(root->keys[i]);
        if (kl == len && !memcmp(root->keys[i], dotted, len)) return &root->items[i];
    }
    for (size_t cut = len; cut > 0; cut--) {
        if (dotted[cut - 1 + 1] != '.' || cut == len) continue;
        for (size_t i = 0; i < root->n; i++)
            if (strlen(root->keys[i]) == cut && !memcmp(root->keys[i], dotted, cut)) {
                const pj_value *r = pj_path(&root->items[i], dotted + cut + 1);
                if (r) return r;
            }
    }
    return NULL;
}

const pj_value *pj_at(const pj_value *arr, size_t i)
{
    if (!arr || arr->type != PJ_ARR || i >= arr->n) return NULL;
    return &arr->items[i];
}

int pj_number(const pj_value *v, double *out)
{
    if (!v || (v->type != PJ_NUM && v->type != PJ_BOOL)) return -1;
    *out = v->num;
    return 0;
}
