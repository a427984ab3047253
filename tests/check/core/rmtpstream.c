/* Unit tests of RMTP's streaming mode (rmtpstream.h) in exact simulated
 * time: a stream server fed by a producer that pushes whenever it has
 * room, and stream receivers, joined by a network with a fixed one-way
 * delay that drops packets as each test decides. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "rmtpstream.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))
#define DELAY (5 * MS)
#define MAX_RX 8

typedef struct _Net Net;

/* Whether the packet @p from the server to receiver @rx is lost. */
typedef gboolean (*LossFunc) (Net * net, guint rx, const RmtpPacket * p,
    guint32 to);

typedef struct {
  gint64 at;
  gint rx;                      /* receiver index, -1: the server */
  guint32 from;
  GBytes *bytes;
} Hop;

struct _Net {
  RmtpConfig cfg;
  RandomSeeded seeded[MAX_RX + 2];
  RandomSource rng[MAX_RX + 2];
  RmtpStreamServer *s;
  RmtpStreamReceiver *r[MAX_RX];
  guint32 ids[MAX_RX];
  guint n;
  GBytes *stream;
  gsize fed;
  GByteArray *out[MAX_RX];
  gboolean done[MAX_RX];
  RmtpFailReason failed[MAX_RX];
  gint64 failed_at[MAX_RX];
  gint64 dropped_at;            /* the last DROPPED event */
  guint64 drops_sent;           /* DROP packets the server sent */
  gboolean server_ended;
  RmtpEvent server_end;
  GArray *dropped;              /* RmtpEvent DROPPED */
  GQueue hops;                  /* Hop *, by time */
  gint64 now;
  LossFunc loss;
  guint64 lost;
  guint64 server_max_held, rx_max_held;
  guint64 unicast_to_slow;
  gboolean keyed;               /* control carries the auth trailer */
  guint64 sent;                 /* datagrams the server sent */
  GPtrArray *record;            /* if set: each of them, in order */
  /* tampering: receiver mix_rx gets, for each datagram of session
   * mix_session, the one sent at the same place in another run's record */
  const GPtrArray *mix;
  guint32 mix_session;
  guint mix_rx;
  guint8 last_conn_digest[RMTP_DIGEST_SIZE];    /* the stream's, as sent */
  gboolean saw_last_conn;
};

static void
net_init (Net * net, guint n, gsize size, guint64 window)
{
  guint8 *d = g_malloc (size);

  memset (net, 0, sizeof (*net));
  for (gsize i = 0; i < size; i++)
    d[i] = (guint8) (i * 7 + (i >> 9) + (i >> 17));
  net->stream = g_bytes_new_take (d, size);
  rmtp_config_init (&net->cfg);
  net->cfg.window_size = window;
  net->cfg.rate = 20000000;
  net->n = n;
  for (guint i = 0; i <= n; i++)
    random_source_init_seeded (&net->rng[i], &net->seeded[i], 77 + i);
  for (guint i = 0; i < n; i++) {
    net->ids[i] = i + 1;
    net->out[i] = g_byte_array_new ();
  }
  net->dropped = g_array_new (FALSE, FALSE, sizeof (RmtpEvent));
  g_queue_init (&net->hops);
}

/* Creates the server and receivers from net->cfg (tests may change it). */
static void
net_start (Net * net)
{
  net->s = rmtp_stream_server_new (&net->cfg, 5000, net->ids, net->n,
      &net->rng[0]);
  fail_unless (net->s != NULL);
  for (guint i = 0; i < net->n; i++)
    net->r[i] = rmtp_stream_receiver_new (&net->cfg, net->ids[i], TRUE,
        &net->rng[i + 1]);
}

static void
net_clear (Net * net)
{
  Hop *h;

  while ((h = g_queue_pop_head (&net->hops))) {
    g_bytes_unref (h->bytes);
    g_free (h);
  }
  for (guint i = 0; i < net->n; i++) {
    rmtp_stream_receiver_free (net->r[i]);
    g_byte_array_unref (net->out[i]);
  }
  rmtp_stream_server_free (net->s);
  if (net->record)
    g_ptr_array_unref (net->record);
  g_array_unref (net->dropped);
  g_bytes_unref (net->stream);
}

static gint
hop_earlier (gconstpointer a, gconstpointer b, gpointer data)
{
  const Hop *x = a, *y = b;

  return x->at < y->at ? -1 : x->at > y->at;
}

static void
net_send (Net * net, gint rx, guint32 from, GBytes * bytes)
{
  Hop *h = g_new0 (Hop, 1);

  h->at = net->now + DELAY;
  h->rx = rx;
  h->from = from;
  h->bytes = g_bytes_ref (bytes);
  /* equal times keep their order: insert_sorted puts a hop after equals */
  g_queue_insert_sorted (&net->hops, h, hop_earlier, NULL);
}

/* The producer: as much of the stream as the server takes now. */
static void
net_feed (Net * net)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (net->stream, &len);

  if (net->fed < len)
    net->fed += rmtp_stream_server_push (net->s, d + net->fed,
        len - net->fed, net->now);
  if (net->fed == len)
    rmtp_stream_server_finish (net->s, net->now);
}

/* What receiver @rx gets for the server's datagram @bytes: another run's
 * datagram at the same place when the test mixes that session in. */
static GBytes *
net_tampered (Net * net, guint rx, const RmtpPacket * p, GBytes * bytes)
{
  GBytes *other;

  if (!net->mix || rx != net->mix_rx || p->session != net->mix_session)
    return bytes;
  fail_unless (net->sent < net->mix->len, "the runs differ in length");
  other = g_ptr_array_index (net->mix, net->sent);
  fail_unless_equals_int (((const guint8 *) g_bytes_get_data (other,
              NULL))[3], p->type);
  return other;
}

static void
net_note_last_conn (Net * net, const RmtpPacket * p)
{
  if (p->type != RMTP_CONN || !p->last)
    return;
  fail_unless (p->stream_digest != NULL);
  memcpy (net->last_conn_digest, p->stream_digest, RMTP_DIGEST_SIZE);
  net->saw_last_conn = TRUE;
}

static void
net_server_out (Net * net)
{
  RmtpDatagram d;
  RmtpEvent e;

  rmtp_stream_server_handle_timeout (net->s, net->now);
  while (rmtp_stream_server_poll_datagram (net->s, net->now, &d)) {
    RmtpPacket p;
    const guint8 *b = g_bytes_get_data (d.bytes, NULL);
    gsize len = g_bytes_get_size (d.bytes);

    /* sealed control: the packet without its trailer */
    if (net->keyed && b[3] != RMTP_DATA && b[3] != RMTP_PARITY)
      len -= AUTH_TRAILER_SIZE;
    fail_unless (rmtp_packet_parse (b, len, &p));
    net->drops_sent += p.type == RMTP_DROP;
    net_note_last_conn (net, &p);
    if (net->record)
      g_ptr_array_add (net->record, g_bytes_ref (d.bytes));
    for (guint i = 0; i < net->n; i++) {
      if (d.to != RMTP_TO_GROUP && d.to != net->ids[i])
        continue;
      net->unicast_to_slow += d.to != RMTP_TO_GROUP && p.type == RMTP_DATA;
      if (net->loss && net->loss (net, i, &p, d.to))
        net->lost++;
      else
        net_send (net, i, 0, net_tampered (net, i, &p, d.bytes));
    }
    net->sent++;
    g_bytes_unref (d.bytes);
  }
  while (rmtp_stream_server_poll_event (net->s, &e)) {
    if (e.type == RMTP_EVENT_DROPPED) {
      g_array_append_val (net->dropped, e);
      net->dropped_at = net->now;
    }
    if (e.type == RMTP_EVENT_DONE || e.type == RMTP_EVENT_FAILED) {
      net->server_ended = TRUE;
      net->server_end = e;
    }
  }
  net->server_max_held = MAX (net->server_max_held,
      rmtp_stream_server_stats (net->s)->held);
}

static void
net_receiver_out (Net * net, guint i)
{
  RmtpDatagram d;
  RmtpEvent e;

  rmtp_stream_receiver_handle_timeout (net->r[i], net->now);
  while (rmtp_stream_receiver_poll_datagram (net->r[i], &d)) {
    net_send (net, -1, net->ids[i], d.bytes);
    g_bytes_unref (d.bytes);
  }
  while (rmtp_stream_receiver_poll_event (net->r[i], &e)) {
    if (e.type == RMTP_EVENT_DATA) {
      fail_unless_equals_uint64 (e.offset, net->out[i]->len);
      g_byte_array_append (net->out[i], g_bytes_get_data (e.data, NULL),
          g_bytes_get_size (e.data));
      g_bytes_unref (e.data);
    } else if (e.type == RMTP_EVENT_DONE) {
      net->done[i] = TRUE;
    } else if (e.type == RMTP_EVENT_FAILED) {
      net->failed[i] = e.reason;
      net->failed_at[i] = net->now;
    }
  }
  net->rx_max_held = MAX (net->rx_max_held,
      rmtp_stream_receiver_stats (net->r[i])->held);
}

static gint64
net_next (Net * net)
{
  gint64 t = rmtp_stream_server_next_deadline (net->s);
  Hop *h = g_queue_peek_head (&net->hops);

  for (guint i = 0; i < net->n; i++)
    t = MIN (t, rmtp_stream_receiver_next_deadline (net->r[i]));
  return h ? MIN (t, h->at) : t;
}

static gboolean
net_deliver (Net * net)
{
  Hop *h = g_queue_peek_head (&net->hops);

  if (!h || h->at > net->now)
    return FALSE;
  g_queue_pop_head (&net->hops);
  if (h->rx < 0)
    rmtp_stream_server_handle (net->s, h->from, g_bytes_get_data (h->bytes,
            NULL), g_bytes_get_size (h->bytes), net->now);
  else
    rmtp_stream_receiver_handle_bytes (net->r[h->rx], h->bytes, net->now);
  g_bytes_unref (h->bytes);
  g_free (h);
  return TRUE;
}

/* Runs until nothing is left to do (or @until). */
static void
net_run (Net * net, gint64 until)
{
  for (guint64 steps = 0; steps < 50000000; steps++) {
    gint64 next;

    net_feed (net);
    net_server_out (net);
    for (guint i = 0; i < net->n; i++)
      net_receiver_out (net, i);
    if (net_deliver (net))
      continue;
    next = net_next (net);
    if (next == G_MAXINT64 || next > until)
      return;
    net->now = MAX (net->now, next);
  }
  fail ("the network did not settle");
}

static void
assert_whole (Net * net, guint i)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (net->stream, &len);

  fail_unless (net->done[i], "receiver %u not done", i);
  fail_unless_equals_int (net->failed[i], RMTP_FAIL_NONE);
  fail_unless_equals_uint64 (net->out[i]->len, len);
  fail_unless (memcmp (net->out[i]->data, d, len) == 0);
}

/* ------------------------------------------------------------------ */

GST_START_TEST (test_windows_advance_within_bound)
{
  Net net;
  const RmtpStreamServerStats *st;
  const guint64 w = 64 * 1024;

  net_init (&net, 3, 10 * w + 1000, w);
  net_start (&net);
  net_run (&net, 120 * S);
  st = rmtp_stream_server_stats (net.s);
  fail_unless (net.server_ended);
  fail_unless_equals_int (net.server_end.type, RMTP_EVENT_DONE);
  fail_unless_equals_int (net.server_end.receivers_complete, 3);
  fail_unless_equals_uint64 (net.server_end.bytes, 10 * w + 1000);
  fail_unless_equals_int (st->windows, 11);
  fail_unless_equals_uint64 (st->released, 10 * w + 1000);
  for (guint i = 0; i < 3; i++) {
    assert_whole (&net, i);
    fail_unless_equals_int (rmtp_stream_receiver_stats (net.r[i])->windows,
        10);
  }
  /* the window in flight and the one filling: never more */
  fail_unless (st->max_held <= 2 * w + 1, "held %" G_GUINT64_FORMAT,
      st->max_held);
  fail_unless (net.server_max_held <= 2 * w + 1);
  fail_unless (st->max_held > w, "upstream never filled the next window");
  fail_unless (net.rx_max_held <= w);
  fail_unless_equals_int (net.dropped->len, 0);
  net_clear (&net);
}

GST_END_TEST;

/* One window in flight at a time: each window's CONN goes out only once
 * every member has the window before it (it is in its release). */
static gboolean
log_conns (Net * net, guint rx, const RmtpPacket * p, guint32 to)
{
  static gint64 last_window_conn;

  if (p->type == RMTP_CONN && rx == 0 && !p->retry) {
    fail_unless (p->stream);
    fail_unless (net->now >= last_window_conn);
    last_window_conn = net->now;
    /* every receiver has output all windows before this one */
    for (guint i = 0; i < net->n; i++)
      fail_unless (net->out[i]->len >= p->offset || net->done[i],
          "window %u began before receiver %u had the ones before",
          p->window, i);
    fail_unless_equals_uint64 (p->offset, p->window * net->cfg.window_size);
  }
  return FALSE;
}

GST_START_TEST (test_window_waits_for_every_member)
{
  Net net;

  net_init (&net, 2, 5 * 32 * 1024, 32 * 1024);
  net.loss = log_conns;
  net_start (&net);
  net_run (&net, 120 * S);
  assert_whole (&net, 0);
  assert_whole (&net, 1);
  /* the stream's length is a whole number of windows: the last is full */
  fail_unless_equals_int (rmtp_stream_server_stats (net.s)->windows, 5);
  net_clear (&net);
}

GST_END_TEST;

/* Independent loss of about 5 % per receiver and packet, deterministic. */
static gboolean
lose_five_percent (Net * net, guint rx, const RmtpPacket * p, guint32 to)
{
  return random_source_double (&net->rng[MAX_RX + 1]) < 0.05 &&
      (rx == 1 || p->type == RMTP_DATA);
}

static void
run_lossy (RmtpRepair repair)
{
  Net net;
  const RmtpStreamServerStats *st;
  const guint64 w = 48 * 1024;

  net_init (&net, 3, 6 * w + 333, w);
  random_source_init_seeded (&net.rng[MAX_RX + 1],
      &net.seeded[MAX_RX + 1], 4242);
  net.cfg.repair = repair;
  net.loss = lose_five_percent;
  net_start (&net);
  net_run (&net, 300 * S);
  st = rmtp_stream_server_stats (net.s);
  fail_unless (net.lost > 20, "lost %" G_GUINT64_FORMAT, net.lost);
  for (guint i = 0; i < 3; i++)
    assert_whole (&net, i);
  fail_unless_equals_int (net.server_end.receivers_complete, 3);
  fail_unless (st->max_held <= 2 * w + 1);
  if (repair == RMTP_REPAIR_PARITY) {
    fail_unless (st->sum.parity_sent > 0);
    fail_unless_equals_uint64 (st->sum.data_resent, 0);
  } else {
    fail_unless (st->sum.data_resent > 0);
  }
  net_clear (&net);
}

GST_START_TEST (test_lossy_receivers_get_everything)
{
  run_lossy (RMTP_REPAIR_RETRANSMIT);
}

GST_END_TEST;

GST_START_TEST (test_parity_within_windows)
{
  run_lossy (RMTP_REPAIR_PARITY);
}

GST_END_TEST;

/* Receiver 2 gets a quarter of the multicast DATA: it is set aside as slow
 * in window 0, finishes that window by unicast, and is then dropped. */
static gboolean
starve_third (Net * net, guint rx, const RmtpPacket * p, guint32 to)
{
  return rx == 2 && p->type == RMTP_DATA && to == RMTP_TO_GROUP &&
      p->seq % 4 != 0;
}

GST_START_TEST (test_slow_receiver_dropped_after_its_window)
{
  Net net;
  const guint64 w = 64 * 1024;
  RmtpEvent *e;
  const RmtpStreamServerStats *st;

  net_init (&net, 3, 4 * w, w);
  net.loss = starve_third;
  net_start (&net);
  net_run (&net, 300 * S);
  st = rmtp_stream_server_stats (net.s);
  assert_whole (&net, 0);
  assert_whole (&net, 1);
  fail_unless_equals_int (net.dropped->len, 1);
  e = &g_array_index (net.dropped, RmtpEvent, 0);
  fail_unless_equals_int (e->member, 3);
  fail_unless_equals_int (e->round, 0);
  /* it had window 0 (by unicast), so it was dropped as slow */
  fail_unless_equals_int (e->reason, RMTP_FAIL_NONE);
  fail_unless_equals_int (st->dropped_slow, 1);
  fail_unless (net.unicast_to_slow > 0);
  /* it output window 0, verified, and then learned it was dropped */
  fail_unless_equals_uint64 (net.out[2]->len, w);
  fail_unless (memcmp (net.out[2]->data, g_bytes_get_data (net.stream,
              NULL), w) == 0);
  fail_unless_equals_int (net.failed[2], RMTP_FAIL_DROPPED);
  fail_if (net.done[2]);
  fail_unless_equals_int (net.server_end.receivers_complete, 2);
  fail_unless_equals_int (net.server_end.receivers_failed, 1);
  net_clear (&net);
}

GST_END_TEST;

/* A receiver that goes silent mid-stream is given up within its window
 * and dropped; the stream goes on for the others. */
static gboolean
kill_second_after_window_one (Net * net, guint rx, const RmtpPacket * p,
    guint32 to)
{
  return rx == 1 && net->out[1]->len >= 2 * net->cfg.window_size;
}

GST_START_TEST (test_silent_receiver_dropped)
{
  Net net;
  const guint64 w = 32 * 1024;

  net_init (&net, 2, 5 * w, w);
  net.loss = kill_second_after_window_one;
  net_start (&net);
  net_run (&net, 600 * S);
  assert_whole (&net, 0);
  fail_unless_equals_int (net.dropped->len, 1);
  fail_unless_equals_int (g_array_index (net.dropped, RmtpEvent, 0).member,
      2);
  fail_unless_equals_uint64 (net.out[1]->len, 2 * w);
  fail_unless (net.failed[1] == RMTP_FAIL_INCOMPLETE);
  fail_unless_equals_int (net.server_end.receivers_complete, 1);
  net_clear (&net);
}

GST_END_TEST;

/* No group EOR and no POLL reaches anyone: all are polled out as slow and
 * served by unicast in every window. Nobody has a window promptly, so
 * waiting for them holds nobody back: they all stay and get the stream. */
static gboolean
silence_all (Net * net, guint rx, const RmtpPacket * p, guint32 to)
{
  return (p->type == RMTP_EOR && to == RMTP_TO_GROUP) ||
      p->type == RMTP_POLL;
}

GST_START_TEST (test_all_slow_members_kept)
{
  Net net;
  const guint64 w = 64 * 1024;
  const RmtpStreamServerStats *st;

  net_init (&net, 2, 4 * w, w);
  net.loss = silence_all;
  net_start (&net);
  net_run (&net, 300 * S);
  st = rmtp_stream_server_stats (net.s);
  fail_unless_equals_int (net.dropped->len, 0);
  fail_unless_equals_int (st->dropped_slow, 0);
  fail_unless (st->sum.slow_receivers >= 2 * 4);
  assert_whole (&net, 0);
  assert_whole (&net, 1);
  fail_unless_equals_int (net.server_end.receivers_complete, 2);
  net_clear (&net);
}

GST_END_TEST;

/* When the last members left are dropped, the stream ends and no CONN
 * follows; a DROP for the next window tells them at once (sealed like all
 * control when keyed), where they waited receiver_timeout before. Here
 * all are served window 0 by unicast as above, and then no DATA and no
 * REL reach them, so they are dropped in window 1 and only the DROP tells
 * them. */
static gboolean
silence_all_then_starve (Net * net, guint rx, const RmtpPacket * p,
    guint32 to)
{
  if ((p->type == RMTP_DATA || p->type == RMTP_REL) &&
      net->out[rx]->len >= net->cfg.window_size)
    return TRUE;
  return silence_all (net, rx, p, to);
}

static void
run_last_members_dropped (gboolean keyed)
{
  Net net;
  const guint64 w = 64 * 1024;
  AuthKey key;

  net_init (&net, 2, 4 * w, w);
  net.loss = silence_all_then_starve;
  /* the slow members are served one after the other: given up soon, the
   * second is not silent long enough to fail on its own first */
  net.cfg.max_separate_rounds = 2;
  net_start (&net);
  if (keyed) {
    fail_unless (auth_key_from_string ("0123456789abcdef0123456789abcdef"
            "0123456789abcdef0123456789abcdef", &key, NULL));
    net.keyed = TRUE;
    rmtp_stream_server_set_key (net.s, &key);
    for (guint i = 0; i < 2; i++)
      rmtp_stream_receiver_set_key (net.r[i], &key);
  }
  net_run (&net, 300 * S);
  fail_unless_equals_int (net.dropped->len, 2);
  fail_unless (net.server_ended);
  fail_unless_equals_int (net.server_end.receivers_complete, 0);
  fail_unless_equals_int (net.server_end.receivers_failed, 2);
  for (guint i = 0; i < 2; i++) {
    /* window 0 out, verified; then told, within a round trip or two */
    fail_unless_equals_uint64 (net.out[i]->len, w);
    fail_unless_equals_int (net.failed[i], RMTP_FAIL_DROPPED);
    fail_if (net.done[i]);
    fail_unless (net.failed_at[i] - net.dropped_at < 200 * MS,
        "receiver %u failed %" G_GINT64_FORMAT " ms after it was dropped", i,
        (net.failed_at[i] - net.dropped_at) / MS);
  }
  fail_unless_equals_int (net.drops_sent, net.cfg.control_copies);
  net_clear (&net);
}

GST_START_TEST (test_last_members_told_dropped)
{
  run_last_members_dropped (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_last_members_told_dropped_keyed)
{
  run_last_members_dropped (TRUE);
}

GST_END_TEST;

/* Three receivers of one member on one seeded random source, for the
 * tests that hand them single packets: @plain takes window 0 (or a data
 * set), @a expects window @wa at offset @oa, @b window @wb at @ob. */
typedef struct {
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  RmtpReceiver *plain, *a, *b;
} Trio;

static void
trio_init (Trio * t, guint32 member, guint32 wa, guint64 oa, guint32 wb,
    guint64 ob)
{
  rmtp_config_init (&t->cfg);
  random_source_init_seeded (&t->rng, &t->seeded, 5);
  t->plain = rmtp_receiver_new (&t->cfg, member, TRUE, &t->rng);
  t->a = rmtp_receiver_new (&t->cfg, member, TRUE, &t->rng);
  t->b = rmtp_receiver_new (&t->cfg, member, TRUE, &t->rng);
  rmtp_receiver_expect_window (t->a, wa, oa, 0);
  rmtp_receiver_expect_window (t->b, wb, ob, 0);
}

static void
trio_clear (Trio * t)
{
  rmtp_receiver_free (t->plain);
  rmtp_receiver_free (t->a);
  rmtp_receiver_free (t->b);
}

/* A DROP is exactly a header and a window; it ends a receiver waiting for
 * that window or a later one, and nothing else. */
GST_START_TEST (test_drop_on_wire)
{
  Trio t;
  RmtpReceiver *plain, *waiting, *later;
  RmtpPacket p;
  RmtpEvent e;
  guint8 drop[13] = { 'R', 'M', 1, RMTP_DROP, 0, 0, 0x13, 0x88, 0, 0, 0, 3 };

  fail_unless (rmtp_packet_parse (drop, 12, &p));
  fail_unless_equals_int (p.type, RMTP_DROP);
  fail_unless_equals_int (p.window, 3);
  fail_if (rmtp_packet_parse (drop, 11, &p));
  fail_if (rmtp_packet_parse (drop, 13, &p));
  trio_init (&t, 1, 3, 30, 4, 40);
  plain = t.plain;
  waiting = t.a;
  later = t.b;
  rmtp_receiver_handle (plain, drop, 12, 0);
  rmtp_receiver_handle (waiting, drop, 12, 0);
  rmtp_receiver_handle (later, drop, 12, 0);
  /* a data-set receiver, and one past that window, take it as foreign */
  fail_unless_equals_int (rmtp_receiver_state (plain),
      RMTP_RECEIVER_WAIT_CONN);
  fail_unless_equals_uint64 (rmtp_receiver_stats (plain)->in.foreign, 1);
  fail_unless_equals_int (rmtp_receiver_state (later),
      RMTP_RECEIVER_WAIT_CONN);
  fail_unless_equals_uint64 (rmtp_receiver_stats (later)->in.foreign, 1);
  fail_unless_equals_int (rmtp_receiver_state (waiting),
      RMTP_RECEIVER_FAILED);
  fail_unless (rmtp_receiver_poll_event (waiting, &e));
  fail_unless_equals_int (e.type, RMTP_EVENT_FAILED);
  fail_unless_equals_int (e.reason, RMTP_FAIL_DROPPED);
  trio_clear (&t);
}

GST_END_TEST;

/* The CONN of a window carries its place in the stream; a plain receiver
 * takes only window 0, one that expects window 3 only that. */
/* With a group key every window's cores seal and open their control:
 * the stream arrives whole, the control of every window opens, and a
 * forged packet between the windows is counted and changes nothing. */
GST_START_TEST (test_keyed_stream)
{
  Net net;
  AuthKey key;
  AuthStats a;
  const guint64 w = 64 * 1024;
  guint8 forged[40] = { 0 };

  fail_unless (auth_key_from_string ("0123456789abcdef0123456789abcdef"
          "0123456789abcdef0123456789abcdef", &key, NULL));
  net_init (&net, 2, 4 * w + 100, w);
  net_start (&net);
  net.keyed = TRUE;
  rmtp_stream_server_set_key (net.s, &key);
  for (guint i = 0; i < 2; i++)
    rmtp_stream_receiver_set_key (net.r[i], &key);
  /* while the first window is in flight */
  net_run (&net, 20 * MS);
  fail_unless (rmtp_stream_server_window (net.s) != NULL);
  memcpy (forged, "RMTP", 4);
  rmtp_stream_server_handle (net.s, 1, forged, sizeof (forged), net.now);
  net_run (&net, 120 * S);
  fail_unless (net.server_ended);
  fail_unless_equals_int (net.server_end.type, RMTP_EVENT_DONE);
  for (guint i = 0; i < 2; i++) {
    assert_whole (&net, i);
    fail_unless (rmtp_stream_receiver_auth_stats (net.r[i], &a));
    fail_unless (a.sealed > 0 && a.accepted > 0);
    fail_unless_equals_uint64 (a.bad_tag + a.truncated + a.replayed, 0);
  }
  fail_unless (rmtp_stream_server_auth_stats (net.s, &a));
  /* each of the 5 windows' CONN, EORs and REL at least */
  fail_unless (a.sealed >= 5 * 3, "sealed %" G_GUINT64_FORMAT, a.sealed);
  fail_unless (a.accepted >= 5 * 2);
  fail_unless_equals_uint64 (a.bad_tag + a.truncated, 1);
  net_clear (&net);
}

GST_END_TEST;

static void
net_set_key (Net * net)
{
  AuthKey key;

  fail_unless (auth_key_from_string ("0123456789abcdef0123456789abcdef"
          "0123456789abcdef0123456789abcdef", &key, NULL));
  net->keyed = TRUE;
  rmtp_stream_server_set_key (net->s, &key);
  for (guint i = 0; i < net->n; i++)
    rmtp_stream_receiver_set_key (net->r[i], &key);
}

/* SHA-256 by GLib, apart from the digest the cores use. */
static void
sha256_of (const guint8 * data, gsize len, guint8 * out)
{
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA256);
  gsize n = RMTP_DIGEST_SIZE;

  g_checksum_update (ck, data, len);
  g_checksum_get_digest (ck, out, &n);
  g_checksum_free (ck);
}

/* The last window's CONN carries the SHA-256 of the whole stream, and
 * every receiver completes with it checked. */
static void
run_stream_digest (gboolean keyed)
{
  Net net;
  const guint64 w = 32 * 1024;
  guint8 want[RMTP_DIGEST_SIZE];
  const guint8 *announced;

  net_init (&net, 3, 4 * w + 777, w);
  net_start (&net);
  if (keyed)
    net_set_key (&net);
  net_run (&net, 120 * S);
  sha256_of (g_bytes_get_data (net.stream, NULL), 4 * w + 777, want);
  fail_unless (net.saw_last_conn);
  fail_unless (memcmp (net.last_conn_digest, want, RMTP_DIGEST_SIZE) == 0);
  fail_unless_equals_int (net.server_end.type, RMTP_EVENT_DONE);
  fail_unless_equals_int (net.server_end.receivers_complete, 3);
  for (guint i = 0; i < 3; i++) {
    assert_whole (&net, i);
    fail_unless (rmtp_stream_receiver_verified (net.r[i]));
    fail_unless (rmtp_receiver_stream_digest (rmtp_stream_receiver_core
            (net.r[i]), &announced));
    fail_unless (memcmp (announced, want, RMTP_DIGEST_SIZE) == 0);
  }
  net_clear (&net);
}

GST_START_TEST (test_stream_digest_checked)
{
  run_stream_digest (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_stream_digest_checked_keyed)
{
  run_stream_digest (TRUE);
}

GST_END_TEST;

/* Another stream of the same size, under the same sessions (and key): its
 * run gives every datagram the server sends, in order. */
static GPtrArray *
record_other_stream (gsize size, guint64 w, gboolean keyed)
{
  Net net;
  GPtrArray *record;
  guint8 *d;

  net_init (&net, 2, size, w);
  d = g_bytes_unref_to_data (net.stream, &size);
  for (gsize i = 0; i < size; i++)
    d[i] ^= 0x5a;
  net.stream = g_bytes_new_take (d, size);
  net.record = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  net_start (&net);
  if (keyed)
    net_set_key (&net);
  net_run (&net, 120 * S);
  assert_whole (&net, 1);
  record = g_ptr_array_ref (net.record);
  net_clear (&net);
  return record;
}

/* Receiver 1 takes window 1 of another stream sent under the same
 * sessions (a replayed window: sealed by a key holder when keyed, so it
 * opens). That window verifies against its own CONN, and so would every
 * window, but the whole stream's digest does not match: the receiver
 * fails at the last window, outputs nothing of it, and never ACKs it, so
 * the server counts it failed. */
static void
run_replayed_window (gboolean keyed)
{
  Net net;
  const guint64 w = 32 * 1024;
  const gsize size = 3 * w;
  GPtrArray *other = record_other_stream (size, w, keyed);
  const guint8 *mine;

  net_init (&net, 2, size, w);
  net.mix = other;
  net.mix_session = 5000 + 1;
  net.mix_rx = 1;
  net_start (&net);
  if (keyed)
    net_set_key (&net);
  net_run (&net, 300 * S);
  mine = g_bytes_get_data (net.stream, NULL);
  assert_whole (&net, 0);
  fail_unless_equals_int (net.failed[1], RMTP_FAIL_STREAM_DIGEST);
  fail_if (net.done[1]);
  /* window 0 as sent, then the other stream's window 1, and no more */
  fail_unless_equals_uint64 (net.out[1]->len, 2 * w);
  fail_unless (memcmp (net.out[1]->data, mine, w) == 0);
  fail_if (memcmp (net.out[1]->data + w, mine + w, w) == 0);
  fail_unless_equals_int (rmtp_stream_receiver_stats (net.r[1])->windows,
      2);
  fail_unless_equals_int (rmtp_receiver_state (rmtp_stream_receiver_core
          (net.r[1])), RMTP_RECEIVER_FAILED);
  fail_unless_equals_uint64 (rmtp_receiver_stats (rmtp_stream_receiver_core
          (net.r[1]))->ack_sent, 0);
  fail_unless_equals_int (net.server_end.type, RMTP_EVENT_DONE);
  fail_unless_equals_int (net.server_end.receivers_complete, 1);
  fail_unless_equals_int (net.server_end.receivers_failed, 1);
  g_ptr_array_unref (other);
  net_clear (&net);
}

GST_START_TEST (test_replayed_window_fails_stream_digest)
{
  run_replayed_window (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_replayed_window_fails_stream_digest_keyed)
{
  run_replayed_window (TRUE);
}

GST_END_TEST;

GST_START_TEST (test_window_conn_on_wire)
{
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  RmtpServer *s;
  RmtpReceiver *plain, *third;
  RmtpDatagram d;
  RmtpPacket p;
  guint32 members[] = { 9 };
  GBytes *data = g_bytes_new_static ("0123456789", 10);
  guint8 *bad;
  const guint8 *announced;
  gsize len;
  guint32 window;
  guint64 offset;
  gboolean last;
  guint8 whole[RMTP_DIGEST_SIZE];

  memset (whole, 0xd1, sizeof (whole));
  rmtp_config_init (&cfg);
  random_source_init_seeded (&rng, &seeded, 1);
  s = rmtp_server_new (&cfg, 77, members, 1, data, &rng);
  rmtp_server_set_window (s, 3, 30, whole);
  rmtp_server_start (s, 0);
  fail_unless (rmtp_server_poll_datagram (s, 0, &d));
  len = g_bytes_get_size (d.bytes);
  /* the last window's trailer carries the stream's digest */
  fail_unless_equals_int (len, 8 + 68 + 4 + 13 + 32);
  fail_unless (rmtp_packet_parse (g_bytes_get_data (d.bytes, NULL), len,
          &p));
  fail_unless (p.stream && p.last);
  fail_unless_equals_int (p.window, 3);
  fail_unless_equals_uint64 (p.offset, 30);
  fail_unless (memcmp (p.stream_digest, whole, sizeof (whole)) == 0);
  /* an unknown flag, or a trailer cut short, is malformed */
  bad = g_memdup2 (g_bytes_get_data (d.bytes, NULL), len);
  bad[len - 1 - 32] = 0x03;
  fail_if (rmtp_packet_parse (bad, len, &p));
  fail_if (rmtp_packet_parse (bad, len - 1, &p));
  g_free (bad);

  plain = rmtp_receiver_new (&cfg, 9, TRUE, &rng);
  rmtp_receiver_handle_bytes (plain, d.bytes, 0);
  fail_unless_equals_int (rmtp_receiver_stats (plain)->in.foreign, 1);
  fail_if (rmtp_receiver_window (plain, &window, &offset, &last));
  third = rmtp_receiver_new (&cfg, 9, TRUE, &rng);
  rmtp_receiver_expect_window (third, 3, 30, 0);
  rmtp_receiver_handle_bytes (third, d.bytes, 0);
  fail_unless (rmtp_receiver_window (third, &window, &offset, &last));
  fail_unless (window == 3 && offset == 30 && last);
  fail_unless (rmtp_receiver_stream_digest (third, &announced));
  fail_unless (memcmp (announced, whole, sizeof (whole)) == 0);
  fail_if (rmtp_receiver_stream_digest (plain, &announced));
  g_bytes_unref (d.bytes);
  rmtp_receiver_free (plain);
  rmtp_receiver_free (third);
  rmtp_server_free (s);
  g_bytes_unref (data);
}

GST_END_TEST;

/* The CONN of window @window, last if @stream_digest is given. */
static GBytes *
window_conn (guint32 window, const guint8 * stream_digest)
{
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  RmtpServer *s;
  RmtpDatagram d;
  guint32 members[] = { 9 };
  GBytes *data = g_bytes_new_static ("0123456789", 10);

  rmtp_config_init (&cfg);
  random_source_init_seeded (&rng, &seeded, 1);
  s = rmtp_server_new (&cfg, 77, members, 1, data, &rng);
  rmtp_server_set_window (s, window, 30, stream_digest);
  rmtp_server_start (s, 0);
  fail_unless (rmtp_server_poll_datagram (s, 0, &d));
  rmtp_server_free (s);
  g_bytes_unref (data);
  return d.bytes;
}

/* A last window's trailer without its digest, or with part of it, and a
 * digest after a trailer that is not the last window's, are malformed: a
 * receiver counts and drops each, and still takes the sound CONN. */
GST_START_TEST (test_stream_trailer_refusals)
{
  guint8 whole[RMTP_DIGEST_SIZE];
  GBytes *last, *middle;
  const guint8 *l, *m;
  gsize ll, ml;
  guint8 *cleared, *extended, *flagged;
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  RmtpReceiver *r;
  RmtpEvent e;
  RmtpPacket p;

  memset (whole, 0x3c, sizeof (whole));
  last = window_conn (3, whole);
  middle = window_conn (3, NULL);
  l = g_bytes_get_data (last, &ll);
  m = g_bytes_get_data (middle, &ml);
  fail_unless_equals_int (ll, ml + RMTP_DIGEST_SIZE);
  /* the last flag cleared: 32 bytes trail a middle window's trailer */
  cleared = g_memdup2 (l, ll);
  cleared[ml - 1] = 0;
  /* a middle window's CONN with a digest after it */
  extended = g_malloc (ll);
  memcpy (extended, m, ml);
  memcpy (extended + ml, whole, RMTP_DIGEST_SIZE);
  /* a middle window's trailer flagged last: the digest is missing */
  flagged = g_memdup2 (m, ml);
  flagged[ml - 1] = 1;

  rmtp_config_init (&cfg);
  random_source_init_seeded (&rng, &seeded, 5);
  r = rmtp_receiver_new (&cfg, 9, TRUE, &rng);
  rmtp_receiver_expect_window (r, 3, 30, 0);
  rmtp_receiver_handle (r, l, ll - 1, 0);
  rmtp_receiver_handle (r, l, ll - RMTP_DIGEST_SIZE, 0);
  rmtp_receiver_handle (r, cleared, ll, 0);
  rmtp_receiver_handle (r, extended, ll, 0);
  rmtp_receiver_handle (r, flagged, ml, 0);
  fail_if (rmtp_packet_parse (flagged, ml, &p));
  fail_unless_equals_uint64 (rmtp_receiver_stats (r)->in.malformed, 5);
  fail_unless_equals_uint64 (rmtp_receiver_stats (r)->in.accepted, 0);
  fail_unless_equals_int (rmtp_receiver_state (r), RMTP_RECEIVER_WAIT_CONN);
  fail_if (rmtp_receiver_poll_event (r, &e));
  fail_if (rmtp_receiver_stream_digest (r, &l));
  rmtp_receiver_handle_bytes (r, last, 0);
  fail_unless_equals_uint64 (rmtp_receiver_stats (r)->in.accepted, 1);
  fail_unless (rmtp_receiver_stream_digest (r, &m));
  fail_unless (memcmp (m, whole, sizeof (whole)) == 0);
  g_free (cleared);
  g_free (extended);
  g_free (flagged);
  g_bytes_unref (last);
  g_bytes_unref (middle);
  rmtp_receiver_free (r);
}

GST_END_TEST;

/* A CONN retry of the window a receiver waits for, to another member (a
 * sink multicasts a retry to a member it has no address for), is foreign:
 * it carries an answer window like the group CONN but does not say that
 * the group left the receiver out. The group CONN that does not list it
 * drops it. */
GST_START_TEST (test_window_retry_for_another_not_dropped)
{
  GBytes *group = window_conn (3, NULL);
  gsize len;
  const guint8 *g = g_bytes_get_data (group, &len);
  guint8 *retry = g_memdup2 (g, len);
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  RmtpReceiver *r;
  RmtpPacket p;

  retry[3] = RMTP_CONN_RETRY;
  fail_unless (rmtp_packet_parse (retry, len, &p));
  fail_unless (p.retry && p.window_us > 0);
  rmtp_config_init (&cfg);
  random_source_init_seeded (&rng, &seeded, 5);
  r = rmtp_receiver_new (&cfg, 10, TRUE, &rng);
  rmtp_receiver_expect_window (r, 3, 30, 0);
  rmtp_receiver_handle (r, retry, len, 0);
  fail_unless_equals_uint64 (rmtp_receiver_stats (r)->in.foreign, 1);
  fail_unless_equals_int (rmtp_receiver_state (r), RMTP_RECEIVER_WAIT_CONN);
  rmtp_receiver_handle (r, g, len, 0);
  fail_unless_equals_int (rmtp_receiver_state (r), RMTP_RECEIVER_FAILED);
  g_free (retry);
  g_bytes_unref (group);
  rmtp_receiver_free (r);
}

GST_END_TEST;

/* A window's CONN must start where the windows before it ended (window
 * 0 at 0): one elsewhere would put its data at another place in the
 * stream. It is counted out of window and not taken. */
GST_START_TEST (test_window_conn_at_wrong_offset)
{
  Trio t;
  RmtpReceiver *plain, *early, *right;
  GBytes *zeroth = window_conn (0, NULL);
  GBytes *third = window_conn (3, NULL);
  guint32 window;
  guint64 offset;
  gboolean last;

  trio_init (&t, 9, 3, 29, 3, 30);
  plain = t.plain;
  early = t.a;
  right = t.b;
  /* both CONNs say offset 30 */
  rmtp_receiver_handle_bytes (plain, zeroth, 0);
  rmtp_receiver_handle_bytes (early, third, 0);
  rmtp_receiver_handle_bytes (right, third, 0);
  fail_unless_equals_uint64 (rmtp_receiver_stats (plain)->in.out_of_window,
      1);
  fail_unless_equals_uint64 (rmtp_receiver_stats (early)->in.out_of_window,
      1);
  fail_if (rmtp_receiver_window (plain, &window, &offset, &last));
  fail_if (rmtp_receiver_window (early, &window, &offset, &last));
  fail_unless_equals_int (rmtp_receiver_state (early),
      RMTP_RECEIVER_WAIT_CONN);
  fail_unless (rmtp_receiver_window (right, &window, &offset, &last));
  fail_unless_equals_uint64 (offset, 30);
  trio_clear (&t);
  g_bytes_unref (zeroth);
  g_bytes_unref (third);
}

GST_END_TEST;

/* Nothing from the server reaches receiver 3. */
static gboolean
lose_all_to_third (Net * net, guint rx, const RmtpPacket * p, guint32 to)
{
  return rx == 2;
}

/* connect_timeout bounds the wait for window 0's CONN only: receivers
 * started at 0 with 100 ms take the stream, whose later windows come long
 * after 100 ms, whole; the one no packet reaches fails with NO_CONN at
 * 100 ms exactly, having output nothing. */
GST_START_TEST (test_connect_timeout_first_window_only)
{
  Net net;
  const guint64 w = 64 * 1024;

  net_init (&net, 3, 10 * w + 1000, w);
  net.cfg.connect_timeout = 100 * MS;
  net.loss = lose_all_to_third;
  net_start (&net);
  for (guint i = 0; i < net.n; i++)
    rmtp_stream_receiver_start (net.r[i], 0);
  net_run (&net, 120 * S);
  assert_whole (&net, 0);
  assert_whole (&net, 1);
  fail_unless (net.now > 2 * net.cfg.connect_timeout);
  fail_unless_equals_int (net.failed[2], RMTP_FAIL_NO_CONN);
  fail_unless_equals_int64 (net.failed_at[2], 100 * MS);
  fail_unless_equals_uint64 (net.out[2]->len, 0);
  fail_unless_equals_int (net.server_end.receivers_complete, 2);
  net_clear (&net);
}

GST_END_TEST;

static Suite *
rmtpstream_suite (void)
{
  Suite *s = suite_create ("rmtpstream");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_windows_advance_within_bound);
  tcase_add_test (tc, test_window_waits_for_every_member);
  tcase_add_test (tc, test_lossy_receivers_get_everything);
  tcase_add_test (tc, test_parity_within_windows);
  tcase_add_test (tc, test_slow_receiver_dropped_after_its_window);
  tcase_add_test (tc, test_all_slow_members_kept);
  tcase_add_test (tc, test_silent_receiver_dropped);
  tcase_add_test (tc, test_last_members_told_dropped);
  tcase_add_test (tc, test_last_members_told_dropped_keyed);
  tcase_add_test (tc, test_drop_on_wire);
  tcase_add_test (tc, test_window_conn_on_wire);
  tcase_add_test (tc, test_keyed_stream);
  tcase_add_test (tc, test_stream_digest_checked);
  tcase_add_test (tc, test_stream_digest_checked_keyed);
  tcase_add_test (tc, test_replayed_window_fails_stream_digest);
  tcase_add_test (tc, test_replayed_window_fails_stream_digest_keyed);
  tcase_add_test (tc, test_stream_trailer_refusals);
  tcase_add_test (tc, test_window_retry_for_another_not_dropped);
  tcase_add_test (tc, test_window_conn_at_wrong_offset);
  tcase_add_test (tc, test_connect_timeout_first_window_only);
  return s;
}

GST_CHECK_MAIN (rmtpstream);
