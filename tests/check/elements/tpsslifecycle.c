/* tpsssrc through its life cycle, on loopback with ephemeral ports:
 * - the application's EOS reaching a tpsssrc that has no pad yet (no
 *   member sent) ends the pipeline with an error instead of leaving it
 *   waiting for an EOS no sink can get (gst-launch-1.0 -e on Ctrl-C);
 * - after that EOS no pad appears, and no-more-pads says so: a link by
 *   name to a member that never sent gets gst-launch's warning;
 * - `members` and `priorities` set while the element starts: whatever the
 *   interleaving with the start's re-apply, the last value set is the one
 *   the session runs with;
 * - the tpsssink that started a session stays alive, named by its loop,
 *   while a tpsssrc runs the session on after the sink went;
 * - after the last stop the stats count every turn the loop ran. */
#include <gst/check/gstcheck.h>
#include "checkutil.h"

#define START_ROUNDS 1000

/* A receive-only member 2 whose peers (members 1 and 3, on @peer_port)
 * never send; @link says where a pad would go (delayed linking, as
 * gst-launch-1.0 does it): "! fakesink" any pad, "src.src_3 ! fakesink"
 * member 3's. */
static GstElement *
receive_only_pipeline (guint port, guint peer_port, const gchar * link)
{
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=2 "
      "members=1@127.0.0.1:%u,2@127.0.0.1:%u,3@127.0.0.1:%u %s", port,
      peer_port, port, peer_port, link);
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

/* Plays @pipeline (no get_state: the fakesink never prerolls), checks
 * that no pad appeared, sends the application's EOS and returns the first
 * message of @types within 5 s, from @src. */
static GstMessage *
eos_without_pads (GstElement * pipeline, GstElement * src,
    GstMessageType types)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  g_usleep (200 * 1000);
  fail_unless_equals_int (pads_now (src), 0);
  fail_unless (gst_element_send_event (pipeline, gst_event_new_eos ()));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, types);
  gst_object_unref (bus);
  fail_unless (msg != NULL, "no message within 5 s of the EOS");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (src));
  return msg;
}

GST_START_TEST (test_eos_before_any_pad_ends_pipeline)
{
  GstElement *pipeline = receive_only_pipeline (free_udp_port (),
      free_udp_port (), "! fakesink");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstMessage *msg = eos_without_pads (pipeline, src,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  GError *err = NULL;

  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED),
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A sink linked by name to the pad of member 3, which never sends: after
 * the EOS no pad can appear, and no-more-pads lets gst_parse_launch's
 * delayed link say so (a warning naming the link) before the error. */
GST_START_TEST (test_eos_fails_named_link_to_silent_member)
{
  GstElement *pipeline = receive_only_pipeline (free_udp_port (),
      free_udp_port (), "src.src_3 ! fakesink");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstMessage *msg = eos_without_pads (pipeline, src, GST_MESSAGE_WARNING);
  GError *err = NULL;

  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR,
          GST_PARSE_ERROR_DELAYED_LINK), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Property sets racing the start */

typedef struct
{
  GstElement *src;
  guint port, peer_port;
  guint last_peer, last_priority;       /* the last values set */
  guint sets;
} Setter;

static gboolean
element_started (GstElement * e)
{
  GstState state;

  GST_OBJECT_LOCK (e);
  state = GST_STATE (e);
  GST_OBJECT_UNLOCK (e);
  return state >= GST_STATE_PAUSED;
}

/* The one member besides this one in @src's running session, with its
 * priority; FALSE if there is not exactly one. */
static gboolean
session_peer (GstElement * src, guint * id, guint * priority)
{
  GstStructure *st;
  const GValue *list;
  gboolean one;

  g_object_get (src, "stats", &st, NULL);
  list = gst_structure_get_value (st, "members");
  one = list && gst_value_list_get_size (list) == 1;
  if (one) {
    const GstStructure *ms =
        gst_value_get_structure (gst_value_list_get_value (list, 0));
    one = gst_structure_get_uint (ms, "id", id) &&
        gst_structure_get_uint (ms, "priority", priority);
  }
  gst_structure_free (st);
  return one;
}

/* Sets a new peer (its id in `members`, by name so that each apply
 * resolves it) and its priority, as fast as it can, from before the start
 * until a set reaches the running session at once (or the element has
 * started): that last set lands while the start applies what was set
 * during it. */
static gpointer
set_until_started (gpointer data)
{
  Setter *s = data;
  gboolean live = FALSE;

  do {
    guint peer = 2 + s->sets % 1000, priority = 1 + s->sets % 9, id = 0, p;
    gchar *members = g_strdup_printf ("1@127.0.0.1:%u,%u@localhost:%u",
        s->port, peer, s->peer_port);
    gchar *prio = g_strdup_printf ("%u:%u", peer, priority);

    g_object_set (s->src, "members", members, "priorities", prio, NULL);
    s->last_peer = peer;
    s->last_priority = priority;
    s->sets++;
    g_free (members);
    g_free (prio);
    live = session_peer (s->src, &id, &p) && id == peer;
  } while (!live && !element_started (s->src));
  return NULL;
}

GST_START_TEST (test_sets_racing_start_last_wins)
{
  Setter s = { 0, };
  guint sets = 0;

  s.port = free_udp_port ();
  s.peer_port = free_udp_port ();
  s.src = gst_element_factory_make ("tpsssrc", NULL);
  g_object_set (s.src, "port", s.port, "member-id", 1, NULL);
  gst_object_ref_sink (s.src);

  for (guint round = 0; round < START_ROUNDS; round++) {
    GThread *t = g_thread_new ("setter", set_until_started, &s);
    guint id = 0, priority = 0;

    fail_if (gst_element_set_state (s.src, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    g_thread_join (t);
    fail_unless (session_peer (s.src, &id, &priority),
        "round %u: not one peer in the session", round);
    fail_unless (id == s.last_peer && priority == s.last_priority,
        "round %u: the session runs with member %u priority %u, the last "
        "set was member %u priority %u", round, id, priority, s.last_peer,
        s.last_priority);
    fail_unless_equals_int (gst_element_set_state (s.src, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    sets += s.sets;
    s.sets = 0;
  }
  GST_INFO ("%u sets over %u starts", sets, START_ROUNDS);
  gst_object_unref (s.src);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The loop's owner */

static void
mark_finalized (gpointer data, GObject * where_the_object_was)
{
  g_atomic_int_set ((gint *) data, 1);
}

/* The tpsssink that started a session owns its loop (named in the loop's
 * warnings and in its end): set to NULL and unreffed while a tpsssrc of
 * the same member keeps the session, it lives on until the last stop
 * ends the loop, which still names it, and goes then. */
GST_START_TEST (test_loop_owner_outlives_its_element)
{
  guint port = free_udp_port ();
  gchar *props = g_strdup_printf ("port=%u member-id=1", port);
  GstElement *sink = check_make_element ("tpsssink", props);
  GstElement *src = check_make_element ("tpsssrc", props);
  CheckLoopEnds ends = { 0, };
  gint finalized = 0;
  guint64 turns;

  gst_object_set_name (GST_OBJECT (sink), "owner");
  gst_object_ref_sink (sink);
  gst_object_ref_sink (src);
  g_object_weak_ref (G_OBJECT (sink), mark_finalized, &finalized);
  check_loop_ends_begin (&ends);

  fail_if (gst_element_set_state (sink, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (src, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless (check_stat_u64_wait (src, "loop-turns", 1, 5) > 0);

  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (sink);
  fail_if (g_atomic_int_get (&finalized), "the sink went while the loop it "
      "owns ran on");

  /* the loop turns on for the src */
  turns = check_stat_u64 (src, "loop-turns");
  fail_unless (check_stat_u64_wait (src, "loop-turns", turns + 2, 10) >=
      turns + 2, "the loop stopped at %" G_GUINT64_FORMAT " turns", turns);
  fail_unless_equals_int (ends.ends, 0);

  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_mutex_lock (&ends.lock);
  fail_unless_equals_int (ends.ends, 1);
  fail_unless_equals_string (ends.owner_name, "owner");
  g_mutex_unlock (&ends.lock);
  fail_unless (g_atomic_int_get (&finalized), "the last stop kept the sink");

  check_loop_ends_done (&ends);
  gst_object_unref (src);
  g_free (props);
}

GST_END_TEST;

/* The session's stats after its last stop count every turn its loop ran,
 * also those after the work last took the counts. */
GST_START_TEST (test_loop_turns_final_at_stop)
{
  GstElement *src = gst_element_factory_make ("tpsssrc", NULL);

  g_object_set (src, "port", free_udp_port (), "member-id", 1, NULL);
  check_src_loop_turns_final (src, GST_STATE_PLAYING);
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
  tcase_add_test (tc, test_eos_fails_named_link_to_silent_member);
  tcase_add_test (tc, test_sets_racing_start_last_wins);
  tcase_add_test (tc, test_loop_owner_outlives_its_element);
  tcase_add_test (tc, test_loop_turns_final_at_stop);
  return s;
}

GST_CHECK_MAIN (tpsslifecycle);
