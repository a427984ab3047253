/* rmtpsink and rmtpsrc with a group key (issue 21), on loopback multicast
 * in one process: a keyed sink and two keyed sources (one with the key in
 * a file) deliver a data set byte for byte while unsealed NACKs and BUSYs
 * aimed at the sink are counted and change nothing; a source without the
 * key cannot take part; `key` is write-only and never in the URI; bad key
 * settings fail the start with errors that never show the key. */
#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "checkutil.h"
#include "rmtpcheck.h"

#define SIZE (100 * 1024)
#define SESSION 4343
#define WAIT (20 * GST_SECOND)
#define PASSPHRASE "rmtp test passphrase"

typedef struct
{
  gchar *dir, *in, *out[2], *key_file;
  guint port;
  GstElement *sink, *src[2];
  GstElement *sink_pipe, *src_pipe[2];
} Rig;

/* @desc playing; its element named e in @element. */
static GstElement *
play (const gchar * desc, GstElement ** element)
{
  GstElement *p = launch (desc, "e", element);

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  return p;
}

static void
rig_init (Rig * rig)
{
  guint8 *d = g_malloc (SIZE);

  memset (rig, 0, sizeof (*rig));
  rig->dir = g_dir_make_tmp ("rmtpauth-XXXXXX", NULL);
  rig->in = g_build_filename (rig->dir, "in.bin", NULL);
  rig->key_file = g_build_filename (rig->dir, "key", NULL);
  for (gsize i = 0; i < SIZE; i++)
    d[i] = (guint8) (i * 7 + (i >> 10));
  fail_unless (g_file_set_contents (rig->in, (gchar *) d, SIZE, NULL));
  fail_unless (g_file_set_contents (rig->key_file, PASSPHRASE "\n", -1,
          NULL));
  g_free (d);
  rig->port = free_udp_port ();
}

/* Receiver @i (member i + 1) on @group with @props. */
static void
rig_start_src (Rig * rig, guint i, const gchar * group, const gchar * props)
{
  gchar *desc;

  rig->out[i] = g_strdup_printf ("%s/out%u.bin", rig->dir, i);
  desc = g_strdup_printf ("rmtpsrc name=e address=%s port=%u member=%u "
      "multicast-iface=lo %s ! filesink location=%s", group, rig->port,
      i + 1, props, rig->out[i]);
  rig->src_pipe[i] = play (desc, &rig->src[i]);
  g_free (desc);
}

static void
rig_start_sink (Rig * rig, const gchar * group, const gchar * props)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! rmtpsink name=e "
      "address=%s port=%u multicast-iface=lo session=%u receivers=2 %s",
      rig->in, group, rig->port, SESSION, props);

  rig->sink_pipe = play (desc, &rig->sink);
  g_free (desc);
}

/* The sink prerolled (PAUSED): it sends its first CONN at EOS, so within
 * a few ms of its PLAYING, whatever its start cost (seconds under ASan on
 * a loaded machine, once 4 s). */
static void
rig_preroll_sink (Rig * rig, const gchar * group, const gchar * props)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! rmtpsink name=e "
      "address=%s port=%u multicast-iface=lo session=%u receivers=2 %s",
      rig->in, group, rig->port, SESSION, props);

  rig->sink_pipe = launch (desc, "e", &rig->sink);
  g_free (desc);
  fail_unless (gst_element_set_state (rig->sink_pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (rig->sink_pipe, NULL, NULL,
          WAIT), GST_STATE_CHANGE_SUCCESS);
}

/* Waits until receiver @i listens for a CONN. */
static void
rig_wait_src_listening (Rig * rig, guint i)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  gboolean listening = FALSE;

  while (!listening && g_get_monotonic_time () < end) {
    GstStructure *st;

    g_object_get (rig->src[i], "stats", &st, NULL);
    listening = g_strcmp0 (gst_structure_get_string (st, "state"),
        "wait-conn") == 0;
    gst_structure_free (st);
    if (!listening)
      g_usleep (10000);
  }
  fail_unless (listening, "receiver %u never waited for a CONN in 10 s", i);
}

static void
rig_clear (Rig * rig)
{
  stop_pipeline (&rig->sink_pipe, &rig->sink);
  for (guint i = 0; i < 2; i++) {
    stop_pipeline (&rig->src_pipe[i], &rig->src[i]);
    if (rig->out[i])
      g_unlink (rig->out[i]);
    g_free (rig->out[i]);
  }
  g_unlink (rig->in);
  g_unlink (rig->key_file);
  g_rmdir (rig->dir);
  g_free (rig->in);
  g_free (rig->key_file);
  g_free (rig->dir);
}

/* The first EOS or error of @pipe: TRUE for EOS. */
static gboolean
wait_end (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, WAIT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean eos;

  fail_unless (m != NULL, "neither EOS nor an error");
  eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  gst_message_unref (m);
  gst_object_unref (bus);
  return eos;
}

static gboolean
stat_bool (GstElement * e, const gchar * field)
{
  GstStructure *s;
  gboolean v = FALSE;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_boolean (s, field, &v);
  gst_structure_free (s);
  return v;
}

/* The sink's answer port, once its server runs. */
static guint
sink_port_when_started (GstElement * sink)
{
  for (guint i = 0; i < 1000; i++) {
    GstStructure *st;
    gint port = -1;
    gboolean started;

    g_object_get (sink, "stats", &st, NULL);
    started = gst_structure_has_field (st, "phase");
    gst_structure_get_int (st, "local-port", &port);
    gst_structure_free (st);
    if (started)
      return (guint) port;
    g_usleep (5000);
  }
  fail ("the sink's server never started");
  return 0;
}

/* Unsealed NACK (whole set, 28 bytes) and BUSY (12 bytes) for member 1,
 * from a socket of ours, to the sink's port. */
static void
forge_at_sink (GstElement * sink)
{
  guint port, sink_port = sink_port_when_started (sink);
  GSocket *s = check_udp_socket_local (&port);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *to;
  guint8 nack[28] = { 'R', 'M', 1, 5 }, busy[12] = { 'R', 'M', 1, 10 };

  to = g_inet_socket_address_new (lo, sink_port);
  GST_WRITE_UINT32_BE (nack + 4, SESSION);
  GST_WRITE_UINT32_BE (nack + 8, 1);
  GST_WRITE_UINT32_BE (nack + 16, 1);
  GST_WRITE_UINT32_BE (nack + 24, 100);
  GST_WRITE_UINT32_BE (busy + 4, SESSION);
  GST_WRITE_UINT32_BE (busy + 8, 1);
  for (guint i = 0; i < 5; i++) {
    fail_unless (g_socket_send_to (s, to, (gchar *) nack, sizeof (nack),
            NULL, NULL) == sizeof (nack));
    fail_unless (g_socket_send_to (s, to, (gchar *) busy, sizeof (busy),
            NULL, NULL) == sizeof (busy));
  }
  g_object_unref (to);
  g_object_unref (lo);
  g_object_unref (s);
}

/* ------------------------------------------------------------------ */

GST_START_TEST (test_keyed_transfer)
{
  Rig rig;
  gchar *file_prop;

  rig_init (&rig);
  file_prop = g_strdup_printf ("key-file=%s", rig.key_file);
  rig_start_src (&rig, 0, "239.255.93.1", "key=\"" PASSPHRASE "\"");
  rig_start_src (&rig, 1, "239.255.93.1", file_prop);
  for (guint i = 0; i < 2; i++)
    rig_wait_src_listening (&rig, i);
  rig_start_sink (&rig, "239.255.93.1", "key=\"" PASSPHRASE "\"");
  forge_at_sink (rig.sink);
  fail_unless (wait_end (rig.sink_pipe), "the sink posted an error");
  fail_unless (stat_bool (rig.sink, "auth"));
  /* every forged packet counted by verdict: none reached the server */
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "auth-bad-tag"), 5);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "auth-truncated"), 5);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "slow-receivers"),
      0);
  fail_unless_equals_uint64 (check_stat_u64 (rig.sink, "data-resent"), 0);
  /* 2 x (CACK, ACK, RACK) at least */
  fail_unless (check_stat_u64 (rig.sink, "auth-accepted") >= 6);
  fail_unless (check_stat_u64 (rig.sink, "auth-sealed") >= 3);
  check_stats_documented (rig.sink);
  for (guint i = 0; i < 2; i++) {
    fail_unless (wait_end (rig.src_pipe[i]), "receiver %u failed", i);
    fail_unless (stat_bool (rig.src[i], "auth"));
    fail_unless (check_stat_u64 (rig.src[i], "auth-accepted") >= 3);
    fail_unless_equals_uint64 (check_stat_u64 (rig.src[i], "malformed"), 0);
    check_stats_documented (rig.src[i]);
    stop_pipeline (&rig.src_pipe[i], &rig.src[i]);
    assert_same_file (rig.in, rig.out[i]);
  }
  g_free (file_prop);
  rig_clear (&rig);
}

GST_END_TEST;

/* The debug text of the error @pipe posts (within WAIT), which must be
 * the source's no-conn error. */
static gchar *
no_conn_debug (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, WAIT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *debug = NULL;

  gst_object_unref (bus);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR,
      "no error");
  gst_message_parse_error (m, &err, &debug);
  gst_message_unref (m);
  fail_unless (strstr (err->message, "no CONN listing member 1") != NULL,
      "%s", err->message);
  g_error_free (err);
  return debug;
}

/* A source without the key sees only sealed CONNs it cannot parse: it
 * never answers, and a sink whose one member it is posts an error. The
 * source ends after connect-timeout, its debug text counting them (2 s
 * after it starts; the sink prerolled before). */
GST_START_TEST (test_unkeyed_source_cannot_take_part)
{
  Rig rig;
  gchar *debug;

  rig_init (&rig);
  rig_preroll_sink (&rig, "239.255.93.2", "receivers=1 key=\"" PASSPHRASE
      "\"");
  rig_start_src (&rig, 0, "239.255.93.2", "connect-timeout=2000000000");
  rig_wait_src_listening (&rig, 0);
  fail_unless (gst_element_set_state (rig.sink_pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_if (wait_end (rig.sink_pipe), "the sink reached EOS");
  fail_unless (check_stat_u64 (rig.src[0], "malformed") >= 1);
  fail_unless_equals_uint64 (check_stat_u64 (rig.src[0], "cack-sent"), 0);
  fail_if (stat_bool (rig.src[0], "auth"));
  debug = no_conn_debug (rig.src_pipe[0]);
  fail_unless (strstr (debug, " 0 malformed") == NULL, "%s", debug);
  g_free (debug);
  rig_clear (&rig);
}

GST_END_TEST;

/* A keyed source whose sink has no key: the unsealed CONNs fail the key,
 * and the source's no-conn error says how many did. */
GST_START_TEST (test_keyed_source_unkeyed_sink_no_conn)
{
  Rig rig;
  gchar *debug;

  rig_init (&rig);
  rig_preroll_sink (&rig, "239.255.93.3", "receivers=1 max-conn-retries=1");
  rig_start_src (&rig, 0, "239.255.93.3", "connect-timeout=2000000000 "
      "key=\"" PASSPHRASE "\"");
  rig_wait_src_listening (&rig, 0);
  fail_unless (gst_element_set_state (rig.sink_pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_if (wait_end (rig.sink_pipe), "the sink reached EOS");
  debug = no_conn_debug (rig.src_pipe[0]);
  fail_unless (strstr (debug, " 0 that failed the group key") == NULL, "%s",
      debug);
  fail_unless (strstr (debug, "that failed the group key") != NULL, "%s",
      debug);
  g_free (debug);
  rig_clear (&rig);
}

GST_END_TEST;

GST_START_TEST (test_key_write_only_never_in_uri)
{
  const gchar *names[] = { "rmtpsink", "rmtpsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i], NULL);
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "key");
    gchar *uri;

    fail_unless (ps != NULL);
    fail_if (ps->flags & G_PARAM_READABLE);
    fail_unless (strstr (g_param_spec_get_blurb (ps), "64 hex digits"));
    g_object_set (e, "uri", "rmtp://239.1.1.9:6000?key=correct%20horse%20"
        "battery", NULL);
    g_object_get (e, "uri", &uri, NULL);
    fail_unless (strstr (uri, "key=") == NULL, "%s", uri);
    fail_unless (strstr (uri, "horse") == NULL, "%s", uri);
    g_free (uri);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_key_errors)
{
  gchar *desc;

  desc = g_strdup_printf ("fakesrc num-buffers=1 ! rmtpsink address="
      "239.255.93.3 port=%u key=hunter2", free_udp_port ());
  check_start_error (desc, "key: a key is 64 hex digits or a passphrase");
  g_free (desc);
  desc = g_strdup_printf ("rmtpsrc address=239.255.93.3 port=%u "
      "key-file=/nonexistent/rmtp.key ! fakesink", free_udp_port ());
  check_start_error (desc, "key-file \"/nonexistent/rmtp.key\":");
  g_free (desc);
  desc = g_strdup_printf ("rmtpsrc address=239.255.93.3 port=%u key=\""
      PASSPHRASE "\" key-file=/tmp/k ! fakesink", free_udp_port ());
  check_start_error (desc, "key and key-file are both set");
  g_free (desc);
}

GST_END_TEST;

static Suite *
rmtpauth_suite (void)
{
  Suite *s = suite_create ("rmtpauth");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_keyed_transfer);
  tcase_add_test (tc, test_unkeyed_source_cannot_take_part);
  tcase_add_test (tc, test_keyed_source_unkeyed_sink_no_conn);
  tcase_add_test (tc, test_key_write_only_never_in_uri);
  tcase_add_test (tc, test_key_errors);
  return s;
}

GST_CHECK_MAIN (rmtpauth);
