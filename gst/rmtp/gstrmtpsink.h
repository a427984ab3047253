#ifndef __GST_RMTP_SINK_H__
#define __GST_RMTP_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_RMTP_SINK (gst_rmtp_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRmtpSink, gst_rmtp_sink, GST, RMTP_SINK, GstBaseSink);

GST_ELEMENT_REGISTER_DECLARE (rmtpsink);

G_END_DECLS

#endif /* __GST_RMTP_SINK_H__ */
