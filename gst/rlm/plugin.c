/* The rlm plugin: receiver-driven layered multicast (McCanne, Jacobson,
 * Vetterli, SIGCOMM '96). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrlmsink.h"
#include "gstrlmsrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (rlmsink, plugin);
  ok |= GST_ELEMENT_REGISTER (rlmsrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rlm,
    "Receiver-driven layered multicast: a layered stream on one multicast "
    "group per layer, receivers adding and dropping layers",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
