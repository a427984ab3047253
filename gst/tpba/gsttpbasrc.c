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
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "gsttpbasrc.h"
#include "gsttpbautil.h"
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpba_src_debug);
#define GST_CAT_DEFAULT gst_tpba_src_debug

#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_PORT 5004
#define MAX_FRAME (65535 + 2)
#define MAX_PENDING 4
#define TOKEN_WAIT (2 * GST_SECOND)

enum
{
  PROP_0,
  PROP_ADDRESS,
  PROP_PORT,
  PROP_TCP_PORT,
  PROP_RTCP_PORT,
  PROP_PEER_ADDRESS,
  PROP_CAPS,
  PROP_STATS_INTERVAL,
  PROP_STATS,
  PROP_CONFIG_FIRST,
};

/* An accepted connection from the peer's host that has not yet shown the
 * session token. */
typedef struct
{
  int fd;
  gint64 since;
  guint8 token[TPBA_TOKEN_SIZE];
  guint got;
  gchar *who;
} Pending;

struct _GstTpbaSrc
{
  GstPushSrc parent;

  /* Settings, under the object lock */
  gchar *address, *peer_address;
  gint port, tcp_port, rtcp_port;
  GstCaps *caps;
  guint64 stats_interval;
  TpbaConfig cfg;
  gint64 run_stats_interval, next_stats;

  /* State: the streaming thread; lock for what stats read */
  GMutex lock;
  gboolean flushing;
  int wake_fd, udp_fd, rtcp_fd, listen_fd, tcp_fd;
  TpbaReceiver *core;
  struct sockaddr_storage peer, rtcp_dest;
  gboolean have_peer, peer_fixed, have_rtcp_dest;
  GByteArray *tcp_in;
  gboolean have_token;
  guint64 token;                /* the sender's, from its first RTCP */
  Pending pending[MAX_PENDING];
  guint n_pending;
  guint64 tcp_accepted, tcp_refused, tcp_closed, foreign, frame_errors;
  guint64 tcp_bad_token, key_unit_requests;
  gchar *peer_str;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

static void gst_tpba_src_uri_init (gpointer g_iface, gpointer iface_data);

#define gst_tpba_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstTpbaSrc, gst_tpba_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_tpba_src_uri_init));
GST_ELEMENT_REGISTER_DEFINE (tpbasrc, "tpbasrc", GST_RANK_NONE,
    GST_TYPE_TPBA_SRC);

static GstStructure *get_stats (GstTpbaSrc * self);

static void
wake (GstTpbaSrc * self)
{
  guint64 one = 1;
  if (self->wake_fd >= 0 && write (self->wake_fd, &one, sizeof (one)) < 0)
    GST_LOG_OBJECT (self, "wakeup: %s", g_strerror (errno));
}

static gboolean
same_host (const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
  if (a->ss_family != b->ss_family)
    return FALSE;
  if (a->ss_family == AF_INET)
    return ((struct sockaddr_in *) a)->sin_addr.s_addr ==
        ((struct sockaddr_in *) b)->sin_addr.s_addr;
  return memcmp (&((struct sockaddr_in6 *) a)->sin6_addr,
      &((struct sockaddr_in6 *) b)->sin6_addr, sizeof (struct in6_addr)) == 0;
}

static gchar *
addr_str (const struct sockaddr_storage *a)
{
  gchar host[INET6_ADDRSTRLEN + 1] = "?";
  gint port = 0;

  if (a->ss_family == AF_INET) {
    inet_ntop (AF_INET, &((struct sockaddr_in *) a)->sin_addr, host,
        sizeof (host));
    port = ntohs (((struct sockaddr_in *) a)->sin_port);
  } else if (a->ss_family == AF_INET6) {
    inet_ntop (AF_INET6, &((struct sockaddr_in6 *) a)->sin6_addr, host,
        sizeof (host));
    port = ntohs (((struct sockaddr_in6 *) a)->sin6_port);
  }
  return g_strdup_printf ("%s:%d", host, port);
}

/* TRUE if a datagram from @from may be taken (learns the peer). */
static gboolean
from_peer (GstTpbaSrc * self, const struct sockaddr_storage *from)
{
  if (!self->have_peer) {
    self->peer = *from;
    self->have_peer = TRUE;
    g_free (self->peer_str);
    self->peer_str = addr_str (from);
    GST_INFO_OBJECT (self, "peer is %s", self->peer_str);
    return TRUE;
  }
  if (same_host (from, &self->peer))
    return TRUE;
  self->foreign++;
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Sockets (streaming thread, lock held) */

static void
tcp_drop (GstTpbaSrc * self)
{
  if (self->tcp_fd >= 0) {
    close (self->tcp_fd);
    self->tcp_fd = -1;
    self->tcp_closed++;
  }
  g_byte_array_set_size (self->tcp_in, 0);
}

static void
pending_refuse (GstTpbaSrc * self, guint i, const gchar * why)
{
  Pending *p = &self->pending[i];

  GST_WARNING_OBJECT (self, "refused a TCP connection from %s: %s", p->who,
      why);
  close (p->fd);
  g_free (p->who);
  self->tcp_refused++;
  memmove (&self->pending[i], &self->pending[i + 1],
      (self->n_pending - i - 1) * sizeof (Pending));
  self->n_pending--;
}

static void
pending_clear (GstTpbaSrc * self)
{
  for (guint i = 0; i < self->n_pending; i++) {
    close (self->pending[i].fd);
    g_free (self->pending[i].who);
  }
  self->n_pending = 0;
}

static void
on_accept (GstTpbaSrc * self)
{
  for (;;) {
    struct sockaddr_storage from;
    socklen_t fl = sizeof (from);
    int fd = accept4 (self->listen_fd, (struct sockaddr *) &from, &fl,
        SOCK_CLOEXEC | SOCK_NONBLOCK);
    gchar *who;

    if (fd < 0)
      return;
    who = addr_str (&from);
    if (!self->have_peer || !same_host (&from, &self->peer)) {
      self->tcp_refused++;
      GST_WARNING_OBJECT (self, "refused a TCP connection from %s (expected "
          "%s)", who, self->have_peer ? self->peer_str : "no peer yet");
      close (fd);
    } else {
      if (self->n_pending == MAX_PENDING)
        pending_refuse (self, 0, "too many connections waiting for a token");
      self->pending[self->n_pending].fd = fd;
      self->pending[self->n_pending].since = gst_tpba_now ();
      self->pending[self->n_pending].got = 0;
      self->pending[self->n_pending].who = who;
      self->n_pending++;
      who = NULL;
    }
    g_free (who);
  }
}

/* Whether the bytes a connection presented are the session token. */
static gboolean
token_matches (GstTpbaSrc * self, const Pending * p)
{
  guint64 t = 0;

  for (guint i = 0; i < TPBA_TOKEN_SIZE; i++)
    t = (t << 8) | p->token[i];
  return self->have_token && t == self->token;
}

/* The connection proved it is the sink's: it replaces the old one. */
static void
pending_accept (GstTpbaSrc * self, guint i)
{
  Pending p = self->pending[i];

  memmove (&self->pending[i], &self->pending[i + 1],
      (self->n_pending - i - 1) * sizeof (Pending));
  self->n_pending--;
  if (self->tcp_fd >= 0)
    GST_INFO_OBJECT (self, "a new TCP connection from %s replaces the old "
        "one", p.who);
  tcp_drop (self);
  self->tcp_fd = p.fd;
  self->tcp_accepted++;
  GST_INFO_OBJECT (self, "TCP connection from %s", p.who);
  g_free (p.who);
}

/* Reads the token of pending connection @i (8 bytes, before any frame). */
static void
pending_read (GstTpbaSrc * self, guint i)
{
  Pending *p = &self->pending[i];
  ssize_t n = recv (p->fd, p->token + p->got, TPBA_TOKEN_SIZE - p->got,
      MSG_DONTWAIT);

  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    pending_refuse (self, i, "closed before it sent the session token");
    return;
  }
  if (n < 0)
    return;
  p->got += n;
  if (p->got < TPBA_TOKEN_SIZE)
    return;
  if (token_matches (self, p))
    pending_accept (self, i);
  else {
    self->tcp_bad_token++;
    pending_refuse (self, i, self->have_token ? "wrong session token" :
        "no session token known yet (no RTCP from the sender)");
  }
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

static void
on_tcp (GstTpbaSrc * self, gint64 now)
{
  guint8 buf[16384];

  for (;;) {
    ssize_t n = recv (self->tcp_fd, buf, sizeof (buf), MSG_DONTWAIT);
    guint off = 0;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      GST_INFO_OBJECT (self, "TCP connection closed: %s",
          n == 0 ? "end of stream" : g_strerror (errno));
      tcp_drop (self);
      return;
    }
    if (n < 0)
      return;
    g_byte_array_append (self->tcp_in, buf, n);
    /* RFC 4571: 16-bit length, then the packet */
    while (self->tcp_in->len - off >= 2) {
      guint len = (self->tcp_in->data[off] << 8) | self->tcp_in->data[off + 1];
      GstBuffer *b;

      if (self->tcp_in->len - off < 2 + len)
        break;
      b = gst_buffer_new_memdup (self->tcp_in->data + off + 2, len);
      if (tpba_receiver_on_rtp (self->core, TPBA_TRANSPORT_TCP,
              self->tcp_in->data + off + 2, len, b, now) != TPBA_RECV_ACCEPTED)
        gst_buffer_unref (b);
      off += 2 + len;
    }
    if (off)
      g_byte_array_remove_range (self->tcp_in, 0, off);
  }
}

static void
on_udp (GstTpbaSrc * self, gint64 now)
{
  guint8 buf[65536];

  for (guint i = 0; i < 256; i++) {
    struct sockaddr_storage from;
    socklen_t fl = sizeof (from);
    ssize_t n = recvfrom (self->udp_fd, buf, sizeof (buf), MSG_DONTWAIT,
        (struct sockaddr *) &from, &fl);
    GstBuffer *b;

    if (n < 0)
      return;
    if (!from_peer (self, &from))
      continue;
    b = gst_buffer_new_memdup (buf, n);
    if (tpba_receiver_on_rtp (self->core, TPBA_TRANSPORT_UDP, buf, n, b,
            now) != TPBA_RECV_ACCEPTED)
      gst_buffer_unref (b);
  }
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

static void
on_rtcp (GstTpbaSrc * self, gint64 now)
{
  guint8 buf[2048];

  for (;;) {
    struct sockaddr_storage from;
    socklen_t fl = sizeof (from);
    ssize_t n = recvfrom (self->rtcp_fd, buf, sizeof (buf), MSG_DONTWAIT,
        (struct sockaddr *) &from, &fl);

    if (n < 0)
      return;
    if (!from_peer (self, &from))
      continue;
    learn_token (self, buf, n);
    if (tpba_receiver_on_rtcp (self->core, buf, n, now)) {
      /* RRs go back where the sender's RTCP comes from */
      self->rtcp_dest = from;
      self->have_rtcp_dest = TRUE;
    }
  }
}

/* ------------------------------------------------------------------ */
/* GstPushSrc */

/* The pending connection on @fd (if still pending) has data or ended. */
static void
pending_ready (GstTpbaSrc * self, int fd)
{
  for (guint i = 0; i < self->n_pending; i++)
    if (self->pending[i].fd == fd) {
      pending_read (self, i);
      return;
    }
}

static void
send_rtcp (GstTpbaSrc * self, const guint8 * buf, gsize n)
{
  if (sendto (self->rtcp_fd, buf, n, MSG_DONTWAIT,
          (struct sockaddr *) &self->rtcp_dest,
          self->rtcp_dest.ss_family == AF_INET ?
          sizeof (struct sockaddr_in) : sizeof (struct sockaddr_in6)) < 0)
    GST_DEBUG_OBJECT (self, "RTCP: %s", g_strerror (errno));
}

static GstFlowReturn
gst_tpba_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstTpbaSrc *self = GST_TPBA_SRC (psrc);
  guint8 rtcp[TPBA_RTCP_MAX_SIZE];

  g_mutex_lock (&self->lock);
  for (;;) {
    gint64 now = gst_tpba_now (), deadline;
    struct pollfd pfd[5 + MAX_PENDING];
    int pend_fd[MAX_PENDING];
    guint n_pend;
    struct timespec ts;
    GstBuffer *b;
    guint16 seq;
    gsize n;
    int nfd = 0, r;

    if (self->flushing) {
      g_mutex_unlock (&self->lock);
      return GST_FLOW_FLUSHING;
    }
    tpba_receiver_advance (self->core, now);
    pending_expire (self, now);
    while (self->have_rtcp_dest &&
        (n = tpba_receiver_pop_pli (self->core, rtcp, sizeof (rtcp))))
      send_rtcp (self, rtcp, n);
    while ((n = tpba_receiver_pop_rtcp (self->core, rtcp, sizeof (rtcp))))
      if (self->have_rtcp_dest)
        send_rtcp (self, rtcp, n);
    if (self->run_stats_interval > 0 && now >= self->next_stats) {
      GstStructure *st;
      self->next_stats = now + self->run_stats_interval;
      g_mutex_unlock (&self->lock);
      st = get_stats (self);
      gst_structure_set_name (st, "tpba-stats");
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), st));
      g_mutex_lock (&self->lock);
      continue;
    }
    b = tpba_receiver_pop_rtp (self->core, now, &seq);
    if (b) {
      g_mutex_unlock (&self->lock);
      *outbuf = b;
      return GST_FLOW_OK;
    }
    deadline = tpba_receiver_next_deadline (self->core);
    pfd[nfd].fd = self->wake_fd;
    pfd[nfd++].events = POLLIN;
    pfd[nfd].fd = self->udp_fd;
    pfd[nfd++].events = POLLIN;
    pfd[nfd].fd = self->rtcp_fd;
    pfd[nfd++].events = POLLIN;
    pfd[nfd].fd = self->listen_fd;
    pfd[nfd++].events = POLLIN;
    pfd[nfd].fd = self->tcp_fd;       /* -1: ignored by ppoll */
    pfd[nfd++].events = POLLIN;
    n_pend = self->n_pending;
    for (guint i = 0; i < n_pend; i++) {
      pend_fd[i] = self->pending[i].fd;
      pfd[nfd].fd = pend_fd[i];
      pfd[nfd++].events = POLLIN;
    }
    if (self->run_stats_interval > 0)
      deadline = MIN (deadline, self->next_stats);
    deadline = CLAMP (deadline, now, now + GST_SECOND);
    ts.tv_sec = (deadline - now) / GST_SECOND;
    ts.tv_nsec = (deadline - now) % GST_SECOND;
    g_mutex_unlock (&self->lock);
    r = ppoll (pfd, nfd, &ts, NULL);
    g_mutex_lock (&self->lock);
    if (r <= 0)
      continue;
    now = gst_tpba_now ();
    if (pfd[0].revents & POLLIN) {
      guint64 v;
      if (read (self->wake_fd, &v, sizeof (v)) < 0)
        GST_LOG_OBJECT (self, "wakeup: %s", g_strerror (errno));
    }
    if (pfd[2].revents & POLLIN)
      on_rtcp (self, now);
    if (pfd[1].revents & POLLIN)
      on_udp (self, now);
    if (self->tcp_fd >= 0 && self->tcp_fd == pfd[4].fd && pfd[4].revents)
      on_tcp (self, now);
    for (guint i = 0; i < n_pend; i++)
      if (pfd[5 + i].revents)
        pending_ready (self, pend_fd[i]);
    if (pfd[3].revents & POLLIN)
      on_accept (self);
  }
}

static int
bind_socket (int type, const gchar * address, gint port,
    struct sockaddr_storage *bound, GError ** error)
{
  struct addrinfo hints, *res = NULL;
  gchar ps[16];
  int fd, e, one = 1;
  socklen_t bl = sizeof (*bound);

  memset (&hints, 0, sizeof (hints));
  hints.ai_socktype = type;
  hints.ai_flags = AI_PASSIVE;
  g_snprintf (ps, sizeof (ps), "%d", port);
  e = getaddrinfo (address, ps, &hints, &res);
  if (e || !res) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "Could not resolve address \"%s\": %s", address, gai_strerror (e));
    return -1;
  }
  fd = socket (res->ai_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd >= 0 && type == SOCK_STREAM)
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
  if (fd < 0 || bind (fd, res->ai_addr, res->ai_addrlen) < 0 ||
      (type == SOCK_STREAM && listen (fd, 8) < 0) ||
      getsockname (fd, (struct sockaddr *) bound, &bl) < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not bind %s port %s:%d: %s", type == SOCK_STREAM ? "TCP" :
        "UDP", address, port, g_strerror (errno));
    if (fd >= 0)
      close (fd);
    fd = -1;
  }
  freeaddrinfo (res);
  return fd;
}

static gint
port_of (const struct sockaddr_storage *a)
{
  return a->ss_family == AF_INET ? ntohs (((struct sockaddr_in *) a)->sin_port)
      : ntohs (((struct sockaddr_in6 *) a)->sin6_port);
}

static gboolean
gst_tpba_src_start (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);
  GError *err = NULL;
  gchar *address, *peer;
  gint port, tcp_port, rtcp_port;
  TpbaConfig cfg;
  struct sockaddr_storage b;
  GstStructure *s;
  gint cr;

  GST_OBJECT_LOCK (self);
  address = g_strdup (self->address);
  peer = g_strdup (self->peer_address);
  port = self->port;
  tcp_port = self->tcp_port;
  rtcp_port = self->rtcp_port;
  cfg = self->cfg;
  self->run_stats_interval = self->stats_interval;
  self->next_stats = gst_tpba_now ();
  if (self->caps && gst_caps_get_size (self->caps) > 0 &&
      (s = gst_caps_get_structure (self->caps, 0)) &&
      gst_structure_get_int (s, "clock-rate", &cr) && cr > 0)
    cfg.clock_rate = cr;
  GST_OBJECT_UNLOCK (self);

  self->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  self->udp_fd = bind_socket (SOCK_DGRAM, address, port, &b, &err);
  if (self->udp_fd >= 0) {
    port = port_of (&b);
    if (tcp_port < 0)
      tcp_port = port;
    if (rtcp_port < 0)
      rtcp_port = port + 1;
    self->listen_fd = bind_socket (SOCK_STREAM, address, tcp_port, &b, &err);
  }
  if (self->listen_fd >= 0) {
    tcp_port = port_of (&b);
    self->rtcp_fd = bind_socket (SOCK_DGRAM, address, rtcp_port, &b, &err);
  }
  if (self->rtcp_fd >= 0)
    rtcp_port = port_of (&b);
  self->have_peer = self->peer_fixed = FALSE;
  if (!err && peer && *peer) {
    struct addrinfo hints, *res = NULL;
    int e;
    memset (&hints, 0, sizeof (hints));
    hints.ai_socktype = SOCK_DGRAM;
    e = getaddrinfo (peer, NULL, &hints, &res);
    if (e || !res)
      g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
          "Could not resolve peer-address \"%s\": %s", peer, gai_strerror (e));
    else {
      memset (&self->peer, 0, sizeof (self->peer));
      memcpy (&self->peer, res->ai_addr, res->ai_addrlen);
      self->have_peer = self->peer_fixed = TRUE;
      self->peer_str = addr_str (&self->peer);
      freeaddrinfo (res);
    }
  }
  g_free (address);
  g_free (peer);
  if (err) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->port = port;
  self->tcp_port = tcp_port;
  self->rtcp_port = rtcp_port;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  self->core = tpba_receiver_new (&cfg, g_random_int (),
      (GDestroyNotify) gst_buffer_unref, gst_tpba_now ());
  self->tcp_in = g_byte_array_new ();
  self->tcp_accepted = self->tcp_refused = self->tcp_closed = 0;
  self->foreign = self->frame_errors = 0;
  self->tcp_bad_token = self->key_unit_requests = 0;
  self->have_rtcp_dest = FALSE;
  self->have_token = FALSE;
  g_mutex_unlock (&self->lock);
  GST_INFO_OBJECT (self, "listening: UDP %d, TCP %d, RTCP %d", port,
      tcp_port, rtcp_port);
  return TRUE;
}

static gboolean
gst_tpba_src_stop (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  g_mutex_lock (&self->lock);
#define CLOSE(fd) G_STMT_START { if ((fd) >= 0) close (fd); (fd) = -1; } G_STMT_END
  CLOSE (self->udp_fd);
  CLOSE (self->rtcp_fd);
  CLOSE (self->listen_fd);
  CLOSE (self->tcp_fd);
  CLOSE (self->wake_fd);
#undef CLOSE
  pending_clear (self);
  if (self->core)
    tpba_receiver_free (self->core);
  self->core = NULL;
  if (self->tcp_in)
    g_byte_array_unref (self->tcp_in);
  self->tcp_in = NULL;
  g_clear_pointer (&self->peer_str, g_free);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpba_src_unlock (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  wake (self);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpba_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static GstCaps *
gst_tpba_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);
  GstCaps *caps, *res;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) :
      gst_static_pad_template_get_caps (&src_template);
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
  } else
    res = caps;
  return res;
}

/* Buffers are stamped when they leave create(), so they carry no latency of
 * their own; while downstream blocks, packets wait in the socket buffers,
 * so there is no upper bound to report either. GstBaseSrc's default (max =
 * min = 0) leaves a synced sink no room for its processing deadline. */
static gboolean
gst_tpba_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gst_query_set_latency (query, TRUE, 0, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (parent_class)->query (bsrc, query);
}

/* The depayloader asks for a key unit (as it does of rtpbin): a PLI. */
static gboolean
gst_tpba_src_event (GstBaseSrc * bsrc, GstEvent * event)
{
  GstTpbaSrc *self = GST_TPBA_SRC (bsrc);

  if (gst_video_event_is_force_key_unit (event) &&
      GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM) {
    g_mutex_lock (&self->lock);
    if (self->core) {
      tpba_receiver_request_key_unit (self->core);
      self->key_unit_requests++;
      wake (self);
    }
    g_mutex_unlock (&self->lock);
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
  ok = self->caps != NULL;
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

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_free (self->address);
      self->address = g_value_dup_string (value);
      if (!self->address)
        self->address = g_strdup (DEFAULT_ADDRESS);
      break;
    case PROP_PORT:
      self->port = g_value_get_int (value);
      break;
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
    case PROP_STATS_INTERVAL:
      self->stats_interval = g_value_get_uint64 (value);
      break;
    case PROP_CAPS:{
      const GstCaps *c = gst_value_get_caps (value);
      gst_caps_replace (&self->caps, c ? (GstCaps *) c : NULL);
      break;
    }
    default:
      if (!gst_tpba_config_set (&self->cfg, PROP_CONFIG_FIRST, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_CAPS)
    gst_pad_mark_reconfigure (GST_BASE_SRC_PAD (self));
}

static GstStructure *
get_stats (GstTpbaSrc * self)
{
  GstStructure *s = gst_structure_new_empty ("application/x-tpba-src-stats");

  g_mutex_lock (&self->lock);
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
        "invalid", G_TYPE_UINT64, st.invalid,
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
      "tcp-connected", G_TYPE_BOOLEAN, self->tcp_fd >= 0,
      "tcp-accepted", G_TYPE_UINT64, self->tcp_accepted,
      "tcp-refused", G_TYPE_UINT64, self->tcp_refused,
      "tcp-bad-token", G_TYPE_UINT64, self->tcp_bad_token,
      "key-unit-requests", G_TYPE_UINT64, self->key_unit_requests,
      "tcp-closed", G_TYPE_UINT64, self->tcp_closed,
      "foreign", G_TYPE_UINT64, self->foreign, NULL);
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_tpba_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTpbaSrc *self = GST_TPBA_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_value_set_string (value, self->address);
      break;
    case PROP_PORT:
      g_value_set_int (value, self->port);
      break;
    case PROP_TCP_PORT:
      g_value_set_int (value, self->tcp_port);
      break;
    case PROP_RTCP_PORT:
      g_value_set_int (value, self->rtcp_port);
      break;
    case PROP_PEER_ADDRESS:
      g_value_set_string (value, self->peer_address);
      break;
    case PROP_CAPS:
      gst_value_set_caps (value, self->caps);
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, self->stats_interval);
      break;
    default:
      if (!gst_tpba_config_get (&self->cfg, PROP_CONFIG_FIRST, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tpba_src_finalize (GObject * object)
{
  GstTpbaSrc *self = GST_TPBA_SRC (object);

  g_free (self->address);
  g_free (self->peer_address);
  gst_caps_replace (&self->caps, NULL);
  g_mutex_clear (&self->lock);
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
  "tcp-bad-token: of those, the ones that showed a wrong token, count; " \
  "key-unit-requests: force-key-unit events from downstream, count; " \
  "tcp-closed: TCP connections closed, count; " \
  "foreign: datagrams from other hosts, dropped, count."

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
  bsrc_class->unlock = gst_tpba_src_unlock;
  bsrc_class->unlock_stop = gst_tpba_src_unlock_stop;
  bsrc_class->get_caps = gst_tpba_src_get_caps;
  bsrc_class->event = gst_tpba_src_event;
  bsrc_class->query = gst_tpba_src_query;
  bsrc_class->negotiate = gst_tpba_src_negotiate;
  psrc_class->create = gst_tpba_src_create;

  g_object_class_install_property (gobject_class, PROP_ADDRESS,
      g_param_spec_string ("address", "Address",
          "Local address to listen on", DEFAULT_ADDRESS, rw));
  g_object_class_install_property (gobject_class, PROP_PORT,
      g_param_spec_int ("port", "Port",
          "UDP port for RTP (0: ephemeral; the bound port after start)",
          0, 65535, DEFAULT_PORT, rw));
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
  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps", "The caps of the RTP stream",
          GST_TYPE_CAPS, rw));
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Stats interval",
          "Post the stats as a `tpba-stats` element message this often, ns "
          "(0: never)", 0, G_MAXINT64, 0, rw));
  /**
   * GstTpbaSrc:stats:
   *
   * The receiver's counters; every field is listed in the blurb (shown by
   * gst-inspect-1.0) with its meaning and unit.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", SRC_STATS_BLURB,
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_tpba_config_install (gobject_class, PROP_CONFIG_FIRST,
      GST_TPBA_PARAM_SRC);

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "TPBA source", "Source/Network/RTP", SRC_DESCRIPTION,
      "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_tpba_src_debug, "tpbasrc", 0, "TPBA source");
}

static void
gst_tpba_src_init (GstTpbaSrc * self)
{
  self->address = g_strdup (DEFAULT_ADDRESS);
  self->port = DEFAULT_PORT;
  self->tcp_port = -1;
  self->rtcp_port = -1;
  tpba_config_init (&self->cfg);
  g_mutex_init (&self->lock);
  self->wake_fd = self->udp_fd = self->rtcp_fd = self->listen_fd =
      self->tcp_fd = -1;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}

/* URI handler */

static GstURIType
gst_tpba_src_uri_get_type (GType type)
{
  return GST_URI_SRC;
}

static const gchar *const *
gst_tpba_src_uri_get_protocols (GType type)
{
  static const gchar *protocols[] = { "tpba", NULL };
  return protocols;
}

static gchar *
gst_tpba_src_uri_get_uri (GstURIHandler * handler)
{
  return gst_tpba_uri_build (GST_ELEMENT (handler), "address", "port");
}

static gboolean
gst_tpba_src_uri_set_uri (GstURIHandler * handler, const gchar * uri,
    GError ** error)
{
  return gst_tpba_uri_apply (GST_ELEMENT (handler), uri, "address", "port",
      error);
}

static void
gst_tpba_src_uri_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  iface->get_type = gst_tpba_src_uri_get_type;
  iface->get_protocols = gst_tpba_src_uri_get_protocols;
  iface->get_uri = gst_tpba_src_uri_get_uri;
  iface->set_uri = gst_tpba_src_uri_set_uri;
}
