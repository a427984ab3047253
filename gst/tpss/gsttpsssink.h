#ifndef __GST_TPSS_SINK_H__
#define __GST_TPSS_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_TPSS_SINK (gst_tpss_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstTpssSink, gst_tpss_sink, GST, TPSS_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (tpsssink);

G_END_DECLS

#endif /* __GST_TPSS_SINK_H__ */
