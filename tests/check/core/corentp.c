/* Unit tests of gst/common/core/ntp.h: NTP timestamps and the LSR/DLSR
 * round trip of RFC 3550 6.4.1. */
#include <gst/check/gstcheck.h>

#include "core/ntp.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))

GST_START_TEST (test_ntp_format)
{
  fail_unless_equals_uint64 (ntp_from_ns (0), 0);
  fail_unless_equals_uint64 (ntp_from_ns (-S), 0);
  fail_unless_equals_uint64 (ntp_from_ns (3 * S + 500 * MS),
      (G_GUINT64_CONSTANT (3) << 32) | 0x80000000u);
  /* the short format is the middle 32 bits, by either path */
  for (gint64 t = 0; t < 100 * S; t += 7777777 * 13)
    fail_unless_equals_uint64 (ntp_short (ntp_from_ns (t)),
        ntp_short_from_ns (t));
  fail_unless_equals_uint64 (ntp_duration_to_short (S), 65536);
  fail_unless_equals_uint64 (ntp_duration_to_short (G_MAXINT64), G_MAXUINT32);
  fail_unless_equals_int64 (ntp_short_to_ns (32768), 500 * MS);
}

GST_END_TEST;

/* The example of RFC 3550 6.4.1 (figure 2): an SR sent at
 * 0xb44db705:20000000, its block arriving at 0xb710:8000 with DLSR
 * 0x0005:4000 (5.25 s) and LSR 0xb705:2000 give 0x0006:2000, 6.125 s. */
GST_START_TEST (test_rfc3550_example)
{
  gint64 rtt = -1;

  fail_unless (ntp_round_trip (0xb7108000u, 0xb7052000u, 0x00054000u, &rtt));
  fail_unless_equals_int64 (rtt, 6125 * MS);
}

GST_END_TEST;

GST_START_TEST (test_round_trip_between_two_ends)
{
  /* the sender's clock leads the receiver's by 1000 s; 40 ms each way and
   * 30 ms at the receiver: the round trip is 80 ms whatever the offset */
  gint64 sr_sent = 5 * S, offset = 1000 * S, rtt = -1;
  guint32 lsr = ntp_short (ntp_from_ns (sr_sent));
  gint64 sr_arrives = sr_sent - offset + 40 * MS;
  gint64 rr_sent = sr_arrives + 30 * MS;
  guint32 dlsr = ntp_duration_to_short (rr_sent - sr_arrives);
  gint64 rr_arrives = rr_sent + offset + 40 * MS;

  fail_unless (ntp_round_trip (ntp_short_from_ns (rr_arrives), lsr, dlsr,
          &rtt));
  /* 16.16 rounding: within two units (31 us) */
  fail_unless (ABS (rtt - 80 * MS) < 31000, "rtt %" G_GINT64_FORMAT, rtt);
  /* a DLSR longer than the elapsed time is no sample (and leaves @rtt) */
  rtt = 7;
  fail_if (ntp_round_trip (ntp_short_from_ns (rr_arrives), lsr,
          ntp_duration_to_short (200 * MS), &rtt));
  fail_unless_equals_int64 (rtt, 7);
  /* across the 2^32 wrap of the short format (18.2 hours) */
  fail_unless (ntp_round_trip (5, G_MAXUINT32 - 10, 0, &rtt));
  fail_unless_equals_int64 (rtt, ntp_short_to_ns (16));
}

GST_END_TEST;

static Suite *
corentp_suite (void)
{
  Suite *s = suite_create ("corentp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ntp_format);
  tcase_add_test (tc, test_rfc3550_example);
  tcase_add_test (tc, test_round_trip_between_two_ends);
  return s;
}

GST_CHECK_MAIN (corentp);
