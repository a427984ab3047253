#ifndef __GST_TPSS_FEC_ENC_H__
#define __GST_TPSS_FEC_ENC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_TPSS_FEC_ENC (gst_tpss_fec_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstTpssFecEnc, gst_tpss_fec_enc, GST, TPSS_FEC_ENC,
    GstElement);

GST_ELEMENT_REGISTER_DECLARE (tpssfecenc);

G_END_DECLS

#endif
