/* LPDDR4-style DRAM + memory controller timing model (see dram.h and
 * docs/dram-model.md; thesis §4.2, Table 4.1). */
#include "dram.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

enum { F_CH, F_RA, F_BG, F_BA, F_RO, F_CO, F_N };
static const char *k_fields[F_N] = {"ch", "ra", "bg", "ba", "ro", "co"};

typedef struct {
  tbr_mem_msg msg;
  uint64_t arrival, seq;
  uint32_t rank, bank, row, col;
  uint32_t bursts_left;
  bool caused_act, caused_pre, classified;
} dreq_t;

typedef struct {
  int64_t open_row; /* -1 = precharged */
  uint64_t next_act, next_pre, next_col;
  uint32_t hits_since_act;
  uint32_t open_hits;  /* queued requests for the open row (kept on enqueue/ACT/PRE/completion) */
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
} rank_t;

typedef struct {
  tbr_stat *act, *pre, *rd, *wr, *ref, *reads, *writes, *row_hits, *row_misses, *row_conflicts, *bus_busy;
} chstats_t;

typedef struct {
  rank_t *ranks;
  dreq_t *q;
  uint32_t qn;
  uint64_t next_col; /* tCCD */
  uint64_t bus_free; /* first cycle the data bus is free */
  int last_dir;      /* 0 none, 1 read, 2 write */
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
  /* clock crossing: f_gpu : f_dram reduced */
  uint64_t fg, fd, sync;
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

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static uint32_t log2u(uint64_t x) {
  uint32_t n = 0;
  while (x > 1) {
    x >>= 1;
    n++;
  }
  return n;
}

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz);
  if (!p) {
    fprintf(stderr, "tbr dram: out of memory\n");
    abort();
  }
  return p;
}

tbr_dram *tbr_dram_new(const tbr_config *cfg, tbr_stats *stats, char *err, size_t errlen) {
  char verr[512];
  if (tbr_config_validate(cfg, verr, sizeof verr) != 0) {
    set_err(err, errlen, "%s", verr);
    return NULL;
  }
  tbr_dram *d = xcalloc(1, sizeof *d);
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

  uint32_t burst_bytes = d->bus_bytes * d->bl;
  d->bursts_per_req = d->req_bytes / burst_bytes;
  d->cols_per_burst = d->bl;
  d->offset_bits = log2u(d->req_bytes);
  d->field_bits[F_CH] = log2u(d->channels);
  d->field_bits[F_RA] = log2u(d->ranks);
  d->field_bits[F_BG] = log2u(d->bankgroups);
  d->field_bits[F_BA] = log2u(d->banks / d->bankgroups);
  d->field_bits[F_RO] = log2u(d->rows);
  d->field_bits[F_CO] = log2u((uint64_t)d->columns * d->bus_bytes / d->req_bytes);
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

  d->ch = xcalloc(d->channels, sizeof *d->ch);
  for (uint32_t c = 0; c < d->channels; c++) {
    chan_t *ch = &d->ch[c];
    ch->ranks = xcalloc(d->ranks, sizeof *ch->ranks);
    ch->q = xcalloc(d->qsize, sizeof *ch->q);
    for (uint32_t r = 0; r < d->ranks; r++) {
      rank_t *rk = &ch->ranks[r];
      rk->banks = xcalloc(d->banks, sizeof *rk->banks);
      for (uint32_t b = 0; b < d->banks; b++) rk->banks[b].open_row = -1;
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

void tbr_dram_free(tbr_dram *d) {
  if (!d) return;
  for (uint32_t c = 0; c < d->channels; c++) {
    for (uint32_t r = 0; r < d->ranks; r++) free(d->ch[c].ranks[r].banks);
    free(d->ch[c].ranks);
    free(d->ch[c].q);
  }
  free(d->ch);
  free(d->done);
  free(d->done_seq);
  tbr_memq_free(&d->req_cdc);
  tbr_memq_free(&d->resp_cdc);
  free(d);
}

void tbr_dram_decode(const tbr_dram *d, uint64_t addr, tbr_dram_coord *out) {
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
uint64_t tbr_dram_last_refresh(const tbr_dram *d, uint32_t ch, uint32_t rank) {
  return d->ch[ch].ranks[rank].last_ref;
}
void tbr_dram_get_counts(const tbr_dram *d, tbr_dram_counts *out) { *out = d->tot; }

bool tbr_dram_can_accept(const tbr_dram *d, uint64_t addr) {
  tbr_dram_coord c;
  tbr_dram_decode(d, addr, &c);
  return d->ch[c.ch].qn < d->qsize;
}

bool tbr_dram_enqueue(tbr_dram *d, const tbr_mem_msg *m) {
  tbr_dram_coord c;
  tbr_dram_decode(d, m->addr, &c);
  chan_t *ch = &d->ch[c.ch];
  if (ch->qn == d->qsize) {
    tbr_stat_inc(d->st.queue_full);
    return false;
  }
  dreq_t *r = &ch->q[ch->qn++];
  ch->wake = 0;
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
  if (b->open_row == (int64_t)c.row) b->open_hits++;
  return true;
}

bool tbr_dram_idle(const tbr_dram *d) {
  if (d->ndone || !tbr_memq_empty(&d->req_cdc) || !tbr_memq_empty(&d->resp_cdc)) return false;
  for (uint32_t c = 0; c < d->channels; c++)
    if (d->ch[c].qn) return false;
  return true;
}

/* ---- command legality ---- */

static bool faw_ok(const tbr_dram *d, const rank_t *rk, uint64_t t) {
  if (rk->faw_n < 4) return true;
  /* faw_pos points at the oldest of the last four ACTs */
  return t >= rk->faw[rk->faw_pos] + d->tFAW;
}

static bool can_act(const tbr_dram *d, const rank_t *rk, const bank_t *b, uint64_t t) {
  return b->open_row < 0 && t >= b->next_act && t >= rk->next_act && faw_ok(d, rk, t);
}

/* Earliest data start allowed by the data bus for a burst of direction dir
 * on rank r: a direction or rank change costs tRTRS idle cycles. */
static uint64_t bus_ready(const tbr_dram *d, const chan_t *ch, int dir, uint32_t r) {
  if (ch->last_dir == 0) return 0;
  bool turn = ch->last_dir != dir || ch->last_rank != r;
  return ch->bus_free + (turn ? d->tRTRS : 0);
}

static bool can_col(const tbr_dram *d, const chan_t *ch, const rank_t *rk, const bank_t *b, const dreq_t *q,
                    uint64_t t) {
  if (b->open_row != (int64_t)q->row || t < b->next_col || t < ch->next_col) return false;
  if (q->msg.write) return t + d->tCWL >= bus_ready(d, ch, 2, q->rank);
  return t >= rk->next_rd && t + d->tCL >= bus_ready(d, ch, 1, q->rank);
}

/* ---- command issue ---- */

static void issue_act(tbr_dram *d, chan_t *ch, rank_t *rk, bank_t *b, uint32_t rank, uint32_t bank, uint32_t row,
                      uint64_t t) {
  if (rk->nopen++ == 0) rk->act_since = t;
  b->open_row = row;
  b->open_hits = 0;
  for (uint32_t i = 0; i < ch->qn; i++)
    if (ch->q[i].rank == rank && ch->q[i].bank == bank && ch->q[i].row == row) b->open_hits++;
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

static void issue_pre(tbr_dram *d, chan_t *ch, rank_t *rk, bank_t *b, uint64_t t) {
  if (b->open_row >= 0 && --rk->nopen == 0) rk->act_cycles += t - rk->act_since;
  b->open_row = -1;
  b->open_hits = 0;
  b->next_act = max64(b->next_act, t + d->tRP);
  tbr_stat_inc(ch->st.pre);
  tbr_stat_inc(d->st.pre);
  d->tot.pre++;
}

static void add_done(tbr_dram *d, const tbr_mem_msg *m, uint64_t seq) {
  if (d->ndone == d->done_cap) {
    d->done_cap = d->done_cap ? d->done_cap * 2 : 64;
    d->done = realloc(d->done, d->done_cap * sizeof *d->done);
    d->done_seq = realloc(d->done_seq, d->done_cap * sizeof *d->done_seq);
    if (!d->done || !d->done_seq) abort();
  }
  size_t i = d->ndone;
  while (i > 0 && (d->done[i - 1].ready > m->ready || (d->done[i - 1].ready == m->ready && d->done_seq[i - 1] > seq))) {
    d->done[i] = d->done[i - 1];
    d->done_seq[i] = d->done_seq[i - 1];
    i--;
  }
  d->done[i] = *m;
  d->done_seq[i] = seq;
  d->ndone++;
}

/* Column command for queue entry qi; completes the request on its last burst. */
static void issue_col(tbr_dram *d, chan_t *ch, uint32_t qi, uint64_t t) {
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
  memmove(&ch->q[qi], &ch->q[qi + 1], (ch->qn - qi - 1) * sizeof *ch->q);
  ch->qn--;
}

/* Is the open row of (rank, bank) still wanted by a queued request? Then
 * FR-FCFS must not close it (until the row-hit cap is reached). */
static bool row_protected(const tbr_dram *d, const chan_t *ch, uint32_t rank, const bank_t *b, uint32_t bank) {
  (void)ch; (void)rank; (void)bank;
  if (d->hit_cap && b->hits_since_act >= d->hit_cap) return false;
  return b->open_hits > 0;
}

/* Refresh handling for one rank; returns true if it used the command slot. */
static bool refresh_step(tbr_dram *d, chan_t *ch, rank_t *rk, uint64_t t) {
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

/* The earliest cycle > t at which schedule_channel could issue a command, given that it
 * issued none at t and the channel state does not change meanwhile (all conditions of
 * refresh_step, can_col, can_act and the precharge rule are `t >= X` on that state).
 * Returning a cycle too early only costs a rescan; it must never be too late. */
static uint64_t sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static uint64_t channel_wake(tbr_dram *d, const chan_t *ch, uint64_t t) {
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
  uint32_t n = d->fcfs ? (ch->qn ? 1 : 0) : ch->qn;
  for (uint32_t i = 0; i < n; i++) {
    const dreq_t *q = &ch->q[i];
    const rank_t *rk = &ch->ranks[q->rank];
    if (rk->refresh_pending) continue;
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
      if (!d->fcfs && row_protected(d, ch, q->rank, b, q->bank)) continue;
      x = b->next_pre;
    }
    if (x < w) w = x;
  }
  return w > t ? w : t + 1;
}

static void schedule_channel_scan(tbr_dram *d, chan_t *ch, uint64_t t);

static void schedule_channel(tbr_dram *d, chan_t *ch, uint64_t t) {
  if (t < ch->wake) return;
  schedule_channel_scan(d, ch, t);
  /* channel_wake only assumes the state does not change after t, so it is as valid after
   * a command issued at t as after a scan that issued none. */
  ch->wake = channel_wake(d, ch, t);
}

static void schedule_channel_scan(tbr_dram *d, chan_t *ch, uint64_t t) {
  /* 1. refresh has priority: a rank that is due stops taking new commands,
   *    closes its banks and refreshes. */
  if (d->refresh) {
    for (uint32_t r = 0; r < d->ranks; r++) {
      rank_t *rk = &ch->ranks[r];
      if (t >= rk->refresh_due) rk->refresh_pending = true;
      if (rk->refresh_pending && refresh_step(d, ch, rk, t)) return;
    }
  }
  uint32_t n = d->fcfs ? (ch->qn ? 1 : 0) : ch->qn;
  /* 2. first ready column command (row hit), oldest first (none before tCCD) */
  for (uint32_t i = 0; i < n && t >= ch->next_col; i++) {
    dreq_t *q = &ch->q[i];
    rank_t *rk = &ch->ranks[q->rank];
    if (rk->refresh_pending) continue;
    if (can_col(d, ch, rk, &rk->banks[q->bank], q, t)) {
      issue_col(d, ch, i, t);
      return;
    }
  }
  /* 3. oldest request whose ACT or PRE can issue now */
  for (uint32_t i = 0; i < n; i++) {
    dreq_t *q = &ch->q[i];
    rank_t *rk = &ch->ranks[q->rank];
    if (rk->refresh_pending) continue;
    bank_t *b = &rk->banks[q->bank];
    if (b->open_row < 0) {
      if (can_act(d, rk, b, t)) {
        issue_act(d, ch, rk, b, q->rank, q->bank, q->row, t);
        q->caused_act = true;
        return;
      }
    } else if (b->open_row != (int64_t)q->row) {
      if (t >= b->next_pre && (d->fcfs || !row_protected(d, ch, q->rank, b, q->bank))) {
        issue_pre(d, ch, rk, b, t);
        q->caused_pre = true;
        return;
      }
    }
  }
}

void tbr_dram_rank_cycles(const tbr_dram *d, uint64_t *active, uint64_t *precharged) {
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

void tbr_dram_tick(tbr_dram *d) {
  for (uint32_t c = 0; c < d->channels; c++) schedule_channel(d, &d->ch[c], d->now);
  d->now++;
}

bool tbr_dram_pop_response(tbr_dram *d, tbr_mem_msg *out) {
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

bool tbr_dram_gpu_send(tbr_dram *d, const tbr_mem_msg *m, uint64_t g) {
  tbr_mem_msg x = *m;
  x.ready = tbr_dram_gpu_to_dram_edge(d, g) + d->sync;
  return tbr_memq_push(&d->req_cdc, &x);
}

void tbr_dram_gpu_advance(tbr_dram *d, uint64_t g) {
  /* DRAM cycle k starts before the end of GPU cycle g iff k/fd < (g+1)/fg */
  while (d->now * d->fg < (g + 1) * d->fd) {
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

bool tbr_dram_gpu_recv(tbr_dram *d, uint64_t g, tbr_mem_msg *out) {
  const tbr_mem_msg *m = tbr_memq_peek(&d->resp_cdc, g);
  if (!m) return false;
  *out = *m;
  tbr_memq_pop(&d->resp_cdc);
  return true;
}
