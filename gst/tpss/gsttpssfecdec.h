#ifndef __GST_TPSS_FEC_DEC_H__
#define __GST_TPSS_FEC_DEC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_TPSS_FEC_DEC (gst_tpss_fec_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstTpssFecDec, gst_tpss_fec_dec, GST, TPSS_FEC_DEC,
    GstElement);

GST_ELEMENT_REGISTER_DECLARE (tpssfecdec);

G_END_DECLS

#endif
