#ifndef __GST_RLM_SRC_H__
#define __GST_RLM_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_RLM_SRC (gst_rlm_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRlmSrc, gst_rlm_src, GST, RLM_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (rlmsrc);

G_END_DECLS

#endif /* __GST_RLM_SRC_H__ */
