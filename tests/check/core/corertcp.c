/* Unit tests of gst/common/core/rtcp.h: compound walks (valid, truncated,
 * bad length, padding), SR/RR, SDES, BYE, APP and the generic NACK. */
#include <gst/check/gstcheck.h>

#include "core/rtcp.h"

static RtcpReport
sample_sr (void)
{
  RtcpReport rep;

  memset (&rep, 0, sizeof rep);
  rep.is_sr = TRUE;
  rep.ssrc = 0x01020304;
  rep.ntp = G_GUINT64_CONSTANT (0x1122334455667788);
  rep.rtp_ts = 90000;
  rep.packet_count = 10;
  rep.octet_count = 12000;
  rep.n_blocks = 2;
  rep.blocks[0] = (RtcpReportBlock) {
  0xa, 26, -5, 70000, 12, 0x33445566, 65536};
  rep.blocks[1] = (RtcpReportBlock) {
  0xb, 0, 0x7fffff, 1, 0, 0, 0};
  return rep;
}

/* SR, SDES CNAME, APP, NACK, PLI: returns the length. */
static gsize
build_compound (guint8 * buf, gsize max)
{
  RtcpReport rep = sample_sr ();
  static const guint8 app_data[4] = { 1, 2, 3, 4 };
  RtcpNackItem item = { 100, 0x0005 };
  gsize n = 0;

  n += rtcp_report_write (&rep, buf + n, max - n);
  n += rtcp_sdes_cname_write (rep.ssrc, "user@host", buf + n, max - n);
  n += rtcp_app_write (3, rep.ssrc, "TEST", app_data, 4, buf + n, max - n);
  n += rtcp_nack_write (rep.ssrc, 0xa, &item, 1, buf + n, max - n);
  n += rtcp_pli_write (buf + n, max - n, rep.ssrc, 0xa);
  return n;
}

GST_START_TEST (test_compound_walk)
{
  guint8 buf[512];
  gsize n = build_compound (buf, sizeof buf);
  static const guint8 types[] = { RTCP_PT_SR, RTCP_PT_SDES, RTCP_PT_APP,
    RTCP_PT_RTPFB, RTCP_PT_PSFB
  };
  RtcpIter it;
  RtcpPacket pkt;
  RtcpReport rep, expect = sample_sr ();
  RtcpApp app;
  guint i = 0, n_items = 0;
  guint32 media = 0;

  fail_unless_equals_int (n, 8 + 20 + 48 + 20 + 16 + 16 + 12);
  fail_unless (rtcp_compound_valid (buf, n));
  rtcp_iter_init (&it, buf, n);
  while (rtcp_iter_next (&it, &pkt)) {
    fail_unless (i < G_N_ELEMENTS (types));
    fail_unless_equals_int (pkt.type, types[i]);
    i++;
  }
  fail_if (it.failed);
  fail_unless_equals_int (i, 5);

  rtcp_iter_init (&it, buf, n);
  fail_unless (rtcp_iter_next (&it, &pkt) && rtcp_report_parse (&pkt, &rep));
  fail_unless (memcmp (&rep, &expect, sizeof rep) == 0);
  fail_unless (rtcp_iter_next (&it, &pkt));
  fail_unless (memcmp (pkt.body + 4, "\x01\x09user@host", 11) == 0);
  fail_unless (rtcp_iter_next (&it, &pkt) && rtcp_app_parse (&pkt, &app));
  fail_unless (app.subtype == 3 && app.ssrc == 0x01020304 && app.len == 4 &&
      memcmp (app.name, "TEST", 4) == 0 && app.data[3] == 4);
  fail_unless (rtcp_iter_next (&it, &pkt));
  fail_unless (rtcp_nack_parse (&pkt, NULL, &media, &n_items));
  fail_unless (media == 0xa && n_items == 1);
  fail_unless (rtcp_nack_item (&pkt, 0).pid == 100);
  fail_unless (rtcp_iter_next (&it, &pkt));
  fail_unless (rtcp_pli_parse (pkt.data, pkt.len, NULL, &media));
  fail_unless_equals_int (media, 0xa);
}

GST_END_TEST;

GST_START_TEST (test_compound_truncated)
{
  guint8 buf[512];
  gsize n = build_compound (buf, sizeof buf);
  /* where SR, SDES, APP, NACK and PLI end */
  static const gsize ends[] = { 76, 96, 112, 128, 140 };
  guint k = 0;

  fail_unless_equals_int (n, 140);
  /* every length that does not end on a packet boundary is refused */
  for (gsize len = 0; len <= n; len++) {
    gboolean boundary = k < G_N_ELEMENTS (ends) && len == ends[k];
    RtcpIter it;
    RtcpPacket pkt;
    guint walked = 0;

    rtcp_iter_init (&it, buf, len);
    while (rtcp_iter_next (&it, &pkt))
      walked++;
    fail_unless_equals_int (rtcp_walk_valid (buf, len), boundary);
    fail_unless_equals_int (rtcp_compound_valid (buf, len), boundary);
    fail_unless_equals_int (it.failed, len > 0 && !boundary);
    fail_unless_equals_int (walked, k + boundary);
    k += boundary;
  }
}

GST_END_TEST;

GST_START_TEST (test_compound_bad_version_and_length)
{
  guint8 buf[512];
  gsize n = build_compound (buf, sizeof buf);

  /* version 1 in the second packet */
  buf[76] = (buf[76] & 0x3f) | 0x40;
  fail_if (rtcp_walk_valid (buf, n));
  buf[76] = (buf[76] & 0x3f) | 0x80;
  fail_unless (rtcp_walk_valid (buf, n));
  /* a length one word past the end of the last packet */
  buf[n - 12 + 3]++;
  fail_if (rtcp_walk_valid (buf, n));
  buf[n - 12 + 3]--;
  /* a first packet that is not SR/RR: a walk, not an RFC 3550 compound */
  fail_unless (rtcp_walk_valid (buf + 76, n - 76));
  fail_if (rtcp_compound_valid (buf + 76, n - 76));
  fail_if (rtcp_walk_valid (NULL, 4));
  fail_if (rtcp_compound_valid (NULL, 0));
}

GST_END_TEST;

GST_START_TEST (test_compound_padding)
{
  RtcpReport rep = sample_sr ();
  guint8 buf[512];
  gsize n = rtcp_report_write (&rep, buf, sizeof buf), m;
  RtcpIter it;
  RtcpPacket pkt;
  RtcpReport back;

  /* an RR padded by 8 octets as the last packet */
  rep.is_sr = FALSE;
  rep.n_blocks = 1;
  m = rtcp_report_write (&rep, buf + n, sizeof buf - n);
  memset (buf + n + m, 0, 8);
  buf[n + m + 7] = 8;
  buf[n] |= 0x20;
  buf[n + 3] += 2;
  fail_unless (rtcp_compound_valid (buf, n + m + 8));
  rtcp_iter_init (&it, buf, n + m + 8);
  fail_unless (rtcp_iter_next (&it, &pkt) && rtcp_iter_next (&it, &pkt));
  fail_unless (pkt.padding && pkt.body_len == m - 4);
  fail_unless (rtcp_report_parse (&pkt, &back) && back.n_blocks == 1);
  /* a count of 0, a count reaching into the header */
  buf[n + m + 7] = 0;
  fail_if (rtcp_walk_valid (buf, n + m + 8));
  buf[n + m + 7] = (guint8) (m + 8 - 4 + 1);
  fail_if (rtcp_walk_valid (buf, n + m + 8));
  buf[n + m + 7] = (guint8) (m + 8 - 4);
  fail_unless (rtcp_walk_valid (buf, n + m + 8));
  buf[n + m + 7] = 8;
  /* padding on a packet that is not the last, with a sound count */
  buf[n - 1] = 4;
  buf[0] |= 0x20;
  fail_if (rtcp_walk_valid (buf, n + m + 8));
  /* a compound's first packet is never padded (RFC 3550 A.2) */
  fail_if (rtcp_compound_valid (buf, n));
}

GST_END_TEST;

GST_START_TEST (test_report_needs_its_blocks)
{
  RtcpReport rep = sample_sr (), back;
  guint8 buf[128];
  gsize n = rtcp_report_write (&rep, buf, sizeof buf);
  RtcpPacket pkt;

  /* RC says 3 blocks, the length holds 2 */
  buf[0] = (buf[0] & ~0x1f) | 3;
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_if (rtcp_report_parse (&pkt, &back));
  for (gsize max = 0; max < n; max++)
    fail_unless_equals_int (rtcp_report_write (&rep, buf, max), 0);
}

GST_END_TEST;

GST_START_TEST (test_nack_items)
{
  /* across the wrap, unordered, a duplicate, and a run longer than 17 */
  static const guint16 seqs[] = { 3, 65534, 65535, 0, 65535, 20, 2, 40 };
  RtcpNackItem items[8];
  guint16 out[17];
  guint n = rtcp_nack_items_from_seqs (seqs, G_N_ELEMENTS (seqs), items, 8);
  guint8 buf[64];
  RtcpPacket pkt;
  guint n_items;

  /* in sequence order from 65534: 65535, 0, 2, 3 fit its bitmask, 20 is
   * 22 past it and 40 is 20 past 20: new items */
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (items[0].pid, 65534);
  fail_unless_equals_int (items[0].blp, 0x1 | 0x2 | 0x8 | 0x10);
  fail_unless (items[1].pid == 20 && items[1].blp == 0);
  fail_unless (items[2].pid == 40 && items[2].blp == 0);
  fail_unless_equals_int (rtcp_nack_item_expand (items[0], out), 5);
  fail_unless (out[0] == 65534 && out[1] == 65535 && out[2] == 0 &&
      out[3] == 2 && out[4] == 3);
  fail_unless_equals_int (rtcp_nack_write (1, 2, items, n, buf, sizeof buf),
      12 + 12);
  fail_unless (rtcp_header_parse (buf, 24, &pkt));
  fail_unless (rtcp_nack_parse (&pkt, NULL, NULL, &n_items) && n_items == 3);
  /* a NACK without items is not one */
  fail_unless_equals_int (rtcp_nack_write (1, 2, items, 0, buf, sizeof buf),
      0);
  fail_unless_equals_int (rtcp_nack_items_from_seqs (seqs, 8, items, 1), 1);
}

GST_END_TEST;

GST_START_TEST (test_bye_round_trip)
{
  static const guint32 srcs[2] = { 0x01020304, 0xa0b0c0d0 };
  guint8 buf[64];
  RtcpPacket pkt;
  RtcpBye bye;
  gsize n;

  /* one source, no reason: header and SSRC */
  n = rtcp_bye_write (srcs, 1, NULL, buf, sizeof buf);
  fail_unless_equals_int (n, 8);
  fail_unless (rtcp_walk_valid (buf, n));
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_unless_equals_int (pkt.type, RTCP_PT_BYE);
  fail_unless (rtcp_bye_parse (&pkt, &bye));
  fail_unless_equals_int (bye.n_sources, 1);
  fail_unless_equals_int (bye.sources[0], srcs[0]);
  fail_unless (bye.reason == NULL);

  /* two sources and a reason of 5: 1 + 5 octets padded to 8 */
  n = rtcp_bye_write (srcs, 2, "gone.", buf, sizeof buf);
  fail_unless_equals_int (n, 4 + 8 + 8);
  fail_unless_equals_int (buf[0] & 0x1f, 2);
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_unless (rtcp_bye_parse (&pkt, &bye));
  fail_unless_equals_int (bye.n_sources, 2);
  fail_unless_equals_int (bye.sources[1], srcs[1]);
  fail_unless_equals_int (bye.reason_len, 5);
  fail_unless (memcmp (bye.reason, "gone.", 5) == 0);
}

GST_END_TEST;

GST_START_TEST (test_bye_refused)
{
  static const guint32 src = 7;
  guint8 buf[64];
  RtcpPacket pkt;
  RtcpBye bye;
  gsize n;

  /* nothing to say goodbye for, too many sources, too small a buffer */
  fail_unless_equals_int (rtcp_bye_write (&src, 0, NULL, buf, sizeof buf), 0);
  fail_unless_equals_int (rtcp_bye_write (&src, 32, NULL, buf, 4096), 0);
  fail_unless_equals_int (rtcp_bye_write (&src, 1, "x", buf, 11), 0);

  /* SC says 2 sources, the length holds one */
  n = rtcp_bye_write (&src, 1, NULL, buf, sizeof buf);
  buf[0] = (buf[0] & ~0x1f) | 2;
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_if (rtcp_bye_parse (&pkt, &bye));

  /* a reason longer than the packet */
  n = rtcp_bye_write (&src, 1, "abc", buf, sizeof buf);
  fail_unless_equals_int (n, 12);
  buf[8] = 9;
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_if (rtcp_bye_parse (&pkt, &bye));

  /* not a BYE */
  n = rtcp_pli_write (buf, sizeof buf, 1, 2);
  fail_unless (rtcp_header_parse (buf, n, &pkt));
  fail_if (rtcp_bye_parse (&pkt, &bye));
}

GST_END_TEST;

static Suite *
corertcp_suite (void)
{
  Suite *s = suite_create ("corertcp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_compound_walk);
  tcase_add_test (tc, test_compound_truncated);
  tcase_add_test (tc, test_compound_bad_version_and_length);
  tcase_add_test (tc, test_compound_padding);
  tcase_add_test (tc, test_report_needs_its_blocks);
  tcase_add_test (tc, test_nack_items);
  tcase_add_test (tc, test_bye_round_trip);
  tcase_add_test (tc, test_bye_refused);
  return s;
}

GST_CHECK_MAIN (corertcp);
