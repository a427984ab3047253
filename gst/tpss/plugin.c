/* The tpss plugin: TPSS + NQCP group streams and their interleaved parity FEC. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpssfecenc.h"
#include "gsttpssfecdec.h"
#include "gsttpsssink.h"
#include "gsttpsssrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (tpssfecenc, plugin);
  ok |= GST_ELEMENT_REGISTER (tpssfecdec, plugin);
  ok |= GST_ELEMENT_REGISTER (tpsssink, plugin);
  ok |= GST_ELEMENT_REGISTER (tpsssrc, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, tpss,
    "Two-phase slow start group transport and its interleaved XOR parity FEC",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
