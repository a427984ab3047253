/**
 * SECTION:element-rlmsink
 * @title: rlmsink
 * @see_also: rlmsrc, x264layerenc
 *
 * The source of a receiver-driven layered multicast session (McCanne,
 * Jacobson, Vetterli, "Receiver-driven Layered Multicast", SIGCOMM '96;
 * docs/protocols/rlm.md). It takes an RTP stream of temporal layers (the
 * GstTemporalLayerMeta x264layerenc puts on each frame and rtph264pay
 * copies to each packet) and sends each layer to its own multicast group:
 * #GstRlmSink:address + layer index (or the layer's entry of
 * #GstRlmSink:groups), on #GstRlmSink:port (or #GstRlmSink:port + 2 x
 * layer with #GstRlmSink:port-per-layer). A packet without the meta goes
 * with the base layer. Every packet carries its layer and a sequence number
 * of its own layer (an RFC 8285 one-byte header extension,
 * #GstRlmSink:ext-id), so receivers count loss per layer. The sink takes
 * no other part in the protocol: receivers choose their layers.
 *
 * The sink proposes #GstRlmSink:layers and #GstRlmSink:layer-rates (bit/s
 * per layer) to the encoder in the caps query and as a GstLayerRates
 * upstream event, and x264layerenc fixates to them.
 *
 * With #GstRlmSink:srtp-key every packet leaves as SRTP (RFC 3711),
 * protected after the layer extension is written, so the extension is
 * authenticated too; rlmsrc takes the same key (docs/security.md).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,width=640,height=360,framerate=30/1 ! \
 *   x264layerenc layers=4 ! rtph264pay config-interval=-1 ! \
 *   rlmsink uri="rlm://239.1.1.1:5000?layers=4&ttl-mc=4"
 * ]| sends layers 0..3 to 239.1.1.1 .. 239.1.1.4, port 5000.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrlmsink.h"
#include "gstrlmutil.h"
#include "gstlayerrates.h"
#include "gstnetudp.h"
#include "gstnetudpprops.h"
#include "gstnetsrtp.h"
#include "gstnetsrc.h"
#include "gstneturi.h"
#include "gsttemporallayermeta.h"
#include "core/random.h"
#include "core/rtp.h"

GST_DEBUG_CATEGORY_STATIC (gst_rlm_sink_debug);
#define GST_CAT_DEFAULT gst_rlm_sink_debug

/* the base layer's rate by default; each layer above doubles the sum */
#define DEFAULT_BASE_RATE 250000
#define MAX_PACKET 65536
/* what a stamped packet may be, leaving room for the SRTP tag */
#define MAX_PAYLOAD (MAX_PACKET - GST_NET_SRTP_MAX_OVERHEAD)

enum
{
  PROP_0,
  PROP_LAYER_RATES,
  PROP_NET_SINK,                /* gstnetsrc.h's from here */
  PROP_SRTP = PROP_NET_SINK + GST_NET_SRC_N_PROPS,      /* gstnetsrtp.h's */
  PROP_SETTINGS = PROP_SRTP + GST_NET_SRTP_N_PROPS,     /* GstRlmSettings' */
};

#define PROP_GROUPS (PROP_SETTINGS + GST_RLM_PROP_GROUPS)
#define PROP_PORT_PER_LAYER (PROP_SETTINGS + GST_RLM_PROP_PORT_PER_LAYER)
#define PROP_LAYERS (PROP_SETTINGS + GST_RLM_PROP_LAYERS)

static const GstNetUdpProps udp_props = {
  .address_default = GST_RLM_DEFAULT_ADDRESS,
  .port_min = 1,
  .port_default = GST_RLM_DEFAULT_PORT,
  .address_blurb = "Multicast group of the base layer; layer i goes to this "
      "address + i unless groups is set (IPv4 or IPv6 literal)",
  .port_blurb = "UDP port of every layer's group (of the base layer's with "
      "port-per-layer)",
  .ttl_mc_blurb = "TTL of the multicast packets, hops (-1: the system's)",
  .multicast_iface_blurb = "Network interface the groups are sent on (NULL: "
      "the system's route)",
  .loop_blurb = "Multicast loopback: receivers on this host hear the stream",
  .socket_blurb = "A UDP socket of the application's to send from, used as "
      "given (not bound, options unchanged, never closed)",
};

typedef struct
{
  guint64 packets, bytes;
} LayerCount;

struct _GstRlmSink
{
  GstBaseSink parent;

  /* Settings, under the object lock */
  GstRlmSettings settings;
  GstNetSinkSettings net_sink;  /* uri */
  GstNetSrtpSettings srtp_settings;
  guint rates[GST_LAYER_RATES_MAX_LAYERS];

  GstRatePath *rate_path;
  gboolean rates_sent;          /* streaming thread: the first event */

  /* State, set in start (streaming thread after that); the counters are
   * read by `stats` under the object lock. */
  GstNetUdp *udp;
  GSocketAddress *dest[GST_RLM_MAX_LAYERS];
  guint n_dest;
  RandomSeeded seed;
  RandomSource rng;
  RlmStamper stamper;
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  guint8 *out;
  LayerCount count[GST_RLM_MAX_LAYERS];
  guint64 no_layer, beyond_layers, send_errors;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rlm_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRlmSink, gst_rlm_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rlmsink, "rlmsink", GST_RANK_NONE,
    GST_TYPE_RLM_SINK);

static void
default_rates (guint * rates, guint n)
{
  for (guint i = 0; i < n; i++)
    rates[i] = i == 0 ? DEFAULT_BASE_RATE : DEFAULT_BASE_RATE << (i - 1);
}

/* What the encoder is asked for: the caps query answer and the event. */
static void
propose_rates (GstRlmSink * self)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n;

  GST_OBJECT_LOCK (self);
  n = self->settings.layers;
  memcpy (rates, self->rates, sizeof (rates));
  GST_OBJECT_UNLOCK (self);
  gst_rate_path_set (self->rate_path, rates, n,
      g_get_monotonic_time () * GST_USECOND);
}

/* The layer a packet belongs to: the meta's, the base layer without one
 * (@no_layer), the top layer for an index beyond the session's (@beyond). */
static guint
packet_layer (GstRlmSink * self, GstBuffer * buffer, gboolean * no_layer,
    gboolean * beyond)
{
  GstTemporalLayerMeta *meta = (GstTemporalLayerMeta *)
      gst_buffer_get_meta (buffer, gst_temporal_layer_meta_api_get_type ());

  *no_layer = meta == NULL;
  *beyond = meta && meta->layer_id >= self->n_dest;
  if (!meta)
    return 0;
  return MIN (meta->layer_id, self->n_dest - 1);
}

/* The encoder hears the rates once it streams: an event sent while the
 * pipeline was still starting did not reach it. */
static void
send_rates_once (GstRlmSink * self)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n;

  if (self->rates_sent) {
    gst_rate_path_tick (self->rate_path, g_get_monotonic_time () *
        GST_USECOND);
    return;
  }
  self->rates_sent = TRUE;
  n = gst_rate_path_get (self->rate_path, rates);
  if (n > 0)
    gst_pad_push_event (GST_BASE_SINK_PAD (self),
        gst_layer_rates_event_new (rates, n));
}

static GstFlowReturn
gst_rlm_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstRlmSink *self = GST_RLM_SINK (bsink);
  GError *err = NULL;
  GstMapInfo map;
  gboolean no_layer, beyond;
  guint layer;
  gsize n = 0;

  send_rates_once (self);
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return GST_FLOW_OK;
  GST_OBJECT_LOCK (self);
  layer = packet_layer (self, buffer, &no_layer, &beyond);
  if (map.size + RTP_EXT_ADD_GROWTH (RLM_LAYER_EXT_SIZE) <= MAX_PAYLOAD)
    n = rlm_stamper_stamp (&self->stamper, layer, map.data, map.size,
        self->out, MAX_PAYLOAD);
  else
    self->stamper.refused++;
  GST_OBJECT_UNLOCK (self);
  gst_buffer_unmap (buffer, &map);
  if (n == 0) {
    GST_LOG_OBJECT (self, "not RTP (or already stamped): dropped");
    return GST_FLOW_OK;
  }
  /* after the stamp, so SRTP's tag covers the layer extension */
  if (self->srtp && !(n = gst_net_srtp_protect (self->srtp, self->out, n,
              MAX_PACKET)))
    return GST_FLOW_OK;
  if (!gst_net_transport_send_to (GST_NET_TRANSPORT (self->udp), self->out,
          n, self->dest[layer], &err)) {
    GST_DEBUG_OBJECT (self, "layer %u: %s", layer, err->message);
    g_error_free (err);
    GST_OBJECT_LOCK (self);
    self->send_errors++;
    GST_OBJECT_UNLOCK (self);
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  self->no_layer += no_layer;
  self->beyond_layers += beyond;
  self->count[layer].packets++;
  self->count[layer].bytes += n;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_rlm_sink_render_list (GstBaseSink * bsink, GstBufferList * list)
{
  for (guint i = 0; i < gst_buffer_list_length (list); i++)
    gst_rlm_sink_render (bsink, gst_buffer_list_get (list, i));
  return GST_FLOW_OK;
}

static gboolean
gst_rlm_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstRlmSink *self = GST_RLM_SINK (bsink);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      gst_rate_path_caps_query (self->rate_path, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (parent_class)->query (bsink, query);
}

static void
clear_dest (GstRlmSink * self)
{
  for (guint i = 0; i < GST_RLM_MAX_LAYERS; i++)
    g_clear_object (&self->dest[i]);
  self->n_dest = 0;
}

static gboolean
gst_rlm_sink_start (GstBaseSink * bsink)
{
  GstRlmSink *self = GST_RLM_SINK (bsink);
  GstNetUdpSettings us;
  GstNetSrtpSettings srtp;
  GSocketAddress *dest[GST_RLM_MAX_LAYERS] = { NULL, };
  gchar *groups;
  gboolean ok;
  GError *err = NULL;
  guint n;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&us, &self->settings.net);
  gst_net_srtp_settings_copy (&srtp, &self->srtp_settings);
  groups = g_strdup (self->settings.groups);
  n = self->settings.layers;
  if (self->net_sink.uri_error)
    err = g_error_copy (self->net_sink.uri_error);
  ok = !err && gst_rlm_layer_addresses (us.address, us.port, groups,
      self->settings.port_per_layer, n, dest, &err);
  GST_OBJECT_UNLOCK (self);

  ok = ok && gst_net_srtp_load (&srtp, GST_NET_SRTP_SEND, &self->srtp, &err);
  gst_net_srtp_settings_clear (&srtp);

  if (ok) {
    /* the base group on an ephemeral port, joined to nothing: that puts
     * multicast-iface on the socket */
    g_free ((gchar *) us.address);
    us.address = g_inet_address_to_string (g_inet_socket_address_get_address
        (G_INET_SOCKET_ADDRESS (dest[0])));
    us.port = 0;
    us.join_later = TRUE;
    self->udp = gst_net_udp_new (&us, g_socket_address_get_family (dest[0]),
        &err);
    ok = self->udp != NULL;
  }
  gst_net_udp_settings_clear (&us);
  g_free (groups);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message), (NULL));
    g_error_free (err);
    g_clear_pointer (&self->srtp, gst_net_srtp_free);
    /* made before a later step (the SRTP key, the socket) failed */
    for (guint i = 0; i < GST_RLM_MAX_LAYERS; i++)
      g_clear_object (&dest[i]);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  memcpy (self->dest, dest, n * sizeof (GSocketAddress *));
  self->n_dest = n;
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  rlm_stamper_init (&self->stamper, self->settings.cfg.ext_id, &self->rng);
  memset (self->count, 0, sizeof (self->count));
  self->no_layer = self->beyond_layers = self->send_errors = 0;
  GST_OBJECT_UNLOCK (self);
  self->rates_sent = FALSE;
  propose_rates (self);
  return TRUE;
}

static gboolean
gst_rlm_sink_stop (GstBaseSink * bsink)
{
  GstRlmSink *self = GST_RLM_SINK (bsink);

  g_clear_object (&self->udp);
  GST_OBJECT_LOCK (self);
  clear_dest (self);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Properties */

static gboolean
rates_from_value (GstRlmSink * self, const GValue * value)
{
  guint n = gst_value_array_get_size (value);

  if (n == 0 || n > GST_LAYER_RATES_MAX_LAYERS)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    if (G_VALUE_HOLDS_INT (v) && g_value_get_int (v) > 0)
      self->rates[i] = g_value_get_int (v);
    else if (G_VALUE_HOLDS_UINT (v) && g_value_get_uint (v) > 0)
      self->rates[i] = g_value_get_uint (v);
    else
      return FALSE;
  }
  self->settings.layers = n;
  return TRUE;
}

/* Layers beyond the old count at doubling cumulative rates. */
static void
extend_rates (GstRlmSink * self, guint layers)
{
  guint old = self->settings.layers;

  self->settings.layers = layers;
  for (guint i = old; i < layers; i++)
    self->rates[i] = i == 0 ? DEFAULT_BASE_RATE : 0;
  for (guint i = MAX (old, 1); i < layers; i++) {
    guint64 sum = 0;
    for (guint j = 0; j < i; j++)
      sum += self->rates[j];
    self->rates[i] = (guint) MIN (sum, G_MAXUINT);
  }
}

static void
gst_rlm_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRlmSink *self = GST_RLM_SINK (object);
  gboolean rates_changed = FALSE;

  if (gst_net_props_set (GST_ELEMENT (self), &self->net_sink,
          PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LAYERS:
      extend_rates (self, g_value_get_uint (value));
      rates_changed = TRUE;
      break;
    case PROP_LAYER_RATES:
      if (!rates_from_value (self, value))
        GST_WARNING_OBJECT (self, "layer-rates: 1 to %u positive rates "
            "(bit/s) wanted", GST_LAYER_RATES_MAX_LAYERS);
      rates_changed = TRUE;
      break;
    default:
      if (!gst_net_srtp_set (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_rlm_settings_set (&self->settings, &udp_props,
              PROP_SETTINGS, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (rates_changed)
    propose_rates (self);
}

static GstStructure *
get_stats (GstElement * element)
{
  GstRlmSink *self = GST_RLM_SINK (element);
  GstStructure *s = gst_structure_new_empty ("application/x-rlm-sink-stats");
  GValue packets = G_VALUE_INIT, bytes = G_VALUE_INIT;

  gst_value_array_init (&packets, GST_RLM_MAX_LAYERS);
  gst_value_array_init (&bytes, GST_RLM_MAX_LAYERS);
  GST_OBJECT_LOCK (self);
  for (guint i = 0; i < self->n_dest; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, self->count[i].packets);
    gst_value_array_append_value (&packets, &v);
    g_value_set_uint64 (&v, self->count[i].bytes);
    gst_value_array_append_and_take_value (&bytes, &v);
  }
  gst_structure_set (s,
      "layers", G_TYPE_UINT, self->n_dest,
      "refused", G_TYPE_UINT64, self->stamper.refused,
      "no-layer", G_TYPE_UINT64, self->no_layer,
      "beyond-layers", G_TYPE_UINT64, self->beyond_layers,
      "send-errors", G_TYPE_UINT64, self->send_errors, NULL);
  gst_net_srtp_stats (s, self->srtp);
  GST_OBJECT_UNLOCK (self);
  gst_structure_take_value (s, "packets", &packets);
  gst_structure_take_value (s, "bytes", &bytes);
  return s;
}

static void
rates_to_value (GstRlmSink * self, GValue * value)
{
  for (guint i = 0; i < self->settings.layers; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, (gint) MIN (self->rates[i], G_MAXINT));
    gst_value_array_append_and_take_value (value, &v);
  }
}

static void
gst_rlm_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRlmSink *self = GST_RLM_SINK (object);

  if (gst_net_props_get (GST_ELEMENT (self), &self->net_sink,
          get_stats, NULL, PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LAYER_RATES:
      rates_to_value (self, value);
      break;
    default:
      if (!gst_net_srtp_get (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_rlm_settings_get (&self->settings, PROP_SETTINGS, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rlm_sink_finalize (GObject * object)
{
  GstRlmSink *self = GST_RLM_SINK (object);

  gst_rate_path_free (self->rate_path);
  clear_dest (self);
  gst_rlm_settings_clear (&self->settings);
  gst_net_src_settings_clear (&self->net_sink);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  g_free (self->out);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

/**
 * GstRlmSink:stats:
 *
 * Counters of the sink; every field with its unit in the blurb.
 */
static const GstNetSinkProps sink_props = {
  .stats_blurb = "Counters (read-only GstStructure). Fields: layers: layers "
      "sent (layers); packets: array by layer of the packets sent (packets); "
      "bytes: array by layer of the bytes sent, RTP with the layer extension "
      "(and the SRTP tag with srtp-key) (bytes); refused: packets that were "
      "not RTP or already carried the extension (packets); no-layer: "
      "packets without a temporal-layer meta, sent with the base layer "
      "(packets); beyond-layers: packets of a layer index beyond layers, "
      "sent with the top layer (packets); send-errors: packets the socket "
      "refused (packets); " GST_NET_SRTP_STATS_DOC,
  .uri_blurb = GST_RLM_URI_BLURB,
};

static void
install_properties (GObjectClass * oc)
{
  gst_rlm_settings_install (oc, PROP_SETTINGS, &udp_props, GST_RLM_PARAM_SINK);
  g_object_class_install_property (oc, PROP_GROUPS,
      g_param_spec_string ("groups", "Groups", "Comma-separated multicast "
          "group of each layer, base layer first, each ADDRESS or "
          "ADDRESS:PORT (IPv6: [ADDRESS]:PORT); NULL: address + layer index",
          NULL, RW));
  g_object_class_install_property (oc, PROP_PORT_PER_LAYER,
      g_param_spec_boolean ("port-per-layer", "Port per layer", "Layer i "
          "goes to port + 2 i (else every layer to port)", FALSE, RW));
  g_object_class_install_property (oc, PROP_LAYERS,
      g_param_spec_uint ("layers", "Layers", "Temporal layers of the "
          "stream, each on its own group (layers); proposed to the encoder",
          1, GST_RLM_MAX_LAYERS, GST_RLM_DEFAULT_LAYERS, RW));
  g_object_class_install_property (oc, PROP_LAYER_RATES,
      gst_param_spec_array ("layer-rates", "Layer rates", "Rate of each "
          "layer, not cumulative, bit/s (sets layers); proposed to the "
          "encoder. Default: 250000 for the base layer, each layer above "
          "doubling the cumulative rate",
          g_param_spec_int ("rate", "Rate", "bit/s", 1, G_MAXINT, 250000,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS), RW));
  gst_net_src_props_install (&sink_props, oc, PROP_NET_SINK);
  gst_net_srtp_install (oc, PROP_SRTP, "every packet of every layer, "
      "after the layer extension is written (rlmsrc takes the same key)");
}

static void
gst_rlm_sink_class_init (GstRlmSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_rlm_sink_set_property;
  gobject_class->get_property = gst_rlm_sink_get_property;
  gobject_class->finalize = gst_rlm_sink_finalize;
  bsink_class->render = gst_rlm_sink_render;
  bsink_class->render_list = gst_rlm_sink_render_list;
  bsink_class->query = gst_rlm_sink_query;
  bsink_class->start = gst_rlm_sink_start;
  bsink_class->stop = gst_rlm_sink_stop;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SINK,
      "rlm", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "RLM layered multicast sink", "Sink/Network/RTP",
      "Sends each temporal layer of an RTP stream to its own multicast group "
      "with a per-layer sequence number, for receiver-driven layered "
      "multicast (rlmsrc). URI: rlm://GROUP:PORT?layers=N&... (any property "
      "as a query parameter). Example: gst-launch-1.0 videotestsrc "
      "is-live=true ! x264layerenc layers=4 ! rtph264pay config-interval=-1 "
      "! rlmsink uri=rlm://239.1.1.1:5000?layers=4",
      "gst-rtp-transports developers");
  gst_type_mark_as_plugin_api (GST_TYPE_RLM_JOIN_DRAW, 0);
  GST_DEBUG_CATEGORY_INIT (gst_rlm_sink_debug, "rlmsink", 0,
      "RLM layered multicast sink");
}

static void
gst_rlm_sink_init (GstRlmSink * self)
{
  gst_rlm_settings_init (&self->settings, &udp_props);
  gst_net_src_settings_init (&sink_props, &self->net_sink);
  gst_net_srtp_settings_init (&self->srtp_settings);
  default_rates (self->rates, GST_LAYER_RATES_MAX_LAYERS);
  self->out = g_malloc (MAX_PACKET);
  self->rate_path = gst_rate_path_new (GST_ELEMENT (self),
      GST_BASE_SINK_PAD (self), GST_SECOND, NULL, NULL);
  propose_rates (self);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}
