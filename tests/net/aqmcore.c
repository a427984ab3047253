/* aqmcore: a bottleneck link with drop-tail, RED or CoDel, sans I/O.
 *
 * RED follows S. Floyd and V. Jacobson, "Random Early Detection Gateways for
 * Congestion Avoidance", IEEE/ACM ToN 1(4), 1993, figure 2: an EWMA of the
 * queue at each arrival (decayed over idle time as if small packets had
 * arrived to an empty queue), drop probability p_b rising linearly from 0 at
 * min_th to max_p at max_th, spread out by the count since the last drop
 * (p_a = p_b / (1 - count p_b)), and forced drops above max_th; with the
 * "gentle" variant (Floyd, 2000) p_b rises from max_p to 1 between max_th and
 * 2 max_th instead.  Defaults (aqm_config_defaults) follow Floyd's parameter
 * rules as restated for Adaptive RED (Floyd, Gummadi, Shenker, 2001):
 * min_th = max(5 packets, target_delay * C / 2) with a 5 ms target,
 * max_th = 3 min_th, w_q = 1 - exp(-1 / C) with C the link in packets/s,
 * max_p = 0.1, gentle on.
 *
 * CoDel follows the pseudocode of RFC 8289 section 5: sojourn time measured
 * per packet at dequeue, a drop state entered once the sojourn time has been
 * above TARGET (5 ms) for INTERVAL (100 ms) and at least an MTU is queued,
 * drops spaced by INTERVAL / sqrt(count), and count resumed from its last
 * value when the drop state is re-entered soon (within 16 intervals).
 */
#include "aqmcore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t id;
  uint32_t len;                 /* the packet's own size */
  uint32_t size;                /* its size on the link, overhead included */
  uint64_t t;                   /* arrival (queue), delivery (line) or drop time */
} Pkt;

typedef struct {
  Pkt *buf;
  size_t cap, head, len;
} Ring;

struct AqmLink {
  AqmConfig cfg;
  AqmUniform uniform;
  void *uniform_data;
  Ring queue;                   /* waiting for the link */
  Ring line;                    /* serialised, held for the delay */
  Ring drops;                   /* dropped at dequeue, verdict not yet given */
  uint64_t queued_bytes;
  uint64_t link_free;           /* when the last started packet's last bit leaves */
  /* RED */
  double avg;
  long count;
  uint64_t idle_since;
  /* CoDel */
  uint64_t first_above_time, drop_next;
  uint32_t codel_count, codel_lastcount;
  int dropping;
  AqmStats stats;
};

static int ring_push (Ring * r, Pkt p)
{
  if (r->len == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 256;
    Pkt *n = malloc (ncap * sizeof *n);
    if (!n)
      return -1;
    for (size_t i = 0; i < r->len; i++)
      n[i] = r->buf[(r->head + i) % r->cap];
    free (r->buf);
    r->buf = n;
    r->cap = ncap;
    r->head = 0;
  }
  r->buf[(r->head + r->len) % r->cap] = p;
  r->len++;
  return 0;
}

static Pkt *ring_peek (const Ring * r)
{
  return r->len ? &r->buf[r->head] : NULL;
}

static Pkt ring_pop (Ring * r)
{
  Pkt p = r->buf[r->head];
  r->head = (r->head + 1) % r->cap;
  r->len--;
  return p;
}

void aqm_config_defaults (AqmConfig * cfg, AqmDiscipline discipline, uint64_t rate_bps)
{
  const double mtu = 1514;      /* a full Ethernet frame */
  double pkts_per_s = rate_bps / (8 * mtu);

  memset (cfg, 0, sizeof *cfg);
  cfg->discipline = discipline;
  cfg->rate_bps = rate_bps;
  cfg->overhead = 14;
  /* 200 ms of the rate, at least 20 full packets (the TPBA bench's tbf queue) */
  cfg->limit_bytes = (uint64_t) fmax (20 * mtu, rate_bps / 8 * 0.2);
  cfg->red_min_th = fmax (5, 0.005 * pkts_per_s / 2) * mtu;
  cfg->red_max_th = 3 * cfg->red_min_th;
  cfg->red_max_p = 0.1;
  cfg->red_w_q = 1 - exp (-1 / pkts_per_s);
  cfg->red_gentle = 1;
  cfg->red_mean_pkt = (uint32_t) mtu;
  cfg->codel_target_ns = 5000000;
  cfg->codel_interval_ns = 100000000;
  cfg->codel_mtu = (uint32_t) mtu;
}

static const char *config_error (const AqmConfig * c)
{
  if (c->rate_bps == 0)
    return "rate must be above 0";
  if (c->discipline == AQM_RED && !(c->red_min_th >= 0 && c->red_max_th > c->red_min_th))
    return "RED needs 0 <= min_th < max_th";
  if (c->discipline == AQM_RED && !(c->red_max_p > 0 && c->red_max_p <= 1))
    return "RED needs 0 < max_p <= 1";
  if (c->discipline == AQM_RED && !(c->red_w_q > 0 && c->red_w_q <= 1))
    return "RED needs 0 < w_q <= 1";
  if (c->discipline == AQM_RED && c->red_mean_pkt == 0)
    return "RED needs a mean packet size";
  if (c->discipline == AQM_CODEL && (c->codel_target_ns == 0 || c->codel_interval_ns == 0))
    return "CoDel needs a target and an interval above 0";
  if (c->discipline > AQM_CODEL)
    return "unknown discipline";
  return NULL;
}

static void reset_discipline (AqmLink * l)
{
  l->avg = 0;
  l->count = -1;
  l->first_above_time = l->drop_next = 0;
  l->codel_count = l->codel_lastcount = 0;
  l->dropping = 0;
}

AqmLink *aqm_link_new (const AqmConfig * cfg, AqmUniform uniform, void *uniform_data,
    const char **err)
{
  AqmLink *l;

  if ((*err = config_error (cfg)))
    return NULL;
  l = calloc (1, sizeof *l);
  if (!l) {
    *err = "out of memory";
    return NULL;
  }
  l->cfg = *cfg;
  l->uniform = uniform;
  l->uniform_data = uniform_data;
  reset_discipline (l);
  return l;
}

void aqm_link_free (AqmLink * l)
{
  if (!l)
    return;
  free (l->queue.buf);
  free (l->line.buf);
  free (l->drops.buf);
  free (l);
}

int aqm_link_configure (AqmLink * l, const AqmConfig * cfg, const char **err)
{
  if ((*err = config_error (cfg)))
    return -1;
  if (cfg->discipline != l->cfg.discipline)
    reset_discipline (l);
  l->cfg = *cfg;
  return 0;
}

const AqmConfig *aqm_link_config (const AqmLink * l)
{
  return &l->cfg;
}

static uint64_t serialisation_ns (const AqmLink * l, uint32_t size)
{
  return (uint64_t) size * 8 * 1000000000u / l->cfg.rate_bps;
}

/* --- RED ------------------------------------------------------------------ */

/* The average at an arrival (Floyd & Jacobson, figure 2). */
static void red_update_avg (AqmLink * l, uint64_t now)
{
  const AqmConfig *c = &l->cfg;
  if (l->queue.len > 0 || now < l->link_free) {
    l->avg = (1 - c->red_w_q) * l->avg + c->red_w_q * (double) l->queued_bytes;
  } else {
    /* idle: as if m typical packets had been sent from an empty queue */
    double m = now > l->idle_since
        ? (double) (now - l->idle_since) / serialisation_ns (l, c->red_mean_pkt) : 0;
    l->avg *= pow (1 - c->red_w_q, m);
  }
}

/* p_b: the drop probability at the average before the count spreads it. */
static double red_p_b (const AqmConfig * c, double avg)
{
  if (avg < c->red_max_th)
    return c->red_max_p * (avg - c->red_min_th) / (c->red_max_th - c->red_min_th);
  if (c->red_gentle && avg < 2 * c->red_max_th)
    return c->red_max_p + (1 - c->red_max_p) * (avg - c->red_max_th) / c->red_max_th;
  return 1;
}

double aqm_red_drop_probability (const AqmConfig * c, double avg, long count)
{
  double p_b;
  if (avg < c->red_min_th)
    return 0;
  p_b = red_p_b (c, avg);
  return p_b >= 1 || count * p_b >= 1 ? 1 : p_b / (1 - count * p_b);
}

/* 1 if RED drops the arriving packet. */
static int red_drops (AqmLink * l, uint64_t now)
{
  const AqmConfig *c = &l->cfg;
  double p_a;

  red_update_avg (l, now);
  if (l->avg < c->red_min_th) {
    l->count = -1;
    return 0;
  }
  l->count++;
  p_a = aqm_red_drop_probability (c, l->avg, l->count);
  if (p_a >= 1 || l->uniform (l->uniform_data) < p_a) {
    l->count = 0;
    return 1;
  }
  return 0;
}

/* --- CoDel (RFC 8289, section 5) ------------------------------------------- */

typedef struct {
  Pkt p;
  int have, ok_to_drop;
} Dequeued;

static Dequeued take_head (AqmLink * l)
{
  Dequeued d = { .have = 0 };
  if (l->queue.len > 0) {
    d.p = ring_pop (&l->queue);
    d.have = 1;
    l->queued_bytes -= d.p.size;
  }
  return d;
}

static Dequeued codel_dodequeue (AqmLink * l, uint64_t now)
{
  const AqmConfig *c = &l->cfg;
  Dequeued d = take_head (l);
  if (!d.have) {
    l->first_above_time = 0;
    return d;
  }
  if (now - d.p.t < c->codel_target_ns || l->queued_bytes <= c->codel_mtu) {
    l->first_above_time = 0;
  } else if (l->first_above_time == 0) {
    l->first_above_time = now + c->codel_interval_ns;
  } else if (now >= l->first_above_time) {
    d.ok_to_drop = 1;
  }
  return d;
}

static uint64_t codel_control_law (const AqmLink * l, uint64_t t)
{
  return t + (uint64_t) (l->cfg.codel_interval_ns / sqrt (l->codel_count));
}

static void codel_drop (AqmLink * l, Pkt p, uint64_t now)
{
  l->stats.dropped_aqm++;
  p.t = now;
  ring_push (&l->drops, p);
}

static Dequeued codel_dequeue (AqmLink * l, uint64_t now)
{
  Dequeued d = codel_dodequeue (l, now);
  if (!d.have) {
    l->dropping = 0;
    return d;
  }
  if (l->dropping) {
    if (!d.ok_to_drop)
      l->dropping = 0;
    while (l->dropping && now >= l->drop_next) {
      codel_drop (l, d.p, now);
      l->codel_count++;
      d = codel_dodequeue (l, now);
      if (!d.ok_to_drop)
        l->dropping = 0;
      else
        l->drop_next = codel_control_law (l, l->drop_next);
    }
  } else if (d.ok_to_drop) {
    uint32_t delta;
    codel_drop (l, d.p, now);
    d = codel_dodequeue (l, now);
    l->dropping = 1;
    delta = l->codel_count - l->codel_lastcount;
    l->codel_count = delta > 1 && now - l->drop_next < 16 * l->cfg.codel_interval_ns
        ? delta : 1;
    l->drop_next = codel_control_law (l, now);
    l->codel_lastcount = l->codel_count;
  }
  return d;
}

/* --- the link --------------------------------------------------------------- */

static void start_on_link (AqmLink * l, Pkt p, uint64_t start)
{
  uint64_t sojourn = start - p.t;
  AqmStats *s = &l->stats;

  if (s->sojourn_n == 0)
    s->first_start_ns = start;
  l->link_free = start + serialisation_ns (l, p.size);
  s->busy_ns += l->link_free - start;
  s->last_end_ns = l->link_free;
  s->served_bytes += p.size;
  s->sojourn_sum_ns += sojourn;
  s->sojourn_n++;
  if (sojourn > s->sojourn_max_ns)
    s->sojourn_max_ns = sojourn;
  p.t = l->link_free + l->cfg.delay_ns;
  ring_push (&l->line, p);
}

/* Start every packet whose turn on the link has come by now. */
static void advance (AqmLink * l, uint64_t now)
{
  Pkt *head;
  while ((head = ring_peek (&l->queue))) {
    uint64_t start = l->link_free > head->t ? l->link_free : head->t;
    Dequeued d;
    if (start > now)
      break;
    d = l->cfg.discipline == AQM_CODEL ? codel_dequeue (l, start) : take_head (l);
    if (d.have)
      start_on_link (l, d.p, start);
    if (l->queue.len == 0)
      l->idle_since = d.have ? l->link_free : start;
  }
}

int aqm_link_enqueue (AqmLink * l, uint32_t id, uint32_t size, uint64_t now)
{
  const AqmConfig *c = &l->cfg;
  Pkt p = { id, size, size + c->overhead, now };

  advance (l, now);
  l->stats.arrived++;
  l->stats.arrived_bytes += p.len;
  if (c->discipline == AQM_RED && red_drops (l, now)) {
    l->stats.dropped_aqm++;
    return 0;
  }
  if ((c->limit_bytes && l->queued_bytes + p.size > c->limit_bytes)
      || (c->limit_packets && l->queue.len + 1 > c->limit_packets)
      || ring_push (&l->queue, p) != 0) {
    l->stats.dropped_limit++;
    return 0;
  }
  l->queued_bytes += p.size;
  return 1;
}

int aqm_link_poll (AqmLink * l, uint64_t now, AqmVerdict * out)
{
  Pkt *p;
  advance (l, now);
  if (l->drops.len > 0) {
    Pkt gone = ring_pop (&l->drops);
    *out = (AqmVerdict) { gone.id, AQM_VERDICT_DROP, gone.t };
    return 1;
  }
  if ((p = ring_peek (&l->line)) && p->t <= now) {
    Pkt done = ring_pop (&l->line);
    l->stats.passed++;
    l->stats.passed_bytes += done.len;
    *out = (AqmVerdict) { done.id, AQM_VERDICT_ACCEPT, done.t };
    return 1;
  }
  return 0;
}

uint64_t aqm_link_next_deadline (const AqmLink * l)
{
  const Pkt *p;
  if (l->drops.len > 0)
    return 0;
  if ((p = ring_peek (&l->line)))
    return p->t;
  /* the head's delivery if CoDel keeps it; if not, an early wake-up is harmless */
  if ((p = ring_peek (&l->queue)))
    return (l->link_free > p->t ? l->link_free : p->t) + serialisation_ns (l, p->size)
        + l->cfg.delay_ns;
  return UINT64_MAX;
}

int aqm_link_flush (AqmLink * l, AqmVerdict * out)
{
  Ring *r = l->drops.len ? &l->drops : l->line.len ? &l->line : &l->queue;
  Pkt p;
  if (r->len == 0)
    return 0;
  p = ring_pop (r);
  if (r == &l->queue)
    l->queued_bytes -= p.size;
  if (r == &l->drops) {
    *out = (AqmVerdict) { p.id, AQM_VERDICT_DROP, p.t };
  } else {
    l->stats.passed++;
    l->stats.passed_bytes += p.len;
    *out = (AqmVerdict) { p.id, AQM_VERDICT_ACCEPT, p.t };
  }
  return 1;
}

const AqmStats *aqm_link_stats (const AqmLink * l)
{
  return &l->stats;
}

void aqm_link_reset_stats (AqmLink * l)
{
  memset (&l->stats, 0, sizeof l->stats);
}

uint64_t aqm_link_queued_bytes (const AqmLink * l)
{
  return l->queued_bytes;
}

uint64_t aqm_link_queued_packets (const AqmLink * l)
{
  return l->queue.len;
}

double aqm_link_red_avg (const AqmLink * l)
{
  return l->cfg.discipline == AQM_RED ? l->avg : 0;
}
