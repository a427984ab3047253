/* Tests of the rate path (gst/common/gstlayerrates.h) with a minimal sink. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "gstlayerrates.h"

/* A sink with the properties the rate path keeps up to date. */
#define TEST_TYPE_RATE_SINK (test_rate_sink_get_type ())
G_DECLARE_FINAL_TYPE (TestRateSink, test_rate_sink, TEST, RATE_SINK,
    GstElement);

struct _TestRateSink
{
  GstElement parent;
  GstPad *sinkpad;
  GstRatePath *path;
};

enum
{ PROP_0, PROP_BITRATE, PROP_LAYER_RATES };

G_DEFINE_TYPE (TestRateSink, test_rate_sink, GST_TYPE_ELEMENT);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-h264"));

static void
test_rate_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  TestRateSink *self = TEST_RATE_SINK (object);

  if (prop_id == PROP_BITRATE)
    g_value_set_uint (value, gst_rate_path_get_bitrate (self->path));
  else
    gst_rate_path_get_value (self->path, value);
}

static gboolean
test_rate_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  TestRateSink *self = TEST_RATE_SINK (parent);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      gst_rate_path_caps_query (self->path, query))
    return TRUE;
  return gst_pad_query_default (pad, parent, query);
}

static GstFlowReturn
test_rate_sink_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static void
test_rate_sink_finalize (GObject * object)
{
  gst_rate_path_free (TEST_RATE_SINK (object)->path);
  G_OBJECT_CLASS (test_rate_sink_parent_class)->finalize (object);
}

static void
test_rate_sink_class_init (TestRateSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->get_property = test_rate_sink_get_property;
  gobject_class->finalize = test_rate_sink_finalize;
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bitrate", "bits/s", 0, G_MAXUINT, 0,
          G_PARAM_READABLE));
  g_object_class_install_property (gobject_class, PROP_LAYER_RATES,
      gst_param_spec_array ("layer-rates", "Layer rates", "bits/s per layer",
          g_param_spec_int ("rate", "Rate", "bits/s", 0, G_MAXINT, 0,
              G_PARAM_READABLE), G_PARAM_READABLE));
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &sink_template);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Rate sink", "Sink", "Test sink for the rate path", "tests");
}

static void
test_rate_sink_init (TestRateSink * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_query_function (self->sinkpad, test_rate_sink_query);
  gst_pad_set_chain_function (self->sinkpad, test_rate_sink_chain);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->path = gst_rate_path_new (GST_ELEMENT (self), self->sinkpad,
      GST_SECOND, "bitrate", "layer-rates");
}

static guint
pull_rates (GstHarness * h, guint * rates)
{
  GstEvent *ev;
  guint n = 0;

  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    if (gst_layer_rates_event_parse (ev, rates, &n)) {
      gst_event_unref (ev);
      return n;
    }
    gst_event_unref (ev);
  }
  return 0;
}

GST_START_TEST (test_event_roundtrip_and_malformed)
{
  guint in[3] = { 100000, 200000, 400000 }, out[GST_LAYER_RATES_MAX_LAYERS], n;
  GstEvent *ev = gst_layer_rates_event_new (in, 3);
  GstStructure *s;

  fail_unless (gst_layer_rates_event_parse (ev, out, &n));
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (out[2], 400000);
  gst_event_unref (ev);

  s = gst_structure_new ("GstLayerRates", "layer-rates", G_TYPE_INT, 5, NULL);
  ev = gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
  fail_if (gst_layer_rates_event_parse (ev, out, &n));  /* not an array */
  gst_event_unref (ev);

  s = gst_structure_from_string ("GstLayerRates, layer-rates=<(int)0>", NULL);
  ev = gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
  fail_if (gst_layer_rates_event_parse (ev, out, &n));  /* zero rate */
  gst_event_unref (ev);

  s = gst_structure_from_string ("Other, layer-rates=<(int)5>", NULL);
  ev = gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
  fail_if (gst_layer_rates_event_parse (ev, out, &n));  /* other name */
  gst_event_unref (ev);

  s = gst_structure_from_string ("video/x-h264, layers=2, "
      "layer-rates=<(int)1, (int)2, (int)3>", NULL);
  fail_if (gst_layer_rates_structure_get (s, out, &n)); /* count mismatch */
  gst_structure_free (s);
}

GST_END_TEST;

static void
count_notify (GObject * obj, GParamSpec * pspec, guint * count)
{
  (*count)++;
}

GST_START_TEST (test_rate_limited_and_coalesced)
{
  GstElement *sink = g_object_new (TEST_TYPE_RATE_SINK, NULL);
  TestRateSink *self = TEST_RATE_SINK (sink);
  GstHarness *h = gst_harness_new_with_element (sink, "sink", NULL);
  guint rates[GST_LAYER_RATES_MAX_LAYERS], notified = 0, bitrate;
  guint a[2] = { 300000, 700000 }, b[2] = { 200000, 500000 },
      c[2] = { 100000, 400000 };
  guint64 sent, coalesced;

  gst_harness_play (h);
  g_signal_connect (sink, "notify::bitrate", G_CALLBACK (count_notify),
      &notified);
  gst_rate_path_set (self->path, a, 2, 0);
  fail_unless_equals_int (pull_rates (h, rates), 2);
  fail_unless_equals_int (rates[1], 700000);
  g_object_get (sink, "bitrate", &bitrate, NULL);
  fail_unless_equals_int (bitrate, 1000000);
  {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_ARRAY);
    g_object_get_property (G_OBJECT (sink), "layer-rates", &v);
    fail_unless_equals_int (gst_value_array_get_size (&v), 2);
    fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v,
                1)), 700000);
    g_value_unset (&v);
  }

  /* Inside the interval: held back, the newest wins. */
  gst_rate_path_set (self->path, b, 2, 100 * GST_MSECOND);
  gst_rate_path_set (self->path, c, 2, 200 * GST_MSECOND);
  gst_rate_path_tick (self->path, 900 * GST_MSECOND);
  fail_unless_equals_int (pull_rates (h, rates), 0);
  gst_rate_path_tick (self->path, GST_SECOND);
  fail_unless_equals_int (pull_rates (h, rates), 2);
  fail_unless_equals_int (rates[0], 100000);
  gst_rate_path_tick (self->path, 3 * GST_SECOND);
  fail_unless_equals_int (pull_rates (h, rates), 0);
  /* The same rates again change nothing. */
  gst_rate_path_set (self->path, c, 2, 4 * GST_SECOND);
  fail_unless_equals_int (pull_rates (h, rates), 0);

  fail_unless_equals_int (notified, 3);
  gst_rate_path_get_counters (self->path, &sent, &coalesced);
  fail_unless_equals_int (sent, 2);
  fail_unless_equals_int (coalesced, 1);
  gst_harness_teardown (h);
  gst_object_unref (sink);
}

GST_END_TEST;

static GstPadProbeReturn
reenter_path (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint bitrate;

  /* Would deadlock if the path held its lock while pushing. */
  g_object_get (data, "bitrate", &bitrate, NULL);
  fail_unless_equals_int (bitrate, 123);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_no_lock_held_while_sending)
{
  GstElement *sink = g_object_new (TEST_TYPE_RATE_SINK, NULL);
  GstHarness *h = gst_harness_new_with_element (sink, "sink", NULL);
  guint r = 123, rates[GST_LAYER_RATES_MAX_LAYERS];

  gst_harness_play (h);
  gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      reenter_path, sink, NULL);
  gst_rate_path_set (TEST_RATE_SINK (sink)->path, &r, 1, 0);
  fail_unless_equals_int (pull_rates (h, rates), 1);
  gst_harness_teardown (h);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_caps_query_proposes_rates)
{
  GstElement *sink = g_object_new (TEST_TYPE_RATE_SINK, NULL);
  GstHarness *h = gst_harness_new_with_element (sink, "sink", NULL);
  guint r[3] = { 1, 2, 3 }, got[GST_LAYER_RATES_MAX_LAYERS], n;
  GstCaps *caps;

  gst_harness_play (h);
  gst_rate_path_set (TEST_RATE_SINK (sink)->path, r, 3, 0);
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  fail_unless (gst_layer_rates_structure_get (gst_caps_get_structure (caps,
              0), got, &n));
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (got[2], 3);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
layerrates_suite (void)
{
  Suite *s = suite_create ("layerrates");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_event_roundtrip_and_malformed);
  tcase_add_test (tc, test_rate_limited_and_coalesced);
  tcase_add_test (tc, test_no_lock_held_while_sending);
  tcase_add_test (tc, test_caps_query_proposes_rates);
  return s;
}

GST_CHECK_MAIN (layerrates);
