/* tbr_buf (payload builder) and tbr_cursor (bounds-checked payload reader). */
#include "tbr/trace.h"

#include <stdlib.h>
#include <string.h>

void tbr_buf_init(tbr_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = 0;
}

void tbr_buf_free(tbr_buf *b)
{
    free(b->data);
    tbr_buf_init(b);
}

void tbr_buf_reset(tbr_buf *b)
{
    b->len = 0;
    b->failed = 0;
}

int tbr_buf_ok(const tbr_buf *b) { return !b->failed; }

int tbr_buf_reserve(tbr_buf *b, size_t extra)
{
    if (b->failed) return -1;
    if (extra > SIZE_MAX - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    /* Geometric growth keeps appends amortized O(1). */
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    uint8_t *p = realloc(b->data, ncap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = ncap;
    return 0;
}

int tbr_buf_put_bytes(tbr_buf *b, const void *p, size_t n)
{
    if (tbr_buf_reserve(b, n) < 0) return -1;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int tbr_buf_put_u8(tbr_buf *b, uint8_t v) { return tbr_buf_put_bytes(b, &v, 1); }

/* Explicit byte order so files are identical on any host. */
int tbr_buf_put_u16(tbr_buf *b, uint16_t v)
{
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    return tbr_buf_put_bytes(b, t, 2);
}

/* u32 and uvarint are written in place (no staging copy): the recorder appends
 * millions of them per frame. */
int tbr_buf_put_u32(tbr_buf *b, uint32_t v)
{
    if (tbr_buf_reserve(b, 4) < 0) return -1;
    uint8_t *d = b->data + b->len;
    d[0] = (uint8_t)v; /* unrolled: compilers merge it into one store */
    d[1] = (uint8_t)(v >> 8);
    d[2] = (uint8_t)(v >> 16);
    d[3] = (uint8_t)(v >> 24);
    b->len += 4;
    return 0;
}

int tbr_buf_put_u64(tbr_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++) t[i] = (uint8_t)(v >> (8 * i));
    return tbr_buf_put_bytes(b, t, 8);
}

int tbr_buf_put_f32(tbr_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4); /* bit copy: preserves -0.0 and NaN payloads */
    return tbr_buf_put_u32(b, u);
}

int tbr_buf_put_f64(tbr_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return tbr_buf_put_u64(b, u);
}

int tbr_buf_put_uvarint(tbr_buf *b, uint64_t v)
{
    if (tbr_buf_reserve(b, 10) < 0) /* the longest encoding */
        return -1;
    uint8_t *d = b->data + b->len;
    size_t n = 0;
    while (v >= 0x80) {
        d[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    d[n++] = (uint8_t)v;
    b->len += n;
    return 0;
}

int tbr_buf_put_svarint(tbr_buf *b, int64_t v) { return tbr_buf_put_uvarint(b, tbr_zigzag_encode(v)); }

int tbr_buf_put_lbytes(tbr_buf *b, const void *p, size_t n)
{
    if (tbr_buf_put_uvarint(b, n) < 0) return -1;
    return tbr_buf_put_bytes(b, p, n);
}

int tbr_buf_put_str(tbr_buf *b, const char *s)
{
    if (!s) s = "";
    return tbr_buf_put_lbytes(b, s, strlen(s));
}

/* ------------------------------------------------------------------------ */

void tbr_cursor_init(tbr_cursor *c, const void *data, size_t len)
{
    c->data = data;
    c->len = data ? len : 0;
    c->pos = 0;
    c->error = 0;
}

int tbr_cursor_ok(const tbr_cursor *c) { return !c->error; }

int tbr_cursor_at_end(const tbr_cursor *c) { return !c->error && c->pos == c->len; }

size_t tbr_cursor_remaining(const tbr_cursor *c) { return c->error ? 0 : c->len - c->pos; }

void tbr_cursor_fail(tbr_cursor *c) { c->error = 1; }

uint64_t tbr_cursor_uvarint_multi(tbr_cursor *c)
{
    uint64_t v = 0;
    if (c->error) return 0;
    size_t pos = c->pos;
    for (unsigned shift = 0;; shift += 7) {
        if (pos >= c->len || shift > 63) {
            /* overrun, or more than 10 bytes */
            c->error = 1;
            return 0;
        }
        uint8_t byte = c->data[pos++];
        /* The 10th byte may only carry bit 63; anything else overflows. */
        if (shift == 63 && (byte & 0x7e)) {
            c->error = 1;
            return 0;
        }
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) break;
    }
    c->pos = pos;
    return v;
}

const uint8_t *tbr_cursor_lbytes(tbr_cursor *c, size_t *len)
{
    uint64_t n = tbr_cursor_uvarint(c);
    if (c->error || n > c->len - c->pos) {
        c->error = 1;
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = (size_t)n;
    return tbr_cursor_bytes(c, (size_t)n);
}
