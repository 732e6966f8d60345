/* tbr-dump: print a GPU activity trace (container + record schema)
 * human-readably, with frame/draw/type filters and a per-frame summary.
 * See docs/tools-dump.md. */
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

static const char *prog = "tbr-dump";

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
            "Usage: %s [OPTIONS] TRACE\n"
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

/* ---- record printing ------------------------------------------------------ */

static void print_text_block(const char *text, size_t len, const char *indent)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        printf("%s%.*s\n", indent, (int)(j - i), text + i);
        i = j + 1;
    }
}

static void print_surface(const char *name, const tbr_rec_surface *s)
{
    if (!s->valid) {
        printf("      %s: none\n", name);
        return;
    }
    printf("      %s: resource=%" PRIu32 " format=%" PRIu32 " level=%" PRIu32 " layers=%" PRIu32 "-%" PRIu32 " %" PRIu32
           "x%" PRIu32 "\n",
           name, s->resource_id, s->format, s->level, s->first_layer, s->last_layer, s->width, s->height);
}

static void print_quad_flags(uint32_t f)
{
    static const char *names[] = {"HAS_Z", "SHADED", "SHADE_OUT", "DEPTH_OUT", "BLENDED", "FACING_BACK"};
    int first = 1;
    for (int i = 0; i < 6; i++)
        if (f & (1u << i)) {
            printf("%s%s", first ? "" : "|", names[i]);
            first = 0;
        }
    if (first) printf("0");
}

static const char *tile_kind_name(uint32_t k)
{
    switch (k) {
        case TBR_REC_TILE_LOAD: return "LOAD";
        case TBR_REC_TILE_LOAD_CLEAR: return "LOAD_CLEAR";
        case TBR_REC_TILE_STORE: return "STORE";
        case TBR_REC_TILE_STORE_CLEAR: return "STORE_CLEAR";
        case TBR_REC_TILE_CLEAR_ALL: return "CLEAR_ALL";
        default: return "?";
    }
}

static void print_textures(const tbr_rec_texture *tex, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < TBR_REC_MAX_TEXTURES; i++) {
        const tbr_rec_texture *t = &tex[i];
        printf("      texture unit %" PRIu32 ": resource=%" PRIu32 " format=%" PRIu32 " levels=%" PRIu32 "-%" PRIu32
               " wrap=%" PRIu32 ",%" PRIu32 ",%" PRIu32 " filter min=%" PRIu32 " mip=%" PRIu32 " mag=%" PRIu32
               " aniso=%" PRIu32 "\n",
               t->unit, t->resource_id, t->view_format, t->first_level, t->last_level, t->wrap_s, t->wrap_t, t->wrap_r,
               t->min_img_filter, t->min_mip_filter, t->mag_img_filter, t->max_anisotropy);
    }
}

static void print_draw(const tbr_rec_draw *d, int verbose)
{
    printf(" seq=%" PRIu32 " mode=%" PRIu32 " start=%" PRIu32 " count=%" PRIu32 " instances=%" PRIu32
           " index_size=%" PRIu32 " vs=%" PRIu32 " fs=%" PRIu32 " internal=%" PRIu32 " early_z=%" PRIu32
           " depth=%" PRIu32 "/%" PRIu32 " func=%" PRIu32 " blend0=%" PRIu32 " cbufs=%" PRIu32 " textures=%" PRIu32
           "%s%s\n",
           d->seq, d->mode, d->start, d->count, d->instance_count, d->index_size, d->vs_id, d->fs_id, d->internal,
           d->early_z, d->depth_enabled, d->depth_writemask, d->depth_func, d->rt[0].blend_enable, d->nr_cbufs,
           d->num_textures, d->unsupported[0] ? " unsupported=" : "", d->unsupported);
    if (!verbose) return;
#define PX_(name) printf("      %s=%" PRIu32 "\n", #name, d->name);
#define PF_(name) printf("      %s=%.9g\n", #name, (double)d->name);
    TBR_REC_DRAW_FIELDS(PX_, PF_)
#undef PX_
#undef PF_
    printf("      index_bias=%" PRId32 "\n", d->index_bias);
    for (int i = 0; i < 2; i++) {
        const tbr_rec_stencil *s = &d->stencil[i];
        printf("      stencil[%d]: enabled=%" PRIu32 " func=%" PRIu32 " fail=%" PRIu32 " zpass=%" PRIu32
               " zfail=%" PRIu32 " valuemask=0x%" PRIx32 " writemask=0x%" PRIx32 " ref=%" PRIu32 "\n",
               i, s->enabled, s->func, s->fail_op, s->zpass_op, s->zfail_op, s->valuemask, s->writemask, s->ref);
    }
    for (uint32_t i = 0; i < d->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const tbr_rec_rt_blend *b = &d->rt[i];
        printf("      rt[%" PRIu32 "]: format=%" PRIu32 " blend=%" PRIu32 " rgb=%" PRIu32 "(%" PRIu32 ",%" PRIu32
               ") alpha=%" PRIu32 "(%" PRIu32 ",%" PRIu32 ") colormask=0x%" PRIx32 "\n",
               i, d->cbuf_format[i], b->blend_enable, b->rgb_func, b->rgb_src, b->rgb_dst, b->alpha_func, b->alpha_src,
               b->alpha_dst, b->colormask);
    }
    printf("      blend_color=(%g,%g,%g,%g)\n", (double)d->blend_color[0], (double)d->blend_color[1],
           (double)d->blend_color[2], (double)d->blend_color[3]);
    printf("      viewport scale=(%g,%g,%g) translate=(%g,%g,%g)\n", (double)d->viewport_scale[0],
           (double)d->viewport_scale[1], (double)d->viewport_scale[2], (double)d->viewport_translate[0],
           (double)d->viewport_translate[1], (double)d->viewport_translate[2]);
    printf("      scissor=(%" PRIu32 ",%" PRIu32 ")-(%" PRIu32 ",%" PRIu32 ")\n", d->scissor[0], d->scissor[1],
           d->scissor[2], d->scissor[3]);
    print_textures(d->textures, d->num_textures);
    for (int i = 0; i < (int)TBR_REC_MAX_CONSTBUFS; i++) {
        if (d->vs_const[i].size) printf("      vs_const[%d]: %" PRIu32 " bytes\n", i, d->vs_const[i].size);
        if (d->fs_const[i].size) printf("      fs_const[%d]: %" PRIu32 " bytes\n", i, d->fs_const[i].size);
    }
}

/* decode buffer for TEXELS fetches (TBR_REC_MAX_TEXELS_PER_FETCH entries) */
static tbr_rec_texel *texbuf;

/* Prints one known record (after its "[k] NAME" prefix). Returns 0, or -1 if
 * the payload does not decode. */
static int print_record(uint16_t type, const uint8_t *p, size_t len, int verbose)
{
    switch (type) {
        case TBR_REC_FRAME_END: {
            tbr_rec_frame_end r;
            if (tbr_rec_frame_end_decode(p, len, &r)) return -1;
            printf(" frame=%" PRIu64 " %" PRIu32 "x%" PRIu32 " draws=%" PRIu64 " prims=%" PRIu64 " clears=%" PRIu64
                   " quads=%" PRIu64 " shaded_quads=%" PRIu64 " shaded_fragments=%" PRIu64 " png=%s\n",
                   r.frame, r.width, r.height, r.draws, r.prims, r.clears, r.quads, r.shaded_quads, r.shaded_fragments,
                   r.png[0] ? r.png : "-");
            return 0;
        }
        case TBR_REC_RESOURCE: {
            tbr_rec_resource r;
            if (tbr_rec_resource_decode(p, len, &r)) return -1;
            printf(" id=%" PRIu32 " target=%" PRIu32 " %s (%" PRIu32 ") %" PRIu32 "x%" PRIu32 "x%" PRIu32
                   " array=%" PRIu32 " levels=0-%" PRIu32 " samples=%" PRIu32 " bind=0x%" PRIx32 " block_bytes=%" PRIu32
                   " display=%" PRIu32 "\n",
                   r.id, r.target, r.format_name, r.format, r.width, r.height, r.depth, r.array_size, r.last_level,
                   r.nr_samples, r.bind, r.block_bytes, r.is_display_target);
            return 0;
        }
        case TBR_REC_UPLOAD: {
            tbr_rec_upload r;
            if (tbr_rec_upload_decode(p, len, &r)) return -1;
            printf(" resource=%" PRIu32 " level=%" PRIu32 " box=(%" PRId32 ",%" PRId32 ",%" PRId32 " %" PRId32
                   "x%" PRId32 "x%" PRId32 ") bytes=%" PRIu64 "\n",
                   r.resource_id, r.level, r.box[0], r.box[1], r.box[2], r.box[3], r.box[4], r.box[5], r.bytes);
            if (r.flags & TBR_REC_UPLOAD_CLEAR_WRITE)
                printf("      (the preceding CLEAR's memory write, not an application upload)\n");
            return 0;
        }
        case TBR_REC_SHADER_CREATE:
        case TBR_REC_SHADER: {
            tbr_rec_shader r;
            int rc =
                type == TBR_REC_SHADER ? tbr_rec_shader_decode(p, len, &r) : tbr_rec_shader_create_decode(p, len, &r);
            if (rc) return -1;
            printf(" id=%" PRIu32 " stage=%s internal=%" PRIu32 " tokens=%" PRIu32 " instructions=%" PRIu32
                   " text_len=%" PRIu32,
                   r.id,
                   r.stage == TBR_REC_STAGE_VS   ? "VS"
                   : r.stage == TBR_REC_STAGE_FS ? "FS"
                                                 : "?",
                   r.internal, r.num_tokens, r.num_instructions, r.text_len);
            if (type == TBR_REC_SHADER) {
                printf(" parent=%" PRIu32 "\n", r.parent_id);
                if (r.text) print_text_block(r.text, r.text_len, "      | ");
            } else {
                printf("\n");
            }
            return 0;
        }
        case TBR_REC_RENDER_PASS: {
            tbr_rec_render_pass r;
            if (tbr_rec_render_pass_decode(p, len, &r)) return -1;
            printf(" seq=%" PRIu32 " %" PRIu32 "x%" PRIu32 " layers=%" PRIu32 " samples=%" PRIu32 " default=%" PRIu32
                   " cbufs=%" PRIu32 "\n",
                   r.seq, r.width, r.height, r.layers, r.samples, r.is_default, r.nr_cbufs);
            for (uint32_t i = 0; i < r.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
                char nm[16];
                snprintf(nm, sizeof nm, "cbuf[%" PRIu32 "]", i);
                print_surface(nm, &r.cbufs[i]);
            }
            print_surface("zsbuf", &r.zsbuf);
            return 0;
        }
        case TBR_REC_CLEAR: {
            tbr_rec_clear r;
            if (tbr_rec_clear_decode(p, len, &r)) return -1;
            printf(" buffers=0x%" PRIx32 " color=(%g,%g,%g,%g) depth=%g stencil=%" PRIu32 " zs_partial=%" PRIu32
                   " scissor=%" PRIu32 "\n",
                   r.buffers, (double)r.color_f[0], (double)r.color_f[1], (double)r.color_f[2], (double)r.color_f[3],
                   r.depth, r.stencil, r.zs_partial, r.has_scissor);
            return 0;
        }
        case TBR_REC_DRAW: {
            tbr_rec_draw *d = malloc(sizeof *d);
            if (!d) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(EXIT_BAD);
            }
            int rc = tbr_rec_draw_decode(p, len, d);
            if (rc == 0) print_draw(d, verbose);
            free(d);
            return rc ? -1 : 0;
        }
        case TBR_REC_DRAW_END: {
            tbr_rec_draw_end r;
            if (tbr_rec_draw_end_decode(p, len, &r)) return -1;
            printf(" seq=%" PRIu32 " prims=%" PRIu64 " quads=%" PRIu64 " shaded_quads=%" PRIu64
                   " shaded_fragments=%" PRIu64 " blended_fragments=%" PRIu64 "\n",
                   r.seq, r.prims, r.quads, r.shaded_quads, r.shaded_fragments, r.blended_fragments);
            return 0;
        }
        case TBR_REC_PRIM: {
            tbr_rec_prim r;
            if (tbr_rec_prim_decode(p, len, &r)) return -1;
            printf(" draw=%" PRIu32 " index=%" PRIu32 " kind=%s%s det=%g attrs=%" PRIu32, r.draw_seq, r.index,
                   r.kind == 1   ? "point"
                   : r.kind == 2 ? "line"
                   : r.kind == 3 ? "triangle"
                                 : "?",
                   (r.flags & TBR_REC_PRIM_CULLED) ? " CULLED" : "", (double)r.det, r.nr_attrs);
            for (uint32_t v = 0; v < r.kind && v < 3; v++)
                printf(" (%g,%g,%g)", (double)r.v[v][0][0], (double)r.v[v][0][1], (double)r.v[v][0][2]);
            printf("\n");
            if (verbose)
                for (uint32_t v = 0; v < r.kind && v < 3; v++)
                    for (uint32_t a = 0; a < r.nr_attrs && a < TBR_REC_MAX_ATTRIBS; a++)
                        printf("      v%" PRIu32 ".attr%" PRIu32 " = (%g, %g, %g, %g)\n", v, a, (double)r.v[v][a][0],
                               (double)r.v[v][a][1], (double)r.v[v][a][2], (double)r.v[v][a][3]);
            return 0;
        }
        case TBR_REC_QUADS: {
            tbr_cursor c;
            tbr_rec_quads_header h;
            if (tbr_rec_quads_open(&c, p, len, &h)) return -1;
            printf(" draw=%" PRIu32 " cbufs=%" PRIu32 " count=%" PRIu32, h.draw_seq, h.nr_cbufs, h.count);
            if (h.packed_mask) printf(" packed=%#" PRIx32, h.packed_mask);
            if (h.computed) printf(" colors=computed");
            if (h.texels_derived) printf(" texels=derived");
            printf("\n");
            tbr_rec_quad q;
            for (uint32_t i = 0; i < h.count; i++) {
                if (tbr_rec_quads_next(&c, &h, &q)) return -1;
                printf("      (%" PRId32 ",%" PRId32 ") prim=%" PRIu32 " flags=", q.x, q.y, q.prim);
                print_quad_flags(q.flags);
                if (q.flags & TBR_REC_QUAD_SHADED) printf(" path=%" PRIu32, q.path);
                printf(" in=%" PRIx32 " depth=%" PRIx32 " shade=%" PRIx32 " blend=%" PRIx32, q.in_mask, q.depth_mask,
                       q.shade_mask, q.blend_mask);
                if (q.flags & TBR_REC_QUAD_HAS_Z)
                    printf(" z=%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32, q.z[0], q.z[1], q.z[2], q.z[3]);
                printf("\n");
                if (verbose && (q.flags & TBR_REC_QUAD_BLENDED))
                    for (uint32_t cb = 0; cb < h.nr_cbufs; cb++)
                        for (int j = 0; j < 4; j++) {
                            if (!(q.blend_mask & (1u << j))) continue;
                            if (h.computed && ((h.packed_mask & (1u << cb)) || !q.exact_mask[cb]))
                                continue; /* no values: functional/reference recomputes them */
                            if (h.packed_mask & (1u << cb)) {
                                printf("        cbuf%" PRIu32 " frag%d pixel=0x%08" PRIx32 "\n", cb, j,
                                       q.packed[cb][j]);
                                continue;
                            }
                            if (h.computed)
                                printf("        cbuf%" PRIu32 " frag%d rgba=computed", cb, j);
                            else
                                printf("        cbuf%" PRIu32 " frag%d rgba=(%g,%g,%g,%g)", cb, j,
                                       (double)q.color[cb][0][j], (double)q.color[cb][1][j], (double)q.color[cb][2][j],
                                       (double)q.color[cb][3][j]);
                            const uint32_t em = (q.exact_mask[cb] >> (4 * j)) & 0xfu;
                            if (em) {
                                printf(" exact_dst=(");
                                for (int ch = 0; ch < 4; ch++) {
                                    if (em & (1u << ch))
                                        printf("%s%g", ch ? "," : "", (double)q.exact[cb][ch][j]);
                                    else
                                        printf("%s-", ch ? "," : "");
                                }
                                printf(")");
                            }
                            printf("\n");
                        }
            }
            return tbr_rec_quads_close(&c) ? -1 : 0;
        }
        case TBR_REC_TILE: {
            tbr_rec_tile r;
            if (tbr_rec_tile_decode(p, len, &r)) return -1;
            printf(" %s %s cbuf=%" PRIu32 " resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " tile=(%" PRIu32
                   ",%" PRIu32 ") size=%" PRIu32 "\n",
                   tile_kind_name(r.kind), r.is_zs ? "zs" : "color", r.cbuf, r.resource_id, r.level, r.layer, r.tile_x,
                   r.tile_y, r.tile_size);
            return 0;
        }
        case TBR_REC_FLUSH: {
            tbr_rec_flush r;
            if (tbr_rec_flush_decode(p, len, &r)) return -1;
            printf(" flags=0x%" PRIx32 "\n", r.flags);
            return 0;
        }
        case TBR_REC_UNSUPPORTED: {
            tbr_rec_unsupported r;
            if (tbr_rec_unsupported_decode(p, len, &r)) return -1;
            printf(" name=%s\n", r.name);
            return 0;
        }
        case TBR_REC_PATH: {
            tbr_rec_path r;
            if (tbr_rec_path_decode(p, len, &r)) return -1;
            printf(" id=%" PRIu32 " shader=%" PRIu32 " stage=%s truncated=%" PRIu32 " n=%" PRIu32 "\n", r.id,
                   r.shader_id,
                   r.stage == TBR_REC_STAGE_VS   ? "VS"
                   : r.stage == TBR_REC_STAGE_FS ? "FS"
                                                 : "?",
                   r.truncated, r.n);
            if (verbose) {
                for (uint32_t i = 0; i < r.n; i++)
                    printf("      pc=%u mask=%x\n", (unsigned)tbr_rec_path_pc(&r, i),
                           (unsigned)tbr_rec_path_mask(&r, i));
            } else if (r.n) {
                /* compact: pc:mask, up to 32 entries */
                printf("      pc:mask");
                for (uint32_t i = 0; i < r.n && i < 32; i++)
                    printf(" %u:%x", (unsigned)tbr_rec_path_pc(&r, i), (unsigned)tbr_rec_path_mask(&r, i));
                if (r.n > 32) printf(" ... (%" PRIu32 " more; -v shows all)", r.n - 32);
                printf("\n");
            }
            return 0;
        }
        case TBR_REC_VS_TEXTURES: {
            tbr_rec_vs_textures r;
            if (tbr_rec_vs_textures_decode(p, len, &r)) return -1;
            printf(" draw=%" PRIu32 " textures=%" PRIu32 "\n", r.draw_seq, r.num_textures);
            print_textures(r.textures, r.num_textures);
            return 0;
        }
        case TBR_REC_TEXELS:
        case TBR_REC_VS_TEXELS: {
            /* same payload; VS_TEXELS: "quad" is the group of the preceding VERTICES record */
            const char *unit_name = type == TBR_REC_VS_TEXELS ? "group" : "quad";
            tbr_cursor c;
            tbr_rec_texels_header h;
            tbr_rec_texfetch f;
            if (tbr_rec_texels_open(&c, p, len, &h)) return -1;
            printf(" draw=%" PRIu32 " fetches=%" PRIu32 "\n", h.draw_seq, h.count);
            for (uint32_t i = 0; i < h.count; i++) {
                if (tbr_rec_texels_next(&c, &h, &f, texbuf, TBR_REC_MAX_TEXELS_PER_FETCH)) return -1;
                uint32_t per_lane[4] = {0, 0, 0, 0}, lo = UINT32_MAX, hi = 0;
                for (uint32_t k = 0; k < f.n_texels; k++) {
                    per_lane[texbuf[k].lane & 3]++;
                    if (texbuf[k].level < lo) lo = texbuf[k].level;
                    if (texbuf[k].level > hi) hi = texbuf[k].level;
                }
                printf("      %s=%" PRIu32 " pc=%" PRIu32 " unit=%" PRIu32 " resource=%" PRIu32 " texels=%" PRIu32
                       " per_lane=%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32,
                       unit_name, f.quad, f.pc, f.unit, f.resource_id, f.n_texels, per_lane[0], per_lane[1],
                       per_lane[2], per_lane[3]);
                if (f.n_texels) printf(lo == hi ? " level=%" PRIu32 : " levels=%" PRIu32, lo);
                if (f.n_texels && lo != hi) printf("-%" PRIu32, hi);
                printf("\n");
                if (!verbose) continue;
                /* per lane: texels in read order, "L<level>/<layer>:" when they change */
                for (uint32_t lane = 0; lane < 4; lane++) {
                    if (!per_lane[lane]) continue;
                    printf("        lane %" PRIu32 ":", lane);
                    uint32_t cl = UINT32_MAX, cz = UINT32_MAX;
                    for (uint32_t k = 0; k < f.n_texels; k++) {
                        const tbr_rec_texel *t = &texbuf[k];
                        if (t->lane != lane) continue;
                        if (t->level != cl || t->layer != cz) {
                            printf(" L%" PRIu32 "/%" PRIu32 ":", t->level, t->layer);
                            cl = t->level;
                            cz = t->layer;
                        }
                        printf(" (%" PRId32 ",%" PRId32 ")", t->x, t->y);
                    }
                    printf("\n");
                }
            }
            return tbr_rec_texels_close(&c) ? -1 : 0;
        }
        case TBR_REC_VERTICES: {
            tbr_cursor c;
            static tbr_rec_vertices_header h;
            tbr_rec_vertex_group g;
            if (tbr_rec_vertices_open(&c, p, len, &h)) return -1;
            printf(" draw=%" PRIu32 " vs=%" PRIu32 " instance=%" PRIu32 " start_instance=%" PRIu32 " outputs=%" PRIu32,
                   h.draw_seq, h.vs_id, h.instance_id, h.start_instance, h.num_outputs);
            if (h.position_slot == UINT32_MAX)
                printf(" position=none");
            else
                printf(" position=OUT[%" PRIu32 "]", h.position_slot);
            const int hashes = (h.flags & TBR_REC_VERTICES_HASHES) != 0;
            printf(" streams=%" PRIu32 " fetched=%" PRIu32 " groups=%" PRIu32 " hashes=%s\n", h.nr_streams, h.fetched,
                   h.count, hashes ? "yes" : "no");
            for (uint32_t i = 0; i < h.nr_streams && i < TBR_REC_MAX_STREAMS; i++) {
                const tbr_rec_vertex_stream *st = &h.streams[i];
                printf("      stream[%" PRIu32 "] resource=%" PRIu32 "%s buffer=%" PRIu32 " offset=%" PRIu32
                       " stride=%" PRIu32 " size=%" PRIu32 " format=%" PRIu32 " divisor=%" PRIu32 "\n",
                       i, st->resource_id, st->resource_id ? "" : "(user memory)", st->buffer_index, st->offset,
                       st->stride, st->size, st->format, st->instance_divisor);
            }
            for (uint32_t i = 0; i < h.count; i++) {
                if (tbr_rec_vertices_next(&c, &h, &g)) return -1;
                printf("      group path=%" PRIu32 " n=%" PRIu32 " index=", g.path, g.n);
                for (uint32_t j = 0; j < g.n && j < 4; j++) printf("%s%" PRIu32, j ? "," : "", g.index[j]);
                printf("\n");
                if (verbose)
                    for (uint32_t j = 0; j < g.n && j < 4; j++) {
                        printf("        index %" PRIu32 " pos=(%g,%g,%g,%g)", g.index[j], (double)g.pos[j][0],
                               (double)g.pos[j][1], (double)g.pos[j][2], (double)g.pos[j][3]);
                        if (hashes) printf(" out_hash=%08" PRIx32, g.out_hash[j]);
                        printf("\n");
                    }
            }
            return tbr_rec_vertices_close(&c) ? -1 : 0;
        }
        case TBR_REC_SURFACE_CHECK: {
            tbr_rec_surface_check r;
            if (tbr_rec_surface_check_decode(p, len, &r)) return -1;
            printf(" resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " %" PRIu32 "x%" PRIu32
                   " block_bytes=%" PRIu32 " crc32=0x%08" PRIx32 "\n",
                   r.resource_id, r.level, r.layer, r.width, r.height, r.block_bytes, r.crc);
            return 0;
        }
        case TBR_REC_SURFACE_INIT: {
            tbr_rec_surface_init r;
            if (tbr_rec_surface_init_decode(p, len, &r)) return -1;
            size_t n = (size_t)r.rows * r.width * r.block_bytes;
            uint32_t h = 2166136261u; /* FNV-1a 32 of the band's bytes: compare contents across runs */
            size_t distinct_from_first = 0;
            for (size_t i = 0; i < n; i++) {
                h = (h ^ r.data[i]) * 16777619u;
                distinct_from_first += r.data[i] != r.data[i % r.block_bytes];
            }
            printf(" %s resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " format=%" PRIu32 " size=%" PRIu32
                   "x%" PRIu32 " block_bytes=%" PRIu32 " rows=%" PRIu32 "..%" PRIu32 " bytes=%zu fnv=%08" PRIx32 "%s\n",
                   r.is_zs ? "zs" : "color", r.resource_id, r.level, r.layer, r.format, r.width, r.height,
                   r.block_bytes, r.y0, r.y0 + r.rows - 1, n, h, distinct_from_first ? "" : " uniform");
            return 0;
        }
        default: return 1; /* not known to this tool */
    }
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

/* Adds the fetches and texels of a TEXELS or VS_TEXELS payload (same coding). */
static int count_texels(const uint8_t *p, size_t len, uint64_t *fetches, uint64_t *texels)
{
    tbr_cursor c;
    tbr_rec_texels_header h;
    tbr_rec_texfetch f;
    if (tbr_rec_texels_open(&c, p, len, &h)) return -1;
    for (uint32_t i = 0; i < h.count; i++) {
        if (tbr_rec_texels_next(&c, &h, &f, texbuf, TBR_REC_MAX_TEXELS_PER_FETCH)) return -1;
        (*fetches)++;
        *texels += f.n_texels;
    }
    return tbr_rec_texels_close(&c) ? -1 : 0;
}

static int summarize_record(struct summary *s, uint16_t type, const uint8_t *p, size_t len)
{
    s->records++;
    switch (type) {
        case TBR_REC_FRAME_END:
            if (tbr_rec_frame_end_decode(p, len, &s->end)) return -1;
            s->have_end = 1;
            return 0;
        case TBR_REC_RENDER_PASS: s->passes++; return 0;
        case TBR_REC_CLEAR: s->clears++; return 0;
        case TBR_REC_TILE: s->tiles++; return 0;
        case TBR_REC_FLUSH: s->flushes++; return 0;
        case TBR_REC_PATH: {
            tbr_rec_path r;
            if (tbr_rec_path_decode(p, len, &r)) return -1;
            s->paths++;
            s->vs_paths += r.stage == TBR_REC_STAGE_VS;
            return 0;
        }
        case TBR_REC_TEXELS: s->texel_recs++; return count_texels(p, len, &s->tex_fetches, &s->texels);
        case TBR_REC_VS_TEXELS: s->vs_texel_recs++; return count_texels(p, len, &s->vs_tex_fetches, &s->vs_texels);
        case TBR_REC_VERTICES: {
            tbr_cursor c;
            static tbr_rec_vertices_header h;
            tbr_rec_vertex_group g;
            if (tbr_rec_vertices_open(&c, p, len, &h)) return -1;
            s->vertex_recs++;
            for (uint32_t i = 0; i < h.count; i++) {
                if (tbr_rec_vertices_next(&c, &h, &g)) return -1;
                s->vertex_groups++;
                s->vertices += g.n;
            }
            return tbr_rec_vertices_close(&c) ? -1 : 0;
        }
        case TBR_REC_UNSUPPORTED: s->unsupported++; return 0;
        case TBR_REC_SHADER: s->shaders++; return 0;
        case TBR_REC_UPLOAD: s->uploads++; return 0;
        case TBR_REC_DRAW: {
            tbr_rec_draw *d = malloc(sizeof *d);
            if (!d) return -1;
            int rc = tbr_rec_draw_decode(p, len, d);
            if (rc == 0) {
                s->draws++;
                s->internal_draws += d->internal ? 1 : 0;
                rc = set_early_z(s, d->seq, d->early_z != 0);
            }
            free(d);
            return rc;
        }
        case TBR_REC_PRIM: {
            tbr_rec_prim r;
            if (tbr_rec_prim_decode(p, len, &r)) return -1;
            s->prims++;
            s->culled += (r.flags & TBR_REC_PRIM_CULLED) ? 1 : 0;
            return 0;
        }
        case TBR_REC_QUADS: {
            tbr_cursor c;
            tbr_rec_quads_header h;
            tbr_rec_quad q;
            if (tbr_rec_quads_open(&c, p, len, &h)) return -1;
            int ez = h.draw_seq < s->early_z_cap ? s->early_z[h.draw_seq] : 0;
            for (uint32_t i = 0; i < h.count; i++) {
                if (tbr_rec_quads_next(&c, &h, &q)) return -1;
                s->quads++;
                if (q.flags & TBR_REC_QUAD_SHADED) {
                    s->shaded_quads++;
                    s->texel_derived_quads += h.texels_derived;
                    s->shaded_fragments += popcount4(ez ? q.depth_mask : q.in_mask);
                }
                if (q.flags & TBR_REC_QUAD_BLENDED) s->blended_fragments += popcount4(q.blend_mask);
            }
            return tbr_rec_quads_close(&c) ? -1 : 0;
        }
        case TBR_REC_SURFACE_INIT: {
            tbr_rec_surface_init r;
            if (tbr_rec_surface_init_decode(p, len, &r)) return -1;
            s->surface_init_recs++;
            s->surface_init_bytes += (uint64_t)r.rows * r.width * r.block_bytes;
            return 0;
        }
        default:
            if (!tbr_rec_type_name(type)) s->unknown++;
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

/* ---- draw filter ---------------------------------------------------------- */

/* Returns the draw sequence number a record carries (1) or 0 if it carries
 * none; -1 if it does not decode. */
static int record_draw_seq(uint16_t type, const uint8_t *p, size_t len, uint32_t *seq)
{
    switch (type) {
        case TBR_REC_DRAW: {
            tbr_cursor c;
            tbr_cursor_init(&c, p, len);
            *seq = tbr_cursor_uvarint32(&c); /* seq is the first DRAW field */
            return tbr_cursor_ok(&c) ? 1 : -1;
        }
        case TBR_REC_DRAW_END: {
            tbr_rec_draw_end r;
            if (tbr_rec_draw_end_decode(p, len, &r)) return -1;
            *seq = r.seq;
            return 1;
        }
        case TBR_REC_PRIM: {
            tbr_cursor c;
            tbr_cursor_init(&c, p, len);
            *seq = tbr_cursor_uvarint32(&c); /* draw_seq is the first PRIM field */
            return tbr_cursor_ok(&c) ? 1 : -1;
        }
        case TBR_REC_QUADS: {
            tbr_cursor c;
            tbr_rec_quads_header h;
            if (tbr_rec_quads_open(&c, p, len, &h)) return -1;
            *seq = h.draw_seq;
            return 1;
        }
        case TBR_REC_TEXELS:
        case TBR_REC_VERTICES:
        case TBR_REC_VS_TEXELS:
        case TBR_REC_VS_TEXTURES: {
            tbr_cursor c;
            tbr_cursor_init(&c, p, len);
            *seq = tbr_cursor_uvarint32(&c); /* draw_seq is the first field */
            return tbr_cursor_ok(&c) ? 1 : -1;
        }
        default: return 0;
    }
}

int main(int argc, char **argv)
{
    static struct options o;
    static const struct option longopts[] = {
        {"frame", required_argument, NULL, 'f'}, {"draw", required_argument, NULL, 'd'},
        {"type", required_argument, NULL, 't'},  {"limit", required_argument, NULL, 'n'},
        {"summary", no_argument, NULL, 's'},     {"no-records", no_argument, NULL, 'R'},
        {"verbose", no_argument, NULL, 'v'},     {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},     {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":f:d:t:n:sRvhV", longopts, NULL)) != -1) {
        uint64_t v;
        switch (ch) {
            case 'f':
                tbr_tool_parse_frames(prog, optarg, &o.frame_lo, &o.frame_hi);
                o.have_frames = 1;
                break;
            case 'd':
                if (tbr_tool_parse_u64(optarg, &v) || v > UINT32_MAX)
                    bad_usage("bad --draw value '%s' (expected a draw sequence number)", optarg);
                o.have_draw = 1;
                o.draw = (uint32_t)v;
                break;
            case 't': parse_types(&o, optarg); break;
            case 'n':
                if (tbr_tool_parse_u64(optarg, &v)) bad_usage("bad --limit value '%s'", optarg);
                o.have_limit = 1;
                o.limit = v;
                break;
            case 's': o.summary = 1; break;
            case 'R': o.no_records = 1; break;
            case 'v': o.verbose = 1; break;
            case 'h': usage(stdout); return EXIT_OK;
            case 'V': printf("%s %s\n", prog, TBR_VERSION); return EXIT_OK;
            default: tbr_tool_bad_option(prog, argv, ch);
        }
    }
    const char *path = tbr_tool_trace_operand(prog, argc, argv);

    texbuf = malloc(TBR_REC_MAX_TEXELS_PER_FETCH * sizeof *texbuf);
    if (!texbuf) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_BAD;
    }
    tbr_trace_reader *r = tbr_tool_open_trace(prog, path);
    if (!r) {
        free(texbuf);
        return EXIT_BAD;
    }
    tbr_trace_file_info info;
    tbr_trace_reader_file_info(r, &info);
    printf("trace %s\n", path);
    printf("  container version %u.%u, %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu64 " records\n",
           (unsigned)info.version_major, (unsigned)info.version_minor, info.file_size, info.frame_count,
           info.record_count);
    size_t mlen;
    const char *meta = tbr_trace_reader_metadata(r, &mlen);
    printf("metadata (%zu bytes)\n", mlen);
    print_text_block(meta, mlen, "  ");

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
                if (decode && summarize_record(&sum, type, p, len) < 0) {
                    tbr_tool_fail_malformed(r, type, len);
                    rc = -1;
                    break;
                }
                if (!decode) sum.records++;
                continue;
            }
            if (o.have_draw) {
                uint32_t seq = 0;
                int has = decode ? record_draw_seq(type, p, len, &seq) : 0;
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
            int pr = print_record(type, p, len, o.verbose);
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
    free(texbuf);
    if (tbr_tool_flush_stdout(prog) < 0) return EXIT_BAD;
    return status;
}
