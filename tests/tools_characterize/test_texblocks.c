/* Unit test of the texture-block sharing engine of tbr-characterize
 * (tools/characterize/texblocks.c), with hand-computed expectations. */
#include "texblocks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT_EQ(a, b)                                                                                                \
    do {                                                                                                               \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                                               \
        if (a_ != b_) {                                                                                                \
            fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n", __FILE__, __LINE__, #a, a_, b_);       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

int main(void)
{
    texblocks *t = texblocks_new(4);
    if (!t) {
        fprintf(stderr, "texblocks_new failed\n");
        return 1;
    }
    EXPECT_EQ(texblocks_new(0) == NULL, 1);
    EXPECT_EQ(texblocks_add(t, 0, 4, 1), (uint64_t)-1); /* processor >= N */

    /* Frame 1, blocks A=100, B=200, C=300, D=400, E=500:
     *  A: tiles 3 (proc 0), 4 (proc 1)        -> min distance 1: d1; 2 caches
     *  B: tiles 0, 2 (proc 2 both)            -> min distance 2: d2; 1 cache
     *  C: tiles 1, 5, 9 (procs 0,1,2,3)       -> min distance 4: far; 4 caches
     *  D: tile 7 (proc 3) five times          -> private; 1 cache
     *  E: tiles 2, 5, 4 (proc 1)              -> sorted 2,4,5: min 1: d1; 1 cache
     * blocks 5; d1 2 (A, E), d2 1, far 1, private 1;
     * replication: [1] = B, D, E = 3, [2] = A = 1, [4] = C = 1.
     * accesses: 2 + 2 + 4 + 5 + 3 = 16. */
    int rc = 0;
    rc |= texblocks_add(t, 3, 0, 100);
    rc |= texblocks_add(t, 4, 1, 100);
    rc |= texblocks_add(t, 0, 2, 200);
    rc |= texblocks_add(t, 2, 2, 200);
    rc |= texblocks_add(t, 1, 0, 300);
    rc |= texblocks_add(t, 5, 1, 300);
    rc |= texblocks_add(t, 9, 2, 300);
    rc |= texblocks_add(t, 9, 3, 300);
    for (int i = 0; i < 5; i++) rc |= texblocks_add(t, 7, 3, 400);
    rc |= texblocks_add(t, 2, 1, 500);
    rc |= texblocks_add(t, 5, 1, 500);
    rc |= texblocks_add(t, 4, 1, 500);
    EXPECT_EQ(rc, 0);
    texblocks_result r;
    memset(&r, 0, sizeof r);
    EXPECT_EQ(texblocks_finish_frame(t, &r), 0);
    EXPECT_EQ(r.blocks, 5);
    EXPECT_EQ(r.accesses, 16);
    EXPECT_EQ(r.shared_d1, 2);
    EXPECT_EQ(r.shared_d2, 1);
    EXPECT_EQ(r.shared_far, 1);
    EXPECT_EQ(r.private_blocks, 1);
    EXPECT_EQ(r.replication[1], 3);
    EXPECT_EQ(r.replication[2], 1);
    EXPECT_EQ(r.replication[3], 0);
    EXPECT_EQ(r.replication[4], 1);

    /* Frame 2: the same block from tiles 0 and 1 but 300000 times (forces
     * compaction) -> 1 more block, d1, both accesses from proc 0: 1 cache.
     * Frames are independent: block 100 of frame 1 is not remembered. */
    for (int i = 0; i < 300000; i++) rc |= texblocks_add(t, (uint64_t)(i & 1), 0, 100);
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(texblocks_finish_frame(t, &r), 0);
    EXPECT_EQ(r.blocks, 6);
    EXPECT_EQ(r.accesses, 300016);
    EXPECT_EQ(r.shared_d1, 3);
    EXPECT_EQ(r.replication[1], 4);
    /* An empty frame changes nothing. */
    EXPECT_EQ(texblocks_finish_frame(t, &r), 0);
    EXPECT_EQ(r.blocks, 6);
    texblocks_free(t);

    /* Mappings, tile of 16x16 quads, N = 4:
     *  rr: (qy*16 + qx) % 4: (1,0) -> 1, (0,1) -> 16 % 4 = 0, (3,2) -> 35 % 4 = 3
     *  strips: qx*4/16: qx 7 -> 1, qx 15 -> 3, qx 0 -> 0
     *  quadrant: (8,0) -> 1, (0,8) -> 2, (15,15) -> 3, (7,7) -> 0 */
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_RR, 4, 1, 0, 16, 16), 1);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_RR, 4, 0, 1, 16, 16), 0);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_RR, 4, 3, 2, 16, 16), 3);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_STRIPS, 4, 7, 5, 16, 16), 1);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_STRIPS, 4, 15, 0, 16, 16), 3);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_STRIPS, 4, 0, 9, 16, 16), 0);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_QUADRANT, 4, 8, 0, 16, 16), 1);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_QUADRANT, 4, 0, 8, 16, 16), 2);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_QUADRANT, 4, 15, 15, 16, 16), 3);
    EXPECT_EQ(texblocks_map(TEXBLOCKS_MAP_QUADRANT, 4, 7, 7, 16, 16), 0);

    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("texblocks: all checks passed\n");
    return 0;
}
