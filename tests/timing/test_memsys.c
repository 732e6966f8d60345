/* timing.memsys: the port arbiter in front of the L2 (timing/memory/memsys.h), worked by hand.
 *
 * Two rotation ports (a, b) and the late port (c), default configuration. A request is
 * forwarded to the L2 in the first cycle at which it is visible at its port's head
 * (ready <= now), one request per port per cycle; mem.<port>.reads counts the forwarded
 * reads. The arbiter skips the cycles in which no port has a visible request by keeping
 * the earliest head over all ports, lowered by pushes into empty queues: the cases below
 * push into empty queues after idle cycles (the summary then says "nothing"), with a
 * future ready cycle, and an earlier request behind a later one on another port. A
 * summary that missed a push would never forward the request or forward it late.
 */
#include <stdlib.h>

#include "memory/memsys.h"
#include "tcheck.h"

static uint64_t reads(const tbr_stats *st, const char *port)
{
    char name[64];
    snprintf(name, sizeof name, "mem.%s.reads", port);
    const tbr_stat *s = tbr_stats_find(st, name);
    CHECK(s != NULL);
    return s ? tbr_stat_value(s) : 0;
}

static void push(memsys *m, int port, uint64_t addr, uint64_t ready)
{
    tbr_mem_msg r = {.addr = addr, .issued = ready, .ready = ready};
    CHECK(tbr_memq_push(memsys_req(m, port), &r));
}

int main(void)
{
    tbr_config *cfg = tbr_config_new();
    tbr_stats *st = tbr_stats_new();
    char err[256];
    memsys *m = memsys_new(cfg, st, err, sizeof err);
    if (!m) {
        fprintf(stderr, "memsys_new: %s\n", err);
        return 1;
    }
    int a = memsys_add_port(m, "a", 4), b = memsys_add_port(m, "b", 4), c = memsys_add_late_port(m, "c", 4);
    CHECK(a >= 0 && b >= 0 && c >= 0);
    CHECK_EQ_U(memsys_add_late_port(m, "c2", 4), (uint64_t)-1); /* at most one late port */
    memsys_register_stats(m, st);

    uint64_t now = 0;
    for (; now < 10; now++) memsys_tick(m, now); /* idle: nothing to arbitrate */
    CHECK(memsys_idle(m));
    CHECK_EQ_U(memsys_next_event(m, now), UINT64_MAX);

    /* 1. A request pushed into an idle system at cycle 10, visible from 15: nothing moves
   * before 15 (and the next event says so), it is forwarded at 15. */
    push(m, a, 0x10000, 15);
    CHECK_EQ_U(memsys_next_event(m, now), 15);
    for (; now < 15; now++) memsys_tick(m, now);
    CHECK_EQ_U(reads(st, "a"), 0);
    memsys_tick(m, now++); /* 15 */
    CHECK_EQ_U(reads(st, "a"), 1);

    /* 2. Two requests of a and one of b visible at 20: a's first and b's at 20, a's
   * second at 21 (one per port per cycle). */
    for (; now < 18; now++) memsys_tick(m, now);
    push(m, a, 0x20000, 20);
    push(m, a, 0x20040, 20);
    push(m, b, 0x30000, 20);
    for (; now < 20; now++) memsys_tick(m, now);
    CHECK_EQ_U(reads(st, "a"), 1);
    CHECK_EQ_U(reads(st, "b"), 0);
    memsys_tick(m, now++); /* 20 */
    CHECK_EQ_U(reads(st, "a"), 2);
    CHECK_EQ_U(reads(st, "b"), 1);
    memsys_tick(m, now++); /* 21 */
    CHECK_EQ_U(reads(st, "a"), 3);

    /* 3. a's request visible at 40 pushed first, then b's visible at 35 and the late
   * port's at 36 into their empty queues: b at 35, c at 36, a at 40. */
    for (; now < 30; now++) memsys_tick(m, now);
    push(m, a, 0x40000, 40);
    memsys_tick(m, now++); /* 30 */
    push(m, b, 0x50000, 35);
    push(m, c, 0x60000, 36);
    CHECK_EQ_U(memsys_next_event(m, now) <= 35, 1); /* the L2/DRAM may still be busy with 1-2 */
    for (; now < 35; now++) memsys_tick(m, now);
    CHECK_EQ_U(reads(st, "b"), 1);
    memsys_tick(m, now++); /* 35 */
    CHECK_EQ_U(reads(st, "b"), 2);
    CHECK_EQ_U(reads(st, "c"), 0);
    memsys_tick(m, now++); /* 36 */
    CHECK_EQ_U(reads(st, "c"), 1);
    for (; now < 40; now++) memsys_tick(m, now);
    CHECK_EQ_U(reads(st, "a"), 3);
    memsys_tick(m, now++); /* 40 */
    CHECK_EQ_U(reads(st, "a"), 4);

    /* every request is answered: responses arrive at the ports' in queues */
    uint32_t answered = 0;
    for (int guard = 0; guard < 100000 && answered < 7; guard++, now++) {
        memsys_tick(m, now);
        for (int p = 0; p < 3; p++)
            while (tbr_memq_peek(memsys_resp(m, p), now)) {
                tbr_memq_pop(memsys_resp(m, p));
                answered++;
            }
    }
    CHECK_EQ_U(answered, 7);

    memsys_free(m);
    tbr_stats_free(st);
    tbr_config_free(cfg);
    return T_RESULT();
}
