/* x264layerenc: temporal-scalable (layered) H.264 encoder on libx264.
 * See docs/x264layerenc.md. */
#ifndef __GST_X264_LAYER_ENC_H__
#define __GST_X264_LAYER_ENC_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_X264_LAYER_ENC (gst_x264_layer_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstX264LayerEnc, gst_x264_layer_enc, GST,
    X264_LAYER_ENC, GstVideoEncoder)

/**
 * GstX264LayerEncGop:
 * @GST_X264_LAYER_ENC_GOP_HIERARCHICAL_P: hierarchical P-frames, zero frame
 *   delay; upper layers are P-frames that later frames no longer reference
 *   (x264_encoder_invalidate_reference()).
 * @GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B: B-pyramid; the top layer is
 *   non-reference B-frames (nal_ref_idc 0), the middle layer B-refs; delay of
 *   2^(layers-1)-1 frames; at most 3 layers.
 */
typedef enum
{
  GST_X264_LAYER_ENC_GOP_HIERARCHICAL_P = 0,
  GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B = 1,
} GstX264LayerEncGop;

/* Limits of the two structures (docs/x264layerenc.md explains them). */
#define GST_X264_LAYER_ENC_MAX_LAYERS_P 5
#define GST_X264_LAYER_ENC_MAX_LAYERS_B 3

GST_ELEMENT_REGISTER_DECLARE (x264layerenc);

G_END_DECLS

#endif /* __GST_X264_LAYER_ENC_H__ */
