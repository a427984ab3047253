/* The BYE before the recording's end, the output's end at the moment of
 * leaving, and the recording's guard (confleave.h). */
#include "confleave.h"

static const gchar *const session_elements[] = { "tx", "rx", "atx", "arx" };

guint
conf_leave_sessions (GstElement * pipeline)
{
  guint stopped = 0;

  for (guint i = 0; i < G_N_ELEMENTS (session_elements); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline),
        session_elements[i]);

    if (!e)
      continue;
    /* the pipeline's own stop later leaves it alone */
    gst_element_set_locked_state (e, TRUE);
    if (gst_element_set_state (e, GST_STATE_NULL) != GST_STATE_CHANGE_FAILURE)
      stopped++;
    /* a sink that will never have its EOS: the pipeline's EOS, which waits
     * for every sink's, does not wait for it */
    if (GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK))
      gst_element_post_message (e, gst_message_new_eos (GST_OBJECT (e)));
    gst_object_unref (e);
  }
  return stopped;
}

static const gchar *const output_queues[] = { CONF_OUT_VIDEO_QUEUE,
  CONF_OUT_AUDIO_QUEUE, CONF_SNAPSHOT_QUEUE
};

static void
end_queue_input (GstElement * queue, gpointer data)
{
  GstPad *sink = gst_element_get_static_pad (queue, "sink");

  gst_pad_send_event (sink, gst_event_new_eos ());
  gst_object_unref (sink);
}

guint
conf_leave_output (GstElement * pipeline)
{
  guint ended = 0;

  for (guint i = 0; i < G_N_ELEMENTS (output_queues); i++) {
    GstElement *q = gst_bin_get_by_name (GST_BIN (pipeline), output_queues[i]);

    if (!q)
      continue;
    /* under load the mixers' backlog took seconds to drain at their live
     * pace, and the recording's EOS behind it missed the 5 s bound */
    gst_element_call_async (q, end_queue_input, NULL, NULL);
    ended++;
    gst_object_unref (q);
  }
  return ended;
}

static GstPadProbeReturn
drop_untimed (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  static gboolean warned;

  if (GST_BUFFER_PTS_IS_VALID (GST_PAD_PROBE_INFO_BUFFER (info)))
    return GST_PAD_PROBE_OK;
  if (!warned)
    g_printerr ("conference: a recorded frame without PTS is left out\n");
  warned = TRUE;
  return GST_PAD_PROBE_DROP;
}

void
conf_guard_recording (GstElement * pipeline)
{
  GstElement *parse = gst_bin_get_by_name (GST_BIN (pipeline),
      CONF_RECORDING_PARSER);
  GstPad *src;

  if (!parse)
    return;
  src = gst_element_get_static_pad (parse, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, drop_untimed, NULL, NULL);
  gst_object_unref (src);
  gst_object_unref (parse);
}
