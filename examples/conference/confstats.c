/* The statistics a participant prints every second, from the session's
 * `stats` (see gst-inspect-1.0 tpsssink): what it sends toward each member
 * and what it receives from each, with the loss of the last second on the
 * link (before FEC) and after FEC, and the frame rate decoded from each
 * (a member behind a slow link gets fewer temporal layers, so fewer
 * pictures a second). With --ice, each member's ICE state and the
 * candidate types of the selected pair (host, srflx, prflx, relay) too.
 * With audio, the rate of each member's audio session and how long lip
 * sync holds each of its streams back (the stream that arrives later sets
 * the delay, tpsssrc's `sync` stats).
 * With --stats-json the same figures go to a file, one JSON object per
 * line, for plots. */
#include "conference.h"

typedef struct
{
  guint64 received, lost, unrecovered;
  guint64 frames;               /* decoded from it */
  guint64 video_bytes, audio_bytes;     /* RTP into its tile and voice */
  gint64 at;                    /* monotonic, us */
} MemberCounts;

/* A member's last second. */
typedef struct
{
  gdouble link, after_fec;      /* shares of its packets lost */
  gdouble fps;
  gdouble video_bps, audio_bps; /* RTP bytes its tile and voice took */
} SecondFigures;

typedef struct
{
  guint id;
  guint64 send_data_rate, send_rate, receive_rate;
  guint64 send_notified_rate;   /* the rate it last notified us */
  guint64 recv_notified_rate;   /* the rate we last notified it */
  guint layers_sent;            /* the prefix of layers it gets from us */
  guint64 packets_sent, parity_sent;    /* media and parity to it so far */
  guint64 parity_dropped;       /* of parity_sent, never left */
  guint64 parity_skipped;       /* made, not queued: its queue's backlog */
  guint64 key_flush_packets;    /* of its queue, dropped at key units */
  guint64 queue_key_asks;       /* times its queue asked for a key unit */
  guint64 age_dropped_frames;   /* frames not sent to it for its queue's
                                 * age (tpsssink max-queue-age) */
  guint64 late_reports;         /* our reports on it that ran late */
  guint64 audio_rate;           /* received in the audio session */
  gdouble video_hold_ms, audio_hold_ms; /* lip sync, -1: not synced */
  guint64 audio_over_max_hold;  /* audio buffers not held for a video
                                 * lagging more than max-hold */
  gdouble av_lag_ms;            /* its video's least delay less its audio's
                                 * (both from its sender reports); 0 before
                                 * both are synced */
  gdouble send_queue_ms;        /* what our queue toward it holds, at its
                                 * rate (tpsssink's layer-queue-time) */
  /* the audio session's packets so far: received, lost on the link,
   * missing after its FEC; and the holes its decoder filled */
  guint64 audio_received, audio_lost, audio_unrecovered, audio_gaps;
  gint64 rtt;
  const gchar *phase;
  gboolean left;                /* it said BYE: its figures as it left */
  MemberCounts counts;
} MemberFigures;

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, name, &v);
  return v;
}

/* The structure of @id in the list @field of @st, NULL if none. */
static const GstStructure *
find_member (const GstStructure * st, const gchar * field, guint id)
{
  const GValue *list = st ? gst_structure_get_value (st, field) : NULL;

  for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
    const GstStructure *ms =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    guint mid = 0;

    if (gst_structure_get_uint (ms, "id", &mid) && mid == id)
      return ms;
  }
  return NULL;
}

/* How long lip sync holds @id's stream in @st back, ms; -1 before its
 * first sender report. */
static gdouble
hold_ms (const GstStructure * st, guint id)
{
  const GstStructure *s = find_member (st, "sync", id);
  gint64 hold = 0;

  if (!s || field_u64 (s, "sr-stamped") == 0 ||
      !gst_structure_get_int64 (s, "hold", &hold))
    return -1.0;
  return hold / 1e6;
}

/* @id's stream's own least delay in @st (its offset less its hold), ns;
 * FALSE before its first sender report. */
static gboolean
least_delay (const GstStructure * st, guint id, gint64 * delay)
{
  const GstStructure *s = find_member (st, "sync", id);
  gint64 offset = 0, hold = 0;

  if (!s || field_u64 (s, "sr-stamped") == 0 ||
      !gst_structure_get_int64 (s, "offset", &offset) ||
      !gst_structure_get_int64 (s, "hold", &hold))
    return FALSE;
  *delay = offset - hold;
  return TRUE;
}

/* The audio session's and lip sync's figures of @f's member. */
static void
read_audio (const GstStructure * video_rx, const GstStructure * audio_rx,
    MemberFigures * f)
{
  const GstStructure *am = find_member (audio_rx, "members", f->id);
  gint64 video, audio;

  f->audio_rate = am ? field_u64 (am, "receive-rate") : 0;
  f->audio_received = am ? field_u64 (am, "packets-received") : 0;
  f->audio_lost = am ? field_u64 (am, "packets-lost") : 0;
  f->audio_unrecovered = am ? field_u64 (am, "unrecoverable") +
      field_u64 (am, "packets-not-delivered") : 0;
  f->video_hold_ms = hold_ms (video_rx, f->id);
  f->audio_hold_ms = hold_ms (audio_rx, f->id);
  am = find_member (audio_rx, "sync", f->id);
  f->audio_over_max_hold = am ? field_u64 (am, "over-max-hold") : 0;
  f->av_lag_ms = 0.0;
  if (least_delay (video_rx, f->id, &video) &&
      least_delay (audio_rx, f->id, &audio))
    f->av_lag_ms = (video - audio) / 1e6;
}

static void
read_member (const GstStructure * s, MemberFigures * f)
{
  gint64 queue_time = 0;

  f->id = 0;
  gst_structure_get_uint (s, "id", &f->id);
  f->send_data_rate = field_u64 (s, "send-data-rate");
  f->send_rate = field_u64 (s, "send-rate");
  f->send_notified_rate = field_u64 (s, "send-notified-rate");
  f->recv_notified_rate = field_u64 (s, "recv-notified-rate");
  f->layers_sent = 0;
  gst_structure_get_uint (s, "layers-sent", &f->layers_sent);
  f->packets_sent = field_u64 (s, "packets-sent");
  f->parity_sent = field_u64 (s, "parity-sent");
  f->parity_dropped = field_u64 (s, "parity-dropped");
  f->parity_skipped = field_u64 (s, "parity-skipped");
  f->key_flush_packets = field_u64 (s, "key-flush-packets");
  f->queue_key_asks = field_u64 (s, "queue-key-asks");
  f->age_dropped_frames = field_u64 (s, "age-dropped-frames");
  f->send_queue_ms = 0.0;
  if (gst_structure_get_int64 (s, "layer-queue-time", &queue_time))
    f->send_queue_ms = queue_time / 1e6;
  f->late_reports = field_u64 (s, "late-reports");
  f->receive_rate = field_u64 (s, "receive-rate");
  f->rtt = -1;
  gst_structure_get_int64 (s, "rtt", &f->rtt);
  f->phase = gst_structure_get_string (s, "send-phase");
  f->left = FALSE;
  gst_structure_get_boolean (s, "left", &f->left);
  f->counts.received = field_u64 (s, "packets-received");
  f->counts.lost = field_u64 (s, "packets-lost");
  f->counts.unrecovered = field_u64 (s, "unrecoverable") +
      field_u64 (s, "packets-not-delivered");
}

/* Per second, from @last's count @then to @now's (0 when the branch was
 * made anew in between). */
static gdouble
per_second (guint64 then, guint64 now, const MemberCounts * last,
    const MemberCounts * current)
{
  if (!last->at || now < then || current->at <= last->at)
    return 0.0;
  return (now - then) * 1e6 / (current->at - last->at);
}

/* Shares of the packets sent to us in the last second: lost on the link, and
 * still missing after FEC; and the frame rate decoded. */
static void
last_second (Conference * conf, const MemberFigures * f, SecondFigures * sf)
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
  sf->link = expected ? (gdouble) lost / expected : 0.0;
  sf->after_fec = expected ? (gdouble) (f->counts.unrecovered -
      MIN (f->counts.unrecovered, last->unrecovered)) / expected : 0.0;
  sf->fps = per_second (last->frames, f->counts.frames, last, &f->counts);
  sf->video_bps = 8 * per_second (last->video_bytes, f->counts.video_bytes,
      last, &f->counts);
  sf->audio_bps = 8 * per_second (last->audio_bytes, f->counts.audio_bytes,
      last, &f->counts);
  *last = f->counts;
}

static void
print_member (const MemberFigures * f, const SecondFigures * sf)
{
  gchar rtt[32] = "?";

  if (f->left) {
    g_print ("  p%-3u left\n", f->id);
    return;
  }
  if (f->rtt >= 0)
    g_snprintf (rtt, sizeof rtt, "%.0f", f->rtt / 1e6);
  g_print ("  p%-3u <- %6.0f kbit/s, %4.1f fps, lost %5.2f %% on the link, "
      "%5.2f %% after FEC | -> data %6.0f kbit/s, sent %6.0f kbit/s (%s) | "
      "rtt %s ms\n",
      f->id, sf->video_bps / 1e3, sf->fps, 100 * sf->link,
      100 * sf->after_fec,
      f->send_data_rate / 1e3, f->send_rate / 1e3,
      f->phase ? f->phase : "?", rtt);
  if (f->audio_rate || f->audio_hold_ms >= 0)
    g_print ("        audio <- %3.0f kbit/s | lip sync holds video %.0f ms, "
        "audio %.0f ms\n", sf->audio_bps / 1e3, f->video_hold_ms,
        f->audio_hold_ms);
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
json_member (GString * json, const MemberFigures * f,
    const SecondFigures * sf)
{
  ConfStatsMember j = {
    .id = f->id,.fps = sf->fps,.recv_bps = f->receive_rate,
    .send_data_bps = f->send_data_rate,.send_bps = f->send_rate,
    .loss_link = sf->link,.loss_after_fec = sf->after_fec,
    .rtt_ms = f->rtt >= 0 ? f->rtt / 1e6 : -1.0,
    .media_bps = sf->video_bps,.audio_media_bps = sf->audio_bps,
    .send_notified_bps = f->send_notified_rate,
    .recv_notified_bps = f->recv_notified_rate,
    .layers_sent = f->layers_sent,.packets_sent = f->packets_sent,
    .parity_sent = f->parity_sent,.parity_dropped = f->parity_dropped,
    .parity_skipped = f->parity_skipped,
    .key_flush_packets = f->key_flush_packets,
    .late_reports = f->late_reports,.queue_key_asks = f->queue_key_asks,
    .age_dropped_frames = f->age_dropped_frames,
    .audio_recv_bps = f->audio_rate,.video_hold_ms = f->video_hold_ms,
    .audio_hold_ms = f->audio_hold_ms,
    .audio_over_max_hold = f->audio_over_max_hold,
    .av_lag_ms = f->av_lag_ms,.send_queue_ms = f->send_queue_ms,
    .audio_packets = f->audio_received,.audio_lost = f->audio_lost,
    .audio_unrecovered = f->audio_unrecovered,.audio_gaps = f->audio_gaps,
    .left = f->left,
  };

  conf_stats_json_member (json, &j);
}

/* One member's line (and its ICE line), and its JSON object. */
static void
report_member (Conference * conf, GString * json, MemberFigures * f)
{
  SecondFigures sf;

  f->counts.frames = conf_tiles_frames (conf, f->id);
  f->counts.video_bytes = conf_branches_bytes (&conf->tiles, f->id);
  f->counts.audio_bytes = conf_branches_bytes (&conf->voices, f->id);
  f->audio_gaps = conf_audio_gaps (conf, f->id);
  f->counts.at = g_get_monotonic_time ();
  last_second (conf, f, &sf);
  print_member (f, &sf);
  json_member (json, f, &sf);
#ifdef HAVE_NICE
  print_ice (conf, f->id);
  json_ice (conf, json, f->id);
#endif
  conf_stats_json_member_end (json);
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
    f.video_hold_ms = f.audio_hold_ms = -1.0;
    if (!g_hash_table_contains (reported, GUINT_TO_POINTER (f.id)))
      report_member (conf, json, &f);
  }
  if (ids)
    g_array_unref (ids);
}
#endif

/* @enc from x264layerenc's stats (the element named "enc"); zeros without
 * it. */
static void
read_encoder (Conference * conf, ConfStatsEncoder * enc)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline), "enc");
  GstStructure *st = NULL;
  const GValue *qps;
  guint target = 0, bps = 0;

  *enc = (ConfStatsEncoder) {
  0};
  if (e)
    g_object_get (e, "stats", &st, NULL);
  if (!st) {
    gst_clear_object (&e);
    return;
  }
  gst_structure_get_uint (st, "bitrate-target", &target);
  gst_structure_get_uint (st, "bitrate-measured", &bps);
  gst_structure_get_uint64 (st, "frames", &enc->frames);
  enc->target_bps = target;
  enc->bps = bps;
  enc->qp = G_MAXINT;
  qps = gst_structure_get_value (st, "layer-qp");
  for (guint i = 0; qps && i < gst_value_array_get_size (qps); i++)
    enc->qp = MIN (enc->qp, g_value_get_int (gst_value_array_get_value (qps,
                i)));
  if (enc->qp == G_MAXINT)
    enc->qp = -1;
  gst_structure_free (st);
  gst_object_unref (e);
}

/* Our copies' uplink figures from tpsssink's stats @st. */
static void
read_uplink (const GstStructure * st, ConfStatsUplink * uplink)
{
  uplink->send_bps = field_u64 (st, "uplink-send-rate");
  uplink->estimate_bps = field_u64 (st, "uplink-estimate");
  if (!gst_structure_get_double (st, "uplink-share", &uplink->share))
    uplink->share = 1.0;
}

void
conf_stats_print (Conference * conf)
{
  ConfStatsEncoder enc;
  ConfStatsUplink uplink;
  GstStructure *st = NULL, *video_rx = NULL, *audio_rx = NULL;
  const GValue *members;
  gdouble t = (g_get_monotonic_time () - conf->started) / 1e6;
  guint64 data_rate;
  GString *json = g_string_new (NULL);
  GHashTable *reported;

  g_object_get (conf->tx, "stats", &st, NULL);
  if (!st)
    return;
  g_object_get (conf->rx, "stats", &video_rx, NULL);
  if (conf->arx)
    g_object_get (conf->arx, "stats", &audio_rx, NULL);
  if (!conf->last_counts)
    conf->last_counts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  data_rate = field_u64 (st, "data-rate");
  read_encoder (conf, &enc);
  read_uplink (st, &uplink);
  g_print ("t=%5.1f s  p%u (%s) encodes at %.0f kbit/s, %u remote tiles\n",
      t, conf->opt.id, conf->opt.name, data_rate / 1e3,
      conf_tiles_count (conf));
  conf_stats_json_begin (json, t, conf->opt.id, data_rate,
      field_u64 (st, "bytes-sent"), field_u64 (st, "key-unit-requests"),
      field_u64 (st, "queue-key-units"),
      conf_stale_frames_dropped (&conf->stale), conf_tiles_count (conf), &enc,
      &uplink);
  reported = g_hash_table_new (NULL, NULL);
  members = gst_structure_get_value (st, "members");
  for (guint i = 0; members && i < gst_value_list_get_size (members); i++) {
    const GstStructure *ms =
        gst_value_get_structure (gst_value_list_get_value (members, i));
    MemberFigures f;

    read_member (ms, &f);
    if (f.id == conf->opt.id)
      continue;
    read_audio (video_rx, audio_rx, &f);
    report_member (conf, json, &f);
    g_hash_table_add (reported, GUINT_TO_POINTER (f.id));
  }
#ifdef HAVE_NICE
  report_silent_peers (conf, json, reported);
#endif
  g_hash_table_destroy (reported);
  conf_stats_json_end (json);
  if (conf->stats_json) {
    fputs (json->str, conf->stats_json);
    fflush (conf->stats_json);
  }
  g_string_free (json, TRUE);
  gst_structure_free (st);
  if (video_rx)
    gst_structure_free (video_rx);
  if (audio_rx)
    gst_structure_free (audio_rx);
}

void
conf_stats_clear (Conference * conf)
{
  if (conf->last_counts)
    g_hash_table_destroy (conf->last_counts);
  conf->last_counts = NULL;
}
