/**
 * SECTION:element-vlmccsrc
 * @title: vlmccsrc
 * @see_also: vlmccsink
 *
 * A receiver of a VLMCC session (Rodriguez-Perez et al., "A Receiver Based
 * Single-Layer Multicast Congestion Control Protocol for Multimedia
 * Streaming"; docs/protocols/vlmcc.md). It joins the group
 * #GstVlmccSrc:address : #GstVlmccSrc:port (source-specifically with
 * #GstVlmccSrc:source-address) and outputs the RTP stream as it arrives,
 * the VLMCC header extension left in place (depayloaders ignore it).
 *
 * It runs the receiver core, which plays leader or follower on its own: at
 * the first VLMCC data packet it probes the sender (whoever sends the
 * group's VLMCC data), takes the START answer as its first RTT, acks every packet while
 * it is the leader, and as a follower keeps its RTT from the packets'
 * drift and challenges the leader when its own Vegas window is below the
 * sender's rate (the paper's equation 6). Feedback goes by unicast from a
 * socket of its own on an ephemeral port.
 *
 * With a group key (#GstVlmccSrc:key or #GstVlmccSrc:key-file, the same as
 * the vlmccsink's; docs/security.md), every START must carry a sound,
 * fresh trailer under it and every ack and challenge carries one; control
 * that fails is dropped before the core parses it and counted in the
 * stats' auth-* fields. The data packets' extension is media: protect it
 * with SRTP (docs/protocols/vlmcc.md, "Group key").
 *
 * With #GstVlmccSrc:srtp-key (the vlmccsink's SRTP key) every datagram on
 * the group's port is authenticated and decrypted before the core reads
 * its VLMCC extension; what fails is dropped, never output, and counted in
 * the srtp-* stats. The STARTs arrive on the feedback socket and stay
 * under the group key.
 *
 * With a #GstVlmccSrc:rate-floor, a receiver whose own rate stays under it
 * for #GstVlmccSrc:leave-time leaves: it leaves the group, posts a
 * `vlmcc-left` element message (rate-floor, rate) and ends its stream
 * (EOS). Every leader change is posted as `vlmcc-leader` (leader,
 * leader-changes) and every role change as `vlmcc-role` (role).
 * #GstVlmccSrc:stats has the receiver's state and counters, also posted as
 * `vlmcc-src-stats` every #GstVlmccSrc:stats-interval and at EOS.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m vlmccsrc uri="vlmcc://239.3.3.3:5200?multicast-iface=lo" \
 *   caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *   rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstvlmccsrc.h"
#include "gstvlmccutil.h"
#include "gstnetloop.h"
#include "gstnetsrtp.h"
#include "gstnetsocket.h"
#include "gstnetsrc.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetudpprops.h"
#include "gstneturi.h"
#include "core/random.h"
#include "core/rtp.h"

GST_DEBUG_CATEGORY_STATIC (gst_vlmcc_src_debug);
#define GST_CAT_DEFAULT gst_vlmcc_src_debug

/* Packets waiting for create(); the oldest go beyond it. */
#define MAX_HELD 1024
/* Largest datagram taken from the group's socket when SRTP is on. */
#define MAX_DATAGRAM 65536

enum
{
  PROP_0,
  PROP_NET_SRC,                 /* gstnetsrc.h's from here */
  PROP_KEY = PROP_NET_SRC + GST_NET_SRC_N_PROPS,        /* gstnetkey.h's */
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
  .multicast_iface_blurb = "Network interface the group is joined on (NULL: "
      "the system's)",
  .socket_blurb = "A UDP socket of the application's bound to the group's "
      "port, used as given (not bound, never closed; the group is joined on "
      "it)",
  .buffer_size_blurb = "Receive buffer size of the group's socket, bytes "
      "(0: the system's)",
};

struct _GstVlmccSrc
{
  GstPushSrc parent;

  /* Settings, under the object lock */
  GstNetUdpSettings net;
  GstNetSrcSettings net_src;
  VlmccConfig cfg;
  GstNetKeySettings key;
  GstNetSrtpSettings srtp_settings;

  GstNetStats stats;

  /* State, under wait.lock: the loop thread feeds the core and queues the
   * packets, create() takes them (cond: a packet, the end, or a flush). */
  GstNetSrcWait wait;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  GstNetUdp *data;              /* bound to the group's port */
  GstNetUdp *ctrl;              /* ephemeral: feedback out, START in */
  GInetAddress *group, *source;
  gboolean joined, left;
  gboolean ended;               /* left, and the vlmcc-left message posted */
  GSocketAddress *sender;       /* where the group's VLMCC data comes from */
  RandomSeeded seed;
  RandomSource rng;
  VlmccConfig run_cfg;
  VlmccReceiver *core;          /* from the first VLMCC data packet */
  GstVlmccRunKey run_key;
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  guint8 *plain;                /* MAX_DATAGRAM: the unprotected packet */
  GQueue held;                  /* GstBuffer */
  GArray *events;               /* VlmccEvent to post */
  guint64 pushed, overflow, not_sender, send_errors, join_errors;
  guint64 early_malformed;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_vlmcc_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstVlmccSrc, gst_vlmcc_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (vlmccsrc, "vlmccsrc", GST_RANK_NONE,
    GST_TYPE_VLMCC_SRC);

static GstStructure *get_stats (GstElement * element);

/* ------------------------------------------------------------------ */
/* The core's decisions (lock held) */

static void
membership (GstVlmccSrc * self, gboolean join)
{
  GError *err = NULL;
  gboolean ok;

  if (self->joined == join)
    return;
  ok = join ? gst_net_udp_join (self->data, self->group, self->source, &err)
      : gst_net_udp_leave (self->data, self->group, self->source, &err);
  if (!ok) {
    GST_WARNING_OBJECT (self, "%s: %s", join ? "join" : "leave",
        err->message);
    g_error_free (err);
    self->join_errors++;
    return;
  }
  self->joined = join;
}

static void
take_events (GstVlmccSrc * self)
{
  VlmccEvent ev;

  while (vlmcc_receiver_pop_event (self->core, &ev)) {
    if (ev.type == VLMCC_EVENT_LEFT) {
      /* the network stops sending at once */
      membership (self, FALSE);
      self->left = TRUE;
    }
    if (ev.type != VLMCC_EVENT_RATE)
      g_array_append_val (self->events, ev);
  }
}

/* The receiver's own rate, W / rtt, in bit/s. */
static guint64
own_rate (const VlmccReceiverStats * st, guint packet_size)
{
  if (st->rtt <= 0)
    return 0;
  return (guint64) (st->window * packet_size * 8.0 * GST_SECOND / st->rtt);
}

static GstMessage *
event_message (GstVlmccSrc * self, const VlmccEvent * ev,
    const VlmccReceiverStats * st, const VlmccConfig * cfg)
{
  GstStructure *s = NULL;

  switch (ev->type) {
    case VLMCC_EVENT_LEADER:
      return gst_vlmcc_leader_message (GST_ELEMENT (self), ev->leader,
          st->leader_changes);
    case VLMCC_EVENT_ROLE:
      s = gst_structure_new ("vlmcc-role", "role", G_TYPE_STRING,
          vlmcc_role_name (ev->role), NULL);
      break;
    case VLMCC_EVENT_LEFT:
      GST_WARNING_OBJECT (self, "below the rate floor for too long: left");
      s = gst_structure_new ("vlmcc-left", "rate-floor", G_TYPE_UINT64,
          cfg->rate_floor, "rate", G_TYPE_UINT64,
          own_rate (st, cfg->packet_size), NULL);
      break;
    default:
      return NULL;
  }
  return gst_message_new_element (GST_OBJECT (self), s);
}

/* create() ends the stream (EOS) once the vlmcc-left message is out: an
 * application that stops at EOS still sees why. */
static void
end_stream (GstVlmccSrc * self)
{
  g_mutex_lock (&self->wait.lock);
  self->ended = TRUE;
  g_cond_broadcast (&self->wait.cond);
  g_mutex_unlock (&self->wait.lock);
}

/* Posts the events taken so far; call holding no lock. */
static void
post_events (GstVlmccSrc * self)
{
  GArray *evs;
  VlmccReceiverStats st = { 0 };
  VlmccConfig cfg;

  g_mutex_lock (&self->wait.lock);
  evs = self->events;
  self->events = g_array_new (FALSE, FALSE, sizeof (VlmccEvent));
  if (self->core)
    vlmcc_receiver_get_stats (self->core, &st);
  g_mutex_unlock (&self->wait.lock);
  GST_OBJECT_LOCK (self);
  cfg = self->cfg;
  GST_OBJECT_UNLOCK (self);
  for (guint i = 0; i < evs->len; i++) {
    VlmccEvent *ev = &g_array_index (evs, VlmccEvent, i);
    GstMessage *m = event_message (self, ev, &st, &cfg);

    if (m)
      gst_element_post_message (GST_ELEMENT (self), m);
    if (ev->type == VLMCC_EVENT_LEFT)
      end_stream (self);
  }
  g_array_unref (evs);
}

/* ------------------------------------------------------------------ */
/* The loop thread */

/* Acks and challenges go to the sender once it is known. */
static void
send_feedback (GstVlmccSrc * self)
{
  guint8 buf[VLMCC_MAX_CONTROL_SIZE];
  GError *err = NULL;
  gsize n;

  if (!self->sender)
    return;
  while ((n = vlmcc_receiver_pop_transmit (self->core, buf, sizeof (buf))))
    if (!gst_net_transport_send_to (GST_NET_TRANSPORT (self->ctrl), buf, n,
            self->sender, &err)) {
      GST_DEBUG_OBJECT (self, "feedback: %s", err->message);
      g_clear_error (&err);
      self->send_errors++;
    }
}

static void
hold (GstVlmccSrc * self, const guint8 * data, gsize size)
{
  if (g_queue_get_length (&self->held) >= MAX_HELD) {
    gst_buffer_unref (g_queue_pop_head (&self->held));
    self->overflow++;
  }
  g_queue_push_tail (&self->held, gst_buffer_new_memdup (data, size));
  g_cond_broadcast (&self->wait.cond);
}

/* The sender is whoever sends VLMCC data; a new one (a restarted sink)
 * replaces it. */
static void
learn_sender (GstVlmccSrc * self, GSocketAddress * from)
{
  if (self->sender && gst_net_address_same_host (from, self->sender) &&
      gst_net_address_get_port (from) ==
      gst_net_address_get_port (self->sender))
    return;
  g_clear_object (&self->sender);
  self->sender = g_object_ref (from);
  GST_INFO_OBJECT (self, "sender at %" GST_PTR_FORMAT, from);
}

/* The core starts at the first VLMCC data packet: its probe then goes to
 * the sender at once, and the START's echo of it times only the path. */
static void
maybe_start_core (GstVlmccSrc * self, const guint8 * data, gsize size,
    GSocketAddress * from)
{
  VlmccDataExt ext;

  if (self->core || !vlmcc_data_ext_parse (data, size, self->run_cfg.ext_id,
          &ext))
    return;
  learn_sender (self, from);
  self->core = vlmcc_receiver_new (&self->run_cfg, &self->rng,
      gst_net_now ());
  if (self->run_key.set)
    vlmcc_receiver_set_key (self->core, &self->run_key.key);
}

static void
on_data (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstVlmccSrc *self = user_data;
  VlmccInput in;
  gboolean rearm = FALSE;

  g_mutex_lock (&self->wait.lock);
  /* every datagram here is data (the STARTs come to ctrl): it opens under
   * SRTP before the core reads its extension, or stops here */
  if (self->srtp && !(data = gst_net_srtp_unprotect_copy (self->srtp, NULL,
              data, &size, self->plain, MAX_DATAGRAM))) {
    g_mutex_unlock (&self->wait.lock);
    return;
  }
  maybe_start_core (self, data, size, from);
  if (self->left) {
    /* packets still in flight after the leave */
  } else if (!self->core) {
    /* plain RTP plays too; what is no RTP never reaches the depayloader */
    if (rtp_header_parse (data, size, NULL))
      hold (self, data, size);
    else
      self->early_malformed++;
  } else {
    in = vlmcc_receiver_on_data_at (self->core, data, size, gst_net_now (),
        gst_net_transport_arrival (t));
    if (in == VLMCC_INPUT_TAKEN)
      learn_sender (self, from);
    if (in != VLMCC_INPUT_MALFORMED)
      hold (self, data, size);
    take_events (self);
    send_feedback (self);
    /* a delayed challenge (challenge-delay) is due at the core's deadline */
    rearm = vlmcc_receiver_next_deadline (self->core) >= 0;
  }
  g_mutex_unlock (&self->wait.lock);
  if (rearm)
    gst_net_loop_wake (self->loop);
  post_events (self);
}

/* STARTs, from the sender's address only. */
static void
on_control (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstVlmccSrc *self = user_data;

  g_mutex_lock (&self->wait.lock);
  if (!self->core || self->left) {
  } else if (!self->sender ||
      !gst_net_address_same_host (from, self->sender)) {
    self->not_sender++;
  } else {
    vlmcc_receiver_on_control_at (self->core, data, size, gst_net_now (),
        gst_net_transport_arrival (t));
    take_events (self);
    send_feedback (self);
  }
  g_mutex_unlock (&self->wait.lock);
  post_events (self);
}

static gint64
src_work (gpointer data, gint64 now)
{
  GstVlmccSrc *self = data;
  gint64 deadline = G_MAXINT64;

  g_mutex_lock (&self->wait.lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  if (self->core && !self->left) {
    /* the time a probe is stamped with: after the wait for the lock */
    vlmcc_receiver_advance (self->core, gst_net_now ());
    take_events (self);
    send_feedback (self);
    deadline = vlmcc_receiver_next_deadline (self->core);
    if (deadline < 0)
      deadline = G_MAXINT64;
  }
  g_mutex_unlock (&self->wait.lock);
  post_events (self);
  return MIN (deadline, gst_net_stats_poll (&self->stats, now));
}

/* ------------------------------------------------------------------ */
/* GstPushSrc */

static GstFlowReturn
gst_vlmcc_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (psrc);
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&self->wait.lock);
  while (!self->wait.flushing && g_queue_is_empty (&self->held) &&
      !self->ended)
    g_cond_wait (&self->wait.cond, &self->wait.lock);
  if (self->wait.flushing)
    ret = GST_FLOW_FLUSHING;
  else if (g_queue_is_empty (&self->held))
    ret = GST_FLOW_EOS;         /* left the session */
  else {
    *outbuf = g_queue_pop_head (&self->held);
    self->pushed++;
  }
  g_mutex_unlock (&self->wait.lock);
  return ret;
}

/* The group's socket (bound to its port, the group joined) and the
 * feedback socket (ephemeral port). */
static gboolean
open_sockets (GstVlmccSrc * self, const GstNetUdpSettings * net,
    const gchar * source, GError ** err)
{
  GstNetUdpSettings us = *net, cs = GST_NET_UDP_SETTINGS_INIT;
  GSocketFamily family;

  self->group = g_inet_address_new_from_string (net->address);
  if (!self->group || !g_inet_address_get_is_multicast (self->group)) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "address: \"%s\" is not a multicast group", net->address ?
        net->address : "");
    return FALSE;
  }
  if (source && *source &&
      !(self->source = g_inet_address_new_from_string (source))) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "source-address: \"%s\" is not an IP address", source);
    return FALSE;
  }
  family = g_inet_address_get_family (self->group);
  us.join_later = TRUE;
  self->data = gst_net_udp_new (&us, family, err);
  if (self->data)
    self->ctrl = gst_net_udp_new (&cs, family, err);
  if (!self->ctrl)
    return FALSE;
  membership (self, TRUE);
  if (!self->joined) {
    g_set_error (err, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not join %s "
        "on port %d", net->address, net->port);
    return FALSE;
  }
  return TRUE;
}

static void
close_sockets (GstVlmccSrc * self)
{
  if (self->data)
    membership (self, FALSE);
  g_clear_object (&self->data);
  g_clear_object (&self->ctrl);
  g_clear_object (&self->group);
  g_clear_object (&self->source);
  g_clear_object (&self->sender);
  self->joined = FALSE;
}

static gboolean
gst_vlmcc_src_start (GstBaseSrc * bsrc)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (bsrc);
  GstNetUdpSettings net;
  GstNetSrtpSettings srtp;
  VlmccConfig cfg;
  guint64 stats_interval;
  gchar *source;
  GError *err = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&net, &self->net);
  gst_net_srtp_settings_copy (&srtp, &self->srtp_settings);
  source = g_strdup (self->net_src.source_address);
  cfg = self->cfg;
  stats_interval = self->net_src.stats_interval;
  if (self->net_src.uri_error)
    err = g_error_copy (self->net_src.uri_error);
  GST_OBJECT_UNLOCK (self);

  ok = !err && gst_vlmcc_run_key_load (GST_ELEMENT (self), &self->key,
      &self->run_key, &err);
  ok = ok && gst_net_srtp_load (&srtp, GST_NET_SRTP_RECEIVE, &self->srtp,
      &err);
  gst_net_srtp_settings_clear (&srtp);
  g_mutex_lock (&self->wait.lock);
  ok = ok && open_sockets (self, &net, source, &err);
  if (!ok) {
    close_sockets (self);
    gst_vlmcc_run_key_clear (&self->run_key);
    g_clear_pointer (&self->srtp, gst_net_srtp_free);
  }
  g_mutex_unlock (&self->wait.lock);
  gst_net_udp_settings_clear (&net);
  g_free (source);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }

  g_mutex_lock (&self->wait.lock);
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  self->pushed = self->overflow = self->not_sender = 0;
  self->send_errors = self->join_errors = 0;
  self->early_malformed = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
  self->left = self->ended = FALSE;
  self->run_cfg = cfg;
  g_mutex_unlock (&self->wait.lock);

  gst_net_stats_start (&self->stats, stats_interval, gst_net_now ());
  self->loop = gst_net_loop_new ("vlmccsrc", src_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->wait.lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->data), on_data,
      self);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->ctrl),
      on_control, self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static gboolean
gst_vlmcc_src_stop (GstBaseSrc * bsrc)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (bsrc);

  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->wait.lock);
  if (self->data)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->data));
  if (self->ctrl)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->ctrl));
  close_sockets (self);
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_pointer (&self->core, vlmcc_receiver_free);
  gst_vlmcc_run_key_clear (&self->run_key);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  g_queue_clear_full (&self->held, (GDestroyNotify) gst_buffer_unref);
  g_array_set_size (self->events, 0);
  g_mutex_unlock (&self->wait.lock);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_vlmcc_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (object);

  if (gst_net_src_props_set (GST_BASE_SRC (self), &self->net_src,
          PROP_NET_SRC, prop_id, value))
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
receiver_stats (GstVlmccSrc * self, GstStructure * s)
{
  VlmccReceiverStats st;

  vlmcc_receiver_get_stats (self->core, &st);
  gst_structure_set (s,
      "id", G_TYPE_UINT, st.id,
      "role", G_TYPE_STRING, vlmcc_role_name (st.role),
      "window", G_TYPE_DOUBLE, st.window,
      "rtt", G_TYPE_UINT64, (guint64) MAX (st.rtt, 0),
      "rtt-dev", G_TYPE_UINT64, (guint64) MAX (st.rtt_dev, 0),
      "base-rtt", G_TYPE_UINT64, (guint64) MAX (st.base_rtt, 0),
      "rate", G_TYPE_UINT64, st.sender_rate,
      "leader", G_TYPE_UINT, st.leader,
      "leader-changes", G_TYPE_UINT64, st.leader_changes,
      "received", G_TYPE_UINT64, st.received,
      "lost", G_TYPE_UINT64, st.lost,
      "loss-based", G_TYPE_BOOLEAN, st.loss_based,
      "plus-switches", G_TYPE_UINT64, st.plus_switches,
      "acks-sent", G_TYPE_UINT64, st.acks_sent,
      "probes-sent", G_TYPE_UINT64, st.probes_sent,
      "starts", G_TYPE_UINT64, st.starts,
      "start-hold", G_TYPE_UINT64, (guint64) MAX (st.start_hold, 0),
      "start-holds-invalid", G_TYPE_UINT64, st.start_holds_invalid,
      "challenges-sent", G_TYPE_UINT64, st.challenges_sent,
      "challenges-accepted", G_TYPE_UINT64, st.challenges_accepted,
      "challenges-refused", G_TYPE_UINT64, st.challenges_refused,
      "challenges-suppressed", G_TYPE_UINT64, st.challenges_suppressed,
      "volunteers-sent", G_TYPE_UINT64, st.volunteers_sent,
      "volunteers-suppressed", G_TYPE_UINT64, st.volunteers_suppressed,
      "malformed", G_TYPE_UINT64, st.malformed + self->early_malformed,
      "forged", G_TYPE_UINT64, st.forged,
      "plain", G_TYPE_UINT64, st.plain,
      "control-dropped", G_TYPE_UINT64, st.control_dropped, NULL);
  gst_net_key_stats (s, st.authenticated, &st.auth);
}

static GstStructure *
get_stats (GstElement * element)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (element);
  GstStructure *s = gst_structure_new_empty ("application/x-vlmcc-src-stats");
  const AuthStats no_auth = { 0 };

  g_mutex_lock (&self->wait.lock);
  if (self->core)
    receiver_stats (self, s);
  else {
    gst_structure_set (s, "role", G_TYPE_STRING,
        vlmcc_role_name (VLMCC_ROLE_NONE), "malformed", G_TYPE_UINT64,
        self->early_malformed, NULL);
    gst_net_key_stats (s, self->run_key.set, &no_auth);
  }
  gst_structure_set (s,
      "pushed", G_TYPE_UINT64, self->pushed,
      "overflow", G_TYPE_UINT64, self->overflow,
      "not-sender", G_TYPE_UINT64, self->not_sender,
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "join-errors", G_TYPE_UINT64, self->join_errors, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  gst_net_srtp_stats (s, self->srtp);
  g_mutex_unlock (&self->wait.lock);
  return s;
}

static void
gst_vlmcc_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (object);

  if (gst_net_src_props_get (GST_BASE_SRC (self), &self->net_src,
          &self->stats, PROP_NET_SRC, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (!gst_net_key_get (&self->key, PROP_KEY, prop_id, value) &&
      !gst_net_srtp_get (&self->srtp_settings, PROP_SRTP, prop_id, value) &&
      !gst_net_udp_props_get (&self->net, PROP_UDP_FIRST, prop_id, value) &&
      !gst_param_table_get (&gst_vlmcc_params, &self->cfg,
          PROP_CONFIG_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vlmcc_src_finalize (GObject * object)
{
  GstVlmccSrc *self = GST_VLMCC_SRC (object);

  gst_net_udp_settings_clear (&self->net);
  gst_net_key_settings_clear (&self->key);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  g_free (self->plain);
  gst_net_src_settings_clear (&self->net_src);
  g_array_unref (self->events);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define STATS_DOC \
  "id: this receiver's id in its feedback (id); " \
  "role: none (joining), follower, leader or left; " \
  "window: its own Vegas window (packets); " \
  "loss-based: vegas-plus found a queue held by another flow and the " \
  "window grows by one a round trip and halves on loss (boolean); " \
  "plus-switches: times vegas-plus turned the window loss-based " \
  "(switches); " \
  "rtt: its RTT estimate, kept from the drift (ns); " \
  "rtt-dev: its mean deviation (ns); " \
  "base-rtt: the least RTT seen (ns); " \
  "rate: the sender's announced rate (bit/s); " \
  "leader: the leader's id (id, 0: none); " \
  "leader-changes: leader changes seen (changes); " \
  "received: VLMCC data packets received (packets); " \
  "lost: gaps in the VLMCC sequence (packets); " \
  "acks-sent: acks sent as leader (packets); " \
  "probes-sent: join probes sent (packets); " \
  "starts: START answers taken (packets); " \
  "start-hold: the time the sender held the probe the last START taken " \
  "answered, as that START reported it, taken out of its RTT (ns); " \
  "start-holds-invalid: STARTs whose reported hold was not under their " \
  "RTT, taken with the hold ignored (packets); " \
  "challenges-sent: challenges sent as follower (packets); " \
  "challenges-accepted: challenges after which the data named this " \
  "receiver leader within two RTTs (challenges); " \
  "challenges-refused: challenges after which it still named another " \
  "(challenges); " \
  "challenges-suppressed: challenges kept back under the sender's " \
  "challenge echo (challenges); " \
  "volunteers-sent: offers to lead with no leader named (volunteer-after) " \
  "(packets); " \
  "volunteers-suppressed: offers dropped when a leader was named or the " \
  "path filled during the wait (packets); " \
  "malformed: datagrams that were no RTP, or control that was no START, " \
  "dropped (packets); " \
  "forged: STARTs for another id or answering no probe of ours, dropped " \
  "(packets); " \
  "plain: RTP without the VLMCC extension, output as is (packets); " \
  "control-dropped: acks and challenges beyond the 64 queued, dropped " \
  "(packets); " \
  "pushed: packets output (packets); " \
  "overflow: packets dropped while create() lagged (packets); " \
  "not-sender: control datagrams from another host than the sender's, " \
  "dropped (packets); " \
  "send-errors: feedback the socket refused (packets); " \
  "join-errors: group joins or leaves the system refused (calls); " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " GST_NET_SRTP_STATS_DOC

static const GstNetSrcProps src_props = {
  .source_address_blurb = "Join the group source-specifically (SSM, RFC "
      "4607) for this sender's address (NULL: any source)",
  .caps_blurb = "The caps of the RTP stream (as udpsrc's)",
  .stats_interval_blurb = "Post the stats as a vlmcc-src-stats element "
      "message this often, ns (0: only at EOS)",
  .stats_interval_default = GST_VLMCC_DEFAULT_STATS_INTERVAL,
  .stats_blurb = "Receiver state and counters (read-only GstStructure). "
      "Fields: " STATS_DOC,
  .uri_blurb = GST_VLMCC_URI_BLURB,
};

static void
install_properties (GObjectClass * oc)
{
  gst_net_udp_props_install (&udp_props, oc, PROP_UDP_FIRST);
  gst_param_table_install (&gst_vlmcc_params, oc, PROP_CONFIG_FIRST,
      GST_VLMCC_PARAM_SRC);
  /**
   * GstVlmccSrc:stats:
   *
   * The receiver's state and counters; every field with its unit in the
   * blurb.
   */
  gst_net_src_props_install (&src_props, oc, PROP_NET_SRC);
  gst_net_key_install (oc, PROP_KEY, "the STARTs taken from the sender and "
      "the acks and challenges sent to it (not the media: use SRTP); the "
      "vlmccsink and every vlmccsrc of the session need the same key");
  gst_net_srtp_install (oc, PROP_SRTP, "the media: each data packet is "
      "authenticated and decrypted before the receiver reads its VLMCC "
      "extension, and dropped and counted when it fails (the vlmccsink's "
      "key; not the STARTs: the group key covers them)");
}

static void
gst_vlmcc_src_class_init (GstVlmccSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_vlmcc_src_set_property;
  gobject_class->get_property = gst_vlmcc_src_get_property;
  gobject_class->finalize = gst_vlmcc_src_finalize;
  bsrc_class->start = gst_vlmcc_src_start;
  bsrc_class->stop = gst_vlmcc_src_stop;
  gst_net_src_class_init (bsrc_class, G_STRUCT_OFFSET (GstVlmccSrc, wait),
      G_STRUCT_OFFSET (GstVlmccSrc, net_src.caps), &src_template);
  psrc_class->create = gst_vlmcc_src_create;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SRC,
      "vlmcc", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "VLMCC multicast receiver", "Source/Network/RTP",
      "Receives an RTP stream of vlmccsink from its multicast group and "
      "takes part in VLMCC congestion control as leader (acks) or follower "
      "(challenges). URI: vlmcc://GROUP:PORT?key=value&... (any property as "
      "a query parameter). Example: gst-launch-1.0 -m vlmccsrc "
      "uri=vlmcc://239.3.3.3:5200 caps=\"application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=H264\" ! rtph264depay ! avdec_h264 ! "
      "videoconvert ! autovideosink", "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_vlmcc_src_debug, "vlmccsrc", 0,
      "VLMCC multicast receiver");
}

/* The stats once more as the stream ends (gst-launch-1.0 -e). */
static GstPadProbeReturn
on_eos (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstVlmccSrc *self = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    gst_net_stats_post (&self->stats);
  return GST_PAD_PROBE_OK;
}

static void
gst_vlmcc_src_init (GstVlmccSrc * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  gst_net_srtp_settings_init (&self->srtp_settings);
  self->plain = g_malloc (MAX_DATAGRAM);
  vlmcc_config_init (&self->cfg);
  gst_net_src_settings_init (&src_props, &self->net_src);
  gst_net_src_wait_init (&self->wait);
  g_queue_init (&self->held);
  self->events = g_array_new (FALSE, FALSE, sizeof (VlmccEvent));
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "vlmcc-src-stats",
      get_stats);
  gst_pad_add_probe (GST_BASE_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_eos, self, NULL);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}
