/* Element tests of tpssfecdec with GstHarness and GstTestClock. */
#include <gst/check/gstcheck.h>
#include "checkutil.h"
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>
#include <gst/rtp/gstrtpbuffer.h>

#include "tpssfec.h"

#define MEDIA_CAPS "application/x-rtp, media=video, clock-rate=90000, " \
    "encoding-name=H264, payload=96"
#define FEC_CAPS "application/x-rtp, payload=100"

static GstBuffer *
make_rtp (guint16 seq, gsize payload_len, gboolean marker)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload_len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_marker (&rtp, marker);
  gst_rtp_buffer_set_timestamp (&rtp, seq * 3000);
  gst_rtp_buffer_set_ssrc (&rtp, 0xabcd);
  for (gsize i = 0; i < payload_len; i++)
    ((guint8 *) gst_rtp_buffer_get_payload (&rtp))[i] = (guint8) (seq + i);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

static GstBuffer *
wrap_parity (const guint8 * payload, gsize len, guint pt, guint16 seq)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, pt);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_ssrc (&rtp, 0x5555);
  memcpy (gst_rtp_buffer_get_payload (&rtp), payload, len);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

/* Media packets seq0.. and their parity, made by the core encoder. */
typedef struct
{
  GPtrArray *media;
  GPtrArray *parity;
} Stream;

static Stream
make_stream (guint16 seq0, guint n, guint k, guint l)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (k, l);
  Stream s = { g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref), g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref)
  };
  const guint8 *p;
  gsize len;

  for (guint i = 0; i < n; i++) {
    GstBuffer *b = make_rtp (seq0 + i, 20 + 13 * i, i % 3 == 0);
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_READ);
    tpss_fec_encoder_add (enc, map.data, map.size, NULL);
    gst_buffer_unmap (b, &map);
    g_ptr_array_add (s.media, b);
    while (tpss_fec_encoder_pop (enc, &p, &len, NULL))
      g_ptr_array_add (s.parity, wrap_parity (p, len, 100, s.parity->len));
  }
  tpss_fec_encoder_free (enc);
  return s;
}

static void
stream_clear (Stream * s)
{
  g_ptr_array_unref (s->media);
  g_ptr_array_unref (s->parity);
}

static void
setup (GstHarness ** h, GstHarness ** fec, const gchar * props)
{
  GstElement *e = check_make_element ("tpssfecdec", props);

  *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_use_testclock (*h);
  gst_harness_set_src_caps_str (*h, MEDIA_CAPS);
  *fec = gst_harness_new_with_element ((*h)->element, "fec_0", NULL);
  gst_harness_set_src_caps_str (*fec, FEC_CAPS);
}

/* The element pushes from its own thread: waits until @n buffers have come
 * out, then a little longer to see that no more follow. */
static void
assert_received (GstHarness * h, guint n)
{
  for (guint i = 0; i < 5000 && gst_harness_buffers_received (h) < n; i++)
    g_usleep (1000);
  g_usleep (20000);
  fail_unless_equals_int (gst_harness_buffers_received (h), n);
}

static void
assert_pull_equal (GstHarness * h, GstBuffer * expected)
{
  GstBuffer *out = gst_harness_pull (h);

  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_size (out),
      gst_buffer_get_size (expected));
  {
    GstMapInfo a, b;
    gst_buffer_map (out, &a, GST_MAP_READ);
    gst_buffer_map (expected, &b, GST_MAP_READ);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (out, &a);
    gst_buffer_unmap (expected, &b);
  }
  gst_buffer_unref (out);
}

GST_START_TEST (test_recovers_in_order)
{
  GstHarness *h, *fec;
  Stream s = make_stream (65533, 6, 3, 2);      /* wraps */

  setup (&h, &fec, "size-time=100000000");
  for (guint i = 0; i < 6; i++)
    if (i != 2)
      gst_harness_push (h, gst_buffer_ref (s.media->pdata[i]));
  /* 0 and 1 pass; 3, 4, 5 wait behind the gap. */
  assert_received (h, 2);
  for (guint j = 0; j < s.parity->len; j++)
    fail_unless_equals_int (gst_harness_push (fec,
            gst_buffer_ref (s.parity->pdata[j])), GST_FLOW_OK);
  assert_received (h, 6);
  for (guint i = 0; i < 6; i++)
    assert_pull_equal (h, s.media->pdata[i]);

  fail_unless_equals_int (check_stat_u64 (h->element, "recovered"), 1);
  fail_unless_equals_int (check_stat_u64 (h->element, "fec-received"), 3);
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 0);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_gap_released_after_size_time)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 4, 2, 2);
  GstTestClock *clock;
  GstClockID id;

  setup (&h, &fec, "size-time=50000000");
  gst_harness_set_time (h, 0);
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[0]));
  gst_harness_set_time (h, 10 * GST_MSECOND);
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[2]));
  assert_received (h, 1);

  /* The timer waits for exactly arrival + size-time. */
  clock = gst_harness_get_testclock (h);
  gst_test_clock_wait_for_next_pending_id (clock, &id);
  gst_object_unref (clock);
  fail_unless_equals_uint64 (gst_clock_id_get_time (id), 60 * GST_MSECOND);
  gst_clock_id_unref (id);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  gst_buffer_unref (gst_harness_pull (h));
  assert_pull_equal (h, s.media->pdata[2]);
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 1);

  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_bad_parity_counted)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 4, 2, 2);
  GstBuffer *junk = gst_buffer_new_allocate (NULL, 7, NULL);
  guint8 garbage[30] = { 0x40, 5, 1, 1 };

  setup (&h, &fec, "pt=100");
  for (guint i = 0; i < 4; i++)
    if (i != 1)
      gst_harness_push (h, gst_buffer_ref (s.media->pdata[i]));
  gst_buffer_memset (junk, 0, 0, 7);
  fail_unless_equals_int (gst_harness_push (fec, junk), GST_FLOW_OK);
  gst_harness_push (fec, wrap_parity (garbage, sizeof (garbage), 100, 1));
  gst_harness_push (fec, wrap_parity (garbage, sizeof (garbage), 99, 2));
  fail_unless_equals_int (check_stat_u64 (h->element, "malformed"), 2);
  fail_unless_equals_int (check_stat_u64 (h->element, "foreign"), 1);
  assert_received (h, 1);

  /* Genuine parity still repairs packet 1, and the rest follows. */
  for (guint j = 0; j < s.parity->len; j++)
    gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[j]));
  for (guint i = 0; i < 4; i++)
    assert_pull_equal (h, s.media->pdata[i]);

  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_eos_releases_held)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 4, 2, 2);

  setup (&h, &fec, "");
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[0]));
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[3]));
  assert_received (h, 1);
  gst_harness_push_event (h, gst_event_new_eos ());
  assert_received (h, 2);
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 2);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_latency_includes_size_time)
{
  GstHarness *h, *fec;

  setup (&h, &fec, "size-time=30000000");
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 30 * GST_MSECOND);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_forgets)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 4, 2, 2);

  setup (&h, &fec, "");
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[0]));
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[2]));
  assert_received (h, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps_str (h, MEDIA_CAPS);
  /* After the flush the stream starts over at whatever comes next. */
  gst_harness_push (h, gst_buffer_ref (s.media->pdata[3]));
  assert_received (h, 2);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes media packet @i of @s at @ms milliseconds. */
static void
push_at (GstHarness * h, GstBuffer * buf, guint ms)
{
  gst_harness_set_time (h, ms * GST_MSECOND);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
}

static guint64
pending_clock_time (GstHarness * h)
{
  GstTestClock *clock = gst_harness_get_testclock (h);
  GstClockID id;
  guint64 t;

  gst_test_clock_wait_for_next_pending_id (clock, &id);
  t = gst_clock_id_get_time (id);
  gst_clock_id_unref (id);
  gst_object_unref (clock);
  return t;
}

static guint
count_warnings (GstBus * bus, const gchar * must_contain)
{
  GstMessage *msg;
  guint n = 0;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, must_contain) != NULL,
        "warning \"%s\"", err->message);
    g_error_free (err);
    gst_message_unref (msg);
    n++;
  }
  return n;
}

/* Parity that comes later than size-time (a segment longer than the
 * window): a gap is released at size-time, its repair, made when the parity
 * comes, is counted, and one warning says what to change. */
GST_START_TEST (test_segment_longer_than_size_time)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 24, 2, 4);
  GstBus *bus = gst_bus_new ();

  setup (&h, &fec, "size-time=50000000");
  gst_element_set_bus (h->element, bus);
  /* Three segments of 8, a packet each 20 ms, parity 190 ms after each
   * segment's start (the first one tells the decoder the geometry). */
  for (guint seg = 0; seg < 3; seg++) {
    guint t0 = 200 * seg;
    for (guint i = 8 * seg; i < 8 * seg + 8; i++) {
      if (i == 18) {            /* lost; 19 waits 50 ms */
        assert_received (h, 18);
        continue;
      }
      /* after the clock wait at 510 ms, time goes on from there */
      push_at (h, s.media->pdata[i], t0 + 20 * (i - 8 * seg) +
          (i >= 20 ? 40 : 0));
      if (i == 19) {
        fail_unless_equals_uint64 (pending_clock_time (h),
            510 * GST_MSECOND);
        fail_unless (gst_harness_crank_single_clock_wait (h));
        assert_received (h, 19);
      }
    }
    gst_harness_set_time (h, (t0 + 190) * GST_MSECOND);
    gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[2 * seg]));
    gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[2 * seg + 1]));
    assert_received (h, 8 * seg + 8);
  }
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 1);
  fail_unless_equals_int (check_stat_u64 (h->element, "recovered"), 1);
  fail_unless_equals_int (check_stat_u64 (h->element, "late"), 1);
  fail_unless_equals_int (check_stat_u64 (h->element, "repaired-late"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (h->element, "segment-time"),
      190 * GST_MSECOND);
  fail_unless_equals_uint64 (check_stat_u64 (h->element, "hold-time"),
      50 * GST_MSECOND);
  /* Once only, though every segment is too long. */
  fail_unless_equals_int (count_warnings (bus, "size-time"), 1);
  /* Once again for a new size-time that is still too short. */
  g_object_set (h->element, "size-time", 100 * GST_MSECOND, NULL);
  gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[5]));
  fail_unless_equals_int (count_warnings (bus, "size-time"), 1);

  /* the teardown's messages would stay on the bus, holding the element */
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Within size-time the wait follows the measured segment time: a gap that
 * cannot be repaired is released once its parity has had time to come,
 * not at the bound. */
GST_START_TEST (test_hold_follows_segment_time)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 16, 2, 4);
  GstBus *bus = gst_bus_new ();

  setup (&h, &fec, "size-time=1000000000");
  gst_element_set_bus (h->element, bus);
  for (guint i = 0; i < 8; i++)
    push_at (h, s.media->pdata[i], 10 * i);
  gst_harness_set_time (h, 80 * GST_MSECOND);
  gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[0]));
  gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[1]));
  assert_received (h, 8);
  fail_unless_equals_uint64 (check_stat_u64 (h->element, "segment-time"),
      80 * GST_MSECOND);
  /* 80 ms + 1/4 + 5 ms */
  fail_unless_equals_uint64 (check_stat_u64 (h->element, "hold-time"),
      105 * GST_MSECOND);

  /* Media 8 and 10 (the same subsegment) are lost; 9 waits from 90 ms. */
  push_at (h, s.media->pdata[9], 90);
  fail_unless_equals_uint64 (pending_clock_time (h), 195 * GST_MSECOND);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  assert_received (h, 9);
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 1);
  fail_unless_equals_int (count_warnings (bus, ""), 0);

  /* the teardown's messages would stay on the bus, holding the element */
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A gap that waits the whole size-time (no parity seen yet) is released
 * earlier once the first parity shows how long segments take. */
GST_START_TEST (test_hold_shrinks_while_waiting)
{
  GstHarness *h, *fec;
  Stream s = make_stream (10, 8, 2, 4);

  setup (&h, &fec, "size-time=1000000000");
  /* Media 3 and 5 (one subsegment) are lost; 4 waits from 40 ms. */
  for (guint i = 0; i < 8; i++)
    if (i != 3 && i != 5)
      push_at (h, s.media->pdata[i], 10 * i);
  assert_received (h, 3);
  fail_unless_equals_uint64 (pending_clock_time (h), 1040 * GST_MSECOND);

  /* Parity at 80 ms: segment time 80 ms, hold 105 ms, due at 145 ms. */
  gst_harness_set_time (h, 80 * GST_MSECOND);
  gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[0]));
  gst_harness_push (fec, gst_buffer_ref (s.parity->pdata[1]));
  fail_unless_equals_uint64 (pending_clock_time (h), 145 * GST_MSECOND);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  assert_received (h, 4);
  /* The gap at 5: 6 waits from 60 ms. */
  fail_unless_equals_uint64 (pending_clock_time (h), 165 * GST_MSECOND);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  assert_received (h, 6);
  fail_unless_equals_int (check_stat_u64 (h->element, "unrecoverable"), 2);

  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* size-time=-1 (or anything past 60 s) is refused with GLib's range
 * warning and leaves the value as it was; the latency query stays valid. */
GST_START_TEST (test_size_time_range)
{
  GstElement *e = gst_element_factory_make ("tpssfecdec", NULL);
  guint64 v;

  ASSERT_WARNING (gst_util_set_object_arg (G_OBJECT (e), "size-time", "-1"));
  ASSERT_WARNING (g_object_set (e, "size-time", 61 * GST_SECOND, NULL));
  g_object_get (e, "size-time", &v, NULL);
  fail_unless_equals_uint64 (v, 200 * GST_MSECOND);
  g_object_set (e, "size-time", 60 * GST_SECOND, NULL);
  g_object_get (e, "size-time", &v, NULL);
  fail_unless_equals_uint64 (v, 60 * GST_SECOND);
  gst_object_unref (e);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  guint n;
  volatile gint pushed;
} Pusher;

static gpointer
push_in_order (gpointer data)
{
  Pusher *p = data;

  for (guint i = 0; i < p->n; i++) {
    fail_unless_equals_int (gst_harness_push (p->h, make_rtp (i, 20, FALSE)),
        GST_FLOW_OK);
    g_atomic_int_inc (&p->pushed);
  }
  return NULL;
}

/* A downstream that does not take packets holds the receiving thread back
 * once the output queue is full, instead of queueing a non-live stream
 * whole; everything comes out in order once it takes them. */
GST_START_TEST (test_output_queue_bounded)
{
  GstHarness *h, *fec;
  Pusher p = { NULL, 3000, 0 };
  GThread *t;

  setup (&h, &fec, "");
  gst_harness_set_blocking_push_mode (h);
  p.h = h;
  t = g_thread_new ("pusher", push_in_order, &p);
  for (guint i = 0; i < 200 && g_atomic_int_get (&p.pushed) < (gint) p.n; i++)
    g_usleep (5000);
  fail_unless (g_atomic_int_get (&p.pushed) < 1100,
      "%d packets went in while downstream took none",
      g_atomic_int_get (&p.pushed));
  for (guint i = 0; i < p.n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    fail_unless (out != NULL);
    gst_rtp_buffer_map (out, GST_MAP_READ, &rtp);
    fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), i);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (out);
  }
  g_thread_join (t);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_inspect_documents_stats)
{
  check_inspect_docs ("tpssfecdec");
}

GST_END_TEST;

/* Issue 13: parity that comes after size-time, when the oldest packets of
 * its segment were pushed and have left the store, rebuilt and pushed them
 * a second time as recoveries. No loss here: 20 packets out, once each. */
GST_START_TEST (test_late_parity_pushes_nothing_twice)
{
  GstHarness *h, *fec;
  Stream s = make_stream (100, 20, 4, 5);

  setup (&h, &fec, "size-time=50000000");
  fail_unless_equals_int (s.parity->len, 4);
  /* Media every 3 ms (0 .. 57 ms), then parity and a copy of the first
   * packet at 60 ms. The last media packet evicted those older than 7 ms
   * (seq 100, 101, 102): three subsegments lost a packet from the store. */
  for (guint i = 0; i < 20; i++)
    push_at (h, s.media->pdata[i], 3 * i);
  assert_received (h, 20);
  gst_harness_set_time (h, 60 * GST_MSECOND);
  for (guint j = 0; j < s.parity->len; j++)
    fail_unless_equals_int (gst_harness_push (fec,
            gst_buffer_ref (s.parity->pdata[j])), GST_FLOW_OK);
  push_at (h, s.media->pdata[0], 60);
  assert_received (h, 20);
  for (guint i = 0; i < 20; i++)
    assert_pull_equal (h, s.media->pdata[i]);

  fail_unless_equals_int (check_stat_u64 (h->element, "recovered"), 0);
  fail_unless_equals_int (check_stat_u64 (h->element, "late"), 0);
  fail_unless_equals_int (check_stat_u64 (h->element, "fec-late"), 3);
  fail_unless_equals_int (check_stat_u64 (h->element, "duplicates"), 1);
  stream_clear (&s);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
tpssfecdec_suite (void)
{
  Suite *s = suite_create ("tpssfecdec");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_recovers_in_order);
  tcase_add_test (tc, test_late_parity_pushes_nothing_twice);
  tcase_add_test (tc, test_gap_released_after_size_time);
  tcase_add_test (tc, test_bad_parity_counted);
  tcase_add_test (tc, test_eos_releases_held);
  tcase_add_test (tc, test_latency_includes_size_time);
  tcase_add_test (tc, test_flush_forgets);
  tcase_add_test (tc, test_segment_longer_than_size_time);
  tcase_add_test (tc, test_hold_follows_segment_time);
  tcase_add_test (tc, test_hold_shrinks_while_waiting);
  tcase_add_test (tc, test_size_time_range);
  tcase_add_test (tc, test_inspect_documents_stats);
  tcase_add_test (tc, test_output_queue_bounded);
  return s;
}

GST_CHECK_MAIN (tpssfecdec);
