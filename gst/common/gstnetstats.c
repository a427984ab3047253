/* Periodic stats messages (see gstnetstats.h). */
#include "gstnetstats.h"

void
gst_net_stats_init (GstNetStats * stats, GstElement * element,
    const gchar * name, GstNetStatsFunc get)
{
  stats->element = element;
  stats->name = name;
  stats->get = get;
  stats->interval = 0;
  stats->next = G_MAXINT64;
}

void
gst_net_stats_start (GstNetStats * stats, gint64 interval, gint64 now)
{
  stats->interval = interval;
  stats->next = interval > 0 ? now : G_MAXINT64;
}

void
gst_net_stats_post (GstNetStats * stats)
{
  GstStructure *s = stats->get (stats->element);

  gst_structure_set_name (s, stats->name);
  gst_element_post_message (stats->element,
      gst_message_new_element (GST_OBJECT (stats->element), s));
}

gint64
gst_net_stats_poll (GstNetStats * stats, gint64 now)
{
  if (stats->interval <= 0)
    return G_MAXINT64;
  if (now >= stats->next) {
    stats->next = now + stats->interval;
    gst_net_stats_post (stats);
  }
  return stats->next;
}
