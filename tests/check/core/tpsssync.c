/* Unit tests of the lip-sync arithmetic (tpsssync.c): sender times from an
 * SR, exact across the RTP wrap, and one offset per member set by its
 * later stream. */
#include <gst/check/gstcheck.h>

#include "tpsssync.h"
#include "core/ntp.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (1000 * MS)
#define EPOCH (G_GINT64_CONSTANT (3900000000) * S)

GST_START_TEST (test_sender_time_exact)
{
  TpssSenderReport sr = { TRUE, ntp_from_ns (EPOCH), 0xFFFFFFF0u };
  gint64 base = ntp_to_ns (sr.ntp);

  /* ntp_to_ns undoes ntp_from_ns to within the fraction's rounding */
  fail_unless (base <= EPOCH && EPOCH - base <= 1);
  /* 90 kHz: 90 ticks a ms, forward across the wrap and backward */
  fail_unless_equals_int64 (tpss_sync_sender_time (&sr, 0xFFFFFFF0u + 900,
          90000), base + 10 * MS);
  fail_unless_equals_int64 (tpss_sync_sender_time (&sr, 0xFFFFFFF0u - 9000,
          90000), base - 100 * MS);
  /* 48 kHz audio: 48 ticks a ms */
  fail_unless_equals_int64 (tpss_sync_sender_time (&sr, 0xFFFFFFF0u + 48000,
          48000), base + S);
}

GST_END_TEST;

/* Video arrives 40 ms after capture, audio 190 ms: both streams of the
 * member get the audio's delay, so a capture instant gets one local time. */
GST_START_TEST (test_later_stream_sets_offset)
{
  TpssSync *s = tpss_sync_new (2 * S);
  gpointer video = GUINT_TO_POINTER (1), audio = GUINT_TO_POINTER (2);
  gint64 off_v = 0, off_a = 0, delay;

  for (gint64 t = 0; t < 3 * S; t += 20 * MS) {
    /* jitter up to 15 ms on top of the least delay */
    gint64 jit = (t / (20 * MS)) % 4 * 5 * MS;
    off_v = tpss_sync_update (s, 7, video, EPOCH + t, t + 40 * MS + jit, -1);
    off_a = tpss_sync_update (s, 7, audio, EPOCH + t, t + 190 * MS + jit, -1);
  }
  fail_unless_equals_int64 (off_v, 190 * MS - EPOCH);
  fail_unless_equals_int64 (off_a, off_v);
  fail_unless (tpss_sync_get_stream_delay (s, 7, video, &delay));
  fail_unless_equals_int64 (delay, 40 * MS - EPOCH);
  /* another member keeps its own offset */
  fail_unless_equals_int64 (tpss_sync_update (s, 8, video, EPOCH, 5 * MS, -1),
      5 * MS - EPOCH);

  /* the audio stops: over 4 windows (8 s) later the video is stamped on
   * its own */
  fail_unless (tpss_sync_get_offset (s, 7, 3 * S + 7 * S, &off_v));
  fail_unless_equals_int64 (off_v, 190 * MS - EPOCH);
  off_v = tpss_sync_update (s, 7, video, EPOCH + 12 * S, 12 * S + 40 * MS, -1);
  fail_unless_equals_int64 (off_v, 40 * MS - EPOCH);

  /* a removed stream counts no more */
  tpss_sync_remove_stream (s, video);
  fail_if (tpss_sync_get_offset (s, 7, 12 * S, &off_v));
  tpss_sync_free (s);
}

GST_END_TEST;

/* The least delay follows a path that got slower, after two windows. */
GST_START_TEST (test_window_follows_delay)
{
  TpssSync *s = tpss_sync_new (S);
  gpointer st = GUINT_TO_POINTER (1);
  gint64 off = 0;

  for (gint64 t = 0; t < 2 * S; t += 10 * MS)
    off = tpss_sync_update (s, 1, st, t, t + 30 * MS, -1);
  fail_unless_equals_int64 (off, 30 * MS);
  for (gint64 t = 2 * S; t < 3 * S; t += 10 * MS)
    off = tpss_sync_update (s, 1, st, t, t + 80 * MS, -1);
  fail_unless_equals_int64 (off, 30 * MS);
  for (gint64 t = 3 * S; t < 4 * S + 100 * MS; t += 10 * MS)
    off = tpss_sync_update (s, 1, st, t, t + 80 * MS, -1);
  fail_unless_equals_int64 (off, 80 * MS);
  tpss_sync_free (s);
}

GST_END_TEST;

/* Held back at most max_hold: audio 150 ms ahead of its video waits for
 * it; 1.5 s ahead, it is stamped on its own and only the video waits. */
GST_START_TEST (test_max_hold)
{
  TpssSync *s = tpss_sync_new (2 * S);
  gpointer video = GUINT_TO_POINTER (1), audio = GUINT_TO_POINTER (2);
  gint64 off_a = 0, off_v = 0;

  for (gint64 t = 0; t < S; t += 20 * MS) {
    off_v = tpss_sync_update (s, 1, video, t, t + 200 * MS, 1000 * MS);
    off_a = tpss_sync_update (s, 1, audio, t, t + 50 * MS, 1000 * MS);
    tpss_sync_update (s, 2, video, t, t + 1600 * MS, 1000 * MS);
    tpss_sync_update (s, 2, audio, t, t + 100 * MS, 1000 * MS);
  }
  fail_unless_equals_int64 (off_v, 200 * MS);
  fail_unless_equals_int64 (off_a, 200 * MS);
  fail_unless_equals_int64 (tpss_sync_update (s, 2, audio, S, S + 100 * MS,
          1000 * MS), 100 * MS);
  fail_unless_equals_int64 (tpss_sync_update (s, 2, video, S, S + 1600 * MS,
          1000 * MS), 1600 * MS);
  tpss_sync_free (s);
}

GST_END_TEST;

static Suite *
tpsssync_suite (void)
{
  Suite *s = suite_create ("tpsssync");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sender_time_exact);
  tcase_add_test (tc, test_later_stream_sets_offset);
  tcase_add_test (tc, test_window_follows_delay);
  tcase_add_test (tc, test_max_hold);
  return s;
}

GST_CHECK_MAIN (tpsssync);
