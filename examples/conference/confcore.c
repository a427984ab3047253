/* The conferencing application's pure parts (see confcore.h). */
#include "confcore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF_ERROR (g_quark_from_static_string ("conference"))

/* Tile colours by member id (0xRRGGBB): far apart, so a tile is told by its
 * colour (scripts/conference.py holds the same list). */
static const guint32 palette[] = {
  0xd02828, 0x28b428, 0x2850d8, 0xd8c828, 0xc828c8, 0x28c8c8, 0xe08020,
  0x808080
};

guint32
conf_colour_of (guint id)
{
  return palette[(MAX (id, 1) - 1) % G_N_ELEMENTS (palette)];
}

/* A participant's tone: far enough from the others' that a recording
 * tells them apart, and no harmonic of one another for the first ids. */
guint
conf_audio_frequency (guint id)
{
  return 300 + 137 * ((MAX (id, 1) - 1) % 16);
}

/* ------------------------------------------------------------------ */
/* Members */

guint
conf_members_count (const gchar * members)
{
  gchar **v = g_strsplit (members, ",", -1);
  guint n = g_strv_length (v);

  g_strfreev (v);
  return MAX (n, 1);
}

/* The id of the entry "id@address", 0 if it has none. */
static guint
entry_id (const gchar * entry)
{
  const gchar *at = strchr (entry, '@');
  gchar *end;
  guint64 id;

  if (!at || at == entry || !at[1] || !g_ascii_isdigit (entry[0]))
    return 0;
  id = g_ascii_strtoull (entry, &end, 10);
  return end == at && id <= G_MAXUINT32 ? (guint) id : 0;
}

guint
conf_other_members_count (const gchar * members, guint id)
{
  gchar **v = g_strsplit (members, ",", -1);
  guint n = 0;

  for (guint i = 0; v[i]; i++)
    if (entry_id (v[i]) != id)
      n++;
  g_strfreev (v);
  return n;
}

/* Bytes around a voice packet's Opus payload on the wire: IPv4 and UDP
 * (28), RTP (12) and tpss's QoS extension (12); a parity packet adds tpss's
 * FEC header (20) to the same. */
#define VOICE_PACKET_HEADERS (28 + 12 + 12)
#define VOICE_PARITY_HEADER 20

guint64
conf_voice_copy_rate (void)
{
  guint64 packets = 1000 / CONF_VOICE_FRAME_MS;
  guint64 payload = (guint64) CONF_VOICE_BITRATE * CONF_VOICE_FRAME_MS /
      8000;
  guint64 media = payload + VOICE_PACKET_HEADERS;

  /* tpsssink gives an application-limited flow as slow as a voice up to
   * one parity packet per media packet (docs/protocols/tpss.md). */
  return packets * (2 * media + VOICE_PARITY_HEADER) * 8;
}

guint64
conf_video_uplink_rate (const ConfOptions * o)
{
  guint64 voices;

  if (o->uplink_rate == 0 || !o->audio || o->uplink_video_only)
    return o->uplink_rate;
  voices = conf_voice_copy_rate () *
      conf_other_members_count (o->members, o->id);
  /* A quarter of the uplink stays the video's even beside many voices. */
  return MAX (o->uplink_rate - MIN (voices, o->uplink_rate),
      o->uplink_rate / 4);
}

gboolean
conf_members_check (const gchar * members, GError ** error)
{
  gchar **v = g_strsplit (members, ",", -1);
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  gboolean ok = v[0] != NULL;

  if (!ok)
    g_set_error (error, CONF_ERROR, 0, "--members is empty");
  for (guint i = 0; ok && v[i]; i++) {
    guint id = entry_id (v[i]);

    if (!id) {
      g_set_error (error, CONF_ERROR, 0, "--members: \"%s\" is not "
          "id@host:port with an id above 0", v[i]);
      ok = FALSE;
    } else if (!g_hash_table_add (seen, GUINT_TO_POINTER (id))) {
      g_set_error (error, CONF_ERROR, 0, "--members: id %u is there twice",
          id);
      ok = FALSE;
    }
  }
  g_hash_table_destroy (seen);
  g_strfreev (v);
  return ok;
}

gchar *
conf_audio_members (const gchar * members)
{
  gchar **v = g_strsplit (members, ",", -1);
  GString *out = g_string_new (NULL);
  gboolean ok = TRUE;

  for (guint i = 0; ok && v[i]; i++) {
    gchar *colon = strrchr (v[i], ':'), *end;
    gulong port;

    if (!colon) {
      ok = FALSE;
      break;
    }
    port = strtoul (colon + 1, &end, 10);
    ok = *end == '\0' && colon[1] && port + CONF_AUDIO_PORT_OFFSET <= 65535;
    g_string_append_printf (out, "%s%.*s:%lu", i ? "," : "",
        (int) (colon - v[i]), v[i], port + CONF_AUDIO_PORT_OFFSET);
  }
  g_strfreev (v);
  return g_string_free (out, !ok);
}

/* ------------------------------------------------------------------ */
/* Options */

static gboolean
check_ice_options (const ConfOptions * o, gboolean with_nice,
    GError ** error)
{
  gboolean ice_only = o->rendezvous || o->rendezvous_host || o->stun
      || o->turn || o->turn_user || o->turn_password || o->ice_candidates;

  if (o->ice && !with_nice) {
    g_set_error (error, CONF_ERROR, 0, "built without libnice, --ice is "
        "not available");
    return FALSE;
  }
  if (!o->ice && ice_only) {
    g_set_error (error, CONF_ERROR, 0, "--rendezvous, --stun, --turn and "
        "--ice-candidates go with --ice");
    return FALSE;
  }
  if (o->ice && !o->rendezvous) {
    g_set_error (error, CONF_ERROR, 0, "--ice needs --rendezvous=HOST:PORT");
    return FALSE;
  }
  return TRUE;
}

/* FALSE with @error when @value is below @min. */
static gboolean
at_least (const gchar * option, gint64 value, gint64 min, GError ** error)
{
  if (value >= min)
    return TRUE;
  if (min == 0)
    g_set_error (error, CONF_ERROR, 0, "%s must not be negative, got %"
        G_GINT64_FORMAT, option, value);
  else
    g_set_error (error, CONF_ERROR, 0, "%s must be at least %"
        G_GINT64_FORMAT ", got %" G_GINT64_FORMAT, option, min, value);
  return FALSE;
}

/* The numbers given on the command line, before they are checked. */
typedef struct
{
  gint id, port, width, height, fps, duration, snapshot, key_unit_queue;
  gint max_frame_age, max_queue_age, parity_max_backlog;
  gint64 max_receive, initial, uplink;
} RawNumbers;

static gboolean
check_numbers (const RawNumbers * n, const ConfOptions * o, GError ** error)
{
  if (n->id <= 0) {
    g_set_error (error, CONF_ERROR, 0, "--id is needed, a member id above 0");
    return FALSE;
  }
  if (!o->ice && n->port <= 0) {
    g_set_error (error, CONF_ERROR, 0, "--port is needed (without --ice)");
    return FALSE;
  }
  if (n->port < 0 || n->port > 65535) {
    g_set_error (error, CONF_ERROR, 0, "--port must be within 1..65535, "
        "got %d", n->port);
    return FALSE;
  }
  if (!o->members) {
    g_set_error (error, CONF_ERROR, 0, "--members is needed, "
        "id@host:port,...");
    return FALSE;
  }
  return at_least ("--width", n->width, 16, error) &&
      at_least ("--height", n->height, 16, error) &&
      at_least ("--fps", n->fps, 1, error) &&
      at_least ("--snapshot-interval", n->snapshot, 1, error) &&
      at_least ("--duration", n->duration, 0, error) &&
      at_least ("--max-receive-rate", n->max_receive, 0, error) &&
      at_least ("--uplink-rate", n->uplink, 0, error) &&
      at_least ("--initial-rate", n->initial, 1, error) &&
      at_least ("--key-unit-queue-time", n->key_unit_queue, 0, error) &&
      at_least ("--max-frame-age", n->max_frame_age, 0, error) &&
      at_least ("--max-queue-age", n->max_queue_age, 0, error) &&
      at_least ("--parity-max-backlog", n->parity_max_backlog, 0, error);
}

/* tpsssink's layer-max-spread takes 1..1000. */
static gboolean
check_spread (gdouble spread, GError ** error)
{
  if (!(spread >= 1.0 && spread <= 1000.0)) {
    g_set_error (error, CONF_ERROR, 0, "--layer-max-spread must be within "
        "1..1000, got %g", spread);
    return FALSE;
  }
  return TRUE;
}

/* @text as RRGGBB into *@colour. */
static gboolean
parse_colour (const gchar * text, guint32 * colour, GError ** error)
{
  gchar *end;
  gulong v = strtoul (text, &end, 16);

  if (*end || strlen (text) != 6 || !g_ascii_isxdigit (text[0])) {
    g_set_error (error, CONF_ERROR, 0, "--colour wants RRGGBB, got \"%s\"",
        text);
    return FALSE;
  }
  *colour = (guint32) v;
  return TRUE;
}

static void
store_numbers (const RawNumbers * n, ConfOptions * o)
{
  o->id = n->id;
  o->port = n->port;
  o->width = n->width;
  o->height = n->height;
  o->fps = n->fps;
  o->duration = n->duration;
  o->snapshot_interval = n->snapshot;
  o->max_receive_rate = n->max_receive;
  o->uplink_rate = n->uplink;
  o->initial_rate = n->initial;
  o->key_unit_queue_ms = n->key_unit_queue;
  o->max_frame_age_ms = n->max_frame_age;
  o->max_queue_age_ms = n->max_queue_age;
  o->parity_max_backlog_ms = n->parity_max_backlog;
}

gboolean
conf_options_parse (ConfOptions * o, gint argc, gchar ** argv,
    GOptionGroup * extra, gboolean with_nice, GError ** error)
{
  gchar *colour = NULL;
  RawNumbers n = { 0, 0, 320, 240, 15, 0, 5, CONF_KEY_UNIT_QUEUE_MS,
    CONF_MAX_FRAME_AGE_MS, CONF_MAX_QUEUE_AGE_MS, 0, 0, 150000, 0
  };
  gboolean headless = FALSE, no_audio = FALSE, ok;
  gdouble spread = CONF_LAYER_MAX_SPREAD;
  GOptionEntry entries[] = {
    {"id", 0, 0, G_OPTION_ARG_INT, &n.id, "Our member id (1..)", "N"},
    {"name", 0, 0, G_OPTION_ARG_STRING, &o->name, "Name on our tile", "S"},
    {"colour", 0, 0, G_OPTION_ARG_STRING, &colour,
        "Our tile's colour, RRGGBB (default: by id)", "RRGGBB"},
    {"port", 0, 0, G_OPTION_ARG_INT, &n.port, "Our UDP port", "PORT"},
    {"address", 0, 0, G_OPTION_ARG_STRING, &o->address,
        "Local address to bind (default: any)", "ADDR"},
    {"members", 0, 0, G_OPTION_ARG_STRING, &o->members,
        "The group, id@host:port,... (may include us)", "LIST"},
    {"width", 0, 0, G_OPTION_ARG_INT, &n.width, "Camera and tile width",
        "PX"},
    {"height", 0, 0, G_OPTION_ARG_INT, &n.height, "Camera and tile height",
        "PX"},
    {"fps", 0, 0, G_OPTION_ARG_INT, &n.fps, "Camera frame rate", "FPS"},
    {"duration", 0, 0, G_OPTION_ARG_INT, &n.duration,
        "Leave after this many seconds (0: at Ctrl-C)", "S"},
    {"headless", 0, 0, G_OPTION_ARG_NONE, &headless,
        "No window: record and snapshot instead", NULL},
    {"out-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->out_dir,
        "Where recordings and snapshots go (default .)", "DIR"},
    {"snapshot-interval", 0, 0, G_OPTION_ARG_INT, &n.snapshot,
        "Seconds between snapshots", "S"},
    {"stats-json", 0, 0, G_OPTION_ARG_FILENAME, &o->stats_json,
        "Append the statistics of every second as JSON lines", "FILE"},
    {"max-receive-rate", 0, 0, G_OPTION_ARG_INT64, &n.max_receive,
        "Our receive capacity, shared by the senders (bit/s, 0: unlimited)",
        "BPS"},
    {"uplink-rate", 0, 0, G_OPTION_ARG_INT64, &n.uplink,
          "Our uplink's rate: the copies of our voice to the others (each "
          "at most its Opus rate with parity and headers) and of our video "
          "are kept within it together (the rest is tpsssink's uplink-rate "
          "for the video; bit/s, 0: unknown, each copy as its member "
          "allows)", "BPS"},
    {"uplink-video-only", 0, 0, G_OPTION_ARG_NONE, &o->uplink_video_only,
          "--uplink-rate bounds the copies of our video alone, with no room "
          "taken for the voices' (default off)", NULL},
    {"layer-max-spread", 0, 0, G_OPTION_ARG_DOUBLE, &spread,
          "Our whole stream at most this many times the slowest member's "
          "rate (tpsssink's layer-max-spread; a factor, at least 1; "
          "default 8)", "F"},
    {"uplink-estimate", 0, 0, G_OPTION_ARG_NONE, &o->uplink_estimate,
          "Find a bound on our copies' rate together from their losses "
          "when they come at once (tpsssink's uplink-estimate; default "
          "off)", NULL},
    {"initial-rate", 0, 0, G_OPTION_ARG_INT64, &n.initial,
        "Starting data rate toward each member (bit/s; default 150000: a "
          "member who joins behind a 1 Mbit/s link takes three senders' "
          "first rates with parity without loss)", "BPS"},
    {"key-unit-queue-time", 0, 0, G_OPTION_ARG_INT, &n.key_unit_queue,
          "Ask our encoder for a key frame when our queue toward a member "
          "holds more than this of frames it would flush (ms; 0: never; "
          "default " G_STRINGIFY (CONF_KEY_UNIT_QUEUE_MS) ")", "MS"},
    {"max-frame-age", 0, 0, G_OPTION_ARG_INT, &n.max_frame_age,
          "Leave out camera frames older than this when they reach the "
          "encoder (ms; 0: none; default "
          G_STRINGIFY (CONF_MAX_FRAME_AGE_MS) ")", "MS"},
    {"max-queue-age", 0, 0, G_OPTION_ARG_INT, &n.max_queue_age,
          "Send a member no frame that would wait longer than this in our "
          "queue toward it, until the next key frame (ms; 0: never; default "
          G_STRINGIFY (CONF_MAX_QUEUE_AGE_MS) ")", "MS"},
    {"parity-age-from-media", 0, 0, G_OPTION_ARG_NONE,
          &o->parity_age_from_media, "Age the parity waiting toward a member "
          "from when the media it covers left, not from its making "
          "(tpsssink's parity-age-from-media; default off)", NULL},
    {"parity-max-backlog", 0, 0, G_OPTION_ARG_INT, &n.parity_max_backlog,
          "Make no parity toward a member while our media queued toward it "
          "takes longer than this to leave (tpsssink's parity-max-backlog; "
          "ms; 0: never; default 0)", "MS"},
    {"parity-by-share", 0, 0, G_OPTION_ARG_NONE, &o->parity_by_share,
          "Make parity toward a member in the share of its recent parity "
          "that left before going stale (tpsssink's parity-by-share; "
          "default off)", NULL},
    {"preload-decoders", 0, 0, G_OPTION_ARG_NONE, &o->preload_decoders,
          "Load the plugins of the others' decode branches before the "
          "pipeline starts, not with the first member's packet (default "
          "off)", NULL},
    {"no-audio", 0, 0, G_OPTION_ARG_NONE, &no_audio,
        "Video only: no audio session", NULL},
    {"audio-device", 0, 0, G_OPTION_ARG_NONE, &o->audio_device,
        "Send the microphone (autoaudiosrc) instead of our tone", NULL},
    {"ice", 0, 0, G_OPTION_ARG_NONE, &o->ice,
        "Connect through ICE (libnice); --members are virtual addresses",
        NULL},
    {"rendezvous", 0, 0, G_OPTION_ARG_STRING, &o->rendezvous,
        "The TCP rendezvous the ICE blobs go through (--ice)", "HOST:PORT"},
    {"rendezvous-host", 0, 0, G_OPTION_ARG_NONE, &o->rendezvous_host,
        "Host the rendezvous too, on --rendezvous's port", NULL},
    {"stun", 0, 0, G_OPTION_ARG_STRING, &o->stun,
        "STUN server (--ice)", "HOST:PORT"},
    {"turn", 0, 0, G_OPTION_ARG_STRING, &o->turn,
        "TURN server, UDP (--ice)", "HOST:PORT"},
    {"turn-user", 0, 0, G_OPTION_ARG_STRING, &o->turn_user,
        "TURN user", "USER"},
    {"turn-password", 0, 0, G_OPTION_ARG_STRING, &o->turn_password,
        "TURN password", "PASSWORD"},
    {"ice-candidates", 0, 0, G_OPTION_ARG_STRING, &o->ice_candidates,
        "Candidate types to use (default: host,srflx,relay)", "TYPES"},
    {"key", 0, 0, G_OPTION_ARG_STRING, &o->key,
          "Group key of the sessions' control: 64 hex digits or a passphrase "
          "(every member needs the same; visible to `ps`, prefer --key-file)",
        "KEY"},
    {"key-file", 0, 0, G_OPTION_ARG_FILENAME, &o->key_file,
        "File holding the group key", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- one participant of a call");

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (extra)
    g_option_context_add_group (ctx, extra);
  ok = g_option_context_parse (ctx, &argc, &argv, error);
  g_option_context_free (ctx);
  ok = ok && check_numbers (&n, o, error) && check_spread (spread, error) &&
      conf_members_check (o->members, error) &&
      check_ice_options (o, with_nice, error);
  o->colour = conf_colour_of (MAX (n.id, 1));
  ok = ok && (!colour || parse_colour (colour, &o->colour, error));
  g_free (colour);
  if (!ok)
    return FALSE;
  store_numbers (&n, o);
  o->layer_max_spread = spread;
  o->headless = headless || (!g_getenv ("DISPLAY")
      && !g_getenv ("WAYLAND_DISPLAY"));
  o->audio = !no_audio;
  if (!o->name)
    o->name = g_strdup_printf ("p%u", o->id);
  if (!o->out_dir)
    o->out_dir = g_strdup (".");
  return TRUE;
}

void
conf_options_clear (ConfOptions * o)
{
  g_free (o->name);
  g_free (o->members);
  g_free (o->address);
  g_free (o->out_dir);
  g_free (o->stats_json);
  g_free (o->rendezvous);
  g_free (o->stun);
  g_free (o->turn);
  g_free (o->turn_user);
  g_free (o->turn_password);
  g_free (o->ice_candidates);
  if (o->key)
    memset (o->key, 0, strlen (o->key));        /* a secret: wiped */
  g_free (o->key);
  g_free (o->key_file);
  memset (o, 0, sizeof (*o));
}

/* ------------------------------------------------------------------ */
/* Tile grid */

void
conf_grid_size (guint n, guint * cols, guint * rows)
{
  n = MAX (n, 2);
  *cols = (guint) ceil (sqrt (n));
  *rows = (n + *cols - 1) / *cols;
}

guint
conf_grid_cell (guint member, const guint * present, guint n)
{
  guint cell = 1;

  for (guint i = 0; i < n; i++)
    cell += present[i] < member;
  return cell;
}

gboolean
conf_grid_place (guint cell, guint cols, guint rows, guint width,
    guint height, gint * x, gint * y)
{
  if (cols == 0 || cell >= cols * rows) {
    *x = -(gint) width * 4;
    *y = 0;
    return FALSE;
  }
  *x = (gint) ((cell % cols) * width);
  *y = (gint) ((cell / cols) * height);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* --stats-json */

/* ,"key":value with @decimals, '.' as the decimal point; 0 if not finite. */
static void
append_double (GString * json, const gchar * key, gdouble v, gint decimals)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];

  g_snprintf (fmt, sizeof fmt, "%%.%df", decimals);
  g_string_append_printf (json, ",\"%s\":%s", key,
      g_ascii_formatd (buf, sizeof buf, fmt, isfinite (v) ? v : 0.0));
}

static void
append_u64 (GString * json, const gchar * key, guint64 v)
{
  g_string_append_printf (json, ",\"%s\":%" G_GUINT64_FORMAT, key, v);
}

void
conf_stats_json_begin (GString * json, gdouble t, guint id,
    guint64 data_bps, guint64 bytes_sent, guint64 key_unit_requests,
    guint64 queue_key_units, guint64 stale_frames, guint tiles,
    const ConfStatsEncoder * enc, const ConfStatsUplink * uplink)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (json, "{\"t\":%s,\"id\":%u",
      g_ascii_formatd (buf, sizeof buf, "%.2f", isfinite (t) ? t : 0.0), id);
  append_u64 (json, "data_bps", data_bps);
  append_u64 (json, "bytes_sent", bytes_sent);
  append_u64 (json, "key_unit_requests", key_unit_requests);
  append_u64 (json, "queue_key_units", queue_key_units);
  append_u64 (json, "stale_frames", stale_frames);
  append_u64 (json, "enc_target_bps", enc->target_bps);
  append_u64 (json, "enc_bps", enc->bps);
  append_u64 (json, "enc_frames", enc->frames);
  g_string_append_printf (json, ",\"enc_qp\":%d", enc->qp);
  append_u64 (json, "uplink_send_bps", uplink->send_bps);
  append_double (json, "uplink_share", uplink->share, 4);
  append_u64 (json, "uplink_estimate_bps", uplink->estimate_bps);
  g_string_append_printf (json, ",\"tiles\":%u,\"members\":[", tiles);
}

void
conf_stats_json_member (GString * json, const ConfStatsMember * member)
{
  ConfStatsMember gone;
  const ConfStatsMember *f = member;

  if (member->left) {
    /* A member that left: what arrived from it and went to it is final,
     * but no rate goes on; the session holds its last ones. */
    gone = *member;
    gone.fps = gone.media_bps = gone.audio_media_bps = 0.0;
    gone.recv_bps = gone.send_data_bps = gone.send_bps = 0;
    gone.audio_recv_bps = gone.send_notified_bps = 0;
    gone.recv_notified_bps = 0;
    gone.loss_link = gone.loss_after_fec = 0.0;
    f = &gone;
  }
  /* a comma after the member before it, none first in the list (or alone) */
  g_string_append_printf (json, "%s{\"id\":%u", json->len == 0 ||
      json->str[json->len - 1] == '[' ? "" : ",", f->id);
  append_double (json, "fps", f->fps, 2);
  append_u64 (json, "recv_bps", f->recv_bps);
  append_u64 (json, "send_data_bps", f->send_data_bps);
  append_u64 (json, "send_bps", f->send_bps);
  append_double (json, "loss_link", f->loss_link, 5);
  append_double (json, "loss_after_fec", f->loss_after_fec, 5);
  append_double (json, "rtt_ms", f->rtt_ms, 1);
  append_double (json, "media_bps", f->media_bps, 0);
  append_double (json, "audio_media_bps", f->audio_media_bps, 0);
  append_u64 (json, "send_notified_bps", f->send_notified_bps);
  append_u64 (json, "recv_notified_bps", f->recv_notified_bps);
  g_string_append_printf (json, ",\"layers_sent\":%u", f->layers_sent);
  append_u64 (json, "packets_sent", f->packets_sent);
  append_u64 (json, "parity_sent", f->parity_sent);
  append_u64 (json, "parity_dropped", f->parity_dropped);
  append_u64 (json, "parity_skipped", f->parity_skipped);
  append_u64 (json, "key_flush_packets", f->key_flush_packets);
  append_u64 (json, "late_reports", f->late_reports);
  append_u64 (json, "queue_key_asks", f->queue_key_asks);
  append_u64 (json, "age_dropped_frames", f->age_dropped_frames);
  append_u64 (json, "audio_recv_bps", f->audio_recv_bps);
  append_double (json, "video_hold_ms", f->video_hold_ms, 1);
  append_double (json, "audio_hold_ms", f->audio_hold_ms, 1);
  append_u64 (json, "audio_over_max_hold", f->audio_over_max_hold);
  append_double (json, "av_lag_ms", f->av_lag_ms, 1);
  append_double (json, "send_queue_ms", f->send_queue_ms, 1);
  append_u64 (json, "audio_packets", f->audio_packets);
  append_u64 (json, "audio_lost", f->audio_lost);
  append_u64 (json, "audio_unrecovered", f->audio_unrecovered);
  append_u64 (json, "audio_gaps", f->audio_gaps);
  if (f->left)
    g_string_append (json, ",\"left\":true");
}

void
conf_stats_json_member_end (GString * json)
{
  g_string_append_c (json, '}');
}

void
conf_stats_json_end (GString * json)
{
  g_string_append (json, "]}\n");
}

/* Raw video in the camera's path is I420, what x264 takes: left open, the
 * test sources and cammix settle on a 64-bit RGBA format and mix, overlay
 * and convert about 3.6 times the bytes (docs/conference.md). */
#define CAMERA_CAPS "video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1"

gchar *
conf_camera_description (const ConfOptions * o)
{
  return g_strdup_printf ("videotestsrc name=camera is-live=true "
      "pattern=ball background-color=0xff%06x ! " CAMERA_CAPS " ! cammix. "
      "videotestsrc name=texture is-live=true pattern=snow ! " CAMERA_CAPS
      " ! cammix. compositor name=cammix sink_1::ypos=%u ! " CAMERA_CAPS
      " ! textoverlay name=nameplate text=\"%s\" valignment=top "
      "halignment=left font-desc=\"Sans Bold 14\" shaded-background=true "
      "! tee name=cam", o->colour, o->width, o->height, o->fps,
      o->width / 2, o->height / 2, o->fps, o->height / 2, o->width,
      o->height, o->fps, o->name);
}
