/* LPDDR4-style DRAM + memory controller timing model (see dram.h and
 * docs/dram-model.md; thesis §4.2, Table 4.1). */
#include "memory/dram.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

enum { F_CH, F_RA, F_BG, F_BA, F_RO, F_CO, F_N };
static const char *k_fields[F_N] = {"ch", "ra", "bg", "ba", "ro", "co"};

/* A queued request. The channel's requests live in a pool (ch->q, slots found through a
 * free list) and are linked twice, both lists in arrival (seq) order: all requests of
 * the channel (gprev/gnext: the FCFS order) and the requests of one bank (prev/next). */
typedef struct {
    tbr_mem_msg msg;
    uint64_t arrival, seq;
    uint32_t rank, bank, row, col;
    uint32_t bursts_left;
    int32_t prev, next, gprev, gnext; /* slot indices, -1 = none */
    bool caused_act, caused_pre, classified;
} dreq_t;

/* Per-bank scheduling candidates. Whether a request can issue its next command depends
 * only on its bank, its rank, its direction and whether it hits the open row
 * (can_col / can_act / the precharge rule): all the row hits of one direction in a bank
 * are ready together, and so are all the requests that need an ACT or a PRE. FR-FCFS
 * picks the oldest ready request, so it only has to look at the oldest of each of
 * these classes per bank (hit_rd, hit_wr, miss) instead of rescanning the queue; they
 * are kept up to date on enqueue, ACT, PRE and completion. */
typedef struct {
    int64_t open_row; /* -1 = precharged */
    uint64_t next_act, next_pre, next_col;
    uint32_t hits_since_act;
    uint32_t open_hits;     /* queued requests for the open row (kept on enqueue/ACT/PRE/completion) */
    uint32_t rank;          /* owning rank (flat bank index = rank * banks + bank) */
    int32_t head, tail;     /* this bank's requests, oldest first */
    int32_t hit_rd, hit_wr; /* oldest queued read / write hitting the open row */
    int32_t miss;           /* oldest queued request for another row (any request when precharged) */
} bank_t;

typedef struct {
    bank_t *banks;
    uint64_t next_act; /* tRRD */
    uint64_t faw[4];   /* last four ACT cycles (ring) */
    uint32_t faw_n, faw_pos;
    uint64_t next_rd; /* tWTR after writes to this rank */
    uint64_t refresh_due, last_ref;
    bool refresh_pending;
    /* residency (energy model): banks open, cycle the rank last left precharge
   * standby, and completed active-standby cycles */
    uint32_t nopen;
    uint64_t act_since, act_cycles;
    /* Scratch of the FR-FCFS scheduler (rank_thresholds): the first cycle at which the
   * channel and this rank allow a read / write column command and an ACT. */
    uint64_t rd_at, wr_at, act_at;
} rank_t;

typedef struct {
    tbr_stat *act, *pre, *rd, *wr, *ref, *reads, *writes, *row_hits, *row_misses, *row_conflicts, *bus_busy;
} chstats_t;

typedef struct {
    rank_t *ranks;
    bank_t *banks;  /* all banks of the channel, flat: rank * banks + bank */
    uint64_t *busy; /* bit per flat bank: it has queued requests */
    dreq_t *q;      /* request pool of queue_size slots */
    int32_t *free_slots;
    uint32_t qn;          /* queued requests (the free list holds qsize - qn slots) */
    int32_t ghead, gtail; /* all requests, oldest first */
    uint64_t next_col;    /* tCCD */
    uint64_t bus_free;    /* first cycle the data bus is free */
    int last_dir;         /* 0 none, 1 read, 2 write */
    uint32_t last_rank;
    /* Event skipping (exact): no command can issue on this channel before cycle `wake`
   * (every legality condition is a monotone `t >= X` on state that only changes when a
   * command issues or a request is enqueued; enqueue resets wake to 0). */
    uint64_t wake;
    chstats_t st;
} chan_t;

struct tbr_dram {
    /* geometry */
    uint32_t channels, ranks, bankgroups, banks, rows, columns;
    uint32_t bus_bytes, bl, req_bytes, bursts_per_req, cols_per_burst;
    uint32_t field_bits[F_N];
    int order[F_N]; /* fields from LSB to MSB */
    uint32_t offset_bits;
    /* timing (tCK) */
    uint64_t tCL, tCWL, tRCD, tRP, tRAS, tRRD, tFAW, tWR, tWTR, tRTP, tCCD, tRTRS, tREFI, tRFC, ctrl;
    bool refresh, fcfs;
    uint32_t qsize, hit_cap;
    uint32_t nbanks, busy_words; /* banks per channel (ranks x banks), 64-bit words of chan_t.busy */
    bool reference_scan;         /* tbr_dram_set_reference_scan */
    /* clock crossing: f_gpu : f_dram reduced */
    uint64_t fg, fd, sync;
    /* tbr_dram_gpu_advance's end DRAM cycle for GPU cycle adv_g, stepped to adv_g + 1
   * without a division (the GPU side advances one cycle at a time): with
   * N(g) = (g + 1) * fd + fg - 1, end = N / fg and adv_rem = N % fg; N grows by fd per
   * GPU cycle, fd = fd_q * fg + fd_r */
    uint64_t adv_g, adv_end, adv_rem, fd_q, fd_r;
    tbr_memq req_cdc, resp_cdc;

    uint64_t now, seq;
    chan_t *ch;
    /* completions sorted by (ready, seq) */
    tbr_mem_msg *done;
    uint64_t *done_seq;
    size_t ndone, done_cap;

    tbr_dram_counts tot;
    struct {
        tbr_stat *act, *pre, *rd, *wr, *ref, *reads, *writes, *row_hits, *row_misses, *row_conflicts, *bytes,
            *read_latency, *write_latency, *queue_full;
    } st;
};

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

tbr_dram *tbr_dram_new(const tbr_config *cfg, tbr_stats *stats, char *err, size_t errlen)
{
    char verr[512];
    if (tbr_config_validate(cfg, verr, sizeof verr) != 0) {
        tbr_set_err(err, errlen, "%s", verr);
        return NULL;
    }
    tbr_dram *d = tbr_xcalloc(1, sizeof *d);
#define U(k) ((uint32_t)tbr_cfg_uint(cfg, "dram." k))
    d->channels = U("channels");
    d->ranks = U("ranks");
    d->bankgroups = U("bankgroups");
    d->banks = U("banks");
    d->rows = U("rows");
    d->columns = U("columns");
    d->bus_bytes = U("bus_width") / 8;
    d->bl = U("burst_length");
    d->req_bytes = U("request_bytes");
    d->tCL = U("tCL");
    d->tCWL = U("tCWL");
    d->tRCD = U("tRCD");
    d->tRP = U("tRP");
    d->tRAS = U("tRAS");
    d->tRRD = U("tRRD");
    d->tFAW = U("tFAW");
    d->tWR = U("tWR");
    d->tWTR = U("tWTR");
    d->tRTP = U("tRTP");
    d->tCCD = U("tCCD");
    d->tRTRS = U("tRTRS");
    d->tREFI = U("tREFI");
    d->tRFC = U("tRFC");
    d->ctrl = U("ctrl_latency");
    d->qsize = U("queue_size");
    d->hit_cap = U("row_hit_cap");
    d->sync = U("cdc_sync_cycles");
    uint32_t cdc_depth = U("cdc_fifo_depth");
    uint64_t fd = U("clock_mhz");
#undef U
    d->refresh = tbr_cfg_bool(cfg, "dram.refresh");
    d->fcfs = strcmp(tbr_cfg_str(cfg, "dram.scheduler"), "fcfs") == 0;
    uint64_t fg = tbr_cfg_uint(cfg, "gpu.clock_mhz"), g = gcd(fg, fd);
    d->fg = fg / g;
    d->fd = fd / g;
    d->fd_q = d->fd / d->fg;
    d->fd_r = d->fd % d->fg;
    d->adv_g = 0; /* N(0) = fd + fg - 1 */
    d->adv_end = (d->fd + d->fg - 1) / d->fg;
    d->adv_rem = (d->fd + d->fg - 1) % d->fg;

    uint32_t burst_bytes = d->bus_bytes * d->bl;
    d->bursts_per_req = d->req_bytes / burst_bytes;
    d->cols_per_burst = d->bl;
    d->offset_bits = tbr_ilog2(d->req_bytes);
    d->field_bits[F_CH] = tbr_ilog2(d->channels);
    d->field_bits[F_RA] = tbr_ilog2(d->ranks);
    d->field_bits[F_BG] = tbr_ilog2(d->bankgroups);
    d->field_bits[F_BA] = tbr_ilog2(d->banks / d->bankgroups);
    d->field_bits[F_RO] = tbr_ilog2(d->rows);
    d->field_bits[F_CO] = tbr_ilog2((uint64_t)d->columns * d->bus_bytes / d->req_bytes);
    /* mapping string lists fields MSB first; store LSB first (validated) */
    const char *map = tbr_cfg_str(cfg, "dram.address_mapping");
    int msb_first[F_N], n = 0;
    for (const char *p = map; *p && n < F_N;) {
        for (int f = 0; f < F_N; f++)
            if (strncmp(p, k_fields[f], 2) == 0) msb_first[n] = f;
        n++;
        p += 2;
        if (*p == ':') p++;
    }
    for (int i = 0; i < F_N; i++) d->order[i] = msb_first[F_N - 1 - i];

    d->ch = tbr_xcalloc(d->channels, sizeof *d->ch);
    d->nbanks = d->ranks * d->banks;
    d->busy_words = (d->nbanks + 63) / 64;
    for (uint32_t c = 0; c < d->channels; c++) {
        chan_t *ch = &d->ch[c];
        ch->ranks = tbr_xcalloc(d->ranks, sizeof *ch->ranks);
        ch->banks = tbr_xcalloc(d->nbanks, sizeof *ch->banks);
        ch->busy = tbr_xcalloc(d->busy_words, sizeof *ch->busy);
        ch->q = tbr_xcalloc(d->qsize, sizeof *ch->q);
        ch->free_slots = tbr_xcalloc(d->qsize, sizeof *ch->free_slots);
        for (uint32_t i = 0; i < d->qsize; i++) ch->free_slots[i] = (int32_t)(d->qsize - 1 - i);
        ch->ghead = ch->gtail = -1;
        for (uint32_t r = 0; r < d->ranks; r++) {
            rank_t *rk = &ch->ranks[r];
            rk->banks = ch->banks + (size_t)r * d->banks;
            for (uint32_t b = 0; b < d->banks; b++) {
                bank_t *bk = &rk->banks[b];
                bk->open_row = -1;
                bk->rank = r;
                bk->head = bk->tail = bk->hit_rd = bk->hit_wr = bk->miss = -1;
            }
            /* ranks are staggered so that their refreshes do not coincide */
            rk->refresh_due = d->tREFI * (r + 1) / d->ranks;
            rk->last_ref = NONE;
        }
#define CS(f, what, desc) ch->st.f = tbr_stats_counterf(stats, desc, "dram.ch%u." what, c)
        CS(act, "act", "ACT commands");
        CS(pre, "pre", "PRE commands (incl. before refresh)");
        CS(rd, "rd", "RD commands (one per burst)");
        CS(wr, "wr", "WR commands (one per burst)");
        CS(ref, "ref", "all-bank REF commands");
        CS(reads, "reads", "read requests completed");
        CS(writes, "writes", "write requests completed");
        CS(row_hits, "row_hits", "requests served from an already open row");
        CS(row_misses, "row_misses", "requests that activated a precharged bank");
        CS(row_conflicts, "row_conflicts", "requests that precharged another row first");
        CS(bus_busy, "bus_busy_cycles", "cycles the data bus carried data");
#undef CS
    }
#define TS(f, what, desc) d->st.f = tbr_stats_counter(stats, "dram." what, desc)
    TS(act, "act", "ACT commands, all channels");
    TS(pre, "pre", "PRE commands, all channels");
    TS(rd, "rd", "RD commands, all channels");
    TS(wr, "wr", "WR commands, all channels");
    TS(ref, "ref", "REF commands, all channels");
    TS(reads, "reads", "read requests completed");
    TS(writes, "writes", "write requests completed");
    TS(row_hits, "row_hits", "requests served from an already open row");
    TS(row_misses, "row_misses", "requests that activated a precharged bank");
    TS(row_conflicts, "row_conflicts", "requests that precharged another row first");
    TS(bytes, "bytes", "data bytes transferred");
    TS(queue_full, "queue_full", "enqueue attempts rejected because the channel queue was full");
#undef TS
    d->st.read_latency = tbr_stats_histogram(stats, "dram.read_latency",
                                             "read latency in DRAM cycles, controller arrival to response", 4, 256);
    d->st.write_latency =
        tbr_stats_average(stats, "dram.write_latency", "write latency in DRAM cycles, arrival to completion");
    tbr_memq_init(&d->req_cdc, cdc_depth);
    tbr_memq_init(&d->resp_cdc, cdc_depth);
    return d;
}

void tbr_dram_free(tbr_dram *d)
{
    if (!d) return;
    for (uint32_t c = 0; c < d->channels; c++) {
        free(d->ch[c].banks);
        free(d->ch[c].busy);
        free(d->ch[c].ranks);
        free(d->ch[c].q);
        free(d->ch[c].free_slots);
    }
    free(d->ch);
    free(d->done);
    free(d->done_seq);
    tbr_memq_free(&d->req_cdc);
    tbr_memq_free(&d->resp_cdc);
    free(d);
}

void tbr_dram_decode(const tbr_dram *d, uint64_t addr, tbr_dram_coord *out)
{
    uint64_t a = addr >> d->offset_bits;
    uint64_t v[F_N];
    for (int i = 0; i < F_N; i++) {
        int f = d->order[i];
        uint32_t bits = d->field_bits[f];
        v[f] = a & ((1ull << bits) - 1);
        a >>= bits;
    }
    /* bits above the capacity are ignored (addresses wrap; dram-model.md) */
    uint32_t per_group = d->banks / d->bankgroups;
    out->ch = (uint32_t)v[F_CH];
    out->rank = (uint32_t)v[F_RA];
    out->bg = (uint32_t)v[F_BG];
    out->bank = (uint32_t)(v[F_BG] * per_group + v[F_BA]);
    out->row = (uint32_t)v[F_RO];
    out->col = (uint32_t)(v[F_CO] * (d->req_bytes / d->bus_bytes));
}

uint64_t tbr_dram_now(const tbr_dram *d) { return d->now; }
uint32_t tbr_dram_bursts_per_request(const tbr_dram *d) { return d->bursts_per_req; }
double tbr_dram_peak_bytes_per_cycle(const tbr_dram *d) { return 2.0 * d->bus_bytes * d->channels; }
uint64_t tbr_dram_last_refresh(const tbr_dram *d, uint32_t ch, uint32_t rank) { return d->ch[ch].ranks[rank].last_ref; }
void tbr_dram_get_counts(const tbr_dram *d, tbr_dram_counts *out) { *out = d->tot; }

bool tbr_dram_can_accept(const tbr_dram *d, uint64_t addr)
{
    tbr_dram_coord c;
    tbr_dram_decode(d, addr, &c);
    return d->ch[c.ch].qn < d->qsize;
}

/* ---- request queue: pool, channel list and bank lists (see dreq_t and bank_t) ---- */

static bool req_hits(const bank_t *b, const dreq_t *q) { return b->open_row == (int64_t)q->row; }

/* First request from slot i on (following the bank list) that hits b's open row in
 * direction `write`; -1 if none. */
static int32_t next_hit(const chan_t *ch, const bank_t *b, int32_t i, bool write)
{
    for (; i >= 0; i = ch->q[i].next)
        if (req_hits(b, &ch->q[i]) && (bool)ch->q[i].msg.write == write) return i;
    return -1;
}

/* Candidates and open_hits of bank b after an ACT opened a row. */
static void bank_reclassify(const chan_t *ch, bank_t *b)
{
    b->hit_rd = b->hit_wr = b->miss = -1;
    b->open_hits = 0;
    for (int32_t i = b->head; i >= 0; i = ch->q[i].next) {
        const dreq_t *q = &ch->q[i];
        if (!req_hits(b, q)) {
            if (b->miss < 0) b->miss = i;
        } else {
            b->open_hits++;
            int32_t *h = q->msg.write ? &b->hit_wr : &b->hit_rd;
            if (*h < 0) *h = i;
        }
    }
}

/* Removes completed request qi (a candidate of its bank when it is the oldest of its
 * class, as the schedulers only issue such requests) and frees its slot. */
static void remove_req(tbr_dram *d, chan_t *ch, bank_t *b, int32_t qi)
{
    dreq_t *q = &ch->q[qi];
    if (b->hit_rd == qi) b->hit_rd = next_hit(ch, b, q->next, false);
    if (b->hit_wr == qi) b->hit_wr = next_hit(ch, b, q->next, true);
    if (q->prev >= 0)
        ch->q[q->prev].next = q->next;
    else
        b->head = q->next;
    if (q->next >= 0)
        ch->q[q->next].prev = q->prev;
    else
        b->tail = q->prev;
    if (q->gprev >= 0)
        ch->q[q->gprev].gnext = q->gnext;
    else
        ch->ghead = q->gnext;
    if (q->gnext >= 0)
        ch->q[q->gnext].gprev = q->gprev;
    else
        ch->gtail = q->gprev;
    if (b->head < 0) {
        uint32_t bi = (uint32_t)(b - ch->banks);
        ch->busy[bi / 64] &= ~(1ull << (bi % 64));
    }
    ch->free_slots[d->qsize - ch->qn] = qi;
    ch->qn--;
}

static uint64_t req_ready(const tbr_dram *d, const chan_t *ch, const dreq_t *q);

bool tbr_dram_enqueue(tbr_dram *d, const tbr_mem_msg *m)
{
    tbr_dram_coord c;
    tbr_dram_decode(d, m->addr, &c);
    chan_t *ch = &d->ch[c.ch];
    if (ch->qn == d->qsize) {
        tbr_stat_inc(d->st.queue_full);
        return false;
    }
    int32_t i = ch->free_slots[d->qsize - 1 - ch->qn];
    ch->qn++;
    dreq_t *r = &ch->q[i];
    memset(r, 0, sizeof *r);
    r->msg = *m;
    r->arrival = d->now;
    r->seq = d->seq++;
    r->rank = c.rank;
    r->bank = c.bank;
    r->row = c.row;
    r->col = c.col;
    r->bursts_left = d->bursts_per_req;
    bank_t *b = &ch->ranks[c.rank].banks[c.bank];
    r->prev = b->tail;
    r->next = -1;
    if (b->tail >= 0)
        ch->q[b->tail].next = i;
    else
        b->head = i;
    b->tail = i;
    r->gprev = ch->gtail;
    r->gnext = -1;
    if (ch->gtail >= 0)
        ch->q[ch->gtail].gnext = i;
    else
        ch->ghead = i;
    ch->gtail = i;
    uint32_t bi = (uint32_t)(b - ch->banks);
    ch->busy[bi / 64] |= 1ull << (bi % 64);
    bool candidate;
    if (req_hits(b, r)) {
        b->open_hits++;
        int32_t *h = r->msg.write ? &b->hit_wr : &b->hit_rd;
        candidate = *h < 0;
        if (candidate) *h = i;
    } else {
        candidate = b->miss < 0;
        if (candidate) b->miss = i;
    }
    if (d->fcfs) candidate = ch->ghead == i;
    /* Only a new candidate can make a command possible earlier than the channel's wake
   * cycle (a new row hit can only protect its open row longer). */
    if (candidate) {
        uint64_t x = req_ready(d, ch, r);
        if (x < ch->wake) ch->wake = x;
    }
    return true;
}

bool tbr_dram_idle(const tbr_dram *d)
{
    if (d->ndone || !tbr_memq_empty(&d->req_cdc) || !tbr_memq_empty(&d->resp_cdc)) return false;
    for (uint32_t c = 0; c < d->channels; c++)
        if (d->ch[c].qn) return false;
    return true;
}

void tbr_dram_set_reference_scan(tbr_dram *d, bool on) { d->reference_scan = on; }

/* ---- command legality ---- */

static bool faw_ok(const tbr_dram *d, const rank_t *rk, uint64_t t)
{
    if (rk->faw_n < 4) return true;
    /* faw_pos points at the oldest of the last four ACTs */
    return t >= rk->faw[rk->faw_pos] + d->tFAW;
}

static bool can_act(const tbr_dram *d, const rank_t *rk, const bank_t *b, uint64_t t)
{
    return b->open_row < 0 && t >= b->next_act && t >= rk->next_act && faw_ok(d, rk, t);
}

/* Earliest data start allowed by the data bus for a burst of direction dir
 * on rank r: a direction or rank change costs tRTRS idle cycles. */
static uint64_t bus_ready(const tbr_dram *d, const chan_t *ch, int dir, uint32_t r)
{
    if (ch->last_dir == 0) return 0;
    bool turn = (ch->last_dir != dir) | (ch->last_rank != r);
    return ch->bus_free + (d->tRTRS & -(uint64_t)turn);
}

static bool can_col(const tbr_dram *d, const chan_t *ch, const rank_t *rk, const bank_t *b, const dreq_t *q, uint64_t t)
{
    if (b->open_row != (int64_t)q->row || t < b->next_col || t < ch->next_col) return false;
    if (q->msg.write) return t + d->tCWL >= bus_ready(d, ch, 2, q->rank);
    return t >= rk->next_rd && t + d->tCL >= bus_ready(d, ch, 1, q->rank);
}

/* Is the open row of bank b still wanted by a queued request? Then FR-FCFS must not
 * close it (until the row-hit cap is reached). */
static bool row_protected(const tbr_dram *d, const bank_t *b)
{
    /* without branches (channel_wake evaluates it for every busy bank) */
    return (b->open_hits > 0) & !((d->hit_cap != 0) & (b->hits_since_act >= d->hit_cap));
}

/* ---- command issue ---- */

static void issue_act(tbr_dram *d, chan_t *ch, rank_t *rk, bank_t *b, uint32_t row, uint64_t t)
{
    if (rk->nopen++ == 0) rk->act_since = t;
    b->open_row = row;
    bank_reclassify(ch, b);
    b->next_col = t + d->tRCD;
    b->next_pre = max64(b->next_pre, t + d->tRAS);
    b->hits_since_act = 0;
    rk->next_act = t + d->tRRD;
    if (rk->faw_n < 4) {
        rk->faw[(rk->faw_pos + rk->faw_n) % 4] = t;
        rk->faw_n++;
    } else {
        rk->faw[rk->faw_pos] = t;
        rk->faw_pos = (rk->faw_pos + 1) % 4;
    }
    tbr_stat_inc(ch->st.act);
    tbr_stat_inc(d->st.act);
    d->tot.act++;
}

static void issue_pre(tbr_dram *d, chan_t *ch, rank_t *rk, bank_t *b, uint64_t t)
{
    if (b->open_row >= 0 && --rk->nopen == 0) rk->act_cycles += t - rk->act_since;
    b->open_row = -1;
    b->open_hits = 0;
    b->hit_rd = b->hit_wr = -1;
    b->miss = b->head; /* a precharged bank: every request needs an ACT */
    b->next_act = max64(b->next_act, t + d->tRP);
    tbr_stat_inc(ch->st.pre);
    tbr_stat_inc(d->st.pre);
    d->tot.pre++;
}

static void add_done(tbr_dram *d, const tbr_mem_msg *m, uint64_t seq)
{
    if (d->ndone == d->done_cap) {
        d->done_cap = d->done_cap ? d->done_cap * 2 : 64;
        d->done = tbr_xrealloc(d->done, d->done_cap * sizeof *d->done);
        d->done_seq = tbr_xrealloc(d->done_seq, d->done_cap * sizeof *d->done_seq);
    }
    size_t i = d->ndone;
    while (i > 0 &&
           (d->done[i - 1].ready > m->ready || (d->done[i - 1].ready == m->ready && d->done_seq[i - 1] > seq))) {
        d->done[i] = d->done[i - 1];
        d->done_seq[i] = d->done_seq[i - 1];
        i--;
    }
    d->done[i] = *m;
    d->done_seq[i] = seq;
    d->ndone++;
}

/* Column command for queue slot qi; completes the request on its last burst. */
static void issue_col(tbr_dram *d, chan_t *ch, int32_t qi, uint64_t t)
{
    dreq_t *q = &ch->q[qi];
    rank_t *rk = &ch->ranks[q->rank];
    bank_t *b = &rk->banks[q->bank];
    uint64_t burst = d->bl / 2, data_start;
    if (!q->classified) {
        q->classified = true;
        tbr_stat *cs, *ts;
        if (q->caused_pre) {
            cs = ch->st.row_conflicts, ts = d->st.row_conflicts;
            d->tot.row_conflicts++;
        } else if (q->caused_act) {
            cs = ch->st.row_misses, ts = d->st.row_misses;
            d->tot.row_misses++;
        } else {
            cs = ch->st.row_hits, ts = d->st.row_hits;
            d->tot.row_hits++;
        }
        tbr_stat_inc(cs);
        tbr_stat_inc(ts);
    }
    if (q->msg.write) {
        data_start = t + d->tCWL;
        b->next_pre = max64(b->next_pre, data_start + burst + d->tWR);
        rk->next_rd = max64(rk->next_rd, data_start + burst + d->tWTR);
        ch->last_dir = 2;
        tbr_stat_inc(ch->st.wr);
        tbr_stat_inc(d->st.wr);
        d->tot.wr++;
    } else {
        data_start = t + d->tCL;
        b->next_pre = max64(b->next_pre, t + d->tRTP);
        ch->last_dir = 1;
        tbr_stat_inc(ch->st.rd);
        tbr_stat_inc(d->st.rd);
        d->tot.rd++;
    }
    ch->last_rank = q->rank;
    ch->bus_free = data_start + burst;
    ch->next_col = t + d->tCCD;
    b->hits_since_act++;
    tbr_stat_add(ch->st.bus_busy, burst);
    uint32_t bytes = d->bus_bytes * d->bl;
    tbr_stat_add(d->st.bytes, bytes);
    d->tot.bytes += bytes;
    if (--q->bursts_left > 0) return;

    tbr_mem_msg m = q->msg;
    m.ready = data_start + burst + d->ctrl;
    uint64_t lat = m.ready - q->arrival;
    if (m.write) {
        tbr_stat_inc(ch->st.writes);
        tbr_stat_inc(d->st.writes);
        d->tot.writes++;
        tbr_stat_sample(d->st.write_latency, (double)lat);
    } else {
        tbr_stat_inc(ch->st.reads);
        tbr_stat_inc(d->st.reads);
        d->tot.reads++;
        tbr_stat_hsample(d->st.read_latency, lat);
    }
    add_done(d, &m, q->seq);
    b->open_hits--; /* a column command needs the open row: it was counted */
    remove_req(d, ch, b, qi);
}

/* Refresh handling for one rank; returns true if it used the command slot. */
static bool refresh_step(tbr_dram *d, chan_t *ch, rank_t *rk, uint64_t t)
{
    uint64_t ready = 0;
    for (uint32_t b = 0; b < d->banks; b++) {
        bank_t *bk = &rk->banks[b];
        if (bk->open_row >= 0) {
            if (t >= bk->next_pre) {
                issue_pre(d, ch, rk, bk, t);
                return true;
            }
            return false; /* wait for this bank's tRAS/tRTP/tWR */
        }
        ready = max64(ready, bk->next_act);
    }
    if (t < ready) return false;
    for (uint32_t b = 0; b < d->banks; b++) rk->banks[b].next_act = t + d->tRFC;
    rk->refresh_due += d->tREFI;
    rk->refresh_pending = false;
    rk->last_ref = t;
    tbr_stat_inc(ch->st.ref);
    tbr_stat_inc(d->st.ref);
    d->tot.ref++;
    return true;
}

/* The earliest cycle at which request q's next command (column command, ACT or PRE)
 * could issue if the channel state does not change meanwhile (UINT64_MAX: not before
 * the state changes: its rank is refreshing, or FR-FCFS protects the open row). */
static uint64_t sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static uint64_t req_ready(const tbr_dram *d, const chan_t *ch, const dreq_t *q)
{
    const rank_t *rk = &ch->ranks[q->rank];
    if (rk->refresh_pending) return NONE;
    const bank_t *b = &rk->banks[q->bank];
    uint64_t x;
    if (b->open_row == (int64_t)q->row) {
        x = max64(b->next_col, ch->next_col);
        if (q->msg.write) {
            if (ch->last_dir) x = max64(x, sat_sub(bus_ready(d, ch, 2, q->rank), d->tCWL));
        } else {
            x = max64(x, rk->next_rd);
            if (ch->last_dir) x = max64(x, sat_sub(bus_ready(d, ch, 1, q->rank), d->tCL));
        }
    } else if (b->open_row < 0) {
        x = max64(max64(b->next_act, rk->next_act), rk->faw_n < 4 ? 0 : rk->faw[rk->faw_pos] + d->tFAW);
    } else {
        if (!d->fcfs && row_protected(d, b)) return NONE;
        x = b->next_pre;
    }
    return x;
}

/* The rank- and channel-level parts of the conditions of can_col / can_act for every
 * rank (rank_t.rd_at, wr_at, act_at): a bank's candidate is then ready iff t reaches
 * the maximum of its rank's threshold and the bank's own (the same `t >= X` conditions
 * as req_ready, grouped so that each is evaluated once per rank instead of once per
 * request). */
static void rank_thresholds(const tbr_dram *d, chan_t *ch)
{
    for (uint32_t r = 0; r < d->ranks; r++) {
        rank_t *rk = &ch->ranks[r];
        uint64_t rd = max64(ch->next_col, rk->next_rd), wr = ch->next_col;
        if (ch->last_dir) {
            rd = max64(rd, sat_sub(bus_ready(d, ch, 1, r), d->tCL));
            wr = max64(wr, sat_sub(bus_ready(d, ch, 2, r), d->tCWL));
        }
        rk->rd_at = rd;
        rk->wr_at = wr;
        rk->act_at = max64(rk->next_act, rk->faw_n < 4 ? 0 : rk->faw[rk->faw_pos] + d->tFAW);
    }
}

/* Visits the flat index of every bank of ch with queued requests. */
#define FOR_BUSY_BANKS(d, ch, bi)                                                                                      \
    for (uint32_t w_ = 0; w_ < (d)->busy_words; w_++)                                                                  \
        for (uint64_t m_ = (ch)->busy[w_]; m_; m_ &= m_ - 1)                                                           \
            for (uint32_t bi = w_ * 64 + (uint32_t)__builtin_ctzll(m_), once_ = 1; once_; once_ = 0)

/* The earliest cycle > t at which schedule_channel could issue a command, given that it
 * issued none at t and the channel state does not change meanwhile (all conditions of
 * refresh_step, can_col, can_act and the precharge rule are `t >= X` on that state).
 * Returning a cycle too early only costs a rescan; it must never be too late. As every
 * request of a bank's candidate class is ready together, the candidates stand for the
 * whole queue. */
static uint64_t channel_wake(tbr_dram *d, chan_t *ch, uint64_t t)
{
    uint64_t w = NONE;
    if (d->refresh) {
        for (uint32_t r = 0; r < d->ranks; r++) {
            const rank_t *rk = &ch->ranks[r];
            if (!rk->refresh_pending) {
                if (rk->refresh_due < w) w = rk->refresh_due;
                continue;
            }
            uint64_t ready = 0;
            bool open = false;
            for (uint32_t b = 0; b < d->banks; b++) {
                const bank_t *bk = &rk->banks[b];
                if (bk->open_row >= 0) {
                    if (bk->next_pre < w) w = bk->next_pre;
                    open = true;
                    break;
                }
                ready = max64(ready, bk->next_act);
            }
            if (!open && ready < w) w = ready;
        }
    }
    if (d->fcfs) {
        if (ch->ghead >= 0) w = min64(w, req_ready(d, ch, &ch->q[ch->ghead]));
    } else {
        rank_thresholds(d, ch);
        /* the same minimum without branches: which candidates a bank has and whether its
     * row is protected are data, not a pattern a branch predictor learns (all-ones, the
     * NONE of a missing candidate, is OR-ed in) */
        FOR_BUSY_BANKS(d, ch, bi)
        {
            const bank_t *b = &ch->banks[bi];
            const rank_t *rk = &ch->ranks[b->rank];
            const uint64_t rd = max64(b->next_col, rk->rd_at) | -(uint64_t)(b->hit_rd < 0);
            const uint64_t wr = max64(b->next_col, rk->wr_at) | -(uint64_t)(b->hit_wr < 0);
            const uint64_t act = max64(b->next_act, rk->act_at);
            const uint64_t pre = b->next_pre | -(uint64_t)row_protected(d, b);
            const uint64_t closed = -(uint64_t)(b->open_row < 0);
            const uint64_t row = ((act & closed) | (pre & ~closed)) | -(uint64_t)(b->miss < 0);
            const uint64_t x = min64(min64(rd, wr), row) | -(uint64_t)rk->refresh_pending;
            w = min64(w, x);
        }
    }
    return w > t ? w : t + 1;
}

static void schedule_channel_scan(tbr_dram *d, chan_t *ch, uint64_t t);

static void schedule_channel(tbr_dram *d, chan_t *ch, uint64_t t)
{
    if (d->reference_scan) { /* every cycle, the whole queue */
        schedule_channel_scan(d, ch, t);
        return;
    }
    if (t < ch->wake) return;
    schedule_channel_scan(d, ch, t);
    /* channel_wake only assumes the state does not change after t, so it is as valid after
   * a command issued at t as after a scan that issued none. */
    ch->wake = channel_wake(d, ch, t);
}

/* ACT or PRE for request qi, whose command can issue. */
static void issue_row_cmd(tbr_dram *d, chan_t *ch, int32_t qi, uint64_t t)
{
    dreq_t *q = &ch->q[qi];
    rank_t *rk = &ch->ranks[q->rank];
    bank_t *b = &rk->banks[q->bank];
    if (b->open_row < 0) {
        issue_act(d, ch, rk, b, q->row, t);
        q->caused_act = true;
    } else {
        issue_pre(d, ch, rk, b, t);
        q->caused_pre = true;
    }
}

/* FR-FCFS over the banks' candidates: the same choice as the reference scan below (the
 * oldest ready column command, else the oldest request whose ACT/PRE can issue). */
static void schedule_indexed(tbr_dram *d, chan_t *ch, uint64_t t)
{
    int32_t best = -1;
    uint64_t best_seq = NONE;
    rank_thresholds(d, ch);
    if (t >= ch->next_col) {
        FOR_BUSY_BANKS(d, ch, bi)
        {
            bank_t *b = &ch->banks[bi];
            if (t < b->next_col) continue;
            rank_t *rk = &ch->ranks[b->rank];
            if (rk->refresh_pending) continue;
            if (b->hit_rd >= 0 && t >= rk->rd_at && ch->q[b->hit_rd].seq < best_seq) {
                best = b->hit_rd;
                best_seq = ch->q[best].seq;
            }
            if (b->hit_wr >= 0 && t >= rk->wr_at && ch->q[b->hit_wr].seq < best_seq) {
                best = b->hit_wr;
                best_seq = ch->q[best].seq;
            }
        }
        if (best >= 0) {
            issue_col(d, ch, best, t);
            return;
        }
    }
    FOR_BUSY_BANKS(d, ch, bi)
    {
        bank_t *b = &ch->banks[bi];
        if (b->miss < 0 || ch->q[b->miss].seq >= best_seq) continue;
        rank_t *rk = &ch->ranks[b->rank];
        if (rk->refresh_pending) continue;
        if (b->open_row < 0 ? t >= b->next_act && t >= rk->act_at : t >= b->next_pre && !row_protected(d, b)) {
            best = b->miss;
            best_seq = ch->q[best].seq;
        }
    }
    if (best >= 0) issue_row_cmd(d, ch, best, t);
}

static void schedule_channel_scan(tbr_dram *d, chan_t *ch, uint64_t t)
{
    /* 1. refresh has priority: a rank that is due stops taking new commands,
   *    closes its banks and refreshes. */
    if (d->refresh) {
        for (uint32_t r = 0; r < d->ranks; r++) {
            rank_t *rk = &ch->ranks[r];
            if (t >= rk->refresh_due) rk->refresh_pending = true;
            if (rk->refresh_pending && refresh_step(d, ch, rk, t)) return;
        }
    }
    if (!d->fcfs && !d->reference_scan) {
        schedule_indexed(d, ch, t);
        return;
    }
    /* The reference scan of the queue in arrival order (FCFS: its head only). */
    /* 2. first ready column command (row hit), oldest first (none before tCCD) */
    for (int32_t i = ch->ghead; i >= 0 && t >= ch->next_col; i = d->fcfs ? -1 : ch->q[i].gnext) {
        dreq_t *q = &ch->q[i];
        rank_t *rk = &ch->ranks[q->rank];
        if (rk->refresh_pending) continue;
        if (can_col(d, ch, rk, &rk->banks[q->bank], q, t)) {
            issue_col(d, ch, i, t);
            return;
        }
    }
    /* 3. oldest request whose ACT or PRE can issue now */
    for (int32_t i = ch->ghead; i >= 0; i = d->fcfs ? -1 : ch->q[i].gnext) {
        dreq_t *q = &ch->q[i];
        rank_t *rk = &ch->ranks[q->rank];
        if (rk->refresh_pending) continue;
        bank_t *b = &rk->banks[q->bank];
        if (b->open_row < 0 ? can_act(d, rk, b, t)
                            : b->open_row != (int64_t)q->row && t >= b->next_pre && (d->fcfs || !row_protected(d, b))) {
            issue_row_cmd(d, ch, i, t);
            return;
        }
    }
}

void tbr_dram_rank_cycles(const tbr_dram *d, uint64_t *active, uint64_t *precharged)
{
    uint64_t a = 0, n = 0;
    for (uint32_t c = 0; c < d->channels; c++)
        for (uint32_t r = 0; r < d->ranks; r++) {
            const rank_t *rk = &d->ch[c].ranks[r];
            uint64_t x = rk->act_cycles + (rk->nopen && d->now > rk->act_since ? d->now - rk->act_since : 0);
            a += x;
            n += d->now;
        }
    if (active) *active = a;
    if (precharged) *precharged = n - a;
}

void tbr_dram_tick(tbr_dram *d)
{
    for (uint32_t c = 0; c < d->channels; c++) schedule_channel(d, &d->ch[c], d->now);
    d->now++;
}

bool tbr_dram_pop_response(tbr_dram *d, tbr_mem_msg *out)
{
    if (d->ndone == 0 || d->done[0].ready >= d->now) return false;
    *out = d->done[0];
    memmove(d->done, d->done + 1, (d->ndone - 1) * sizeof *d->done);
    memmove(d->done_seq, d->done_seq + 1, (d->ndone - 1) * sizeof *d->done_seq);
    d->ndone--;
    return true;
}

/* ---- clock-domain crossing ----
 * GPU edge g is at time g/fg, DRAM edge k at k/fd (fg:fd reduced). The first
 * DRAM edge at or after GPU edge g is ceil(g*fd/fg), and vice versa. A value
 * written on one side is usable `sync` receiving-clock edges later. */

uint64_t tbr_dram_gpu_to_dram_edge(const tbr_dram *d, uint64_t g) { return (g * d->fd + d->fg - 1) / d->fg; }
uint64_t tbr_dram_dram_to_gpu_edge(const tbr_dram *d, uint64_t k) { return (k * d->fg + d->fd - 1) / d->fd; }

bool tbr_dram_gpu_send(tbr_dram *d, const tbr_mem_msg *m, uint64_t g)
{
    tbr_mem_msg x = *m;
    x.ready = tbr_dram_gpu_to_dram_edge(d, g) + d->sync;
    return tbr_memq_push(&d->req_cdc, &x);
}

void tbr_dram_gpu_advance(tbr_dram *d, uint64_t g)
{
    /* DRAM cycle k starts before the end of GPU cycle g iff k/fd < (g+1)/fg, i.e. k < end */
    if (g == d->adv_g + 1) {
        uint64_t r = d->adv_rem + d->fd_r, carry = r >= d->fg;
        d->adv_end += d->fd_q + carry;
        d->adv_rem = r - (carry ? d->fg : 0);
        d->adv_g = g;
    } else if (g != d->adv_g) {
        const uint64_t num = (g + 1) * d->fd + d->fg - 1;
        d->adv_end = num / d->fg;
        d->adv_rem = num % d->fg;
        d->adv_g = g;
    }
    const uint64_t end = d->adv_end;
    if (d->now >= end) return;
    /* Nothing can happen in the cycles [now, end) (no request becomes visible, no channel
   * can issue a command before its wake cycle, no completion becomes due): they only
   * pass, which is all tbr_dram_tick would do (exact; not with the reference scan, which
   * scans every cycle). */
    if (!d->reference_scan && tbr_memq_head_ready(&d->req_cdc) >= end && (!d->ndone || d->done[0].ready >= end)) {
        bool quiet = true;
        for (uint32_t c = 0; c < d->channels && quiet; c++) quiet = d->ch[c].wake >= end;
        if (quiet) {
            d->now = end;
            return;
        }
    }
    while (d->now < end) {
        const tbr_mem_msg *m;
        while ((m = tbr_memq_peek(&d->req_cdc, d->now)) != NULL && tbr_dram_can_accept(d, m->addr)) {
            tbr_dram_enqueue(d, m);
            tbr_memq_pop(&d->req_cdc);
        }
        tbr_dram_tick(d);
        while (d->ndone && d->done[0].ready < d->now && !tbr_memq_full(&d->resp_cdc)) {
            tbr_mem_msg r;
            tbr_dram_pop_response(d, &r);
            r.ready = tbr_dram_dram_to_gpu_edge(d, r.ready) + d->sync;
            tbr_memq_push(&d->resp_cdc, &r);
        }
    }
}

uint64_t tbr_dram_gpu_resp_ready(const tbr_dram *d) { return tbr_memq_head_ready(&d->resp_cdc); }
bool tbr_dram_gpu_req_full(const tbr_dram *d) { return tbr_memq_full(&d->req_cdc); }

bool tbr_dram_gpu_recv(tbr_dram *d, uint64_t g, tbr_mem_msg *out)
{
    const tbr_mem_msg *m = tbr_memq_peek(&d->resp_cdc, g);
    if (!m) return false;
    *out = *m;
    tbr_memq_pop(&d->resp_cdc);
    return true;
}
