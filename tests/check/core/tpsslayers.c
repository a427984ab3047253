/* tpsslayers: which temporal layers each destination gets, and the layer
 * rates the encoder is told. */
#include <gst/check/gstcheck.h>

#include "tpsslayers.h"

/* x264layerenc's hierarchical-p order with 3 layers: L0 L2 L1 L2, ... */
static const guint period3[] = { 0, 2, 1, 2 };

/* Feeds @frames frames of @packets packets each; returns how many frames
 * went whole (no frame may go in part), and checks the sequence numbers
 * run without a gap. */
static guint
feed (TpssLayerFilter * f, guint first_frame, guint frames, guint packets,
    guint * per_layer)
{
  guint whole = 0;

  for (guint i = first_frame; i < first_frame + frames; i++) {
    guint layer = period3[i % 4], sent = 0;
    guint32 ts = i * 3000;

    for (guint p = 0; p < packets; p++) {
      guint16 seq, expect = f->next_seq;

      if (tpss_layer_filter_pass (f, layer, ts, &seq)) {
        fail_unless_equals_int (seq, expect);
        sent++;
      }
    }
    fail_unless (sent == 0 || sent == packets, "frame %u went in part", i);
    if (sent) {
      whole++;
      if (per_layer)
        per_layer[layer]++;
    }
  }
  return whole;
}

GST_START_TEST (test_filter_all_layers_at_first)
{
  TpssLayerFilter f;
  guint per_layer[3] = { 0 };

  tpss_layer_filter_init (&f, 3, 65530);        /* wraps */
  fail_unless_equals_int (feed (&f, 0, 8, 3, per_layer), 8);
  fail_unless_equals_int (f.passed, 24);
  fail_unless_equals_int (f.next_seq, (65530 + 24) & 0xffff);
  fail_unless_equals_int (per_layer[0], 2);
  fail_unless_equals_int (per_layer[1], 2);
  fail_unless_equals_int (per_layer[2], 4);
}

GST_END_TEST;

GST_START_TEST (test_filter_base_layer_only)
{
  TpssLayerFilter f;
  guint per_layer[3] = { 0 };

  tpss_layer_filter_init (&f, 3, 0);
  tpss_layer_filter_want (&f, 1);
  fail_unless_equals_int (feed (&f, 0, 16, 2, per_layer), 4);
  fail_unless_equals_int (per_layer[0], 4);
  fail_unless_equals_int (per_layer[1] + per_layer[2], 0);
  fail_unless_equals_int (f.left_out, 24);
  fail_unless_equals_int (f.next_seq, 8);       /* no gap for what is left out */
}

GST_END_TEST;

/* Down at the next frame of any layer; never within a frame. */
GST_START_TEST (test_filter_down_at_next_frame)
{
  TpssLayerFilter f;
  guint16 seq;

  tpss_layer_filter_init (&f, 3, 0);
  /* Frame 1 (layer 2) starts with all layers... */
  feed (&f, 0, 1, 2, NULL);
  fail_unless (tpss_layer_filter_pass (&f, 2, 3000, &seq));
  /* ...and the change mid-frame waits for its end. */
  tpss_layer_filter_want (&f, 2);
  fail_unless (tpss_layer_filter_pass (&f, 2, 3000, &seq));
  fail_unless (tpss_layer_filter_pass (&f, 1, 6000, &seq));
  fail_unless (!tpss_layer_filter_pass (&f, 2, 9000, &seq));
  fail_unless_equals_int (f.prefix, 2);
}

GST_END_TEST;

/* Up only at a base-layer frame: a layer-1 or layer-2 frame may reference
 * one of its own layer that the destination did not get. */
GST_START_TEST (test_filter_up_at_base_layer)
{
  TpssLayerFilter f;
  guint16 seq;

  tpss_layer_filter_init (&f, 3, 0);
  tpss_layer_filter_want (&f, 1);
  feed (&f, 0, 2, 1, NULL);     /* L0 sent, L2 left out */
  tpss_layer_filter_want (&f, 3);
  fail_unless (!tpss_layer_filter_pass (&f, 1, 6000, &seq));
  fail_unless (!tpss_layer_filter_pass (&f, 2, 9000, &seq));
  fail_unless_equals_int (f.prefix, 1);
  fail_unless (tpss_layer_filter_pass (&f, 0, 12000, &seq));
  fail_unless_equals_int (f.prefix, 3);
  fail_unless (tpss_layer_filter_pass (&f, 2, 15000, &seq));
}

GST_END_TEST;

GST_START_TEST (test_filter_clamps)
{
  TpssLayerFilter f;
  guint16 seq;

  tpss_layer_filter_init (&f, 2, 0);
  tpss_layer_filter_want (&f, 0);
  fail_unless_equals_int (f.wanted, 1);
  tpss_layer_filter_want (&f, 9);
  fail_unless_equals_int (f.wanted, 2);
  /* A layer above the announced count is the top layer. */
  tpss_layer_filter_want (&f, 1);
  fail_unless (tpss_layer_filter_pass (&f, 0, 0, &seq));
  fail_unless (!tpss_layer_filter_pass (&f, 5, 100, &seq));
}

GST_END_TEST;

GST_START_TEST (test_prefix_for_rate)
{
  const guint64 rates[] = { 400000, 300000, 300000 };

  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 0), 1);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 399999), 1);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 700000), 2);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 999999), 2);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 1000000), 3);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (rates, 3, 5000000), 3);
}

GST_END_TEST;

GST_START_TEST (test_encoder_rates_close_destinations)
{
  const guint64 dest[] = { 1000000, 1200000, 1400000 };
  guint64 out[TPSS_MAX_LAYERS];

  fail_unless_equals_int (tpss_layers_encoder_rates (dest, 3, 3, 1.5, out), 1);
  fail_unless_equals_int (out[0], 1000000);
  fail_unless_equals_int (tpss_layers_encoder_rates (dest, 0, 3, 1.5, out), 0);
}

GST_END_TEST;

/* A 1 and two 4 Mbit/s destinations: base 1, all 4 Mbit/s, the middle
 * prefix at 2; each destination's prefix then fits it. */
GST_START_TEST (test_encoder_rates_spread)
{
  const guint64 dest[] = { 4000000, 1000000, 4000000 };
  guint64 out[TPSS_MAX_LAYERS];

  fail_unless_equals_int (tpss_layers_encoder_rates (dest, 3, 3, 1.5, out), 3);
  fail_unless_equals_int (out[0], 1000000);
  fail_unless_equals_int (out[0] + out[1], 2000000);
  fail_unless_equals_int (out[0] + out[1] + out[2], 4000000);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 1000000), 1);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 4000000), 3);
  /* A destination at 0 (not measured yet) does not divide by zero. */
  {
    const guint64 zero[] = { 0, 4000000 };
    fail_unless_equals_int (tpss_layers_encoder_rates (zero, 2, 3, 1.5, out),
        1);
    fail_unless_equals_int (out[0], 0);
  }
}

GST_END_TEST;

/* Two fast destinations a little apart and a slow one (the conference's
 * 4, 4 and 1 Mbit/s members as a sender's rates toward them): the whole
 * stream goes at the lower fast rate, so both fast ones get every layer
 * (at the faster's rate alone the other got two of three, half the frame
 * rate); one beyond the spread of the fastest does not pull it down. */
GST_START_TEST (test_encoder_rates_fast_group)
{
  const guint64 dest[] = { 2500000, 300000, 2000000 };
  const guint64 apart[] = { 2500000, 300000, 1600000 };
  guint64 out[TPSS_MAX_LAYERS];

  fail_unless_equals_int (tpss_layers_encoder_rates (dest, 3, 3, 1.5, out), 3);
  fail_unless_equals_int (out[0], 300000);
  fail_unless_equals_int (out[0] + out[1] + out[2], 2000000);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 2000000), 3);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 2500000), 3);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 300000), 1);

  fail_unless_equals_int (tpss_layers_encoder_rates (apart, 3, 3, 1.5, out),
      3);
  fail_unless_equals_int (out[0] + out[1] + out[2], 2500000);
  fail_unless_equals_int (tpss_layers_prefix_for_rate (out, 3, 1600000), 2);
}

GST_END_TEST;

/* What the copies send together: each destination's prefix, raised by its
 * parity (S over D); one rate for all is the whole stream for each. */
GST_START_TEST (test_copies_rate)
{
  const guint64 layers[] = { 300000, 500000, 1200000 };   /* 0.3, 0.8, 2 */
  const guint64 data[] = { 2500000, 300000, 2000000, 1000000 };
  const guint64 send[] = { 3000000, 450000, 2000000, 1000000 };
  const guint64 one[] = { 1500000 };

  /* 2 x 1.2 + 0.3 x 1.5 + 2 + 0.8 Mbit/s */
  fail_unless_equals_uint64 (tpss_layers_copies_rate (layers, 3, data, send,
          4), 2400000 + 450000 + 2000000 + 800000);
  fail_unless_equals_uint64 (tpss_layers_copies_rate (one, 1, data, send,
          2), 1500000 * 1.2 + 1500000 * 1.5);
  fail_unless_equals_uint64 (tpss_layers_copies_rate (layers, 3, data, send,
          0), 0);
}

GST_END_TEST;

/* A packet without a layer (a parameter set) goes to a destination of any
 * prefix, numbered in its run, and leaves the frame being filtered as it
 * was: the rest of a left-out frame stays out. */
GST_START_TEST (test_filter_take_unlayered)
{
  TpssLayerFilter f;
  guint16 seq;

  tpss_layer_filter_init (&f, 3, 100);
  tpss_layer_filter_want (&f, 1);
  fail_unless (tpss_layer_filter_pass (&f, 0, 0, &seq));
  fail_unless_equals_int (seq, 100);
  fail_if (tpss_layer_filter_pass (&f, 2, 3000, &seq));
  fail_unless_equals_int (tpss_layer_filter_take (&f), 101);
  fail_if (tpss_layer_filter_pass (&f, 2, 3000, &seq));
  fail_unless (tpss_layer_filter_pass (&f, 0, 12000, &seq));
  fail_unless_equals_int (seq, 102);
  fail_unless_equals_int (f.passed, 3);
  fail_unless_equals_int (f.left_out, 2);
}

GST_END_TEST;

static Suite *
tpsslayers_suite (void)
{
  Suite *s = suite_create ("tpsslayers");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_filter_all_layers_at_first);
  tcase_add_test (tc, test_filter_base_layer_only);
  tcase_add_test (tc, test_filter_down_at_next_frame);
  tcase_add_test (tc, test_filter_up_at_base_layer);
  tcase_add_test (tc, test_filter_clamps);
  tcase_add_test (tc, test_filter_take_unlayered);
  tcase_add_test (tc, test_prefix_for_rate);
  tcase_add_test (tc, test_encoder_rates_close_destinations);
  tcase_add_test (tc, test_encoder_rates_spread);
  tcase_add_test (tc, test_encoder_rates_fast_group);
  tcase_add_test (tc, test_copies_rate);
  return s;
}

GST_CHECK_MAIN (tpsslayers);
