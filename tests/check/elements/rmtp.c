/* rmtpsink and rmtpsrc (issue 20) on loopback multicast: a sink and two
 * sources in one process deliver a data set byte for byte; forged and
 * malformed packets are counted and dropped; a receiver whose server goes
 * away, one no CONN reaches, and a sink nobody answers post clear errors;
 * BUSY then RRDY; the receive buffer sized for the answers; fewer
 * wake-ups with send-interval;
 * properties, the URI and the docs. */
#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checkutil.h"
#include "rmtpcheck.h"

#define SIZE (300 * 1024)
#define SESSION 4242
#define WAIT (20 * GST_SECOND)

typedef struct
{
  gchar *dir, *in, *out[2];
  guint port;
  const gchar *group;
  GstElement *sink, *src[2];
  GstElement *sink_pipe, *src_pipe[2];
} Rig;

static void
write_data_seeded (const gchar * path, guint32 seed)
{
  guint8 *d = g_malloc (SIZE);
  GRand *r = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < SIZE; i++)
    d[i] = (guint8) g_rand_int (r);
  fail_unless (g_file_set_contents (path, (gchar *) d, SIZE, NULL));
  g_rand_free (r);
  g_free (d);
}

static void
write_data (const gchar * path)
{
  write_data_seeded (path, 20);
}

/* Receiver @i (member i + 1) playing, with @src_props, its output through
 * @filter (elements "! ... " before the filesink, or ""). */
static void
rig_start_receiver (Rig * rig, guint i, const gchar * src_props,
    const gchar * filter)
{
  gchar *desc = g_strdup_printf ("rmtpsrc name=src address=%s port=%u "
      "member=%u multicast-iface=lo %s %s ! filesink location=%s",
      rig->group, rig->port, i + 1, src_props, filter, rig->out[i]);

  rig->src_pipe[i] = launch (desc, "src", &rig->src[i]);
  g_free (desc);
  fail_unless (gst_element_set_state (rig->src_pipe[i], GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
}

/* Two receivers (members 1 and 2, @src_props on both); receiver 2's output
 * through @filter2. */
/* The data set written and the output paths named, nothing started. */
static void
rig_prepare (Rig * rig, const gchar * group)
{
  memset (rig, 0, sizeof (*rig));
  rig->dir = g_dir_make_tmp ("rmtp-XXXXXX", NULL);
  rig->in = g_build_filename (rig->dir, "in.bin", NULL);
  write_data (rig->in);
  rig->port = free_udp_port ();
  rig->group = group;
  for (guint i = 0; i < 2; i++)
    rig->out[i] = g_strdup_printf ("%s/out%u.bin", rig->dir, i);
}

static void
rig_start_receivers_filtered (Rig * rig, const gchar * group,
    const gchar * src_props, const gchar * filter2)
{
  rig_prepare (rig, group);
  for (guint i = 0; i < 2; i++)
    rig_start_receiver (rig, i, src_props, i == 1 ? filter2 : "");
}

/* Two receivers (members 1 and 2, @src_props on both) playing. */
static void
rig_start_receivers (Rig * rig, const gchar * group, const gchar * src_props)
{
  rig_start_receivers_filtered (rig, group, src_props, "");
}

/* The sink playing with @sink_props, fed by a filesrc with @file_props. */
static void
rig_start_sink_reading (Rig * rig, const gchar * file_props,
    const gchar * sink_props)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s %s ! rmtpsink "
      "name=sink address=%s port=%u multicast-iface=lo session=%u "
      "receivers=2 %s", rig->in, file_props, rig->group, rig->port, SESSION,
      sink_props);

  rig->sink_pipe = launch (desc, "sink", &rig->sink);
  g_free (desc);
  fail_unless (gst_element_set_state (rig->sink_pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
}

static void
rig_start_sink (Rig * rig, const gchar * sink_props)
{
  rig_start_sink_reading (rig, "", sink_props);
}

static void
rig_clear (Rig * rig)
{
  stop_pipeline (&rig->sink_pipe, &rig->sink);
  for (guint i = 0; i < 2; i++) {
    stop_pipeline (&rig->src_pipe[i], &rig->src[i]);
    g_unlink (rig->out[i]);
    g_free (rig->out[i]);
  }
  g_unlink (rig->in);
  g_rmdir (rig->dir);
  g_free (rig->in);
  g_free (rig->dir);
}

static void
assert_eos (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, WAIT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (m != NULL, "no EOS");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail ("error: %s", err->message);
  }
  gst_message_unref (m);
  gst_object_unref (bus);
}

static gchar *
stat_string (GstElement * e, const gchar * field)
{
  GstStructure *s;
  gchar *v = NULL;

  g_object_get (e, "stats", &s, NULL);
  v = g_strdup (gst_structure_get_string (s, field));
  gst_structure_free (s);
  return v;
}

static guint
stat_uint (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint v = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint (s, field, &v);
  gst_structure_free (s);
  return v;
}

static gint
stat_int (GstElement * e, const gchar * field)
{
  GstStructure *s;
  gint v = -1;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_int (s, field, &v);
  gst_structure_free (s);
  return v;
}

/* Waits until the string field @field of @e's stats is @value. */
static void
wait_stat (GstElement * e, const gchar * field, const gchar * value)
{
  for (guint i = 0; i < 2000; i++) {
    gchar *v = stat_string (e, field);
    gboolean ok = g_strcmp0 (v, value) == 0;

    g_free (v);
    if (ok)
      return;
    g_usleep (5000);
  }
  fail ("%s never became %s", field, value);
}

/* A socket on 127.0.0.1 whose multicast leaves through lo. */
static GSocket *
forger_socket (void)
{
  guint port;
  GSocket *s = check_udp_socket_local (&port);

  fail_unless (g_socket_set_option (s, IPPROTO_IP, IP_MULTICAST_IF,
          (gint) htonl (INADDR_LOOPBACK), NULL));
  return s;
}

static void
send_bytes (GSocket * s, const gchar * host, guint port, const guint8 * d,
    gsize n)
{
  GInetAddress *ia = g_inet_address_new_from_string (host);
  GSocketAddress *a = g_inet_socket_address_new (ia, port);

  fail_unless (g_socket_send_to (s, a, (const gchar *) d, n, NULL, NULL) ==
      (gssize) n);
  g_object_unref (a);
  g_object_unref (ia);
}

/* An 8-byte RMTP header of @type and the session, then @n u32 fields. */
static gsize
rmtp_packet (guint8 * out, guint8 type, const guint32 * fields, guint n)
{
  out[0] = 'R';
  out[1] = 'M';
  out[2] = 1;
  out[3] = type;
  GST_WRITE_UINT32_BE (out + 4, SESSION);
  for (guint i = 0; i < n; i++)
    GST_WRITE_UINT32_BE (out + 8 + 4 * i, fields[i]);
  return 8 + 4 * n;
}

/* ------------------------------------------------------------------ */

GST_START_TEST (test_transfer_two_receivers)
{
  Rig rig;

  rig_start_receivers (&rig, "239.255.91.1", "");
  rig_start_sink (&rig, "");
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-failed"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "total-bytes"), SIZE);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "forged"), 0);
  check_stats_documented (rig.sink);
  check_loop_ran_without_spins (rig.sink);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    check_stats_documented (rig.src[i]);
    check_loop_ran_without_spins (rig.src[i]);
    fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "pushed-bytes"),
        SIZE);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* The sink hashes the data set as it takes it: buffers that split the
 * packets unevenly, and a second transfer of other data from the same sink
 * (its digest started afresh), both verify at the receivers. */
GST_START_TEST (test_sink_digest_taken_with_data)
{
  Rig rig;

  rig_start_receivers (&rig, "239.255.91.14", "");
  rig_start_sink_reading (&rig, "blocksize=777", "");
  for (guint run = 0; run < 2; run++) {
    assert_eos (rig.sink_pipe);
    fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
    for (guint i = 0; i < 2; i++) {
      assert_eos (rig.src_pipe[i]);
      fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "pushed-bytes"),
          SIZE);
      stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
      assert_same_file (rig.in, rig.out[i]);
      if (run == 0)
        rig_start_receiver (&rig, i, "", "");
    }
    fail_unless_equals_int (gst_element_set_state (rig.sink_pipe,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    if (run == 0)
      write_data_seeded (rig.in, 21);
    if (run == 0)
      fail_unless (gst_element_set_state (rig.sink_pipe, GST_STATE_PLAYING)
          != GST_STATE_CHANGE_FAILURE);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* The verified data set goes out in buffers of output-buffer-size (64 KiB:
 * 64 packets of 1024 bytes, so 300 KiB in 5), in one by default, and one a
 * packet with 0; the files are whole either way. */
GST_START_TEST (test_output_in_large_buffers)
{
  Rig rig;
  GstElement *third_pipe, *third;
  gchar *out3, *desc;

  rig_prepare (&rig, "239.255.91.15");
  rig_start_receiver (&rig, 0, "output-buffer-size=65536", "");
  rig_start_receiver (&rig, 1, "", "");
  out3 = g_strdup_printf ("%s/out-third.bin", rig.dir);
  desc = g_strdup_printf ("rmtpsrc name=src address=%s port=%u member=3 "
      "multicast-iface=lo output-buffer-size=0 ! filesink location=%s",
      rig.group, rig.port, out3);
  third_pipe = launch (desc, "src", &third);
  g_free (desc);
  fail_unless (gst_element_set_state (third_pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  rig_start_sink (&rig, "receivers=3");
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 3);
  assert_eos (third_pipe);
  fail_unless_equals_uint64 (check_stat_u64 (third, "buffers-pushed"),
      SIZE / 1024);
  stop_pipeline (&third_pipe, &third);
  assert_same_file (rig.in, out3);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "buffers-pushed"),
        i == 0 ? 5 : 1);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  g_unlink (out3);
  g_free (out3);
  rig_clear (&rig);
}

GST_END_TEST;

/* An output slower than the answers' backoff (a packet a buffer, 1 ms
 * each): with answers-first the output pauses for the ACK and the RACK;
 * without, it never does. Both receivers complete. */
GST_START_TEST (test_answers_before_output)
{
  Rig rig;

  rig_prepare (&rig, "239.255.91.16");
  rig_start_receiver (&rig, 0, "output-buffer-size=0 answers-first=false",
      "! identity sleep-time=1000");
  rig_start_receiver (&rig, 1, "output-buffer-size=0 answers-first=true",
      "! identity sleep-time=1000");
  rig_start_sink (&rig, "");
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "ack-sent"), 1);
    fail_unless (check_stat_u64 (rig.src[i], "rack-sent") >= 1);
  }
  fail_unless_equals_uint64 (check_stat_u64 (rig.src[0], "answer-waits"), 0);
  fail_unless (check_stat_u64 (rig.src[1], "answer-waits") >= 1);
  for (guint i = 0; i < 2; i++) {
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* Whether each of the two receivers output bytes while its state was
 * still "receiving", polled every 2 ms until both have left it. */
static void
output_while_receiving (GstElement * const *e, gboolean * seen)
{
  gboolean started[2] = { FALSE, FALSE }, left[2] = { FALSE, FALSE };

  seen[0] = seen[1] = FALSE;
  for (guint n = 0; n < 10000 && !(left[0] && left[1]); n++) {
    for (guint i = 0; i < 2; i++) {
      guint64 pushed = check_stat_u64 (e[i], "pushed-bytes");
      gchar *state = stat_string (e[i], "state");

      if (g_strcmp0 (state, "receiving") == 0) {
        started[i] = TRUE;
        seen[i] |= pushed > 0;
      } else if (started[i]) {
        left[i] = TRUE;
      }
      g_free (state);
    }
    g_usleep (2000);
  }
  fail_unless (left[0] && left[1], "a receiver never left its receiving "
      "state");
}

/* early-output: the data set goes out in 64 KiB buffers while it arrives
 * (at 8 Mbit/s, 300 KiB take 0.3 s); by default nothing before it is
 * verified. Both files whole, each after its EOS. */
GST_START_TEST (test_early_output)
{
  Rig rig;
  gboolean seen[2];

  rig_prepare (&rig, "239.255.91.17");
  rig_start_receiver (&rig, 0, "early-output=true output-buffer-size=65536",
      "");
  rig_start_receiver (&rig, 1, "output-buffer-size=65536", "");
  rig_start_sink (&rig, "");
  output_while_receiving (rig.src, seen);
  fail_unless (seen[0]);
  fail_if (seen[1]);
  assert_eos (rig.sink_pipe);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "buffers-pushed"),
        5);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* A transfer's counts stay readable once its pipelines stopped, until the
 * next start. */
GST_START_TEST (test_stats_kept_after_stop)
{
  Rig rig;
  guint64 turns;

  rig_start_receivers (&rig, "239.255.91.13", "");
  rig_start_sink (&rig, "");
  assert_eos (rig.sink_pipe);
  assert_eos (rig.src_pipe[0]);
  turns = check_stat_u64 (rig.sink, "loop-turns");
  fail_unless_equals_int (gst_element_set_state (rig.sink_pipe,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (rig.src_pipe[0],
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "total-bytes"), SIZE);
  fail_unless (check_stat_u64 (rig.sink, "loop-turns") >= turns);
  fail_unless_equals_uint64 (check_stat_u64 (rig.src[0], "pushed-bytes"),
      SIZE);
  fail_unless (check_stat_u64 (rig.src[0], "loop-turns") > 0);
  /* a new start begins from nothing */
  fail_unless (gst_element_set_state (rig.sink_pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "total-bytes"), 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* Junk, a response naming a member from another address, and data from
 * another address than the server's: all counted and dropped, and the
 * transfer is still whole. */
GST_START_TEST (test_forged_packets_dropped)
{
  Rig rig;
  GSocket *f = forger_socket ();
  guint8 pkt[64];
  guint32 nack[] = { 1, 0, 1, 0, 5 };
  guint32 data[] = { 0, 0, 0 };
  gint port;

  rig_start_receivers (&rig, "239.255.91.2", "");
  /* before any CONN: junk and a truncated header to the group */
  send_bytes (f, rig.group, rig.port, (const guint8 *) "junk", 4);
  send_bytes (f, rig.group, rig.port, pkt, rmtp_packet (pkt, 1, NULL, 0) - 2);
  for (guint i = 0; i < 2; i++)
    wait_stat (rig.src[i], "state", "wait-conn");
  rig_start_sink (&rig, "rate=2000000");
  for (guint i = 0; i < 2; i++)
    wait_stat (rig.src[i], "state", "receiving");
  port = stat_int (rig.sink, "local-port");
  fail_unless (port > 0);
  /* to the server: junk, and member 1's NACK from an address not its own */
  send_bytes (f, "127.0.0.1", port, (const guint8 *) "junk", 4);
  send_bytes (f, "127.0.0.1", port, pkt, rmtp_packet (pkt, 5, nack, 5));
  /* to the group: DATA of the session, not from the server */
  send_bytes (f, rig.group, rig.port, pkt, rmtp_packet (pkt, 3, data, 3) - 3);
  assert_eos (rig.sink_pipe);
  fail_unless (check_stat_u64 (rig.sink, "malformed") >= 1);
  fail_unless (check_stat_u64 (rig.sink, "forged") >= 1);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    fail_unless (check_stat_u64 (rig.src[i], "malformed") >= 2);
    fail_unless (check_stat_u64 (rig.src[i], "other-source") >= 1);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  g_object_unref (f);
  rig_clear (&rig);
}

GST_END_TEST;

/* Receiver 2 is BUSY from the start: the rounds go on without it, it
 * drops the data; after its RRDY it is served by unicast and completes. */
GST_START_TEST (test_busy_then_ready)
{
  Rig rig;

  rig_start_receivers (&rig, "239.255.91.3", "");
  g_object_set (rig.src[1], "busy", TRUE, NULL);
  rig_start_sink (&rig, "");
  wait_stat (rig.src[1], "state", "busy");
  wait_stat (rig.src[0], "state", "done");
  fail_unless (check_stat_u64 (rig.src[1], "busy-dropped") > 0);
  g_object_set (rig.src[1], "busy", FALSE, NULL);
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  fail_unless (stat_uint (rig.sink, "slow-receivers") >= 1);
  fail_unless (check_stat_u64 (rig.sink, "unicast-data-sent") >= SIZE / 1024);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* The server goes away mid-transfer: the receivers post an error that
 * says the data set is incomplete, and output nothing. */
GST_START_TEST (test_server_gone_clear_error)
{
  Rig rig;
  gchar *out;
  gsize n = 1;

  rig_start_receivers (&rig, "239.255.91.4", "receiver-timeout=300000000");
  rig_start_sink (&rig, "rate=500000");
  /* mid-transfer: each has data, far from all 300 packets at 500 kbit/s */
  for (guint i = 0; i < 2; i++)
    check_stat_u64_reaches (rig.src[i], "data-received", 16, 10);
  stop_pipeline (&rig.sink_pipe, &rig.sink);
  for (guint i = 0; i < 2; i++) {
    GstBus *bus = gst_element_get_bus (rig.src_pipe[i]);

    check_bus_error_contains (bus, 5 * GST_SECOND, "before the data set was "
        "complete");
    gst_object_unref (bus);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    fail_unless (g_file_get_contents (rig.out[i], &out, &n, NULL));
    fail_unless_equals_uint64 (n, 0);
    g_free (out);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* Streaming mode: the sink sends 64 KiB windows as the file comes, holds
 * at most two, and blocks filesrc meanwhile; each receiver outputs the
 * windows as they are verified. */
#define WINDOW 65536

/* Receiver @i ended with EOS and held at most one window. */
static void
assert_stream_receiver (Rig * rig, guint i)
{
  assert_eos (rig->src_pipe[i]);
  check_stats_documented (rig->src[i]);
  fail_unless_equals_int (stat_uint (rig->src[i], "windows-verified"),
      SIZE / WINDOW);
  fail_unless (check_stat_u64 (rig->src[i], "max-window-held-bytes") <=
      WINDOW);
}

GST_START_TEST (test_stream_transfer)
{
  Rig rig;
  guint64 held;

  rig_start_receivers (&rig, "239.255.91.6", "");
  rig_start_sink (&rig, "window-size=65536");
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "windows"),
      (SIZE + WINDOW - 1) / WINDOW);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "bytes-released"),
      SIZE);
  held = check_stat_u64 (rig.sink, "max-held-bytes");
  fail_unless (held > WINDOW && held <= 2 * WINDOW + 1);
  fail_unless (check_stat_u64 (rig.sink, "blocked-time") > 0);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  check_stats_documented (rig.sink);
  for (guint i = 0; i < 2; i++) {
    assert_stream_receiver (&rig, i);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
}

GST_END_TEST;

/* Pops the sink's rmtp-receiver-dropped message, checks it, returns the
 * window it names. */
static guint
assert_dropped_message (GstElement * pipe, guint member, const gchar * why)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, WAIT,
      GST_MESSAGE_ELEMENT);
  const GstStructure *st;
  guint id = 0, window = 99;

  for (; m && !gst_message_has_name (m, "rmtp-receiver-dropped");
      m = gst_bus_timed_pop_filtered (bus, WAIT, GST_MESSAGE_ELEMENT))
    gst_message_unref (m);
  fail_unless (m != NULL, "no rmtp-receiver-dropped");
  st = gst_message_get_structure (m);
  gst_structure_get_uint (st, "member", &id);
  gst_structure_get_uint (st, "window", &window);
  fail_unless_equals_int (id, member);
  fail_unless_equals_string (gst_structure_get_string (st, "reason"), why);
  gst_message_unref (m);
  gst_object_unref (bus);
  return window;
}

/* @out holds exactly the first @n bytes of @in. */
static void
assert_file_prefix (const gchar * in, const gchar * out, gsize n)
{
  gchar *o, *i;
  gsize n_out, n_in;

  fail_unless (g_file_get_contents (out, &o, &n_out, NULL));
  fail_unless (g_file_get_contents (in, &i, &n_in, NULL));
  fail_unless_equals_uint64 (n_out, n);
  fail_unless (n <= n_in && memcmp (o, i, n) == 0);
  g_free (o);
  g_free (i);
}

/* A BUSY receiver holds window 0 back: after its RRDY it finishes that
 * window by unicast, is dropped from the stream (a bus message at the
 * sink, an error at the receiver after the window it has), and the other
 * receiver gets the whole stream. The stream is two windows: a receiver
 * whose output falls a window behind says BUSY and is dropped after any
 * window but the last, so with more windows member 1 was dropped too when
 * the machine could not write 64 KiB in the 65 ms the next window takes
 * (once at a load average of 15: "no EOS"). */
GST_START_TEST (test_stream_busy_receiver_dropped)
{
  Rig rig;
  GstBus *bus;

  rig_start_receivers (&rig, "239.255.91.7", "");
  g_object_set (rig.src[1], "busy", TRUE, NULL);
  rig_start_sink_reading (&rig, "blocksize=65536 num-buffers=2",
      "window-size=65536");
  wait_stat (rig.src[1], "state", "busy");
  wait_stat (rig.sink, "phase", "separate");
  g_object_set (rig.src[1], "busy", FALSE, NULL);
  bus = gst_element_get_bus (rig.src_pipe[1]);
  check_bus_error_contains (bus, WAIT, "dropped this receiver");
  gst_object_unref (bus);
  fail_unless_equals_int (assert_dropped_message (rig.sink_pipe, 2, "slow"),
      0);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-dropped-slow"), 1);
  assert_eos (rig.src_pipe[0]);
  stop_pipeline (&rig.src_pipe[0], &rig.src[0]);
  assert_file_prefix (rig.in, rig.out[0], 2 * WINDOW);
  stop_pipeline (&rig.src_pipe[1], &rig.src[1]);
  assert_file_prefix (rig.in, rig.out[1], WINDOW);
  rig_clear (&rig);
}

GST_END_TEST;

/* Both receivers are BUSY in window 0 of two: nobody kept up, so waiting
 * for them holds back nobody. After their RRDY they finish window 0 by
 * unicast, stay in the stream and get all of it (before, both were
 * dropped and the stream ended with nobody). */
GST_START_TEST (test_stream_all_busy_receivers_kept)
{
  Rig rig;

  rig_start_receivers (&rig, "239.255.91.9", "");
  for (guint i = 0; i < 2; i++)
    g_object_set (rig.src[i], "busy", TRUE, NULL);
  rig_start_sink_reading (&rig, "blocksize=65536 num-buffers=2",
      "window-size=65536");
  for (guint i = 0; i < 2; i++)
    wait_stat (rig.src[i], "state", "busy");
  wait_stat (rig.sink, "phase", "separate");
  for (guint i = 0; i < 2; i++)
    g_object_set (rig.src[i], "busy", FALSE, NULL);
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_file_prefix (rig.in, rig.out[i], 2 * WINDOW);
  }
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-dropped"), 0);
  fail_unless_equals_int (stat_uint (rig.sink, "slow-receivers"), 2);
  rig_clear (&rig);
}

GST_END_TEST;

/* Receiver 2's output is slower than the network: once it is more than a
 * window behind it says BUSY, so it holds no more than that, finishes its
 * window after RRDY and is dropped; receiver 1 gets the whole stream. */
GST_START_TEST (test_stream_slow_output_dropped)
{
  Rig rig;
  GstBus *bus;
  gchar *out, *in;
  gsize n, n_in;
  guint window;
  guint64 held;

  /* slow by the buffer: one a packet */
  rig_start_receivers_filtered (&rig, "239.255.91.8", "output-buffer-size=0",
      "! identity sleep-time=10000");
  rig_start_sink (&rig, "window-size=65536");
  bus = gst_element_get_bus (rig.src_pipe[1]);
  check_bus_error_contains (bus, WAIT, "dropped this receiver");
  gst_object_unref (bus);
  window = assert_dropped_message (rig.sink_pipe, 2, "slow");
  assert_eos (rig.src_pipe[0]);
  stop_pipeline (&rig.src_pipe[0], &rig.src[0]);
  assert_same_file (rig.in, rig.out[0]);
  fail_unless (check_stat_u64 (rig.src[1], "max-window-held-bytes") <=
      WINDOW);
  /* it fell more than a window behind, and never more than two */
  held = check_stat_u64 (rig.src[1], "max-held-bytes");
  fail_unless (held > WINDOW && held <= 2 * WINDOW, "%" G_GUINT64_FORMAT,
      held);
  stop_pipeline (&rig.src_pipe[1], &rig.src[1]);
  /* what it wrote is whole windows of the stream */
  fail_unless (g_file_get_contents (rig.out[1], &out, &n, NULL));
  fail_unless (g_file_get_contents (rig.in, &in, &n_in, NULL));
  fail_unless_equals_uint64 (n, (window + 1) * WINDOW);
  fail_unless (n < n_in);
  fail_unless (memcmp (out, in, n) == 0);
  g_free (out);
  g_free (in);
  rig_clear (&rig);
}

GST_END_TEST;

/* No receiver answers: the sink posts an error, not EOS. */
GST_START_TEST (test_nobody_answers_error)
{
  Rig rig;
  GstBus *bus;

  rig_start_receivers (&rig, "239.255.91.5", "");
  for (guint i = 0; i < 2; i++)
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
  rig_start_sink (&rig, "max-conn-retries=1");
  bus = gst_element_get_bus (rig.sink_pipe);
  check_bus_error_contains (bus, 5 * GST_SECOND, "No receiver accepted");
  gst_object_unref (bus);
  rig_clear (&rig);
}

GST_END_TEST;

/* The error @pipe posts within @timeout (NULL if none), with its debug
 * text in @debug. */
static GError *
pop_error (GstElement * pipe, GstClockTime timeout, gchar ** debug)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  GError *err = NULL;

  gst_object_unref (bus);
  fail_unless (m != NULL, "no error");
  fail_unless_equals_int (GST_MESSAGE_TYPE (m), GST_MESSAGE_ERROR);
  gst_message_parse_error (m, &err, debug);
  gst_message_unref (m);
  return err;
}

/* No server: the source ends with an error that names the group, the port
 * and the wait, after connect-timeout and not before. */
GST_START_TEST (test_no_server_connect_timeout)
{
  guint port = free_udp_port ();
  gchar *desc = g_strdup_printf ("rmtpsrc name=src address=239.255.91.6 "
      "port=%u member=4 multicast-iface=lo connect-timeout=300000000 ! "
      "fakesink", port);
  gchar *text = g_strdup_printf ("no CONN listing member 4 came to group "
      "239.255.91.6 port %u within 0.3 s", port);
  GstElement *src, *pipe = launch (desc, "src", &src);
  gint64 t0 = g_get_monotonic_time ();
  gchar *debug = NULL, *failure;
  GError *err;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  err = pop_error (pipe, 5 * GST_SECOND, &debug);
  fail_unless (g_get_monotonic_time () - t0 >= 300 * 1000);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", err->message);
  fail_unless (strstr (err->message, text) != NULL, "%s", err->message);
  fail_unless (strstr (debug, "Heard: 0 foreign") != NULL, "%s", debug);
  failure = stat_string (src, "failure");
  fail_unless_equals_string (failure, "no-conn");
  g_free (failure);
  g_error_free (err);
  g_free (debug);
  g_free (text);
  g_free (desc);
  stop_pipeline (&pipe, &src);
}

GST_END_TEST;

/* A receiver not in the server's list hears its CONNs, which do not list
 * it: it ends with the same error after connect-timeout, and its debug
 * text says it heard them. The sink prerolls first, so its CONNs follow
 * its PLAYING within a few ms (it sends them at EOS) and the receiver's
 * 2 s are not spent on the sink's start (which took 4 s under ASan). */
GST_START_TEST (test_not_in_member_list_connect_timeout)
{
  guint port = free_udp_port ();
  gchar *src_desc = g_strdup_printf ("rmtpsrc name=src address=239.255.91.7 "
      "port=%u member=3 multicast-iface=lo connect-timeout=2000000000 ! "
      "fakesink", port);
  gchar *sink_desc = g_strdup_printf ("fakesrc num-buffers=8 "
      "sizetype=fixed sizemax=1024 ! rmtpsink name=sink address=239.255.91.7 "
      "port=%u multicast-iface=lo receivers=2 max-conn-retries=1", port);
  GstElement *src, *sink, *src_pipe = launch (src_desc, "src", &src);
  GstElement *sink_pipe = launch (sink_desc, "sink", &sink);
  gchar *debug = NULL;
  GError *err;
  GstStructure *st;
  guint64 foreign = 0;

  fail_unless (gst_element_set_state (sink_pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (sink_pipe, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (src_pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (sink_pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  err = pop_error (sink_pipe, 5 * GST_SECOND, NULL);
  fail_unless (strstr (err->message, "No receiver accepted") != NULL, "%s",
      err->message);
  g_error_free (err);
  err = pop_error (src_pipe, 15 * GST_SECOND, &debug);
  fail_unless (strstr (err->message, "no CONN listing member 3") != NULL,
      "%s", err->message);
  fail_unless (strstr (debug, "with member 3 in its list?") != NULL, "%s",
      debug);
  fail_unless (strstr (debug, "Heard: 0 foreign") == NULL, "%s", debug);
  g_object_get (src, "stats", &st, NULL);
  fail_unless (gst_structure_get_uint64 (st, "foreign", &foreign));
  fail_unless (foreign >= 3, "%" G_GUINT64_FORMAT " foreign", foreign);
  gst_structure_free (st);
  g_error_free (err);
  g_free (debug);
  g_free (src_desc);
  g_free (sink_desc);
  stop_pipeline (&sink_pipe, &sink);
  stop_pipeline (&src_pipe, &src);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */

GST_START_TEST (test_uri_round_trip)
{
  GstElement *src = gst_element_factory_make ("rmtpsrc", NULL);
  GstElement *sink = gst_element_factory_make ("rmtpsink", NULL);
  GError *err = NULL;
  gchar *uri, *addr;
  guint member, receivers;
  gint port;

  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "rmtp://239.2.2.9:6005?member=7&max-total-size=1000000", &err));
  g_object_get (src, "address", &addr, "port", &port, "member", &member,
      NULL);
  fail_unless_equals_string (addr, "239.2.2.9");
  fail_unless_equals_int (port, 6005);
  fail_unless_equals_int (member, 7);
  g_free (addr);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (src));
  fail_unless (g_str_has_prefix (uri, "rmtp://239.2.2.9:6005?"), "%s", uri);
  fail_unless (strstr (uri, "member=7") != NULL, "%s", uri);
  fail_unless (strstr (uri, "max-total-size=1000000") != NULL, "%s", uri);
  g_free (uri);

  g_object_set (sink, "uri", "rmtp://239.2.2.8:6006?receivers=3&rate=2000000",
      NULL);
  g_object_get (sink, "receivers", &receivers, "port", &port, NULL);
  fail_unless_equals_int (receivers, 3);
  fail_unless_equals_int (port, 6006);
  g_object_get (sink, "uri", &uri, NULL);
  fail_unless (strstr (uri, "receivers=3") && strstr (uri, "rate=2000000"),
      "%s", uri);
  g_free (uri);

  /* all or nothing: a bad URI changes nothing */
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "rmtp://239.2.2.1:7000?member=0", &err));
  fail_unless (strstr (err->message, "bad value") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "rmtp://239.2.2.1:7000?bogus=1", &err));
  fail_unless (strstr (err->message, "unknown parameter") != NULL);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "rmtp://239.2.2.1?member=2", &err));
  fail_unless (strstr (err->message, "no port") != NULL);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "rlm://239.2.2.1:7000", &err));
  g_clear_error (&err);
  g_object_get (src, "port", &port, "member", &member, NULL);
  fail_unless_equals_int (port, 6005);
  fail_unless_equals_int (member, 7);
  gst_object_unref (src);
  gst_object_unref (sink);
}

GST_END_TEST;

/* A bad uri property, address or member list fails the start with an
 * error that names it. */
GST_START_TEST (test_start_errors_clear)
{
  struct
  {
    const gchar *desc, *text;
  } cases[] = {
    {"rmtpsrc uri=rmtp://239.2.2.2 ! fakesink", "no port"},
    {"fakesrc ! rmtpsink address=10.0.0.1", "\"10.0.0.1\" is not a multicast"},
    {"rmtpsrc address=10.0.0.1 ! fakesink", "\"10.0.0.1\" is not a multicast"},
    {"fakesrc ! rmtpsink members=1,2,2", "members: \"1,2,2\""},
    {"fakesrc ! rmtpsink members=1,x", "members:"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_start_error (cases[i].desc, cases[i].text);
}

GST_END_TEST;

/* The sink's loop-turns over a transfer to two receivers with
 * @sink_props. */
static guint64
transfer_sink_turns (const gchar * sink_props)
{
  Rig rig;
  guint64 turns;

  rig_start_receivers (&rig, "239.255.91.10", "");
  rig_start_sink (&rig, sink_props);
  assert_eos (rig.sink_pipe);
  fail_unless_equals_int (stat_uint (rig.sink, "receivers-complete"), 2);
  turns = check_stat_u64 (rig.sink, "loop-turns");
  for (guint i = 0; i < 2; i++) {
    assert_eos (rig.src_pipe[i]);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  rig_clear (&rig);
  return turns;
}

/* send-interval: the sink wakes to send at most every 5 ms, not once a
 * packet (300 packets at 16 Mbit/s, one every 0.5 ms, less the pacer's
 * first 20 ms of credit), and the data set arrives whole. */
GST_START_TEST (test_send_interval_fewer_wakeups)
{
  guint64 each = transfer_sink_turns ("rate=16000000 send-interval=0");
  guint64 batched = transfer_sink_turns ("rate=16000000 "
      "send-interval=5000000");

  GST_INFO ("sink loop turns: %" G_GUINT64_FORMAT " one a packet, %"
      G_GUINT64_FORMAT " batched", each, batched);
  fail_unless (batched < each / 2, "%" G_GUINT64_FORMAT " turns batched, %"
      G_GUINT64_FORMAT " one a packet", batched, each);
}

GST_END_TEST;

static gint
read_sysctl (const gchar * path)
{
  gchar *text;
  gint v;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  v = atoi (text);
  g_free (text);
  return v;
}

/* Whether this process may set a receive buffer past rmem_max. */
static gboolean
may_force_recv_buffer (void)
{
  gint fd = socket (AF_INET, SOCK_DGRAM, 0), v = 1 << 20;
  gboolean ok = setsockopt (fd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
      sizeof (v)) == 0;

  close (fd);
  return ok;
}

/* The receive buffer a started sink reports, with @props. */
static gint
sink_recv_buffer (const gchar * props)
{
  gchar *desc = g_strdup_printf ("appsrc ! rmtpsink name=sink "
      "address=239.255.91.9 port=%u multicast-iface=lo %s", free_udp_port (),
      props);
  GstElement *sink, *pipe = launch (desc, "sink", &sink);
  gint v;

  g_free (desc);
  fail_if (gst_element_set_state (pipe, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  v = stat_int (sink, "recv-buffer");
  stop_pipeline (&pipe, &sink);
  return v;
}

/* The answers of 1000 members get a receive buffer of 4 KiB each (as far
 * as the kernel lets: twice rmem_max without CAP_NET_ADMIN); one member
 * keeps the system's default; recv-buffer-size sets it. */
GST_START_TEST (test_recv_buffer_from_receivers)
{
  gint dflt = read_sysctl ("/proc/sys/net/core/rmem_default");
  gint cap = may_force_recv_buffer () ? G_MAXINT :
      2 * read_sysctl ("/proc/sys/net/core/rmem_max");

  fail_unless_equals_int (sink_recv_buffer ("receivers=1000"),
      MIN (1000 * 4096, cap));
  fail_unless_equals_int (sink_recv_buffer ("receivers=1"), dflt);
  fail_unless_equals_int (sink_recv_buffer ("receivers=1000 "
          "recv-buffer-size=300000"), MIN (300000, cap));
}

GST_END_TEST;

/* The core's defaults, examples and documented stats in what gst-inspect
 * shows. */
GST_START_TEST (test_docs_and_defaults)
{
  GstElement *sink = gst_element_factory_make ("rmtpsink", NULL);
  guint packet_size, batch, min_block, gone_rel;
  guint64 rate, delta, empty_wait;
  gboolean incremental, decode_thread;

  g_object_get (sink, "packet-size", &packet_size, "rate", &rate, "delta",
      &delta, "gone-rel-retries", &gone_rel, "empty-round-wait", &empty_wait,
      NULL);
  fail_unless_equals_int (packet_size, 1024);
  fail_unless_equals_int (gone_rel, 3);
  fail_unless_equals_uint64 (empty_wait, 0);
  fail_unless_equals_uint64 (rate, 8000000);
  fail_unless_equals_uint64 (delta, 2 * GST_MSECOND);
  gst_object_unref (sink);
  sink = gst_element_factory_make ("rmtpsrc", NULL);
  g_object_get (sink, "connect-timeout", &delta, "parity-incremental",
      &incremental, "parity-incremental-batch", &batch,
      "parity-decode-thread", &decode_thread, "parity-incremental-min-block",
      &min_block, NULL);
  fail_unless_equals_uint64 (delta, 60 * GST_SECOND);
  /* issue 20: on from blocks of 1024, in batches of 16, and the worker
   * off */
  fail_unless (incremental);
  fail_unless_equals_int (batch, 16);
  fail_unless_equals_int (min_block, 1024);
  fail_unless (!decode_thread);
  g_object_get (sink, "output-buffer-size", &batch, "answers-first",
      &decode_thread, NULL);
  fail_unless_equals_int (batch, 1024 * 1024);
  fail_unless (!decode_thread);
  g_object_get (sink, "early-output", &decode_thread, NULL);
  fail_unless (!decode_thread);
  gst_object_unref (sink);
  check_inspect_docs ("rmtpsink");
  check_inspect_docs ("rmtpsrc");
}

GST_END_TEST;

static Suite *
rmtp_suite (void)
{
  Suite *s = suite_create ("rmtp");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_uri_round_trip);
  tcase_add_test (tc, test_start_errors_clear);
  tcase_add_test (tc, test_docs_and_defaults);
  tcase_add_test (tc, test_recv_buffer_from_receivers);
  tcase_add_test (tc, test_send_interval_fewer_wakeups);
  tcase_add_test (tc, test_transfer_two_receivers);
  tcase_add_test (tc, test_stats_kept_after_stop);
  tcase_add_test (tc, test_sink_digest_taken_with_data);
  tcase_add_test (tc, test_output_in_large_buffers);
  tcase_add_test (tc, test_answers_before_output);
  tcase_add_test (tc, test_early_output);
  tcase_add_test (tc, test_forged_packets_dropped);
  tcase_add_test (tc, test_busy_then_ready);
  tcase_add_test (tc, test_server_gone_clear_error);
  tcase_add_test (tc, test_nobody_answers_error);
  tcase_add_test (tc, test_no_server_connect_timeout);
  tcase_add_test (tc, test_not_in_member_list_connect_timeout);
  tcase_add_test (tc, test_stream_transfer);
  tcase_add_test (tc, test_stream_busy_receiver_dropped);
  tcase_add_test (tc, test_stream_slow_output_dropped);
  tcase_add_test (tc, test_stream_all_busy_receivers_kept);
  return s;
}

GST_CHECK_MAIN (rmtp);
