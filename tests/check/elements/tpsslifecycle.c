/* tpsssrc through its life cycle, on loopback with ephemeral ports:
 * - the application's EOS reaching a tpsssrc that has no pad yet (no
 *   member sent) ends the pipeline with an error instead of leaving it
 *   waiting for an EOS no sink can get (gst-launch-1.0 -e on Ctrl-C). */
#include <gst/check/gstcheck.h>
#include "checkutil.h"

/* A receive-only member 2 whose peer (member 1, on @peer_port) never
 * sends; its one pad would go to the fakesink (delayed linking, as
 * gst-launch-1.0 does it). */
static GstElement *
receive_only_pipeline (guint port, guint peer_port)
{
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=2 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u ! fakesink name=out", port,
      peer_port, port);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL && err == NULL, "%s", err ? err->message : "");
  g_free (desc);
  return p;
}

static guint
pads_now (GstElement * src)
{
  GstStructure *st;
  guint pads = G_MAXUINT;

  g_object_get (src, "stats", &st, NULL);
  gst_structure_get_uint (st, "pads", &pads);
  gst_structure_free (st);
  return pads;
}

GST_START_TEST (test_eos_before_any_pad_ends_pipeline)
{
  guint port = free_udp_port (), peer_port = free_udp_port ();
  GstElement *pipeline = receive_only_pipeline (port, peer_port);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;

  /* no get_state: the fakesink never prerolls */
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  g_usleep (200 * 1000);
  fail_unless_equals_int (pads_now (src), 0);

  fail_unless (gst_element_send_event (pipeline, gst_event_new_eos ()));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither EOS nor an error within 5 s of the EOS");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (src));
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED),
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
tpsslifecycle_suite (void)
{
  Suite *s = suite_create ("tpsslifecycle");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_eos_before_any_pad_ends_pipeline);
  return s;
}

GST_CHECK_MAIN (tpsslifecycle);
