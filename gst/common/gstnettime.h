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

/* A clock's reading, ns. */
typedef gint64 (*GstNetClockRead) (gpointer user_data);

/* Readings of the wall clock between two of the monotonic one tried at
 * most, and the bracket that is tight enough to stop at, ns. */
#define GST_NET_WALL_OFFSET_TRIES 4
#define GST_NET_WALL_OFFSET_SPAN (10 * 1000)

/* The wall clock less the monotonic one, ns, from a wall reading taken
 * between two monotonic ones, the tightest of a few: a thread preempted
 * between two reads (milliseconds on a loaded host) would put the
 * preemption into the offset, and every time converted with it early. */
static inline gint64
gst_net_wall_offset_with (GstNetClockRead monotonic, GstNetClockRead wall,
    gpointer user_data)
{
  gint64 best = 0, best_span = G_MAXINT64;

  for (guint i = 0; i < GST_NET_WALL_OFFSET_TRIES &&
      best_span > GST_NET_WALL_OFFSET_SPAN; i++) {
    gint64 before = monotonic (user_data);
    gint64 w = wall (user_data);
    gint64 after = monotonic (user_data);

    if (after - before < best_span) {
      best_span = after - before;
      best = w - (before + (after - before) / 2);
    }
  }
  return best;
}

static inline gint64
gst_net_read_monotonic (gpointer user_data)
{
  return g_get_monotonic_time () * 1000;
}

static inline gint64
gst_net_read_wall (gpointer user_data)
{
  return g_get_real_time () * 1000;
}

/* The wall clock (ns since 1970) less gst_net_now (). */
static inline gint64
gst_net_wall_offset (void)
{
  return gst_net_wall_offset_with (gst_net_read_monotonic, gst_net_read_wall,
      NULL);
}

/* 70 years (17 leap days) between 1900 and 1970, ns */
#define GST_NET_NTP_EPOCH_OFFSET (G_GINT64_CONSTANT (2208988800) * 1000000000)

/* ns to add to the @monotonic clock's readings to get NTP time (ns since
 * 1900), read as gst_net_wall_offset_with() does. */
static inline gint64
gst_net_ntp_offset_with (GstNetClockRead monotonic, GstNetClockRead wall,
    gpointer user_data)
{
  return gst_net_wall_offset_with (monotonic, wall, user_data) +
      GST_NET_NTP_EPOCH_OFFSET;
}

/* ns to add to gst_net_now () to get NTP time (ns since 1900), for RTCP
 * sender reports: a preemption between two plain reads would shift every
 * report's NTP time, and the receivers' lip sync with it. */
static inline gint64
gst_net_ntp_offset (void)
{
  return gst_net_ntp_offset_with (gst_net_read_monotonic, gst_net_read_wall,
      NULL);
}

G_END_DECLS

#endif /* __GST_NET_TIME_H__ */
