/* Shared by tpbasink and tpbasrc: the enums of the core's parameters and
 * the table that makes them properties (gst/common/gstparamtable.h). */
#ifndef __GST_TPBA_UTIL_H__
#define __GST_TPBA_UTIL_H__

#include <gst/gst.h>
#include "tpbacore.h"
#include "gstparamtable.h"

G_BEGIN_DECLS

#define GST_TYPE_TPBA_MODE (gst_tpba_mode_get_type ())
#define GST_TYPE_TPBA_END_CRITERION (gst_tpba_end_criterion_get_type ())
#define GST_TYPE_TPBA_PROBE_INTERVAL (gst_tpba_probe_interval_get_type ())
GType gst_tpba_mode_get_type (void);
GType gst_tpba_end_criterion_get_type (void);
GType gst_tpba_probe_interval_get_type (void);

/* Which element a core parameter belongs to (the table's element mask). */
#define GST_TPBA_PARAM_SINK 1
#define GST_TPBA_PARAM_SRC 2

/* The TpbaConfig fields as properties. */
extern const GstParamTable gst_tpba_params;

G_END_DECLS

#endif /* __GST_TPBA_UTIL_H__ */
