/* x264layerenc rate control: per-layer rates over 5 s (360p and 720p,
 * hierarchical-p and -b), and run-time changes by the GstLayerRates event
 * sent from behind rtph264pay, measured in 1 s windows of the PTS as running
 * time (hierarchical-b moves PTS up by 1000 h and its segment by as much),
 * never wall clock.
 *
 * Source: videotestsrc pattern=smpte horizontal-speed=3 (the SMPTE bars
 * scrolled 3 pixels per frame, so every frame moves), non-live, fakesink
 * sync=false: the encoder runs as fast as it can and the results do not
 * depend on the machine's load. */
#include <gst/check/gstcheck.h>
#include <string.h>
#include <math.h>

#include "gsttemporallayermeta.h"
#include "gstlayerrates.h"

#define TOLERANCE 0.15

typedef struct
{
  GstClockTime pts;
  guint layer;
  gsize bytes;
  gboolean key;
} Frame;

typedef struct
{
  GMutex lock;
  GArray *frames;               /* of Frame */
  /* Rate changes: sent when a buffer with PTS >= at[i] reaches the sink. */
  guint n_changes;
  GstClockTime at[4];
  guint rates[4][8];
  guint n_rates[4];
  GstClockTime sent_pts[4];
  guint sent;
  guint arrived;                /* at the encoder, structure unchanged */
  guint arrived_changed;        /* at the encoder, but altered */
  GstStructure *last_sent;
} RateCtx;

/* The running time of @pts in the segment on @pad. */
static GstClockTime
running_time (GstPad * pad, GstClockTime pts)
{
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  const GstSegment *seg;
  GstClockTime rt;

  fail_unless (ev != NULL);
  gst_event_parse_segment (ev, &seg);
  rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts);
  gst_event_unref (ev);
  return rt;
}

static GstPadProbeReturn
enc_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RateCtx *c = data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    GstTemporalLayerMeta *m = gst_buffer_find_temporal_layer_meta (buf);
    Frame f = { running_time (pad, GST_BUFFER_PTS (buf)), m ? m->layer_id : 0,
      gst_buffer_get_size (buf),
      !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT)
    };
    fail_unless (m != NULL);
    g_mutex_lock (&c->lock);
    g_array_append_val (c->frames, f);
    g_mutex_unlock (&c->lock);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    const GstStructure *s = gst_event_get_structure (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM && s &&
        gst_structure_has_name (s, GST_LAYER_RATES_EVENT_NAME)) {
      g_mutex_lock (&c->lock);
      if (c->last_sent && gst_structure_is_equal (s, c->last_sent))
        c->arrived++;
      else
        c->arrived_changed++;
      g_mutex_unlock (&c->lock);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* On the sink's pad: sends the planned events upstream, through whatever
 * sits between (rtph264pay). */
static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RateCtx *c = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime pts = running_time (pad, GST_BUFFER_PTS (buf));
  GstEvent *ev = NULL;

  g_mutex_lock (&c->lock);
  if (c->sent < c->n_changes && GST_CLOCK_TIME_IS_VALID (pts) &&
      pts >= c->at[c->sent]) {
    ev = gst_layer_rates_event_new (c->rates[c->sent], c->n_rates[c->sent]);
    if (c->last_sent)
      gst_structure_free (c->last_sent);
    c->last_sent = gst_structure_copy (gst_event_get_structure (ev));
    c->sent_pts[c->sent] = pts;
    c->sent++;
  }
  g_mutex_unlock (&c->lock);
  if (ev)
    fail_unless (gst_pad_push_event (pad, ev));
  return GST_PAD_PROBE_OK;
}

/* Bits/s of @layer (G_MAXUINT: all) over PTS in [@a, @b). */
static gdouble
rate_in (RateCtx * c, guint layer, GstClockTime a, GstClockTime b)
{
  guint64 bytes = 0;

  for (guint i = 0; i < c->frames->len; i++) {
    Frame *f = &g_array_index (c->frames, Frame, i);
    if (f->pts >= a && f->pts < b && (layer == G_MAXUINT || f->layer == layer))
      bytes += f->bytes;
  }
  return bytes * 8.0 / ((gdouble) (b - a) / GST_SECOND);
}

static void
run (const gchar * caps, const gchar * enc_props, const gchar * between,
    guint seconds, RateCtx * c, GstElement ** enc_out)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte "
      "horizontal-speed=3 num-buffers=%u ! %s ! x264layerenc name=enc %s "
      "! %s ! fakesink name=sink sync=false", seconds * 30, caps, enc_props,
      between);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *enc, *sink;
  GstPad *epad, *spad;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", desc);
  g_mutex_init (&c->lock);
  c->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  epad = gst_element_get_static_pad (enc, "src");
  spad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (epad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, enc_src_probe, c, NULL);
  gst_pad_add_probe (spad, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, c, NULL);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  /* 600 s: under valgrind on a loaded machine the 720p run took over 120 s */
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", desc);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (c->frames->len, seconds * 30);

  *enc_out = enc;
  gst_object_unref (bus);
  gst_object_unref (epad);
  gst_object_unref (spad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
}

static void
ctx_clear (RateCtx * c)
{
  g_array_unref (c->frames);
  if (c->last_sent)
    gst_structure_free (c->last_sent);
  g_mutex_clear (&c->lock);
}

/* ------------------------------------------------- per-layer over 5 s */

static void
check_layer_rates (const gchar * label, const gchar * caps, const gchar * gop,
    const guint * targets)
{
  RateCtx c = { 0 };
  GstElement *enc;
  gchar *props = g_strdup_printf ("layers=3 gop-structure=%s "
      "layer-rates=<%u,%u,%u>", gop, targets[0], targets[1], targets[2]);
  /* 6 s: the first 5 s (from the first frame, its IDR included) and the
   * 5 s after 1 s of settling. */
  const GstClockTime windows[2][2] = { {0, 5 * GST_SECOND},
  {GST_SECOND, 6 * GST_SECOND}
  };

  run (caps, props, "identity", 6, &c, &enc);
  for (guint w = 0; w < 2; w++) {
    g_print ("%s %s, PTS %" GST_TIME_FORMAT "-%" GST_TIME_FORMAT ":", label,
        gop, GST_TIME_ARGS (windows[w][0]), GST_TIME_ARGS (windows[w][1]));
    for (guint l = 0; l < 3; l++) {
      gdouble r = rate_in (&c, l, windows[w][0], windows[w][1]);
      gdouble err = (r - targets[l]) / targets[l];
      g_print ("  L%u %.0f/%u bit/s (%+.1f%%)", l, r, targets[l], err * 100);
      fail_unless (fabs (err) < TOLERANCE, "%s layer %u: %.0f vs %u", label,
          l, r, targets[l]);
    }
    g_print ("\n");
  }
  gst_object_unref (enc);
  ctx_clear (&c);
  g_free (props);
}

#define CAPS_360 "video/x-raw,format=I420,width=640,height=360,framerate=30/1"
#define CAPS_720 "video/x-raw,format=I420,width=1280,height=720,framerate=30/1"

GST_START_TEST (test_layer_rates_360p)
{
  const guint t[] = { 400000, 200000, 200000 };
  check_layer_rates ("360p30", CAPS_360, "hierarchical-p", t);
}

GST_END_TEST;

GST_START_TEST (test_layer_rates_360p_b)
{
  const guint t[] = { 400000, 200000, 200000 };
  check_layer_rates ("360p30", CAPS_360, "hierarchical-b", t);
}

GST_END_TEST;

GST_START_TEST (test_layer_rates_360p_uneven)
{
  /* A thin base layer under thick upper layers. */
  const guint t[] = { 150000, 300000, 450000 };
  check_layer_rates ("360p30", CAPS_360, "hierarchical-p", t);
}

GST_END_TEST;

GST_START_TEST (test_layer_rates_720p)
{
  const guint t[] = { 1200000, 600000, 600000 };
  check_layer_rates ("720p30", CAPS_720, "hierarchical-p", t);
}

GST_END_TEST;

/* ------------------------------------------------ key unit max delay */

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median bits of the IDR frames after the first, 360p30, 3 layers with a
 * 400 kbit/s base layer, an IDR every second. */
static gdouble
median_idr_bits (const gchar * extra)
{
  RateCtx c = { 0 };
  GstElement *enc;
  gchar *props = g_strdup_printf ("layers=3 key-int-max=30 "
      "layer-rates=<150000,75000,75000> %s", extra);
  GArray *bits = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gdouble median;

  run (CAPS_360, props, "identity", 6, &c, &enc);
  for (guint i = 1; i < c.frames->len; i++) {
    Frame *f = &g_array_index (c.frames, Frame, i);
    if (f->key) {
      gdouble b = f->bytes * 8.0;
      fail_unless_equals_int (f->layer, 0);
      g_array_append_val (bits, b);
    }
  }
  fail_unless (bits->len >= 4, "%u IDR frames after the first", bits->len);
  g_array_sort (bits, cmp_double);
  median = g_array_index (bits, gdouble, bits->len / 2);
  g_print ("%s: median IDR %.0f bits over %u\n", props, median, bits->len);
  g_array_unref (bits);
  gst_object_unref (enc);
  ctx_clear (&c);
  g_free (props);
  return median;
}

/* key-unit-max-delay bounds an IDR to that much of its layer's rate: 150 ms
 * of 400 kbit/s is 60 kbit, where the default plans 3 base-layer frames
 * (400 ms of it, 160 kbit). */
GST_START_TEST (test_key_unit_max_delay)
{
  gdouble bounded = median_idr_bits ("key-unit-max-delay=100");
  gdouble unbounded = median_idr_bits ("");

  fail_unless (bounded <= 150000 * 0.100 * (1 + TOLERANCE),
      "bounded IDR %.0f bits", bounded);
  fail_unless (unbounded >= 1.5 * bounded, "IDR %.0f bits unbounded, "
      "%.0f bounded", unbounded, bounded);
}

GST_END_TEST;

/* ----------------------------------------------- event-driven change */

GST_START_TEST (test_event_rate_change)
{
  RateCtx c = { 0 };
  GstElement *enc;
  GstStructure *s;
  guint64 changes = 0;
  /* 3 layers at 400k/200k/200k; at 3 s a per-layer cut to 200k/80k/120k;
   * at 6 s one entry, 1.2 Mbit/s total, split in the current proportions
   * (5:2:3 -> 600k/240k/360k). (At 360p the smallest a layer can get is
   * its frames at QP 51: about 80 kbit/s for the 15 fps top layer.) */
  const guint expect[3][3] = { {400000, 200000, 200000},
  {200000, 80000, 120000}, {600000, 240000, 360000}
  };

  c.n_changes = 2;
  c.at[0] = 3 * GST_SECOND;
  memcpy (c.rates[0], expect[1], sizeof (expect[1]));
  c.n_rates[0] = 3;
  c.at[1] = 6 * GST_SECOND;
  c.rates[1][0] = 1200000;
  c.n_rates[1] = 1;

  run (CAPS_360, "layers=3 layer-rates=<400000,200000,200000>",
      "rtph264pay mtu=1200", 10, &c, &enc);

  fail_unless_equals_int (c.sent, 2);
  fail_unless_equals_int (c.arrived, 2);
  fail_unless_equals_int (c.arrived_changed, 0);
  g_object_get (enc, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, "rate-changes", &changes));
  fail_unless_equals_int (changes, 2);
  gst_structure_free (s);

  for (guint k = 0; k < 2; k++) {
    GstClockTime te = c.sent_pts[k];
    guint total = expect[k + 1][0] + expect[k + 1][1] + expect[k + 1][2];

    /* The event was sent when the frame at te left the payloader: it
     * applies from the next frame on. */
    for (guint w = 0; w < 2; w++) {
      GstClockTime a = te + GST_SECOND / 30 + w * GST_SECOND;
      gdouble r = rate_in (&c, G_MAXUINT, a, a + GST_SECOND);
      gdouble err = (r - total) / total;

      g_print ("after event %u, window %" GST_TIME_FORMAT "-%" GST_TIME_FORMAT
          ": total %.0f/%u bit/s (%+.1f%%);", k, GST_TIME_ARGS (a),
          GST_TIME_ARGS (a + GST_SECOND), r, total, err * 100);
      for (guint l = 0; l < 3; l++) {
        gdouble rl = rate_in (&c, l, a, a + GST_SECOND);
        g_print (" L%u %+.1f%%", l,
            100 * (rl - expect[k + 1][l]) / expect[k + 1][l]);
      }
      g_print ("\n");
      /* The first second after the event already meets the new total. */
      fail_unless (fabs (err) < TOLERANCE, "event %u window %u: %.0f vs %u",
          k, w, r, total);
    }
    /* And every layer meets its own rate over the 2 s after that (a whole
     * number of 4-frame periods: a 1 s window holds 7 or 8 base-layer
     * frames, a +-7% aliasing of its own). */
    for (guint l = 0; l < 3; l++) {
      GstClockTime a = te + GST_SECOND / 30 + GST_SECOND;
      gdouble rl = rate_in (&c, l, a, a + 2 * GST_SECOND);
      g_print ("after event %u, layer %u over %" GST_TIME_FORMAT "-%"
          GST_TIME_FORMAT ": %.0f/%u bit/s (%+.1f%%)\n", k, l,
          GST_TIME_ARGS (a), GST_TIME_ARGS (a + 2 * GST_SECOND), rl,
          expect[k + 1][l], 100 * (rl - expect[k + 1][l]) / expect[k + 1][l]);
      fail_unless (fabs (rl - expect[k + 1][l]) / expect[k + 1][l] <
          TOLERANCE, "event %u layer %u: %.0f vs %u", k, l, rl,
          expect[k + 1][l]);
    }
  }
  gst_object_unref (enc);
  ctx_clear (&c);
}

GST_END_TEST;

/* ------------------------------------- a total split by the encoder */

/* `bitrate` alone: the encoder splits the total itself (one account for
 * all layers). The total is met from the start and within the first 1 s
 * after a one-entry event cuts it from 800 to 300 kbit/s. */
GST_START_TEST (test_total_rate_change)
{
  RateCtx c = { 0 };
  GstElement *enc;
  const guint total[2] = { 800000, 300000 };
  GstClockTime win[3][2];

  c.n_changes = 1;
  c.at[0] = 3 * GST_SECOND;
  c.rates[0][0] = total[1];
  c.n_rates[0] = 1;
  run (CAPS_360, "layers=3 bitrate=800", "rtph264pay mtu=1200", 6, &c, &enc);
  fail_unless_equals_int (c.sent, 1);

  win[0][0] = 0;
  win[0][1] = 3 * GST_SECOND;
  for (guint w = 1; w < 3; w++) {
    win[w][0] = c.sent_pts[0] + GST_SECOND / 30 + (w - 1) * GST_SECOND;
    win[w][1] = win[w][0] + GST_SECOND;
  }
  for (guint w = 0; w < 3; w++) {
    guint t = total[w == 0 ? 0 : 1];
    gdouble r = rate_in (&c, G_MAXUINT, win[w][0], win[w][1]);

    g_print ("bitrate total, PTS %" GST_TIME_FORMAT "-%" GST_TIME_FORMAT
        ": %.0f/%u bit/s (%+.1f%%); layers", GST_TIME_ARGS (win[w][0]),
        GST_TIME_ARGS (win[w][1]), r, t, 100 * (r - t) / t);
    for (guint l = 0; l < 3; l++)
      g_print (" %.0f", rate_in (&c, l, win[w][0], win[w][1]));
    g_print ("\n");
    fail_unless (fabs (r - t) / t < TOLERANCE, "window %u: %.0f vs %u", w, r,
        t);
  }
  gst_object_unref (enc);
  ctx_clear (&c);
}

GST_END_TEST;

static Suite *
x264layerenc_rates_suite (void)
{
  Suite *s = suite_create ("x264layerenc-rates");
  TCase *tc = tcase_create ("rates");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layer_rates_360p);
  tcase_add_test (tc, test_total_rate_change);
  tcase_add_test (tc, test_layer_rates_360p_b);
  tcase_add_test (tc, test_layer_rates_360p_uneven);
  tcase_add_test (tc, test_layer_rates_720p);
  tcase_add_test (tc, test_event_rate_change);
  tcase_add_test (tc, test_key_unit_max_delay);
  return s;
}

GST_CHECK_MAIN (x264layerenc_rates);
