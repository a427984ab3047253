/* Shared by rlmsink and rlmsrc (see gstrlmutil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstrlmutil.h"

GType
gst_rlm_join_draw_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RLM_JOIN_DRAW_PAPER, "lambda/2 + X, X of density lambda e^(-lambda x) "
          "on [0, 4 lambda], as section 4 prints it", "paper"},
    {RLM_JOIN_DRAW_MEAN, "lambda/2 + X, X exponential of mean lambda on "
          "[0, 4 lambda] (our reading of the units)", "mean"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRlmJoinDraw", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define S GST_RLM_PARAM_SINK
#define R GST_RLM_PARAM_SRC
#define H (1e12 * 3600)
#define P(name, blurb, kind, type, field, min, max, elements) \
  { name, NULL, blurb, GST_PARAM_KIND_ ## kind, type, min, max, \
    G_STRUCT_OFFSET (RlmConfig, field), elements }

static const GstParamEntry params[] = {
  P ("alpha", "Join-timer backoff factor on a failed experiment "
        "(section 3.5; paper: 2)", DOUBLE, NULL, alpha, 1, 100, R),
  P ("beta", "Join-timer relaxation factor every detection time in steady "
        "state (section 3.5; paper: 2/3)", DOUBLE, NULL, beta, 0.01, 1, R),
  P ("k1", "Detection timer k1 T_D + k2 sigma_D: scale of the mean "
        "(section 3.5; paper: 1)", DOUBLE, NULL, k1, 0, 100, R),
  P ("k2", "Detection timer k1 T_D + k2 sigma_D: scale of the deviation "
        "(section 3.5; paper: 2)", DOUBLE, NULL, k2, 0, 100, R),
  P ("g1", "Gain of the detection-time mean filter (section 3.5; paper: "
        "0.25)", DOUBLE, NULL, g1, 0, 1, R),
  P ("g2", "Gain of the detection-time deviation filter (section 3.5; "
        "paper: 0.25)", DOUBLE, NULL, g2, 0, 1, R),
  P ("t-join-min", "Shortest mean join timer T_J^min, ns (section 4; "
        "paper: 5 s)", TIME, NULL, t_join_min, 1e6, H, R),
  P ("t-join-max", "Longest mean join timer T_J^max, ns (section 4; paper: "
        "600 s)", TIME, NULL, t_join_max, 1e6, H, R),
  P ("join-draw", "How a join-timer interval is drawn from its mean: paper "
        "(section 4 as printed) or mean", ENUM, gst_rlm_join_draw_get_type,
      join_draw, 0, 0, R),
  P ("detection-time-init", "Start of the detection-time estimate T_D, ns "
        "(the paper: conservative; ours: 2 s)", TIME, NULL,
      detection_time_init, 0, H, R),
  P ("detection-dev-init", "Start of the detection-time deviation sigma_D, "
        "ns (ours: 500 ms)", TIME, NULL, detection_dev_init, 0, H, R),
  P ("loss-time-constant", "Memory of the short-term loss estimator, ns "
        "(ours: 1 s)", TIME, NULL, loss_time_constant, 1e6, H, R),
  P ("loss-threshold", "Loss fraction over which a layer is dropped in the "
        "measurement state, fraction 0..1 (ours: 0.1)", DOUBLE, NULL,
      loss_threshold, 0, 1, R),
  P ("scale-join-max", "T_J^max grows with the estimated session size "
        "(section 3.5)", BOOLEAN, NULL, scale_join_max, 0, 0, R),
  P ("join-max-ref", "T_J^max is scaled by sessions size / this, receivers "
        "(ours: 1)", UINT, NULL, join_max_ref, 1, G_MAXUINT, R),
  P ("start-level", "Level joined at the start, e.g. the one held at the end "
        "of an earlier session (the paper: 1)", UINT, NULL, start_level, 1,
      RLM_MAX_LAYERS, R),
  P ("join-reported", "Until its first drop, join at once, unannounced, up "
        "to the lowest level other receivers report as settled (ours; the "
        "paper: off)", BOOLEAN, NULL, join_reported, 0, 0, R),
  P ("gap-retry", "A join timer held back by another receiver's lower "
        "experiment retries when the last one in progress ends, not after a "
        "new draw (ours; the paper: off)", BOOLEAN, NULL, gap_retry, 0, 0, R),
  P ("measure-own-loss", "In M without an experiment of its own, a loss "
        "while another receiver's experiment above its level is in progress "
        "drops nothing and restarts the measurement (ours; the paper: off)",
        BOOLEAN, NULL, measure_own_loss, 0, 0, R),
  P ("learn-detection-time", "Another receiver's failed experiment one "
        "level up, learned as a backoff, also feeds the detection-time "
        "estimator the time from its announcement to the receiver's first "
        "loss after it, at most one detection window (ours; the paper: off)",
        BOOLEAN, NULL, learn_detection_time, 0, 0, R),
  P ("join-latency-hold", "Another receiver's experiment below the "
        "receiver's target holds its join timer for at most this many times "
        "the largest join latency it measured (its join to the layer's first "
        "packet), not the whole detection window, factor (ours; 0: the "
        "window, the paper)", DOUBLE, NULL, join_latency_hold, 0, 1000, R),
  P ("reported-max-age", "join-reported counts only settled reports heard "
        "within this long, ns (ours; 0: every member's last report)", TIME,
      NULL, reported_max_age, 0, H, R),
  P ("first-climb-unheld", "Until the receiver's first loss, and while "
        "the join timer of its next level never backed off, another "
        "receiver's experiment at a level it holds does not hold back its "
        "join timer; it cannot load the receiver's path (ours; the paper, "
        "section 3.4: off)", BOOLEAN,
      NULL, first_climb_unheld, 0, 0, R),
  P ("first-climb-unheld-for", "first-climb-unheld ends this long after "
        "the receiver's start, ns (ours; 0: only with the first climb)",
      TIME, NULL, first_climb_unheld_for, 0, H, R),
  P ("first-climb-to-settled", "With first-climb-unheld, the receiver's "
        "experiment to a level above the lowest level the other receivers "
        "report settled is held back by their lower experiments as the "
        "paper holds it: the unheld climb stops at the session's settled "
        "level; with no settled report heard, first-climb-unheld-for alone "
        "ends it (ours; off)", BOOLEAN, NULL, first_climb_to_settled, 0, 0,
      R),
  P ("learn-higher-failures", "A loss in steady state, with nothing of the "
        "receiver's own in progress, while another receiver's experiment "
        "two or more levels above its own is the highest in progress: that "
        "level's join timer backs off (once per experiment) and the "
        "receiver stays in steady state (ours; the paper, section 3.4: off, "
        "hysteresis then measurement)", BOOLEAN, NULL, learn_higher_failures,
      0, 0, R),
  P ("learn-higher-sole", "With learn-higher-failures, the receiver learns "
        "such a failure only while that experiment is the only one in "
        "progress above its level; with another one between, the loss may "
        "be that one's, behind another bottleneck, and the paper's "
        "hysteresis then measurement follow (ours; off)", BOOLEAN, NULL,
      learn_higher_sole, 0, 0, R),
  P ("learn-higher-onset", "With learn-higher-failures, a loss that comes "
        "later than this after the first announcement of that experiment "
        "is not taken as its failure (a failure on the receiver's path "
        "congests it sooner), ns (ours; 0: no bound)", TIME, NULL,
      learn_higher_onset, 0, H, R),
  P ("learn-higher-onset-measured", "With learn-higher-failures, the bound "
        "on that loss's onset is measured on the receiver's own path: the "
        "mean of its onset samples (its own failed experiments, and "
        "others' failures one level up from their last announcement; none "
        "shorter than its largest join latency) plus k2 deviations; "
        "learn-higher-onset until the first sample (ours; off)", BOOLEAN,
      NULL, learn_higher_onset_measured, 0, 0, R),
  P ("learn-higher-fresh-between", "With learn-higher-failures, such a "
        "loss is not taken as that experiment's failure while another "
        "experiment above the receiver's level and below it began (the "
        "first of its overlapping announcements) within the onset bound "
        "(learn-higher-onset, or the measured one; none: the detection "
        "window): that one may be congesting the receiver's own path, and "
        "the paper's hysteresis then measurement follow (ours; off)",
      BOOLEAN, NULL, learn_higher_fresh_between, 0, 0, R),
  P ("learn-reported-failures", "A receiver whose experiment failed, or "
        "that learned a failure, names that level in its reports with the "
        "time left to its earliest retry there (half the join timer it "
        "backed off to); a receiver below that level that hears it makes "
        "no experiment there before then, so one that joined after the "
        "failure learns it too (ours; the paper: off)", BOOLEAN, NULL,
      learn_reported_failures, 0, 0, R),
  P ("report-interval", "Mean interval of the presence reports, ns (ours: "
        "5 s)", TIME, NULL, report_interval, 1e7, H, R),
  P ("report-bandwidth", "Bound of all receivers' reports together, bit/s "
        "(ours: 4000)", UINT, NULL, report_bandwidth, 100, G_MAXUINT, R),
  P ("member-timeout", "A receiver is gone after this many report "
        "intervals of silence (report-interval ns each; ours: 5)", UINT, NULL,
      member_timeout, 1, 1000, R),
  P ("max-members", "Receivers kept in the member table, receivers (ours: "
        "10000)", UINT, NULL, max_members, 1, 1000000, R),
  P ("ext-id", "RFC 8285 one-byte header extension id of the per-layer "
        "sequence number, 1..14 (ours: 6; sender and receivers must agree)",
      UINT, NULL, ext_id, 1, 14, S | R),
  P ("source-timeout", "Another SSRC is taken as the source once the source "
        "was silent this long, ns (ours: 2 s)", TIME, NULL, source_timeout,
      1e6, H, R),
};

static void
config_init (gpointer cfg)
{
  rlm_config_init (cfg);
}

const GstParamTable gst_rlm_params = {
  params, G_N_ELEMENTS (params), sizeof (RlmConfig), config_init
};

/* One entry of `groups`: ADDRESS or ADDRESS:PORT (IPv6: [ADDRESS]:PORT). */
static gboolean
parse_group (const gchar * entry, GInetAddress ** addr, gint * port,
    GError ** error)
{
  gchar *host = g_strstrip (g_strdup (entry)), *colon, *end;
  gboolean ok = FALSE;

  *port = -1;
  colon = strrchr (host, ':');
  if (host[0] == '[' && (end = strchr (host, ']'))) {
    *end = '\0';
    if (end[1] == ':')
      *port = (gint) strtol (end + 2, NULL, 10);
    memmove (host, host + 1, strlen (host));
  } else if (colon && strchr (host, ':') == colon) {
    *colon = '\0';
    *port = (gint) strtol (colon + 1, &end, 10);
    if (*end || *port <= 0 || *port > 65535)
      *port = 0;
  }
  *addr = g_inet_address_new_from_string (host);
  if (*port == 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "groups: bad port in \"%s\"", entry);
  else if (!*addr || !g_inet_address_get_is_multicast (*addr))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "groups: \"%s\" is not a multicast address", entry);
  else
    ok = TRUE;
  if (!ok)
    g_clear_object (addr);
  g_free (host);
  return ok;
}

static gboolean
addresses_from_list (const gchar * groups, gint port, gboolean port_per_layer,
    guint n_layers, GSocketAddress ** out, GError ** error)
{
  gchar **list = g_strsplit (groups, ",", -1);
  gboolean ok = g_strv_length (list) >= n_layers;

  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "groups: %u group(s) for %u layers", g_strv_length (list), n_layers);
  for (guint i = 0; ok && i < n_layers; i++) {
    GInetAddress *ia;
    gint p;

    ok = parse_group (list[i], &ia, &p, error);
    if (ok) {
      out[i] = g_inet_socket_address_new (ia, p > 0 ? (guint) p :
          (guint) port + (port_per_layer ? 2 * i : 0));
      g_object_unref (ia);
    }
  }
  g_strfreev (list);
  return ok;
}

static gboolean
addresses_from_base (const gchar * address, gint port,
    gboolean port_per_layer, guint n_layers, GSocketAddress ** out,
    GError ** error)
{
  GInetAddress *base = g_inet_address_new_from_string (address);
  const guint8 *bytes;
  gsize len;
  gboolean ok = base && g_inet_address_get_is_multicast (base);

  if (!ok) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "address: \"%s\" is not a multicast address (the base layer's "
        "group)", address ? address : "");
    g_clear_object (&base);
    return FALSE;
  }
  bytes = g_inet_address_to_bytes (base);
  len = g_inet_address_get_native_size (base);
  for (guint i = 0; ok && i < n_layers; i++) {
    guint8 group[16];
    guint16 p;

    ok = rlm_layer_group (bytes, len, port, i, port_per_layer, group, &p);
    if (ok) {
      GInetAddress *ia = g_inet_address_new_from_bytes (group,
          g_inet_address_get_family (base));
      out[i] = g_inet_socket_address_new (ia, p);
      g_object_unref (ia);
    } else
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "address %s, port %d: the group or port of layer %u would wrap",
          address, port, i);
  }
  g_object_unref (base);
  return ok;
}

gboolean
gst_rlm_layer_addresses (const gchar * address, gint port,
    const gchar * groups, gboolean port_per_layer, guint n_layers,
    GSocketAddress ** out, GError ** error)
{
  gboolean ok;

  memset (out, 0, n_layers * sizeof (GSocketAddress *));
  if (groups && *groups)
    ok = addresses_from_list (groups, port, port_per_layer, n_layers, out,
        error);
  else
    ok = addresses_from_base (address, port, port_per_layer, n_layers, out,
        error);
  if (!ok)
    for (guint i = 0; i < n_layers; i++)
      g_clear_object (&out[i]);
  return ok;
}

void
gst_rlm_set_string (gchar ** field, const GValue * value, const gchar * dflt)
{
  g_free (*field);
  *field = g_value_dup_string (value);
  if (!*field && dflt)
    *field = g_strdup (dflt);
}

void
gst_rlm_settings_init (GstRlmSettings * s, const GstNetUdpProps * udp)
{
  memset (s, 0, sizeof (*s));
  gst_net_udp_props_init_settings (udp, &s->net);
  s->layers = GST_RLM_DEFAULT_LAYERS;
  rlm_config_init (&s->cfg);
}

void
gst_rlm_settings_clear (GstRlmSettings * s)
{
  gst_net_udp_settings_clear (&s->net);
  g_clear_pointer (&s->groups, g_free);
}

void
gst_rlm_settings_install (GObjectClass * klass, guint first_id,
    const GstNetUdpProps * udp, guint elements)
{
  gst_net_udp_props_install (udp, klass, first_id + GST_RLM_PROP_UDP);
  gst_param_table_install (&gst_rlm_params, klass,
      first_id + GST_RLM_PROP_CONFIG, elements);
}

gboolean
gst_rlm_settings_set (GstRlmSettings * s, const GstNetUdpProps * udp,
    guint first_id, guint prop_id, const GValue * value)
{
  if (prop_id == first_id + GST_RLM_PROP_GROUPS)
    gst_rlm_set_string (&s->groups, value, NULL);
  else if (prop_id == first_id + GST_RLM_PROP_PORT_PER_LAYER)
    s->port_per_layer = g_value_get_boolean (value);
  else if (prop_id == first_id + GST_RLM_PROP_LAYERS)
    s->layers = g_value_get_uint (value);
  else
    return gst_net_udp_props_set (udp, &s->net, first_id + GST_RLM_PROP_UDP,
        prop_id, value) || gst_param_table_set (&gst_rlm_params, &s->cfg,
        first_id + GST_RLM_PROP_CONFIG, prop_id, value);
  return TRUE;
}

gboolean
gst_rlm_settings_get (const GstRlmSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  if (prop_id == first_id + GST_RLM_PROP_GROUPS)
    g_value_set_string (value, s->groups);
  else if (prop_id == first_id + GST_RLM_PROP_PORT_PER_LAYER)
    g_value_set_boolean (value, s->port_per_layer);
  else if (prop_id == first_id + GST_RLM_PROP_LAYERS)
    g_value_set_uint (value, s->layers);
  else
    return gst_net_udp_props_get (&s->net, first_id + GST_RLM_PROP_UDP,
        prop_id, value) || gst_param_table_get (&gst_rlm_params, &s->cfg,
        first_id + GST_RLM_PROP_CONFIG, prop_id, value);
  return TRUE;
}
