/* tpsssink / tpsssrc on what the application gives them:
 * - `socket`: an application's bound GSocket is used as given: `port`
 *   reads its port, the members' traffic arrives on it, and it is neither
 *   closed nor left non-blocking when the element stops;
 * - `transport`: two members whose sessions each run on a GstNetUdp the
 *   application made exchange their streams through them, and open no
 *   socket of their own. */
#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <stdio.h>
#include "checkutil.h"
#include "tpssmember.h"
#include "gstnetudp.h"

#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=8000," \
    "encoding-name=L16,channels=1"
#define SEND "audiotestsrc is-live=true samplesperbuffer=160 ! " \
    "audio/x-raw,rate=8000,channels=1 ! rtpL16pay ! "

/* A member from @desc (a tpsssrc named src among it), with @prop set to
 * @object on every tpss element before it plays. */
static void
member_start_with (Member * m, const gchar * desc, const gchar * prop,
    gpointer object)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  const gchar *names[] = { "sink", "src" };

  fail_unless (err == NULL, "%s", err ? err->message : "");
  if (!GST_IS_PIPELINE (pipeline)) {
    GstElement *lone = pipeline;
    pipeline = gst_pipeline_new (NULL);
    gst_bin_add (GST_BIN (pipeline), lone);
  }
  for (guint i = 0; prop && i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), names[i]);
    if (e) {
      g_object_set (e, prop, object, NULL);
      gst_object_unref (e);
    }
  }
  member_run (m, pipeline);
}

static guint
stats_port (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *s;
  guint port = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint (s, "port", &port);
  gst_structure_free (s);
  gst_object_unref (e);
  return port;
}

/* A datagram @sock sends itself comes back: the socket is open and
 * usable, in the blocking mode the application gave it. */
static void
check_socket_still_usable (GSocket * sock, guint port)
{
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *self_addr = g_inet_socket_address_new (lo, port);
  gchar buf[16];
  gssize n;

  fail_if (g_socket_is_closed (sock));
  fail_unless (g_socket_get_blocking (sock));
  /* drain what the group sent before it stopped */
  g_socket_set_blocking (sock, FALSE);
  while (g_socket_receive (sock, buf, sizeof (buf), NULL, NULL) > 0);
  g_socket_set_blocking (sock, TRUE);
  fail_unless (g_socket_send_to (sock, self_addr, "ping", 4, NULL, NULL)
      == 4);
  fail_unless (g_socket_condition_timed_wait (sock, G_IO_IN, G_USEC_PER_SEC,
          NULL, NULL));
  n = g_socket_receive (sock, buf, sizeof (buf), NULL, NULL);
  fail_unless_equals_int (n, 4);
  fail_unless (memcmp (buf, "ping", 4) == 0);
  g_object_unref (self_addr);
  g_object_unref (lo);
}

GST_START_TEST (test_socket_used_as_given)
{
  guint p1, p2;
  GSocket *sock = check_udp_socket_local (&p1), *probe;
  gchar *members, *d1, *d2;
  GstElement *src;
  Member a, b;
  gint port = 0;
  gchar *uri, *expect;

  /* a free port for member 2 */
  probe = check_udp_socket_local (&p2);
  g_object_unref (probe);
  members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  d1 = g_strdup_printf ("tpsssrc name=src member-id=1 members=%s caps=\""
      RTP_CAPS "\"", members);
  d2 = g_strdup_printf (SEND "tpsssink name=sink port=%u member-id=2 "
      "members=%s tpsssrc name=src port=%u members=%s caps=\"" RTP_CAPS "\"",
      p2, members, p2, members);

  /* port reads the socket's port, before and while playing; a URI names
   * that port and no socket (an object has no text form) */
  src = gst_element_factory_make ("tpsssrc", NULL);
  g_object_set (src, "socket", sock, NULL);
  g_object_get (src, "port", &port, NULL);
  fail_unless_equals_int (port, p1);
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (src));
  expect = g_strdup_printf ("tpss://0.0.0.0:%u", p1);
  fail_unless_equals_string (uri, expect);
  gst_object_unref (src);

  member_start_with (&a, d1, "socket", sock);
  member_start_with (&b, d2, NULL, NULL);
  WAIT_UNTIL (locked_read (&a, &a.buffers) >= 50, 10);
  fail_unless (locked_read (&a, &a.buffers) >= 50,
      "member 1 got %u on its socket", locked_read (&a, &a.buffers));
  fail_unless_equals_int (a.peer, 2);
  fail_unless_equals_int (stats_port (a.pipeline, "src"), p1);
  src = gst_bin_get_by_name (GST_BIN (a.pipeline), "src");
  g_object_get (src, "port", &port, NULL);
  fail_unless_equals_int (port, p1);
  gst_object_unref (src);

  member_stop (&a);
  member_stop (&b);
  /* ours: open, blocking as we made it, and still holding its port */
  check_socket_still_usable (sock, p1);
  fail_unless_equals_int (G_OBJECT (sock)->ref_count, 1);

  g_object_unref (sock);
  g_free (uri);
  g_free (expect);
  g_free (members);
  g_free (d1);
  g_free (d2);
}

GST_END_TEST;

static GstNetUdp *
local_udp (void)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GError *err = NULL;
  GstNetUdp *udp;

  s.address = "127.0.0.1";
  udp = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (udp != NULL, "%s", err ? err->message : "");
  return udp;
}

GST_START_TEST (test_transport_carries_the_group)
{
  GstNetUdp *t1 = local_udp (), *t2 = local_udp ();
  guint p1 = gst_net_udp_get_port (t1), p2 = gst_net_udp_get_port (t2);
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *d[2];
  Member m[2];
  GstNetUdp *t[2] = { t1, t2 };

  /* The same port for both members, and no session name: a sink and a src
   * given one transport share a session, whatever their port. A socket of
   * the elements' own would be on another port, and no member would ever
   * reach it. */
  for (guint i = 0; i < 2; i++) {
    d[i] = g_strdup_printf (SEND "tpsssink name=sink port=0 member-id=%u "
        "members=%s tpsssrc name=src port=0 members=%s caps=\"" RTP_CAPS
        "\"", i + 1, members, members);
    member_start_with (&m[i], d[i], "transport", t[i]);
  }
  WAIT_UNTIL (locked_read (&m[0], &m[0].buffers) >= 50 &&
      locked_read (&m[1], &m[1].buffers) >= 50, 10);
  for (guint i = 0; i < 2; i++) {
    fail_unless (locked_read (&m[i], &m[i].buffers) >= 50,
        "member %u got %u", i + 1, locked_read (&m[i], &m[i].buffers));
    fail_unless_equals_int (m[i].peer, 2 - i);
    fail_unless_equals_int (stats_port (m[i].pipeline, "sink"),
        gst_net_udp_get_port (t[i]));
  }
  for (guint i = 0; i < 2; i++) {
    member_stop (&m[i]);
    g_free (d[i]);
  }
  /* the elements let go of the transports (the last reference to an
   * element may be dropped a moment later by a thread of its own, e.g. a
   * member's removal run by gst_element_call_async) */
  WAIT_UNTIL (g_atomic_int_get ((gint *) & G_OBJECT (t1)->ref_count) == 1 &&
      g_atomic_int_get ((gint *) & G_OBJECT (t2)->ref_count) == 1, 5);
  fail_unless_equals_int (G_OBJECT (t1)->ref_count, 1);
  fail_unless_equals_int (G_OBJECT (t2)->ref_count, 1);
  g_object_unref (t1);
  g_object_unref (t2);
  g_free (members);
}

GST_END_TEST;

static Suite *
tpsstransport_suite (void)
{
  Suite *s = suite_create ("tpsstransport");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_socket_used_as_given);
  tcase_add_test (tc, test_transport_carries_the_group);
  return s;
}

GST_CHECK_MAIN (tpsstransport);
