/* The socket layer under the shells: resolving, addresses, and the TCP
 * streams a protocol may need beside its datagrams (connect and accept
 * without blocking, Linux TCP options and TCP_INFO). Datagrams go through
 * GstNetTransport (gstnettransport.h, gstnetudp.h). */
#ifndef __GST_NET_SOCKET_H__
#define __GST_NET_SOCKET_H__

#include <gio/gio.h>
#include "core/tcpinfo.h"

G_BEGIN_DECLS

/* @host (a name or a literal) and @port as a socket address; a literal
 * never blocks, a name asks the system resolver and blocks until it
 * answers: call it holding no lock. @what names the setting in the error:
 * "Could not resolve @what \"@host\": reason". */
GSocketAddress *gst_net_resolve (const gchar * what, const gchar * host,
    guint16 port, GCancellable * cancellable, GError ** error);

/* Whether @a and @b are inet addresses of the same host (ports aside). */
gboolean gst_net_address_same_host (GSocketAddress * a, GSocketAddress * b);
/* "host:port" ("[host]:port" for IPv6), for logs and stats. */
gchar *gst_net_address_to_string (GSocketAddress * addr);
gint gst_net_address_get_port (GSocketAddress * addr);
/* @addr's native (struct sockaddr) bytes in @out, for cores that compare
 * peers as opaque bytes; returns their length, 0 if they do not fit @max.
 * g_socket_address_new_from_native () turns them back. */
gsize gst_net_address_to_native (GSocketAddress * addr, guint8 * out,
    gsize max);
/* The local port @socket is bound to (-1 if none). */
gint gst_net_socket_get_local_port (GSocket * socket);

/* The receive buffer as SO_RCVBUF reports it: what the kernel charges
 * datagrams against (their whole allocation, not their payload), bytes;
 * -1 on error. */
gint gst_net_socket_get_recv_buffer (GSocket * socket);
/* Asks for a receive buffer of @bytes as SO_RCVBUF reports it (the kernel
 * doubles what it is asked for, for its bookkeeping): by SO_RCVBUFFORCE
 * when the process may (CAP_NET_ADMIN), else by SO_RCVBUF, which the
 * kernel caps at net.core.rmem_max (doubled). Returns what it gave, as
 * gst_net_socket_get_recv_buffer. */
gint gst_net_socket_set_recv_buffer (GSocket * socket, gint bytes);

/* A TCP socket bound to @local and listening, with SO_REUSEADDR; accept
 * from it with gst_net_tcp_accept when the loop reports G_IO_IN. */
GSocket *gst_net_tcp_listen (GSocketAddress * local, GError ** error);
/* The next waiting connection, or NULL (and G_IO_ERROR_WOULD_BLOCK). */
GSocket *gst_net_tcp_accept (GSocket * listener, GError ** error);

/* A new non-blocking TCP socket for @family; set its options, then
 * gst_net_tcp_connect_begin. */
GSocket *gst_net_tcp_socket_new (GSocketFamily family, GError ** error);
/* Starts connecting: TRUE if connected or under way (then wait for
 * G_IO_OUT and call gst_net_tcp_connect_finish). */
gboolean gst_net_tcp_connect_begin (GSocket * socket, GSocketAddress * dest,
    GError ** error);
gboolean gst_net_tcp_connect_finish (GSocket * socket, GError ** error);

/* Non-blocking stream I/O: bytes moved, 0 at the peer's end of stream (for
 * receive), -1 on error (G_IO_ERROR_WOULD_BLOCK: try again when ready). */
gssize gst_net_tcp_send (GSocket * socket, const guint8 * data, gsize size,
    GError ** error);
gssize gst_net_tcp_receive (GSocket * socket, guint8 * data, gsize size,
    GError ** error);

/* Linux TCP options; FALSE and @error when the kernel refuses. */
gboolean gst_net_tcp_set_nodelay (GSocket * socket, gboolean on,
    GError ** error);
gboolean gst_net_tcp_set_notsent_lowat (GSocket * socket, gint bytes,
    GError ** error);
gboolean gst_net_tcp_set_congestion (GSocket * socket, const gchar * name,
    GError ** error);
/* Lets the kernel pace the connection (as the fq qdisc does): it then
 * sends at about cwnd / srtt, capped at @max_rate bits/s. */
gboolean gst_net_tcp_set_max_pacing_rate (GSocket * socket, guint64 max_rate,
    GError ** error);

/* What TCP_INFO says of a connection: the sample a core takes as it is. */
typedef TcpInfo GstNetTcpInfo;

gboolean gst_net_tcp_get_info (GSocket * socket, GstNetTcpInfo * info);

G_END_DECLS

#endif /* __GST_NET_SOCKET_H__ */
