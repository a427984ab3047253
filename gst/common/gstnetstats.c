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

static GstPadProbeReturn
on_eos (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    gst_net_stats_post (data);
  return GST_PAD_PROBE_OK;
}

void
gst_net_stats_post_at_eos (GstNetStats * stats, GstPad * pad)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_eos, stats,
      NULL);
}
