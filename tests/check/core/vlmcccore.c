/* Unit tests of the VLMCC core in exact simulated time: the cores driven
 * over hand-made paths (a delay that the test moves, optional drops), and
 * the cores in the VLMCC simulator. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "vlmcccore.h"
#include "vlmccsim.h"
#include "core/rtcp.h"
#include "core/rtp.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))
#define MAX_PATHS 4

/* ------------------------------------------------------------------ */
/* The rig: a greedy sender, receivers each at the end of its own path */

typedef struct {
  VlmccReceiver *r;
  gint64 delay;                 /* one way, both directions */
  gint64 extra;                 /* added to the data direction */
  gint64 fb_extra;              /* added to the feedback direction */
  guint drop;                   /* data packets still to drop */
  gint64 fb_hold;               /* feedback sent before this waits for it */
  gint64 fb_last;               /* feedback stays in order */
  gint64 read_lag;              /* its loop reads each datagram this late */
  gint64 read_hold;             /* datagrams that came before: read then */
  gint64 stamp_jitter;          /* data stamped late by up to this */
  guint32 jitter_state;         /* the stamp jitter's generator */
  gint64 hold_jitter;           /* data held late by up to this, in order */
  guint32 hold_state;           /* the hold's generator */
  gint64 hold_last;             /* the last held packet's arrival */
  gint64 link_per_packet;       /* a bottleneck at the receiver: ns a packet */
  gint64 link_free;             /* when it has sent its queue */
  gboolean dead;
  guint64 got;
  GArray *events;               /* VlmccEvent */
} Path;

typedef enum {
  EV_DATA, EV_FEEDBACK, EV_START
} EvType;

typedef struct {
  gint64 time;                  /* when its host's loop reads it */
  gint64 arrival;               /* when it reached the host */
  guint64 order;
  EvType type;
  guint path;
  GBytes *data;
} Ev;

typedef struct {
  RandomSeeded seeded;
  RandomSource rng;
  VlmccConfig cfg;
  VlmccSender *s;
  Path paths[MAX_PATHS];
  guint n_paths;
  GSequence *events;
  guint64 order;
  gint64 now;
  guint16 rtp_seq;
  GArray *sender_events;        /* VlmccEvent */
  gboolean keyed;               /* every core gets key */
  AuthKey key;
  GBytes *last_feedback, *last_start;   /* as they left, for replays */
  guint32 arrival_offset;       /* added to acks' arrival: another clock */
  gint64 arrival_skew_ppm;      /* and that clock runs this much fast */
  gint64 fb_read_lag;           /* the sender's loop reads feedback late */
  gint64 sender_wake_lag;       /* and wakes this late for its deadlines */
  gboolean unstamped;           /* cores see the read time as arrival */
  gboolean start_hold_set;      /* every START's hold rewritten to: */
  guint32 start_hold_us;        /* (0: a sender that predates the field) */
  guint queue_depth;            /* packets the source keeps queued, 0: 4 */
} Rig;

static gint
ev_cmp (gconstpointer a, gconstpointer b, gpointer user)
{
  const Ev *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->order < y->order ? -1 : 1;
}

static void
ev_free (gpointer p)
{
  Ev *ev = p;

  if (ev->data)
    g_bytes_unref (ev->data);
  g_free (ev);
}

/* A datagram that reaches its host at @arrival, read there @read (>=
 * @arrival); the cores are told @arrival unless the rig is unstamped. */
static void
rig_schedule_read (Rig * rig, gint64 arrival, gint64 read, EvType type,
    guint path, GBytes * data)
{
  Ev *ev = g_new0 (Ev, 1);

  ev->time = read;
  ev->arrival = rig->unstamped ? read : arrival;
  ev->order = rig->order++;
  ev->type = type;
  ev->path = path;
  ev->data = data;
  g_sequence_insert_sorted (rig->events, ev, ev_cmp, NULL);
}

/* The arrival stamp of a data packet that reached path @p's host at
 * @arrival: late by half of stamp_jitter to all of it, pseudo-random
 * (read_lag must cover it: a stamp is never after the read). */
static gint64
path_data_stamp (Path * p, gint64 arrival)
{
  if (!p->stamp_jitter)
    return arrival;
  p->jitter_state = p->jitter_state * 1664525u + 1013904223u;
  return arrival + p->stamp_jitter / 2 +
      (gint64) (p->jitter_state >> 8) % (p->stamp_jitter / 2);
}

/* When a data packet due at @at on path @p reaches its host: one in
 * HOLD_ONE_IN is held late by a draw of up to hold_jitter, and none
 * leaves before the one sent before it, so a hold delays a burst (a
 * user-space delay program whose loop a loaded host ran late; no queue). */
#define HOLD_ONE_IN 16

static gint64
path_data_held (Path * p, gint64 at)
{
  if (!p->hold_jitter)
    return at;
  p->hold_state = p->hold_state * 1664525u + 1013904223u;
  if ((p->hold_state >> 28) % HOLD_ONE_IN == 0)
    at += (gint64) ((p->hold_state >> 8 & 0xfffff) * p->hold_jitter >> 20);
  p->hold_last = MAX (p->hold_last, at);
  return p->hold_last;
}

/* When a data packet that reaches path @p's bottleneck at @at has crossed
 * it (FIFO, unbounded queue; none without link_per_packet). */
static gint64
path_data_link (Path * p, gint64 at)
{
  if (!p->link_per_packet)
    return at;
  p->link_free = MAX (at, p->link_free) + p->link_per_packet;
  return p->link_free;
}

/* When path @i's receiver reads a datagram that reached it at @arrival. */
static gint64
path_read_time (const Path * p, gint64 arrival)
{
  return MAX (arrival, p->read_hold) + p->read_lag;
}

static void
rig_init (Rig * rig, const VlmccConfig * cfg)
{
  memset (rig, 0, sizeof (*rig));
  random_source_init_seeded (&rig->rng, &rig->seeded, 7);
  if (cfg)
    rig->cfg = *cfg;
  else
    vlmcc_config_init (&rig->cfg);
  rig->s = vlmcc_sender_new (&rig->cfg, 0xabcdef01, &rig->rng, 0);
  rig->events = g_sequence_new (ev_free);
  rig->sender_events = g_array_new (FALSE, FALSE, sizeof (VlmccEvent));
}

static void
rig_clear (Rig * rig)
{
  vlmcc_sender_free (rig->s);
  for (guint i = 0; i < rig->n_paths; i++) {
    vlmcc_receiver_free (rig->paths[i].r);
    g_array_free (rig->paths[i].events, TRUE);
  }
  g_sequence_free (rig->events);
  g_array_free (rig->sender_events, TRUE);
  g_clear_pointer (&rig->last_feedback, g_bytes_unref);
  g_clear_pointer (&rig->last_start, g_bytes_unref);
}

static void
rig_keep (GBytes ** slot, const guint8 * data, gsize len)
{
  g_clear_pointer (slot, g_bytes_unref);
  *slot = g_bytes_new (data, len);
}

static void
addr_of (guint path, VlmccAddr * a)
{
  memset (a, 0, sizeof (*a));
  a->len = 1;
  a->bytes[0] = (guint8) path;
}

/* The receiver's clock as the rig's offset and skew make it (unkeyed). */
static gsize
rig_shift_arrival (const Rig * rig, guint8 * buf, gsize len)
{
  VlmccMsg m;

  if ((rig->arrival_offset == 0 && rig->arrival_skew_ppm == 0) ||
      !vlmcc_msg_parse (buf, len, &m) || m.type != VLMCC_MSG_ACK)
    return len;
  m.arrival += rig->arrival_offset +
      (guint32) (rig->now / 1000 * rig->arrival_skew_ppm / 1000000);
  return vlmcc_msg_write (&m, buf, len);
}

/* A START's hold as start_hold_set makes it (unkeyed). */
static gsize
rig_set_start_hold (const Rig * rig, guint8 * buf, gsize len)
{
  VlmccMsg m;

  if (!rig->start_hold_set || !vlmcc_msg_parse (buf, len, &m) ||
      m.type != VLMCC_MSG_START)
    return len;
  m.hold = rig->start_hold_us;
  return vlmcc_msg_write (&m, buf, len);
}

static void
rig_drain_receiver (Rig * rig, guint i)
{
  guint8 buf[64];
  gsize len;
  VlmccEvent ev;

  while ((len = vlmcc_receiver_pop_transmit (rig->paths[i].r, buf,
              sizeof (buf)))) {
    Path *p = &rig->paths[i];
    gint64 at = MAX (rig->now, p->fb_hold) + p->delay + p->fb_extra;

    len = rig_shift_arrival (rig, buf, len);

    at = MAX (at, p->fb_last);
    p->fb_last = at;
    rig_keep (&rig->last_feedback, buf, len);
    rig_schedule_read (rig, at, at + rig->fb_read_lag, EV_FEEDBACK, i,
        g_bytes_new (buf, len));
  }
  while (vlmcc_receiver_pop_event (rig->paths[i].r, &ev))
    g_array_append_val (rig->paths[i].events, ev);
}

static void
rig_top_up (Rig * rig)
{
  guint8 pkt[976] = { 0 };
  RtpHeader h = { 0 };

  h.payload_type = 96;
  h.ssrc = 0xabcdef01;
  while (vlmcc_sender_queued (rig->s) < (rig->queue_depth ?
          rig->queue_depth : 4)) {
    h.seq = rig->rtp_seq++;
    rtp_header_write (&h, NULL, 0, pkt, sizeof (pkt));
    fail_unless (vlmcc_sender_push (rig->s, pkt, sizeof (pkt), rig->now));
  }
}

static void
rig_drain_sender (Rig * rig)
{
  guint8 buf[1100];
  gsize len;
  VlmccAddr to;
  VlmccEvent ev;

  rig_top_up (rig);
  while ((len = vlmcc_sender_pop_transmit (rig->s, buf, sizeof (buf), &to))) {
    if (to.len) {
      Path *p = &rig->paths[to.bytes[0]];
      gint64 at = rig->now + p->delay;

      len = rig_set_start_hold (rig, buf, len);
      rig_keep (&rig->last_start, buf, len);
      rig_schedule_read (rig, at, path_read_time (p, at), EV_START,
          to.bytes[0], g_bytes_new (buf, len));
      continue;
    }
    for (guint i = 0; i < rig->n_paths; i++) {
      Path *p = &rig->paths[i];
      gint64 at = path_data_held (p, path_data_link (p, rig->now + p->delay +
              p->extra));

      if (p->drop) {
        p->drop--;
        continue;
      }
      rig_schedule_read (rig, path_data_stamp (p, at), path_read_time (p,
              at), EV_DATA, i, g_bytes_new (buf, len));
    }
    rig_top_up (rig);
  }
  while (vlmcc_sender_pop_event (rig->s, &ev))
    g_array_append_val (rig->sender_events, ev);
}

static guint
rig_add_path (Rig * rig, gint64 delay)
{
  guint i = rig->n_paths++;

  rig->paths[i].delay = delay;
  rig->paths[i].events = g_array_new (FALSE, FALSE, sizeof (VlmccEvent));
  rig->paths[i].r = vlmcc_receiver_new (&rig->cfg, &rig->rng, rig->now);
  if (rig->keyed)
    vlmcc_receiver_set_key (rig->paths[i].r, &rig->key);
  rig_drain_receiver (rig, i);
  return i;
}

static void
rig_dispatch (Rig * rig, Ev * ev)
{
  Path *p = &rig->paths[ev->path];
  gsize len;
  const guint8 *d = g_bytes_get_data (ev->data, &len);
  VlmccAddr from;

  switch (ev->type) {
    case EV_DATA:
      if (p->dead)
        break;
      p->got++;
      vlmcc_receiver_on_data_at (p->r, d, len, rig->now, ev->arrival);
      rig_drain_receiver (rig, ev->path);
      break;
    case EV_START:
      vlmcc_receiver_on_control_at (p->r, d, len, rig->now, ev->arrival);
      rig_drain_receiver (rig, ev->path);
      break;
    case EV_FEEDBACK:
      addr_of (ev->path, &from);
      vlmcc_sender_on_feedback_at (rig->s, d, len, &from, rig->now,
          ev->arrival);
      rig_drain_sender (rig);
      break;
  }
}

static void
rig_run (Rig * rig, gint64 until)
{
  for (;;) {
    GSequenceIter *it = g_sequence_get_begin_iter (rig->events);
    Ev *ev = g_sequence_iter_is_end (it) ? NULL : g_sequence_get (it);
    gint64 t = vlmcc_sender_next_deadline (rig->s) + rig->sender_wake_lag;

    for (guint i = 0; i < rig->n_paths; i++) {
      gint64 d = vlmcc_receiver_next_deadline (rig->paths[i].r);

      if (d >= 0 && d < t)
        t = d;
    }
    if (ev && ev->time <= t) {
      if (ev->time > until)
        break;
      rig->now = MAX (rig->now, ev->time);
      rig_dispatch (rig, ev);
      g_sequence_remove (it);
      continue;
    }
    if (t > until)
      break;
    rig->now = MAX (rig->now, t);
    vlmcc_sender_advance (rig->s, rig->now);
    rig_drain_sender (rig);
    for (guint i = 0; i < rig->n_paths; i++) {
      vlmcc_receiver_advance (rig->paths[i].r, rig->now);
      rig_drain_receiver (rig, i);
    }
  }
  rig->now = until;
}

static VlmccSenderStats
sender_stats (Rig * rig)
{
  VlmccSenderStats st;

  vlmcc_sender_get_stats (rig->s, &st);
  return st;
}

static VlmccReceiverStats
receiver_stats (Rig * rig, guint i)
{
  VlmccReceiverStats st;

  vlmcc_receiver_get_stats (rig->paths[i].r, &st);
  return st;
}

/* The last event of @type in @events, or NULL. */
static const VlmccEvent *
last_event (const GArray * events, VlmccEventType type)
{
  for (guint i = events->len; i > 0; i--) {
    const VlmccEvent *ev = &g_array_index (events, VlmccEvent, i - 1);

    if (ev->type == type)
      return ev;
  }
  return NULL;
}

/* Window samples every @step over [now, until). */
static GArray *
rig_trace_window (Rig * rig, gint64 until, gint64 step)
{
  GArray *w = g_array_new (FALSE, FALSE, sizeof (gdouble));

  while (rig->now < until) {
    gdouble v;

    rig_run (rig, rig->now + step);
    v = sender_stats (rig).window;
    g_array_append_val (w, v);
  }
  return w;
}

GST_START_TEST (test_wire)
{
  VlmccMsg m = { 0 }, back;
  guint8 buf[64];
  gsize len;
  VlmccMsgType types[] = { VLMCC_MSG_ACK, VLMCC_MSG_CHALLENGE,
    VLMCC_MSG_START
  };
  gsize sizes[] = { VLMCC_ACK_SIZE, VLMCC_CHALLENGE_SIZE, VLMCC_START_SIZE };

  for (guint t = 0; t < 3; t++) {
    memset (&m, 0, sizeof (m));
    m.type = types[t];
    m.id = 0x11223344;
    m.seq = m.type == VLMCC_MSG_CHALLENGE ? 0 : 0xfffe;
    m.tstamp = 0xdeadbeef;
    if (m.type == VLMCC_MSG_ACK)
      m.arrival = 0xcafef00d;
    if (m.type == VLMCC_MSG_CHALLENGE) {
      m.probe = TRUE;
      m.rtt = 50000;
      m.base_rtt = 40000;
      m.rate = 100 * VLMCC_RATE_SCALE;
      m.win = 5 * 256;
    }
    if (m.type == VLMCC_MSG_START) {
      m.target = 77;
      m.leader = 78;
      m.rate = 1234;
      m.win = 999;
      m.hold = 12340;
    }
    len = vlmcc_msg_write (&m, buf, sizeof (buf));
    fail_unless_equals_int (len, sizes[t]);
    fail_unless (rtcp_walk_valid (buf, len));
    fail_unless (vlmcc_msg_parse (buf, len, &back));
    fail_unless (memcmp (&m, &back, sizeof (m)) == 0);
    /* every truncation and any extra byte is refused */
    for (gsize n = 0; n < len; n++)
      fail_if (vlmcc_msg_parse (buf, n, &back));
    buf[len] = 0;
    fail_if (vlmcc_msg_parse (buf, len + 1, &back));
    /* another name, another subtype */
    buf[8] = 'X';
    fail_if (vlmcc_msg_parse (buf, len, &back));
    buf[8] = 'V';
    buf[0] = (buf[0] & 0xe0) | 3;
    fail_if (vlmcc_msg_parse (buf, len, &back));
  }
  fail_if (vlmcc_msg_write (&m, buf, 8));
  /* the volunteer flag is bit 6 of the challenge's first octet */
  memset (&m, 0, sizeof (m));
  m.type = VLMCC_MSG_CHALLENGE;
  m.id = 5;
  m.volunteer = TRUE;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (buf[12], 0x40);
  fail_unless (vlmcc_msg_parse (buf, len, &back));
  fail_unless (back.volunteer && !back.probe);
  /* the START's hold: octets 6-7 of its body (the paper's reserved 16
   * bits), 10 us units rounded down, saturating at 655.35 ms */
  memset (&m, 0, sizeof (m));
  m.type = VLMCC_MSG_START;
  m.hold = 12349;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (buf[18] << 8 | buf[19], 1234);
  fail_unless (vlmcc_msg_parse (buf, len, &back));
  fail_unless_equals_int (back.hold, 12340);
  m.hold = 2000000;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (buf[18] << 8 | buf[19], 0xffff);
  fail_unless (vlmcc_msg_parse (buf, len, &back));
  fail_unless_equals_int (back.hold, VLMCC_START_HOLD_MAX_US);
}

GST_END_TEST;

GST_START_TEST (test_data_extension)
{
  Rig rig;
  guint8 pkt[1100], plain[100] = { 0 };
  RtpHeader h = { 0 };
  VlmccDataExt ext, prev;
  VlmccAddr to;
  RtpHeader parsed;
  gsize len;

  rig_init (&rig, NULL);
  rig_top_up (&rig);
  len = vlmcc_sender_pop_transmit (rig.s, pkt, sizeof (pkt), &to);
  fail_unless (len > 0);
  fail_unless_equals_int (to.len, 0);
  /* a stock receiver sees RTP with its payload intact */
  fail_unless (rtp_header_parse (pkt, len, &parsed));
  fail_unless_equals_int (parsed.payload_len, 976 - RTP_HEADER_SIZE);
  fail_unless (vlmcc_data_ext_parse (pkt, len, rig.cfg.ext_id, &prev));
  fail_unless_equals_int (prev.leader, 0);
  fail_unless_equals_int (prev.drift, 0);
  /* the rate field: W / rtt = 2 / 100 ms = 20 packet/s */
  fail_unless_equals_int (prev.rate, 20 * VLMCC_RATE_SCALE);
  rig.now = 50 * MS;
  vlmcc_sender_advance (rig.s, rig.now);
  len = vlmcc_sender_pop_transmit (rig.s, pkt, sizeof (pkt), &to);
  fail_unless (len > 0);
  fail_unless (vlmcc_data_ext_parse (pkt, len, rig.cfg.ext_id, &ext));
  fail_unless_equals_int (ext.seq, (guint16) (prev.seq + 1));
  fail_unless_equals_int (ext.drift, 50000);
  fail_unless_equals_int (ext.tstamp - prev.tstamp, 50000);
  /* no extension: not ours */
  fail_if (vlmcc_data_ext_parse (pkt, len, rig.cfg.ext_id + 1, &ext));
  h.payload_type = 96;
  len = rtp_header_write (&h, NULL, 0, plain, sizeof (plain));
  fail_if (vlmcc_data_ext_parse (plain, sizeof (plain), rig.cfg.ext_id, &ext));
  /* not RTP: refused and counted */
  fail_if (vlmcc_sender_push (rig.s, (const guint8 *) "junk", 4, rig.now));
  fail_unless_equals_int (sender_stats (&rig).queue_dropped, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* Every core of the rig under the key of @fill; the sender's auth id is
 * drawn from its own source, so a keyed rig draws the same receiver ids
 * as an unkeyed one. */
static void
rig_set_key (Rig * rig, guint8 fill)
{
  RandomSeeded seeded;
  RandomSource rng;

  random_source_init_seeded (&rng, &seeded, 99);
  memset (&rig->key, fill, sizeof (rig->key));
  rig->keyed = TRUE;
  vlmcc_sender_set_key (rig->s, &rig->key, &rng);
}

/* A leader 25 ms away each way: first receiver heard, elected. */
static void
rig_with_leader_keyed (Rig * rig, const VlmccConfig * cfg, gboolean keyed)
{
  rig_init (rig, cfg);
  if (keyed)
    rig_set_key (rig, 0x5a);
  rig_add_path (rig, 25 * MS);
  rig_run (rig, 200 * MS);
  fail_unless_equals_int (receiver_stats (rig, 0).role, VLMCC_ROLE_LEADER);
  fail_unless_equals_int (sender_stats (rig).leader,
      receiver_stats (rig, 0).id);
}

static void
rig_with_leader (Rig * rig, const VlmccConfig * cfg)
{
  rig_with_leader_keyed (rig, cfg, FALSE);
}

GST_START_TEST (test_vegas_grows_holds_shrinks)
{
  Rig rig;
  GArray *w;
  gdouble hold;
  VlmccSenderStats st;

  rig_with_leader (&rig, NULL);
  /* no queueing: diff 0 < alpha, one packet more per RTT (50 ms) */
  hold = sender_stats (&rig).window;
  w = rig_trace_window (&rig, 3 * S, 50 * MS);
  for (guint i = 1; i < w->len; i++) {
    gdouble d = g_array_index (w, gdouble, i) -
        g_array_index (w, gdouble, i - 1);
    fail_unless (d >= 0.0 && d <= 2.0, "step %u: %f", i, d);
  }
  st = sender_stats (&rig);
  fail_unless (st.window - hold >= 50 && st.window - hold <= 57,
      "window %f from %f", st.window, hold);
  fail_unless_equals_int (st.lost, 0);
  fail_unless_equals_int64 (st.base_rtt, 50 * MS);
  /* the encoder hears the rate: W / rtt in bit/s, to within 1 % */
  {
    const VlmccEvent *ev = last_event (rig.sender_events, VLMCC_EVENT_RATE);

    fail_unless (ev != NULL);
    fail_unless (ev->rate * 100 >= st.rate * 99 &&
        ev->rate * 100 <= st.rate * 101, "%" G_GUINT64_FORMAT " %"
        G_GUINT64_FORMAT, ev->rate, st.rate);
    fail_unless_equals_int64 (st.rate, (guint64) (st.window / (st.rtt / 1e9)
            * 8000));
  }
  g_array_free (w, TRUE);

  /* a queue worth 2 packets: alpha <= diff <= beta, the window holds */
  rig.paths[0].extra = (gint64) (50 * MS * 2.0 / (st.window - 2.0));
  rig_run (&rig, rig.now + 3 * S);
  hold = sender_stats (&rig).window;
  w = rig_trace_window (&rig, rig.now + 2 * S, 50 * MS);
  for (guint i = 0; i < w->len; i++)
    fail_unless_equals_float (g_array_index (w, gdouble, i), hold);
  g_array_free (w, TRUE);

  /* twice the base RTT: diff = W / 2 > beta, one packet less per RTT
   * down to where diff is beta again */
  for (gint i = 1; i <= 10; i++) {
    rig.paths[0].extra = 5 * i * MS;
    rig_run (&rig, rig.now + 100 * MS);
  }
  w = rig_trace_window (&rig, rig.now + 8 * S, 100 * MS);
  for (guint i = 1; i < w->len; i++) {
    gdouble d = g_array_index (w, gdouble, i) -
        g_array_index (w, gdouble, i - 1);
    fail_unless (d <= 0.0 && d >= -1.0, "step %u: %f", i, d);
  }
  st = sender_stats (&rig);
  fail_unless (st.window >= 5 && st.window <= 8, "window %f", st.window);
  g_array_free (w, TRUE);
  rig_clear (&rig);
}

GST_END_TEST;

/* A leader 25 ms away, the window grown for 3 s, then @fb_extra more on
 * the feedback path and @extra on the data path, each ramped over 1 s;
 * the window after 8 s more. */
static VlmccSenderStats
vegas_delay_run (VlmccVegasDelay delay, guint32 offset, gint64 skew_ppm,
    gint64 fb_extra, gint64 extra, gdouble * before)
{
  VlmccConfig cfg;
  VlmccSenderStats st;
  Rig rig;

  vlmcc_config_init (&cfg);
  cfg.vegas_delay = delay;
  rig_with_leader (&rig, &cfg);
  rig.arrival_offset = offset;
  rig.arrival_skew_ppm = skew_ppm;
  rig_run (&rig, 3 * S);
  *before = sender_stats (&rig).window;
  for (gint i = 1; i <= 10; i++) {
    rig.paths[0].fb_extra = fb_extra * i / 10;
    rig.paths[0].extra = extra * i / 10;
    rig_run (&rig, rig.now + 100 * MS);
  }
  rig_run (&rig, rig.now + 8 * S);
  st = sender_stats (&rig);
  rig_clear (&rig);
  return st;
}

/* The paper's Vegas reads delay on the ack path as queueing; with the
 * forward delay input it holds there, and on the data path it backs off
 * as the paper's does. The leader's clock is offset (and wraps 1 s in):
 * the least forward delay cancels it. */
GST_START_TEST (test_vegas_forward_delay)
{
  const guint32 wrap = G_MAXUINT32 - 1000000;
  VlmccSenderStats paper, fwd, fwd0;
  gdouble before, before_fwd;

  /* 50 ms more on the ack path only */
  paper = vegas_delay_run (VLMCC_VEGAS_DELAY_RTT, 0, 0, 50 * MS, 0,
      &before);
  fwd = vegas_delay_run (VLMCC_VEGAS_DELAY_FORWARD, wrap, 0, 50 * MS, 0,
      &before_fwd);
  fwd0 = vegas_delay_run (VLMCC_VEGAS_DELAY_FORWARD, 0, 0, 50 * MS, 0,
      &before_fwd);
  fail_unless (before > 50, "window %f", before);
  fail_unless (paper.window <= 8, "paper: window %f", paper.window);
  fail_unless (fwd.window >= before_fwd, "forward: window %f from %f",
      fwd.window, before_fwd);
  fail_unless (fwd.forward_queue < MS, "%" G_GINT64_FORMAT,
      fwd.forward_queue);
  fail_unless_equals_float (fwd.window, fwd0.window);
  fail_unless_equals_int64 (fwd.vegas_rtt, fwd0.vegas_rtt);
  fail_unless_equals_int (paper.lost + fwd.lost, 0);

  /* 50 ms more on the data path: a forward queue, both back off alike */
  paper = vegas_delay_run (VLMCC_VEGAS_DELAY_RTT, 0, 0, 0, 50 * MS,
      &before);
  fwd = vegas_delay_run (VLMCC_VEGAS_DELAY_FORWARD, wrap, 0, 0, 50 * MS,
      &before_fwd);
  fail_unless (paper.window >= 5 && paper.window <= 8, "paper: window %f",
      paper.window);
  fail_unless (fabs (fwd.window - paper.window) <= 1.0, "forward: window "
      "%f, paper %f", fwd.window, paper.window);
  fail_unless (fwd.forward_queue > 45 * MS, "%" G_GINT64_FORMAT,
      fwd.forward_queue);

  /* a leader's clock 1000 ppm fast (11 ms over the run), no queue: the
   * forward delay grows, the RTT does not, and the window grows as the
   * paper's */
  paper = vegas_delay_run (VLMCC_VEGAS_DELAY_RTT, 0, 0, 0, 0, &before);
  fwd = vegas_delay_run (VLMCC_VEGAS_DELAY_FORWARD, 0, 1000, 0, 0,
      &before_fwd);
  fail_unless (fwd.window >= paper.window - 1.0, "forward: window %f, "
      "paper %f", fwd.window, paper.window);
}

GST_END_TEST;

GST_START_TEST (test_one_halving_per_rtt)
{
  Rig rig;
  gdouble before;
  VlmccSenderStats st;

  rig_with_leader (&rig, NULL);
  rig_run (&rig, 2 * S);
  before = sender_stats (&rig).window;
  /* three losses in a row, within one RTT */
  rig.paths[0].drop = 3;
  rig_run (&rig, rig.now + 80 * MS);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.lost, 3);
  fail_unless_equals_int (st.halvings, 1);
  fail_unless (st.window <= before / 2.0 + 2.0 &&
      st.window >= floor (before / 2.0),
      "%f after %f", st.window, before);
  /* a loss an RTT later halves again */
  rig.paths[0].drop = 1;
  rig_run (&rig, rig.now + 400 * MS);
  fail_unless_equals_int (sender_stats (&rig).halvings, 2);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_pacing_bursts_of_two)
{
  Rig rig;
  guint8 pkt[1100];
  VlmccAddr to;
  gint64 t;
  guint n = 0, bursts = 0;

  rig_init (&rig, NULL);
  /* no leader: one packet per rtt / W, W = 2, rtt = 100 ms */
  rig_top_up (&rig);
  while (vlmcc_sender_pop_transmit (rig.s, pkt, sizeof (pkt), &to))
    n++;
  fail_unless_equals_int (n, 1);
  t = vlmcc_sender_next_deadline (rig.s);
  fail_unless_equals_int64 (t, 50 * MS);
  rig_clear (&rig);

  rig_with_leader (&rig, NULL);
  rig_run (&rig, 1 * S);
  /* with a leader: bursts of burst (2) packets, then rtt / W each */
  for (gint64 now = rig.now; now < rig.now + 500 * MS; now += MS) {
    guint here = 0;

    vlmcc_sender_advance (rig.s, now);
    rig_top_up (&rig);
    while (vlmcc_sender_pop_transmit (rig.s, pkt, sizeof (pkt), &to))
      here += to.len == 0;
    fail_unless (here <= 2, "%u packets at once", here);
    bursts += here == 2;
  }
  fail_unless (bursts > 0);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_challenge_on_worse_path)
{
  Rig rig;
  VlmccReceiverStats a, b, c;
  VlmccSenderStats st;

  rig_init (&rig, NULL);
  rig_add_path (&rig, 20 * MS); /* A: first heard, leader */
  rig_add_path (&rig, 20 * MS); /* B: its path will queue */
  rig_run (&rig, 100 * MS);
  rig_add_path (&rig, 10 * MS); /* C: a better path throughout */
  rig_run (&rig, 3 * S);
  a = receiver_stats (&rig, 0);
  fail_unless_equals_int (a.role, VLMCC_ROLE_LEADER);
  fail_unless_equals_int (receiver_stats (&rig, 1).role, VLMCC_ROLE_FOLLOWER);
  fail_unless_equals_int (receiver_stats (&rig, 1).challenges_sent, 0);
  /* B's path builds a queue: its Vegas window shrinks and its rate falls
   * under the sender's by more than N_extra packets: equation (6) */
  for (gint i = 1; i <= 30; i++) {
    rig.paths[1].extra = i * 2 * MS;
    rig_run (&rig, rig.now + 100 * MS);
  }
  b = receiver_stats (&rig, 1);
  c = receiver_stats (&rig, 2);
  st = sender_stats (&rig);
  fail_unless (b.challenges_sent >= 1);
  /* the data named B leader after a challenge of it */
  fail_unless (b.challenges_accepted >= 1);
  fail_unless (b.challenges_accepted + b.challenges_refused <=
      b.challenges_sent);
  fail_unless_equals_int (b.role, VLMCC_ROLE_LEADER);
  fail_unless_equals_int (st.leader, b.id);
  fail_unless (st.accepted >= 1);
  fail_unless_equals_int (receiver_stats (&rig, 0).role, VLMCC_ROLE_FOLLOWER);
  /* the leader now acks: the sender's RTT is B's, base RTT included */
  fail_unless (st.rtt >= 60 * MS, "rtt %" G_GINT64_FORMAT, st.rtt);
  fail_unless (st.base_rtt <= 45 * MS);
  /* both ends said so: the sender's LEADER event names B, B's ROLE event
   * makes it the leader, A's the follower */
  fail_unless_equals_int (last_event (rig.sender_events,
          VLMCC_EVENT_LEADER)->leader, b.id);
  fail_unless_equals_int (last_event (rig.paths[1].events,
          VLMCC_EVENT_ROLE)->role, VLMCC_ROLE_LEADER);
  fail_unless_equals_int (last_event (rig.paths[0].events,
          VLMCC_EVENT_ROLE)->role, VLMCC_ROLE_FOLLOWER);
  fail_unless_equals_int (last_event (rig.paths[2].events,
          VLMCC_EVENT_LEADER)->leader, b.id);
  fail_unless (receiver_stats (&rig, 2).leader_changes >= 1);
  /* C on the better path stays silent */
  fail_unless_equals_int (c.challenges_sent, 0);
  fail_unless_equals_int (c.challenges_accepted + c.challenges_refused, 0);
  fail_unless_equals_int (c.acks_sent, 0);
  rig_clear (&rig);
}

GST_END_TEST;

static gsize
challenge_write (guint32 id, gdouble window, gint64 rtt, guint8 * buf)
{
  VlmccMsg m = { 0 };

  m.type = VLMCC_MSG_CHALLENGE;
  m.id = id;
  m.rtt = rtt / 1000;
  m.base_rtt = rtt / 1000;
  m.rate = (guint32) (window / (rtt / 1e9) * VLMCC_RATE_SCALE);
  m.win = (guint32) (window * 256);
  return vlmcc_msg_write (&m, buf, 64);
}

/* Two receivers 50 ms of RTT away; at 3 s the second challenges with
 * claims @shift off its path's (the window the sender has, its rtt and
 * base both @shift under 50 ms: a follower whose START and the data
 * packet it counts its delays from met @shift apart on a loaded host).
 * Returns the sender's stats at 6 s, its window when it elected in
 * @elected. */
static VlmccSenderStats
claimed_base_run (gint64 shift, gboolean own_base, gdouble * elected)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccSenderStats st;
  VlmccAddr from;
  guint8 buf[64];
  gsize len;
  guint32 id;

  vlmcc_config_init (&cfg);
  cfg.own_base = own_base;
  rig_init (&rig, &cfg);
  rig_add_path (&rig, 25 * MS);
  rig_add_path (&rig, 25 * MS);
  rig_run (&rig, 3 * S);
  id = receiver_stats (&rig, 1).id;
  fail_if (sender_stats (&rig).leader == id);
  len = challenge_write (id, sender_stats (&rig).window, 50 * MS - shift,
      buf);
  addr_of (1, &from);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_TAKEN);
  rig_drain_sender (&rig);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.leader, id);
  *elected = st.window;
  rig_run (&rig, 6 * S);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.leader, id);
  rig_clear (&rig);
  return st;
}

/* With own_base the base RTT after a challenge is the sender's own.
 * Without it, claims 7 ms low leave the base 7 ms low for good, Vegas
 * reads 14 % of every RTT as queue and the window falls (51 -> 21
 * packets; on the loaded namespace bed the sender's base was 5.7 to 13 ms
 * under the 20 ms path, docs/results.md, "VLMCC: stamps under load").
 * Claims 7 ms high hide no queue either. A
 * queue the challenger claims is not taken into the base: the second
 * receiver, 10 ms more on its data from 1 s on, challenges on its own
 * and the base stays the path's 50 ms, not its 60. */
GST_START_TEST (test_challenger_base_own)
{
  VlmccSenderStats low, high, claimed;
  VlmccConfig cfg;
  gdouble w_low, w_high, w_claimed;
  Rig rig;

  low = claimed_base_run (7 * MS, TRUE, &w_low);
  high = claimed_base_run (-7 * MS, TRUE, &w_high);
  claimed = claimed_base_run (7 * MS, FALSE, &w_claimed);
  fail_unless (ABS (claimed.base_rtt - 43 * MS) <= MS / 2);
  fail_unless (claimed.window <= w_claimed);
  GST_INFO ("claims 7 ms low: base %" G_GINT64_FORMAT " us, window %.1f -> "
      "%.1f; 7 ms high: base %" G_GINT64_FORMAT " us", low.base_rtt / 1000,
      w_low, low.window, high.base_rtt / 1000);
  fail_unless (ABS (low.base_rtt - 50 * MS) <= MS / 2, "base %"
      G_GINT64_FORMAT " us", low.base_rtt / 1000);
  fail_unless (low.window >= w_low + 30.0, "window %.1f -> %.1f", w_low,
      low.window);
  fail_unless (ABS (high.base_rtt - 50 * MS) <= MS / 2, "base %"
      G_GINT64_FORMAT " us", high.base_rtt / 1000);

  vlmcc_config_init (&cfg);
  cfg.own_base = TRUE;
  rig_init (&rig, &cfg);
  rig_add_path (&rig, 25 * MS);
  rig_add_path (&rig, 25 * MS);
  rig_run (&rig, 1 * S);
  rig.paths[1].extra = 10 * MS;
  rig_run (&rig, 4 * S);
  fail_unless_equals_int (sender_stats (&rig).leader,
      receiver_stats (&rig, 1).id);
  /* its claimed rtt hat lags the step a little: 0.7 ms of the queue left */
  fail_unless (ABS (sender_stats (&rig).base_rtt - 50 * MS) <= MS,
      "base %" G_GINT64_FORMAT " us", sender_stats (&rig).base_rtt / 1000);
  rig_clear (&rig);
}

GST_END_TEST;

/* A follower 50 ms of RTT from the sender whose data is stamped 4 to 8 ms
 * late (a loaded host's jitter; the START is stamped on time). Returns its
 * base RTT after 3 s. */
static gint64
follower_jittered_base (gboolean start_anchor)
{
  VlmccConfig cfg;
  Rig rig;
  gint64 base;

  vlmcc_config_init (&cfg);
  cfg.start_anchor = start_anchor;
  rig_init (&rig, &cfg);
  rig_add_path (&rig, 25 * MS);
  rig_add_path (&rig, 25 * MS);
  rig.paths[1].stamp_jitter = 8 * MS;
  rig.paths[1].read_lag = 8 * MS;
  rig.paths[1].jitter_state = 1;
  rig_run (&rig, 3 * S);
  fail_unless_equals_int (receiver_stats (&rig, 1).role,
      VLMCC_ROLE_FOLLOWER);
  base = receiver_stats (&rig, 1).base_rtt;
  rig_clear (&rig);
  return base;
}

/* Equations (4) and (5) count the one-way delay from one data packet, so
 * that packet's jitter is in every RTT the follower keeps: stamped nearly
 * 8 ms late it takes the base to 46 ms, 8 ms under the least the samples
 * can be (50 ms plus the 4 ms every stamp is late): a standing queue for
 * its Vegas and the base it claims when it challenges. The START anchor
 * counts from the START's own one-way delay instead, and that packet's
 * jitter cancels. */
GST_START_TEST (test_follower_jittered_anchor)
{
  gint64 paper = follower_jittered_base (FALSE);
  gint64 anchored = follower_jittered_base (TRUE);

  GST_INFO ("base %" G_GINT64_FORMAT " us from the data packet, %"
      G_GINT64_FORMAT " us anchored on the START", paper / 1000,
      anchored / 1000);
  fail_unless (paper <= 52 * MS, "base %" G_GINT64_FORMAT " us",
      paper / 1000);
  fail_unless (ABS (anchored - 54 * MS) <= MS / 2, "base %" G_GINT64_FORMAT
      " us", anchored / 1000);
}

GST_END_TEST;

/* Two receivers 10 ms from the sender (the bed's Figure 5), no queue on
 * either path, one data packet in HOLD_ONE_IN held late by up to 20 ms
 * (in order, as the bed's delay program on a loaded host). Returns the
 * elections over 2-12 s; then, if @queue_follows, the follower's data
 * gets 10 ms of queue and it must take the lead within 1 s. */
static guint64
held_jitter_elections (gdouble rtt_min_window, gboolean queue_follows)
{
  VlmccConfig cfg;
  Rig rig;
  guint64 elections;
  guint32 leader;
  guint follower;

  vlmcc_config_init (&cfg);
  cfg.rtt_min_window = rtt_min_window;
  rig_init (&rig, &cfg);
  for (guint i = 0; i < 2; i++) {
    rig_add_path (&rig, 10 * MS);
    rig.paths[i].hold_jitter = 20 * MS;
    rig.paths[i].hold_state = 7 + 1000 * i;
  }
  rig_run (&rig, 2 * S);
  elections = sender_stats (&rig).elections;
  rig_run (&rig, 12 * S);
  elections = sender_stats (&rig).elections - elections;
  GST_INFO ("rtt-min-window %.1f: %" G_GUINT64_FORMAT " elections in 10 s, "
      "rtt hat %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " us",
      rtt_min_window, elections, receiver_stats (&rig, 0).rtt / 1000,
      receiver_stats (&rig, 1).rtt / 1000);
  if (queue_follows) {
    leader = sender_stats (&rig).leader;
    follower = receiver_stats (&rig, 0).id == leader ? 1 : 0;
    rig.paths[follower].extra = 10 * MS;
    rig_run (&rig, 13 * S);
    fail_unless_equals_int (sender_stats (&rig).leader,
        receiver_stats (&rig, follower).id);
  }
  rig_clear (&rig);
  return elections;
}

/* Scheduling jitter is not queueing: with packets held up to 20 ms late
 * and nothing queued, the paper's followers take the holds into rtt hat,
 * their Vegas shrinks their windows and equation (6) hands the lead back
 * and forth (44 elections in 10 s). The least over the last 4 RTTs
 * (rtt_min_window) keeps each path's RTT, so the lead stays; a queue
 * that lasts still moves it, a few RTTs later. */
GST_START_TEST (test_held_jitter_lead_stays)
{
  guint64 paper = held_jitter_elections (0.0, FALSE);
  guint64 least = held_jitter_elections (4.0, TRUE);

  fail_unless (paper >= 10, "%" G_GUINT64_FORMAT " elections", paper);
  fail_unless_equals_int (least, 0);
}

GST_END_TEST;

/* Two receivers 10 ms from the sender, both paths' data held late by up
 * to @hold as in held_jitter_elections, nothing queued: the follower's
 * RTT samples jitter about the leader's level. Returns the elections over
 * 2-12 s; then the follower's data gets 10 ms of queue and *@moved is how
 * long it takes to lead (-1: not within 2 s). */
static guint64
confirm_jitter_run (gdouble confirm, gint64 hold, gint64 * moved)
{
  VlmccConfig cfg;
  Rig rig;
  guint64 elections;
  guint follower;
  gint64 step;

  vlmcc_config_init (&cfg);
  cfg.challenge_confirm = confirm;
  rig_init (&rig, &cfg);
  for (guint i = 0; i < 2; i++) {
    rig_add_path (&rig, 10 * MS);
    rig.paths[i].hold_jitter = hold;
    rig.paths[i].hold_state = 7 + 1000 * i;
  }
  rig_run (&rig, 2 * S);
  elections = sender_stats (&rig).elections;
  rig_run (&rig, 12 * S);
  elections = sender_stats (&rig).elections - elections;
  follower = receiver_stats (&rig, 0).id == sender_stats (&rig).leader;
  rig.paths[follower].extra = 10 * MS;
  step = rig.now;
  *moved = -1;
  while (rig.now < step + 2 * S && *moved < 0) {
    rig_run (&rig, rig.now + MS);
    if (sender_stats (&rig).leader == receiver_stats (&rig, follower).id)
      *moved = rig.now - step;
  }
  GST_INFO ("challenge-confirm %.1f, holds up to %" G_GINT64_FORMAT " ms: %"
      G_GUINT64_FORMAT " elections in 10 s, the lead moved %" G_GINT64_FORMAT
      " ms after the queue", confirm, hold / MS, elections, *moved / MS);
  rig_clear (&rig);
  return elections;
}

/* Equation (6) on a path no worse than the leader's: holds of at most
 * 1 ms on a 20 ms RTT (one packet in 16) tip the follower's rtt hat over
 * the threshold now and then, and the paper's follower challenges each
 * time (54 elections in 10 s). Confirmed over 2 of its RTTs, the
 * condition never lasts; a 10 ms queue lasts, and the follower takes the
 * lead within 2 of its RTTs (30 ms) of the paper's on a clean path (92
 * against 40 ms). */
GST_START_TEST (test_challenge_confirm_jitter)
{
  gint64 paper_clean, paper_held, confirmed_held;
  guint64 paper = confirm_jitter_run (0.0, MS, &paper_held);
  guint64 confirmed = confirm_jitter_run (2.0, MS, &confirmed_held);

  fail_unless (paper >= 20, "%" G_GUINT64_FORMAT " elections", paper);
  fail_unless_equals_int (confirmed, 0);
  fail_unless_equals_int (confirm_jitter_run (0.0, 0, &paper_clean), 0);
  fail_unless (paper_held > 0 && paper_clean > 0);
  fail_unless (confirmed_held > 0 && confirmed_held <= paper_clean +
      2 * 30 * MS + 5 * MS, "moved after %" G_GINT64_FORMAT " ms, the "
      "paper's %" G_GINT64_FORMAT " ms", confirmed_held / MS,
      paper_clean / MS);
}

GST_END_TEST;

/* A receiver that loses packets in every epoch keeps its halvings: its
 * window is not raised back to what carries the sender's rate (that raise
 * is for a path that shows neither queueing nor loss), so with a rate
 * floor its own rate falls under the floor and it leaves, even when it led
 * (the sender holds its window at the floor, which a raise to the
 * sender's rate would have matched); the sender gives it up. */
GST_START_TEST (test_lossy_receiver_keeps_halvings)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccReceiverStats b;
  VlmccSenderStats st;

  vlmcc_config_init (&cfg);
  cfg.rate_floor = 1000000;     /* 125 packets/s */
  rig_init (&rig, &cfg);
  rig_add_path (&rig, 20 * MS); /* A: no loss */
  rig_add_path (&rig, 20 * MS); /* B: will lose a packet every 20 ms */
  rig_run (&rig, 2 * S);
  st = sender_stats (&rig);
  fail_unless (st.rate >= 4 * cfg.rate_floor, "rate %" G_GUINT64_FORMAT,
      st.rate);
  for (gint i = 0; i < 200 && receiver_stats (&rig, 1).role !=
      VLMCC_ROLE_LEFT; i++) {
    rig.paths[1].drop = 1;
    rig_run (&rig, rig.now + 20 * MS);
  }
  b = receiver_stats (&rig, 1);
  fail_unless_equals_int (b.role, VLMCC_ROLE_LEFT);
  rig_run (&rig, rig.now + 2 * S);
  st = sender_stats (&rig);
  fail_unless (st.leader != b.id);
  fail_unless (st.rate >= cfg.rate_floor, "rate %" G_GUINT64_FORMAT, st.rate);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_refusals)
{
  Rig rig;
  VlmccConfig cfg;
  guint8 buf[64];
  gsize len;
  VlmccAddr from;
  VlmccSenderStats st;

  vlmcc_config_init (&cfg);
  cfg.rate_floor = 200000;      /* 25 packets/s of 1000 bytes */
  rig_with_leader (&rig, &cfg);
  rig_run (&rig, 2 * S);
  addr_of (3, &from);
  /* a challenge accepted: a new leader */
  len = challenge_write (0x1111, 4, 80 * MS, buf);
  st = sender_stats (&rig);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_TAKEN);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.leader, 0x1111);
  fail_unless_equals_float (st.window, 4.0);
  fail_unless_equals_int64 (st.rtt, 80 * MS);
  /* another one right after: refused (recent election) */
  len = challenge_write (0x2222, 3, 90 * MS, buf);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now + 10 * MS), VLMCC_INPUT_IGNORED);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.refused_holdoff, 1);
  fail_unless_equals_int (st.leader, 0x1111);
  /* after election_holdoff RTTs it would be taken, but its rate is under
   * the floor: refused */
  len = challenge_write (0x2222, 1, 100 * MS, buf);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now + 400 * MS), VLMCC_INPUT_IGNORED);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.refused_floor, 1);
  fail_unless (st.leader != 0x2222);
  fail_unless_equals_int (st.accepted, 1);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_follower_below_floor_leaves)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccReceiverStats b;
  VlmccEvent ev;
  gboolean left = FALSE;
  guint64 floor_pps;

  vlmcc_config_init (&cfg);
  cfg.rate_floor = 400000;      /* 50 packets/s */
  rig_init (&rig, &cfg);
  rig_add_path (&rig, 20 * MS);
  rig_add_path (&rig, 20 * MS);
  rig_run (&rig, 3 * S);
  /* B's path grows a queue it cannot drain (the delay grows and the full
   * queue drops a packet every 100 ms): its own rate falls under the
   * floor, and after leave_time it leaves. Delay alone is not loss: the
   * sender, had it elected B, keeps its rate at the floor. */
  for (gint i = 1; i <= 80 && !left; i++) {
    rig.paths[1].extra = i * 10 * MS;
    rig.paths[1].drop = 1;
    rig_run (&rig, rig.now + 100 * MS);
    while (vlmcc_receiver_pop_event (rig.paths[1].r, &ev))
      left |= ev.type == VLMCC_EVENT_LEFT;
    left |= receiver_stats (&rig, 1).role == VLMCC_ROLE_LEFT;
  }
  b = receiver_stats (&rig, 1);
  fail_unless_equals_int (b.role, VLMCC_ROLE_LEFT);
  /* the group stays at the floor or above (within the RTT estimate's
   * lag), and B does not lead it */
  floor_pps = cfg.rate_floor / (cfg.packet_size * 8);
  fail_unless (sender_stats (&rig).rate >= floor_pps * cfg.packet_size * 7,
      "%" G_GUINT64_FORMAT, sender_stats (&rig).rate);
  /* a receiver that left ignores what arrives; the sender gives it up */
  rig_run (&rig, rig.now + S);
  fail_unless (sender_stats (&rig).leader != b.id);
  fail_unless_equals_int (receiver_stats (&rig, 1).acks_sent, b.acks_sent);
  fail_unless_equals_int (receiver_stats (&rig, 1).challenges_sent,
      b.challenges_sent);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_bad_feedback_ignored)
{
  Rig rig;
  VlmccSenderStats before, after;
  VlmccMsg m = { 0 };
  guint8 buf[64];
  gsize len;
  VlmccAddr from, other;
  guint32 leader;

  rig_with_leader (&rig, NULL);
  rig_run (&rig, S);
  before = sender_stats (&rig);
  leader = before.leader;
  addr_of (0, &from);
  addr_of (1, &other);
  /* garbage, an empty datagram, a truncated ack, a START to the sender */
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s,
          (const guint8 *) "garbage!", 8, &from, rig.now),
      VLMCC_INPUT_MALFORMED);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, 0, &from,
          rig.now), VLMCC_INPUT_MALFORMED);
  m.type = VLMCC_MSG_ACK;
  m.id = leader;
  m.seq = 1;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len - 4,
          &from, rig.now), VLMCC_INPUT_MALFORMED);
  m.type = VLMCC_MSG_START;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_MALFORMED);
  /* an ack from a receiver that is no leader, and the leader's id from
   * another address */
  m.type = VLMCC_MSG_ACK;
  m.id = leader + 1;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_FORGED);
  m.id = leader;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &other,
          rig.now), VLMCC_INPUT_FORGED);
  /* a challenge with id 0 */
  len = challenge_write (0, 4, 50 * MS, buf);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_MALFORMED);
  after = sender_stats (&rig);
  fail_unless_equals_int (after.malformed, before.malformed + 5);
  fail_unless_equals_int (after.forged, before.forged + 2);
  fail_unless_equals_float (after.window, before.window);
  fail_unless_equals_int64 (after.rtt, before.rtt);
  fail_unless_equals_int (after.leader, leader);
  fail_unless_equals_int (after.acked, before.acked);

  /* the receiver: garbage control, a START for someone else, plain RTP */
  m.type = VLMCC_MSG_START;
  m.target = receiver_stats (&rig, 0).id + 1;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_receiver_on_control (rig.paths[0].r, buf,
          len, rig.now), VLMCC_INPUT_FORGED);
  fail_unless_equals_int (vlmcc_receiver_on_control (rig.paths[0].r,
          (const guint8 *) "xx", 2, rig.now), VLMCC_INPUT_MALFORMED);
  fail_unless_equals_int (vlmcc_receiver_on_data (rig.paths[0].r,
          (const guint8 *) "xx", 2, rig.now), VLMCC_INPUT_MALFORMED);
  {
    RtpHeader h = { 0 };
    guint8 rtp[40] = { 0 };

    h.payload_type = 96;
    rtp_header_write (&h, NULL, 0, rtp, sizeof (rtp));
    fail_unless_equals_int (vlmcc_receiver_on_data (rig.paths[0].r, rtp,
            sizeof (rtp), rig.now), VLMCC_INPUT_IGNORED);
  }
  fail_unless_equals_int (receiver_stats (&rig, 0).forged, 1);
  fail_unless_equals_int (receiver_stats (&rig, 0).malformed, 2);
  fail_unless_equals_int (receiver_stats (&rig, 0).plain, 1);
  fail_unless_equals_int (receiver_stats (&rig, 0).role, VLMCC_ROLE_LEADER);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Amplification and the group key */

/* A challenge storm: every 5 ms a challenge from a new id claiming a
 * 2 ms RTT (so election_holdoff RTTs would be 8 ms) and a two-packet
 * window. Without a key each is sound, yet the sender elects at most once
 * per election_holdoff_min (100 ms), in leaderless recovery too (the
 * elected ids never ack). With no floor on the hold-off it elected 186
 * times in these 3 s. */
GST_START_TEST (test_challenge_storm_bounded)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccSenderStats before, after;
  guint8 buf[64];
  VlmccAddr from;
  const gint64 run = 3 * S;
  guint64 elections, bound;
  guint32 id = 0x70000000;

  vlmcc_config_init (&cfg);
  rig_with_leader (&rig, &cfg);
  rig_run (&rig, S);
  before = sender_stats (&rig);
  addr_of (3, &from);
  for (gint64 end = rig.now + run; rig.now < end;) {
    gsize len = challenge_write (id++, 2, 2 * MS, buf);

    vlmcc_sender_on_feedback (rig.s, buf, len, &from, rig.now);
    rig_drain_sender (&rig);
    rig_run (&rig, rig.now + 5 * MS);
  }
  after = sender_stats (&rig);
  elections = after.elections - before.elections;
  bound = run / cfg.election_holdoff_min + 1;
  fail_unless (elections <= bound, "%" G_GUINT64_FORMAT " elections in 3 s",
      elections);
  /* it does take them (no key): the storm is bounded, not ignored */
  fail_unless (elections >= bound / 2, "%" G_GUINT64_FORMAT, elections);
  fail_unless (after.refused_holdoff - before.refused_holdoff >=
      run / (5 * MS) - bound - 1);
  /* the real leader lost the lead to the storm */
  fail_unless (after.leader == 0 || after.leader >= 0x70000000);
  rig_clear (&rig);
}

GST_END_TEST;

/* A challenge cannot claim an RTT beyond what any sample may be (it would
 * stretch the hold-off for minutes). */
GST_START_TEST (test_challenge_absurd_rtt_refused)
{
  Rig rig;
  guint8 buf[64];
  VlmccAddr from;
  gsize len;
  guint32 leader;

  rig_with_leader (&rig, NULL);
  rig_run (&rig, S);
  leader = sender_stats (&rig).leader;
  addr_of (3, &from);
  len = challenge_write (0x1234, 4, 100 * S, buf);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
          rig.now), VLMCC_INPUT_FORGED);
  fail_unless_equals_int (sender_stats (&rig).leader, leader);
  rig_clear (&rig);
}

GST_END_TEST;

/* A distinct address per probe, none of the rig's paths. */
static void
storm_addr (guint i, VlmccAddr * a)
{
  memset (a, 0, sizeof (*a));
  a->len = 3;
  a->bytes[0] = 0xee;
  a->bytes[1] = (guint8) (i >> 8);
  a->bytes[2] = (guint8) i;
}

/* Pops what the sender has queued; the STARTs among it. */
static guint
pop_starts (Rig * rig)
{
  guint8 pkt[1100];
  VlmccAddr to;
  guint n = 0;

  while (vlmcc_sender_pop_transmit (rig->s, pkt, sizeof (pkt), &to))
    n += to.len != 0;
  return n;
}

/* Without a key a forged probe makes the sender send a START to the
 * forged source: reflection. A probe every ms for 1 s from one address
 * gets one START per start_gap (100 ms), probes from 1000 addresses at
 * most the bucket (start_rate) and start_rate a second more; the rest
 * are counted. */
GST_START_TEST (test_start_reflection_bounded)
{
  Rig rig;
  VlmccMsg m = { 0 };
  guint8 buf[64];
  VlmccAddr from;
  VlmccSenderStats before, after;
  guint one = 0, many = 0;
  gint64 t0;

  rig_with_leader (&rig, NULL);
  rig_run (&rig, S);
  before = sender_stats (&rig);
  m.type = VLMCC_MSG_CHALLENGE;
  m.probe = TRUE;
  storm_addr (0, &from);
  t0 = rig.now;
  for (guint i = 0; i < 1000; i++) {
    gsize len;

    m.id = 0x100 + i;
    len = vlmcc_msg_write (&m, buf, sizeof (buf));
    vlmcc_sender_on_feedback (rig.s, buf, len, &from, t0 + i * MS);
    one += pop_starts (&rig);
  }
  fail_unless (one >= 5 && one <= S / rig.cfg.start_gap + 1, "%u", one);
  t0 += S;
  for (guint i = 0; i < 1000; i++) {
    gsize len;

    m.id = 0x1000 + i;
    storm_addr (i + 1, &from);
    len = vlmcc_msg_write (&m, buf, sizeof (buf));
    vlmcc_sender_on_feedback (rig.s, buf, len, &from, t0 + i * MS);
    many += pop_starts (&rig);
  }
  fail_unless (many >= rig.cfg.start_rate && many <= 2 * rig.cfg.start_rate
      + 1, "%u", many);
  after = sender_stats (&rig);
  fail_unless_equals_int (after.probes - before.probes, 2000);
  fail_unless_equals_int (after.starts_refused - before.starts_refused,
      2000 - one - many);
  fail_unless_equals_int (after.control_dropped, before.control_dropped);
  rig_clear (&rig);
}

GST_END_TEST;

/* A challenge claiming a tiny RTT (100 us) and a huge window, from a host
 * that never acks. Equation (6) makes a challenger worse off, so the
 * sender caps its window and RTT to the rate of the moment, and when the
 * claimed leader never acks it goes back to the estimates of before: the
 * rate never rises above a clean run's by more than section 2.4's ramp.
 * With a key an outsider's challenge does not open at all; a member's
 * (sealed under the key) is bounded as an unkeyed one. */
typedef enum {
  FORGE_NONE,                   /* the clean run */
  FORGE_PLAIN,                  /* no key anywhere */
  FORGE_OUTSIDER,               /* the session keyed, the challenge not */
  FORGE_INSIDER,                /* the session keyed, the challenge sealed */
} Forgery;

static guint64
forged_tiny_rtt_run (Forgery how, guint64 * at_forge)
{
  Rig rig;
  VlmccMsg m = { 0 };
  guint8 buf[VLMCC_MAX_CONTROL_SIZE];
  VlmccAddr from;
  gsize len;
  guint64 peak = 0;
  gboolean opens = how != FORGE_OUTSIDER;

  rig_with_leader_keyed (&rig, NULL, how >= FORGE_OUTSIDER);
  /* a standing queue of a few packets: Vegas holds the window; the
   * forgery comes once the receiver's skew estimate is ready (5 s), as
   * before it a queue that builds is seen up to 1 ms a second late (at
   * 3 s the peak was 3.2 Mbit/s for the clean 2.4) */
  rig_run (&rig, S);
  rig.paths[0].extra = 10 * MS;
  rig_run (&rig, 6 * S);
  *at_forge = sender_stats (&rig).rate;
  m.type = VLMCC_MSG_CHALLENGE;
  m.id = 0x0bad;
  m.rtt = 100;
  m.base_rtt = 100;
  m.win = 1000 * 256;
  m.rate = G_MAXUINT32;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  if (how == FORGE_INSIDER) {
    AuthSession *member = auth_session_new (&rig.key, m.id, 2);

    len = auth_seal (member, buf, len, sizeof (buf));
    auth_session_free (member);
  }
  addr_of (3, &from);
  if (how != FORGE_NONE) {
    fail_unless_equals_int (vlmcc_sender_on_feedback (rig.s, buf, len, &from,
            rig.now), opens ? VLMCC_INPUT_TAKEN :
        VLMCC_INPUT_UNAUTHENTICATED);
    fail_unless_equals_int (sender_stats (&rig).leader, opens ? 0x0bad :
        receiver_stats (&rig, 0).id);
    rig_drain_sender (&rig);
  }
  for (gint64 end = rig.now + 3 * S; rig.now < end;) {
    rig_run (&rig, rig.now + MS);
    peak = MAX (peak, sender_stats (&rig).rate);
  }
  /* the real receiver leads again */
  fail_unless_equals_int (sender_stats (&rig).leader,
      receiver_stats (&rig, 0).id);
  rig_clear (&rig);
  return peak;
}

GST_START_TEST (test_forged_tiny_rtt_challenge)
{
  guint64 at_forge, clean_at, clean, peak;
  /* the forged leader never acks: it is given up, and section 2.4's ramp
   * (one packet more per RTT, 60 ms) lasts until the real receiver's
   * challenge, a few packets above the clean run at most */
  guint64 ramp = 4 * 8000 * S / (60 * MS);

  clean = forged_tiny_rtt_run (FORGE_NONE, &clean_at);
  peak = forged_tiny_rtt_run (FORGE_PLAIN, &at_forge);
  fail_unless_equals_int64 (at_forge, clean_at);
  fail_unless (peak <= clean + ramp, "forged %" G_GUINT64_FORMAT " clean %"
      G_GUINT64_FORMAT, peak, clean);
  peak = forged_tiny_rtt_run (FORGE_OUTSIDER, &at_forge);
  fail_unless (peak <= clean + clean / 20, "outsider %" G_GUINT64_FORMAT
      " clean %" G_GUINT64_FORMAT, peak, clean);
  peak = forged_tiny_rtt_run (FORGE_INSIDER, &at_forge);
  fail_unless (peak <= clean + ramp, "member %" G_GUINT64_FORMAT " clean %"
      G_GUINT64_FORMAT, peak, clean);
}

GST_END_TEST;

/* Without a key a forged START can answer a joining receiver's probe
 * before the sender does: an echo of the probe's own stamp gives an RTT
 * of 0 (kept at 1 ns) and the largest window the field holds (2^32 / 256
 * packets). Issue 21's documented effect: the receiver keeps an RTT of
 * nanoseconds (the drift only moves it), so it takes itself for far
 * better off than the sender and never challenges, while its first epoch
 * clamps the window to the sender's rate. With a key the START does not
 * open and the RTT is the path's. A floor is set, so its check runs on the
 * forged window too. (The 64-bit overflow such a START once
 * caused in the floor check has its input in fuzz-vlmcc's corpus.) */
static VlmccReceiverStats
forged_start_tiny_rtt_run (gboolean keyed, VlmccInput * taken)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccMsg m = { 0 };
  guint8 buf[VLMCC_MAX_CONTROL_SIZE];
  VlmccReceiverStats st;
  gsize len;
  guint joiner;

  vlmcc_config_init (&cfg);
  cfg.rate_floor = 400000;
  rig_with_leader_keyed (&rig, &cfg, keyed);
  rig_run (&rig, S);
  joiner = rig_add_path (&rig, 10 * MS);
  rig_run (&rig, rig.now + MS);
  m.type = VLMCC_MSG_START;
  m.target = receiver_stats (&rig, joiner).id;
  m.leader = sender_stats (&rig).leader;
  m.tstamp = (guint32) (rig.now / 1000);
  m.sent = m.tstamp;
  m.win = G_MAXUINT32;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  *taken = vlmcc_receiver_on_control (rig.paths[joiner].r, buf, len, rig.now);
  rig_run (&rig, rig.now + 2 * cfg.leave_time);
  st = receiver_stats (&rig, joiner);
  rig_clear (&rig);
  return st;
}

GST_START_TEST (test_forged_start_tiny_rtt_receiver)
{
  VlmccConfig cfg;
  VlmccReceiverStats st;
  VlmccInput taken;

  st = forged_start_tiny_rtt_run (FALSE, &taken);
  fail_unless_equals_int (taken, VLMCC_INPUT_TAKEN);
  fail_unless (st.rtt < MS, "rtt %" G_GINT64_FORMAT, st.rtt);
  vlmcc_config_init (&cfg);
  fail_unless (st.window <= 2.0 * cfg.n_extra + 1.0, "window %f", st.window);
  fail_unless_equals_int (st.role, VLMCC_ROLE_FOLLOWER);
  fail_unless_equals_int (st.challenges_sent, 0);

  st = forged_start_tiny_rtt_run (TRUE, &taken);
  fail_unless_equals_int (taken, VLMCC_INPUT_UNAUTHENTICATED);
  fail_unless_equals_int (st.role, VLMCC_ROLE_FOLLOWER);
  fail_unless (st.rtt >= 20 * MS, "rtt %" G_GINT64_FORMAT, st.rtt);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Loss detection robust to late acks (issue 19) */

/* A leader 50 ms of RTT away after 2 s (its stats in @before), whose
 * feedback then stalls for @stall (held, in order, never lost); the
 * sender's stats @after later. @cfg: NULL for the defaults. */
static VlmccSenderStats
rig_stall_feedback (Rig * rig, const VlmccConfig * cfg,
    VlmccSenderStats * before, gint64 stall, gint64 after)
{
  rig_with_leader (rig, cfg);
  rig_run (rig, 2 * S);
  *before = sender_stats (rig);
  rig->paths[0].fb_hold = rig->now + stall;
  rig_run (rig, rig->now + after);
  return sender_stats (rig);
}

/* After late acks, all is as if they had been on time: the same leader,
 * every loss taken spurious and every halving undone, the window not
 * smaller. */
static void
check_late_acks_undone (const VlmccSenderStats * st,
    const VlmccSenderStats * before)
{
  fail_unless_equals_int (st->leader, before->leader);
  fail_unless_equals_int (st->spurious_losses, st->lost);
  fail_unless_equals_int (st->halvings_undone, st->halvings);
  fail_unless (st->window >= before->window, "%f < %f", st->window,
      before->window);
}

/* Ten stalls of the leader's feedback of 120 ms each (a reverse queue, a
 * loaded host), no packet lost: acks late but in order are no loss. With
 * the paper's timeout alone (rtt + 4 sigma, 10 ms least margin) every
 * stall took a window of packets as lost and halved. */
GST_START_TEST (test_late_acks_no_halving)
{
  Rig rig;
  VlmccSenderStats before, st;

  rig_stall_feedback (&rig, NULL, &before, 120 * MS, 400 * MS);
  for (gint i = 1; i < 10; i++) {
    rig.paths[0].fb_hold = rig.now + 120 * MS;
    rig_run (&rig, rig.now + 400 * MS);
  }
  st = sender_stats (&rig);
  fail_unless_equals_int (st.lost, 0);
  fail_unless_equals_int (st.halvings, 0);
  fail_unless_equals_int (st.leader_losses, 0);
  check_late_acks_undone (&st, &before);
  rig_clear (&rig);
}

GST_END_TEST;

/* Stalls past the timeout floor (200 ms with a 50 ms RTT). 170 ms: the
 * oldest packets are taken as lost and the window halves, then their
 * acks undo it (spurious-losses). 400 ms: the freed window also lets
 * more than W packets out without an ack and section 2.4 gives the leader
 * up; its late acks make it lead again (no election) and undo the
 * halving. */
GST_START_TEST (test_late_acks_undo)
{
  static const struct
  {
    gint64 stall, look;
    guint gives_up;
  } cases[] = {
    {170 * MS, 190 * MS, 0}, {400 * MS, 380 * MS, 1},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    Rig rig;
    VlmccSenderStats before, st;

    st = rig_stall_feedback (&rig, NULL, &before, cases[i].stall,
        cases[i].look);
    fail_unless (st.lost > 0);
    fail_unless (st.halvings >= 1);
    fail_unless_equals_int (st.leader_losses, cases[i].gives_up);
    /* halved from the window of then, which Vegas grew by one per RTT */
    fail_unless (cases[i].gives_up ? st.leader == 0 :
        st.window <= (before.window + 4.0) / 2.0, "%f from %f", st.window,
        before.window);
    rig_run (&rig, rig.now + 200 * MS);
    st = sender_stats (&rig);
    fail_unless_equals_int (st.leaders_regained, cases[i].gives_up);
    fail_unless_equals_int (st.elections, before.elections);
    check_late_acks_undone (&st, &before);
    rig_clear (&rig);
  }
}

GST_END_TEST;

/* With Vegas+, the halving of a stall past the timeout floor turns the
 * window loss-based (a loss while Vegas); its late acks undo the switch
 * with the halving. */
GST_START_TEST (test_vegas_plus_spurious_switch_undone)
{
  VlmccConfig cfg;
  VlmccSenderStats before, st;
  Rig rig;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  st = rig_stall_feedback (&rig, &cfg, &before, 170 * MS, 190 * MS);
  fail_if (before.loss_based);
  fail_unless (st.halvings >= 1);
  fail_unless (st.loss_based);
  fail_unless_equals_int (st.plus_switches, 1);
  rig_run (&rig, rig.now + 200 * MS);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.halvings_undone, st.halvings);
  fail_if (st.loss_based);
  rig_clear (&rig);
}

GST_END_TEST;

/* A real loss still halves, within about one RTT of the packet leaving:
 * the acks of the packets after it tell (dup_thresh), not the timeout. */
GST_START_TEST (test_real_loss_halves_within_rtt)
{
  Rig rig;
  VlmccSenderStats before, st;
  gint64 t0;

  /* no stall: the leader at 2 s */
  rig_stall_feedback (&rig, NULL, &before, 0, 0);
  rig.paths[0].drop = 1;
  t0 = rig.now;
  while (sender_stats (&rig).halvings == 0 && rig.now < t0 + S)
    rig_run (&rig, rig.now + MS);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.halvings, 1);
  fail_unless (rig.now - t0 <= 3 * st.rtt / 2, "%" G_GINT64_FORMAT " ms",
      (rig.now - t0) / MS);
  rig_run (&rig, rig.now + S);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.lost, 1);
  fail_unless_equals_int (st.spurious_losses, 0);
  fail_unless_equals_int (st.halvings_undone, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* Loops that read late (a loaded host): the leader's reads each data
 * packet 30 ms after it came, the sender's each ack 20 ms after. Stamped
 * at arrival, the sender's RTT is the path's 50 ms (the leader's ack adds
 * the 30 ms it held the packet to the echoed tstamp); stamped when read,
 * both lags are in it. */
static VlmccSenderStats
loop_lag_run (gboolean unstamped)
{
  Rig rig;
  VlmccSenderStats st;

  rig_init (&rig, NULL);
  rig.unstamped = unstamped;
  rig.fb_read_lag = 20 * MS;
  rig_add_path (&rig, 25 * MS);
  rig.paths[0].read_lag = 30 * MS;
  rig_run (&rig, 3 * S);
  st = sender_stats (&rig);
  fail_unless_equals_int (st.leader, receiver_stats (&rig, 0).id);
  rig_clear (&rig);
  return st;
}

GST_START_TEST (test_loop_lag_rtt)
{
  VlmccSenderStats stamped = loop_lag_run (FALSE);
  VlmccSenderStats unstamped = loop_lag_run (TRUE);

  fail_unless (ABS (stamped.rtt - 50 * MS) <= MS / 10, "rtt %"
      G_GINT64_FORMAT " us", stamped.rtt / 1000);
  fail_unless (ABS (stamped.base_rtt - 50 * MS) <= MS / 10, "base %"
      G_GINT64_FORMAT " us", stamped.base_rtt / 1000);
  fail_unless (ABS (unstamped.rtt - 100 * MS) <= MS, "rtt %"
      G_GINT64_FORMAT " us", unstamped.rtt / 1000);
  fail_unless_equals_int (stamped.halvings, 0);
}

GST_END_TEST;

/* The sender's loop reads each probe 30 ms after it came (a loaded host)
 * and answers it then; both paths 25 ms each way. Returns the follower's
 * stats at 3 s; with @set, every START's hold is rewritten to @hold_us
 * on the way (0: a sender that predates the field); @take: the
 * receivers' start_hold. */
static VlmccReceiverStats
start_hold_run (gboolean set, guint32 hold_us, gboolean take)
{
  Rig rig;
  VlmccConfig cfg;
  VlmccReceiverStats st;

  vlmcc_config_init (&cfg);
  cfg.start_hold = take;
  rig_init (&rig, &cfg);
  rig.fb_read_lag = 30 * MS;
  rig.start_hold_set = set;
  rig.start_hold_us = hold_us;
  rig_add_path (&rig, 25 * MS);
  rig_add_path (&rig, 25 * MS);
  rig_run (&rig, 3 * S);
  fail_unless_equals_int (sender_stats (&rig).leader,
      receiver_stats (&rig, 0).id);
  st = receiver_stats (&rig, 1);
  rig_clear (&rig);
  return st;
}

/* The START reports the 30 ms it was held and the follower takes them out
 * of its START's RTT: its RTT and base are the path's 50 ms. Without the
 * field, or with start_hold off, they stay 30 ms high; a hold not under
 * the RTT is counted and ignored. */
GST_START_TEST (test_start_hold)
{
  VlmccReceiverStats held = start_hold_run (FALSE, 0, TRUE);
  VlmccReceiverStats old = start_hold_run (TRUE, 0, TRUE);
  VlmccReceiverStats absurd = start_hold_run (TRUE, 500000, TRUE);
  VlmccReceiverStats off = start_hold_run (FALSE, 0, FALSE);

  fail_unless_equals_int (held.starts, 1);
  fail_unless_equals_int (held.start_hold, 30 * MS);
  fail_unless (ABS (held.rtt - 50 * MS) <= MS / 10, "rtt %"
      G_GINT64_FORMAT " us", held.rtt / 1000);
  fail_unless (ABS (held.base_rtt - 50 * MS) <= MS / 10, "base %"
      G_GINT64_FORMAT " us", held.base_rtt / 1000);
  fail_unless_equals_int (held.start_holds_invalid, 0);
  fail_unless (ABS (old.rtt - 80 * MS) <= MS / 10, "rtt %"
      G_GINT64_FORMAT " us", old.rtt / 1000);
  fail_unless (ABS (old.base_rtt - 80 * MS) <= MS / 10, "base %"
      G_GINT64_FORMAT " us", old.base_rtt / 1000);
  fail_unless_equals_int (old.start_hold, 0);
  fail_unless_equals_int (absurd.start_holds_invalid, 1);
  fail_unless_equals_int (absurd.start_hold, 0);
  fail_unless (ABS (absurd.base_rtt - 80 * MS) <= MS / 10, "base %"
      G_GINT64_FORMAT " us", absurd.base_rtt / 1000);
  /* take_start_hold off: the RTT as it came */
  fail_unless_equals_int (off.start_hold, 0);
  fail_unless (ABS (off.base_rtt - 80 * MS) <= MS / 10, "base %"
      G_GINT64_FORMAT " us", off.base_rtt / 1000);
}

GST_END_TEST;

/* How a leader on a loaded host delays the exchange: its loop acks each
 * packet @ack_lag late (the hold reported), the sender reads each ack
 * @feedback_lag late and wakes @wake_lag after each deadline. With
 * @jitter the arrival stamps are late by 5-10 ms, so that much of the hold
 * reads as path delay that no queue explains, and the delay program holds
 * one packet in 16 up to 20 ms (order kept). */
typedef struct
{
  gint64 ack_lag, feedback_lag, wake_lag;
  gboolean jitter;
  guint queue;                  /* the source's packets queued, 0: 4 */
} HostLag;

/* A leader 10 ms each way behind a 2 Mbit/s bottleneck (250 packets/s)
 * whose hosts lag as @lag says. Returns the sender's packets a second over
 * 5-10 s, its stats at 10 s in @end. */
static gdouble
loaded_leader_rate (const VlmccConfig * cfg, const HostLag * lag,
    VlmccSenderStats * end)
{
  Rig rig;
  guint64 sent;

  rig_init (&rig, cfg);
  rig.fb_read_lag = lag->feedback_lag;
  rig.sender_wake_lag = lag->wake_lag;
  rig.queue_depth = lag->queue;
  rig_add_path (&rig, 10 * MS);
  rig.paths[0].link_per_packet = 4 * MS;
  rig.paths[0].read_lag = lag->ack_lag;
  if (lag->jitter) {
    rig.paths[0].stamp_jitter = 10 * MS;
    rig.paths[0].hold_jitter = 20 * MS;
  }
  rig_run (&rig, 5 * S);
  sent = sender_stats (&rig).sent;
  rig_run (&rig, 10 * S);
  *end = sender_stats (&rig);
  fail_unless_equals_int (end->leader, receiver_stats (&rig, 0).id);
  rig_clear (&rig);
  return (end->sent - sent) / 5.0;
}

/* The leader acks 30 ms late with jittered stamps. Returns the sender's
 * packets a second and its window at 10 s. */
static gdouble
ack_clock_run (gboolean ack_clock, gdouble * window)
{
  const HostLag lag = {.ack_lag = 30 * MS,.jitter = TRUE };
  VlmccConfig cfg;
  VlmccSenderStats end;
  gdouble rate;

  vlmcc_config_init (&cfg);
  cfg.vegas_ack_clock = ack_clock;
  cfg.window_covers_hold = FALSE;       /* the paper's window, as measured */
  rate = loaded_leader_rate (&cfg, &lag, &end);
  *window = end.window;
  return rate;
}

GST_START_TEST (test_vegas_ack_clock)
{
  gdouble w_paper, w_clock;
  gdouble paper = ack_clock_run (FALSE, &w_paper);
  gdouble clock = ack_clock_run (TRUE, &w_clock);

  GST_INFO ("paper %.1f packets/s (W %.0f), ack clock %.1f (W %.0f)",
      paper, w_paper, clock, w_clock);
  fail_unless (clock >= 0.9 * 250, "ack clock: %.1f packets/s, W %.0f",
      clock, w_clock);
  fail_unless (clock <= 250.5, "%.1f packets/s", clock);
  fail_unless (paper < 0.9 * 250, "paper: %.1f packets/s, W %.0f", paper,
      w_paper);
}

GST_END_TEST;

/* Loaded (@loaded): the leader acks 20 ms late, the sender reads each ack
 * 10 ms late, with jittered stamps (rtt hat stands above the base with no
 * queue). Returns the sender's packets a second; its window in @window. */
static gdouble
hold_window_run (gboolean covers, gboolean loaded, gdouble * window)
{
  const HostLag quiet = { 0 }, busy = {.ack_lag = 20 * MS,.feedback_lag =
        10 * MS,.jitter = TRUE
  };
  VlmccConfig cfg;
  VlmccSenderStats end;
  gdouble rate;

  vlmcc_config_init (&cfg);
  cfg.window_covers_hold = covers;
  rate = loaded_leader_rate (&cfg, loaded ? &busy : &quiet, &end);
  *window = end.window;
  fail_unless_equals_int (end.leader_losses, 0);
  return rate;
}

/* Loaded, W in travel sends W per rtt hat plus the hosts' 30 ms; with
 * the window covering the hold the sender sends more, never above the
 * link. With no hold both are the paper's, packet for packet. */
GST_START_TEST (test_window_covers_hold)
{
  gdouble w_off, w_on, w_quiet_off, w_quiet_on;
  gdouble off = hold_window_run (FALSE, TRUE, &w_off);
  gdouble on = hold_window_run (TRUE, TRUE, &w_on);
  gdouble quiet_off = hold_window_run (FALSE, FALSE, &w_quiet_off);
  gdouble quiet_on = hold_window_run (TRUE, FALSE, &w_quiet_on);

  GST_INFO ("loaded: off %.1f packets/s (W %.0f), on %.1f (W %.0f); "
      "quiet: off %.1f (W %.0f), on %.1f (W %.0f)", off, w_off, on, w_on,
      quiet_off, w_quiet_off, quiet_on, w_quiet_on);
  fail_unless (on >= 1.05 * off, "on: %.1f packets/s, W %.0f; off %.1f",
      on, w_on, off);
  fail_unless (on <= 250.5, "%.1f packets/s", on);
  fail_unless (quiet_on == quiet_off, "quiet: %.1f and %.1f", quiet_on,
      quiet_off);
  fail_unless (w_quiet_on == w_quiet_off);
}

GST_END_TEST;

/* The leader acks 10 ms late with jittered stamps (rtt hat above the base
 * with no queue, so Vegas does not grow the window over the pacing's
 * loss), and the sender's loop wakes @lag after each deadline. Returns the
 * sender's packets a second. */
static gdouble
catch_up_run (gint64 catch_up, gint64 lag)
{
  /* a greedy source, as on the bed: a queue the late turn cannot empty */
  const HostLag host = {.ack_lag = 10 * MS,.wake_lag = lag,.jitter = TRUE,
    .queue = 32
  };
  VlmccConfig cfg;
  VlmccSenderStats end;

  vlmcc_config_init (&cfg);
  cfg.pacing_catch_up = catch_up;
  cfg.window_covers_hold = FALSE;       /* the paper's window */
  return loaded_leader_rate (&cfg, &host, &end);
}

/* A loop that wakes 12 ms late for every deadline: paced from the late
 * send each gap grows by 12 ms and the sender loses a tenth of its rate;
 * from the schedule it gets most of it back (224.0 against 208.0 and
 * 229.6 on time; 30 ms of catch-up gives the same, so the rest is not the
 * pace's), never more than on time: the time the window held the sender
 * is not made up (that version sent 230.2). */
GST_START_TEST (test_pacing_catch_up)
{
  gdouble late_off = catch_up_run (0, 12 * MS);
  gdouble late_on = catch_up_run (10 * MS, 12 * MS);
  gdouble on_time_off = catch_up_run (0, 0);
  gdouble on_time_on = catch_up_run (10 * MS, 0);

  GST_INFO ("woken 12 ms late: %.1f packets/s paced from the send, %.1f "
      "from the schedule; on time %.1f and %.1f", late_off, late_on,
      on_time_off, on_time_on);
  fail_unless (late_on - late_off >= 0.5 * (on_time_off - late_off),
      "%.1f packets/s against %.1f late and %.1f on time", late_on, late_off,
      on_time_off);
  fail_unless (late_on <= on_time_off + 0.5, "%.1f packets/s against %.1f "
      "on time", late_on, on_time_off);
  fail_unless (late_off < 0.95 * on_time_off, "%.1f packets/s against %.1f",
      late_off, on_time_off);
  fail_unless (ABS (on_time_on - on_time_off) <= 0.01 * on_time_off,
      "%.1f and %.1f", on_time_on, on_time_off);
}

GST_END_TEST;

/* A follower 50 ms of RTT from the sender, beside a leader on a path
 * like its own, whose loop stops reading for @stall every 500 ms: the
 * packets of the stall are then read at once. Returns the largest
 * distance of its RTT estimate from the path's over 5 s, and its
 * challenges in @challenges. Read-time stamps see a queue that is not
 * there (equations 4 and 5), its window falls and it challenges. */
static gint64
follower_stall_run (gboolean unstamped, gint64 stall, guint64 * challenges)
{
  Rig rig;
  gint64 worst = 0;

  rig_init (&rig, NULL);
  rig.unstamped = unstamped;
  rig_add_path (&rig, 25 * MS); /* the leader */
  rig_add_path (&rig, 25 * MS); /* the follower */
  rig_run (&rig, 2 * S);
  fail_unless_equals_int (receiver_stats (&rig, 1).role,
      VLMCC_ROLE_FOLLOWER);
  while (rig.now < 7 * S) {
    if (rig.now % (500 * MS) == 0)
      rig.paths[1].read_hold = rig.now + stall;
    rig_run (&rig, rig.now + 10 * MS);
    worst = MAX (worst, ABS (receiver_stats (&rig, 1).rtt - 50 * MS));
  }
  *challenges = receiver_stats (&rig, 1).challenges_sent;
  rig_clear (&rig);
  return worst;
}

GST_START_TEST (test_follower_stall_drift)
{
  guint64 stamped_challenges, unstamped_challenges;
  gint64 stamped = follower_stall_run (FALSE, 150 * MS, &stamped_challenges);
  gint64 unstamped = follower_stall_run (TRUE, 150 * MS,
      &unstamped_challenges);

  GST_INFO ("follower RTT off by %" G_GINT64_FORMAT " us stamped, %"
      G_GINT64_FORMAT " us read-time; challenges %" G_GUINT64_FORMAT
      " and %" G_GUINT64_FORMAT, stamped / 1000, unstamped / 1000,
      stamped_challenges, unstamped_challenges);
  fail_unless (stamped <= MS / 10, "off by %" G_GINT64_FORMAT " us",
      stamped / 1000);
  fail_unless (unstamped >= 5 * MS, "off by %" G_GINT64_FORMAT " us",
      unstamped / 1000);
  fail_unless_equals_int (stamped_challenges, 0);
}

GST_END_TEST;

/* RFC 9438's window, written out for the test: after a reduction at t0
 * from @prior to beta prior (or below the last peak, fast convergence),
 * W(t) = 0.4 (t - K)^3 + w_max and the Reno-friendly w_est, one step per
 * RTT, the sender keeping whole packets. With steady_alpha (cubic-linux)
 * w_est keeps alpha_cubic past the prior window; past_prior counts the
 * steps whose window was w_est past it. */
typedef struct {
  gint64 t0;
  gdouble w_max, k, w_est, prior;
  gdouble window;
  gboolean steady_alpha;
  guint past_prior;
} CubicModel;

static void
cubic_model_reduce (CubicModel * m, gdouble before, gdouble after,
    gdouble w_max, gint64 t0)
{
  m->t0 = t0;
  m->prior = before;
  m->w_max = w_max;
  m->k = cbrt ((w_max - after) / 0.4);
  m->w_est = after;
  m->window = floor (after);
}

static gdouble
cubic_model_w (const CubicModel * m, gint64 t)
{
  return 0.4 * pow (t / 1e9 - m->k, 3) + m->w_max;
}

/* The window after the step at epoch time @t of an epoch @rtt long. */
static gdouble
cubic_model_step (CubicModel * m, gint64 t, gint64 rtt)
{
  gboolean past = m->w_est >= m->prior;
  gdouble next;

  m->w_est += past && !m->steady_alpha ? 1.0 : 3.0 * 0.3 / 1.7;
  if (cubic_model_w (m, t - m->t0) < m->w_est) {
    next = MAX (m->window, m->w_est);
    m->past_prior += past;
  } else {
    next = CLAMP (cubic_model_w (m, t - m->t0 + rtt), m->window,
        1.5 * m->window);
  }
  m->window = floor (next);
  return m->window;
}

/* The sender's window in a RATE event, at the RTT @rtt. */
static gdouble
event_window (const VlmccEvent * ev, gint64 rtt)
{
  return round (ev->rate * (gdouble) rtt / 8e12);
}

/* The first RATE event at or after @from with a window under the one
 * before it: a reduction. Its window and the one before in *@before. */
static const VlmccEvent *
find_reduction (const GArray * events, gint64 from, gint64 rtt,
    gdouble * before)
{
  gdouble last = 0;

  for (guint i = 0; i < events->len; i++) {
    const VlmccEvent *ev = &g_array_index (events, VlmccEvent, i);

    if (ev->type != VLMCC_EVENT_RATE)
      continue;
    if (ev->time >= from && event_window (ev, rtt) < last) {
      *before = last;
      return ev;
    }
    last = event_window (ev, rtt);
  }
  return NULL;
}

/* The first epoch after @t0: epochs come every @rtt in the phase of the
 * last growth (an epoch's step) before it. */
static gint64
first_epoch_after (const GArray * events, gint64 t0, gint64 rtt)
{
  gint64 epoch = -1;
  gdouble last = 0;

  for (guint i = 0; i < events->len; i++) {
    const VlmccEvent *ev = &g_array_index (events, VlmccEvent, i);

    if (ev->type != VLMCC_EVENT_RATE || ev->time >= t0)
      continue;
    if (event_window (ev, rtt) > last)
      epoch = ev->time;
    last = event_window (ev, rtt);
  }
  fail_unless (epoch >= 0);
  while (epoch <= t0)
    epoch += rtt;
  return epoch;
}

/* Drops one packet of the leader's path at @at and returns the
 * reduction's event time; the window before it in *@before. */
static gint64
rig_drop_one (Rig * rig, gint64 at, gint64 rtt, gdouble * before)
{
  const VlmccEvent *ev;
  guint64 halvings = sender_stats (rig).halvings;

  rig_run (rig, at);
  rig->paths[0].drop = 1;
  while (sender_stats (rig).halvings == halvings && rig->now < at + 3 * rtt)
    rig_run (rig, rig->now + MS);
  ev = find_reduction (rig->sender_events, at, rtt, before);
  fail_unless (ev != NULL);
  return ev->time;
}

/* Compares the window in the middle of each epoch from @epoch to @until
 * with the model's. */
static void
check_cubic_trace (Rig * rig, CubicModel * m, gint64 epoch, gint64 until,
    gint64 rtt)
{
  for (; epoch + rtt / 2 < until; epoch += rtt) {
    gdouble want = cubic_model_step (m, epoch, rtt);

    rig_run (rig, epoch + rtt / 2);
    fail_unless_equals_float (sender_stats (rig).window, want);
  }
}

/* The cubic loss-based mode (plus_loss_mode cubic) on a path with no
 * bottleneck, 200 ms RTT: a loss while Vegas halves the window and turns
 * it loss-based; from there the window is RFC 9438's, epoch by epoch, to
 * the packet: the concave region below the peak, the Reno-friendly
 * estimate where it is ahead, the convex region past the peak; a loss in
 * the loss-based mode takes it to 0.7 of itself, the peak lowered (fast
 * convergence) when it is under the last one. The reno mode of before
 * grows one packet per RTT on the same path. */
static void
rig_with_far_leader (Rig * rig, const VlmccConfig * cfg)
{
  rig_init (rig, cfg);
  rig_add_path (rig, 100 * MS);
  rig_run (rig, 8 * S);
  fail_unless_equals_int (receiver_stats (rig, 0).role, VLMCC_ROLE_LEADER);
}

GST_START_TEST (test_vegas_plus_cubic_growth)
{
  VlmccConfig cfg;
  CubicModel m = { 0 };
  Rig rig;
  gdouble before, w;
  gint64 rtt, t0;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  cfg.plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC;
  /* no quiet spell hands the window back to Vegas */
  cfg.plus_loss_epochs = 1000;
  rig_with_far_leader (&rig, &cfg);
  rtt = sender_stats (&rig).rtt;
  fail_unless (rtt >= 200 * MS && rtt < 200 * MS + 1000);
  fail_if (sender_stats (&rig).loss_based);

  /* Vegas' halving switches, the cubic epoch starts from it */
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  fail_unless (before >= 30, "%f", before);
  fail_unless (sender_stats (&rig).loss_based);
  cubic_model_reduce (&m, before, before / 2.0, before, t0);
  check_cubic_trace (&rig, &m, first_epoch_after (rig.sender_events, t0,
          rtt), t0 + 3 * S, rtt);
  w = sender_stats (&rig).window;
  fail_unless (w < before && w > before * 0.8, "%f from %f", w, before);

  /* under the last peak: x 0.7, the peak lowered to 0.85 W */
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  fail_unless_equals_float (sender_stats (&rig).window, floor (0.7 * before));
  cubic_model_reduce (&m, before, 0.7 * before, 0.85 * before, t0);
  check_cubic_trace (&rig, &m, first_epoch_after (rig.sender_events, t0,
          rtt), t0 + 8 * S, rtt);
  /* past the peak: convex growth, faster than one packet per RTT */
  w = sender_stats (&rig).window;
  fail_unless (w > 1.5 * before, "%f from %f", w, before);
  fail_unless_equals_int (sender_stats (&rig).halvings, 2);
  fail_unless (sender_stats (&rig).loss_based);
  rig_clear (&rig);

  /* the reno mode: +1 per RTT from the halving */
  cfg.plus_loss_mode = VLMCC_PLUS_LOSS_RENO;
  rig_with_far_leader (&rig, &cfg);
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  rig_run (&rig, first_epoch_after (rig.sender_events, t0, rtt) + rtt / 2);
  fail_unless_equals_float (sender_stats (&rig).window,
      floor (before / 2.0) + 1);
  for (guint i = 1; i <= 20; i++) {
    rig_run (&rig, rig.now + rtt);
    fail_unless_equals_float (sender_stats (&rig).window,
        floor (before / 2.0) + 1 + i);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* plus_recovery_hold: after a reduction in the loss-based mode the window
 * stays one RTT (a TCP's fast recovery) and grows from the epoch after
 * it: the reno mode's +1 per RTT one epoch later than without, and the
 * cubic mode's window unchanged for the RTT after its x 0.7. */
GST_START_TEST (test_vegas_plus_recovery_hold)
{
  VlmccConfig cfg;
  Rig rig;
  gdouble before, reduced;
  gint64 rtt, t0, epoch;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  cfg.plus_loss_epochs = 1000;
  cfg.plus_recovery_hold = TRUE;
  cfg.plus_loss_mode = VLMCC_PLUS_LOSS_RENO;
  rig_with_far_leader (&rig, &cfg);
  rtt = sender_stats (&rig).rtt;
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  fail_unless (sender_stats (&rig).loss_based);
  epoch = first_epoch_after (rig.sender_events, t0, rtt);
  fail_unless (epoch < t0 + rtt);
  /* the first epoch falls inside the hold: no growth */
  rig_run (&rig, epoch + rtt / 2);
  fail_unless_equals_float (sender_stats (&rig).window, floor (before / 2.0));
  for (guint i = 1; i <= 10; i++) {
    rig_run (&rig, rig.now + rtt);
    fail_unless_equals_float (sender_stats (&rig).window,
        floor (before / 2.0) + i);
  }
  rig_clear (&rig);

  /* the cubic mode, already loss-based: x 0.7, then held for an RTT */
  cfg.plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC;
  rig_with_far_leader (&rig, &cfg);
  rig_drop_one (&rig, rig.now, rtt, &before);
  rig_run (&rig, rig.now + 10 * rtt);
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  reduced = sender_stats (&rig).window;
  fail_unless_equals_float (reduced, floor (0.7 * before));
  epoch = first_epoch_after (rig.sender_events, t0, rtt);
  rig_run (&rig, epoch + rtt / 2);
  fail_unless_equals_float (sender_stats (&rig).window, reduced);
  rig_run (&rig, rig.now + 3 * rtt);
  fail_unless (sender_stats (&rig).window > reduced, "%f",
      sender_stats (&rig).window);
  rig_clear (&rig);
}

GST_END_TEST;

/* plus_loss_segment: a reduction in the loss-based mode leaves whole
 * 1448-byte segments of 1000-byte packets (0.7 W floored in segments),
 * the cubic epoch grows from there; off, 0.7 W floored in packets. */
static gdouble
whole_segments_of (gdouble reduced, gdouble seg)
{
  return floor (MAX (floor (reduced / seg), 2.0) * seg);
}

GST_START_TEST (test_vegas_plus_loss_segment)
{
  VlmccConfig cfg;
  Rig rig;
  gdouble before, reduced, seg;
  gint64 rtt;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  cfg.plus_loss_epochs = 1000;
  cfg.plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC;
  cfg.plus_loss_segment = 1448;
  seg = 1448.0 / cfg.packet_size;
  rig_with_far_leader (&rig, &cfg);
  rtt = sender_stats (&rig).rtt;
  /* Vegas' halving switches; the halved window is floored in segments */
  rig_drop_one (&rig, rig.now, rtt, &before);
  fail_unless (sender_stats (&rig).loss_based);
  fail_unless_equals_float (sender_stats (&rig).window,
      whole_segments_of (before / 2.0, seg));
  rig_run (&rig, rig.now + 10 * rtt);
  /* a loss in the loss-based mode: 0.7 W in whole segments */
  rig_drop_one (&rig, rig.now, rtt, &before);
  reduced = sender_stats (&rig).window;
  fail_unless (whole_segments_of (0.7 * before, seg) < floor (0.7 * before),
      "%f: no segment to lose", before);
  fail_unless_equals_float (reduced, whole_segments_of (0.7 * before, seg));
  rig_run (&rig, rig.now + 3 * rtt);
  fail_unless (sender_stats (&rig).window > reduced, "%f",
      sender_stats (&rig).window);
  rig_clear (&rig);
}

GST_END_TEST;

/* The window of the cubic loss-based mode from a Vegas halving at 50 ms
 * RTT, where the Reno-friendly estimate reaches the window of before the
 * halving (the prior) long before the cubic curve does: @mode's trace to
 * the packet for 3 s. Returns the window then. */
static gdouble
cubic_past_prior_window (VlmccPlusLossMode mode)
{
  VlmccConfig cfg;
  CubicModel m = { 0 };
  Rig rig;
  gdouble before, w;
  gint64 rtt, t0;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  cfg.plus_loss_mode = mode;
  cfg.plus_loss_epochs = 1000;
  rig_with_leader (&rig, &cfg);
  rig_run (&rig, 2 * S);
  rtt = sender_stats (&rig).rtt;
  fail_unless (rtt >= 50 * MS && rtt < 50 * MS + 1000);
  t0 = rig_drop_one (&rig, rig.now, rtt, &before);
  fail_unless (before >= 20 && before <= 60, "%f", before);
  fail_unless (sender_stats (&rig).loss_based);
  m.steady_alpha = mode == VLMCC_PLUS_LOSS_CUBIC_LINUX;
  cubic_model_reduce (&m, before, before / 2.0, before, t0);
  check_cubic_trace (&rig, &m, first_epoch_after (rig.sender_events, t0,
          rtt), t0 + 3 * S, rtt);
  /* the trace went through the region where the two modes differ */
  fail_unless (m.past_prior >= 10, "%u", m.past_prior);
  w = sender_stats (&rig).window;
  fail_unless_equals_int (sender_stats (&rig).halvings, 1);
  rig_clear (&rig);
  return w;
}

/* RFC 9438 4.3: the Reno-friendly estimate grows alpha_cubic = 3 (1 - 0.7)
 * / (1 + 0.7) packets per RTT and one once past the prior window (cubic);
 * cubic-linux keeps alpha_cubic there, as Linux's tcp_cubic, the pace at
 * which x 0.7 matches Reno's mean rate. */
GST_START_TEST (test_vegas_plus_cubic_reno_friendly)
{
  gdouble rfc = cubic_past_prior_window (VLMCC_PLUS_LOSS_CUBIC);
  gdouble linux_w = cubic_past_prior_window (VLMCC_PLUS_LOSS_CUBIC_LINUX);

  fail_unless (linux_w < rfc - 5, "%f against %f", linux_w, rfc);
}

GST_END_TEST;

/* STARTs queued for probes are bounded; the rest are counted. */
GST_START_TEST (test_probe_storm_bounded)
{
  Rig rig;
  VlmccMsg m = { 0 };
  guint8 buf[64];
  VlmccAddr from;
  gsize len;

  VlmccSenderStats st;

  rig_with_leader (&rig, NULL);
  m.type = VLMCC_MSG_CHALLENGE;
  m.probe = TRUE;
  for (guint i = 0; i < 1000; i++) {
    m.id = 0x100 + i;
    storm_addr (i, &from);
    len = vlmcc_msg_write (&m, buf, sizeof (buf));
    vlmcc_sender_on_feedback (rig.s, buf, len, &from, rig.now);
  }
  st = sender_stats (&rig);
  fail_unless_equals_int (st.probes, 1000 + 1);
  /* the START budget answers a bucket's worth, the queue holds 64 */
  fail_unless_equals_int (pop_starts (&rig), VLMCC_MAX_QUEUED_CONTROL);
  fail_unless_equals_int (st.control_dropped + st.starts_refused,
      1000 - VLMCC_MAX_QUEUED_CONTROL);
  fail_unless (st.starts_refused >= 1000 - rig.cfg.start_rate);
  rig_clear (&rig);
}

GST_END_TEST;

/* The first datagram @r sends (its join probe). */
static gsize
first_probe (gboolean keyed, guint8 * buf, gsize max)
{
  RandomSeeded seeded;
  RandomSource rng;
  VlmccConfig cfg;
  VlmccReceiver *r;
  AuthKey key;
  gsize len;

  vlmcc_config_init (&cfg);
  random_source_init_seeded (&rng, &seeded, 3);
  r = vlmcc_receiver_new (&cfg, &rng, 0);
  memset (&key, 0x5a, sizeof (key));
  if (keyed)
    vlmcc_receiver_set_key (r, &key);
  len = vlmcc_receiver_pop_transmit (r, buf, max);
  vlmcc_receiver_free (r);
  return len;
}

/* With a key every control packet is the unkeyed bytes plus the trailer,
 * and a keyed session runs exactly as an unkeyed one. */
GST_START_TEST (test_keyed_bytes_and_behaviour)
{
  guint8 plain[64], sealed[64];
  gsize plain_len, sealed_len;
  Rig a, b;
  VlmccSenderStats sa, sb;
  VlmccReceiverStats rb;

  plain_len = first_probe (FALSE, plain, sizeof (plain));
  sealed_len = first_probe (TRUE, sealed, sizeof (sealed));
  fail_unless_equals_int (plain_len, VLMCC_CHALLENGE_SIZE);
  fail_unless_equals_int (sealed_len, plain_len + AUTH_TRAILER_SIZE);
  fail_unless (memcmp (plain, sealed, plain_len) == 0);
  /* too small a buffer for the trailer: it stays queued */
  fail_unless_equals_int (first_probe (TRUE, sealed, VLMCC_CHALLENGE_SIZE),
      0);

  rig_with_leader_keyed (&a, NULL, FALSE);
  rig_with_leader_keyed (&b, NULL, TRUE);
  rig_add_path (&a, 40 * MS);
  rig_add_path (&b, 40 * MS);
  rig_run (&a, 3 * S);
  rig_run (&b, 3 * S);
  fail_unless_equals_int (g_bytes_get_size (b.last_start),
      g_bytes_get_size (a.last_start) + AUTH_TRAILER_SIZE);
  fail_unless_equals_int (g_bytes_get_size (b.last_feedback),
      g_bytes_get_size (a.last_feedback) + AUTH_TRAILER_SIZE);
  sa = sender_stats (&a);
  sb = sender_stats (&b);
  fail_unless_equals_int (sb.leader, sa.leader);
  fail_unless_equals_float (sb.window, sa.window);
  fail_unless_equals_int64 (sb.rtt, sa.rtt);
  fail_unless_equals_int (sb.acked, sa.acked);
  fail_unless (sb.authenticated && !sa.authenticated);
  fail_unless_equals_int (sb.auth.accepted, sb.acked + sb.stale + sb.forged +
      sb.probes + sb.challenges);
  fail_unless_equals_int (sb.auth.bad_tag + sb.auth.truncated +
      sb.auth.replayed + sb.auth.too_old, 0);
  rb = receiver_stats (&b, 1);
  fail_unless_equals_int (rb.auth.accepted, rb.starts);
  fail_unless_equals_int (rb.role, receiver_stats (&a, 1).role);
  rig_clear (&a);
  rig_clear (&b);
}

GST_END_TEST;

/* Whether the sender's state that control could move is as in @before. */
static void
check_sender_unmoved (Rig * rig, const VlmccSenderStats * before)
{
  VlmccSenderStats now = sender_stats (rig);

  fail_unless_equals_int (now.leader, before->leader);
  fail_unless_equals_float (now.window, before->window);
  fail_unless_equals_int64 (now.rtt, before->rtt);
  fail_unless_equals_int (now.acked, before->acked);
  fail_unless_equals_int (now.challenges, before->challenges);
  fail_unless_equals_int (now.probes, before->probes);
  fail_unless_equals_int (now.malformed, before->malformed);
  fail_unless_equals_int (now.forged, before->forged);
  fail_unless_equals_int (now.elections, before->elections);
}

/* Feeds @len bytes to the sender as a stranger's: refused unparsed. */
static void
feed_refused (Rig * rig, const guint8 * data, gsize len)
{
  VlmccAddr from;

  addr_of (0, &from);
  fail_unless_equals_int (vlmcc_sender_on_feedback (rig->s, data, len,
          &from, rig->now), VLMCC_INPUT_UNAUTHENTICATED);
}

/* With a key: unsealed, cut, made under another key and replayed acks and
 * challenges are counted by verdict and change nothing; so are STARTs at
 * a receiver. */
GST_START_TEST (test_keyed_forged_control)
{
  Rig rig;
  VlmccSenderStats before, after;
  VlmccReceiverStats rb, ra;
  VlmccMsg m = { 0 };
  guint8 buf[128];
  gsize len;
  AuthKey other;
  AuthSession *foreign;
  GBytes *ack, *start;
  guint32 leader;

  rig_with_leader_keyed (&rig, NULL, TRUE);
  rig_run (&rig, S);
  ack = g_bytes_ref (rig.last_feedback);
  start = g_bytes_ref (rig.last_start);
  rig_run (&rig, rig.now + 200 * MS);   /* the captured ack has arrived */
  before = sender_stats (&rig);
  leader = before.leader;

  /* an ack, unsealed (as long as a trailer, so a bad tag) and cut to 16
   * bytes (shorter than a trailer); a
   * challenge to take the lead with a 1-packet window, unsealed
   * and with 24 random trailer bytes */
  m.type = VLMCC_MSG_ACK;
  m.id = leader;
  m.seq = 0;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  feed_refused (&rig, buf, len);
  feed_refused (&rig, buf, 16);
  len = challenge_write (0xbad, 1, 50 * MS, buf);
  feed_refused (&rig, buf, len);
  for (guint i = 0; i < AUTH_TRAILER_SIZE; i++)
    buf[len + i] = (guint8) g_random_int ();
  feed_refused (&rig, buf, len + AUTH_TRAILER_SIZE);
  /* the same challenge sealed under another key */
  memset (&other, 0xa5, sizeof (other));
  foreign = auth_session_new (&other, 0xbad, 4);
  len = auth_seal (foreign, buf, challenge_write (0xbad, 1, 50 * MS, buf),
      sizeof (buf));
  feed_refused (&rig, buf, len);
  auth_session_free (foreign);
  /* the leader's captured ack, again */
  feed_refused (&rig, g_bytes_get_data (ack, NULL), g_bytes_get_size (ack));

  after = sender_stats (&rig);
  check_sender_unmoved (&rig, &before);
  fail_unless_equals_int (after.auth.truncated, before.auth.truncated + 1);
  fail_unless_equals_int (after.auth.bad_tag, before.auth.bad_tag + 4);
  fail_unless_equals_int (after.auth.replayed + after.auth.too_old,
      before.auth.replayed + before.auth.too_old + 1);
  fail_unless_equals_int (after.auth.accepted, before.auth.accepted);

  /* the receiver: an unsealed START naming it and the captured one */
  rb = receiver_stats (&rig, 0);
  m.type = VLMCC_MSG_START;
  m.target = rb.id;
  m.leader = 0xbad;
  len = vlmcc_msg_write (&m, buf, sizeof (buf));
  fail_unless_equals_int (vlmcc_receiver_on_control (rig.paths[0].r, buf,
          len, rig.now), VLMCC_INPUT_UNAUTHENTICATED);
  fail_unless_equals_int (vlmcc_receiver_on_control (rig.paths[0].r,
          g_bytes_get_data (start, NULL), g_bytes_get_size (start), rig.now),
      VLMCC_INPUT_UNAUTHENTICATED);
  ra = receiver_stats (&rig, 0);
  fail_unless_equals_int (ra.auth.bad_tag, rb.auth.bad_tag + 1);
  fail_unless_equals_int (ra.auth.replayed, rb.auth.replayed + 1);
  fail_unless_equals_int (ra.forged + ra.malformed + ra.starts,
      rb.forged + rb.malformed + rb.starts);
  fail_unless_equals_int (ra.leader, rb.leader);
  fail_unless_equals_int (ra.role, VLMCC_ROLE_LEADER);

  /* and the session goes on as before */
  rig_run (&rig, rig.now + S);
  after = sender_stats (&rig);
  fail_unless_equals_int (after.leader, leader);
  fail_unless (after.acked > before.acked);
  g_bytes_unref (ack);
  g_bytes_unref (start);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* In the simulator */

/* No data packet dropped on the link into @node over [@from, @to), and
 * the receiver got at least @min_bps over it. */
static void
check_no_loss (VlmccSim * sim, guint node, gint64 from, gint64 to,
    guint64 min_bps)
{
  guint64 data, cross, bps;

  vlmcc_sim_link_drops (sim, node, from, to, &data, &cross);
  fail_unless_equals_int (data, 0);
  bps = vlmcc_sim_receiver_bytes (sim, 0, from, to) * 8 * S / (to - from);
  fail_unless (bps >= min_bps, "%" G_GUINT64_FORMAT " bit/s", bps);
}

/* Figure 4(b): alone on a 1 Mbit/s link, after the start no packet is
 * lost and the link is used; the leader stays. */
static void
check_no_loss_alone (gboolean vegas_plus)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  guint b;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = vegas_plus;
  sim = vlmcc_sim_new (&cfg, 1);
  b = vlmcc_sim_add_node (sim, 0, 1000000, 10 * MS, 20);
  vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, b, 10000000, MS, 0),
      0);
  vlmcc_sim_run (sim, 60 * S);
  check_no_loss (sim, b, 10 * S, 60 * S, 900000);
  fail_unless_equals_int (vlmcc_sim_leader_at (sim, 60 * S), 0);
  vlmcc_sim_free (sim);
}

GST_START_TEST (test_no_loss_alone)
{
  check_no_loss_alone (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_vegas_plus_no_loss_alone)
{
  check_no_loss_alone (TRUE);
}

GST_END_TEST;

/* One receiver behind 10 Mbit/s (10 ms, 100-packet drop-tail queue) that
 * CBR cross traffic of 10.2 Mbit/s keeps full over [10 s, @cross_stop):
 * the queue does not drain whatever the session does, as beside a
 * loss-based flow. */
static VlmccSim *
queue_holder_sim (gboolean vegas_plus, gint64 cross_stop, guint * b)
{
  VlmccConfig cfg;
  VlmccSim *sim;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = vegas_plus;
  sim = vlmcc_sim_new (&cfg, 1);
  *b = vlmcc_sim_add_node (sim, 0, 10000000, 10 * MS, 100);
  vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, *b, 100000000, MS,
          0), 0);
  vlmcc_sim_add_cross_traffic (sim, *b, 10200000, 1000, 10 * S, cross_stop,
      0, 0);
  return sim;
}

/* Deterministic CBR takes nearly every place the queue frees, so the
 * session loses most of its packets whatever its window: the throughput
 * against a loss-based TCP is measured on the namespace bed
 * (bench_vlmcc_fairness.py); here, the detection. */
GST_START_TEST (test_vegas_plus_detects_held_queue)
{
  VlmccSim *vegas, *plus;
  VlmccSenderStats st;
  guint b;

  vegas = queue_holder_sim (FALSE, -1, &b);
  plus = queue_holder_sim (TRUE, -1, &b);
  vlmcc_sim_run (vegas, 60 * S);
  vlmcc_sim_run (plus, 9 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (plus), &st);
  fail_unless_equals_int (st.plus_switches, 0);
  fail_if (st.loss_based);
  /* the queue holds far more packets than the window: loss-based within
   * a few RTTs of about 100 ms, and its halvings leave the queue held,
   * so it stays so */
  vlmcc_sim_run (plus, 12 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (plus), &st);
  fail_unless (st.loss_based);
  vlmcc_sim_run (plus, 60 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (plus), &st);
  fail_unless (st.loss_based);
  fail_unless (st.halvings > 20, "%" G_GUINT64_FORMAT, st.halvings);
  vlmcc_sender_get_stats (vlmcc_sim_sender (vegas), &st);
  fail_unless_equals_int (st.plus_switches, 0);
  fail_if (st.loss_based);
  vlmcc_sim_free (vegas);
  vlmcc_sim_free (plus);
}

GST_END_TEST;

GST_START_TEST (test_vegas_plus_back_to_vegas)
{
  VlmccSim *sim;
  VlmccSenderStats st;
  guint b;

  sim = queue_holder_sim (TRUE, 40 * S, &b);
  vlmcc_sim_run (sim, 90 * S);
  /* once the queue holder is gone, the next halving finds the queue
   * within the window and hands it back to Vegas: no loss again */
  check_no_loss (sim, b, 60 * S, 90 * S, 9000000);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  fail_unless (st.plus_switches > 0);
  fail_if (st.loss_based);
  vlmcc_sim_free (sim);
}

GST_END_TEST;

/* Beside one Reno-like flow through RED and CoDel at 2 Mbit/s (vlmcc-sim
 * aqm): the AQM keeps the queue short, so the held-queue test alone
 * leaves the window Vegas (CoDel) or hands it back after each halving
 * (RED), and the session gets less than its share; with the loss rule it
 * gets its share. */
GST_START_TEST (test_vegas_plus_aqm_beside_tcp)
{
  static const AqmDiscipline queues[] = { AQM_RED, AQM_CODEL };
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (queues); i++) {
    VlmccSimShare rule, held;

    cfg.plus_loss_epochs = 16;
    vlmcc_sim_aqm_share (&cfg, 1, queues[i], 1, &rule);
    cfg.plus_loss_epochs = 0;
    vlmcc_sim_aqm_share (&cfg, 1, queues[i], 1, &held);
    GST_INFO ("queue %d: rule f %.3f share %.2f; held-queue test alone f "
        "%.3f share %.2f", queues[i], rule.jain, rule.share, held.jain,
        held.share);
    fail_unless (rule.jain >= 0.99, "f %f", rule.jain);
    fail_unless (rule.share >= 0.9 && rule.share <= 1.1, "%f", rule.share);
    fail_unless (rule.loss_based);
    fail_unless (held.share + 0.1 < rule.share, "%f", held.share);
  }
}

GST_END_TEST;

/* Alone at 2 Mbit/s the rule costs nothing: on drop-tail and RED nothing
 * is dropped and the window never switches (Figure 4b); on CoDel, whose
 * 5 ms target is under Vegas' alpha..beta packets there, the first drop
 * turns the window loss-based and the full link hands it back. The
 * paper's Vegas, halved by CoDel again and again, does not fill it. */
GST_START_TEST (test_vegas_plus_aqm_alone)
{
  VlmccConfig cfg;
  VlmccSimShare r;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  for (guint d = AQM_DROPTAIL; d <= AQM_RED; d++) {
    vlmcc_sim_aqm_share (&cfg, 1, d, 0, &r);
    fail_unless_equals_int (r.drops, 0);
    fail_unless_equals_int (r.halvings, 0);
    fail_unless_equals_int (r.switches, 0);
    fail_unless (r.kbit >= 1950, "%f kbit/s", r.kbit);
  }
  vlmcc_sim_aqm_share (&cfg, 1, AQM_CODEL, 0, &r);
  /* the reno mode switches once or twice, the cubic mode (the default)
   * three times: its regrowth meets CoDel's drop once more */
  fail_unless (r.switches >= 1 && r.switches <= 3, "%" G_GUINT64_FORMAT
      " switches", r.switches);
  fail_if (r.loss_based);
  fail_unless (r.kbit >= 1950, "%f kbit/s", r.kbit);
  cfg.vegas_plus = FALSE;
  vlmcc_sim_aqm_share (&cfg, 1, AQM_CODEL, 0, &r);
  fail_unless (r.halvings > 50);
  fail_unless (r.kbit < 1900, "%f kbit/s", r.kbit);
}

GST_END_TEST;

/* When the loss-based flow stops at 30 s the window is Vegas again on
 * every queue: nothing dropped over 45-60 s and the link full. */
GST_START_TEST (test_vegas_plus_aqm_competitor_leaves)
{
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  cfg.vegas_plus = TRUE;
  for (guint d = AQM_DROPTAIL; d <= AQM_CODEL; d++) {
    VlmccSenderStats st;
    VlmccSim *sim;
    guint b;

    sim = vlmcc_sim_aqm (&cfg, 1, d, 1, 30 * S, &b);
    vlmcc_sim_run (sim, 60 * S);
    check_no_loss (sim, b, 45 * S, 60 * S, 1900000);
    vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
    fail_unless (st.plus_switches >= 1);
    fail_if (st.loss_based);
    vlmcc_sim_free (sim);
  }
}

GST_END_TEST;

/* The simulator's sender runs at its deadlines to the ns, so
 * pacing-catch-up has no lateness to make up: the session of
 * test_vegas_plus_aqm_competitor_leaves (a Reno-like flow over 0-30 s,
 * then alone) sends and loses packet for packet what it does without.
 * When the time its window held it was made up too, it sent bursts after
 * the acks that opened it (11723 packets against 11496 on drop-tail), and
 * that test lost 22 packets over 45-60 s. */
GST_START_TEST (test_pacing_catch_up_on_time_changes_nothing)
{
  for (guint d = AQM_DROPTAIL; d <= AQM_CODEL; d++) {
    VlmccSenderStats st[2];
    guint64 drops[2], cross;

    for (guint i = 0; i < 2; i++) {
      VlmccConfig cfg;
      VlmccSim *sim;
      guint b;

      vlmcc_config_init (&cfg);
      cfg.vegas_plus = TRUE;
      cfg.pacing_catch_up = i ? 10 * MS : 0;
      sim = vlmcc_sim_aqm (&cfg, 1, d, 1, 30 * S, &b);
      vlmcc_sim_run (sim, 60 * S);
      vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st[i]);
      vlmcc_sim_link_drops (sim, b, 30 * S, 60 * S, &drops[i], &cross);
      vlmcc_sim_free (sim);
    }
    GST_INFO ("queue %u: sent %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
        ", lost after the flow %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
        d, st[0].sent, st[1].sent, drops[0], drops[1]);
    fail_unless_equals_int (drops[1], drops[0]);
    fail_unless_equals_int (st[1].sent, st[0].sent);
    fail_unless_equals_int (st[1].halvings, st[0].halvings);
  }
}

GST_END_TEST;

/* The session's bit/s over [@from, @to) behind 10 Mbit/s with 5 ms of
 * jitter on the acks, and with 5 Mbit/s of CBR from 20 s when @cross. */
static guint64
ack_jitter_rate (VlmccVegasDelay delay, gboolean cross, gint64 from,
    gint64 to)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  guint64 bps, data, cbr;

  vlmcc_config_init (&cfg);
  cfg.vegas_delay = delay;
  sim = vlmcc_sim_ack_jitter (&cfg, 1, 5 * MS);
  if (cross)
    vlmcc_sim_add_cross_traffic (sim, 1, 5000000, 1000, 20 * S, -1, 0, 0);
  vlmcc_sim_run (sim, to);
  vlmcc_sim_link_drops (sim, 1, 0, to, &data, &cbr);
  fail_unless_equals_int (data + cbr, 0);
  bps = vlmcc_sim_receiver_bytes (sim, 0, from, to) * 8 * S / (to - from);
  vlmcc_sim_free (sim);
  return bps;
}

GST_START_TEST (test_vegas_forward_ack_jitter)
{
  guint64 paper, fwd;

  paper = ack_jitter_rate (VLMCC_VEGAS_DELAY_RTT, FALSE, 10 * S, 40 * S);
  fwd = ack_jitter_rate (VLMCC_VEGAS_DELAY_FORWARD, FALSE, 10 * S, 40 * S);
  fail_unless (paper < 6000000, "paper: %" G_GUINT64_FORMAT, paper);
  fail_unless (fwd > 9500000, "forward: %" G_GUINT64_FORMAT, fwd);
  /* another flow's forward queue: it takes what is left, no more */
  fwd = ack_jitter_rate (VLMCC_VEGAS_DELAY_FORWARD, TRUE, 30 * S, 40 * S);
  fail_unless (fwd > 4500000 && fwd <= 5050000, "forward beside CBR: %"
      G_GUINT64_FORMAT, fwd);
}

GST_END_TEST;

/* The forward input behind 10 Mbit/s with the leader's clock @ppm off
 * and 4290 s ahead, up to @jitter on the acks, 120 s: the session's bit/s
 * over 60-120 s, the sender's rtt hat at 60 s in *@rtt_60, and its state
 * at the end. */
static guint64
forward_skew_run (gdouble ppm, gint64 jitter, gint64 * rtt_60,
    VlmccSenderStats * st)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  guint64 bps, data, cbr;

  vlmcc_config_init (&cfg);
  cfg.vegas_delay = VLMCC_VEGAS_DELAY_FORWARD;
  sim = vlmcc_sim_skew (&cfg, 1, ppm, jitter, NULL);
  vlmcc_sim_run (sim, 60 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), st);
  *rtt_60 = st->rtt;
  vlmcc_sim_run (sim, 120 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), st);
  vlmcc_sim_link_drops (sim, 1, 0, 120 * S, &data, &cbr);
  fail_unless_equals_int (data + cbr, 0);
  bps = vlmcc_sim_receiver_bytes (sim, 0, 60 * S, 120 * S) * 8 / 60;
  vlmcc_sim_free (sim);
  return bps;
}

/* A leader clock that runs fast or slow (100 and 1000 ppm) moves the
 * offset the forward delay cancels. The bounds follow it, so a slow clock
 * leaves a standing queue that does not grow (rtt hat within 2 ms at 60
 * and 120 s, and of the unskewed run at 100 ppm, 8 ms at 1000;
 * before: 56 ms at -100 ppm, 101 ms and drops at -1000 ppm after 120 s,
 * and growing) and a fast one keeps the forward input's rate on a
 * jittered ack path (before: 5.5-5.8 Mbit/s at +100 and +1000 ppm with
 * 5 ms of jitter). */
GST_START_TEST (test_vegas_forward_skew)
{
  static const gdouble ppms[] = { 100, -100, 1000, -1000 };
  VlmccSenderStats ref, st;
  guint64 ref_bps, bps;
  gint64 rtt_60;

  for (gint64 jitter = 0; jitter <= 5 * MS; jitter += 5 * MS) {
    ref_bps = forward_skew_run (0, jitter, &rtt_60, &ref);
    for (guint i = 0; i < G_N_ELEMENTS (ppms); i++) {
      gint64 slack = fabs (ppms[i]) > 100 ? 8 * MS : 2 * MS;

      bps = forward_skew_run (ppms[i], jitter, &rtt_60, &st);
      fail_unless (bps >= ref_bps * 95 / 100, "%+.0f ppm, jitter %d ms: %"
          G_GUINT64_FORMAT " bit/s, %" G_GUINT64_FORMAT " unskewed",
          ppms[i], (gint) (jitter / MS), bps, ref_bps);
      fail_unless (st.rtt <= ref.rtt + slack && st.rtt <= rtt_60 + 2 * MS,
          "%+.0f ppm, jitter %d ms: rtt %" G_GINT64_FORMAT " (%"
          G_GINT64_FORMAT " at 60 s), %" G_GINT64_FORMAT " unskewed",
          ppms[i], (gint) (jitter / MS), st.rtt, rtt_60, ref.rtt);
      fail_unless_equals_int (st.halvings, 0);
    }
  }
}

GST_END_TEST;

/* A follower (receiver 1) whose clock runs @ppm off, beside a leader on
 * the sender's clock, 120 s; 8 Mbit/s of CBR on its branch from 60 s
 * with @cbr: its estimate at the end, and receiver 0's bit/s over
 * 70-120 s. */
static guint64
follower_skew_run (gdouble ppm, gboolean cbr, VlmccReceiverStats * st)
{
  VlmccSimSkewFollower f = { ppm, cbr ? 60 * S : -1 };
  VlmccConfig cfg;
  VlmccSim *sim;
  guint64 bps;

  vlmcc_config_init (&cfg);
  sim = vlmcc_sim_skew (&cfg, 1, 0, 0, &f);
  vlmcc_sim_run (sim, 120 * S);
  vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, 1), st);
  bps = vlmcc_sim_receiver_bytes (sim, 0, 70 * S, 120 * S) * 8 / 50;
  if (cbr)
    fail_unless_equals_int (vlmcc_sim_leader_at (sim, 61 * S), 1);
  vlmcc_sim_free (sim);
  return bps;
}

/* Equations (4) and (5) on a clock 100 or 1000 ppm off add that much of
 * every arrival gap: the follower's RTT drifted without bound (after
 * 120 s: 53 and 161 ms fast, 37 ms and 0 slow, for 43 ms) and, slow, it
 * claimed a near-zero RTT when its branch turned worst (the session fell
 * to 374 kbit/s). With the skew estimated and taken out, the estimate
 * stays within 5 ms of the unskewed follower's (its base RTT within 2 ms),
 * and it leads within 1 s of the CBR at the same rate. */
GST_START_TEST (test_follower_clock_skew)
{
  static const gdouble ppms[] = { 100, -100, 1000, -1000 };
  VlmccReceiverStats ref, st;
  guint64 ref_bps, bps;

  for (gint cbr = 0; cbr <= 1; cbr++) {
    ref_bps = follower_skew_run (0, cbr, &ref);
    for (guint i = 0; i < G_N_ELEMENTS (ppms); i++) {
      bps = follower_skew_run (ppms[i], cbr, &st);
      fail_unless (llabs (st.rtt - ref.rtt) <= 5 * MS &&
          llabs (st.base_rtt - ref.base_rtt) <= 2 * MS, "%+.0f ppm: rtt %"
          G_GINT64_FORMAT " base %" G_GINT64_FORMAT ", unskewed %"
          G_GINT64_FORMAT " %" G_GINT64_FORMAT, ppms[i], st.rtt,
          st.base_rtt, ref.rtt, ref.base_rtt);
      if (cbr)
        fail_unless (bps >= ref_bps * 95 / 100, "%+.0f ppm: %"
            G_GUINT64_FORMAT " bit/s, unskewed %" G_GUINT64_FORMAT,
            ppms[i], bps, ref_bps);
    }
  }
}

GST_END_TEST;

/* The first 10 s of a follower whose clock runs @ppm off (no CBR): the
 * challenges it sent, the sender's elections and receiver 0's bit/s
 * over 5-10 s. */
typedef struct {
  guint64 challenges, elections, bps;
} SkewStart;

static void
follower_skew_start (gdouble ppm, SkewStart * out)
{
  VlmccSimSkewFollower f = { ppm, -1 };
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccReceiverStats rs;
  VlmccSenderStats ss;

  vlmcc_config_init (&cfg);
  sim = vlmcc_sim_skew (&cfg, 1, 0, 0, &f);
  vlmcc_sim_run (sim, 10 * S);
  vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, 1), &rs);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &ss);
  out->challenges = rs.challenges_sent;
  out->elections = ss.elections;
  out->bps = vlmcc_sim_receiver_bytes (sim, 0, 5 * S, 10 * S) * 8 / 5;
  vlmcc_sim_free (sim);
}

/* Before its skew estimate is ready (5 s) a follower's RTT gains the
 * skew times the time since its START, which its Vegas step took for a
 * queue building: at +1000 ppm it challenged at 1.5 s, at +100 ppm at
 * 2.3 s, was elected on a path better than the leader's and held the
 * session under its rate. It must do what the unskewed follower does:
 * no challenge, the same elections, the same rate, for every clock within
 * the estimate's range (SKEW_MAX; with a fixed doubt of 1000 ppm, +1500
 * and +2000 ppm still challenged and held 6442 and 5338 kbit/s). */
GST_START_TEST (test_follower_skew_early_challenge)
{
  static const gdouble ppms[] = { 100, -100, 1000, -1000, 1500, 2000 };
  SkewStart ref, st;

  follower_skew_start (0, &ref);
  for (guint i = 0; i < G_N_ELEMENTS (ppms); i++) {
    follower_skew_start (ppms[i], &st);
    fail_unless (st.challenges == ref.challenges &&
        st.elections == ref.elections && st.bps >= ref.bps * 95 / 100,
        "%+.0f ppm: %" G_GUINT64_FORMAT " challenges, %" G_GUINT64_FORMAT
        " elections, %" G_GUINT64_FORMAT " bit/s; unskewed %"
        G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT,
        ppms[i], st.challenges, st.elections, st.bps, ref.challenges,
        ref.elections, ref.bps);
  }
}

GST_END_TEST;

/* Leader changes of Figure 5 at small scale over [@from, @to). */
static guint
figure5_leader_changes (VlmccVegasDelay delay, gint64 from, gint64 to,
    gint * at_40, gint * at_55)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  const GArray *lc;
  guint n = 0;

  vlmcc_config_init (&cfg);
  cfg.vegas_delay = delay;
  sim = vlmcc_sim_figure5 (&cfg, 2);
  vlmcc_sim_run (sim, 60 * S);
  lc = vlmcc_sim_leader_changes (sim);
  for (guint i = 0; i < lc->len; i++) {
    gint64 t = g_array_index (lc, VlmccSimLeaderChange, i).time;

    n += t >= from && t < to;
  }
  *at_40 = vlmcc_sim_leader_at (sim, 40 * S);
  *at_55 = vlmcc_sim_leader_at (sim, 55 * S);
  vlmcc_sim_free (sim);
  return n;
}

/* An election under congestion: the new leader's first acks all carry
 * the standing queue, which the least forward delay alone would take as
 * none (two receivers behind router 3 then traded the lead every 0.6 s).
 * The RTT-anchored bound sees it: the timeline is the paper's. */
GST_START_TEST (test_vegas_forward_election)
{
  gint paper40, paper55, fwd40, fwd55;
  guint paper = figure5_leader_changes (VLMCC_VEGAS_DELAY_RTT, 20 * S,
      60 * S, &paper40, &paper55);
  guint fwd = figure5_leader_changes (VLMCC_VEGAS_DELAY_FORWARD, 20 * S,
      60 * S, &fwd40, &fwd55);

  fail_unless (fwd <= paper + 2, "forward: %u leader changes over 20-60 s, "
      "paper %u", fwd, paper);
  fail_unless (fwd40 == 2 || fwd40 == 3, "leader at 40 s: %d", fwd40);
  fail_unless (fwd55 == 0 || fwd55 == 1, "leader at 55 s: %d", fwd55);
}

GST_END_TEST;

GST_START_TEST (test_leadership_loss)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccSenderStats st;
  gint leader, next;
  gint64 t_new = -1;
  const GArray *lc;

  vlmcc_config_init (&cfg);
  sim = vlmcc_sim_figure5 (&cfg, 2);
  vlmcc_sim_run (sim, 20 * S);
  leader = vlmcc_sim_leader_at (sim, 20 * S);
  fail_unless (leader == 0 || leader == 1, "leader %d", leader);
  /* the leader goes silent: more than a window unacked, no leader; the
   * window grows until someone challenges */
  vlmcc_sim_kill_receiver (sim, leader, 20 * S);
  vlmcc_sim_run (sim, 25 * S);
  lc = vlmcc_sim_leader_changes (sim);
  for (guint i = 0; i < lc->len; i++) {
    VlmccSimLeaderChange *c = &g_array_index (lc, VlmccSimLeaderChange, i);

    if (c->time > 20 * S && c->rx >= 0 && t_new < 0)
      t_new = c->time;
  }
  next = vlmcc_sim_leader_at (sim, 25 * S);
  fail_unless (next >= 0 && next != leader, "leader %d", next);
  fail_unless (t_new > 20 * S && t_new < 22 * S, "new leader at %"
      G_GINT64_FORMAT, t_new);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  fail_unless (st.leader_losses >= 1);
  /* no stall: the other receivers got data in every 500 ms */
  for (gint64 t = 20 * S; t < 25 * S; t += 500 * MS)
    fail_unless (vlmcc_sim_receiver_bytes (sim, 3, t, t + 500 * MS) > 0);
  vlmcc_sim_free (sim);
}

GST_END_TEST;

/* Challenge echo (docs/protocols/vlmcc.md): one receiver behind branch A,
 * 100 behind branch B (both 2 Mbit/s, 30-packet queues, behind
 * 10 Mbit/s), 1 Mbit/s of CBR into B over 10-20 s. The followers behind B
 * meet equation (6) together and all challenge; the paper's then
 * challenge again, every RTT of theirs, through the sender's hold-off and
 * are refused. With the echo each challenges once: the first election is
 * the paper's, at the same time, and the rate at A is the paper's. */
typedef struct {
  guint64 challenges, refused;
  gint64 leader_at;             /* when a receiver behind B leads, ns */
  guint64 kbit;                 /* receiver 0 (branch A), 12-20 s */
} EchoRun;

static void
run_branch_turns_worst (gboolean echo, EchoRun * out)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccSenderStats st;
  VlmccSimFeedback fb;
  guint b, a, worst;

  vlmcc_config_init (&cfg);
  cfg.challenge_echo = echo;
  sim = vlmcc_sim_new (&cfg, 5);
  b = vlmcc_sim_add_node (sim, 0, 10000000, 10 * MS, 100);
  a = vlmcc_sim_add_node (sim, b, 2000000, MS, 30);
  worst = vlmcc_sim_add_node (sim, b, 2000000, 2 * MS, 30);
  vlmcc_sim_add_receiver (sim, a, 0);
  for (guint i = 0; i < 100; i++)
    vlmcc_sim_add_receiver (sim, worst, (1 + i) * MS);
  vlmcc_sim_add_cross_traffic (sim, worst, 1000000, 1000, 10 * S, 20 * S, 0,
      0);
  vlmcc_sim_run (sim, 20 * S);
  vlmcc_sim_feedback (sim, &fb);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  out->challenges = fb.challenges;
  out->refused = st.refused_holdoff;
  out->leader_at = -1;
  for (gint64 t = 10 * S; t < 20 * S && out->leader_at < 0; t += MS)
    if (vlmcc_sim_leader_at (sim, t) >= 1)
      out->leader_at = t;
  out->kbit = vlmcc_sim_receiver_bytes (sim, 0, 12 * S, 20 * S) * 8 / 8000;
  vlmcc_sim_free (sim);
}

GST_START_TEST (test_challenge_echo)
{
  EchoRun paper, echo;

  run_branch_turns_worst (FALSE, &paper);
  run_branch_turns_worst (TRUE, &echo);
  GST_INFO ("paper: %" G_GUINT64_FORMAT " challenges, %" G_GUINT64_FORMAT
      " refused, B leads at %" G_GINT64_FORMAT " ms, %" G_GUINT64_FORMAT
      " kbit/s; echo: %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
      G_GINT64_FORMAT " ms, %" G_GUINT64_FORMAT, paper.challenges,
      paper.refused, paper.leader_at / MS, paper.kbit, echo.challenges,
      echo.refused, echo.leader_at / MS, echo.kbit);
  fail_unless (paper.challenges > 200);
  /* one each, a few twice: not yet a constant (the first wave stays) */
  fail_unless (echo.challenges <= 120);
  fail_unless (echo.leader_at >= 10 * S);
  fail_unless (echo.leader_at <= paper.leader_at);
  fail_unless (echo.kbit * 100 >= paper.kbit * 99);
}

GST_END_TEST;

/* Leaderless bound (docs/protocols/vlmcc.md): a receiver behind branch A
 * (10 Mbit/s) and one behind B (2 Mbit/s, the leader), behind 20 Mbit/s.
 * @kill_all: both go silent at 10 s, else B's alone. */
typedef struct {
  gdouble window_at_loss;       /* the sender's, just before the kill */
  gdouble window_end;           /* at 20 s */
  gint leader_end;              /* at 20 s, -1: none */
  gint64 found_at;              /* when A first leads after 10 s, -1 */
  guint64 kbit_a;               /* at A over 15-20 s */
  guint64 volunteers, elected;
} LeaderlessRun;

static void
run_leaderless (gdouble limit, gdouble volunteer, gboolean kill_all,
    LeaderlessRun * out)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccSenderStats st;
  guint core, a, b;

  vlmcc_config_init (&cfg);
  cfg.leaderless_growth_limit = limit;
  cfg.volunteer_after = volunteer;
  sim = vlmcc_sim_new (&cfg, 3);
  core = vlmcc_sim_add_node (sim, 0, 20000000, 5 * MS, 100);
  a = vlmcc_sim_add_node (sim, core, 10000000, 5 * MS, 50);
  b = vlmcc_sim_add_node (sim, core, 2000000, 10 * MS, 50);
  vlmcc_sim_add_receiver (sim, a, 0);
  vlmcc_sim_add_receiver (sim, b, 0);
  vlmcc_sim_run (sim, 10 * S);
  fail_unless_equals_int (vlmcc_sim_leader_at (sim, 10 * S), 1);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  out->window_at_loss = st.window;
  vlmcc_sim_kill_receiver (sim, 1, 10 * S);
  if (kill_all)
    vlmcc_sim_kill_receiver (sim, 0, 10 * S);
  vlmcc_sim_run (sim, 20 * S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  out->window_end = st.window;
  out->leader_end = vlmcc_sim_leader_at (sim, 20 * S);
  out->found_at = -1;
  for (gint64 t = 10 * S; t < 20 * S && out->found_at < 0; t += MS)
    if (vlmcc_sim_leader_at (sim, t) == 0)
      out->found_at = t;
  out->kbit_a = vlmcc_sim_receiver_bytes (sim, 0, 15 * S, 20 * S) * 8 / 5000;
  out->volunteers = st.volunteers;
  out->elected = st.volunteers_elected;
  vlmcc_sim_free (sim);
}

/* Every receiver gone: section 2.4's growth never meets a challenge, and
 * grows the window for as long as the group stays empty; the bound stops
 * it at k times the last leader's window. */
GST_START_TEST (test_leaderless_bound_empty_group)
{
  LeaderlessRun paper, bound;

  run_leaderless (0, 0, TRUE, &paper);
  run_leaderless (2, 4, TRUE, &bound);
  GST_INFO ("window at the loss %.0f; after 10 s empty: paper %.0f, "
      "bound %.0f", paper.window_at_loss, paper.window_end, bound.window_end);
  fail_unless_equals_int (paper.leader_end, -1);
  fail_unless_equals_int (bound.leader_end, -1);
  fail_unless (paper.window_end > 10 * paper.window_at_loss);
  fail_unless (bound.window_end <= 2 * bound.window_at_loss);
  fail_unless_equals_int (bound.volunteers, 0);
}

GST_END_TEST;

/* The leader (B) gone, A's receiver can take five times its rate: under
 * the bound it never meets equation (6), and without volunteers the
 * session stays leaderless at the bound; a volunteer finds it again. */
GST_START_TEST (test_leaderless_volunteer_found)
{
  LeaderlessRun paper, capped, volunteer;

  run_leaderless (0, 0, FALSE, &paper);
  run_leaderless (2, 0, FALSE, &capped);
  run_leaderless (2, 4, FALSE, &volunteer);
  GST_INFO ("A leads at %" G_GINT64_FORMAT " ms (paper), %" G_GINT64_FORMAT
      " (capped), %" G_GINT64_FORMAT " (volunteer); A's kbit/s %"
      G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
      "; volunteers %" G_GUINT64_FORMAT, paper.found_at / MS,
      capped.found_at / MS, volunteer.found_at / MS, paper.kbit_a,
      capped.kbit_a, volunteer.kbit_a, volunteer.volunteers);
  fail_unless_equals_int (capped.leader_end, -1);
  fail_unless_equals_int (volunteer.leader_end, 0);
  fail_unless (volunteer.found_at > 10 * S && volunteer.found_at <
      paper.found_at,
      "found at %" G_GINT64_FORMAT, volunteer.found_at);
  fail_unless_equals_int (volunteer.elected, 1);
  fail_unless (volunteer.kbit_a > 2 * capped.kbit_a);
  fail_unless (volunteer.kbit_a * 100 >= paper.kbit_a * 99);
}

GST_END_TEST;

static Suite *
vlmcccore_suite (void)
{
  Suite *s = suite_create ("vlmcccore");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wire);
  tcase_add_test (tc, test_data_extension);
  tcase_add_test (tc, test_vegas_grows_holds_shrinks);
  tcase_add_test (tc, test_vegas_forward_delay);
  tcase_add_test (tc, test_one_halving_per_rtt);
  tcase_add_test (tc, test_pacing_bursts_of_two);
  tcase_add_test (tc, test_challenge_on_worse_path);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_follower_below_floor_leaves);
  tcase_add_test (tc, test_lossy_receiver_keeps_halvings);
  tcase_add_test (tc, test_bad_feedback_ignored);
  tcase_add_test (tc, test_challenge_storm_bounded);
  tcase_add_test (tc, test_challenge_absurd_rtt_refused);
  tcase_add_test (tc, test_probe_storm_bounded);
  tcase_add_test (tc, test_start_reflection_bounded);
  tcase_add_test (tc, test_forged_tiny_rtt_challenge);
  tcase_add_test (tc, test_forged_start_tiny_rtt_receiver);
  tcase_add_test (tc, test_late_acks_no_halving);
  tcase_add_test (tc, test_late_acks_undo);
  tcase_add_test (tc, test_vegas_plus_spurious_switch_undone);
  tcase_add_test (tc, test_real_loss_halves_within_rtt);
  tcase_add_test (tc, test_loop_lag_rtt);
  tcase_add_test (tc, test_start_hold);
  tcase_add_test (tc, test_vegas_ack_clock);
  tcase_add_test (tc, test_window_covers_hold);
  tcase_add_test (tc, test_pacing_catch_up);
  tcase_add_test (tc, test_pacing_catch_up_on_time_changes_nothing);
  tcase_add_test (tc, test_follower_stall_drift);
  tcase_add_test (tc, test_challenger_base_own);
  tcase_add_test (tc, test_follower_jittered_anchor);
  tcase_add_test (tc, test_held_jitter_lead_stays);
  tcase_add_test (tc, test_challenge_confirm_jitter);
  tcase_add_test (tc, test_vegas_plus_cubic_growth);
  tcase_add_test (tc, test_vegas_plus_cubic_reno_friendly);
  tcase_add_test (tc, test_vegas_plus_recovery_hold);
  tcase_add_test (tc, test_vegas_plus_loss_segment);
  tcase_add_test (tc, test_keyed_bytes_and_behaviour);
  tcase_add_test (tc, test_keyed_forged_control);
  tcase_add_test (tc, test_no_loss_alone);
  tcase_add_test (tc, test_vegas_plus_no_loss_alone);
  tcase_add_test (tc, test_vegas_plus_detects_held_queue);
  tcase_add_test (tc, test_vegas_plus_back_to_vegas);
  tcase_add_test (tc, test_vegas_plus_aqm_beside_tcp);
  tcase_add_test (tc, test_vegas_plus_aqm_alone);
  tcase_add_test (tc, test_vegas_plus_aqm_competitor_leaves);
  tcase_add_test (tc, test_vegas_forward_ack_jitter);
  tcase_add_test (tc, test_vegas_forward_skew);
  tcase_add_test (tc, test_follower_clock_skew);
  tcase_add_test (tc, test_follower_skew_early_challenge);
  tcase_add_test (tc, test_vegas_forward_election);
  tcase_add_test (tc, test_leadership_loss);
  tcase_add_test (tc, test_challenge_echo);
  tcase_add_test (tc, test_leaderless_bound_empty_group);
  tcase_add_test (tc, test_leaderless_volunteer_found);
  return s;
}

GST_CHECK_MAIN (vlmcccore);
