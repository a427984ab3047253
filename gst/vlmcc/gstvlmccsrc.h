#ifndef __GST_VLMCC_SRC_H__
#define __GST_VLMCC_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_VLMCC_SRC (gst_vlmcc_src_get_type ())
G_DECLARE_FINAL_TYPE (GstVlmccSrc, gst_vlmcc_src, GST, VLMCC_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (vlmccsrc);

G_END_DECLS

#endif /* __GST_VLMCC_SRC_H__ */
