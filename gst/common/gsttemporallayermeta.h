/* GstTemporalLayerMeta: which temporal layer an encoded video buffer belongs
 * to. Attached by x264layerenc to every output buffer (docs/x264layerenc.md);
 * read by the network elements, which link gstcommon, to fit each receiver
 * with a prefix of layers.
 *
 * The API is registered with the single tag "video" (GST_META_TAG_VIDEO_STR),
 * so elements that copy video metas (rtph264pay, rtpvp8pay, the RTP base
 * payloader's meta copy) carry it to every packet of the frame.
 *
 * Readers that do not link the plugin can find the API type by name once the
 * plugin is loaded: g_type_from_name (GST_TEMPORAL_LAYER_META_API_NAME); the
 * struct layout below is the ABI. */
#ifndef __GST_TEMPORAL_LAYER_META_H__
#define __GST_TEMPORAL_LAYER_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TEMPORAL_LAYER_META_API_NAME "GstTemporalLayerMetaAPI"
#define GST_TEMPORAL_LAYER_META_INFO_NAME "GstTemporalLayerMeta"

typedef struct _GstTemporalLayerMeta GstTemporalLayerMeta;

/**
 * GstTemporalLayerMeta:
 * @meta: parent
 * @layer_id: temporal layer of this frame, 0 = base layer. Every prefix of
 *   layers 0..k decodes on its own: frames of layer k reference only frames
 *   of layers <= k.
 * @n_layers: number of temporal layers in the stream.
 * @period: frames in one layering period (2^(n_layers-1)).
 * @droppable: TRUE if no other frame references this frame (the buffer also
 *   carries GST_BUFFER_FLAG_DROPPABLE).
 */
struct _GstTemporalLayerMeta
{
  GstMeta meta;

  guint layer_id;
  guint n_layers;
  guint period;
  gboolean droppable;
};

GType gst_temporal_layer_meta_api_get_type (void);
const GstMetaInfo *gst_temporal_layer_meta_get_info (void);

GstTemporalLayerMeta *gst_buffer_add_temporal_layer_meta (GstBuffer * buffer,
    guint layer_id, guint n_layers, guint period, gboolean droppable);

/* For code that does not link the plugin (tests, applications): the meta of
 * @buffer, or NULL (also when no x264layerenc was loaded yet). */
static inline GstTemporalLayerMeta *
gst_buffer_find_temporal_layer_meta (GstBuffer * buffer)
{
  GType api = g_type_from_name (GST_TEMPORAL_LAYER_META_API_NAME);

  if (api == 0)
    return NULL;
  return (GstTemporalLayerMeta *) gst_buffer_get_meta (buffer, api);
}

G_END_DECLS

#endif /* __GST_TEMPORAL_LAYER_META_H__ */
