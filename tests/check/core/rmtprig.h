/* The rig of the RMTP core tests, in exact simulated time: one server and
 * a few receivers joined by a wire that delivers every datagram after a
 * fixed one-way delay, with loss decided packet by packet, every datagram
 * logged (parsed, and its bytes) at send time. A keyed rig (rig_set_key)
 * strips the auth trailer of control packets before it parses them. */
#ifndef __RMTP_TEST_RIG_H__
#define __RMTP_TEST_RIG_H__

#include <gst/check/gstcheck.h>
#include <string.h>

#include "rmtpcore.h"
#include "rmtpwire.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))
#define ONE_WAY (10 * MS)
#define MAX_RX 1024

typedef struct _Rig Rig;

/* @rx: receiver index, or -1 for the server; TRUE drops the packet */
typedef gboolean (*DropFunc) (Rig * rig, gint rx, const RmtpPacket * p,
    guint32 to);

typedef struct {
  gint64 time;
  RmtpPacket p;                 /* pointers not kept */
  guint32 to;
  gint rx;
  GBytes *bytes;                /* as sent (a keyed rig: sealed) */
} Logged;

struct _Rig {
  RmtpConfig cfg;
  RandomSeeded seeded[MAX_RX + 1];
  RandomSource rng[MAX_RX + 1];
  RmtpServer *s;
  RmtpReceiver *r[MAX_RX];
  guint32 ids[MAX_RX];
  guint n;
  GBytes *data;
  GByteArray *got[MAX_RX];
  gboolean done[MAX_RX];
  RmtpFailReason failed[MAX_RX];
  gboolean server_done;
  RmtpEvent server_last;
  RmtpWire wire;
  gint64 now;
  DropFunc drop;
  RmtpType drop_type;           /* drop_first_answer: what, from whom */
  guint drop_rx;
  gboolean dropped;
  guint server_losses;          /* datagrams to the server @drop lost */
  GArray *to_server;            /* Logged, at send time */
  GArray *from_server;          /* Logged, at send time */
  gboolean keyed;
  /* parity_decode_apart: each job taken is run at once and handed back
   * decode_delay later (a worker busy that long), the receiver going on
   * meanwhile */
  gint64 decode_delay;
  GQueue decoding;              /* RigDecode, in the order taken */
};

typedef struct {
  guint rx;
  RmtpDecodeJob *job;
  gint64 due;
} RigDecode;

static inline GBytes *
make_data (gsize size, guint seed)
{
  guint8 *d = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    d[i] = (guint8) (i * 31 + seed + (i >> 8));
  return g_bytes_new_take (d, size);
}

static inline void
rig_init (Rig * rig, guint n, gsize size, const RmtpConfig * cfg)
{
  memset (rig, 0, sizeof (*rig));
  if (cfg) {
    rig->cfg = *cfg;
  } else {
    rmtp_config_init (&rig->cfg);
    /* the paper's single CONN, EOR and REL (test_control_copies) */
    rig->cfg.control_copies = 1;
  }
  rig->n = n;
  rig->data = make_data (size, n);
  for (guint i = 0; i <= n; i++)
    random_source_init_seeded (&rig->rng[i], &rig->seeded[i], 1000 + i);
  for (guint i = 0; i < n; i++) {
    rig->ids[i] = 100 + i;
    rig->r[i] = rmtp_receiver_new (&rig->cfg, rig->ids[i], TRUE,
        &rig->rng[i + 1]);
    rig->got[i] = g_byte_array_new ();
  }
  rig->s = rmtp_server_new (&rig->cfg, 0xC0FFEE, rig->ids, n, rig->data,
      &rig->rng[0]);
  fail_unless (rig->s != NULL);
  rmtp_wire_init (&rig->wire);
  rig->to_server = g_array_new (FALSE, FALSE, sizeof (Logged));
  rig->from_server = g_array_new (FALSE, FALSE, sizeof (Logged));
}

static inline void
rig_decode_free (RigDecode * d)
{
  rmtp_decode_job_free (d->job);
  g_free (d);
}

static inline void
rig_clear (Rig * rig)
{
  g_queue_clear_full (&rig->decoding, (GDestroyNotify) rig_decode_free);
  rmtp_wire_clear (&rig->wire);
  for (guint i = 0; i < rig->to_server->len; i++)
    g_bytes_unref (g_array_index (rig->to_server, Logged, i).bytes);
  for (guint i = 0; i < rig->from_server->len; i++)
    g_bytes_unref (g_array_index (rig->from_server, Logged, i).bytes);
  g_array_unref (rig->to_server);
  g_array_unref (rig->from_server);
  for (guint i = 0; i < rig->n; i++) {
    rmtp_receiver_free (rig->r[i]);
    g_byte_array_unref (rig->got[i]);
  }
  rmtp_server_free (rig->s);
  g_bytes_unref (rig->data);
}

/* Gives the server and every receiver the key 1, 2, .. 32. */
static inline void
rig_set_key (Rig * rig)
{
  AuthKey k;

  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k.bytes[i] = i + 1;
  rmtp_server_set_key (rig->s, &k);
  for (guint i = 0; i < rig->n; i++)
    rmtp_receiver_set_key (rig->r[i], &k);
  rig->keyed = TRUE;
}

/* Parses @b, a keyed rig's control packets without their trailer. */
static inline void
rig_parse (Rig * rig, GBytes * b, RmtpPacket * p)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (b, &len);

  if (rig->keyed && d[3] != RMTP_DATA && d[3] != RMTP_PARITY)
    len = len >= AUTH_TRAILER_SIZE ? len - AUTH_TRAILER_SIZE : 0;
  fail_unless (rmtp_packet_parse (d, len, p));
}

static inline void
rig_log (Rig * rig, GArray * log, GBytes * b, guint32 to, gint rx)
{
  Logged l = { rig->now, {0}, to, rx, g_bytes_ref (b) };

  rig_parse (rig, b, &l.p);
  l.p.members = l.p.ranges = l.p.payload = l.p.digest = NULL;
  g_array_append_val (log, l);
}

static inline void
rig_launch (Rig * rig, gint rx, guint32 from, GBytes * b, guint32 to)
{
  RmtpPacket p;

  rig_parse (rig, b, &p);
  if (rig->drop && rig->drop (rig, rx, &p, to)) {
    rig->server_losses += rx < 0;
    return;
  }
  rmtp_wire_launch (&rig->wire, rig->now + ONE_WAY, rx, from, b);
}

static inline void
rig_server_out (Rig * rig)
{
  RmtpDatagram d;
  RmtpEvent e;

  rmtp_server_handle_timeout (rig->s, rig->now);
  while (rmtp_server_poll_datagram (rig->s, rig->now, &d)) {
    rig_log (rig, rig->from_server, d.bytes, d.to, -1);
    for (guint i = 0; i < rig->n; i++)
      if (d.to == RMTP_TO_GROUP || d.to == rig->ids[i])
        rig_launch (rig, i, 0, d.bytes, d.to);
    g_bytes_unref (d.bytes);
  }
  while (rmtp_server_poll_event (rig->s, &e))
    if (e.type == RMTP_EVENT_DONE || e.type == RMTP_EVENT_FAILED) {
      rig->server_done = TRUE;
      rig->server_last = e;
    }
}

/* Takes receiver @i's new decode jobs, and hands back those due. */
static inline void
rig_receiver_decodes (Rig * rig, guint i)
{
  RmtpDecodeJob *job;
  RigDecode *d;

  while ((job = rmtp_receiver_take_decode_job (rig->r[i]))) {
    d = g_new0 (RigDecode, 1);
    d->rx = i;
    d->job = job;
    d->due = rig->now + rig->decode_delay;
    rmtp_decode_job_run (job);
    g_queue_push_tail (&rig->decoding, d);
  }
  for (GList * l = rig->decoding.head; l;) {
    GList *next = l->next;

    d = l->data;
    if (d->rx == i && d->due <= rig->now) {
      rmtp_receiver_decode_done (rig->r[i], d->job);
      g_free (d);
      g_queue_delete_link (&rig->decoding, l);
    }
    l = next;
  }
}

static inline void
rig_receiver_out (Rig * rig, guint i)
{
  RmtpDatagram d;
  RmtpEvent e;

  rig_receiver_decodes (rig, i);
  rmtp_receiver_handle_timeout (rig->r[i], rig->now);
  rig_receiver_decodes (rig, i);
  while (rmtp_receiver_poll_datagram (rig->r[i], &d)) {
    rig_log (rig, rig->to_server, d.bytes, 0, i);
    rig_launch (rig, -1, rig->ids[i], d.bytes, 0);
    g_bytes_unref (d.bytes);
  }
  while (rmtp_receiver_poll_event (rig->r[i], &e)) {
    if (e.type == RMTP_EVENT_DATA) {
      fail_unless_equals_uint64 (e.offset, rig->got[i]->len);
      g_byte_array_append (rig->got[i], g_bytes_get_data (e.data, NULL),
          g_bytes_get_size (e.data));
      g_bytes_unref (e.data);
    } else if (e.type == RMTP_EVENT_DONE) {
      rig->done[i] = TRUE;
    } else if (e.type == RMTP_EVENT_FAILED) {
      rig->failed[i] = e.reason;
    }
  }
}

static inline gint64
rig_next_time (Rig * rig)
{
  gint64 t = rmtp_server_next_deadline (rig->s);

  for (guint i = 0; i < rig->n; i++)
    t = MIN (t, rmtp_receiver_next_deadline (rig->r[i]));
  for (GList * l = rig->decoding.head; l; l = l->next)
    t = MIN (t, ((RigDecode *) l->data)->due);
  return MIN (t, rmtp_wire_next (&rig->wire));
}

/* Runs until @until or until nothing is left to do. */
static inline void
rig_run (Rig * rig, gint64 until)
{
  for (guint64 steps = 0; steps < 10000000; steps++) {
    gint64 next;

    rig_server_out (rig);
    for (guint i = 0; i < rig->n; i++)
      rig_receiver_out (rig, i);
    if (rmtp_wire_deliver_one (&rig->wire, rig->now, rig->s, rig->r))
      continue;
    next = rig_next_time (rig);
    if (next == G_MAXINT64 || next > until)
      return;
    rig->now = MAX (rig->now, next);
  }
  fail ("the rig did not settle");
}

/* rig_run, leaving the clock at @until. */
static inline void
rig_run_until (Rig * rig, gint64 until)
{
  rig_run (rig, until);
  rig->now = MAX (rig->now, until);
}

static inline void
rig_start_and_run (Rig * rig, gint64 until)
{
  rmtp_server_start (rig->s, rig->now);
  rig_run (rig, until);
}

/* A transfer of 64 KiB to @n receivers, @drop deciding the losses. */
static inline const RmtpServerStats *
rig_run_dropping (Rig * rig, guint n, DropFunc drop)
{
  rig_init (rig, n, 64 * 1024, NULL);
  rig->drop = drop;
  rig_start_and_run (rig, 60 * S);
  return rmtp_server_stats (rig->s);
}

static inline void
assert_receiver_whole (Rig * rig, guint i)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (rig->data, &len);

  fail_unless (rig->done[i], "receiver %u not done", i);
  fail_unless_equals_int (rig->failed[i], RMTP_FAIL_NONE);
  fail_unless_equals_uint64 (rig->got[i]->len, len);
  fail_unless (memcmp (rig->got[i]->data, d, len) == 0);
}

static inline guint
count_logged (GArray * log, RmtpType type, gint rx)
{
  guint n = 0;

  for (guint i = 0; i < log->len; i++) {
    Logged *l = &g_array_index (log, Logged, i);

    n += l->p.type == type && (rx < 0 || l->rx == rx);
  }
  return n;
}

static inline const Logged *
find_logged (GArray * log, RmtpType type, gint rx, guint nth)
{
  for (guint i = 0; i < log->len; i++) {
    Logged *l = &g_array_index (log, Logged, i);

    if (l->p.type == type && (rx < 0 || l->rx == rx) && nth-- == 0)
      return l;
  }
  return NULL;
}

#endif /* __RMTP_TEST_RIG_H__ */
