/* Shared by tpbasink and tpbasrc: the enums of the core's parameters and
 * the table that makes them properties (gst/common/gstparamtable.h). */
#ifndef __GST_TPBA_UTIL_H__
#define __GST_TPBA_UTIL_H__

#include <gst/gst.h>
#include "tpbacore.h"
#include "gstparamtable.h"
#include "gstnetkey.h"

G_BEGIN_DECLS

#define GST_TYPE_TPBA_MODE (gst_tpba_mode_get_type ())
#define GST_TYPE_TPBA_END_CRITERION (gst_tpba_end_criterion_get_type ())
#define GST_TYPE_TPBA_PROBE_INTERVAL (gst_tpba_probe_interval_get_type ())
#define GST_TYPE_TPBA_KEPT_RATE (gst_tpba_kept_rate_get_type ())
GType gst_tpba_mode_get_type (void);
GType gst_tpba_end_criterion_get_type (void);
GType gst_tpba_probe_interval_get_type (void);
GType gst_tpba_kept_rate_get_type (void);

/* Which element a core parameter belongs to (the table's element mask). */
#define GST_TPBA_PARAM_SINK 1
#define GST_TPBA_PARAM_SRC 2

/* The TpbaConfig fields as properties. */
extern const GstParamTable gst_tpba_params;

/* The session that seals and opens an element's RTCP and token message
 * (tpbacore.h), made at start from a copy of its key settings taken under
 * its object lock: *@auth is NULL without a key. FALSE with @error (it
 * names the setting, never the key) on a bad key. */
gboolean gst_tpba_auth_new (GstElement * element,
    const GstNetKeySettings * settings, AuthSession ** auth,
    GError ** error);
/* The auth-* stats fields (zero without a session). */
void gst_tpba_auth_stats (GstStructure * s, const AuthSession * auth);

G_END_DECLS

#endif /* __GST_TPBA_UTIL_H__ */
