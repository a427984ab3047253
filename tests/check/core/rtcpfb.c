/* Unit tests of gst/common/core/rtcp.h: RFC 4585 PLI and the key-unit hold-off. */
#include <gst/check/gstcheck.h>

#include "core/rtcp.h"

#define MS (G_GINT64_CONSTANT (1000000))

GST_START_TEST (test_pli_round_trip)
{
  /* RFC 4585 6.3.1: V=2, FMT=1, PT=206, length 2, sender SSRC, media SSRC. */
  static const guint8 expect[RTCP_PLI_SIZE] = { 0x81, 0xce, 0x00, 0x02,
    0x11, 0x22, 0x33, 0x44, 0xaa, 0xbb, 0xcc, 0xdd
  };
  guint8 buf[RTCP_PLI_SIZE];
  guint32 sender = 0, media = 0;

  fail_unless_equals_int (rtcp_pli_write (buf, sizeof buf, 0x11223344u,
          0xaabbccddu), RTCP_PLI_SIZE);
  fail_unless (memcmp (buf, expect, sizeof buf) == 0);
  fail_unless (rtcp_pli_parse (buf, sizeof buf, &sender, &media));
  fail_unless_equals_uint64 (sender, 0x11223344u);
  fail_unless_equals_uint64 (media, 0xaabbccddu);
  fail_unless_equals_int (rtcp_pli_write (buf, RTCP_PLI_SIZE - 1, 1, 2), 0);
}

GST_END_TEST;

GST_START_TEST (test_pli_rejects_other_packets)
{
  guint8 buf[RTCP_PLI_SIZE];
  guint i;

  rtcp_pli_write (buf, sizeof buf, 1, 2);
  /* Every truncation is refused. */
  for (i = 0; i < RTCP_PLI_SIZE; i++)
    fail_if (rtcp_pli_parse (buf, i, NULL, NULL));
  /* FIR (FMT 4), an RTPFB NACK (PT 205), version 1, a length past the data
   * and a length too short for the SSRCs are not PLIs. */
  buf[0] = 0x84;
  fail_if (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
  buf[0] = 0x81;
  buf[1] = 205;
  fail_if (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
  buf[1] = RTCP_PT_PSFB;
  buf[0] = 0x41;
  fail_if (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
  buf[0] = 0x81;
  buf[3] = 3;
  fail_if (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
  buf[3] = 1;
  fail_if (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
  buf[3] = 2;
  fail_unless (rtcp_pli_parse (buf, sizeof buf, NULL, NULL));
}

GST_END_TEST;

GST_START_TEST (test_holdoff)
{
  KeyUnitHoldoff h;

  key_unit_holdoff_init (&h);
  fail_unless (key_unit_holdoff_take (&h, 0, 500 * MS));
  fail_if (key_unit_holdoff_take (&h, 499 * MS, 500 * MS));
  fail_unless (key_unit_holdoff_take (&h, 500 * MS, 500 * MS));
  fail_if (key_unit_holdoff_take (&h, 600 * MS, 500 * MS));
  fail_unless (key_unit_holdoff_take (&h, 1000 * MS, 500 * MS));
}

GST_END_TEST;

static Suite *
rtcpfb_suite (void)
{
  Suite *s = suite_create ("rtcpfb");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pli_round_trip);
  tcase_add_test (tc, test_pli_rejects_other_packets);
  tcase_add_test (tc, test_holdoff);
  return s;
}

GST_CHECK_MAIN (rtcpfb);
