#ifndef __GST_TPBA_SRC_H__
#define __GST_TPBA_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_TPBA_SRC (gst_tpba_src_get_type ())
G_DECLARE_FINAL_TYPE (GstTpbaSrc, gst_tpba_src, GST, TPBA_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (tpbasrc);

G_END_DECLS

#endif /* __GST_TPBA_SRC_H__ */
