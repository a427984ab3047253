/* The camera's way to the encoder at a start under load: frames that
 * reach it late are left out, and its tee answers the allocation query
 * (see confstale.h). */
#include "confstale.h"

/* How long ago @buf's running time was on @pad's element's clock;
 * GST_CLOCK_TIME_NONE when that cannot be told. */
GstClockTime
conf_frame_age (GstPad * pad, GstBuffer * buf)
{
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  GstElement *element = gst_pad_get_parent_element (pad);
  GstClock *clock = element ? gst_element_get_clock (element) : NULL;
  GstClockTime rt = GST_CLOCK_TIME_NONE, now = GST_CLOCK_TIME_NONE;

  if (ev && clock && GST_BUFFER_PTS_IS_VALID (buf)) {
    const GstSegment *seg;

    gst_event_parse_segment (ev, &seg);
    if (seg->format == GST_FORMAT_TIME)
      rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf));
    now = gst_clock_get_time (clock);
    if (now >= gst_element_get_base_time (element))
      now -= gst_element_get_base_time (element);
    else
      now = GST_CLOCK_TIME_NONE;
  }
  if (ev)
    gst_event_unref (ev);
  if (clock)
    gst_object_unref (clock);
  if (element)
    gst_object_unref (element);
  if (!GST_CLOCK_TIME_IS_VALID (rt) || !GST_CLOCK_TIME_IS_VALID (now))
    return GST_CLOCK_TIME_NONE;
  return now > rt ? now - rt : 0;
}

static GstPadProbeReturn
drop_stale (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ConfStaleFrames *s = data;
  GstClockTime age = conf_frame_age (pad, GST_PAD_PROBE_INFO_BUFFER (info));

  if (!GST_CLOCK_TIME_IS_VALID (age) || age <= s->max_age)
    return GST_PAD_PROBE_OK;
  g_atomic_int_inc (&s->dropped);
  return GST_PAD_PROBE_DROP;
}

gulong
conf_stale_frames_attach (ConfStaleFrames * s, GstPad * pad,
    GstClockTime max_age)
{
  s->max_age = max_age;
  g_atomic_int_set (&s->dropped, 0);
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, drop_stale, s,
      NULL);
}

guint
conf_stale_frames_dropped (ConfStaleFrames * s)
{
  return (guint) g_atomic_int_get (&s->dropped);
}

static GstPadProbeReturn
answer_allocation (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  return GST_PAD_PROBE_HANDLED;
}

gulong
conf_allocation_answer_attach (GstPad * pad)
{
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      answer_allocation, NULL, NULL);
}

static void
set_base_time (const GValue * v, gpointer base)
{
  gst_element_set_base_time (g_value_get_object (v), *(GstClockTime *) base);
}

GstStateChangeReturn
conf_pipeline_play (GstElement * pipeline)
{
  GstClock *clock;
  GstClockTime base;
  GstIterator *it;

  if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE)
    return GST_STATE_CHANGE_FAILURE;
  clock = gst_pipeline_get_clock (GST_PIPELINE (pipeline));
  gst_pipeline_use_clock (GST_PIPELINE (pipeline), clock);
  gst_element_set_start_time (pipeline, GST_CLOCK_TIME_NONE);
  base = gst_clock_get_time (clock);
  gst_object_unref (clock);
  gst_element_set_base_time (pipeline, base);
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (gst_iterator_foreach (it, set_base_time, &base) ==
      GST_ITERATOR_RESYNC)
    gst_iterator_resync (it);
  gst_iterator_free (it);
  return gst_element_set_state (pipeline, GST_STATE_PLAYING);
}

gboolean
conf_plugins_preload (const gchar * const *factories, GError ** error)
{
  for (guint i = 0; factories[i]; i++) {
    GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
        factories[i]);
    GstPluginFeature *loaded = f ? gst_plugin_feature_load (f) : NULL;

    if (f)
      gst_object_unref (f);
    if (!loaded) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
          "element %s is %s", factories[i], f ? "not loadable" : "missing");
      return FALSE;
    }
    gst_object_unref (loaded);
  }
  return TRUE;
}

gboolean
conf_plugins_find (const gchar * const *factories, GError ** error)
{
  for (guint i = 0; factories[i]; i++) {
    GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
        factories[i]);

    if (!f) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
          "element %s is missing", factories[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}
