/* Media that follows the sink's rate, for the network tests of TPSS's slow
 * start: an appsrc pushes RTP packets of a fixed payload size into a
 * tpsssink at the sink's `bitrate` (the data rate D the core tells its
 * encoder), as a rate-following encoder would, for a given time; then EOS.
 *
 *   tpss-rate-src SECONDS PAYLOAD_BYTES FIXED_BPS TPSSSINK-PROPERTIES...
 *
 * FIXED_BPS 0: follow the sink; > 0: push at that rate instead (a reference flow, or an
 * application that sends less than it may). Prints "pushed=N" and the
 * sink's `bitrate` every second as "t=S bitrate=B" on stdout, and the sink's
 * loop stalls and skipped pacing time (from its `stats`) every second and at
 * the end as "sink-loop t=S late-turns=N late-time=NS late-max=NS
 * pacing-skipped=NS". */
#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include <stdlib.h>

static GstBuffer *
make_packet (guint payload, guint16 seq, guint32 ts)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, 1);
  memset (gst_rtp_buffer_get_payload (&rtp), 0x5a, payload);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

/* The host's stalls of the sink's loop and the pacing time they made the sink
 * skip, so a test can tell them from TPSS's own rate. */
static void
print_sink_loop (GstElement * sink, gdouble t)
{
  GstStructure *st = NULL;
  guint64 turns = 0, late = 0, late_max = 0;
  gint64 skipped = 0;

  g_object_get (sink, "stats", &st, NULL);
  if (!st)
    return;
  gst_structure_get_uint64 (st, "loop-late-turns", &turns);
  gst_structure_get_uint64 (st, "loop-late-time", &late);
  gst_structure_get_uint64 (st, "loop-late-max", &late_max);
  gst_structure_get_int64 (st, "pacing-skipped", &skipped);
  g_print ("sink-loop t=%.1f late-turns=%" G_GUINT64_FORMAT " late-time=%"
      G_GUINT64_FORMAT " late-max=%" G_GUINT64_FORMAT " pacing-skipped=%"
      G_GINT64_FORMAT "\n", t, turns, late, late_max, skipped);
  gst_structure_free (st);
}

int
main (int argc, char **argv)
{
  GstElement *pipe, *src, *sink;
  GString *desc;
  GError *err = NULL;
  gdouble seconds;
  guint payload, fixed = 0, bitrate = 0;
  gint64 start, next, now, next_print;
  guint64 pushed = 0, initial = 0;
  GstMessage *msg;
  int i;

  gst_init (&argc, &argv);
  if (argc < 4) {
    g_printerr ("usage: %s SECONDS PAYLOAD_BYTES FIXED_BPS "
        "TPSSSINK-PROPERTIES...\n", argv[0]);
    return 2;
  }
  seconds = g_ascii_strtod (argv[1], NULL);
  payload = (guint) atoi (argv[2]);
  fixed = (guint) g_ascii_strtoull (argv[3], NULL, 10);
  if (seconds <= 0 || payload < 1 || payload > 60000) {
    g_printerr ("bad arguments: SECONDS > 0, PAYLOAD_BYTES 1..60000\n");
    return 2;
  }
  desc = g_string_new ("appsrc name=src is-live=true format=time "
      "caps=application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=X-TEST,payload=96 ! tpsssink name=sink");
  for (i = 4; i < argc; i++)
    g_string_append_printf (desc, " %s", argv[i]);
  pipe = gst_parse_launch (desc->str, &err);
  g_string_free (desc, TRUE);
  if (!pipe) {
    g_printerr ("pipeline: %s\n", err->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  /* The sink's `bitrate` stays 0 until the core first changes D (after a
   * receiver's first RATE); a rate-following encoder starts at the rate it
   * was configured with, the sink's initial-rate. Paced at the 8 kbit/s
   * floor instead, the first packet held the next back 1.2 s (1200 bytes),
   * and the sink's application-limited rule took that trickle for what the
   * flow uses: under load tpss-capacity-stall's first ASSIGN set D to
   * 0.39 Mbit/s, from 1 Mbit/s. */
  g_object_get (sink, "initial-rate", &initial, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  start = next = next_print = g_get_monotonic_time ();
  while ((now = g_get_monotonic_time ()) - start < seconds * G_USEC_PER_SEC) {
    guint rate = fixed;
    GstFlowReturn ret;
    GstBuffer *buf;

    if (now < next) {
      g_usleep (MIN (next - now, 2000));
      continue;
    }
    g_object_get (sink, "bitrate", &bitrate, NULL);
    if (!rate)
      rate = MAX (bitrate ? bitrate : (guint) MIN (initial, G_MAXUINT), 8000);
    if (now >= next_print) {
      g_print ("t=%.1f bitrate=%u\n", (now - start) / 1e6, bitrate);
      print_sink_loop (sink, (now - start) / 1e6);
      next_print += G_USEC_PER_SEC;
    }
    buf = make_packet (payload, (guint16) pushed, (guint32) (pushed * 90));
    GST_BUFFER_PTS (buf) = (now - start) * GST_USECOND;
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    if (ret != GST_FLOW_OK)
      break;
    pushed++;
    /* the next packet when this one's bits have left at the rate */
    next += (gint64) payload * 8 * G_USEC_PER_SEC / rate;
    if (next < now - 100000)
      next = now;               /* never bursts to catch up a stall */
  }
  g_print ("pushed=%" G_GUINT64_FORMAT "\n", pushed);
  print_sink_loop (sink, (g_get_monotonic_time () - start) / 1e6);
  {
    GstFlowReturn ret;
    g_signal_emit_by_name (src, "end-of-stream", &ret);
  }
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return 0;
}
