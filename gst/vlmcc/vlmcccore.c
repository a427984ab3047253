/* VLMCC core: wire formats, the sender (Vegas toward the leader, pacing,
 * elections) and the receiver (leader acks, follower estimation and
 * challenges). See vlmcccore.h and docs/protocols/vlmcc.md. */
#include <math.h>
#include <string.h>

#include "vlmcccore.h"
#include "core/polled.h"
#include "core/rtcp.h"
#include "core/rtp.h"
#include "core/wire.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define NS_PER_S 1e9
#define US(ns) ((guint32) ((ns) / 1000))
#define DRIFT_MAX 0xffffff
#define RATE_MAX 0xffffff
/* In-flight ring: the window never exceeds half of it. */
#define RING_SIZE 4096
#define MAX_WINDOW (RING_SIZE / 2)
/* An RTT sample longer than this is refused as forged or stale. */
#define MAX_RTT (60 * G_GINT64_CONSTANT (1000000000))

void
vlmcc_config_init (VlmccConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->g = 0.1;
  cfg->g_var = 0.1;
  cfg->burst = 2;
  cfg->rto_var_mult = 4;
  cfg->rto_granularity = 10 * MS;
  cfg->rto_min = 200 * MS;
  cfg->dup_thresh = 3;
  cfg->packet_size = 1000;
  cfg->alpha = 1.0;
  cfg->beta = 3.0;
  cfg->n_extra = 2.0;
  cfg->diff_avg_gain = 0.1;
  cfg->initial_window = 2;
  cfg->initial_rtt = 100 * MS;
  cfg->election_holdoff = 4;
  cfg->election_holdoff_min = 100 * MS;
  cfg->start_rate = 200;
  cfg->start_gap = 100 * MS;
  cfg->rate_floor = 0;
  cfg->leave_time = 2000 * MS;
  cfg->probe_interval = 1000 * MS;
  cfg->max_queue = 512;
  cfg->ext_id = 7;
  cfg->vegas_plus = FALSE;
  cfg->plus_epochs = 2;
  cfg->plus_loss_epochs = 16;
  cfg->plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC;
  cfg->plus_recovery_hold = FALSE;
  cfg->plus_loss_segment = 0;
  cfg->vegas_delay = VLMCC_VEGAS_DELAY_RTT;
  cfg->challenge_echo = FALSE;
  cfg->echo_ext_id = 8;
  cfg->challenge_delay = 0.0;
  cfg->leaderless_growth_limit = 0.0;
  cfg->volunteer_after = 0.0;
  cfg->start_anchor = FALSE;
  cfg->start_hold = TRUE;
  cfg->own_base = FALSE;
  cfg->rtt_min_window = 0.0;
  cfg->challenge_confirm = 0.0;
  cfg->vegas_ack_clock = FALSE;
  cfg->window_covers_hold = FALSE;
  cfg->pacing_catch_up = 10 * MS;
}

const gchar *
vlmcc_role_name (VlmccRole role)
{
  static const gchar *names[] = { "none", "follower", "leader", "left",
    "sender"
  };

  return role <= VLMCC_ROLE_SENDER ? names[role] : "unknown";
}

/* ------------------------------------------------------------------ */
/* Wire */

/* The element @ext_id of the parsed RTP header @h when it is exactly
 * @size bytes long; NULL if there is none. The callers read it at fixed
 * offsets: its length is checked here, once. */
static const guint8 *
element_find (const RtpHeader * h, guint ext_id, gsize size)
{
  RtpExtElement el;

  if (!rtp_ext_find (h, ext_id, &el) || el.len != size)
    return NULL;
  return el.data;
}

static guint32
read24 (const guint8 * p)
{
  return ((guint32) p[0] << 16) | ((guint32) p[1] << 8) | p[2];
}

static gboolean
data_ext_read (const RtpHeader * h, guint ext_id, VlmccDataExt * ext)
{
  const guint8 *p = element_find (h, ext_id, VLMCC_EXT_SIZE);

  if (!p)
    return FALSE;
  ext->seq = read16 (p);
  ext->leader = read32 (p + 2);
  ext->tstamp = read32 (p + 6);
  ext->drift = read24 (p + 10);
  ext->rate = read24 (p + 13);
  return TRUE;
}

static gboolean
echo_ext_read (const RtpHeader * h, guint ext_id, guint16 * holdoff_ms)
{
  const guint8 *p = element_find (h, ext_id, VLMCC_ECHO_SIZE);

  if (p)
    *holdoff_ms = read16 (p);
  return p != NULL;
}

gboolean
vlmcc_data_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    VlmccDataExt * ext)
{
  RtpHeader h;

  return rtp_header_parse (rtp, len, &h) && data_ext_read (&h, ext_id, ext);
}

gboolean
vlmcc_echo_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    guint16 * holdoff_ms)
{
  RtpHeader h;

  return rtp_header_parse (rtp, len, &h) && echo_ext_read (&h, ext_id,
      holdoff_ms);
}

gboolean
vlmcc_data_ext_read (const RtpHeader * h, guint ext_id, VlmccDataExt * ext)
{
  return data_ext_read (h, ext_id, ext);
}

gboolean
vlmcc_echo_ext_read (const RtpHeader * h, guint ext_id, guint16 * holdoff_ms)
{
  return echo_ext_read (h, ext_id, holdoff_ms);
}

static gsize
msg_body_size (VlmccMsgType type)
{
  switch (type) {
    case VLMCC_MSG_ACK:
      return VLMCC_ACK_SIZE - RTCP_APP_HEADER_SIZE;
    case VLMCC_MSG_CHALLENGE:
      return VLMCC_CHALLENGE_SIZE - RTCP_APP_HEADER_SIZE;
    case VLMCC_MSG_START:
      return VLMCC_START_SIZE - RTCP_APP_HEADER_SIZE;
  }
  return 0;
}

/* The challenge's first octet (docs/protocols/vlmcc.md); the other bits
 * are sent 0 and ignored. */
#define CHALLENGE_FLAG_PROBE 0x80
#define CHALLENGE_FLAG_VOLUNTEER 0x40

/* @b: the body, msg_body_size (msg->type) bytes (checked by the caller:
 * every field is at a fixed offset within it). */
static void
msg_read_body (VlmccMsg * msg, const guint8 * b)
{
  switch (msg->type) {
    case VLMCC_MSG_ACK:
      msg->seq = read16 (b);
      msg->tstamp = read32 (b + 4);
      msg->arrival = read32 (b + 8);
      break;
    case VLMCC_MSG_CHALLENGE:
      msg->probe = (b[0] & CHALLENGE_FLAG_PROBE) != 0;
      msg->volunteer = (b[0] & CHALLENGE_FLAG_VOLUNTEER) != 0;
      msg->tstamp = read32 (b + 4);
      msg->rtt = read32 (b + 8);
      msg->base_rtt = read32 (b + 12);
      msg->rate = read32 (b + 16);
      msg->win = read32 (b + 20);
      break;
    case VLMCC_MSG_START:
      msg->target = read32 (b);
      msg->seq = read16 (b + 4);
      msg->hold = (guint32) read16 (b + 6) * VLMCC_START_HOLD_UNIT_US;
      msg->leader = read32 (b + 8);
      msg->rate = read32 (b + 12);
      msg->win = read32 (b + 16);
      msg->tstamp = read32 (b + 20);
      msg->sent = read32 (b + 24);
      break;
  }
}

gboolean
vlmcc_msg_parse (const guint8 * data, gsize len, VlmccMsg * msg)
{
  RtcpIter it;
  RtcpPacket pkt;
  RtcpApp app;

  memset (msg, 0, sizeof (*msg));
  rtcp_iter_init (&it, data, len);
  if (!rtcp_iter_next (&it, &pkt) || pkt.len != len ||
      !rtcp_app_parse (&pkt, &app) ||
      memcmp (app.name, VLMCC_APP_NAME, 4) != 0 ||
      app.subtype > VLMCC_MSG_START ||
      app.len != msg_body_size ((VlmccMsgType) app.subtype))
    return FALSE;
  msg->type = (VlmccMsgType) app.subtype;
  msg->id = app.ssrc;
  msg_read_body (msg, app.data);
  return TRUE;
}

gsize
vlmcc_msg_write (const VlmccMsg * msg, guint8 * out, gsize max)
{
  guint8 b[VLMCC_MAX_PACKET] = { 0 };
  gsize size = msg_body_size (msg->type);

  switch (msg->type) {
    case VLMCC_MSG_ACK:
      write16 (b, msg->seq);
      write32 (b + 4, msg->tstamp);
      write32 (b + 8, msg->arrival);
      break;
    case VLMCC_MSG_CHALLENGE:
      b[0] = (msg->probe ? CHALLENGE_FLAG_PROBE : 0) |
          (msg->volunteer ? CHALLENGE_FLAG_VOLUNTEER : 0);
      write32 (b + 4, msg->tstamp);
      write32 (b + 8, msg->rtt);
      write32 (b + 12, msg->base_rtt);
      write32 (b + 16, msg->rate);
      write32 (b + 20, msg->win);
      break;
    case VLMCC_MSG_START:
      write32 (b, msg->target);
      write16 (b + 4, msg->seq);
      write16 (b + 6, MIN (msg->hold, VLMCC_START_HOLD_MAX_US) /
          VLMCC_START_HOLD_UNIT_US);
      write32 (b + 8, msg->leader);
      write32 (b + 12, msg->rate);
      write32 (b + 16, msg->win);
      write32 (b + 20, msg->tstamp);
      write32 (b + 24, msg->sent);
      break;
    default:
      return 0;
  }
  return rtcp_app_write (msg->type, msg->id, VLMCC_APP_NAME, b, size, out,
      max);
}

static gboolean
addr_equal (const VlmccAddr * a, const VlmccAddr * b)
{
  return a->len == b->len && memcmp (a->bytes, b->bytes, a->len) == 0;
}

static void
addr_copy (VlmccAddr * dst, const VlmccAddr * src)
{
  memset (dst, 0, sizeof (*dst));
  if (src) {
    dst->len = MIN (src->len, VLMCC_ADDR_MAX_SIZE);
    memcpy (dst->bytes, src->bytes, dst->len);
  }
}

/* ------------------------------------------------------------------ */
/* Estimators shared by both ends (equations 1 and 2) */

typedef struct {
  gint64 rtt;                   /* rtt hat, ns */
  gint64 dev;                   /* sigma, ns */
  gint64 base;                  /* least sample, ns */
  gboolean sampled;
  /* config rtt_min_window: the least sample of the current half window
   * and of the one before (G_MAXINT64: none), and when this half began */
  gint64 half_min, prev_half_min;
  gint64 half_start;
} RttEstimate;

static void
rtt_estimate_reset (RttEstimate * e, gint64 rtt, gint64 base)
{
  e->rtt = MAX (rtt, 1);
  e->dev = e->rtt / 2;
  e->base = base > 0 ? MIN (base, e->rtt) : e->rtt;
  e->sampled = TRUE;
  e->half_min = e->prev_half_min = G_MAXINT64;
  e->half_start = G_MININT64 / 2;
}

/* Ours (config rtt_min_window): the least of the samples that arrived
 * over the last @span (between half of it and all of it: two halves).
 * A host or delay program that runs late only ever delays a packet, and
 * a burst it releases late ends with a packet that was hardly held, so
 * the least is the path's; a queue holds every sample up and passes, a
 * span later, as Linux's Vegas takes the least RTT of each RTT. */
static gint64
rtt_estimate_least_recent (RttEstimate * e, gint64 rtt, gint64 at,
    gint64 span)
{
  if (span <= 0)
    return rtt;
  if (at >= e->half_start + span / 2) {
    e->prev_half_min = at >= e->half_start + span ? G_MAXINT64 : e->half_min;
    e->half_min = G_MAXINT64;
    e->half_start = at;
  }
  e->half_min = MIN (e->half_min, rtt);
  return MIN (e->half_min, e->prev_half_min);
}

static void
rtt_estimate_sample (RttEstimate * e, const VlmccConfig * cfg, gint64 rtt)
{
  gdouble err;

  rtt = MAX (rtt, 1);
  if (!e->sampled) {
    rtt_estimate_reset (e, rtt, rtt);
    return;
  }
  e->rtt = (gint64) ((1.0 - cfg->g) * e->rtt + cfg->g * rtt);
  err = fabs ((gdouble) e->rtt - (gdouble) rtt);
  e->dev = (gint64) ((1.0 - cfg->g_var) * e->dev + cfg->g_var * err);
  e->base = MIN (e->base, rtt);
}

/* The Vegas step of section 2.2: +1 below alpha, -1 above beta, in
 * packets of the difference W/base - actual/@delay normalised by base;
 * @delay is rtt hat in the paper (config vegas_delay at the sender). */
static gdouble
vegas_step (const VlmccConfig * cfg, gdouble window, gdouble actual,
    gint64 base, gint64 delay)
{
  gdouble diff = window - actual * (gdouble) base / (gdouble) MAX (delay, 1);

  if (diff < cfg->alpha)
    return window + 1.0;
  if (diff > cfg->beta)
    return window - 1.0;
  return window;
}

/* The Vegas+ fallback (config vegas_plus). Alone on the bottleneck, the
 * queue never holds more of our packets than our window; the queueing
 * delay (the least RTT sample of the epoch over the base RTT: the
 * smoothed RTT lags several RTTs at small windows) divided by the
 * bottleneck's time per packet is how many packets wait there. When that
 * is more than W + beta for plus_epochs epochs in a row, packets of
 * another flow hold the queue and the window turns loss-based (+1 per
 * RTT, halved on loss); the first whole epoch after each halving judges
 * again, and a queue back within W + beta hands the window to Vegas
 * (with plus_loss_epochs, an AQM's case: a halving while Vegas switches
 * too, and the return also waits for a quiet spell or a full link).
 * The time per packet is the median dispersion of the last pairs sent
 * back to back (packet pair): other flows' packets between the two only
 * lengthen it, which counts fewer waiting packets. */
#define PAIR_SAMPLES 8
/* arrival gaps under this are two datagrams read at one wakeup */
#define PAIR_MIN_GAP (50 * G_GINT64_CONSTANT (1000))

/* The cubic rule of the loss-based mode (config plus_loss_mode cubic;
 * RFC 9438): after a reduction to beta W_max the window follows
 * W(t) = C (t - K)^3 + W_max, never under the Reno-friendly estimate
 * W_est. Our step comes once per RTT, so the window of the next RTT is the
 * target W(t + rtt), at least the window and at most 1.5 times it, and
 * W_est grows by alpha_cubic packets per RTT (RFC 9438 counts acks), and
 * by one once past the window of the last reduction (RFC 9438 4.3) except
 * in cubic-linux, which keeps alpha_cubic as Linux's tcp_cubic does. */
#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

typedef struct {
  gboolean started;             /* FALSE: the next step starts an epoch at
                                 * the window (entering the mode without a
                                 * loss, or a window set by an election) */
  gint64 epoch_start;           /* ns, the last reduction */
  gdouble w_max;                /* packets */
  gdouble k;                    /* s: when W(t) is back at w_max */
  gdouble w_est;                /* packets, the Reno-friendly window */
  gdouble prior;                /* the window before the last reduction */
} CubicGrowth;

static void
cubic_start (CubicGrowth * c, gdouble w_max, gdouble window, gint64 now)
{
  c->started = TRUE;
  c->epoch_start = now;
  c->w_max = w_max;
  c->k = cbrt ((w_max - window) / CUBIC_C);
  c->w_est = window;
}

static gdouble
cubic_window_at (const CubicGrowth * c, gint64 t)
{
  gdouble x = t / NS_PER_S - c->k;

  return CUBIC_C * x * x * x + c->w_max;
}

/* The window for the next RTT, @rtt long; @steady_alpha: W_est keeps
 * alpha_cubic past the last peak. */
static gdouble
cubic_step (CubicGrowth * c, gboolean steady_alpha, gdouble window,
    gint64 rtt, gint64 now)
{
  gdouble alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
  gint64 t;

  if (!c->started) {
    cubic_start (c, window, window, now);
    c->prior = window;
  }
  t = now - c->epoch_start;
  /* RFC 9438 4.3: Reno's own pace once W_est is past the window before
   * the last reduction; Linux (cubic-linux) keeps alpha_cubic */
  c->w_est += c->w_est >= c->prior && !steady_alpha ? 1.0 : alpha;
  if (cubic_window_at (c, t) < c->w_est)
    return MAX (window, c->w_est);
  return CLAMP (cubic_window_at (c, t + rtt), window, 1.5 * window);
}

/* A loss in the loss-based mode: x beta and a new epoch, with RFC 9438's
 * fast convergence (a peak under the last one gives up more). */
static gdouble
cubic_reduce (CubicGrowth * c, gdouble window, gint64 now)
{
  gdouble w_max = window;

  if (c->started && window < c->w_max)
    w_max = window * (1.0 + CUBIC_BETA) / 2.0;
  c->prior = window;
  cubic_start (c, w_max, window * CUBIC_BETA, now);
  return window * CUBIC_BETA;
}

static gboolean
plus_loss_cubic (const VlmccConfig * cfg)
{
  return cfg->plus_loss_mode == VLMCC_PLUS_LOSS_CUBIC ||
      cfg->plus_loss_mode == VLMCC_PLUS_LOSS_CUBIC_LINUX;
}

typedef struct {
  gboolean loss_based;
  CubicGrowth cubic;            /* plus_loss_mode cubic */
  guint held_epochs;            /* epochs in a row with a held queue */
  guint halved;                 /* epochs until a halving is judged */
  gboolean queue_free;          /* that judgement found the queue within
                                 * the window */
  guint quiet;                  /* epochs since the last halving */
  gint64 hold_until;            /* plus_recovery_hold: no growth before,
                                 * ns */
  gint64 epoch_start;           /* when this epoch began */
  guint epoch_packets;          /* acked (sender), received (receiver) */
  gint64 epoch_min;             /* least RTT sample this epoch, 0: none */
  gint64 pairs[PAIR_SAMPLES];   /* dispersions, ns */
  guint n_pairs;
  guint64 switches;
} VegasPlus;

static void
vegas_plus_sample (VegasPlus * vp, gint64 rtt)
{
  vp->epoch_packets++;
  if (vp->epoch_min == 0 || rtt < vp->epoch_min)
    vp->epoch_min = rtt;
}

/* Two consecutive packets that left @sent_gap apart arrived (or were
 * acked) @arrival_gap apart. */
static void
vegas_plus_pair (VegasPlus * vp, gint64 sent_gap, gint64 arrival_gap)
{
  if (arrival_gap < PAIR_MIN_GAP || sent_gap * 4 > arrival_gap)
    return;
  vp->pairs[vp->n_pairs++ % PAIR_SAMPLES] = arrival_gap - sent_gap;
}

/* The median of the last of @n_total samples kept in the ring @ring of
 * PAIR_SAMPLES; 0 with fewer than half of PAIR_SAMPLES. */
static gint64
pair_median (const gint64 * ring, guint n_total)
{
  gint64 v[PAIR_SAMPLES];
  guint n = MIN (n_total, PAIR_SAMPLES);

  if (n < PAIR_SAMPLES / 2)
    return 0;
  for (guint i = 0; i < n; i++) {
    guint j = i;

    for (; j > 0 && v[j - 1] > ring[i]; j--)
      v[j] = v[j - 1];
    v[j] = ring[i];
  }
  return v[n / 2];
}

/* The median dispersion of the pairs kept. */
static gint64
vegas_plus_packet_time (const VegasPlus * vp)
{
  return pair_median (vp->pairs, vp->n_pairs);
}

/* Whether the queue holds more packets than ours could be. */
static gboolean
vegas_plus_queue_held (const VlmccConfig * cfg, const VegasPlus * vp,
    gdouble window, const RttEstimate * e)
{
  gint64 per_packet = vegas_plus_packet_time (vp);
  gint64 queue = (vp->epoch_min ? vp->epoch_min : e->rtt) - e->base;

  if (per_packet <= 0)
    return FALSE;
  return (gdouble) queue / per_packet > window + cfg->beta;
}

/* Whether our packets of this epoch alone kept the bottleneck busy: a
 * loss-based flow beside us would take its share of it. */
#define PLUS_FULL 0.9

static gboolean
vegas_plus_link_full (const VegasPlus * vp, gint64 now)
{
  gint64 per_packet = vegas_plus_packet_time (vp);
  gint64 span = now - vp->epoch_start;

  if (per_packet <= 0 || span <= 0)
    return FALSE;
  return (gdouble) vp->epoch_packets * per_packet >= PLUS_FULL * span;
}

/* One RTT's growth in the loss-based mode. */
static gdouble
vegas_plus_grow (const VlmccConfig * cfg, VegasPlus * vp, gdouble window,
    gint64 rtt, gint64 now)
{
  if (now < vp->hold_until)
    return window;
  if (!plus_loss_cubic (cfg))
    return window + 1.0;
  return cubic_step (&vp->cubic,
      cfg->plus_loss_mode == VLMCC_PLUS_LOSS_CUBIC_LINUX, window, rtt, now);
}

/* Back to Vegas once the judgement after the last halving found the
 * queue within the window and either plus_loss_epochs have passed without
 * another or our packets alone fill the link: on an AQM the queue is
 * short beside a loss-based flow too, and its drops and its share of the
 * link, not the queue, tell that the flow is there. */
static gdouble
vegas_plus_loss_based_step (const VlmccConfig * cfg, VegasPlus * vp,
    gdouble window, const RttEstimate * e, gint64 now)
{
  vp->quiet++;
  /* the first whole epoch after the halving tells */
  if (vp->halved && --vp->halved == 0)
    vp->queue_free = !vegas_plus_queue_held (cfg, vp, window, e);
  if (vp->queue_free && (vp->quiet >= cfg->plus_loss_epochs ||
          vegas_plus_link_full (vp, now))) {
    vp->loss_based = FALSE;
    vp->queue_free = FALSE;
    return window;
  }
  return vegas_plus_grow (cfg, vp, window, e->rtt, now);
}

static gdouble
vegas_plus_vegas_step (const VlmccConfig * cfg, VegasPlus * vp,
    gdouble window, gdouble actual, const RttEstimate * e, gint64 delay,
    gint64 now)
{
  if (!vegas_plus_queue_held (cfg, vp, window, e)) {
    vp->held_epochs = 0;
    return vegas_step (cfg, window, actual, e->base, delay);
  }
  if (++vp->held_epochs < cfg->plus_epochs)
    return vegas_step (cfg, window, actual, e->base, delay);
  vp->held_epochs = 0;
  vp->loss_based = TRUE;
  vp->switches++;
  vp->cubic.started = FALSE;
  return vegas_plus_grow (cfg, vp, window, e->rtt, now);
}

/* The window's next value at an epoch: Vegas on @delay, or with
 * vegas_plus the fallback above. */
static gdouble
window_step (const VlmccConfig * cfg, VegasPlus * vp, gdouble window,
    gdouble actual, const RttEstimate * e, gint64 delay, gint64 now)
{
  gdouble next;

  if (!cfg->vegas_plus)
    return vegas_step (cfg, window, actual, e->base, delay);
  if (vp->loss_based)
    next = vegas_plus_loss_based_step (cfg, vp, window, e, now);
  else
    next = vegas_plus_vegas_step (cfg, vp, window, actual, e, delay, now);
  vp->epoch_min = 0;
  vp->epoch_packets = 0;
  vp->epoch_start = now;
  return next;
}

/* A loss: returns the window it leaves, halved (the paper's Vegas, and
 * the reno loss-based mode) or, in the cubic loss-based mode, x beta.
 * In the loss-based mode it is judged an epoch later. With
 * plus_loss_epochs, one in the Vegas mode turns the window loss-based:
 * alone on a drop-tail queue Vegas holds alpha..beta packets and never
 * loses, so the loss is another flow's or an AQM's doing; *@switched
 * tells whether it did. */
static gdouble
vegas_plus_reduce (const VlmccConfig * cfg, VegasPlus * vp, gdouble window,
    gint64 now, gboolean * switched)
{
  gboolean was_loss_based = vp->loss_based;

  *switched = FALSE;
  vp->held_epochs = 0;
  vp->quiet = 0;
  vp->queue_free = FALSE;
  if (!cfg->vegas_plus)
    return window / 2.0;
  if (!vp->loss_based && cfg->plus_loss_epochs > 0) {
    vp->loss_based = TRUE;
    vp->switches++;
    *switched = TRUE;
  }
  if (vp->loss_based)
    vp->halved = 2;
  if (!vp->loss_based || !plus_loss_cubic (cfg))
    return window / 2.0;
  if (was_loss_based)
    return cubic_reduce (&vp->cubic, window, now);
  /* Vegas' own halving; the cubic epoch starts from it */
  vp->cubic.prior = window;
  cubic_start (&vp->cubic, window, window / 2.0, now);
  return window / 2.0;
}

/* plus_loss_segment: @reduced down to whole segments, at least two; the
 * cubic epoch starts from what is left. At a window of a few segments
 * Linux's floor of 0.7 cwnd gives up 35-45 %, not 30 %. */
static gdouble
vegas_plus_whole_segments (const VlmccConfig * cfg, VegasPlus * vp,
    gdouble reduced, gint64 now)
{
  gdouble seg = (gdouble) cfg->plus_loss_segment / MAX (cfg->packet_size, 1);
  gdouble whole = MAX (floor (reduced / seg), 2.0) * seg;

  if (whole >= reduced)
    return reduced;
  if (plus_loss_cubic (cfg))
    cubic_start (&vp->cubic, vp->cubic.w_max, whole, now);
  return whole;
}

/* A loss: vegas_plus_reduce, in whole segments with plus_loss_segment,
 * and with plus_recovery_hold the loss-based
 * window then stays one @rtt (a TCP's fast recovery: on a drop-tail
 * queue its retransmission waits behind the full queue) and its cubic
 * epoch starts after it. */
static gdouble
vegas_plus_on_loss (const VlmccConfig * cfg, VegasPlus * vp, gdouble window,
    gint64 rtt, gint64 now, gboolean * switched)
{
  gdouble next = vegas_plus_reduce (cfg, vp, window, now, switched);

  if (cfg->vegas_plus && cfg->plus_loss_segment > 0 && vp->loss_based)
    next = vegas_plus_whole_segments (cfg, vp, next, now);
  vp->hold_until = 0;
  if (cfg->vegas_plus && cfg->plus_recovery_hold && vp->loss_based) {
    vp->hold_until = now + rtt;
    vp->cubic.epoch_start = now + rtt;
  }
  return next;
}

/* A switch made by halvings that proved spurious (late acks) is undone
 * with them. */
static void
vegas_plus_undo_switch (VegasPlus * vp)
{
  vp->loss_based = FALSE;
  vp->halved = 0;
  vp->queue_free = FALSE;
}

static gdouble
packets_per_s (gdouble window, gint64 rtt)
{
  return window * NS_PER_S / (gdouble) MAX (rtt, 1);
}

/* Saturates: a receiver's RTT that a forged START left at 1 ns makes its
 * window's rate more than 64 bits hold (found by fuzz-vlmcc). */
static guint64
bits_per_s (const VlmccConfig * cfg, gdouble pps)
{
  gdouble bits = pps * cfg->packet_size * 8.0;

  return bits < (gdouble) G_MAXUINT64 ? (guint64) MAX (bits, 0.0) :
      G_MAXUINT64;
}

static guint32
rate_wire (gdouble pps, guint32 max)
{
  gdouble v = pps * VLMCC_RATE_SCALE;

  return v >= max ? max : (guint32) v;
}

/* ------------------------------------------------------------------ */
/* Sender */

typedef struct {
  gint64 sent;
  guint32 leader;
  guint32 tstamp;
  guint16 seq;
  gboolean outstanding;
  gboolean taken_lost;          /* taken as lost, no ack seen since */
  guint32 episode;              /* the loss episode it was counted in */
} InFlight;

/* The halvings since losses were last all accounted for. When every
 * packet they took as lost is acked after all, they were spurious and are
 * undone (Eifel, RFC 3522 and RFC 4015). */
typedef struct {
  gboolean open;
  guint32 id;
  gdouble undo_window;          /* the window before the first halving */
  gint64 undo_recovery;         /* and the recovery point */
  gint64 last_halving;
  guint halvings;
  guint pending;                /* taken as lost, not acked since */
  gboolean plus_switched;       /* a halving of it made the window
                                 * loss-based (vegas_plus) */
  CubicGrowth undo_cubic;       /* the cubic epoch before the first */
} LossEpisode;

/* STARTs answer probes; a forged probe's source gets the START, so they
 * are rationed (docs/security.md, "Reflection"). */
#define START_ADDRS 32
#define START_GAP_MAX (1000 * MS)

typedef struct {
  gboolean used;
  VlmccAddr addr;
  gint64 time;                  /* of the last START to it */
} StartRecord;

/* A datagram for the caller: one block with its bytes after it, queued
 * by its own link (a packet costs one allocation, not three). */
typedef struct {
  GList link;
  guint8 *data;
  gsize len;
  VlmccAddr to;
  gboolean control;             /* a START (sealed with a key), not data */
} Transmit;

static Transmit *
transmit_new (gsize room)
{
  Transmit *t = g_malloc (sizeof (Transmit) + room);

  memset (t, 0, sizeof (*t));
  t->link.data = t;
  t->data = (guint8 *) (t + 1);
  return t;
}

static void
transmit_queue (GQueue * out, Transmit * t)
{
  g_queue_push_tail_link (out, &t->link);
}

/* Frees every block of @out (Transmit or Pending: each is its link's
 * data). */
static void
blocks_free (GQueue * out)
{
  GList *l;

  while ((l = g_queue_pop_head_link (out)))
    g_free (l->data);
}

/* An RTP packet pushed and not yet sent, its bytes after it. */
typedef struct {
  GList link;
  gsize len;
} Pending;

static const guint8 *
pending_data (const Pending * p)
{
  return (const guint8 *) (p + 1);
}

/* Copies the head of @out into @buf, sealed under @auth (when set) if it is
 * control; returns its length, or 0 and leaves it queued when @max is too
 * small. The caller frees the Transmit it gets in *@head. */
static gsize
transmit_pop (GQueue * out, AuthSession * auth, guint8 * buf, gsize max,
    Transmit ** head)
{
  Transmit *t = g_queue_peek_head (out);
  gboolean seal = t && t->control && auth;
  gsize len;

  if (!t || t->len + (seal ? AUTH_TRAILER_SIZE : 0) > max)
    return 0;
  g_queue_pop_head_link (out);
  memcpy (buf, t->data, t->len);
  len = seal ? auth_seal (auth, buf, t->len, max) : t->len;
  *head = t;
  return len;
}

static void
transmit_free (Transmit * t)
{
  g_free (t);
}

/* With a key, the control datagram @data opens (counted by verdict in
 * @auth) and *@len becomes the packet's own length; FALSE if it does not. */
static gboolean
control_open (AuthSession * auth, const guint8 * data, gsize * len,
    gint64 now)
{
  return !auth || auth_open (auth, data, *len, now, len, NULL) == AUTH_OK;
}

/* The leader's forward one-way delay (config vegas_delay forward): its
 * arrival stamp minus the packet's tstamp, in us modulo 2^32 as the two
 * clocks differ by an unknown offset o. With F the propagation delay,
 * every sample bounds o + F from both sides: owd >= o + F, and owd - (rtt
 * - base) = o + F - (reverse queueing) <= o + F. The greatest lower bound
 * is exact once one ack came back without queueing, whatever the forward
 * queue held then (an election under congestion), and no higher than the
 * least owd. The leader's clock may run at another rate (skew), so o
 * moves, by at most FORWARD_MAX_SKEW_PPM. Fast, it raises o + F past old
 * owds: the upper bound widens by that much of the time since its sample.
 * Slow, it lowers o + F under the greatest lower bound, and the least owd
 * need not show it (Vegas holds owd over the bound): the greatest lower
 * bound of each FORWARD_BLOCK falls by |skew| a block, every block, and
 * the bound follows the least of the last FORWARD_FALLS falls when all
 * are falls. The acks' jitter moves a block's greatest both ways, and a
 * standing reverse queue that builds (which must not read as forward) is
 * one fall, larger than skew can make; neither is followed. */
#define FORWARD_MAX_SKEW_PPM 2000
#define FORWARD_BLOCK (2000 * MS)
#define FORWARD_FALLS 3

typedef struct {
  gboolean have;
  guint32 upper;                /* an owd: an upper bound at its time */
  gint64 upper_time;            /* ns, sender clock */
  guint32 floor;                /* the greatest owd - (rtt - base) */
  gint64 block_start;           /* ns: this block's first sample */
  guint32 block_max;            /* its greatest owd - (rtt - base) */
  guint32 last_block_max;       /* the last whole block's */
  gboolean have_last_block;
  gint32 falls[FORWARD_FALLS];  /* us, from one block's greatest to the
                                 * next */
  guint n_falls;
  gint64 queue;                 /* ns, smoothed as equation (1) */
} ForwardDelay;

struct _VlmccSender {
  VlmccConfig cfg;
  guint32 ssrc;
  GQueue pending;               /* Pending RTP, oldest first */
  GQueue out;                   /* Transmit */
  GQueue events;
  InFlight ring[RING_SIZE];
  guint16 next_seq, una;
  guint in_flight, peak_in_flight;
  gdouble window;
  RttEstimate est;
  VegasPlus plus;
  ForwardDelay fwd;
  gint64 epoch_min_rtt;         /* least RTT sample this epoch, 0: none */
  gint64 epoch_end;
  gint64 ack_hold;              /* ns, smoothed hosts' time per ack */
  gboolean have_ack_hold;
  gint64 recovery_point;        /* losses of packets sent before: ignored */
  LossEpisode episode;
  gboolean have_high;           /* the highest seq acked, for dup_thresh */
  guint16 high_acked;
  gint64 next_send;
  gboolean pace_held;           /* the window or no data held the sender */
  gint64 pace_free;             /* the run that found it free again */
  gint64 last_send;
  gboolean have_ack;            /* the last ack, for packet pairs */
  guint16 ack_seq;
  gint64 ack_sent, ack_arrival;
  guint burst_count;
  guint32 leader;
  VlmccAddr leader_addr;
  gboolean leaderless;          /* section 2.4 recovery in progress */
  gdouble leaderless_cap;       /* its growth's bound (0: none) */
  gboolean base_from_ack;       /* a volunteer's first ack sets base_rtt */
  /* a challenger's first RTT of acks sets base_rtt (sender_rebase) */
  gboolean rebasing;
  gint64 claimed_queue;         /* ns, its claimed rtt less base */
  gint64 claimed_base;          /* ns */
  gint64 rebase_end;            /* -1: no ack yet */
  gint64 rebase_min;
  /* the leader last given up, while a late ack of its may still come */
  guint32 lost_leader;
  VlmccAddr lost_leader_addr;
  gint64 lost_leader_time;
  guint sent_since_ack;
  gint64 election_time;
  /* a challenger's claims, until its first ack confirms them: the state
   * before its election, restored if it never acks */
  gboolean unconfirmed;
  RttEstimate pre_est;
  gdouble pre_window;
  guint64 last_rate;
  guint queued_control;         /* STARTs in out */
  gdouble start_tokens;
  gint64 start_refill;
  StartRecord start_recs[START_ADDRS];
  AuthSession *auth;            /* NULL: no key */
  VlmccSenderStats st;
};

static void
sender_event (VlmccSender * s, VlmccEventType type, gint64 now)
{
  VlmccEvent *ev = polled_push (&s->events, sizeof (VlmccEvent));

  ev->type = type;
  ev->time = now;
  ev->leader = s->leader;
  ev->role = VLMCC_ROLE_SENDER;
  ev->rate = bits_per_s (&s->cfg, packets_per_s (s->window, s->est.rtt));
}

static gdouble
sender_floor_window (const VlmccSender * s)
{
  gdouble pps;

  if (s->cfg.rate_floor == 0)
    return 1.0;
  pps = (gdouble) s->cfg.rate_floor / (s->cfg.packet_size * 8.0);
  return MAX (1.0, pps * s->est.rtt / NS_PER_S);
}

/* Clamps the window and tells the encoder when the rate moved by 1 %. */
static void
sender_set_window (VlmccSender * s, gdouble window, gint64 now)
{
  guint64 rate;

  /* whole packets, as only whole packets travel */
  s->window = CLAMP (floor (window), ceil (sender_floor_window (s)),
      (gdouble) MAX_WINDOW);
  rate = bits_per_s (&s->cfg, packets_per_s (s->window, s->est.rtt));
  if (rate * 100 < s->last_rate * 99 || rate * 100 > s->last_rate * 101) {
    s->last_rate = rate;
    sender_event (s, VLMCC_EVENT_RATE, now);
  }
}

VlmccSender *
vlmcc_sender_new (const VlmccConfig * cfg, guint32 ssrc,
    const RandomSource * rng, gint64 now)
{
  VlmccSender *s = g_new0 (VlmccSender, 1);

  s->cfg = *cfg;
  s->cfg.burst = MAX (s->cfg.burst, 1);
  s->ssrc = ssrc;
  s->next_seq = (guint16) random_source_range (rng, 0, G_MAXUINT16);
  s->una = s->next_seq;
  s->est.rtt = cfg->initial_rtt;
  s->est.dev = cfg->initial_rtt / 2;
  s->est.base = cfg->initial_rtt;
  s->epoch_end = now + s->est.rtt;
  s->recovery_point = now;
  s->next_send = now;
  s->pace_held = TRUE;          /* nothing queued yet */
  s->pace_free = now;
  s->last_send = -1;
  s->election_time = now;
  s->start_tokens = MAX (cfg->start_rate, 1);
  s->start_refill = now;
  sender_set_window (s, cfg->initial_window, now);
  return s;
}

void
vlmcc_sender_free (VlmccSender * s)
{
  if (!s)
    return;
  blocks_free (&s->pending);
  blocks_free (&s->out);
  polled_clear (&s->events);
  auth_session_free (s->auth);
  g_free (s);
}

void
vlmcc_sender_set_key (VlmccSender * s, const AuthKey * key,
    const RandomSource * rng)
{
  auth_session_free (s->auth);
  s->auth = auth_session_new (key, (guint32) random_source_range (rng, 1,
          G_MAXUINT32), VLMCC_MAX_KEYED_RECEIVERS);
}

static InFlight *
ring_at (VlmccSender * s, guint16 seq)
{
  return &s->ring[seq % RING_SIZE];
}

/* Every packet sent so far counts as acknowledged (an election, or the
 * leader given up). */
static void
sender_forget_in_flight (VlmccSender * s)
{
  for (guint16 q = s->una; q != s->next_seq; q++)
    ring_at (s, q)->outstanding = FALSE;
  s->una = s->next_seq;
  s->in_flight = 0;
  s->peak_in_flight = 0;
  s->have_high = FALSE;
}

static void
sender_slide_una (VlmccSender * s)
{
  while (s->una != s->next_seq && !ring_at (s, s->una)->outstanding)
    s->una++;
}

/* RFC 6298's RTO with the paper's estimators: rtt + 4 sigma, the margin
 * at least the granularity, the whole at least rto_min. */
static gint64
sender_rto (const VlmccSender * s)
{
  gint64 rto = s->est.rtt + MAX ((gint64) s->cfg.rto_var_mult * s->est.dev,
      s->cfg.rto_granularity);

  return MAX (rto, s->cfg.rto_min);
}

/* A halving opens a loss episode, or joins the open one while its late
 * acks may still come (two timeouts). */
static void
sender_halve (VlmccSender * s, gint64 now)
{
  LossEpisode *ep = &s->episode;
  gboolean switched;
  gdouble window;

  if (ep->open && now - ep->last_halving > 2 * sender_rto (s))
    ep->open = FALSE;
  if (!ep->open) {
    ep->open = TRUE;
    ep->id++;
    ep->undo_window = s->window;
    ep->undo_recovery = s->recovery_point;
    ep->halvings = 0;
    ep->pending = 0;
    ep->plus_switched = FALSE;
    ep->undo_cubic = s->plus.cubic;
  }
  ep->halvings++;
  ep->last_halving = now;
  s->st.halvings++;
  s->recovery_point = now;
  window = vegas_plus_on_loss (&s->cfg, &s->plus, s->window, s->est.rtt, now,
      &switched);
  if (switched)
    ep->plus_switched = TRUE;
  sender_set_window (s, window, now);
}

/* One halving per RTT: losses of packets sent before the last halving
 * only join its episode. */
static void
sender_take_lost (VlmccSender * s, InFlight * f, gint64 now)
{
  f->outstanding = FALSE;
  s->in_flight--;
  s->st.lost++;
  if (f->sent >= s->recovery_point)
    sender_halve (s, now);
  if (s->episode.open) {
    f->taken_lost = TRUE;
    f->episode = s->episode.id;
    s->episode.pending++;
  }
}

/* The ack of a packet taken as lost: the loss was not one. When it was
 * the last of its episode's, the episode's halvings are undone. */
static void
sender_late_ack (VlmccSender * s, InFlight * f, gint64 now)
{
  LossEpisode *ep = &s->episode;

  f->taken_lost = FALSE;
  s->st.spurious_losses++;
  if (!ep->open || f->episode != ep->id || --ep->pending > 0)
    return;
  ep->open = FALSE;
  s->st.halvings_undone += ep->halvings;
  s->recovery_point = ep->undo_recovery;
  if (ep->plus_switched)
    vegas_plus_undo_switch (&s->plus);
  s->plus.cubic = ep->undo_cubic;
  s->plus.hold_until = 0;
  sender_set_window (s, MAX (s->window, ep->undo_window), now);
}

/* Packets unacknowledged rto after they left are lost. */
static void
sender_detect_losses (VlmccSender * s, gint64 now)
{
  gint64 rto = sender_rto (s);

  while (s->una != s->next_seq) {
    InFlight *f = ring_at (s, s->una);

    if (f->outstanding) {
      if (f->sent + rto > now)
        break;
      sender_take_lost (s, f, now);
    }
    s->una++;
  }
}

/* Packets dup_thresh or more before the highest acked are lost: the
 * leader acks every packet, so each later ack is a duplicate ack's news
 * (RFC 5681). Delay that keeps the acks in order never trips it. */
static void
sender_detect_gaps (VlmccSender * s, gint64 now)
{
  guint thresh = MAX (s->cfg.dup_thresh, 1);

  for (guint16 q = s->una; q != s->next_seq; q++) {
    guint16 behind = (guint16) (s->high_acked - q);
    InFlight *f = ring_at (s, q);

    if (behind >= 0x8000 || behind < thresh)
      break;
    if (f->outstanding)
      sender_take_lost (s, f, now);
  }
  sender_slide_una (s);
}

static void
sender_lose_leader (VlmccSender * s, gint64 now)
{
  /* a challenger that never acked: its claims were never true */
  if (s->unconfirmed) {
    s->est = s->pre_est;
    sender_set_window (s, s->pre_window, now);
    s->unconfirmed = FALSE;
    s->lost_leader = 0;
  } else {
    s->lost_leader = s->leader;
    s->lost_leader_addr = s->leader_addr;
    s->lost_leader_time = now;
  }
  s->leader = 0;
  memset (&s->leader_addr, 0, sizeof (s->leader_addr));
  s->leaderless = TRUE;
  s->leaderless_cap = s->cfg.leaderless_growth_limit * s->window;
  s->plus.cubic.started = FALSE;
  s->st.leader_losses++;
  s->st.leader_changes++;
  sender_forget_in_flight (s);
  sender_event (s, VLMCC_EVENT_LEADER, now);
}

/* How far a clock may have moved o + F, us, in @span ns. */
static guint32
forward_skew_span (gint64 span)
{
  return (guint32) (MAX (span, 0) / 1000 * FORWARD_MAX_SKEW_PPM / 1000000);
}

/* The least of the last FORWARD_FALLS falls (0 before there are as
 * many): a fall every block, as skew makes, not jitter's odd one. */
static gint32
forward_steady_fall (const ForwardDelay * fd)
{
  gint32 least = G_MAXINT32;

  if (fd->n_falls < FORWARD_FALLS)
    return 0;
  for (guint i = 0; i < FORWARD_FALLS; i++)
    least = MIN (least, fd->falls[i]);
  return least;
}

/* A block of lower bounds ends at @now: the bound follows the steady fall
 * of the blocks' greatest when it is one skew can make. */
static void
forward_block_end (ForwardDelay * fd, gint64 now)
{
  gint32 fall;

  if (fd->have_last_block) {
    fd->falls[fd->n_falls++ % FORWARD_FALLS] =
        (gint32) (fd->last_block_max - fd->block_max);
    fall = forward_steady_fall (fd);
    if (fall > 0 &&
        (guint32) fall <= forward_skew_span (now - fd->block_start))
      fd->floor -= (guint32) fall;
  }
  fd->last_block_max = fd->block_max;
  fd->have_last_block = TRUE;
}

/* The bounds of ForwardDelay moved by the sample @owd, @lower at @now;
 * returns the lower bound. */
static guint32
forward_bounds_update (ForwardDelay * fd, guint32 owd, guint32 lower,
    gint64 now)
{
  guint32 upper;

  if (!fd->have) {
    fd->upper = fd->floor = fd->block_max = lower;
    fd->upper_time = fd->block_start = now;
    fd->have_last_block = FALSE;
    fd->n_falls = 0;
  }
  if (now - fd->block_start >= FORWARD_BLOCK) {
    forward_block_end (fd, now);
    fd->block_start = now;
    fd->block_max = lower;
  } else if ((gint32) (lower - fd->block_max) > 0)
    fd->block_max = lower;
  upper = fd->upper + forward_skew_span (now - fd->upper_time);
  if (!fd->have || (gint32) (owd - upper) <= 0) {
    fd->upper = upper = owd;
    fd->upper_time = now;
  }
  if ((gint32) (lower - fd->floor) > 0)
    fd->floor = lower;
  if ((gint32) (fd->floor - upper) > 0)
    fd->floor = upper;
  return fd->floor;
}

/* A forward queueing sample from the leader's ack of @f at @now, returned
 * and smoothed: owd over the bounds of ForwardDelay. It never exceeds the
 * RTT sample's own excess over the base. */
static gint64
sender_forward_sample (VlmccSender * s, const VlmccMsg * m,
    const InFlight * f, gint64 rtt, gint64 now)
{
  ForwardDelay *fd = &s->fwd;
  guint32 owd = m->arrival - f->tstamp;
  guint32 lower = owd - (guint32) (MAX (rtt - s->est.base, 0) / 1000);
  guint32 floor = forward_bounds_update (fd, owd, lower, now);
  gint64 queue;

  queue = (gint64) (gint32) (owd - floor) * 1000;
  queue = MIN (queue, MAX (rtt - s->est.base, 0));
  if (!fd->have)
    fd->queue = queue;
  fd->queue = (gint64) ((1.0 - s->cfg.g) * fd->queue + s->cfg.g * queue);
  fd->have = TRUE;
  return queue;
}

/* What the Vegas step compares with the base RTT (config vegas_delay). */
static gint64
sender_vegas_delay (const VlmccSender * s)
{
  switch (s->cfg.vegas_delay) {
    case VLMCC_VEGAS_DELAY_MIN_RTT:
      if (s->epoch_min_rtt > 0)
        return s->epoch_min_rtt;
      break;
    case VLMCC_VEGAS_DELAY_FORWARD:
      /* the delay at which diff is the packets held in the forward queue,
       * the actual rate W / rtt times its delay: base + queue when the
       * way back adds nothing */
      if (s->fwd.have && s->fwd.queue < s->est.rtt)
        return (gint64) ((gdouble) s->est.base * s->est.rtt /
            (s->est.rtt - s->fwd.queue));
      break;
  }
  return s->est.rtt;
}

/* The hosts' time in a window slot's cycle (config vegas_ack_clock): from
 * the packet's send to the read of its ack, less the RTT sample (the
 * leader's reported hold and the sender's wait to read the ack), smoothed
 * as equation (1). */
static void
sender_ack_hold_sample (VlmccSender * s, gint64 hold)
{
  hold = MAX (hold, 0);
  if (!s->have_ack_hold)
    s->ack_hold = hold;
  else
    s->ack_hold = (gint64) ((1.0 - s->cfg.g) * s->ack_hold + s->cfg.g * hold);
  s->have_ack_hold = TRUE;
}

/* The Vegas step's delay with the actual rate taken on the ack clock:
 * diff = (W - peak) + actual * (queueing at @delay), the backlog the
 * actual rate keeps in the queue (Little), with actual = peak / cycle,
 * cycle = rtt hat + the hosts' time, instead of the paper's peak / rtt
 * hat. Returned as the delay that gives that diff in vegas_step's form. */
static gint64
sender_ack_clock_delay (const VlmccSender * s, gint64 delay)
{
  gdouble base = (gdouble) s->est.base;
  gdouble k, queued;

  if (!s->cfg.vegas_ack_clock || !s->have_ack_hold || s->ack_hold <= 0)
    return delay;
  k = (gdouble) s->est.rtt / (s->est.rtt + s->ack_hold);
  queued = k * (1.0 - base / MAX (delay, 1));
  return (gint64) (base / (1.0 - queued));
}

static gdouble sender_hold_scale (const VlmccSender * s);

/* Once per RTT: the Vegas adjustment, or one more packet to provoke a
 * challenge while there is no leader. */
static void
sender_epoch (VlmccSender * s, gint64 now)
{
  gdouble w = s->window;

  if (now < s->epoch_end)
    return;
  if (s->leaderless) {
    w += 1.0;
    if (s->leaderless_cap > 0)
      w = MIN (w, MAX (s->leaderless_cap, s->window));
  }
  /* a challenger's claimed estimates move nothing before its first ack */
  else if (s->est.sampled && !s->unconfirmed) {
    s->st.vegas_rtt = sender_ack_clock_delay (s, sender_vegas_delay (s));
    /* the packets in the network: those the hosts held are not there */
    w = window_step (&s->cfg, &s->plus, s->window,
        s->peak_in_flight / sender_hold_scale (s), &s->est, s->st.vegas_rtt,
        now);
  }
  sender_set_window (s, w, now);
  s->peak_in_flight = s->in_flight;
  s->epoch_min_rtt = 0;
  s->epoch_end = now + s->est.rtt;
}

/* The packets in travel per packet in the network (config
 * window_covers_hold): a window's slot comes back after rtt hat plus the
 * hosts' time per ack, which rtt hat leaves out, so W in travel would
 * send only W / (rtt hat + h hat). At most 2: a host stalled longer than
 * an RTT does not open the window further. */
static gdouble
sender_hold_scale (const VlmccSender * s)
{
  if (!s->cfg.window_covers_hold || !s->have_ack_hold || s->ack_hold <= 0)
    return 1.0;
  return 1.0 + (gdouble) MIN (s->ack_hold, s->est.rtt) / MAX (s->est.rtt, 1);
}

/* The packets the window lets travel. */
static guint
sender_travel_limit (const VlmccSender * s)
{
  return (guint) (s->window * sender_hold_scale (s));
}

/* Whether the window (and the in-flight ring) lets another packet go. */
static gboolean
sender_window_open (const VlmccSender * s)
{
  /* the ring holds the oldest packet in travel: wait for it to be lost */
  if ((guint16) (s->next_seq - s->una) >= RING_SIZE - 1)
    return FALSE;
  return s->leaderless || s->leader == 0 ||
      s->in_flight < sender_travel_limit (s);
}

static gboolean
sender_may_send (const VlmccSender * s, gint64 now)
{
  return !g_queue_is_empty ((GQueue *) & s->pending) && now >= s->next_send
      && sender_window_open (s);
}

/* The data packet's fields (section 2.2 and 2.3) as one element. */
static void
sender_write_ext (VlmccSender * s, guint8 data[VLMCC_EXT_SIZE], gint64 now)
{
  /* in the tstamp's units, so the drifts a follower adds up telescope to
   * the tstamps' difference and no rounding accumulates */
  guint32 drift = s->last_send < 0 ? 0 : US (now) - US (s->last_send);
  WireWriter w;

  wire_writer_init (&w, data, VLMCC_EXT_SIZE);
  wire_write_u16 (&w, s->next_seq);
  wire_write_u32 (&w, s->leader);
  wire_write_u32 (&w, US (now));
  wire_write_be (&w, MIN (drift, (guint32) DRIFT_MAX), 3);
  wire_write_be (&w, rate_wire (packets_per_s (s->window, s->est.rtt),
          RATE_MAX), 3);
}

static void
sender_record (VlmccSender * s, gint64 now)
{
  InFlight *f = ring_at (s, s->next_seq);

  f->sent = now;
  f->leader = s->leader;
  f->tstamp = US (now);
  f->seq = s->next_seq;
  f->taken_lost = FALSE;
  /* with no leader nothing will be acked: the packet is not in travel */
  f->outstanding = s->leader != 0;
  if (f->outstanding)
    s->in_flight++;
  s->peak_in_flight = MAX (s->peak_in_flight, s->in_flight);
  s->next_seq++;
  sender_slide_una (s);
  s->st.sent++;
  s->last_send = now;
}

/* The echo element (config challenge_echo): how long a challenge would
 * still be refused as too soon after an election, ms, saturating. */
static gint64 sender_holdoff_left (const VlmccSender * s, gint64 now);

static void
sender_write_echo (const VlmccSender * s, guint8 echo[VLMCC_ECHO_SIZE],
    gint64 now)
{
  gint64 ms = (sender_holdoff_left (s, now) + MS - 1) / MS;

  ms = MIN (ms, G_MAXUINT16);
  echo[0] = (guint8) (ms >> 8);
  echo[1] = (guint8) ms;
}

/* @in with the data element and, with challenge_echo, the echo element
 * added, as a new Transmit; NULL when it cannot carry them. With the echo
 * the data element goes first into the second half of the block. */
static Transmit *
sender_stamp (VlmccSender * s, const guint8 * in, gsize len, gint64 now)
{
  guint8 data[VLMCC_EXT_SIZE], echo[VLMCC_ECHO_SIZE];
  RtpExtElement el = { s->cfg.ext_id, data, sizeof (data) };
  RtpExtElement el_echo = { s->cfg.echo_ext_id, echo, sizeof (echo) };
  gsize max = len + VLMCC_DATA_GROWTH;
  Transmit *t = transmit_new (s->cfg.challenge_echo ? 2 * max : max);
  guint8 *first = s->cfg.challenge_echo ? t->data + max : t->data;

  sender_write_ext (s, data, now);
  sender_write_echo (s, echo, now);
  len = rtp_ext_add (in, len, &el, first, max);
  if (len > 0 && s->cfg.challenge_echo)
    len = rtp_ext_add (first, len, &el_echo, t->data, max);
  if (len == 0) {
    transmit_free (t);
    return NULL;
  }
  t->len = len;
  return t;
}

/* FALSE (counted) when the packet cannot carry the extension. */
static gboolean
sender_stamp_and_queue (VlmccSender * s, const Pending * rtp, gint64 now)
{
  Transmit *t = sender_stamp (s, pending_data (rtp), rtp->len, now);

  if (!t) {
    s->st.unstamped++;
    return FALSE;
  }
  transmit_queue (&s->out, t);
  sender_record (s, now);
  return TRUE;
}

/* Bursts of cfg.burst packets, then rtt / W (equation 3): a full window
 * leaves in rtt / 2, the window bounds the mean. One packet per rtt / W
 * while there is no leader: a window per RTT. With pacing_catch_up the
 * gap counts from the burst's due time when the loop ran late. */
static void
sender_pace (VlmccSender * s, gint64 now)
{
  gint64 gap = (gint64) (s->est.rtt / MAX (s->window, 1.0));

  s->burst_count++;
  if (s->leaderless || s->leader == 0 || s->burst_count >= s->cfg.burst) {
    s->burst_count = 0;
    /* from the schedule, so a loop held off the CPU does not lose its
     * lateness; at most pacing_catch_up of it, so no backlog goes at once.
     * Time the window or an empty queue held the sender is no lateness
     * (made up, it would send a burst after every wait for an ack): the
     * send was due no earlier than the run that found it free. */
    s->next_send = MAX (MAX (s->next_send, s->pace_free),
        now - s->cfg.pacing_catch_up) + gap;
  }
}

static gboolean
sender_held (VlmccSender * s)
{
  return g_queue_is_empty (&s->pending) || !sender_window_open (s);
}

/* Before a run's sends: the first run that finds the sender no longer
 * held by its window or its queue is when its pace may count from. */
static void
sender_note_pace_free (VlmccSender * s, gint64 now)
{
  if (s->pace_held && !sender_held (s)) {
    s->pace_held = FALSE;
    s->pace_free = now;
  }
}

static void
sender_run (VlmccSender * s, gint64 now)
{
  sender_detect_losses (s, now);
  sender_epoch (s, now);
  sender_note_pace_free (s, now);
  while (sender_may_send (s, now)) {
    GList *l = g_queue_pop_head_link (&s->pending);
    gboolean sent = sender_stamp_and_queue (s, l->data, now);

    g_free (l->data);
    if (!sent)
      continue;
    sender_pace (s, now);
    if (s->leader != 0 && ++s->sent_since_ack > sender_travel_limit (s))
      sender_lose_leader (s, now);
  }
  s->pace_held = s->pace_held || sender_held (s);
}

static void
sender_queue_pending (VlmccSender * s, const guint8 * rtp, gsize len)
{
  Pending *p = g_malloc (sizeof (Pending) + len);

  memset (p, 0, sizeof (*p));
  p->link.data = p;
  p->len = len;
  memcpy (p + 1, rtp, len);
  g_queue_push_tail_link (&s->pending, &p->link);
}

gboolean
vlmcc_sender_enqueue (VlmccSender * s, const guint8 * rtp, gsize len)
{
  RtpHeader h;
  RtpExtElement el;

  if (!rtp_header_parse (rtp, len, &h) ||
      g_queue_get_length (&s->pending) >= s->cfg.max_queue) {
    s->st.queue_dropped++;
    return FALSE;
  }
  /* a packet that carries our ids already would be read ambiguously
   * (receivers read an echo element whenever there is one, so its id is
   * ours even with the echo off) */
  if (rtp_ext_find (&h, s->cfg.ext_id, &el) ||
      rtp_ext_find (&h, s->cfg.echo_ext_id, &el)) {
    s->st.unstamped++;
    return FALSE;
  }
  sender_queue_pending (s, rtp, len);
  return TRUE;
}

gboolean
vlmcc_sender_push (VlmccSender * s, const guint8 * rtp, gsize len,
    gint64 now)
{
  if (!vlmcc_sender_enqueue (s, rtp, len))
    return FALSE;
  sender_run (s, now);
  return TRUE;
}

guint
vlmcc_sender_queued (const VlmccSender * s)
{
  return g_queue_get_length ((GQueue *) & s->pending);
}

/* A late ack from the leader given up, of a packet it was to ack, within
 * two timeouts of giving it up: it was late, not gone (section 2.4's rule
 * counts packets, and a stall past the timeout lets a window out). It
 * leads again; no election, so no hold-off. */
static void
sender_maybe_regain_leader (VlmccSender * s, const VlmccMsg * m,
    const VlmccAddr * from, const InFlight * f, gint64 now, gint64 arrival)
{
  if (!s->leaderless || s->lost_leader == 0 || m->id != s->lost_leader ||
      !addr_equal (from, &s->lost_leader_addr) || f->seq != m->seq ||
      f->leader != m->id || arrival - s->lost_leader_time > 2 * sender_rto (s)
      || (gint64) (guint32) (m->tstamp - f->tstamp) * 1000 >
      arrival - f->sent + 1000)
    return;
  s->leader = m->id;
  s->leader_addr = s->lost_leader_addr;
  s->lost_leader = 0;
  s->leaderless = FALSE;
  s->sent_since_ack = 0;
  s->st.leader_changes++;
  s->st.leaders_regained++;
  sender_event (s, VLMCC_EVENT_LEADER, now);
}

/* Ours (config own_base): a challenger's base RTT is the sender's own
 * acks of its first RTT less the queueing it claimed (its rtt less its base), not its
 * claimed base. A follower's RTT is its START's moved by the one-way
 * delay changes since (section 2.3): how much queue it sees is exact, the
 * level is off by whatever the START and the packet it counts from met
 * apart (a loaded host: the sender's loop, the bed's delay program), and
 * a claimed base too low is never corrected (the base is a minimum) and
 * held the window low for good; one too high hid a queue. The sender
 * measures the level itself, as the paper's base RTT is its own. */
static void
sender_rebase (VlmccSender * s, gint64 rtt, gint64 now)
{
  if (!s->rebasing)
    return;
  if (s->rebase_end < 0) {
    s->rebase_end = now + s->est.rtt;
    s->rebase_min = G_MAXINT64;
  }
  s->rebase_min = MIN (s->rebase_min, rtt);
  /* never under the claim (a claimed queue too large, its base the low
   * tail of its jitter, would take the base to nothing) nor over the
   * least sample */
  s->est.base = MIN (s->rebase_min, MAX (s->claimed_base,
          s->rebase_min - s->claimed_queue));
  if (now >= s->rebase_end)
    s->rebasing = FALSE;
}

/* @arrival: when the ack reached the host, for every measure of the path
 * (RTT, ack spacing); @now: the state's time (halvings, events). */
static VlmccInput
sender_on_ack (VlmccSender * s, const VlmccMsg * m, const VlmccAddr * from,
    gint64 now, gint64 arrival)
{
  guint16 off = (guint16) (m->seq - s->una);
  guint16 span = (guint16) (s->next_seq - s->una);
  InFlight *f = ring_at (s, m->seq);
  guint32 held = m->tstamp - f->tstamp;
  gint64 rtt, queue;
  gboolean late;

  if (s->leader == 0)
    sender_maybe_regain_leader (s, m, from, f, now, arrival);
  if (s->leader == 0 || m->id != s->leader)
    return f->leader == m->id ? (s->st.stale++, VLMCC_INPUT_IGNORED) :
        (s->st.forged++, VLMCC_INPUT_FORGED);
  if (!addr_equal (from, &s->leader_addr)) {
    s->st.forged++;
    return VLMCC_INPUT_FORGED;
  }
  late = f->taken_lost && f->seq == m->seq && f->leader == m->id;
  if (!late && (off >= span || !f->outstanding || f->leader != m->id)) {
    s->st.stale++;
    return VLMCC_INPUT_IGNORED;
  }
  /* the leader adds its own processing time: never more than the time
   * since the packet left */
  rtt = (gint64) (guint32) (US (arrival) - m->tstamp) * 1000;
  if ((gint64) held * 1000 > arrival - f->sent + 1000 || rtt > MAX_RTT) {
    s->st.forged++;
    return VLMCC_INPUT_FORGED;
  }
  s->sent_since_ack = 0;
  s->unconfirmed = FALSE;
  s->st.acked++;
  /* a late sample is a true one: the timeout grows with it */
  rtt_estimate_sample (&s->est, &s->cfg, rtt);
  if (s->base_from_ack) {
    s->est.base = MAX (rtt, 1);
    s->base_from_ack = FALSE;
  }
  sender_rebase (s, rtt, now);
  if (late) {
    sender_late_ack (s, f, now);
    return VLMCC_INPUT_TAKEN;
  }
  f->outstanding = FALSE;
  s->in_flight--;
  if (!s->have_high || (gint16) (m->seq - s->high_acked) > 0)
    s->high_acked = m->seq;
  s->have_high = TRUE;
  sender_detect_gaps (s, now);
  if (s->epoch_min_rtt == 0 || rtt < s->epoch_min_rtt)
    s->epoch_min_rtt = rtt;
  sender_ack_hold_sample (s, now - f->sent - rtt);
  queue = sender_forward_sample (s, m, f, rtt, arrival);
  vegas_plus_sample (&s->plus, s->cfg.vegas_delay ==
      VLMCC_VEGAS_DELAY_FORWARD ? s->est.base + queue : rtt);
  if (s->have_ack && m->seq == (guint16) (s->ack_seq + 1))
    vegas_plus_pair (&s->plus, f->sent - s->ack_sent,
        arrival - s->ack_arrival);
  s->have_ack = TRUE;
  s->ack_seq = m->seq;
  s->ack_sent = f->sent;
  s->ack_arrival = arrival;
  return VLMCC_INPUT_TAKEN;
}

static StartRecord *
start_record_of (VlmccSender * s, const VlmccAddr * addr)
{
  StartRecord *oldest = &s->start_recs[0];

  for (guint i = 0; i < START_ADDRS; i++) {
    StartRecord *r = &s->start_recs[i];

    if (r->used && addr_equal (&r->addr, addr))
      return r;
    if (!r->used || (oldest->used && r->time < oldest->time))
      oldest = r;
  }
  return oldest;
}

/* At most start_rate STARTs a second (a bucket one second deep) and one
 * per address per start_gap, or per RTT when longer (up to 1 s): a
 * forged probe reflects at most that at its victim. */
static gboolean
sender_start_allowed (VlmccSender * s, const VlmccAddr * to, gint64 now)
{
  gdouble rate = MAX (s->cfg.start_rate, 1);
  gint64 gap = MAX (s->cfg.start_gap, MIN (s->est.rtt, START_GAP_MAX));
  StartRecord *rec = start_record_of (s, to);

  s->start_tokens = MIN (rate, s->start_tokens + MAX (now - s->start_refill,
          0) * rate / NS_PER_S);
  s->start_refill = MAX (now, s->start_refill);
  if (rec->used && addr_equal (&rec->addr, to) && now - rec->time < gap)
    return FALSE;
  if (s->start_tokens < 1.0)
    return FALSE;
  s->start_tokens -= 1.0;
  rec->used = TRUE;
  addr_copy (&rec->addr, to);
  rec->time = now;
  return TRUE;
}

/* @arrival: when the probe reached the host; the START reports the time
 * since (its hold), which the prober takes out of its RTT, as the
 * leader's ack reports the time it held a data packet. */
static void
sender_queue_start (VlmccSender * s, const VlmccMsg * m,
    const VlmccAddr * to, gint64 now, gint64 arrival)
{
  VlmccMsg st = { 0 };
  Transmit *t;

  if (s->queued_control >= VLMCC_MAX_QUEUED_CONTROL) {
    s->st.control_dropped++;
    return;
  }
  s->queued_control++;
  t = transmit_new (VLMCC_START_SIZE);
  t->control = TRUE;
  st.type = VLMCC_MSG_START;
  st.id = s->ssrc;
  st.target = m->id;
  st.seq = s->next_seq;
  st.leader = s->leader;
  st.rate = rate_wire (packets_per_s (s->window, s->est.rtt), G_MAXUINT32);
  st.win = (guint32) (s->window * 256.0);
  st.tstamp = m->tstamp;
  st.sent = US (now);
  st.hold = (guint32) MIN ((now - arrival) / 1000, VLMCC_START_HOLD_MAX_US);
  t->len = vlmcc_msg_write (&st, t->data, VLMCC_START_SIZE);
  addr_copy (&t->to, to);
  transmit_queue (&s->out, t);
}

static void
sender_elect (VlmccSender * s, guint32 id, const VlmccAddr * from,
    gdouble window, gint64 rtt, gint64 base, gint64 now)
{
  s->unconfirmed = rtt > 0;
  s->pre_est = s->est;
  s->pre_window = s->window;
  s->leader = id;
  addr_copy (&s->leader_addr, from);
  s->leaderless = FALSE;
  s->base_from_ack = FALSE;
  s->rebasing = FALSE;
  s->lost_leader = 0;
  s->sent_since_ack = 0;
  s->election_time = now;
  s->recovery_point = now;
  /* another path's window: the cubic epoch starts again from it */
  s->plus.cubic.started = FALSE;
  /* the losses of another leader's packets are no longer ours to undo */
  s->episode.open = FALSE;
  /* another receiver's clock, and its host's holds */
  s->fwd.have = FALSE;
  s->have_ack_hold = FALSE;
  s->epoch_min_rtt = 0;
  s->st.elections++;
  s->st.leader_changes++;
  sender_forget_in_flight (s);
  if (rtt > 0)
    rtt_estimate_reset (&s->est, rtt, base);
  s->epoch_end = now + s->est.rtt;
  sender_event (s, VLMCC_EVENT_LEADER, now);
  sender_set_window (s, window, now);
}

/* Section 2.3's "recently elected" refusal. It holds in leaderless
 * recovery too, and lasts at least election_holdoff_min whatever RTT the
 * winner claimed, so a challenge storm elects at most once per
 * election_holdoff_min (the amplification limit, docs/security.md). */
static gint64
sender_holdoff_span (const VlmccSender * s)
{
  return MAX ((gint64) s->cfg.election_holdoff * s->est.rtt,
      s->cfg.election_holdoff_min);
}

/* The hold-off follows rtt hat as the new leader's acks move it, so the
 * echo tells what is left by the estimate of now. */
static gint64
sender_holdoff_left (const VlmccSender * s, gint64 now)
{
  if (s->st.elections == 0)
    return 0;
  return MAX (s->election_time + sender_holdoff_span (s) - now, 0);
}

static gboolean
sender_in_holdoff (const VlmccSender * s, gint64 now)
{
  return sender_holdoff_left (s, now) > 0;
}

/* Equation (6): a challenger is worse off, so its election never raises
 * the rate. Its window and RTT are capped to the rate now (a claim of a
 * tiny RTT would otherwise multiply it); with less than a packet per
 * claimed RTT the RTT is taken longer instead. */
static void
sender_accept (VlmccSender * s, const VlmccMsg * m, const VlmccAddr * from,
    gint64 now)
{
  gdouble pps = packets_per_s (s->window, s->est.rtt);
  gint64 rtt = (gint64) m->rtt * 1000;
  gdouble window = m->win / 256.0;

  if (rtt > 0) {
    window = MIN (window, pps * rtt / NS_PER_S);
    if (window < 1.0) {
      window = 1.0;
      rtt = MAX (rtt, (gint64) (NS_PER_S / pps));
    }
  } else {
    window = MIN (window, s->window);
  }
  sender_elect (s, m->id, from, window, rtt, (gint64) m->base_rtt * 1000,
      now);
}

/* Ours (volunteer_after): a volunteer counts only in section 2.4's
 * recovery, and is then a challenge under the same rules (hold-off, rate
 * floor). */
static VlmccInput
sender_on_challenge (VlmccSender * s, const VlmccMsg * m,
    const VlmccAddr * from, gint64 now, gint64 arrival)
{
  gdouble pps = (gdouble) m->rate / VLMCC_RATE_SCALE;

  if (m->id == 0) {
    s->st.malformed++;
    return VLMCC_INPUT_MALFORMED;
  }
  if (m->probe) {
    s->st.probes++;
    /* ours: with no leader at all, the first receiver heard leads */
    if (s->leader == 0 && !s->leaderless)
      sender_elect (s, m->id, from, s->window, 0, 0, now);
    if (sender_start_allowed (s, from, now))
      sender_queue_start (s, m, from, now, arrival);
    else
      s->st.starts_refused++;
    return VLMCC_INPUT_TAKEN;
  }
  s->st.challenges++;
  if ((gint64) m->rtt * 1000 > MAX_RTT || (gint64) m->base_rtt * 1000 >
      MAX_RTT) {
    s->st.forged++;
    return VLMCC_INPUT_FORGED;
  }
  if (m->volunteer)
    s->st.volunteers++;
  if (m->id == s->leader || (m->volunteer && !s->leaderless))
    return VLMCC_INPUT_IGNORED;
  if (sender_in_holdoff (s, now)) {
    s->st.refused_holdoff++;
    return VLMCC_INPUT_IGNORED;
  }
  if (bits_per_s (&s->cfg, pps) < s->cfg.rate_floor) {
    s->st.refused_floor++;
    return VLMCC_INPUT_IGNORED;
  }
  s->st.accepted++;
  sender_accept (s, m, from, now);
  /* ours (volunteer_after): the first volunteer leads; its claimed base
   * RTT, from a small START, lacks the data's serialisation, and Vegas
   * growing from under its path's rate would stop short on it */
  if (m->volunteer) {
    s->st.volunteers_elected++;
    s->base_from_ack = TRUE;
  } else if (s->cfg.own_base) {
    s->rebasing = TRUE;
    s->rebase_end = -1;
    s->claimed_queue = MAX ((gint64) m->rtt - (gint64) m->base_rtt, 0) * 1000;
    s->claimed_base = (gint64) m->base_rtt * 1000;
  }
  return VLMCC_INPUT_TAKEN;
}

VlmccInput
vlmcc_sender_on_feedback (VlmccSender * s, const guint8 * data, gsize len,
    const VlmccAddr * from, gint64 now)
{
  return vlmcc_sender_on_feedback_at (s, data, len, from, now, now);
}

VlmccInput
vlmcc_sender_on_feedback_at (VlmccSender * s, const guint8 * data, gsize len,
    const VlmccAddr * from, gint64 now, gint64 arrival)
{
  VlmccMsg m;
  VlmccAddr none = { 0 };
  VlmccInput res;

  if (!from)
    from = &none;
  /* no later than now, and acks arrive in order (a stamp the host could
   * not give falls back to the read time, later than the next stamps) */
  arrival = CLAMP (arrival, s->have_ack ? s->ack_arrival : arrival, now);
  if (!control_open (s->auth, data, &len, now))
    return VLMCC_INPUT_UNAUTHENTICATED;
  if (!vlmcc_msg_parse (data, len, &m) || m.type == VLMCC_MSG_START) {
    s->st.malformed++;
    return VLMCC_INPUT_MALFORMED;
  }
  if (m.type == VLMCC_MSG_ACK)
    res = sender_on_ack (s, &m, from, now, arrival);
  else
    res = sender_on_challenge (s, &m, from, now, arrival);
  sender_run (s, now);
  return res;
}

gint64
vlmcc_sender_next_deadline (const VlmccSender * s)
{
  gint64 t = s->epoch_end;

  if (!g_queue_is_empty ((GQueue *) & s->pending) && sender_window_open (s))
    t = MIN (t, s->next_send);
  if (s->una != s->next_seq) {
    const InFlight *f = &s->ring[s->una % RING_SIZE];

    if (f->outstanding)
      t = MIN (t, f->sent + sender_rto (s));
  }
  return t;
}

void
vlmcc_sender_advance (VlmccSender * s, gint64 now)
{
  sender_run (s, now);
}

gsize
vlmcc_sender_pop_transmit (VlmccSender * s, guint8 * out, gsize max,
    VlmccAddr * to)
{
  Transmit *t;
  gsize len = transmit_pop (&s->out, s->auth, out, max, &t);

  if (len == 0)
    return 0;
  if (to)
    *to = t->to;
  if (t->control)
    s->queued_control--;
  transmit_free (t);
  return len;
}

gboolean
vlmcc_sender_pop_event (VlmccSender * s, VlmccEvent * ev)
{
  return polled_pop (&s->events, ev, sizeof (VlmccEvent));
}

void
vlmcc_sender_get_stats (const VlmccSender * s, VlmccSenderStats * st)
{
  *st = s->st;
  st->ssrc = s->ssrc;
  st->window = s->window;
  st->rtt = s->est.rtt;
  st->rtt_dev = s->est.dev;
  st->base_rtt = s->est.base;
  st->forward_queue = s->fwd.queue;
  st->ack_hold = s->have_ack_hold ? s->ack_hold : 0;
  st->rate = bits_per_s (&s->cfg, packets_per_s (s->window, s->est.rtt));
  st->leader = s->leader;
  st->in_flight = s->in_flight;
  st->loss_based = s->plus.loss_based;
  st->plus_switches = s->plus.switches;
  st->authenticated = s->auth != NULL;
  if (s->auth)
    auth_session_get_stats (s->auth, &st->auth);
}

gdouble
vlmcc_sender_get_window (const VlmccSender * s, gint64 * rtt,
    gint64 * base_rtt)
{
  *rtt = s->est.rtt;
  *base_rtt = s->est.base;
  return s->window;
}

/* ------------------------------------------------------------------ */
/* Receiver */

/* A follower's clock may run at another rate than the sender's (skew):
 * each arrival gap is then off by that fraction, and the sum of
 * equations (4) and (5) drifts without bound (6 ms a minute at 100 ppm).
 * Queueing only adds delay, and a queue cannot grow for ever, so the
 * least drift sum of each SKEW_BLOCK moves by the skew from block to
 * block, and a queue that builds or drains moves it in one or two of them:
 * the skew is the median of the last SKEW_BLOCKS moves per time, once
 * SKEW_MIN_BLOCKS are in, and the RTT leaves it out since the START. */
#define SKEW_BLOCK (1000 * MS)
#define SKEW_BLOCKS 31
#define SKEW_MIN_BLOCKS 4
#define SKEW_MAX 2000e-6
/* Before the estimate is ready a clock up to SKEW_MAX fast is not taken
 * for queueing until the first move is in (a real queue that builds then
 * is seen that much late), then one up to the least move seen, at least
 * SKEW_DOUBT (clock_skew_doubt). SKEW_MAX throughout masked enough of the
 * leader's building queue to move the echo test's followers (135
 * challenges for 113): that queue moves only the first blocks. */
#define SKEW_DOUBT 1000e-6

typedef struct {
  gint64 origin;                /* the START's arrival, receiver clock */
  gdouble rate;                 /* the skew taken out: 1e-6 is 1 ppm */
  gint64 block_start;
  gint64 block_min;             /* the least drift sum of this block */
  gint64 block_min_time;
  gboolean have_last;
  gint64 last_min, last_min_time;       /* the last whole block's */
  gdouble moves[SKEW_BLOCKS];   /* per unit of time */
  guint n_moves;
} ClockSkew;

static void
clock_skew_reset (ClockSkew * k, gint64 origin)
{
  memset (k, 0, sizeof (*k));
  k->origin = origin;
  k->block_start = origin;
  k->block_min = G_MAXINT64;
}

static gdouble
clock_skew_median (const ClockSkew * k)
{
  gdouble v[SKEW_BLOCKS];
  guint n = MIN (k->n_moves, SKEW_BLOCKS);

  for (guint i = 0; i < n; i++) {
    guint j = i;

    for (; j > 0 && v[j - 1] > k->moves[i]; j--)
      v[j] = v[j - 1];
    v[j] = k->moves[i];
  }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The drift sum @sum at @arrival; TRUE when a block ended and the skew
 * estimate may have moved. */
static gboolean
clock_skew_sample (ClockSkew * k, gint64 sum, gint64 arrival)
{
  gboolean ended = FALSE;

  if (arrival - k->block_start >= SKEW_BLOCK && k->block_min != G_MAXINT64) {
    if (k->have_last && k->block_min_time > k->last_min_time)
      k->moves[k->n_moves++ % SKEW_BLOCKS] = (gdouble) (k->block_min -
          k->last_min) / (k->block_min_time - k->last_min_time);
    k->have_last = TRUE;
    k->last_min = k->block_min;
    k->last_min_time = k->block_min_time;
    k->block_start = arrival;
    k->block_min = G_MAXINT64;
    ended = k->n_moves >= SKEW_MIN_BLOCKS;
  }
  if (sum < k->block_min) {
    k->block_min = sum;
    k->block_min_time = arrival;
  }
  return ended;
}

/* The skew doubted before the estimate is ready: SKEW_DOUBT, or up to
 * SKEW_MAX the least move seen so far (a skew moves every block alike, a
 * queue that builds moves some of them only). */
static gdouble
clock_skew_doubt (const ClockSkew * k)
{
  gdouble least = SKEW_MAX;
  guint n = MIN (k->n_moves, SKEW_BLOCKS);

  for (guint i = 0; i < n; i++)
    least = i == 0 ? k->moves[i] : MIN (least, k->moves[i]);
  return CLAMP (least, SKEW_DOUBT, SKEW_MAX);
}

struct _VlmccReceiver {
  VlmccConfig cfg;
  guint32 id;
  VlmccRole role;
  GQueue out;                   /* Transmit (to the sender) */
  GQueue events;
  gint64 next_probe;
  gint64 first_probe;
  gboolean have_last;
  guint16 last_seq;
  guint32 last_tstamp;
  gint64 last_arrival;
  gint64 rtt;                   /* current sample, eq. (4) */
  gint64 start_rtt;             /* the START's, at skew_origin */
  /* start_anchor: the START's arrival less its sent stamp (us, wraps), and
   * whether it waits for a data packet to be moved by */
  guint32 start_owd;
  gboolean anchor_pending;
  gint64 drift_sum;             /* the sum of Delta_rtt since, ns */
  ClockSkew skew;
  gint64 base_time;             /* arrival of the base RTT's sample */
  /* a probe sent again while following (receiver_maybe_reprobe) */
  gboolean reprobing;
  guint32 reprobe_tstamp;
  gint64 last_reprobe;
  RttEstimate est;
  gdouble window;
  VegasPlus plus;
  gint64 epoch_end;
  gint64 recovery_point;
  gboolean loss_in_epoch;
  gboolean path_clear;          /* the last epoch saw no queue, no loss */
  /* the window the ceiling cut (receiver_hold_window), 0 if none, and
   * until when it may be taken back */
  gdouble held_window;
  gint64 held_until;
  gdouble sender_pps;
  gdouble diff_avg;
  gint64 worse_since;           /* equation (6) held since (-1: not) */
  gint64 last_challenge;
  const RandomSource *rng;
  /* the sender's echo in the last data packet (config challenge_echo), and
   * until when a challenge we send would reach it in its hold-off */
  gboolean echo_heard;
  gint64 echo_refused_until;
  gint64 challenge_due;         /* a delayed challenge leaves then; -1 */
  gboolean challenge_pending;   /* the last challenge is not settled yet */
  gint64 challenge_deadline;
  gint64 below_floor_since;
  /* volunteer_after: since when the data names no leader (-1: it names
   * one), when our volunteer leaves (-1: none waits), the last sent */
  gint64 leaderless_since;
  gint64 volunteer_due;
  gint64 last_volunteer;
  /* arrival gaps of consecutive packets that queued one behind the
   * other (receiver_track_bottleneck), ns */
  gint64 queued_gaps[PAIR_SAMPLES];
  guint n_queued_gaps;
  guint32 leader;
  gboolean leader_known;
  AuthSession *auth;            /* NULL: no key */
  VlmccReceiverStats st;
};

static void
receiver_event (VlmccReceiver * r, VlmccEventType type, gint64 now)
{
  VlmccEvent *ev = polled_push (&r->events, sizeof (VlmccEvent));

  ev->type = type;
  ev->time = now;
  ev->leader = r->leader;
  ev->role = r->role;
  ev->rate = bits_per_s (&r->cfg, r->sender_pps);
}

static void
receiver_set_role (VlmccReceiver * r, VlmccRole role, gint64 now)
{
  if (r->role == role)
    return;
  r->role = role;
  receiver_event (r, VLMCC_EVENT_ROLE, now);
}

static void
receiver_queue (VlmccReceiver * r, const VlmccMsg * m)
{
  Transmit *t;

  if (g_queue_get_length (&r->out) >= VLMCC_MAX_QUEUED_CONTROL) {
    r->st.control_dropped++;
    return;
  }
  t = transmit_new (VLMCC_MAX_PACKET);
  t->control = TRUE;
  t->len = vlmcc_msg_write (m, t->data, VLMCC_MAX_PACKET);
  transmit_queue (&r->out, t);
}

static void
receiver_probe (VlmccReceiver * r, gint64 now)
{
  VlmccMsg m = { 0 };

  m.type = VLMCC_MSG_CHALLENGE;
  m.id = r->id;
  m.probe = TRUE;
  m.tstamp = US (now);
  receiver_queue (r, &m);
  r->st.probes_sent++;
  r->next_probe = now + r->cfg.probe_interval;
}

VlmccReceiver *
vlmcc_receiver_new (const VlmccConfig * cfg, const RandomSource * rng,
    gint64 now)
{
  VlmccReceiver *r = g_new0 (VlmccReceiver, 1);

  r->cfg = *cfg;
  r->id = (guint32) random_source_range (rng, 1, G_MAXUINT32);
  r->role = VLMCC_ROLE_NONE;
  r->window = MAX (cfg->initial_window, 1);
  r->last_challenge = G_MININT64 / 2;
  r->worse_since = -1;
  r->rng = rng;
  r->challenge_due = -1;
  r->below_floor_since = -1;
  r->leaderless_since = -1;
  r->volunteer_due = -1;
  r->last_volunteer = -1;
  r->first_probe = now;
  r->last_reprobe = G_MININT64 / 2;
  receiver_probe (r, now);
  return r;
}

void
vlmcc_receiver_free (VlmccReceiver * r)
{
  if (!r)
    return;
  blocks_free (&r->out);
  polled_clear (&r->events);
  auth_session_free (r->auth);
  g_free (r);
}

/* Control comes from the sender only: its window, and one more for a
 * restarted sender while the old one is kept. */
void
vlmcc_receiver_set_key (VlmccReceiver * r, const AuthKey * key)
{
  auth_session_free (r->auth);
  r->auth = auth_session_new (key, r->id, 2);
}

/* The ack leaves now; the time since the packet reached the host (a loop
 * that fell behind) is added to the echoed tstamp, so the sender's RTT
 * leaves it out. */
static void
receiver_ack (VlmccReceiver * r, const VlmccDataExt * ext, gint64 now,
    gint64 arrival)
{
  VlmccMsg m = { 0 };

  m.type = VLMCC_MSG_ACK;
  m.id = r->id;
  m.seq = ext->seq;
  m.tstamp = ext->tstamp + US (now - arrival);
  m.arrival = US (arrival);
  receiver_queue (r, &m);
  r->st.acks_sent++;
}

static void
receiver_track_leader (VlmccReceiver * r, guint32 leader, gint64 now)
{
  if (leader != 0)
    r->leaderless_since = -1;
  else if (r->leaderless_since < 0)
    r->leaderless_since = now;
  if (r->leader_known && leader == r->leader)
    return;
  if (r->leader_known)
    r->st.leader_changes++;
  if (r->challenge_pending && leader == r->id) {
    r->st.challenges_accepted++;
    r->challenge_pending = FALSE;
  }
  r->leader = leader;
  r->leader_known = TRUE;
  receiver_event (r, VLMCC_EVENT_LEADER, now);
}

/* Equation (4) summed since the START, the skew taken out; it may come
 * out at or under 0 when the START missed a queue the data was in. */
static gint64
receiver_drift_rtt (const VlmccReceiver * r, gint64 arrival)
{
  return r->start_rtt + r->drift_sum -
      (gint64) (r->skew.rate * (arrival - r->skew.origin));
}

static gint64
receiver_skewless_rtt (const VlmccReceiver * r, gint64 arrival)
{
  return MAX (1, receiver_drift_rtt (r, arrival));
}

/* A new skew estimate: the estimates move as if it had been taken out
 * since the START (the base RTT by its share at its own sample). */
static void
receiver_take_skew (VlmccReceiver * r, gint64 arrival)
{
  gdouble rate = CLAMP (clock_skew_median (&r->skew), -SKEW_MAX, SKEW_MAX);
  gdouble change = rate - r->skew.rate;

  r->skew.rate = rate;
  r->est.rtt = MAX (1, r->est.rtt - (gint64) (change * (arrival -
              r->skew.origin)));
  r->est.base = MAX (1, r->est.base - (gint64) (change * (r->base_time -
              r->skew.origin)));
  r->est.base = MIN (r->est.base, r->est.rtt);
}

/* The RTT the follower judges its path by: rtt hat, but before the skew
 * estimate is ready as much of it as a clock as fast as doubted
 * (clock_skew_doubt) would have added since the START is not taken for
 * queueing (at most down to the base RTT). A fast clock reads as a
 * queue building: at +1000 ppm the RTT gains 1.5 ms in 1.5 s, which took
 * a follower at alpha past beta and into equation (6) before the estimate
 * had its blocks. Once it is ready this is rtt hat, equation (6)'s. */
static gint64
receiver_judged_rtt (const VlmccReceiver * r)
{
  gint64 doubt = 0;

  if (r->skew.n_moves < SKEW_MIN_BLOCKS)
    doubt = (gint64) (clock_skew_doubt (&r->skew) * (r->last_arrival -
            r->skew.origin));
  return MAX (r->est.base, r->est.rtt - MAX (doubt, 0));
}

/* Ours (volunteer_after): two consecutive packets that arrived further
 * apart than they were sent queued one behind the other, and the gap is
 * the bottleneck's time per packet (other flows' packets between them
 * only lengthen it: less of the link is ours). Pairs sent back to back
 * are the packet pair's; pacing at a rate over the bottleneck's gives
 * them too. */
static void
receiver_track_bottleneck (VlmccReceiver * r, gint64 sent_gap,
    gint64 arrival_gap)
{
  if (arrival_gap < PAIR_MIN_GAP || arrival_gap < sent_gap + PAIR_MIN_GAP)
    return;
  r->queued_gaps[r->n_queued_gaps++ % PAIR_SAMPLES] = arrival_gap;
}

/* Equations (4) and (5): the RTT moves by the change of the one-way
 * delay between two packets. Returns FALSE for a duplicate or a late
 * packet. The receiver's window runs on arrival times throughout (here
 * and in its epochs), so a loop that read a burst late steps it as the
 * wire delivered it. */
static gboolean
receiver_track_drift (VlmccReceiver * r, const VlmccDataExt * ext,
    gint64 arrival)
{
  guint16 delta;
  gint64 gap_sent;
  gboolean switched;

  if (!r->have_last)
    return TRUE;
  delta = (guint16) (ext->seq - r->last_seq);
  if (delta == 0 || delta >= 0x8000)
    return FALSE;
  if (delta > 1) {
    r->st.lost += delta - 1;
    r->loss_in_epoch = TRUE;
    if (arrival >= r->recovery_point && r->role != VLMCC_ROLE_NONE) {
      gdouble w = vegas_plus_on_loss (&r->cfg, &r->plus, r->window,
          r->est.rtt, arrival, &switched);

      r->window = MAX (1.0, w);
      r->recovery_point = arrival + r->est.rtt;
    }
  }
  if (delta == 1 && ext->drift < DRIFT_MAX) {
    gap_sent = (gint64) ext->drift * 1000;
    vegas_plus_pair (&r->plus, gap_sent, arrival - r->last_arrival);
    receiver_track_bottleneck (r, gap_sent, arrival - r->last_arrival);
  }
  else
    gap_sent = (gint64) (guint32) (ext->tstamp - r->last_tstamp) * 1000;
  if (r->est.sampled) {
    gint64 base = r->est.base;

    /* beyond MAX_RTT either way the sum means nothing (forged stamps) */
    r->drift_sum = CLAMP (r->drift_sum + (arrival - r->last_arrival) -
        gap_sent, -MAX_RTT, MAX_RTT);
    if (clock_skew_sample (&r->skew, r->drift_sum, arrival))
      receiver_take_skew (r, arrival);
    r->rtt = receiver_skewless_rtt (r, arrival);
    rtt_estimate_sample (&r->est, &r->cfg,
        rtt_estimate_least_recent (&r->est, r->rtt, arrival,
            (gint64) (r->cfg.rtt_min_window * r->est.rtt)));
    if (r->est.base < base)
      r->base_time = arrival;
    vegas_plus_sample (&r->plus, r->rtt);
  }
  return TRUE;
}

/* The follower's own Vegas window, once per its RTT; it has nothing in
 * travel, so the actual throughput is W / rtt. Ours: a follower that sees
 * no queueing (diff < alpha) is at least at the window that carries the
 * sender's rate over its RTT, and never more than 2 N_extra packets above
 * it, as TCP neither lags an uncongested path nor grows a window it
 * cannot use. A path that lost packets in the epoch is not uncongested:
 * there the window only takes the Vegas step, so a receiver behind a link
 * the stream overfills keeps its halvings (and falls under the floor)
 * even when its base RTT was measured with the queue already full. */
/* Ours: a window that only the ceiling cut (the sender's rate fell, our
 * path did not get worse) is kept for HELD_EPOCHS of our RTTs, as an
 * application-limited TCP keeps its validated window (RFC 7661). A Vegas
 * decrease or a loss on our path forgets it. */
#define HELD_EPOCHS 16

static void
receiver_hold_window (VlmccReceiver * r, gdouble w, gdouble ceiling,
    gint64 arrival)
{
  if (r->loss_in_epoch || w < r->window || arrival >= r->held_until)
    r->held_window = 0.0;
  if (r->loss_in_epoch || w < r->window || w <= ceiling)
    return;
  if (r->held_window <= 0.0)
    r->held_until = arrival + HELD_EPOCHS * r->est.rtt;
  r->held_window = MAX (r->held_window, w);
}

static void
receiver_epoch (VlmccReceiver * r, gint64 arrival)
{
  gint64 rtt = receiver_judged_rtt (r);
  gdouble fill, ceiling, w;

  if (!r->est.sampled || arrival < r->epoch_end)
    return;
  fill = r->sender_pps * rtt / NS_PER_S;
  ceiling = MAX (fill + 2.0 * r->cfg.n_extra, 1.0);
  /* this RTT is forward-only already (equations 4 and 5) */
  w = window_step (&r->cfg, &r->plus, r->window, r->window, &r->est, rtt,
      arrival);
  r->path_clear = w > r->window && !r->loss_in_epoch;
  if (r->path_clear)
    w = MAX (w, fill);
  receiver_hold_window (r, w, ceiling, arrival);
  r->loss_in_epoch = FALSE;
  r->window = CLAMP (w, 1.0, ceiling);
  r->epoch_end = arrival + r->est.rtt;
}

/* The window that carries the sender's rate, on a path whose last epoch
 * was clear, as soon as a data packet announces a higher rate: the
 * epoch's rule (receiver_epoch) a packet sooner, so a rate that jumps up
 * (the window before an election restored, section 2.4's growth) is not
 * taken for a path worse than the sender's. */
static void
receiver_follow_rate (VlmccReceiver * r, gdouble prev_pps, gint64 arrival)
{
  gint64 rtt = receiver_judged_rtt (r);
  gdouble fill = r->sender_pps * rtt / NS_PER_S;

  if (r->path_clear)
    r->window = MAX (r->window, fill);
  else if (r->held_window > 0.0 && arrival < r->held_until &&
      r->sender_pps - prev_pps > packets_per_s (r->cfg.n_extra, rtt))
    r->window = MAX (r->window, MIN (r->held_window, fill));
}

/* A challenge's claims: our estimates and window. */
static void
receiver_claim (const VlmccReceiver * r, VlmccMsg * m, gint64 now)
{
  memset (m, 0, sizeof (*m));
  m->type = VLMCC_MSG_CHALLENGE;
  m->id = r->id;
  m->tstamp = US (now);
  m->rtt = US (r->est.rtt);
  m->base_rtt = US (r->est.base);
  m->rate = rate_wire (packets_per_s (r->window, r->est.rtt), G_MAXUINT32);
  m->win = (guint32) (r->window * 256.0);
}

static void
receiver_challenge (VlmccReceiver * r, gint64 now)
{
  VlmccMsg m;

  receiver_claim (r, &m, now);
  receiver_queue (r, &m);
  r->st.challenges_sent++;
  r->last_challenge = now;
  r->challenge_pending = TRUE;
  r->challenge_deadline = now + 2 * r->est.rtt;
}

/* The sender answers no challenge: one is refused when its data still
 * names another leader two RTTs after it (or when the next one leaves). */
static void
receiver_settle_challenge (VlmccReceiver * r, gint64 now)
{
  if (!r->challenge_pending || now < r->challenge_deadline)
    return;
  r->challenge_pending = FALSE;
  if (r->leader != r->id)
    r->st.challenges_refused++;
}

/* Equation (6)'s rate condition: the sender's rate is over what our
 * window plus N_extra carries over our RTT (as judged,
 * receiver_judged_rtt). */
static gboolean
receiver_worse_off (const VlmccReceiver * r)
{
  return r->sender_pps > packets_per_s (r->window + r->cfg.n_extra,
      receiver_judged_rtt (r));
}

/* Ours (challenge_confirm): since when equation (6) has held at every
 * data packet. */
static void
receiver_track_worse (VlmccReceiver * r, gint64 now)
{
  if (r->role != VLMCC_ROLE_FOLLOWER || !r->est.sampled ||
      !receiver_worse_off (r))
    r->worse_since = -1;
  else if (r->worse_since < 0)
    r->worse_since = now;
}

/* A jitter spike lifts rtt hat for a few packets; a queue lasts. With no
 * leader named (section 2.4) no election can be spurious, and the
 * sender's growth waits for the first challenge. */
static gboolean
receiver_worse_confirmed (const VlmccReceiver * r, gint64 now)
{
  if (r->cfg.challenge_confirm <= 0.0 || r->leader == 0)
    return TRUE;
  return r->worse_since >= 0 && now - r->worse_since >=
      (gint64) (r->cfg.challenge_confirm * r->est.rtt);
}

static void
receiver_send_challenge (VlmccReceiver * r, gint64 now)
{
  if (r->challenge_pending)
    r->challenge_deadline = now;
  receiver_settle_challenge (r, now);
  receiver_challenge (r, now);
}

/* Ours: at most one challenge per rtt hat. Under the echo, not before
 * the current RTT sample either: rtt hat lags a queue that builds, and
 * until then no packet can tell what became of the last challenge. */
static gint64
receiver_challenge_gap (const VlmccReceiver * r)
{
  if (!r->echo_heard)
    return r->est.rtt;
  return MAX (r->est.rtt, r->rtt);
}

/* Under the sender's echo: a random wait of up to challenge_delay RTTs,
 * the density growing as e^(LAMBDA t / T) over [0, T] (Nonnenmacher and
 * Biersack's timers, INFOCOM 1998: most wait long, so the first challenge
 * that the sender takes reaches the others, as its hold-off flag, before
 * their own waits run out). */
#define DELAY_LAMBDA 10.0

static gint64
receiver_challenge_delay (const VlmccReceiver * r)
{
  gdouble span = r->cfg.challenge_delay * receiver_challenge_gap (r);
  gdouble x = random_source_double (r->rng);

  return (gint64) (span / DELAY_LAMBDA * log1p (x * expm1 (DELAY_LAMBDA)));
}

/* A delayed challenge leaves when its wait is over and equation (6) still
 * holds; the sender's hold-off cancels it. */
static void
receiver_run_delayed (VlmccReceiver * r, gint64 now)
{
  if (r->challenge_due < 0)
    return;
  if (r->role != VLMCC_ROLE_FOLLOWER || now < r->echo_refused_until) {
    r->challenge_due = -1;
    r->st.challenges_suppressed++;
    return;
  }
  if (now < r->challenge_due)
    return;
  r->challenge_due = -1;
  if (receiver_worse_off (r))
    receiver_send_challenge (r, now);
  else
    r->st.challenges_suppressed++;
}

/* Equation (6), when the averaged difference grows; ours: at most once
 * per RTT. With the sender's echo, not while it is in hold-off (it would
 * refuse), and after a random wait. */
static void
receiver_maybe_challenge (VlmccReceiver * r, gint64 now)
{
  gdouble own = packets_per_s (r->window, receiver_judged_rtt (r));
  gdouble prev = r->diff_avg;

  r->diff_avg = (1.0 - r->cfg.diff_avg_gain) * r->diff_avg +
      r->cfg.diff_avg_gain * (r->sender_pps - own);
  receiver_run_delayed (r, now);
  receiver_track_worse (r, now);
  if (r->role != VLMCC_ROLE_FOLLOWER || !r->est.sampled)
    return;
  if (!receiver_worse_off (r) || r->diff_avg <= prev ||
      !receiver_worse_confirmed (r, now) ||
      now < r->last_challenge + receiver_challenge_gap (r) ||
      r->challenge_due >= 0)
    return;
  if (r->echo_heard && now < r->echo_refused_until)
    r->st.challenges_suppressed++;
  else if (r->echo_heard && r->cfg.challenge_delay > 0)
    r->challenge_due = now + receiver_challenge_delay (r);
  else
    receiver_send_challenge (r, now);
}

/* Ours (volunteer_after): the sender's window is bounded while it has no
 * leader (leaderless_growth_limit), so no follower may ever be worse off
 * than its rate. One that carries the rate (receiver_carries_rate) offers
 * to lead once the data has named no leader for volunteer_after of
 * its RTTs, after a wait over VOLUNTEER_SPREAD times as many that ranks
 * the paths: its share of the wait is the path's headroom (receiver_headroom)
 * and VOLUNTEER_JITTER of it is random, biased late, so that the tightest
 * path speaks first and the first volunteer's election reaches the others
 * of its branch before they speak; a leader named meanwhile cancels it. */
#define VOLUNTEER_SPREAD 2
#define VOLUNTEER_JITTER 0.25
#define VOLUNTEER_SLOT (25 * MS)
#define VOLUNTEER_RANGE 4.0

/* The path's headroom, 0 to 1: its bottleneck's rate (one packet per
 * queued gap, receiver_track_bottleneck) over the announced rate, less 1,
 * over VOLUNTEER_RANGE less 1 (a path that could carry that many times
 * the rate or more ranks last, as one with too few gaps yet). A
 * follower's windows sit near the announced rate and do not rank paths;
 * the bottleneck's time per packet does. */
static gdouble
receiver_headroom (const VlmccReceiver * r)
{
  gint64 per_packet = pair_median (r->queued_gaps, r->n_queued_gaps);
  gdouble used = r->sender_pps * per_packet / NS_PER_S;

  if (per_packet <= 0 || used <= 0)
    return 1.0;
  return CLAMP ((1.0 / used - 1.0) / (VOLUNTEER_RANGE - 1.0), 0.0, 1.0);
}

/* A path at its capacity (Vegas between alpha and beta) carries the rate
 * and is the right leader: requiring a clear epoch left the tightest
 * path out whenever the window restored after its leader left filled it. */
static gboolean
receiver_carries_rate (const VlmccReceiver * r)
{
  return !r->loss_in_epoch && !receiver_worse_off (r);
}

static void
receiver_volunteer (VlmccReceiver * r, gint64 now)
{
  VlmccMsg m;

  receiver_claim (r, &m, now);
  m.volunteer = TRUE;
  receiver_queue (r, &m);
  r->st.volunteers_sent++;
  r->last_volunteer = now;
}

/* A waiting volunteer: dropped when a leader is named or we stopped
 * following, sent when its wait is over and our path is still clear. */
static void
receiver_run_volunteer (VlmccReceiver * r, gint64 now)
{
  if (r->volunteer_due < 0)
    return;
  if (r->leaderless_since < 0 || r->role != VLMCC_ROLE_FOLLOWER) {
    r->volunteer_due = -1;
    r->st.volunteers_suppressed++;
    return;
  }
  if (now < r->volunteer_due)
    return;
  r->volunteer_due = -1;
  if (receiver_carries_rate (r))
    receiver_volunteer (r, now);
  else
    r->st.volunteers_suppressed++;
}

static void
receiver_maybe_volunteer (VlmccReceiver * r, gint64 now)
{
  gint64 span = (gint64) (r->cfg.volunteer_after * r->est.rtt);
  gdouble x;

  receiver_run_volunteer (r, now);
  if (r->cfg.volunteer_after <= 0 || r->role != VLMCC_ROLE_FOLLOWER ||
      !r->est.sampled || r->leaderless_since < 0 || r->volunteer_due >= 0 ||
      now - r->leaderless_since < span || (r->last_volunteer >= 0 &&
          now - r->last_volunteer < span) || !receiver_carries_rate (r))
    return;
  x = log1p (random_source_double (r->rng) * expm1 (DELAY_LAMBDA)) /
      DELAY_LAMBDA;
  r->volunteer_due = now + (gint64) (VOLUNTEER_SPREAD *
      r->cfg.volunteer_after * VOLUNTEER_SLOT * ((1.0 - VOLUNTEER_JITTER) *
          receiver_headroom (r) + VOLUNTEER_JITTER * x));
}

/* The sender's hold-off as the echo tells it: a challenge sent at t
 * reaches the sender about our current RTT after the packet left plus
 * (t - now), so it is refused until now + left - rtt. We keep back half
 * an RTT more: our RTT errs low by the queue we saw when we joined (our
 * base RTT), and the hold-off, counted in the sender's rtt hat, grows
 * after it was echoed as the new leader's acks raise it. */
static void
receiver_hear_echo (VlmccReceiver * r, const RtpHeader * h, gint64 now)
{
  guint16 left_ms;

  r->echo_heard = echo_ext_read (h, r->cfg.echo_ext_id, &left_ms);
  r->echo_refused_until = r->echo_heard && left_ms > 0 ?
      now + left_ms * MS - r->rtt / 2 : -1;
}

/* Ours (start_anchor): a START is small and a data packet is not, so the
 * START's RTT lacks the data's serialisation on every link (2.5 ms behind
 * a 4 Mbit/s branch) and the follower's base RTT errs that much low. Both
 * carry the sender's clock, so the last data packet's one-way delay over
 * the START's (the clocks' offset cancels, and so does any wait of the
 * START in the sender after its sent stamp; the wait before it is the
 * START's hold, taken out already) moves the START's RTT to that
 * packet's, the one the drift sum counts from. A queue the data met and
 * the START did not
 * (a per-flow queue; the simulator's STARTs skip the queues) would count
 * too and hold the base high until it drains, so the move is taken up to
 * ANCHOR_MAX, a 1000-byte packet's time at 0.8 Mbit/s: uncapped, a fresh
 * joiner behind an overfilled branch never met equation (6) and random
 * churn went leaderless (docs/results.md). FALSE, and counted forged, when
 * the two are further apart than any RTT. */
#define ANCHOR_MAX (10 * MS)

static gboolean
receiver_start_offset (VlmccReceiver * r, gint64 * offset)
{
  guint32 data_owd = US (r->last_arrival) - r->last_tstamp;

  *offset = (gint64) (gint32) (data_owd - r->start_owd) * 1000;
  if (*offset > MAX_RTT || *offset < -MAX_RTT) {
    r->st.forged++;
    *offset = 0;
    return FALSE;
  }
  *offset = MIN (*offset, ANCHOR_MAX);
  return TRUE;
}

/* The first START's RTT moved once a data packet is in. */
static void
receiver_anchor_start (VlmccReceiver * r)
{
  gint64 offset;

  r->anchor_pending = FALSE;
  if (!receiver_start_offset (r, &offset))
    return;
  r->start_rtt = MAX (r->start_rtt + offset, 1);
  r->rtt = receiver_skewless_rtt (r, r->last_arrival);
  rtt_estimate_reset (&r->est, r->rtt, r->rtt);
}

/* Ours: equations (4) and (5) only move the START's RTT, so a START that
 * met less queue than the data of the moment (a branch the stream
 * overfilled when we joined, a per-flow queue) leaves the RTT that much
 * low, and under 0 once that queue drains. More than rto_granularity
 * under 0 (the hosts' timing noise on a short path stays within it) it
 * is surely wrong: the START is measured again (at most once per
 * probe_interval) and the RTT moved to it. A START that the sender's loop
 * answered late reports its hold, taken out; what it cannot report errs
 * the other way, and is kept. */
static void
receiver_maybe_reprobe (VlmccReceiver * r, gint64 now, gint64 arrival)
{
  VlmccMsg m = { 0 };

  if (r->role == VLMCC_ROLE_NONE || !r->est.sampled ||
      receiver_drift_rtt (r, arrival) >= -r->cfg.rto_granularity ||
      now - r->last_reprobe < r->cfg.probe_interval)
    return;
  m.type = VLMCC_MSG_CHALLENGE;
  m.id = r->id;
  m.probe = TRUE;
  m.tstamp = US (now);
  receiver_queue (r, &m);
  r->st.probes_sent++;
  r->reprobing = TRUE;
  r->reprobe_tstamp = m.tstamp;
  r->last_reprobe = now;
}

/* The START that answers a probe sent again: the RTT @rtt now, at
 * @arrival; the estimates move with it. */
static void
receiver_reanchor (VlmccReceiver * r, gint64 rtt, gint64 arrival)
{
  gint64 delta = rtt - receiver_drift_rtt (r, arrival);

  r->reprobing = FALSE;
  r->st.starts++;
  r->start_rtt += delta;
  r->rtt = MAX (rtt, 1);
  rtt_estimate_reset (&r->est, r->rtt, MIN (MAX (r->est.base + delta, 1),
          r->rtt));
  r->base_time = arrival;
}

/* A receiver whose own rate stays under the floor for leave_time leaves. */
static void
receiver_check_floor (VlmccReceiver * r, gint64 now)
{
  guint64 own = bits_per_s (&r->cfg, packets_per_s (r->window, r->est.rtt));

  if (r->cfg.rate_floor == 0 || own >= r->cfg.rate_floor) {
    r->below_floor_since = -1;
    return;
  }
  if (r->below_floor_since < 0)
    r->below_floor_since = now;
  if (now - r->below_floor_since >= r->cfg.leave_time) {
    receiver_set_role (r, VLMCC_ROLE_LEFT, now);
    receiver_event (r, VLMCC_EVENT_LEFT, now);
  }
}

VlmccInput
vlmcc_receiver_on_data (VlmccReceiver * r, const guint8 * rtp, gsize len,
    gint64 now)
{
  return vlmcc_receiver_on_data_at (r, rtp, len, now, now);
}

VlmccInput
vlmcc_receiver_on_data_at (VlmccReceiver * r, const guint8 * rtp, gsize len,
    gint64 now, gint64 arrival)
{
  RtpHeader h;
  VlmccDataExt ext;
  gdouble prev_pps;

  /* no later than now, and never before the last packet's (a stamp the
   * host could not give falls back to the read time) */
  arrival = CLAMP (arrival, r->have_last ? r->last_arrival : arrival, now);
  if (r->role == VLMCC_ROLE_LEFT)
    return VLMCC_INPUT_IGNORED;
  if (!rtp_header_parse (rtp, len, &h)) {
    r->st.malformed++;
    return VLMCC_INPUT_MALFORMED;
  }
  if (!data_ext_read (&h, r->cfg.ext_id, &ext)) {
    r->st.plain++;
    return VLMCC_INPUT_IGNORED;
  }
  r->st.received++;
  receiver_hear_echo (r, &h, arrival);
  receiver_track_leader (r, ext.leader, now);
  receiver_settle_challenge (r, now);
  if (r->role != VLMCC_ROLE_NONE)
    receiver_set_role (r, ext.leader == r->id ? VLMCC_ROLE_LEADER :
        VLMCC_ROLE_FOLLOWER, now);
  if (r->role == VLMCC_ROLE_LEADER || (r->role == VLMCC_ROLE_NONE &&
          ext.leader == r->id))
    receiver_ack (r, &ext, now, arrival);
  if (!receiver_track_drift (r, &ext, arrival))
    return VLMCC_INPUT_TAKEN;
  r->have_last = TRUE;
  r->last_seq = ext.seq;
  r->last_tstamp = ext.tstamp;
  r->last_arrival = arrival;
  if (r->anchor_pending)
    receiver_anchor_start (r);
  prev_pps = r->sender_pps;
  r->sender_pps = (gdouble) ext.rate / VLMCC_RATE_SCALE;
  if (r->role == VLMCC_ROLE_NONE)
    return VLMCC_INPUT_TAKEN;
  receiver_maybe_reprobe (r, now, arrival);
  receiver_epoch (r, arrival);
  receiver_follow_rate (r, prev_pps, arrival);
  receiver_maybe_challenge (r, now);
  receiver_maybe_volunteer (r, now);
  receiver_check_floor (r, now);
  return VLMCC_INPUT_TAKEN;
}

/* The START's RTT less the hold it reports (the sender's time from our
 * probe's arrival to its answer), so the RTT is the path's, as the
 * leader's ack leaves its own hold out of the sender's. A hold not under
 * the RTT cannot be (the probe's round trip holds it): counted, and the
 * RTT kept whole, as a base too high comes down and one too low never. */
static gint64
receiver_start_rtt_less_hold (VlmccReceiver * r, gint64 rtt,
    const VlmccMsg * m)
{
  gint64 hold = r->cfg.start_hold ? (gint64) m->hold * 1000 : 0;

  if (hold > 0 && hold >= rtt) {
    r->st.start_holds_invalid++;
    hold = 0;
  }
  r->st.start_hold = hold;
  return rtt - hold;
}

VlmccInput
vlmcc_receiver_on_control (VlmccReceiver * r, const guint8 * data, gsize len,
    gint64 now)
{
  return vlmcc_receiver_on_control_at (r, data, len, now, now);
}

VlmccInput
vlmcc_receiver_on_control_at (VlmccReceiver * r, const guint8 * data,
    gsize len, gint64 now, gint64 arrival)
{
  VlmccMsg m;
  gint64 rtt;

  arrival = MIN (arrival, now);
  if (!control_open (r->auth, data, &len, now))
    return VLMCC_INPUT_UNAUTHENTICATED;
  if (!vlmcc_msg_parse (data, len, &m) || m.type != VLMCC_MSG_START) {
    r->st.malformed++;
    return VLMCC_INPUT_MALFORMED;
  }
  if (m.target != r->id) {
    r->st.forged++;
    return VLMCC_INPUT_FORGED;
  }
  rtt = (gint64) (guint32) (US (arrival) - m.tstamp) * 1000;
  if (rtt > MAX_RTT || rtt > now - r->first_probe + 1000) {
    /* no probe of ours left that long ago */
    r->st.forged++;
    return VLMCC_INPUT_FORGED;
  }
  if (r->role != VLMCC_ROLE_NONE) {
    gint64 offset = 0;

    if (!r->reprobing || m.tstamp != r->reprobe_tstamp)
      return VLMCC_INPUT_IGNORED;
    rtt = receiver_start_rtt_less_hold (r, rtt, &m);
    r->start_owd = US (arrival) - m.sent;
    if (r->cfg.start_anchor && r->have_last)
      receiver_start_offset (r, &offset);
    receiver_reanchor (r, MAX (rtt + offset, 1), arrival);
    return VLMCC_INPUT_TAKEN;
  }
  r->st.starts++;
  rtt = receiver_start_rtt_less_hold (r, rtt, &m);
  r->rtt = r->start_rtt = MAX (rtt, 1);
  r->drift_sum = 0;
  clock_skew_reset (&r->skew, arrival);
  r->base_time = arrival;
  rtt_estimate_reset (&r->est, r->rtt, r->rtt);
  r->start_owd = US (arrival) - m.sent;
  r->anchor_pending = r->cfg.start_anchor;
  if (r->anchor_pending && r->have_last)
    receiver_anchor_start (r);
  r->window = MAX (1.0, m.win / 256.0);
  r->sender_pps = (gdouble) m.rate / VLMCC_RATE_SCALE;
  r->epoch_end = arrival + r->est.rtt;
  r->recovery_point = arrival;
  receiver_track_leader (r, m.leader, now);
  receiver_set_role (r, m.leader == r->id ? VLMCC_ROLE_LEADER :
      VLMCC_ROLE_FOLLOWER, now);
  return VLMCC_INPUT_TAKEN;
}

gint64
vlmcc_receiver_next_deadline (const VlmccReceiver * r)
{
  if (r->role == VLMCC_ROLE_NONE)
    return r->next_probe;
  return r->challenge_due;
}

void
vlmcc_receiver_advance (VlmccReceiver * r, gint64 now)
{
  if (r->role == VLMCC_ROLE_NONE && now >= r->next_probe)
    receiver_probe (r, now);
  receiver_run_delayed (r, now);
}

gsize
vlmcc_receiver_pop_transmit (VlmccReceiver * r, guint8 * out, gsize max)
{
  Transmit *t;
  gsize len = transmit_pop (&r->out, r->auth, out, max, &t);

  if (len)
    transmit_free (t);
  return len;
}

gboolean
vlmcc_receiver_pop_event (VlmccReceiver * r, VlmccEvent * ev)
{
  return polled_pop (&r->events, ev, sizeof (VlmccEvent));
}

void
vlmcc_receiver_get_stats (const VlmccReceiver * r, VlmccReceiverStats * st)
{
  *st = r->st;
  st->id = r->id;
  st->role = r->role;
  st->window = r->window;
  st->rtt = r->est.rtt;
  st->rtt_dev = r->est.dev;
  st->base_rtt = r->est.base;
  st->sender_rate = bits_per_s (&r->cfg, r->sender_pps);
  st->leader = r->leader;
  st->loss_based = r->plus.loss_based;
  st->plus_switches = r->plus.switches;
  st->authenticated = r->auth != NULL;
  if (r->auth)
    auth_session_get_stats (r->auth, &st->auth);
}

gdouble
vlmcc_receiver_get_window (const VlmccReceiver * r)
{
  return r->window;
}
