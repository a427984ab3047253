#ifndef __GST_TPSS_SRC_H__
#define __GST_TPSS_SRC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_TPSS_SRC (gst_tpss_src_get_type ())
G_DECLARE_FINAL_TYPE (GstTpssSrc, gst_tpss_src, GST, TPSS_SRC, GstElement)

GST_ELEMENT_REGISTER_DECLARE (tpsssrc);

G_END_DECLS

#endif /* __GST_TPSS_SRC_H__ */
