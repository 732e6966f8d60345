/* tbrsim recorder: the per-frame PATH table (paths.h). */
#include "paths.h"

#include <stdlib.h>
#include <string.h>

#include "tbr/records.h"

void paths_init(struct path_recorder *pr, struct rec_status *st)
{
    pr->st = st;
    tbr_buf_init(&pr->arena);
}

void paths_new_frame(struct path_recorder *pr)
{
    pr->npaths = 0;
    tbr_buf_reset(&pr->arena);
    if (pr->buckets) memset(pr->buckets, 0, pr->nbuckets * sizeof(*pr->buckets));
}

void paths_free(struct path_recorder *pr)
{
    tbr_buf_free(&pr->arena);
    free(pr->paths);
    free(pr->buckets);
    pr->paths = NULL;
    pr->buckets = NULL;
}

static uint64_t path_hash(uint32_t shader, uint32_t stage, const uint16_t *pc, const uint8_t *mask, uint32_t n)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(v)                                                                                                         \
    do {                                                                                                               \
        h ^= (uint64_t)(v);                                                                                            \
        h *= 1099511628211ULL;                                                                                         \
    } while (0)
    MIX(shader);
    MIX(stage);
    MIX(n);
    for (uint32_t i = 0; i < n; i++) {
        MIX(pc[i]);
        MIX(mask[i]);
    }
#undef MIX
    return h;
}

static int path_equal(const struct path_recorder *pr, const struct path_entry *e, uint32_t shader, uint32_t stage,
                      const uint16_t *pc, const uint8_t *mask, uint32_t n)
{
    if (e->shader != shader || e->stage != stage || e->n != n) return 0;
    const uint8_t *a = pr->arena.data + e->off;
    for (uint32_t i = 0; i < n; i++)
        if (a[3 * i] != (pc[i] & 0xff) || a[3 * i + 1] != (pc[i] >> 8) || a[3 * i + 2] != mask[i]) return 0;
    return 1;
}

static int path_rehash(struct path_recorder *pr, uint32_t nb)
{
    uint32_t *b = calloc(nb, sizeof(*b));
    if (!b) return -1;
    for (uint32_t i = 0; i < pr->npaths; i++) {
        uint32_t k = (uint32_t)pr->paths[i].hash & (nb - 1);
        while (b[k]) k = (k + 1) & (nb - 1);
        b[k] = i + 1;
    }
    free(pr->buckets);
    pr->buckets = b;
    pr->nbuckets = nb;
    return 0;
}

/* One execution of a shader's instruction stream (pc and execution mask per executed
 * instruction): returns the id of its path in this frame, writing a PATH record the
 * first time the path occurs; 0 on failure. */
uint32_t paths_exec(struct path_recorder *pr, uint32_t shader_id, uint32_t stage, const uint16_t *pc,
                    const uint8_t *mask, uint32_t n, uint32_t truncated, const struct rec_sink *out)
{
    pr->execs++;
    if (truncated) rec_note_unsupported(pr->st, "exec_path_truncated");
    uint64_t h = path_hash(shader_id, stage, pc, mask, n) ^ truncated;
    if ((pr->npaths + 1) * 2 > pr->nbuckets && path_rehash(pr, pr->nbuckets ? pr->nbuckets * 2 : 1024) != 0) {
        rec_fail(pr->st, "out of memory (paths)");
        return 0;
    }
    uint32_t k = (uint32_t)h & (pr->nbuckets - 1);
    for (; pr->buckets[k]; k = (k + 1) & (pr->nbuckets - 1)) {
        struct path_entry *e = &pr->paths[pr->buckets[k] - 1];
        if (e->hash == h && path_equal(pr, e, shader_id, stage, pc, mask, n)) return e->id;
    }
    if (pr->npaths == pr->cap_paths) {
        uint32_t nc = pr->cap_paths ? pr->cap_paths * 2 : 256;
        struct path_entry *np = realloc(pr->paths, nc * sizeof(*np));
        if (!np) {
            rec_fail(pr->st, "out of memory (paths)");
            return 0;
        }
        pr->paths = np;
        pr->cap_paths = nc;
    }
    struct path_entry *e = &pr->paths[pr->npaths];
    e->hash = h;
    e->id = pr->npaths + 1;
    e->shader = shader_id;
    e->stage = stage;
    e->n = n;
    e->off = pr->arena.len;
    for (uint32_t i = 0; i < n; i++) {
        tbr_buf_put_u16(&pr->arena, pc[i]);
        tbr_buf_put_u8(&pr->arena, mask[i]);
    }
    if (!tbr_buf_ok(&pr->arena)) {
        rec_fail(pr->st, "out of memory (paths)");
        return 0;
    }
    pr->buckets[k] = pr->npaths + 1;
    pr->npaths++;
    tbr_rec_path r = {.id = e->id,
                      .shader_id = shader_id,
                      .stage = stage,
                      .truncated = truncated ? 1 : 0,
                      .n = n,
                      .entries = pr->arena.data + e->off};
    pr->records++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_PATH, tbr_rec_path_encode(b, &r));
    return e->id;
}
