/* The socket properties (see gstnetudpprops.h). */
#include "gstnetudpprops.h"

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

/* The property id of @offset. */
static guint
prop_id_at (const GstNetUdpProps * p, guint first_id, guint offset)
{
  return p->ids ? p->ids[offset] : first_id + offset;
}

/* The GST_NET_UDP_PROP_* of @prop_id, or -1 if it is none of them. */
static gint
prop_offset (const GstNetUdpProps * p, guint first_id, guint prop_id)
{
  if (!p->ids)
    return prop_id >= first_id && prop_id < first_id + GST_NET_UDP_N_PROPS ?
        (gint) (prop_id - first_id) : -1;
  for (gint i = 0; i < GST_NET_UDP_N_PROPS; i++)
    if (p->ids[i] == prop_id)
      return i;
  return -1;
}

static void
install (const GstNetUdpProps * p, GObjectClass * klass, guint first_id,
    guint offset, GParamSpec * pspec)
{
  g_object_class_install_property (klass, prop_id_at (p, first_id, offset),
      pspec);
}

static GParamSpec *
ttl_mc_pspec (const GstNetUdpProps * p)
{
  if (p->ttl_mc_no_system)
    return g_param_spec_int ("ttl-mc", "Multicast TTL", p->ttl_mc_blurb, 0,
        255, p->ttl_mc_default, RW);
  return g_param_spec_int ("ttl-mc", "Multicast TTL", p->ttl_mc_blurb, -1,
      255, -1, RW);
}

guint
gst_net_udp_props_install (const GstNetUdpProps * p, GObjectClass * klass,
    guint first_id)
{
  if (p->address_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_ADDRESS,
        g_param_spec_string (p->address_name ? p->address_name : "address",
            p->address_nick ? p->address_nick : "Address", p->address_blurb,
            p->address_default, RW));
  if (p->port_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_PORT,
        g_param_spec_int ("port", "Port", p->port_blurb, p->port_min, 65535,
            p->port_default, RW));
  if (p->multicast_iface_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_MULTICAST_IFACE,
        g_param_spec_string ("multicast-iface", "Multicast interface",
            p->multicast_iface_blurb, NULL, RW));
  if (p->ttl_mc_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_TTL_MC, ttl_mc_pspec (p));
  if (p->loop_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_LOOP,
        g_param_spec_boolean ("loop", p->loop_nick ? p->loop_nick : "Loop",
            p->loop_blurb, TRUE, RW));
  if (p->buffer_size_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_BUFFER_SIZE,
        g_param_spec_int ("buffer-size", "Socket buffer size",
            p->buffer_size_blurb, 0, G_MAXINT, p->buffer_size_default, RW));
  if (p->socket_blurb)
    install (p, klass, first_id, GST_NET_UDP_PROP_SOCKET,
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
  if (props->ttl_mc_no_system)
    settings->ttl_mc = props->ttl_mc_default;
  settings->buffer_size = props->buffer_size_default;
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

  switch (prop_offset (props, first_id, prop_id)) {
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
    case GST_NET_UDP_PROP_BUFFER_SIZE:
      s->buffer_size = g_value_get_int (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

/* Reads the setting of property @offset (a GST_NET_UDP_PROP_*). */
static gboolean
get_at (const GstNetUdpSettings * s, gint offset, GValue * value)
{
  switch (offset) {
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
    case GST_NET_UDP_PROP_BUFFER_SIZE:
      g_value_set_int (value, s->buffer_size);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_net_udp_props_get (const GstNetUdpSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  static const GstNetUdpProps contiguous = { NULL, };

  return get_at (s, prop_offset (&contiguous, first_id, prop_id), value);
}

gboolean
gst_net_udp_props_get_mapped (const GstNetUdpProps * props,
    const GstNetUdpSettings * s, guint prop_id, GValue * value)
{
  return get_at (s, prop_offset (props, 0, prop_id), value);
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
