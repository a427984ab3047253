/* Unit tests of gst/common/core/rfc4571.h: frames written and found again
 * however the stream is split, empty frames skipped, frames over the bound
 * refused without losing the frames after them. */
#include <gst/check/gstcheck.h>

#include "core/rfc4571.h"

/* Three frames of 1, 300 and 5 bytes, each byte its frame's number. */
static GByteArray *
three_frames (void)
{
  GByteArray *s = g_byte_array_new ();
  static const gsize sizes[3] = { 1, 300, 5 };

  for (guint f = 0; f < 3; f++) {
    guint8 data[300];
    memset (data, f + 1, sizes[f]);
    fail_unless (rfc4571_frame_append (s, data, sizes[f]));
  }
  return s;
}

/* Pops every whole frame; returns how many, their sizes in @sizes and
 * checks their bytes. */
static guint
pop_all (Rfc4571Deframer * d, gsize * sizes, guint first_frame)
{
  const guint8 *frame;
  gsize len;
  guint n = 0;

  while (rfc4571_deframer_pop (d, &frame, &len)) {
    for (gsize i = 0; i < len; i++)
      fail_unless_equals_int (frame[i], first_frame + n);
    sizes[n++] = len;
  }
  return n;
}

GST_START_TEST (test_framer)
{
  GByteArray *s = g_byte_array_new ();
  static guint8 big[RFC4571_MAX_FRAME + 1];
  guint8 hdr[2] = { 0xee, 0xee };

  fail_unless (rfc4571_frame_append (s, (const guint8 *) "abc", 3));
  fail_unless_equals_int (s->len, 5);
  fail_unless (s->data[0] == 0 && s->data[1] == 3 && s->data[4] == 'c');
  /* the largest frame the field holds, and one over it: refused whole */
  fail_unless (rfc4571_frame_append (s, big, RFC4571_MAX_FRAME));
  fail_unless_equals_int (s->len, 5 + 2 + RFC4571_MAX_FRAME);
  fail_if (rfc4571_frame_append (s, big, sizeof big));
  fail_unless_equals_int (s->len, 5 + 2 + RFC4571_MAX_FRAME);
  fail_if (rfc4571_header_write (sizeof big, hdr));
  fail_unless (hdr[0] == 0xee && hdr[1] == 0xee);
  fail_unless (rfc4571_header_write (0x1234, hdr));
  fail_unless (hdr[0] == 0x12 && hdr[1] == 0x34);
  g_byte_array_unref (s);
}

GST_END_TEST;

GST_START_TEST (test_split_across_reads)
{
  GByteArray *s = three_frames ();

  /* every piece size, down to a byte at a time */
  for (gsize piece = 1; piece <= s->len; piece++) {
    Rfc4571Deframer d;
    gsize sizes[3];
    guint n = 0;

    rfc4571_deframer_init (&d, 1500);
    for (gsize off = 0; off < s->len; off += piece) {
      rfc4571_deframer_push (&d, s->data + off, MIN (piece, s->len - off));
      n += pop_all (&d, sizes + n, 1 + n);
    }
    fail_unless_equals_int (n, 3);
    fail_unless (sizes[0] == 1 && sizes[1] == 300 && sizes[2] == 5);
    fail_unless_equals_uint64 (d.frames, 3);
    fail_unless_equals_int (rfc4571_deframer_pending (&d), 0);
    rfc4571_deframer_clear (&d);
  }
  g_byte_array_unref (s);
}

GST_END_TEST;

GST_START_TEST (test_partial_frame_waits)
{
  GByteArray *s = three_frames ();
  Rfc4571Deframer d;
  const guint8 *frame;
  gsize len, sizes[3];

  rfc4571_deframer_init (&d, 1500);
  /* frame 1 and a length alone, then part of frame 2 */
  rfc4571_deframer_push (&d, s->data, 3 + 2);
  fail_unless_equals_int (pop_all (&d, sizes, 1), 1);
  rfc4571_deframer_push (&d, s->data + 5, 299);
  fail_if (rfc4571_deframer_pop (&d, &frame, &len));
  fail_unless_equals_int (rfc4571_deframer_pending (&d), 2 + 299);
  rfc4571_deframer_push (&d, s->data + 5 + 299, s->len - 5 - 299);
  fail_unless_equals_int (pop_all (&d, sizes, 2), 2);
  /* a reset forgets a frame cut by the connection's end */
  rfc4571_deframer_push (&d, s->data, 4);
  rfc4571_deframer_reset (&d);
  fail_unless_equals_int (rfc4571_deframer_pending (&d), 0);
  rfc4571_deframer_push (&d, s->data, s->len);
  fail_unless_equals_int (pop_all (&d, sizes, 1), 3);
  fail_unless_equals_uint64 (d.frames, 6);
  rfc4571_deframer_clear (&d);
  g_byte_array_unref (s);
}

GST_END_TEST;

GST_START_TEST (test_zero_length_skipped)
{
  static const guint8 stream[] = { 0, 0, 0, 1, 7, 0, 0, 0, 0, 0, 2, 8, 8 };
  Rfc4571Deframer d;
  const guint8 *frame;
  gsize len;

  rfc4571_deframer_init (&d, 1500);
  rfc4571_deframer_push (&d, stream, sizeof stream);
  fail_unless (rfc4571_deframer_pop (&d, &frame, &len));
  fail_unless (len == 1 && frame[0] == 7);
  fail_unless (rfc4571_deframer_pop (&d, &frame, &len));
  fail_unless (len == 2 && frame[0] == 8 && frame[1] == 8);
  fail_if (rfc4571_deframer_pop (&d, &frame, &len));
  fail_unless_equals_uint64 (d.empty, 3);
  fail_unless_equals_uint64 (d.frames, 2);
  rfc4571_deframer_clear (&d);
}

GST_END_TEST;

GST_START_TEST (test_oversize_refused)
{
  GByteArray *s = g_byte_array_new ();
  guint8 big[400];

  memset (big, 0xbb, sizeof big);
  fail_unless (rfc4571_frame_append (s, (const guint8 *) "\1", 1));
  fail_unless (rfc4571_frame_append (s, big, sizeof big));
  fail_unless (rfc4571_frame_append (s, (const guint8 *) "\2\2", 2));
  /* whole, and in pieces that cut the refused frame anywhere */
  for (gsize piece = 1; piece <= s->len; piece += 37) {
    Rfc4571Deframer d;
    gsize sizes[3];
    guint n = 0;

    rfc4571_deframer_init (&d, 300);
    for (gsize off = 0; off < s->len; off += piece) {
      rfc4571_deframer_push (&d, s->data + off, MIN (piece, s->len - off));
      n += pop_all (&d, sizes + n, 1 + n);
      /* never holds more than the bound and a length */
      fail_unless (rfc4571_deframer_pending (&d) <= 300 + 2);
    }
    fail_unless_equals_int (n, 2);
    fail_unless (sizes[0] == 1 && sizes[1] == 2);
    fail_unless_equals_uint64 (d.oversize, 1);
    rfc4571_deframer_clear (&d);
  }
  g_byte_array_unref (s);
}

GST_END_TEST;

static Suite *
corerfc4571_suite (void)
{
  Suite *s = suite_create ("corerfc4571");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_framer);
  tcase_add_test (tc, test_split_across_reads);
  tcase_add_test (tc, test_partial_frame_waits);
  tcase_add_test (tc, test_zero_length_skipped);
  tcase_add_test (tc, test_oversize_refused);
  return s;
}

GST_CHECK_MAIN (corerfc4571);
