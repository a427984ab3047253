/**
 * SECTION:element-tpbasrc
 * @title: tpbasrc
 * @see_also: tpbasink
 *
 * Receives the RTP stream of a #tpbasink (TCP-rate-probing-based adaptation,
 * docs/protocols/tpba.md): it listens on UDP #GstTpbaSrc:port for RTP in the
 * running period, on TCP #GstTpbaSrc:tcp-port for RTP in the probing period
 * (RFC 4571 framing) and on UDP #GstTpbaSrc:rtcp-port for the sender's
 * RTCP, merges both transports into one RTP stream in sequence order (no
 * duplicate, no gap at a switch: a gap after a TCP packet is waited for
 * #GstTpbaSrc:switch-wait, one after UDP #GstTpbaSrc:reorder-wait) and
 * pushes it downstream as a live source. RTCP receiver reports go every
 * #GstTpbaSrc:t-rtcp to the address the sender's RTCP came from.
 *
 * TCP is accepted only from the expected peer: #GstTpbaSrc:peer-address,
 * or else the host the first RTP or RTCP datagram came from (the sink sends
 * an empty RR before it connects). Other connections are closed at once and
 * counted (`tcp-refused` in #GstTpbaSrc:stats); so are datagrams from other
 * hosts (`foreign`). A connection from the peer's host must first show the
 * session token the sink's RTCP carried (else it is refused and counted in
 * `tcp-bad-token` / `tcp-refused`); then it replaces the old one.
 *
 * With #GstTpbaSrc:key (or #GstTpbaSrc:key-file) set, as on the tpbasink,
 * RTCP is taken only when its authentication trailer is sound and fresh,
 * the peer is learnt only from such RTCP, and a connection must open with
 * the sink's sealed token message: a captured one shown again is refused
 * as a replay (docs/security.md). Refusals are counted in `auth-*`.
 *
 * With #GstTpbaSrc:srtp-key (the tpbasink's SRTP key) every RTP packet,
 * from UDP or from a TCP frame, is authenticated and decrypted before the
 * core reads it; one that fails is dropped and counted in `srtp-*`.
 *
 * When the sender's first packet arrives, and whenever downstream sends a
 * force-key-unit event upstream, an RTCP PLI (RFC 4585, reduced-size) asks
 * the sender for a key unit. #GstTpbaSrc:caps is required unless a
 * downstream element fixes the RTP caps.
 *
 * Ports 0 are ephemeral; the bound ports can be read back from the
 * properties once the element is PAUSED.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 tpbasrc port=5004 caps="application/x-rtp,media=audio,clock-rate=44100,encoding-name=L16,channels=1" ! \
 *   rtpL16depay ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gsttpbasrc.h"
#include "gstnetsrtp.h"
#include "gsttpbautil.h"
#include "gstnetloop.h"
#include "gstnetsocket.h"
#include "gstnetsrc.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetudpprops.h"
#include "gstneturi.h"
#include "core/rfc4571.h"
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpba_src_debug);
#define GST_CAT_DEFAULT gst_tpba_src_debug

#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_PORT 5004
#define MAX_PENDING 4
#define TOKEN_WAIT (2 * GST_SECOND)
#define MAX_PLAIN RFC4571_MAX_FRAME

enum
{
  PROP_0,
  PROP_TCP_PORT,
  PROP_RTCP_PORT,
  PROP_PEER_ADDRESS,
  PROP_NET_SRC,                 /* gstnetsrc.h's from here */
  PROP_KEY = PROP_NET_SRC + GST_NET_SRC_N_PROPS,        /* gstnetkey.h's */
  PROP_SRTP = PROP_KEY + GST_NET_KEY_N_PROPS,   /* gstnetsrtp.h's */
  PROP_UDP_FIRST = PROP_SRTP + GST_NET_SRTP_N_PROPS,
  PROP_CONFIG_FIRST = PROP_UDP_FIRST + GST_NET_UDP_N_PROPS,
};

static const GstNetUdpProps udp_props = {
  .address_default = DEFAULT_ADDRESS,
  .port_min = 0,
  .port_default = DEFAULT_PORT,
  .address_blurb = "Local address to listen on",
  .port_blurb = "UDP port for RTP (0: ephemeral; the bound port after start)",
  .socket_blurb = "A UDP socket of the application's to receive RTP on, used "
      "as given: not bound and not closed by the element; port then reads "
      "its port (NULL: one of the element's own on address:port)",
};

/* An accepted connection from the peer's host that has not yet shown the
 * session token (its token message). */
typedef struct
{
  GSocket *sock;
  GSource *watch;
  gint64 since;
  guint8 token[TPBA_TOKEN_MESSAGE_SIZE];
  guint got;
  gchar *who;
} Pending;

struct _GstTpbaSrc
{
  GstPushSrc parent;

  /* Settings, under the object lock */
  GstNetUdpSettings net;        /* address, port, socket: RTP's */
  gchar *peer_address;
  gint tcp_port, rtcp_port;
  GstNetSrcSettings net_src;
  GstNetKeySettings key;
  GstNetSrtpSettings srtp_settings;
  TpbaConfig cfg;

  GstNetStats stats;

  /* State, under lock: the loop thread feeds the core, create() takes
   * the packets in order (cond: a packet or a flush). */
  GstNetSrcWait wait;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  GstNetUdp *udp, *rtcp;
  GSocket *listener, *tcp;
  GSource *listen_watch, *tcp_watch;
  TpbaReceiver *core;
  AuthSession *auth;            /* NULL: no key */
  GstNetSrtp *srtp;             /* NULL: plain RTP */
  guint8 *plain;                /* a packet SRTP opened */
  GSocketAddress *peer, *rtcp_dest;
  Rfc4571Deframer tcp_in;       /* the TCP stream's frames */
  gboolean have_token;
  guint64 token;                /* the sender's, from its first RTCP */
  Pending pending[MAX_PENDING];
  guint n_pending;
  guint64 tcp_accepted, tcp_refused, tcp_closed, foreign;
  guint64 tcp_bad_token, key_unit_requests;
  gchar *peer_str;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpba_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstTpbaSrc, gst_tpba_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (tpbasrc, "tpbasrc", GST_RANK_NONE,
    GST_TYPE_TPBA_SRC);

static GstStructure *get_stats (GstElement * element);

/* TRUE if a datagram from @from may be taken (learns the peer). */
static gboolean
from_peer (GstTpbaSrc * self, GSocketAddress * from)
{
  if (!self->peer) {
    self->peer = g_object_ref (from);
    g_free (self->peer_str);
    self->peer_str = gst_net_address_to_string (from);
    GST_INFO_OBJECT (self, "peer is %s", self->peer_str);
    return TRUE;
  }
  if (gst_net_address_same_host (from, self->peer))
    return TRUE;
  self->foreign++;
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* TCP (loop thread, lock held) */

static void
tcp_drop (GstTpbaSrc * self)
{
  if (self->tcp) {
    gst_net_loop_unwatch (&self->tcp_watch);
    g_socket_close (self->tcp, NULL);
    g_clear_object (&self->tcp);
    self->tcp_closed++;
  }
  rfc4571_deframer_reset (&self->tcp_in);
}

static void
pending_remove (GstTpbaSrc * self, guint i, gboolean close)
{
  Pending *p = &self->pending[i];

  gst_net_loop_unwatch (&p->watch);
  if (close)
    g_socket_close (p->sock, NULL);
  g_object_unref (p->sock);
  g_free (p->who);
  memmove (&self->pending[i], &self->pending[i + 1],
      (self->n_pending - i - 1) * sizeof (Pending));
  self->n_pending--;
}

static void
pending_refuse (GstTpbaSrc * self, guint i, const gchar * why)
{
  GST_WARNING_OBJECT (self, "refused a TCP connection from %s: %s",
      self->pending[i].who, why);
  self->tcp_refused++;
  pending_remove (self, i, TRUE);
}

static void
pending_clear (GstTpbaSrc * self)
{
  while (self->n_pending)
    pending_remove (self, 0, TRUE);
}

static gboolean on_pending_readable (GSocket * sock, GIOCondition cond,
    gpointer data);

static void
pending_add (GstTpbaSrc * self, GSocket * sock, gchar * who)
{
  Pending *p;

  if (self->n_pending == MAX_PENDING)
    pending_refuse (self, 0, "too many connections waiting for a token");
  p = &self->pending[self->n_pending++];
  p->sock = sock;
  p->since = gst_net_now ();
  p->got = 0;
  p->who = who;
  p->watch = gst_net_loop_watch (self->loop, sock, G_IO_IN,
      on_pending_readable, self);
}

static gboolean
on_accept (GSocket * listener, GIOCondition cond, gpointer data)
{
  GstTpbaSrc *self = data;
  GSocket *sock;

  g_mutex_lock (&self->wait.lock);
  while ((sock = gst_net_tcp_accept (listener, NULL))) {
    GSocketAddress *from = g_socket_get_remote_address (sock, NULL);
    gchar *who = gst_net_address_to_string (from);

    if (!self->peer || !gst_net_address_same_host (from, self->peer)) {
      self->tcp_refused++;
      GST_WARNING_OBJECT (self, "refused a TCP connection from %s (expected "
          "%s)", who, self->peer ? self->peer_str : "no peer yet");
      g_socket_close (sock, NULL);
      g_object_unref (sock);
      g_free (who);
    } else
      pending_add (self, sock, who);
    g_clear_object (&from);
  }
  g_mutex_unlock (&self->wait.lock);
  return G_SOURCE_CONTINUE;
}

/* NULL if the token message connection @p presented is the sink's: it
 * opens under the key (fresh: a captured one was taken already) and
 * carries the token its RTCP did; else why not. */
static const gchar *
token_refusal (GstTpbaSrc * self, const Pending * p)
{
  guint64 token = 0;
  AuthVerdict v = tpba_token_message_open (self->auth, p->token, p->got,
      gst_net_now (), &token);

  if (v != AUTH_OK) {
    GST_DEBUG_OBJECT (self, "token message from %s: %s", p->who,
        auth_verdict_name (v));
    return "its token message does not open under the key";
  }
  if (!self->have_token)
    return "no session token known yet (no RTCP from the sender)";
  return token == self->token ? NULL : "wrong session token";
}

static gboolean on_tcp_readable (GSocket * sock, GIOCondition cond,
    gpointer data);

/* The connection proved it is the sink's: it replaces the old one. */
static void
pending_accept (GstTpbaSrc * self, guint i)
{
  GSocket *sock = g_object_ref (self->pending[i].sock);

  if (self->tcp)
    GST_INFO_OBJECT (self, "a new TCP connection from %s replaces the old "
        "one", self->pending[i].who);
  GST_INFO_OBJECT (self, "TCP connection from %s", self->pending[i].who);
  pending_remove (self, i, FALSE);
  tcp_drop (self);
  self->tcp = sock;
  self->tcp_watch = gst_net_loop_watch (self->loop, sock, G_IO_IN,
      on_tcp_readable, self);
  self->tcp_accepted++;
}

/* Reads the token message of pending connection @i (the token, sealed
 * with a key; before any frame). */
static void
pending_read (GstTpbaSrc * self, guint i)
{
  Pending *p = &self->pending[i];
  gsize need = tpba_token_message_size (self->auth);
  GError *err = NULL;
  gssize n = gst_net_tcp_receive (p->sock, p->token + p->got,
      need - p->got, &err);
  const gchar *why;

  if (n < 0 && g_error_matches (err, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
    g_error_free (err);
    return;
  }
  g_clear_error (&err);
  if (n <= 0) {
    pending_refuse (self, i, "closed before it sent the session token");
    return;
  }
  p->got += n;
  if (p->got < need)
    return;
  if (!(why = token_refusal (self, p)))
    pending_accept (self, i);
  else {
    self->tcp_bad_token++;
    pending_refuse (self, i, why);
  }
}

static gboolean
on_pending_readable (GSocket * sock, GIOCondition cond, gpointer data)
{
  GstTpbaSrc *self = data;

  g_mutex_lock (&self->wait.lock);
  for (guint i = 0; i < self->n_pending; i++)
    if (self->pending[i].sock == sock) {
      pending_read (self, i);
      break;
    }
  g_mutex_unlock (&self->wait.lock);
  return G_SOURCE_CONTINUE;
}

/* Refuses connections that kept their token back too long. */
static void
pending_expire (GstTpbaSrc * self, gint64 now)
{
  guint i = 0;

  while (i < self->n_pending)
    if (now - self->pending[i].since >= TOKEN_WAIT)
      pending_refuse (self, i, "no session token in time");
    else
      i++;
}

/* One RTP packet to the core, opened first with an SRTP key (refused
 * ones are counted there and dropped). With the lock. */
static void
take_rtp (GstTpbaSrc * self, TpbaTransport transport, const guint8 * data,
    gsize len, gint64 now)
{
  GstBuffer *b;

  if (self->srtp && !(data = gst_net_srtp_unprotect_copy (self->srtp, NULL,
              data, &len, self->plain, MAX_PLAIN)))
    return;
  b = gst_buffer_new_memdup (data, len);
  if (tpba_receiver_on_rtp (self->core, transport, data, len, b, now) !=
      TPBA_RECV_ACCEPTED)
    gst_buffer_unref (b);
}

/* The whole RFC 4571 frames received so far go to the core. */
static void
take_frames (GstTpbaSrc * self, gint64 now)
{
  const guint8 *frame;
  gsize len;

  while (rfc4571_deframer_pop (&self->tcp_in, &frame, &len))
    take_rtp (self, TPBA_TRANSPORT_TCP, frame, len, now);
}

static gboolean
on_tcp_readable (GSocket * sock, GIOCondition cond, gpointer data)
{
  GstTpbaSrc *self = data;
  guint8 buf[16384];

  g_mutex_lock (&self->wait.lock);
  for (;;) {
    GError *err = NULL;
    gssize n = gst_net_tcp_receive (sock, buf, sizeof (buf), &err);

    if (n < 0 && g_error_matches (err, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
      g_error_free (err);
      break;
    }
    if (n <= 0) {
      GST_INFO_OBJECT (self, "TCP connection closed: %s",
          n == 0 ? "end of stream" : err->message);
      g_clear_error (&err);
      tcp_drop (self);
      break;
    }
    rfc4571_deframer_push (&self->tcp_in, buf, n);
    take_frames (self, gst_net_now ());
  }
  g_cond_broadcast (&self->wait.cond);
  g_mutex_unlock (&self->wait.lock);
  gst_net_loop_wake (self->loop);
  return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------------ */
/* Datagrams (loop thread) */

/* With a key the peer is named only by RTCP that opens: an RTP datagram,
 * which anyone can send, must not take its place. */
static gboolean
rtp_from_peer (GstTpbaSrc * self, GSocketAddress * from)
{
  if (self->auth && !self->peer) {
    self->foreign++;
    return FALSE;
  }
  return from_peer (self, from);
}

static void
on_udp (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstTpbaSrc *self = user_data;

  g_mutex_lock (&self->wait.lock);
  if (rtp_from_peer (self, from)) {
    take_rtp (self, TPBA_TRANSPORT_UDP, data, size, gst_net_now ());
    g_cond_broadcast (&self->wait.cond);
  }
  g_mutex_unlock (&self->wait.lock);
  gst_net_loop_wake (self->loop);
}

/* The session token is the one the peer's first RTCP carried: one sender
 * per run, as the SSRC is. */
static void
learn_token (GstTpbaSrc * self, const guint8 * buf, gsize n)
{
  TpbaRtcpExtras ex;

  if (self->have_token || !tpba_rtcp_scan (buf, n, &ex) || !ex.has_token)
    return;
  self->token = ex.token;
  self->have_token = TRUE;
  GST_DEBUG_OBJECT (self, "session token learned");
}

/* TRUE if an RTCP datagram may be parsed: from the peer's host (or the
 * first, which names the peer) and, with a key, when it opens; *@len is
 * then the length of its RTCP. */
static gboolean
rtcp_from_peer (GstTpbaSrc * self, GSocketAddress * from,
    const guint8 * data, gsize size, gsize * len)
{
  if (self->peer && !gst_net_address_same_host (from, self->peer)) {
    self->foreign++;
    return FALSE;
  }
  return tpba_control_open (self->auth, data, size, gst_net_now (), len) &&
      from_peer (self, from);
}

static void
on_rtcp (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstTpbaSrc *self = user_data;
  gsize len;

  g_mutex_lock (&self->wait.lock);
  if (rtcp_from_peer (self, from, data, size, &len)) {
    learn_token (self, data, len);
    /* RRs go back where the sender's RTCP comes from */
    if (tpba_receiver_on_rtcp (self->core, data, len, gst_net_now ()))
      g_set_object (&self->rtcp_dest, from);
  }
  g_mutex_unlock (&self->wait.lock);
  gst_net_loop_wake (self->loop);
}

/* Sends the @n bytes of RTCP at @buf (@max bytes), sealed with a key. */
static void
send_rtcp (GstTpbaSrc * self, guint8 * buf, gsize n, gsize max)
{
  GError *err = NULL;

  n = tpba_control_seal (self->auth, buf, n, max);
  if (n && !gst_net_transport_send_to (GST_NET_TRANSPORT (self->rtcp), buf, n,
          self->rtcp_dest, &err)) {
    GST_DEBUG_OBJECT (self, "RTCP: %s", err->message);
    g_error_free (err);
  }
}

/* The core's timers: RRs and PLIs out, stale pending connections closed,
 * the stats posted. */
static gint64
src_work (gpointer data, gint64 now)
{
  GstTpbaSrc *self = data;
  guint8 rtcp[TPBA_RTCP_MAX_SIZE + AUTH_TRAILER_SIZE];
  gint64 deadline;
  gsize n;

  g_mutex_lock (&self->wait.lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  tpba_receiver_advance (self->core, now);
  pending_expire (self, now);
  while (self->rtcp_dest &&
      (n = tpba_receiver_pop_pli (self->core, rtcp, TPBA_RTCP_MAX_SIZE)))
    send_rtcp (self, rtcp, n, sizeof (rtcp));
  while ((n = tpba_receiver_pop_rtcp (self->core, rtcp, TPBA_RTCP_MAX_SIZE)))
    if (self->rtcp_dest)
      send_rtcp (self, rtcp, n, sizeof (rtcp));
  deadline = MIN (tpba_receiver_next_deadline (self->core), now + GST_SECOND);
  g_mutex_unlock (&self->wait.lock);
  return MIN (deadline, gst_net_stats_poll (&self->stats, now));
}

/* ------------------------------------------------------------------ */
/* GstPushSrc */

/* The next packet in sequence order; waits for one (or for a gap's wait
 * to end) until a flush. */
static GstFlowReturn
gst_tpba_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstTpbaSrc *self = GST_TPBA_SRC (psrc);

  g_mutex_lock (&self->wait.lock);
  for (;;) {
    gint64 now = gst_net_now (), deadline;
    GstBuffer *b;
    guint16 seq;

    if (self->wait.flushing) {
      g_mutex_unlock (&self->wait.lock);
      return GST_FLOW_FLUSHING;
    }
    b = tpba_receiver_pop_rtp (self->core, now, &seq);
    if (b) {
      g_mutex_unlock (&self->wait.lock);
      *outbuf = b;
      return GST_FLOW_OK;
    }
    if (now >= tpba_receiver_next_deadline (self->core)) {
      /* an RR timer, not a gap: the loop sends it */
      tpba_receiver_advance (self->core, now);
      gst_net_loop_wake (self->loop);
    }
    deadline = CLAMP (tpba_receiver_next_deadline (self->core), now,
        now + GST_SECOND);
    g_cond_wait_until (&self->wait.cond, &self->wait.lock, (deadline + 999) / 1000);
  }
}

/* The RTP transport (the application's socket if it gave one), the TCP
 * listener and the RTCP transport on @local; -1 ports are what they
 * default to. Sets the bound ports. */
static gboolean
open_sockets (GstTpbaSrc * self, GSocketAddress * local, GSocket * app_socket,
    gint * port, gint * tcp_port, gint * rtcp_port, GError ** err)
{
  GInetAddress *ia =
      g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (local));
  gchar *address = g_inet_address_to_string (ia);
  GstNetUdpSettings rtp = GST_NET_UDP_SETTINGS_INIT;
  GstNetUdpSettings rtcp = GST_NET_UDP_SETTINGS_INIT;
  GSocketAddress *tcp_local;

  rtp.address = rtcp.address = address;
  rtp.port = *port;
  rtp.socket = app_socket;
  self->udp = gst_net_udp_new (&rtp, g_inet_address_get_family (ia), err);
  if (self->udp) {
    *port = gst_net_udp_get_port (self->udp);
    *tcp_port = *tcp_port < 0 ? *port : *tcp_port;
    *rtcp_port = *rtcp_port < 0 ? *port + 1 : *rtcp_port;
    tcp_local = g_inet_socket_address_new (ia, *tcp_port);
    self->listener = gst_net_tcp_listen (tcp_local, err);
    g_object_unref (tcp_local);
    if (!self->listener)
      g_prefix_error (err, "Could not bind TCP port %s:%d: ", address,
          *tcp_port);
  }
  if (self->listener) {
    *tcp_port = gst_net_socket_get_local_port (self->listener);
    rtcp.port = *rtcp_port;
    self->rtcp = gst_net_udp_new (&rtcp, g_inet_address_get_family (ia), err);
  }
  if (self->rtcp)
    *rtcp_port = gst_net_udp_get_port (self->rtcp);
  g_free (address);
  return self->rtcp != NULL;
}

static gboolean
start_failed (GstTpbaSrc * self, GError * err)
{
  GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message), (NULL));
  g_error_free (err);
  g_clear_object (&self->udp);
  g_clear_object (&self->listener);
  g_clear_object (&self->rtcp);
  g_clear_object (&self->peer);
  return FALSE;
}

static gboolean
gst_tpba_src_start (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);
  GError *err = NULL;
  gchar *address, *peer;
  gint port, tcp_port, rtcp_port;
  GSocket *app_socket;
  GSocketAddress *local;
  TpbaConfig cfg;
  GstStructure *s;
  gint64 stats_interval;
  AuthSession *auth;
  GstNetSrtpSettings srtp_settings;
  GstNetSrtp *srtp = NULL;
  gint cr;

  GST_OBJECT_LOCK (self);
  gst_net_srtp_settings_copy (&srtp_settings, &self->srtp_settings);
  GST_OBJECT_UNLOCK (self);
  if (!gst_tpba_auth_new (GST_ELEMENT (self), &self->key, &auth, &err) ||
      !gst_net_srtp_load (&srtp_settings, GST_NET_SRTP_RECEIVE, &srtp,
          &err)) {
    gst_net_srtp_settings_clear (&srtp_settings);
    g_clear_pointer (&auth, auth_session_free);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  gst_net_srtp_settings_clear (&srtp_settings);
  GST_OBJECT_LOCK (self);
  address = g_strdup (self->net.address);
  peer = g_strdup (self->peer_address);
  port = self->net.port;
  tcp_port = self->tcp_port;
  rtcp_port = self->rtcp_port;
  app_socket = self->net.socket ? g_object_ref (self->net.socket) : NULL;
  cfg = self->cfg;
  stats_interval = self->net_src.stats_interval;
  if (self->net_src.caps && gst_caps_get_size (self->net_src.caps) > 0 &&
      (s = gst_caps_get_structure (self->net_src.caps, 0)) &&
      gst_structure_get_int (s, "clock-rate", &cr) && cr > 0)
    cfg.clock_rate = cr;
  GST_OBJECT_UNLOCK (self);

  local = gst_net_resolve ("address", address, 0, NULL, &err);
  if (local)
    open_sockets (self, local, app_socket, &port, &tcp_port, &rtcp_port,
        &err);
  g_clear_object (&local);
  g_clear_object (&app_socket);
  if (!err && peer && *peer &&
      (self->peer = gst_net_resolve ("peer-address", peer, 0, NULL, &err)))
    self->peer_str = gst_net_address_to_string (self->peer);
  g_free (address);
  g_free (peer);
  if (err) {
    g_clear_pointer (&auth, auth_session_free);
    g_clear_pointer (&srtp, gst_net_srtp_free);
    return start_failed (self, err);
  }
  GST_OBJECT_LOCK (self);
  self->net.port = port;
  self->tcp_port = tcp_port;
  self->rtcp_port = rtcp_port;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->wait.lock);
  self->core = tpba_receiver_new (&cfg, g_random_int (),
      (GDestroyNotify) gst_buffer_unref, gst_net_now ());
  self->auth = auth;
  self->srtp = srtp;
  rfc4571_deframer_init (&self->tcp_in, RFC4571_MAX_FRAME);
  self->tcp_accepted = self->tcp_refused = self->tcp_closed = 0;
  self->foreign = 0;
  self->tcp_bad_token = self->key_unit_requests = 0;
  self->have_token = FALSE;
  gst_net_loop_counts_clear (&self->loop_counts);
  g_mutex_unlock (&self->wait.lock);
  gst_net_stats_start (&self->stats, stats_interval, gst_net_now ());
  self->loop = gst_net_loop_new ("tpbasrc", src_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->wait.lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->udp), on_udp,
      self);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->rtcp), on_rtcp,
      self);
  self->listen_watch = gst_net_loop_watch (self->loop, self->listener,
      G_IO_IN, on_accept, self);
  gst_net_loop_start (self->loop);
  GST_INFO_OBJECT (self, "listening: UDP %d, TCP %d, RTCP %d", port,
      tcp_port, rtcp_port);
  return TRUE;
}

static gboolean
gst_tpba_src_stop (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->wait.lock);
  gst_net_loop_unwatch (&self->listen_watch);
  pending_clear (self);
  if (self->tcp_in.buf)
    tcp_drop (self);
  g_clear_object (&self->udp);
  g_clear_object (&self->rtcp);
  g_clear_object (&self->listener);
  g_clear_pointer (&self->loop, gst_net_loop_free);
  if (self->core)
    tpba_receiver_free (self->core);
  self->core = NULL;
  g_clear_pointer (&self->auth, auth_session_free);
  g_clear_pointer (&self->srtp, gst_net_srtp_free);
  rfc4571_deframer_clear (&self->tcp_in);
  g_clear_object (&self->peer);
  g_clear_object (&self->rtcp_dest);
  g_clear_pointer (&self->peer_str, g_free);
  g_mutex_unlock (&self->wait.lock);
  return TRUE;
}

/* The depayloader asks for a key unit (as it does of rtpbin): a PLI. */
static gboolean
gst_tpba_src_event (GstBaseSrc * bsrc, GstEvent * event)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  if (gst_video_event_is_force_key_unit (event) &&
      GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM) {
    g_mutex_lock (&self->wait.lock);
    if (self->core) {
      tpba_receiver_request_key_unit (self->core);
      self->key_unit_requests++;
      gst_net_loop_wake (self->loop);
    }
    g_mutex_unlock (&self->wait.lock);
    GST_DEBUG_OBJECT (self, "key unit requested downstream: PLI");
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (parent_class)->event (bsrc, event);
}

/* Whether @caps say enough for a depayloader to be found: RTP packets do
 * not carry their encoding, so without caps= a decodebin would only report
 * a missing plug-in for bare application/x-rtp. */
static gboolean
caps_describe_stream (GstCaps * caps)
{
  GstStructure *s;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  return gst_structure_has_field (s, "encoding-name") &&
      gst_structure_has_field (s, "clock-rate");
}

static gboolean
gst_tpba_src_negotiate (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);
  GstCaps *peer;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  ok = self->net_src.caps != NULL;
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    /* downstream may still fix them (a capsfilter, a depayloader) */
    GstCaps *tmpl = gst_static_pad_template_get_caps (&src_template);
    peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (bsrc), tmpl);
    gst_caps_unref (tmpl);
    ok = caps_describe_stream (peer);
    gst_caps_unref (peer);
  }
  if (!ok) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("tpbasrc needs caps=\"application/x-rtp,media=...,clock-rate=...,"
            "encoding-name=...\" (or a downstream element that fixes them): "
            "RTP packets do not say what they carry"),
        ("no caps property and downstream accepts any RTP"));
    return FALSE;
  }
  return GST_BASE_SRC_CLASS (parent_class)->negotiate (bsrc);
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_tpba_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpbaSrc *self = GST_TPBA_SRC (object);

  if (gst_net_src_props_set (GST_BASE_SRC (self), &self->net_src,
          PROP_NET_SRC, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TCP_PORT:
      self->tcp_port = g_value_get_int (value);
      break;
    case PROP_RTCP_PORT:
      self->rtcp_port = g_value_get_int (value);
      break;
    case PROP_PEER_ADDRESS:
      g_free (self->peer_address);
      self->peer_address = g_value_dup_string (value);
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

static GstStructure *
get_stats (GstElement * element)
{
  GstTpbaSrc *self = GST_TPBA_SRC (element);
  GstStructure *s = gst_structure_new_empty ("application/x-tpba-src-stats");

  g_mutex_lock (&self->wait.lock);
  if (self->core) {
    TpbaReceiverStats st;
    tpba_receiver_get_stats (self->core, &st);
    gst_structure_set (s,
        "sender-ssrc", G_TYPE_UINT, st.sender_ssrc,
        "packets-udp", G_TYPE_UINT64, st.packets_udp,
        "packets-tcp", G_TYPE_UINT64, st.packets_tcp,
        "bytes-udp", G_TYPE_UINT64, st.bytes_udp,
        "bytes-tcp", G_TYPE_UINT64, st.bytes_tcp,
        "delivered", G_TYPE_UINT64, st.delivered,
        "duplicates", G_TYPE_UINT64, st.duplicates,
        "late", G_TYPE_UINT64, st.late,
        "skipped", G_TYPE_UINT64, st.skipped,
        "invalid", G_TYPE_UINT64, st.invalid + self->tcp_in.empty +
        self->tcp_in.oversize,
        "held", G_TYPE_UINT, st.held,
        "ext-highest-seq", G_TYPE_UINT, st.ext_highest_seq,
        "cumulative-lost", G_TYPE_INT64, st.cumulative_lost,
        "fraction-lost", G_TYPE_UINT, (guint) st.fraction_lost,
        "jitter", G_TYPE_UINT, st.jitter,
        "rtcp-received", G_TYPE_UINT64, st.rtcp_received,
        "rtcp-refused", G_TYPE_UINT64, st.rtcp_refused,
        "rr-sent", G_TYPE_UINT64, st.rr_sent,
        "pli-sent", G_TYPE_UINT64, st.pli_sent, NULL);
  }
  gst_structure_set (s,
      "peer", G_TYPE_STRING, self->peer_str,
      "tcp-connected", G_TYPE_BOOLEAN, self->tcp != NULL,
      "tcp-accepted", G_TYPE_UINT64, self->tcp_accepted,
      "tcp-refused", G_TYPE_UINT64, self->tcp_refused,
      "tcp-bad-token", G_TYPE_UINT64, self->tcp_bad_token,
      "key-unit-requests", G_TYPE_UINT64, self->key_unit_requests,
      "tcp-closed", G_TYPE_UINT64, self->tcp_closed,
      "foreign", G_TYPE_UINT64, self->foreign, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  gst_tpba_auth_stats (s, self->auth);
  gst_net_srtp_stats (s, self->srtp);
  g_mutex_unlock (&self->wait.lock);
  return s;
}

static void
gst_tpba_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTpbaSrc *self = GST_TPBA_SRC (object);

  if (gst_net_src_props_get (GST_BASE_SRC (self), &self->net_src,
          &self->stats, PROP_NET_SRC, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TCP_PORT:
      g_value_set_int (value, self->tcp_port);
      break;
    case PROP_RTCP_PORT:
      g_value_set_int (value, self->rtcp_port);
      break;
    case PROP_PEER_ADDRESS:
      g_value_set_string (value, self->peer_address);
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
gst_tpba_src_finalize (GObject * object)
{
  GstTpbaSrc *self = GST_TPBA_SRC (object);

  gst_net_udp_settings_clear (&self->net);
  gst_net_key_settings_clear (&self->key);
  gst_net_srtp_settings_clear (&self->srtp_settings);
  g_free (self->plain);
  g_free (self->peer_address);
  gst_net_src_settings_clear (&self->net_src);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define SRC_STATS_BLURB \
  "Receiver counters (GstStructure). While running: " \
  "sender-ssrc: the sender's SSRC, an RTP identifier (0 before its " \
  "first packet); " \
  "packets-udp: RTP packets received over UDP, packets; " \
  "packets-tcp: RTP packets received over TCP, packets; " \
  "bytes-udp: RTP bytes received over UDP, bytes; " \
  "bytes-tcp: RTP bytes received over TCP (framing excluded), bytes; " \
  "delivered: packets pushed downstream in sequence order, packets; " \
  "duplicates: second copies dropped, packets; " \
  "late: packets dropped because their gap was skipped already, packets; " \
  "skipped: gaps given up after reorder-wait or switch-wait, count; " \
  "invalid: datagrams or frames that were not RTP of the sender, count; " \
  "held: packets in the reorder buffer now, packets; " \
  "ext-highest-seq: extended highest sequence number received, " \
  "sequence number (wrap cycles in the upper 16 bits); " \
  "cumulative-lost: expected minus received since the first packet, " \
  "packets; " \
  "fraction-lost: fraction lost in the last RR, 1/256; " \
  "jitter: interarrival jitter (RFC 3550 A.8), RTP timestamp units; " \
  "rtcp-received: RTCP packets from the sender taken, packets; " \
  "rtcp-refused: malformed RTCP packets dropped, packets; " \
  "rr-sent: receiver reports sent, packets; " \
  "pli-sent: PLIs (RFC 4585) sent to ask for a key unit, packets. " \
  "Always: " \
  "peer: the sender's address, host:port (string); " \
  "tcp-connected: whether a TCP connection is up (boolean); " \
  "tcp-accepted: TCP connections accepted, count; " \
  "tcp-refused: TCP connections refused (another host, no or a wrong " \
  "session token), count; " \
  "tcp-bad-token: of those, the ones that showed a wrong token, or with " \
  "a key a token message that does not open, count; " \
  "key-unit-requests: force-key-unit events from downstream, count; " \
  "tcp-closed: TCP connections closed, count; " \
  "foreign: datagrams from other hosts, or with a key RTP before the " \
  "sender's first RTCP that opens, dropped, count; " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " GST_NET_SRTP_STATS_DOC

static const GstNetSrcProps src_props = {
  .caps_blurb = "The caps of the RTP stream",
  .stats_interval_blurb = "Post the stats as a `tpba-stats` element message "
      "this often, ns (0: never)",
  .stats_blurb = SRC_STATS_BLURB,
};

#define SRC_DESCRIPTION \
  "Receives the RTP stream of a tpbasink over a TCP/UDP flow pair " \
  "(TCP-rate-probing-based adaptation) and pushes it in sequence order; " \
  "sends RTCP receiver reports and a PLI when it joins a stream or " \
  "downstream asks for a key unit. caps= is required (RTP does not say " \
  "what it carries). Example: gst-launch-1.0 tpbasrc port=5004 " \
  "caps=\"application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264\" ! rtph264depay ! avdec_h264 ! videoconvert ! " \
  "autovideosink. URI: tpba://ADDRESS:PORT?key=value&... (any property as " \
  "key, e.g. tpba://0.0.0.0:5004?reorder-wait=100000000)."

static void
gst_tpba_src_class_init (GstTpbaSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_tpba_src_set_property;
  gobject_class->get_property = gst_tpba_src_get_property;
  gobject_class->finalize = gst_tpba_src_finalize;
  bsrc_class->start = gst_tpba_src_start;
  bsrc_class->stop = gst_tpba_src_stop;
  gst_net_src_class_init (bsrc_class, G_STRUCT_OFFSET (GstTpbaSrc, wait),
      G_STRUCT_OFFSET (GstTpbaSrc, net_src.caps), &src_template);
  bsrc_class->event = gst_tpba_src_event;
  bsrc_class->negotiate = gst_tpba_src_negotiate;
  psrc_class->create = gst_tpba_src_create;

  gst_net_udp_props_install (&udp_props, gobject_class, PROP_UDP_FIRST);
  g_object_class_install_property (gobject_class, PROP_TCP_PORT,
      g_param_spec_int ("tcp-port", "TCP port",
          "TCP port for RTP in the probing period (-1: port; 0: ephemeral)",
          -1, 65535, -1, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_PORT,
      g_param_spec_int ("rtcp-port", "RTCP port",
          "UDP port for RTCP (-1: port + 1; 0: ephemeral)", -1, 65535, -1,
          rw));
  g_object_class_install_property (gobject_class, PROP_PEER_ADDRESS,
      g_param_spec_string ("peer-address", "Peer address",
          "The only host TCP is accepted from (NULL: the host the first "
          "RTP or RTCP datagram came from)", NULL, rw));
  /**
   * GstTpbaSrc:stats:
   *
   * The receiver's counters; every field is listed in the blurb (shown by
   * gst-inspect-1.0) with its meaning and unit.
   */
  gst_net_src_props_install (&src_props, gobject_class, PROP_NET_SRC);
  gst_param_table_install (&gst_tpba_params, gobject_class,
      PROP_CONFIG_FIRST, GST_TPBA_PARAM_SRC);
  gst_net_key_install (gobject_class, PROP_KEY, "the RTCP both ends send "
      "and the session token on each TCP connection: sent with a trailer, "
      "taken only when sound and fresh; the tpbasink needs the same key");
  gst_net_srtp_install (gobject_class, PROP_SRTP, "every RTP packet, from "
      "UDP or a TCP frame: opened before anything reads it, dropped and "
      "counted when it fails (the tpbasink's key, or srtpenc's)");
  gst_net_uri_handler_set_info (GST_TYPE_TPBA_SRC, GST_URI_SRC, "tpba",
      "address", "port");

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "TPBA source", "Source/Network/RTP", SRC_DESCRIPTION,
      "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_tpba_src_debug, "tpbasrc", 0, "TPBA source");
}

static void
gst_tpba_src_init (GstTpbaSrc * self)
{
  gst_net_udp_props_init_settings (&udp_props, &self->net);
  self->tcp_port = -1;
  self->rtcp_port = -1;
  gst_net_src_settings_init (&src_props, &self->net_src);
  tpba_config_init (&self->cfg);
  gst_net_srtp_settings_init (&self->srtp_settings);
  self->plain = g_malloc (MAX_PLAIN);
  gst_net_src_wait_init (&self->wait);
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "tpba-stats",
      get_stats);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}
