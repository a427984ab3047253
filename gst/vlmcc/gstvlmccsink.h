#ifndef __GST_VLMCC_SINK_H__
#define __GST_VLMCC_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_VLMCC_SINK (gst_vlmcc_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstVlmccSink, gst_vlmcc_sink, GST, VLMCC_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (vlmccsink);

G_END_DECLS

#endif /* __GST_VLMCC_SINK_H__ */
