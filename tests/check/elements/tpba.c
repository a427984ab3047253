/* tpbasink + tpbasrc on loopback: a stream arrives complete and in order
 * across forced period switches, strangers' TCP connections are refused,
 * the rate path notifies, URIs round-trip, bad settings fail clearly. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gio/gio.h>
#include "checkutil.h"
#include "tpbacore.h"

#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=8000," \
    "encoding-name=X-TEST,payload=96"

typedef struct
{
  GstElement *rx, *tx, *src, *sink, *appsrc, *appsink;
  gint port, tcp_port, rtcp_port;
  gint notifies;
  gint rate_events;
} Pair;

static void
on_bitrate (GObject * o, GParamSpec * ps, gpointer user)
{
  g_atomic_int_inc (&((Pair *) user)->notifies);
}

static GstPadProbeReturn
upstream_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM &&
      gst_event_has_name (ev, "GstLayerRates"))
    g_atomic_int_inc (&((Pair *) user)->rate_events);
  return GST_PAD_PROBE_OK;
}

static void
pair_start_full (Pair * p, const gchar * src_props, const gchar * sink_props)
{
  gchar *desc;
  GstPad *pad;

  memset (p, 0, sizeof (*p));
  desc = g_strdup_printf ("tpbasrc name=src port=0 tcp-port=0 rtcp-port=0 "
      "caps=\"" RTP_CAPS "\" %s ! appsink name=out sync=false "
      "max-buffers=100000", src_props);
  p->rx = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p->rx != NULL);
  p->src = gst_bin_get_by_name (GST_BIN (p->rx), "src");
  p->appsink = gst_bin_get_by_name (GST_BIN (p->rx), "out");
  fail_unless (gst_element_set_state (p->rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_get (p->src, "port", &p->port, "tcp-port", &p->tcp_port,
      "rtcp-port", &p->rtcp_port, NULL);
  fail_unless (p->port > 0 && p->tcp_port > 0 && p->rtcp_port > 0);

  desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" RTP_CAPS "\" ! tpbasink name=snk host=127.0.0.1 port=%d "
      "tcp-port=%d rtcp-port=%d %s", p->port, p->tcp_port, p->rtcp_port,
      sink_props);
  p->tx = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p->tx != NULL);
  p->sink = gst_bin_get_by_name (GST_BIN (p->tx), "snk");
  p->appsrc = gst_bin_get_by_name (GST_BIN (p->tx), "in");
  g_signal_connect (p->sink, "notify::bitrate", G_CALLBACK (on_bitrate), p);
  pad = gst_element_get_static_pad (p->appsrc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, upstream_probe,
      p, NULL);
  gst_object_unref (pad);
  fail_unless (gst_element_set_state (p->tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static void
pair_start (Pair * p, const gchar * sink_props)
{
  pair_start_full (p, "", sink_props);
}

static void
pair_stop (Pair * p)
{
  gst_element_set_state (p->tx, GST_STATE_NULL);
  gst_element_set_state (p->rx, GST_STATE_NULL);
  gst_object_unref (p->src);
  gst_object_unref (p->sink);
  gst_object_unref (p->appsrc);
  gst_object_unref (p->appsink);
  gst_object_unref (p->tx);
  gst_object_unref (p->rx);
}

static GstBuffer *
make_packet (guint i, guint size)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (size, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *pl;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 0x12345678);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, (guint16) (i + 65000));   /* wraps */
  /* ADUs of 2 packets: the second has the marker */
  gst_rtp_buffer_set_timestamp (&rtp, (i / 2) * 160);
  gst_rtp_buffer_set_marker (&rtp, i % 2 == 1);
  pl = gst_rtp_buffer_get_payload (&rtp);
  for (guint k = 0; k < size; k++)
    pl[k] = (guint8) (i * 7 + k);
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

/* The next sample at the source's appsink: up to 5 s while fewer than
 * @want came (@got so far), then 500 ms, enough for a surplus packet to
 * show without waiting out a long timeout at the end of every test. */
static GstSample *
pull_sample (Pair * p, guint got, guint want)
{
  return gst_app_sink_try_pull_sample (GST_APP_SINK (p->appsink),
      got < want ? 5 * GST_SECOND : 500 * GST_MSECOND);
}

/* Waits until the sink took all @n packets of @size payload bytes that
 * were pushed into appsrc: sent, queued for pacing or dropped. */
static void
wait_sink_took (Pair * p, guint n, guint size)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint64 want = (guint64) n * (12 + size), took;

  do {
    took = check_stat_u64 (p->sink, "bytes-udp") +
        check_stat_u64 (p->sink, "bytes-tcp") +
        check_stat_u64 (p->sink, "queued-bytes") +
        check_stat_u64 (p->sink, "dropped-packets") * (12 + size);
    if (took >= want)
      return;
    g_usleep (10000);
  } while (g_get_monotonic_time () < end);
  fail ("the sink took %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
      " bytes pushed in 10 s", took, want);
}

/* Connects to the source's TCP port from @local (a loopback address);
 * TRUE if the source closed the connection at once. */
static gboolean
stranger_refused (gint tcp_port, const gchar * local)
{
  GSocketClient *c = g_socket_client_new ();
  GSocketAddress *la = g_inet_socket_address_new_from_string (local, 0);
  GSocketConnection *conn;
  GError *err = NULL;
  gchar buf[16];
  gssize n;
  GInputStream *in;

  g_socket_client_set_local_address (c, la);
  g_socket_client_set_timeout (c, 3);
  conn = g_socket_client_connect_to_host (c, "127.0.0.1", tcp_port, NULL,
      &err);
  g_object_unref (la);
  g_object_unref (c);
  if (!conn) {
    GST_INFO ("stranger could not connect: %s", err->message);
    g_error_free (err);
    return TRUE;
  }
  in = g_io_stream_get_input_stream (G_IO_STREAM (conn));
  n = g_input_stream_read (in, buf, sizeof (buf), NULL, &err);
  if (err) {
    GST_INFO ("stranger read: %s", err->message);
    g_clear_error (&err);
    n = 0;
  }
  g_object_unref (conn);
  return n == 0;
}

static gboolean
stat_bool (GstElement * e, const gchar * field)
{
  GstStructure *st = NULL;
  gboolean v = FALSE;

  g_object_get (e, "stats", &st, NULL);
  fail_unless (st && gst_structure_get_boolean (st, field, &v), "%s", field);
  gst_structure_free (st);
  return v;
}

/* With a key every RTCP datagram (and token message) was sealed and the
 * peer's opened, none refused; without one nothing was. */
static void
check_auth_clean (GstElement * e, gboolean keyed)
{
  fail_unless_equals_int (stat_bool (e, "auth"), keyed);
  if (keyed) {
    fail_unless (check_stat_u64 (e, "auth-sealed") > 0);
    fail_unless (check_stat_u64 (e, "auth-accepted") > 0);
  } else {
    fail_unless_equals_uint64 (check_stat_u64 (e, "auth-sealed"), 0);
    fail_unless_equals_uint64 (check_stat_u64 (e, "auth-accepted"), 0);
  }
  fail_unless_equals_uint64 (check_stat_u64 (e, "auth-truncated"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (e, "auth-bad-tag"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (e, "auth-replayed"), 0);
}

/* Whether @props set the group key (not only srtp-key). */
static gboolean
has_group_key (const gchar * props)
{
  return g_str_has_prefix (props, "key=") || strstr (props, " key=");
}

/* With SRTP every one of the @n packets was protected once, over UDP or
 * TCP, and opened once; without it the counters stay 0. */
static void
check_srtp_clean (Pair * p, guint n, gboolean srtp)
{
  fail_unless_equals_int (stat_bool (p->sink, "srtp"), srtp);
  fail_unless_equals_int (stat_bool (p->src, "srtp"), srtp);
  fail_unless_equals_uint64 (check_stat_u64 (p->sink, "srtp-protected"),
      srtp ? n : 0);
  fail_unless_equals_uint64 (check_stat_u64 (p->src, "srtp-accepted"),
      srtp ? n : 0);
  fail_unless_equals_uint64 (check_stat_u64 (p->src, "srtp-auth-failed") +
      check_stat_u64 (p->src, "srtp-replayed") +
      check_stat_u64 (p->src, "srtp-malformed"), 0);
}

/* Streams N packets through switches every ~0.2 s (with @src_extra and
 * @extra sink settings) and checks every one arrives once, in order, byte
 * for byte. */
static void
stream_across_switches_with (const gchar * src_extra, const gchar * extra)
{
  Pair p;
  const guint N = 300, SIZE = 400;
  guint got = 0;
  guint64 tcp, udp, switches, refused;
  GstMessage *msg;
  GstBus *bus;

  /* probing cycles of 50 ms, a huge epsilon: probing ends after 3 cycles;
   * running 250 ms: a switch every ~0.2-0.25 s, 7-8 in the 1.5 s stream
   * (plain and ASan, 4 streams at once on 2 cores; 3 are needed) */
  gchar *settings = g_strconcat ("t-tcp=50000000 epsilon=1000000000 "
      "t-running=250000000 t-adapt=100000000 t-rtcp=100000000 ", extra, NULL);

  pair_start_full (&p, src_extra, settings);
  g_free (settings);

  for (guint i = 0; i < N; i++) {
    GstBuffer *b = make_packet (i, SIZE);
    GST_BUFFER_PTS (b) = i * 5 * GST_MSECOND;
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), b) ==
        GST_FLOW_OK);
    g_usleep (5000);            /* ~200 packets/s, 640 kbit/s */
    if (i == N / 2) {
      /* mid-stream: the peer is 127.0.0.1; 127.0.0.2 is a stranger */
      fail_unless (stranger_refused (p.tcp_port, "127.0.0.2"));
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (p.appsrc));
  bus = gst_element_get_bus (p.tx);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);

  while (got < N) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (p.appsink),
        3 * GST_SECOND);
    GstBuffer *b, *want;
    GstMapInfo m1, m2;

    if (!s)
      break;
    b = gst_sample_get_buffer (s);
    want = make_packet (got, SIZE);
    gst_buffer_map (b, &m1, GST_MAP_READ);
    gst_buffer_map (want, &m2, GST_MAP_READ);
    fail_unless (m1.size == m2.size && memcmp (m1.data, m2.data, m1.size) == 0,
        "packet %u differs (got seq %u)", got, m1.size > 3 ?
        (m1.data[2] << 8 | m1.data[3]) : 0);
    gst_buffer_unmap (b, &m1);
    gst_buffer_unmap (want, &m2);
    gst_buffer_unref (want);
    gst_sample_unref (s);
    got++;
  }
  tcp = check_stat_u64 (p.sink, "packets-tcp");
  udp = check_stat_u64 (p.sink, "packets-udp");
  switches = check_stat_u64 (p.sink, "switches");
  refused = check_stat_u64 (p.src, "tcp-refused");
  GST_INFO ("got %u of %u; sink tcp %" G_GUINT64_FORMAT " udp %"
      G_GUINT64_FORMAT " switches %" G_GUINT64_FORMAT "; src duplicates %"
      G_GUINT64_FORMAT " refused %" G_GUINT64_FORMAT, got, N, tcp, udp,
      switches, check_stat_u64 (p.src, "duplicates"), refused);
  fail_unless_equals_int (got, N);
  fail_unless (tcp > 0 && udp > 0, "tcp %" G_GUINT64_FORMAT " udp %"
      G_GUINT64_FORMAT, tcp, udp);
  fail_unless (switches >= 3, "only %" G_GUINT64_FORMAT " switches",
      switches);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "packets-tcp") +
      check_stat_u64 (p.src, "packets-udp"), N);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "duplicates"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "skipped"), 0);
  fail_unless_equals_uint64 (refused, 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-accepted"), 1);
  fail_unless (check_stat_u64 (p.src, "rr-sent") > 0);
  fail_unless (check_stat_u64 (p.sink, "rtcp-received") > 0);
  check_loop_ran_without_spins (p.sink);
  check_loop_ran_without_spins (p.src);
  /* the rate path: initial rate, r[i] offers, r_s */
  fail_unless (g_atomic_int_get (&p.notifies) >= 2, "%d notifies",
      p.notifies);
  fail_unless (g_atomic_int_get (&p.rate_events) >= 2, "%d rate events",
      p.rate_events);
  {
    guint br;
    g_object_get (p.sink, "bitrate", &br, NULL);
    fail_unless (br > 0);
  }
  check_auth_clean (p.sink, has_group_key (extra));
  check_auth_clean (p.src, has_group_key (src_extra));
  check_srtp_clean (&p, N, strstr (extra, "srtp-key") != NULL);
  pair_stop (&p);
}

static void
stream_across_switches (const gchar * extra)
{
  stream_across_switches_with ("", extra);
}

GST_START_TEST (test_stream_across_switches)
{
  stream_across_switches ("");
}

GST_END_TEST;

/* The same with Linux pacing the probing connection. */
GST_START_TEST (test_stream_across_switches_paced)
{
  stream_across_switches ("tcp-pacing=true");
}

GST_END_TEST;

/* A flush discards the packets waiting for pacing; what follows arrives
 * with sequence numbers that close up over the discarded ones. */
GST_START_TEST (test_flush_discards_queue)
{
  Pair p;
  const guint N = 40, AFTER = 4, SIZE = 200;
  GstPad *pad;
  guint64 flushed, queued;
  guint got = 0;
  guint16 prev = 0;

  /* LDA at 20 kbit/s: a 212-byte packet leaves every ~85 ms */
  pair_start (&p, "mode=lda r-0=20000 t-adapt=10000000000");
  for (guint i = 0; i < N; i++) {
    GstBuffer *b = make_packet (i, SIZE);
    GST_BUFFER_PTS (b) = i * 20 * GST_MSECOND;
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), b) ==
        GST_FLOW_OK);
  }
  /* all in the sink's queue, the first ones already on their way */
  wait_sink_took (&p, N, SIZE);
  check_stat_u64_reaches (p.sink, "packets-udp", 1, 10);
  pad = gst_element_get_static_pad (p.sink, "sink");
  fail_unless (gst_pad_send_event (pad, gst_event_new_flush_start ()));
  fail_unless (gst_pad_send_event (pad, gst_event_new_flush_stop (FALSE)));
  {
    GstSegment seg;             /* a flush clears it; appsrc does not resend */
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_pad_send_event (pad, gst_event_new_segment (&seg)));
  }
  gst_object_unref (pad);
  flushed = check_stat_u64 (p.sink, "flushed-packets");
  queued = check_stat_u64 (p.sink, "queued-bytes");
  fail_unless (flushed > N / 2 && flushed < N, "flushed %" G_GUINT64_FORMAT,
      flushed);
  fail_unless_equals_uint64 (queued, 0);

  for (guint i = N; i < N + AFTER; i++) {
    GstBuffer *b = make_packet (i, SIZE);
    GST_BUFFER_PTS (b) = i * 20 * GST_MSECOND;
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), b) ==
        GST_FLOW_OK);
  }
  for (;;) {
    GstSample *smp = pull_sample (&p, got, N - flushed + AFTER);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint16 seq;

    if (!smp)
      break;
    gst_rtp_buffer_map (gst_sample_get_buffer (smp), GST_MAP_READ, &rtp);
    seq = gst_rtp_buffer_get_seq (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_sample_unref (smp);
    if (got)
      fail_unless_equals_int (seq, (guint16) (prev + 1));
    prev = seq;
    got++;
  }
  fail_unless_equals_int (got, N - flushed + AFTER);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "skipped"), 0);
  pair_stop (&p);
}

GST_END_TEST;

/* A full queue drops whole ADUs: what arrives is complete ADUs (each
 * ending with its marker) with sequence numbers that close up over the
 * dropped ones. */
GST_START_TEST (test_full_queue_drops_whole_adus)
{
  Pair p;
  const guint N = 20, AFTER = 4, SIZE = 200;
  guint64 dropped, dropped_adus;
  guint got = 0;
  guint16 prev = 0;

  /* 1500 bytes hold three ADUs of two 212-byte packets, which leave
   * within ~0.5 s at 20 kbit/s; the ADUs after them find room again */
  pair_start (&p, "mode=lda r-0=20000 t-adapt=10000000000 "
      "max-queue-bytes=1500");
  for (guint i = 0; i < N + AFTER; i++) {
    GstBuffer *b = make_packet (i, SIZE);
    if (i == N) {
      /* the sink took the first N (dropping some) and sent what it kept */
      wait_sink_took (&p, N, SIZE);
      check_stat_u64_falls_to (p.sink, "queued-bytes", 0, 10);
    }
    GST_BUFFER_PTS (b) = i * 20 * GST_MSECOND;
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), b) ==
        GST_FLOW_OK);
  }
  for (;;) {
    GstSample *smp = pull_sample (&p, got, N + AFTER -
        check_stat_u64 (p.sink, "dropped-packets"));
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint16 seq;
    gboolean marker;

    if (!smp)
      break;
    gst_rtp_buffer_map (gst_sample_get_buffer (smp), GST_MAP_READ, &rtp);
    seq = gst_rtp_buffer_get_seq (&rtp);
    marker = gst_rtp_buffer_get_marker (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_sample_unref (smp);
    if (got)
      fail_unless_equals_int (seq, (guint16) (prev + 1));
    fail_unless_equals_int (marker, got % 2 == 1);
    prev = seq;
    got++;
  }
  dropped = check_stat_u64 (p.sink, "dropped-packets");
  dropped_adus = check_stat_u64 (p.sink, "dropped-adus");
  fail_unless (dropped_adus > 0);
  fail_unless_equals_uint64 (dropped, 2 * dropped_adus);
  fail_unless_equals_int (got, N + AFTER - dropped);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "skipped"), 0);
  pair_stop (&p);
}

GST_END_TEST;

GST_START_TEST (test_stranger_refused_before_peer)
{
  GstElement *src = check_make_element ("tpbasrc",
      "port=0 tcp-port=0 rtcp-port=0");
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *fs = gst_element_factory_make ("fakesink", NULL);
  gint tcp_port;

  /* caps: without them the source errors out before it polls */
  gst_util_set_object_arg (G_OBJECT (src), "caps", RTP_CAPS);

  gst_bin_add_many (GST_BIN (pipe), src, fs, NULL);
  fail_unless (gst_element_link (src, fs));
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_get (src, "tcp-port", &tcp_port, NULL);
  /* no datagram yet: nobody is expected, so even loopback is refused */
  fail_unless (stranger_refused (tcp_port, "127.0.0.1"));
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-refused"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-accepted"), 0);
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* an explicit peer-address: others are refused */
  g_object_set (src, "peer-address", "127.0.0.3", NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_get (src, "tcp-port", &tcp_port, NULL);
  fail_unless (stranger_refused (tcp_port, "127.0.0.2"));
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-refused"), 1);
  /* the peer's host, but no session token (no sink RTCP): refused too,
   * after the token wait (the stranger's read may time out first when the
   * machine is loaded) */
  fail_unless (stranger_refused (tcp_port, "127.0.0.3"));
  fail_unless_equals_uint64 (check_stat_u64_wait (src, "tcp-refused", 2, 10),
      2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-accepted"), 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

GST_START_TEST (test_uri)
{
  GError *err = NULL;
  GstElement *a, *b;
  gchar *uri, *uri2, *host;
  gint port, tcp_port;
  guint64 t_running;
  gint mode;

  a = gst_element_make_from_uri (GST_URI_SINK,
      "tpba://10.1.2.3:6000?tcp-port=6002&t-running=5000000000&mode=lda&"
      "end-criterion=proportional&r-f=2.5", NULL, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  fail_unless (g_type_is_a (G_OBJECT_TYPE (a),
          g_type_from_name ("GstTpbaSink")));
  g_object_get (a, "host", &host, "port", &port, "tcp-port", &tcp_port,
      "t-running", &t_running, "mode", &mode, NULL);
  fail_unless_equals_string (host, "10.1.2.3");
  fail_unless_equals_int (port, 6000);
  fail_unless_equals_int (tcp_port, 6002);
  fail_unless_equals_uint64 (t_running, 5 * GST_SECOND);
  fail_unless_equals_int (mode, 1);
  g_free (host);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (a));
  GST_INFO ("uri: %s", uri);
  b = gst_element_make_from_uri (GST_URI_SINK, uri, NULL, &err);
  fail_unless (b != NULL);
  uri2 = gst_uri_handler_get_uri (GST_URI_HANDLER (b));
  fail_unless_equals_string (uri, uri2);
  g_free (uri);
  g_free (uri2);
  gst_object_unref (a);
  gst_object_unref (b);

  a = gst_element_make_from_uri (GST_URI_SRC,
      "tpba://0.0.0.0:7000?peer-address=10.0.0.9&switch-wait=200000000",
      NULL, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  fail_unless (g_type_is_a (G_OBJECT_TYPE (a),
          g_type_from_name ("GstTpbaSrc")));
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (a));
  b = gst_element_make_from_uri (GST_URI_SRC, uri, NULL, &err);
  fail_unless (b != NULL);
  uri2 = gst_uri_handler_get_uri (GST_URI_HANDLER (b));
  fail_unless_equals_string (uri, uri2);
  fail_unless (strstr (uri, "peer-address=10.0.0.9") != NULL, "%s", uri);
  g_free (uri);
  g_free (uri2);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_bad_settings)
{
  GstElement *e = gst_element_factory_make ("tpbasink", NULL);
  GError *err = NULL;
  GstElement *pipe;
  GstBus *bus;
  gint port;

  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "tpba://h:1?no-such-key=1", &err));
  fail_unless (strstr (err->message, "unknown parameter \"no-such-key\""),
      "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "tpba://h:1?t-tcp=soon", &err));
  fail_unless (strstr (err->message, "bad value \"soon\" for t-tcp"), "%s",
      err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "tpba://h:1?mode=fastest", &err));
  fail_unless (strstr (err->message, "bad value"), "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "udp://h:1", &err));
  g_clear_error (&err);
  /* nothing was applied by the failed URIs */
  g_object_get (e, "port", &port, NULL);
  fail_unless_equals_int (port, 5004);
  gst_object_unref (e);

  /* an unresolvable host fails the state change with a clear error */
  pipe = gst_parse_launch ("fakesrc ! tpbasink host=no-such-host.invalid",
      NULL);
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  check_bus_error_contains (bus, GST_SECOND, "Could not resolve host");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);

  /* nobody listening: retries, then a clear error */
  pipe = gst_parse_launch ("audiotestsrc is-live=true ! rtpL16pay ! "
      "tpbasink host=127.0.0.1 port=9 tcp-port=9 connect-timeout=600000000",
      NULL);
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  check_bus_error_contains (bus, 5 * GST_SECOND,
      "Could not connect to tpbasrc at "
          "127.0.0.1:9 over TCP");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

GST_START_TEST (test_reconnect)
{
  Pair p;
  guint i = 0, before = 0, after = 0;
  GstSample *smp;

  pair_start (&p, "t-tcp=100000000 epsilon=1000000000 t-running=300000000");
  for (; i < 200; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 200));
    g_usleep (5000);
  }
  /* all 200 came, or none for 5 s (a loaded host can hold one back
   * longer than a short quiet spell) */
  while (before < 200 && (smp = gst_app_sink_try_pull_sample (GST_APP_SINK
              (p.appsink), 5 * GST_SECOND))) {
    before++;
    gst_sample_unref (smp);
  }
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "tcp-connects"), 1);
  /* the source goes away and comes back on the same (bound) ports */
  gst_element_set_state (p.rx, GST_STATE_NULL);
  for (; i < 300; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 200));
    g_usleep (5000);
  }
  fail_unless (gst_element_set_state (p.rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (; i < 900; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 200));
    g_usleep (5000);
  }
  while (after < 600 && (smp = gst_app_sink_try_pull_sample (GST_APP_SINK
              (p.appsink), 2 * GST_SECOND))) {
    after++;
    gst_sample_unref (smp);
  }
  GST_INFO ("before %u after %u, connects %" G_GUINT64_FORMAT " failures %"
      G_GUINT64_FORMAT, before, after, check_stat_u64 (p.sink, "tcp-connects"),
      check_stat_u64 (p.sink, "tcp-failures"));
  fail_unless_equals_int (before, 200);
  fail_unless (check_stat_u64 (p.sink, "tcp-connects") >= 2);
  fail_unless (check_stat_u64 (p.sink, "tcp-failures") >= 1);
  /* the restarted source gets the stream again, over both transports */
  fail_unless (after >= 400, "only %u after the restart", after);
  fail_unless (check_stat_u64 (p.src, "packets-tcp") > 0);
  fail_unless (check_stat_u64 (p.src, "packets-udp") > 0);
  pair_stop (&p);
}

GST_END_TEST;

/* A connection from the peer's own host that does not present the sink's
 * session token is refused; the sink's connection stays. */
static gboolean
local_impostor_refused (gint tcp_port)
{
  GSocketClient *c = g_socket_client_new ();
  GSocketConnection *conn;
  GError *err = NULL;
  gchar buf[16];
  gssize n;

  g_socket_client_set_timeout (c, 3);
  conn = g_socket_client_connect_to_host (c, "127.0.0.1", tcp_port, NULL,
      &err);
  g_object_unref (c);
  if (!conn) {
    g_error_free (err);
    return TRUE;
  }
  /* eight bytes that are not the token, then a frame */
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM
          (conn)), "\x00\x01\x02\x03\x04\x05\x06\x07\x00\x00", 10, NULL, NULL,
      NULL);
  n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (conn)),
      buf, sizeof (buf), NULL, &err);
  if (err) {
    /* a reset is a refusal (the source closed with our bytes unread); a
     * read that times out means the connection was taken */
    GST_INFO ("impostor read: %s", err->message);
    n = g_error_matches (err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ? -1 : 0;
    g_clear_error (&err);
  }
  g_object_unref (conn);
  return n == 0;
}

GST_START_TEST (test_local_impostor_refused)
{
  Pair p;
  const guint N = 200;
  guint got = 0;
  GstSample *smp;

  pair_start (&p, "t-tcp=100000000 epsilon=1000000000 t-running=300000000");
  for (guint i = 0; i < N; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 200));
    g_usleep (5000);
    if (i == N / 4)
      fail_unless (local_impostor_refused (p.tcp_port),
          "a local process took over the probing connection");
  }
  while ((smp = pull_sample (&p, got, N))) {
    got++;
    gst_sample_unref (smp);
  }
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-accepted"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-refused"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-bad-token"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "tcp-connects"), 1);
  fail_unless_equals_int (got, N);
  check_stats_documented (p.sink);
  check_stats_documented (p.src);
  pair_stop (&p);
}

GST_END_TEST;

/* tpba:/broken (no //HOST:PORT) is refused, says why, and sets nothing. */
GST_START_TEST (test_uri_without_authority)
{
  const gchar *bad[] = { "tpba:/broken", "tpba:broken", "tpba://h",
    "tpba://h:1/path", "tpba://h:1#frag"
  };

  for (guint k = 0; k < 2; k++) {
    GstElement *e = gst_element_factory_make (k ? "tpbasrc" : "tpbasink",
        NULL);

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
      GError *err = NULL;
      gchar *host;
      gint port;

      fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e), bad[i], &err),
          "%s accepted", bad[i]);
      fail_unless (err && strstr (err->message, "expected "
              "tpba://HOST:PORT"), "%s: %s", bad[i], err ? err->message : "");
      g_clear_error (&err);
      g_object_get (e, k ? "address" : "host", &host, "port", &port, NULL);
      fail_unless_equals_string (host, k ? "0.0.0.0" : "127.0.0.1");
      fail_unless_equals_int (port, 5004);
      g_free (host);
    }
    fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
            k ? "tpba://127.0.0.1:0/" : "tpba://127.0.0.1:6000/", NULL));
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Without caps= and with a downstream that takes any RTP the source says
 * caps are needed (not a missing plug-in later). */
GST_START_TEST (test_src_needs_caps)
{
  GstElement *pipe = gst_parse_launch ("tpbasrc port=0 tcp-port=0 "
      "rtcp-port=0 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  check_bus_error_contains (bus, 3 * GST_SECOND, "tpbasrc needs caps=");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A short stream with nobody listening ends in an error after
 * connect-timeout, never in a successful EOS. */
GST_START_TEST (test_sink_no_receiver_fails)
{
  GstElement *pipe = gst_parse_launch ("appsrc name=in is-live=true "
      "format=time caps=\"" RTP_CAPS "\" ! tpbasink host=127.0.0.1 port=9 "
      "tcp-port=9 connect-timeout=6000000000", NULL);
  GstElement *in = gst_bin_get_by_name (GST_BIN (pipe), "in");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < 10; i++)
    gst_app_src_push_buffer (GST_APP_SRC (in), make_packet (i, 100));
  gst_app_src_end_of_stream (GST_APP_SRC (in));
  msg = gst_bus_timed_pop_filtered (bus, 12 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "EOS with nothing delivered");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "Could not connect to tpbasrc"), "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- key units (RFC 4585 PLI) ---- */

/* A UDP socket on 127.0.0.1 (its port in @port) that waits 1 s at most. */
static GSocket *
udp_bind_local (gint * port)
{
  guint p;
  GSocket *s = check_udp_socket_local (&p);

  *port = (gint) p;
  g_socket_set_timeout (s, 1);
  return s;
}

static void
write_pli (guint8 * b, guint32 sender, guint32 media)
{
  b[0] = 0x81;                  /* V=2, FMT=1 */
  b[1] = 206;                   /* PSFB */
  b[2] = 0;
  b[3] = 2;
  GST_WRITE_UINT32_BE (b + 4, sender);
  GST_WRITE_UINT32_BE (b + 8, media);
}

static gboolean
is_pli (const guint8 * b, gssize n, guint32 media)
{
  return n == 12 && b[0] == 0x81 && b[1] == 206 &&
      GST_READ_UINT32_BE (b + 8) == media;
}

/* The next force-key-unit event that reached upstream of @h within
 * @timeout_ms (0: one look); NULL if none. */
static GstEvent *
pull_force_key_unit (GstHarness * h, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * 1000;

  do {
    GstEvent *ev;
    while ((ev = gst_harness_try_pull_upstream_event (h))) {
      if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM &&
          gst_event_has_name (ev, "GstForceKeyUnit"))
        return ev;
      gst_event_unref (ev);
    }
    g_usleep (10000);
  } while (g_get_monotonic_time () < end);
  return NULL;
}

/* The hold-off of test_sink_pli_to_key_unit: long enough that the repeat
 * reaches the sink inside it on a loaded host (a 400 ms hold-off there let
 * a late repeat through). */
#define PLI_HOLDOFF (2 * GST_SECOND)

/* A PLI from the receiver becomes an upstream force-key-unit event (all
 * headers); a repeat within key-unit-holdoff is counted and ignored. Each
 * "nothing" is checked once the sink's stats show it took the PLI. */
GST_START_TEST (test_sink_pli_to_key_unit)
{
  gint rtcp_port;
  GSocket *rx = udp_bind_local (&rtcp_port);
  GstElement *sink = gst_element_factory_make ("tpbasink", NULL);
  GstHarness *h;
  GSocketAddress *from = NULL;
  guint8 buf[1500];
  GstEvent *ev;
  gboolean all = FALSE;
  gint64 first_at, wait;

  g_object_set (sink, "host", "127.0.0.1", "port", 9, "tcp-port", 9,
      "rtcp-port", rtcp_port, "connect-timeout", 60 * GST_SECOND,
      "key-unit-holdoff", PLI_HOLDOFF, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  fail_unless_equals_int (gst_harness_push (h, make_packet (0, 100)),
      GST_FLOW_OK);
  /* the sink's hello (before each connect attempt) tells where it is:
   * without a key the empty RR and the token APP packet, nothing more */
  fail_unless_equals_int (g_socket_receive_from (rx, &from, (gchar *) buf,
          sizeof (buf), NULL, NULL), 8 + TPBA_RTCP_TOKEN_SIZE);
  while ((ev = gst_harness_try_pull_upstream_event (h)))
    gst_event_unref (ev);

  write_pli (buf, 0xabcd, 0x12345678);
  fail_unless (g_socket_send_to (rx, from, (gchar *) buf, 12, NULL,
          NULL) == 12);
  ev = pull_force_key_unit (h, 10000);
  fail_unless (ev != NULL, "no force-key-unit event upstream");
  /* the hold-off started before this */
  first_at = g_get_monotonic_time ();
  fail_unless (gst_structure_get_boolean (gst_event_get_structure (ev),
          "all-headers", &all) && all);
  gst_event_unref (ev);

  /* a repeat inside the hold-off: nothing */
  fail_unless (g_socket_send_to (rx, from, (gchar *) buf, 12, NULL,
          NULL) == 12);
  check_stat_u64_reaches (sink, "rtcp-received", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-ignored"), 1);
  /* the sink's loop pushes the events the core asks for: its count says
   * whether one is still to come */
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 1);
  fail_if ((ev = pull_force_key_unit (h, 0)) != NULL);
  /* a PLI about another SSRC: nothing either */
  write_pli (buf, 0xabcd, 0x99);
  fail_unless (g_socket_send_to (rx, from, (gchar *) buf, 12, NULL,
          NULL) == 12);
  check_stat_u64_reaches (sink, "rtcp-received", 3, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-received"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 1);
  fail_if ((ev = pull_force_key_unit (h, 0)) != NULL);
  /* after the hold-off: a key unit again */
  wait = first_at + PLI_HOLDOFF / GST_USECOND - g_get_monotonic_time ();
  if (wait > 0)
    g_usleep (wait + 20 * 1000);
  write_pli (buf, 0xabcd, 0x12345678);
  fail_unless (g_socket_send_to (rx, from, (gchar *) buf, 12, NULL,
          NULL) == 12);
  ev = pull_force_key_unit (h, 10000);
  fail_unless (ev != NULL, "no key unit after the hold-off");
  gst_event_unref (ev);
  fail_if ((ev = pull_force_key_unit (h, 0)) != NULL);

  fail_unless_equals_uint64 (check_stat_u64 (sink, "rtcp-received"), 4);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-received"), 3);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-ignored"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 2);
  g_object_unref (from);
  gst_harness_teardown (h);
  gst_object_unref (sink);
  g_object_unref (rx);
}

GST_END_TEST;

/* The source sends a PLI when the sender's first packet arrives (a late
 * joiner) and when a force-key-unit event comes from downstream. */
GST_START_TEST (test_src_sends_pli)
{
  gint my_port, port, rtcp_port;
  GSocket *tx = udp_bind_local (&my_port);
  GstElement *src = check_make_element ("tpbasrc",
      "port=0 tcp-port=0 rtcp-port=0");
  GstHarness *h;
  GSocketAddress *to_rtp, *to_rtcp;
  guint8 buf[1500];
  GstMapInfo m;
  GstBuffer *pkt = make_packet (0, 100);
  guint plis = 0;
  gint64 end;

  gst_util_set_object_arg (G_OBJECT (src), "caps", RTP_CAPS);
  h = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_play (h);
  g_object_get (src, "port", &port, "rtcp-port", &rtcp_port, NULL);
  to_rtp = g_inet_socket_address_new_from_string ("127.0.0.1", port);
  to_rtcp = g_inet_socket_address_new_from_string ("127.0.0.1", rtcp_port);
  /* an empty RR (the sink's hello) tells the source where RTCP goes */
  buf[0] = 0x80;
  buf[1] = 201;
  buf[2] = 0;
  buf[3] = 1;
  GST_WRITE_UINT32_BE (buf + 4, 0x4242);
  fail_unless (g_socket_send_to (tx, to_rtcp, (gchar *) buf, 8, NULL,
          NULL) == 8);
  check_stat_u64_reaches (src, "rtcp-received", 1, 10);
  gst_buffer_map (pkt, &m, GST_MAP_READ);
  fail_unless (g_socket_send_to (tx, to_rtp, (gchar *) m.data, m.size, NULL,
          NULL) == (gssize) m.size);
  gst_buffer_unmap (pkt, &m);
  gst_buffer_unref (pkt);
  gst_buffer_unref (gst_harness_pull (h));

  end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  while (plis < 2 && g_get_monotonic_time () < end) {
    gssize n = g_socket_receive (tx, (gchar *) buf, sizeof (buf), NULL, NULL);
    if (is_pli (buf, n, 0x12345678)) {
      plis++;
      GST_INFO ("PLI %u", plis);
      if (plis == 1)            /* the join's; now the depayloader asks */
        fail_unless (gst_harness_push_upstream_event (h,
                gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
                    gst_structure_new ("GstForceKeyUnit", "running-time",
                        G_TYPE_UINT64, GST_CLOCK_TIME_NONE, "all-headers",
                        G_TYPE_BOOLEAN, TRUE, "count", G_TYPE_UINT, 1,
                        NULL))));
    }
  }
  fail_unless_equals_int (plis, 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "pli-sent"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "key-unit-requests"), 1);
  g_object_unref (to_rtp);
  g_object_unref (to_rtcp);
  gst_harness_teardown (h);
  gst_object_unref (src);
  g_object_unref (tx);
}

GST_END_TEST;

/* A synced sink right after the depayloader and decoder needs room for its
 * processing deadline: tpbasrc is live with no upper bound on latency (the
 * README's receiver warned "please add queues" with GstBaseSrc's max 0). */
GST_START_TEST (test_src_latency_unbounded)
{
  GstElement *src = check_make_element ("tpbasrc", "port=0 tcp-port=0 "
      "rtcp-port=0 caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\"");
  GstQuery *q = gst_query_new_latency ();
  gboolean live;
  GstClockTime min, max;

  fail_unless (gst_element_set_state (src, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_query (src, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_uint64 (min, 0);
  fail_unless_equals_uint64 (max, GST_CLOCK_TIME_NONE);
  gst_query_unref (q);
  gst_element_set_state (src, GST_STATE_NULL);
  gst_object_unref (src);
}

GST_END_TEST;

/* ---- the socket property: an application's socket, used as given ---- */

/* The next datagram on @rx of @size bytes (others, such as the sink's
 * RTCP hello, are skipped); its sender's port in @from_port. */
static gboolean
receive_sized (GSocket * rx, gsize size, gint * from_port)
{
  guint8 buf[1500];

  for (guint i = 0; i < 20; i++) {
    GSocketAddress *from = NULL;
    gssize n = g_socket_receive_from (rx, &from, (gchar *) buf, sizeof (buf),
        NULL, NULL);

    if (n < 0)
      return FALSE;
    *from_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS
        (from));
    g_object_unref (from);
    if ((gsize) n == size)
      return TRUE;
  }
  return FALSE;
}

/* Whether @s is open and still carries a datagram to @to_port. */
static gboolean
socket_still_works (GSocket * s, GSocket * peer, gint peer_port)
{
  GSocketAddress *to = g_inet_socket_address_new_from_string ("127.0.0.1",
      peer_port);
  gchar c = 'x';
  gboolean ok = !g_socket_is_closed (s) &&
      g_socket_send_to (s, to, &c, 1, NULL, NULL) == 1 &&
      g_socket_receive (peer, &c, 1, NULL, NULL) == 1;

  g_object_unref (to);
  return ok;
}

/* tpbasink sends its RTP from the application's socket (its port is the
 * source port the receiver sees) and leaves it open when it stops. */
GST_START_TEST (test_sink_uses_given_socket)
{
  gint rx_port, from_port = 0;
  GSocket *rx = udp_bind_local (&rx_port);
  guint app_port;
  GSocket *app = check_udp_socket_local (&app_port);
  GstElement *sink = check_make_element ("tpbasink", "host=127.0.0.1 "
      "tcp-port=9 rtcp-port=9 mode=lda connect-timeout=60000000000");
  GstHarness *h;

  g_object_set (sink, "port", rx_port, "socket", app, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  fail_unless_equals_int (gst_harness_push (h, make_packet (0, 100)),
      GST_FLOW_OK);
  fail_unless (receive_sized (rx, 12 + 100, &from_port), "no RTP arrived");
  fail_unless_equals_int (from_port, app_port);
  gst_harness_teardown (h);
  gst_object_unref (sink);
  fail_unless (socket_still_works (app, rx, rx_port),
      "the application's socket was closed");
  g_object_unref (app);
  g_object_unref (rx);
}

GST_END_TEST;

/* tpbasrc receives on the application's socket (port reads its port) and
 * leaves it open, in the blocking mode it had, when it stops. */
GST_START_TEST (test_src_uses_given_socket)
{
  guint app_port;
  GSocket *app = check_udp_socket_local (&app_port);
  gint tx_port, port = 0;
  GSocket *tx = udp_bind_local (&tx_port);
  GstElement *src = check_make_element ("tpbasrc",
      "port=0 tcp-port=0 rtcp-port=0");
  GSocketAddress *to = g_inet_socket_address_new_from_string ("127.0.0.1",
      app_port);
  GstBuffer *pkt = make_packet (0, 100), *got;
  GstMapInfo m;
  GstHarness *h;

  gst_util_set_object_arg (G_OBJECT (src), "caps", RTP_CAPS);
  g_object_set (src, "socket", app, NULL);
  h = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_play (h);
  g_object_get (src, "port", &port, NULL);
  fail_unless_equals_int (port, app_port);
  gst_buffer_map (pkt, &m, GST_MAP_READ);
  fail_unless (g_socket_send_to (tx, to, (gchar *) m.data, m.size, NULL,
          NULL) == (gssize) m.size);
  got = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (got), m.size);
  fail_unless (gst_buffer_memcmp (got, 0, m.data, m.size) == 0);
  gst_buffer_unmap (pkt, &m);
  gst_buffer_unref (got);
  gst_buffer_unref (pkt);
  gst_harness_teardown (h);
  gst_object_unref (src);
  fail_unless (g_socket_get_blocking (app));
  g_socket_set_timeout (app, 1);
  fail_unless (socket_still_works (app, tx, tx_port),
      "the application's socket was closed");
  g_object_unref (to);
  g_object_unref (tx);
  g_object_unref (app);
}

GST_END_TEST;

/* ---- the group key (issue 21, docs/security.md) ---- */

#define HEX_KEY \
  "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define OTHER_KEY \
  "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

/* A sealing session of the test's own under @text. */
static AuthSession *
test_session (const gchar * text)
{
  AuthKey k;

  fail_unless (auth_key_from_string (text, &k, NULL));
  return auth_session_new (&k, g_random_int (), 16);
}

static void
send_bytes (GSocket * s, GSocketAddress * to, const guint8 * b, gsize n)
{
  fail_unless_equals_int (g_socket_send_to (s, to, (const gchar *) b, n,
          NULL, NULL), n);
}

/* An RR from the fake receiver about the test stream, @fraction lost. */
static gsize
write_loss_rr (guint8 * b, gsize max, guint8 fraction)
{
  TpbaRtcpReport rep;

  memset (&rep, 0, sizeof (rep));
  rep.ssrc = 0xabcd;
  rep.n_blocks = 1;
  rep.blocks[0].ssrc = 0x12345678;
  rep.blocks[0].fraction_lost = fraction;
  rep.blocks[0].cumulative_lost = fraction;
  rep.blocks[0].ext_highest_seq = 65000 + 256;
  return tpba_rtcp_write (&rep, NULL, b, max);
}

/* Both ends keyed: the stream crosses the switches as without a key, with
 * every RTCP datagram and token message sealed and opened. */
GST_START_TEST (test_keyed_pair_streams)
{
  stream_across_switches_with ("key=" HEX_KEY, "key=" HEX_KEY);
}

GST_END_TEST;

/* A keyed tpbasink: its hello is the datagram of before plus a trailer
 * that opens under the key. Forged RRs reporting heavy loss and forged
 * PLIs (bare, with a random trailer, under another key) are counted and
 * cut nothing, ask for no key unit; a sound PLI asks for one and its
 * replay does not; a sound RR with loss cuts the rate. */
GST_START_TEST (test_sink_key_rtcp)
{
  gint rtcp_port;
  GSocket *rx = udp_bind_local (&rtcp_port);
  GstElement *sink = gst_element_factory_make ("tpbasink", NULL);
  AuthSession *mine = test_session (HEX_KEY), *other =
      test_session (OTHER_KEY);
  GSocketAddress *from = NULL;
  guint8 buf[1500], b[256], pli[64];
  TpbaRtcpExtras ex;
  GstHarness *h;
  GstEvent *ev;
  gsize len, n;
  gssize got;

  g_object_set (sink, "host", "127.0.0.1", "port", 9, "tcp-port", 9,
      "rtcp-port", rtcp_port, "connect-timeout", 60 * GST_SECOND,
      "t-adapt", 200 * GST_MSECOND, "r-0", (guint64) 1000000,
      "key-unit-holdoff", 100 * GST_MSECOND, "key", HEX_KEY, NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "mode", "lda");
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  fail_unless_equals_int (gst_harness_push (h, make_packet (0, 100)),
      GST_FLOW_OK);
  got = g_socket_receive_from (rx, &from, (gchar *) buf, sizeof (buf), NULL,
      NULL);
  fail_unless_equals_int (got, 8 + TPBA_RTCP_TOKEN_SIZE + AUTH_TRAILER_SIZE);
  fail_unless (tpba_control_open (mine, buf, got, 0, &len));
  fail_unless_equals_int (len, 8 + TPBA_RTCP_TOKEN_SIZE);
  fail_unless (tpba_rtcp_scan (buf, len, &ex) && ex.has_token && ex.reports);
  while ((ev = gst_harness_try_pull_upstream_event (h)))
    gst_event_unref (ev);

  /* forged: 1 truncated, 4 bad tags */
  write_pli (pli, 0xabcd, 0x12345678);
  send_bytes (rx, from, pli, 12);
  n = write_loss_rr (b, sizeof (b), 200);
  send_bytes (rx, from, b, n);
  n = tpba_control_seal (other, b, n, sizeof (b));
  send_bytes (rx, from, b, n);
  for (guint i = 0; i < AUTH_TRAILER_SIZE; i++)
    pli[12 + i] = g_random_int ();
  send_bytes (rx, from, pli, 12 + AUTH_TRAILER_SIZE);
  send_bytes (rx, from, pli, tpba_control_seal (other, pli, 12, sizeof pli));
  check_stat_u64_reaches (sink, "auth-truncated", 1, 10);
  check_stat_u64_reaches (sink, "auth-bad-tag", 4, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 0);
  fail_if ((ev = pull_force_key_unit (h, 0)) != NULL);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "auth-truncated"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "auth-bad-tag"), 4);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "rtcp-received"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-received"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "reductions"), 0);

  /* a sound PLI: a key unit; the same bytes again: a replay, nothing */
  write_pli (pli, 0xabcd, 0x12345678);
  n = tpba_control_seal (mine, pli, 12, sizeof pli);
  send_bytes (rx, from, pli, n);
  ev = pull_force_key_unit (h, 10000);
  fail_unless (ev != NULL, "no key unit for a sound PLI");
  gst_event_unref (ev);
  g_usleep (200 * 1000);        /* past key-unit-holdoff */
  send_bytes (rx, from, pli, n);
  check_stat_u64_reaches (sink, "auth-replayed", 1, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 1);
  fail_if ((ev = pull_force_key_unit (h, 0)) != NULL);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "pli-received"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "key-unit-requests"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "reductions"), 0);

  /* a sound RR with loss cuts the rate at the next adaptation point */
  n = tpba_control_seal (mine, b, write_loss_rr (b, sizeof (b), 128),
      sizeof (b));
  send_bytes (rx, from, b, n);
  check_stat_u64_reaches (sink, "reductions", 1, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "auth-accepted"), 2);
  fail_unless (stat_bool (sink, "auth"));
  check_stats_documented (sink);

  g_object_unref (from);
  gst_harness_teardown (h);
  gst_object_unref (sink);
  g_object_unref (rx);
  auth_session_free (mine);
  auth_session_free (other);
}

GST_END_TEST;

/* Connects to the source's TCP port and writes @n bytes; the caller waits
 * for the source's verdict in its stats and closes the connection. */
static GSocketConnection *
present_token (gint tcp_port, const guint8 * b, gsize n)
{
  GSocketClient *c = g_socket_client_new ();
  GSocketConnection *conn = g_socket_client_connect_to_host (c, "127.0.0.1",
      tcp_port, NULL, NULL);

  g_object_unref (c);
  fail_unless (conn != NULL);
  fail_unless (g_output_stream_write_all (g_io_stream_get_output_stream
          (G_IO_STREAM (conn)), b, n, NULL, NULL, NULL));
  return conn;
}

/* A keyed tpbasrc: an unsealed hello and RTP before any sound RTCP name
 * no peer; a sealed hello does, and its replay is counted; its PLI is
 * sealed. TCP: a token message with a forged trailer is refused, the
 * sound one accepted, and that one replayed refused. */
GST_START_TEST (test_src_key_rtcp_and_token)
{
  gint my_port, port, tcp_port, rtcp_port;
  GSocket *tx = udp_bind_local (&my_port);
  GstElement *src = check_make_element ("tpbasrc",
      "port=0 tcp-port=0 rtcp-port=0 key=" HEX_KEY);
  AuthSession *sink_side = test_session (HEX_KEY), *check =
      test_session (HEX_KEY);
  const guint64 token = G_GUINT64_CONSTANT (0x1122334455667788);
  GSocketAddress *to_rtp, *to_rtcp;
  GSocketConnection *c1, *c2, *c3;
  guint8 hello[128], sealed[128], m[TPBA_TOKEN_MESSAGE_SIZE], buf[1500];
  TpbaRtcpReport rep;
  GstBuffer *pkt;
  GstMapInfo map;
  GstHarness *h;
  gsize n, hn, len;
  gssize got;

  gst_util_set_object_arg (G_OBJECT (src), "caps", RTP_CAPS);
  h = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_play (h);
  g_object_get (src, "port", &port, "tcp-port", &tcp_port, "rtcp-port",
      &rtcp_port, NULL);
  to_rtp = g_inet_socket_address_new_from_string ("127.0.0.1", port);
  to_rtcp = g_inet_socket_address_new_from_string ("127.0.0.1", rtcp_port);

  memset (&rep, 0, sizeof (rep));
  rep.ssrc = 0x4242;
  n = tpba_rtcp_write (&rep, NULL, hello, sizeof (hello));
  n += tpba_rtcp_write_token (0x4242, token, hello + n, sizeof (hello) - n);
  send_bytes (tx, to_rtcp, hello, n);
  pkt = make_packet (0, 100);
  gst_buffer_map (pkt, &map, GST_MAP_READ);
  send_bytes (tx, to_rtp, map.data, map.size);
  check_stat_u64_reaches (src, "auth-bad-tag", 1, 10);
  check_stat_u64_reaches (src, "foreign", 1, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-bad-tag"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "foreign"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "packets-udp"), 0);

  memcpy (sealed, hello, n);
  hn = tpba_control_seal (sink_side, sealed, n, sizeof (sealed));
  send_bytes (tx, to_rtcp, sealed, hn);
  check_stat_u64_reaches (src, "auth-accepted", 1, 10);
  send_bytes (tx, to_rtp, map.data, map.size);
  gst_buffer_unmap (pkt, &map);
  gst_buffer_unref (pkt);
  gst_buffer_unref (gst_harness_pull (h));
  /* the join's PLI, sealed */
  got = g_socket_receive (tx, (gchar *) buf, sizeof (buf), NULL, NULL);
  fail_unless_equals_int (got, 12 + AUTH_TRAILER_SIZE);
  fail_unless (tpba_control_open (check, buf, got, 0, &len));
  fail_unless (is_pli (buf, len, 0x12345678));
  send_bytes (tx, to_rtcp, sealed, hn);
  check_stat_u64_reaches (src, "auth-replayed", 1, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-replayed"), 1);

  /* the token with a trailer of random bytes */
  GST_WRITE_UINT64_BE (m, token);
  for (guint i = TPBA_TOKEN_SIZE; i < sizeof (m); i++)
    m[i] = g_random_int ();
  c1 = present_token (tcp_port, m, sizeof (m));
  check_stat_u64_reaches (src, "tcp-bad-token", 1, 10);
  check_stat_u64_reaches (src, "auth-bad-tag", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-bad-token"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-bad-tag"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-accepted"), 0);
  /* the sink's message, then a copy of it */
  fail_unless_equals_int (tpba_token_message_write (sink_side, token, m,
          sizeof (m)), sizeof (m));
  c2 = present_token (tcp_port, m, sizeof (m));
  check_stat_u64_reaches (src, "tcp-accepted", 1, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-accepted"), 1);
  c3 = present_token (tcp_port, m, sizeof (m));
  check_stat_u64_reaches (src, "tcp-bad-token", 2, 10);
  check_stat_u64_reaches (src, "tcp-refused", 2, 10);
  check_stat_u64_reaches (src, "auth-replayed", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-accepted"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-bad-token"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "tcp-refused"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-replayed"), 2);
  fail_unless (stat_bool (src, "tcp-connected"));
  check_stats_documented (src);

  g_object_unref (c1);
  g_object_unref (c2);
  g_object_unref (c3);
  g_object_unref (to_rtp);
  g_object_unref (to_rtcp);
  gst_harness_teardown (h);
  gst_object_unref (src);
  g_object_unref (tx);
  auth_session_free (sink_side);
  auth_session_free (check);
}

GST_END_TEST;

/* Keys that differ: the source takes none of the sink's RTCP, so it never
 * learns the peer and refuses every connection the sink makes; nothing
 * arrives and the sink takes nothing from the source either. The same
 * with a source that has no key. */
GST_START_TEST (test_wrong_key_refused)
{
  Pair p;

  pair_start_full (&p, "key=" OTHER_KEY, "key=" HEX_KEY);
  for (guint i = 0; i < 10; i++)
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 100));
  /* two connection attempts of the sink, each refused */
  check_stat_u64_reaches (p.src, "auth-bad-tag", 2, 10);
  check_stat_u64_reaches (p.src, "tcp-refused", 2, 10);
  check_stat_u64_reaches (p.sink, "tcp-failures", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "auth-accepted"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-accepted"), 0);
  fail_unless (check_stat_u64 (p.src, "tcp-refused") >= 2);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "packets-tcp") +
      check_stat_u64 (p.src, "packets-udp"), 0);
  fail_unless (check_stat_u64 (p.sink, "tcp-failures") >= 2);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "auth-accepted"), 0);
  pair_stop (&p);

  /* a keyed sink and a source without a key: the token is not found in
   * the sealed datagrams, so no connection is taken either */
  pair_start_full (&p, "", "key=" HEX_KEY);
  for (guint i = 0; i < 10; i++)
    gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 100));
  check_stat_u64_reaches (p.src, "tcp-bad-token", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "tcp-accepted"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "delivered"), 0);
  pair_stop (&p);
}

GST_END_TEST;

/* Bad key settings fail the start of either element with an error that
 * names the setting and not the key; the key is write-only and never in
 * the URI. */
GST_START_TEST (test_key_settings)
{
  /* each element's line, before and after the key settings */
  const gchar *lines[][2] = { {"fakesrc ! tpbasink ", ""},
  {"tpbasrc port=0 tcp-port=0 rtcp-port=0 ", " ! fakesink"}
  };
  const struct
  {
    const gchar *props, *text;
  } cases[] = {
    {"key=hunter2", "key: a key is 64 hex digits or a passphrase of 10"},
    {"key=" HEX_KEY " key-file=/nonexistent", "key and key-file are both "
          "set"},
    {"key-file=/nonexistent/tpba.key", "key-file \"/nonexistent/tpba.key\":"},
  };
  GstElement *e;
  gchar *uri, *file = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
      gchar *desc = g_strconcat (lines[i][0], cases[k].props, lines[i][1],
          NULL);

      check_start_error (desc, cases[k].text);
      g_free (desc);
    }

  e = gst_element_factory_make ("tpbasink", NULL);
  fail_if (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "key")->flags & G_PARAM_READABLE);
  g_object_set (e, "key", HEX_KEY, NULL);
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "tpba://127.0.0.1:5004?key-file=%2Ftmp%2Ftpba.key", NULL));
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_object_get (e, "key-file", &file, NULL);
  fail_unless_equals_string (file, "/tmp/tpba.key");
  fail_unless (strstr (uri, "key-file=") != NULL, "%s", uri);
  fail_if (strstr (uri, "key=") != NULL || strstr (uri, HEX_KEY), "%s", uri);
  g_free (uri);
  g_free (file);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* SRTP */

#define SRTP_KEY \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_OTHER \
  "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"

/* Both ends with srtp-key: the stream crosses the switches (TCP frames and
 * UDP) and arrives byte for byte as without SRTP, every packet protected
 * and opened once. */
GST_START_TEST (test_srtp_pair_streams)
{
  stream_across_switches_with ("srtp-key=" SRTP_KEY, "srtp-key=" SRTP_KEY);
}

GST_END_TEST;

/* A source under another SRTP key, or fed plain RTP, delivers nothing and
 * counts every packet as an authentication failure. */
GST_START_TEST (test_srtp_wrong_key_or_none)
{
  const gchar *sinks[] = { "srtp-key=" SRTP_OTHER, "" };

  for (guint k = 0; k < G_N_ELEMENTS (sinks); k++) {
    Pair p;

    pair_start_full (&p, "srtp-key=" SRTP_KEY, sinks[k]);
    for (guint i = 0; i < 10; i++)
      gst_app_src_push_buffer (GST_APP_SRC (p.appsrc), make_packet (i, 100));
    fail_unless (check_stat_u64_wait (p.src, "srtp-auth-failed", 10, 5) >=
        10);
    fail_unless_equals_uint64 (check_stat_u64 (p.src, "srtp-accepted"), 0);
    fail_unless_equals_uint64 (check_stat_u64 (p.src, "delivered"), 0);
    fail_unless_equals_uint64 (check_stat_u64 (p.src, "packets-tcp") +
        check_stat_u64 (p.src, "packets-udp"), 0);
    fail_unless (gst_app_sink_try_pull_sample (GST_APP_SINK (p.appsink),
            100 * GST_MSECOND) == NULL);
    pair_stop (&p);
  }
}

GST_END_TEST;

/* Stock srtpenc with the same key (bytes, as its `key` takes them) feeds
 * tpbasrc over UDP: every packet comes out as it went into srtpenc. */
GST_START_TEST (test_srtp_from_srtpenc)
{
  GstElement *rx, *src, *appsink, *tx, *appsrc, *enc;
  gint port;
  gchar *desc;
  GstBuffer *key;
  guint8 raw[30];

  desc = g_strdup_printf ("tpbasrc name=src port=0 tcp-port=0 rtcp-port=0 "
      "srtp-key=%s caps=\"" RTP_CAPS "\" ! appsink name=out sync=false",
      SRTP_KEY);
  rx = gst_parse_launch (desc, NULL);
  g_free (desc);
  src = gst_bin_get_by_name (GST_BIN (rx), "src");
  appsink = gst_bin_get_by_name (GST_BIN (rx), "out");
  fail_unless (gst_element_set_state (rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_get (src, "port", &port, NULL);

  desc = g_strdup_printf ("appsrc name=in format=time caps=\"" RTP_CAPS
      ",ssrc=(uint)305419896\" ! srtpenc name=enc ! udpsink host=127.0.0.1 "
      "port=%d sync=false", port);
  tx = gst_parse_launch (desc, NULL);
  g_free (desc);
  appsrc = gst_bin_get_by_name (GST_BIN (tx), "in");
  enc = gst_bin_get_by_name (GST_BIN (tx), "enc");
  for (guint i = 0; i < 30; i++)
    raw[i] = i;
  key = gst_buffer_new_memdup (raw, sizeof (raw));
  g_object_set (enc, "key", key, NULL);
  gst_buffer_unref (key);
  fail_unless (gst_element_set_state (tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < 20; i++) {
    fail_unless (gst_app_src_push_buffer (GST_APP_SRC (appsrc),
            make_packet (i, 200)) == GST_FLOW_OK);
    g_usleep (2000);
  }
  for (guint i = 0; i < 20; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (appsink),
        3 * GST_SECOND);
    GstBuffer *want = make_packet (i, 200);
    GstMapInfo m;

    fail_unless (s != NULL, "packet %u did not come", i);
    gst_buffer_map (want, &m, GST_MAP_READ);
    fail_unless (gst_buffer_memcmp (gst_sample_get_buffer (s), 0, m.data,
            m.size) == 0 && gst_buffer_get_size (gst_sample_get_buffer (s))
        == m.size, "packet %u differs", i);
    gst_buffer_unmap (want, &m);
    gst_buffer_unref (want);
    gst_sample_unref (s);
  }
  fail_unless_equals_uint64 (check_stat_u64 (src, "srtp-accepted"), 20);
  gst_element_set_state (tx, GST_STATE_NULL);
  gst_element_set_state (rx, GST_STATE_NULL);
  gst_object_unref (enc);
  gst_object_unref (appsrc);
  gst_object_unref (appsink);
  gst_object_unref (src);
  gst_object_unref (tx);
  gst_object_unref (rx);
}

GST_END_TEST;

static Suite *
tpba_suite (void)
{
  Suite *s = suite_create ("tpba");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_uri);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_stranger_refused_before_peer);
  tcase_add_test (tc, test_flush_discards_queue);
  tcase_add_test (tc, test_full_queue_drops_whole_adus);
  tcase_add_test (tc, test_stream_across_switches);
  tcase_add_test (tc, test_stream_across_switches_paced);
  tcase_add_test (tc, test_reconnect);
  tcase_add_test (tc, test_local_impostor_refused);
  tcase_add_test (tc, test_uri_without_authority);
  tcase_add_test (tc, test_src_needs_caps);
  tcase_add_test (tc, test_sink_no_receiver_fails);
  tcase_add_test (tc, test_sink_pli_to_key_unit);
  tcase_add_test (tc, test_src_sends_pli);
  tcase_add_test (tc, test_src_latency_unbounded);
  tcase_add_test (tc, test_sink_uses_given_socket);
  tcase_add_test (tc, test_src_uses_given_socket);
  tcase_add_test (tc, test_keyed_pair_streams);
  tcase_add_test (tc, test_sink_key_rtcp);
  tcase_add_test (tc, test_src_key_rtcp_and_token);
  tcase_add_test (tc, test_wrong_key_refused);
  tcase_add_test (tc, test_key_settings);
  tcase_add_test (tc, test_srtp_pair_streams);
  tcase_add_test (tc, test_srtp_wrong_key_or_none);
  tcase_add_test (tc, test_srtp_from_srtpenc);
  return s;
}

GST_CHECK_MAIN (tpba);
