/* The conferencing application's pure parts (GLib only, no pipeline): its
 * options, the tile grid, a participant's colour and tone, and the lines of
 * --stats-json. The unit test tests/check/app/conference.c drives them. */
#ifndef __CONF_CORE_H__
#define __CONF_CORE_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint id;                     /* member id, also the SSRC of our stream */
  gchar *name;                  /* shown on our tile */
  guint32 colour;               /* 0xRRGGBB, our tile's background */
  guint port;                   /* our UDP port */
  gchar *members;               /* "id@host:port,..." */
  gchar *address;               /* local address to bind, NULL: any */
  guint width, height, fps;     /* our camera, also the size of one tile */
  guint duration;               /* seconds, 0: until interrupted */
  gboolean headless;
  gchar *out_dir;
  guint snapshot_interval;      /* seconds */
  gchar *stats_json;            /* path, NULL: none */
  guint64 max_receive_rate;     /* bit/s, 0: unlimited */
  guint64 uplink_rate;          /* tpsssink's uplink-rate, bit/s, 0:
                                 * unknown */
  gboolean uplink_video_only;   /* --uplink-rate bounds the video's copies
                                 * alone, no room taken for the voices */
  gboolean uplink_estimate;     /* tpsssink's uplink-estimate */
  gdouble layer_max_spread;     /* tpsssink's layer-max-spread, a factor */
  guint64 initial_rate;         /* bit/s */
  guint key_unit_queue_ms;      /* tpsssink's key-unit-queue-time, ms, 0:
                                 * off */
  guint max_frame_age_ms;       /* camera frames older than this at the
                                 * encoder are left out, ms, 0: none */
  guint max_queue_age_ms;       /* tpsssink's max-queue-age, ms, 0: off */
  gboolean parity_age_from_media;       /* tpsssink's parity-age-from-media */
  guint parity_max_backlog_ms;  /* tpsssink's parity-max-backlog, ms, 0:
                                 * off */
  gboolean parity_by_share;     /* tpsssink's parity-by-share */
  gboolean preload_decoders;    /* load the tiles' and voices' plugins
                                 * before the pipeline starts */
  /* --ice: the session goes through ICE (confice.c) */
  gboolean ice;
  gchar *rendezvous;            /* "host:port" of the blobs' rendezvous */
  gboolean rendezvous_host;     /* we host it too, on its port */
  gchar *stun, *turn;           /* "host:port" */
  gchar *turn_user, *turn_password;
  gchar *ice_candidates;        /* "host,srflx,relay" */
  /* audio: a second session on each member's port + 1 (confaudio.c) */
  gboolean audio;               /* FALSE: --no-audio */
  gboolean audio_device;        /* capture from autoaudiosrc */
  /* the sessions' group key (docs/security.md): set on every tpsssink and
   * tpsssrc, never written into the launch description */
  gchar *key, *key_file;
} ConfOptions;

/* The whole stream at most this x the slowest member's rate (tpsssink's
 * layer-max-spread, 4 by default): a member behind a 1 Mbit/s link shared
 * by two senders allows each 0.3-0.5 Mbit/s, and 4 x that left the
 * 4 Mbit/s members' links 58-83 % full (docs/conference.md). */
#define CONF_LAYER_MAX_SPREAD 8.0

/* A member's audio session is on its video port + this. */
#define CONF_AUDIO_PORT_OFFSET 1

/* The voice we send: Opus at this many bit/s in frames of this many ms
 * (conference.c's opusenc). */
#define CONF_VOICE_BITRATE 16000
#define CONF_VOICE_FRAME_MS 40

/* A queue toward a member that holds more than this of frames a key unit
 * would flush asks the encoder for one (tpsssink's key-unit-queue-time,
 * ms), so that a slow member's video does not lag its audio by seconds:
 * against 0, a joiner's video lagged its audio by over max-hold (1 s) for
 * far fewer audio buffers, at about one more key frame per sender every
 * 3 s (docs/conference.md, "Lip sync at the slow member"). */
#define CONF_KEY_UNIT_QUEUE_MS 500

/* Camera frames older than this when they reach the encoder are left out
 * (--max-frame-age, ms; 0: none): against 0, 6 audio buffers of a joiner
 * went unheld for its video in six calls instead of 299, the fast members
 * decoding each other at 13.0 against 13.4 fps (docs/conference.md, "Where
 * the unheld audio comes from"). */
#define CONF_MAX_FRAME_AGE_MS 300

/* Frames that would wait longer than this in our queue toward a member are
 * not sent to it until the next key unit (tpsssink's max-queue-age, ms; 0:
 * never): against 0, a joiner's video packets in its first 5 s lagged its
 * audio 371 against 442 ms in the median of six calls, 4 against 32 of
 * them over 1 s, at 4-18 frames left out per sender toward it
 * (docs/results.md, "A joiner's lag and an age bound on its queue"). */
#define CONF_MAX_QUEUE_AGE_MS 400

/* Parses and checks the command line into @o (zeroed by the caller; free
 * it with conf_options_clear). @extra: an option group to add (GStreamer's),
 * or NULL. FALSE with @error saying what is wrong. @with_nice: whether
 * --ice is available. */
gboolean conf_options_parse (ConfOptions * o, gint argc, gchar ** argv,
    GOptionGroup * extra, gboolean with_nice, GError ** error);
void conf_options_clear (ConfOptions * o);

/* Members of "id@host:port,...": TRUE if every entry is id@address with a
 * positive id, each id once; else FALSE with @error naming the entry. */
gboolean conf_members_check (const gchar * members, GError ** error);
/* The number of entries of @members (at least 1). */
guint conf_members_count (const gchar * members);
/* The number of entries of @members whose id is not @id: the members we
 * send a copy to. */
guint conf_other_members_count (const gchar * members, guint id);
/* @members with every entry's port + CONF_AUDIO_PORT_OFFSET; NULL if an
 * entry has no port or that port is past 65535. */
gchar *conf_audio_members (const gchar * members);

/* One copy of our voice on the wire at most, bit/s: its Opus packets and,
 * from tpsssink, up to one parity packet each, with their headers. */
guint64 conf_voice_copy_rate (void);
/* tpsssink's uplink-rate for our video (bit/s, 0: none): --uplink-rate less
 * one voice copy per other member, so that video and voices together stay
 * within it; --uplink-rate itself with --no-audio or --uplink-video-only. */
guint64 conf_video_uplink_rate (const ConfOptions * o);

/* A participant's tile colour (0xRRGGBB) and tone (Hz), by id (1..). */
guint32 conf_colour_of (guint id);
guint conf_audio_frequency (guint id);

/* The grid for @n participants (ourselves included, at least 2 counted):
 * the smallest square's columns, as few rows as hold them. */
void conf_grid_size (guint n, guint * cols, guint * rows);
/* The cell of @member's tile when the remote members @present (@n ids, in
 * any order, @member among them) have tiles: ours is cell 0, the others
 * follow in member id order. */
guint conf_grid_cell (guint member, const guint * present, guint n);
/* Where tile @cell (0: ours, then the others in member id order) goes on
 * a grid of @cols x @rows tiles of @width x @height; FALSE when the grid
 * has no such cell (*x, *y: off the canvas, left of it). */
gboolean conf_grid_place (guint cell, guint cols, guint rows, guint width,
    guint height, gint * x, gint * y);

/* Our camera as a gst-launch fragment: the test pattern and its texture
 * mixed by `cammix`, the name plate, and the tee `cam` that the encoder and
 * the self view take from. */
gchar *conf_camera_description (const ConfOptions * o);

/* One member's figures of one second, as a --stats-json object. */
typedef struct
{
  guint id;
  gdouble fps;
  guint64 recv_bps, send_data_bps, send_bps;
  gdouble loss_link, loss_after_fec;    /* shares of its packets */
  gdouble rtt_ms;               /* -1: not known */
  gdouble media_bps, audio_media_bps;   /* RTP into its tile and voice */
  guint64 send_notified_bps, recv_notified_bps;
  guint layers_sent;
  guint64 packets_sent, parity_sent, parity_dropped, parity_skipped;
  guint64 key_flush_packets;
  guint64 late_reports;
  guint64 queue_key_asks, age_dropped_frames, audio_recv_bps;
  gdouble video_hold_ms, audio_hold_ms; /* -1: not synced */
  guint64 audio_over_max_hold;
  gdouble av_lag_ms, send_queue_ms;
  guint64 audio_packets, audio_lost, audio_unrecovered, audio_gaps;
  gboolean left;                /* it said BYE: the session keeps its last
                                 * figures, its rates are written as 0 */
} ConfStatsMember;

/* Our encoder's figures for the --stats-json line: the whole stream it was
 * told and what it made over the last second (bit/s), the frames it coded
 * since the start (all layers), and the lowest QP of its layers now (at
 * qp-min, more rate cannot buy more quality). */
typedef struct
{
  guint64 target_bps, bps, frames;
  gint qp;
} ConfStatsEncoder;

/* Our copies' figures for the --stats-json line (tpsssink's stats): what
 * they send together at their destinations' full rates (bit/s), the share
 * of those rates they are held to (1: none), and the uplink-estimate bound
 * (bit/s, 0: none). */
typedef struct
{
  guint64 send_bps;
  gdouble share;
  guint64 estimate_bps;
} ConfStatsUplink;

/* A --stats-json line: conf_stats_json_begin, one conf_stats_json_member
 * per member (each may add fields before conf_stats_json_member_end), then
 * conf_stats_json_end. Numbers are written with a '.' whatever the locale,
 * and a figure that is not finite as 0. */
void conf_stats_json_begin (GString * json, gdouble t, guint id,
    guint64 data_bps, guint64 bytes_sent, guint64 key_unit_requests,
    guint64 queue_key_units, guint64 stale_frames, guint tiles,
    const ConfStatsEncoder * enc, const ConfStatsUplink * uplink);
void conf_stats_json_member (GString * json, const ConfStatsMember * f);
void conf_stats_json_member_end (GString * json);
void conf_stats_json_end (GString * json);

G_END_DECLS

#endif /* __CONF_CORE_H__ */
