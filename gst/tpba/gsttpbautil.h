/* Shared by tpbasink and tpbasrc: the core's parameters as properties, the
 * tpba:// URI, the monotonic time the core runs on. */
#ifndef __GST_TPBA_UTIL_H__
#define __GST_TPBA_UTIL_H__

#include <gst/gst.h>
#include "tpbacore.h"

G_BEGIN_DECLS

#define GST_TYPE_TPBA_MODE (gst_tpba_mode_get_type ())
#define GST_TYPE_TPBA_END_CRITERION (gst_tpba_end_criterion_get_type ())
#define GST_TYPE_TPBA_PROBE_INTERVAL (gst_tpba_probe_interval_get_type ())
GType gst_tpba_mode_get_type (void);
GType gst_tpba_end_criterion_get_type (void);
GType gst_tpba_probe_interval_get_type (void);

/* Which element a core parameter belongs to. */
#define GST_TPBA_PARAM_SINK 1
#define GST_TPBA_PARAM_SRC 2

/* Installs the TpbaConfig parameters of @which as properties with ids
 * @first_id, @first_id + 1, ... (ids of the other element's parameters are
 * skipped, not reused); returns the first free id. */
guint gst_tpba_config_install (GObjectClass * klass, guint first_id,
    guint which);
/* TRUE if @prop_id is a config property (then handled). */
gboolean gst_tpba_config_set (TpbaConfig * cfg, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_tpba_config_get (const TpbaConfig * cfg, guint first_id,
    guint prop_id, GValue * value);

/* tpba://host:port?prop=value&...: host and port go to @host_prop and
 * @port_prop, each query key to the property of that name. Nothing is set
 * unless the whole URI is valid. */
gboolean gst_tpba_uri_apply (GstElement * element, const gchar * uri,
    const gchar * host_prop, const gchar * port_prop, GError ** error);
/* The URI of the element's current settings: host, port and every other
 * property of the element's own class that differs from its default. */
gchar *gst_tpba_uri_build (GstElement * element, const gchar * host_prop,
    const gchar * port_prop);

/* The core's time: monotonic, ns. */
static inline gint64
gst_tpba_now (void)
{
  return g_get_monotonic_time () * 1000;
}

/* ns to add to gst_tpba_now() to get NTP time (ns since 1900). */
gint64 gst_tpba_ntp_offset (void);

G_END_DECLS

#endif /* __GST_TPBA_UTIL_H__ */
