/* The transport interface (see gstnettransport.h). */
#include "gstnettransport.h"

G_DEFINE_INTERFACE (GstNetTransport, gst_net_transport, G_TYPE_OBJECT);

static void
gst_net_transport_default_init (GstNetTransportInterface * iface)
{
}

gboolean
gst_net_transport_send_to (GstNetTransport * transport, const guint8 * data,
    gsize size, GSocketAddress * to, GError ** error)
{
  return GST_NET_TRANSPORT_GET_IFACE (transport)->send_to (transport, data,
      size, to, error);
}

void
gst_net_transport_attach (GstNetTransport * transport, GMainContext * context,
    GstNetReceiveFunc func, gpointer user_data)
{
  GST_NET_TRANSPORT_GET_IFACE (transport)->attach (transport, context, func,
      user_data);
}

void
gst_net_transport_detach (GstNetTransport * transport)
{
  GST_NET_TRANSPORT_GET_IFACE (transport)->detach (transport);
}
