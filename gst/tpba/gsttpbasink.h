#ifndef __GST_TPBA_SINK_H__
#define __GST_TPBA_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_TPBA_SINK (gst_tpba_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstTpbaSink, gst_tpba_sink, GST, TPBA_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (tpbasink);

G_END_DECLS

#endif /* __GST_TPBA_SINK_H__ */
