/* The tpba plugin: TCP-rate-probing-based adaptation (Tobe et al.). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpbasink.h"
#include "gsttpbasrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (tpbasink, plugin);
  ok |= GST_ELEMENT_REGISTER (tpbasrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, tpba,
    "TCP-rate-probing-based adaptation: RTP over a TCP/UDP flow pair",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
