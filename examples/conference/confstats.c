/* The statistics a participant prints every second, from the session's
 * `stats` (see gst-inspect-1.0 tpsssink): what it sends toward each member
 * and what it receives from each, with the loss of the last second on the
 * link (before FEC) and after FEC, and the frame rate decoded from each
 * (a member behind a slow link gets fewer temporal layers, so fewer
 * pictures a second). With --ice, each member's ICE state and the
 * candidate types of the selected pair (host, srflx, prflx, relay) too.
 * With --stats-json the same figures go to a file, one JSON object per
 * line, for plots. */
#include "conference.h"

typedef struct
{
  guint64 received, lost, unrecovered;
  guint64 frames;               /* decoded from it */
  gint64 at;                    /* monotonic, us */
} MemberCounts;

typedef struct
{
  guint id;
  guint64 send_data_rate, send_rate, receive_rate;
  gint64 rtt;
  const gchar *phase;
  MemberCounts counts;
} MemberFigures;

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, name, &v);
  return v;
}

static void
read_member (const GstStructure * s, MemberFigures * f)
{
  f->id = 0;
  gst_structure_get_uint (s, "id", &f->id);
  f->send_data_rate = field_u64 (s, "send-data-rate");
  f->send_rate = field_u64 (s, "send-rate");
  f->receive_rate = field_u64 (s, "receive-rate");
  f->rtt = -1;
  gst_structure_get_int64 (s, "rtt", &f->rtt);
  f->phase = gst_structure_get_string (s, "send-phase");
  f->counts.received = field_u64 (s, "packets-received");
  f->counts.lost = field_u64 (s, "packets-lost");
  f->counts.unrecovered = field_u64 (s, "unrecoverable") +
      field_u64 (s, "packets-not-delivered");
}

/* Pictures a second decoded from the member since @last. */
static gdouble
frame_rate (const MemberCounts * last, const MemberCounts * now)
{
  if (now->frames < last->frames || now->at <= last->at)
    return 0.0;                 /* its tile was made anew */
  return (now->frames - last->frames) * 1e6 / (now->at - last->at);
}

/* Shares of the packets sent to us in the last second: lost on the link, and
 * still missing after FEC; and the frame rate decoded. */
static void
last_second (Conference * conf, const MemberFigures * f, gdouble * link,
    gdouble * after_fec, gdouble * fps)
{
  MemberCounts *last = g_hash_table_lookup (conf->last_counts,
      GUINT_TO_POINTER (f->id));
  MemberCounts zero = { 0 };
  guint64 lost, expected;

  if (!last) {
    last = g_new0 (MemberCounts, 1);
    g_hash_table_insert (conf->last_counts, GUINT_TO_POINTER (f->id), last);
  }
  /* Counters restart when a member rejoins. */
  if (f->counts.received < last->received)
    *last = zero;
  lost = f->counts.lost - MIN (f->counts.lost, last->lost);
  expected = f->counts.received - last->received + lost;
  *link = expected ? (gdouble) lost / expected : 0.0;
  *after_fec = expected ? (gdouble) (f->counts.unrecovered -
      MIN (f->counts.unrecovered, last->unrecovered)) / expected : 0.0;
  *fps = last->at ? frame_rate (last, &f->counts) : 0.0;
  *last = f->counts;
}

static void
print_member (const MemberFigures * f, gdouble link, gdouble after_fec,
    gdouble fps)
{
  gchar rtt[32] = "?";

  if (f->rtt >= 0)
    g_snprintf (rtt, sizeof rtt, "%.0f", f->rtt / 1e6);
  g_print ("  p%-3u <- %6.0f kbit/s, %4.1f fps, lost %5.2f %% on the link, "
      "%5.2f %% after FEC | -> data %6.0f kbit/s, sent %6.0f kbit/s (%s) | "
      "rtt %s ms\n",
      f->id, f->receive_rate / 1e3, fps, 100 * link, 100 * after_fec,
      f->send_data_rate / 1e3, f->send_rate / 1e3,
      f->phase ? f->phase : "?", rtt);
}

#ifdef HAVE_NICE
/* "ice":{"state":..,"local":..,"remote":..} (types null before a pair is
 * selected) */
static void
json_ice (Conference * conf, GString * json, guint member)
{
  const gchar *state;
  gchar *local, *remote;

  if (!conf_ice_peer (conf, member, &state, &local, &remote))
    return;
  g_string_append_printf (json, ",\"ice\":{\"state\":\"%s\",\"local\":%s%s%s,"
      "\"remote\":%s%s%s}", state, local ? "\"" : "", local ? local : "null",
      local ? "\"" : "", remote ? "\"" : "", remote ? remote : "null",
      remote ? "\"" : "");
  g_free (local);
  g_free (remote);
}

static void
print_ice (Conference * conf, guint member)
{
  gchar *pair = conf_ice_describe (conf, member);

  if (pair)
    g_print ("        ice %s\n", pair);
  g_free (pair);
}
#endif

static void
json_member (GString * json, const MemberFigures * f, gdouble link,
    gdouble after_fec, gdouble fps)
{
  g_string_append_printf (json, "%s{\"id\":%u,\"fps\":%.2f,\"recv_bps\":%"
      G_GUINT64_FORMAT
      ",\"send_data_bps\":%" G_GUINT64_FORMAT ",\"send_bps\":%"
      G_GUINT64_FORMAT ",\"loss_link\":%.5f,\"loss_after_fec\":%.5f,"
      "\"rtt_ms\":%.1f", json->str[json->len - 1] == '[' ? "" : ",", f->id,
      fps,
      f->receive_rate, f->send_data_rate, f->send_rate, link, after_fec,
      f->rtt >= 0 ? f->rtt / 1e6 : -1.0);
}

/* One member's line (and its ICE line), and its JSON object. */
static void
report_member (Conference * conf, GString * json, MemberFigures * f)
{
  gdouble link, after_fec, fps;

  f->counts.frames = conf_tiles_frames (conf, f->id);
  f->counts.at = g_get_monotonic_time ();
  last_second (conf, f, &link, &after_fec, &fps);
  print_member (f, link, after_fec, fps);
  json_member (json, f, link, after_fec, fps);
#ifdef HAVE_NICE
  print_ice (conf, f->id);
  json_ice (conf, json, f->id);
#endif
  g_string_append_c (json, '}');
}

#ifdef HAVE_NICE
/* ICE peers the session has not heard from yet (still connecting, or
 * failed) get a line too, with nothing received, so their ICE state shows. */
static void
report_silent_peers (Conference * conf, GString * json, GHashTable * reported)
{
  GArray *ids = conf_ice_members (conf);

  for (guint i = 0; ids && i < ids->len; i++) {
    MemberFigures f = { 0 };

    f.id = g_array_index (ids, guint, i);
    f.rtt = -1;
    if (!g_hash_table_contains (reported, GUINT_TO_POINTER (f.id)))
      report_member (conf, json, &f);
  }
  if (ids)
    g_array_unref (ids);
}
#endif

void
conf_stats_print (Conference * conf)
{
  GstStructure *st = NULL;
  const GValue *members;
  gdouble t = (g_get_monotonic_time () - conf->started) / 1e6;
  guint64 data_rate;
  GString *json = g_string_new (NULL);
  GHashTable *reported;

  g_object_get (conf->tx, "stats", &st, NULL);
  if (!st)
    return;
  if (!conf->last_counts)
    conf->last_counts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  data_rate = field_u64 (st, "data-rate");
  g_print ("t=%5.1f s  p%u (%s) encodes at %.0f kbit/s, %u remote tiles\n",
      t, conf->opt.id, conf->opt.name, data_rate / 1e3,
      conf_tiles_count (conf));
  g_string_printf (json, "{\"t\":%.2f,\"id\":%u,\"data_bps\":%"
      G_GUINT64_FORMAT ",\"tiles\":%u,\"members\":[", t, conf->opt.id,
      data_rate, conf_tiles_count (conf));
  reported = g_hash_table_new (NULL, NULL);
  members = gst_structure_get_value (st, "members");
  for (guint i = 0; members && i < gst_value_list_get_size (members); i++) {
    const GstStructure *ms =
        gst_value_get_structure (gst_value_list_get_value (members, i));
    MemberFigures f;

    read_member (ms, &f);
    if (f.id == conf->opt.id)
      continue;
    report_member (conf, json, &f);
    g_hash_table_add (reported, GUINT_TO_POINTER (f.id));
  }
#ifdef HAVE_NICE
  report_silent_peers (conf, json, reported);
#endif
  g_hash_table_destroy (reported);
  g_string_append (json, "]}\n");
  if (conf->stats_json) {
    fputs (json->str, conf->stats_json);
    fflush (conf->stats_json);
  }
  g_string_free (json, TRUE);
  gst_structure_free (st);
}

void
conf_stats_clear (Conference * conf)
{
  if (conf->last_counts)
    g_hash_table_destroy (conf->last_counts);
  conf->last_counts = NULL;
}
