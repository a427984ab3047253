/* Small helpers the element tests share. */
#ifndef __CHECK_UTIL_H__
#define __CHECK_UTIL_H__

#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <string.h>

/* The element made by @factory with "key=value ..." properties applied. */
static inline GstElement *
check_make_element (const gchar * factory, const gchar * props)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  gchar **kv = g_strsplit (props, " ", -1);

  fail_unless (e != NULL, "no element %s", factory);
  for (gchar ** p = kv; *p; p++) {
    gchar **pair = g_strsplit (*p, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg (G_OBJECT (e), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
  return e;
}

/* A free UDP port on loopback (bound, then released). */
static inline guint
free_udp_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  guint port;

  fail_unless (g_socket_bind (s, any, FALSE, NULL));
  bound = g_socket_get_local_address (s, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  g_object_unref (s);
  return port;
}

/* A guint64 field of an element's `stats` structure (0 if absent). */
static inline guint64
check_stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint64 (s, field, &v);
  gst_structure_free (s);
  return v;
}

/* @e's I/O loop ran and never held a turn back: its stats carry
 * loop-turns > 0 and loop-spins == 0 (GstNetLoopCounts). */
static inline void
check_loop_ran_without_spins (GstElement * e)
{
  GstStructure *s;
  guint64 turns = 0, spins = 0;
  gboolean have_turns, have_spins;

  g_object_get (e, "stats", &s, NULL);
  have_turns = gst_structure_get_uint64 (s, "loop-turns", &turns);
  have_spins = gst_structure_get_uint64 (s, "loop-spins", &spins);
  gst_structure_free (s);
  fail_unless (have_turns && have_spins, "%s: no loop-turns or loop-spins "
      "in stats", GST_ELEMENT_NAME (e));
  fail_unless (turns > 0, "%s: loop-turns 0", GST_ELEMENT_NAME (e));
  fail_unless (spins == 0, "%s: loop-spins %" G_GUINT64_FORMAT,
      GST_ELEMENT_NAME (e), spins);
}

/* The field once it reaches @want, or its value after @timeout_s seconds
 * (for counters an element's own thread bumps a little later). */
static inline guint64
check_stat_u64_wait (GstElement * e, const gchar * field, guint64 want,
    guint timeout_s)
{
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  guint64 v;

  while ((v = check_stat_u64 (e, field)) < want &&
      g_get_monotonic_time () < end)
    g_usleep (20000);
  return v;
}

/* The field once it falls to @want (a level such as queued bytes), or its
 * value after @timeout_s seconds. */
static inline guint64
check_stat_u64_wait_down (GstElement * e, const gchar * field, guint64 want,
    guint timeout_s)
{
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  guint64 v;

  while ((v = check_stat_u64 (e, field)) > want &&
      g_get_monotonic_time () < end)
    g_usleep (20000);
  return v;
}

/* Waits (polling every 20 ms, up to @timeout_s seconds) for the field to
 * reach at least @want; fails the test at the caller's line saying which
 * field stopped where. A macro for that line. */
#define check_stat_u64_reaches(e, field, want, timeout_s) G_STMT_START {   \
  guint64 _v = check_stat_u64_wait ((e), (field), (want), (timeout_s));     \
  fail_unless (_v >= (guint64) (want), "%s: stats field %s still %"         \
      G_GUINT64_FORMAT " after %u s, never reached %" G_GUINT64_FORMAT,     \
      GST_ELEMENT_NAME (e), (field), _v, (guint) (timeout_s),               \
      (guint64) (want));                                                    \
} G_STMT_END

/* The same for a field falling to at most @want. */
#define check_stat_u64_falls_to(e, field, want, timeout_s) G_STMT_START {  \
  guint64 _v = check_stat_u64_wait_down ((e), (field), (want), (timeout_s)); \
  fail_unless (_v <= (guint64) (want), "%s: stats field %s still %"         \
      G_GUINT64_FORMAT " after %u s, never fell to %" G_GUINT64_FORMAT,     \
      GST_ELEMENT_NAME (e), (field), _v, (guint) (timeout_s),               \
      (guint64) (want));                                                    \
} G_STMT_END

/* Whether @text describes @field as "field: meaning": the name starting an
 * entry (after the start, a space, a newline or a ';'), then ": ". */
static inline gboolean
check_documents_field (const gchar * text, const gchar * field)
{
  gchar *needle = g_strdup_printf ("%s: ", field);
  const gchar *p = text;
  gboolean found = FALSE;

  while (!found && (p = strstr (p, needle))) {
    found = p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == ';';
    p++;
  }
  g_free (needle);
  return found;
}

static inline gboolean
check_field_documented_cb (GQuark id, const GValue * value, gpointer blurb)
{
  const gchar *name = g_quark_to_string (id);

  fail_unless (check_documents_field (blurb, name),
      "stats field %s is not described as \"%s: meaning (unit)\" in the "
      "stats blurb", name, name);
  if (GST_VALUE_HOLDS_LIST (value)) {
    for (guint i = 0; i < gst_value_list_get_size (value); i++) {
      const GValue *v = gst_value_list_get_value (value, i);
      if (GST_VALUE_HOLDS_STRUCTURE (v))
        gst_structure_foreach (gst_value_get_structure (v),
            check_field_documented_cb, blurb);
    }
  }
  return TRUE;
}

/* Every field of @e's stats as they are now (nested per-member structures
 * included) is described in the stats blurb, which gst-inspect-1.0 shows. */
static inline void
check_stats_documented (GstElement * e)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "stats");
  GstStructure *s;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_n_fields (s) > 0);
  gst_structure_foreach (s, check_field_documented_cb,
      (gpointer) g_param_spec_get_blurb (pspec));
  gst_structure_free (s);
}

/* Waits up to @timeout for an error on @bus; its message must hold @text. */
static inline void
check_bus_error_contains (GstBus * bus, GstClockTime timeout,
    const gchar * text)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR);
  GError *err = NULL;

  fail_unless (msg != NULL, "no error saying \"%s\"", text);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, text) != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
}

/* @e's URI handler refuses @uri with an error holding @text. */
static inline void
check_uri_refused (GstElement * e, const gchar * uri, const gchar * text)
{
  GError *err = NULL;

  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e), uri, &err),
      "%s accepted", uri);
  fail_unless (err && strstr (err->message, text) != NULL, "%s: %s", uri,
      err ? err->message : "no error");
  g_clear_error (&err);
}

/* The pipeline @desc fails to start (to PAUSED) with an error on its bus
 * whose message holds @text. */
static inline void
check_start_error (const gchar * desc, const gchar * text)
{
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus;

  fail_unless (p != NULL, "%s", desc);
  bus = gst_element_get_bus (p);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  check_bus_error_contains (bus, GST_SECOND, text);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

/* A UDP socket on 127.0.0.1 at an ephemeral port (returned in @port). */
static inline GSocket *
check_udp_socket_local (guint * port)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;

  fail_unless (g_socket_bind (s, any, FALSE, NULL));
  bound = g_socket_get_local_address (s, NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  return s;
}

/* What gst-inspect-1.0 shows of @factory_name: every stats field with its
 * meaning and unit, and a launch line naming it in the long description. */
static inline void
check_inspect_docs (const gchar * factory_name)
{
  GstElement *e = gst_element_factory_make (factory_name, NULL);
  const gchar *desc = gst_element_factory_get_metadata
      (gst_element_get_factory (e), GST_ELEMENT_METADATA_DESCRIPTION);

  check_stats_documented (e);
  fail_unless (strstr (desc, "gst-launch-1.0 ") != NULL,
      "no example in the description: %s", desc);
  fail_unless (strstr (desc, factory_name) != NULL);
  gst_object_unref (e);
}

/* What the netloop category logged when a loop ended (gst_net_loop_stop):
 * the object it named, read there, and the turns it ran. */
typedef struct
{
  GMutex lock;
  guint ends;
  gchar *owner_name;
  guint64 turns;
} CheckLoopEnds;

static inline void
check_log_loop_end (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  CheckLoopEnds *ends = data;
  const gchar *text = gst_debug_message_get (message);
  const gchar *after;

  if (strcmp (gst_debug_category_get_name (category), "netloop") != 0 ||
      !(after = strstr (text, ": ended after ")))
    return;
  g_mutex_lock (&ends->lock);
  ends->ends++;
  g_free (ends->owner_name);
  /* a freed owner is a use after free here (the ASan build reports it) */
  ends->owner_name = object ? g_strdup (GST_OBJECT_NAME (object)) : NULL;
  ends->turns = g_ascii_strtoull (after + strlen (": ended after "), NULL,
      10);
  g_mutex_unlock (&ends->lock);
}

static inline void
check_loop_ends_begin (CheckLoopEnds * ends)
{
  g_mutex_init (&ends->lock);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("netloop", GST_LEVEL_INFO);
  gst_debug_add_log_function (check_log_loop_end, ends, NULL);
}

static inline void
check_loop_ends_done (CheckLoopEnds * ends)
{
  gst_debug_remove_log_function (check_log_loop_end);
  gst_debug_unset_threshold_for_name ("netloop");
  g_free (ends->owner_name);
  g_mutex_clear (&ends->lock);
}

/* After the stop of @e's loop (logged in @ends): its stats' loop-turns
 * are the turns the loop itself ran to the end. */
static inline void
check_loop_turns_final (GstElement * e, CheckLoopEnds * ends)
{
  guint64 shown = check_stat_u64 (e, "loop-turns");

  g_mutex_lock (&ends->lock);
  fail_unless_equals_int (ends->ends, 1);
  fail_unless (shown == ends->turns, "%s: loop-turns %" G_GUINT64_FORMAT
      " after the stop, the loop ran %" G_GUINT64_FORMAT, GST_ELEMENT_NAME (e),
      shown, ends->turns);
  g_mutex_unlock (&ends->lock);
}

/* Runs the source @src (floating) until its loop turned twice, stops it
 * (@running -> READY: a base source stops at PAUSED -> READY) and checks
 * that its stats then count every turn its loop ran. */
static inline void
check_src_loop_turns_final (GstElement * src, GstState running)
{
  CheckLoopEnds ends = { 0, };

  gst_object_ref_sink (src);
  check_loop_ends_begin (&ends);
  fail_if (gst_element_set_state (src, running) == GST_STATE_CHANGE_FAILURE);
  fail_unless (check_stat_u64_wait (src, "loop-turns", 2, 5) >= 2);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  check_loop_turns_final (src, &ends);
  gst_element_set_state (src, GST_STATE_NULL);
  check_loop_ends_done (&ends);
  gst_object_unref (src);
}

#endif
