/* The rmtp plugin: reliable multicast delivery of a whole data set
 * (Shiroshita et al., 1996). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrmtpsink.h"
#include "gstrmtpsrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (rmtpsink, plugin);
  ok |= GST_ELEMENT_REGISTER (rmtpsrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rmtp,
    "Reliable multicast delivery of a whole data set to a member list: "
    "rounds of selective repeat, NACKs with backoff, unicast for slow "
    "receivers", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
