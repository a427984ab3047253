/* Unit tests of the RLM core, in exact simulated time: the core driven by
 * hand, and the core in tests/sim's simulator on the paper's sample path. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "rlmcore.h"
#include "sim.h"
#include "core/rtp.h"
#include "core/wire.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))
#define PEER_SSRC 0x0BADCAFEu

/* ------------------------------------------------------------------ */
/* Helpers for the core driven by hand */

typedef struct {
  RandomSeeded seeded;
  RandomSource rng;
  RlmConfig cfg;
  RlmReceiver *r;
  RlmStamper stamper;
  guint16 seq[RLM_MAX_LAYERS];
  gint64 now;
} Rig;

/* The paper's configuration for @n_layers, seeded: set more fields of
 * rig->cfg, then create rig->r. */
static void
rig_prepare (Rig * rig, guint64 seed, guint n_layers)
{
  memset (rig, 0, sizeof (*rig));
  random_source_init_seeded (&rig->rng, &rig->seeded, seed);
  rlm_config_init (&rig->cfg);
  rig->cfg.n_layers = n_layers;
}

/* A receiver of @n_layers that starts at @start_level. */
static void
rig_init_at (Rig * rig, guint64 seed, guint n_layers, guint start_level)
{
  rig_prepare (rig, seed, n_layers);
  rig->cfg.start_level = start_level;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
}

static void
rig_init (Rig * rig, guint64 seed, guint n_layers)
{
  rig_init_at (rig, seed, n_layers, 1);
}

static void
rig_clear (Rig * rig)
{
  rlm_receiver_free (rig->r);
}

static gsize
media_packet (guint layer, guint16 seq, guint8 * out, gsize max)
{
  guint8 hdr[RTP_HEADER_SIZE];
  guint8 ext[RLM_LAYER_EXT_SIZE] = { (guint8) layer, seq >> 8, seq & 0xff };
  RtpExtElement el = { 6, ext, sizeof (ext) };
  RtpHeader h;

  memset (&h, 0, sizeof (h));
  h.payload_type = 96;
  h.ssrc = 0x12345678;
  rtp_header_write (&h, NULL, 0, hdr, sizeof (hdr));
  return rtp_ext_add (hdr, sizeof (hdr), &el, out, max);
}

/* The next packet of @layer (@skip packets lost before it). */
static RlmPacketKind
feed (Rig * rig, guint layer, guint skip)
{
  guint8 buf[64];
  gsize len;

  rig->seq[layer] += skip;
  len = media_packet (layer, rig->seq[layer]++, buf, sizeof (buf));
  return rlm_receiver_on_datagram (rig->r, buf, len, NULL, rig->now);
}

static RlmAddr
addr_of (guint8 last)
{
  RlmAddr a = { 4, {10, 0, 0, last} };

  return a;
}

static RlmPacketKind
feed_ctrl (Rig * rig, guint8 type, guint32 ssrc, guint8 level, guint8 from)
{
  RlmCtrl c = { type, ssrc, level };
  RlmAddr a = addr_of (from);
  guint8 buf[RLM_CTRL_SIZE];
  gsize len = rlm_ctrl_write (&c, buf, sizeof (buf));

  fail_unless_equals_int (len, RLM_CTRL_SIZE);
  return rlm_receiver_on_datagram (rig->r, buf, len, &a, rig->now);
}

/* A REPORT of @level from @ssrc, settled or not. */
static RlmPacketKind
feed_report (Rig * rig, guint32 ssrc, guint8 level, gboolean settled,
    guint8 from)
{
  RlmCtrl c = { RLM_CTRL_REPORT, ssrc, level,
    settled ? RLM_CTRL_FLAG_SETTLED : 0
  };
  RlmAddr a = addr_of (from);
  guint8 buf[RLM_CTRL_SIZE];
  gsize len = rlm_ctrl_write (&c, buf, sizeof (buf));

  return rlm_receiver_on_datagram (rig->r, buf, len, &a, rig->now);
}

/* Steps time to @until in 10 ms ticks, a packet of every subscribed layer
 * each tick, advancing the core at every tick and deadline. */
static void
run_clean (Rig * rig, gint64 until)
{
  RlmReceiverStats st;

  while (rig->now < until) {
    gint64 next = MIN (rig->now + 10 * MS, until);
    gint64 d = rlm_receiver_next_deadline (rig->r);

    if (d >= 0 && d > rig->now && d < next)
      next = d;
    rig->now = next;
    rlm_receiver_advance (rig->r, rig->now);
    rlm_receiver_get_stats (rig->r, &st);
    for (guint l = 0; l < st.level; l++)
      feed (rig, l, 0);
  }
}

static RlmReceiverStats
stats (Rig * rig)
{
  RlmReceiverStats st;

  rlm_receiver_get_stats (rig->r, &st);
  return st;
}

/* Takes every queued event; returns how many were of @type. */
static guint
drain_events (Rig * rig, RlmEventType type, RlmEvent * last)
{
  RlmEvent ev = { 0 };
  guint n = 0;

  while (rlm_receiver_pop_event (rig->r, &ev)) {
    if (ev.type == type) {
      n++;
      if (last)
        *last = ev;
    }
  }
  return n;
}

static guint
drain_transmits (Rig * rig, RlmCtrl * last_join)
{
  guint8 buf[64];
  gsize len;
  guint joins = 0;

  while ((len = rlm_receiver_pop_transmit (rig->r, buf, sizeof (buf)))) {
    RlmCtrl c;

    fail_unless (rlm_ctrl_parse (buf, len, &c));
    if (c.type == RLM_CTRL_JOIN) {
      joins++;
      if (last_join)
        *last_join = c;
    }
  }
  return joins;
}

/* Runs clean until the core has added a layer (its join timer). */
static void
run_until_level (Rig * rig, guint level, gint64 limit)
{
  while (stats (rig).level < level && rig->now < limit) {
    gint64 d = rlm_receiver_next_deadline (rig->r);

    /* stop at the deadline that added the layer */
    run_clean (rig, d > rig->now ? MIN (d, rig->now + 10 * MS) :
        rig->now + 10 * MS);
  }
  fail_unless_equals_int (stats (rig).level, level);
}

/* Runs clean until the next layer is added by an announced experiment
 * at @level, before @limit. */
static void
expect_experiment (Rig * rig, guint level, gint64 limit)
{
  RlmCtrl join;

  run_until_level (rig, level, limit);
  fail_unless_equals_int (drain_transmits (rig, &join), 1);
  fail_unless_equals_int (join.level, level);
}

/* ------------------------------------------------------------------ */
/* Wire */

GST_START_TEST (test_wire)
{
  guint8 buf[64], out[80];
  RlmCtrl c = { RLM_CTRL_JOIN, 0xA1B2C3D4, 3 }, back;
  RlmStamper st;
  RandomSeeded seeded;
  RandomSource rng;
  guint layer;
  guint16 seq, port;
  guint8 base4[4] = { 239, 1, 1, 254 }, g[16];
  guint8 base6[16] = { 0xff, 0x3e, [14] = 0x00,[15] = 0xff };
  gsize len;

  len = rlm_ctrl_write (&c, buf, sizeof (buf));
  fail_unless_equals_int (len, RLM_CTRL_SIZE);
  /* APP, subtype 0, length 3, name "RLM " */
  fail_unless_equals_int (buf[0], 0x80);
  fail_unless_equals_int (buf[1], 204);
  fail_unless_equals_int (read16 (buf + 2), 3);
  fail_unless (memcmp (buf + 8, "RLM ", 4) == 0);
  fail_unless (rlm_ctrl_parse (buf, len, &back));
  fail_unless (back.type == c.type && back.ssrc == c.ssrc &&
      back.level == 3);
  fail_unless_equals_int (rlm_ctrl_write (&c, buf, RLM_CTRL_SIZE - 1), 0);

  random_source_init_seeded (&rng, &seeded, 1);
  rlm_stamper_init (&st, 6, &rng);
  seq = st.next_seq[2];
  len = media_packet (0, 0, buf, sizeof (buf));
  /* a packet without our element first: plain RTP */
  {
    RtpHeader h;

    memset (&h, 0, sizeof (h));
    h.payload_type = 96;
    len = rtp_header_write (&h, NULL, 0, buf, sizeof (buf));
  }
  len = rlm_stamper_stamp (&st, 2, buf, len, out, sizeof (out));
  fail_unless (len > RTP_HEADER_SIZE);
  fail_unless (rlm_layer_ext_parse (out, len, 6, &layer, &seq));
  fail_unless_equals_int (layer, 2);
  fail_unless_equals_int (st.next_seq[2], (guint16) (seq + 1));
  fail_if (rlm_layer_ext_parse (out, len, 7, &layer, &seq));
  fail_unless_equals_int (rlm_stamper_stamp (&st, RLM_MAX_LAYERS, buf, 12,
          out, sizeof (out)), 0);
  fail_unless_equals_int (rlm_stamper_stamp (&st, 0, buf, 5, out,
          sizeof (out)), 0);
  fail_unless_equals_int (st.refused, 2);
  /* a skipped packet uses up its number: the next stamped one is 2 on */
  {
    guint16 before = st.next_seq[2];
    guint64 stamped = st.stamped[2];

    rlm_stamper_skip (&st, 2);
    fail_unless_equals_int (st.stamped[2], stamped + 1);
    len = rtp_header_write (&(RtpHeader) {.payload_type = 96}, NULL, 0, buf,
        sizeof (buf));
    len = rlm_stamper_stamp (&st, 2, buf, len, out, sizeof (out));
    fail_unless (rlm_layer_ext_parse (out, len, 6, &layer, &seq));
    fail_unless_equals_int (seq, (guint16) (before + 1));
    rlm_stamper_skip (&st, RLM_MAX_LAYERS);
    fail_unless_equals_int (st.refused, 3);
  }

  /* layer -> group: base + index, carrying; a port each on request */
  fail_unless (rlm_layer_group (base4, 4, 5000, 3, FALSE, g, &port));
  fail_unless (g[0] == 239 && g[1] == 1 && g[2] == 2 && g[3] == 1);
  fail_unless_equals_int (port, 5000);
  fail_unless (rlm_layer_group (base4, 4, 5000, 3, TRUE, g, &port));
  fail_unless_equals_int (port, 5006);
  fail_unless (rlm_layer_group (base6, 16, 5000, 1, FALSE, g, &port));
  fail_unless (g[14] == 1 && g[15] == 0 && g[0] == 0xff);
  {
    guint8 top[4] = { 255, 255, 255, 255 };

    fail_if (rlm_layer_group (top, 4, 5000, 1, FALSE, g, &port));
    fail_if (rlm_layer_group (base4, 4, 65534, 1, TRUE, g, &port));
    fail_if (rlm_layer_group (base4, 5, 5000, 1, FALSE, g, &port));
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The join timer's draw (section 4): lambda/2 + X, X in [0, 4 lambda]. */

GST_START_TEST (test_join_draw)
{
  gdouble sum_paper = 0, sum_mean = 0;
  const guint n = 400;

  for (guint i = 0; i < n; i++) {
    RandomSeeded seeded;
    RandomSource rng;
    RlmConfig cfg;
    RlmReceiver *r;
    RlmReceiverStats st;
    gdouble t;

    random_source_init_seeded (&rng, &seeded, i + 1);
    rlm_config_init (&cfg);
    cfg.join_draw = i % 2 ? RLM_JOIN_DRAW_MEAN : RLM_JOIN_DRAW_PAPER;
    r = rlm_receiver_new (&cfg, &rng, 0);
    rlm_receiver_get_stats (r, &st);
    t = st.join_deadline / 1e9;
    /* lambda = T_J^min = 5 s */
    fail_unless (t >= 2.5 && t <= 2.5 + 20.0, "interval %f", t);
    if (i % 2)
      sum_mean += t;
    else
      sum_paper += t;
    rlm_receiver_free (r);
  }
  /* as printed: rate lambda, mean about lambda/2 + 1/lambda = 2.7 s */
  sum_paper /= n / 2;
  fail_unless (sum_paper > 2.6 && sum_paper < 2.8, "mean %f", sum_paper);
  /* mean-lambda reading: 2.5 + 5 (1 - 4 e^-4 / (1 - e^-4)) = 7.13 s */
  sum_mean /= n / 2;
  fail_unless (sum_mean > 6.3 && sum_mean < 7.8, "mean %f", sum_mean);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Section 3.4 by hand */

/* Start at the base layer; the join timer adds layer 1 with an
 * announcement; an experiment that sees no loss for k1 T_D + k2 sigma_D
 * succeeded. */
GST_START_TEST (test_join_experiment_succeeds)
{
  Rig rig;
  RlmEvent ev = { 0 };
  RlmCtrl join;
  RlmReceiverStats st;

  rig_init (&rig, 11, 4);
  fail_unless (rlm_receiver_pop_event (rig.r, &ev));
  fail_unless (ev.type == RLM_EVENT_JOIN && ev.layer == 0);
  fail_unless (rlm_receiver_pop_event (rig.r, &ev));
  fail_unless (ev.type == RLM_EVENT_LEVEL && ev.level == 1 &&
      ev.reason == RLM_REASON_START);
  st = stats (&rig);
  fail_unless (st.state == RLM_STATE_STEADY && st.join_deadline > 0);

  run_until_level (&rig, 2, 10 * S);
  fail_unless_equals_int64 (rig.now, st.join_deadline);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_JOIN, &ev), 1);
  fail_unless_equals_int (ev.layer, 1);
  fail_unless_equals_int (drain_transmits (&rig, &join), 1);
  fail_unless_equals_int (join.level, 2);
  fail_unless_equals_int (join.ssrc, stats (&rig).ssrc);
  fail_unless_equals_int (stats (&rig).experiments_run, 1);

  /* k1 T_D + k2 sigma_D = 2 + 1 s without loss */
  run_clean (&rig, st.join_deadline + 3 * S);
  st = stats (&rig);
  fail_unless_equals_int (st.experiments_succeeded, 1);
  fail_unless_equals_int (st.experiments_failed, 0);
  fail_unless_equals_int (st.layers[1].lost, 0);
  fail_unless (st.layers[1].received > 200);
  rig_clear (&rig);
}

GST_END_TEST;

/* A loss during our own experiment (the highest in progress): drop the
 * layer, back off its join timer, feed the detection-time estimator, D;
 * losses in D are ignored; after T_D, S. */
GST_START_TEST (test_own_experiment_fails)
{
  Rig rig;
  RlmEvent ev = { 0 };
  RlmReceiverStats st;
  gint64 t_join, d_i;
  gdouble td, sd;

  rig_init (&rig, 12, 4);
  run_until_level (&rig, 2, 10 * S);
  t_join = rig.now;
  drain_events (&rig, RLM_EVENT_LEVEL, NULL);
  run_clean (&rig, t_join + 700 * MS);
  feed (&rig, 1, 3);
  d_i = rig.now - t_join;
  st = stats (&rig);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int (st.state, RLM_STATE_DROP);
  fail_unless_equals_int (st.experiments_failed, 1);
  fail_unless_equals_int (st.drops, 1);
  fail_unless_equals_int64 (st.join_timer[2], 10 * S);
  /* sigma <- 0.75 sigma + 0.25 |D - T_D|, then T_D <- 0.75 T_D + 0.25 D */
  sd = 0.75 * 0.5e9 + 0.25 * fabs (d_i - 2e9);
  td = 0.75 * 2e9 + 0.25 * d_i;
  fail_unless (llabs (st.detection_time - (gint64) td) <= 1);
  fail_unless (llabs (st.detection_dev - (gint64) sd) <= 1);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEAVE, &ev), 1);
  fail_unless_equals_int (ev.layer, 1);
  fail_unless_equals_int (ev.reason, RLM_REASON_EXPERIMENT_FAILED);

  /* D ignores losses */
  feed (&rig, 0, 5);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_DROP);
  fail_unless (stats (&rig).loss_estimate == 0);
  run_clean (&rig, rig.now + (gint64) (td + 2 * sd) + 10 * MS);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.level, 1);
  /* the next experiment at level 2 waits for the backed-off timer: at
   * least lambda / 2 = 5 s */
  fail_unless (st.join_deadline - rig.now >= 5 * S - 10 * MS);
  rig_clear (&rig);
}

GST_END_TEST;

/* Shared learning (section 3.3): a loss while someone else's experiment
 * one level above ours is in progress backs off our timer for that level,
 * without an experiment of our own; S goes to H, then M, then S. */
GST_START_TEST (test_learning_from_others)
{
  Rig rig;
  RlmReceiverStats st;
  gint64 t;

  rig_init (&rig, 13, 4);
  run_clean (&rig, 1 * S);
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1),
      RLM_PACKET_CONTROL);
  run_clean (&rig, rig.now + 500 * MS);
  feed (&rig, 0, 2);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int64 (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int (st.experiments_run, 0);
  fail_unless_equals_int64 (st.join_timer[2], 10 * S);
  fail_unless_equals_int (st.layers[0].lost, 2);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEAVE, NULL), 0);

  /* H absorbs losses, then M after T_D, then S after another T_D */
  t = rig.now;
  feed (&rig, 0, 1);
  fail_unless_equals_int64 (stats (&rig).state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (stats (&rig).experiments_learned, 1);
  run_clean (&rig, t + 3 * S);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_MEASUREMENT);
  run_clean (&rig, t + 6 * S);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
  fail_unless_equals_int (stats (&rig).level, 1);

  /* an experiment two levels above ours teaches nothing */
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, rig.now + 100 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[3], 5 * S);
  fail_unless_equals_int64 (st.state, RLM_STATE_HYSTERESIS);
  rig_clear (&rig);
}

GST_END_TEST;

/* The receiver is at @level, reached by one announced experiment at it. */
static void
expect_announced_level (Rig * rig, guint level)
{
  RlmCtrl join;

  fail_unless_equals_int (stats (rig).level, level);
  fail_unless_equals_int (drain_transmits (rig, &join), 1);
  fail_unless_equals_int (join.level, level);
}

/* Suppression (section 3.3): our timer for level 3 expires while someone
 * else's experiment at level 2 is in progress: no experiment, the timer
 * is drawn again. One at our own target level does not suppress. */
GST_START_TEST (test_suppression)
{
  Rig rig;
  RlmReceiverStats st;
  gint64 deadline;

  rig_init (&rig, 14, 4);
  run_until_level (&rig, 2, 10 * S);
  run_clean (&rig, rig.now + 3500 * MS);
  drain_transmits (&rig, NULL);
  drain_events (&rig, RLM_EVENT_JOIN, NULL);
  st = stats (&rig);
  fail_unless_equals_int (st.experiments_succeeded, 1);
  deadline = st.join_deadline;
  fail_unless (deadline > rig.now);

  run_clean (&rig, deadline - 1 * S);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  run_clean (&rig, deadline);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int (st.experiments_suppressed, 1);
  fail_unless_equals_int (st.experiments_run, 1);
  fail_unless (st.join_deadline > deadline);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_JOIN, NULL), 0);
  fail_unless_equals_int (drain_transmits (&rig, NULL), 0);

  /* the redrawn timer comes after the other experiment's window; then
   * an experiment at our target level 3 in progress lets ours run */
  deadline = st.join_deadline;
  run_clean (&rig, deadline - 1 * S);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, deadline);
  fail_unless_equals_int (stats (&rig).experiments_suppressed, 1);
  expect_announced_level (&rig, 3);
  rig_clear (&rig);
}

GST_END_TEST;

/* A loss while our experiment runs under a higher one in progress: the
 * loss may be the other's, so M, not a drop (section 3.4). In M, a loss
 * rate over the threshold then fails our experiment; without it, our
 * experiment succeeds when M ends. */
GST_START_TEST (test_overlapped_experiment_measures)
{
  Rig rig;
  RlmReceiverStats st;
  gint64 t_join;

  for (guint lossy = 0; lossy < 2; lossy++) {
    rig_init (&rig, 19, 4);
    run_until_level (&rig, 2, 10 * S);
    t_join = rig.now;
    run_clean (&rig, t_join + 200 * MS);
    feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
    run_clean (&rig, t_join + 400 * MS);
    feed (&rig, 1, 1);
    st = stats (&rig);
    fail_unless_equals_int (st.state, RLM_STATE_MEASUREMENT);
    fail_unless_equals_int (st.level, 2);
    fail_unless_equals_int (st.experiments_learned, 0);
    if (lossy) {
      /* one in two lost: over the threshold at the next loss in M */
      for (guint i = 0; i < 20 && stats (&rig).state != RLM_STATE_DROP; i++) {
        rig.now += 10 * MS;
        rlm_receiver_advance (rig.r, rig.now);
        feed (&rig, 0, i % 2);
        feed (&rig, 1, i % 2);
      }
      st = stats (&rig);
      fail_unless_equals_int (st.state, RLM_STATE_DROP);
      fail_unless_equals_int (st.level, 1);
      fail_unless_equals_int (st.experiments_failed, 1);
      fail_unless_equals_int64 (st.join_timer[2], 10 * S);
      /* D_i ends at the onset, the loss that sent it to M: 400 ms */
      fail_unless (llabs (st.detection_time - (gint64) (0.75 * 2e9 + 0.25 *
                  400e6)) <= 1, "T_D %" G_GINT64_FORMAT, st.detection_time);
    } else {
      run_clean (&rig, rig.now + 3 * S);
      st = stats (&rig);
      fail_unless_equals_int (st.state, RLM_STATE_STEADY);
      fail_unless_equals_int (st.level, 2);
      fail_unless_equals_int (st.experiments_succeeded, 1);
      fail_unless_equals_int (st.experiments_failed, 0);
    }
    rig_clear (&rig);
  }
}

GST_END_TEST;

/* start_level: a receiver that learned its level in an earlier session
 * joins layers 0 .. start_level - 1 at once, then runs the paper's
 * protocol from there: its next experiment is the level above, and a
 * start level its path cannot carry is dropped as congestion. */
GST_START_TEST (test_start_level)
{
  Rig rig;
  RlmEvent ev = { 0 };
  RlmReceiverStats st;
  gint64 t;

  rig_init_at (&rig, 21, 4, 3);
  for (guint layer = 0; layer < 3; layer++) {
    fail_unless (rlm_receiver_pop_event (rig.r, &ev));
    fail_unless_equals_int (ev.type, RLM_EVENT_JOIN);
    fail_unless_equals_int (ev.layer, layer);
    fail_unless_equals_int (ev.reason, RLM_REASON_START);
  }
  fail_unless (rlm_receiver_pop_event (rig.r, &ev));
  fail_unless_equals_int (ev.type, RLM_EVENT_LEVEL);
  fail_unless_equals_int (ev.level, 3);
  fail_unless_equals_int (ev.reason, RLM_REASON_START);
  fail_if (rlm_receiver_pop_event (rig.r, &ev));

  /* clean: the first experiment is at level 4, before T_J^min's
   * longest draw (lambda/2 + 4 lambda = 22.5 s) */
  expect_experiment (&rig, 4, 23 * S);
  fail_unless_equals_int (stats (&rig).experiments_run, 1);
  rig_clear (&rig);

  /* a start level beyond the path: steady loss drops it, no experiment */
  rig_init_at (&rig, 22, 4, 9);
  fail_unless_equals_int (stats (&rig).level, 4);
  t = rig.now;
  while (stats (&rig).state != RLM_STATE_DROP && rig.now < t + 20 * S) {
    rig.now += 10 * MS;
    rlm_receiver_advance (rig.r, rig.now);
    for (guint l = 0; l < stats (&rig).level; l++)
      feed (&rig, l, (rig.now / (10 * MS)) % 4 == 0);
  }
  st = stats (&rig);
  fail_unless_equals_int (st.level, 3);
  fail_unless_equals_int (st.experiments_run, 0);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEAVE, &ev), 1);
  fail_unless_equals_int (ev.layer, 3);
  fail_unless_equals_int (ev.reason, RLM_REASON_CONGESTION);
  rig_clear (&rig);
}

GST_END_TEST;

/* join_reported on, seed @seed, 4 layers, at level 1; start events
 * taken. */
static void
rig_init_reported (Rig * rig, guint64 seed)
{
  rig_prepare (rig, seed, 4);
  rig->cfg.join_reported = TRUE;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  drain_events (rig, RLM_EVENT_JOIN, NULL);
}

/* The level and the counts of joins to the reported level and of
 * experiments. */
static void
expect_climb (Rig * rig, guint level, guint64 reported_joins,
    guint64 reported_failed, guint64 experiments_run)
{
  RlmReceiverStats st = stats (rig);

  fail_unless_equals_int (st.level, level);
  fail_unless_equals_int (st.reported_joins, reported_joins);
  fail_unless_equals_int (st.reported_joins_failed, reported_failed);
  fail_unless_equals_int (st.experiments_run, experiments_run);
}

/* No report heard: the paper's announced experiment at level 2. With the
 * option off, reports change nothing either. */
GST_START_TEST (test_join_reported_without_reports)
{
  Rig rig;

  rig_init_reported (&rig, 41);
  expect_experiment (&rig, 2, 23 * S);
  expect_climb (&rig, 2, 0, 0, 1);
  rig_clear (&rig);

  rig_init (&rig, 41, 4);
  fail_unless_equals_int (feed_report (&rig, PEER_SSRC, 4, TRUE, 2),
      RLM_PACKET_CONTROL);
  expect_experiment (&rig, 2, 23 * S);
  expect_climb (&rig, 2, 0, 0, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* Settled reports of levels 4 and 3: the first join goes straight to the
 * lowest, 3, unannounced, and the timer of 4 starts backed off once; the
 * next step is the paper's experiment at 4. */
GST_START_TEST (test_join_reported_lowest)
{
  Rig rig;

  rig_init_reported (&rig, 42);
  feed_report (&rig, PEER_SSRC, 4, TRUE, 2);
  feed_report (&rig, PEER_SSRC + 1, 3, TRUE, 3);
  run_until_level (&rig, 3, 23 * S);
  fail_unless_equals_int64 (stats (&rig).join_timer[4],
      2 * rig.cfg.t_join_min);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_JOIN, NULL), 2);
  fail_unless_equals_int (drain_transmits (&rig, NULL), 0);
  expect_climb (&rig, 3, 1, 0, 0);

  expect_experiment (&rig, 4, rig.now + 40 * S);
  expect_climb (&rig, 4, 1, 0, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* Receivers still climbing (not settled) are not counted: settled 3, 3
 * and a climbing 2 take the join to 3. */
GST_START_TEST (test_join_reported_settled_only)
{
  Rig rig;
  RlmEvent ev = { 0 };

  rig_init_reported (&rig, 43);
  feed_report (&rig, PEER_SSRC, 3, TRUE, 2);
  feed_report (&rig, PEER_SSRC + 1, 2, FALSE, 3);
  feed_report (&rig, PEER_SSRC + 2, 3, TRUE, 4);
  run_until_level (&rig, 3, 23 * S);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEVEL, &ev), 1);
  fail_unless_equals_int (ev.level, 3);
  fail_unless_equals_int (ev.reason, RLM_REASON_REPORTED_LEVEL);
  fail_unless_equals_string (rlm_reason_name (ev.reason), "reported-level");
  fail_unless_equals_int (drain_transmits (&rig, NULL), 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* Our REPORTs carry the settled flag once the level above failed for us,
 * and lose it when we climb. */
static RlmCtrl
next_report (Rig * rig)
{
  guint8 buf[64];
  gsize len;
  RlmCtrl c = { 0 };
  gint64 limit = rig->now + 60 * S;

  while (rig->now < limit) {
    run_clean (rig, rig->now + 10 * MS);
    while ((len = rlm_receiver_pop_transmit (rig->r, buf, sizeof (buf)))) {
      fail_unless (rlm_ctrl_parse (buf, len, &c));
      if (c.type == RLM_CTRL_REPORT)
        return c;
    }
  }
  fail ("no report");
  return c;
}

/* The first report after the transmits queued so far: @level, @flags. */
static void
expect_report (Rig * rig, guint level, guint flags)
{
  RlmCtrl c;

  drain_transmits (rig, NULL);
  c = next_report (rig);
  fail_unless_equals_int (c.level, level);
  fail_unless_equals_int (c.flags, flags);
}

/* A receiver of @n_layers that reports every 0.25-0.75 s. */
static void
rig_init_reporting (Rig * rig, guint64 seed, guint n_layers)
{
  rig_prepare (rig, seed, n_layers);
  rig->cfg.report_interval = 500 * MS;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
}

/* Holds a receiver at level 2 in S for 2 T_J^min (another's experiments
 * at 2 suppress ours at 3): its REPORT is then settled. */
static void
hold_in_steady_at_2 (Rig * rig)
{
  for (guint i = 0; i < 6; i++) {
    feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 2);
    run_clean (rig, rig->now + 2 * S);
  }
  fail_unless_equals_int (stats (rig).level, 2);
  expect_report (rig, 2, RLM_CTRL_FLAG_SETTLED);
}

GST_START_TEST (test_report_settled_flag)
{
  Rig rig;
  RlmCtrl c;

  /* a report comes while we wait in D */
  rig_init_reporting (&rig, 46, 3);
  c = next_report (&rig);
  fail_unless_equals_int (c.level, 1);
  fail_unless_equals_int (c.flags, 0);
  run_until_level (&rig, 2, rig.now + 30 * S);
  rig.now += 100 * MS;
  feed (&rig, 1, 0);
  feed (&rig, 1, 3);
  fail_unless_equals_int (stats (&rig).level, 1);
  /* reports queued before the failure */
  expect_report (&rig, 1, RLM_CTRL_FLAG_SETTLED);
  run_until_level (&rig, 2, rig.now + 60 * S);
  expect_report (&rig, 2, 0);

  hold_in_steady_at_2 (&rig);
  rig_clear (&rig);
}

GST_END_TEST;

/* Time out of S does not settle a level: a receiver that others' losses
 * keep in H and M runs no join timer there; it is held back, not settled,
 * and a newcomer joining up to its report would stay low (the bed's
 * test_rlm_join_reported.py). Then two T_J^min in S, with others'
 * experiments at our level holding our timer, settle it. */
GST_START_TEST (test_report_not_settled_out_of_steady)
{
  Rig rig;
  guint ticks = 0, out_of_steady = 0;
  gint64 end;

  rig_prepare (&rig, 48, 3);
  rig.cfg.report_interval = 500 * MS;
  rig.cfg.start_level = 2;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  /* one packet in 70 lost: below the loss threshold, no drop */
  end = rig.now + 12 * S;
  while (rig.now < end) {
    run_clean (&rig, rig.now + 700 * MS);
    feed (&rig, 0, 1);
    ticks++;
    out_of_steady += stats (&rig).state != RLM_STATE_STEADY;
  }
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_unless (out_of_steady * 4 >= ticks * 3, "%u of %u", out_of_steady,
      ticks);
  expect_report (&rig, 2, 0);
  hold_in_steady_at_2 (&rig);
  rig_clear (&rig);
}

GST_END_TEST;

/* The top level is settled once our experiment to it has succeeded, not
 * while it is in progress: it may still fail, and a newcomer joining it
 * from our report would fail with it. */
GST_START_TEST (test_report_top_level_settled_after_experiment)
{
  Rig rig;
  RlmCtrl c;
  gint64 joined;

  rig_init_reporting (&rig, 47, 2);
  run_until_level (&rig, 2, rig.now + 30 * S);
  joined = rig.now;
  drain_transmits (&rig, NULL);
  c = next_report (&rig);
  /* within the first detection time (3 s): our experiment is in progress */
  fail_unless (rig.now - joined < 2 * S);
  fail_unless_equals_int (c.level, 2);
  fail_unless_equals_int (c.flags, 0);
  run_clean (&rig, joined + 4 * S);
  fail_unless_equals_int (stats (&rig).level, 2);
  expect_report (&rig, 2, RLM_CTRL_FLAG_SETTLED);
  rig_clear (&rig);
}

GST_END_TEST;

/* gap_retry: a join timer suppressed by another's experiment at a lower
 * level retries when that experiment's window ends (plus at most 0.5 s),
 * sooner than the paper's new draw (at least T_J^min / 2), and then runs
 * its experiment. */
GST_START_TEST (test_gap_retry)
{
  Rig rig;
  RlmReceiverStats st;
  gint64 deadline, t_lower, window;

  rig_prepare (&rig, 14, 4);
  rig.cfg.gap_retry = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_until_level (&rig, 2, 10 * S);
  run_clean (&rig, rig.now + 3500 * MS);
  drain_transmits (&rig, NULL);
  deadline = stats (&rig).join_deadline;
  fail_unless (deadline - rig.now > 1 * S);

  t_lower = MAX (rig.now, deadline - 2500 * MS);
  run_clean (&rig, t_lower);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  run_clean (&rig, deadline);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int (st.experiments_suppressed, 1);
  window = (gint64) (rig.cfg.k1 * st.detection_time +
      rig.cfg.k2 * st.detection_dev);
  fail_unless (st.join_deadline > t_lower + window);
  fail_unless (st.join_deadline <= t_lower + window + 500 * MS);
  fail_unless (st.join_deadline < deadline + rig.cfg.t_join_min / 2);

  run_clean (&rig, st.join_deadline);
  fail_unless_equals_int (stats (&rig).experiments_run, 2);
  expect_announced_level (&rig, 3);
  rig_clear (&rig);
}

GST_END_TEST;

/* Runs clean to the join timer's expiry, which adds a layer; the new
 * layer's first packet comes @latency after it, the older layers' every
 * 10 ms meanwhile. */
static void
join_with_latency (Rig * rig, gint64 latency)
{
  gint64 join = stats (rig).join_deadline;
  guint level;

  fail_unless (join > rig->now);
  run_clean (rig, join - 1);
  rig->now = join;
  rlm_receiver_advance (rig->r, rig->now);
  level = stats (rig).level;
  while (rig->now < join + latency) {
    for (guint l = 0; l + 1 < level; l++)
      feed (rig, l, 0);
    rig->now = MIN (rig->now + 10 * MS, join + latency);
    rlm_receiver_advance (rig->r, rig->now);
  }
  for (guint l = 0; l < level; l++)
    feed (rig, l, 0);
}

/* A receiver with join_latency_hold @hold whose experiment at 2 took
 * 40 ms to its layer's first packet, once that experiment succeeded. */
static void
rig_init_latency (Rig * rig, gdouble hold)
{
  RlmReceiverStats st;

  rig_prepare (rig, 14, 4);
  rig->cfg.join_latency_hold = hold;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  fail_unless_equals_int64 (stats (rig).join_latency, -1);
  join_with_latency (rig, 40 * MS);
  st = stats (rig);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int64 (st.join_latency, 40 * MS);
  fail_unless_equals_int (st.join_latency_samples, 1);
  run_clean (rig, rig->now + 3500 * MS);
  fail_unless_equals_int (stats (rig).experiments_succeeded, 1);
  drain_transmits (rig, NULL);
}

/* Another's experiment at 2, announced 500 ms before our timer for 3
 * expires: TRUE if ours ran then, FALSE if it was suppressed. */
static gboolean
runs_over_lower_experiment (Rig * rig)
{
  gint64 deadline = stats (rig).join_deadline;
  guint64 suppressed = stats (rig).experiments_suppressed;

  fail_unless (deadline - 500 * MS > rig->now);
  run_clean (rig, deadline - 500 * MS);
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  run_clean (rig, deadline);
  if (stats (rig).level == 3) {
    expect_announced_level (rig, 3);
    return TRUE;
  }
  fail_unless_equals_int (stats (rig).experiments_suppressed, suppressed + 1);
  fail_unless_equals_int (drain_transmits (rig, NULL), 0);
  return FALSE;
}

/* join_latency_hold: with a 40 ms join latency and a hold of 5, another's
 * lower experiment holds our join timer for 200 ms, not the 3 s window:
 * 500 ms after its announcement our experiment runs; 100 ms after, it is
 * still suppressed. Without the option (the paper) the 500 ms case is
 * suppressed too. */
GST_START_TEST (test_join_latency_hold)
{
  Rig rig;
  gint64 deadline;

  rig_init_latency (&rig, 0);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_latency (&rig, 5);
  deadline = stats (&rig).join_deadline;
  run_clean (&rig, deadline - 100 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  run_clean (&rig, deadline);
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_unless_equals_int (stats (&rig).experiments_suppressed, 1);
  fail_unless (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* join_latency_hold: our own experiment at 2 holds our timer for 3 for
 * its whole window even when another's JOIN at 2 came after it (the
 * record of level 2 is then the other's). */
GST_START_TEST (test_join_latency_hold_own_experiment)
{
  Rig rig;
  gint64 join, deadline;

  rig_prepare (&rig, 14, 4);
  rig.cfg.join_latency_hold = 5;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  join = stats (&rig).join_deadline;
  join_with_latency (&rig, 40 * MS);
  drain_transmits (&rig, NULL);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  deadline = stats (&rig).join_deadline;
  /* the timer for 3 expires inside our 3 s window, past the 200 ms hold */
  fail_unless (deadline > rig.now + 200 * MS);
  fail_unless (deadline < join + 3 * S);
  run_clean (&rig, deadline);
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_unless_equals_int (stats (&rig).experiments_run, 1);
  fail_unless_equals_int (drain_transmits (&rig, NULL), 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* join_latency_hold before any join of ours was measured (a receiver that
 * started at its level): the hold is the whole detection window. */
GST_START_TEST (test_join_latency_hold_needs_sample)
{
  Rig rig;

  rig_prepare (&rig, 14, 4);
  rig.cfg.start_level = 2;
  rig.cfg.join_latency_hold = 5;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 10 * MS);
  fail_unless_equals_int64 (stats (&rig).join_latency, -1);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* A path slower than the session's: a loss in the join's window undoes
 * the whole join at once, and the receiver never joins a reported level
 * again; it climbs by the paper's experiments. */
/* A receiver at level 2 by its own experiment at 2, which succeeded,
 * with first_climb_unheld @ignore (for @unheld_for, 0 no limit) and
 * first_climb_to_settled @to_settled. */
static void
rig_init_unheld (Rig * rig, gboolean ignore, gint64 unheld_for,
    gboolean to_settled)
{
  rig_prepare (rig, 14, 4);
  rig->cfg.first_climb_unheld = ignore;
  rig->cfg.first_climb_unheld_for = unheld_for;
  rig->cfg.first_climb_to_settled = to_settled;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  run_until_level (rig, 2, 10 * S);
  run_clean (rig, rig->now + 3500 * MS);
  fail_unless_equals_int (stats (rig).experiments_succeeded, 1);
  drain_transmits (rig, NULL);
}

static void
rig_init_held (Rig * rig, gboolean ignore)
{
  rig_init_unheld (rig, ignore, 0, FALSE);
}

/* first_climb_unheld: another's experiment at 2, a level we hold, 500 ms
 * before our timer for 3 expires, holds it back only without the option
 * (section 3.4); with it ours runs and nothing counts as suppressed. After
 * a loss (S, H, M, S) the hold applies again. */
GST_START_TEST (test_first_climb_unheld)
{
  Rig rig;

  rig_init_held (&rig, FALSE);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_held (&rig, TRUE);
  fail_unless (runs_over_lower_experiment (&rig));
  fail_unless_equals_int (stats (&rig).experiments_suppressed, 0);
  fail_unless_equals_int (stats (&rig).experiments_run, 2);
  rig_clear (&rig);

  rig_init_held (&rig, TRUE);
  feed (&rig, 0, 3);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_HYSTERESIS);
  run_clean (&rig, rig.now + 7 * S);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* first_climb_unheld ends with a backoff too: a join up to the reported
 * level 2 backs off the timer of 3 without a loss, and another's
 * experiment at 2 holds that timer again. */
GST_START_TEST (test_first_climb_unheld_after_backoff)
{
  Rig rig;

  rig_init_reported (&rig, 42);
  rig.cfg.first_climb_unheld = TRUE;
  rlm_receiver_free (rig.r);
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  feed_report (&rig, PEER_SSRC + 1, 2, TRUE, 3);
  run_until_level (&rig, 2, 23 * S);
  expect_climb (&rig, 2, 1, 0, 0);
  fail_unless_equals_int64 (stats (&rig).join_timer[3],
      2 * rig.cfg.t_join_min);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* first_climb_unheld: our own experiment at 2 still holds our timer for 3
 * for its whole window, also when another's JOIN at 2 came after it. */
GST_START_TEST (test_first_climb_unheld_own_experiment)
{
  Rig rig;
  gint64 join, deadline;

  rig_prepare (&rig, 14, 4);
  rig.cfg.first_climb_unheld = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  join = stats (&rig).join_deadline;
  join_with_latency (&rig, 40 * MS);
  drain_transmits (&rig, NULL);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  deadline = stats (&rig).join_deadline;
  fail_unless (deadline < join + 3 * S);
  run_clean (&rig, deadline);
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_unless_equals_int (stats (&rig).experiments_run, 1);
  fail_unless_equals_int (drain_transmits (&rig, NULL), 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* first_climb_unheld_for: the rule ends that long after the receiver's
 * start. At level 2, about 6 s in, another's experiment at 2 no longer
 * lets our timer for 3 run with a limit of 1 s; with 60 s it does. */
GST_START_TEST (test_first_climb_unheld_for)
{
  Rig rig;

  rig_init_unheld (&rig, TRUE, 60 * S, FALSE);
  fail_unless (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_unheld (&rig, TRUE, 1 * S, FALSE);
  fail_unless (rig.now > 1 * S);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* first_climb_to_settled: at level 2, our timer for 3 runs over
 * another's experiment at 2 while no member reports a settled level below
 * 3 (none heard, one climbing at 2, one settled at 3); once a member
 * reports 2 settled, 3 is above the session's settled level and the
 * experiment at 2 holds it as the paper does. Without the option it runs
 * then too. */
GST_START_TEST (test_first_climb_to_settled)
{
  Rig rig;

  rig_init_unheld (&rig, TRUE, 0, TRUE);
  fail_unless (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_unheld (&rig, TRUE, 0, TRUE);
  feed_report (&rig, PEER_SSRC + 1, 2, FALSE, 3);
  feed_report (&rig, PEER_SSRC + 2, 3, TRUE, 4);
  fail_unless (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_unheld (&rig, TRUE, 0, TRUE);
  feed_report (&rig, PEER_SSRC + 1, 2, TRUE, 3);
  fail_if (runs_over_lower_experiment (&rig));
  rig_clear (&rig);

  rig_init_unheld (&rig, TRUE, 0, FALSE);
  feed_report (&rig, PEER_SSRC + 1, 2, TRUE, 3);
  fail_unless (runs_over_lower_experiment (&rig));
  rig_clear (&rig);
}

GST_END_TEST;

/* A receiver at level 1 of 4 that loses one packet 100 ms after another
 * receiver's JOIN at 3, two levels above it. */
static RlmReceiverStats
loss_under_higher_experiment (Rig * rig, guint32 ssrc)
{
  feed_ctrl (rig, RLM_CTRL_JOIN, ssrc, 3, 1);
  run_clean (rig, rig->now + 100 * MS);
  feed (rig, 0, 1);
  return stats (rig);
}

/* learn_higher_failures: that loss backs off the timer of 3 once per
 * experiment and keeps us in S with our join timer running; the paper
 * (off) learns nothing from it and goes to H. One level up the paper's
 * learning is unchanged. */
GST_START_TEST (test_learn_higher_failures)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init (&rig, 13, 4);
  run_clean (&rig, 1 * S);
  st = loss_under_higher_experiment (&rig, PEER_SSRC);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.experiments_learned, 0);
  fail_unless_equals_int64 (st.join_timer[3], 5 * S);
  rig_clear (&rig);

  rig_prepare (&rig, 13, 4);
  rig.cfg.learn_higher_failures = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 1 * S);
  st = loss_under_higher_experiment (&rig, PEER_SSRC);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[3], 10 * S);
  fail_unless (st.join_deadline > rig.now);
  /* more losses of the same experiment teach nothing more */
  feed (&rig, 0, 2);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[3], 10 * S);
  /* another experiment at 3 fails too */
  st = loss_under_higher_experiment (&rig, PEER_SSRC + 1);
  fail_unless_equals_int (st.experiments_learned, 2);
  fail_unless_equals_int64 (st.join_timer[3], 20 * S);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  rig_clear (&rig);

  /* one level up: the paper's learning, H */
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, rig.now + 1 * S);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  run_clean (&rig, rig.now + 100 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int64 (st.join_timer[2], 10 * S);
  rig_clear (&rig);
}

GST_END_TEST;

/* A loss at level 1 while one receiver's experiment at 2 and another's
 * at 4 are in progress. */
static RlmReceiverStats
loss_under_two_experiments (Rig * rig)
{
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 4, 2);
  run_clean (rig, rig->now + 100 * MS);
  feed (rig, 0, 1);
  return stats (rig);
}

/* learn_higher_sole: with an experiment at 2 in progress under the one at
 * 4, the loss may be the one at 2 failing (topology (3): a slow receiver's
 * experiment on its own link while a fast one's higher experiment runs
 * behind another bottleneck). learn_higher_failures alone takes it as 4's
 * failure and stays in S; with the rule the receiver learns nothing of 4
 * and goes to H as the paper does. Alone above us, the experiment at 4 is
 * still learned. */
GST_START_TEST (test_learn_higher_sole)
{
  Rig rig;
  RlmReceiverStats st;

  rig_prepare (&rig, 17, 5);
  rig.cfg.learn_higher_failures = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 1 * S);
  st = loss_under_two_experiments (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[4], 10 * S);
  fail_unless_equals_int (st.higher_failures_ambiguous, 0);
  rig_clear (&rig);

  rig_prepare (&rig, 17, 5);
  rig.cfg.learn_higher_failures = TRUE;
  rig.cfg.learn_higher_sole = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 1 * S);
  st = loss_under_two_experiments (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int (st.experiments_learned, 0);
  fail_unless_equals_int64 (st.join_timer[2], 5 * S);
  fail_unless_equals_int64 (st.join_timer[4], 5 * S);
  fail_unless_equals_int (st.higher_failures_ambiguous, 1);
  fail_unless_equals_int64 (st.join_deadline, -1);
  rig_clear (&rig);

  /* the experiment at 4 alone above us: learned, S */
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  rig.now = 0;
  run_clean (&rig, 1 * S);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 4, 2);
  run_clean (&rig, rig.now + 100 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[4], 10 * S);
  fail_unless_equals_int (st.higher_failures_ambiguous, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* A loss at level 1 while experiments at 2 and 4 are in progress; the
 * run of announcements at 2 began @age before the loss (one every 500 ms,
 * so it never lapses), the one at 4 100 ms before it. Join timers of 20 s
 * keep our own climb out of the way. */
static RlmReceiverStats
loss_under_run_at_2 (Rig * rig, gboolean fresh_between, gint64 age)
{
  rig_prepare (rig, 23, 5);
  rig->cfg.t_join_min = 20 * S;
  rig->cfg.learn_higher_failures = TRUE;
  rig->cfg.learn_higher_onset = 1 * S;
  rig->cfg.learn_higher_fresh_between = fresh_between;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  run_clean (rig, 1 * S);
  for (gint64 t = age; t > 100 * MS; t -= 500 * MS) {
    feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
    run_clean (rig, rig->now + MIN (t - 100 * MS, 500 * MS));
  }
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 4, 2);
  run_clean (rig, rig->now + 100 * MS);
  feed (rig, 0, 1);
  return stats (rig);
}

/* learn_higher_fresh_between. Topology (3): the run at 2 began 300 ms
 * before the loss, as the one at 4 did; it may be a slower set's
 * experiment failing on our own link, so the rule refuses to blame 4 (H,
 * nothing learned). Topology (2) at scale: the run at 2 has gone on for
 * 3 s without congesting us, so the loss is 4's and is learned (S), as
 * learn_higher_failures alone learns both. learn_higher_sole refuses
 * both. */
GST_START_TEST (test_learn_higher_fresh_between)
{
  Rig rig;
  RlmReceiverStats st;

  for (guint with_rule = 0; with_rule < 2; with_rule++) {
    st = loss_under_run_at_2 (&rig, with_rule, 300 * MS);
    fail_unless_equals_int (st.level, 1);
    fail_unless_equals_int (st.state, with_rule ? RLM_STATE_HYSTERESIS :
        RLM_STATE_STEADY);
    fail_unless_equals_int (st.experiments_learned, with_rule ? 0 : 1);
    fail_unless_equals_int64 (st.join_timer[4], with_rule ? 20 * S : 40 * S);
    fail_unless_equals_int (st.higher_failures_ambiguous, with_rule);
    fail_unless_equals_int (st.higher_failures_fresh_between, with_rule);
    rig_clear (&rig);

    st = loss_under_run_at_2 (&rig, with_rule, 3 * S);
    fail_unless_equals_int (st.level, 1);
    fail_unless_equals_int (st.state, RLM_STATE_STEADY);
    fail_unless_equals_int (st.experiments_learned, 1);
    fail_unless_equals_int64 (st.join_timer[4], 40 * S);
    fail_unless_equals_int64 (st.join_timer[2], 20 * S);
    fail_unless_equals_int (st.higher_failures_ambiguous, 0);
    fail_unless_equals_int (st.higher_failures_fresh_between, 0);
    rig_clear (&rig);
  }
}

GST_END_TEST;

/* learn_higher_onset: a loss 1.5 s after the first announcement of the
 * experiment at 3, still in progress (3 s window), came later than a
 * failure on our path takes to congest it with the bound at 1 s: H, as
 * the paper, nothing learned. Without the bound it is learned; within
 * the bound it is learned too. */
GST_START_TEST (test_learn_higher_onset)
{
  Rig rig;
  RlmReceiverStats st;

  for (guint with_bound = 0; with_bound < 2; with_bound++) {
    rig_prepare (&rig, 19, 4);
    rig.cfg.learn_higher_failures = TRUE;
    rig.cfg.learn_higher_onset = with_bound ? 1 * S : 0;
    rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
    run_clean (&rig, 500 * MS);
    feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
    run_clean (&rig, rig.now + 1500 * MS);
    feed (&rig, 0, 1);
    st = stats (&rig);
    fail_unless_equals_int (st.level, 1);
    fail_unless_equals_int (st.state, with_bound ? RLM_STATE_HYSTERESIS :
        RLM_STATE_STEADY);
    fail_unless_equals_int (st.experiments_learned, with_bound ? 0 : 1);
    fail_unless_equals_int64 (st.join_timer[3], with_bound ? 5 * S : 10 * S);
    fail_unless_equals_int (st.higher_failures_ambiguous, with_bound);
    rig_clear (&rig);
  }

  /* within the bound */
  rig_prepare (&rig, 19, 4);
  rig.cfg.learn_higher_failures = TRUE;
  rig.cfg.learn_higher_onset = 1 * S;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 500 * MS);
  st = loss_under_higher_experiment (&rig, PEER_SSRC);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int64 (st.join_timer[3], 10 * S);
  rig_clear (&rig);
}

GST_END_TEST;

/* learn_higher_onset_measured: a peer's experiment at 2 fails on our
 * path 400 ms after its announcement; that is our first onset sample
 * (400 ms, deviation 200 ms: a bound of 800 ms). A loss 1 s after the
 * announcement of an experiment at 3 then came too late to be its
 * failure on our path: H, nothing learned, although the fixed bound
 * (1.5 s) would learn it. A loss sooner after an announcement than our
 * join latency gives no sample. Without a sample the fixed bound
 * applies. */
static RlmReceiverStats
loss_one_second_under_3 (Rig * rig)
{
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 3, 2);
  run_clean (rig, rig->now + 1 * S);
  feed (rig, 0, 1);
  return stats (rig);
}

GST_START_TEST (test_learn_higher_onset_measured)
{
  Rig rig;
  RlmReceiverStats st;

  for (guint measured = 0; measured < 2; measured++) {
    rig_prepare (&rig, 23, 4);
    rig.cfg.learn_higher_failures = TRUE;
    rig.cfg.learn_higher_onset = 1500 * MS;
    rig.cfg.learn_higher_onset_measured = measured;
    rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
    run_clean (&rig, 500 * MS);
    feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 1);
    run_clean (&rig, rig.now + 400 * MS);
    feed (&rig, 0, 1);
    st = stats (&rig);
    fail_unless_equals_int (st.experiments_learned, 1);
    fail_unless_equals_int (st.onset_samples, measured);
    fail_unless_equals_int64 (st.onset_estimate, measured ? 400 * MS : -1);
    fail_unless_equals_int64 (st.onset_dev, measured ? 200 * MS : -1);
    /* H and M, then S again: two clean detection windows */
    run_clean (&rig, rig.now + 6500 * MS);
    fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
    fail_unless_equals_int (stats (&rig).level, 1);

    st = loss_one_second_under_3 (&rig);
    fail_unless_equals_int (st.state, measured ? RLM_STATE_HYSTERESIS :
        RLM_STATE_STEADY);
    fail_unless_equals_int (st.experiments_learned, measured ? 1 : 2);
    fail_unless_equals_int64 (st.join_timer[3], measured ? 5 * S : 10 * S);
    fail_unless_equals_int (st.higher_failures_ambiguous, measured);
    rig_clear (&rig);
  }

  /* our experiment at 2 succeeds; its layer came 10 ms after the join.
   * A loss 5 ms after an announcement at 3 came sooner than that: no
   * sample */
  rig_prepare (&rig, 23, 4);
  rig.cfg.learn_higher_failures = TRUE;
  rig.cfg.learn_higher_onset_measured = TRUE;
  rig.cfg.t_join_min = 20 * S;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  while (stats (&rig).level < 2 && rig.now < 100 * S) {
    gint64 d = rlm_receiver_next_deadline (rig.r);

    if (d > rig.now && d < rig.now + 10 * MS) {
      /* the join, with no packet of the new layer at that instant */
      rig.now = d;
      rlm_receiver_advance (rig.r, rig.now);
    } else {
      run_clean (&rig, rig.now + 10 * MS);
    }
  }
  run_clean (&rig, rig.now + 4 * S);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int64 (st.join_latency, 10 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, rig.now + 5 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int (st.onset_samples, 0);
  fail_unless_equals_int64 (st.onset_estimate, -1);
  rig_clear (&rig);

  /* no sample yet: learn_higher_onset's 1.5 s decides, and learns */
  rig_prepare (&rig, 23, 4);
  rig.cfg.learn_higher_failures = TRUE;
  rig.cfg.learn_higher_onset = 1500 * MS;
  rig.cfg.learn_higher_onset_measured = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 500 * MS);
  st = loss_one_second_under_3 (&rig);
  fail_unless_equals_int (st.onset_samples, 0);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  fail_unless_equals_int (st.experiments_learned, 1);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_join_reported_fails)
{
  Rig rig;
  RlmEvent ev = { 0 };
  RlmReceiverStats st;
  gint64 t;

  rig_init_reported (&rig, 44);
  feed_report (&rig, PEER_SSRC, 4, TRUE, 2);
  run_until_level (&rig, 4, 23 * S);
  drain_events (&rig, RLM_EVENT_LEVEL, NULL);
  rig.now += 100 * MS;
  rlm_receiver_advance (rig.r, rig.now);
  feed (&rig, 3, 0);
  feed (&rig, 3, 3);
  expect_climb (&rig, 1, 1, 1, 0);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_DROP);
  fail_unless_equals_int (st.experiments_failed, 0);
  /* the top level's timer backs off, as a failed experiment's would */
  fail_unless_equals_int64 (st.join_timer[4], 2 * rig.cfg.t_join_min);
  for (guint layer = 3; layer >= 1; layer--) {
    fail_unless (rlm_receiver_pop_event (rig.r, &ev));
    fail_unless_equals_int (ev.type, RLM_EVENT_LEAVE);
    fail_unless_equals_int (ev.layer, layer);
  }
  fail_unless (rlm_receiver_pop_event (rig.r, &ev));
  fail_unless_equals_int (ev.type, RLM_EVENT_LEVEL);
  fail_unless_equals_int (ev.level, 1);
  fail_unless_equals_int (ev.reason, RLM_REASON_EXPERIMENT_FAILED);

  /* the reports still say 4: the next step is an announced experiment */
  t = rig.now;
  feed_report (&rig, PEER_SSRC, 4, TRUE, 2);
  expect_experiment (&rig, 2, t + 30 * S);
  expect_climb (&rig, 2, 1, 1, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* A loss in the window while another receiver's experiment above us is
 * in progress is blamed on that experiment: the join stands. */
GST_START_TEST (test_join_reported_blames_experiment_above)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init_reported (&rig, 45);
  feed_report (&rig, PEER_SSRC, 3, TRUE, 2);
  run_until_level (&rig, 3, 23 * S);
  rig.now += 100 * MS;
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 4, 2);
  feed (&rig, 2, 0);
  feed (&rig, 2, 2);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 3);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.reported_joins_failed, 0);
  fail_unless_equals_int (st.experiments_learned, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* Steps time to @until in 10 ms ticks like run_clean, losing one packet
 * of every layer in four ticks (20 %), until the receiver enters D. */
static void
run_lossy (Rig * rig, gint64 until)
{
  while (rig->now < until && stats (rig).state != RLM_STATE_DROP) {
    rig->now += 10 * MS;
    rlm_receiver_advance (rig->r, rig->now);
    for (guint l = 0; l < stats (rig).level; l++)
      feed (rig, l, (rig->now / (10 * MS)) % 4 == 0);
  }
}

/* Congestion at the base level drops nothing, so it keeps the join up to
 * the reported level: a newcomer behind a port that another receiver's
 * failed experiment congested still joins the settled level 3 at its first
 * timer (net/rlm-join-reported saw one climb by experiments instead). */
GST_START_TEST (test_join_reported_after_base_congestion)
{
  Rig rig;

  rig_init_reported (&rig, 46);
  run_lossy (&rig, 20 * S);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_DROP);
  fail_unless_equals_int (stats (&rig).level, 1);
  feed_report (&rig, PEER_SSRC, 3, TRUE, 2);
  run_until_level (&rig, 3, rig.now + 40 * S);
  expect_climb (&rig, 3, 1, 0, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* A settled REPORT of level 2 heard at the start, then one of level 4
 * every second from another member once we joined 2: the level we reach
 * with @max_age (ns, 0 every last REPORT) and how. */
static void
climb_past_stale_report (Rig * rig, gint64 max_age)
{
  rig_prepare (rig, 47, 4);
  rig->cfg.join_reported = TRUE;
  rig->cfg.reported_max_age = max_age;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  feed_report (rig, PEER_SSRC, 2, TRUE, 2);
  run_until_level (rig, 2, 23 * S);
  expect_climb (rig, 2, 1, 0, 0);
  while (stats (rig).level == 2 && rig->now < 60 * S) {
    feed_report (rig, PEER_SSRC + 1, 4, TRUE, 3);
    run_clean (rig, rig->now + S);
  }
}

/* reported_max_age: the member that reported 2 has been silent longer
 * than the age, so the lowest settled level is the fresh 4 and we join
 * it; counting every last REPORT, the stale 2 keeps it at 2 and we climb
 * to 3 by an experiment. */
GST_START_TEST (test_reported_max_age)
{
  Rig rig;

  climb_past_stale_report (&rig, 3 * S);
  expect_climb (&rig, 4, 2, 0, 0);
  rig_clear (&rig);

  climb_past_stale_report (&rig, 0);
  expect_climb (&rig, 3, 1, 0, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* A receiver at level 2 of 3, in M after a loss in S, when another
 * receiver's experiment at 3 starts and 20 % of the packets are lost for
 * 1.5 s: its level after that. */
static guint
level_after_foreign_failure (gboolean measure_own_loss, Rig * rig)
{
  rig_prepare (rig, 16, 3);
  rig->cfg.start_level = 2;
  rig->cfg.measure_own_loss = measure_own_loss;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  run_clean (rig, 100 * MS);
  feed (rig, 0, 1);
  fail_unless_equals_int (stats (rig).state, RLM_STATE_HYSTERESIS);
  run_clean (rig, 3200 * MS);
  fail_unless_equals_int (stats (rig).state, RLM_STATE_MEASUREMENT);
  feed_ctrl (rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_lossy (rig, rig->now + 1500 * MS);
  return stats (rig).level;
}

/* measure_own_loss: in M, with no experiment of ours, the loss of another
 * receiver's experiment above our level drops nothing (the paper's M
 * drops the layer on it); congestion that outlasts the experiment still
 * drops the layer. */
GST_START_TEST (test_measure_own_loss)
{
  Rig rig;
  RlmReceiverStats st;

  fail_unless_equals_int (level_after_foreign_failure (FALSE, &rig), 1);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_DROP);
  rig_clear (&rig);

  fail_unless_equals_int (level_after_foreign_failure (TRUE, &rig), 2);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_MEASUREMENT);
  fail_unless_equals_int (st.drops, 0);
  /* M measures a whole detection time from the last loss, then S */
  run_clean (&rig, rig.now + 3100 * MS);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
  fail_unless_equals_int (stats (&rig).level, 2);

  /* no experiment in progress: S -> H -> M -> D on the same loss */
  run_lossy (&rig, rig.now + 10 * S);
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_DROP);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int (st.drops, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* A receiver at level 2 of 3, in S from 0 (its own join timer far off),
 * that may learn the detection time. */
static void
rig_init_learner (Rig * rig, guint64 seed, gboolean learn)
{
  rig_prepare (rig, seed, 3);
  rig->cfg.start_level = 2;
  rig->cfg.t_join_min = 20 * S;
  rig->cfg.learn_detection_time = learn;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
}

/* Two receivers announce experiments at 3 at 100 and 300 ms, and our
 * first loss comes at 400 ms: the stats after it. */
static RlmReceiverStats
stats_after_overlapped_failure (gboolean learn)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init_learner (&rig, 17, learn);
  run_clean (&rig, 100 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, 300 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 3, 2);
  run_clean (&rig, 400 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  rig_clear (&rig);
  return st;
}

/* learn_detection_time: another receiver's failed experiment is a
 * detection-time sample, from the first of the overlapping announcements
 * to our loss (0.3 s, not the 0.1 s from the last). The paper keeps the
 * estimate. */
GST_START_TEST (test_learn_detection_time)
{
  RlmReceiverStats st;

  st = stats_after_overlapped_failure (FALSE);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int (st.detection_learned, 0);
  fail_unless_equals_int64 (st.detection_time, 2 * S);
  fail_unless_equals_int64 (st.detection_dev, 500 * MS);

  st = stats_after_overlapped_failure (TRUE);
  fail_unless_equals_int (st.state, RLM_STATE_HYSTERESIS);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int (st.detection_learned, 1);
  /* 0.75 x 2 s + 0.25 x 0.3 s; 0.75 x 0.5 s + 0.25 x |0.3 s - 2 s| */
  fail_unless_equals_int64 (st.detection_time, 1575 * MS);
  fail_unless_equals_int64 (st.detection_dev, 800 * MS);
}

GST_END_TEST;

/* A receiver sent to H by a loss at 0.1 s is in M from 3.1 s to 6.1 s;
 * another receiver announces an experiment at 3 at 5 s, our next loss in
 * S comes at 6.5 s, and with @loss_in_m another at 5.5 s in M: the stats
 * after the loss in S. */
static RlmReceiverStats
stats_after_announcement_in_m (gboolean loss_in_m)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init_learner (&rig, 18, TRUE);
  run_clean (&rig, 100 * MS);
  feed (&rig, 0, 1);
  run_clean (&rig, 5 * S);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_MEASUREMENT);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, 5500 * MS);
  if (loss_in_m)
    feed (&rig, 0, 1);
  run_clean (&rig, 6500 * MS);
  fail_unless_equals_int (stats (&rig).state, RLM_STATE_STEADY);
  feed (&rig, 0, 1);
  st = stats (&rig);
  rig_clear (&rig);
  return st;
}

/* learn_detection_time's bounds: the sample runs to our first loss after
 * the announcement, wherever we heard it (none when a loss of ours came
 * between: that one may have been the onset), and is at most our
 * detection window. */
GST_START_TEST (test_learn_detection_time_bounds)
{
  Rig rig;
  RlmReceiverStats st;

  st = stats_after_announcement_in_m (TRUE);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int (st.experiments_learned, 1);
  fail_unless_equals_int (st.detection_learned, 0);
  fail_unless_equals_int64 (st.detection_time, 2 * S);

  /* 1.5 s: 0.75 x 2 s + 0.25 x 1.5 s; 0.75 x 0.5 s + 0.25 x 0.5 s */
  st = stats_after_announcement_in_m (FALSE);
  fail_unless_equals_int (st.detection_learned, 1);
  fail_unless_equals_int64 (st.detection_time, 1875 * MS);
  fail_unless_equals_int64 (st.detection_dev, 500 * MS);

  /* announcements at 0.1 and 2.9 s keep level 3 in progress; the loss at
   * 3.5 s is 3.4 s after the first, counted as the 3 s window */
  rig_init_learner (&rig, 19, TRUE);
  run_clean (&rig, 100 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 3, 1);
  run_clean (&rig, 2900 * MS);
  feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC + 1, 3, 2);
  run_clean (&rig, 3500 * MS);
  feed (&rig, 0, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.detection_learned, 1);
  fail_unless_equals_int64 (st.detection_time, 2250 * MS);
  fail_unless_equals_int64 (st.detection_dev, 625 * MS);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* learn_reported_failures */

/* A REPORT of @level from @ssrc that names a failure at @fail_level with
 * @hold coded. */
static RlmPacketKind
feed_failure_report (Rig * rig, guint32 ssrc, guint8 level, guint8 fail_level,
    gint64 hold)
{
  RlmCtrl c = { RLM_CTRL_REPORT, ssrc, level, 0, fail_level,
    rlm_fail_hold_encode (hold)
  };
  RlmAddr a = addr_of (1);
  guint8 buf[RLM_CTRL_SIZE];
  gsize len = rlm_ctrl_write (&c, buf, sizeof (buf));

  return rlm_receiver_on_datagram (rig->r, buf, len, &a, rig->now);
}

/* The hold's code: 100 ms x 2^(code/8), rounded down, clamped. */
GST_START_TEST (test_fail_hold_code)
{
  fail_unless_equals_int (rlm_fail_hold_encode (0), 0);
  fail_unless_equals_int (rlm_fail_hold_encode (-5 * S), 0);
  fail_unless_equals_int64 (rlm_fail_hold_decode (0), 100 * MS);
  fail_unless_equals_int64 (rlm_fail_hold_decode (8), 200 * MS);
  fail_unless_equals_int (rlm_fail_hold_encode (G_MAXINT64), 255);
  for (gint64 hold = 150 * MS; hold < 1000000 * S; hold = hold * 3 / 2) {
    gint64 back = rlm_fail_hold_decode (rlm_fail_hold_encode (hold));

    fail_unless (back <= hold && back * 1.0906 > hold);
  }
}

GST_END_TEST;

/* A receiver whose experiment at 2 failed names 2 in its REPORTs until
 * its earliest retry there (half its backed-off timer, 5 s), then no
 * longer. */
GST_START_TEST (test_learn_reported_failures_repeated)
{
  Rig rig;
  RlmCtrl c;
  gint64 t_join, retry, hold;

  rig_prepare (&rig, 12, 4);
  rig.cfg.report_interval = 500 * MS;
  rig.cfg.learn_reported_failures = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_until_level (&rig, 2, 10 * S);
  t_join = rig.now;
  run_clean (&rig, t_join + 700 * MS);
  feed (&rig, 1, 3);
  fail_unless_equals_int (stats (&rig).experiments_failed, 1);
  fail_unless_equals_int64 (stats (&rig).join_timer[2], 10 * S);
  retry = rig.now + 5 * S;

  drain_transmits (&rig, NULL);
  c = next_report (&rig);
  fail_unless_equals_int (c.level, 1);
  fail_unless_equals_int (c.fail_level, 2);
  /* queued within the last 10 ms step, rounded down by at most 9 % */
  hold = rlm_fail_hold_decode (c.fail_hold);
  fail_unless (hold <= retry - rig.now + 10 * MS);
  fail_unless (hold * 1.0906 >= retry - rig.now);
  fail_unless (stats (&rig).failures_repeated >= 1);

  run_clean (&rig, retry);
  drain_transmits (&rig, NULL);
  c = next_report (&rig);
  fail_unless_equals_int (c.fail_level, 0);
  fail_unless_equals_int (c.fail_hold, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* A receiver at 1 hears of a failure at 2 it did not see, with 30 s to
 * the reporter's earliest retry: it makes no experiment at 2 before
 * then (without the option its first draw, at most 22.5 s, stands). */
static RlmReceiverStats
newcomer_hears_failure (Rig * rig, gboolean learn)
{
  rig_prepare (rig, 5, 4);
  rig->cfg.learn_reported_failures = learn;
  rig->r = rlm_receiver_new (&rig->cfg, &rig->rng, 0);
  run_clean (rig, 100 * MS);
  fail_unless_equals_int (feed_failure_report (rig, PEER_SSRC, 3, 2, 30 * S),
      RLM_PACKET_CONTROL);
  return stats (rig);
}

GST_START_TEST (test_learn_reported_failures_newcomer)
{
  Rig rig;
  RlmReceiverStats st;
  gint64 until;

  st = newcomer_hears_failure (&rig, FALSE);
  fail_unless_equals_int (st.failures_heard, 1);
  fail_unless_equals_int (st.failures_adopted, 0);
  fail_unless (st.join_deadline <= 100 * MS + 22500 * MS);
  rig_clear (&rig);

  st = newcomer_hears_failure (&rig, TRUE);
  until = 100 * MS + rlm_fail_hold_decode (rlm_fail_hold_encode (30 * S));
  fail_unless_equals_int (st.failures_heard, 1);
  fail_unless_equals_int (st.failures_adopted, 1);
  fail_unless_equals_int64 (st.join_deadline, until);
  /* a shorter hold heard later does not shorten it */
  feed_failure_report (&rig, PEER_SSRC, 3, 2, 5 * S);
  fail_unless_equals_int (stats (&rig).failures_adopted, 1);
  fail_unless_equals_int64 (stats (&rig).join_deadline, until);
  run_clean (&rig, until - 10 * MS);
  fail_unless_equals_int (stats (&rig).level, 1);
  fail_unless_equals_int (stats (&rig).experiments_run, 0);
  expect_experiment (&rig, 2, until + 10 * MS);
  /* a failure at a level we hold teaches nothing */
  feed_failure_report (&rig, PEER_SSRC, 3, 2, 60 * S);
  fail_unless_equals_int (stats (&rig).failures_heard, 3);
  fail_unless_equals_int (stats (&rig).failures_adopted, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* A REPORT naming a level no experiment can reach is malformed; a JOIN's
 * bytes there are reserved and ignored. */
GST_START_TEST (test_learn_reported_failures_malformed)
{
  Rig rig;
  RlmCtrl join = { RLM_CTRL_JOIN, PEER_SSRC, 2, 0, 9, 9 };
  RlmAddr a = addr_of (1);
  guint8 buf[RLM_CTRL_SIZE];
  gsize len;

  rig_prepare (&rig, 5, 4);
  rig.cfg.learn_reported_failures = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  run_clean (&rig, 100 * MS);
  fail_unless_equals_int (feed_failure_report (&rig, PEER_SSRC, 3, 1, 30 * S),
      RLM_PACKET_MALFORMED);
  fail_unless_equals_int (feed_failure_report (&rig, PEER_SSRC, 3, 5, 30 * S),
      RLM_PACKET_MALFORMED);
  fail_unless_equals_int (stats (&rig).malformed, 2);
  fail_unless_equals_int (stats (&rig).session_size, 1);
  fail_unless_equals_int (stats (&rig).failures_heard, 0);
  len = rlm_ctrl_write (&join, buf, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, &a,
          rig.now), RLM_PACKET_CONTROL);
  fail_unless_equals_int (stats (&rig).failures_heard, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* Drop on congestion: loss at a steady level goes S -> H -> M, and in M
 * the loss estimator over the threshold drops the layer (reason
 * congestion) and backs off its timer. */
GST_START_TEST (test_drop_on_congestion)
{
  Rig rig;
  RlmReceiverStats st;
  RlmEvent ev = { 0 };
  gint64 t;

  rig_init (&rig, 15, 2);
  /* two layers: at the top, no join timer interferes */
  run_until_level (&rig, 2, 10 * S);
  run_clean (&rig, rig.now + 3500 * MS);
  fail_unless_equals_int (stats (&rig).experiments_succeeded, 1);
  drain_events (&rig, RLM_EVENT_LEAVE, NULL);

  /* one packet in four lost from now on */
  t = rig.now;
  while (stats (&rig).state != RLM_STATE_DROP && rig.now < t + 20 * S) {
    RlmState prev = stats (&rig).state;

    rig.now += 10 * MS;
    rlm_receiver_advance (rig.r, rig.now);
    for (guint l = 0; l < stats (&rig).level; l++)
      feed (&rig, l, (rig.now / (10 * MS)) % 4 == 0);
    /* S -> H -> M -> D, in that order (M and D may come in one tick) */
    fail_unless (stats (&rig).state >= prev);
  }
  st = stats (&rig);
  fail_unless_equals_int (st.state, RLM_STATE_DROP);
  fail_unless_equals_int (st.level, 1);
  fail_unless_equals_int (st.drops, 1);
  fail_unless_equals_int (st.experiments_failed, 0);
  fail_unless_equals_int64 (st.join_timer[2], 10 * S);
  /* after H (3 s), and in M the estimate of 20 % loss ramps up from 0
   * with the 1 s time constant: 0.2 (1 - e^-d) > 0.1 after d = 0.69 s */
  fail_unless (rig.now >= t + 3600 * MS, "dropped at %" G_GINT64_FORMAT,
      rig.now - t);
  fail_unless (rig.now < t + 4 * S, "dropped at %" G_GINT64_FORMAT,
      rig.now - t);
  /* D forgets the old level's loss */
  fail_unless (st.loss_estimate == 0);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEAVE, &ev), 1);
  fail_unless_equals_int (ev.layer, 1);
  fail_unless_equals_int (ev.reason, RLM_REASON_CONGESTION);
  rig_clear (&rig);
}

GST_END_TEST;

/* An unsubscribed layer's packets are counted apart and never make loss;
 * a layer's first packet after a join is its baseline. */
GST_START_TEST (test_unsubscribed_layers)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init (&rig, 16, 4);
  run_clean (&rig, 1 * S);
  fail_unless_equals_int (feed (&rig, 2, 0), RLM_PACKET_UNSUBSCRIBED);
  fail_unless_equals_int (feed (&rig, 2, 100), RLM_PACKET_UNSUBSCRIBED);
  rig.seq[1] = 40000;
  run_until_level (&rig, 2, 10 * S);
  run_clean (&rig, rig.now + 1 * S);
  st = stats (&rig);
  fail_unless_equals_int (st.unsubscribed, 2);
  fail_unless_equals_int (st.layers[2].received, 0);
  fail_unless_equals_int (st.layers[1].lost, 0);
  fail_unless_equals_int (st.layers[0].lost, 0);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  rig_clear (&rig);
}

GST_END_TEST;

/* Media of another SSRC is foreign while the source sends; once the
 * source has been silent for source_timeout, the new SSRC is the source
 * and its layer sequences start afresh, without loss. */
GST_START_TEST (test_source_change)
{
  Rig rig;
  guint8 buf[64];
  gsize len;
  RlmReceiverStats st;

  rig_init (&rig, 20, 2);
  run_clean (&rig, 1 * S);
  len = media_packet (0, 999, buf, sizeof (buf));
  rtp_set_ssrc (buf, 0x99);
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, NULL,
          rig.now), RLM_PACKET_FOREIGN);
  rig.now += 2 * S;
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, NULL,
          rig.now), RLM_PACKET_MEDIA);
  len = media_packet (0, 1000, buf, sizeof (buf));
  rtp_set_ssrc (buf, 0x99);
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, NULL,
          rig.now), RLM_PACKET_MEDIA);
  /* the old source is foreign now */
  fail_unless_equals_int (feed (&rig, 0, 0), RLM_PACKET_FOREIGN);
  st = stats (&rig);
  fail_unless_equals_int (st.foreign, 2);
  fail_unless_equals_int (st.source_changes, 1);
  fail_unless_equals_int (st.layers[0].lost, 0);
  fail_unless_equals_int (st.state, RLM_STATE_STEADY);
  rig_clear (&rig);
}

GST_END_TEST;

/* Malformed, forged and own announcements and bad media are counted and
 * change nothing. */
GST_START_TEST (test_bad_input_changes_nothing)
{
  Rig rig;
  RlmReceiverStats before, after;
  RlmCtrl c = { RLM_CTRL_JOIN, PEER_SSRC, 2 };
  guint8 buf[64];
  gsize len;
  RlmAddr a = addr_of (1);

  rig_init (&rig, 17, 4);
  run_clean (&rig, 1 * S);
  /* a peer known from 10.0.0.1 */
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_REPORT, PEER_SSRC, 1, 1),
      RLM_PACKET_CONTROL);
  drain_events (&rig, RLM_EVENT_LEVEL, NULL);
  before = stats (&rig);

  len = rlm_ctrl_write (&c, buf, sizeof (buf));
  /* truncated, every length */
  for (gsize n = 0; n < len; n++)
    fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, n, &a,
            rig.now), RLM_PACKET_MALFORMED);
  /* another name */
  buf[8] = 'X';
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, &a,
          rig.now), RLM_PACKET_MALFORMED);
  buf[8] = 'R';
  /* an unknown subtype */
  buf[0] = 0x80 | 7;
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, &a,
          rig.now), RLM_PACKET_MALFORMED);
  buf[0] = 0x80;
  /* levels out of range */
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 1, 1),
      RLM_PACKET_MALFORMED);
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 5, 1),
      RLM_PACKET_MALFORMED);
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_REPORT, PEER_SSRC, 0, 1),
      RLM_PACKET_MALFORMED);
  /* the peer's id from another address: forged */
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_JOIN, PEER_SSRC, 2, 9),
      RLM_PACKET_FORGED);
  /* our own id: own */
  fail_unless_equals_int (feed_ctrl (&rig, RLM_CTRL_JOIN, before.ssrc, 2, 1),
      RLM_PACKET_OWN);
  /* media: not RTP, no element, a layer the session does not have */
  memset (buf, 0xff, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, 20, NULL,
          rig.now), RLM_PACKET_MALFORMED);
  len = media_packet (0, 1, buf, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, 12, NULL,
          rig.now), RLM_PACKET_MALFORMED);
  len = media_packet (9, 1, buf, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, NULL,
          rig.now), RLM_PACKET_MALFORMED);
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, NULL, 0, NULL,
          rig.now), RLM_PACKET_MALFORMED);

  after = stats (&rig);
  /* 16 truncations, name, subtype, 3 levels, 4 media */
  fail_unless_equals_int (after.malformed - before.malformed, 25);
  fail_unless_equals_int (after.forged, 1);
  fail_unless_equals_int (after.own, 1);
  fail_unless_equals_int (after.control_received, before.control_received);
  fail_unless_equals_int (after.level, before.level);
  fail_unless_equals_int (after.state, before.state);
  fail_unless_equals_int64 (after.join_deadline, before.join_deadline);
  fail_unless (memcmp (after.join_timer, before.join_timer,
          sizeof (after.join_timer)) == 0);
  fail_unless_equals_int (after.session_size, 2);
  fail_unless_equals_int (drain_events (&rig, RLM_EVENT_LEVEL, NULL), 0);
  /* the forged experiment was not recorded: a loss teaches nothing */
  feed (&rig, 0, 1);
  fail_unless_equals_int (stats (&rig).experiments_learned, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The group key (core/auth.h) */

static void
test_key (AuthKey * k, guint8 first)
{
  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k->bytes[i] = first + i;
}

/* An announcement of @ssrc sealed by @peer (NULL: not sealed), written
 * to @out (RLM_CTRL_MAX_SIZE bytes) and fed to the receiver. */
static RlmPacketKind
feed_sealed (Rig * rig, AuthSession * peer, guint8 type, guint32 ssrc,
    guint8 level, guint8 * out, gsize * out_len)
{
  RlmCtrl c = { type, ssrc, level };
  RlmAddr a = addr_of (1);
  gsize len = rlm_ctrl_write (&c, out, RLM_CTRL_MAX_SIZE);

  *out_len = peer ? auth_seal (peer, out, len, RLM_CTRL_MAX_SIZE) : len;
  return rlm_receiver_on_datagram (rig->r, out, *out_len, &a, rig->now);
}

static RlmPacketKind
feed_again (Rig * rig, const guint8 * buf, gsize len)
{
  RlmAddr a = addr_of (1);

  return rlm_receiver_on_datagram (rig->r, buf, len, &a, rig->now);
}

/* With a key the announcements carry the trailer after the very bytes a
 * receiver without a key sends; they open under the key as the
 * receiver's id. Unsealed, altered, foreign-keyed and replayed control
 * packets are counted by verdict and change nothing; sealed ones are
 * taken. Too small a buffer keeps the packet queued. */
GST_START_TEST (test_keyed_control)
{
  Rig plain, rig;
  AuthKey k, other;
  AuthSession *peer, *mallory, *check;
  RlmReceiverStats before, after;
  guint8 a[RLM_CTRL_MAX_SIZE], b[RLM_CTRL_MAX_SIZE], saved[RLM_CTRL_MAX_SIZE];
  guint8 scratch[RLM_CTRL_MAX_SIZE];
  gsize na, nb, plen, nsaved, nscratch;
  guint32 sender;

  test_key (&k, 0);
  test_key (&other, 1);
  rig_init (&plain, 21, 4);
  rig_init (&rig, 21, 4);
  rlm_receiver_set_key (rig.r, &k);
  plain.now = rig.now = 6 * S;
  rlm_receiver_advance (plain.r, plain.now);
  rlm_receiver_advance (rig.r, rig.now);
  fail_unless_equals_int (rlm_receiver_pop_transmit (rig.r, a,
          RLM_CTRL_MAX_SIZE - 1), 0);
  na = rlm_receiver_pop_transmit (rig.r, a, sizeof (a));
  nb = rlm_receiver_pop_transmit (plain.r, b, sizeof (b));
  fail_unless_equals_int (na, RLM_CTRL_MAX_SIZE);
  fail_unless_equals_int (nb, RLM_CTRL_SIZE);
  fail_unless (memcmp (a, b, RLM_CTRL_SIZE) == 0);
  check = auth_session_new (&k, 1, 4);
  fail_unless_equals_int (auth_open (check, a, na, 0, &plen, &sender),
      AUTH_OK);
  fail_unless_equals_int (plen, RLM_CTRL_SIZE);
  fail_unless_equals_int (sender, stats (&rig).ssrc);
  fail_unless (stats (&rig).authenticated);
  fail_if (stats (&plain).authenticated);
  rig_clear (&plain);

  peer = auth_session_new (&k, PEER_SSRC, 4);
  mallory = auth_session_new (&other, PEER_SSRC, 4);
  /* a sound report makes the peer a member */
  fail_unless_equals_int (feed_sealed (&rig, peer, RLM_CTRL_REPORT,
          PEER_SSRC, 1, saved, &nsaved), RLM_PACKET_CONTROL);
  drain_events (&rig, RLM_EVENT_LEVEL, NULL);
  before = stats (&rig);
  fail_unless_equals_int (before.session_size, 2);
  fail_unless_equals_uint64 (before.auth.accepted, 1);
  /* unsealed, another key, altered, replayed: a JOIN each time */
  fail_unless_equals_int (feed_sealed (&rig, NULL, RLM_CTRL_JOIN, 0x51,
          2, scratch, &nscratch), RLM_PACKET_UNAUTHENTICATED);
  fail_unless_equals_int (feed_sealed (&rig, mallory, RLM_CTRL_JOIN, 0x52,
          2, scratch, &nscratch), RLM_PACKET_UNAUTHENTICATED);
  nb = rlm_ctrl_write (&(RlmCtrl) {
      RLM_CTRL_JOIN, PEER_SSRC, 2}, b, sizeof (b));
  nb = auth_seal (peer, b, nb, sizeof (b));
  b[12] = 3;                    /* the level */
  fail_unless_equals_int (feed_again (&rig, b, nb),
      RLM_PACKET_UNAUTHENTICATED);
  fail_unless_equals_int (feed_again (&rig, saved, nsaved),
      RLM_PACKET_UNAUTHENTICATED);
  after = stats (&rig);
  fail_unless_equals_uint64 (after.auth.truncated, 1);
  fail_unless_equals_uint64 (after.auth.bad_tag, 2);
  fail_unless_equals_uint64 (after.auth.replayed, 1);
  fail_unless_equals_uint64 (after.auth.accepted, 1);
  fail_unless_equals_uint64 (after.control_received,
      before.control_received);
  fail_unless_equals_uint64 (after.malformed, before.malformed);
  fail_unless_equals_int (after.session_size, 2);
  /* no experiment was recorded: a loss teaches nothing */
  feed (&rig, 0, 1);
  fail_unless_equals_int (stats (&rig).experiments_learned, 0);
  /* a sound JOIN is taken */
  fail_unless_equals_int (feed_sealed (&rig, peer, RLM_CTRL_JOIN, PEER_SSRC,
          2, scratch, &nscratch), RLM_PACKET_CONTROL);
  fail_unless_equals_uint64 (stats (&rig).control_received,
      before.control_received + 1);
  auth_session_free (peer);
  auth_session_free (mallory);
  auth_session_free (check);
  rig_clear (&rig);
}

GST_END_TEST;

/* learn_reported_failures with a key: a REPORT naming a failure under
 * another key is dropped and holds nothing; sealed under the key, the
 * hold is taken. */
GST_START_TEST (test_keyed_reported_failure)
{
  Rig rig;
  AuthKey k, other;
  AuthSession *peer, *mallory;
  RlmCtrl c = { RLM_CTRL_REPORT, PEER_SSRC, 3, 0, 2,
    rlm_fail_hold_encode (30 * S)
  };
  RlmAddr a = addr_of (1);
  guint8 buf[RLM_CTRL_MAX_SIZE];
  gsize len;
  gint64 deadline;

  test_key (&k, 0);
  test_key (&other, 1);
  rig_prepare (&rig, 5, 4);
  rig.cfg.learn_reported_failures = TRUE;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  rlm_receiver_set_key (rig.r, &k);
  run_clean (&rig, 100 * MS);
  deadline = stats (&rig).join_deadline;
  peer = auth_session_new (&k, PEER_SSRC, 4);
  mallory = auth_session_new (&other, PEER_SSRC, 4);

  len = rlm_ctrl_write (&c, buf, sizeof (buf));
  len = auth_seal (mallory, buf, len, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, &a,
          rig.now), RLM_PACKET_UNAUTHENTICATED);
  fail_unless_equals_int (stats (&rig).failures_heard, 0);
  fail_unless_equals_int64 (stats (&rig).join_deadline, deadline);

  len = rlm_ctrl_write (&c, buf, sizeof (buf));
  len = auth_seal (peer, buf, len, sizeof (buf));
  fail_unless_equals_int (rlm_receiver_on_datagram (rig.r, buf, len, &a,
          rig.now), RLM_PACKET_CONTROL);
  fail_unless_equals_int (stats (&rig).failures_adopted, 1);
  fail_unless (stats (&rig).join_deadline > deadline);
  auth_session_free (peer);
  auth_session_free (mallory);
  rig_clear (&rig);
}

GST_END_TEST;

/* test_suppression with a key: a forged JOIN at level 2 and a replay of
 * the peer's earlier one do not suppress our experiment at 3; a fresh,
 * sealed JOIN would (checked on a twin receiver of the same seed). */
GST_START_TEST (test_keyed_forgery_does_not_suppress)
{
  Rig rig, twin;
  AuthKey k, other;
  AuthSession *peer, *peer_twin, *mallory;
  RlmReceiverStats st;
  guint8 old[RLM_CTRL_MAX_SIZE], scratch[RLM_CTRL_MAX_SIZE];
  gsize nold, nscratch;
  gint64 deadline;
  guint64 suppressed;
  Rig *rigs[2] = { &rig, &twin };

  test_key (&k, 0);
  test_key (&other, 7);
  peer = auth_session_new (&k, PEER_SSRC, 4);
  peer_twin = auth_session_new (&k, PEER_SSRC, 4);
  mallory = auth_session_new (&other, PEER_SSRC, 4);
  for (guint i = 0; i < 2; i++) {
    rig_init (rigs[i], 14, 4);
    rlm_receiver_set_key (rigs[i]->r, &k);
    run_until_level (rigs[i], 2, 10 * S);
    run_clean (rigs[i], rigs[i]->now + 3500 * MS);
    drain_transmits (rigs[i], NULL);
    drain_events (rigs[i], RLM_EVENT_JOIN, NULL);
  }
  /* the peer's genuine JOIN at 2, long over; captured by the attacker */
  fail_unless_equals_int (feed_sealed (&rig, peer, RLM_CTRL_JOIN, PEER_SSRC,
          2, old, &nold), RLM_PACKET_CONTROL);
  fail_unless_equals_int (feed_sealed (&twin, peer_twin, RLM_CTRL_JOIN,
          PEER_SSRC, 2, scratch, &nscratch), RLM_PACKET_CONTROL);
  run_clean (&rig, rig.now + 3500 * MS);
  run_clean (&twin, twin.now + 3500 * MS);
  deadline = stats (&rig).join_deadline;
  fail_unless_equals_int64 (stats (&twin).join_deadline, deadline);
  fail_unless (deadline > rig.now + 1 * S);

  run_clean (&rig, deadline - 1 * S);
  suppressed = stats (&rig).experiments_suppressed;
  fail_unless_equals_int (stats (&rig).level, 2);
  fail_unless_equals_int (feed_sealed (&rig, mallory, RLM_CTRL_JOIN,
          PEER_SSRC, 2, scratch, &nscratch), RLM_PACKET_UNAUTHENTICATED);
  fail_unless_equals_int (feed_again (&rig, old, nold),
      RLM_PACKET_UNAUTHENTICATED);
  run_clean (&rig, deadline);
  st = stats (&rig);
  fail_unless_equals_int (st.level, 3);
  fail_unless_equals_int (st.experiments_suppressed, suppressed);
  fail_unless_equals_uint64 (st.auth.bad_tag, 1);
  fail_unless_equals_uint64 (st.auth.replayed, 1);

  run_clean (&twin, deadline - 1 * S);
  fail_unless_equals_int (feed_sealed (&twin, peer_twin, RLM_CTRL_JOIN,
          PEER_SSRC, 2, scratch, &nscratch), RLM_PACKET_CONTROL);
  run_clean (&twin, deadline);
  st = stats (&twin);
  fail_unless_equals_int (st.level, 2);
  fail_unless_equals_int (st.experiments_suppressed, suppressed + 1);
  auth_session_free (peer);
  auth_session_free (peer_twin);
  auth_session_free (mallory);
  rig_clear (&rig);
  rig_clear (&twin);
}

GST_END_TEST;

/* T_J^max grows with the session size the reports tell (section 3.5);
 * silent members expire. */
GST_START_TEST (test_join_max_scales_with_session)
{
  Rig rig;
  RlmReceiverStats st;

  rig_init (&rig, 18, 4);
  fail_unless_equals_int64 (stats (&rig).join_max, 600 * S);
  for (guint i = 0; i < 49; i++)
    feed_ctrl (&rig, RLM_CTRL_REPORT, 0x1000 + i, 1, (guint8) i);
  st = stats (&rig);
  fail_unless_equals_int (st.session_size, 50);
  fail_unless_equals_int64 (st.join_max, 50 * 600 * S);
  /* our reports: RTCP-like, 50 x 44 bytes at 4 kbit/s = 4.4 s < 5 s */
  run_clean (&rig, 200 * S);
  st = stats (&rig);
  fail_unless_equals_int (st.session_size, 1);
  fail_unless (st.reports_sent >= 200 / 8 && st.reports_sent <= 200 / 2.5);
  rig_clear (&rig);
}

GST_END_TEST;

/* Issue 21: the member table keeps at most max_members ids. REPORTs from
 * 100 ids into a table of 8 keep 8 (the session size 9 with us) and count
 * the other 92; once they expire, a new id is kept again. */
GST_START_TEST (test_member_table_bounded)
{
  Rig rig;
  RlmReceiverStats st;

  rig_prepare (&rig, 19, 4);
  rig.cfg.max_members = 8;
  rig.r = rlm_receiver_new (&rig.cfg, &rig.rng, 0);
  for (guint i = 0; i < 100; i++)
    fail_unless_equals_int (feed_report (&rig, 0x1000 + i, 1, FALSE,
            (guint8) i), RLM_PACKET_CONTROL);
  st = stats (&rig);
  fail_unless_equals_int (st.session_size, 9);
  fail_unless_equals_uint64 (st.member_overflow, 92);
  fail_unless_equals_int64 (st.join_max, 9 * 600 * S);
  run_clean (&rig, 200 * S);
  fail_unless_equals_int (stats (&rig).session_size, 1);
  feed_report (&rig, 0x2000, 1, FALSE, 1);
  st = stats (&rig);
  fail_unless_equals_int (st.session_size, 2);
  fail_unless_equals_uint64 (st.member_overflow, 92);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* In the simulator */

/* Figure 4: four layers (cumulative 32, 96, 224, 480 kbit/s) behind a
 * 350 kbit/s bottleneck. The receiver adds layers up to 4 (A, B), the
 * experiment at 4 fails and it drops back to 3 (C, D); the timer of level
 * 4 doubles with each failure, so the experiments come further and
 * further apart (E), while the timers of the levels below stay short. At
 * 150 s, 10 s of cross traffic (200 kbit/s) drop it to 2 on congestion
 * (F), and level 3, whose timer is short, is soon taken again. */
GST_START_TEST (test_figure4_sample_path)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;
  guint node, n_fail = 0, n_congestion = 0, level = 0, max_level = 0;
  guint n_climb = 0;
  const GArray *evs;
  RlmReceiverStats st;
  gint64 last_fail = -1, gap, prev_gap = 0, congested = -1;
  gint64 reinstated = -1;

  sim_config_init (&cfg);
  cfg.n_layers = 4;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  node = sim_add_node (sim, 0, 350000, 10 * MS, 20, 0);
  sim_add_receiver (sim, node, &rc, 0);
  sim_add_cross_traffic (sim, node, 200000, 1000, 150 * S, 160 * S, 0, 0);
  sim_run (sim, 400 * S);

  evs = sim_receiver_events (sim, 0);
  for (guint k = 0; k < evs->len; k++) {
    const SimEventRecord *r = &g_array_index (evs, SimEventRecord, k);

    if (r->ev.type != RLM_EVENT_LEVEL)
      continue;
    if (n_climb < 4 && r->ev.level == n_climb + 1)
      n_climb++;
    if (r->ev.level < level && r->ev.reason == RLM_REASON_CONGESTION) {
      /* F: only while the cross traffic runs, 3 -> 2 */
      fail_unless (r->time > 150 * S && r->time < 160 * S);
      fail_unless_equals_int (level, 3);
      congested = r->time;
      n_congestion++;
    } else if (r->ev.level < level) {
      /* C, D, E: a failed experiment at level 4 */
      fail_unless_equals_int (level, 4);
      fail_unless_equals_int (r->ev.reason, RLM_REASON_EXPERIMENT_FAILED);
      last_fail = r->time;
      n_fail++;
    } else if (r->ev.level == 4 && last_fail >= 0) {
      /* the interval after the i-th failure is drawn from lambda = 5 2^i:
       * at least lambda / 2 */
      gap = r->time - last_fail;
      fail_unless (gap >= (5 * S << n_fail) / 2 - 100 * MS,
          "gap %" G_GINT64_FORMAT " after failure %u", gap, n_fail);
      fail_unless (gap > prev_gap);
      prev_gap = gap;
    } else if (r->ev.level == 3 && congested >= 0 && reinstated < 0) {
      reinstated = r->time;
    }
    level = r->ev.level;
    max_level = MAX (max_level, level);
  }
  fail_unless_equals_int (n_climb, 4);
  fail_unless_equals_int (max_level, 4);
  fail_unless (n_fail >= 4, "%u failures", n_fail);
  fail_unless_equals_int (n_congestion, 1);
  fail_unless (reinstated > congested && reinstated < congested + 10 * S);

  rlm_receiver_get_stats (sim_receiver_core (sim, 0), &st);
  fail_unless_equals_int (st.experiments_failed, n_fail);
  fail_unless_equals_int (st.drops, n_fail + 1);
  fail_unless_equals_int64 (st.join_timer[4], MIN (5 * S << n_fail, 600 * S));
  /* level 3's timer, backed off by F, relaxed back to T_J^min */
  fail_unless_equals_int64 (st.join_timer[3], 5 * S);
  fail_unless_equals_int64 (st.join_timer[2], 5 * S);
  /* the estimator moved from its conservative 2 s toward the real delay */
  fail_unless (st.detection_time < 2 * S);
  fail_unless_equals_int (sim_receiver_level (sim, 0), 3);
  fail_unless (sim_receiver_convergence (sim, 0, 3) < 200 * S);
  sim_free (sim);
}

GST_END_TEST;

/* Shared learning in the simulator: two receivers behind one bottleneck,
 * the second starting a minute later. Each failed level-4 experiment of
 * the newcomer teaches the first receiver, whose level-4 timer backs off
 * to the ceiling (600 s x 2 receivers) without another experiment of its
 * own; both stay at level 3. */
GST_START_TEST (test_shared_learning_in_sim)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;
  guint hub, a, b, a_fail_joins = 0;
  RlmReceiverStats sa, sb;
  const GArray *evs;
  gint64 b_first_fail = -1;

  sim_config_init (&cfg);
  cfg.n_layers = 4;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  hub = sim_add_node (sim, 0, 350000, 10 * MS, 20, 0);
  a = sim_add_receiver (sim, sim_add_node (sim, hub, 10000000, MS, 20, 0),
      &rc, 0);
  b = sim_add_receiver (sim, sim_add_node (sim, hub, 10000000, MS, 20, 0),
      &rc, 60 * S);
  sim_run (sim, 600 * S);
  rlm_receiver_get_stats (sim_receiver_core (sim, a), &sa);
  rlm_receiver_get_stats (sim_receiver_core (sim, b), &sb);

  evs = sim_receiver_events (sim, b);
  for (guint k = 0; k < evs->len && b_first_fail < 0; k++) {
    const SimEventRecord *r = &g_array_index (evs, SimEventRecord, k);

    if (r->ev.type == RLM_EVENT_LEAVE)
      b_first_fail = r->time;
  }
  fail_unless (b_first_fail > 60 * S);
  evs = sim_receiver_events (sim, a);
  for (guint k = 0; k < evs->len; k++) {
    const SimEventRecord *r = &g_array_index (evs, SimEventRecord, k);

    if (r->ev.type == RLM_EVENT_JOIN && r->ev.layer == 3 &&
        r->time > b_first_fail)
      a_fail_joins++;
  }
  fail_unless (sb.experiments_failed >= 3);
  fail_unless (sa.experiments_learned + 1 >= sb.experiments_failed,
      "learned %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
      sa.experiments_learned, sb.experiments_failed);
  fail_unless_equals_int (a_fail_joins, 0);
  fail_unless_equals_int (sa.session_size, 2);
  fail_unless_equals_int64 (sa.join_max, 1200 * S);
  fail_unless_equals_int64 (sa.join_timer[4], MIN (5 * S <<
          (sa.experiments_failed + sa.experiments_learned), 1200 * S));
  fail_unless (sa.experiments_learned + sa.experiments_failed >= 8);
  fail_unless_equals_int (sim_receiver_level (sim, a), 3);
  fail_unless_equals_int (sim_receiver_level (sim, b), 3);
  sim_free (sim);
}

GST_END_TEST;

static Suite *
rlmcore_suite (void)
{
  Suite *s = suite_create ("rlmcore");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wire);
  tcase_add_test (tc, test_join_draw);
  tcase_add_test (tc, test_join_experiment_succeeds);
  tcase_add_test (tc, test_own_experiment_fails);
  tcase_add_test (tc, test_learning_from_others);
  tcase_add_test (tc, test_suppression);
  tcase_add_test (tc, test_overlapped_experiment_measures);
  tcase_add_test (tc, test_drop_on_congestion);
  tcase_add_test (tc, test_measure_own_loss);
  tcase_add_test (tc, test_learn_detection_time);
  tcase_add_test (tc, test_learn_detection_time_bounds);
  tcase_add_test (tc, test_start_level);
  tcase_add_test (tc, test_join_reported_without_reports);
  tcase_add_test (tc, test_join_reported_lowest);
  tcase_add_test (tc, test_join_reported_settled_only);
  tcase_add_test (tc, test_report_settled_flag);
  tcase_add_test (tc, test_report_top_level_settled_after_experiment);
  tcase_add_test (tc, test_report_not_settled_out_of_steady);
  tcase_add_test (tc, test_gap_retry);
  tcase_add_test (tc, test_join_latency_hold);
  tcase_add_test (tc, test_join_latency_hold_needs_sample);
  tcase_add_test (tc, test_join_latency_hold_own_experiment);
  tcase_add_test (tc, test_first_climb_unheld);
  tcase_add_test (tc, test_first_climb_unheld_after_backoff);
  tcase_add_test (tc, test_first_climb_unheld_own_experiment);
  tcase_add_test (tc, test_first_climb_unheld_for);
  tcase_add_test (tc, test_first_climb_to_settled);
  tcase_add_test (tc, test_learn_higher_failures);
  tcase_add_test (tc, test_learn_higher_sole);
  tcase_add_test (tc, test_learn_higher_fresh_between);
  tcase_add_test (tc, test_fail_hold_code);
  tcase_add_test (tc, test_learn_reported_failures_repeated);
  tcase_add_test (tc, test_learn_reported_failures_newcomer);
  tcase_add_test (tc, test_learn_reported_failures_malformed);
  tcase_add_test (tc, test_keyed_reported_failure);
  tcase_add_test (tc, test_learn_higher_onset);
  tcase_add_test (tc, test_learn_higher_onset_measured);
  tcase_add_test (tc, test_join_reported_fails);
  tcase_add_test (tc, test_join_reported_blames_experiment_above);
  tcase_add_test (tc, test_join_reported_after_base_congestion);
  tcase_add_test (tc, test_reported_max_age);
  tcase_add_test (tc, test_unsubscribed_layers);
  tcase_add_test (tc, test_source_change);
  tcase_add_test (tc, test_bad_input_changes_nothing);
  tcase_add_test (tc, test_keyed_control);
  tcase_add_test (tc, test_keyed_forgery_does_not_suppress);
  tcase_add_test (tc, test_join_max_scales_with_session);
  tcase_add_test (tc, test_member_table_bounded);
  tcase_add_test (tc, test_figure4_sample_path);
  tcase_add_test (tc, test_shared_learning_in_sim);
  return s;
}

GST_CHECK_MAIN (rlmcore);
