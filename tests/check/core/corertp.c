/* Unit tests of gst/common/core/rtp.h: the RTP header with CSRCs, padding
 * and both RFC 8285 extension forms. */
#include <gst/check/gstcheck.h>

#include "core/rtp.h"
#include "core/wire.h"

static const guint8 payload[5] = { 'h', 'e', 'l', 'l', 'o' };

static RtpHeader
sample_header (void)
{
  RtpHeader h;

  memset (&h, 0, sizeof h);
  h.marker = TRUE;
  h.payload_type = 96;
  h.seq = 0xfffe;
  h.timestamp = 0x89abcdef;
  h.ssrc = 0x11223344;
  h.csrc_count = 2;
  h.csrc[0] = 0xaaaaaaaa;
  h.csrc[1] = 0xbbbbbbbb;
  return h;
}

/* Header, @payload and @pad bytes of padding; returns the length. */
static gsize
build (const RtpHeader * h, const RtpExtElement * ext, guint n_ext,
    guint8 pad, guint8 * out, gsize max)
{
  RtpHeader hh = *h;
  gsize n;

  hh.padding = pad > 0;
  n = rtp_header_write (&hh, ext, n_ext, out, max);
  fail_unless (n > 0);
  memcpy (out + n, payload, sizeof payload);
  n += sizeof payload;
  if (pad)
    n += rtp_padding_write (pad, out + n, max - n);
  return n;
}

static void
check_round_trip (const RtpExtElement * ext, guint n_ext, guint16 profile)
{
  RtpHeader h = sample_header (), p;
  guint8 buf[256];
  gsize n = build (&h, ext, n_ext, 3, buf, sizeof buf);
  RtpExtIter it;
  RtpExtElement el;
  guint i = 0;

  fail_unless (rtp_header_parse (buf, n, &p));
  fail_unless (p.marker && p.padding && p.extension);
  fail_unless_equals_int (p.payload_type, 96);
  fail_unless_equals_int (p.seq, 0xfffe);
  fail_unless_equals_uint64 (p.timestamp, 0x89abcdef);
  fail_unless_equals_uint64 (p.ssrc, 0x11223344);
  fail_unless_equals_int (p.csrc_count, 2);
  fail_unless_equals_uint64 (p.csrc[1], 0xbbbbbbbb);
  fail_unless_equals_int (p.ext_profile, profile);
  fail_unless_equals_int (p.padding_len, 3);
  fail_unless_equals_int (p.payload_len, sizeof payload);
  fail_unless (memcmp (p.payload, payload, sizeof payload) == 0);
  fail_unless (rtp_ext_iter_init (&it, &p));
  while (rtp_ext_iter_next (&it, &el)) {
    fail_unless (i < n_ext);
    fail_unless_equals_int (el.id, ext[i].id);
    fail_unless_equals_int (el.len, ext[i].len);
    fail_unless (el.len == 0 || memcmp (el.data, ext[i].data, el.len) == 0);
    i++;
  }
  fail_if (it.failed);
  fail_unless_equals_int (i, n_ext);
  /* every truncation into the header is refused */
  for (gsize len = 0; len < p.header_len; len++)
    fail_if (rtp_header_parse (buf, len, NULL), "accepted %u", (guint) len);
}

GST_START_TEST (test_one_byte_extensions)
{
  static const guint8 a[1] = { 0x42 }, b[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9,
    10, 11, 12, 13, 14, 15, 16
  };
  RtpExtElement ext[2] = { {1, a, 1}, {14, b, 16} };
  RtpHeader p;
  guint8 buf[256];
  RtpExtElement el;
  gsize n;

  check_round_trip (ext, 2, RTP_EXT_PROFILE_ONE_BYTE);
  n = build (&(RtpHeader) { .ssrc = 1 }, ext, 2, 0, buf, sizeof buf);
  fail_unless (rtp_header_parse (buf, n, &p));
  fail_unless (rtp_ext_find (&p, 14, &el) && el.len == 16 && el.data[15] == 16);
  fail_if (rtp_ext_find (&p, 2, &el));
}

GST_END_TEST;

GST_START_TEST (test_two_byte_extensions)
{
  static const guint8 a[17] = { 0 }, b[3] = { 7, 8, 9 };
  /* a 17-byte element, an ID above 14 and an empty one need two bytes */
  RtpExtElement ext[3] = { {2, a, 17}, {200, b, 3}, {5, NULL, 0} };

  check_round_trip (ext, 3, RTP_EXT_PROFILE_TWO_BYTE);
}

GST_END_TEST;

/* Walks the one-byte extension block of @pkt: its only element is ID 1
 * holding 0xaa; @malformed: what follows it overruns the block. */
static void
check_single_element (const guint8 * pkt, gsize len, gboolean malformed)
{
  RtpHeader p;
  RtpExtIter it;
  RtpExtElement el;

  /* the header is sound either way: elements are read on demand */
  fail_unless (rtp_header_parse (pkt, len, &p));
  fail_unless (rtp_ext_iter_init (&it, &p));
  fail_unless (rtp_ext_iter_next (&it, &el));
  fail_unless (el.id == 1 && el.len == 1 && el.data[0] == 0xaa);
  fail_if (rtp_ext_iter_next (&it, &el));
  fail_unless_equals_int (it.failed, malformed);
}

GST_START_TEST (test_extension_elements_checked)
{
  /* padding, an element, then one claiming 4 bytes where 2 are left */
  static const guint8 pkt[] = {
    0x90, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2,
    0xbe, 0xde, 0x00, 0x02,
    0x00, 0x10, 0xaa, 0x00, 0x00, 0x33, 0xbb, 0xcc
  };

  check_single_element (pkt, sizeof pkt, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_extension_id_zero_is_padding)
{
  /* an octet with ID 0 is padding whatever its length bits */
  static const guint8 pkt[] = {
    0x90, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2,
    0xbe, 0xde, 0x00, 0x01, 0x0c, 0x10, 0xaa, 0x00
  };

  check_single_element (pkt, sizeof pkt, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_padding_and_lengths)
{
  RtpHeader h = sample_header ();
  guint8 buf[256];
  gsize n = build (&h, NULL, 0, 4, buf, sizeof buf);
  gsize hlen = 12 + 8;

  fail_unless (rtp_header_parse (buf, n, NULL));
  /* padding count 0 */
  buf[n - 1] = 0;
  fail_if (rtp_header_parse (buf, n, NULL));
  /* padding reaching into the header */
  buf[n - 1] = (guint8) (n - hlen + 1);
  fail_if (rtp_header_parse (buf, n, NULL));
  /* exactly header + padding: an empty payload is fine */
  buf[n - 1] = (guint8) (n - hlen);
  fail_unless (rtp_header_parse (buf, n, NULL));
  buf[n - 1] = 4;
  /* version 1 */
  buf[0] = (buf[0] & 0x3f) | 0x40;
  fail_if (rtp_header_parse (buf, n, NULL));
  buf[0] = (buf[0] & 0x3f) | 0x80;
  /* 15 CSRCs claimed, fewer present */
  buf[0] |= 0x0f;
  fail_if (rtp_header_parse (buf, 12 + 4 * 14 + 3, NULL));
  /* an extension block longer than the packet */
  {
    static const guint8 x[] = { 0x90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0xbe, 0xde, 0x00, 0x02, 0, 0, 0, 0
    };
    fail_if (rtp_header_parse (x, sizeof x, NULL));
    fail_unless (rtp_header_parse (x, sizeof x - 4, NULL) == FALSE);
  }
  fail_if (rtp_header_parse (NULL, 12, NULL));
}

GST_END_TEST;

GST_START_TEST (test_writer_all_or_nothing)
{
  RtpHeader h = sample_header ();
  static const guint8 a[2] = { 1, 2 };
  RtpExtElement ext[1] = { {3, a, 2} };
  RtpExtElement bad[1] = { {0, a, 2} };
  guint8 buf[64];
  gsize need = rtp_header_write (&h, ext, 1, buf, sizeof buf);

  fail_unless_equals_int (need, 12 + 8 + 4 + 4);
  for (gsize max = 0; max < need; max++) {
    memset (buf, 0xee, sizeof buf);
    fail_unless_equals_int (rtp_header_write (&h, ext, 1, buf, max), 0);
    fail_unless_equals_int (buf[0], 0xee);
  }
  /* ID 0 is padding: no element can have it */
  fail_unless_equals_int (rtp_header_write (&h, bad, 1, buf, sizeof buf), 0);
  fail_unless_equals_int (rtp_padding_write (0, buf, 4), 0);
  fail_unless_equals_int (rtp_padding_write (5, buf, 4), 0);
  rtp_set_seq (buf, 0x1234);
  fail_unless (buf[2] == 0x12 && buf[3] == 0x34);
  rtp_set_ssrc (buf, 0x01020304);
  fail_unless (buf[8] == 0x01 && buf[11] == 0x04);
}

GST_END_TEST;

GST_START_TEST (test_layout_check_from_prefix)
{
  RtpHeader h = sample_header ();
  static const guint8 a[2] = { 1, 2 };
  RtpExtElement ext[1] = { {3, a, 2} };
  guint8 buf[256];
  gsize n = build (&h, ext, 1, 2, buf, sizeof buf), hlen = 0, pad = 0;

  /* what a packet held in pieces passes: its first bytes and last octet */
  fail_unless (rtp_layout_check (buf, MIN (n, RTP_LAYOUT_PREFIX), n,
          buf[n - 1], &hlen, &pad));
  fail_unless_equals_int (hlen, 12 + 8 + 8);
  fail_unless_equals_int (pad, 2);
  fail_if (rtp_layout_check (buf, MIN (n, RTP_LAYOUT_PREFIX), n, 0, NULL,
          NULL));
  /* the fixed header, 2 CSRCs and the extension word decide it */
  fail_unless_equals_int (rtp_layout_prefix_len (buf[0]), 12 + 8 + 4);
  fail_unless (rtp_layout_check (buf, 24, n, buf[n - 1], NULL, NULL));
  /* a prefix too short to decide is refused, never read past */
  fail_if (rtp_layout_check (buf, 23, n, buf[n - 1], NULL, NULL));
}

GST_END_TEST;

/* The IDs of @pkt's extension elements in order, the form of its block,
 * and its payload checked against @payload with @pad octets of padding. */
static guint
ext_ids (const guint8 * pkt, gsize len, guint8 * ids, gboolean * two_byte,
    guint8 pad)
{
  RtpHeader p;
  RtpExtIter it;
  RtpExtElement el;
  guint n = 0;

  fail_unless (rtp_header_parse (pkt, len, &p));
  fail_unless_equals_int (p.payload_len, sizeof payload);
  fail_unless (memcmp (p.payload, payload, sizeof payload) == 0);
  fail_unless_equals_int (p.padding_len, pad);
  fail_unless_equals_int (p.seq, 0xfffe);
  fail_unless (rtp_ext_iter_init (&it, &p));
  while (rtp_ext_iter_next (&it, &el))
    ids[n++] = el.id;
  fail_if (it.failed);
  *two_byte = it.two_byte;
  return n;
}

GST_START_TEST (test_ext_add_new_block)
{
  static const guint8 q[3] = { 1, 2, 3 };
  RtpExtElement small = { 5, q, 3 }, wide = { 200, q, 3 };
  RtpHeader h = sample_header (), p;
  RtpExtElement el;
  guint8 in[128], out[128], ids[8];
  gsize len = build (&h, NULL, 0, 2, in, sizeof in), n;
  gboolean two;

  n = rtp_ext_add (in, len, &small, out, sizeof out);
  fail_unless_equals_int (n, len + 4 + 4);
  fail_unless_equals_int (ext_ids (out, n, ids, &two, 2), 1);
  fail_unless (ids[0] == 5 && !two);
  fail_unless (rtp_header_parse (out, n, &p));
  fail_unless_equals_int (p.csrc_count, 2);
  fail_unless (rtp_ext_find (&p, 5, &el) && el.len == 3 && el.data[2] == 3);
  /* an ID above 14 needs the two-byte form */
  n = rtp_ext_add (in, len, &wide, out, sizeof out);
  fail_unless_equals_int (n, len + 4 + 8);
  fail_unless_equals_int (ext_ids (out, n, ids, &two, 2), 1);
  fail_unless (ids[0] == 200 && two);
}

GST_END_TEST;

GST_START_TEST (test_ext_add_to_one_byte_block)
{
  /* padding, element 1 (1 byte), padding, element 2 (2 bytes), padding */
  static const guint8 pkt[] = {
    0x90, 0x60, 0xff, 0xfe, 0, 0, 0, 1, 0, 0, 0, 2,
    0xbe, 0xde, 0x00, 0x02,
    0x00, 0x10, 0xaa, 0x00, 0x21, 0xbb, 0xcc, 0x00,
    'h', 'e', 'l', 'l', 'o'
  };
  static const guint8 q[4] = { 9, 9, 9, 9 }, big[17] = { 0 };
  RtpExtElement el = { 7, q, 4 }, wide = { 7, big, 17 };
  guint8 out[128], ids[8];
  gsize n = rtp_ext_add (pkt, sizeof pkt, &el, out, sizeof out);
  gboolean two;

  /* the new element goes after element 2, over the trailing padding:
   * 7 bytes kept + 5 new = 12, three words */
  fail_unless_equals_int (n, sizeof pkt + 4);
  fail_unless_equals_int (ext_ids (out, n, ids, &two, 0), 3);
  fail_unless (ids[0] == 1 && ids[1] == 2 && ids[2] == 7 && !two);
  fail_unless_equals_int (out[12 + 4 + 7], 0x73);
  /* an element only the two-byte form can hold does not go in */
  fail_unless_equals_int (rtp_ext_add (pkt, sizeof pkt, &wide, out,
          sizeof out), 0);
}

GST_END_TEST;

GST_START_TEST (test_ext_add_to_two_byte_block)
{
  /* profile 0x1003 (appbits kept), padding, element 9 with 0 bytes */
  static const guint8 pkt[] = {
    0x90, 0x60, 0xff, 0xfe, 0, 0, 0, 1, 0, 0, 0, 2,
    0x10, 0x03, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00,
    'h', 'e', 'l', 'l', 'o'
  };
  static const guint8 q[1] = { 0x55 };
  RtpExtElement el = { 3, q, 1 };
  guint8 out[128], ids[8];
  gsize n = rtp_ext_add (pkt, sizeof pkt, &el, out, sizeof out);
  gboolean two;

  fail_unless_equals_int (n, sizeof pkt + 4);
  fail_unless_equals_int (read16 (out + 12), 0x1003);
  fail_unless_equals_int (ext_ids (out, n, ids, &two, 0), 2);
  fail_unless (ids[0] == 9 && ids[1] == 3 && two);
}

GST_END_TEST;

GST_START_TEST (test_ext_add_refused)
{
  static const guint8 q[2] = { 1, 2 };
  RtpExtElement el = { 4, q, 2 }, zero = { 0, q, 2 };
  /* ID 1, then an ID 15 ending the walk, then bytes that are not kept */
  static const guint8 stop[] = {
    0x90, 0x60, 0xff, 0xfe, 0, 0, 0, 1, 0, 0, 0, 2,
    0xbe, 0xde, 0x00, 0x01, 0x10, 0xaa, 0xf0, 0x77,
    'h', 'e', 'l', 'l', 'o'
  };
  guint8 pkt[] = {
    0x90, 0x60, 0xff, 0xfe, 0, 0, 0, 1, 0, 0, 0, 2,
    0xbe, 0xde, 0x00, 0x01, 0x10, 0xaa, 0x33, 0xbb,
    'h', 'e', 'l', 'l', 'o'
  };
  guint8 out[128], ids[8];
  gsize need;
  gboolean two;

  /* an element overrunning its block */
  fail_unless_equals_int (rtp_ext_add (pkt, sizeof pkt, &el, out,
          sizeof out), 0);
  /* a profile that is not RFC 8285's */
  pkt[12] = 0x12;
  pkt[18] = 0x00;
  fail_unless_equals_int (rtp_ext_add (pkt, sizeof pkt, &el, out,
          sizeof out), 0);
  /* ID 0 is padding, no element */
  fail_unless_equals_int (rtp_ext_add (stop, sizeof stop, &zero, out,
          sizeof out), 0);
  /* not RTP: truncated into its extension block */
  fail_unless_equals_int (rtp_ext_add (stop, 17, &el, out, sizeof out), 0);
  /* 2 bytes kept, 3 new: the block grows to two words */
  need = rtp_ext_add (stop, sizeof stop, &el, out, sizeof out);
  fail_unless_equals_int (need, sizeof stop + 4);
  fail_unless_equals_int (ext_ids (out, need, ids, &two, 0), 2);
  fail_unless (ids[0] == 1 && ids[1] == 4);
  fail_unless (need <= sizeof stop + RTP_EXT_ADD_GROWTH (2));
  /* an output too small by any amount is refused */
  for (gsize max = 0; max < need; max++)
    fail_unless_equals_int (rtp_ext_add (stop, sizeof stop, &el, out, max),
        0);
}

GST_END_TEST;

static Suite *
corertp_suite (void)
{
  Suite *s = suite_create ("corertp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_one_byte_extensions);
  tcase_add_test (tc, test_two_byte_extensions);
  tcase_add_test (tc, test_extension_elements_checked);
  tcase_add_test (tc, test_extension_id_zero_is_padding);
  tcase_add_test (tc, test_rejects_bad_padding_and_lengths);
  tcase_add_test (tc, test_writer_all_or_nothing);
  tcase_add_test (tc, test_layout_check_from_prefix);
  tcase_add_test (tc, test_ext_add_new_block);
  tcase_add_test (tc, test_ext_add_to_one_byte_block);
  tcase_add_test (tc, test_ext_add_to_two_byte_block);
  tcase_add_test (tc, test_ext_add_refused);
  return s;
}

GST_CHECK_MAIN (corertp);
