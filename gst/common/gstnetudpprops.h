/* The udpsrc / udpsink-style socket properties (address, port,
 * multicast-iface, ttl-mc, loop, socket, buffer-size) of a network element,
 * installed from one description and kept in a GstNetUdpSettings the element
 * owns. Names, types and ranges are udpsrc's unless the description says
 * otherwise; each element words the blurbs. */
#ifndef __GST_NET_UDP_PROPS_H__
#define __GST_NET_UDP_PROPS_H__

#include <gst/gst.h>
#include "gstnetudp.h"

G_BEGIN_DECLS

/* Offsets from the element's first id (ids of absent ones are skipped),
 * or indices of GstNetUdpProps.ids. */
enum
{
  GST_NET_UDP_PROP_ADDRESS,
  GST_NET_UDP_PROP_PORT,
  GST_NET_UDP_PROP_MULTICAST_IFACE,
  GST_NET_UDP_PROP_TTL_MC,
  GST_NET_UDP_PROP_LOOP,
  GST_NET_UDP_PROP_SOCKET,
  GST_NET_UDP_PROP_BUFFER_SIZE,
  GST_NET_UDP_N_PROPS
};

typedef struct
{
  const gchar *address_name;    /* NULL: "address" ("host" for a sink) */
  const gchar *address_nick;    /* NULL: "Address" */
  const gchar *address_default; /* also what setting NULL gives */
  gint port_min;                /* 0: ephemeral allowed, else 1 */
  gint port_default;
  /* Blurbs in the element's words; NULL: the element has no such
   * property. ttl-mc is -1..255 (-1: the system's), loop is TRUE by
   * default. */
  const gchar *address_blurb, *port_blurb, *multicast_iface_blurb;
  const gchar *ttl_mc_blurb, *loop_blurb, *socket_blurb;
  /* Optional (zero: udpsrc's). */
  const gchar *loop_nick;       /* NULL: "Loop" */
  /* TRUE: ttl-mc is 0..255, ttl_mc_default by default (no -1) */
  gboolean ttl_mc_no_system;
  gint ttl_mc_default;
  /* NULL: no buffer-size; else 0..G_MAXINT bytes ("Socket buffer size") */
  const gchar *buffer_size_blurb;
  gint buffer_size_default;
  /* NULL: the ids are first_id + GST_NET_UDP_PROP_*; else the id of each
   * property, indexed by GST_NET_UDP_PROP_* (first_id is then unused). */
  const guint *ids;
} GstNetUdpProps;

/* Installs the properties @props has at @first_id + GST_NET_UDP_PROP_*
 * (or at @props' ids), mutable in READY; returns the first free id. */
guint gst_net_udp_props_install (const GstNetUdpProps * props,
    GObjectClass * klass, guint first_id);

/* @settings with @props' defaults; it owns its strings and socket from
 * now on (gst_net_udp_settings_clear frees them). */
void gst_net_udp_props_init_settings (const GstNetUdpProps * props,
    GstNetUdpSettings * settings);

/* TRUE if @prop_id is one of the properties (then the setting was set /
 * read); call under the lock that guards @settings. */
gboolean gst_net_udp_props_set (const GstNetUdpProps * props,
    GstNetUdpSettings * settings, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_net_udp_props_get (const GstNetUdpSettings * settings,
    guint first_id, guint prop_id, GValue * value);
/* gst_net_udp_props_get for @props with ids. */
gboolean gst_net_udp_props_get_mapped (const GstNetUdpProps * props,
    const GstNetUdpSettings * settings, guint prop_id, GValue * value);

/* For owned settings: a deep copy (to use outside the lock), and the
 * release of the strings and the socket. */
void gst_net_udp_settings_copy (GstNetUdpSettings * dst,
    const GstNetUdpSettings * src);
void gst_net_udp_settings_clear (GstNetUdpSettings * settings);

G_END_DECLS

#endif /* __GST_NET_UDP_PROPS_H__ */
