/* functional.depth_plane: derived QUADS depths (records minor 12, docs/trace-records.md
 * QUADS "Derived depths").
 * - the depth plane of a triangle gives the depths softpipe computes: known values for a
 *   flat triangle in each depth format, the clamp of depth_clip_near = 0, a sloped
 *   triangle against the plane in double precision (within a unit), and no plane where
 *   softpipe's depths do not come from it (shader-written depth, lines, zero area, the
 *   Z16 fast path);
 * - a round trip of derived and stored depths: the quads whose depths the plane gives go
 *   into a DEPTHS_DERIVED record, which carries no depth bytes and decodes to 0 depths
 *   that the plane restores; quads the derivation gets wrong go into a stored record and
 *   read back exactly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/check.h"
#include "depth_plane.h"

enum { PIPE_Z16 = 140, PIPE_Z32F = 143, PIPE_Z24X8 = 146 }; /* Mesa 22.3.6 pipe_format values */

static tbr_rec_draw draw_with(uint32_t zs_format)
{
    tbr_rec_draw d;
    memset(&d, 0, sizeof d);
    d.zs_format = zs_format;
    d.depth_clip_near = 1;
    d.half_pixel_center = 1;
    d.viewport_scale[2] = 0.5f;
    d.viewport_translate[2] = 0.5f;
    return d;
}

/* A PRIM triangle's vertices (attribute 0 only) */
static void tri(float v[3][4], float x0, float y0, float z0, float x1, float y1, float z1, float x2, float y2, float z2)
{
    const float in[3][4] = {{x0, y0, z0, 1}, {x1, y1, z1, 1}, {x2, y2, z2, 1}};
    memcpy(v, in, sizeof in);
}

static int plane_of(const tbr_rec_draw *d, uint32_t kind, float v[3][4], tbr_depth_draw *dd, tbr_depth_plane *p)
{
    const float(*const vv[3])[4] = {(const float(*)[4]) & v[0], (const float(*)[4]) & v[1], (const float(*)[4]) & v[2]};
    tbr_depth_draw_init(dd, d);
    tbr_depth_plane_init(p, dd, kind, vv);
    return p->valid;
}

static void check_known_values(void)
{
    float v[3][4];
    tri(v, 0, 0, 0.5f, 64, 0, 0.5f, 0, 64, 0.5f);
    tbr_depth_draw dd;
    tbr_depth_plane p;
    uint32_t z[4];
    tbr_rec_draw d = draw_with(PIPE_Z24X8);
    CHECK(plane_of(&d, 3, v, &dd, &p) && tbr_depth_plane_quad(&p, &dd, 10, 20, z) == 0);
    CHECK(z[0] == 8388607 && z[3] == 8388607); /* (unsigned)(0.5f * 16777215.0f) */
    d = draw_with(PIPE_Z16);
    CHECK(plane_of(&d, 3, v, &dd, &p) && tbr_depth_plane_quad(&p, &dd, 10, 20, z) == 0 && z[1] == 32767);
    d.depth_enabled = d.depth_writemask = 1; /* the Z16 fast path: depths stepped per batch */
    d.depth_func = 1;
    CHECK(!plane_of(&d, 3, v, &dd, &p));
    d.stencil[0].enabled = 1; /* general path again */
    CHECK(plane_of(&d, 3, v, &dd, &p));
    d = draw_with(PIPE_Z32F);
    const float half = 0.5f;
    uint32_t bits;
    memcpy(&bits, &half, 4);
    CHECK(plane_of(&d, 3, v, &dd, &p) && tbr_depth_plane_quad(&p, &dd, 10, 20, z) == 0 && z[2] == bits);
    /* depth clamp: depth_clip_near = 0 clamps to the viewport's [near, far] = [0, 1] */
    tri(v, 0, 0, 1.5f, 64, 0, 1.5f, 0, 64, 1.5f);
    d = draw_with(PIPE_Z24X8);
    d.depth_clip_near = 0;
    CHECK(plane_of(&d, 3, v, &dd, &p) && tbr_depth_plane_quad(&p, &dd, 10, 20, z) == 0 && z[0] == 16777215);
    /* a sloped triangle: within a unit of the plane evaluated in double at pixel centres */
    tri(v, 3.25f, 1.5f, 0.125f, 120.5f, 17.75f, 0.875f, 40.0f, 99.0f, 0.4f);
    d = draw_with(PIPE_Z24X8);
    CHECK(plane_of(&d, 3, v, &dd, &p));
    const double ax = v[1][0] - v[0][0], ay = v[1][1] - v[0][1], az = v[1][2] - v[0][2];
    const double bx = v[2][0] - v[0][0], by = v[2][1] - v[0][1], bz = v[2][2] - v[0][2];
    const double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    for (int32_t y = 20; y < 60; y += 6)
        for (int32_t x = 20; x < 60; x += 8) {
            CHECK(tbr_depth_plane_quad(&p, &dd, x, y, z) == 0);
            for (int j = 0; j < 4; j++) {
                const double px = x + (j & 1) + 0.5, py = y + (j >> 1) + 0.5;
                const double zd = v[0][2] - (nx * (px - v[0][0]) + ny * (py - v[0][1])) / nz;
                CHECK(fabs(zd * 16777215.0 - z[j]) < 2.0);
            }
        }
    /* no plane: shader-written depth, a line, a zero-area triangle */
    d.fs_writes_z = 1;
    CHECK(!plane_of(&d, 3, v, &dd, &p) && tbr_depth_plane_quad(&p, &dd, 0, 0, z) != 0);
    d.fs_writes_z = 0;
    CHECK(!plane_of(&d, 2, v, &dd, &p));
    tri(v, 0, 0, 0.5f, 10, 10, 0.5f, 20, 20, 0.5f);
    CHECK(!plane_of(&d, 3, v, &dd, &p));
}

static void check_round_trip(void)
{
    float v[3][4];
    tri(v, 3.25f, 1.5f, 0.125f, 120.5f, 17.75f, 0.875f, 40.0f, 99.0f, 0.4f);
    tbr_rec_draw d = draw_with(PIPE_Z24X8);
    tbr_depth_draw dd;
    tbr_depth_plane p;
    CHECK(plane_of(&d, 3, v, &dd, &p));
    enum { N = 12 };
    static tbr_rec_quad q[N];
    int derivable[N];
    for (int i = 0; i < N; i++) {
        memset(&q[i], 0, sizeof q[i]);
        q[i].x = 20 + 2 * (i % 6);
        q[i].y = 30 + 2 * (i / 6);
        q[i].prim_kind = 3;
        q[i].flags = TBR_REC_QUAD_HAS_Z | TBR_REC_QUAD_DEPTH_OUT;
        q[i].in_mask = q[i].depth_mask = 15;
        CHECK(tbr_depth_plane_quad(&p, &dd, q[i].x, q[i].y, q[i].z) == 0);
        derivable[i] = i % 4 != 1;
        if (!derivable[i]) q[i].z[2] += 1; /* what softpipe compared differs from the plane */
    }
    tbr_buf rec[2];
    for (int kind = 0; kind < 2; kind++) { /* 0: stored, 1: derived */
        tbr_buf_init(&rec[kind]);
        tbr_rec_quads_header h;
        CHECK(tbr_rec_quads_begin(&rec[kind], &h, 7, 0,
                                  TBR_REC_QUADS_STREAMS | (kind ? TBR_REC_QUADS_DEPTHS_DERIVED : 0)) == 0);
        uint32_t n = 0;
        for (int i = 0; i < N; i++) {
            uint32_t want[4];
            tbr_depth_plane_quad(&p, &dd, q[i].x, q[i].y, want);
            const int matches = memcmp(want, q[i].z, sizeof want) == 0; /* the recorder's comparison */
            CHECK(matches == derivable[i]);
            if (matches != kind) continue;
            CHECK(tbr_rec_quads_add(&rec[kind], &h, &q[i]) == 0);
            n++;
        }
        CHECK(tbr_rec_quads_finish(&rec[kind], n) == 0);
    }
    for (int kind = 0; kind < 2; kind++) {
        tbr_cursor c;
        tbr_rec_quads_header h;
        CHECK(tbr_rec_quads_open(&c, rec[kind].data, rec[kind].len, &h) == 0);
        CHECK(h.depths_derived == (uint32_t)kind && h.streams == 1);
        uint32_t k = 0;
        for (int i = 0; i < N; i++) {
            if (derivable[i] != kind) continue;
            tbr_rec_quad r;
            CHECK(tbr_rec_quads_next(&c, &h, &r) == 0);
            if (kind) {
                CHECK(r.z[0] == 0 && r.z[3] == 0); /* not in the record */
                CHECK(tbr_depth_plane_quad(&p, &dd, r.x, r.y, r.z) == 0);
            }
            CHECK(r.x == q[i].x && r.y == q[i].y && r.flags == q[i].flags && memcmp(r.z, q[i].z, sizeof r.z) == 0);
            k++;
        }
        CHECK(k == h.count && tbr_rec_quads_close(&c) == 0);
    }
    /* the derived record holds no depth: same quads stored take more bytes */
    tbr_buf both;
    tbr_buf_init(&both);
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_begin(&both, &h, 7, 0, TBR_REC_QUADS_STREAMS) == 0);
    uint32_t n = 0;
    for (int i = 0; i < N; i++)
        if (derivable[i]) {
            CHECK(tbr_rec_quads_add(&both, &h, &q[i]) == 0);
            n++;
        }
    CHECK(tbr_rec_quads_finish(&both, n) == 0 && rec[1].len + 4 * n <= both.len);
    tbr_buf_free(&both);
    for (int kind = 0; kind < 2; kind++) tbr_buf_free(&rec[kind]);
}

int main(void)
{
    check_known_values();
    check_round_trip();
    if (failures) fprintf(stderr, "depth_plane: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
