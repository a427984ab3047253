/* GstTemporalLayerMeta, see gsttemporallayermeta.h.
 *
 * This file is in the static gstcommon library, so every plugin that links it
 * has its own copy of the statics below. The API type and the meta info are
 * process-wide by name, so each copy first takes what another copy already
 * registered. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttemporallayermeta.h"

#include <gst/video/video.h>

GType
gst_temporal_layer_meta_api_get_type (void)
{
  static GType type = 0;
  /* Only the "video" tag: video payloaders copy metas that have no tags or
   * only this one. */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, NULL };

  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name (GST_TEMPORAL_LAYER_META_API_NAME);

    if (t == 0)
      t = gst_meta_api_type_register (GST_TEMPORAL_LAYER_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
temporal_layer_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstTemporalLayerMeta *m = (GstTemporalLayerMeta *) meta;

  m->layer_id = 0;
  m->n_layers = 1;
  m->period = 1;
  m->droppable = FALSE;
  return TRUE;
}

static gboolean
temporal_layer_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstTemporalLayerMeta *m = (GstTemporalLayerMeta *) meta;

  /* Copies, and any other transform (a payloader slicing a frame into
   * packets, a depayloader merging them): the layer of the frame stays. */
  if (gst_buffer_get_meta (dest, gst_temporal_layer_meta_api_get_type ()))
    return TRUE;
  return gst_buffer_add_temporal_layer_meta (dest, m->layer_id, m->n_layers,
      m->period, m->droppable) != NULL;
}

const GstMetaInfo *
gst_temporal_layer_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        gst_meta_get_info (GST_TEMPORAL_LAYER_META_INFO_NAME);

    if (mi == NULL)
      mi = gst_meta_register (gst_temporal_layer_meta_api_get_type (),
          GST_TEMPORAL_LAYER_META_INFO_NAME, sizeof (GstTemporalLayerMeta),
          temporal_layer_meta_init, NULL, temporal_layer_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstTemporalLayerMeta *
gst_buffer_add_temporal_layer_meta (GstBuffer * buffer, guint layer_id,
    guint n_layers, guint period, gboolean droppable)
{
  GstTemporalLayerMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  m = (GstTemporalLayerMeta *) gst_buffer_add_meta (buffer,
      gst_temporal_layer_meta_get_info (), NULL);
  if (!m)
    return NULL;
  m->layer_id = layer_id;
  m->n_layers = n_layers;
  m->period = period;
  m->droppable = droppable;
  return m;
}
