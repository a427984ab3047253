/* One GstURIHandler for every network element:
 * SCHEME://HOST:PORT[/][?key=value&...], the host and port going to two
 * named properties and every query key to the property of that name.
 * set_uri applies all or nothing: the whole URI and every value are checked
 * before anything is set. get_uri gives the host, port and every other
 * property of the element's own class that differs from its default. */
#ifndef __GST_NET_URI_H__
#define __GST_NET_URI_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* For G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init)
 * in the element's type definition. */
void gst_net_uri_handler_init (gpointer g_iface, gpointer iface_data);

/* Called from the element's class_init: what the handler of @type serves.
 * The strings must be static. */
void gst_net_uri_handler_set_info (GType type, GstURIType uri_type,
    const gchar * scheme, const gchar * host_prop, const gchar * port_prop);

/* The two halves, for elements that need them outside the handler. */
gboolean gst_net_uri_apply (GstElement * element, const gchar * scheme,
    const gchar * uri, const gchar * host_prop, const gchar * port_prop,
    GError ** error);
gchar *gst_net_uri_build (GstElement * element, const gchar * scheme,
    const gchar * host_prop, const gchar * port_prop);

/* A `uri` property, for launch lines that name the URI of an element
 * (`rlmsink uri=rlm://...`). It is never a query key and never written by
 * get_uri. */
#define GST_NET_URI_PROP "uri"
void gst_net_uri_install_property (GObjectClass * klass, guint prop_id,
    const gchar * blurb);
/* Its set: applies the URI (all or nothing); a bad one is logged and
 * replaces *@uri_error (under the object lock), which start() reports.
 * Call holding no lock. */
void gst_net_uri_set_property (GstElement * element, const GValue * value,
    GError ** uri_error);
/* Its get: the element's URI as the handler builds it. */
void gst_net_uri_get_property (GstElement * element, GValue * value);

G_END_DECLS

#endif /* __GST_NET_URI_H__ */
