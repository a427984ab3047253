#ifndef __GST_RMTP_SRC_H__
#define __GST_RMTP_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_RMTP_SRC (gst_rmtp_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRmtpSrc, gst_rmtp_src, GST, RMTP_SRC, GstPushSrc);

GST_ELEMENT_REGISTER_DECLARE (rmtpsrc);

G_END_DECLS

#endif /* __GST_RMTP_SRC_H__ */
