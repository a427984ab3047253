/* tpsssrc sync=sender-reports: one sender's audio and video in two TPSS
 * sessions, the audio held back 150 ms on its way (a queue before its
 * tpsssink, as a slower path would), received by two tpsssrc of one
 * sync-group. For each buffer the receiver's PTS less the capture time
 * its RTP timestamp gives (the payloaders start at timestamp 0) is the
 * stream's delay; audio and video of one capture instant are in sync when
 * the two delays agree. Without sync they differ by the hold-back. */
#include <gst/check/gstcheck.h>
#include "checkutil.h"
#include "slowstart.h"

#define HOLD_BACK_MS 150
#define VIDEO_RATE 90000
#define AUDIO_RATE 8000

typedef struct
{
  GMutex lock;
  gboolean recording;
  GArray *delays[2];            /* gint64 ns: [0] video, [1] audio */
  guint pads;
} Capture;

typedef struct
{
  Capture *cap;
  guint index;
  guint rate;
  GstPad *pad;                  /* the tpsssrc pad, under cap->lock */
} Stream;

static GstPadProbeReturn
delay_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *st = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint8 hdr[8];
  gint64 capture, delay;

  if (gst_buffer_extract (buf, 0, hdr, sizeof hdr) != sizeof hdr)
    return GST_PAD_PROBE_OK;
  capture = (gint64) gst_util_uint64_scale (GST_READ_UINT32_BE (hdr + 4),
      GST_SECOND, st->rate);
  delay = (gint64) GST_BUFFER_PTS (buf) - capture;
  g_mutex_lock (&st->cap->lock);
  if (st->cap->recording)
    g_array_append_val (st->cap->delays[st->index], delay);
  g_mutex_unlock (&st->cap->lock);
  return GST_PAD_PROBE_OK;
}

static void
on_pad_added (GstElement * src, GstPad * pad, gpointer data)
{
  Stream *st = data;
  GstElement *bin = GST_ELEMENT (gst_element_get_parent (src));
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *sinkpad;

  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (bin), sink);
  gst_element_sync_state_with_parent (sink);
  sinkpad = gst_element_get_static_pad (sink, "sink");
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, delay_probe, st, NULL);
  g_mutex_lock (&st->cap->lock);
  st->cap->pads++;
  gst_object_replace ((GstObject **) & st->pad, GST_OBJECT (pad));
  g_mutex_unlock (&st->cap->lock);
  gst_object_unref (bin);
}

static gint
cmp_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static gint64
median (GArray * a)
{
  g_array_sort (a, cmp_int64);
  return g_array_index (a, gint64, a->len / 2);
}

/* The number of delays recorded for @index (under the lock). */
static guint
recorded (Capture * cap, guint index)
{
  guint n;

  g_mutex_lock (&cap->lock);
  n = cap->delays[index]->len;
  g_mutex_unlock (&cap->lock);
  return n;
}

/* Waits up to @timeout_s seconds for both streams' pads and their first
 * two sender reports: from then on both streams of the member count
 * toward its offset. */
static void
wait_for_sender_reports (Capture * cap, GstElement * v, GstElement * a,
    guint timeout_s)
{
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  guint pads = 0;

  while (g_get_monotonic_time () < end) {
    g_mutex_lock (&cap->lock);
    pads = cap->pads;
    g_mutex_unlock (&cap->lock);
    if (pads == 2)
      break;
    g_usleep (20000);
  }
  fail_unless_equals_int (pads, 2);
  check_stat_u64_reaches (v, "sr-received", 2, timeout_s);
  check_stat_u64_reaches (a, "sr-received", 2, timeout_s);
}

/* Records the streams' delays until the video has @video_n and the audio
 * @audio_n of them (50 and 200: 2 s of each, at 25 frames and 100 packets
 * a second, when the machine keeps up); fails after @timeout_s seconds. */
static void
record_delays (Capture * cap, guint video_n, guint audio_n, guint timeout_s)
{
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;

  g_mutex_lock (&cap->lock);
  cap->recording = TRUE;
  g_mutex_unlock (&cap->lock);
  while ((recorded (cap, 0) < video_n || recorded (cap, 1) < audio_n) &&
      g_get_monotonic_time () < end)
    g_usleep (20000);
  g_mutex_lock (&cap->lock);
  cap->recording = FALSE;
  g_mutex_unlock (&cap->lock);
  fail_unless (cap->delays[0]->len >= video_n &&
      cap->delays[1]->len >= audio_n, "%u video and %u audio packets in "
      "%u s", cap->delays[0]->len, cap->delays[1]->len, timeout_s);
}

/* Runs the call until both streams' sender reports arrived, then returns
 * the audio's median delay less the video's (ns) over the next 50 video
 * and 200 audio packets. */
static gint64
measure_skew (const gchar * sync, guint max_hold)
{
  guint sv = free_udp_port (), sa = free_udp_port ();
  guint rv = free_udp_port (), ra = free_udp_port ();
  Capture cap = { 0, };
  Stream video = { &cap, 0, VIDEO_RATE, NULL };
  Stream audio = { &cap, 1, AUDIO_RATE, NULL };
  GstQuery *latency;
  GstClockTime min_latency = 0;
  gchar *send_desc, *recv_desc, *vm, *am;
  GstElement *sender, *receiver, *v, *e;
  gint64 skew;
  GstStructure *stats;

  g_mutex_init (&cap.lock);
  cap.delays[0] = g_array_new (FALSE, FALSE, sizeof (gint64));
  cap.delays[1] = g_array_new (FALSE, FALSE, sizeof (gint64));
  vm = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", sv, rv);
  am = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", sa, ra);
  send_desc = g_strdup_printf ("videotestsrc is-live=true ! "
      "video/x-raw,format=I420,width=32,height=24,framerate=25/1 ! "
      "rtpvrawpay timestamp-offset=0 ! tpsssink port=%u member-id=1 "
      "members=%s initial-rate=2000000 "
      "audiotestsrc is-live=true samplesperbuffer=80 ! "
      "audio/x-raw,format=S16BE,rate=%u,channels=1 ! "
      "rtpL16pay timestamp-offset=0 ! queue min-threshold-time=%u000000 "
      "max-size-time=0 max-size-bytes=0 max-size-buffers=0 ! "
      "tpsssink port=%u member-id=1 members=%s initial-rate=2000000",
      sv, vm, AUDIO_RATE, HOLD_BACK_MS, sa, am);
  recv_desc = g_strdup_printf ("tpsssrc name=v port=%u member-id=2 "
      "members=%s media=video clock-rate=%u sync=%s sync-group=lipsync "
      "max-hold=%u "
      "tpsssrc name=a port=%u member-id=2 members=%s media=audio "
      "clock-rate=%u sync=%s sync-group=lipsync max-hold=%u",
      rv, vm, VIDEO_RATE, sync, max_hold, ra, am, AUDIO_RATE, sync, max_hold);
  sender = gst_parse_launch (send_desc, NULL);
  receiver = gst_parse_launch (recv_desc, NULL);
  fail_unless (sender && receiver);
  v = gst_bin_get_by_name (GST_BIN (receiver), "v");
  g_signal_connect (v, "pad-added", G_CALLBACK (on_pad_added), &video);
  e = gst_bin_get_by_name (GST_BIN (receiver), "a");
  g_signal_connect (e, "pad-added", G_CALLBACK (on_pad_added), &audio);

  fail_unless (gst_element_set_state (receiver, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (sender, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* before a stream's first SR its buffers are stamped on arrival, and
   * the member's offset counts only the streams stamped from an SR */
  wait_for_sender_reports (&cap, v, e, 20);
  record_delays (&cap, 50, 200, 20);
  skew = median (cap.delays[1]) - median (cap.delays[0]);
  /* fec-size-time (200 ms), and with sync the latency property (200 ms) */
  latency = gst_query_new_latency ();
  fail_unless (gst_pad_query (audio.pad, latency));
  gst_query_parse_latency (latency, NULL, &min_latency, NULL);
  gst_query_unref (latency);
  fail_unless_equals_uint64 (min_latency, g_str_equal (sync, "none") ?
      200 * GST_MSECOND : 400 * GST_MSECOND);
  g_object_get (e, "stats", &stats, NULL);
  GST_INFO ("sync=%s: A/V skew %.1f ms; audio %s", sync, skew / 1e6,
      gst_structure_to_string (stats));
  gst_structure_free (stats);
  gst_object_unref (v);
  gst_object_unref (e);

  gst_element_set_state (sender, GST_STATE_NULL);
  gst_element_set_state (receiver, GST_STATE_NULL);
  gst_object_unref (sender);
  gst_object_unref (receiver);
  gst_clear_object (&video.pad);
  gst_clear_object (&audio.pad);
  g_array_unref (cap.delays[0]);
  g_array_unref (cap.delays[1]);
  g_mutex_clear (&cap.lock);
  g_free (send_desc);
  g_free (recv_desc);
  g_free (vm);
  g_free (am);
  return skew;
}

/* Arrival stamps: the audio is the hold-back later than its video. */
GST_START_TEST (test_skew_without_sync)
{
  gint64 skew = measure_skew ("none", 1000);

  g_print ("tpsslipsync: sync=none A/V skew %.1f ms\n", skew / 1e6);
  fail_unless (skew > (HOLD_BACK_MS - 50) * GST_MSECOND,
      "skew %.1f ms", skew / 1e6);
}

GST_END_TEST;

/* Sender-report stamps: audio and video of one instant within 20 ms. */
GST_START_TEST (test_skew_with_sender_reports)
{
  gint64 skew = measure_skew ("sender-reports", 1000);

  g_print ("tpsslipsync: sync=sender-reports A/V skew %.1f ms\n", skew / 1e6);
  fail_unless (ABS (skew) < 20 * GST_MSECOND, "skew %.1f ms", skew / 1e6);
}

GST_END_TEST;

/* A video held back more than max-hold would be, is not: no lip sync. */
GST_START_TEST (test_max_hold_gives_up)
{
  gint64 skew = measure_skew ("sender-reports", 100);

  g_print ("tpsslipsync: sync=sender-reports max-hold=100 A/V skew %.1f ms\n",
      skew / 1e6);
  fail_unless (skew > (HOLD_BACK_MS - 50) * GST_MSECOND,
      "skew %.1f ms", skew / 1e6);
}

GST_END_TEST;

#define HOLD_START_MS 1000

typedef struct
{
  GMutex lock;
  GstElement *pipeline;
  guint pads;
  guint held;                   /* buffers out while the slow start held */
  guint stamped;                /* buffers with a PTS after it */
  gint64 ahead;                 /* the most a PTS was ahead of the running
                                 * time it was pushed at (ns) */
} StartStamps;

static GstPadProbeReturn
ahead_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  StartStamps *ss = data;
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  GstClock *clock = gst_element_get_clock (ss->pipeline);
  gint64 now;

  if (!clock)
    return GST_PAD_PROBE_OK;
  now = (gint64) gst_clock_get_time (clock) -
      (gint64) gst_element_get_base_time (ss->pipeline);
  gst_object_unref (clock);
  g_mutex_lock (&ss->lock);
  if (g_atomic_int_get (&slow_start_holding))
    ss->held++;
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    ss->ahead = MAX (ss->ahead, (gint64) pts - now);
    if (!g_atomic_int_get (&slow_start_holding))
      ss->stamped++;
  }
  g_mutex_unlock (&ss->lock);
  return GST_PAD_PROBE_OK;
}

static void
on_start_pad_added (GstElement * src, GstPad * pad, gpointer data)
{
  StartStamps *ss = data;
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *sinkpad;

  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (ss->pipeline), sink);
  gst_element_sync_state_with_parent (sink);
  sinkpad = gst_element_get_static_pad (sink, "sink");
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, ahead_probe, ss, NULL);
  g_mutex_lock (&ss->lock);
  ss->pads++;
  g_mutex_unlock (&ss->lock);
}

/* A joiner's tpsssrc receives from the moment it is PAUSED. Packets that
 * arrive before its base time is set have no running time: stamped on
 * the clock's time instead, they were that far ahead (the host's uptime
 * in a conference; 56 years here, on a realtime clock), and so were the
 * delays sync=sender-reports took from them. */
static void
check_no_stamp_before_base_time (const gchar * sync)
{
  guint sa = free_udp_port (), ra = free_udp_port ();
  StartStamps ss = { 0, };
  GstClock *clock = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type",
      GST_CLOCK_TYPE_REALTIME, NULL);
  gchar *am = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", sa, ra);
  gchar *send_desc = g_strdup_printf ("audiotestsrc is-live=true "
      "samplesperbuffer=80 ! audio/x-raw,format=S16BE,rate=%u,channels=1 ! "
      "rtpL16pay timestamp-offset=0 ! tpsssink port=%u member-id=1 "
      "members=%s initial-rate=2000000", AUDIO_RATE, sa, am);
  gchar *recv_props = g_strdup_printf ("port=%u member-id=2 members=%s "
      "media=audio clock-rate=%u sync=%s", ra, am, AUDIO_RATE, sync);
  GstElement *sender = gst_parse_launch (send_desc, NULL);
  GstElement *receiver = gst_pipeline_new (NULL);
  GstElement *a = check_make_element ("tpsssrc", recv_props);
  gint64 end;
  guint pads = 0, stamped = 0;

  fail_unless (sender != NULL);
  ss.pipeline = receiver;
  ss.ahead = G_MININT64;
  g_mutex_init (&ss.lock);
  /* while it starts, the tpsssrc has a clock and no base time yet */
  gst_bin_add_many (GST_BIN (receiver), gst_object_ref (a),
      slow_start_new (HOLD_START_MS), NULL);
  gst_pipeline_use_clock (GST_PIPELINE (receiver), clock);
  g_signal_connect (a, "pad-added", G_CALLBACK (on_start_pad_added), &ss);

  fail_unless (gst_element_set_state (receiver, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (sender, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (pads == 0 && g_get_monotonic_time () < end) {
    g_usleep (20000);
    g_mutex_lock (&ss.lock);
    pads = ss.pads;
    g_mutex_unlock (&ss.lock);
  }
  fail_unless_equals_int (pads, 1);
  check_stat_u64_reaches (a, "sr-received", 2, 20);
  /* returns once the slow start let the tpsssrc have its base time */
  fail_unless (gst_element_set_state (receiver, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* ten stamped buffers, however slowly a loaded host makes them */
  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  do {
    g_usleep (20000);
    g_mutex_lock (&ss.lock);
    stamped = ss.stamped;
    g_mutex_unlock (&ss.lock);
  } while (stamped < 10 && g_get_monotonic_time () < end);

  g_mutex_lock (&ss.lock);
  GST_INFO ("sync=%s: %u buffers during the start, %u stamped after, the "
      "most ahead %" G_GINT64_FORMAT " ms", sync, ss.held, ss.stamped,
      ss.ahead / GST_MSECOND);
  fail_unless (ss.held >= 10, "%u buffers while the start was held",
      ss.held);
  fail_unless (ss.stamped >= 10, "%u stamped buffers after", ss.stamped);
  fail_unless (ss.ahead < 500 * GST_MSECOND, "a PTS %" G_GINT64_FORMAT
      " ms ahead of the running time", ss.ahead / GST_MSECOND);
  fail_unless (check_stat_u64 (a, "unstamped") >= ss.held, "unstamped %"
      G_GUINT64_FORMAT " of %u", check_stat_u64 (a, "unstamped"), ss.held);
  g_mutex_unlock (&ss.lock);

  gst_element_set_state (sender, GST_STATE_NULL);
  gst_element_set_state (receiver, GST_STATE_NULL);
  gst_object_unref (a);
  gst_object_unref (sender);
  gst_object_unref (receiver);
  gst_object_unref (clock);
  g_mutex_clear (&ss.lock);
  g_free (send_desc);
  g_free (recv_props);
  g_free (am);
}

GST_START_TEST (test_no_stamp_before_base_time)
{
  check_no_stamp_before_base_time ("sender-reports");
}

GST_END_TEST;

GST_START_TEST (test_no_arrival_stamp_before_base_time)
{
  check_no_stamp_before_base_time ("none");
}

GST_END_TEST;

static Suite *
tpsslipsync_suite (void)
{
  Suite *s = suite_create ("tpsslipsync");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_skew_without_sync);
  tcase_add_test (tc, test_skew_with_sender_reports);
  tcase_add_test (tc, test_max_hold_gives_up);
  tcase_add_test (tc, test_no_stamp_before_base_time);
  tcase_add_test (tc, test_no_arrival_stamp_before_base_time);
  return s;
}

GST_CHECK_MAIN (tpsslipsync);
