/* The properties the network sources share (gstnetsrc.h) on a minimal push
 * source that has them all: installed as described, their defaults, set
 * and get round trips, new caps mark the source pad for reconfiguration
 * and answer a caps query, stats is what the element's GstNetStats builds
 * at each read, and a bad uri changes nothing and is kept for start().
 * And a sink's share of them (stats-interval, stats, uri, bitrate) on a
 * minimal sink. */
#include <gst/check/gstcheck.h>
#include <gst/base/gstbasesink.h>
#include <gst/base/gstpushsrc.h>
#include "gstnetsrc.h"
#include "gstnetudpprops.h"
#include "gstneturi.h"

#define TEST_STATS_INTERVAL (250 * GST_MSECOND)

G_DECLARE_FINAL_TYPE (GstNetTestSrc, gst_net_test_src, GST, NET_TEST_SRC,
    GstPushSrc);

struct _GstNetTestSrc
{
  GstPushSrc parent;
  GstNetUdpSettings net;        /* address and port, the URI's host:port */
  GstNetSrcSettings net_src;
  GstNetSrcWait wait;
  GstNetStats stats;
  guint stats_built;
};

enum
{
  PROP_0,
  PROP_UDP,
  PROP_NET_SRC = PROP_UDP + GST_NET_UDP_N_PROPS,
};

static const GstNetUdpProps udp_props = {
  .address_default = "0.0.0.0",
  .port_default = 5000,
  .address_blurb = "Local address",
  .port_blurb = "UDP port",
};

static const GstNetSrcProps src_props = {
  .source_address_blurb = "The sender's address (NULL: any)",
  .caps_blurb = "The caps of the stream",
  .stats_interval_blurb = "Post the stats this often, ns (0: never)",
  .stats_interval_default = TEST_STATS_INTERVAL,
  .stats_blurb = "built: times the stats were built (count)",
  .uri_blurb = "testnet://ADDRESS:PORT?key=value&...",
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

G_DEFINE_TYPE_WITH_CODE (GstNetTestSrc, gst_net_test_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));

static GstStructure *
build_stats (GstElement * element)
{
  GstNetTestSrc *self = GST_NET_TEST_SRC (element);

  return gst_structure_new ("application/x-test-stats", "built", G_TYPE_UINT,
      ++self->stats_built, NULL);
}

/* What the test source and sink have besides the shared properties: the
 * socket properties, for the URI's host and port. */
static void
udp_set (GObject * object, GstNetUdpSettings * net, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  if (!gst_net_udp_props_set (&udp_props, net, PROP_UDP, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (object);
}

static void
udp_get (GObject * object, GstNetUdpSettings * net, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  if (!gst_net_udp_props_get (net, PROP_UDP, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (object);
}

/* Their properties, URI handler, pad and metadata. */
static void
test_class_init (GstElementClass * klass, const GstNetSrcProps * props,
    GstURIType type, const gchar * scheme, GstStaticPadTemplate * tmpl,
    const gchar * longname)
{
  gst_net_udp_props_install (&udp_props, G_OBJECT_CLASS (klass), PROP_UDP);
  gst_net_src_props_install (props, G_OBJECT_CLASS (klass), PROP_NET_SRC);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), type, scheme,
      "address", "port");
  gst_element_class_add_static_pad_template (klass, tmpl);
  gst_element_class_set_static_metadata (klass, longname, "Network",
      "Has the shared properties", "gst-rtp-transports developers");
}

static void
gst_net_test_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstNetTestSrc *self = GST_NET_TEST_SRC (object);

  if (!gst_net_src_props_set (GST_BASE_SRC (self), &self->net_src,
          PROP_NET_SRC, prop_id, value))
    udp_set (object, &self->net, prop_id, value, pspec);
}

static void
gst_net_test_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstNetTestSrc *self = GST_NET_TEST_SRC (object);

  if (!gst_net_src_props_get (GST_BASE_SRC (self), &self->net_src,
          &self->stats, PROP_NET_SRC, prop_id, value))
    udp_get (object, &self->net, prop_id, value, pspec);
}

static void
gst_net_test_src_finalize (GObject * object)
{
  GstNetTestSrc *self = GST_NET_TEST_SRC (object);

  gst_net_udp_settings_clear (&self->net);
  gst_net_src_settings_clear (&self->net_src);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (gst_net_test_src_parent_class)->finalize (object);
}

static void
gst_net_test_src_class_init (GstNetTestSrcClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = gst_net_test_src_set_property;
  oc->get_property = gst_net_test_src_get_property;
  oc->finalize = gst_net_test_src_finalize;
  gst_net_src_class_init (GST_BASE_SRC_CLASS (klass),
      G_STRUCT_OFFSET (GstNetTestSrc, wait),
      G_STRUCT_OFFSET (GstNetTestSrc, net_src.caps), &src_template);
  test_class_init (GST_ELEMENT_CLASS (klass), &src_props, GST_URI_SRC,
      "testnet", &src_template, "Test network source");
}

static void
gst_net_test_src_init (GstNetTestSrc * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  gst_net_src_settings_init (&src_props, &self->net_src);
  gst_net_src_wait_init (&self->wait);
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "test-stats",
      build_stats);
}

GST_START_TEST (test_installed)
{
  GObjectClass *oc = g_type_class_ref (gst_net_test_src_get_type ());
  GParamSpec *p;

  p = g_object_class_find_property (oc, "caps");
  fail_unless (p != NULL && p->value_type == GST_TYPE_CAPS);
  fail_unless_equals_string (g_param_spec_get_blurb (p),
      "The caps of the stream");
  fail_unless (p->flags & GST_PARAM_MUTABLE_READY);
  p = g_object_class_find_property (oc, "stats-interval");
  fail_unless (p != NULL && G_IS_PARAM_SPEC_UINT64 (p));
  fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (p)->default_value,
      TEST_STATS_INTERVAL);
  fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (p)->maximum, G_MAXINT64);
  p = g_object_class_find_property (oc, "stats");
  fail_unless (p != NULL && p->value_type == GST_TYPE_STRUCTURE);
  fail_unless ((p->flags & G_PARAM_READWRITE) == G_PARAM_READABLE);
  p = g_object_class_find_property (oc, "source-address");
  fail_unless (p != NULL && p->flags & GST_PARAM_MUTABLE_READY);
  p = g_object_class_find_property (oc, "uri");
  fail_unless (p != NULL && p->value_type == G_TYPE_STRING);
  g_type_class_unref (oc);
}

GST_END_TEST;

GST_START_TEST (test_round_trip)
{
  GstElement *src = g_object_new (gst_net_test_src_get_type (), NULL);
  GstPad *pad = GST_BASE_SRC_PAD (src);
  GstCaps *caps = gst_caps_from_string ("application/x-rtp,media=video");
  GstCaps *got;
  GstStructure *stats;
  gchar *address;
  guint64 interval;
  guint built;

  g_object_get (src, "source-address", &address, "caps", &got,
      "stats-interval", &interval, NULL);
  fail_unless (address == NULL && got == NULL);
  fail_unless_equals_uint64 (interval, TEST_STATS_INTERVAL);

  gst_pad_check_reconfigure (pad);
  g_object_set (src, "source-address", "10.0.0.9", "caps", caps,
      "stats-interval", 5 * GST_SECOND, NULL);
  fail_unless (gst_pad_check_reconfigure (pad));
  g_object_get (src, "source-address", &address, "caps", &got,
      "stats-interval", &interval, NULL);
  fail_unless_equals_string (address, "10.0.0.9");
  fail_unless (gst_caps_is_equal (got, caps));
  fail_unless_equals_uint64 (interval, 5 * GST_SECOND);
  g_free (address);
  gst_caps_unref (got);
  /* the caps the source offers are the property's */
  got = gst_pad_query_caps (pad, NULL);
  fail_unless (gst_caps_is_equal (got, caps));
  gst_caps_unref (got);

  g_object_set (src, "source-address", NULL, "caps", NULL, NULL);
  g_object_get (src, "source-address", &address, "caps", &got, NULL);
  fail_unless (address == NULL && got == NULL);

  /* built by the element's get at each read */
  for (guint i = 1; i <= 2; i++) {
    g_object_get (src, "stats", &stats, NULL);
    fail_unless (gst_structure_has_name (stats, "application/x-test-stats"));
    fail_unless (gst_structure_get_uint (stats, "built", &built));
    fail_unless_equals_int (built, i);
    gst_structure_free (stats);
  }
  gst_caps_unref (caps);
  gst_object_unref (src);
}

GST_END_TEST;

GST_START_TEST (test_uri)
{
  GstElement *src = g_object_new (gst_net_test_src_get_type (), NULL);
  GstNetTestSrc *self = GST_NET_TEST_SRC (src);
  gchar *address, *uri;
  guint64 interval;
  gint port;

  g_object_set (src, "uri", "testnet://10.0.0.2:6000?stats-interval=7", NULL);
  fail_unless (self->net_src.uri_error == NULL);
  g_object_get (src, "address", &address, "port", &port, "stats-interval",
      &interval, "uri", &uri, NULL);
  fail_unless_equals_string (address, "10.0.0.2");
  fail_unless_equals_int (port, 6000);
  fail_unless_equals_uint64 (interval, 7);
  fail_unless (g_str_has_prefix (uri, "testnet://10.0.0.2:6000"), "%s", uri);
  fail_unless (strstr (uri, "stats-interval=7") != NULL, "%s", uri);
  g_free (address);
  g_free (uri);

  /* a bad value: nothing set, the error kept (start() reports it) */
  g_object_set (src, "uri", "testnet://10.0.0.3:7000?stats-interval=soon",
      NULL);
  fail_unless (self->net_src.uri_error != NULL);
  fail_unless (strstr (self->net_src.uri_error->message,
          "stats-interval") != NULL,
      "%s", self->net_src.uri_error->message);
  g_object_get (src, "address", &address, "port", &port, "stats-interval",
      &interval, NULL);
  fail_unless_equals_string (address, "10.0.0.2");
  fail_unless_equals_int (port, 6000);
  fail_unless_equals_uint64 (interval, 7);
  g_free (address);

  /* a good one again clears it */
  g_object_set (src, "uri", "testnet://10.0.0.3:7000", NULL);
  fail_unless (self->net_src.uri_error == NULL);
  gst_object_unref (src);
}

GST_END_TEST;

/* ---- a sink's share ---------------------------------------------------- */

G_DECLARE_FINAL_TYPE (GstNetTestSink, gst_net_test_sink, GST, NET_TEST_SINK,
    GstBaseSink);

struct _GstNetTestSink
{
  GstBaseSink parent;
  GstNetUdpSettings net;
  GstNetSinkSettings net_sink;
  GstRatePath *rates;
  guint stats_built;
};

static const GstNetSinkProps sink_props = {
  .stats_interval_blurb = "Post the stats this often, ns (0: only at EOS)",
  .stats_blurb = "built: times the stats were built (count)",
  .uri_blurb = "testnetsink://ADDRESS:PORT?key=value&...",
  .bitrate_blurb = "The rate asked of the encoder, bit/s",
};

G_DEFINE_TYPE_WITH_CODE (GstNetTestSink, gst_net_test_sink,
    GST_TYPE_BASE_SINK, G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_net_uri_handler_init));

static GstStructure *
build_sink_stats (GstElement * element)
{
  GstNetTestSink *self = GST_NET_TEST_SINK (element);

  return gst_structure_new ("application/x-test-sink-stats", "built",
      G_TYPE_UINT, ++self->stats_built, NULL);
}

static void
gst_net_test_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstNetTestSink *self = GST_NET_TEST_SINK (object);

  if (!gst_net_props_set (GST_ELEMENT (self), &self->net_sink, PROP_NET_SRC,
          prop_id, value))
    udp_set (object, &self->net, prop_id, value, pspec);
}

static void
gst_net_test_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstNetTestSink *self = GST_NET_TEST_SINK (object);

  if (!gst_net_props_get (GST_ELEMENT (self), &self->net_sink,
          build_sink_stats, self->rates, PROP_NET_SRC, prop_id, value))
    udp_get (object, &self->net, prop_id, value, pspec);
}

static void
gst_net_test_sink_finalize (GObject * object)
{
  GstNetTestSink *self = GST_NET_TEST_SINK (object);

  gst_rate_path_free (self->rates);
  gst_net_udp_settings_clear (&self->net);
  gst_net_src_settings_clear (&self->net_sink);
  G_OBJECT_CLASS (gst_net_test_sink_parent_class)->finalize (object);
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

static void
gst_net_test_sink_class_init (GstNetTestSinkClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);

  oc->set_property = gst_net_test_sink_set_property;
  oc->get_property = gst_net_test_sink_get_property;
  oc->finalize = gst_net_test_sink_finalize;
  test_class_init (GST_ELEMENT_CLASS (klass), &sink_props, GST_URI_SINK,
      "testnetsink", &sink_template, "Test network sink");
}

static void
gst_net_test_sink_init (GstNetTestSink * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  gst_net_src_settings_init (&sink_props, &self->net_sink);
  self->rates = gst_rate_path_new (GST_ELEMENT (self),
      GST_BASE_SINK_PAD (self), GST_SECOND, "bitrate", NULL);
}

GST_START_TEST (test_sink_installed)
{
  GObjectClass *oc = g_type_class_ref (gst_net_test_sink_get_type ());
  GParamSpec *p;

  fail_unless (g_object_class_find_property (oc, "source-address") == NULL);
  fail_unless (g_object_class_find_property (oc, "caps") == NULL);
  p = g_object_class_find_property (oc, "stats-interval");
  fail_unless (p != NULL && p->flags & GST_PARAM_MUTABLE_READY);
  fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (p)->default_value, 0);
  p = g_object_class_find_property (oc, "bitrate");
  fail_unless (p != NULL && G_IS_PARAM_SPEC_UINT (p));
  fail_unless ((p->flags & G_PARAM_READWRITE) == G_PARAM_READABLE);
  fail_unless_equals_string (g_param_spec_get_blurb (p),
      "The rate asked of the encoder, bit/s");
  p = g_object_class_find_property (oc, "stats");
  fail_unless ((p->flags & G_PARAM_READWRITE) == G_PARAM_READABLE);
  fail_unless (g_object_class_find_property (oc, "uri") != NULL);
  g_type_class_unref (oc);
}

GST_END_TEST;

/* stats-interval round-trips, stats is built at each read, bitrate is the
 * rate path's, and a bad uri changes nothing and is kept. */
GST_START_TEST (test_sink_round_trip)
{
  GstElement *sink = g_object_new (gst_net_test_sink_get_type (), NULL);
  GstNetTestSink *self = GST_NET_TEST_SINK (sink);
  const guint rates[2] = { 300000, 200000 };
  GstStructure *stats;
  guint64 interval;
  guint bitrate, built;

  g_object_set (sink, "stats-interval", 3 * GST_SECOND, NULL);
  g_object_get (sink, "stats-interval", &interval, "bitrate", &bitrate,
      NULL);
  fail_unless_equals_uint64 (interval, 3 * GST_SECOND);
  fail_unless_equals_int (bitrate, 0);
  gst_rate_path_set (self->rates, rates, 2, 0);
  g_object_get (sink, "bitrate", &bitrate, NULL);
  fail_unless_equals_int (bitrate, 500000);
  for (guint i = 1; i <= 2; i++) {
    g_object_get (sink, "stats", &stats, NULL);
    fail_unless (gst_structure_get_uint (stats, "built", &built));
    fail_unless_equals_int (built, i);
    gst_structure_free (stats);
  }

  g_object_set (sink, "uri", "testnetsink://10.0.0.4:6100?stats-interval=9",
      NULL);
  fail_unless (self->net_sink.uri_error == NULL);
  g_object_set (sink, "uri", "testnetsink://10.0.0.5:6200?bitrate=5", NULL);
  fail_unless (self->net_sink.uri_error != NULL);
  g_object_get (sink, "stats-interval", &interval, NULL);
  fail_unless_equals_uint64 (interval, 9);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
netsrcprops_suite (void)
{
  Suite *s = suite_create ("netsrcprops");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_installed);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_uri);
  tcase_add_test (tc, test_sink_installed);
  tcase_add_test (tc, test_sink_round_trip);
  return s;
}

GST_CHECK_MAIN (netsrcprops);
