/**
 * SECTION:element-tpbasink
 * @title: tpbasink
 * @see_also: tpbasrc
 *
 * Sends one RTP stream to a #tpbasrc with TCP-rate-probing-based adaptation
 * (Tobe et al., "TCP-Rate-Probing-Based Adaptation for Continuous Media
 * Communications", docs/protocols/tpba.md). The stream goes over TCP (RFC
 * 4571 framing: a 16-bit length before each packet) in the rate-probing
 * period, where the rate TCP achieves is measured from TCP_INFO
 * (tcpi_bytes_acked) every #GstTpbaSink:t-tcp, and over UDP, paced at the
 * probed rate and cut on loss reported by RTCP receiver reports, in the
 * running period (#GstTpbaSink:t-running). Periods switch only between
 * ADUs (after an RTP marker or at a timestamp change). RTCP SRs go to
 * #GstTpbaSink:rtcp-port over UDP from a socket that also receives the RRs.
 *
 * The rate reaches the encoder upstream as the `GstLayerRates` custom
 * upstream event and as the notifying #GstTpbaSink:bitrate property (bits/s;
 * x264enc's `bitrate` is kbit/s). Period decisions are posted as
 * `tpba-period` element messages (period, r-s, cwnd-new), switches as
 * `tpba-transport` (transport).
 *
 * A PLI (RFC 4585) from the receiver is pushed upstream as a force-key-unit
 * event with all-headers; further PLIs within #GstTpbaSink:key-unit-holdoff
 * (or 2 RTT, whichever is larger) are ignored and counted.
 *
 * With #GstTpbaSink:key (or #GstTpbaSink:key-file) set, as on the
 * tpbasrc, every RTCP datagram carries an authentication trailer and the
 * token that opens each TCP connection is sealed: forged or replayed RTCP
 * is counted (`auth-*` in #GstTpbaSink:stats) and never acted on
 * (docs/security.md).
 *
 * With #GstTpbaSink:srtp-key every RTP packet leaves as SRTP (RFC 3711),
 * over UDP and inside the RFC 4571 frames on TCP alike, protected after its
 * sequence number is final; the tpbasrc takes the same key.
 *
 * The TCP connection is made at start and kept; when it fails it is made
 * again every 200 ms; an error is posted after #GstTpbaSink:connect-timeout
 * without one. Packets wait in a queue for their departure time (pacing) or
 * for TCP; when #GstTpbaSink:max-queue-bytes are queued whole ADUs are
 * dropped (and the sequence numbers of the rest closed up, so the receiver
 * does not count sender drops as network loss).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! rtph264pay ! \
 *   tpbasink host=127.0.0.1 port=5004
 * gst-launch-1.0 tpbasrc port=5004 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *   rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]| or with a URI: `tpba://127.0.0.1:5004?t-running=5000000000`.
 *
 * The defaults are the paper's scheme, with a cubic probing connection
 * (`tcp-congestion`) and a UDP pacer that makes up a late wake-up by up to
 * 5 ms (`pace-burst`; with none this loaded test bed sent 0.3-0.8 of the
 * rate, docs/results.md, "Eleventh pass"). `tcp-pacing=true allow-probe-loss=true end-criterion=proportional` is
 * recommended: without pacing the probing connection resumes with its whole
 * window as one burst and probes about 0.7 of its fair share; with the three
 * options TPBA measured as fair to TCP as one more TCP flow (docs/results.md,
 * "TPBA: fairness against TCP"; with reno the benchmark saw no such
 * shortfall).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gsttpbasink.h"
#include "gsttpbautil.h"
#include "gstlayerrates.h"
#include "gstnetloop.h"
#include "gstnetsocket.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetsrc.h"
#include "gstnetudpprops.h"
#include "gstnetsrtp.h"
#include "gstneturi.h"
#include "core/rfc4571.h"
#include "core/rtp.h"
#include "core/senderqueue.h"
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpba_sink_debug);
#define GST_CAT_DEFAULT gst_tpba_sink_debug

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 5004
#define DEFAULT_TCP_CONGESTION "cubic"
#define DEFAULT_MAX_QUEUE_BYTES (256 * 1024)
#define DEFAULT_CONNECT_TIMEOUT (10 * GST_SECOND)
#define DEFAULT_NOTSENT_LOWAT (32 * 1024)
#define RECONNECT_INTERVAL (200 * GST_MSECOND)
#define CONNECT_ATTEMPT_TIMEOUT GST_SECOND
/* the longest packet sent as SRTP, its tag included */
#define MAX_SEALED (RFC4571_MAX_FRAME + GST_NET_SRTP_MAX_OVERHEAD)

enum
{
  PROP_0,
  PROP_TCP_PORT,
  PROP_RTCP_PORT,
  PROP_BOTTLENECK,
  PROP_MAX_QUEUE_BYTES,
  PROP_CONNECT_TIMEOUT,
  PROP_NOTSENT_LOWAT,
  PROP_NET_SINK,                /* gstnetsrc.h's: stats-interval keeps its
                                 * place in the URI tpbasink writes */
  PROP_TCP_CONGESTION = PROP_NET_SINK + GST_NET_SRC_N_PROPS,
  PROP_TCP_PACING,
  PROP_KEY,                     /* gstnetkey.h's from here */
  PROP_SRTP = PROP_KEY + GST_NET_KEY_N_PROPS,   /* gstnetsrtp.h's */
  PROP_UDP_FIRST = PROP_SRTP + GST_NET_SRTP_N_PROPS,
  PROP_CONFIG_FIRST = PROP_UDP_FIRST + GST_NET_UDP_N_PROPS,
};

static const GstNetUdpProps udp_props = {
  .address_name = "host",
  .address_nick = "Host",
  .address_default = DEFAULT_HOST,
  .port_min = 1,
  .port_default = DEFAULT_PORT,
  .address_blurb = "The tpbasrc's host or address",
  .port_blurb = "The tpbasrc's UDP port for RTP",
  .socket_blurb = "A UDP socket of the application's to send RTP from, used "
      "as given: not bound and not closed by the element (NULL: one of the "
      "element's own)",
};

typedef struct
{
  guint8 *data;
  TpbaRtpInfo info;
} Item;

struct _GstTpbaSink
{
  GstBaseSink parent;

  /* Settings, under the object lock */
  GstNetUdpSettings net;        /* host (address), port: the tpbasrc's;
                                 * socket: ours to send RTP from */
  gint tcp_port, rtcp_port;
  guint64 bottleneck;
  guint max_queue_bytes;
  guint64 connect_timeout;
  guint notsent_lowat;
  GstNetSinkSettings net_sink;  /* stats-interval */
  gchar *tcp_congestion;
  gboolean tcp_pacing;
  GstNetKeySettings key;
  GstNetSrtpSettings srtp_settings;
  TpbaConfig cfg;

  GstRatePath *rates;
  GstNetStats stats;

  /* State, under lock; the transports and sockets are used by the loop
   * only (made in start, freed in stop after the loop ended). */
  GMutex lock;
  GCond cond;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  gboolean running;
  TpbaSender *core;
  TpbaConfig run_cfg;
  guint64 run_bottleneck;
  guint run_max_queue, run_lowat;
  gint64 run_connect_timeout;
  gchar *run_cc;
  gboolean run_pacing;
  SenderQueue queue;            /* of Item, whole ADUs dropped when full */

  GstNetUdp *udp, *rtcp;
  GSocketAddress *rtp_addr, *rtcp_addr, *tcp_addr;
  GSocket *tcp, *connecting;
  GSource *tcp_watch, *out_watch, *connect_watch;
  gint64 connect_deadline;
  gchar *dest_str;
  gint dest_tcp_port;
  GByteArray *tcp_out;
  guint tcp_out_off;
  gint tcp_nodelay;             /* -1 unknown */
  gint64 next_connect, fail_since;
  guint attempts;
  gboolean gave_up;
  gboolean unlocked;            /* unlock(): leave the EOS wait */
  gchar *last_error;
  guint64 token;                /* this run's session token */
  AuthSession *auth;            /* NULL: no key */
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  guint8 *sealed;               /* the loop's: the packet as SRTP */
  guint key_unit_count;

  guint64 invalid, send_errors;
  guint64 tcp_connects, tcp_failures, rtcp_foreign, tcp_frames_lost;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpba_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstTpbaSink, gst_tpba_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (tpbasink, "tpbasink", GST_RANK_NONE,
    GST_TYPE_TPBA_SINK);

static GstStructure *get_stats (GstElement * element);

static void
item_free (gpointer data)
{
  Item *it = data;

  g_free (it->data);
  g_free (it);
}

/* The oldest queued packet, its sequence number closing up the ADUs the
 * queue dropped before it. */
static Item *
peek_packet (GstTpbaSink * self)
{
  guint16 seq;
  Item *it = sender_queue_peek (&self->queue, &seq, NULL);

  if (it && it->info.seq != seq) {
    it->info.seq = seq;
    rtp_set_seq (it->data, seq);
  }
  return it;
}

/* ------------------------------------------------------------------ */
/* TCP (loop thread, lock held) */

static void
tcp_close (GstTpbaSink * self, const gchar * why)
{
  if (!self->tcp)
    return;
  GST_WARNING_OBJECT (self, "TCP connection to %s:%d lost: %s",
      self->dest_str, self->dest_tcp_port, why);
  gst_net_loop_unwatch (&self->tcp_watch);
  gst_net_loop_unwatch (&self->out_watch);
  g_socket_close (self->tcp, NULL);
  g_clear_object (&self->tcp);
  self->tcp_failures++;
  /* a frame half written is lost with the connection; a whole one waits */
  if (self->tcp_out->len && self->tcp_out_off) {
    g_byte_array_set_size (self->tcp_out, 0);
    self->tcp_out_off = 0;
    self->tcp_frames_lost++;
  }
  self->next_connect = gst_net_now ();
  self->fail_since = self->next_connect;
  self->attempts = 0;
}

static void
set_nodelay (GstTpbaSink * self, gboolean on)
{
  GError *err = NULL;

  if (!self->tcp || self->tcp_nodelay == on)
    return;
  if (!gst_net_tcp_set_nodelay (self->tcp, on, &err)) {
    GST_WARNING_OBJECT (self, "TCP_NODELAY: %s", err->message);
    g_error_free (err);
  }
  self->tcp_nodelay = on;
}

/* Writes what tcp_out holds; FALSE when the connection failed. */
static gboolean
tcp_flush (GstTpbaSink * self)
{
  while (self->tcp && self->tcp_out_off < self->tcp_out->len) {
    GError *err = NULL;
    gssize n = gst_net_tcp_send (self->tcp,
        self->tcp_out->data + self->tcp_out_off,
        self->tcp_out->len - self->tcp_out_off, &err);

    if (n < 0) {
      gboolean busy = g_error_matches (err, G_IO_ERROR,
          G_IO_ERROR_WOULD_BLOCK);
      if (!busy)
        tcp_close (self, err->message);
      g_error_free (err);
      return busy;
    }
    self->tcp_out_off += n;
  }
  if (self->tcp_out_off >= self->tcp_out->len) {
    g_byte_array_set_size (self->tcp_out, 0);
    self->tcp_out_off = 0;
  }
  return TRUE;
}

/* Appends the session token to the compound of @len bytes at @buf and,
 * with a key, seals the whole datagram; returns its length, 0 if it does
 * not fit. */
static gsize
finish_rtcp (GstTpbaSink * self, guint32 ssrc, guint8 * buf, gsize len,
    gsize max)
{
  gsize n;

  if (len == 0)
    return 0;
  n = tpba_rtcp_write_token (ssrc, self->token, buf + len, max - len);
  return tpba_control_seal (self->auth, buf, n ? len + n : len, max);
}

/* The token message goes first on a new connection, before any frame (a
 * whole frame left from a lost connection waits behind it). */
static void
queue_token (GstTpbaSink * self)
{
  guint8 t[TPBA_TOKEN_MESSAGE_SIZE];
  gsize n = tpba_token_message_write (self->auth, self->token, t, sizeof t);

  g_byte_array_prepend (self->tcp_out, t, n);
}

static void
send_rtcp (GstTpbaSink * self, const guint8 * buf, gsize n)
{
  GError *err = NULL;

  if (!gst_net_transport_send_to (GST_NET_TRANSPORT (self->rtcp), buf, n,
          self->rtcp_addr, &err)) {
    self->send_errors++;
    GST_DEBUG_OBJECT (self, "RTCP: %s", err->message);
    g_error_free (err);
  }
}

static void
send_hello (GstTpbaSink * self)
{
  /* an empty RR (RFC 3550 6.4.2, no report blocks) tells the source which
   * address to accept TCP from before any RTP has been sent */
  TpbaRtcpReport rep;
  guint8 buf[TPBA_RTCP_MAX_SIZE];
  gsize n;
  GError *err = NULL;

  memset (&rep, 0, sizeof (rep));
  rep.ssrc = g_random_int ();
  n = tpba_rtcp_write (&rep, NULL, buf, sizeof (buf));
  n = finish_rtcp (self, rep.ssrc, buf, n, sizeof (buf));
  if (n && !gst_net_transport_send_to (GST_NET_TRANSPORT (self->rtcp), buf, n,
          self->rtcp_addr, &err)) {
    GST_DEBUG_OBJECT (self, "hello: %s", err->message);
    g_error_free (err);
  }
}

/* A socket for the probing connection with the options the settings ask
 * for. Linux paces a TCP socket itself once SO_MAX_PACING_RATE is set (as
 * with the fq qdisc): a connection that resumes after a running period then
 * spreads its window over a round trip instead of sending it as one burst.
 * The cap itself is max-rate. */
static GSocket *
tcp_socket_new (GstTpbaSink * self, GError ** err)
{
  GSocket *s = gst_net_tcp_socket_new (g_socket_address_get_family
      (self->tcp_addr), err);

  if (!s)
    return NULL;
  if (self->run_lowat > 0)
    gst_net_tcp_set_notsent_lowat (s, self->run_lowat, NULL);
  if ((self->run_cc && !gst_net_tcp_set_congestion (s, self->run_cc, err)) ||
      (self->run_pacing && !gst_net_tcp_set_max_pacing_rate (s,
              self->run_cfg.max_rate, err)))
    g_clear_object (&s);
  return s;
}

/* The source never writes: readable means the connection ended. */
static gboolean
on_tcp_readable (GSocket * sock, GIOCondition cond, gpointer data)
{
  GstTpbaSink *self = data;
  guint8 buf[2048];
  GError *err = NULL;
  gssize k;

  g_mutex_lock (&self->lock);
  k = gst_net_tcp_receive (sock, buf, sizeof (buf), &err);
  if (k == 0)
    tcp_close (self, "closed by the peer (refused?)");
  else if (k < 0 && !g_error_matches (err, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    tcp_close (self, err->message);
  g_clear_error (&err);
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_tcp_writable (GSocket * sock, GIOCondition cond, gpointer data)
{
  GstTpbaSink *self = data;

  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->out_watch, g_source_unref);
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
  return G_SOURCE_REMOVE;
}

/* ------------------------------------------------------------------ */
/* Connecting (loop thread, lock held) */

static void
connect_succeeded (GstTpbaSink * self)
{
  self->tcp = self->connecting;
  self->connecting = NULL;
  self->tcp_watch = gst_net_loop_watch (self->loop, self->tcp, G_IO_IN,
      on_tcp_readable, self);
  self->tcp_nodelay = -1;
  self->tcp_connects++;
  self->attempts = 0;
  self->fail_since = -1;
  queue_token (self);
  tcp_flush (self);
  g_cond_broadcast (&self->cond);
  GST_INFO_OBJECT (self, "TCP connected to %s:%d", self->dest_str,
      self->dest_tcp_port);
}

/* Posts the connect error; called with the lock, which it drops. */
static void
give_up (GstTpbaSink * self)
{
  gchar *dest = g_strdup (self->dest_str), *err = g_strdup (self->last_error);
  gint port = self->dest_tcp_port;
  guint att = self->attempts;

  self->gave_up = TRUE;
  g_mutex_unlock (&self->lock);
  GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
      ("Could not connect to tpbasrc at %s:%d over TCP", dest, port),
      ("%u attempts in %" GST_TIME_FORMAT ", last: %s", att,
          GST_TIME_ARGS (self->run_connect_timeout), err));
  g_free (dest);
  g_free (err);
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->cond);
}

/* An attempt failed (@err taken); the next in RECONNECT_INTERVAL, or an
 * error after connect-timeout. */
static void
connect_failed (GstTpbaSink * self, gchar * err, gint64 now)
{
  gst_net_loop_unwatch (&self->connect_watch);
  g_clear_object (&self->connecting);
  self->attempts++;
  if (self->fail_since < 0)
    self->fail_since = now;
  g_free (self->last_error);
  self->last_error = err;
  GST_DEBUG_OBJECT (self, "TCP connect attempt %u: %s", self->attempts, err);
  self->next_connect = now + RECONNECT_INTERVAL;
  if (now - self->fail_since >= self->run_connect_timeout)
    give_up (self);
}

static gboolean
on_connect_ready (GSocket * sock, GIOCondition cond, gpointer data)
{
  GstTpbaSink *self = data;
  GError *err = NULL;

  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->connect_watch, g_source_unref);
  if (gst_net_tcp_connect_finish (sock, &err))
    connect_succeeded (self);
  else {
    connect_failed (self, g_strdup (err->message), gst_net_now ());
    g_error_free (err);
  }
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
  return G_SOURCE_REMOVE;
}

/* Starts an attempt when one is due; ends one that took too long. */
static void
maybe_connect (GstTpbaSink * self, gint64 now)
{
  GError *err = NULL;

  if (self->connecting && now >= self->connect_deadline)
    connect_failed (self, g_strdup ("timed out"), now);
  if (self->tcp || self->connecting || self->gave_up ||
      now < self->next_connect)
    return;
  send_hello (self);
  self->connecting = tcp_socket_new (self, &err);
  if (self->connecting && gst_net_tcp_connect_begin (self->connecting,
          self->tcp_addr, &err)) {
    self->connect_deadline = now + CONNECT_ATTEMPT_TIMEOUT;
    self->connect_watch = gst_net_loop_watch (self->loop, self->connecting,
        G_IO_OUT, on_connect_ready, self);
    return;
  }
  connect_failed (self, g_strdup (err->message), now);
  g_error_free (err);
}

/* ------------------------------------------------------------------ */
/* The loop */
static void
request_key_unit (GstTpbaSink * self)
{
  GstEvent *ev = gst_video_event_new_upstream_force_key_unit
      (GST_CLOCK_TIME_NONE, TRUE, ++self->key_unit_count);

  GST_INFO_OBJECT (self, "the receiver lost the picture: asking upstream "
      "for key unit %u", self->key_unit_count);
  gst_pad_push_event (GST_BASE_SINK_PAD (self), ev);
}

static void
handle_events (GstTpbaSink * self, GArray * evs)
{
  for (guint i = 0; i < evs->len; i++) {
    TpbaEvent *e = &g_array_index (evs, TpbaEvent, i);
    GstStructure *s = NULL;

    switch (e->type) {
      case TPBA_EVENT_RATE:{
        guint r = (guint) MIN (e->rate, (guint64) G_MAXUINT);
        GST_DEBUG_OBJECT (self, "rate %u bit/s", r);
        gst_rate_path_set (self->rates, &r, 1, gst_net_now ());
        break;
      }
      case TPBA_EVENT_PERIOD:
        GST_INFO_OBJECT (self, "%s period decided (r_s %" G_GUINT64_FORMAT
            ", cwnd_new %u)", e->period == TPBA_PERIOD_RUNNING ? "running" :
            "probing", e->rate, e->cwnd_new);
        s = gst_structure_new ("tpba-period", "period", G_TYPE_STRING,
            e->period == TPBA_PERIOD_RUNNING ? "running" : "probing",
            "r-s", G_TYPE_UINT64, e->rate, "cwnd-new", G_TYPE_UINT,
            e->cwnd_new, NULL);
        break;
      case TPBA_EVENT_KEY_UNIT:
        request_key_unit (self);
        break;
      case TPBA_EVENT_TRANSPORT:
        GST_INFO_OBJECT (self, "switched to %s",
            e->transport == TPBA_TRANSPORT_UDP ? "UDP" : "TCP");
        s = gst_structure_new ("tpba-transport", "transport", G_TYPE_STRING,
            e->transport == TPBA_TRANSPORT_UDP ? "udp" : "tcp", NULL);
        break;
    }
    if (s)
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), s));
  }
  g_array_set_size (evs, 0);
}


/* The bytes of @it as they leave: SRTP, after the last rewrite of its
 * sequence number, or as they are; 0 when SRTP refused it. */
static gsize
seal (GstTpbaSink * self, Item * it, const guint8 ** data)
{
  if (!self->srtp) {
    *data = it->data;
    return it->info.size;
  }
  if (it->info.size > MAX_SEALED - GST_NET_SRTP_MAX_OVERHEAD)
    return 0;
  memcpy (self->sealed, it->data, it->info.size);
  *data = self->sealed;
  return gst_net_srtp_protect (self->srtp, self->sealed, it->info.size,
      MAX_SEALED);
}

static void
send_packets (GstTpbaSink * self, gint64 now, gint64 * wait_until)
{
  Item *it;

  /* Nothing leaves while the first connect attempt is under way, as with
   * the blocking connect before the shared runtime: the session token then
   * goes out alone, in a segment of a few bytes, and Nagle holds the frames
   * behind it. With a frame already waiting in tcp_out, the token left in
   * the first full-size segment of a burst, which a nearly full bottleneck
   * drops more often at the start: it came a retransmission timeout late,
   * or after tpbasrc's 2 s wait, and the connection was refused. */
  if (self->connecting && self->tcp_connects == 0)
    return;
  while (self->core && self->tcp_out->len == 0 &&
      (it = peek_packet (self))) {
    const guint8 *data;
    gsize size;
    TpbaSendDecision d;
    gint64 t = tpba_sender_next_send_time (self->core, &it->info, now);
    GError *err = NULL;

    if (t > now) {
      *wait_until = MIN (*wait_until, t);
      return;
    }
    sender_queue_pop (&self->queue, NULL, NULL);
    tpba_sender_on_send (self->core, &it->info, now, &d);
    set_nodelay (self, d.tcp_nodelay);
    /* size 0: SRTP refused it and counted it */
    size = seal (self, it, &data);
    if (size > 0 && d.transport == TPBA_TRANSPORT_UDP) {
      if (!gst_net_transport_send_to (GST_NET_TRANSPORT (self->udp), data,
              size, self->rtp_addr, &err)) {
        self->send_errors++;
        GST_LOG_OBJECT (self, "UDP send: %s", err->message);
        g_error_free (err);
      }
    } else if (size > 0 && rfc4571_frame_append (self->tcp_out, data, size)) {
      tcp_flush (self);
    } else if (size > 0) {
      self->send_errors++;      /* longer than a frame can say */
    }
    item_free (it);
  }
}

/* The SSRC of the first RTCP packet of a compound the core wrote. */
static guint32
tpba_rtcp_report_ssrc (const guint8 * buf)
{
  return GST_READ_UINT32_BE (buf + 4);
}

/* The receiver's RTCP (RRs, PLIs), from the source's host only and, with
 * a key, only when it opens: anything else is counted and never parsed. */
static void
on_rtcp (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstTpbaSink *self = user_data;
  gint64 now = gst_net_now ();
  gsize len;

  g_mutex_lock (&self->lock);
  if (!gst_net_address_same_host (from, self->rtcp_addr))
    self->rtcp_foreign++;
  else if (tpba_control_open (self->auth, data, size, now, &len) &&
      self->core)
    tpba_sender_on_rtcp (self->core, data, len, now);
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
}

/* The core's deadlines: TCP_INFO samples, adaptation, SRs. */
static void
advance_core (GstTpbaSink * self, gint64 now)
{
  guint8 buf[2048];
  gsize n;

  if (now >= tpba_sender_next_deadline (self->core)) {
    TpbaTcpInfo ti;
    if (self->tcp && gst_net_tcp_get_info (self->tcp, &ti))
      tpba_sender_on_tcp_info (self->core, &ti, now);
    tpba_sender_advance (self->core, now);
  }
  while ((n = tpba_sender_pop_rtcp (self->core, buf, TPBA_RTCP_MAX_SIZE)) &&
      (n = finish_rtcp (self, tpba_rtcp_report_ssrc (buf), buf, n,
              sizeof (buf))))
    send_rtcp (self, buf, n);
}

/* When the loop must run next (lock held). */
static gint64
next_wakeup (GstTpbaSink * self, gint64 now, gint64 wait_until)
{
  wait_until = MIN (wait_until, now + GST_SECOND);
  if (self->core)
    wait_until = MIN (wait_until, tpba_sender_next_deadline (self->core));
  if (self->connecting)
    wait_until = MIN (wait_until, self->connect_deadline);
  else if (!self->tcp && !self->gave_up)
    wait_until = MIN (wait_until, self->next_connect);
  return wait_until;
}

static gint64
sink_work (gpointer data, gint64 now)
{
  GstTpbaSink *self = data;
  GArray *evs = g_array_new (FALSE, FALSE, sizeof (TpbaEvent));
  gint64 wait_until = G_MAXINT64;
  TpbaEvent ev;

  g_mutex_lock (&self->lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  maybe_connect (self, now);
  if (self->core)
    advance_core (self, now);
  if (self->tcp_out->len)
    tcp_flush (self);
  send_packets (self, now, &wait_until);
  if (self->core)
    while (tpba_sender_pop_event (self->core, &ev))
      g_array_append_val (evs, ev);
  if (sender_queue_length (&self->queue) == 0 && !self->tcp_out->len)
    g_cond_broadcast (&self->cond);
  if (self->tcp && self->tcp_out->len && !self->out_watch)
    self->out_watch = gst_net_loop_watch (self->loop, self->tcp, G_IO_OUT,
        on_tcp_writable, self);
  g_mutex_unlock (&self->lock);

  handle_events (self, evs);
  g_array_free (evs, TRUE);
  gst_rate_path_tick (self->rates, now);
  wait_until = MIN (wait_until, gst_net_stats_poll (&self->stats, now));

  g_mutex_lock (&self->lock);
  wait_until = next_wakeup (self, now, wait_until);
  g_mutex_unlock (&self->lock);
  return wait_until;
}

/* ------------------------------------------------------------------ */
/* GstBaseSink */

/* The destination's three addresses (host resolved once, no lock held). */
static gboolean
resolve_dest (GstTpbaSink * self, const gchar * host, gint port,
    gint tcp_port, gint rtcp_port)
{
  GError *err = NULL;
  GSocketAddress *a = gst_net_resolve ("host", host, port, NULL, &err);
  GInetAddress *ia;

  if (!a) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (a));
  self->rtp_addr = a;
  self->tcp_addr = g_inet_socket_address_new (ia, tcp_port);
  self->rtcp_addr = g_inet_socket_address_new (ia, rtcp_port);
  return TRUE;
}

/* The RTP transport (the application's socket if it gave one) and the
 * RTCP one, bound to an ephemeral port so that the RRs find it. */
static gboolean
open_transports (GstTpbaSink * self, GSocket * app_socket)
{
  GstNetUdpSettings rtp = GST_NET_UDP_SETTINGS_INIT;
  GstNetUdpSettings rtcp = GST_NET_UDP_SETTINGS_INIT;
  GSocketFamily family = g_socket_address_get_family (self->rtp_addr);
  GError *err = NULL;

  rtp.socket = app_socket;
  self->udp = gst_net_udp_new (&rtp, family, &err);
  if (self->udp)
    self->rtcp = gst_net_udp_new (&rtcp, family, &err);
  if (!self->rtcp) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not create sockets: %s", err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
  return TRUE;
}

static void
reset_state (GstTpbaSink * self)
{
  self->tcp_out = g_byte_array_new ();
  self->tcp_out_off = 0;
  self->tcp_nodelay = -1;
  self->next_connect = 0;
  self->fail_since = -1;
  self->attempts = 0;
  self->gave_up = FALSE;
  self->unlocked = FALSE;
  self->token = ((guint64) g_random_int () << 32) | g_random_int ();
  self->key_unit_count = 0;
  sender_queue_clear (&self->queue);
  sender_queue_init (&self->queue, SENDER_QUEUE_DROP_NEWEST,
      self->run_max_queue, item_free);
  self->invalid = 0;
  self->send_errors = self->tcp_connects = self->tcp_failures = 0;
  self->rtcp_foreign = self->tcp_frames_lost = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
}

static gboolean gst_tpba_sink_stop (GstBaseSink * bsink);

/* The group key's sealing session and the SRTP session, from the
 * settings (files are read here, holding no lock). */
static gboolean
start_keys (GstTpbaSink * self)
{
  GstNetSrtpSettings settings;
  GstNetSrtp *srtp = NULL;
  AuthSession *auth = NULL;
  GError *err = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  gst_net_srtp_settings_copy (&settings, &self->srtp_settings);
  GST_OBJECT_UNLOCK (self);
  ok = gst_tpba_auth_new (GST_ELEMENT (self), &self->key, &auth, &err) &&
      gst_net_srtp_load (&settings, GST_NET_SRTP_SEND, &srtp, &err);
  gst_net_srtp_settings_clear (&settings);
  if (!ok) {
    g_clear_pointer (&auth, auth_session_free);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  self->auth = auth;
  self->srtp = srtp;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpba_sink_start (GstBaseSink * bsink)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);
  GSocket *app_socket;
  gchar *host;
  gint port, tcp_port, rtcp_port;
  gint64 stats_interval;

  GST_OBJECT_LOCK (self);
  host = g_strdup (self->net.address);
  port = self->net.port;
  tcp_port = self->tcp_port < 0 ? port : self->tcp_port;
  rtcp_port = self->rtcp_port < 0 ? port + 1 : self->rtcp_port;
  app_socket = self->net.socket ? g_object_ref (self->net.socket) : NULL;
  self->run_cfg = self->cfg;
  self->run_bottleneck = self->bottleneck;
  self->run_max_queue = self->max_queue_bytes;
  self->run_lowat = self->notsent_lowat;
  self->run_connect_timeout = self->connect_timeout;
  stats_interval = self->net_sink.stats_interval;
  g_free (self->run_cc);
  self->run_cc = self->tcp_congestion && *self->tcp_congestion ?
      g_strdup (self->tcp_congestion) : NULL;
  self->run_cfg.sawtooth_reno = g_strcmp0 (self->run_cc, "reno") == 0;
  self->run_pacing = self->tcp_pacing;
  GST_OBJECT_UNLOCK (self);

  if (tcp_port <= 0 || rtcp_port <= 0 || rtcp_port > 65535) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid ports: port %d, tcp-port %d, rtcp-port %d (the sink needs "
            "the source's real ports)", port, tcp_port, rtcp_port), (NULL));
    g_free (host);
    g_clear_object (&app_socket);
    return FALSE;
  }
  g_free (self->dest_str);
  self->dest_str = host;
  self->dest_tcp_port = tcp_port;
  if (!start_keys (self) ||
      !resolve_dest (self, host, port, tcp_port, rtcp_port) ||
      !open_transports (self, app_socket)) {
    g_clear_object (&app_socket);
    gst_tpba_sink_stop (bsink);   /* basesink does not call it after a failed start */
    return FALSE;
  }
  g_clear_object (&app_socket);
  reset_state (self);
  gst_net_stats_start (&self->stats, stats_interval, gst_net_now ());
  self->running = TRUE;
  self->loop = gst_net_loop_new ("tpbasink", sink_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->rtcp), on_rtcp,
      self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static gboolean
gst_tpba_sink_stop (GstBaseSink * bsink)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);

  g_mutex_lock (&self->lock);
  self->running = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->lock);
  sender_queue_clear (&self->queue);
  if (self->core)
    tpba_sender_free (self->core);
  self->core = NULL;
  g_clear_pointer (&self->auth, auth_session_free);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  g_mutex_unlock (&self->lock);
  gst_net_loop_unwatch (&self->tcp_watch);
  gst_net_loop_unwatch (&self->out_watch);
  gst_net_loop_unwatch (&self->connect_watch);
  g_clear_object (&self->connecting);
  g_clear_object (&self->tcp);
  g_clear_object (&self->udp);
  g_clear_object (&self->rtcp);
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_object (&self->rtp_addr);
  g_clear_object (&self->tcp_addr);
  g_clear_object (&self->rtcp_addr);
  if (self->tcp_out)
    g_byte_array_unref (self->tcp_out);
  self->tcp_out = NULL;
  g_clear_pointer (&self->dest_str, g_free);
  g_clear_pointer (&self->last_error, g_free);
  return TRUE;
}

static GstFlowReturn
gst_tpba_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);
  GstMapInfo map;
  TpbaRtpInfo info;
  Item *it;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (!tpba_rtp_parse (map.data, map.size, &info)) {
    gst_buffer_unmap (buffer, &map);
    g_mutex_lock (&self->lock);
    self->invalid++;
    g_mutex_unlock (&self->lock);
    GST_WARNING_OBJECT (self, "dropping a buffer that is not RTP");
    return GST_FLOW_OK;
  }
  g_mutex_lock (&self->lock);
  if (!self->core) {
    self->run_cfg.ntp_offset = gst_net_ntp_offset ();
    self->core = tpba_sender_new (&self->run_cfg, info.ssrc, gst_net_now ());
    if (self->run_bottleneck)
      tpba_sender_set_bottleneck (self->core, self->run_bottleneck);
  }
  it = g_new (Item, 1);
  it->data = g_memdup2 (map.data, map.size);
  it->info = info;
  if (sender_queue_push (&self->queue, it, info.size, info.seq,
          info.timestamp, info.marker))
    gst_net_loop_wake (self->loop);
  g_mutex_unlock (&self->lock);
  gst_buffer_unmap (buffer, &map);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tpba_sink_render_list (GstBaseSink * bsink, GstBufferList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;

  for (guint i = 0; ret == GST_FLOW_OK && i < gst_buffer_list_length (list);
      i++)
    ret = gst_tpba_sink_render (bsink, gst_buffer_list_get (list, i));
  return ret;
}

static gboolean
gst_tpba_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      gst_rate_path_caps_query (self->rates, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (parent_class)->query (bsink, query);
}

/* A flush discards what waits for pacing, not the half-written TCP frame
 * (its framing must complete); the sequence numbers after it close up. */
static void
flush_queue (GstTpbaSink * self)
{
  g_mutex_lock (&self->lock);
  sender_queue_flush (&self->queue);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* At EOS what the queue holds leaves first (pacing; bounded to 5 s once
 * connected). A sink that never reached its tpbasrc, or still holds packets
 * for it, waits for it up to connect-timeout: ending with success having
 * delivered nothing would hide a missing receiver. TRUE if the sink gave up
 * connecting. */
static gboolean
wait_drained (GstTpbaSink * self)
{
  gint64 drain_end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  gboolean failed;

  g_mutex_lock (&self->lock);
  while (self->running && !self->gave_up && !self->unlocked) {
    gint64 now = g_get_monotonic_time ();
    gboolean connected = self->tcp != NULL;
    gboolean drained = sender_queue_length (&self->queue) == 0 &&
        !(self->tcp_out && self->tcp_out->len);

    /* a receiver that went away after taking everything is no failure */
    if ((connected || (drained && self->tcp_connects > 0)) &&
        (drained || now >= drain_end))
      break;
    g_cond_wait_until (&self->cond, &self->lock, now + 100 * 1000);
  }
  failed = self->gave_up;
  g_mutex_unlock (&self->lock);
  return failed;
}

static gboolean
gst_tpba_sink_unlock (GstBaseSink * bsink)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);

  g_mutex_lock (&self->lock);
  self->unlocked = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpba_sink_unlock_stop (GstBaseSink * bsink)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);

  g_mutex_lock (&self->lock);
  self->unlocked = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpba_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstTpbaSink *self = GST_TPBA_SINK (bsink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    flush_queue (self);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    gboolean failed = wait_drained (self);

    gst_net_stats_post (&self->stats);
    if (failed) {
      /* the worker posted the connect error: no EOS, nothing was delivered */
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (bsink, event);
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_tpba_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpbaSink *self = GST_TPBA_SINK (object);

  if (gst_net_props_set (GST_ELEMENT (self), &self->net_sink,
          PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TCP_PORT:
      self->tcp_port = g_value_get_int (value);
      break;
    case PROP_RTCP_PORT:
      self->rtcp_port = g_value_get_int (value);
      break;
    case PROP_BOTTLENECK:
      self->bottleneck = g_value_get_uint64 (value);
      break;
    case PROP_MAX_QUEUE_BYTES:
      self->max_queue_bytes = g_value_get_uint (value);
      break;
    case PROP_CONNECT_TIMEOUT:
      self->connect_timeout = g_value_get_uint64 (value);
      break;
    case PROP_NOTSENT_LOWAT:
      self->notsent_lowat = g_value_get_uint (value);
      break;
    case PROP_TCP_CONGESTION:
      g_free (self->tcp_congestion);
      self->tcp_congestion = g_value_dup_string (value);
      break;
    case PROP_TCP_PACING:
      self->tcp_pacing = g_value_get_boolean (value);
      break;
    default:
      if (!gst_net_key_set (&self->key, PROP_KEY, prop_id, value) &&
          !gst_net_srtp_set (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_net_udp_props_set (&udp_props, &self->net, PROP_UDP_FIRST,
              prop_id, value) &&
          !gst_param_table_set (&gst_tpba_params, &self->cfg,
              PROP_CONFIG_FIRST, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GValue *
history_value (const TpbaSenderStats * st)
{
  GValue *arr = g_new0 (GValue, 1);
  guint n = MIN (st->n_r, TPBA_HISTORY);

  g_value_init (arr, GST_TYPE_ARRAY);
  for (guint i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, st->r[i]);
    gst_value_array_append_and_take_value (arr, &v);
  }
  return arr;
}

static GstStructure *
get_stats (GstElement * element)
{
  GstTpbaSink *self = GST_TPBA_SINK (element);
  GstStructure *s = gst_structure_new_empty ("application/x-tpba-sink-stats");
  guint64 sent = 0, coalesced = 0;

  g_mutex_lock (&self->lock);
  if (self->core) {
    TpbaSenderStats st;
    GValue *hist;

    tpba_sender_get_stats (self->core, &st);
    hist = history_value (&st);
    gst_structure_set (s,
        "period", G_TYPE_STRING, st.period == TPBA_PERIOD_RUNNING ?
        "running" : "probing",
        "transport", G_TYPE_STRING, st.transport == TPBA_TRANSPORT_UDP ?
        "udp" : "tcp",
        "rate", G_TYPE_UINT64, st.rate,
        "r-s", G_TYPE_UINT64, st.r_s,
        "n-r", G_TYPE_UINT, st.n_r,
        "p-loss", G_TYPE_DOUBLE, st.p_loss,
        "p-probe", G_TYPE_DOUBLE, st.p_probe,
        "fraction-lost", G_TYPE_UINT, (guint) st.fraction_lost,
        "cumulative-lost", G_TYPE_INT, st.cumulative_lost,
        "rtt", G_TYPE_INT64, st.rtt,
        "tcp-rtt", G_TYPE_INT64, st.tcp_rtt,
        "delivery-rate", G_TYPE_UINT64, st.delivery_rate,
        "air", G_TYPE_UINT64, st.air,
        "cwnd-new", G_TYPE_UINT, st.cwnd_new,
        "last-cycle", G_TYPE_INT64, st.last_cycle,
        "switches", G_TYPE_UINT64, st.switches,
        "mid-adu-switches", G_TYPE_UINT64, st.mid_adu_switches,
        "probing-periods", G_TYPE_UINT64, st.probing_periods,
        "running-periods", G_TYPE_UINT64, st.running_periods,
        "reductions", G_TYPE_UINT64, st.reductions,
        "running-holds", G_TYPE_UINT64, st.running_holds,
        "stalled-cycles", G_TYPE_UINT64, st.stalled_cycles,
        "probe-end-criterion", G_TYPE_UINT64,
        st.probe_ends[TPBA_PROBE_END_CRITERION],
        "probe-end-window", G_TYPE_UINT64, st.probe_ends[TPBA_PROBE_END_WINDOW],
        "probe-end-max-cycles", G_TYPE_UINT64,
        st.probe_ends[TPBA_PROBE_END_MAX_CYCLES],
        "probe-kept-without-loss", G_TYPE_UINT64, st.kept_without_loss,
        "probe-kept-falling", G_TYPE_UINT64, st.kept_falling,
        "probe-peak", G_TYPE_UINT64, st.probe_peak,
        "probe-rtt", G_TYPE_INT64, st.probe_rtt,
        "queue-holds", G_TYPE_UINT64, st.queue_holds,
        "queue-cuts", G_TYPE_UINT64, st.queue_cuts,
        "kept-by-equation", G_TYPE_UINT64, st.kept_by_equation,
        "equation-fallbacks", G_TYPE_UINT64, st.equation_fallbacks,
        "equation-loss-event-rate", G_TYPE_DOUBLE, st.eq_loss_event_rate,
        "equation-rtt", G_TYPE_INT64, st.eq_rtt,
        "equation-rate", G_TYPE_UINT64, st.eq_rate,
        "run-end-timer", G_TYPE_UINT64, st.run_ends_timer,
        "run-end-reductions", G_TYPE_UINT64, st.run_ends_reductions,
        "run-end-below", G_TYPE_UINT64, st.run_ends_below,
        "packets-udp", G_TYPE_UINT64, st.packets_udp,
        "packets-tcp", G_TYPE_UINT64, st.packets_tcp,
        "bytes-udp", G_TYPE_UINT64, st.bytes_udp,
        "bytes-tcp", G_TYPE_UINT64, st.bytes_tcp,
        "rtcp-received", G_TYPE_UINT64, st.rtcp_received,
        "rtcp-refused", G_TYPE_UINT64, st.rtcp_refused,
        "pli-received", G_TYPE_UINT64, st.pli_received,
        "pli-ignored", G_TYPE_UINT64, st.pli_ignored,
        "key-unit-requests", G_TYPE_UINT64, st.key_unit_requests, NULL);
    gst_structure_take_value (s, "r", hist);
    g_free (hist);
  }
  gst_structure_set (s,
      "queued-bytes", G_TYPE_UINT64, self->queue.bytes,
      "dropped-packets", G_TYPE_UINT64, self->queue.dropped_packets,
      "dropped-adus", G_TYPE_UINT64, self->queue.dropped_adus,
      "flushed-packets", G_TYPE_UINT64, self->queue.flushed_packets,
      "invalid", G_TYPE_UINT64, self->invalid,
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "tcp-connected", G_TYPE_BOOLEAN, self->tcp != NULL,
      "tcp-connects", G_TYPE_UINT64, self->tcp_connects,
      "tcp-failures", G_TYPE_UINT64, self->tcp_failures,
      "tcp-frames-lost", G_TYPE_UINT64, self->tcp_frames_lost,
      "rtcp-foreign", G_TYPE_UINT64, self->rtcp_foreign, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  gst_tpba_auth_stats (s, self->auth);
  gst_net_srtp_stats (s, self->srtp);
  g_mutex_unlock (&self->lock);
  gst_rate_path_get_counters (self->rates, &sent, &coalesced);
  gst_structure_set (s,
      "bitrate", G_TYPE_UINT, gst_rate_path_get_bitrate (self->rates),
      "rate-events", G_TYPE_UINT64, sent,
      "rate-coalesced", G_TYPE_UINT64, coalesced, NULL);
  return s;
}

static void
gst_tpba_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTpbaSink *self = GST_TPBA_SINK (object);

  if (gst_net_props_get (GST_ELEMENT (self), &self->net_sink,
          get_stats, self->rates, PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TCP_PORT:
      g_value_set_int (value, self->tcp_port);
      break;
    case PROP_RTCP_PORT:
      g_value_set_int (value, self->rtcp_port);
      break;
    case PROP_BOTTLENECK:
      g_value_set_uint64 (value, self->bottleneck);
      break;
    case PROP_MAX_QUEUE_BYTES:
      g_value_set_uint (value, self->max_queue_bytes);
      break;
    case PROP_CONNECT_TIMEOUT:
      g_value_set_uint64 (value, self->connect_timeout);
      break;
    case PROP_NOTSENT_LOWAT:
      g_value_set_uint (value, self->notsent_lowat);
      break;
    case PROP_TCP_CONGESTION:
      g_value_set_string (value, self->tcp_congestion);
      break;
    case PROP_TCP_PACING:
      g_value_set_boolean (value, self->tcp_pacing);
      break;
    default:
      if (!gst_net_key_get (&self->key, PROP_KEY, prop_id, value) &&
          !gst_net_srtp_get (&self->srtp_settings, PROP_SRTP, prop_id, value)
          && !gst_net_udp_props_get (&self->net, PROP_UDP_FIRST, prop_id,
              value) &&
          !gst_param_table_get (&gst_tpba_params, &self->cfg,
              PROP_CONFIG_FIRST, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tpba_sink_finalize (GObject * object)
{
  GstTpbaSink *self = GST_TPBA_SINK (object);

  gst_rate_path_free (self->rates);
  gst_net_udp_settings_clear (&self->net);
  gst_net_key_settings_clear (&self->key);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  gst_net_src_settings_clear (&self->net_sink);
  g_free (self->sealed);
  g_free (self->tcp_congestion);
  g_free (self->run_cc);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define SINK_STATS_BLURB \
  "Sender counters (GstStructure). After the first packet: " \
  "period: the decided period, \"probing\" or \"running\" (string); " \
  "transport: the transport in effect, \"tcp\" or \"udp\" (string); " \
  "rate: UDP pacing rate or the rate offered to the encoder, bit/s; " \
  "r-s: result of the last probing period, bit/s (0 before); " \
  "r: r[i] of the current or last probing period, oldest first, at most " \
  "32, bit/s (array); " \
  "n-r: number of r[i] in that period, cycles; " \
  "p-loss: loss fraction at the last adaptation point, 0..1; " \
  "p-probe: TCP's retransmitted fraction of its data segments behind r-s, " \
  "0..1 (-1 unknown); " \
  "fraction-lost: fraction lost in the last RR, 1/256; " \
  "cumulative-lost: cumulative lost in the last RR, packets; " \
  "rtt: round-trip time from the RRs, ns (-1 unknown); " \
  "tcp-rtt: round-trip time from TCP_INFO, ns (-1 unknown); " \
  "delivery-rate: TCP_INFO delivery rate, bit/s (0 unknown); " \
  "air: LDA additive increase rate, bit/s; " \
  "cwnd-new: the paper's cwnd_new, segments (0 unknown); " \
  "last-cycle: length of the last probing cycle, ns; " \
  "switches: transport switches, count; " \
  "mid-adu-switches: of those, inside an ADU after switch-max-delay, " \
  "count; " \
  "probing-periods: probing periods begun, count; " \
  "running-periods: running periods begun, count; " \
  "reductions: adaptation points that cut the rate, count; " \
  "running-holds: adaptation points held by running-hold-on-loss, count; " \
  "stalled-cycles: probing cycles that acknowledged nothing, count; " \
  "probe-end-criterion: probing periods ended by the end criterion, count; " \
  "probe-end-window: probing periods ended by a full confidence/settled " \
  "window (ci-max-cycles), count; " \
  "probe-end-max-cycles: probing periods ended by max-probe-cycles, count; " \
  "probe-kept-without-loss: of those, with max-probe-after-loss, periods " \
  "that kept the last cycle (no cycle after a loss), count; " \
  "probe-kept-falling: of those, with max-probe-peak-if-rising, periods " \
  "whose cycles fell and kept the median of the later half, count; " \
  "probe-peak: the last probing period's largest cycle after its first " \
  "(the base of running-ceiling with running-ceiling-peak), bits/s; " \
  "probe-rtt: the last probing period's mean TCP_INFO RTT (the reference " \
  "of running-queue-margin), ns (-1 unknown); " \
  "queue-holds: loss-free adaptation points that took no running step " \
  "because the RR's RTT was above probe-rtt + running-queue-margin, count; " \
  "queue-cuts: adaptation points that running-queue-cut cut halfway back " \
  "to r_s (or held at or below it): the RR's RTT was above probe-rtt + " \
  "running-queue-cut, count; " \
  "kept-by-equation: probing periods that kept, with kept-rate=equation, " \
  "equation-episodes or equation-sawtooth, the equation's rate, count; " \
  "equation-fallbacks: periods that kept the probe's rate instead (no " \
  "loss event after the first cycle), count; " \
  "equation-loss-event-rate: the last such period's loss events per data " \
  "segment, 0..1 (-1 unknown); " \
  "equation-rtt: its mean TCP_INFO RTT, ns (-1 unknown); " \
  "equation-rate: the equation's (or the sawtooth's) value then, bit/s " \
  "(0 none); " \
  "run-end-timer: running periods ended at their length, count; " \
  "run-end-reductions: running periods ended by reprobe-on-reductions, " \
  "count; " \
  "run-end-below: running periods ended by reprobe-below, count; " \
  "packets-udp: RTP packets sent over UDP, packets; " \
  "packets-tcp: RTP packets sent over TCP, packets; " \
  "bytes-udp: RTP bytes sent over UDP (headers included), bytes; " \
  "bytes-tcp: RTP bytes sent over TCP (framing excluded), bytes; " \
  "rtcp-received: RTCP packets from the receiver taken, packets; " \
  "rtcp-refused: malformed RTCP packets dropped, packets; " \
  "pli-received: PLIs (RFC 4585) about this stream, count; " \
  "pli-ignored: of those, ignored inside key-unit-holdoff, count; " \
  "key-unit-requests: force-key-unit events sent upstream, count. " \
  "Always: " \
  "queued-bytes: RTP waiting for pacing or TCP, bytes; " \
  "dropped-packets: packets dropped because the queue was full, packets; " \
  "dropped-adus: ADUs (frames) those belonged to, count; " \
  "flushed-packets: queued packets a flush discarded, packets; " \
  "invalid: buffers that were not RTP, dropped, count; " \
  "send-errors: UDP sends that failed, count; " \
  "tcp-connected: whether the TCP connection is up (boolean); " \
  "tcp-connects: TCP connections made, count; " \
  "tcp-failures: TCP connections lost, count; " \
  "tcp-frames-lost: half-written frames lost with a connection, count; " \
  "rtcp-foreign: RTCP packets from another host, dropped, count; " \
  "bitrate: the rate asked of the encoder, bit/s; " \
  "rate-events: GstLayerRates events sent upstream, count; " \
  "rate-coalesced: rate changes merged into a later event, count; " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " GST_NET_SRTP_STATS_DOC

/**
 * GstTpbaSink:stats:
 *
 * The sender's counters; every field is listed in the blurb (shown by
 * gst-inspect-1.0) with its meaning and unit.
 */
static const GstNetSinkProps sink_props = {
  .stats_interval_blurb = "Post the stats as a `tpba-stats` element message "
      "this often, ns (0: never; one is always posted at EOS)",
  .stats_blurb = SINK_STATS_BLURB,
  .bitrate_blurb = "Rate the encoder should produce (bits/s): r[i] (1 + "
      "headroom) while probing, r while running; notifies",
};

#define SINK_DESCRIPTION \
  "Sends one RTP stream to a tpbasrc with TCP-rate-probing-based " \
  "adaptation: over TCP (RFC 4571 framing) while it probes the rate TCP " \
  "gets, then over UDP paced at that rate, cut on the loss RTCP receiver " \
  "reports show. A PLI from the receiver becomes an upstream " \
  "force-key-unit event. Example: gst-launch-1.0 videotestsrc is-live=true " \
  "! x264enc tune=zerolatency ! rtph264pay config-interval=-1 ! tpbasink " \
  "host=192.168.1.2 port=5004. URI: tpba://HOST:PORT?key=value&... (any " \
  "property as key, e.g. tpba://192.168.1.2:5004?t-running=5000000000&" \
  "end-criterion=proportional)."

static void
gst_tpba_sink_class_init (GstTpbaSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_tpba_sink_set_property;
  gobject_class->get_property = gst_tpba_sink_get_property;
  gobject_class->finalize = gst_tpba_sink_finalize;
  bsink_class->start = gst_tpba_sink_start;
  bsink_class->stop = gst_tpba_sink_stop;
  bsink_class->render = gst_tpba_sink_render;
  bsink_class->render_list = gst_tpba_sink_render_list;
  bsink_class->query = gst_tpba_sink_query;
  bsink_class->event = gst_tpba_sink_event;
  bsink_class->unlock = gst_tpba_sink_unlock;
  bsink_class->unlock_stop = gst_tpba_sink_unlock_stop;

  gst_net_udp_props_install (&udp_props, gobject_class, PROP_UDP_FIRST);
  g_object_class_install_property (gobject_class, PROP_TCP_PORT,
      g_param_spec_int ("tcp-port", "TCP port",
          "The tpbasrc's TCP port for RTP in the probing period (-1: port)",
          -1, 65535, -1, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_PORT,
      g_param_spec_int ("rtcp-port", "RTCP port",
          "The tpbasrc's UDP port for RTCP (-1: port + 1)", -1, 65535, -1,
          rw));
  g_object_class_install_property (gobject_class, PROP_BOTTLENECK,
      g_param_spec_uint64 ("bottleneck", "Bottleneck",
          "LDA modes: bottleneck bandwidth b, bits/s (0: unknown, taken as "
          "infinite; LDA's packet-pair estimate is not done here)",
          0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE_BYTES,
      g_param_spec_uint ("max-queue-bytes", "Max queue bytes",
          "Packets waiting for pacing or TCP beyond this are dropped, whole "
          "ADUs at a time, bytes", 1500, G_MAXUINT, DEFAULT_MAX_QUEUE_BYTES,
          rw));
  g_object_class_install_property (gobject_class, PROP_CONNECT_TIMEOUT,
      g_param_spec_uint64 ("connect-timeout", "Connect timeout",
          "Error out after trying this long to (re)connect TCP, ns",
          0, G_MAXINT64, DEFAULT_CONNECT_TIMEOUT, rw));
  g_object_class_install_property (gobject_class, PROP_NOTSENT_LOWAT,
      g_param_spec_uint ("tcp-notsent-lowat", "TCP not-sent low water mark",
          "TCP_NOTSENT_LOWAT, bytes: bounds what waits unsent in the kernel "
          "so the backlog stays in the queue (0: the kernel's default)",
          0, G_MAXINT, DEFAULT_NOTSENT_LOWAT, rw));
  gst_net_src_props_install (&sink_props, gobject_class, PROP_NET_SINK);
  g_object_class_install_property (gobject_class, PROP_TCP_CONGESTION,
      g_param_spec_string ("tcp-congestion", "TCP congestion control",
          "TCP_CONGESTION of the probing connection, e.g. cubic or reno. "
          "Cubic, the Linux default, by default: the probe measures the share "
          "of the traffic it shares the path with, and most of that is cubic "
          "(a BBR probe beside cubic flows took 2-2.6x their rate); empty: "
          "the system's default", DEFAULT_TCP_CONGESTION, rw));
  g_object_class_install_property (gobject_class, PROP_TCP_PACING,
      g_param_spec_boolean ("tcp-pacing", "TCP pacing",
          "Let Linux pace the probing connection (SO_MAX_PACING_RATE, capped "
          "at max-rate): it resumes after a running period at about cwnd / "
          "RTT instead of with a burst of its whole window (not in the paper; "
          "recommended with cubic: r_s then comes near the fair share)",
          FALSE, rw));
  gst_param_table_install (&gst_tpba_params, gobject_class,
      PROP_CONFIG_FIRST, GST_TPBA_PARAM_SINK);
  gst_net_key_install (gobject_class, PROP_KEY, "the RTCP both ends send "
      "and the session token on each TCP connection: sent with a trailer, "
      "taken only when sound and fresh; the tpbasrc needs the same key");
  gst_net_srtp_install (gobject_class, PROP_SRTP, "every RTP packet, over "
      "UDP and in the TCP frames alike, once its sequence number is final "
      "(the tpbasrc needs the same key)");
  gst_net_uri_handler_set_info (GST_TYPE_TPBA_SINK, GST_URI_SINK, "tpba",
      "host", "port");

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "TPBA sink", "Sink/Network/RTP", SINK_DESCRIPTION,
      "gst-rtp-transports developers");
  gst_type_mark_as_plugin_api (GST_TYPE_TPBA_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TPBA_END_CRITERION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TPBA_PROBE_INTERVAL, 0);
  GST_DEBUG_CATEGORY_INIT (gst_tpba_sink_debug, "tpbasink", 0, "TPBA sink");
}

static void
gst_tpba_sink_init (GstTpbaSink * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  self->tcp_congestion = g_strdup (DEFAULT_TCP_CONGESTION);
  self->tcp_port = -1;
  self->rtcp_port = -1;
  self->max_queue_bytes = DEFAULT_MAX_QUEUE_BYTES;
  self->connect_timeout = DEFAULT_CONNECT_TIMEOUT;
  self->notsent_lowat = DEFAULT_NOTSENT_LOWAT;
  tpba_config_init (&self->cfg);
  gst_net_src_settings_init (&sink_props, &self->net_sink);
  gst_net_srtp_settings_init (&self->srtp_settings);
  self->sealed = g_malloc (MAX_SEALED);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  sender_queue_init (&self->queue, SENDER_QUEUE_DROP_NEWEST, 0, item_free);
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "tpba-stats",
      get_stats);
  self->rates = gst_rate_path_new (GST_ELEMENT (self),
      GST_BASE_SINK_PAD (self), 100 * GST_MSECOND, "bitrate", NULL);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}
