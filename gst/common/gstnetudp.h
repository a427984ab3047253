/* GstNetTransport on a UDP GSocket, with udpsrc / udpsink semantics: a
 * local address and port (multicast address: bind the port, join the
 * group), multicast-iface, ttl, ttl-mc, loop, buffer-size, and an
 * application's socket used as given (never bound, never closed by us). */
#ifndef __GST_NET_UDP_H__
#define __GST_NET_UDP_H__

#include "gstnettransport.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *address;         /* local or multicast; NULL: any address */
  gint port;                    /* local port, 0: ephemeral */
  GSocket *socket;              /* the application's, or NULL */
  const gchar *multicast_iface; /* NULL: the system's choice */
  gint ttl;                     /* unicast TTL / hop limit, -1: system's */
  gint ttl_mc;                  /* multicast TTL, -1: system's */
  gboolean loop;                /* multicast loopback */
  gint buffer_size;             /* SO_RCVBUF and SO_SNDBUF, 0: system's */
  /* A multicast address: bind its port but join no group yet (the caller
   * joins with gst_net_udp_join, e.g. source-specific); the socket then
   * gets only the groups it joined itself (IPv4: IP_MULTICAST_ALL off). */
  gboolean join_later;
} GstNetUdpSettings;

#define GST_NET_UDP_SETTINGS_INIT { NULL, 0, NULL, NULL, -1, -1, TRUE, 0, FALSE }

#define GST_TYPE_NET_UDP (gst_net_udp_get_type ())
G_DECLARE_FINAL_TYPE (GstNetUdp, gst_net_udp, GST, NET_UDP, GObject);

/* A bound UDP transport of @family (used where @settings has no address
 * and no socket); resolves a host name in address (call holding no lock).
 * Errors say which setting failed. */
GstNetUdp *gst_net_udp_new (const GstNetUdpSettings * settings,
    GSocketFamily family, GError ** error);

GSocket *gst_net_udp_get_socket (GstNetUdp * udp);
/* Set before attaching. While datagrams keep coming, read them every
 * @interval ns, not each as it arrives: one wake-up an interval instead of
 * one a datagram, for up to @interval of delay; the first datagram after
 * a quiet interval is read at once. 0 (the default): each at once. */
void gst_net_udp_set_read_interval (GstNetUdp * udp, gint64 interval);
gint gst_net_udp_get_port (GstNetUdp * udp);

/* Run-time multicast membership; @source non-NULL: a source-specific
 * (SSM, RFC 4607) join of @source's traffic to @group only. */
gboolean gst_net_udp_join (GstNetUdp * udp, GInetAddress * group,
    GInetAddress * source, GError ** error);
gboolean gst_net_udp_leave (GstNetUdp * udp, GInetAddress * group,
    GInetAddress * source, GError ** error);

G_END_DECLS

#endif /* __GST_NET_UDP_H__ */
