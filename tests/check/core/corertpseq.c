/* Unit tests of gst/common/core/rtpseq.h: sequence wrap, RFC 3550 A.1
 * probation and restarts, A.3 loss counts and A.8 jitter. */
#include <gst/check/gstcheck.h>

#include "core/rtpseq.h"

GST_START_TEST (test_extend_wraps)
{
  fail_unless_equals_int64 (rtp_seq_extend (65535, 0), 65536);
  fail_unless_equals_int64 (rtp_seq_extend (65536, 65535), 65535);
  fail_unless_equals_int64 (rtp_seq_extend (3 * 65536 + 10, 5), 3 * 65536 + 5);
  /* half the space ahead or more counts as behind */
  fail_unless_equals_int64 (rtp_seq_extend (100000, (guint16) (100000 +
              32767)), 100000 + 32767);
  fail_unless_equals_int64 (rtp_seq_extend (100000, (guint16) (100000 +
              32768)), 100000 - 32768);
}

GST_END_TEST;

/* A valid source that started at @first after probation. */
static void
start_valid (RtpSeqStats * s, guint16 first)
{
  rtp_seq_stats_start (s, first);
  fail_if (rtp_seq_stats_update (s, first));
  fail_unless (rtp_seq_stats_update (s, (guint16) (first + 1)));
}

GST_START_TEST (test_probation)
{
  RtpSeqStats s;

  rtp_seq_stats_start (&s, 10);
  fail_if (rtp_seq_stats_update (&s, 10));
  /* out of sequence: probation starts again */
  fail_if (rtp_seq_stats_update (&s, 20));
  fail_unless (rtp_seq_stats_update (&s, 21));
  fail_unless_equals_int (s.base_seq, 21);
  fail_unless_equals_int (s.received, 1);
}

GST_END_TEST;

GST_START_TEST (test_wrap_and_loss)
{
  RtpSeqStats s;
  RtpLossInterval iv = { 0, 0 };
  gint32 cum;
  guint8 frac;

  start_valid (&s, 65530);
  /* 65532 .. 65535, 0 .. 9 with 65533, 2 and 3 lost */
  for (guint32 q = 65532; q < 65536 + 10; q++)
    if (q != 65533 && q != 65536 + 2 && q != 65536 + 3)
      fail_unless (rtp_seq_stats_update (&s, (guint16) q));
  fail_unless_equals_int (s.cycles, 65536);
  fail_unless_equals_uint64 (rtp_seq_stats_ext_max (&s), 65536 + 9);
  fail_unless_equals_int64 (rtp_seq_stats_expected (&s), 65536 + 9 - 65531 +
      1);
  fail_unless_equals_int64 (rtp_seq_stats_lost (&s), 3);
  rtp_seq_stats_report (&s, &iv, &cum, &frac);
  fail_unless_equals_int (cum, 3);
  /* 3 of 15 expected: 256 * 3 / 15 = 51 */
  fail_unless_equals_int (frac, 51);
  /* a duplicate: received more than expected in the next interval */
  fail_unless (rtp_seq_stats_update (&s, 9));
  fail_unless (rtp_seq_stats_update (&s, 10));
  rtp_seq_stats_report (&s, &iv, &cum, &frac);
  fail_unless_equals_int (cum, 2);
  fail_unless_equals_int (frac, 0);
  /* a late packet of an earlier gap is counted, not a restart */
  fail_unless (rtp_seq_stats_update (&s, 2));
  fail_unless_equals_int64 (rtp_seq_stats_lost (&s), 1);
}

GST_END_TEST;

GST_START_TEST (test_large_jump_restarts_only_when_followed)
{
  RtpSeqStats s;

  start_valid (&s, 100);
  /* beyond max_dropout: refused alone */
  fail_if (rtp_seq_stats_update (&s, 100 + 5000));
  fail_unless (rtp_seq_stats_update (&s, 102));
  fail_if (rtp_seq_stats_update (&s, 40000));
  /* followed by its successor: the source restarted */
  fail_unless (rtp_seq_stats_update (&s, 40001));
  fail_unless_equals_int (s.base_seq, 40001);
  fail_unless_equals_int64 (rtp_seq_stats_lost (&s), 0);
}

GST_END_TEST;

GST_START_TEST (test_loss_clamped_to_24_bits)
{
  RtpLossInterval iv = { 0, 0 };
  gint32 cum;
  guint8 frac;

  rtp_loss_report (&iv, 0x1000000, 0, &cum, &frac);
  fail_unless_equals_int (cum, 0x7fffff);
  fail_unless_equals_int (frac, 255);
  rtp_loss_report (&iv, 0x1000000, 0x2000000, &cum, &frac);
  fail_unless_equals_int (cum, -0x800000);
  fail_unless_equals_int (frac, 0);
}

GST_END_TEST;

GST_START_TEST (test_jitter)
{
  RtpJitter j = { 0, 0, FALSE };

  /* constant transit: no jitter */
  for (guint i = 0; i < 10; i++)
    rtp_jitter_update (&j, 1000 * i, 1000 * i + 500);
  fail_unless_equals_int (rtp_jitter_get (&j), 0);
  /* one packet 160 units late: J += (|D| - J) / 16 */
  rtp_jitter_update (&j, 10000, 10000 + 500 + 160);
  fail_unless_equals_int (rtp_jitter_get (&j), 10);
  /* across the 32-bit wrap of both clocks */
  j = (RtpJitter) { 0, 0, FALSE };
  rtp_jitter_update (&j, G_MAXUINT32 - 10, 5);
  rtp_jitter_update (&j, 6, 22 + 32);
  fail_unless_equals_int (rtp_jitter_get (&j), 2);
  fail_unless_equals_uint64 (rtp_arrival_units (G_GINT64_CONSTANT
          (1000000000), 90000), 90000);
  fail_unless_equals_uint64 (rtp_arrival_units (-5, 90000), 0);
}

GST_END_TEST;

static Suite *
corertpseq_suite (void)
{
  Suite *s = suite_create ("corertpseq");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_extend_wraps);
  tcase_add_test (tc, test_probation);
  tcase_add_test (tc, test_wrap_and_loss);
  tcase_add_test (tc, test_large_jump_restarts_only_when_followed);
  tcase_add_test (tc, test_loss_clamped_to_24_bits);
  tcase_add_test (tc, test_jitter);
  return s;
}

GST_CHECK_MAIN (corertpseq);
