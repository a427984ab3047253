/* The x264layer plugin: x264layerenc. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstx264layerenc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (x264layerenc, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, x264layer,
    "Temporal-scalable H.264 encoder on libx264", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
