/* Corrupt-input corpus, generated here: truncation at every offset, every
 * single-bit flip, and hand-crafted files with valid checksums but bad
 * versions / absurd sizes and counts / malformed records. Every one must be
 * rejected with "NAME: at offset N: ..." (N no later than the damage), must
 * never yield a record that differs from what was written, and must not trip
 * ASan/UBSan. Recovery mode is exercised on the same inputs.
 *
 * With --write-seeds DIR it only writes a few valid files (fuzzer seeds). */
#include "common.h"

#include <inttypes.h>
#include <zlib.h>
#include <zstd.h>

/* Layout constants, restated from docs/trace-container.md on purpose: the
 * test checks the documented layout, not the library's private header. */
#define HDR  24u
#define CHDR 40u
#define FOOT 40u
#define IENT 48u

static const char *NAME = "mem.trace";
static ref_trace g_ref;
static uint8_t *g_file;
static size_t g_len;

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t crc(const void *p, size_t n) { return (uint32_t)crc32(0, p, (uInt)n); }

/* Checksum fix-ups so crafted damage gets past the CRCs to the logic behind. */
static void fix_header(uint8_t *b)
{
    uint32_t mlen = rd32(b + 16);
    uint32_t c = (uint32_t)crc32(crc32(0, b, 20), b + HDR, mlen < 1000000 ? mlen : 0);
    wr32(b + 20, c);
}
static void fix_chunk(uint8_t *b, size_t off) { wr32(b + off + 36, crc(b + off, 36)); }
static void fix_footer(uint8_t *b, size_t len) { wr32(b + len - FOOT + 28, crc(b + len - FOOT, 28)); }
static void fix_index(uint8_t *b, size_t len)
{
    uint64_t ioff = rd64(b + len - FOOT);
    wr32(b + len - FOOT + 24, crc(b + ioff, len - FOOT - ioff));
    fix_footer(b, len);
}

/* Parses "NAME: at offset N: " from an error message. */
static int msg_offset(const char *msg, uint64_t *off)
{
    size_t nl = strlen(NAME);
    if (strncmp(msg, NAME, nl) != 0) return -1;
    if (sscanf(msg + nl, ": at offset %" SCNu64 ": ", off) != 1) return -1;
    return strstr(msg, ": at offset ") ? 0 : -1;
}

typedef struct outcome {
    int rejected;       /* open failed or some read failed */
    uint64_t frames_ok; /* frames read completely and equal to the reference */
    int garbage;        /* a record or frame that was never written came back */
    int bad_msg;        /* error text without name/offset, or offset too late */
} outcome;

static void note_error(outcome *o, const char *msg, uint64_t max_off, int strict_off)
{
    uint64_t off;
    o->rejected = 1;
    if (msg_offset(msg, &off) < 0 || (strict_off && off > max_off)) {
        if (!o->bad_msg) fprintf(stderr, "  bad message (max offset %" PRIu64 "): %s\n", max_off, msg);
        o->bad_msg = 1;
    }
}

/* Opens a (possibly damaged) image and reads everything it will give. */
static const ref_trace *g_cmp = &g_ref; /* NULL: content not comparable */

static outcome examine(const uint8_t *buf, size_t len, unsigned flags, uint64_t max_off, int strict_off)
{
    outcome o = {0, 0, 0, 0};
    tbr_trace_reader_options opts = {flags};
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open_mem(buf, len, NAME, &opts, &e);
    if (!r) {
        note_error(&o, e.msg, max_off, strict_off);
        return o;
    }
    tbr_trace_frame_info fi;
    int rc;
    uint64_t prev = 0;
    int first = 1;
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        const ref_frame *fr = g_cmp ? ref_find(g_cmp, fi.number) : NULL;
        if (!g_cmp) { /* hand-built file: only rejection and messages matter */
            int mism;
            ref_compare_frame(r, NULL, &rc, &mism);
            while (rc > 0) rc = tbr_trace_reader_next_record(r, &(uint16_t){0}, &(const uint8_t *){NULL}, &(size_t){0});
            if (rc < 0) note_error(&o, tbr_trace_reader_error(r), max_off, strict_off);
            continue;
        }
        if (!fr || (!first && fi.number <= prev)) {
            o.garbage = 1;
            continue;
        }
        first = 0;
        prev = fi.number;
        int mism;
        size_t got = ref_compare_frame(r, fr, &rc, &mism);
        if (mism) o.garbage = 1;
        if (rc < 0)
            note_error(&o, tbr_trace_reader_error(r), max_off, strict_off);
        else if (got == fr->n)
            o.frames_ok++;
        else if (!(flags & TBR_TRACE_READ_RECOVER))
            o.garbage = 1; /* a clean end-of-frame with records missing */
    }
    if (rc < 0) note_error(&o, tbr_trace_reader_error(r), max_off, strict_off);
    /* random access must not misbehave either */
    size_t n = tbr_trace_reader_frame_count(r);
    if (n) {
        tbr_trace_reader_seek_frame(r, n / 2);
        uint16_t t;
        const uint8_t *p;
        size_t l;
        while (tbr_trace_reader_next_record(r, &t, &p, &l) > 0)
            ;
    }
    tbr_trace_reader_close(r);
    return o;
}

static uint64_t *g_frame_end; /* end offset of each frame's chunks in g_file */
static uint64_t g_index_off;

static void test_truncation(void)
{
    int bad = 0;
    for (size_t t = 0; t < g_len; t++) {
        outcome o = examine(g_file, t, 0, t, 1);
        if (!o.rejected || o.garbage || o.bad_msg) {
            if (bad++ < 5)
                fprintf(stderr, "truncated at %zu: rejected %d garbage %d bad_msg %d\n", t, o.rejected, o.garbage,
                        o.bad_msg);
        }
        outcome rv = examine(g_file, t, TBR_TRACE_READ_RECOVER, t, 0);
        uint64_t complete = 0;
        for (size_t f = 0; f < g_ref.nframes; f++) complete += g_frame_end[f] <= t;
        if (rv.garbage || rv.frames_ok < complete || (rv.rejected && t >= g_index_off)) {
            if (bad++ < 5)
                fprintf(stderr,
                        "recovery of truncation at %zu: garbage %d, %" PRIu64 " frames ok, expected >= %" PRIu64 "\n",
                        t, rv.garbage, rv.frames_ok, complete);
        }
    }
    CHECK(bad == 0, "%d truncation cases misbehaved (of %zu)", bad, g_len);
}

/* 1 for bytes of headers/index/footer, 0 for compressed chunk data */
static uint8_t *structure_map(void)
{
    uint8_t *map = xmalloc(g_len);
    memset(map, 1, g_len);
    uint64_t off = HDR + rd32(g_file + 16);
    while (off < g_index_off) {
        uint32_t cs = rd32(g_file + off + 28);
        memset(map + off + CHDR, 0, cs);
        off += CHDR + cs;
    }
    return map;
}

static void test_bitflips(void)
{
    uint8_t *m = xmalloc(g_len);
    uint8_t *map = structure_map();
    int bad = 0;
    for (size_t i = 0; i < g_len; i++) {
        /* every bit of every structural byte; one bit (rotating) of each
         * compressed-data byte, which the chunk CRC covers uniformly */
        for (int bit = map[i] ? 0 : (int)(i % 8); bit < (map[i] ? 8 : (int)(i % 8) + 1); bit++) {
            memcpy(m, g_file, g_len);
            m[i] ^= (uint8_t)(1u << bit);
            outcome o = examine(m, g_len, 0, i, 1);
            if (!o.rejected || o.garbage || o.bad_msg) {
                if (bad++ < 5)
                    fprintf(stderr, "flip byte %zu bit %d: rejected %d garbage %d bad_msg %d\n", i, bit, o.rejected,
                            o.garbage, o.bad_msg);
            }
            outcome rv = examine(m, g_len, TBR_TRACE_READ_RECOVER, i, 0);
            if (rv.garbage && bad++ < 5) fprintf(stderr, "flip byte %zu bit %d: recovery returned garbage\n", i, bit);
        }
    }
    free(m);
    free(map);
    CHECK(bad == 0, "%d bit-flip cases misbehaved", bad);
}

/* Applies a crafted edit to a copy of the good file and expects rejection
 * with `want` in the message. */
static void expect_reject(const char *what, uint8_t *m, size_t len, const char *want)
{
    outcome o = examine(m, len, 0, UINT64_MAX, 0);
    CHECK(o.rejected && !o.garbage && !o.bad_msg, "%s: rejected %d garbage %d bad_msg %d", what, o.rejected, o.garbage,
          o.bad_msg);
    if (want) {
        tbr_trace_error e;
        tbr_trace_reader *r = tbr_trace_reader_open_mem(m, len, NAME, NULL, &e);
        const char *msg = e.msg;
        if (r) { /* damage found while reading: find the message */
            int rc;
            while ((rc = tbr_trace_reader_next_frame(r, NULL)) > 0) {
                uint16_t t;
                const uint8_t *p;
                size_t l;
                while ((rc = tbr_trace_reader_next_record(r, &t, &p, &l)) > 0)
                    ;
                if (rc < 0) break;
            }
            msg = tbr_trace_reader_error(r);
        }
        CHECK(strstr(msg, want) != NULL, "%s: message '%s' lacks '%s'", what, msg, want);
        tbr_trace_reader_close(r);
    }
    /* recovery mode must not crash or invent data either */
    outcome rv = examine(m, len, TBR_TRACE_READ_RECOVER, UINT64_MAX, 0);
    CHECK(!rv.garbage, "%s: recovery returned garbage", what);
}

static uint8_t *copy_good(void)
{
    uint8_t *m = xmalloc(g_len);
    memcpy(m, g_file, g_len);
    return m;
}

/* Header: magic, versions, feature flags, metadata length. */
static void test_crafted_header(void)
{
    uint8_t *m;
    m = copy_good();
    m[7] = 'X';
    expect_reject("wrong magic", m, g_len, "bad magic");
    expect_reject("empty file", m, 0, "truncated");
    expect_reject("text file", (uint8_t *)"hello, world\n", 13, "bad magic");
    expect_reject("7 bytes of magic", (uint8_t *)"TBRTRAC", 7, "truncated");
    free(m);

    m = copy_good();
    m[8] = 2; /* major */
    fix_header(m);
    expect_reject("major 2", m, g_len, "unsupported container version 2.0");
    m[8] = 0;
    fix_header(m);
    expect_reject("major 0", m, g_len, "unsupported container version 0.0");
    free(m);

    /* a newer minor version is accepted and read normally */
    m = copy_good();
    m[10] = 9;
    fix_header(m);
    {
        outcome o = examine(m, g_len, 0, UINT64_MAX, 0);
        CHECK(!o.rejected && !o.garbage && o.frames_ok == g_ref.nframes, "newer minor must be readable");
        tbr_trace_error e;
        tbr_trace_reader *r = tbr_trace_reader_open_mem(m, g_len, NAME, NULL, &e);
        tbr_trace_file_info fi = {0};
        if (r) tbr_trace_reader_file_info(r, &fi);
        CHECK(r && fi.version_minor == 9, "minor version reported");
        tbr_trace_reader_close(r);
    }
    free(m);

    m = copy_good();
    wr32(m + 12, 1);
    fix_header(m);
    expect_reject("header feature flags", m, g_len, "feature flags");
    free(m);

    m = copy_good();
    wr32(m + 16, 0xffffffffu);
    fix_header(m);
    expect_reject("metadata length 4G", m, g_len, "metadata length");
    wr32(m + 16, (uint32_t)g_len);
    fix_header(m);
    expect_reject("metadata length past EOF", m, g_len, "runs past the end");
    free(m);
}

/* Chunk header fields (checksums fixed), and a chunk larger than the file. */
static void test_crafted_chunk(void)
{
    uint8_t *m;
    uint32_t mlen = rd32(g_file + 16);
    size_t c0 = HDR + mlen; /* first chunk */
    /* chunk header fields, checksums fixed */
    static const struct {
        size_t field;
        uint32_t val;
        const char *want;
    } cf[] = {
        {24, 0xffffffffu, "uncompressed bytes"},
        {24, (64u << 20) + 14, "uncompressed bytes"},
        {28, 0xffffffffu, "compressed bytes"},
        {28, 0xfffffff0u, "compressed bytes"},
        {28, 0, "compressed bytes"},
        {20, 0xffffffffu, "records"},
        {4, 2, "unknown flags"},
        {4, 1, "frame-end flag"}, /* applied as a toggle, see below */
        {16, 5, "expected frame"},
        {8, 12345, "expected frame"},
        {32, 0, "data checksum"},
    };
    for (size_t k = 0; k < sizeof cf / sizeof cf[0]; k++) {
        m = copy_good();
        uint32_t v = cf[k].val;
        if (cf[k].field == 4 && v == 1) v ^= rd32(m + c0 + 4); /* flip the frame-end flag whatever it was */
        wr32(m + c0 + cf[k].field, v);
        fix_chunk(m, c0);
        char what[64];
        snprintf(what, sizeof what, "chunk field @%zu = %u", cf[k].field, cf[k].val);
        expect_reject(what, m, g_len, cf[k].want);
        free(m);
    }
    /* the chunk size claims more than the file holds */
    m = copy_good();
    wr32(m + c0 + 28, rd32(m + c0 + 28) + 16);
    fix_chunk(m, c0);
    expect_reject("chunk data past frame end", m, g_len, NULL);
    free(m);
}

/* Footer: frame count, index offset, total records, magic. */
static void test_crafted_footer(void)
{
    uint8_t *m;
    size_t foot = g_len - FOOT;
    /* footer */
    m = copy_good();
    wr64(m + foot + 8, (uint64_t)1 << 60);
    fix_footer(m, g_len);
    expect_reject("footer frame count 2^60", m, g_len, "frame count");
    free(m);
    m = copy_good();
    wr64(m + foot, 0);
    fix_footer(m, g_len);
    expect_reject("footer index offset 0", m, g_len, "index offset");
    wr64(m + foot, UINT64_MAX);
    fix_footer(m, g_len);
    expect_reject("footer index offset max", m, g_len, "index offset");
    free(m);
    m = copy_good();
    wr64(m + foot + 16, rd64(m + foot + 16) + 1);
    fix_footer(m, g_len);
    expect_reject("footer total records", m, g_len, "total record count");
    free(m);
    m = copy_good();
    memcpy(m + foot + 32, "TBRFOOTX", 8);
    expect_reject("footer magic", m, g_len, "truncated or incomplete");
    free(m);
}

/* Index entries (checksums fixed), a lying record count, the index magic. */
static void test_crafted_index(void)
{
    uint8_t *m;
    size_t foot = g_len - FOOT;
    /* index entries (entry 1), checksums fixed */
    uint64_t ioff = rd64(g_file + foot);
    size_t e1 = (size_t)ioff + 8 + IENT;
    static const struct {
        size_t field;
        int wide;
        uint64_t val;
        const char *want;
    } xf[] = {
        {0, 1, 0, "frame number"},           /* not increasing */
        {8, 1, 0, "do not follow"},          /* offset */
        {16, 0, 0xffffffffu, "implausible"}, /* chunk count */
        {16, 0, 0, "implausible"},
        {20, 0, 1, "implausible"},                   /* reserved */
        {24, 1, (uint64_t)1 << 40, "implausible"},   /* record count */
        {32, 1, (uint64_t)1 << 62, "do not follow"}, /* compressed bytes */
        {40, 1, (uint64_t)1 << 50, "implausible"},   /* uncompressed bytes */
    };
    for (size_t k = 0; k < sizeof xf / sizeof xf[0]; k++) {
        m = copy_good();
        if (xf[k].wide)
            wr64(m + e1 + xf[k].field, xf[k].val);
        else
            wr32(m + e1 + xf[k].field, (uint32_t)xf[k].val);
        /* keep the footer's total consistent when a record count changes */
        if (xf[k].field == 24) {
            uint64_t old = rd64(g_file + e1 + 24);
            wr64(m + foot + 16, rd64(m + foot + 16) - old + xf[k].val);
        }
        fix_index(m, g_len);
        char what[64];
        snprintf(what, sizeof what, "index field @%zu", xf[k].field);
        expect_reject(what, m, g_len, xf[k].want);
        free(m);
    }
    /* an index that is internally consistent but lies about a frame's record
     * count is caught when that frame is read */
    m = copy_good();
    {
        size_t target = 0;
        for (size_t f = 0; f < g_ref.nframes; f++)
            if (g_ref.frames[f].n > 2) {
                target = f;
                break;
            }
        size_t ef = (size_t)ioff + 8 + target * IENT;
        wr64(m + ef + 24, rd64(m + ef + 24) - 1);
        wr64(m + foot + 16, rd64(m + foot + 16) - 1);
        fix_index(m, g_len);
        expect_reject("index record count off by one", m, g_len, "do not match the index");
    }
    free(m);
    m = copy_good();
    memcpy(m + ioff, "TBRINDEY", 8);
    fix_index(m, g_len);
    expect_reject("index magic", m, g_len, "index magic");
    free(m);
}

static void test_crafted_header_footer_index(void)
{
    test_crafted_header();
    test_crafted_chunk();
    test_crafted_footer();
    test_crafted_index();
}

/* ----- hand-built files: chunk contents chosen by the test ------------- */

typedef struct mchunk {
    uint64_t frame;
    uint32_t seq, flags, nrec;
    const uint8_t *content; /* uncompressed */
    size_t len;
    const uint8_t *zdata; /* if set: use as the compressed data as-is */
    size_t zlen;
} mchunk;

/* Builds a complete file with correct checksums from explicit chunks; frames
 * are delimited by seq == 0. */
static uint8_t *build_file(const mchunk *ch, size_t n, size_t *out_len)
{
    tbr_buf b;
    tbr_buf_init(&b);
    uint8_t h[HDR];
    memcpy(h, "TBRTRACE", 8);
    h[8] = 1, h[9] = 0, h[10] = 0, h[11] = 0;
    wr32(h + 12, 0);
    wr32(h + 16, 0);
    wr32(h + 20, crc(h, 20));
    tbr_buf_put_bytes(&b, h, HDR);
    struct {
        uint64_t num, off, nrec, cb, ub;
        uint32_t nch;
    } fr[16];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        size_t zl = ch[i].zlen;
        uint8_t *z = NULL;
        if (!ch[i].zdata) {
            z = xmalloc(ZSTD_compressBound(ch[i].len));
            zl = ZSTD_compress(z, ZSTD_compressBound(ch[i].len), ch[i].content, ch[i].len, 1);
        }
        if (ch[i].seq == 0) {
            fr[nf].num = ch[i].frame;
            fr[nf].off = b.len;
            fr[nf].nrec = fr[nf].cb = fr[nf].ub = 0;
            fr[nf].nch = 0;
            nf++;
        }
        uint8_t c[CHDR];
        memcpy(c, "TBRC", 4);
        wr32(c + 4, ch[i].flags);
        wr64(c + 8, ch[i].frame);
        wr32(c + 16, ch[i].seq);
        wr32(c + 20, ch[i].nrec);
        wr32(c + 24, (uint32_t)ch[i].len);
        wr32(c + 28, (uint32_t)zl);
        wr32(c + 32, crc(z ? z : ch[i].zdata, zl));
        wr32(c + 36, crc(c, 36));
        tbr_buf_put_bytes(&b, c, CHDR);
        tbr_buf_put_bytes(&b, z ? z : ch[i].zdata, zl);
        free(z);
        fr[nf - 1].nrec += ch[i].nrec;
        fr[nf - 1].cb += CHDR + zl;
        fr[nf - 1].ub += ch[i].len;
        fr[nf - 1].nch++;
    }
    uint64_t ioff = b.len, total = 0;
    tbr_buf_put_bytes(&b, "TBRINDEX", 8);
    for (size_t f = 0; f < nf; f++) {
        tbr_buf_put_u64(&b, fr[f].num);
        tbr_buf_put_u64(&b, fr[f].off);
        tbr_buf_put_u32(&b, fr[f].nch);
        tbr_buf_put_u32(&b, 0);
        tbr_buf_put_u64(&b, fr[f].nrec);
        tbr_buf_put_u64(&b, fr[f].cb);
        tbr_buf_put_u64(&b, fr[f].ub);
        total += fr[f].nrec;
    }
    uint8_t ft[FOOT];
    wr64(ft, ioff);
    wr64(ft + 8, nf);
    wr64(ft + 16, total);
    wr32(ft + 24, crc(b.data + ioff, b.len - ioff));
    wr32(ft + 28, crc(ft, 28));
    memcpy(ft + 32, "TBRFOOTR", 8);
    tbr_buf_put_bytes(&b, ft, FOOT);
    *out_len = b.len;
    return b.data;
}

static void test_crafted_records(void)
{
    size_t len;
    uint8_t *f;
    tbr_trace_error e;

    g_cmp = NULL;
    /* A valid hand-built file reads back: cross-checks the documented layout. */
    static const uint8_t ok1[] = {5, 3, 'a', 'b', 'c', 0xff, 0xff, 0x03, 0};
    static const uint8_t empty[1] = {0};
    mchunk good[] = {
        {7, 0, 0, 1, ok1, 5, NULL, 0},
        {7, 1, 1, 1, ok1 + 5, 4, NULL, 0},
        {9, 0, 1, 0, empty, 0, NULL, 0},
    };
    f = build_file(good, 3, &len);
    tbr_trace_reader *r = tbr_trace_reader_open_mem(f, len, NAME, NULL, &e);
    CHECK(r != NULL, "hand-built file: %s", e.msg);
    if (r) {
        uint16_t t;
        const uint8_t *p;
        size_t l;
        CHECK(tbr_trace_reader_frame_count(r) == 2, "hand-built frames");
        CHECK(tbr_trace_reader_next_frame(r, NULL) == 1, "frame 7");
        CHECK(tbr_trace_reader_next_record(r, &t, &p, &l) == 1 && t == 5 && l == 3 && memcmp(p, "abc", 3) == 0,
              "record 1");
        CHECK(tbr_trace_reader_next_record(r, &t, &p, &l) == 1 && t == 65535 && l == 0, "record 2 (type 65535, empty)");
        CHECK(tbr_trace_reader_next_record(r, &t, &p, &l) == 0, "end of frame 7: %s", tbr_trace_reader_error(r));
        CHECK(tbr_trace_reader_next_frame(r, NULL) == 1 && tbr_trace_reader_next_record(r, &t, &p, &l) == 0,
              "empty frame 9");
        tbr_trace_reader_close(r);
    }
    free(f);

    struct {
        const char *what;
        uint8_t content[16];
        size_t len;
        uint32_t nrec;
        const char *want;
    } rc[] = {
        {"record length 2^40", {1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20}, 7, 1, "malformed record"},
        {"record length past chunk", {1, 9, 'x', 'y'}, 4, 1, "malformed record"},
        {"record type 70000", {0xf0, 0xa2, 0x04, 0}, 4, 1, "malformed record"},
        {"varint overflow", {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, 11, 1, "malformed record"},
        {"fewer records than claimed", {1, 1, 'x', 2, 1, 'y'}, 6, 3, "malformed record"},
        {"trailing bytes", {1, 1, 'x', 2, 0, 7}, 6, 2, "after its last record"},
    };
    for (size_t k = 0; k < sizeof rc / sizeof rc[0]; k++) {
        mchunk c = {3, 0, 1, rc[k].nrec, rc[k].content, rc[k].len, NULL, 0};
        f = build_file(&c, 1, &len);
        expect_reject(rc[k].what, f, len, rc[k].want);
        free(f);
    }

    /* zstd-level lies: declared size differs from the frame's, two frames,
     * a frame without a content size, garbage instead of zstd */
    static const uint8_t content[] = {1, 3, 'a', 'b', 'c'};
    uint8_t z[128], z2[256];
    size_t zl = ZSTD_compress(z, sizeof z, content, sizeof content, 1);
    uint8_t big[6] = {1, 4, 'a', 'b', 'c', 'd'};
    mchunk c1 = {3, 0, 1, 1, big, sizeof big, z, zl}; /* claims 6 bytes, frame holds 5 */
    f = build_file(&c1, 1, &len);
    expect_reject("content size mismatch", f, len, "single zstd frame");
    free(f);
    memcpy(z2, z, zl);
    memcpy(z2 + zl, z, zl);
    uint8_t ten[10] = {1, 3, 'a', 'b', 'c', 1, 3, 'a', 'b', 'c'};
    mchunk c2 = {3, 0, 1, 2, ten, 10, z2, 2 * zl};
    f = build_file(&c2, 1, &len);
    expect_reject("two zstd frames", f, len, "single zstd frame");
    free(f);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    uint8_t z3[128];
    ZSTD_inBuffer in = {content, sizeof content, 0};
    ZSTD_outBuffer out = {z3, sizeof z3, 0};
    ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end);
    ZSTD_freeCCtx(cc);
    mchunk c3 = {3, 0, 1, 1, content, sizeof content, z3, out.pos};
    f = build_file(&c3, 1, &len);
    expect_reject("no zstd content size", f, len, "single zstd frame");
    free(f);
    uint8_t junk[32];
    memset(junk, 0x5a, sizeof junk);
    mchunk c4 = {3, 0, 1, 1, content, sizeof content, junk, sizeof junk};
    f = build_file(&c4, 1, &len);
    expect_reject("not zstd", f, len, "single zstd frame");
    free(f);
    /* corrupt zstd block with a valid frame header: decompression error */
    uint8_t zc[256];
    static uint8_t rnd[200];
    uint64_t s = 5;
    for (size_t i = 0; i < sizeof rnd; i++) rnd[i] = (uint8_t)(i < 100 ? i % 7 : rng_next(&s));
    rnd[0] = 1;
    rnd[1] = 0x80 | 68;
    rnd[2] = 1; /* one record of 196 bytes */
    size_t zcl = ZSTD_compress(zc, sizeof zc, rnd, sizeof rnd, 1);
    zc[zcl - 3] ^= 0x55;
    mchunk c5 = {3, 0, 1, 1, rnd, sizeof rnd, zc, zcl};
    f = build_file(&c5, 1, &len);
    expect_reject("corrupt zstd block", f, len, NULL);
    free(f);
    g_cmp = &g_ref;
}

/* A writer that crashed: no index/footer. Normal mode says "incomplete";
 * recovery returns the finished frames and flags the unfinished one. */
static void test_incomplete_and_recovery(void)
{
    /* chunks only, cut right before the index */
    outcome o = examine(g_file, g_index_off, 0, g_index_off, 1);
    CHECK(o.rejected && !o.bad_msg, "missing index/footer rejected");
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open_mem(g_file, g_index_off, NAME, NULL, &e);
    CHECK(!r && strstr(e.msg, "incomplete"), "message says incomplete: %s", e.msg);
    tbr_trace_reader_close(r);

    tbr_trace_reader_options ro = {TBR_TRACE_READ_RECOVER};
    r = tbr_trace_reader_open_mem(g_file, g_index_off, NAME, &ro, &e);
    CHECK(r != NULL, "recovery open: %s", e.msg);
    if (r) {
        tbr_trace_file_info fi;
        tbr_trace_reader_file_info(r, &fi);
        CHECK(fi.recovered && !fi.last_frame_incomplete && fi.frame_count == g_ref.nframes &&
                  fi.record_count == ref_total_records(&g_ref) && fi.recovery_end == g_index_off,
              "recovered everything (frames %llu, incomplete %d, end %llu)", (unsigned long long)fi.frame_count,
              fi.last_frame_incomplete, (unsigned long long)fi.recovery_end);
        tbr_trace_reader_close(r);
    }
    o = examine(g_file, g_index_off, TBR_TRACE_READ_RECOVER, 0, 0);
    CHECK(!o.rejected && !o.garbage && o.frames_ok == g_ref.nframes, "recovered frames read");

    /* cut in the middle of the last multi-chunk frame, on a chunk boundary */
    size_t last = g_ref.nframes - 1;
    while (last > 0 && g_ref.frames[last].n < 4) last--;
    r = tbr_trace_reader_open_mem(g_file, g_len, NAME, NULL, &e);
    tbr_trace_frame_info info;
    tbr_trace_reader_frame_info(r, last, &info);
    tbr_trace_reader_close(r);
    if (info.chunk_count >= 2) {
        /* first chunk's end: header + csize */
        uint64_t cut = info.offset + CHDR + rd32(g_file + info.offset + 28);
        r = tbr_trace_reader_open_mem(g_file, (size_t)cut, NAME, &ro, &e);
        CHECK(r != NULL, "recovery open (mid-frame): %s", e.msg);
        if (r) {
            tbr_trace_file_info fi;
            tbr_trace_reader_file_info(r, &fi);
            CHECK(fi.frame_count == last + 1 && fi.last_frame_incomplete && fi.recovery_end == cut,
                  "partial last frame flagged");
            tbr_trace_reader_close(r);
        }
    } else {
        CHECK(0, "reference trace lacks a multi-chunk frame");
    }
}

static int write_seeds(const char *dir)
{
    char p[600];
    ref_trace t;
    ref_generate(&t, 42, 5, 4, 150);
    snprintf(p, sizeof p, "%s/small_chunks.trace", dir);
    int rc = ref_write(&t, p, "source=seed\n", 128, NULL);
    snprintf(p, sizeof p, "%s/default.trace", dir);
    rc |= ref_write(&t, p, NULL, 0, NULL);
    ref_free(&t);
    ref_trace empty = {0, NULL};
    snprintf(p, sizeof p, "%s/empty.trace", dir);
    rc |= ref_write(&empty, p, "k=v", 0, NULL);
    /* footer-less file, for the recovery path */
    size_t len;
    snprintf(p, sizeof p, "%s/small_chunks.trace", dir);
    uint8_t *b = read_whole(p, &len);
    if (!b) return 1;
    snprintf(p, sizeof p, "%s/nofooter.trace", dir);
    rc |= write_whole(p, b, len - FOOT - 8);
    free(b);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) return write_seeds(argv[2]);

    char dir[512], path[600];
    make_tmpdir(dir, sizeof dir, "corrupt");
    snprintf(path, sizeof path, "%s/ref.trace", dir);
    ref_generate(&g_ref, 777, 7, 6, 260);
    /* guarantee a record larger than the 256-byte chunks (own chunk) */
    {
        ref_rec *big = g_ref.frames[1].n > 1 ? &g_ref.frames[1].recs[1] : NULL;
        if (big) {
            free(big->data);
            big->len = 700;
            big->data = xmalloc(big->len);
            uint64_t s = 11;
            for (size_t j = 0; j < big->len; j++) big->data[j] = (uint8_t)rng_next(&s);
        }
        CHECK(big != NULL, "reference frame 1 has 2+ records");
    }
    /* small chunks: several per frame, plus oversized records and an empty frame */
    CHECK(ref_write(&g_ref, path, "source=corrupt-test\nmesa=none\n", 256, NULL) == 0, "write");
    g_file = read_whole(path, &g_len);
    unlink(path);
    rmdir(dir);
    if (!g_file) return 1;
    g_index_off = rd64(g_file + g_len - FOOT);
    {
        tbr_trace_error e;
        tbr_trace_reader *r = tbr_trace_reader_open_mem(g_file, g_len, NAME, NULL, &e);
        CHECK(r != NULL, "reference open: %s", e.msg);
        if (!r) return 1;
        g_frame_end = xmalloc(g_ref.nframes * sizeof *g_frame_end);
        for (size_t f = 0; f < g_ref.nframes; f++) {
            tbr_trace_frame_info fi;
            tbr_trace_reader_frame_info(r, f, &fi);
            g_frame_end[f] = fi.offset + fi.compressed_bytes;
        }
        tbr_trace_reader_close(r);
        outcome o = examine(g_file, g_len, 0, 0, 0);
        CHECK(!o.rejected && !o.garbage && o.frames_ok == g_ref.nframes, "reference reads back");
    }
    printf("reference file: %zu bytes, %zu frames, %llu records; records per frame:", g_len, g_ref.nframes,
           (unsigned long long)ref_total_records(&g_ref));
    for (size_t f = 0; f < g_ref.nframes; f++) printf(" %zu", g_ref.frames[f].n);
    printf("\n");

    test_crafted_header_footer_index();
    test_crafted_records();
    test_incomplete_and_recovery();
    test_truncation();
    test_bitflips();

    free(g_frame_end);
    free(g_file);
    ref_free(&g_ref);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("corrupt: all checks passed\n");
    return 0;
}
