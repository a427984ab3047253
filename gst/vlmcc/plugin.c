/* The vlmcc plugin: single-rate multicast congestion control that emulates
 * a TCP Vegas connection toward the worst receiver (Rodriguez-Perez et
 * al.). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvlmccsink.h"
#include "gstvlmccsrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (vlmccsink, plugin);
  ok |= GST_ELEMENT_REGISTER (vlmccsrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, vlmcc,
    "VLMCC single-rate multicast congestion control: a sender paced by a "
    "Vegas window toward the leader receiver, receivers as leader or "
    "follower", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
