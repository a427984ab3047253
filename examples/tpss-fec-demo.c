/* tpss-fec-demo: live H.264 over RTP/UDP on loopback through a lossy link,
 * protected by tpssfecenc / tpssfecdec. Every second it prints what the link
 * lost and what the decoder recovered; at the end, how many frames decoded.
 *
 *   tpss-fec-demo [--seconds=N] [--loss=PERCENT] [--burst=LEN] [--k=K] [--l=L]
 *
 * The link drops each media packet with probability PERCENT/100, and every
 * drop takes the following LEN-1 packets with it (a burst), seeded so runs
 * repeat. Parity travels on its own port, unharmed, as a separate path would.
 */
#include <gst/gst.h>
#include <gio/gio.h>
#include <stdlib.h>

typedef struct
{
  GMutex lock;
  GRand *rand;
  gdouble loss;
  guint burst;
  guint burst_left;
  guint64 sent, dropped, frames;
} Link;

static GstPadProbeReturn
lossy_link (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Link *link = data;
  gboolean drop;

  g_mutex_lock (&link->lock);
  link->sent++;
  if (link->burst_left == 0 && g_rand_double (link->rand) < link->loss)
    link->burst_left = link->burst;
  drop = link->burst_left > 0;
  if (drop) {
    link->burst_left--;
    link->dropped++;
  }
  g_mutex_unlock (&link->lock);
  return drop ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static void
count_frame (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Link *link = data;

  g_mutex_lock (&link->lock);
  link->frames++;
  g_mutex_unlock (&link->lock);
}

static guint
free_udp_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  guint port = 0;

  if (s && g_socket_bind (s, any, FALSE, NULL)) {
    bound = g_socket_get_local_address (s, NULL);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_object_unref (bound);
  }
  g_object_unref (any);
  g_object_unref (lo);
  g_clear_object (&s);
  return port;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint64 (s, field, &v);
  gst_structure_free (s);
  return v;
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  if (err) {
    g_printerr ("cannot build pipeline: %s\n", err->message);
    exit (1);
  }
  return p;
}

static gboolean
check_bus (GstElement * pipeline, const gchar * who)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;
  gboolean ok = TRUE;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err;
    gst_message_parse_error (m, &err, NULL);
    g_printerr ("%s: %s\n", who, err->message);
    g_error_free (err);
    gst_message_unref (m);
    ok = FALSE;
  }
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  gint seconds = 10, k = 4, l = 5, burst = 3;
  gdouble loss_percent = 1.0;
  GOptionEntry entries[] = {
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "How long to stream", "N"},
    {"loss", 0, 0, G_OPTION_ARG_DOUBLE, &loss_percent,
        "Chance that a media packet starts a loss burst (%)", "PERCENT"},
    {"burst", 0, 0, G_OPTION_ARG_INT, &burst, "Packets lost per burst", "LEN"},
    {"k", 0, 0, G_OPTION_ARG_INT, &k, "Packet distance", "K"},
    {"l", 0, 0, G_OPTION_ARG_INT, &l, "Subsegment length", "L"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- TPSS FEC across a lossy link");
  GError *err = NULL;
  Link link = { 0 };
  GstElement *send, *recv, *dec, *lossy, *sink;
  GstPad *pad;
  guint media_port, fec_port;
  gchar *desc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (seconds < 1 || burst < 1 || k < 1 || k > 255 || l < 0 || l > 255 ||
      loss_percent < 0 || loss_percent > 100) {
    g_printerr ("out of range: need seconds >= 1, burst >= 1, 1 <= k <= 255, "
        "0 <= l <= 255, 0 <= loss <= 100\n");
    return 2;
  }

  g_mutex_init (&link.lock);
  link.rand = g_rand_new_with_seed (42);
  link.loss = loss_percent / 100.0;
  link.burst = burst;
  media_port = free_udp_port ();
  fec_port = free_udp_port ();

  desc = g_strdup_printf ("udpsrc port=%u caps=\"application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=H264,payload=96\" ! "
      "tpssfecdec name=dec size-time=300000000 pt=100 ! rtph264depay ! "
      "avdec_h264 ! fakesink name=sink signal-handoffs=true sync=false "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! dec.fec_0",
      media_port, fec_port);
  recv = launch (desc);
  g_free (desc);
  desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball num-buffers=%d ! "
      "video/x-raw,width=640,height=360,framerate=30/1 ! "
      "x264enc tune=zerolatency speed-preset=ultrafast bitrate=1500 "
      "key-int-max=300 ! rtph264pay mtu=1200 pt=96 config-interval=-1 ! "
      "tpssfecenc name=enc packet-distance=%d subsegment-length=%d pt=100 ! "
      "identity name=lossy ! udpsink host=127.0.0.1 port=%u "
      "enc.fec_0 ! udpsink host=127.0.0.1 port=%u async=false",
      seconds * 30, k, l, media_port, fec_port);
  send = launch (desc);
  g_free (desc);

  lossy = gst_bin_get_by_name (GST_BIN (send), "lossy");
  pad = gst_element_get_static_pad (lossy, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, lossy_link, &link, NULL);
  gst_object_unref (pad);
  gst_object_unref (lossy);
  sink = gst_bin_get_by_name (GST_BIN (recv), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (count_frame), &link);
  gst_object_unref (sink);
  dec = gst_bin_get_by_name (GST_BIN (recv), "dec");

  g_print ("TPSS FEC demo: %d s of 640x360 H.264, k=%d l=%d (overhead %.0f%%), "
      "link loss %.1f%% bursts of %d\n", seconds, k, l, l ? 100.0 / l : 0.0,
      loss_percent, burst);
  g_print ("%4s %10s %10s %10s %14s %8s\n", "s", "sent", "lost", "recovered",
      "unrecoverable", "frames");
  gst_element_set_state (recv, GST_STATE_PLAYING);
  gst_element_set_state (send, GST_STATE_PLAYING);

  for (gint t = 1; t <= seconds + 1; t++) {
    g_usleep (G_USEC_PER_SEC);
    if (!check_bus (send, "sender") || !check_bus (recv, "receiver"))
      return 1;
    g_mutex_lock (&link.lock);
    g_print ("%4d %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
        G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "\n",
        t, link.sent, link.dropped, stat_u64 (dec, "recovered"),
        stat_u64 (dec, "unrecoverable"), link.frames);
    g_mutex_unlock (&link.lock);
  }

  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  g_print ("lost on the link: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
      " media packets; recovered: %" G_GUINT64_FORMAT "; unrecoverable: %"
      G_GUINT64_FORMAT "; frames decoded: %" G_GUINT64_FORMAT " of %d\n",
      link.dropped, link.sent, stat_u64 (dec, "recovered"),
      stat_u64 (dec, "unrecoverable"), link.frames, seconds * 30);
  gst_object_unref (dec);
  gst_object_unref (send);
  gst_object_unref (recv);
  g_rand_free (link.rand);
  return 0;
}
