/* What a protocol's shell sends and receives through: datagrams and
 * addresses, nothing else. GstNetUdp implements it on a GSocket; an ICE
 * agent (libnice) can implement it too, and a protocol does not change. */
#ifndef __GST_NET_TRANSPORT_H__
#define __GST_NET_TRANSPORT_H__

#include <gio/gio.h>

G_BEGIN_DECLS

#define GST_TYPE_NET_TRANSPORT (gst_net_transport_get_type ())
G_DECLARE_INTERFACE (GstNetTransport, gst_net_transport, GST, NET_TRANSPORT,
    GObject);

/* One datagram received from @from; @data is valid during the call only. */
typedef void (*GstNetReceiveFunc) (GstNetTransport * transport,
    const guint8 * data, gsize size, GSocketAddress * from,
    gpointer user_data);

struct _GstNetTransportInterface
{
  GTypeInterface parent;

  /* Sends one datagram without blocking; FALSE and @error if it was not
   * sent (G_IO_ERROR_WOULD_BLOCK when the buffer is full). */
  gboolean (*send_to) (GstNetTransport * transport, const guint8 * data,
      gsize size, GSocketAddress * to, GError ** error);
  /* From now on @func runs in @context's thread for every datagram. */
  void (*attach) (GstNetTransport * transport, GMainContext * context,
      GstNetReceiveFunc func, gpointer user_data);
  /* No more calls of the attached func after this returns (call it from
   * the context's thread or once that thread has ended). */
  void (*detach) (GstNetTransport * transport);
  /* Optional: see gst_net_transport_arrival (). */
  gint64 (*arrival) (GstNetTransport * transport);
};

gboolean gst_net_transport_send_to (GstNetTransport * transport,
    const guint8 * data, gsize size, GSocketAddress * to, GError ** error);
void gst_net_transport_attach (GstNetTransport * transport,
    GMainContext * context, GstNetReceiveFunc func, gpointer user_data);
void gst_net_transport_detach (GstNetTransport * transport);
/* When the datagram being given to the receive func reached the host, on
 * gst_net_now ()'s clock (the kernel's receive time where the transport
 * has it, so a loop that fell behind still sees when the wire delivered);
 * gst_net_now () otherwise. Call it only from the receive func. */
gint64 gst_net_transport_arrival (GstNetTransport * transport);

G_END_DECLS

#endif /* __GST_NET_TRANSPORT_H__ */
