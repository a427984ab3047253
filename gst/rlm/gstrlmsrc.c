/**
 * SECTION:element-rlmsrc
 * @title: rlmsrc
 * @see_also: rlmsink, x264layerenc
 *
 * A receiver of a receiver-driven layered multicast session (McCanne,
 * Jacobson, Vetterli, "Receiver-driven Layered Multicast", SIGCOMM '96;
 * docs/protocols/rlm.md). It runs the RLM receiver: it joins the base
 * layer's group, adds a layer when a join timer expires (a
 * join-experiment, announced to the session), drops the top layer when
 * the loss rate says the path is congested, and learns from the other
 * receivers' failed experiments. Joins and leaves are real IGMP/MLD
 * membership changes (source-specific with #GstRlmSrc:source-address), so
 * a network with IGMP snooping stops sending a dropped layer.
 *
 * The subscribed layers come out as one RTP stream that stock
 * depayloaders and decoders play at every level: the packets are put back
 * in the source's order within #GstRlmSrc:reorder-window and renumbered so
 * that the sequence is continuous except where a subscribed layer lost
 * packets. #GstRlmSrc:caps describes the stream, as udpsrc's does.
 *
 * Every level change is posted as an element message `rlm-level` (level,
 * reason, state), so `gst-launch-1.0 -m` shows the adaptation; the
 * receiver's state and counters are in #GstRlmSrc:stats, also posted as
 * `rlm-src-stats` every #GstRlmSrc:stats-interval and once more at EOS.
 * Every constant of the paper is a property with the paper's value as
 * default.
 *
 * With a group key (#GstRlmSrc:key or #GstRlmSrc:key-file, the same on
 * every receiver of the session) the announcements carry an HMAC trailer
 * and a counter, and announcements that are forged, altered or replayed
 * are dropped and counted in the auth-* stats (docs/security.md).
 *
 * With #GstRlmSrc:srtp-key (rlmsink's SRTP key) every media packet is
 * authenticated and decrypted before anything reads it: a forged, altered
 * or replayed packet never reaches the loss estimator or the output and is
 * counted in the srtp-* stats. The announcements are RTCP and are not
 * SRTP: the group key protects them.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m rlmsrc uri="rlm://239.1.1.1:5000?layers=4" \
 *   caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *   rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstrlmsrc.h"
#include "gstrlmutil.h"
#include "rlmmerge.h"
#include "gstnetkey.h"
#include "gstnetloop.h"
#include "gstnetsocket.h"
#include "gstnetsrc.h"
#include "gstnetsrtp.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetudpprops.h"
#include "gstneturi.h"
#include "core/random.h"

GST_DEBUG_CATEGORY_STATIC (gst_rlm_src_debug);
#define GST_CAT_DEFAULT gst_rlm_src_debug

#define DEFAULT_REORDER_WINDOW (20 * GST_MSECOND)
#define DEFAULT_STATS_INTERVAL GST_SECOND
#define MAX_HELD 2048
#define MAX_DATAGRAM 65536

enum
{
  PROP_0,
  PROP_REORDER_WINDOW,
  PROP_NET_SRC,                 /* gstnetsrc.h's from here */
  PROP_KEY = PROP_NET_SRC + GST_NET_SRC_N_PROPS,        /* gstnetkey.h's */
  PROP_SRTP = PROP_KEY + GST_NET_KEY_N_PROPS,   /* gstnetsrtp.h's */
  PROP_SETTINGS = PROP_SRTP + GST_NET_SRTP_N_PROPS,     /* GstRlmSettings' */
};

#define PROP_GROUPS (PROP_SETTINGS + GST_RLM_PROP_GROUPS)
#define PROP_PORT_PER_LAYER (PROP_SETTINGS + GST_RLM_PROP_PORT_PER_LAYER)
#define PROP_LAYERS (PROP_SETTINGS + GST_RLM_PROP_LAYERS)

static const GstNetUdpProps udp_props = {
  .address_default = GST_RLM_DEFAULT_ADDRESS,
  .port_min = 0,
  .port_default = GST_RLM_DEFAULT_PORT,
  .address_blurb = "Multicast group of the base layer; layer i is on this "
      "address + i unless groups is set (IPv4 literal)",
  .port_blurb = "UDP port of every layer's group (of the base layer's with "
      "port-per-layer; 0: an ephemeral port for every layer, read back once "
      "started)",
  .ttl_mc_blurb = "TTL of the announcements, hops (-1: the system's)",
  .multicast_iface_blurb = "Network interface the groups are joined on and "
      "announcements sent on (NULL: the system's)",
  .loop_blurb = "Multicast loopback of the announcements (receivers on this "
      "host hear each other)",
  .socket_blurb = "A UDP socket of the application's for the base layer's "
      "port, used as given (not bound, never closed; the groups are joined "
      "on it)",
};

struct _GstRlmSrc
{
  GstPushSrc parent;

  /* Settings, under the object lock */
  GstRlmSettings settings;
  GstNetKeySettings key;
  GstNetSrtpSettings srtp_settings;
  GstNetSrcSettings net_src;
  guint64 reorder_window;

  GstNetStats stats;

  /* State, under lock: the loop thread feeds the core and the merger,
   * create() takes the merged stream (cond: a packet or a flush). */
  GstNetSrcWait wait;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  guint n_layers;
  GstNetUdp *udp[GST_RLM_MAX_LAYERS];   /* by port: [0] with one port */
  GSocketAddress *dest[GST_RLM_MAX_LAYERS];
  GInetAddress *source;         /* source-specific joins, or NULL */
  gboolean joined[GST_RLM_MAX_LAYERS];
  RandomSeeded seed;
  RandomSource rng;
  RlmReceiver *core;
  RlmMerger merger;
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  guint8 *plain;                /* a media packet unprotected */
  guint64 joins, leaves, join_errors, send_errors;
  GArray *levels;               /* RlmEvent: level changes to post */
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rlm_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRlmSrc, gst_rlm_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rlmsrc, "rlmsrc", GST_RANK_NONE,
    GST_TYPE_RLM_SRC);

static GstStructure *get_stats (GstElement * element);

/* The socket a layer arrives on. */
static GstNetUdp *
layer_udp (GstRlmSrc * self, guint layer)
{
  return self->udp[self->udp[layer] ? layer : 0];
}

/* ------------------------------------------------------------------ */
/* The core's decisions (lock held) */

static void
membership (GstRlmSrc * self, guint layer, gboolean join)
{
  GInetAddress *group;
  GError *err = NULL;
  gboolean ok;

  if (layer >= self->n_layers || self->joined[layer] == join)
    return;
  group = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS
      (self->dest[layer]));
  ok = join ? gst_net_udp_join (layer_udp (self, layer), group, self->source,
      &err) : gst_net_udp_leave (layer_udp (self, layer), group,
      self->source, &err);
  if (!ok) {
    GST_WARNING_OBJECT (self, "layer %u: %s", layer, err->message);
    g_error_free (err);
    self->join_errors++;
    return;
  }
  GST_DEBUG_OBJECT (self, "%s layer %u", join ? "joined" : "left", layer);
  self->joined[layer] = join;
  if (join)
    self->joins++;
  else
    self->leaves++;
  /* packets still in flight after a leave, and the time away, are not
   * loss in the merged stream either */
  rlm_merger_reset_layer (&self->merger, layer);
}

static void
take_events (GstRlmSrc * self)
{
  RlmEvent ev;

  while (rlm_receiver_pop_event (self->core, &ev)) {
    switch (ev.type) {
      case RLM_EVENT_JOIN:
        membership (self, ev.layer, TRUE);
        break;
      case RLM_EVENT_LEAVE:
        membership (self, ev.layer, FALSE);
        break;
      case RLM_EVENT_LEVEL:
        g_array_append_val (self->levels, ev);
        break;
    }
  }
}

/* Posts the level changes taken so far; call holding no lock. */
static void
post_levels (GstRlmSrc * self)
{
  GArray *levels;

  g_mutex_lock (&self->wait.lock);
  levels = self->levels;
  self->levels = g_array_new (FALSE, FALSE, sizeof (RlmEvent));
  g_mutex_unlock (&self->wait.lock);
  for (guint i = 0; i < levels->len; i++) {
    RlmEvent *ev = &g_array_index (levels, RlmEvent, i);

    GST_INFO_OBJECT (self, "level %u (%s)", ev->level,
        rlm_reason_name (ev->reason));
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("rlm-level",
                "level", G_TYPE_UINT, ev->level,
                "reason", G_TYPE_STRING, rlm_reason_name (ev->reason),
                "state", G_TYPE_STRING, rlm_state_name (ev->state), NULL)));
  }
  g_array_unref (levels);
}

/* ------------------------------------------------------------------ */
/* The loop thread */

static void
address_of (GSocketAddress * from, RlmAddr * addr)
{
  gssize n = g_socket_address_get_native_size (from);

  memset (addr, 0, sizeof (*addr));
  if (n > 0 && n <= RLM_ADDR_MAX_SIZE &&
      g_socket_address_to_native (from, addr->bytes, n, NULL))
    addr->len = n;
}

static void
on_datagram (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstRlmSrc *self = user_data;
  gint64 now = gst_net_now ();
  RlmAddr addr;

  address_of (from, &addr);
  g_mutex_lock (&self->wait.lock);
  /* before the core reads the layer extension: forged media stops here */
  if (self->srtp && !gst_net_srtp_is_rtcp (data, size) &&
      !(data = gst_net_srtp_unprotect_copy (self->srtp, NULL, data, &size,
              self->plain, MAX_DATAGRAM))) {
    g_mutex_unlock (&self->wait.lock);
    return;
  }
  if (rlm_receiver_on_datagram (self->core, data, size, &addr, now) ==
      RLM_PACKET_MEDIA && rlm_merger_push (&self->merger, data, size, now))
    g_cond_broadcast (&self->wait.cond);
  take_events (self);
  g_mutex_unlock (&self->wait.lock);
  post_levels (self);
  gst_net_loop_wake (self->loop);
}

/* Announcements and reports go to the session on the base layer's group. */
static void
send_control (GstRlmSrc * self)
{
  guint8 buf[RLM_CTRL_MAX_SIZE];
  GError *err = NULL;
  gsize n;

  while ((n = rlm_receiver_pop_transmit (self->core, buf, sizeof (buf))))
    if (!gst_net_transport_send_to (GST_NET_TRANSPORT (self->udp[0]), buf, n,
            self->dest[0], &err)) {
      GST_DEBUG_OBJECT (self, "announcement: %s", err->message);
      g_clear_error (&err);
      self->send_errors++;
    }
}

static gint64
src_work (gpointer data, gint64 now)
{
  GstRlmSrc *self = data;
  gint64 deadline;

  g_mutex_lock (&self->wait.lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  rlm_receiver_advance (self->core, now);
  take_events (self);
  send_control (self);
  deadline = rlm_receiver_next_deadline (self->core);
  if (deadline < 0)
    deadline = G_MAXINT64;
  g_mutex_unlock (&self->wait.lock);
  post_levels (self);
  return MIN (deadline, gst_net_stats_poll (&self->stats, now));
}

/* ------------------------------------------------------------------ */
/* GstPushSrc */

/* A packet's timestamp is when it arrived, not when create() gives it
 * out: stamped on the way out, a sink that syncs would hold create() back
 * and every frame would come later than the one before. */
static void
stamp_arrival (GstRlmSrc * self, GstBuffer * buf, gint64 age)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self)), t;

  if (!clock)
    return;
  t = gst_clock_get_time (clock);
  gst_object_unref (clock);
  age = MAX (age, 0);
  if (GST_CLOCK_TIME_IS_VALID (base) && t >= base + age)
    GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = t - base - age;
}

static GstFlowReturn
gst_rlm_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstRlmSrc *self = GST_RLM_SRC (psrc);

  g_mutex_lock (&self->wait.lock);
  for (;;) {
    gint64 now = gst_net_now (), deadline, arrival;
    guint8 *data;
    gsize len;

    if (self->wait.flushing) {
      g_mutex_unlock (&self->wait.lock);
      return GST_FLOW_FLUSHING;
    }
    data = rlm_merger_pop (&self->merger, now, &len, &arrival);
    if (data) {
      g_mutex_unlock (&self->wait.lock);
      *outbuf = gst_buffer_new_wrapped (data, len);
      stamp_arrival (self, *outbuf, gst_net_now () - arrival);
      return GST_FLOW_OK;
    }
    deadline = rlm_merger_next_deadline (&self->merger);
    if (deadline < 0)
      deadline = now + GST_SECOND;
    g_cond_wait_until (&self->wait.cond, &self->wait.lock, (deadline + 999) / 1000);
  }
}

/* One socket per distinct port, bound to the port with no group joined
 * (the core's JOIN events join). */
static gboolean
open_sockets (GstRlmSrc * self, const GstNetUdpSettings * net, GError ** err)
{
  for (guint i = 0; i < self->n_layers; i++) {
    GstNetUdpSettings us = *net;
    GInetSocketAddress *d = G_INET_SOCKET_ADDRESS (self->dest[i]);
    gchar *group;

    if (i > 0 && g_inet_socket_address_get_port (d) ==
        g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS
            (self->dest[0])))
      continue;
    group = g_inet_address_to_string (g_inet_socket_address_get_address (d));
    us.address = group;
    us.port = g_inet_socket_address_get_port (d);
    us.socket = i == 0 ? net->socket : NULL;
    us.join_later = TRUE;
    self->udp[i] = gst_net_udp_new (&us, G_SOCKET_FAMILY_IPV4, err);
    g_free (group);
    if (!self->udp[i])
      return FALSE;
  }
  return TRUE;
}

/* Port 0 bound an ephemeral port: every layer is on it. */
static void
take_bound_port (GstRlmSrc * self)
{
  gint port = gst_net_udp_get_port (self->udp[0]);

  for (guint i = 0; i < self->n_layers; i++) {
    GInetSocketAddress *d = G_INET_SOCKET_ADDRESS (self->dest[i]);
    GSocketAddress *a = g_inet_socket_address_new
        (g_inet_socket_address_get_address (d), port);
    g_object_unref (self->dest[i]);
    self->dest[i] = a;
  }
}

static void
close_sockets (GstRlmSrc * self)
{
  for (guint i = 0; i < GST_RLM_MAX_LAYERS; i++) {
    g_clear_object (&self->udp[i]);
    g_clear_object (&self->dest[i]);
    self->joined[i] = FALSE;
  }
  g_clear_object (&self->source);
}

static gboolean
resolve_source (const gchar * source, GInetAddress ** out, GError ** err)
{
  if (!source || !*source)
    return TRUE;
  *out = g_inet_address_new_from_string (source);
  if (!*out)
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "source-address: \"%s\" is not an IP address", source);
  return *out != NULL;
}

static gboolean
gst_rlm_src_start (GstBaseSrc * bsrc)
{
  GstRlmSrc *self = GST_RLM_SRC (bsrc);
  GstNetUdpSettings net;
  GstNetKeySettings keys;
  GstNetSrtpSettings srtp;
  AuthKey key;
  gchar *groups, *source;
  gboolean port_per_layer, have_key = FALSE, ok;
  guint64 window, stats_interval;
  GError *err = NULL;
  RlmConfig cfg;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&net, &self->settings.net);
  gst_net_key_settings_copy (&keys, &self->key);
  gst_net_srtp_settings_copy (&srtp, &self->srtp_settings);
  groups = g_strdup (self->settings.groups);
  source = g_strdup (self->net_src.source_address);
  port_per_layer = self->settings.port_per_layer;
  window = self->reorder_window;
  stats_interval = self->net_src.stats_interval;
  cfg = self->settings.cfg;
  cfg.n_layers = self->settings.layers;
  if (self->net_src.uri_error)
    err = g_error_copy (self->net_src.uri_error);
  GST_OBJECT_UNLOCK (self);

  ok = !err && gst_net_key_load (&keys, &key, &have_key, &err);
  gst_net_key_settings_clear (&keys);
  ok = ok && gst_net_srtp_load (&srtp, GST_NET_SRTP_RECEIVE, &self->srtp,
      &err);
  gst_net_srtp_settings_clear (&srtp);
  g_mutex_lock (&self->wait.lock);
  self->n_layers = cfg.n_layers;
  ok = ok && gst_rlm_layer_addresses (net.address, net.port, groups,
      port_per_layer, cfg.n_layers, self->dest, &err) &&
      resolve_source (source, &self->source, &err) &&
      open_sockets (self, &net, &err);
  if (!ok)
    close_sockets (self);
  else if (net.port == 0)
    take_bound_port (self);
  g_mutex_unlock (&self->wait.lock);
  if (ok && net.port == 0) {
    GST_OBJECT_LOCK (self);
    self->settings.net.port = gst_net_address_get_port (self->dest[0]);
    GST_OBJECT_UNLOCK (self);
  }
  gst_net_udp_settings_clear (&net);
  g_free (groups);
  g_free (source);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_error_free (err);
    g_clear_pointer (&self->srtp, gst_net_srtp_free);
    return FALSE;
  }

  g_mutex_lock (&self->wait.lock);
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  rlm_merger_init (&self->merger, cfg.ext_id, window, MAX_HELD,
      (guint16) g_random_int ());
  self->joins = self->leaves = self->join_errors = self->send_errors = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
  self->core = rlm_receiver_new (&cfg, &self->rng, gst_net_now ());
  if (have_key)
    rlm_receiver_set_key (self->core, &key);
  gst_net_key_wipe (&key, sizeof (key));
  take_events (self);
  g_mutex_unlock (&self->wait.lock);
  post_levels (self);

  gst_net_stats_start (&self->stats, stats_interval, gst_net_now ());
  self->loop = gst_net_loop_new ("rlmsrc", src_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->wait.lock);
  for (guint i = 0; i < self->n_layers; i++)
    if (self->udp[i])
      gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->udp[i]),
          on_datagram, self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static gboolean
gst_rlm_src_stop (GstBaseSrc * bsrc)
{
  GstRlmSrc *self = GST_RLM_SRC (bsrc);

  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->wait.lock);
  /* leave what we joined: the network stops sending it at once */
  for (guint i = 0; self->core && i < self->n_layers; i++)
    membership (self, i, FALSE);
  for (guint i = 0; i < GST_RLM_MAX_LAYERS; i++)
    if (self->udp[i])
      gst_net_transport_detach (GST_NET_TRANSPORT (self->udp[i]));
  close_sockets (self);
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_pointer (&self->core, rlm_receiver_free);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  rlm_merger_clear (&self->merger);
  g_array_set_size (self->levels, 0);
  g_mutex_unlock (&self->wait.lock);
  return TRUE;
}

/* Buffers carry their arrival time; they wait in the reorder window at
 * most before they leave. */
static gboolean
gst_rlm_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstRlmSrc *self = GST_RLM_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime window;
    GST_OBJECT_LOCK (self);
    window = self->reorder_window;
    GST_OBJECT_UNLOCK (self);
    gst_query_set_latency (query, TRUE, window, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (parent_class)->query (bsrc, query);
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_rlm_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRlmSrc *self = GST_RLM_SRC (object);

  if (gst_net_src_props_set (GST_BASE_SRC (self), &self->net_src,
          PROP_NET_SRC, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REORDER_WINDOW:
      self->reorder_window = g_value_get_uint64 (value);
      break;
    default:
      if (!gst_net_key_set (&self->key, PROP_KEY, prop_id, value) &&
          !gst_net_srtp_set (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_rlm_settings_set (&self->settings, &udp_props, PROP_SETTINGS,
              prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
set_array (GstStructure * s, const gchar * field, const guint64 * v, guint n)
{
  GValue array = G_VALUE_INIT;

  gst_value_array_init (&array, n);
  for (guint i = 0; i < n; i++) {
    GValue x = G_VALUE_INIT;
    g_value_init (&x, G_TYPE_UINT64);
    g_value_set_uint64 (&x, v[i]);
    gst_value_array_append_and_take_value (&array, &x);
  }
  gst_structure_take_value (s, field, &array);
}

static void
core_stats (GstRlmSrc * self, GstStructure * s, gint64 now)
{
  RlmReceiverStats st;
  RlmMergeStats ms;
  guint64 v[RLM_MAX_LAYERS + 1] = { 0, };
  guint n = self->n_layers;

  rlm_receiver_get_stats (self->core, &st);
  rlm_merger_get_stats (&self->merger, &ms);
  gst_structure_set (s,
      "level", G_TYPE_UINT, st.level,
      "state", G_TYPE_STRING, rlm_state_name (st.state),
      "ssrc", G_TYPE_UINT, st.ssrc,
      "next-join", G_TYPE_INT64, st.join_deadline < 0 ? -1 :
      MAX (st.join_deadline - now, 0),
      "detection-time", G_TYPE_UINT64, (guint64) st.detection_time,
      "detection-dev", G_TYPE_UINT64, (guint64) st.detection_dev,
      "join-max", G_TYPE_UINT64, (guint64) st.join_max,
      "loss-estimate", G_TYPE_DOUBLE, st.loss_estimate,
      "session-size", G_TYPE_UINT, st.session_size,
      "experiments-run", G_TYPE_UINT64, st.experiments_run,
      "experiments-succeeded", G_TYPE_UINT64, st.experiments_succeeded,
      "experiments-failed", G_TYPE_UINT64, st.experiments_failed,
      "experiments-suppressed", G_TYPE_UINT64, st.experiments_suppressed,
      "experiments-learned", G_TYPE_UINT64, st.experiments_learned,
      "detection-learned", G_TYPE_UINT64, st.detection_learned,
      "higher-failures-ambiguous", G_TYPE_UINT64,
      st.higher_failures_ambiguous,
      "higher-failures-fresh-between", G_TYPE_UINT64,
      st.higher_failures_fresh_between,
      "join-latency", G_TYPE_INT64, st.join_latency,
      "onset-estimate", G_TYPE_INT64, st.onset_estimate,
      "onset-dev", G_TYPE_INT64, st.onset_dev,
      "onset-samples", G_TYPE_UINT64, st.onset_samples,
      "failures-repeated", G_TYPE_UINT64, st.failures_repeated,
      "failures-heard", G_TYPE_UINT64, st.failures_heard,
      "failures-adopted", G_TYPE_UINT64, st.failures_adopted,
      "reported-joins", G_TYPE_UINT64, st.reported_joins,
      "reported-joins-failed", G_TYPE_UINT64, st.reported_joins_failed,
      "drops", G_TYPE_UINT64, st.drops,
      "announcements-sent", G_TYPE_UINT64, st.announcements_sent,
      "reports-sent", G_TYPE_UINT64, st.reports_sent,
      "control-received", G_TYPE_UINT64, st.control_received,
      "own", G_TYPE_UINT64, st.own,
      "malformed", G_TYPE_UINT64, st.malformed + ms.malformed,
      "forged", G_TYPE_UINT64, st.forged,
      "member-overflow", G_TYPE_UINT64, st.member_overflow,
      "foreign", G_TYPE_UINT64, st.foreign,
      "unsubscribed", G_TYPE_UINT64, st.unsubscribed,
      "source-changes", G_TYPE_UINT64, st.source_changes,
      "pushed", G_TYPE_UINT64, ms.released,
      "late", G_TYPE_UINT64, ms.late,
      "duplicates", G_TYPE_UINT64, ms.duplicates,
      "gaps", G_TYPE_UINT64, ms.gaps,
      "held", G_TYPE_UINT, ms.held,
      "held-overflow", G_TYPE_UINT64, ms.overflow, NULL);
  /* join timers of levels 2 .. n: index 0 is level 2 */
  for (guint k = 2; k <= n; k++)
    v[k - 2] = (guint64) st.join_timer[k];
  set_array (s, "join-timers", v, n > 1 ? n - 1 : 0);
  for (guint i = 0; i < n; i++)
    v[i] = st.layers[i].received;
  set_array (s, "layer-received", v, n);
  for (guint i = 0; i < n; i++)
    v[i] = st.layers[i].lost;
  set_array (s, "layer-lost", v, n);
  gst_net_key_stats (s, st.authenticated, &st.auth);
}

static GstStructure *
get_stats (GstElement * element)
{
  GstRlmSrc *self = GST_RLM_SRC (element);
  GstStructure *s = gst_structure_new_empty ("application/x-rlm-src-stats");

  g_mutex_lock (&self->wait.lock);
  if (self->core)
    core_stats (self, s, gst_net_now ());
  gst_structure_set (s,
      "joins", G_TYPE_UINT64, self->joins,
      "leaves", G_TYPE_UINT64, self->leaves,
      "join-errors", G_TYPE_UINT64, self->join_errors,
      "send-errors", G_TYPE_UINT64, self->send_errors, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  gst_net_srtp_stats (s, self->srtp);
  g_mutex_unlock (&self->wait.lock);
  return s;
}

static void
gst_rlm_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRlmSrc *self = GST_RLM_SRC (object);

  if (gst_net_src_props_get (GST_BASE_SRC (self), &self->net_src,
          &self->stats, PROP_NET_SRC, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_REORDER_WINDOW:
      g_value_set_uint64 (value, self->reorder_window);
      break;
    default:
      if (!gst_net_key_get (&self->key, PROP_KEY, prop_id, value) &&
          !gst_net_srtp_get (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_rlm_settings_get (&self->settings, PROP_SETTINGS, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rlm_src_finalize (GObject * object)
{
  GstRlmSrc *self = GST_RLM_SRC (object);

  gst_rlm_settings_clear (&self->settings);
  gst_net_key_settings_clear (&self->key);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  g_free (self->plain);
  gst_net_src_settings_clear (&self->net_src);
  g_array_unref (self->levels);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

#define STATS_DOC \
  "level: layers subscribed (layers); " \
  "state: steady, hysteresis, measurement or drop (section 3.4); " \
  "ssrc: this receiver's id in its announcements (id); " \
  "next-join: time to the pending join timer (ns, -1: none); " \
  "join-timers: array of the mean join timer of levels 2..layers (ns); " \
  "detection-time: the detection-time estimate T_D (ns); " \
  "detection-dev: its deviation sigma_D (ns); " \
  "join-max: T_J^max in effect (ns); " \
  "loss-estimate: short-term loss estimate (fraction 0..1); " \
  "session-size: receivers heard, this one included (receivers); " \
  "experiments-run: join-experiments started (experiments); " \
  "experiments-succeeded: ours that lasted a detection time without loss " \
  "(experiments); " \
  "experiments-failed: ours that met loss (experiments); " \
  "experiments-suppressed: ours put off for another receiver's " \
  "(experiments); " \
  "experiments-learned: others' failed ones that backed our timer off " \
  "(experiments); " \
  "detection-learned: detection-time samples from others' failed ones " \
  "(learn-detection-time) (samples); " \
  "higher-failures-ambiguous: losses under another's higher experiment " \
  "not learned from: another one above our level in progress " \
  "(learn-higher-sole) or it began more than learn-higher-onset (or the " \
  "measured bound) before (losses); " \
  "higher-failures-fresh-between: of those, losses with another " \
  "experiment between that began within the onset bound " \
  "(learn-higher-fresh-between) (losses); " \
  "join-latency: the largest time from a join of ours to the layer's " \
  "first packet, -1 before any (ns); " \
  "onset-estimate: mean time from a join to the onset of its congestion " \
  "on our path, from the first sample on, -1 before any " \
  "(learn-higher-onset-measured) (ns); " \
  "onset-dev: its deviation, -1 before any (ns); " \
  "onset-samples: samples taken (samples); " \
  "failures-repeated: our reports that named a recent failure " \
  "(learn-reported-failures) (packets); " \
  "failures-heard: others' reports that named one (packets); " \
  "failures-adopted: of those, ones that held our experiment at a level " \
  "above ours later (reports); " \
  "reported-joins: climbs straight to the lowest settled level others " \
  "reported (join-reported) (joins); " \
  "reported-joins-failed: of those, undone by a loss right after " \
  "(joins); " \
  "drops: layers dropped on congestion (layers); " \
  "announcements-sent: join announcements sent (packets); " \
  "reports-sent: presence reports sent (packets); " \
  "control-received: others' announcements and reports taken (packets); " \
  "own: our own announcements looped back (packets); " \
  "malformed: datagrams neither RTP with the layer extension nor an RLM " \
  "announcement (packets); " \
  "forged: announcements of a known id from another address (packets); " \
  "member-overflow: announcements of new ids not kept, the member table " \
  "full (max-members); their JOINs still count as experiments " \
  "(packets); " \
  "foreign: RTP of another SSRC while the source sends (packets); " \
  "unsubscribed: packets of layers not subscribed, dropped (packets); " \
  "source-changes: new sources taken after silence (sources); " \
  "layer-received: array by layer of the packets received (packets); " \
  "layer-lost: array by layer of the packets lost (packets); " \
  "pushed: packets output (packets); " \
  "late: packets behind the output, dropped (packets); " \
  "duplicates: packets held twice, dropped (packets); " \
  "gaps: lost packets left as gaps in the output sequence (packets); " \
  "held: packets in the reorder window now (packets); " \
  "held-overflow: packets released before their wait because the " \
  "reorder window held its 2048 (packets); " \
  "joins: groups joined (joins); " \
  "leaves: groups left (leaves); " \
  "join-errors: joins or leaves the system refused (calls); " \
  "send-errors: announcements not sent (packets); " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " GST_NET_SRTP_STATS_DOC

static const GstNetSrcProps src_props = {
  .source_address_blurb = "Join the groups source-specifically (SSM, RFC "
      "4607) for this sender's address (NULL: any source)",
  .caps_blurb = "The caps of the RTP stream (as udpsrc's)",
  .stats_interval_blurb = "Post the stats as an rlm-src-stats element "
      "message this often, ns (0: only at EOS)",
  .stats_interval_default = DEFAULT_STATS_INTERVAL,
  .stats_blurb = "Receiver state and counters (read-only GstStructure). "
      "Fields: " STATS_DOC,
  .uri_blurb = GST_RLM_URI_BLURB,
};

static void
install_properties (GObjectClass * oc)
{
  gst_rlm_settings_install (oc, PROP_SETTINGS, &udp_props, GST_RLM_PARAM_SRC);
  g_object_class_install_property (oc, PROP_GROUPS,
      g_param_spec_string ("groups", "Groups", "Comma-separated multicast "
          "group of each layer, base layer first, each ADDRESS or "
          "ADDRESS:PORT; NULL: address + layer index", NULL, RW));
  g_object_class_install_property (oc, PROP_PORT_PER_LAYER,
      g_param_spec_boolean ("port-per-layer", "Port per layer", "Layer i "
          "is on port + 2 i (else every layer on port)", FALSE, RW));
  g_object_class_install_property (oc, PROP_LAYERS,
      g_param_spec_uint ("layers", "Layers", "Layers the source sends "
          "(layers; the paper simulates 6)", 1, GST_RLM_MAX_LAYERS,
          GST_RLM_DEFAULT_LAYERS, RW));
  g_object_class_install_property (oc, PROP_REORDER_WINDOW,
      g_param_spec_uint64 ("reorder-window", "Reorder window (ns)", "Longest "
          "a packet waits for the ones before it in the source's order, "
          "ns", 0, 10 * GST_SECOND, DEFAULT_REORDER_WINDOW, RW));
  /**
   * GstRlmSrc:stats:
   *
   * The receiver's state and counters; every field with its unit in the
   * blurb.
   */
  gst_net_src_props_install (&src_props, oc, PROP_NET_SRC);
  gst_net_key_install (oc, PROP_KEY, "the join-experiment announcements and "
      "reports: sent with a trailer, taken only when sound and fresh, every "
      "receiver of the session with the same key");
  gst_net_srtp_install (oc, PROP_SRTP, "the media: each packet is "
      "authenticated and decrypted before the receiver reads it, and "
      "dropped and counted when it fails (rlmsink's key)");
}

static void
gst_rlm_src_class_init (GstRlmSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_rlm_src_set_property;
  gobject_class->get_property = gst_rlm_src_get_property;
  gobject_class->finalize = gst_rlm_src_finalize;
  bsrc_class->start = gst_rlm_src_start;
  bsrc_class->stop = gst_rlm_src_stop;
  gst_net_src_class_init (bsrc_class, G_STRUCT_OFFSET (GstRlmSrc, wait),
      G_STRUCT_OFFSET (GstRlmSrc, net_src.caps), &src_template);
  bsrc_class->query = gst_rlm_src_query;
  psrc_class->create = gst_rlm_src_create;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SRC,
      "rlm", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "RLM layered multicast source", "Source/Network/RTP",
      "Receives a layered RTP stream of rlmsink by receiver-driven layered "
      "multicast: joins and leaves the layers' groups by join-experiments "
      "and outputs the subscribed layers as one RTP stream. URI: "
      "rlm://GROUP:PORT?layers=N&... (any property as a query parameter). "
      "Example: gst-launch-1.0 -m rlmsrc uri=rlm://239.1.1.1:5000?layers=4 "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\" ! rtph264depay ! avdec_h264 ! videoconvert ! "
      "autovideosink", "gst-rtp-transports developers");
  gst_type_mark_as_plugin_api (GST_TYPE_RLM_JOIN_DRAW, 0);
  GST_DEBUG_CATEGORY_INIT (gst_rlm_src_debug, "rlmsrc", 0,
      "RLM layered multicast source");
}

static void
gst_rlm_src_init (GstRlmSrc * self)
{
  gst_rlm_settings_init (&self->settings, &udp_props);
  gst_net_srtp_settings_init (&self->srtp_settings);
  self->plain = g_malloc (MAX_DATAGRAM);
  self->reorder_window = DEFAULT_REORDER_WINDOW;
  gst_net_src_settings_init (&src_props, &self->net_src);
  gst_net_src_wait_init (&self->wait);
  self->levels = g_array_new (FALSE, FALSE, sizeof (RlmEvent));
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "rlm-src-stats",
      get_stats);
  gst_net_stats_post_at_eos (&self->stats, GST_BASE_SRC_PAD (self));
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
