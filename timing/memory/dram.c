/* LPDDR4-style DRAM + memory controller timing model (see dram.h and
 * docs/dram-model.md; thesis §4.2, Table 4.1). */
#include "memory/dram.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

enum { QS_UNIFIED, QS_PER_BANK, QS_PER_RANK };
enum { PP_OPEN, PP_CLOSED, PP_ADAPTIVE };

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
    bool posted; /* split controller: a write already answered when the write buffer took it */
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
    uint64_t next_rd; /* tWTR_L after writes to this bank group */
    uint32_t hits_since_act;
    uint32_t open_hits;     /* queued requests for the open row (kept on enqueue/ACT/PRE/completion) */
    uint32_t rank;          /* owning rank (flat bank index = rank * banks + bank) */
    uint32_t bg;            /* bank group within the rank */
    int32_t head, tail;     /* this bank's requests, oldest first */
    int32_t hit_rd, hit_wr; /* oldest queued read / write hitting the open row */
    int32_t miss;           /* oldest queued request for another row (any request when precharged) */
} bank_t;

typedef struct {
    bank_t *banks;
    uint64_t next_act; /* tRRD */
    uint64_t faw[4];   /* last four ACT cycles (ring) */
    uint32_t faw_n, faw_pos;
    uint64_t next_rd;  /* tWTR(_S) after writes to this rank */
    uint64_t next_col; /* tCCD(_S) after a column command to this rank */
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
    /* Split controller (dram.queue_structure per_bank / per_rank; unused when unified): the
     * read queue and the write buffer (transactions, oldest first), the command queues
     * (nqueues x cmdq_size entries, oldest first; cqn = entries per queue), the queue
     * served last (round robin) and the writes left in the current write drain. */
    dreq_t *rdq, *wrb, *cq;
    uint32_t rdn, wrn, *cqn, cq_total;
    uint32_t *cq_hits; /* per_bank: entries of queue qi hitting its bank's open row, [2*qi + write] */
    uint32_t rr, drain_left;
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
    uint64_t tCCD_L, tWTR_L, tRRD_L, tPPD; /* bank-group (same group) variants, PRE to PRE */
    bool ccd_ranks;                        /* dram.tCCD_across_ranks */
    bool refresh, fcfs;
    int structure;   /* QS_* (dram.queue_structure) */
    int page_policy; /* PP_* (dram.page_policy) */
    uint32_t cmdq_size, nqueues, wr_high, wr_low, wr_idle, banks_per_group;
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
            *read_latency, *write_latency, *queue_full, *drains, *forwarded, *merged;
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
    /* the bank-group variants default to 0 = the same as the plain (short) value */
    d->tCCD_L = U("tCCD_L") ? U("tCCD_L") : d->tCCD;
    d->tWTR_L = U("tWTR_L") ? U("tWTR_L") : d->tWTR;
    d->tRRD_L = U("tRRD_L") ? U("tRRD_L") : d->tRRD;
    d->tPPD = U("tPPD");
    d->cmdq_size = U("cmd_queue_size");
    d->wr_high = U("write_high_watermark");
    d->wr_low = U("write_low_watermark");
    d->wr_idle = U("write_idle_drain");
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
    d->ccd_ranks = tbr_cfg_bool(cfg, "dram.tCCD_across_ranks");
    const char *qs = tbr_cfg_str(cfg, "dram.queue_structure"), *pp = tbr_cfg_str(cfg, "dram.page_policy");
    d->structure = !strcmp(qs, "per_bank") ? QS_PER_BANK : !strcmp(qs, "per_rank") ? QS_PER_RANK : QS_UNIFIED;
    d->page_policy = !strcmp(pp, "closed") ? PP_CLOSED : !strcmp(pp, "open_adaptive") ? PP_ADAPTIVE : PP_OPEN;
    uint64_t fg = tbr_cfg_uint(cfg, "gpu.clock_mhz"), g = gcd(fg, fd);
    d->fg = fg / g;
    d->fd = fd / g;
    d->fd_q = d->fd / d->fg;
    d->fd_r = d->fd % d->fg;

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
    d->banks_per_group = d->banks / d->bankgroups;
    d->nqueues = d->structure == QS_PER_BANK ? d->nbanks : d->ranks;
    for (uint32_t c = 0; c < d->channels; c++) {
        chan_t *ch = &d->ch[c];
        ch->ranks = tbr_xcalloc(d->ranks, sizeof *ch->ranks);
        ch->banks = tbr_xcalloc(d->nbanks, sizeof *ch->banks);
        ch->busy = tbr_xcalloc(d->busy_words, sizeof *ch->busy);
        ch->q = tbr_xcalloc(d->qsize, sizeof *ch->q);
        ch->free_slots = tbr_xcalloc(d->qsize, sizeof *ch->free_slots);
        if (d->structure != QS_UNIFIED) {
            ch->rdq = tbr_xcalloc(d->qsize, sizeof *ch->rdq);
            ch->wrb = tbr_xcalloc(d->qsize, sizeof *ch->wrb);
            ch->cq = tbr_xcalloc((size_t)d->nqueues * d->cmdq_size, sizeof *ch->cq);
            ch->cqn = tbr_xcalloc(d->nqueues, sizeof *ch->cqn);
            ch->cq_hits = tbr_xcalloc(2 * (size_t)d->nqueues, sizeof *ch->cq_hits);
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
    if (d->structure != QS_UNIFIED) { /* only the split controller has them (the default's stats stay as they were) */
        TS(drains, "write_drains", "write-drain episodes (split controller: write buffer at its high watermark)");
        TS(forwarded, "reads_forwarded", "reads answered from the write buffer (split controller)");
        TS(merged, "writes_merged", "writes merged into a pending write of the same request (split controller)");
    }
#undef TS
    d->st.read_latency = tbr_stats_histogram(stats, "dram.read_latency",
                                             "read latency in DRAM cycles, controller arrival to response", 4, 256);
    d->st.write_latency =
        tbr_stats_average(stats, "dram.write_latency", "write latency in DRAM cycles, arrival to completion");
    tbr_memq_init(&d->req_cdc, cdc_depth);
    tbr_memq_init(&d->resp_cdc, cdc_depth);
    tbr_dram_reset(d);
    return d;
}

/* A channel's state at power-up: no request, every bank precharged, refreshes staggered. */
static void chan_reset(const tbr_dram *d, chan_t *ch)
{
    memset(ch->ranks, 0, d->ranks * sizeof *ch->ranks);
    memset(ch->banks, 0, d->nbanks * sizeof *ch->banks);
    memset(ch->busy, 0, d->busy_words * sizeof *ch->busy);
    memset(ch->q, 0, d->qsize * sizeof *ch->q);
    for (uint32_t i = 0; i < d->qsize; i++) ch->free_slots[i] = (int32_t)(d->qsize - 1 - i);
    ch->qn = 0;
    ch->ghead = ch->gtail = -1;
    ch->next_col = ch->bus_free = ch->wake = 0;
    ch->last_dir = 0;
    ch->last_rank = 0;
    ch->rdn = ch->wrn = ch->cq_total = ch->rr = ch->drain_left = 0;
    if (d->structure != QS_UNIFIED) {
        memset(ch->cqn, 0, d->nqueues * sizeof *ch->cqn);
        memset(ch->cq_hits, 0, 2 * (size_t)d->nqueues * sizeof *ch->cq_hits);
        ch->rr = d->nqueues - 1; /* the first search starts at queue 0 */
    }
    for (uint32_t r = 0; r < d->ranks; r++) {
        rank_t *rk = &ch->ranks[r];
        rk->banks = ch->banks + (size_t)r * d->banks;
        for (uint32_t b = 0; b < d->banks; b++) {
            bank_t *bk = &rk->banks[b];
            bk->open_row = -1;
            bk->rank = r;
            bk->bg = b / d->banks_per_group;
            bk->head = bk->tail = bk->hit_rd = bk->hit_wr = bk->miss = -1;
        }
        /* ranks are staggered so that their refreshes do not coincide */
        rk->refresh_due = d->tREFI * (r + 1) / d->ranks;
        rk->last_ref = NONE;
    }
}

void tbr_dram_reset(tbr_dram *d)
{
    for (uint32_t c = 0; c < d->channels; c++) chan_reset(d, &d->ch[c]);
    d->now = d->seq = 0;
    d->ndone = 0;
    memset(&d->tot, 0, sizeof d->tot);
    d->adv_g = 0; /* N(0) = fd + fg - 1 */
    d->adv_end = (d->fd + d->fg - 1) / d->fg;
    d->adv_rem = (d->fd + d->fg - 1) % d->fg;
    tbr_memq_reset(&d->req_cdc);
    tbr_memq_reset(&d->resp_cdc);
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
        free(d->ch[c].rdq);
        free(d->ch[c].wrb);
        free(d->ch[c].cq);
        free(d->ch[c].cqn);
        free(d->ch[c].cq_hits);
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

bool tbr_dram_can_accept(const tbr_dram *d, uint64_t addr, bool write)
{
    tbr_dram_coord c;
    tbr_dram_decode(d, addr, &c);
    const chan_t *ch = &d->ch[c.ch];
    if (d->structure != QS_UNIFIED) return (write ? ch->wrn : ch->rdn) < d->qsize;
    return ch->qn < d->qsize;
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
static void split_count_hits(const tbr_dram *d, chan_t *ch, const bank_t *b);
static void split_enqueue(tbr_dram *d, chan_t *ch, dreq_t *r);
static uint64_t split_wake(const tbr_dram *d, const chan_t *ch, uint64_t t);

/* Can the split controller of ch still do something without a new request? Writes
 * below both drain thresholds wait in the write buffer indefinitely (they are answered
 * already), as in DRAMsim3; such a channel is idle. */
static bool split_busy(const tbr_dram *d, const chan_t *ch)
{
    return ch->cq_total || ch->rdn || ch->drain_left || ch->wrn >= d->wr_high || ch->wrn > d->wr_idle;
}

bool tbr_dram_enqueue(tbr_dram *d, const tbr_mem_msg *m)
{
    tbr_dram_coord c;
    tbr_dram_decode(d, m->addr, &c);
    chan_t *ch = &d->ch[c.ch];
    if (!tbr_dram_can_accept(d, m->addr, m->write)) {
        tbr_stat_inc(d->st.queue_full);
        return false;
    }
    if (d->structure != QS_UNIFIED) {
        dreq_t r = {.msg = *m,
                    .arrival = d->now,
                    .seq = d->seq++,
                    .rank = c.rank,
                    .bank = c.bank,
                    .row = c.row,
                    .col = c.col,
                    .bursts_left = d->bursts_per_req,
                    .prev = -1,
                    .next = -1,
                    .gprev = -1,
                    .gnext = -1};
        split_enqueue(d, ch, &r);
        return true;
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
        if (d->structure != QS_UNIFIED ? split_busy(d, &d->ch[c]) : d->ch[c].qn != 0) return false;
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
    if (b->open_row != (int64_t)q->row || t < b->next_col || t < ch->next_col || t < rk->next_col) return false;
    if (q->msg.write) return t + d->tCWL >= bus_ready(d, ch, 2, q->rank);
    return t >= rk->next_rd && t >= b->next_rd && t + d->tCL >= bus_ready(d, ch, 1, q->rank);
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
    if (d->structure == QS_PER_BANK) split_count_hits(d, ch, b);
    b->next_col = t + d->tRCD;
    b->next_pre = max64(b->next_pre, t + d->tRAS);
    b->hits_since_act = 0;
    rk->next_act = t + d->tRRD;
    if (d->tRRD_L != d->tRRD) /* ACT to ACT in the same bank group */
        for (uint32_t i = 0; i < d->banks_per_group; i++) {
            bank_t *o = &rk->banks[b->bg * d->banks_per_group + i];
            if (o != b) o->next_act = max64(o->next_act, t + d->tRRD_L);
        }
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
    if (d->structure == QS_PER_BANK) {
        uint32_t qi = (uint32_t)(b - ch->banks);
        ch->cq_hits[2 * qi] = ch->cq_hits[2 * qi + 1] = 0;
    }
    b->next_act = max64(b->next_act, t + d->tRP);
    if (d->tPPD) /* PRE to PRE, same rank */
        for (uint32_t i = 0; i < d->banks; i++) rk->banks[i].next_pre = max64(rk->banks[i].next_pre, t + d->tPPD);
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

/* One column command (RD/WR burst) of request q at t: timing state, data bus and counters.
 * On the request's last burst it completes (response unless posted) and true is returned. */
static bool col_command(tbr_dram *d, chan_t *ch, dreq_t *q, uint64_t t)
{
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
        if (d->tWTR_L != d->tWTR) /* write to read in the same bank group */
            for (uint32_t i = 0; i < d->banks_per_group; i++) {
                bank_t *o = &rk->banks[b->bg * d->banks_per_group + i];
                o->next_rd = max64(o->next_rd, data_start + burst + d->tWTR_L);
            }
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
    /* tCCD between ranks only if configured so (otherwise the data-bus rule alone, with
     * its tRTRS, separates them); one command per cycle in any case */
    ch->next_col = t + (d->ccd_ranks ? d->tCCD : 1);
    rk->next_col = t + d->tCCD;
    if (d->tCCD_L != d->tCCD) /* column to column in the same bank group */
        for (uint32_t i = 0; i < d->banks_per_group; i++) {
            bank_t *o = &rk->banks[b->bg * d->banks_per_group + i];
            o->next_col = max64(o->next_col, t + d->tCCD_L);
        }
    b->hits_since_act++;
    tbr_stat_add(ch->st.bus_busy, burst);
    uint32_t bytes = d->bus_bytes * d->bl;
    tbr_stat_add(d->st.bytes, bytes);
    d->tot.bytes += bytes;
    if (--q->bursts_left > 0) return false;

    tbr_mem_msg m = q->msg;
    m.ready = data_start + burst + d->ctrl;
    uint64_t lat = m.ready - q->arrival;
    if (m.write) {
        tbr_stat_inc(ch->st.writes);
        tbr_stat_inc(d->st.writes);
        d->tot.writes++;
        if (q->posted) return true;
        tbr_stat_sample(d->st.write_latency, (double)lat);
    } else {
        tbr_stat_inc(ch->st.reads);
        tbr_stat_inc(d->st.reads);
        d->tot.reads++;
        tbr_stat_hsample(d->st.read_latency, lat);
    }
    add_done(d, &m, q->seq);
    return true;
}

/* Auto-precharge after a request's last column command (dram.page_policy closed, or
 * open_adaptive with no queued request for the row): the bank closes as soon as tRAS and
 * tRTP/tWR allow, without a PRE on the command bus (RDA/WRA; counted as a PRE). */
static void auto_precharge(tbr_dram *d, chan_t *ch, rank_t *rk, bank_t *b, uint64_t t)
{
    uint64_t at = b->next_pre;
    issue_pre(d, ch, rk, b, t);
    b->next_act = max64(b->next_act, at + d->tRP);
}

/* Column command for queue slot qi of the unified queue. */
static void issue_col(tbr_dram *d, chan_t *ch, int32_t qi, uint64_t t)
{
    dreq_t *q = &ch->q[qi];
    rank_t *rk = &ch->ranks[q->rank];
    bank_t *b = &rk->banks[q->bank];
    if (!col_command(d, ch, q, t)) return;
    b->open_hits--; /* a column command needs the open row: it was counted */
    remove_req(d, ch, b, qi);
    if (d->page_policy == PP_CLOSED || (d->page_policy == PP_ADAPTIVE && b->open_hits == 0))
        auto_precharge(d, ch, rk, b, t);
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
/* The earliest cycle a column command of direction `write` to the open row of bank b
 * (of rank r) could issue if the state does not change meanwhile. */
static uint64_t col_ready(const tbr_dram *d, const chan_t *ch, uint32_t r, const bank_t *b, bool write)
{
    const rank_t *rk = &ch->ranks[r];
    uint64_t x = max64(max64(b->next_col, ch->next_col), rk->next_col);
    if (write) {
        if (ch->last_dir) x = max64(x, sat_sub(bus_ready(d, ch, 2, r), d->tCWL));
    } else {
        x = max64(x, max64(rk->next_rd, b->next_rd));
        if (ch->last_dir) x = max64(x, sat_sub(bus_ready(d, ch, 1, r), d->tCL));
    }
    return x;
}

static uint64_t req_ready(const tbr_dram *d, const chan_t *ch, const dreq_t *q)
{
    const rank_t *rk = &ch->ranks[q->rank];
    if (rk->refresh_pending) return NONE;
    const bank_t *b = &rk->banks[q->bank];
    uint64_t x;
    if (b->open_row == (int64_t)q->row) {
        x = col_ready(d, ch, q->rank, b, q->msg.write);
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
        uint64_t col = max64(ch->next_col, rk->next_col);
        uint64_t rd = max64(col, rk->next_rd), wr = col;
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
    if (d->structure != QS_UNIFIED) {
        /* an idle split controller (split_busy) waits only for refresh */
        if (split_busy(d, ch)) w = min64(w, split_wake(d, ch, t));
    } else if (d->fcfs) {
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
            const uint64_t rd = max64(max64(b->next_col, b->next_rd), rk->rd_at) | -(uint64_t)(b->hit_rd < 0);
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

/* ---- split controller (dram.queue_structure per_bank / per_rank; docs/dram-model.md) ----
 * Transactions wait in a read queue or a posted write buffer; one per cycle moves into
 * the command queue of its bank (or rank) when that has room: reads, except during a
 * write drain, which starts when the write buffer reaches its high watermark (or holds
 * more than write_idle_drain writes while every command queue is empty) and moves the
 * writes buffered at its start minus the low watermark. The command queues are served
 * round robin, one command per cycle: in the first queue (after the one served last)
 * that has a ready command, its first ready command in queue order. The structure and
 * policies follow what DRAMsim3's controller does (public source, read to learn). */

static uint32_t split_queue_of(const tbr_dram *d, const dreq_t *q)
{
    return d->structure == QS_PER_BANK ? q->rank * d->banks + q->bank : q->rank;
}

/* per_bank: recounts the entries of bank b's queue that hit its open row (after an ACT). */
static void split_count_hits(const tbr_dram *d, chan_t *ch, const bank_t *b)
{
    uint32_t qi = (uint32_t)(b - ch->banks);
    const dreq_t *e = &ch->cq[(size_t)qi * d->cmdq_size];
    ch->cq_hits[2 * qi] = ch->cq_hits[2 * qi + 1] = 0;
    for (uint32_t k = 0; k < ch->cqn[qi]; k++)
        if (b->open_row == (int64_t)e[k].row) ch->cq_hits[2 * qi + e[k].msg.write]++;
}

static bool same_line(const tbr_dram *d, const dreq_t *a, uint64_t addr)
{
    return (a->msg.addr >> d->offset_bits) == (addr >> d->offset_bits);
}

/* Is a request of direction `write` for q's line waiting in the transaction queue of
 * that direction or in a command queue? (A line has one bank, so only its command queue
 * can hold it.) */
static bool split_pending(const tbr_dram *d, const chan_t *ch, const dreq_t *q, bool write)
{
    const uint64_t addr = q->msg.addr;
    const dreq_t *tq = write ? ch->wrb : ch->rdq;
    uint32_t tn = write ? ch->wrn : ch->rdn;
    for (uint32_t i = 0; i < tn; i++)
        if (same_line(d, &tq[i], addr)) return true;
    const uint32_t qi = split_queue_of(d, q);
    for (uint32_t k = 0; k < ch->cqn[qi]; k++) {
        const dreq_t *e = &ch->cq[(size_t)qi * d->cmdq_size + k];
        if ((bool)e->msg.write == write && same_line(d, e, addr)) return true;
    }
    return false;
}

/* A response at once (posted write, read forwarded from the write buffer, merged write). */
static void split_answer(tbr_dram *d, chan_t *ch, const dreq_t *r)
{
    tbr_mem_msg m = r->msg;
    m.ready = d->now + d->ctrl;
    if (m.write) {
        tbr_stat_sample(d->st.write_latency, (double)d->ctrl);
    } else {
        tbr_stat_inc(ch->st.reads);
        tbr_stat_inc(d->st.reads);
        d->tot.reads++;
        tbr_stat_hsample(d->st.read_latency, d->ctrl);
    }
    add_done(d, &m, r->seq);
}

static void split_enqueue(tbr_dram *d, chan_t *ch, dreq_t *r)
{
    ch->wake = 0;
    bool in_wrb = split_pending(d, ch, r, true);
    if (r->msg.write) {
        split_answer(d, ch, r); /* posted */
        if (in_wrb) {           /* the pending write takes the new data */
            tbr_stat_inc(d->st.merged);
            tbr_stat_inc(ch->st.writes);
            tbr_stat_inc(d->st.writes);
            d->tot.writes++;
            return;
        }
        r->posted = true;
        ch->wrb[ch->wrn++] = *r;
    } else if (in_wrb) { /* read after write: forwarded from the write buffer */
        tbr_stat_inc(d->st.forwarded);
        split_answer(d, ch, r);
        return;
    } else {
        ch->rdq[ch->rdn++] = *r;
    }
    ch->qn++;
}

/* Moves at most one transaction into its command queue (end of the cycle). */
static void split_move(tbr_dram *d, chan_t *ch)
{
    if (!ch->drain_left && ch->wrn > d->wr_low &&
        (ch->wrn >= d->wr_high || (ch->wrn > d->wr_idle && ch->cq_total == 0))) {
        ch->drain_left = ch->wrn - d->wr_low;
        tbr_stat_inc(d->st.drains);
    }
    dreq_t *src = ch->drain_left ? ch->wrb : ch->rdq;
    uint32_t *n = ch->drain_left ? &ch->wrn : &ch->rdn;
    for (uint32_t i = 0; i < *n; i++) {
        uint32_t qi = split_queue_of(d, &src[i]);
        if (ch->cqn[qi] == d->cmdq_size) continue;
        if (src[i].msg.write) {
            /* a read of the line is still pending: the drain ends (read before write) */
            if (split_pending(d, ch, &src[i], false)) {
                ch->drain_left = 0;
                return;
            }
            ch->drain_left--;
        }
        ch->cq[(size_t)qi * d->cmdq_size + ch->cqn[qi]++] = src[i];
        ch->cq_total++;
        if (d->structure == QS_PER_BANK && ch->banks[qi].open_row == (int64_t)src[i].row)
            ch->cq_hits[2 * qi + src[i].msg.write]++;
        memmove(&src[i], &src[i + 1], (*n - i - 1) * sizeof *src);
        (*n)--;
        return;
    }
}

/* May entry k of a command queue precharge its bank (whose open row it does not hit)?
 * Only the bank's oldest entry in the queue may, and only if no entry from k on still
 * hits the open row, unless the row-hit cap was reached. */
static bool split_pre_ok(const tbr_dram *d, const dreq_t *e, uint32_t n, uint32_t k, const bank_t *b)
{
    for (uint32_t j = 0; j < k; j++)
        if (e[j].rank == e[k].rank && e[j].bank == e[k].bank) return false;
    if (d->hit_cap && b->hits_since_act >= d->hit_cap) return true;
    for (uint32_t j = k + 1; j < n; j++)
        if (e[j].rank == e[k].rank && e[j].bank == e[k].bank && b->open_row == (int64_t)e[j].row) return false;
    return true;
}

/* Column command of entry k of command queue qi; removes it when done. */
static void split_col(tbr_dram *d, chan_t *ch, uint32_t qi, uint32_t k, uint64_t t)
{
    dreq_t *e = &ch->cq[(size_t)qi * d->cmdq_size];
    rank_t *rk = &ch->ranks[e[k].rank];
    bank_t *b = &rk->banks[e[k].bank];
    if (!col_command(d, ch, &e[k], t)) return;
    uint32_t rank = e[k].rank, bank = e[k].bank;
    if (d->structure == QS_PER_BANK) ch->cq_hits[2 * qi + e[k].msg.write]--; /* it hit the open row */
    memmove(&e[k], &e[k + 1], (ch->cqn[qi] - k - 1) * sizeof *e);
    ch->cqn[qi]--;
    ch->cq_total--;
    ch->qn--;
    bool wanted = false;
    for (uint32_t j = 0; j < ch->cqn[qi] && !wanted; j++)
        wanted = e[j].rank == rank && e[j].bank == bank && b->open_row == (int64_t)e[j].row;
    if (d->page_policy == PP_CLOSED || (d->page_policy == PP_ADAPTIVE && !wanted)) auto_precharge(d, ch, rk, b, t);
}

/* Does entry k of a command queue write a line an older entry of the queue reads? */
static bool split_raw_dep(const tbr_dram *d, const dreq_t *e, uint32_t k)
{
    for (uint32_t j = 0; j < k; j++)
        if (!e[j].msg.write && same_line(d, &e[j], e[k].msg.addr)) return true;
    return false;
}

/* split_issue_from for a per-bank queue, without visiting every entry's rank and bank:
 * all its entries share them, so the first ready entry in queue order is the first of
 * the ready ones among: the first read hit, the first write hit without a read before
 * it (split_raw_dep), and entry 0 when it conflicts (only the bank's oldest entry may
 * precharge); with the bank closed, entry 0's ACT. (The reference scan takes the general
 * loop; test timing.dram compares them.) */
static bool split_issue_bank(tbr_dram *d, chan_t *ch, uint32_t qi, uint64_t t)
{
    dreq_t *e = &ch->cq[(size_t)qi * d->cmdq_size];
    uint32_t n = ch->cqn[qi];
    rank_t *rk = &ch->ranks[e[0].rank];
    if (rk->refresh_pending) return false;
    bank_t *b = &rk->banks[e[0].bank];
    if (b->open_row < 0) {
        if (!can_act(d, rk, b, t)) return false;
        issue_act(d, ch, rk, b, e[0].row, t);
        e[0].caused_act = true;
        return true;
    }
    int64_t rd = -1, wr = -1;
    bool hits = false;
    for (uint32_t k = 0; k < n; k++) {
        if (b->open_row != (int64_t)e[k].row) continue;
        hits = true;
        if (!e[k].msg.write) {
            if (rd < 0) rd = k;
        } else if (wr < 0 && !split_raw_dep(d, e, k)) {
            wr = k;
        }
    }
    /* entry 0 comes first in queue order: its PRE when it conflicts and may precharge */
    if (b->open_row != (int64_t)e[0].row && t >= b->next_pre &&
        (!hits || (d->hit_cap && b->hits_since_act >= d->hit_cap))) {
        issue_pre(d, ch, rk, b, t);
        e[0].caused_pre = true;
        return true;
    }
    if (rd >= 0 && !can_col(d, ch, rk, b, &e[rd], t)) rd = -1;
    if (wr >= 0 && !can_col(d, ch, rk, b, &e[wr], t)) wr = -1;
    if (rd < 0 && wr < 0) return false;
    split_col(d, ch, qi, (uint32_t)(rd < 0 ? wr : wr < 0 ? rd : rd < wr ? rd : wr), t);
    return true;
}

/* Issues the first ready command of command queue qi; false if it has none. */
static bool split_issue_from(tbr_dram *d, chan_t *ch, uint32_t qi, uint64_t t)
{
    if (d->structure == QS_PER_BANK && !d->reference_scan) return split_issue_bank(d, ch, qi, t);
    dreq_t *e = &ch->cq[(size_t)qi * d->cmdq_size];
    uint32_t n = ch->cqn[qi];
    /* per-bank queue: once the column command of one direction (or the ACT) of an entry
     * is not legal, it is not for the later entries either (same bank and rank) */
    const bool one_bank = d->structure == QS_PER_BANK;
    bool blocked[3] = {false, false, false}; /* read, write, ACT */
    for (uint32_t k = 0; k < n; k++) {
        dreq_t *q = &e[k];
        rank_t *rk = &ch->ranks[q->rank];
        if (rk->refresh_pending) continue;
        bank_t *b = &rk->banks[q->bank];
        if (b->open_row == (int64_t)q->row) {
            bool dep = false; /* a write waits for an older read of its line in the queue */
            for (uint32_t j = 0; j < k && q->msg.write && !dep; j++)
                dep = !e[j].msg.write && same_line(d, &e[j], q->msg.addr);
            if (dep || blocked[q->msg.write]) continue;
            if (!can_col(d, ch, rk, b, q, t)) {
                blocked[q->msg.write] = one_bank;
                continue;
            }
            split_col(d, ch, qi, k, t);
        } else if (b->open_row < 0) {
            if (blocked[2]) continue;
            if (!can_act(d, rk, b, t)) {
                blocked[2] = one_bank;
                continue;
            }
            issue_act(d, ch, rk, b, q->row, t);
            q->caused_act = true;
        } else {
            if (t < b->next_pre || !split_pre_ok(d, e, n, k, b)) continue;
            issue_pre(d, ch, rk, b, t);
            q->caused_pre = true;
        }
        return true;
    }
    return false;
}

/* Would split_move move a transaction now (or start a drain)? */
static bool split_can_move(const tbr_dram *d, const chan_t *ch)
{
    if (!ch->drain_left && ch->wrn > d->wr_low &&
        (ch->wrn >= d->wr_high || (ch->wrn > d->wr_idle && ch->cq_total == 0)))
        return true;
    const dreq_t *src = ch->drain_left ? ch->wrb : ch->rdq;
    uint32_t n = ch->drain_left ? ch->wrn : ch->rdn;
    for (uint32_t i = 0; i < n; i++)
        if (ch->cqn[split_queue_of(d, &src[i])] < d->cmdq_size) return true;
    return false;
}

/* channel_wake's part for the split controller: the next cycle if a transaction can
 * move, else the earliest cycle any command-queue entry's next command could be legal
 * (req_ready: a lower bound, as the precharge arbitration can only delay). */
static uint64_t split_wake(const tbr_dram *d, const chan_t *ch, uint64_t t)
{
    if (split_can_move(d, ch)) return t + 1;
    uint64_t w = NONE;
    if (d->structure == QS_PER_BANK) {
        /* per bank, from the queue's first entry and its hit counts (a lower bound: a
         * conflicting entry 0 may be kept from precharging, a write hit may wait for a read) */
        for (uint32_t qi = 0; qi < d->nqueues; qi++) {
            if (!ch->cqn[qi]) continue;
            const dreq_t *e0 = &ch->cq[(size_t)qi * d->cmdq_size];
            const bank_t *b = &ch->banks[qi];
            if (ch->ranks[e0->rank].refresh_pending) continue; /* the refresh part covers it */
            if (b->open_row < 0 || b->open_row != (int64_t)e0->row) w = min64(w, req_ready(d, ch, e0));
            if (ch->cq_hits[2 * qi]) w = min64(w, col_ready(d, ch, e0->rank, b, false));
            if (ch->cq_hits[2 * qi + 1]) w = min64(w, col_ready(d, ch, e0->rank, b, true));
        }
        return w;
    }
    for (uint32_t qi = 0; qi < d->nqueues; qi++) /* per rank: every entry (several banks) */
        for (uint32_t k = 0; k < ch->cqn[qi]; k++)
            w = min64(w, req_ready(d, ch, &ch->cq[(size_t)qi * d->cmdq_size + k]));
    return w;
}

static void split_schedule(tbr_dram *d, chan_t *ch, uint64_t t)
{
    bool used = false;
    if (d->refresh)
        for (uint32_t r = 0; r < d->ranks && !used; r++) {
            rank_t *rk = &ch->ranks[r];
            if (t >= rk->refresh_due) rk->refresh_pending = true;
            used = rk->refresh_pending && refresh_step(d, ch, rk, t);
        }
    for (uint32_t i = 1; i <= d->nqueues && !used && ch->cq_total; i++) {
        uint32_t qi = (ch->rr + i) % d->nqueues;
        if (ch->cqn[qi] && split_issue_from(d, ch, qi, t)) {
            ch->rr = qi;
            used = true;
        }
    }
    split_move(d, ch);
}

static void schedule_channel_scan(tbr_dram *d, chan_t *ch, uint64_t t);
static void split_schedule(tbr_dram *d, chan_t *ch, uint64_t t);

static void schedule_channel(tbr_dram *d, chan_t *ch, uint64_t t)
{
    if (d->reference_scan) { /* every cycle (unified: the whole queue), without the wake cycle */
        if (d->structure == QS_UNIFIED)
            schedule_channel_scan(d, ch, t);
        else
            split_schedule(d, ch, t);
        return;
    }
    if (t < ch->wake) return;
    if (d->structure != QS_UNIFIED)
        split_schedule(d, ch, t);
    else
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
            if (b->hit_rd >= 0 && t >= rk->rd_at && t >= b->next_rd && ch->q[b->hit_rd].seq < best_seq) {
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

/* ---- idle time (tbr_dram_skip_to) ---- */

/* Is channel ch empty, every bank precharged and ready, and no refresh pending? Then
 * the only commands until the next request are the REFs, each at its due cycle. */
static bool channel_clean_idle(const tbr_dram *d, const chan_t *ch)
{
    if (d->structure != QS_UNIFIED ? split_busy(d, ch) : ch->qn != 0) return false;
    for (uint32_t r = 0; r < d->ranks; r++) {
        const rank_t *rk = &ch->ranks[r];
        if (rk->refresh_pending) return false;
        for (uint32_t b = 0; b < d->banks; b++)
            if (rk->banks[b].open_row >= 0 || rk->banks[b].next_act > rk->refresh_due) return false;
        /* two ranks due in the same cycle would share the command slot: not closed form */
        for (uint32_t s = 0; s < r; s++)
            if (ch->ranks[s].refresh_due % d->tREFI == rk->refresh_due % d->tREFI) return false;
    }
    return true;
}

/* The REFs of a clean idle channel in [now, target), in closed form: rank r refreshes at
 * each due cycle (refresh_step finds its banks ready, tRFC < tREFI), exactly as ticking
 * would (counts, last_ref, the banks' next ACT). */
static void channel_refresh_until(tbr_dram *d, chan_t *ch, uint64_t target)
{
    for (uint32_t r = 0; r < d->ranks; r++) {
        rank_t *rk = &ch->ranks[r];
        if (rk->refresh_due >= target) continue;
        uint64_t n = (target - 1 - rk->refresh_due) / d->tREFI + 1, last = rk->refresh_due + (n - 1) * d->tREFI;
        for (uint32_t b = 0; b < d->banks; b++) rk->banks[b].next_act = last + d->tRFC;
        rk->refresh_due += n * d->tREFI;
        rk->last_ref = last;
        tbr_stat_add(ch->st.ref, n);
        tbr_stat_add(d->st.ref, n);
        d->tot.ref += n;
    }
    ch->wake = 0; /* recomputed at the next tick */
}

void tbr_dram_skip_to(tbr_dram *d, uint64_t target)
{
    while (d->now < target) {
        uint64_t next = target;
        bool clean = d->refresh && !d->reference_scan;
        for (uint32_t c = 0; c < d->channels; c++) {
            next = min64(next, d->ch[c].wake);
            clean = clean && channel_clean_idle(d, &d->ch[c]);
        }
        if (clean) {
            for (uint32_t c = 0; c < d->channels; c++) channel_refresh_until(d, &d->ch[c], target);
            d->now = target;
        } else if (next > d->now && !d->reference_scan) {
            d->now = next; /* no channel can issue a command before its wake cycle */
        } else {
            tbr_dram_tick(d);
        }
    }
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
        while ((m = tbr_memq_peek(&d->req_cdc, d->now)) != NULL && tbr_dram_can_accept(d, m->addr, m->write)) {
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
