/* The socket layer under the shells (see gstnetsocket.h). */
#define _GNU_SOURCE
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include "gstnetsocket.h"

GSocketAddress *
gst_net_resolve (const gchar * what, const gchar * host, guint16 port,
    GCancellable * cancellable, GError ** error)
{
  GInetAddress *ia = g_inet_address_new_from_string (host);
  GResolver *resolver;
  GList *found;
  GError *err = NULL;
  GSocketAddress *res;

  if (ia) {
    res = g_inet_socket_address_new (ia, port);
    g_object_unref (ia);
    return res;
  }
  resolver = g_resolver_get_default ();
  found = g_resolver_lookup_by_name (resolver, host, cancellable, &err);
  g_object_unref (resolver);
  if (!found) {
    g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND,
        "Could not resolve %s \"%s\": %s", what, host, err->message);
    g_error_free (err);
    return NULL;
  }
  res = g_inet_socket_address_new (found->data, port);
  g_resolver_free_addresses (found);
  return res;
}

gint
gst_net_socket_get_recv_buffer (GSocket * socket)
{
  gint v;

  if (!g_socket_get_option (socket, SOL_SOCKET, SO_RCVBUF, &v, NULL))
    return -1;
  return v;
}

gint
gst_net_socket_set_recv_buffer (GSocket * socket, gint bytes)
{
  gint fd = g_socket_get_fd (socket);
  gint ask = bytes / 2;

  if (setsockopt (fd, SOL_SOCKET, SO_RCVBUFFORCE, &ask, sizeof (ask)) < 0)
    setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &ask, sizeof (ask));
  return gst_net_socket_get_recv_buffer (socket);
}

gboolean
gst_net_address_same_host (GSocketAddress * a, GSocketAddress * b)
{
  if (!G_IS_INET_SOCKET_ADDRESS (a) || !G_IS_INET_SOCKET_ADDRESS (b))
    return FALSE;
  return g_inet_address_equal (g_inet_socket_address_get_address
      (G_INET_SOCKET_ADDRESS (a)),
      g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (b)));
}

gint
gst_net_address_get_port (GSocketAddress * addr)
{
  if (!G_IS_INET_SOCKET_ADDRESS (addr))
    return -1;
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (addr));
}

gsize
gst_net_address_to_native (GSocketAddress * addr, guint8 * out, gsize max)
{
  gssize n = addr ? g_socket_address_get_native_size (addr) : -1;

  if (n <= 0 || (gsize) n > max ||
      !g_socket_address_to_native (addr, out, n, NULL))
    return 0;
  return n;
}

gchar *
gst_net_address_to_string (GSocketAddress * addr)
{
  GInetAddress *ia;
  gchar *host, *res;

  if (!G_IS_INET_SOCKET_ADDRESS (addr))
    return g_strdup ("?");
  ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (addr));
  host = g_inet_address_to_string (ia);
  res = g_strdup_printf (g_inet_address_get_family (ia) ==
      G_SOCKET_FAMILY_IPV6 ? "[%s]:%d" : "%s:%d", host,
      gst_net_address_get_port (addr));
  g_free (host);
  return res;
}

gint
gst_net_socket_get_local_port (GSocket * socket)
{
  GSocketAddress *a = g_socket_get_local_address (socket, NULL);
  gint port = a ? gst_net_address_get_port (a) : -1;

  g_clear_object (&a);
  return port;
}

static GSocketFamily
family_of (GSocketAddress * addr)
{
  return g_socket_address_get_family (addr);
}

GSocket *
gst_net_tcp_socket_new (GSocketFamily family, GError ** error)
{
  GSocket *s = g_socket_new (family, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, error);

  if (s)
    g_socket_set_blocking (s, FALSE);
  return s;
}

GSocket *
gst_net_tcp_listen (GSocketAddress * local, GError ** error)
{
  GSocket *s = gst_net_tcp_socket_new (family_of (local), error);

  if (!s)
    return NULL;
  g_socket_set_listen_backlog (s, 8);
  if (!g_socket_bind (s, local, TRUE, error) || !g_socket_listen (s, error))
    g_clear_object (&s);
  return s;
}

GSocket *
gst_net_tcp_accept (GSocket * listener, GError ** error)
{
  GSocket *s = g_socket_accept (listener, NULL, error);

  if (s)
    g_socket_set_blocking (s, FALSE);
  return s;
}

gboolean
gst_net_tcp_connect_begin (GSocket * socket, GSocketAddress * dest,
    GError ** error)
{
  GError *err = NULL;

  if (g_socket_connect (socket, dest, NULL, &err))
    return TRUE;
  if (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_PENDING)) {
    g_error_free (err);
    return TRUE;
  }
  g_propagate_error (error, err);
  return FALSE;
}

gboolean
gst_net_tcp_connect_finish (GSocket * socket, GError ** error)
{
  return g_socket_check_connect_result (socket, error);
}

gssize
gst_net_tcp_send (GSocket * socket, const guint8 * data, gsize size,
    GError ** error)
{
  return g_socket_send_with_blocking (socket, (const gchar *) data, size,
      FALSE, NULL, error);
}

gssize
gst_net_tcp_receive (GSocket * socket, guint8 * data, gsize size,
    GError ** error)
{
  return g_socket_receive_with_blocking (socket, (gchar *) data, size, FALSE,
      NULL, error);
}

static gboolean
set_errno_error (GError ** error, const gchar * what)
{
  int e = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s", what,
      g_strerror (e));
  return FALSE;
}

gboolean
gst_net_tcp_set_nodelay (GSocket * socket, gboolean on, GError ** error)
{
  return g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, on, error);
}

gboolean
gst_net_tcp_set_notsent_lowat (GSocket * socket, gint bytes, GError ** error)
{
  return g_socket_set_option (socket, IPPROTO_TCP, TCP_NOTSENT_LOWAT, bytes,
      error);
}

gboolean
gst_net_tcp_set_congestion (GSocket * socket, const gchar * name,
    GError ** error)
{
  if (setsockopt (g_socket_get_fd (socket), IPPROTO_TCP, TCP_CONGESTION,
          name, strlen (name)) < 0) {
    gchar *what = g_strdup_printf ("TCP_CONGESTION %s", name);
    set_errno_error (error, what);
    g_free (what);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_net_tcp_set_max_pacing_rate (GSocket * socket, guint64 max_rate,
    GError ** error)
{
  guint32 bytes_per_s = (guint32) MIN (max_rate / 8, (guint64) G_MAXUINT32 - 1);

  if (setsockopt (g_socket_get_fd (socket), SOL_SOCKET, SO_MAX_PACING_RATE,
          &bytes_per_s, sizeof (bytes_per_s)) < 0)
    return set_errno_error (error, "SO_MAX_PACING_RATE");
  return TRUE;
}

gboolean
gst_net_tcp_get_info (GSocket * socket, GstNetTcpInfo * out)
{
  struct tcp_info ti;
  socklen_t len = sizeof (ti);

  memset (&ti, 0, sizeof (ti));
  if (getsockopt (g_socket_get_fd (socket), IPPROTO_TCP, TCP_INFO, &ti,
          &len) < 0)
    return FALSE;
  out->bytes_acked = ti.tcpi_bytes_acked;
  out->snd_cwnd = ti.tcpi_snd_cwnd;
  out->rtt_us = ti.tcpi_rtt;
  out->delivery_rate = ti.tcpi_delivery_rate;
  out->data_segs_out = ti.tcpi_data_segs_out;
  out->total_retrans = ti.tcpi_total_retrans;
  return TRUE;
}
