/* The socket properties (see gstnetudpprops.h). */
#include "gstnetudpprops.h"

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

static void
install (GObjectClass * klass, guint first_id, guint offset,
    GParamSpec * pspec)
{
  g_object_class_install_property (klass, first_id + offset, pspec);
}

guint
gst_net_udp_props_install (const GstNetUdpProps * p, GObjectClass * klass,
    guint first_id)
{
  if (p->address_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_ADDRESS,
        g_param_spec_string (p->address_name ? p->address_name : "address",
            p->address_nick ? p->address_nick : "Address", p->address_blurb,
            p->address_default, RW));
  if (p->port_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_PORT,
        g_param_spec_int ("port", "Port", p->port_blurb, p->port_min, 65535,
            p->port_default, RW));
  if (p->multicast_iface_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_MULTICAST_IFACE,
        g_param_spec_string ("multicast-iface", "Multicast interface",
            p->multicast_iface_blurb, NULL, RW));
  if (p->ttl_mc_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_TTL_MC,
        g_param_spec_int ("ttl-mc", "Multicast TTL", p->ttl_mc_blurb, -1,
            255, -1, RW));
  if (p->loop_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_LOOP,
        g_param_spec_boolean ("loop", "Loop", p->loop_blurb, TRUE, RW));
  if (p->socket_blurb)
    install (klass, first_id, GST_NET_UDP_PROP_SOCKET,
        g_param_spec_object ("socket", "Socket", p->socket_blurb,
            G_TYPE_SOCKET, RW));
  return first_id + GST_NET_UDP_N_PROPS;
}

void
gst_net_udp_props_init_settings (const GstNetUdpProps * props,
    GstNetUdpSettings * settings)
{
  GstNetUdpSettings init = GST_NET_UDP_SETTINGS_INIT;

  *settings = init;
  settings->address = g_strdup (props->address_default);
  settings->port = props->port_default;
}

/* The settings own their strings, although the transport reads them as
 * const. */
static void
replace_string (const gchar ** field, const gchar * value)
{
  g_free ((gchar *) * field);
  *field = g_strdup (value);
}

gboolean
gst_net_udp_props_set (const GstNetUdpProps * props,
    GstNetUdpSettings * s, guint first_id, guint prop_id,
    const GValue * value)
{
  const gchar *str;

  if (prop_id < first_id || prop_id >= first_id + GST_NET_UDP_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_NET_UDP_PROP_ADDRESS:
      str = g_value_get_string (value);
      replace_string (&s->address, str ? str : props->address_default);
      break;
    case GST_NET_UDP_PROP_PORT:
      s->port = g_value_get_int (value);
      break;
    case GST_NET_UDP_PROP_MULTICAST_IFACE:
      replace_string (&s->multicast_iface, g_value_get_string (value));
      break;
    case GST_NET_UDP_PROP_TTL_MC:
      s->ttl_mc = g_value_get_int (value);
      break;
    case GST_NET_UDP_PROP_LOOP:
      s->loop = g_value_get_boolean (value);
      break;
    case GST_NET_UDP_PROP_SOCKET:
      g_clear_object (&s->socket);
      s->socket = g_value_dup_object (value);
      break;
  }
  return TRUE;
}

gboolean
gst_net_udp_props_get (const GstNetUdpSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + GST_NET_UDP_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_NET_UDP_PROP_ADDRESS:
      g_value_set_string (value, s->address);
      break;
    case GST_NET_UDP_PROP_PORT:
      g_value_set_int (value, s->port);
      break;
    case GST_NET_UDP_PROP_MULTICAST_IFACE:
      g_value_set_string (value, s->multicast_iface);
      break;
    case GST_NET_UDP_PROP_TTL_MC:
      g_value_set_int (value, s->ttl_mc);
      break;
    case GST_NET_UDP_PROP_LOOP:
      g_value_set_boolean (value, s->loop);
      break;
    case GST_NET_UDP_PROP_SOCKET:
      g_value_set_object (value, s->socket);
      break;
  }
  return TRUE;
}

void
gst_net_udp_settings_copy (GstNetUdpSettings * dst,
    const GstNetUdpSettings * src)
{
  *dst = *src;
  dst->address = g_strdup (src->address);
  dst->multicast_iface = g_strdup (src->multicast_iface);
  if (src->socket)
    g_object_ref (src->socket);
}

void
gst_net_udp_settings_clear (GstNetUdpSettings * s)
{
  g_free ((gchar *) s->address);
  g_free ((gchar *) s->multicast_iface);
  s->address = s->multicast_iface = NULL;
  g_clear_object (&s->socket);
}
