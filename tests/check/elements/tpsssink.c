/* tpsssink / tpsssrc: group members on loopback with ephemeral ports.
 * - two members exchange RTP; each tpsssrc exposes a pad for the other;
 *   sink and src of one member share one session (one id, one socket);
 * - a member that stops is timed out: its pad gets EOS and goes away;
 * - a member that stops says BYE: its pad goes at once, well before
 *   member-timeout; forged and non-member BYEs are counted and dropped;
 * - the sink's `bitrate` notifies and GstLayerRates reaches upstream (a
 *   harness), first the initial rate, then the rate the receiver assigns;
 * - malformed, forged and non-member control packets are counted, dropped;
 * - priority / feedback / traditional modes are configurable and reach the
 *   core; bad members / priorities fail the state change with a message;
 * - the URI handler round-trips;
 * - a PLI from a member becomes one force-key-unit upstream of tpsssink per
 *   hold-off; forged, non-member and foreign-SSRC PLIs are dropped;
 * - tpsssrc sends a PLI when a member's stream starts and when a
 *   force-key-unit event comes upstream on that member's pad;
 * - key-unit-parity: a key unit (its first buffer without DELTA_UNIT) gets
 *   parity of its own toward each member, delta units none;
 * - a pad-added handler that blocks does not hold up the session: it keeps
 *   sending, and its reports run on time (late-reports 0); nor does a
 *   member's leaving while a library loads in another thread;
 * - a member back before its old pad went gets a new pad after the old
 *   one's EOS and removal. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gio/gio.h>
#include <stdio.h>
#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>
#include "checkutil.h"
#include "tpssmember.h"

#include "tpsscore.h"
#include "rtcpfb.h"
#include "core/rtcp.h"

#define RTP_CAPS "application/x-rtp,media=audio,clock-rate=8000," \
    "encoding-name=L16,channels=1"

/* A pipeline around @desc (a lone element included). */
static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *e = gst_parse_launch (desc, &err), *p;

  fail_unless (e != NULL && err == NULL, "%s", err ? err->message : "");
  if (GST_IS_PIPELINE (e))
    return e;
  p = gst_pipeline_new (NULL);
  gst_bin_add (GST_BIN (p), e);
  return p;
}

static GstStructure *
get_stats (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *s;

  g_object_get (e, "stats", &s, NULL);
  gst_object_unref (e);
  return s;
}

static guint64
stat_u64 (GstElement * pipeline, const gchar * name, const gchar * field)
{
  GstStructure *s = get_stats (pipeline, name);
  guint64 v = 0;

  gst_structure_get_uint64 (s, field, &v);
  gst_structure_free (s);
  return v;
}

GST_START_TEST (test_two_members_exchange)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  Member a, b;
  GstStructure *sink_stats, *src_stats;
  const GstStructure *ms;
  guint id = 0, sid = 0;
  guint64 delivered = 0, sent = 0;

  member_start (&a, 1, p1, members, "");
  member_start (&b, 2, p2, members, "");

  WAIT_UNTIL (locked_read (&a, &a.buffers) >= 50 &&
      locked_read (&b, &b.buffers) >= 50, 10);
  fail_unless (locked_read (&a, &a.buffers) >= 50, "member 1 got %u",
      a.buffers);
  fail_unless (locked_read (&b, &b.buffers) >= 50, "member 2 got %u",
      b.buffers);
  /* One pad per remote member, named by its id. */
  fail_unless_equals_int (a.pads_added, 1);
  fail_unless_equals_int (a.peer, 2);
  fail_unless_equals_int (b.pads_added, 1);
  fail_unless_equals_int (b.peer, 1);

  /* Sink and src of member 1 share one session: same id, and the src sees
   * what the sink sent. */
  sink_stats = get_stats (a.pipeline, "sink");
  src_stats = get_stats (a.pipeline, "src");
  gst_structure_get_uint (sink_stats, "member-id", &id);
  gst_structure_get_uint (src_stats, "member-id", &sid);
  fail_unless_equals_int (id, 1);
  fail_unless_equals_int (sid, 1);
  gst_structure_get_uint64 (src_stats, "packets-sent", &sent);
  fail_unless (sent > 0);
  ms = member_stats (src_stats, 2);
  fail_unless (ms != NULL);
  gst_structure_get_uint64 (ms, "packets-delivered", &delivered);
  fail_unless (delivered >= 50);
  fail_unless (gst_structure_has_field (ms, "send-phase"));
  fail_unless (gst_structure_has_field (ms, "send-length"));
  fail_unless (gst_structure_has_field (ms, "packets-recovered"));
  fail_unless (gst_structure_has_field (ms, "packets-not-delivered"));
  gst_structure_free (sink_stats);
  gst_structure_free (src_stats);
  /* the session's loop, shown by both elements */
  for (guint i = 0; i < 2; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (a.pipeline),
        i ? "src" : "sink");
    check_loop_ran_without_spins (e);
    gst_object_unref (e);
  }

  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

GST_END_TEST;

GST_START_TEST (test_member_timeout_removes_pad)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  const gchar *fast = "member-timeout=1000000000 hello-interval=200000000";
  Member a, b;
  GstElement *src;

  member_start (&a, 1, p1, members, fast);
  member_start (&b, 2, p2, members, fast);
  WAIT_UNTIL (locked_read (&a, &a.buffers) >= 20, 10);
  fail_unless_equals_int (locked_read (&a, &a.pads_added), 1);

  /* Member 2 goes silent: after the timeout its pad gets EOS, goes away. */
  member_stop (&b);
  WAIT_UNTIL (locked_read (&a, &a.pads_removed) == 1, 5);
  fail_unless_equals_int (locked_read (&a, &a.pads_removed), 1);
  fail_unless_equals_int (locked_read (&a, &a.eos), 1);
  src = gst_bin_get_by_name (GST_BIN (a.pipeline), "src");
  fail_unless_equals_int (src->numsrcpads, 0);
  gst_object_unref (src);
  fail_unless_equals_int (stat_u64 (a.pipeline, "src", "pads-removed"), 1);

  /* It comes back: a new pad. */
  member_start (&b, 2, p2, members, fast);
  WAIT_UNTIL (locked_read (&a, &a.pads_added) == 2, 5);
  fail_unless_equals_int (locked_read (&a, &a.pads_added), 2);

  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

GST_END_TEST;

/* Default member-timeout (5 s): member 2 stops, its BYE takes its pad
 * away on member 1 within 1 s. */
GST_START_TEST (test_bye_removes_pad_at_once)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  Member a, b;
  GstElement *src;
  gint64 t0, elapsed;

  member_start (&a, 1, p1, members, "");
  member_start (&b, 2, p2, members, "");
  WAIT_UNTIL (locked_read (&a, &a.buffers) >= 20, 10);
  fail_unless_equals_int (locked_read (&a, &a.pads_added), 1);

  t0 = g_get_monotonic_time ();
  /* READY: the session's last stop, which sends the BYE */
  gst_element_set_state (b.pipeline, GST_STATE_READY);
  for (guint i = 0; i < 2000 && locked_read (&a, &a.pads_removed) == 0; i++)
    g_usleep (1000);
  elapsed = g_get_monotonic_time () - t0;
  GST_INFO ("pad removed %" G_GINT64_FORMAT " us after the stop began",
      elapsed);
  fail_unless_equals_int (locked_read (&a, &a.pads_removed), 1);
  fail_unless (elapsed < G_USEC_PER_SEC, "took %" G_GINT64_FORMAT " us",
      elapsed);
  fail_unless_equals_int (locked_read (&a, &a.eos), 1);
  src = gst_bin_get_by_name (GST_BIN (a.pipeline), "src");
  fail_unless_equals_int (src->numsrcpads, 0);
  gst_object_unref (src);
  fail_unless_equals_int (stat_u64 (b.pipeline, "sink", "bye-sent"), 1);
  fail_unless_equals_int (stat_u64 (a.pipeline, "src", "bye-received"), 1);
  fail_unless_equals_int (stat_u64 (a.pipeline, "src", "bye-refused"), 0);
  {
    /* still listed, as it left */
    GstStructure *st = get_stats (a.pipeline, "src");
    const GstStructure *ms = member_stats (st, 2);
    gboolean left = FALSE;
    guint64 delivered = 0;

    fail_unless (ms != NULL);
    fail_unless (gst_structure_get_boolean (ms, "left", &left) && left);
    gst_structure_get_uint64 (ms, "packets-delivered", &delivered);
    fail_unless (delivered >= 20);
    gst_structure_free (st);
  }

  /* It comes back: a new pad. */
  gst_element_set_state (b.pipeline, GST_STATE_PLAYING);
  WAIT_UNTIL (locked_read (&a, &a.pads_added) == 2, 5);
  fail_unless_equals_int (locked_read (&a, &a.pads_added), 2);

  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

GST_END_TEST;

/* EOS sent to a member's pipeline (what gst-launch-1.0 -e does on SIGINT):
 * tpsssrc ends its member's pad, so every sink sees EOS and the pipeline
 * posts it, however short the stats interval. Several rounds: the stop
 * after it must not hang either. */
GST_START_TEST (test_eos_sent_to_pipeline_ends_pads)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  const gchar *stats = "stats-interval=1000000";

  for (guint round = 0; round < 3; round++) {
    Member a, b;
    GstBus *bus;
    GstMessage *msg;

    member_start (&a, 1, p1, members, stats);
    member_start (&b, 2, p2, members, stats);
    WAIT_UNTIL (locked_read (&a, &a.buffers) >= 10, 10);
    fail_unless_equals_int (locked_read (&a, &a.pads_added), 1);

    fail_unless (gst_element_send_event (a.pipeline, gst_event_new_eos ()));
    bus = gst_element_get_bus (a.pipeline);
    msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "round %u: no EOS within 5 s", round);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    fail_unless_equals_int (locked_read (&a, &a.eos), 1);
    gst_message_unref (msg);
    gst_object_unref (bus);

    member_stop (&a);
    member_stop (&b);
  }
  g_free (members);
}

GST_END_TEST;

/* The application reads `stats` from its own thread while the element goes
 * between NULL and READY, each READY->NULL freeing the session: the reader
 * must never reach a freed session (AddressSanitizer reports it when it
 * does). */
typedef struct
{
  GstElement *element;
  gint stop;
  gint reads;                   /* atomic */
  guint missing;
} StatsReader;

static gpointer
read_stats_until_stopped (gpointer data)
{
  StatsReader *r = data;

  while (!g_atomic_int_get (&r->stop)) {
    GstStructure *st = NULL;

    g_object_get (r->element, "stats", &st, NULL);
    if (st)
      gst_structure_free (st);
    else
      r->missing++;
    g_atomic_int_inc (&r->reads);
  }
  return NULL;
}

GST_START_TEST (test_stats_read_while_session_released)
{
  const gchar *names[] = { "tpsssink", "tpsssrc" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++) {
    StatsReader r = { gst_element_factory_make (names[n], NULL), 0, 0, 0 };
    GThread *reader;

    g_object_set (r.element, "port", free_udp_port (), NULL);
    reader = g_thread_new ("stats-reader", read_stats_until_stopped, &r);
    /* the cycles must overlap the reads, however late the thread starts */
    while (g_atomic_int_get (&r.reads) == 0)
      g_usleep (1000);
    for (guint i = 0; i < 300; i++) {
      fail_unless_equals_int (gst_element_set_state (r.element,
              GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
      fail_unless_equals_int (gst_element_set_state (r.element,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    }
    g_atomic_int_set (&r.stop, 1);
    g_thread_join (reader);
    fail_unless_equals_int (r.missing, 0);
    gst_object_unref (r.element);
  }
}

GST_END_TEST;

/* The application sets `members` and `priorities` from its own thread while
 * the element goes between PLAYING and NULL, each READY->NULL freeing the
 * session: a set must reach the live session or be kept for the next start,
 * never a freed session (AddressSanitizer reports it when it does). */
typedef struct
{
  GstElement *element;
  gint stop;
  gint sets;                    /* atomic */
} SessionSetter;

static gpointer
set_session_properties_until_stopped (gpointer data)
{
  SessionSetter *w = data;
  const gchar *members[] = { "2@127.0.0.1:1", "2@127.0.0.1:1,3@127.0.0.1:2" };
  const gchar *priorities[] = { "2:1", "2:1,3:9" };

  for (guint i = 0; !g_atomic_int_get (&w->stop); i++) {
    g_object_set (w->element, "members", members[i % 2],
        "priorities", priorities[i % 2], NULL);
    g_atomic_int_inc (&w->sets);
  }
  return NULL;
}

GST_START_TEST (test_session_properties_set_while_session_released)
{
  const gchar *names[] = { "tpsssink", "tpsssrc" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++) {
    SessionSetter w = { gst_element_factory_make (names[n], NULL), 0, 0 };
    GThread *setter;
    gchar *members = NULL;

    g_object_set (w.element, "port", free_udp_port (), NULL);
    setter = g_thread_new ("property-setter",
        set_session_properties_until_stopped, &w);
    /* the cycles must overlap the sets, however late the thread starts */
    while (g_atomic_int_get (&w.sets) == 0)
      g_usleep (1000);
    for (guint i = 0; i < 200; i++) {
      fail_if (gst_element_set_state (w.element, GST_STATE_PLAYING) ==
          GST_STATE_CHANGE_FAILURE);
      fail_unless_equals_int (gst_element_set_state (w.element,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    }
    g_atomic_int_set (&w.stop, 1);
    g_thread_join (setter);
    /* every set was kept: the last one is what the element reads back */
    g_object_get (w.element, "members", &members, NULL);
    fail_unless (g_str_has_prefix (members, "2@127.0.0.1:1"), "%s", members);
    g_free (members);
    gst_object_unref (w.element);
  }
}

GST_END_TEST;

static GSocket *
bound_udp_socket (guint port)
{
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *sa = g_inet_socket_address_new (lo, port);

  fail_unless (g_socket_bind (sock, sa, FALSE, NULL));
  g_object_unref (sa);
  g_object_unref (lo);
  return sock;
}

static void
send_bye (GSocket * sock, guint port, guint32 member)
{
  guint8 bye[8];

  fail_unless_equals_int (rtcp_bye_write (&member, 1, NULL, bye,
          sizeof bye), 8);
  member_send_bytes (sock, port, bye, sizeof bye);
}

/* Whether @id is listed as a member that has not left. */
static gboolean
has_member (GstElement * pipeline, guint id)
{
  GstStructure *st = get_stats (pipeline, "src");
  const GstStructure *ms = member_stats (st, id);
  gboolean left = FALSE;

  if (ms)
    gst_structure_get_boolean (ms, "left", &left);
  gst_structure_free (st);
  return ms && !left;
}

/* The join check through the elements on loopback: "src" (member 1, only
 * itself listed) and "joiner" (member 2, both listed). The joiner's HELLO
 * gets a cookie, the joiner echoes it, member 1 lists member 2. With
 * join-check=false member 1 lists it without a cookie. */
static void
run_join (gboolean join_check)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=1@127.0.0.1:%u join-check=%s caps=\"" RTP_CAPS "\" "
      "tpsssrc name=joiner port=%u member-id=2 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u caps=\"" RTP_CAPS "\"",
      p1, p1, join_check ? "true" : "false", p2, p1, p2);
  GstElement *pipeline = launch (desc);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  WAIT_UNTIL (has_member (pipeline, 2), 5);
  fail_unless (has_member (pipeline, 2));
  fail_unless_equals_int (stat_u64 (pipeline, "src", "join-challenged"),
      join_check ? 1 : 0);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "join-verified"),
      join_check ? 1 : 0);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "join-cookie-bad"), 0);
  fail_unless_equals_int (stat_u64 (pipeline, "joiner", "join-echoed"),
      join_check ? 1 : 0);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_START_TEST (test_join_check)
{
  run_join (TRUE);
  run_join (FALSE);
}

GST_END_TEST;

/* A BYE for member 2 from a socket that is not member 2's, and one for a
 * non-member: counted, member 2 stays. The same BYE from member 2's
 * address removes it. */
GST_START_TEST (test_forged_bye_refused)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=%s allow-join=false caps=\"" RTP_CAPS "\"", p1, members);
  GstElement *pipeline = launch (desc);
  GSocket *stranger = g_socket_new (G_SOCKET_FAMILY_IPV4,
      G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, NULL);
  GSocket *as_member_2;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  WAIT_UNTIL (has_member (pipeline, 2), 5);
  fail_unless (has_member (pipeline, 2));

  send_bye (stranger, p1, 2);
  send_bye (stranger, p1, 77);
  WAIT_UNTIL (stat_u64 (pipeline, "src", "bye-refused") >= 2, 5);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "bye-refused"), 2);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "forged"), 1);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "non-member"), 1);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "bye-received"), 0);
  fail_unless (has_member (pipeline, 2));

  as_member_2 = bound_udp_socket (p2);
  send_bye (as_member_2, p1, 2);
  WAIT_UNTIL (!has_member (pipeline, 2), 5);
  fail_if (has_member (pipeline, 2));
  fail_unless_equals_int (stat_u64 (pipeline, "src", "bye-received"), 1);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "bye-refused"), 2);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_object_unref (stranger);
  g_object_unref (as_member_2);
  g_free (desc);
  g_free (members);
}

GST_END_TEST;

static void
on_bitrate (GObject * obj, GParamSpec * pspec, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
}

GST_START_TEST (test_bitrate_and_layer_rates)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  /* No application-limited bound: with it, a first receipt measured at the
   * pacing rate (the harness stalled, MQ drained a backlog at S) would hold
   * D at initial-rate for good, a correct but eventless outcome. */
  gchar *desc = g_strdup_printf ("tpsssink port=%u member-id=1 members=%s "
      "initial-rate=2000000 min-report-interval=50000000 app-limit-factor=0",
      p1, members);
  gchar *rdesc = g_strdup_printf ("tpsssrc name=src port=%u member-id=2 "
      "members=%s caps=\"" RTP_CAPS "\" ! fakesink sync=false async=false",
      p2, members);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *recv = launch (rdesc);
  GstElement *sink = gst_harness_find_element (h, "tpsssink");
  gint notifies = 0;
  guint first_rate = 0, last = 0, n_events = 0, bitrate = 0;
  GstEvent *ev;

  g_signal_connect (sink, "notify::bitrate", G_CALLBACK (on_bitrate),
      &notifies);
  fail_unless (gst_element_set_state (recv, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  gst_harness_set_src_caps_str (h, "application/x-rtp,media=audio,"
      "clock-rate=8000,encoding-name=L16,channels=1,payload=96");
  gst_harness_play (h);

  /* About 800 kbit/s of RTP for 3 s (longer, up to 12 s, on a loaded
   * machine, until a second rate came): the receiver measures it and, the
   * receipt being complete, assigns its receive rate (end of the redundant
   * phase), which becomes the encoder's rate. */
  for (guint i = 0; i < 2400 && (i < 600 || n_events < 2); i++) {
    GstBuffer *buf = gst_rtp_buffer_new_allocate (500, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    gst_rtp_buffer_set_seq (&rtp, i);
    gst_rtp_buffer_set_timestamp (&rtp, i * 40);
    memset (gst_rtp_buffer_get_payload (&rtp), 0, 500);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    g_usleep (5000);
    while ((ev = gst_harness_try_pull_upstream_event (h))) {
      const GstStructure *s = gst_event_get_structure (ev);
      if (s && gst_structure_has_name (s, "GstLayerRates")) {
        const GValue *v = gst_structure_get_value (s, "layer-rates");
        fail_unless_equals_int (gst_value_array_get_size (v), 1);
        last = g_value_get_int (gst_value_array_get_value (v, 0));
        if (n_events++ == 0)
          first_rate = last;
      }
      gst_event_unref (ev);
    }
  }
  g_object_get (sink, "bitrate", &bitrate, NULL);
  fail_unless (n_events >= 2, "%u layer-rates events", n_events);
  fail_unless_equals_int (first_rate, 2000000);
  fail_unless (last != first_rate, "rate never changed from %u",
      first_rate);
  fail_unless_equals_int (bitrate, last);
  fail_unless (g_atomic_int_get (&notifies) >= 2, "%d notifies", notifies);

  gst_element_set_state (recv, GST_STATE_NULL);
  gst_object_unref (recv);
  gst_object_unref (sink);
  gst_harness_teardown (h);
  g_free (desc);
  g_free (rdesc);
  g_free (members);
}

GST_END_TEST;

GST_START_TEST (test_malformed_and_forged_control)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=%s allow-join=false caps=\"" RTP_CAPS "\"", p1, members);
  GstElement *pipeline = launch (desc);
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  guint8 pkt[TPSS_MSG_MAX_SIZE + 8];
  TpssMsg msg = { 0, };
  gsize len;
  guint8 garbage[] = { 0x00, 0x11, 0x22 };
  guint8 bad_rtcp[] = { 0x81, 204, 0x00, 0x20, 0, 0, 0, 2, 'T', 'P', 'S',
    'S'
  };                            /* length beyond the data */
  guint8 short_app[16] = { 0x81, 204, 0x00, 0x03, 0, 0, 0, 2, 'T', 'P', 'S',
    'S', 0, 0, 0, 2
  };                            /* ours, too short for a QOS */
  guint8 bad_rtp[] = { 0x90, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2 };  /* X, no ext */

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  member_send_bytes (sock, p1, garbage, sizeof (garbage));
  member_send_bytes (sock, p1, bad_rtcp, sizeof (bad_rtcp));
  member_send_bytes (sock, p1, short_app, sizeof (short_app));
  member_send_bytes (sock, p1, bad_rtp, sizeof (bad_rtp));

  /* Member 2's id from our test socket's address: forged. */
  msg.type = TPSS_MSG_HELLO;
  msg.sender_ssrc = msg.media_ssrc = 2;
  msg.u.hello.ntp = 1;
  msg.u.hello.member_id = 2;
  len = tpss_msg_write (&msg, pkt);
  member_send_bytes (sock, p1, pkt, len);
  /* A RATE claiming member 2, also forged. */
  memset (&msg, 0, sizeof (msg));
  msg.type = TPSS_MSG_RATE;
  msg.sender_ssrc = 2;
  msg.media_ssrc = 1;
  msg.u.rate.rate = 1;
  msg.u.rate.seq = 99;
  len = tpss_msg_write (&msg, pkt);
  member_send_bytes (sock, p1, pkt, len);
  /* An id that is not a member (and joining is off). */
  msg.sender_ssrc = 77;
  len = tpss_msg_write (&msg, pkt);
  member_send_bytes (sock, p1, pkt, len);
  msg.type = TPSS_MSG_HELLO;
  msg.sender_ssrc = msg.media_ssrc = 78;
  msg.u.hello.member_id = 78;
  len = tpss_msg_write (&msg, pkt);
  member_send_bytes (sock, p1, pkt, len);
  /* Data from a non-member. */
  {
    guint8 rtp[20] = { 0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 77 };
    member_send_bytes (sock, p1, rtp, sizeof (rtp));
  }

  WAIT_UNTIL (stat_u64 (pipeline, "src", "non-member") >= 3, 5);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "malformed"), 4);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "forged"), 2);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "non-member"), 3);
  fail_unless_equals_int (stat_u64 (pipeline, "src", "control-received"), 0);
  {
    /* No member was added by any of them. */
    GstStructure *s = get_stats (pipeline, "src");
    fail_unless (member_stats (s, 77) == NULL);
    fail_unless (member_stats (s, 78) == NULL);
    gst_structure_free (s);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_object_unref (sock);
  g_free (desc);
  g_free (members);
}

GST_END_TEST;

GST_START_TEST (test_modes_configurable)
{
  guint p1 = free_udp_port ();
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:1,3@127.0.0.1:2 "
      "control=feedback delivery=fair slow-start=traditional "
      "priorities=2:5,3:1 max-receive-rate=3000000", p1, p1);
  GstElement *pipeline = launch (desc);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  gint control, delivery, slow;
  guint64 mrr;
  GstStructure *s;
  const GstStructure *ms;
  guint prio = 0;
  gchar *phase = NULL;

  g_object_get (src, "control", &control, "delivery", &delivery,
      "slow-start", &slow, "max-receive-rate", &mrr, NULL);
  fail_unless_equals_int (control, TPSS_CONTROL_FEEDBACK);
  fail_unless_equals_int (delivery, TPSS_DELIVERY_FAIR);
  fail_unless_equals_int (slow, TPSS_SLOW_START_TRADITIONAL);
  fail_unless_equals_uint64 (mrr, 3000000);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  s = get_stats (pipeline, "src");
  ms = member_stats (s, 2);
  fail_unless (ms != NULL);
  gst_structure_get_uint (ms, "priority", &prio);
  fail_unless_equals_int (prio, 5);
  /* Traditional: no redundant phase, no parity. */
  fail_unless (gst_structure_get (ms, "send-phase", G_TYPE_STRING, &phase,
          NULL));
  fail_unless_equals_string (phase, "non-redundant");
  g_free (phase);
  gst_structure_free (s);

  /* Priorities change while PLAYING. */
  g_object_set (src, "priorities", "2:1,3:9", NULL);
  s = get_stats (pipeline, "src");
  gst_structure_get_uint (member_stats (s, 3), "priority", &prio);
  fail_unless_equals_int (prio, 9);
  gst_structure_free (s);

  /* So do members: 3 leaves, 4 joins. */
  g_object_set (src, "members", "2@127.0.0.1:1,4@127.0.0.1:3", NULL);
  s = get_stats (pipeline, "src");
  fail_unless (member_stats (s, 3) == NULL);
  fail_unless (member_stats (s, 4) != NULL);
  gst_structure_free (s);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

static void
expect_failure (const gchar * desc, const gchar * needle)
{
  GstElement *pipeline = launch (desc);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (pipeline != NULL);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for %s", desc);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, needle) != NULL, "\"%s\" lacks \"%s\"",
      err->message, needle);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_bad_properties)
{
  expect_failure ("tpsssrc members=1@127.0.0.1:5004,x@y", "bad member");
  expect_failure ("tpsssrc members=1@127.0.0.1", "expected id@host:port");
  expect_failure ("fakesrc ! tpsssink priorities=2-5", "bad priority");
  expect_failure ("tpsssrc address=not-an-ip port=0", "not an IP address");
  /* Every entry names what is wrong. */
  expect_failure ("tpsssrc members=1@127.0.0.1:70000", "port must be 1..65535");
  expect_failure ("tpsssrc members=1@127.0.0.1:5004,2@no-such-host.invalid:5006",
      "member \"2@no-such-host.invalid:5006\"");
  /* More members than a group holds (the core would ignore the rest). */
  {
    GString *desc = g_string_new ("tpsssrc member-id=100 members=");
    for (guint i = 1; i <= 65; i++)
      g_string_append_printf (desc, "%s%u@127.0.0.1:%u", i > 1 ? "," : "", i,
          6000 + i);
    expect_failure (desc->str, "too many members: 65");
    g_string_free (desc, TRUE);
    desc = g_string_new ("tpsssrc member-id=100 members=");
    for (guint i = 1; i <= 64; i++)
      g_string_append_printf (desc, "%s%u@127.0.0.1:%u", i > 1 ? "," : "", i,
          6000 + i);
    expect_failure (desc->str, "too many members: 64 besides this one");
    g_string_free (desc, TRUE);
  }
}

GST_END_TEST;

/* The same id twice is refused, naming the id, whatever the addresses. */
GST_START_TEST (test_duplicate_member_ids)
{
  GstElement *src;
  GError *err = NULL;
  gchar *members = NULL;

  expect_failure ("tpsssrc members=1@127.0.0.1:5004,1@127.0.0.1:5006",
      "duplicate member id 1");
  expect_failure ("fakesrc ! tpsssink members=3@127.0.0.1:5004,2,3",
      "duplicate member id 3");
  expect_failure ("tpsssrc members=5@127.0.0.1:5004,5@127.0.0.1:5004",
      "duplicate member id 5");

  src = gst_element_factory_make ("tpsssrc", NULL);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "tpss://127.0.0.1:5004?members=1@127.0.0.1:5004,1@127.0.0.1:5006",
          &err));
  fail_unless (err && strstr (err->message, "duplicate member id 1"), "%s",
      err ? err->message : "no error");
  g_clear_error (&err);
  /* Nothing of the refused URI was applied. */
  g_object_get (src, "members", &members, NULL);
  fail_unless (members == NULL, "members became %s", members);
  gst_object_unref (src);
}

GST_END_TEST;

/* While PLAYING, a list with a duplicate is refused as a whole: the session
 * and the property keep the previous list. */
GST_START_TEST (test_duplicate_members_while_playing)
{
  guint p1 = free_udp_port ();
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:1", p1, p1);
  GstElement *pipeline = launch (desc);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GstStructure *s;
  gchar *members = NULL, *expect = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:1", p1);
  GError *err = NULL;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_object_set (src, "members", "4@127.0.0.1:3,4@127.0.0.1:4", NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "duplicate member id 4") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  g_object_get (src, "members", &members, NULL);
  fail_unless_equals_string (members, expect);
  s = get_stats (pipeline, "src");
  fail_unless (member_stats (s, 2) != NULL);
  fail_unless (member_stats (s, 4) == NULL);
  gst_structure_free (s);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_free (members);
  g_free (expect);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_uri_round_trip)
{
  const gchar *uri = "tpss://127.0.0.1:5004?member-id=7&"
      "members=7@127.0.0.1:5004,8@127.0.0.1:5006&control=feedback&"
      "max-receive-rate=5000000&priorities=8:3";
  GError *err = NULL;
  GstElement *sink = gst_element_make_from_uri (GST_URI_SINK, uri, NULL, &err);
  GstElement *src, *again;
  gchar *members, *back, *back2, *address;
  guint id;
  gint port, control;
  guint64 mrr;

  fail_unless (sink != NULL, "%s", err ? err->message : "");
  fail_unless_equals_string (G_OBJECT_TYPE_NAME (sink), "GstTpssSink");
  g_object_get (sink, "member-id", &id, "members", &members, "port", &port,
      "address", &address, "control", &control, "max-receive-rate", &mrr,
      NULL);
  fail_unless_equals_int (id, 7);
  fail_unless_equals_int (port, 5004);
  fail_unless_equals_string (address, "127.0.0.1");
  fail_unless_equals_string (members, "7@127.0.0.1:5004,8@127.0.0.1:5006");
  fail_unless_equals_int (control, TPSS_CONTROL_FEEDBACK);
  fail_unless_equals_uint64 (mrr, 5000000);

  /* get_uri and back gives the same member. */
  back = gst_uri_handler_get_uri (GST_URI_HANDLER (sink));
  again = gst_element_make_from_uri (GST_URI_SRC, back, NULL, &err);
  fail_unless (again != NULL, "%s: %s", back, err ? err->message : "");
  back2 = gst_uri_handler_get_uri (GST_URI_HANDLER (again));
  fail_unless_equals_string (back, back2);
  g_free (members);
  g_object_get (again, "members", &members, "member-id", &id, NULL);
  fail_unless_equals_string (members, "7@127.0.0.1:5004,8@127.0.0.1:5006");
  fail_unless_equals_int (id, 7);

  /* Bad URIs fail with a message. */
  src = gst_element_factory_make ("tpsssrc", NULL);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "tpss://127.0.0.1:5004?bogus=1", &err));
  fail_unless (strstr (err->message, "unknown parameter") != NULL);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "tpss://127.0.0.1:5004?members=abc", &err));
  fail_unless (strstr (err->message, "bad member") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "tpss://127.0.0.1:5004?port=notanumber", &err));
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "udp://127.0.0.1:5004", &err));
  g_clear_error (&err);

  gst_object_unref (src);
  gst_object_unref (again);
  gst_object_unref (sink);
  g_free (members);
  g_free (address);
  g_free (back);
  g_free (back2);
}

GST_END_TEST;

static void
send_pli (GSocket * sock, guint port, guint32 sender, guint32 media)
{
  guint8 pli[RTCP_PLI_SIZE];

  fail_unless_equals_int (rtcp_pli_write (pli, sizeof (pli), sender, media),
      RTCP_PLI_SIZE);
  member_send_bytes (sock, port, pli, sizeof (pli));
}

/* Pulls the upstream events that reached the harness; counts the
 * force-key-unit ones (all-headers set). */
static guint
pull_force_key_units (GstHarness * h)
{
  GstEvent *ev;
  guint n = 0;

  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    const GstStructure *s = gst_event_get_structure (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM &&
        gst_structure_has_name (s, "GstForceKeyUnit")) {
      gboolean all_headers = FALSE;
      fail_unless (gst_structure_get_boolean (s, "all-headers",
              &all_headers));
      fail_unless (all_headers);
      n++;
    }
    gst_event_unref (ev);
  }
  return n;
}

/* The force-key-unit events that reached the harness once @want came (or
 * after 5 s): the sink counts a request before it pushes the event. */
static guint
wait_force_key_units (GstHarness * h, guint want)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  guint n = pull_force_key_units (h);

  while (n < want && g_get_monotonic_time () < end) {
    g_usleep (10000);
    n += pull_force_key_units (h);
  }
  return n;
}

static guint64
element_stat (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint64 (s, field, &v);
  gst_structure_free (s);
  return v;
}

/* The hold-off of test_pli_becomes_force_key_unit: long enough that the
 * repeat reaches the sink inside it on a loaded host. */
#define PLI_HOLDOFF (2 * GST_SECOND)

GST_START_TEST (test_pli_becomes_force_key_unit)
{
  guint p1 = free_udp_port (), p2, p3;
  GSocket *peer = check_udp_socket_local (&p2), *forger = check_udp_socket_local (&p3);
  gchar *desc = g_strdup_printf ("tpsssink port=%u member-id=1 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u allow-join=false "
      "key-unit-holdoff=%" G_GUINT64_FORMAT, p1, p1, p2, PLI_HOLDOFF);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *sink = gst_harness_find_element (h, "tpsssink");
  guint8 short_pli[8] = { 0x81, 206, 0x00, 0x01, 0, 0, 0, 2 };
  guint64 holdoff = 0;
  gint64 first_at, wait;

  g_object_get (sink, "key-unit-holdoff", &holdoff, NULL);
  fail_unless_equals_uint64 (holdoff, PLI_HOLDOFF);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  gst_harness_play (h);

  /* Member 2 asks for a key unit: one request goes upstream. */
  send_pli (peer, p1, 2, 1);
  WAIT_UNTIL (element_stat (sink, "pli-received") == 1, 5);
  WAIT_UNTIL (element_stat (sink, "key-unit-requests") == 1, 5);
  /* the hold-off started before this */
  first_at = g_get_monotonic_time ();
  fail_unless_equals_int (wait_force_key_units (h, 1), 1);

  /* Again at once: within the hold-off, ignored. */
  send_pli (peer, p1, 2, 1);
  WAIT_UNTIL (element_stat (sink, "pli-ignored") == 1, 5);
  fail_unless_equals_uint64 (element_stat (sink, "pli-ignored"), 1);
  fail_unless_equals_uint64 (element_stat (sink, "key-unit-requests"), 1);

  /* Member 2's id from another address, a non-member, a PLI about another
   * stream, and a PLI too short to hold its SSRCs: dropped. */
  send_pli (forger, p1, 2, 1);
  send_pli (peer, p1, 77, 1);
  send_pli (peer, p1, 2, 9);
  member_send_bytes (peer, p1, short_pli, sizeof (short_pli));
  WAIT_UNTIL (element_stat (sink, "pli-dropped") == 3 &&
      element_stat (sink, "malformed") == 1, 5);
  fail_unless_equals_uint64 (element_stat (sink, "pli-dropped"), 3);
  fail_unless_equals_uint64 (element_stat (sink, "forged"), 1);
  fail_unless_equals_uint64 (element_stat (sink, "non-member"), 1);
  fail_unless_equals_uint64 (element_stat (sink, "malformed"), 1);
  fail_unless_equals_uint64 (element_stat (sink, "pli-received"), 2);
  fail_unless_equals_int (pull_force_key_units (h), 0);

  /* After the hold-off a PLI asks again. */
  wait = first_at + PLI_HOLDOFF / GST_USECOND - g_get_monotonic_time ();
  if (wait > 0)
    g_usleep (wait + 20 * 1000);
  send_pli (peer, p1, 2, 1);
  WAIT_UNTIL (element_stat (sink, "key-unit-requests") == 2, 5);
  fail_unless_equals_uint64 (element_stat (sink, "key-unit-requests"), 2);
  fail_unless_equals_uint64 (element_stat (sink, "pli-received"), 3);
  fail_unless_equals_int (wait_force_key_units (h, 1), 1);
  check_stats_documented (sink);

  gst_object_unref (sink);
  gst_harness_teardown (h);
  g_object_unref (peer);
  g_object_unref (forger);
  g_free (desc);
}

GST_END_TEST;

/* One RTP packet of time @ts for the harness: the first of a key unit
 * without DELTA_UNIT, the last of a frame with the marker bit. */
static GstBuffer *
frame_packet (guint16 seq, guint32 ts, gboolean key_start, gboolean last)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (400, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_marker (&rtp, last);
  memset (gst_rtp_buffer_get_payload (&rtp), seq & 0xff, 400);
  gst_rtp_buffer_unmap (&rtp);
  if (!key_start)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  return buf;
}

/* key-unit-parity=2: a key unit of three packets (the first without
 * DELTA_UNIT) gets two parity packets of its own toward the member, one
 * after its first two packets and one after its last; frames of delta
 * units get none. */
GST_START_TEST (test_key_unit_parity)
{
  guint p1 = free_udp_port (), p2;
  GSocket *peer = check_udp_socket_local (&p2);
  gchar *desc = g_strdup_printf ("tpsssink port=%u member-id=1 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u allow-join=false "
      "initial-rate=2000000 key-unit-parity=2", p1, p1, p2);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *sink = gst_harness_find_element (h, "tpsssink");
  guint parity = 0;
  guint16 seq = 0;

  g_object_get (sink, "key-unit-parity", &parity, NULL);
  fail_unless_equals_int (parity, 2);
  gst_harness_set_src_caps_str (h, RTP_CAPS ",payload=96");
  gst_harness_play (h);

  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, frame_packet (seq++, 0,
                i == 0, i == 2)), GST_FLOW_OK);
  for (guint f = 1; f <= 4; f++)
    for (guint i = 0; i < 3; i++)
      fail_unless_equals_int (gst_harness_push (h, frame_packet (seq++,
                  160 * f, FALSE, i == 2)), GST_FLOW_OK);
  WAIT_UNTIL (element_stat (sink, "packets-sent") == 15, 5);
  fail_unless_equals_uint64 (element_stat (sink, "packets-sent"), 15);
  fail_unless_equals_uint64 (member_stat_u64 (sink, 2, "key-parity-sent"), 2);
  check_stats_documented (sink);

  gst_object_unref (sink);
  gst_harness_teardown (h);
  g_object_unref (peer);
  g_free (desc);
}

GST_END_TEST;

/* Waits up to 5 s for a PLI on @sock (other datagrams skipped). */
static gboolean
recv_pli (GSocket * sock, guint32 * sender, guint32 * media)
{
  gint64 end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  guint8 buf[1500];

  while (g_get_monotonic_time () < end) {
    gssize n;
    if (!g_socket_condition_timed_wait (sock, G_IO_IN,
            end - g_get_monotonic_time (), NULL, NULL))
      return FALSE;
    n = g_socket_receive (sock, (gchar *) buf, sizeof (buf), NULL, NULL);
    if (n > 0 && rtcp_pli_parse (buf, n, sender, media))
      return TRUE;
  }
  return FALSE;
}

static void
send_rtp (GSocket * sock, guint port, guint32 ssrc, guint16 seq)
{
  guint8 rtp[12 + 160] = { 0x80, 96, };

  GST_WRITE_UINT16_BE (rtp + 2, seq);
  GST_WRITE_UINT32_BE (rtp + 4, seq * 160);
  GST_WRITE_UINT32_BE (rtp + 8, ssrc);
  member_send_bytes (sock, port, rtp, sizeof (rtp));
}

GST_START_TEST (test_src_sends_pli)
{
  guint p1 = free_udp_port (), p2;
  GSocket *peer = check_udp_socket_local (&p2);
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=%s caps=\"" RTP_CAPS "\"", p1, members);
  Member m;
  GstElement *src;
  GstPad *pad;
  guint32 sender = 0, media = 0;

  memset (&m, 0, sizeof (m));
  g_mutex_init (&m.lock);
  m.pipeline = launch (desc);
  src = gst_bin_get_by_name (GST_BIN (m.pipeline), "src");
  g_signal_connect (src, "pad-added", G_CALLBACK (on_pad_added), &m);
  fail_unless (gst_element_set_state (m.pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  /* Member 2's stream starts: member 1 asks it for a key unit. */
  for (guint i = 0; i < 10; i++)
    send_rtp (peer, p1, 2, i);
  fail_unless (recv_pli (peer, &sender, &media), "no PLI at the start");
  fail_unless_equals_int (sender, 1);
  fail_unless_equals_int (media, 2);
  WAIT_UNTIL (locked_read (&m, &m.buffers) >= 10, 5);
  fail_unless_equals_int (locked_read (&m, &m.pads_added), 1);

  /* The depayloader asks for a key unit on member 2's pad: a PLI to 2. */
  pad = gst_element_get_static_pad (src, "src_2");
  fail_unless (pad != NULL);
  /* What gst_video_event_new_upstream_force_key_unit() makes. */
  fail_unless (gst_pad_send_event (pad,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("GstForceKeyUnit", "running-time",
                  GST_TYPE_CLOCK_TIME, GST_CLOCK_TIME_NONE, "all-headers",
                  G_TYPE_BOOLEAN, TRUE, "count", G_TYPE_UINT, 1, NULL))));
  sender = media = 0;
  fail_unless (recv_pli (peer, &sender, &media), "no PLI for the request");
  fail_unless_equals_int (sender, 1);
  fail_unless_equals_int (media, 2);
  fail_unless_equals_uint64 (element_stat (src, "pli-sent"), 2);
  gst_object_unref (pad);
  check_stats_documented (src);

  gst_element_set_state (m.pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (m.pipeline);
  g_object_unref (peer);
  g_free (desc);
  g_free (members);
}

GST_END_TEST;

/* Issue 16: a joiner's pad-added handlers, each building a decoder branch
 * (36 ms median, up to 2.4 s), ran on its session's thread, which meanwhile
 * read and sent nothing and ran its reports up to 2.5 s late. A handler
 * that blocks now holds up its own pad's stream only. */
#define SLOW_PAD_ADDED_US (1500 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  Member m;
  guint64 control_before, control_after;        /* under m.lock */
} SlowLink;

static void
on_pad_added_slowly (GstElement * src, GstPad * pad, gpointer data)
{
  SlowLink *s = data;
  guint64 before = element_stat (src, "control-sent"), after;

  g_usleep (SLOW_PAD_ADDED_US);
  after = element_stat (src, "control-sent");
  g_mutex_lock (&s->m.lock);
  s->control_before = before;
  s->control_after = after;
  g_mutex_unlock (&s->m.lock);
  on_pad_added (src, pad, &s->m);
}

GST_START_TEST (test_slow_pad_added_keeps_session_running)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  /* a report interval a loaded machine does not overrun by itself */
  const gchar *extra = "min-report-interval=300000000";
  Member a;
  SlowLink b = { 0 };
  GstElement *src;
  guint64 before, after;

  member_start (&a, 1, p1, members, extra);
  member_run_with (&b.m, member_launch (2, p2, members, extra, -1),
      G_CALLBACK (on_pad_added_slowly), &b);

  WAIT_UNTIL (locked_read (&b.m, &b.m.buffers) >= 20, 10);
  fail_unless (locked_read (&b.m, &b.m.buffers) >= 20, "member 2 got %u",
      b.m.buffers);
  g_mutex_lock (&b.m.lock);
  before = b.control_before;
  after = b.control_after;
  g_mutex_unlock (&b.m.lock);
  fail_unless (after > before, "member 2's session sent no control packet "
      "in the %d ms its pad-added handler took (%" G_GUINT64_FORMAT ")",
      (gint) (SLOW_PAD_ADDED_US / 1000), before);
  src = gst_bin_get_by_name (GST_BIN (b.m.pipeline), "src");
  fail_unless_equals_uint64 (member_stat_u64 (src, 1, "late-reports"), 0);
  gst_object_unref (src);

  member_stop (&a);
  member_stop (&b.m);
  g_free (members);
}

GST_END_TEST;

#ifdef SLOWLOAD_PATH
/* Issue 16: a member's leaving handed its pad's removal to GStreamer's
 * thread pool from the session thread. Making a pool thread waits while
 * another thread of the process loads a library (glibc's loader lock),
 * which a pad-added handler loading its decoder's plugin does: the session
 * then read and sent nothing. Here a helper library holds the lock while
 * member 1 says BYE, until the test opens its gate: the lock is held for as
 * long as the test checks, however slow the host, not for a fixed time. */
#define SLOW_LOAD_WATCHDOG_S 30
#define SLOW_LOAD_REPORT_INTERVAL (300 * GST_MSECOND)

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean done;                /* under lock: the test opened the gate */
  gboolean timed_out;           /* under lock: the watchdog opened it */
  gint gate;                    /* the test's end of the library's gate */
  GThread *loader, *watchdog;
} SlowLoad;

static gpointer
slow_load_thread (gpointer data)
{
  void *lib = dlopen (SLOWLOAD_PATH, RTLD_NOW | RTLD_LOCAL);

  if (!lib)
    GST_ERROR ("%s", dlerror ());
  return lib;
}

/* Opens the gate if the test has not within SLOW_LOAD_WATCHDOG_S: a test
 * stuck behind the lock then fails instead of hanging. */
static gpointer
slow_load_watchdog (gpointer data)
{
  SlowLoad *sl = data;
  gint64 end = g_get_monotonic_time () +
      SLOW_LOAD_WATCHDOG_S * G_USEC_PER_SEC;

  g_mutex_lock (&sl->lock);
  while (!sl->done && g_cond_wait_until (&sl->cond, &sl->lock, end));
  if (!sl->done) {
    sl->timed_out = TRUE;
    if (write (sl->gate, "w", 1) != 1)
      GST_ERROR ("the watchdog could not open the gate");
  }
  g_mutex_unlock (&sl->lock);
  return NULL;
}

/* Starts the load (and the watchdog first: the load would hold up its
 * creation); returns once the library's resolver holds the loader lock,
 * which it says on the gate. */
static void
slow_load_start (SlowLoad * sl)
{
  gint fds[2];
  gchar byte;
  GPollFD pfd;

  memset (sl, 0, sizeof (*sl));
  g_mutex_init (&sl->lock);
  g_cond_init (&sl->cond);
  fail_unless (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  fail_unless (dup2 (fds[1], SLOWLOAD_GATE_FD) == SLOWLOAD_GATE_FD);
  close (fds[1]);
  sl->gate = fds[0];
  sl->watchdog = g_thread_new ("slow-load-watchdog", slow_load_watchdog, sl);
  sl->loader = g_thread_new ("slow-load", slow_load_thread, sl);
  pfd.fd = sl->gate;
  pfd.events = G_IO_IN;
  fail_unless (g_poll (&pfd, 1, 10000) == 1 && read (sl->gate, &byte,
          1) == 1, "the helper library's resolver did not start");
}

/* Opens the gate, waits for the load; whether the library loaded and the
 * lock was held until the test opened the gate. */
static gboolean
slow_load_finish (SlowLoad * sl, gboolean * held)
{
  gboolean loaded;

  g_mutex_lock (&sl->lock);
  sl->done = TRUE;
  *held = !sl->timed_out;
  g_cond_broadcast (&sl->cond);
  g_mutex_unlock (&sl->lock);
  if (write (sl->gate, "o", 1) != 1)
    GST_ERROR ("could not open the gate");
  loaded = g_thread_join (sl->loader) != NULL;
  g_thread_join (sl->watchdog);
  close (SLOWLOAD_GATE_FD);
  close (sl->gate);
  g_mutex_clear (&sl->lock);
  g_cond_clear (&sl->cond);
  return loaded;
}

GST_START_TEST (test_leave_while_plugin_loads_keeps_session_running)
{
  guint p1, p2 = free_udp_port (), p3 = free_udp_port ();
  GSocket *peer = check_udp_socket_local (&p1);
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u,"
      "3@127.0.0.1:%u", p1, p2, p3);
  gchar *extra = g_strdup_printf ("min-report-interval=%" G_GUINT64_FORMAT,
      SLOW_LOAD_REPORT_INTERVAL);
  Member b, c;
  SlowLoad sl;
  GstElement *src;
  guint64 byes, at_bye, after, late, stall;
  gboolean held;

  member_start (&b, 2, p2, members, extra);
  member_start (&c, 3, p3, members, extra);
  for (guint i = 0; i < 10; i++)
    send_rtp (peer, p2, 1, i);
  WAIT_UNTIL (locked_read (&b, &b.pads_added) == 2, 10);
  fail_unless_equals_int (locked_read (&b, &b.pads_added), 2);
  src = gst_bin_get_by_name (GST_BIN (b.pipeline), "src");

  /* the lock held from here until slow_load_finish */
  slow_load_start (&sl);
  send_bye (peer, p2, 1);
  WAIT_UNTIL (element_stat (src, "bye-received") == 1, 10);
  byes = element_stat (src, "bye-received");
  at_bye = element_stat (src, "control-sent");
  WAIT_UNTIL (element_stat (src, "control-sent") > at_bye, 10);
  after = element_stat (src, "control-sent");
  fail_unless (slow_load_finish (&sl, &held),
      "the helper library did not load");
  fail_unless (held, "the loader lock was released by the watchdog: the "
      "checks took %d s", SLOW_LOAD_WATCHDOG_S);
  fail_unless_equals_uint64 (byes, 1);
  fail_unless (after > at_bye, "member 2's session sent no control packet "
      "after member 1's BYE while a library loaded (%" G_GUINT64_FORMAT
      " before, 10 s)", at_bye);

  /* The pad still goes, after its EOS. */
  WAIT_UNTIL (locked_read (&b, &b.pads_removed) == 1, 5);
  fail_unless_equals_int (locked_read (&b, &b.pads_removed), 1);
  fail_unless_equals_int (locked_read (&b, &b.eos), 1);
  /* no report to member 3 ran late, unless the host held the loop's
   * thread off the CPU for a report interval (the loop counts that) */
  late = member_stat_u64 (src, 3, "late-reports");
  stall = element_stat (src, "loop-late-max");
  fail_unless (late == 0 || stall >= SLOW_LOAD_REPORT_INTERVAL, "%"
      G_GUINT64_FORMAT " late reports to member 3, the loop's longest stall %"
      G_GUINT64_FORMAT " ns", late, stall);
  gst_object_unref (src);

  member_stop (&c);
  member_stop (&b);
  g_object_unref (peer);
  g_free (members);
  g_free (extra);
}

GST_END_TEST;
#endif

/* A member says BYE while its pad's pad-added handler still runs, then
 * sends again: its old pad ends and goes before its new pad, of the same
 * name, is added (on main the new pad's add raced the old one's removal:
 * "Padname src_1 is not unique"). */
typedef struct
{
  Member m;
  guint in_handler;             /* under m.lock */
} Rejoin;

static void
on_first_pad_added_slowly (GstElement * src, GstPad * pad, gpointer data)
{
  Rejoin *r = data;
  gboolean first;

  g_mutex_lock (&r->m.lock);
  first = r->m.pads_added == 0;
  r->in_handler = first;
  g_mutex_unlock (&r->m.lock);
  if (first)
    g_usleep (800 * G_TIME_SPAN_MILLISECOND);
  on_pad_added (src, pad, &r->m);
}

GST_START_TEST (test_member_back_before_its_pad_went)
{
  guint p1, p2 = free_udp_port ();
  GSocket *peer = check_udp_socket_local (&p1);
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  Rejoin r = { 0 };
  GstElement *src;

  member_run_with (&r.m, member_launch (2, p2, members, "", -1),
      G_CALLBACK (on_first_pad_added_slowly), &r);
  for (guint i = 0; i < 10; i++)
    send_rtp (peer, p2, 1, i);
  WAIT_UNTIL (locked_read (&r.m, &r.in_handler), 5);
  fail_unless (locked_read (&r.m, &r.in_handler));
  send_bye (peer, p2, 1);
  g_usleep (100 * G_TIME_SPAN_MILLISECOND);
  for (guint i = 10; i < 20; i++)
    send_rtp (peer, p2, 1, i);

  WAIT_UNTIL (locked_read (&r.m, &r.m.pads_added) == 2, 5);
  fail_unless_equals_int (locked_read (&r.m, &r.m.pads_added), 2);
  fail_unless_equals_int (locked_read (&r.m, &r.m.pads_removed), 1);
  fail_unless_equals_int (locked_read (&r.m, &r.m.eos), 1);
  src = gst_bin_get_by_name (GST_BIN (r.m.pipeline), "src");
  fail_unless_equals_int (src->numsrcpads, 1);
  fail_unless_equals_int (stat_u64 (r.m.pipeline, "src", "pads-removed"), 1);
  gst_object_unref (src);

  member_stop (&r.m);
  g_object_unref (peer);
  g_free (members);
}

GST_END_TEST;

/* A member's sink starts the session and receives a stream before the
 * member's src exists: the src still asks for a key unit when it comes. */
GST_START_TEST (test_src_after_sink_sends_pli)
{
  guint p1 = free_udp_port (), p2;
  GSocket *peer = check_udp_socket_local (&p2);
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *sdesc = g_strdup_printf ("tpsssink name=sink port=%u member-id=1 "
      "members=%s", p1, members);
  gchar *rdesc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=%s caps=\"" RTP_CAPS "\"", p1, members);
  GstElement *send = launch (sdesc), *recv = launch (rdesc), *sink;
  guint32 sender = 0, media = 0;

  fail_unless (gst_element_set_state (send, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sink = gst_bin_get_by_name (GST_BIN (send), "sink");
  for (guint i = 0; i < 5; i++)
    send_rtp (peer, p1, 2, i);
  WAIT_UNTIL (element_stat (sink, "data-received") == 5, 5);
  fail_unless_equals_uint64 (element_stat (sink, "data-received"), 5);
  /* Nobody receives the stream yet: no PLI. */
  fail_unless_equals_uint64 (element_stat (sink, "pli-sent"), 0);

  fail_unless (gst_element_set_state (recv, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 5; i < 10; i++)
    send_rtp (peer, p1, 2, i);
  fail_unless (recv_pli (peer, &sender, &media), "no PLI when the src came");
  fail_unless_equals_int (sender, 1);
  fail_unless_equals_int (media, 2);
  fail_unless_equals_uint64 (element_stat (sink, "pli-sent"), 1);

  gst_element_set_state (recv, GST_STATE_NULL);
  gst_element_set_state (send, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (recv);
  gst_object_unref (send);
  g_object_unref (peer);
  g_free (sdesc);
  g_free (rdesc);
  g_free (members);
}

GST_END_TEST;

/* gst-inspect-1.0 shows a user what they need: the stats fields (checked
 * with live stats in the PLI tests), an example and the URI syntax. */
/* With no periodic stats (stats-interval 0), tpsssink still posts one
 * `tpss-stats` message at EOS, after the drain: it counts every packet. */
GST_START_TEST (test_stats_posted_at_eos)
{
  gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=20 "
      "samplesperbuffer=160 ! audio/x-raw,rate=8000,channels=1 ! rtpL16pay ! "
      "tpsssink name=sink port=%u member-id=7", free_udp_port ());
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  guint64 sent = 0;
  guint stats = 0;

  fail_unless (pipeline != NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *st = gst_message_get_structure (msg);
    gboolean done = GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT;

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (!done && gst_structure_has_name (st, "tpss-stats")) {
      stats++;
      fail_unless (gst_structure_get_uint64 (st, "packets-sent", &sent));
    }
    gst_message_unref (msg);
    if (done)
      break;
  }
  fail_unless_equals_int (stats, 1);
  fail_unless_equals_uint64 (sent, 20);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_inspect_documents_usage)
{
  const gchar *names[] = { "tpsssink", "tpsssrc" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);
    const gchar *desc;
    GstElement *e;
    GParamSpec *pspec;

    fail_unless (f != NULL);
    desc = gst_element_factory_get_metadata (f,
        GST_ELEMENT_METADATA_DESCRIPTION);
    fail_unless (strstr (desc, "gst-launch-1.0 ") != NULL, "%s: %s",
        names[i], desc);
    fail_unless (strstr (desc, names[i]) != NULL, "%s: %s", names[i], desc);
    fail_unless (strstr (desc, "tpss://") != NULL, "%s: %s", names[i], desc);
    e = gst_element_factory_create (f, NULL);
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "stats");
    fail_if (strstr (g_param_spec_get_blurb (pspec), "see the element") !=
        NULL);
    gst_object_unref (e);
    gst_object_unref (f);
  }
}

GST_END_TEST;

static Suite *
tpsssink_suite (void)
{
  Suite *s = suite_create ("tpsssink");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_two_members_exchange);
  tcase_add_test (tc, test_member_timeout_removes_pad);
  tcase_add_test (tc, test_bye_removes_pad_at_once);
  tcase_add_test (tc, test_eos_sent_to_pipeline_ends_pads);
  tcase_add_test (tc, test_stats_read_while_session_released);
  tcase_add_test (tc, test_session_properties_set_while_session_released);
  tcase_add_test (tc, test_forged_bye_refused);
  tcase_add_test (tc, test_join_check);
  tcase_add_test (tc, test_bitrate_and_layer_rates);
  tcase_add_test (tc, test_malformed_and_forged_control);
  tcase_add_test (tc, test_modes_configurable);
  tcase_add_test (tc, test_bad_properties);
  tcase_add_test (tc, test_uri_round_trip);
  tcase_add_test (tc, test_duplicate_member_ids);
  tcase_add_test (tc, test_duplicate_members_while_playing);
  tcase_add_test (tc, test_pli_becomes_force_key_unit);
  tcase_add_test (tc, test_key_unit_parity);
  tcase_add_test (tc, test_src_sends_pli);
  tcase_add_test (tc, test_src_after_sink_sends_pli);
  tcase_add_test (tc, test_slow_pad_added_keeps_session_running);
#ifdef SLOWLOAD_PATH
  tcase_add_test (tc, test_leave_while_plugin_loads_keeps_session_running);
#endif
  tcase_add_test (tc, test_member_back_before_its_pad_went);
  tcase_add_test (tc, test_stats_posted_at_eos);
  tcase_add_test (tc, test_inspect_documents_usage);
  return s;
}

GST_CHECK_MAIN (tpsssink);
