/* The element's `stats` structure posted as an element message every
 * stats-interval (from the I/O loop) and once more at EOS. */
#ifndef __GST_NET_STATS_H__
#define __GST_NET_STATS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Builds the element's stats (what its `stats` property returns). */
typedef GstStructure *(*GstNetStatsFunc) (GstElement * element);

typedef struct
{
  GstElement *element;
  const gchar *name;            /* the message structure's name, static */
  GstNetStatsFunc get;
  gint64 interval;              /* ns, 0: no periodic message */
  gint64 next;                  /* ns, on gst_net_now () */
} GstNetStats;

void gst_net_stats_init (GstNetStats * stats, GstElement * element,
    const gchar * name, GstNetStatsFunc get);
/* At start: the first message goes at once, then every @interval ns. */
void gst_net_stats_start (GstNetStats * stats, gint64 interval, gint64 now);
/* Posts the message if it is due; returns when the next one is (G_MAXINT64:
 * never). One thread (the loop's) calls it, holding no lock: get() takes
 * the element's. */
gint64 gst_net_stats_poll (GstNetStats * stats, gint64 now);
/* Posts the message now (at EOS). */
void gst_net_stats_post (GstNetStats * stats);
/* Posts the message once more whenever an EOS event passes @pad (a source
 * pad's, so gst-launch-1.0 -e shows the last counters). */
void gst_net_stats_post_at_eos (GstNetStats * stats, GstPad * pad);

G_END_DECLS

#endif /* __GST_NET_STATS_H__ */
