/* The UDP transport (see gstnetudp.h). */
#define _GNU_SOURCE             /* recvmmsg */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <net/if.h>
#include <netinet/in.h>
#include "gstnetudp.h"
#include "gstnetsocket.h"
#include "gstnettime.h"

/* datagrams taken per readiness report, so one busy socket cannot starve
 * the loop's other work */
#define MAX_BURST 256
/* datagrams one recvmmsg reads; fewer than this means the queue is empty,
 * so a lone datagram costs one call, not a second that finds nothing */
#define BATCH 8
#define BUF_SIZE 65536
/* recent senders kept, so peers that take turns still find theirs */
#define SENDERS 8

/* A recent sender, natively and as the object every datagram from it is
 * given with (not a new GSocketAddress a datagram). */
typedef struct
{
  struct sockaddr_storage name;
  socklen_t len;
  GSocketAddress *addr;         /* NULL: a free entry */
  guint64 used;                 /* when it last sent */
} Sender;

struct _GstNetUdp
{
  GObject parent;

  GSocket *socket;
  gboolean owned;               /* we made it: we close it */
  gboolean was_blocking;        /* the application's mode, given back */
  gchar *iface;
  GSource *source;
  GstNetReceiveFunc func;
  gpointer user_data;
  guint8 *buf;                  /* BATCH datagrams, each as large as UDP's */
  struct iovec iov[BATCH];
  struct sockaddr_storage names[BATCH];
  /* each datagram's control data: the kernel's receive time */
  union
  {
    struct cmsghdr align;
    guint8 buf[CMSG_SPACE (sizeof (struct timespec))];
  } controls[BATCH];
  struct mmsghdr msgs[BATCH];
  gint64 arrival;               /* the datagram being delivered, ns */
  Sender senders[SENDERS];
  guint64 reads;                /* datagrams read, the senders' clock */
  gint64 read_interval;         /* ns, 0: read each datagram as it comes */
};

static gpointer gst_net_udp_parent_class;

static gboolean
udp_send_to (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * to, GError ** error)
{
  GOutputVector v = { data, size };

  /* a timeout of 0 never blocks, whatever the socket's mode */
  return g_socket_send_message_with_timeout (GST_NET_UDP (t)->socket, to, &v,
      1, NULL, 0, 0, 0, NULL, NULL, error) == G_POLLABLE_RETURN_OK;
}

/* The sender of a datagram whose address is @name; NULL for an address
 * GIO cannot represent (the datagram is dropped). */
static GSocketAddress *
sender_of (GstNetUdp * self, const struct sockaddr_storage *name,
    socklen_t len)
{
  Sender *oldest = &self->senders[0];

  self->reads++;
  for (guint i = 0; i < SENDERS; i++) {
    Sender *e = &self->senders[i];

    if (e->addr && e->len == len && memcmp (&e->name, name, len) == 0) {
      e->used = self->reads;
      return e->addr;
    }
    if (e->used < oldest->used)
      oldest = e;
  }
  g_clear_object (&oldest->addr);
  oldest->addr = g_socket_address_new_from_native ((gpointer) name, len);
  if (!oldest->addr)
    return NULL;
  memcpy (&oldest->name, name, len);
  oldest->len = len;
  oldest->used = self->reads;
  return oldest->addr;
}

/* Up to BATCH waiting datagrams into msgs; their count, -1 if none. */
static gint
read_batch (GstNetUdp * self, gint fd)
{
  gint n;

  for (guint i = 0; i < BATCH; i++) {
    self->msgs[i].msg_hdr.msg_namelen = sizeof (self->names[i]);
    self->msgs[i].msg_hdr.msg_controllen = sizeof (self->controls[i]);
  }
  do
    n = recvmmsg (fd, self->msgs, BATCH, MSG_DONTWAIT, NULL);
  while (n < 0 && errno == EINTR);
  return n;
}

/* The kernel's receive time of @h (SO_TIMESTAMPNS, wall clock) on
 * gst_net_now ()'s clock, @now when it has none or it is not in the last
 * second (the wall clock was stepped). */
static gint64
arrival_of (const struct msghdr *h, gint64 now, gint64 wall_minus_now)
{
  for (struct cmsghdr * c = CMSG_FIRSTHDR ((struct msghdr *) h); c;
      c = CMSG_NXTHDR ((struct msghdr *) h, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      struct timespec ts;
      gint64 t;

      memcpy (&ts, CMSG_DATA (c), sizeof (ts));
      t = (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec - wall_minus_now;
      return t <= now && t > now - 1000000000 ? t : now;
    }
  }
  return now;
}

/* Gives every waiting datagram (MAX_BURST at most) to the receive
 * function; the count, or -1 if the function detached us. */
static gint
deliver_waiting (GstNetUdp * self)
{
  GSource *source = self->source;
  gint fd = g_socket_get_fd (self->socket);
  guint taken = 0;

  while (taken < MAX_BURST) {
    gint n = read_batch (self, fd);
    gint64 now = gst_net_now ();
    gint64 wall_minus_now = gst_net_wall_offset ();

    for (gint i = 0; i < n; i++) {
      const struct msghdr *h = &self->msgs[i].msg_hdr;
      GSocketAddress *from = sender_of (self, h->msg_name, h->msg_namelen);

      self->arrival = arrival_of (h, now, wall_minus_now);
      if (from)
        self->func (GST_NET_TRANSPORT (self), h->msg_iov->iov_base,
            self->msgs[i].msg_len, from, self->user_data);
      /* detached by the callback: no more calls (the source being
       * dispatched is alive, so a new one cannot have its address) */
      if (self->source != source)
        return -1;
    }
    if (n <= 0)
      break;
    taken += n;
    if (n < BATCH)
      break;
  }
  return taken;
}

/* The socket's source: its fd in the loop's poll set, or, with a read
 * interval, out of it until the ready time while datagrams keep coming. */
typedef struct
{
  GSource source;
  GstNetUdp *udp;               /* owns the source */
  gpointer tag;
  gboolean paused;
} UdpSource;

/* With a read interval, a read that found datagrams takes the fd out of
 * the poll set and reads again one interval later (at once if it stopped
 * at MAX_BURST); one that found none (the stream paused) puts it back, so
 * a lone datagram wakes us at once. */
static void
pace_reads (UdpSource * us, guint taken)
{
  GSource *source = (GSource *) us;

  if (taken > 0) {
    gint64 wait = taken >= MAX_BURST ? 0 : us->udp->read_interval / 1000;

    if (!us->paused)
      g_source_modify_unix_fd (source, us->tag, 0);
    us->paused = TRUE;
    g_source_set_ready_time (source, g_source_get_time (source) + wait);
  } else if (us->paused) {
    g_source_modify_unix_fd (source, us->tag, G_IO_IN);
    us->paused = FALSE;
    g_source_set_ready_time (source, -1);
  }
}

static gboolean
udp_source_dispatch (GSource * source, GSourceFunc callback, gpointer data)
{
  UdpSource *us = (UdpSource *) source;
  gint taken = deliver_waiting (us->udp);

  if (taken < 0)
    return G_SOURCE_REMOVE;
  if (us->udp->read_interval > 0)
    pace_reads (us, taken);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs udp_source_funcs = { NULL, NULL, udp_source_dispatch,
  NULL
};

static void
udp_detach (GstNetTransport * t)
{
  GstNetUdp *self = GST_NET_UDP (t);

  if (self->source) {
    g_source_destroy (self->source);
    g_source_unref (self->source);
    self->source = NULL;
  }
}

/* The receive slots, made at the first attach: a transport that only
 * sends, or whose socket the application reads, never has them. The
 * memory is virtual until written: a 1 KB datagram touches one page. */
static void
make_slots (GstNetUdp * self)
{
  self->buf = g_malloc (BATCH * BUF_SIZE);
  for (guint i = 0; i < BATCH; i++) {
    self->iov[i].iov_base = self->buf + i * BUF_SIZE;
    self->iov[i].iov_len = BUF_SIZE;
    self->msgs[i].msg_hdr.msg_name = &self->names[i];
    self->msgs[i].msg_hdr.msg_iov = &self->iov[i];
    self->msgs[i].msg_hdr.msg_iovlen = 1;
    self->msgs[i].msg_hdr.msg_control = self->controls[i].buf;
  }
}

static void
udp_attach (GstNetTransport * t, GMainContext * context,
    GstNetReceiveFunc func, gpointer user_data)
{
  GstNetUdp *self = GST_NET_UDP (t);

  udp_detach (t);
  if (!self->buf)
    make_slots (self);
  self->func = func;
  self->user_data = user_data;
  self->source = g_source_new (&udp_source_funcs, sizeof (UdpSource));
  ((UdpSource *) self->source)->udp = self;
  ((UdpSource *) self->source)->tag = g_source_add_unix_fd (self->source,
      g_socket_get_fd (self->socket), G_IO_IN);
  /* no fd changes around each dispatch (see gst_net_loop_watch) */
  g_source_set_can_recurse (self->source, TRUE);
  g_source_attach (self->source, context);
}

static gint64
udp_arrival (GstNetTransport * t)
{
  return GST_NET_UDP (t)->arrival;
}

static void
gst_net_udp_transport_init (gpointer g_iface, gpointer data)
{
  GstNetTransportInterface *iface = g_iface;

  iface->send_to = udp_send_to;
  iface->attach = udp_attach;
  iface->detach = udp_detach;
  iface->arrival = udp_arrival;
}

static void
gst_net_udp_finalize (GObject * object)
{
  GstNetUdp *self = GST_NET_UDP (object);

  udp_detach (GST_NET_TRANSPORT (self));
  if (self->owned)
    g_socket_close (self->socket, NULL);
  else
    g_socket_set_blocking (self->socket, self->was_blocking);
  g_object_unref (self->socket);
  g_free (self->iface);
  g_free (self->buf);
  for (guint i = 0; i < SENDERS; i++)
    g_clear_object (&self->senders[i].addr);
  G_OBJECT_CLASS (gst_net_udp_parent_class)->finalize (object);
}

static void
gst_net_udp_class_init (GstNetUdpClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_net_udp_finalize;
}

static void
gst_net_udp_class_intern_init (gpointer klass, gpointer data)
{
  gst_net_udp_parent_class = g_type_class_peek_parent (klass);
  gst_net_udp_class_init (klass);
}

/* As the transport interface: the first plugin of the project loaded
 * registers the type, the others (each with a copy of gstcommon) use it. */
GType
gst_net_udp_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name ("GstNetUdp");

    if (t == 0) {
      const GInterfaceInfo transport = {
        gst_net_udp_transport_init, NULL, NULL
      };

      t = g_type_register_static_simple (G_TYPE_OBJECT, "GstNetUdp",
          sizeof (GstNetUdpClass), gst_net_udp_class_intern_init,
          sizeof (GstNetUdp), NULL, 0);
      g_type_add_interface_static (t, GST_TYPE_NET_TRANSPORT, &transport);
    }
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The options of @s on our socket; FALSE names the one that failed. */
static gboolean
apply_options (GstNetUdp * self, const GstNetUdpSettings * s, GError ** error)
{
  GSocket *sock = self->socket;
  gboolean v6 = g_socket_get_family (sock) == G_SOCKET_FAMILY_IPV6;
  const gchar *what = NULL;
  GError *err = NULL;

  if (s->buffer_size > 0 &&
      (!g_socket_set_option (sock, SOL_SOCKET, SO_RCVBUF, s->buffer_size,
              &err) || !g_socket_set_option (sock, SOL_SOCKET, SO_SNDBUF,
              s->buffer_size, &err)))
    what = "buffer-size";
  else if (s->ttl >= 0)
    g_socket_set_ttl (sock, s->ttl);
  if (!what && s->ttl_mc >= 0)
    g_socket_set_multicast_ttl (sock, s->ttl_mc);
  if (!what)
    g_socket_set_multicast_loopback (sock, s->loop);
  if (err) {
    g_set_error (error, G_IO_ERROR, err->code, "Could not set %s on the UDP "
        "socket (%s): %s", what, v6 ? "IPv6" : "IPv4", err->message);
    g_error_free (err);
    return FALSE;
  }
  return TRUE;
}

/* Multicast leaves through @iface (IP_MULTICAST_IF, IPV6_MULTICAST_IF), as
 * udpsink's multicast-iface does. */
static gboolean
set_multicast_send_iface (GSocket * sock, const gchar * iface,
    GError ** error)
{
  guint index = if_nametoindex (iface);
  struct ip_mreqn mr = { {0}, };

  if (index == 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Could not set "
        "multicast-iface: no interface \"%s\"", iface);
    return FALSE;
  }
  if (g_socket_get_family (sock) == G_SOCKET_FAMILY_IPV6)
    return g_socket_set_option (sock, IPPROTO_IPV6, IPV6_MULTICAST_IF, index,
        error);
  mr.imr_ifindex = index;
  if (setsockopt (g_socket_get_fd (sock), IPPROTO_IP, IP_MULTICAST_IF, &mr,
          sizeof (mr)) < 0) {
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
        "Could not set multicast-iface %s: %s", iface, g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

/* A socket bound to the any address gets the groups any socket of the
 * host joined on its port (Linux's IP_MULTICAST_ALL); one that joins at
 * run time gets only its own. */
static void
only_own_groups (GSocket * sock)
{
#ifdef IP_MULTICAST_ALL
  if (g_socket_get_family (sock) == G_SOCKET_FAMILY_IPV4)
    g_socket_set_option (sock, IPPROTO_IP, IP_MULTICAST_ALL, 0, NULL);
#endif
}

/* Binds @sock to @addr with the port shared by every receiver of the host
 * (SO_REUSEADDR), but not as a SO_REUSEPORT group as g_socket_bind's
 * allow_reuse makes it: Linux then gives a group's datagrams that arrive on
 * an interface to one socket of that group, whatever groups each joined
 * (two receivers of one host: one got none of its layer's packets, the
 * other all of them). */
static gboolean
bind_shared_port (GSocket * sock, GSocketAddress * addr, GError ** error)
{
  struct sockaddr_storage native;
  gssize len = g_socket_address_get_native_size (addr);
  gint fd = g_socket_get_fd (sock), one = 1;

  if (!g_socket_address_to_native (addr, &native, sizeof native, error))
    return FALSE;
  if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind (fd, (struct sockaddr *) &native, len) < 0) {
    g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (errno),
        g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}

/* Binds our own socket to @s's address and port (a multicast address:
 * the port on the any address, shared, and the group joined). */
static gboolean
bind_own (GstNetUdp * self, const GstNetUdpSettings * s,
    GSocketFamily family, GError ** error)
{
  GSocketAddress *addr = NULL, *bind_addr;
  GInetAddress *ia;
  gboolean mc, ok;
  GError *err = NULL;

  if (s->address && *s->address &&
      !(addr = gst_net_resolve ("address", s->address, s->port, NULL, error)))
    return FALSE;
  if (addr)
    family = g_socket_address_get_family (addr);
  self->socket = g_socket_new (family, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, error);
  if (!self->socket) {
    g_clear_object (&addr);
    return FALSE;
  }
  self->owned = TRUE;
  ia = addr ? g_object_ref (g_inet_socket_address_get_address
      (G_INET_SOCKET_ADDRESS (addr))) : g_inet_address_new_any (family);
  mc = g_inet_address_get_is_multicast (ia);
  if (mc) {
    g_object_unref (ia);
    ia = g_inet_address_new_any (family);
  }
  bind_addr = g_inet_socket_address_new (ia, s->port);
  ok = mc ? bind_shared_port (self->socket, bind_addr, &err) :
      g_socket_bind (self->socket, bind_addr, FALSE, &err);
  if (!ok) {
    g_set_error (error, G_IO_ERROR, err->code, "Could not bind UDP port "
        "%s:%d: %s", s->address ? s->address : "*", s->port, err->message);
    g_error_free (err);
  } else if (mc) {
    if (s->join_later)
      only_own_groups (self->socket);
    ok = (s->join_later || gst_net_udp_join (self,
            g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (addr)),
            NULL, error)) && (!s->multicast_iface
        || set_multicast_send_iface (self->socket, s->multicast_iface, error));
  }
  g_object_unref (bind_addr);
  g_object_unref (ia);
  g_clear_object (&addr);
  return ok;
}

GstNetUdp *
gst_net_udp_new (const GstNetUdpSettings * s, GSocketFamily family,
    GError ** error)
{
  GstNetUdp *self = g_object_new (GST_TYPE_NET_UDP, NULL);

  self->iface = g_strdup (s->multicast_iface);
  if (s->socket) {
    /* the application's: used as given, only made non-blocking while ours */
    self->socket = g_object_ref (s->socket);
    self->was_blocking = g_socket_get_blocking (s->socket);
  } else if (!bind_own (self, s, family, error)) {
    g_object_unref (self);
    return NULL;
  }
  g_socket_set_blocking (self->socket, FALSE);
  /* the kernel stamps what it queues for us (on a host where no socket
   * asked before, only once its deferred work has turned stamping on);
   * an unstamped datagram's arrival is its read time */
  g_socket_set_option (self->socket, SOL_SOCKET, SO_TIMESTAMPNS, 1, NULL);
  if (!s->socket && !apply_options (self, s, error)) {
    g_object_unref (self);
    return NULL;
  }
  return self;
}

GSocket *
gst_net_udp_get_socket (GstNetUdp * udp)
{
  return udp->socket;
}

void
gst_net_udp_set_read_interval (GstNetUdp * udp, gint64 interval)
{
  udp->read_interval = MAX (interval, 0);
}

gint
gst_net_udp_get_port (GstNetUdp * udp)
{
  return gst_net_socket_get_local_port (udp->socket);
}

static gboolean
membership (GstNetUdp * self, gboolean join, GInetAddress * group,
    GInetAddress * source, GError ** error)
{
  GError *err = NULL;
  gboolean ok;
  gchar *g, *src;

  ok = join ? g_socket_join_multicast_group_ssm (self->socket, group, source,
      self->iface, &err) : g_socket_leave_multicast_group_ssm (self->socket,
      group, source, self->iface, &err);
  if (ok)
    return TRUE;
  g = g_inet_address_to_string (group);
  src = source ? g_inet_address_to_string (source) : NULL;
  g_set_error (error, G_IO_ERROR, err->code, "Could not %s multicast group "
      "%s%s%s%s%s: %s", join ? "join" : "leave", g, src ? " source " : "",
      src ? src : "", self->iface ? " on " : "", self->iface ? self->iface : "",
      err->message);
  g_free (g);
  g_free (src);
  g_error_free (err);
  return FALSE;
}

gboolean
gst_net_udp_join (GstNetUdp * udp, GInetAddress * group, GInetAddress * source,
    GError ** error)
{
  return membership (udp, TRUE, group, source, error);
}

gboolean
gst_net_udp_leave (GstNetUdp * udp, GInetAddress * group,
    GInetAddress * source, GError ** error)
{
  return membership (udp, FALSE, group, source, error);
}
