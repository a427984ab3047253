/* Unit tests of the RLM receiver's output merger (gst/rlm/rlmmerge.c): the
 * subscribed layers in the source's order, renumbered without the other
 * layers' gaps but with the gaps of real loss. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "rlmmerge.h"
#include "core/rtp.h"
#include "core/wire.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define EXT_ID 6

/* An RTP packet of the source (SSRC @ssrc, sequence @seq) stamped as
 * packet @layer_seq of @layer. */
static gsize
packet (guint8 * out, guint32 ssrc, guint16 seq, guint layer,
    guint16 layer_seq)
{
  guint8 plain[40] = { 0x80, 96 };
  guint8 ext[3] = { layer, layer_seq >> 8, layer_seq & 0xff };
  RtpExtElement el = { EXT_ID, ext, sizeof (ext) };

  write16 (plain + 2, seq);
  write32 (plain + 4, seq * 3000u);
  write32 (plain + 8, ssrc);
  return rtp_ext_add (plain, sizeof (plain), &el, out, 128);
}

static void
push (RlmMerger * m, guint16 seq, guint layer, guint16 layer_seq, gint64 now)
{
  guint8 buf[128];
  gsize n = packet (buf, 0x1234, seq, layer, layer_seq);

  fail_unless (n > 0);
  fail_unless (rlm_merger_push (m, buf, n, now));
}

/* Pops one packet due at @now: its output sequence number (-1: none) and
 * its @layer. */
static gint
pop (RlmMerger * m, gint64 now, guint * layer)
{
  gsize len;
  guint8 *p = rlm_merger_pop (m, now, &len, NULL);
  RtpHeader h;
  guint16 lseq;
  gint seq;

  if (!p)
    return -1;
  fail_unless (rtp_header_parse (p, len, &h));
  fail_unless (rlm_layer_ext_parse (p, len, EXT_ID, layer, &lseq));
  seq = h.seq;
  g_free (p);
  return seq;
}

/* Level 1 of 2: the base layer's packets come out numbered 100, 101, ...
 * although every other source number is missing (layer 1's). */
GST_START_TEST (test_unsubscribed_gaps_hidden)
{
  RlmMerger m;
  guint layer;

  rlm_merger_init (&m, EXT_ID, 20 * MS, 64, 100);
  for (guint i = 0; i < 10; i++) {
    push (&m, 2 * i, 0, 500 + i, i * 10 * MS);
    /* a gap in the source's numbers waits the window, then goes */
    fail_unless_equals_int (pop (&m, i * 10 * MS + 20 * MS, &layer),
        100 + i);
    fail_unless_equals_int (layer, 0);
  }
  fail_unless_equals_int (pop (&m, G_MAXINT64 / 2, &layer), -1);
  rlm_merger_clear (&m);
}

GST_END_TEST;

/* A packet lost in a subscribed layer leaves a gap of its size. */
GST_START_TEST (test_real_loss_leaves_gap)
{
  RlmMerger m;
  RlmMergeStats st;
  guint layer;

  rlm_merger_init (&m, EXT_ID, 20 * MS, 64, 0);
  push (&m, 10, 0, 7, 0);
  fail_unless_equals_int (pop (&m, 20 * MS, &layer), 0);
  /* layer 0's packets 8 and 9 are lost */
  push (&m, 16, 0, 10, 30 * MS);
  fail_unless_equals_int (pop (&m, 50 * MS, &layer), 3);
  rlm_merger_get_stats (&m, &st);
  fail_unless_equals_int (st.gaps, 2);
  /* after a re-join the layer's jump is no loss */
  rlm_merger_reset_layer (&m, 0);
  push (&m, 30, 0, 400, 60 * MS);
  fail_unless_equals_int (pop (&m, 80 * MS, &layer), 4);
  rlm_merger_clear (&m);
}

GST_END_TEST;

/* Issue 21: the window holds at most max_held packets. 20 packets each
 * behind a lost one, with room for 8, release the 12 oldest at once
 * (counted as overflow); the other 8 wait for the window as before. */
GST_START_TEST (test_held_bounded)
{
  RlmMerger m;
  RlmMergeStats st;
  guint layer, released = 0;

  rlm_merger_init (&m, EXT_ID, 20 * MS, 8, 0);
  push (&m, 10, 0, 10, 0);
  fail_unless_equals_int (pop (&m, 20 * MS, &layer), 0);
  for (guint16 seq = 12; seq < 52; seq += 2)    /* every odd one lost */
    push (&m, seq, 0, seq, 30 * MS);
  while (pop (&m, 30 * MS, &layer) >= 0)
    released++;
  rlm_merger_get_stats (&m, &st);
  fail_unless_equals_int (released, 12);
  fail_unless_equals_int (st.overflow, 12);
  fail_unless_equals_int (st.held, 8);
  while (pop (&m, 50 * MS, &layer) >= 0)
    released++;
  rlm_merger_get_stats (&m, &st);
  fail_unless_equals_int (released, 20);
  fail_unless_equals_int (st.overflow, 12);
  fail_unless_equals_int (st.gaps, 20);
  rlm_merger_clear (&m);
}

GST_END_TEST;

/* Two layers arriving out of order within the window come out in the
 * source's order; the next number in sequence goes at once. */
GST_START_TEST (test_two_layers_reordered)
{
  RlmMerger m;
  RlmMergeStats st;
  guint layer;

  rlm_merger_init (&m, EXT_ID, 20 * MS, 64, 0);
  push (&m, 1, 1, 50, 0);
  push (&m, 0, 0, 70, 1 * MS);
  push (&m, 3, 1, 51, 2 * MS);
  push (&m, 2, 0, 71, 3 * MS);
  /* source 0 has no predecessor: it waits for the window */
  fail_unless_equals_int (pop (&m, 5 * MS, &layer), -1);
  fail_unless_equals_int (pop (&m, 21 * MS, &layer), 0);
  fail_unless_equals_int (layer, 0);
  for (guint i = 1; i < 4; i++) {
    fail_unless_equals_int (pop (&m, 21 * MS, &layer), i);
    fail_unless_equals_int (layer, i % 2);
  }
  /* too late, and twice the same: dropped and counted */
  {
    guint8 buf[128];
    gsize n = packet (buf, 0x1234, 2, 0, 71);
    fail_if (rlm_merger_push (&m, buf, n, 30 * MS));
    push (&m, 4, 0, 72, 30 * MS);
    n = packet (buf, 0x1234, 4, 0, 72);
    fail_if (rlm_merger_push (&m, buf, n, 31 * MS));
    fail_if (rlm_merger_push (&m, (const guint8 *) "junk", 4, 31 * MS));
  }
  rlm_merger_get_stats (&m, &st);
  fail_unless_equals_int (st.late, 1);
  fail_unless_equals_int (st.duplicates, 1);
  fail_unless_equals_int (st.malformed, 1);
  fail_unless_equals_int (st.held, 1);
  rlm_merger_clear (&m);
}

GST_END_TEST;

/* A new SSRC (a restarted sender) starts a new order; the old source's
 * packets go first and the output numbering stays continuous. */
GST_START_TEST (test_new_source)
{
  RlmMerger m;
  guint8 buf[128];
  gsize n;
  guint layer;

  rlm_merger_init (&m, EXT_ID, 20 * MS, 64, 0);
  push (&m, 5000, 0, 1, 0);
  n = packet (buf, 0x9999, 17, 0, 60000);
  fail_unless (rlm_merger_push (&m, buf, n, 1 * MS));
  fail_unless_equals_int (pop (&m, 2 * MS, &layer), 0);
  fail_unless_equals_int (pop (&m, 21 * MS, &layer), 1);
  rlm_merger_clear (&m);
}

GST_END_TEST;

static Suite *
rlmmerge_suite (void)
{
  Suite *s = suite_create ("rlmmerge");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_unsubscribed_gaps_hidden);
  tcase_add_test (tc, test_real_loss_leaves_gap);
  tcase_add_test (tc, test_two_layers_reordered);
  tcase_add_test (tc, test_held_bounded);
  tcase_add_test (tc, test_new_source);
  return s;
}

GST_CHECK_MAIN (rlmmerge);
