/* Shared by tpbasink and tpbasrc (see gsttpbautil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gsttpbautil.h"

GType
gst_tpba_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_MODE_TPBA, "TPBA: TCP rate probing, then UDP at the probed rate "
          "(section 4)", "tpba"},
    {TPBA_MODE_LDA, "LDA baseline: UDP only, loss-delay adjustment "
          "(section 3)", "lda"},
    {TPBA_MODE_LDAF, "LDA with a fixed AIR (section 6.2)", "ldaf"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tpba_end_criterion_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_END_ABSOLUTE, "|r[i-k] - r[i]| < epsilon, k = 1, 2 (section 4)",
        "absolute"},
    {TPBA_END_PROPORTIONAL, "|r[i-k] - r[i]| < z r[i], k = 1, 2 (section 7)",
        "proportional"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaEndCriterion", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tpba_probe_interval_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_PROBE_INTERVAL_FIXED, "Cycles of t-tcp (section 4)", "fixed"},
    {TPBA_PROBE_INTERVAL_CWND, "Cycles between cwnd reductions (section 7)",
        "cwnd"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaProbeInterval", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

typedef enum
{
  K_ENUM_MODE, K_ENUM_END, K_ENUM_INTERVAL, K_BOOL, K_TIME, K_U64, K_UINT,
  K_DOUBLE,
} Kind;

typedef struct
{
  const gchar *name;
  const gchar *blurb;
  Kind kind;
  gsize offset;
  gdouble min, max;
  guint which;
} Param;

#define OFF(f) G_STRUCT_OFFSET (TpbaConfig, f)
#define S GST_TPBA_PARAM_SINK
#define R GST_TPBA_PARAM_SRC
#define H (1e12 * 3600)

static const Param params[] = {
  {"mode", "Sender scheme: tpba (the paper's), lda or ldaf (baselines)",
      K_ENUM_MODE, OFF (mode), 0, 0, S},
  {"end-criterion", "End of the probing period: absolute (epsilon, "
        "section 4) or proportional (z, section 7)", K_ENUM_END,
      OFF (end_criterion), 0, 0, S},
  {"probe-interval", "Probing cycles: fixed (t-tcp, section 4) or cwnd "
        "(between cwnd reductions, section 7)", K_ENUM_INTERVAL,
      OFF (probe_interval), 0, 0, S},
  {"reprobe-on-reductions", "Probe again at once after reprobe-count "
        "successive cuts of at least reprobe-cut (section 4, T_running)",
      K_BOOL, OFF (reprobe_on_reductions), 0, 1, S},
  {"allow-probe-loss", "Running period: cut the rate only for the loss "
        "above what TCP had while measuring r_s (p-probe in stats; not in "
        "the paper)", K_BOOL, OFF (allow_probe_loss), 0, 1, S},
  {"t-tcp", "T_tcp: length of a probing cycle, ns (paper: 1 s, Table 2)",
      K_TIME, OFF (t_tcp), 1e6, H, S},
  {"epsilon", "epsilon: end-of-probing threshold, bits/s (paper: 30 kbit/s, "
        "Table 2)", K_U64, OFF (epsilon), 0, 1e12, S},
  {"z", "z: proportional end criterion, fraction of r[i] (paper: 0.05, "
        "section 7)", K_DOUBLE, OFF (z), 0, 1, S},
  {"t-running", "T_running: length of the running period, ns (paper: 10 s, "
        "section 6.1)", K_TIME, OFF (t_running), 1e6, H, S},
  {"t-adapt", "T_adapt: between adaptation points, ns (paper: 3 s)",
      K_TIME, OFF (t_adapt), 1e6, H, S},
  {"t-rtcp", "T_rtcp: between RTCP reports (SR / RR), ns (paper: 1 s)",
      K_TIME, OFF (t_rtcp), 1e6, H, S | R},
  {"r-f", "R_f: rate reduction factor, r = r (1 - p_loss R_f) (paper: 3.0, "
        "Table 2)", K_DOUBLE, OFF (r_f), 0, 1000, S},
  {"r-0", "LDA initial rate, bits/s (paper: 10 kbit/s, section 6.2)",
      K_U64, OFF (r_0), 1, 1e12, S},
  {"r-min", "Minimum rate after a reduction, bits/s (not in the paper: "
        "10 kbit/s)", K_U64, OFF (r_min), 1, 1e12, S},
  {"air-0", "LDA AIR_0, bits/s (paper: 10 kbit/s, section 3)", K_U64,
      OFF (air_0), 0, 1e12, S},
  {"packet-size", "LDA packet size P of line (C), bytes (0: the mean sent)",
      K_UINT, OFF (packet_size), 0, 65535, S},
  {"probe-initial-rate", "Rate offered to the encoder in the first probing "
        "period, bits/s (not in the paper: 1 Mbit/s)", K_U64,
      OFF (probe_initial_rate), 1, 1e12, S},
  {"probe-headroom", "While probing the encoder is offered r[i] (1 + this) "
        "(not in the paper: 0.25)", K_DOUBLE, OFF (probe_headroom), 0, 100,
      S},
  {"max-rate", "Cap of every rate, bits/s (100 Mbit/s)", K_U64,
      OFF (max_rate), 1, 1e12, S},
  {"max-probe-cycles", "End probing after this many cycles (0: never, the "
        "paper)", K_UINT, OFF (max_probe_cycles), 0, G_MAXUINT, S},
  {"t-tcp-min", "probe-interval=cwnd: shortest cycle, ns (100 ms)", K_TIME,
      OFF (t_tcp_min), 0, H, S},
  {"t-tcp-max", "probe-interval=cwnd: longest cycle, ns (4 s)", K_TIME,
      OFF (t_tcp_max), 1e6, H, S},
  {"tcp-sample-interval", "probe-interval=cwnd: TCP_INFO sampling, ns "
        "(10 ms)", K_TIME, OFF (tcp_sample_interval), 1e5, H, S},
  {"reprobe-count", "reprobe-on-reductions: successive large cuts (2)",
      K_UINT, OFF (reprobe_count), 1, 1000, S},
  {"reprobe-cut", "reprobe-on-reductions: a large cut is at least this "
        "fraction of r (0.2)", K_DOUBLE, OFF (reprobe_cut), 0, 1, S},
  {"reorder-wait", "How long a gap after a UDP packet is waited for, ns "
        "(50 ms)", K_TIME, OFF (reorder_wait), 0, H, R},
  {"switch-wait", "How long a gap after a TCP packet is waited for (the "
        "rest of the TCP stream at a switch), ns (1 s)", K_TIME,
      OFF (switch_wait), 0, H, R},
  {"max-held", "Reorder buffer bound, packets (4096)", K_UINT,
      OFF (max_held), 16, 1 << 20, R},
  {"key-unit-holdoff", "After a PLI (RFC 4585) has asked upstream for a key "
        "unit, further PLIs are ignored for this long or twice the RTT "
        "measured from the RRs, whichever is larger, ns (500 ms)", K_TIME,
      OFF (key_unit_holdoff), 0, H, S},
};

#undef OFF
#undef S
#undef R

guint
gst_tpba_config_install (GObjectClass * klass, guint first_id, guint which)
{
  TpbaConfig d;

  tpba_config_init (&d);
  for (guint i = 0; i < G_N_ELEMENTS (params); i++) {
    const Param *p = &params[i];
    gpointer f = G_STRUCT_MEMBER_P (&d, p->offset);
    GParamSpec *ps = NULL;
    GParamFlags fl = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
        GST_PARAM_MUTABLE_READY;

    if (!(p->which & which))
      continue;
    switch (p->kind) {
      case K_ENUM_MODE:
        ps = g_param_spec_enum (p->name, p->name, p->blurb,
            GST_TYPE_TPBA_MODE, *(gint *) f, fl);
        break;
      case K_ENUM_END:
        ps = g_param_spec_enum (p->name, p->name, p->blurb,
            GST_TYPE_TPBA_END_CRITERION, *(gint *) f, fl);
        break;
      case K_ENUM_INTERVAL:
        ps = g_param_spec_enum (p->name, p->name, p->blurb,
            GST_TYPE_TPBA_PROBE_INTERVAL, *(gint *) f, fl);
        break;
      case K_BOOL:
        ps = g_param_spec_boolean (p->name, p->name, p->blurb,
            *(gboolean *) f, fl);
        break;
      case K_TIME:
        ps = g_param_spec_uint64 (p->name, p->name, p->blurb,
            (guint64) p->min, (guint64) p->max, (guint64) * (gint64 *) f, fl);
        break;
      case K_U64:
        ps = g_param_spec_uint64 (p->name, p->name, p->blurb,
            (guint64) p->min, (guint64) p->max, *(guint64 *) f, fl);
        break;
      case K_UINT:
        ps = g_param_spec_uint (p->name, p->name, p->blurb,
            (guint) p->min, (guint) p->max, *(guint *) f, fl);
        break;
      case K_DOUBLE:
        ps = g_param_spec_double (p->name, p->name, p->blurb,
            p->min, p->max, *(gdouble *) f, fl);
        break;
    }
    g_object_class_install_property (klass, first_id + i, ps);
  }
  return first_id + G_N_ELEMENTS (params);
}

gboolean
gst_tpba_config_set (TpbaConfig * cfg, guint first_id, guint prop_id,
    const GValue * value)
{
  const Param *p;
  gpointer f;

  if (prop_id < first_id || prop_id >= first_id + G_N_ELEMENTS (params))
    return FALSE;
  p = &params[prop_id - first_id];
  f = G_STRUCT_MEMBER_P (cfg, p->offset);
  switch (p->kind) {
    case K_ENUM_MODE:
    case K_ENUM_END:
    case K_ENUM_INTERVAL:
      *(gint *) f = g_value_get_enum (value);
      break;
    case K_BOOL:
      *(gboolean *) f = g_value_get_boolean (value);
      break;
    case K_TIME:
      *(gint64 *) f = (gint64) g_value_get_uint64 (value);
      break;
    case K_U64:
      *(guint64 *) f = g_value_get_uint64 (value);
      break;
    case K_UINT:
      *(guint *) f = g_value_get_uint (value);
      break;
    case K_DOUBLE:
      *(gdouble *) f = g_value_get_double (value);
      break;
  }
  return TRUE;
}

gboolean
gst_tpba_config_get (const TpbaConfig * cfg, guint first_id, guint prop_id,
    GValue * value)
{
  const Param *p;
  gconstpointer f;

  if (prop_id < first_id || prop_id >= first_id + G_N_ELEMENTS (params))
    return FALSE;
  p = &params[prop_id - first_id];
  f = G_STRUCT_MEMBER_P (cfg, p->offset);
  switch (p->kind) {
    case K_ENUM_MODE:
    case K_ENUM_END:
    case K_ENUM_INTERVAL:
      g_value_set_enum (value, *(const gint *) f);
      break;
    case K_BOOL:
      g_value_set_boolean (value, *(const gboolean *) f);
      break;
    case K_TIME:
      g_value_set_uint64 (value, (guint64) * (const gint64 *) f);
      break;
    case K_U64:
      g_value_set_uint64 (value, *(const guint64 *) f);
      break;
    case K_UINT:
      g_value_set_uint (value, *(const guint *) f);
      break;
    case K_DOUBLE:
      g_value_set_double (value, *(const gdouble *) f);
      break;
  }
  return TRUE;
}

gint64
gst_tpba_ntp_offset (void)
{
  /* 70 years (17 leap days) between 1900 and 1970 */
  return (g_get_real_time () - g_get_monotonic_time ()) * 1000 +
      G_GINT64_CONSTANT (2208988800) * 1000000000;
}

/* ------------------------------------------------------------------ */
/* URI */

static GParamSpec *
uri_pspec (GstElement * element, const gchar * key)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
      key);

  if (!ps || !(ps->flags & G_PARAM_WRITABLE) ||
      ps->owner_type != G_OBJECT_TYPE (element))
    return NULL;
  return ps;
}

typedef struct
{
  GParamSpec *ps;
  GValue v;
} Setting;

/* tpba://HOST:PORT[/][?query]: an authority with a port, no path, no
 * fragment, no user. */
static gboolean
uri_shape_ok (GUri * u, const gchar * uri, GError ** error)
{
  const gchar *path = g_uri_get_path (u);
  const gchar *why = NULL;

  if (g_uri_get_host (u) == NULL)
    why = "no //HOST:PORT after tpba:";
  else if (g_uri_get_port (u) < 0)
    why = "no port (tpba://HOST:PORT)";
  else if (path && *path && strcmp (path, "/") != 0)
    why = "a path is not allowed";
  else if (g_uri_get_fragment (u) || g_uri_get_userinfo (u))
    why = "no fragment or user part is allowed";
  if (why)
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": %s; expected "
        "tpba://HOST:PORT?key=value&...", uri, why);
  return why == NULL;
}

gboolean
gst_tpba_uri_apply (GstElement * element, const gchar * uri,
    const gchar * host_prop, const gchar * port_prop, GError ** error)
{
  GUri *u;
  GHashTable *params_ht = NULL;
  GHashTableIter it;
  gpointer k, v;
  GError *err = NULL;
  GArray *settings;
  gboolean ok = TRUE;

  u = g_uri_parse (uri, G_URI_FLAGS_NONE, &err);
  if (!u) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": %s", uri, err->message);
    g_error_free (err);
    return FALSE;
  }
  if (g_strcmp0 (g_uri_get_scheme (u), "tpba") != 0) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
        "invalid URI \"%s\": the scheme must be tpba", uri);
    g_uri_unref (u);
    return FALSE;
  }
  if (!uri_shape_ok (u, uri, error)) {
    g_uri_unref (u);
    return FALSE;
  }
  settings = g_array_new (FALSE, TRUE, sizeof (Setting));
  if (g_uri_get_query (u)) {
    params_ht = g_uri_parse_params (g_uri_get_query (u), -1, "&",
        G_URI_PARAMS_NONE, &err);
    if (!params_ht) {
      g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
          "invalid URI \"%s\": %s", uri, err->message);
      g_error_free (err);
      ok = FALSE;
    } else {
      g_hash_table_iter_init (&it, params_ht);
      while (ok && g_hash_table_iter_next (&it, &k, &v)) {
        Setting s = { NULL, G_VALUE_INIT };

        s.ps = uri_pspec (element, k);
        if (!s.ps) {
          g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
              "invalid URI \"%s\": unknown parameter \"%s\"", uri,
              (gchar *) k);
          ok = FALSE;
          break;
        }
        g_value_init (&s.v, s.ps->value_type);
        if (!gst_value_deserialize_with_pspec (&s.v, v, s.ps) ||
            g_param_value_validate (s.ps, &s.v)) {
          g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
              "invalid URI \"%s\": bad value \"%s\" for %s", uri,
              (gchar *) v, (gchar *) k);
          g_value_unset (&s.v);
          ok = FALSE;
          break;
        }
        g_array_append_val (settings, s);
      }
    }
  }
  if (ok && g_uri_get_port (u) >= 0) {
    Setting s = { NULL, G_VALUE_INIT };
    s.ps = uri_pspec (element, port_prop);
    g_value_init (&s.v, s.ps->value_type);
    g_value_set_int (&s.v, g_uri_get_port (u));
    if (g_param_value_validate (s.ps, &s.v)) {
      g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
          "invalid URI \"%s\": bad port", uri);
      g_value_unset (&s.v);
      ok = FALSE;
    } else
      g_array_append_val (settings, s);
  }
  if (ok) {
    const gchar *host = g_uri_get_host (u);
    gchar *h = NULL;

    if (host && *host) {
      /* GUri keeps the brackets of an IPv6 literal out already */
      h = g_strdup (host);
      g_object_set (element, host_prop, h, NULL);
      g_free (h);
    }
    for (guint i = 0; i < settings->len; i++) {
      Setting *s = &g_array_index (settings, Setting, i);
      g_object_set_property (G_OBJECT (element), s->ps->name, &s->v);
    }
  }
  for (guint i = 0; i < settings->len; i++) {
    Setting *s = &g_array_index (settings, Setting, i);
    if (G_IS_VALUE (&s->v))
      g_value_unset (&s->v);
  }
  g_array_free (settings, TRUE);
  if (params_ht)
    g_hash_table_unref (params_ht);
  g_uri_unref (u);
  return ok;
}

gchar *
gst_tpba_uri_build (GstElement * element, const gchar * host_prop,
    const gchar * port_prop)
{
  GParamSpec **ps;
  guint n;
  GString *q = g_string_new (NULL);
  gchar *host = NULL, *res;
  gint port = 0;

  g_object_get (element, host_prop, &host, port_prop, &port, NULL);
  ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (guint i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    gchar *str, *esc;

    if (ps[i]->owner_type != G_OBJECT_TYPE (element) ||
        (ps[i]->flags & G_PARAM_READWRITE) != G_PARAM_READWRITE ||
        g_str_equal (ps[i]->name, host_prop) ||
        g_str_equal (ps[i]->name, port_prop))
      continue;
    g_value_init (&v, ps[i]->value_type);
    g_object_get_property (G_OBJECT (element), ps[i]->name, &v);
    if (g_param_value_defaults (ps[i], &v)) {
      g_value_unset (&v);
      continue;
    }
    str = gst_value_serialize (&v);
    g_value_unset (&v);
    if (!str)
      continue;
    esc = g_uri_escape_string (str, NULL, FALSE);
    g_string_append_printf (q, "%s%s=%s", q->len ? "&" : "", ps[i]->name,
        esc);
    g_free (esc);
    g_free (str);
  }
  g_free (ps);
  res = g_strdup_printf ("tpba://%s%s%s:%d%s%s",
      host && strchr (host, ':') ? "[" : "", host ? host : "",
      host && strchr (host, ':') ? "]" : "", port, q->len ? "?" : "",
      q->str);
  g_string_free (q, TRUE);
  g_free (host);
  return res;
}
