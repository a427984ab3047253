#ifndef __GST_RLM_SINK_H__
#define __GST_RLM_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_RLM_SINK (gst_rlm_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRlmSink, gst_rlm_sink, GST, RLM_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (rlmsink);

G_END_DECLS

#endif /* __GST_RLM_SINK_H__ */
