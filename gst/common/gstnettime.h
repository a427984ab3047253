/* The one clock the shells give their cores: monotonic, in ns. */
#ifndef __GST_NET_TIME_H__
#define __GST_NET_TIME_H__

#include <glib.h>

G_BEGIN_DECLS

/* Monotonic time in ns, the time base every core runs on in an element. */
static inline gint64
gst_net_now (void)
{
  return g_get_monotonic_time () * 1000;
}

/* ns to add to gst_net_now () to get NTP time (ns since 1900), for RTCP
 * sender reports. */
static inline gint64
gst_net_ntp_offset (void)
{
  /* 70 years (17 leap days) between 1900 and 1970 */
  return (g_get_real_time () - g_get_monotonic_time ()) * 1000 +
      G_GINT64_CONSTANT (2208988800) * 1000000000;
}

G_END_DECLS

#endif /* __GST_NET_TIME_H__ */
