/* tpssfecenc / tpssfecdec in real pipelines over loopback UDP: on their own
 * FEC port, and inside rtpbin on both sides. A probe on the sender drops
 * bursts of media packets; every H.264 frame must still decode. */
#include <gst/check/gstcheck.h>
#include "checkutil.h"
#include <gio/gio.h>

#define FRAMES 90
#define BURST 3                 /* consecutive media packets lost */
#define BURST_EVERY 37          /* packets between burst starts */

typedef struct
{
  GMutex lock;
  guint decoded;
  guint dropped;
  guint64 seen;
  guint sent;                   /* frames the sender's payloader took */
} Counters;

static guint
counter_get (Counters * c, guint * counter)
{
  guint v;

  g_mutex_lock (&c->lock);
  v = *counter;
  g_mutex_unlock (&c->lock);
  return v;
}

static GstPadProbeReturn
count_sent (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Counters *c = data;

  g_mutex_lock (&c->lock);
  c->sent++;
  g_mutex_unlock (&c->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
drop_bursts (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Counters *c = data;
  gboolean drop;

  g_mutex_lock (&c->lock);
  drop = (c->seen++ % BURST_EVERY) >= BURST_EVERY - BURST;
  if (drop)
    c->dropped++;
  g_mutex_unlock (&c->lock);
  return drop ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Counters *c = data;

  g_mutex_lock (&c->lock);
  c->decoded++;
  g_mutex_unlock (&c->lock);
}

static void
wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (msg != NULL, "sender did not finish");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static GstElement *
find_element (GstElement * bin, const gchar * factory)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (bin));
  GValue v = G_VALUE_INIT;
  GstElement *found = NULL;

  while (!found && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstElementFactory *f = gst_element_get_factory (e);
    if (f && g_str_equal (GST_OBJECT_NAME (f), factory))
      found = gst_object_ref (e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return found;
}

/* Runs sender and receiver; checks every frame decoded and bursts were
 * repaired by the decoder. */
static void
run_pair (const gchar * send_desc, const gchar * recv_desc)
{
  Counters c = { 0 };
  GstElement *send, *recv, *lossy, *sink, *dec;
  GstPad *pad;
  GError *err = NULL;
  guint64 recovered, unrecoverable;

  g_mutex_init (&c.lock);
  recv = gst_parse_launch (recv_desc, &err);
  fail_unless (err == NULL, "receiver: %s", err ? err->message : "");
  send = gst_parse_launch (send_desc, &err);
  fail_unless (err == NULL, "sender: %s", err ? err->message : "");

  lossy = gst_bin_get_by_name (GST_BIN (send), "lossy");
  pad = gst_element_get_static_pad (lossy, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, drop_bursts, &c, NULL);
  gst_object_unref (pad);
  gst_object_unref (lossy);
  sink = gst_bin_get_by_name (GST_BIN (recv), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);

  fail_unless (gst_element_set_state (recv, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (send, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  wait_eos (send);

  /* The receiver never sees EOS over UDP: wait for the last frames (long
   * enough for a sanitized, loaded machine; ends as soon as they are in). */
  for (guint i = 0; i < 400; i++) {
    guint decoded;
    g_mutex_lock (&c.lock);
    decoded = c.decoded;
    g_mutex_unlock (&c.lock);
    if (decoded >= FRAMES)
      break;
    g_usleep (50000);
  }

  dec = find_element (recv, "tpssfecdec");
  fail_unless (dec != NULL);
  recovered = check_stat_u64 (dec, "recovered");
  unrecoverable = check_stat_u64 (dec, "unrecoverable");
  {
    GstStructure *st;
    g_object_get (dec, "stats", &st, NULL);
    GST_INFO ("dropped %u, decoded %u, decoder %" GST_PTR_FORMAT, c.dropped,
        c.decoded, st);
    gst_structure_free (st);
  }
  fail_unless (c.dropped >= 3 * BURST, "the probe dropped too little");
  /* Loopback may lose a few more under load; those are repaired too. */
  fail_unless (recovered >= c.dropped);
  fail_unless_equals_int (unrecoverable, 0);
  fail_unless_equals_int (c.decoded, FRAMES);
  gst_object_unref (dec);

  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (send);
  gst_object_unref (recv);
  g_mutex_clear (&c.lock);
}

#define SOURCE "videotestsrc num-buffers=%d is-live=true pattern=ball ! " \
  "video/x-raw,width=320,height=240,framerate=30/1 ! " \
  "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=1000 ! " \
  "rtph264pay mtu=400 config-interval=-1 pt=96 ! "
#define RTP_CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264,payload=96"

GST_START_TEST (test_fec_on_own_port)
{
  guint media_port = free_udp_port (), fec_port = free_udp_port ();
  gchar *send = g_strdup_printf (SOURCE
      "tpssfecenc name=enc packet-distance=4 subsegment-length=4 ! "
      "identity name=lossy ! udpsink host=127.0.0.1 port=%u "
      "enc.fec_0 ! udpsink host=127.0.0.1 port=%u async=false", FRAMES, media_port,
      fec_port);
  gchar *recv = g_strdup_printf ("udpsrc port=%u caps=\"" RTP_CAPS "\" ! "
      "tpssfecdec name=dec size-time=500000000 ! rtph264depay ! avdec_h264 ! "
      "fakesink name=sink signal-handoffs=true sync=false "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! dec.fec_0",
      media_port, fec_port);

  run_pair (send, recv);
  g_free (send);
  g_free (recv);
}

GST_END_TEST;

GST_START_TEST (test_fec_in_rtpbin)
{
  guint media_port = free_udp_port (), fec_port = free_udp_port ();
  gchar *send = g_strdup_printf ("rtpbin name=rtp "
      "fec-encoders=fec,0=\"tpssfecenc\\ packet-distance\\=4\\ "
      "subsegment-length\\=4\"; " SOURCE "rtp.send_rtp_sink_0 "
      "rtp.send_rtp_src_0 ! identity name=lossy ! "
      "udpsink host=127.0.0.1 port=%u "
      "rtp.send_fec_src_0_0 ! udpsink host=127.0.0.1 port=%u async=false",
      FRAMES, media_port, fec_port);
  gchar *recv = g_strdup_printf ("rtpbin name=rtp latency=200 "
      "fec-decoders=fec,0=\"tpssfecdec\\ size-time\\=500000000\"; "
      "udpsrc port=%u caps=\"" RTP_CAPS "\" ! rtp.recv_rtp_sink_0 "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! "
      "rtp.recv_fec_sink_0_0 "
      "rtp. ! rtph264depay ! avdec_h264 ! "
      "fakesink name=sink signal-handoffs=true sync=false",
      media_port, fec_port);

  run_pair (send, recv);
  g_free (send);
  g_free (recv);
}

GST_END_TEST;

/* Waits up to @timeout_s seconds for the sender to have sent @n frames;
 * returns the frames rendered by then. */
static guint
rendered_when_sent (Counters * c, guint n, guint timeout_s)
{
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;

  while (counter_get (c, &c->sent) < n && g_get_monotonic_time () < end)
    g_usleep (5000);
  fail_unless (counter_get (c, &c->sent) >= n, "the sender sent %u frames "
      "of %u in %u s", counter_get (c, &c->sent), n, timeout_s);
  return counter_get (c, &c->decoded);
}

/* The frames a synced sink renders per frame the live 30 fps source sends,
 * counted while the sender sends its frames 30 to 120: a loaded machine
 * slows both ends, the receiver that falls behind its sender (one frame
 * per size-time) renders a fraction. @warning gets the first warning or
 * error the receiver posted (a latency that cannot be configured, "please
 * add queues"), apart from tpssfecdec's own about its geometry, which
 * depends on the packet rate of the moment. */
static gdouble
synced_frame_ratio (const gchar * send_desc, const gchar * recv_desc,
    gchar ** warning)
{
  Counters c = { 0 };
  GstElement *send, *recv, *sink, *pay;
  GError *err = NULL;
  GstBus *bus;
  GstMessage *msg;
  GstPad *pad;
  guint first, last;

  g_mutex_init (&c.lock);
  recv = gst_parse_launch (recv_desc, &err);
  fail_unless (err == NULL, "receiver: %s", err ? err->message : "");
  send = gst_parse_launch (send_desc, &err);
  fail_unless (err == NULL, "sender: %s", err ? err->message : "");
  sink = gst_bin_get_by_name (GST_BIN (recv), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  pay = gst_bin_get_by_name (GST_BIN (send), "pay");
  pad = gst_element_get_static_pad (pay, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_sent, &c, NULL);
  gst_object_unref (pad);
  gst_object_unref (pay);

  fail_unless (gst_element_set_state (recv, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (send, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  first = rendered_when_sent (&c, 30, 30);
  last = rendered_when_sent (&c, 120, 60);
  g_print ("tpssfecpipelines: rendered %u frames while 90 were sent\n",
      last - first);

  bus = gst_element_get_bus (recv);
  *warning = NULL;
  while (!*warning && (msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_WARNING | GST_MESSAGE_ERROR))) {
    GstElementFactory *f = GST_IS_ELEMENT (GST_MESSAGE_SRC (msg)) ?
        gst_element_get_factory (GST_ELEMENT (GST_MESSAGE_SRC (msg))) : NULL;
    GError *e = NULL;

    if (f && g_str_equal (GST_OBJECT_NAME (f), "tpssfecdec")) {
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (msg, &e, NULL);
    else
      gst_message_parse_error (msg, &e, NULL);
    *warning = g_strdup (e->message);
    g_error_free (e);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);

  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (send);
  gst_object_unref (recv);
  g_mutex_clear (&c.lock);
  return (last - first) / 90.0;
}

#define LIVE_SOURCE "videotestsrc is-live=true ! " \
  "video/x-raw,width=320,height=240,framerate=30/1 ! " \
  "x264enc tune=zerolatency speed-preset=ultrafast ! rtph264pay name=pay pt=96 ! "

/* The README's receiver, tpssfecdec straight into a synced sink: it must
 * render at the source's rate, not one frame per size-time. */
GST_START_TEST (test_synced_sink_keeps_frame_rate)
{
  guint media_port = free_udp_port (), fec_port = free_udp_port ();
  gchar *send = g_strdup_printf (LIVE_SOURCE
      "tpssfecenc name=enc packet-distance=4 subsegment-length=5 ! "
      "udpsink host=127.0.0.1 port=%u "
      "enc.fec_0 ! udpsink host=127.0.0.1 port=%u async=false",
      media_port, fec_port);
  gchar *recv = g_strdup_printf ("udpsrc port=%u caps=\"" RTP_CAPS "\" ! "
      "tpssfecdec name=dec size-time=200000000 ! rtph264depay ! avdec_h264 ! "
      "fakesink name=sink signal-handoffs=true sync=true "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! dec.fec_0",
      media_port, fec_port);
  gchar *warning;
  gdouble ratio = synced_frame_ratio (send, recv, &warning);

  /* freed before the checks: a failure leaves the test (CK_FORK=no) */
  g_free (send);
  g_free (recv);
  fail_unless (ratio >= 0.9, "rendered %.2f frames per frame sent", ratio);
  fail_unless (warning == NULL, "receiver posted \"%s\"", warning);
}

GST_END_TEST;

GST_START_TEST (test_synced_sink_keeps_frame_rate_in_rtpbin)
{
  guint media_port = free_udp_port (), fec_port = free_udp_port ();
  gchar *send = g_strdup_printf ("rtpbin name=rtp "
      "fec-encoders=fec,0=\"tpssfecenc\\ packet-distance\\=4\\ "
      "subsegment-length\\=5\"; " LIVE_SOURCE "rtp.send_rtp_sink_0 "
      "rtp.send_rtp_src_0 ! udpsink host=127.0.0.1 port=%u "
      "rtp.send_fec_src_0_0 ! udpsink host=127.0.0.1 port=%u async=false",
      media_port, fec_port);
  gchar *recv = g_strdup_printf ("rtpbin name=rtp "
      "fec-decoders=fec,0=\"tpssfecdec\\ size-time\\=200000000\"; "
      "udpsrc port=%u caps=\"" RTP_CAPS "\" ! rtp.recv_rtp_sink_0 "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! "
      "rtp.recv_fec_sink_0_0 "
      "rtp. ! rtph264depay ! avdec_h264 ! "
      "fakesink name=sink signal-handoffs=true sync=true",
      media_port, fec_port);
  gchar *warning;
  gdouble ratio = synced_frame_ratio (send, recv, &warning);

  /* freed before the checks: a failure leaves the test (CK_FORK=no) */
  g_free (send);
  g_free (recv);
  fail_unless (ratio >= 0.9, "rendered %.2f frames per frame sent", ratio);
  fail_unless (warning == NULL, "receiver posted \"%s\"", warning);
}

GST_END_TEST;

static Suite *
tpssfecpipelines_suite (void)
{
  Suite *s = suite_create ("tpssfecpipelines");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fec_on_own_port);
  tcase_add_test (tc, test_fec_in_rtpbin);
  tcase_add_test (tc, test_synced_sink_keeps_frame_rate);
  tcase_add_test (tc, test_synced_sink_keeps_frame_rate_in_rtpbin);
  return s;
}

GST_CHECK_MAIN (tpssfecpipelines);
