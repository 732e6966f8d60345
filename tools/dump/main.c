/* tbr-dump: print a GPU activity trace (container + record schema)
 * human-readably, with frame/draw/type filters and a per-frame summary.
 * See docs/tools-dump.md. */
#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"
#include "tool_args.h"
#include "tool_trace.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TBR_VERSION
#define TBR_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_BAD = 2 };

static const char *const prog = "tbr-dump";

struct options {
    int have_frames;
    uint64_t frame_lo, frame_hi; /* --frame, inclusive source frame numbers */
    int have_draw;
    uint32_t draw; /* --draw SEQ */
    int have_types;
    unsigned char types[65536]; /* --type set */
    int have_limit;
    uint64_t limit; /* --limit N printed records */
    int summary;
    int verbose;
    int no_records;
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: %s [OPTIONS] TRACE|REPLAY_DIR\n"
            "Print a tbrsim GPU activity trace (DIR/activity.tbrt) human-readably:\n"
            "header and metadata, the frame index, then the records of each frame.\n"
            "\n"
            "Options:\n"
            "  -f, --frame=N|A-B    only frames with source frame number N (or A..B)\n"
            "  -d, --draw=SEQ       only records of draw SEQ (DRAW, PRIM, QUADS, TEXELS,\n"
            "                       VERTICES, VS_TEXELS, VS_TEXTURES, DRAW_END with that\n"
            "                       draw sequence number,\n"
            "                       and every record\n"
            "                       between that DRAW and its DRAW_END)\n"
            "  -t, --type=NAME[,NAME...]\n"
            "                       only records of these types (names as printed,\n"
            "                       case-insensitive, e.g. draw,quads; or numbers)\n"
            "  -n, --limit=N        print at most N records in total\n"
            "  -s, --summary        one summary block per frame instead of records\n"
            "  -R, --no-records     header, metadata and frame index only\n"
            "  -v, --verbose        full DRAW state, PRIM attributes, quad colors,\n"
            "                       all PATH entries, every texel (TEXELS, VS_TEXELS), vertex\n"
            "                       positions (VERTICES)\n"
            "  -q, --quiet          accepted as by every tbrsim tool (this one prints no\n"
            "                       progress; errors and warnings still go to stderr)\n"
            "  -h, --help           show this help\n"
            "  -V, --version        show the version\n"
            "\n"
            "Records of unknown types are shown as 'type N, len L' and skipped.\n"
            "Exit status: 0 ok, 2 bad usage or unreadable/corrupt/truncated trace\n"
            "(the error names the file offset of the damage).\n",
            prog);
}

static void bad_usage(const char *fmt, const char *arg) { tbr_tool_bad_usage(prog, fmt, arg); }

static void parse_types(struct options *o, const char *arg)
{
    char *copy = strdup(arg);
    if (!copy) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(EXIT_BAD);
    }
    char *save = NULL;
    int any = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        uint64_t num;
        int found = -1;
        if (tbr_tool_parse_u64(tok, &num) == 0) {
            if (num <= 65535) found = (int)num;
        } else {
            for (int t = 0; t < TBR_REC_TYPE_COUNT; t++) {
                const char *nm = tbr_rec_type_name((uint16_t)t);
                if (nm && strcasecmp(nm, tok) == 0) found = t;
            }
        }
        if (found < 0) {
            fprintf(stderr, "%s: unknown record type '%s'; known:", prog, tok);
            for (int t = 0; t < TBR_REC_TYPE_COUNT; t++)
                if (tbr_rec_type_name((uint16_t)t)) fprintf(stderr, " %s", tbr_rec_type_name((uint16_t)t));
            fprintf(stderr, " (or a number 0-65535)\nTry '%s --help'.\n", prog);
            free(copy);
            exit(EXIT_BAD);
        }
        o->types[found] = 1;
        any = 1;
    }
    free(copy);
    if (!any) bad_usage("empty --type list '%s'", arg);
    o->have_types = 1;
}

/* ---- per-frame summary ---------------------------------------------------- */

struct summary {
    uint64_t records, draws, internal_draws, passes, clears, prims, culled, quads, shaded_quads, shaded_fragments,
        blended_fragments, tiles, flushes, paths, unsupported, shaders, uploads, unknown;
    uint64_t vs_paths, texel_recs, tex_fetches, texels, vertex_recs, vertex_groups, vertices;
    uint64_t vs_texel_recs, vs_tex_fetches, vs_texels;
    uint64_t texel_derived_quads; /* shaded quads of TEXELS_DERIVED QUADS records (minor 6) */
    uint64_t surface_init_recs, surface_init_bytes;
    int have_end;
    tbr_rec_frame_end end;
    /* early_z per draw seq (shaded fragments depend on it) */
    unsigned char *early_z;
    size_t early_z_cap;
};

static unsigned popcount4(uint32_t m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

static int set_early_z(struct summary *s, uint32_t seq, int v)
{
    if (seq >= s->early_z_cap) {
        size_t cap = s->early_z_cap ? s->early_z_cap : 64;
        while (cap <= seq) cap *= 2;
        unsigned char *n = realloc(s->early_z, cap);
        if (!n) return -1;
        memset(n + s->early_z_cap, 0, cap - s->early_z_cap);
        s->early_z = n;
        s->early_z_cap = cap;
    }
    s->early_z[seq] = (unsigned char)v;
    return 0;
}

/* The record types the summary decodes (the others are only counted). */
#define SUMMARY_TYPES                                                                                                  \
    (TBR_REC_MASK(TBR_REC_FRAME_END) | TBR_REC_MASK(TBR_REC_PATH) | TBR_REC_MASK(TBR_REC_TEXELS) |                     \
     TBR_REC_MASK(TBR_REC_VS_TEXELS) | TBR_REC_MASK(TBR_REC_VERTICES) | TBR_REC_MASK(TBR_REC_DRAW) |                   \
     TBR_REC_MASK(TBR_REC_PRIM) | TBR_REC_MASK(TBR_REC_QUADS) | TBR_REC_MASK(TBR_REC_SURFACE_INIT))

/* Adds the fetches and texels of a TEXELS or VS_TEXELS record (same coding). */
static void count_texels(const tbr_rec_decoded *d, uint64_t *fetches, uint64_t *texels)
{
    for (uint32_t i = 0; i < d->u.texels.h.count; i++) {
        (*fetches)++;
        *texels += d->u.texels.f[i].n_texels;
    }
}

/* Adds a record (decoded if its type is in SUMMARY_TYPES) to the summary: 0, or -1 if out
 * of memory. */
static int summarize_record(struct summary *s, const tbr_rec_decoded *d)
{
    s->records++;
    switch (d->type) {
        case TBR_REC_FRAME_END:
            s->end = d->u.frame_end;
            s->have_end = 1;
            return 0;
        case TBR_REC_RENDER_PASS: s->passes++; return 0;
        case TBR_REC_CLEAR: s->clears++; return 0;
        case TBR_REC_TILE: s->tiles++; return 0;
        case TBR_REC_FLUSH: s->flushes++; return 0;
        case TBR_REC_PATH:
            s->paths++;
            s->vs_paths += d->u.path.stage == TBR_REC_STAGE_VS;
            return 0;
        case TBR_REC_TEXELS:
            s->texel_recs++;
            count_texels(d, &s->tex_fetches, &s->texels);
            return 0;
        case TBR_REC_VS_TEXELS:
            s->vs_texel_recs++;
            count_texels(d, &s->vs_tex_fetches, &s->vs_texels);
            return 0;
        case TBR_REC_VERTICES:
            s->vertex_recs++;
            for (uint32_t i = 0; i < d->u.vertices.h->count; i++) {
                s->vertex_groups++;
                s->vertices += d->u.vertices.g[i].n;
            }
            return 0;
        case TBR_REC_UNSUPPORTED: s->unsupported++; return 0;
        case TBR_REC_SHADER: s->shaders++; return 0;
        case TBR_REC_UPLOAD: s->uploads++; return 0;
        case TBR_REC_DRAW:
            s->draws++;
            s->internal_draws += d->u.draw.internal ? 1 : 0;
            return set_early_z(s, d->u.draw.seq, d->u.draw.early_z != 0);
        case TBR_REC_PRIM:
            s->prims++;
            s->culled += (d->u.prim.flags & TBR_REC_PRIM_CULLED) ? 1 : 0;
            return 0;
        case TBR_REC_QUADS: {
            const tbr_rec_quads_header *h = &d->u.quads.h;
            int ez = h->draw_seq < s->early_z_cap ? s->early_z[h->draw_seq] : 0;
            for (uint32_t i = 0; i < h->count; i++) {
                const tbr_rec_quad *q = &d->u.quads.q[i];
                s->quads++;
                if (q->flags & TBR_REC_QUAD_SHADED) {
                    s->shaded_quads++;
                    s->texel_derived_quads += h->texels_derived;
                    s->shaded_fragments += popcount4(ez ? q->depth_mask : q->in_mask);
                }
                if (q->flags & TBR_REC_QUAD_BLENDED) s->blended_fragments += popcount4(q->blend_mask);
            }
            return 0;
        }
        case TBR_REC_SURFACE_INIT:
            s->surface_init_recs++;
            s->surface_init_bytes +=
                (uint64_t)d->u.surface_init.rows * d->u.surface_init.width * d->u.surface_init.block_bytes;
            return 0;
        default:
            if (!tbr_rec_type_name(d->type)) s->unknown++;
            return 0;
    }
}

static void print_summary(const struct summary *s, const tbr_trace_frame_info *fi)
{
    printf("frame %" PRIu64 ": %" PRIu64 " records, %" PRIu64 " bytes (%" PRIu64 " uncompressed), %" PRIu32 " chunks\n",
           fi->number, s->records, fi->compressed_bytes, fi->uncompressed_bytes, fi->chunk_count);
    printf("  draws            %" PRIu64 " (%" PRIu64 " internal)\n", s->draws, s->internal_draws);
    printf("  render passes    %" PRIu64 "\n", s->passes);
    printf("  clears           %" PRIu64 "\n", s->clears);
    printf("  prims            %" PRIu64 " (%" PRIu64 " culled by setup)\n", s->prims, s->culled);
    printf("  quads            %" PRIu64 "\n", s->quads);
    printf("  shaded quads     %" PRIu64 "\n", s->shaded_quads);
    printf("  shaded fragments %" PRIu64 "\n", s->shaded_fragments);
    printf("  blended frags    %" PRIu64 "\n", s->blended_fragments);
    printf("  tile events      %" PRIu64 ", flushes %" PRIu64 ", shaders %" PRIu64 ", paths %" PRIu64 " (%" PRIu64
           " VS), uploads %" PRIu64 "\n",
           s->tiles, s->flushes, s->shaders, s->paths, s->vs_paths, s->uploads);
    printf("  texels           %" PRIu64 " in %" PRIu64 " fetches (%" PRIu64 " TEXELS records; all lanes)\n", s->texels,
           s->tex_fetches, s->texel_recs);
    if (s->texel_derived_quads) /* records minor 6: not in the trace */
        printf("                   NOT counted: the texels of %" PRIu64 " shaded quads whose texels are\n"
               "                   derived (QUADS texels=derived; replay with tbr-replay --record-texels)\n",
               s->texel_derived_quads);
    printf("  vertices         %" PRIu64 " fetched in %" PRIu64 " VS groups (%" PRIu64 " VERTICES records)\n",
           s->vertices, s->vertex_groups, s->vertex_recs);
    if (s->vs_texel_recs)
        printf("  vertex texels    %" PRIu64 " in %" PRIu64 " fetches (%" PRIu64 " VS_TEXELS records)\n", s->vs_texels,
               s->vs_tex_fetches, s->vs_texel_recs);
    if (s->surface_init_recs)
        printf("  surface init     %" PRIu64 " bytes in %" PRIu64 " SURFACE_INIT records (hot start)\n",
               s->surface_init_bytes, s->surface_init_recs);
    if (s->unsupported || s->unknown)
        printf("  unsupported      %" PRIu64 ", records of unknown type %" PRIu64 "\n", s->unsupported, s->unknown);
    if (s->have_end) {
        const tbr_rec_frame_end *e = &s->end;
        int ok = e->draws == s->draws && e->prims == s->prims && e->clears == s->clears && e->quads == s->quads &&
                 e->shaded_quads == s->shaded_quads && e->shaded_fragments == s->shaded_fragments;
        printf("  FRAME_END        %" PRIu32 "x%" PRIu32 ", counts %s\n", e->width, e->height,
               ok ? "match" : "MISMATCH");
        if (!ok)
            printf("    FRAME_END says draws=%" PRIu64 " prims=%" PRIu64 " clears=%" PRIu64 " quads=%" PRIu64
                   " shaded_quads=%" PRIu64 " shaded_fragments=%" PRIu64 "\n",
                   e->draws, e->prims, e->clears, e->quads, e->shaded_quads, e->shaded_fragments);
    } else {
        printf("  FRAME_END        none (incomplete/partial frame)\n");
    }
}

/* The command line into o; -1: go on, else the exit status (--help, --version). Usage
 * errors exit here (bad_usage). */
static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"frame", required_argument, NULL, 'f'},
        {"draw", required_argument, NULL, 'd'},
        {"type", required_argument, NULL, 't'},
        {"limit", required_argument, NULL, 'n'},
        {"summary", no_argument, NULL, 's'},
        {"no-records", no_argument, NULL, 'R'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":f:d:t:n:sRvhVq", longopts, NULL)) != -1) {
        uint64_t v;
        switch (ch) {
            case 'f':
                tbr_tool_parse_frames(prog, optarg, &o->frame_lo, &o->frame_hi);
                o->have_frames = 1;
                break;
            case 'd':
                if (tbr_tool_parse_u64(optarg, &v) || v > UINT32_MAX)
                    bad_usage("bad --draw value '%s' (expected a draw sequence number)", optarg);
                o->have_draw = 1;
                o->draw = (uint32_t)v;
                break;
            case 't': parse_types(o, optarg); break;
            case 'q': break; /* nothing to silence (one convention across the tools) */
            case 'n':
                if (tbr_tool_parse_u64(optarg, &v)) bad_usage("bad --limit value '%s'", optarg);
                o->have_limit = 1;
                o->limit = v;
                break;
            case 's': o->summary = 1; break;
            case 'R': o->no_records = 1; break;
            case 'v': o->verbose = 1; break;
            case 'h': usage(stdout); return EXIT_OK;
            case 'V': printf("%s %s\n", prog, TBR_VERSION); return EXIT_OK;
            default: tbr_tool_bad_option(prog, argv, ch);
        }
    }
    return -1;
}

/* The container: version, sizes, metadata; info: the file's facts (the end reports a
 * recovered index). */
static void print_file_header(tbr_trace_reader *r, const char *path, tbr_trace_file_info *info_out)
{
    tbr_trace_file_info info;
    tbr_trace_reader_file_info(r, &info);
    printf("trace %s\n", path);
    printf("  container version %u.%u, %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu64 " records\n",
           (unsigned)info.version_major, (unsigned)info.version_minor, info.file_size, info.frame_count,
           info.record_count);
    size_t mlen;
    const char *meta = tbr_trace_reader_metadata(r, &mlen);
    printf("metadata (%zu bytes)\n", mlen);
    tbr_rec_print_text_block(stdout, meta, mlen, "  ");
    *info_out = info;
}

int main(int argc, char **argv)
{
    struct options o; /* (64 KiB: the --type set) */
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    const char *path = tbr_tool_trace_operand(prog, argc, argv);

    tbr_rec_decoder *dec = tbr_rec_decoder_new(o.summary ? SUMMARY_TYPES : TBR_REC_MASK_ALL);
    if (!dec) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_BAD;
    }
    tbr_trace_reader *r = tbr_tool_open_trace(prog, path);
    if (!r) {
        tbr_rec_decoder_free(dec);
        return EXIT_BAD;
    }
    tbr_trace_file_info info;
    print_file_header(r, path, &info);

    /* Record decoding only for the schema this tool knows. */
    int decode = tbr_tool_records_schema_ok(r, prog, path, 1);

    printf("frames\n  %10s %10s %7s %12s %14s %12s\n", "frame", "records", "chunks", "bytes", "uncompressed", "offset");
    size_t shown_frames = 0;
    tbr_tool_frames it;
    size_t i;
    tbr_trace_frame_info fi;
    tbr_tool_frames_init(&it, r, o.have_frames, o.frame_lo, o.frame_hi);
    while (tbr_tool_frames_next(&it, &i, &fi)) {
        shown_frames++;
        printf("  %10" PRIu64 " %10" PRIu64 " %7" PRIu32 " %12" PRIu64 " %14" PRIu64 " %12" PRIu64 "\n", fi.number,
               fi.record_count, fi.chunk_count, fi.compressed_bytes, fi.uncompressed_bytes, fi.offset);
    }
    if (o.have_frames && shown_frames == 0) tbr_tool_warn_no_frames(prog, o.frame_lo, o.frame_hi);

    int status = EXIT_OK;
    uint64_t printed = 0;
    int stop = o.no_records || (o.have_limit && o.limit == 0 && !o.summary);
    tbr_tool_frames_init(&it, r, o.have_frames, o.frame_lo, o.frame_hi);
    while (!stop && tbr_tool_frames_next(&it, &i, &fi)) {
        if (tbr_trace_reader_seek_frame(r, i) < 0) {
            fprintf(stderr, "%s: %s\n", prog, tbr_trace_reader_error(r));
            status = EXIT_BAD;
            break;
        }
        struct summary sum;
        memset(&sum, 0, sizeof sum);
        if (!o.summary) printf("frame %" PRIu64 " (%" PRIu64 " records)\n", fi.number, fi.record_count);
        uint16_t type;
        const uint8_t *p;
        size_t len;
        int rc;
        uint64_t k = 0;
        int in_draw = 0;
        while ((rc = tbr_trace_reader_next_record(r, &type, &p, &len)) > 0) {
            uint64_t idx = k++;
            if (o.summary) {
                const tbr_rec_decoded *d;
                if (decode && tbr_rec_decode(dec, type, p, len, &d) < 0) {
                    tbr_tool_fail_malformed(r, type, len);
                    rc = -1;
                    break;
                }
                if (decode && summarize_record(&sum, d) < 0) {
                    tbr_tool_fail_malformed(r, type, len);
                    rc = -1;
                    break;
                }
                if (!decode) sum.records++;
                continue;
            }
            if (o.have_draw) {
                uint32_t seq = 0;
                int has = decode ? tbr_rec_draw_seq(type, p, len, &seq) : 0;
                if (has < 0) {
                    tbr_tool_fail_malformed(r, type, len);
                    rc = -1;
                    break;
                }
                int match;
                if (has) {
                    match = seq == o.draw;
                    if (type == TBR_REC_DRAW)
                        in_draw = match;
                    else if (type == TBR_REC_DRAW_END && match)
                        in_draw = 0;
                } else {
                    match = in_draw;
                }
                if (!match) continue;
            }
            if (o.have_types && !o.types[type]) continue;
            if (o.have_limit && printed >= o.limit) {
                stop = 1;
                break;
            }
            printed++;
            const char *nm = decode ? tbr_rec_type_name(type) : NULL;
            if (!nm) {
                printf("  [%" PRIu64 "] type %u, len %zu\n", idx, (unsigned)type, len);
                continue;
            }
            printf("  [%" PRIu64 "] %s", idx, nm);
            const tbr_rec_decoded *d;
            int pr = tbr_rec_decode(dec, type, p, len, &d);
            if (pr != 1) pr = tbr_rec_print(stdout, d, o.verbose);
            fflush(stdout);
            if (pr < 0) {
                printf("\n");
                tbr_tool_fail_malformed(r, type, len);
                rc = -1;
                break;
            }
        }
        if (rc < 0) {
            fflush(stdout);
            fprintf(stderr, "%s: %s\n", prog, tbr_trace_reader_error(r));
            status = EXIT_BAD;
            free(sum.early_z);
            break;
        }
        if (o.summary) print_summary(&sum, &fi);
        free(sum.early_z);
    }
    if (info.recovered) printf("note: index rebuilt by recovery scan\n");
    tbr_trace_reader_close(r);
    tbr_rec_decoder_free(dec);
    if (tbr_tool_flush_stdout(prog) < 0) return EXIT_BAD;
    return status;
}
