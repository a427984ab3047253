/* What gst-inspect-1.0 shows of every element of this project's plugins
 * documents it: every `stats` field with its meaning, a gst-launch-1.0
 * example, the URI syntax of URI handlers, the unit of every rate, time, size
 * and interval property.
 *
 * The elements are found by loading the plugin files listed in
 * $INSPECTDOCS_PLUGINS (':'-separated, set by meson), not from a list here.
 * The documentation of an element is what gst-inspect-1.0 prints of it: the
 * factory metadata (long name, description, any other key) and the blurbs of
 * its properties and of their enum values; test_inspect_shows_docs checks
 * that gst-inspect-1.0 prints those strings.  Properties that GStreamer base
 * classes install (GstBaseSink's throttle-time, ...) are not this project's to
 * document: the unit check leaves them out, and names them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#define IS_NAME_CHAR(c) (g_ascii_isalnum (c) || (c) == '-' || (c) == '_')

/* Realpaths of the project's plugin files, and the element factories in them. */
static GPtrArray *plugin_files;
static GList *factories;

static void
load_project_plugins (void)
{
  gchar **files = g_strsplit (g_getenv ("INSPECTDOCS_PLUGINS") ?
      g_getenv ("INSPECTDOCS_PLUGINS") : "", ":", -1);

  plugin_files = g_ptr_array_new_with_free_func (g_free);
  for (gchar ** f = files; *f; f++) {
    GError *err = NULL;
    GstPlugin *p;
    GList *features;
    char buf[PATH_MAX];

    if (!**f)
      continue;
    p = gst_plugin_load_file (*f, &err);
    fail_unless (p != NULL, "cannot load %s: %s", *f, err ? err->message : "?");
    fail_unless (realpath (*f, buf) != NULL, "realpath %s", *f);
    g_ptr_array_add (plugin_files, g_strdup (buf));
    features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
        gst_plugin_get_name (p));
    for (GList * l = features; l; l = l->next)
      if (GST_IS_ELEMENT_FACTORY (l->data))
        factories = g_list_prepend (factories, gst_object_ref (l->data));
    gst_plugin_feature_list_free (features);
    gst_object_unref (p);
  }
  g_strfreev (files);
  fail_unless (factories != NULL, "no element in INSPECTDOCS_PLUGINS=\"%s\"",
      g_getenv ("INSPECTDOCS_PLUGINS"));
  factories = g_list_sort (factories,
      (GCompareFunc) gst_plugin_feature_rank_compare_func);
}

static void
unload_project_plugins (void)
{
  g_list_free_full (factories, gst_object_unref);
  factories = NULL;
  g_ptr_array_unref (plugin_files);
}

static const gchar *
factory_name (GstElementFactory * f)
{
  return gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f));
}

/* Whether the class that installed @pspec is one of the project's: its
 * get_property lives in one of the project's plugin files. */
static gboolean
pspec_is_projects (GParamSpec * pspec)
{
  GObjectClass *klass = g_type_class_ref (pspec->owner_type);
  Dl_info info;
  char buf[PATH_MAX];
  gboolean ours = FALSE;

  if (klass->get_property && dladdr ((void *) klass->get_property, &info)
      && info.dli_fname && realpath (info.dli_fname, buf))
    for (guint i = 0; i < plugin_files->len; i++)
      ours |= g_str_equal (buf, g_ptr_array_index (plugin_files, i));
  g_type_class_unref (klass);
  return ours;
}

static void
append_enum_docs (GString * docs, GParamSpec * pspec)
{
  GEnumClass *ec;

  if (!G_IS_PARAM_SPEC_ENUM (pspec))
    return;
  ec = G_PARAM_SPEC_ENUM (pspec)->enum_class;
  for (guint i = 0; i < ec->n_values; i++)
    g_string_append_printf (docs, "%s\n", ec->values[i].value_name);
}

/* The metadata values gst-inspect prints under "Factory Details". */
static gchar *
factory_docs (GstElementFactory * f)
{
  GString *docs = g_string_new (NULL);
  gchar **keys = gst_element_factory_get_metadata_keys (f);

  for (gchar ** k = keys; k && *k; k++)
    g_string_append_printf (docs, "%s\n\n",
        gst_element_factory_get_metadata (f, *k));
  g_strfreev (keys);
  return g_string_free (docs, FALSE);
}

/* Everything gst-inspect prints of @f as documentation: the metadata, the
 * property blurbs and the enum values' descriptions. */
static gchar *
element_docs (GstElementFactory * f, GstElement * e)
{
  GString *docs = g_string_new (NULL);
  gchar *meta = factory_docs (f);
  guint n;
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);

  g_string_append (docs, meta);
  for (guint i = 0; i < n; i++) {
    g_string_append_printf (docs, "%s\n\n", g_param_spec_get_blurb (props[i]));
    append_enum_docs (docs, props[i]);
  }
  g_free (props);
  g_free (meta);
  return g_string_free (docs, FALSE);
}

static GstElement *
make (GstElementFactory * f)
{
  GstElement *e = gst_element_factory_create (f, NULL);

  fail_unless (e != NULL, "cannot create %s", factory_name (f));
  return gst_object_ref_sink (e);
}

/* ---- stats fields ---------------------------------------------------- */

/* Start of the description after a field name at @p: NULL unless the name is
 * introduced as a term, i.e. followed (after its closing quote, if @quoted)
 * by ':', '(' or a dash ('=' is left out: formulas). */
static const gchar *
after_term (const gchar * p, gboolean quoted)
{
  if (quoted && (*p == '`' || *p == '"' || *p == '\''))
    p++;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == ':' || *p == '(')
    return p + 1;
  if (g_str_has_prefix (p, "\xe2\x80\x94") || g_str_has_prefix (p,
          "\xe2\x80\x93"))
    return p + 3;
  if (p[0] == '-' && p[1] == ' ')
    return p + 1;
  return NULL;
}

/* Whether the name at @p (in @docs) starts a clause: only spaces between it
 * and the start, a line break, a list or clause separator or an opening
 * bracket or quote ("counted as foreign (...)" does not describe "foreign"). */
static gboolean
starts_clause (const gchar * docs, const gchar * p)
{
  while (p > docs && (p[-1] == ' ' || p[-1] == '\t'))
    p--;
  return p == docs || strchr ("\n:;,.([*`\"'", p[-1]) != NULL
      || (p - docs >= 3 && g_str_has_prefix (p - 3, "\xe2\x80\xa2"))
      || (p[-1] == '-' && (p - 1 == docs || p[-2] == ' ' || p[-2] == '\n'));
}

/* Where a field name out of @fields occurs as a term starting a clause in
 * [@p, @end) of @docs, or NULL. */
static const gchar *
next_term (const gchar * docs, const gchar * p, const gchar * end,
    gchar ** fields)
{
  for (; p < end; p++) {
    if (IS_NAME_CHAR (p[-1]) || !starts_clause (docs, p))
      continue;
    for (gchar ** f = fields; *f; f++) {
      gsize len = strlen (*f);

      if (strncmp (p, *f, len) == 0 && !IS_NAME_CHAR (p[len])
          && after_term (p + len, p[-1] == '`' || p[-1] == '"'))
        return p;
    }
  }
  return NULL;
}

/* Words of two or more letters in [p, end). */
static guint
count_words (const gchar * p, const gchar * end)
{
  guint words = 0, letters = 0;

  for (; p <= end; p++) {
    if (p < end && g_ascii_isalpha (*p)) {
      letters++;
      continue;
    }
    words += letters >= 2;
    letters = 0;
  }
  return words;
}

/* Where @docs describes @field: the name as a term at the start of a clause
 * followed by at least two words of description, before a ';', a blank line
 * or the next field term; NULL if nowhere. */
static const gchar *
field_description (const gchar * docs, const gchar * field, gchar ** fields)
{
  gsize len = strlen (field);

  for (const gchar * p = strstr (docs, field); p; p = strstr (p + 1, field)) {
    gboolean quoted = p > docs && (p[-1] == '`' || p[-1] == '"');
    const gchar *d, *end, *next;

    if ((p > docs && IS_NAME_CHAR (p[-1])) || IS_NAME_CHAR (p[len])
        || !starts_clause (docs, p))
      continue;
    d = after_term (p + len, quoted);
    if (!d)
      continue;
    end = d + strcspn (d, ";");
    next = strstr (d, "\n\n");
    if (next && next < end)
      end = next;
    next = next_term (docs, d + 1, end, fields);
    if (next)
      end = next;
    if (count_words (d, end) >= 2)
      return p;
  }
  return NULL;
}

static void
collect_fields (const GstStructure * s, GPtrArray * names);

static void
collect_value_fields (const GValue * v, GPtrArray * names)
{
  if (GST_VALUE_HOLDS_STRUCTURE (v))
    collect_fields (gst_value_get_structure (v), names);
  else if (GST_VALUE_HOLDS_LIST (v))
    for (guint i = 0; i < gst_value_list_get_size (v); i++)
      collect_value_fields (gst_value_list_get_value (v, i), names);
  else if (GST_VALUE_HOLDS_ARRAY (v))
    for (guint i = 0; i < gst_value_array_get_size (v); i++)
      collect_value_fields (gst_value_array_get_value (v, i), names);
}

/* Field names of @s and of structures nested in it, each once. */
static void
collect_fields (const GstStructure * s, GPtrArray * names)
{
  for (gint i = 0; i < gst_structure_n_fields (s); i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);

    if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
      g_ptr_array_add (names, g_strdup (name));
    collect_value_fields (gst_structure_get_value (s, name), names);
  }
}

static void
collect_stats_fields (GstElement * e, GPtrArray * names)
{
  GstStructure *s = NULL;

  g_object_get (e, "stats", &s, NULL);
  if (s) {
    collect_fields (s, names);
    gst_structure_free (s);
  }
}

/* TCP and UDP ports on 127.0.0.1 that the test holds bound without
 * listening, so that an element started toward them reaches nobody else. */
#define N_CLOSED 4
static gint closed_fds[N_CLOSED][2];
static guint16 closed_ports[N_CLOSED];

static guint16
closed_port (guint i)
{
  struct sockaddr_in a = { .sin_family = AF_INET };
  socklen_t len = sizeof (a);

  fail_unless (i < N_CLOSED);
  if (closed_ports[i])
    return closed_ports[i];
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  closed_fds[i][0] = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fail_unless (closed_fds[i][0] >= 0 && bind (closed_fds[i][0],
          (struct sockaddr *) &a, sizeof (a)) == 0, "cannot bind a port");
  getsockname (closed_fds[i][0], (struct sockaddr *) &a, &len);
  closed_fds[i][1] = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (closed_fds[i][1] >= 0)    /* a UDP socket too, if the port is free */
    bind (closed_fds[i][1], (struct sockaddr *) &a, sizeof (a));
  return closed_ports[i] = ntohs (a.sin_port);
}

/* Sets every port property of @e ("port", "*-port") to 0 (ephemeral: a
 * source binds any free port) or, if @closed or 0 is out of its range, to a
 * distinct port the test holds closed (a sink sends toward nobody). */
static void
use_safe_ports (GstElement * e, gboolean closed)
{
  guint n, k = 0;
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);

  for (guint i = 0; i < n; i++) {
    GParamSpec *p = props[i];

    if ((!g_str_equal (p->name, "port") && !g_str_has_suffix (p->name,
                "-port")) || !G_IS_PARAM_SPEC_INT (p)
        || !(p->flags & G_PARAM_WRITABLE))
      continue;
    g_object_set (e, p->name, closed || G_PARAM_SPEC_INT (p)->minimum > 0 ?
        (gint) closed_port (k++) : 0, NULL);
  }
  g_free (props);
}

/* Whether @e goes to PAUSED with ports out of harm's way (ephemeral, else
 * closed); leaves it in NULL, configured so. */
static gboolean
starts_safely (GstElement * e)
{
  for (gint closed = 0; closed < 2; closed++) {
    GstStateChangeReturn r;

    use_safe_ports (e, closed);
    r = gst_element_set_state (e, GST_STATE_PAUSED);
    gst_element_set_state (e, GST_STATE_NULL);
    if (r != GST_STATE_CHANGE_FAILURE)
      return TRUE;
  }
  return FALSE;
}

static gboolean
takes_rtp (GstElement * e)
{
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *rtp = gst_caps_from_string ("application/x-rtp");
  gboolean ok = FALSE;

  if (sink) {
    GstCaps *tmpl = gst_pad_get_pad_template_caps (sink);
    ok = gst_caps_can_intersect (tmpl, rtp);
    gst_caps_unref (tmpl);
    gst_object_unref (sink);
  }
  gst_caps_unref (rtp);
  return ok;
}

/* An RTP packet (version 2, payload type 96) of 200 bytes, sequence @seq. */
static GstBuffer *
rtp_packet (guint16 seq)
{
  guint8 pkt[200] = { 0x80, 96 };

  pkt[2] = seq >> 8;
  pkt[3] = seq & 0xff;
  GST_WRITE_UINT32_BE (pkt + 4, seq * 3000u);
  GST_WRITE_UINT32_BE (pkt + 8, 0x1234abcd);
  return gst_buffer_new_memdup (pkt, sizeof (pkt));
}

typedef struct
{
  GstHarness *h;
  gint done;
} RtpFeed;

static gpointer
push_rtp (RtpFeed * feed)
{
  for (guint16 seq = 0; seq < 30; seq++) {
    GstBuffer *b = rtp_packet (seq);

    GST_BUFFER_PTS (b) = seq * GST_SECOND / 30;
    if (gst_harness_push (feed->h, b) != GST_FLOW_OK)
      break;
  }
  g_atomic_int_set (&feed->done, 1);
  return NULL;
}

/* Feeds @e 30 RTP packets through a GstHarness (waiting at most 2 s) so that
 * fields made on the first packet show, and collects the stats fields. */
static void
collect_stats_with_rtp (GstElement * e, GPtrArray * names)
{
  GstPad *src = gst_element_get_static_pad (e, "src");
  RtpFeed feed = { gst_harness_new_with_element (e, "sink", src ? "src" :
        NULL), 0
  };
  gint64 until = g_get_monotonic_time () + 2 * G_TIME_SPAN_SECOND;
  GThread *t;

  gst_clear_object (&src);
  gst_harness_set_src_caps_str (feed.h, "application/x-rtp, media=video, "
      "clock-rate=90000, encoding-name=H264, payload=96");
  t = g_thread_new ("push-rtp", (GThreadFunc) push_rtp, &feed);
  while (!g_atomic_int_get (&feed.done) && g_get_monotonic_time () < until)
    g_usleep (20 * 1000);
  collect_stats_fields (e, names);
  gst_element_set_state (e, GST_STATE_NULL);    /* unblocks a waiting push */
  g_thread_join (t);
  gst_harness_teardown (feed.h);
}

/* The stats field names of @e in NULL, READY, PAUSED and, if it takes RTP,
 * after 30 RTP packets; @states gets the states read. */
static gchar **
stats_fields (GstElement * e, GString * states)
{
  GPtrArray *names = g_ptr_array_new ();

  collect_stats_fields (e, names);
  g_string_append (states, "NULL");
  if (gst_element_set_state (e, GST_STATE_READY) == GST_STATE_CHANGE_SUCCESS) {
    collect_stats_fields (e, names);
    g_string_append (states, ", READY");
  }
  gst_element_set_state (e, GST_STATE_NULL);
  if (!starts_safely (e)) {
    g_string_append (states, "; does not start with safe ports");
  } else {
    gst_element_set_state (e, GST_STATE_PAUSED);
    collect_stats_fields (e, names);
    g_string_append (states, ", PAUSED");
    gst_element_set_state (e, GST_STATE_NULL);
    if (takes_rtp (e)) {
      collect_stats_with_rtp (e, names);
      g_string_append (states, ", PLAYING after 30 RTP packets");
    }
  }
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

GST_START_TEST (test_stats_fields_described)
{
  guint failures = 0, checked = 0;

  for (GList * l = factories; l; l = l->next) {
    GstElement *e = make (l->data);
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "stats");
    gchar *docs = element_docs (l->data, e);

    if (!pspec || !g_type_is_a (pspec->value_type, GST_TYPE_STRUCTURE)) {
      g_print ("inspectdocs: %s: no stats property\n", factory_name (l->data));
    } else if (!pspec_is_projects (pspec)) {
      g_print ("inspectdocs: %s: stats inherited from %s, not checked\n",
          factory_name (l->data), g_type_name (pspec->owner_type));
    } else {
      GString *states = g_string_new (NULL);
      gchar **fields = stats_fields (e, states);
      guint bad = 0;

      for (gchar ** f = fields; *f; f++, checked++) {
        const gchar *where = field_description (docs, *f, fields);

        if (where) {
          g_print ("inspectdocs: ok %s: stats field \"%.*s\"\n",
              factory_name (l->data), (int) strcspn (where, ";\n"), where);
          continue;
        }
        g_print ("inspectdocs: FAIL %s: stats field '%s' not described "
            "(want \"%s: meaning (unit)\")\n", factory_name (l->data), *f, *f);
        bad++;
      }
      g_print ("inspectdocs: %s %s: %u of %u stats fields described (read "
          "in %s)\n", bad ? "FAIL" : "ok", factory_name (l->data),
          g_strv_length (fields) - bad, g_strv_length (fields), states->str);
      g_string_free (states, TRUE);
      failures += bad;
      g_strfreev (fields);
    }
    g_free (docs);
    gst_object_unref (e);
  }
  fail_unless (checked > 0, "no element has a stats property");
  fail_unless (failures == 0, "%u stats fields undocumented (listed above)",
      failures);
}

GST_END_TEST;

/* ---- gst-launch example ---------------------------------------------- */

static gboolean
has_token (const gchar * start, const gchar * end, const gchar * word)
{
  gsize len = strlen (word);

  for (const gchar * p = strstr (start, word); p && p + len <= end;
      p = strstr (p + 1, word))
    if ((p == start || !IS_NAME_CHAR (p[-1])) && !IS_NAME_CHAR (p[len]))
      return TRUE;
  return FALSE;
}

/* Whether @docs has "gst-launch-1.0" followed, in the same paragraph, by
 * @name or by a URI of one of @protocols. */
static gboolean
has_launch_example (const gchar * docs, const gchar * name,
    const gchar * const *protocols)
{
  for (const gchar * p = strstr (docs, "gst-launch-1.0"); p;
      p = strstr (p + 1, "gst-launch-1.0")) {
    const gchar *end = strstr (p, "\n\n");

    if (!end)
      end = p + strlen (p);
    if (has_token (p, end, name))
      return TRUE;
    for (const gchar * const *pr = protocols; pr && *pr; pr++) {
      gchar *uri = g_strconcat (*pr, "://", NULL);
      const gchar *u = strstr (p, uri);

      g_free (uri);
      if (u && u < end)
        return TRUE;
    }
  }
  return FALSE;
}

GST_START_TEST (test_launch_example)
{
  guint failures = 0;

  for (GList * l = factories; l; l = l->next) {
    gchar *meta = factory_docs (l->data);
    gboolean ok = has_launch_example (meta, factory_name (l->data),
        gst_element_factory_get_uri_protocols (l->data));

    g_print ("inspectdocs: %s %s: %s\n", ok ? "ok" : "FAIL",
        factory_name (l->data), ok ? "description has a gst-launch-1.0 example"
        : "no gst-launch-1.0 example using it in the description");
    failures += !ok;
    g_free (meta);
  }
  fail_unless (failures == 0, "%u elements without a gst-launch-1.0 example",
      failures);
}

GST_END_TEST;

/* ---- URI syntax ------------------------------------------------------ */

/* Whether "@protocol://" followed by a syntax (not a space or a quote)
 * occurs in @text. */
static gboolean
has_uri_syntax (const gchar * text, const gchar * protocol)
{
  gchar *prefix = g_strconcat (protocol, "://", NULL);
  gsize len = strlen (prefix);
  gboolean found = FALSE;

  for (const gchar * p = strstr (text, prefix); p && !found;
      p = strstr (p + 1, prefix))
    found = (p == text || !IS_NAME_CHAR (p[-1]))
        && (g_ascii_isalnum (p[len]) || strchr ("<[{_$", p[len]));
  g_free (prefix);
  return found;
}

GST_START_TEST (test_uri_syntax)
{
  guint failures = 0, handlers = 0;

  for (GList * l = factories; l; l = l->next) {
    const gchar *const *protocols =
        gst_element_factory_get_uri_protocols (l->data);
    GstElement *e;
    GParamSpec *uri;
    gchar *meta, *text;

    if (gst_element_factory_get_uri_type (l->data) == GST_URI_UNKNOWN)
      continue;
    handlers++;
    e = make (l->data);
    uri = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "uri");
    meta = factory_docs (l->data);
    text = g_strconcat (meta, "\n", uri ? g_param_spec_get_blurb (uri) : "",
        NULL);
    g_free (meta);
    fail_unless (protocols && *protocols, "%s: URI handler without protocols",
        factory_name (l->data));
    for (const gchar * const *p = protocols; *p; p++) {
      gboolean ok = has_uri_syntax (text, *p);

      g_print ("inspectdocs: %s %s: %s://... syntax %s the description or "
          "the uri property\n", ok ? "ok" : "FAIL", factory_name (l->data), *p,
          ok ? "in" : "not in");
      failures += !ok;
    }
    g_free (text);
    gst_object_unref (e);
  }
  g_print ("inspectdocs: %u URI handlers\n", handlers);
  fail_unless (failures == 0, "%u URI protocols undocumented", failures);
}

GST_END_TEST;

/* ---- units ----------------------------------------------------------- */

/* Property name endings that want a unit, and the units each accepts. */
typedef enum { NO_UNIT, TIME_UNIT, RATE_UNIT, SIZE_UNIT } UnitKind;

static const struct
{
  const gchar *suffix;
  UnitKind kind;
} unit_suffixes[] = {
  {"-time", TIME_UNIT}, {"-interval", TIME_UNIT}, {"-timeout", TIME_UNIT},
  {"-delay", TIME_UNIT}, {"-rate", RATE_UNIT}, {"-rates", RATE_UNIT},
  {"bitrate", RATE_UNIT}, {"-size", SIZE_UNIT}, {"-bytes", SIZE_UNIT},
};

static const gchar *const time_units[] = {
  "ns", "us", "\xc2\xb5s", "ms", "s", "sec", "second", "seconds", "minutes",
  "nanoseconds", "microseconds", "milliseconds", "frames", "packets", "RTT",
  "RTTs", NULL
};

static const gchar *const rate_units[] = {
  "bit/s", "bits/s", "kbit/s", "kbits/s", "Mbit/s", "Gbit/s", "bps", "kbps",
  "Mbps", "B/s", "bytes/s", "packets/s", "fps", "Hz", "%", "percent", NULL
};

static const gchar *const size_units[] = {
  "bytes", "byte", "kB", "KB", "KiB", "MB", "MiB", "bits", "packets", "frames",
  NULL
};

static gboolean
is_numeric (GParamSpec * pspec)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);

  return t == G_TYPE_INT || t == G_TYPE_UINT || t == G_TYPE_INT64
      || t == G_TYPE_UINT64 || t == G_TYPE_LONG || t == G_TYPE_ULONG
      || t == G_TYPE_DOUBLE || t == G_TYPE_FLOAT;
}

static UnitKind
wanted_unit (GParamSpec * pspec)
{
  for (guint i = 0; i < G_N_ELEMENTS (unit_suffixes); i++)
    if (g_str_has_suffix (pspec->name, unit_suffixes[i].suffix))
      return is_numeric (pspec) ? unit_suffixes[i].kind : NO_UNIT;
  return NO_UNIT;
}

/* Whether @blurb has a unit of @kind: tokens are split at anything but
 * letters, digits, '/', '%', '\'' and UTF-8 bytes, leading digits dropped
 * ("10ms"); a rate may also be "... per second". */
static gboolean
has_unit (const gchar * blurb, UnitKind kind)
{
  const gchar *const *units = kind == TIME_UNIT ? time_units :
      kind == RATE_UNIT ? rate_units : size_units;
  const gchar *p = blurb;

  if (kind == RATE_UNIT && strstr (blurb, " per second"))
    return TRUE;
  while (*p) {
    const gchar *start;
    gchar *tok;
    gboolean found = FALSE;

    while (*p && !(g_ascii_isalnum (*p) || strchr ("/%'", *p)
            || (guchar) * p >= 0x80))
      p++;
    start = p;
    while (*p && (g_ascii_isalnum (*p) || strchr ("/%'", *p)
            || (guchar) * p >= 0x80))
      p++;
    while (start < p && g_ascii_isdigit (*start))
      start++;
    tok = g_strndup (start, p - start);
    for (const gchar * const *u = units; *u && !found; u++)
      found = g_str_equal (tok, *u);
    g_free (tok);
    if (found)
      return TRUE;
  }
  return FALSE;
}

GST_START_TEST (test_property_units)
{
  guint failures = 0, checked = 0;

  for (GList * l = factories; l; l = l->next) {
    GstElement *e = make (l->data);
    guint n;
    GParamSpec **props =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);

    for (guint i = 0; i < n; i++) {
      const gchar *blurb = g_param_spec_get_blurb (props[i]);
      UnitKind kind = wanted_unit (props[i]);

      if (kind == NO_UNIT)
        continue;
      if (!pspec_is_projects (props[i])) {
        g_print ("inspectdocs: %s: %s is %s's, not checked\n",
            factory_name (l->data), props[i]->name,
            g_type_name (props[i]->owner_type));
        continue;
      }
      checked++;
      if (has_unit (blurb, kind))
        continue;
      g_print ("inspectdocs: FAIL %s: property %s has no unit: \"%s\"\n",
          factory_name (l->data), props[i]->name, blurb);
      failures++;
    }
    g_free (props);
    gst_object_unref (e);
  }
  g_print ("inspectdocs: %u rate/time/size properties checked for a unit, "
      "%u without\n", checked, failures);
  fail_unless (checked > 0, "no rate, time or size property found");
  fail_unless (failures == 0, "%u properties without a unit", failures);
}

GST_END_TEST;

/* ---- the test reads what gst-inspect-1.0 prints ------------------------ */

static gchar *
inspect_output (const gchar * element)
{
  gchar *argv[] = { (gchar *) "gst-inspect-1.0", (gchar *) element, NULL };
  gchar *out = NULL;
  gint status;
  GError *err = NULL;

  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &err),
      "gst-inspect-1.0: %s", err ? err->message : "?");
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "gst-inspect-1.0 %s failed", element);
  return out;
}

static guint
missing_in (const gchar * out, const gchar * element, const gchar * what)
{
  if (!what || !*what || strstr (out, what))
    return 0;
  g_print ("inspectdocs: FAIL %s: gst-inspect-1.0 does not print \"%s\"\n",
      element, what);
  return 1;
}

GST_START_TEST (test_inspect_shows_docs)
{
  guint failures = 0;
  gchar *inspect;

#ifdef INSPECTDOCS_SANITIZED
  g_print ("inspectdocs: sanitizer build: gst-inspect-1.0 cannot load these "
      "plugins, cross-check skipped\n");
  return;
#endif
  inspect = g_find_program_in_path ("gst-inspect-1.0");
  if (!inspect) {
    g_print ("inspectdocs: gst-inspect-1.0 not in PATH, cross-check skipped\n");
    return;
  }
  g_free (inspect);
  for (GList * l = factories; l; l = l->next) {
    const gchar *name = factory_name (l->data);
    gchar *out = inspect_output (name);
    GstElement *e = make (l->data);
    gchar **keys = gst_element_factory_get_metadata_keys (l->data);
    guint n;
    GParamSpec **props =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);

    for (gchar ** k = keys; k && *k; k++)
      failures += missing_in (out, name,
          gst_element_factory_get_metadata (l->data, *k));
    for (guint i = 0; i < n; i++)
      failures += missing_in (out, name, g_param_spec_get_blurb (props[i]));
    g_print ("inspectdocs: %s: gst-inspect-1.0 prints its metadata and %u "
        "blurbs\n", name, n);
    g_free (props);
    g_strfreev (keys);
    gst_object_unref (e);
    g_free (out);
  }
  fail_unless (failures == 0, "%u strings not in gst-inspect-1.0's output",
      failures);
}

GST_END_TEST;

/* The matchers themselves, on made-up text: they accept what the other
 * tests ask for and refuse lists, mentions in passing and unit-less blurbs. */
GST_START_TEST (test_matchers)
{
  gchar *fields[] = { (gchar *) "received", (gchar *) "fec-received",
    (gchar *) "late", (gchar *) "foreign", (gchar *) "r", NULL
  };
  const gchar *good = "Counters: received: media packets that arrived "
      "(packets); fec-received (packets): parity packets that arrived\n"
      "- late \xe2\x80\x94 packets behind the output, dropped\n"
      "foreign (packets): of another payload type, dropped";
  const gchar *const protocols[] = { "tpss", NULL };

  for (gchar ** f = fields; f[1]; f++)
    fail_unless (field_description (good, *f, fields) != NULL, "%s", *f);
  fail_if (field_description ("Counters: received, fec-received, late",
          "received", fields));
  fail_if (field_description ("Counters: received, fec-received, late",
          "late", fields));
  fail_if (field_description ("dropped and counted as foreign (0 = any)",
          "foreign", fields));
  fail_if (field_description ("received (packets), fec-received (packets)",
          "received", fields));
  fail_if (field_description ("fec-received: parity packets", "received",
          fields));
  fail_if (field_description ("R_f: factor, r = r (1 - p_loss R_f)", "r",
          fields));
  /* its own name inside its description does not end it */
  fail_unless (field_description ("late: packets too late (after the gap); "
          "foreign: others", "late", fields));

  fail_unless (has_launch_example ("Example:\ngst-launch-1.0 udpsrc ! "
          "tpssfecdec ! fakesink", "tpssfecdec", NULL));
  fail_unless (has_launch_example ("gst-launch-1.0 videotestsrc ! "
          "tpss://1@10.0.0.1:5004", "tpsssink", protocols));
  fail_if (has_launch_example ("gst-launch-1.0 udpsrc ! tpssfecdec0 ! "
          "fakesink\n\ntpssfecdec", "tpssfecdec", NULL));
  fail_if (has_launch_example ("tpssfecdec repairs", "tpssfecdec", NULL));

  fail_unless (has_uri_syntax ("URI: tpss://MEMBER@HOST:PORT", "tpss"));
  fail_if (has_uri_syntax ("`tpss://` URIs", "tpss"));
  fail_if (has_uri_syntax ("xtpss://a", "tpss"));

  fail_unless (has_unit ("Period of HELLO messages (ns)", TIME_UNIT));
  fail_unless (has_unit ("Wait at most 10ms", TIME_UNIT));
  fail_unless (has_unit ("Up to this many of its RTTs", TIME_UNIT));
  fail_unless (has_unit ("Cap of any sending rate, bits/s", RATE_UNIT));
  fail_unless (has_unit ("The maximum bits per second to render", RATE_UNIT));
  fail_unless (has_unit ("Kernel socket buffer in bytes", SIZE_UNIT));
  fail_if (has_unit ("The time to keep between rendered buffers", TIME_UNIT));
  fail_if (has_unit ("A member's rate", RATE_UNIT));
  fail_if (has_unit ("Rate in bytes", TIME_UNIT));
  fail_if (has_unit ("Queue bound (ms)", SIZE_UNIT));
}

GST_END_TEST;

static Suite *
inspectdocs_suite (void)
{
  Suite *s = suite_create ("inspectdocs");
  TCase *tc = tcase_create ("general");

  tcase_add_unchecked_fixture (tc, load_project_plugins,
      unload_project_plugins);
  tcase_add_test (tc, test_matchers);
  tcase_add_test (tc, test_stats_fields_described);
  tcase_add_test (tc, test_launch_example);
  tcase_add_test (tc, test_uri_syntax);
  tcase_add_test (tc, test_property_units);
  tcase_add_test (tc, test_inspect_shows_docs);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (inspectdocs);
