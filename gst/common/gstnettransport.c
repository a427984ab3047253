/* The transport interface (see gstnettransport.h). */
#include "gstnettransport.h"
#include "gstnettime.h"

static void
gst_net_transport_default_init (gpointer g_iface, gpointer data)
{
}

/* Every plugin that links gstcommon has its own copy of this code: the
 * first one loaded registers the type, the others use it. */
GType
gst_net_transport_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name ("GstNetTransport");

    if (t == 0) {
      t = g_type_register_static_simple (G_TYPE_INTERFACE, "GstNetTransport",
          sizeof (GstNetTransportInterface),
          gst_net_transport_default_init, 0, NULL, 0);
      g_type_interface_add_prerequisite (t, G_TYPE_OBJECT);
    }
    g_once_init_leave (&type, t);
  }
  return type;
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

gint64
gst_net_transport_arrival (GstNetTransport * transport)
{
  GstNetTransportInterface *iface = GST_NET_TRANSPORT_GET_IFACE (transport);

  return iface->arrival ? iface->arrival (transport) : gst_net_now ();
}
