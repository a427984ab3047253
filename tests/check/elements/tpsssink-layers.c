/* tpsssink with a stream of temporal layers (issue 16): member 1's sink in
 * a harness sends to members 2 and 3, two test sockets. Member 3 allows
 * 4 Mbit/s, member 2 the initial 1 Mbit/s. The sink reads each buffer's
 * GstTemporalLayerMeta: member 2 gets the base layer only, member 3 every
 * layer, each with sequence numbers that run on without a gap, and the
 * GstLayerRates event upstream carries one rate per layer (base layer at
 * member 2's rate, the sum at member 3's). A key frame that finds about a
 * second of delta frames queued toward member 2 flushes them
 * (key-unit-flush) and waits toward it about its own transmission time. With
 * key-unit-queue-time, that queue asks upstream for the key frame. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gio/gio.h>

#include "tpssmember.h"
#include "tpsscore.h"
#include "gsttemporallayermeta.h"
#include "gstlayerrates.h"

#define N_LAYERS 3
#define N_FRAMES 16
#define PACKETS_PER_FRAME 2
#define MEDIA_PT 96

static void
send_msg (GSocket * sock, guint port, const TpssMsg * msg)
{
  guint8 pkt[TPSS_MSG_MAX_SIZE];

  member_send_bytes (sock, port, pkt, tpss_msg_write (msg, pkt));
}

/* Layer of frame @n in x264layerenc's period of three layers: 0 2 1 2. */
static guint
frame_layer (guint n)
{
  static const guint pattern[] = { 0, 2, 1, 2 };
  return pattern[n % 4];
}

static GstBuffer *
layered_packet (guint frame, guint i)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (200, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint layer = frame_layer (frame);

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, MEDIA_PT);
  gst_rtp_buffer_set_seq (&rtp, frame * PACKETS_PER_FRAME + i);
  gst_rtp_buffer_set_timestamp (&rtp, frame * 3000);
  memset (gst_rtp_buffer_get_payload (&rtp), layer, 200);
  gst_rtp_buffer_unmap (&rtp);
  gst_buffer_add_temporal_layer_meta (buf, layer, N_LAYERS,
      1u << (N_LAYERS - 1), layer == N_LAYERS - 1);
  return buf;
}

typedef struct
{
  guint media, per_layer[N_LAYERS], gaps;
  gboolean have_seq;
  guint16 next_seq;
} Received;

/* Reads what reached @sock: until @want media packets came (10 s at most,
 * a guard, for a loaded host may hold the sender back longer than a quiet
 * spell), then until it stays quiet for 300 ms, so that extra packets
 * still count. */
static void
receive_all (GSocket * sock, Received * r, guint want)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint8 buf[2048];
  gssize n;

  g_socket_set_timeout (sock, 0);
  while (g_socket_condition_timed_wait (sock, G_IO_IN,
          r->media < want ? MAX (end - g_get_monotonic_time (), 0) : 300000,
          NULL, NULL)) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    GstBuffer *b;
    guint16 seq;

    n = g_socket_receive (sock, (gchar *) buf, sizeof (buf), NULL, NULL);
    if (n < 12 || (buf[1] & 0x7f) != MEDIA_PT)
      continue;                 /* control, parity */
    b = gst_buffer_new_memdup (buf, n);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    seq = gst_rtp_buffer_get_seq (&rtp);
    if (r->have_seq && seq != r->next_seq)
      r->gaps++;
    r->have_seq = TRUE;
    r->next_seq = seq + 1;
    r->per_layer[MIN (((guint8 *) gst_rtp_buffer_get_payload (&rtp))[0],
            N_LAYERS - 1)]++;
    r->media++;
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
}

/* What @sink allows member @id now (bits/s). */
static guint64
send_data_rate (GstElement * sink, guint id)
{
  return member_stat_u64 (sink, id, "send-data-rate");
}

/* Member 1's sink in a harness and the sockets of members 2 and 3. */
typedef struct
{
  guint p1, p2, p3;
  GSocket *s2, *s3;
  GstHarness *h;
  GstElement *sink;
} Group;

/* Plays member 1's sink, set up with @props besides, until member 3 has
 * allocated it 4 Mbit/s (not a step of the rule: an NQCP allocation, taken
 * as it is). */
static void
group_play (Group * g, const gchar * props)
{
  gchar *desc;
  TpssMsg msg = { 0, };

  g->p1 = free_udp_port ();
  g->p2 = g->p3 = 0;
  g->s2 = check_udp_socket_local (&g->p2);
  g->s3 = check_udp_socket_local (&g->p3);
  desc = g_strdup_printf ("tpsssink port=%u member-id=1 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u,3@127.0.0.1:%u "
      "app-limit-factor=0 holding-time=0 %s", g->p1, g->p1, g->p2, g->p3,
      props);
  g->h = gst_harness_new_parse (desc);
  g_free (desc);
  g->sink = gst_harness_find_element (g->h, "tpsssink");
  gst_harness_set_src_caps_str (g->h, "application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=H264,payload=96");
  gst_harness_play (g->h);
  msg.type = TPSS_MSG_RATE;
  msg.sender_ssrc = 3;
  msg.media_ssrc = 1;
  msg.u.rate.rate = 4000000;
  msg.u.rate.seq = 1;
  for (guint i = 0; i < 100 && send_data_rate (g->sink, 3) != 4000000; i++) {
    send_msg (g->s3, g->p1, &msg);
    g_usleep (20000);
  }
  fail_unless_equals_uint64 (send_data_rate (g->sink, 3), 4000000);
}

static void
group_clear (Group * g)
{
  gst_object_unref (g->sink);
  gst_harness_teardown (g->h);
  g_object_unref (g->s2);
  g_object_unref (g->s3);
}

GST_START_TEST (test_prefix_per_member_and_layer_rates)
{
  Group g;
  GstHarness *h;
  GstElement *sink;
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n_rates = 0, got[8], n;
  Received r2 = { 0, }, r3 = { 0, };
  GstStructure *stats;
  const GstStructure *ms;
  guint layers = 0;
  guint64 left_out = 0;
  GstEvent *ev;

  group_play (&g, "initial-rate=1000000 min-report-interval=20000000");
  h = g.h;
  sink = g.sink;
  fail_unless_equals_uint64 (send_data_rate (sink, 2), 1000000);

  for (guint f = 0; f < N_FRAMES; f++) {
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (h, layered_packet (f, i)),
          GST_FLOW_OK);
    g_usleep (10000);
  }
  receive_all (g.s2, &r2, N_FRAMES / 4 * PACKETS_PER_FRAME);
  receive_all (g.s3, &r3, N_FRAMES * PACKETS_PER_FRAME);

  /* Member 2 gets the base layer (every fourth frame), member 3 all. */
  fail_unless_equals_int (r2.media, N_FRAMES / 4 * PACKETS_PER_FRAME);
  fail_unless_equals_int (r2.per_layer[0], r2.media);
  fail_unless_equals_int (r3.media, N_FRAMES * PACKETS_PER_FRAME);
  fail_unless_equals_int (r3.per_layer[2], N_FRAMES / 2 * PACKETS_PER_FRAME);
  fail_unless_equals_int (r2.gaps, 0);
  fail_unless_equals_int (r3.gaps, 0);

  g_object_get (sink, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint (stats, "layers", &layers));
  fail_unless_equals_int (layers, N_LAYERS);
  ms = member_stats (stats, 2);
  fail_unless (gst_structure_get_uint (ms, "layers-sent", &layers));
  fail_unless_equals_int (layers, 1);
  fail_unless (gst_structure_get_uint64 (ms, "layer-left-out", &left_out));
  fail_unless_equals_uint64 (left_out, N_FRAMES * 3 / 4 * PACKETS_PER_FRAME);
  ms = member_stats (stats, 3);
  fail_unless (gst_structure_get_uint (ms, "layers-sent", &layers));
  fail_unless_equals_int (layers, N_LAYERS);
  gst_structure_free (stats);

  /* The last rates upstream: one per layer, 1 + 1 + 2 Mbit/s. */
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    if (gst_layer_rates_event_parse (ev, got, &n)) {
      n_rates = n;
      memcpy (rates, got, n * sizeof (guint));
    }
    gst_event_unref (ev);
  }
  fail_unless_equals_int (n_rates, N_LAYERS);
  fail_unless_equals_int (rates[0], 1000000);
  fail_unless_equals_int (rates[0] + rates[1] + rates[2], 4000000);

  group_clear (&g);
}

GST_END_TEST;

#define KEY_MARK 0xee
#define QUEUED_FRAMES 16
#define BIG_PAYLOAD 1000

/* A packet of base-layer frame @frame: a delta unit unless @key, which
 * marks its payload KEY_MARK. */
static GstBuffer *
base_packet (guint frame, guint i, gboolean key)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (BIG_PAYLOAD, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, MEDIA_PT);
  gst_rtp_buffer_set_seq (&rtp, frame * PACKETS_PER_FRAME + i);
  gst_rtp_buffer_set_timestamp (&rtp, frame * 12000);
  gst_rtp_buffer_set_marker (&rtp, i == PACKETS_PER_FRAME - 1);
  memset (gst_rtp_buffer_get_payload (&rtp), key ? KEY_MARK : 0, BIG_PAYLOAD);
  gst_rtp_buffer_unmap (&rtp);
  gst_buffer_add_temporal_layer_meta (buf, 0, N_LAYERS, 1u << (N_LAYERS - 1),
      FALSE);
  if (!key || i > 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  return buf;
}

/* How long member @id's queue takes on its link now (ns). */
static gint64
member_queue_time (GstElement * sink, guint id)
{
  GstStructure *s;
  gint64 v = -1;

  g_object_get (sink, "stats", &s, NULL);
  fail_unless (gst_structure_get_int64 (member_stats (s, id),
          "layer-queue-time", &v));
  gst_structure_free (s);
  return v;
}

/* Reads @sock until the key frame's last packet came (at most @guard_s
 * seconds); returns whether it came and was the last media packet. */
static gboolean
receive_key_frame (GSocket * sock, Received * r, guint guard_s)
{
  gint64 end = g_get_monotonic_time () + guard_s * G_USEC_PER_SEC;
  guint8 buf[2048];
  gboolean key_last = FALSE;
  gssize n;

  while (!key_last && g_get_monotonic_time () < end &&
      g_socket_condition_timed_wait (sock, G_IO_IN,
          end - g_get_monotonic_time (), NULL, NULL)) {
    n = g_socket_receive (sock, (gchar *) buf, sizeof (buf), NULL, NULL);
    if (n < 12 + BIG_PAYLOAD || (buf[1] & 0x7f) != MEDIA_PT)
      continue;                 /* control, parity */
    if (r->have_seq && GST_READ_UINT16_BE (buf + 2) != r->next_seq)
      r->gaps++;
    r->have_seq = TRUE;
    r->next_seq = GST_READ_UINT16_BE (buf + 2) + 1;
    r->media++;
    key_last = buf[n - 1] == KEY_MARK && (buf[1] & 0x80);
  }
  return key_last;
}

/* Member 2 (200 kbit/s) has about a second of base-layer delta frames
 * queued when a key frame comes; member 3 (4 Mbit/s) keeps MQ short.
 * Returns member 2's queue time (ns) once the key frame is in it: how long
 * the key frame waits there, from the sink's own count of bytes and rate,
 * so that a slow host does not stretch it. */
static gint64
key_frame_wait (guint64 key_unit_flush, guint64 * flushed, Received * r2)
{
  gchar *props = g_strdup_printf ("initial-rate=200000 key-unit-flush=%"
      G_GUINT64_FORMAT, key_unit_flush);
  const guint queued = QUEUED_FRAMES * PACKETS_PER_FRAME;
  Group g;
  gint64 wait;

  group_play (&g, props);
  g_free (props);

  for (guint f = 0; f < QUEUED_FRAMES; f++)
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                  FALSE)), GST_FLOW_OK);
  /* member 2's packets-sent counts what entered its queue: every delta
   * frame, then the key frame (its flush comes before it is queued) */
  WAIT_UNTIL (member_stat_u64 (g.sink, 2, "packets-sent") >= queued, 10);
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 2, "packets-sent"),
      queued);
  for (guint i = 0; i < PACKETS_PER_FRAME; i++)
    fail_unless_equals_int (gst_harness_push (g.h,
            base_packet (QUEUED_FRAMES, i, TRUE)), GST_FLOW_OK);
  WAIT_UNTIL (member_stat_u64 (g.sink, 2, "packets-sent") >=
      queued + PACKETS_PER_FRAME, 10);
  wait = member_queue_time (g.sink, 2);
  *flushed = member_stat_u64 (g.sink, 2, "key-flush-packets");
  fail_unless (receive_key_frame (g.s2, r2, 10),
      "the key frame did not reach member 2 last (%u packets came)",
      r2->media);
  group_clear (&g);
  return wait;
}

/* The key frame waits toward the slow member about its own transmission
 * time and the frame on the wire (2 kB each at 200 kbit/s: 80 ms) instead
 * of the queue ahead of it (32 kB: about a second); the frames left out
 * are counted, and the member's sequence numbers run on without a gap. */
GST_START_TEST (test_key_unit_flushes_member_queue)
{
  Received kept = { 0, }, flushed = { 0, };
  guint64 n_kept, n_flushed;
  gint64 slow = key_frame_wait (GST_CLOCK_TIME_NONE, &n_kept, &kept);
  gint64 fast = key_frame_wait (100 * GST_MSECOND, &n_flushed, &flushed);

  fail_unless (slow > 500 * GST_MSECOND, "without the flush: %"
      G_GINT64_FORMAT " ns", slow);
  fail_unless_equals_uint64 (n_kept, 0);
  fail_unless_equals_int (kept.media, (QUEUED_FRAMES + 1) *
      PACKETS_PER_FRAME);
  fail_unless (fast <= 170 * GST_MSECOND, "with the flush: %"
      G_GINT64_FORMAT " ns", fast);
  fail_unless (n_flushed >= QUEUED_FRAMES, "%" G_GUINT64_FORMAT, n_flushed);
  fail_unless (flushed.media < kept.media);
  /* whole frames: the key frame and the frames that were sent */
  fail_unless_equals_int (flushed.media % PACKETS_PER_FRAME, 0);
  fail_unless_equals_int (kept.gaps, 0);
  fail_unless_equals_int (flushed.gaps, 0);
}

GST_END_TEST;

/* The force-key-unit events that reached the harness upstream. */
static guint
pull_force_key_units (GstHarness * h)
{
  GstEvent *ev;
  guint n = 0;

  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    const GstStructure *s = gst_event_get_structure (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM &&
        gst_structure_has_name (s, "GstForceKeyUnit"))
      n++;
    gst_event_unref (ev);
  }
  return n;
}

static guint64
sink_stat (GstElement * sink, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (sink, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

#define QUEUE_BOUND (300 * GST_MSECOND)

/* The force-key-unit requests a queue may make within @elapsed_us of its
 * first: that one, and one more per whole second (the sink's interval, on
 * the monotonic clock, so a slow host can let a second pass). */
static guint64
queue_requests_allowed (gint64 elapsed_us)
{
  return 1 + elapsed_us / G_USEC_PER_SEC;
}

/* key-unit-queue-time: member 2 (200 kbit/s) is sent 2 kB base-layer
 * frames faster than it takes them (80 ms each on its link). Once its
 * queue holds more than the bound, one force-key-unit event goes upstream,
 * and no other within the second after it although the queue keeps asking
 * (every 300 ms); member 3 (4 Mbit/s) never asks. The key frame that comes
 * then flushes member 2's queue, and nothing of member 3's. */
GST_START_TEST (test_queue_bound_asks_for_key_unit)
{
  Group g;
  gchar *props = g_strdup_printf ("initial-rate=200000 "
      "key-unit-queue-time=%" G_GUINT64_FORMAT, QUEUE_BOUND);
  guint64 bound = 0, units;
  guint f = 0;
  gint64 start;

  group_play (&g, props);
  g_free (props);
  g_object_get (g.sink, "key-unit-queue-time", &bound, NULL);
  fail_unless_equals_uint64 (bound, QUEUE_BOUND);

  /* 12 frames at once: 960 ms of queue toward member 2, then one frame
   * each 80 ms, which keeps it there. */
  start = g_get_monotonic_time ();
  for (; f < 12; f++)
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                  FALSE)), GST_FLOW_OK);
  WAIT_UNTIL (sink_stat (g.sink, "queue-key-units") == 1, 10);
  fail_unless_equals_uint64 (sink_stat (g.sink, "queue-key-units"), 1);
  fail_unless_equals_int (pull_force_key_units (g.h), 1);
  /* a queue asks as a packet enters it: one frame each 80 ms until it
   * asked again, 300 ms on, within the interval (ignored) */
  for (; f < 12 + 100 && sink_stat (g.sink, "queue-key-ignored") == 0; f++) {
    g_usleep (80000);
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                  FALSE)), GST_FLOW_OK);
  }
  WAIT_UNTIL (sink_stat (g.sink, "queue-key-ignored") >= 1, 2);
  fail_unless (sink_stat (g.sink, "queue-key-ignored") >= 1);
  units = sink_stat (g.sink, "queue-key-units");
  fail_unless (units <= queue_requests_allowed (g_get_monotonic_time () -
          start), "%" G_GUINT64_FORMAT " requests", units);
  fail_unless_equals_int (pull_force_key_units (g.h), units - 1);
  fail_unless (member_stat_u64 (g.sink, 2, "queue-key-asks") >= 2);
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 3, "queue-key-asks"),
      0);
  fail_unless (member_queue_time (g.sink, 2) > (gint64) QUEUE_BOUND);

  /* The key frame: member 2's queue keeps the frame on the wire and the
   * key frame, at most 160 ms at 200 kbit/s. */
  for (guint i = 0; i < PACKETS_PER_FRAME; i++)
    fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                TRUE)), GST_FLOW_OK);
  WAIT_UNTIL (member_stat_u64 (g.sink, 2, "key-flush-packets") > 0, 10);
  fail_unless (member_stat_u64 (g.sink, 2, "key-flush-packets") >= 8);
  fail_unless (member_queue_time (g.sink, 2) <= 170 * GST_MSECOND,
      "%" G_GINT64_FORMAT " ns", member_queue_time (g.sink, 2));
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 3,
          "key-flush-packets"), 0);
  group_clear (&g);
}

GST_END_TEST;

#define QUEUE_AGE (300 * GST_MSECOND)

/* max-queue-age: 12 base-layer frames at once toward member 2 (200 kbit/s,
 * 80 ms a frame on its link): the frames that would wait over 300 ms are
 * not sent to it, a force-key-unit event goes upstream, and its queue stays
 * within the bound and a frame; member 3 (4 Mbit/s) gets every frame. After
 * the key frame member 2 is sent frames again. */
GST_START_TEST (test_max_queue_age_leaves_out_frames)
{
  Group g;
  gchar *props = g_strdup_printf ("initial-rate=200000 "
      "max-queue-age=%" G_GUINT64_FORMAT, QUEUE_AGE);
  guint64 age = 0, dropped;
  guint f = 0;

  group_play (&g, props);
  g_free (props);
  g_object_get (g.sink, "max-queue-age", &age, NULL);
  fail_unless_equals_uint64 (age, QUEUE_AGE);

  for (; f < 12; f++)
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                  FALSE)), GST_FLOW_OK);
  /* MQ hands packets to the members' queues as they leave it, from the
   * session's loop: the counts are read once all 24 have left. */
  WAIT_UNTIL (sink_stat (g.sink, "packets-sent") == f * PACKETS_PER_FRAME, 2);
  fail_unless_equals_uint64 (sink_stat (g.sink, "packets-sent"),
      f * PACKETS_PER_FRAME);
  WAIT_UNTIL (sink_stat (g.sink, "queue-key-units") == 1, 2);
  dropped = member_stat_u64 (g.sink, 2, "age-dropped-frames");
  fail_unless (dropped >= 6 && dropped <= 10, "%" G_GUINT64_FORMAT, dropped);
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 2,
          "age-dropped-packets"), dropped * PACKETS_PER_FRAME);
  fail_unless_equals_int (pull_force_key_units (g.h), 1);
  fail_unless (member_queue_time (g.sink, 2) <= (gint64) QUEUE_AGE +
      100 * GST_MSECOND, "%" G_GINT64_FORMAT " ns",
      member_queue_time (g.sink, 2));
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 3,
          "age-dropped-frames"), 0);

  /* the key frame, then a delta frame: both go to member 2 */
  for (guint i = 0; i < PACKETS_PER_FRAME; i++)
    fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                TRUE)), GST_FLOW_OK);
  f++;
  for (guint i = 0; i < PACKETS_PER_FRAME; i++)
    fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                FALSE)), GST_FLOW_OK);
  g_usleep (100000);
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 2,
          "age-dropped-frames"), dropped);
  group_clear (&g);
}

GST_END_TEST;

#define PARITY_BACKLOG (100 * GST_MSECOND)

#define BACKLOG_FRAMES 64

static guint
member_stat_uint (GstElement * sink, guint id, const gchar * field)
{
  GstStructure *s;
  guint v = 0;

  g_object_get (sink, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint (member_stats (s, id), field, &v));
  gst_structure_free (s);
  return v;
}

/* parity-max-backlog: 64 base-layer frames at once toward member 2
 * (200 kbit/s, still probing with parity): once its queue holds more than
 * 100 ms, the parity made toward it is not queued (parity-skipped). Why 64
 * frames: the probe's one early flush closes the segment open 10 ms after
 * its first packet, and on a loaded host only a packet or two may be
 * queued by then; 128 packets also fill a whole segment (k x l = 100)
 * after it, whose parity is made behind seconds of queue. */
GST_START_TEST (test_parity_max_backlog_skips_parity)
{
  Group g;
  gchar *props = g_strdup_printf ("initial-rate=200000 "
      "parity-max-backlog=%" G_GUINT64_FORMAT, PARITY_BACKLOG);
  guint64 backlog = 0;

  group_play (&g, props);
  g_free (props);
  g_object_get (g.sink, "parity-max-backlog", &backlog, NULL);
  fail_unless_equals_uint64 (backlog, PARITY_BACKLOG);

  fail_unless_equals_int (member_stat_uint (g.sink, 2, "send-length") *
      member_stat_uint (g.sink, 2, "send-distance"), 100);
  for (guint f = 0; f < BACKLOG_FRAMES; f++)
    for (guint i = 0; i < PACKETS_PER_FRAME; i++)
      fail_unless_equals_int (gst_harness_push (g.h, base_packet (f, i,
                  FALSE)), GST_FLOW_OK);
  WAIT_UNTIL (member_stat_u64 (g.sink, 2, "parity-skipped") > 0, 5);
  fail_unless (member_stat_u64 (g.sink, 2, "parity-skipped") > 0);
  fail_unless_equals_uint64 (member_stat_u64 (g.sink, 3, "parity-skipped"),
      0);
  group_clear (&g);
}

GST_END_TEST;

static Suite *
tpsssink_layers_suite (void)
{
  Suite *s = suite_create ("tpsssink-layers");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_prefix_per_member_and_layer_rates);
  tcase_add_test (tc, test_key_unit_flushes_member_queue);
  tcase_add_test (tc, test_queue_bound_asks_for_key_unit);
  tcase_add_test (tc, test_max_queue_age_leaves_out_frames);
  tcase_add_test (tc, test_parity_max_backlog_skips_parity);
  return s;
}

GST_CHECK_MAIN (tpsssink_layers);
