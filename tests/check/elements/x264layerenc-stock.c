/* Driving stock encoders from a sink's notifying rate properties
 * (DESIGN.md, "Rates to the encoder"), as docs/x264layerenc.md shows:
 *
 *   x264enc  `bitrate`                     kbit/s  <- sink `bitrate` / 1000
 *   vp8enc   `target-bitrate`              bit/s   <- sink `bitrate`
 *   vp8enc   temporal-scalability-target-bitrate   <- sink `layer-rates`,
 *            made cumulative (libvpx counts layer k with all below it)
 *
 * The sink here is a plain GObject with the same two notifying properties
 * our network sinks have. Also: the GstLayerRates event crosses rtpvp8pay
 * unchanged (as it crosses rtph264pay, x264layerenc-rates.c). */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "gstlayerrates.h"

/* ---------------------------------------- a sink's rate properties */

#define TEST_TYPE_RATE_SINK (test_rate_sink_get_type ())
G_DECLARE_FINAL_TYPE (TestRateSink, test_rate_sink, TEST, RATE_SINK, GObject)

struct _TestRateSink
{
  GObject parent;
  guint bitrate;                /* bits/s, the sum of the layers */
  guint rates[8];
  guint n_rates;
};

G_DEFINE_TYPE (TestRateSink, test_rate_sink, G_TYPE_OBJECT);

enum
{
  PROP_0,
  PROP_BITRATE,
  PROP_LAYER_RATES,
};

static void
test_rate_sink_set_property (GObject * object, guint id, const GValue * value,
    GParamSpec * pspec)
{
  TestRateSink *self = TEST_RATE_SINK (object);

  switch (id) {
    case PROP_BITRATE:
      self->bitrate = g_value_get_uint (value);
      break;
    case PROP_LAYER_RATES:
      self->n_rates = MIN (gst_value_array_get_size (value), 8);
      self->bitrate = 0;
      for (guint i = 0; i < self->n_rates; i++) {
        self->rates[i] =
            g_value_get_int (gst_value_array_get_value (value, i));
        self->bitrate += self->rates[i];
      }
      /* The total follows the layers, as in the network sinks. */
      g_object_notify (object, "bitrate");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
test_rate_sink_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  TestRateSink *self = TEST_RATE_SINK (object);

  switch (id) {
    case PROP_BITRATE:
      g_value_set_uint (value, self->bitrate);
      break;
    case PROP_LAYER_RATES:
      gst_layer_rates_value_set (value, self->rates, self->n_rates);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
test_rate_sink_class_init (TestRateSinkClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = test_rate_sink_set_property;
  oc->get_property = test_rate_sink_get_property;
  g_object_class_install_property (oc, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bitrate", "bits/s", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (oc, PROP_LAYER_RATES,
      gst_param_spec_array ("layer-rates", "Layer rates",
          "bits/s per layer, not cumulative", g_param_spec_int ("rate",
              "Rate", "bits/s", 1, G_MAXINT, 1,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
test_rate_sink_init (TestRateSink * self)
{
}

static void
sink_set_layer_rates (GObject * sink, const guint * rates, guint n)
{
  GValue v = G_VALUE_INIT;

  gst_layer_rates_value_set (&v, rates, n);
  g_object_set_property (sink, "layer-rates", &v);
  g_value_unset (&v);
}

/* -------------------------------- the application glue (documented) */

static void
on_bitrate_x264enc (GObject * sink, GParamSpec * pspec, gpointer x264enc)
{
  guint bps;

  g_object_get (sink, "bitrate", &bps, NULL);
  /* x264enc's bitrate is kbit/s (1..2048000). */
  g_object_set (x264enc, "bitrate", MAX (1u, bps / 1000), NULL);
}

static void
on_bitrate_vp8enc (GObject * sink, GParamSpec * pspec, gpointer vp8enc)
{
  guint bps;

  g_object_get (sink, "bitrate", &bps, NULL);
  /* vp8enc's target-bitrate is bits/s. */
  g_object_set (vp8enc, "target-bitrate", (gint) MIN (bps, G_MAXINT), NULL);
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS static GValueArray *
int_value_array (const gint * v, guint n)
{
  GValueArray *a = g_value_array_new (n);

  for (guint i = 0; i < n; i++) {
    GValue x = G_VALUE_INIT;
    g_value_init (&x, G_TYPE_INT);
    g_value_set_int (&x, v[i]);
    g_value_array_append (a, &x);
    g_value_unset (&x);
  }
  return a;
}

static void
on_layer_rates_vp8enc (GObject * sink, GParamSpec * pspec, gpointer vp8enc)
{
  GValue v = G_VALUE_INIT;
  gint cumulative[8];
  guint n;
  gint sum = 0;
  GValueArray *a;

  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (sink, "layer-rates", &v);
  n = MIN (gst_value_array_get_size (&v), 8);
  /* libvpx: the target of layer k includes all layers below it. */
  for (guint i = 0; i < n; i++) {
    sum += g_value_get_int (gst_value_array_get_value (&v, i));
    cumulative[i] = sum;
  }
  g_value_unset (&v);
  a = int_value_array (cumulative, n);
  g_object_set (vp8enc, "temporal-scalability-target-bitrate", a, NULL);
  g_value_array_free (a);
}

/* vp8enc with 3 temporal layers, period 4 (layers 0,2,1,2), the WebRTC
 * pattern. libvpx crashes unless layer-id, target-bitrate, rate-decimator,
 * layer-flags and layer-sync-flags are all set: set them together, from C,
 * before the encoder starts. @rates: per layer, not cumulative. */
static void
vp8enc_setup_temporal (GstElement * vp8enc, const guint * rates)
{
  const gint ids[] = { 0, 2, 1, 2 };
  const gint decimator[] = { 4, 2, 1 };
  const gint cumulative[] = { rates[0], rates[0] + rates[1],
    rates[0] + rates[1] + rates[2]
  };
  /* GstVPXEncTsLayerFlags nicks. */
  const gchar *flags[] = {
    "no-ref-golden+no-ref-alt+no-upd-golden+no-upd-alt",
    "no-ref-golden+no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt"
        "+no-upd-entropy",
    "no-ref-golden+no-ref-alt+no-upd-last+no-upd-alt",
    "no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy",
  };
  const gboolean sync[] = { FALSE, TRUE, TRUE, FALSE };
  GValueArray *a_ids = int_value_array (ids, 4);
  GValueArray *a_dec = int_value_array (decimator, 3);
  GValueArray *a_rate = int_value_array (cumulative, 3);
  GValue v_flags = G_VALUE_INIT, v_sync = G_VALUE_INIT;
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (vp8enc),
      "temporal-scalability-layer-flags");
  GType flags_type = GST_PARAM_SPEC_ARRAY_LIST (ps)->element_spec->value_type;

  g_value_init (&v_flags, GST_TYPE_ARRAY);
  g_value_init (&v_sync, GST_TYPE_ARRAY);
  for (guint i = 0; i < 4; i++) {
    GValue f = G_VALUE_INIT, s = G_VALUE_INIT;
    g_value_init (&f, flags_type);
    fail_unless (gst_value_deserialize (&f, flags[i]), "%s", flags[i]);
    gst_value_array_append_and_take_value (&v_flags, &f);
    g_value_init (&s, G_TYPE_BOOLEAN);
    g_value_set_boolean (&s, sync[i]);
    gst_value_array_append_and_take_value (&v_sync, &s);
  }

  g_object_set (vp8enc, "temporal-scalability-number-layers", 3,
      "temporal-scalability-periodicity", 4,
      "temporal-scalability-layer-id", a_ids,
      "temporal-scalability-rate-decimator", a_dec,
      "temporal-scalability-target-bitrate", a_rate,
      "target-bitrate", cumulative[2], NULL);
  g_object_set_property (G_OBJECT (vp8enc),
      "temporal-scalability-layer-flags", &v_flags);
  g_object_set_property (G_OBJECT (vp8enc),
      "temporal-scalability-layer-sync-flags", &v_sync);

  g_value_unset (&v_flags);
  g_value_unset (&v_sync);
  g_value_array_free (a_ids);
  g_value_array_free (a_dec);
  g_value_array_free (a_rate);
}

static void
get_int_array (GstElement * e, const gchar * prop, gint * out, guint * n)
{
  GValueArray *a = NULL;

  g_object_get (e, prop, &a, NULL);
  *n = a ? a->n_values : 0;
  for (guint i = 0; i < *n; i++)
    out[i] = g_value_get_int (g_value_array_get_nth (a, i));
  if (a)
    g_value_array_free (a);
}

G_GNUC_END_IGNORE_DEPRECATIONS
/* -------------------------------------------------- rate measuring */
    typedef struct
{
  GMutex lock;
  GstClockTime change_at;       /* PTS at which the sink's rate changes */
  gboolean changed;
  GObject *rate_sink;
  guint new_rates[3];
  guint n_new;
  guint64 bytes_before, bytes_after;
  GstClockTime win_before[2], win_after[2];
  /* events seen at the encoder's src pad */
  guint events_ok;
  GstStructure *sent;
  gboolean have_first;
  GstClockTime first;
} Measure;

static void measure_buffer (Measure * m, GstBuffer * buf);

static gboolean
measure_list_item (GstBuffer ** buf, guint idx, gpointer data)
{
  measure_buffer (data, *buf);
  return TRUE;
}

/* Buffers and buffer lists (payloaders push lists). */
static GstPadProbeReturn
measure_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        measure_list_item, data);
  else
    measure_buffer (data, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static void
measure_buffer (Measure * m, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gboolean change = FALSE;

  g_mutex_lock (&m->lock);
  /* Stream time from the first buffer (x264enc starts its PTS at 1000 h so
   * that DTS never goes negative). */
  if (!m->have_first) {
    m->first = pts;
    m->have_first = TRUE;
  }
  pts -= m->first;
  if (pts >= m->win_before[0] && pts < m->win_before[1])
    m->bytes_before += gst_buffer_get_size (buf);
  if (pts >= m->win_after[0] && pts < m->win_after[1])
    m->bytes_after += gst_buffer_get_size (buf);
  if (!m->changed && pts >= m->change_at) {
    m->changed = TRUE;
    change = TRUE;
  }
  g_mutex_unlock (&m->lock);
  /* The network decides: the sink's property changes, the glue follows. */
  if (change)
    sink_set_layer_rates (m->rate_sink, m->new_rates, m->n_new);
}

static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail ("error: %s", err->message);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
}

#define SRC "videotestsrc pattern=smpte horizontal-speed=3 num-buffers=180 " \
  "! video/x-raw,format=I420,width=640,height=360,framerate=30/1 "

GST_START_TEST (test_x264enc_bitrate_follows_sink)
{
  GObject *sink = g_object_new (TEST_TYPE_RATE_SINK, NULL);
  GstElement *pipeline = gst_parse_launch (SRC "! x264enc name=enc "
      "tune=zerolatency speed-preset=veryfast bitrate=2000 "
      "! fakesink name=out sync=false", NULL);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstPad *pad = gst_element_get_static_pad (out, "sink");
  Measure m = { 0 };
  const guint start[] = { 1000000, 500000, 500000 };
  guint kbps;
  gdouble before, after;

  g_signal_connect (sink, "notify::bitrate", G_CALLBACK (on_bitrate_x264enc),
      enc);
  /* Before the start: 2 Mbit/s in three layers -> x264enc 2000 kbit/s. */
  sink_set_layer_rates (sink, start, 3);
  g_object_get (enc, "bitrate", &kbps, NULL);
  fail_unless_equals_int (kbps, 2000);
  g_object_set (sink, "bitrate", 1500000, NULL);
  g_object_get (enc, "bitrate", &kbps, NULL);
  fail_unless_equals_int (kbps, 1500);

  /* While playing: at 2 s the sink drops to 500 kbit/s. */
  g_mutex_init (&m.lock);
  m.rate_sink = sink;
  m.change_at = 2 * GST_SECOND;
  m.new_rates[0] = 500000;
  m.n_new = 1;
  m.win_before[0] = GST_SECOND;
  m.win_before[1] = 2 * GST_SECOND;
  m.win_after[0] = 4 * GST_SECOND;
  m.win_after[1] = 6 * GST_SECOND;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, measure_probe, &m, NULL);
  run_to_eos (pipeline);

  g_object_get (enc, "bitrate", &kbps, NULL);
  fail_unless_equals_int (kbps, 500);
  before = m.bytes_before * 8.0;
  after = m.bytes_after * 8.0 / 2;
  g_print ("x264enc: %.0f bit/s before (1500 kbit/s), %.0f bit/s after "
      "(500 kbit/s)\n", before, after);
  /* The encoder followed: a third of the rate, within 30%. */
  fail_unless (after < before * 0.5);
  fail_unless (after > 500000 * 0.7 && after < 500000 * 1.3);

  gst_object_unref (pad);
  gst_object_unref (out);
  gst_object_unref (enc);
  gst_object_unref (pipeline);
  g_object_unref (sink);
  g_mutex_clear (&m.lock);
}

GST_END_TEST;

GST_START_TEST (test_vp8enc_temporal_follows_sink)
{
  GObject *sink = g_object_new (TEST_TYPE_RATE_SINK, NULL);
  /* 10 s; real-time settings with the short client buffer of RTC use
   * (libvpx's default 4-6 s buffer makes it follow slowly). */
  GstElement *pipeline = gst_parse_launch ("videotestsrc pattern=smpte "
      "horizontal-speed=3 num-buffers=300 ! video/x-raw,format=I420,"
      "width=640,height=360,framerate=30/1 ! vp8enc name=enc deadline=1 "
      "cpu-used=8 end-usage=cbr buffer-size=1000 buffer-initial-size=500 "
      "buffer-optimal-size=600 ! rtpvp8pay name=pay "
      "! fakesink name=out sync=false", NULL);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstPad *pad = gst_element_get_static_pad (out, "sink");
  Measure m = { 0 };
  const guint start[] = { 600000, 300000, 300000 };
  gint got[8], target;
  guint n;
  gdouble before, after;

  vp8enc_setup_temporal (enc, start);
  g_signal_connect (sink, "notify::bitrate", G_CALLBACK (on_bitrate_vp8enc),
      enc);
  g_signal_connect (sink, "notify::layer-rates",
      G_CALLBACK (on_layer_rates_vp8enc), enc);

  /* Before the start. */
  sink_set_layer_rates (sink, start, 3);
  g_object_get (enc, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, 1200000);
  get_int_array (enc, "temporal-scalability-target-bitrate", got, &n);
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (got[0], 600000);
  fail_unless_equals_int (got[1], 900000);
  fail_unless_equals_int (got[2], 1200000);

  /* While playing: at 2 s the sink cuts every layer to a third. */
  g_mutex_init (&m.lock);
  m.rate_sink = sink;
  m.change_at = 2 * GST_SECOND;
  m.new_rates[0] = 200000;
  m.new_rates[1] = 100000;
  m.new_rates[2] = 100000;
  m.n_new = 3;
  m.win_before[0] = GST_SECOND;
  m.win_before[1] = 2 * GST_SECOND;
  m.win_after[0] = 6 * GST_SECOND;
  m.win_after[1] = 10 * GST_SECOND;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, measure_probe, &m, NULL);
  run_to_eos (pipeline);

  g_object_get (enc, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, 400000);
  get_int_array (enc, "temporal-scalability-target-bitrate", got, &n);
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (got[0], 200000);
  fail_unless_equals_int (got[1], 300000);
  fail_unless_equals_int (got[2], 400000);
  before = m.bytes_before * 8.0;
  after = m.bytes_after * 8.0 / 4;
  g_print ("vp8enc (3 temporal layers) after rtpvp8pay: %.0f bit/s before "
      "(1200 kbit/s), %.0f bit/s 4-8 s after the cut (400 kbit/s)\n", before,
      after);
  /* It followed the cut (libvpx's own rate control decides how closely). */
  fail_unless (after < before * 0.6);

  gst_object_unref (pad);
  gst_object_unref (out);
  gst_object_unref (enc);
  gst_object_unref (pipeline);
  g_object_unref (sink);
  g_mutex_clear (&m.lock);
}

GST_END_TEST;

/* ----------------------------------- the event crosses the payloaders */

typedef struct
{
  GstStructure *sent;
  guint same, other;
} EventSeen;

static GstPadProbeReturn
event_seen_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  EventSeen *e = data;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  const GstStructure *s = gst_event_get_structure (ev);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM && s &&
      gst_structure_has_name (s, GST_LAYER_RATES_EVENT_NAME)) {
    if (gst_structure_is_equal (s, e->sent))
      e->same++;
    else
      e->other++;
  }
  return GST_PAD_PROBE_OK;
}

static void
check_event_crosses (const gchar * launch)
{
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstPad *epad = gst_element_get_static_pad (enc, "src");
  GstPad *opad = gst_element_get_static_pad (out, "sink");
  const guint rates[] = { 300000, 200000, 100000 };
  GstEvent *ev = gst_layer_rates_event_new (rates, 3);
  EventSeen seen = { gst_structure_copy (gst_event_get_structure (ev)) };
  guint got[8], n;

  gst_pad_add_probe (epad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      event_seen_probe, &seen, NULL);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);
  /* From the sink's pad upstream, as our network sinks send it. */
  gst_pad_push_event (opad, ev);
  g_print ("%s: event arrived unchanged %u, altered %u\n", launch, seen.same,
      seen.other);
  fail_unless_equals_int (seen.same, 1);
  fail_unless_equals_int (seen.other, 0);
  /* And it still parses. */
  fail_unless (gst_layer_rates_event_parse (ev =
          gst_layer_rates_event_new (rates, 3), got, &n));
  gst_event_unref (ev);
  fail_unless_equals_int (n, 3);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_structure_free (seen.sent);
  gst_object_unref (epad);
  gst_object_unref (opad);
  gst_object_unref (enc);
  gst_object_unref (out);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_event_crosses_rtpvp8pay)
{
  check_event_crosses (SRC "! vp8enc name=enc deadline=1 ! rtpvp8pay "
      "! fakesink name=out");
}

GST_END_TEST;

GST_START_TEST (test_event_crosses_rtph264pay)
{
  check_event_crosses (SRC "! x264enc name=enc tune=zerolatency "
      "! rtph264pay ! fakesink name=out");
}

GST_END_TEST;

static Suite *
x264layerenc_stock_suite (void)
{
  Suite *s = suite_create ("x264layerenc-stock");
  TCase *tc = tcase_create ("stock");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_x264enc_bitrate_follows_sink);
  tcase_add_test (tc, test_vp8enc_temporal_follows_sink);
  tcase_add_test (tc, test_event_crosses_rtpvp8pay);
  tcase_add_test (tc, test_event_crosses_rtph264pay);
  return s;
}

GST_CHECK_MAIN (x264layerenc_stock);
