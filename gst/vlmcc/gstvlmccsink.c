/**
 * SECTION:element-vlmccsink
 * @title: vlmccsink
 * @see_also: vlmccsrc, x264layerenc
 *
 * The sender of a VLMCC session (Rodriguez-Perez et al., "A Receiver Based
 * Single-Layer Multicast Congestion Control Protocol for Multimedia
 * Streaming"; docs/protocols/vlmcc.md). It multicasts an RTP stream to
 * #GstVlmccSink:address : #GstVlmccSink:port and runs a TCP-Vegas window
 * toward one receiver, the leader, which acks every packet. Each packet
 * carries the paper's data fields (sequence, leader id, timestamp, drift,
 * rate) in an RFC 8285 one-byte header extension (#GstVlmccSink:ext-id);
 * the RTP header and payload stay the application's, so stock receivers
 * play the stream. Acks, challenges and join probes arrive by unicast on
 * the sink's socket, and the sink answers probes with START packets.
 *
 * Packets leave paced at the window's rate; the sink holds at most
 * #GstVlmccSink:max-queue packets and upstream waits while it is full.
 * The rate reaches the encoder as the `GstLayerRates` upstream event
 * (x264layerenc follows it) and as the notifying #GstVlmccSink:bitrate
 * property, in bit/s, for an application that drives an encoder of its own
 * (x264enc's `bitrate` is kbit/s). Rates in bit/s count
 * #GstVlmccSink:packet-size bytes per packet: set the payloader's mtu to it.
 *
 * With a group key (#GstVlmccSink:key or #GstVlmccSink:key-file, the same
 * on every vlmccsrc of the session; docs/security.md), every ack and
 * challenge must carry a sound, fresh trailer under it, and every START
 * carries one. Control that fails is dropped before the core parses it and
 * counted in the stats' auth-* fields. The data packets' extension is
 * media: protect it with SRTP (docs/protocols/vlmcc.md, "Group key").
 *
 * With #GstVlmccSink:srtp-key every data packet leaves as SRTP (RFC 3711),
 * protected after its VLMCC extension is written, so the tag covers the
 * paper's fields; every vlmccsrc of the session takes the same key. The
 * STARTs are control (RTCP) and stay under the group key.
 *
 * Every leader change is posted as a `vlmcc-leader` element message
 * (leader, leader-changes); #GstVlmccSink:stats has the sender's state and
 * counters, also posted as `vlmcc-sink-stats` every
 * #GstVlmccSink:stats-interval and at EOS.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! \
 *   x264layerenc layers=1 speed-preset=ultrafast tune=zerolatency ! rtph264pay mtu=1000 config-interval=-1 ! \
 *   vlmccsink uri="vlmcc://239.3.3.3:5200?multicast-iface=lo"
 * ]| streams to 239.3.3.3:5200 on the loopback interface at the rate the
 * session allows (the vlmccsrc example receives it; drop multicast-iface
 * to use the system's route).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstvlmccsink.h"
#include "gstvlmccutil.h"
#include "gstlayerrates.h"
#include "gstnetloop.h"
#include "gstnetsrtp.h"
#include "gstnetsrc.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetudpprops.h"
#include "gstneturi.h"
#include "core/random.h"
#include "core/rtp.h"

GST_DEBUG_CATEGORY_STATIC (gst_vlmcc_sink_debug);
#define GST_CAT_DEFAULT gst_vlmcc_sink_debug

#define MAX_PACKET 65536
/* Rate events closer than this are coalesced (one encoder update). */
#define RATE_INTERVAL (200 * GST_MSECOND)
/* Longest the sink keeps sending its queue at EOS. */
#define DRAIN_TIMEOUT (5 * G_USEC_PER_SEC)

enum
{
  PROP_0,
  PROP_NET_SINK,                /* gstnetsrc.h's from here */
  PROP_KEY = PROP_NET_SINK + GST_NET_SRC_N_PROPS,       /* gstnetkey.h's */
  PROP_UDP_FIRST = PROP_KEY + GST_NET_KEY_N_PROPS,
  PROP_SRTP = PROP_UDP_FIRST + GST_NET_UDP_N_PROPS,     /* gstnetsrtp.h's */
  PROP_CONFIG_FIRST = PROP_SRTP + GST_NET_SRTP_N_PROPS,
};

static const GstNetUdpProps udp_props = {
  .address_default = GST_VLMCC_DEFAULT_ADDRESS,
  .port_min = 1,
  .port_default = GST_VLMCC_DEFAULT_PORT,
  .address_blurb = "Multicast group of the session (IPv4 or IPv6 literal)",
  .port_blurb = "UDP port of the group",
  .ttl_mc_blurb = "TTL of the multicast packets, hops (-1: the system's)",
  .multicast_iface_blurb = "Network interface the stream is sent on (NULL: "
      "the system's route)",
  .loop_blurb = "Multicast loopback: receivers on this host hear the stream",
  .socket_blurb = "A UDP socket of the application's to send from and "
      "receive feedback on, used as given (not bound, options unchanged, "
      "never closed)",
  .buffer_size_blurb = "Socket send and receive buffer size, bytes (0: the "
      "system's)",
};

struct _GstVlmccSink
{
  GstBaseSink parent;

  /* Settings, under the object lock */
  GstNetUdpSettings net;
  VlmccConfig cfg;
  GstNetSinkSettings net_sink;  /* stats-interval, uri */
  GstNetKeySettings key;
  GstNetSrtpSettings srtp_settings;

  GstRatePath *rates;
  GstNetStats stats;

  /* State, under wait.lock: render() queues, the loop thread paces, sends
   * and takes feedback; wait.cond: room in the queue, the queue drained, a
   * flush (wait.flushing, between unlock and unlock_stop). */
  GstNetSrcWait wait;
  gboolean running;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  GstNetUdp *udp;
  GSocketAddress *group;
  VlmccConfig run_cfg;
  VlmccSender *core;
  GstVlmccRunKey run_key;
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  RandomSeeded seed;
  RandomSource rng;
  guint8 *out;
  GArray *events;               /* VlmccEvent, handled without the lock */
  guint64 not_rtp, send_errors, feedback_early;
};

/* Room for the largest packet and its SRTP tag. */
#define OUT_SIZE (MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_vlmcc_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstVlmccSink, gst_vlmcc_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (vlmccsink, "vlmccsink", GST_RANK_NONE,
    GST_TYPE_VLMCC_SINK);

static GstStructure *get_stats (GstElement * element);

/* What the encoder is asked for before any feedback: the initial window
 * over the initial RTT. */
static void
propose_initial_rate (GstVlmccSink * self)
{
  guint rate;

  GST_OBJECT_LOCK (self);
  rate = (guint) MIN ((gdouble) self->cfg.initial_window *
      self->cfg.packet_size * 8.0 * GST_SECOND / self->cfg.initial_rtt,
      G_MAXUINT);
  GST_OBJECT_UNLOCK (self);
  gst_rate_path_set (self->rates, &rate, 1, gst_net_now ());
}

/* ------------------------------------------------------------------ */
/* The loop thread */

static void
handle_events (GstVlmccSink * self, GArray * evs)
{
  for (guint i = 0; i < evs->len; i++) {
    VlmccEvent *ev = &g_array_index (evs, VlmccEvent, i);
    VlmccSenderStats st;
    guint rate;

    switch (ev->type) {
      case VLMCC_EVENT_RATE:
        rate = (guint) MIN (ev->rate, G_MAXUINT);
        GST_DEBUG_OBJECT (self, "rate %u bit/s", rate);
        gst_rate_path_set (self->rates, &rate, 1, gst_net_now ());
        break;
      case VLMCC_EVENT_LEADER:
        g_mutex_lock (&self->wait.lock);
        st.leader_changes = 0;
        if (self->core)
          vlmcc_sender_get_stats (self->core, &st);
        g_mutex_unlock (&self->wait.lock);
        GST_INFO_OBJECT (self, "leader %08x", ev->leader);
        gst_element_post_message (GST_ELEMENT (self),
            gst_vlmcc_leader_message (GST_ELEMENT (self), ev->leader,
                st.leader_changes));
        break;
      default:
        break;
    }
  }
  g_array_set_size (evs, 0);
}

/* A data packet (to the group) as SRTP, after the core wrote its
 * extension; STARTs (unicast) are control and pass as they are. Returns
 * the length to send, 0 when libsrtp refused it (counted). */
static gsize
protect_data (GstVlmccSink * self, const VlmccAddr * to, gsize n)
{
  if (!self->srtp || to->len)
    return n;
  return gst_net_srtp_protect (self->srtp, self->out, n, OUT_SIZE);
}

/* Sends what the core has due: data to the group, STARTs to receivers. */
static void
transmit (GstVlmccSink * self)
{
  VlmccAddr to;
  gsize n;

  while ((n = vlmcc_sender_pop_transmit (self->core, self->out, MAX_PACKET,
              &to))) {
    GSocketAddress *dest;
    GError *err = NULL;

    if (!(n = protect_data (self, &to, n)))
      continue;
    dest = to.len ? gst_vlmcc_addr_to_socket (&to) :
        g_object_ref (self->group);
    if (!dest || !gst_net_transport_send_to (GST_NET_TRANSPORT (self->udp),
            self->out, n, dest, &err)) {
      GST_LOG_OBJECT (self, "send: %s", err ? err->message : "bad address");
      g_clear_error (&err);
      self->send_errors++;
    }
    g_clear_object (&dest);
  }
}

static void
on_feedback (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstVlmccSink *self = user_data;
  VlmccAddr addr;

  gst_vlmcc_addr_from_socket (from, &addr);
  g_mutex_lock (&self->wait.lock);
  if (self->core) {
    vlmcc_sender_on_feedback_at (self->core, data, size, &addr, gst_net_now (),
        gst_net_transport_arrival (t));
    transmit (self);
  } else
    self->feedback_early++;     /* no stream yet: nothing to answer */
  g_mutex_unlock (&self->wait.lock);
  gst_net_loop_wake (self->loop);
}

static gint64
sink_work (gpointer data, gint64 now)
{
  GstVlmccSink *self = data;
  gint64 deadline = G_MAXINT64;
  VlmccEvent ev;

  g_mutex_lock (&self->wait.lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  if (self->core) {
    /* the time the packets are stamped with: after the wait for the lock */
    vlmcc_sender_advance (self->core, gst_net_now ());
    transmit (self);
    while (vlmcc_sender_pop_event (self->core, &ev))
      g_array_append_val (self->events, ev);
    deadline = vlmcc_sender_next_deadline (self->core);
    if (deadline < 0)
      deadline = G_MAXINT64;
    if (vlmcc_sender_queued (self->core) < self->run_cfg.max_queue)
      g_cond_broadcast (&self->wait.cond);
  }
  g_mutex_unlock (&self->wait.lock);

  handle_events (self, self->events);
  gst_rate_path_tick (self->rates, now);
  return MIN (deadline, gst_net_stats_poll (&self->stats, now));
}

/* ------------------------------------------------------------------ */
/* GstBaseSink */

/* The group's address and a socket for it: bound to an ephemeral port
 * (feedback comes back to it), joined to nothing; the group as its
 * address puts multicast-iface on it. */
static gboolean
open_socket (GstVlmccSink * self, GstNetUdpSettings * us, GError ** err)
{
  GInetAddress *ia = g_inet_address_new_from_string (us->address);

  if (!ia || !g_inet_address_get_is_multicast (ia)) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "address: \"%s\" is not a multicast group", us->address ?
        us->address : "");
    g_clear_object (&ia);
    return FALSE;
  }
  self->group = g_inet_socket_address_new (ia, us->port);
  us->port = 0;
  us->join_later = TRUE;
  self->udp = gst_net_udp_new (us, g_inet_address_get_family (ia), err);
  g_object_unref (ia);
  return self->udp != NULL;
}

static gboolean
gst_vlmcc_sink_start (GstBaseSink * bsink)
{
  GstVlmccSink *self = GST_VLMCC_SINK (bsink);
  GstNetUdpSettings us;
  GstNetSrtpSettings srtp;
  GError *err = NULL;
  guint64 stats_interval;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&us, &self->net);
  gst_net_srtp_settings_copy (&srtp, &self->srtp_settings);
  self->run_cfg = self->cfg;
  stats_interval = self->net_sink.stats_interval;
  if (self->net_sink.uri_error)
    err = g_error_copy (self->net_sink.uri_error);
  GST_OBJECT_UNLOCK (self);

  ok = !err && gst_vlmcc_run_key_load (GST_ELEMENT (self), &self->key,
      &self->run_key, &err) && gst_net_srtp_load (&srtp, GST_NET_SRTP_SEND,
      &self->srtp, &err) && open_socket (self, &us, &err);
  gst_net_udp_settings_clear (&us);
  gst_net_srtp_settings_clear (&srtp);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    g_clear_pointer (&self->srtp, gst_net_srtp_free);
    g_clear_object (&self->group);
    g_clear_object (&self->udp);
    gst_vlmcc_run_key_clear (&self->run_key);
    return FALSE;
  }
  g_mutex_lock (&self->wait.lock);
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  self->not_rtp = self->send_errors = self->feedback_early = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
  self->running = TRUE;
  g_mutex_unlock (&self->wait.lock);
  propose_initial_rate (self);

  gst_net_stats_start (&self->stats, stats_interval, gst_net_now ());
  self->loop = gst_net_loop_new ("vlmccsink", sink_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->wait.lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->udp), on_feedback,
      self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static gboolean
gst_vlmcc_sink_stop (GstBaseSink * bsink)
{
  GstVlmccSink *self = GST_VLMCC_SINK (bsink);

  g_mutex_lock (&self->wait.lock);
  self->running = FALSE;
  g_cond_broadcast (&self->wait.cond);
  g_mutex_unlock (&self->wait.lock);
  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->wait.lock);
  g_clear_pointer (&self->core, vlmcc_sender_free);
  gst_vlmcc_run_key_clear (&self->run_key);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  g_array_set_size (self->events, 0);
  g_mutex_unlock (&self->wait.lock);
  if (self->udp)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->udp));
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_object (&self->udp);
  g_clear_object (&self->group);
  return TRUE;
}

/* The core, at the first buffer (its SSRC is the stream's). */
static void
start_core (GstVlmccSink * self, guint32 ssrc)
{
  self->core = vlmcc_sender_new (&self->run_cfg, ssrc, &self->rng,
      gst_net_now ());
  if (self->run_key.set)
    vlmcc_sender_set_key (self->core, &self->run_key.key, &self->rng);
}

/* Waits for room in the core's queue; FALSE on a flush or a stop. */
static gboolean
wait_for_room (GstVlmccSink * self)
{
  while (self->running && !self->wait.flushing &&
      vlmcc_sender_queued (self->core) >= self->run_cfg.max_queue)
    g_cond_wait (&self->wait.cond, &self->wait.lock);
  return self->running && !self->wait.flushing;
}

static GstFlowReturn
gst_vlmcc_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstVlmccSink *self = GST_VLMCC_SINK (bsink);
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo map;
  RtpHeader h;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return GST_FLOW_OK;
  g_mutex_lock (&self->wait.lock);
  if (map.size + VLMCC_DATA_GROWTH > MAX_PACKET ||
      !rtp_header_parse (map.data, map.size, &h)) {
    self->not_rtp++;
    GST_LOG_OBJECT (self, "not RTP (or too long): dropped");
  } else {
    if (!self->core)
      start_core (self, h.ssrc);
    if (!wait_for_room (self))
      ret = GST_FLOW_FLUSHING;
    else
      /* stamped by the loop as it sends: a packet stamped here would wait
       * for the loop's thread, late on a loaded host, and every delay
       * measured from its stamp would hold that wait */
      vlmcc_sender_enqueue (self->core, map.data, map.size);
  }
  g_mutex_unlock (&self->wait.lock);
  gst_buffer_unmap (buffer, &map);
  if (self->loop)
    gst_net_loop_wake (self->loop);
  return ret;
}

static GstFlowReturn
gst_vlmcc_sink_render_list (GstBaseSink * bsink, GstBufferList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;

  for (guint i = 0; ret == GST_FLOW_OK && i < gst_buffer_list_length (list);
      i++)
    ret = gst_vlmcc_sink_render (bsink, gst_buffer_list_get (list, i));
  return ret;
}

static gboolean
gst_vlmcc_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstVlmccSink *self = GST_VLMCC_SINK (bsink);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      gst_rate_path_caps_query (self->rates, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (parent_class)->query (bsink, query);
}

static gboolean
gst_vlmcc_sink_unlock (GstBaseSink * bsink)
{
  gst_net_src_wait_set_flushing (&GST_VLMCC_SINK (bsink)->wait, TRUE);
  return TRUE;
}

static gboolean
gst_vlmcc_sink_unlock_stop (GstBaseSink * bsink)
{
  gst_net_src_wait_set_flushing (&GST_VLMCC_SINK (bsink)->wait, FALSE);
  return TRUE;
}

/* At EOS the queue leaves first, paced, for DRAIN_TIMEOUT at most. */
static void
wait_drained (GstVlmccSink * self)
{
  gint64 end = g_get_monotonic_time () + DRAIN_TIMEOUT;

  g_mutex_lock (&self->wait.lock);
  while (self->running && !self->wait.flushing && self->core &&
      vlmcc_sender_queued (self->core) > 0 && g_get_monotonic_time () < end)
    g_cond_wait_until (&self->wait.cond, &self->wait.lock, g_get_monotonic_time () +
        20 * 1000);
  g_mutex_unlock (&self->wait.lock);
}

static gboolean
gst_vlmcc_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstVlmccSink *self = GST_VLMCC_SINK (bsink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    wait_drained (self);
    gst_net_stats_post (&self->stats);
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (bsink, event);
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_vlmcc_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVlmccSink *self = GST_VLMCC_SINK (object);

  if (gst_net_props_set (GST_ELEMENT (self), &self->net_sink,
          PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (!gst_net_key_set (&self->key, PROP_KEY, prop_id, value) &&
      !gst_net_srtp_set (&self->srtp_settings, PROP_SRTP, prop_id, value) &&
      !gst_net_udp_props_set (&udp_props, &self->net, PROP_UDP_FIRST,
          prop_id, value) && !gst_param_table_set (&gst_vlmcc_params,
          &self->cfg, PROP_CONFIG_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
sender_stats (GstVlmccSink * self, GstStructure * s)
{
  VlmccSenderStats st;

  vlmcc_sender_get_stats (self->core, &st);
  gst_structure_set (s,
      "ssrc", G_TYPE_UINT, st.ssrc,
      "window", G_TYPE_DOUBLE, st.window,
      "rtt", G_TYPE_UINT64, (guint64) st.rtt,
      "rtt-dev", G_TYPE_UINT64, (guint64) st.rtt_dev,
      "base-rtt", G_TYPE_UINT64, (guint64) MAX (st.base_rtt, 0),
      "vegas-rtt", G_TYPE_UINT64, (guint64) MAX (st.vegas_rtt, 0),
      "ack-hold", G_TYPE_UINT64, (guint64) MAX (st.ack_hold, 0),
      "forward-queue", G_TYPE_UINT64, (guint64) MAX (st.forward_queue, 0),
      "rate", G_TYPE_UINT64, st.rate,
      "leader", G_TYPE_UINT, st.leader,
      "in-flight", G_TYPE_UINT, st.in_flight,
      "queued", G_TYPE_UINT, vlmcc_sender_queued (self->core),
      "sent", G_TYPE_UINT64, st.sent,
      "acked", G_TYPE_UINT64, st.acked,
      "lost", G_TYPE_UINT64, st.lost,
      "halvings", G_TYPE_UINT64, st.halvings,
      "spurious-losses", G_TYPE_UINT64, st.spurious_losses,
      "halvings-undone", G_TYPE_UINT64, st.halvings_undone,
      "loss-based", G_TYPE_BOOLEAN, st.loss_based,
      "plus-switches", G_TYPE_UINT64, st.plus_switches,
      "queue-dropped", G_TYPE_UINT64, st.queue_dropped,
      "unstamped", G_TYPE_UINT64, st.unstamped,
      "leader-changes", G_TYPE_UINT64, st.leader_changes,
      "leader-losses", G_TYPE_UINT64, st.leader_losses,
      "leaders-regained", G_TYPE_UINT64, st.leaders_regained,
      "probes", G_TYPE_UINT64, st.probes,
      "challenges", G_TYPE_UINT64, st.challenges,
      "challenges-accepted", G_TYPE_UINT64, st.accepted,
      "challenges-refused", G_TYPE_UINT64, st.refused_holdoff +
      st.refused_floor,
      "refused-holdoff", G_TYPE_UINT64, st.refused_holdoff,
      "refused-floor", G_TYPE_UINT64, st.refused_floor,
      "volunteers", G_TYPE_UINT64, st.volunteers,
      "volunteers-elected", G_TYPE_UINT64, st.volunteers_elected,
      "malformed", G_TYPE_UINT64, st.malformed,
      "forged", G_TYPE_UINT64, st.forged,
      "stale", G_TYPE_UINT64, st.stale,
      "elections", G_TYPE_UINT64, st.elections,
      "control-dropped", G_TYPE_UINT64, st.control_dropped,
      "starts-refused", G_TYPE_UINT64, st.starts_refused, NULL);
  gst_net_key_stats (s, st.authenticated, &st.auth);
}

static GstStructure *
get_stats (GstElement * element)
{
  GstVlmccSink *self = GST_VLMCC_SINK (element);
  GstStructure *s = gst_structure_new_empty ("application/x-vlmcc-sink-stats");
  const AuthStats no_auth = { 0 };
  guint64 events, coalesced;

  g_mutex_lock (&self->wait.lock);
  gst_structure_set (s, "role", G_TYPE_STRING,
      vlmcc_role_name (VLMCC_ROLE_SENDER), NULL);
  if (self->core)
    sender_stats (self, s);
  else
    gst_net_key_stats (s, self->run_key.set, &no_auth);
  gst_structure_set (s,
      "not-rtp", G_TYPE_UINT64, self->not_rtp,
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "feedback-early", G_TYPE_UINT64, self->feedback_early, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  gst_net_srtp_stats (s, self->srtp);
  g_mutex_unlock (&self->wait.lock);
  gst_rate_path_get_counters (self->rates, &events, &coalesced);
  gst_structure_set (s,
      "bitrate", G_TYPE_UINT, gst_rate_path_get_bitrate (self->rates),
      "rate-events", G_TYPE_UINT64, events, NULL);
  return s;
}

static void
gst_vlmcc_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstVlmccSink *self = GST_VLMCC_SINK (object);

  if (gst_net_props_get (GST_ELEMENT (self), &self->net_sink,
          get_stats, self->rates, PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (!gst_net_key_get (&self->key, PROP_KEY, prop_id, value) &&
      !gst_net_srtp_get (&self->srtp_settings, PROP_SRTP, prop_id, value) &&
      !gst_net_udp_props_get (&self->net, PROP_UDP_FIRST, prop_id,
          value) && !gst_param_table_get (&gst_vlmcc_params, &self->cfg,
          PROP_CONFIG_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vlmcc_sink_finalize (GObject * object)
{
  GstVlmccSink *self = GST_VLMCC_SINK (object);

  gst_rate_path_free (self->rates);
  gst_net_udp_settings_clear (&self->net);
  gst_net_key_settings_clear (&self->key);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  gst_net_src_settings_clear (&self->net_sink);
  g_array_unref (self->events);
  g_free (self->out);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

#define STATS_DOC \
  "role: the sink's part in the session, always sender (text); " \
  "ssrc: the stream's SSRC (id); " \
  "window: the Vegas window W (packets); " \
  "loss-based: vegas-plus found a queue held by another flow and the " \
  "window grows by one a round trip and halves on loss (boolean); " \
  "plus-switches: times vegas-plus turned the window loss-based " \
  "(switches); " \
  "rtt: the RTT estimate toward the leader (ns); " \
  "rtt-dev: its mean deviation (ns); " \
  "base-rtt: the least RTT seen (ns); " \
  "vegas-rtt: the delay the last Vegas step compared with base-rtt, as " \
  "vegas-delay chooses (ns); " \
  "ack-hold: the hosts' time per ack, smoothed: from a packet's send to " \
  "the read of its ack, less its RTT sample (ns); " \
  "forward-queue: the leader's forward queueing delay, smoothed, from its " \
  "arrival stamps (ns); " \
  "rate: W / rtt, the session's rate (bit/s); " \
  "leader: the leader's id (id, 0: none); " \
  "in-flight: packets sent and not yet acked or lost (packets); " \
  "queued: packets waiting for pacing (packets); " \
  "sent: data packets sent (packets); " \
  "acked: packets the leader acked (packets); " \
  "lost: packets taken as lost (packets); " \
  "halvings: window halvings on loss (halvings); " \
  "spurious-losses: packets taken as lost whose ack came after all " \
  "(packets); " \
  "halvings-undone: halvings undone as every loss they answered was " \
  "spurious (halvings); " \
  "queue-dropped: packets dropped at a full queue (packets); " \
  "unstamped: packets that carried our extension id already, dropped " \
  "(packets); " \
  "leader-changes: leaders elected (changes); " \
  "leader-losses: leaders taken as gone, section 2.4 (losses); " \
  "leaders-regained: leaders taken as gone whose late ack came within " \
  "two timeouts, leading again (losses); " \
  "probes: join probes received (packets); " \
  "challenges: challenges received (packets); " \
  "challenges-accepted: challenges that elected their sender " \
  "(challenges); " \
  "challenges-refused: refused-holdoff + refused-floor (challenges); " \
  "refused-holdoff: refused within election-holdoff RTTs of an election " \
  "(challenges); " \
  "refused-floor: refused for a rate under rate-floor (challenges); " \
  "volunteers: challenges flagged as volunteers (volunteer-after), " \
  "counted in challenges too (challenges); " \
  "volunteers-elected: volunteers that became leader (challenges); " \
  "malformed: feedback that is no VLMCC packet, dropped (packets); " \
  "forged: acks from another id or address than the leader's, or with an " \
  "impossible timestamp, dropped (packets); " \
  "stale: acks of packets no longer in travel, dropped (packets); " \
  "elections: leaders elected, by a probe or a challenge; at most one " \
  "per hold-off (elections); " \
  "control-dropped: STARTs beyond the 64 queued, dropped (packets); " \
  "starts-refused: probes left unanswered, over start-rate or their " \
  "address answered within start-gap (packets); " \
  "not-rtp: buffers that were not RTP, dropped (buffers); " \
  "send-errors: datagrams the socket refused (packets); " \
  "feedback-early: datagrams before the first buffer, dropped (packets); " \
  "bitrate: the rate asked of the encoder (bit/s); " \
  "rate-events: GstLayerRates events sent upstream (events); " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " GST_NET_SRTP_STATS_DOC

/**
 * GstVlmccSink:stats:
 *
 * The sender's state and counters; every field with its unit in the blurb.
 */
static const GstNetSinkProps sink_props = {
  .stats_interval_blurb = "Post the stats as a vlmcc-sink-stats element "
      "message this often, ns (0: only at EOS)",
  .stats_interval_default = GST_VLMCC_DEFAULT_STATS_INTERVAL,
  .stats_blurb = "Sender state and counters (read-only GstStructure). "
      "Fields: " STATS_DOC,
  .uri_blurb = GST_VLMCC_URI_BLURB,
  .bitrate_blurb = "The session's rate asked of the encoder, bit/s "
      "(notifies; bind an encoder's own bitrate property to it)",
};

static void
install_properties (GObjectClass * oc)
{
  gst_net_udp_props_install (&udp_props, oc, PROP_UDP_FIRST);
  gst_param_table_install (&gst_vlmcc_params, oc, PROP_CONFIG_FIRST,
      GST_VLMCC_PARAM_SINK);
  gst_net_src_props_install (&sink_props, oc, PROP_NET_SINK);
  gst_net_key_install (oc, PROP_KEY, "the acks and challenges taken from "
      "receivers and the STARTs sent to them (not the media: use SRTP); "
      "every vlmccsrc of the session needs the same key");
  gst_net_srtp_install (oc, PROP_SRTP, "every data packet, after its VLMCC "
      "header extension is written (not the STARTs: the group key covers "
      "them); every vlmccsrc of the session takes the same key");
}

static void
gst_vlmcc_sink_class_init (GstVlmccSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_vlmcc_sink_set_property;
  gobject_class->get_property = gst_vlmcc_sink_get_property;
  gobject_class->finalize = gst_vlmcc_sink_finalize;
  bsink_class->render = gst_vlmcc_sink_render;
  bsink_class->render_list = gst_vlmcc_sink_render_list;
  bsink_class->query = gst_vlmcc_sink_query;
  bsink_class->start = gst_vlmcc_sink_start;
  bsink_class->stop = gst_vlmcc_sink_stop;
  bsink_class->unlock = gst_vlmcc_sink_unlock;
  bsink_class->unlock_stop = gst_vlmcc_sink_unlock_stop;
  bsink_class->event = gst_vlmcc_sink_event;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SINK,
      "vlmcc", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "VLMCC multicast sender", "Sink/Network/RTP",
      "Multicasts an RTP stream with VLMCC single-rate congestion control: "
      "a TCP-Vegas window toward the leader receiver, paced, with the rate "
      "passed to the encoder. URI: vlmcc://GROUP:PORT?key=value&... (any "
      "property as a query parameter). Example: gst-launch-1.0 videotestsrc "
      "is-live=true ! x264layerenc layers=1 ! rtph264pay mtu=1000 "
      "config-interval=-1 ! vlmccsink uri=vlmcc://239.3.3.3:5200",
      "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_vlmcc_sink_debug, "vlmccsink", 0,
      "VLMCC multicast sender");
}

static void
gst_vlmcc_sink_init (GstVlmccSink * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  gst_net_srtp_settings_init (&self->srtp_settings);
  vlmcc_config_init (&self->cfg);
  gst_net_src_settings_init (&sink_props, &self->net_sink);
  gst_net_src_wait_init (&self->wait);
  self->events = g_array_new (FALSE, FALSE, sizeof (VlmccEvent));
  self->out = g_malloc (OUT_SIZE);
  self->rates = gst_rate_path_new (GST_ELEMENT (self),
      GST_BASE_SINK_PAD (self), RATE_INTERVAL, "bitrate", NULL);
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "vlmcc-sink-stats",
      get_stats);
  propose_initial_rate (self);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}
