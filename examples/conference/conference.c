/* conference: one participant of a multiparty video call over TPSS + NQCP.
 *
 *   conference --id=1 --port=5000 --members=1@10.77.0.1:5000,2@10.77.0.2:5000
 *
 * Our camera (a test pattern on our colour, with our name) is encoded once
 * by x264layerenc and sent by tpsssink to every other member; tpsssrc gives
 * a pad per remote member, each decoded into a tile of a compositor grid
 * (our own picture first). Members join and leave while the call runs: a
 * tile appears with a member's first packet and goes when it leaves.
 *
 * Audio (unless --no-audio): a tone at our own frequency (or the
 * microphone with --audio-device), Opus, sent by a second tpsssink in a
 * second session on port + 1 with the same member ids; a second tpsssrc
 * gives a pad per remote member, decoded into audiomixer (confaudio.c).
 * Both tpsssrc stamp from the members' RTCP sender reports in one
 * sync-group, so each member's voice and picture play in sync.
 *
 * With a display the grid is shown in a window; headless (--headless, or no
 * DISPLAY / WAYLAND_DISPLAY) it is recorded with the mixed audio to
 * OUT/participant-<id>.mp4 (the audio plays with the window otherwise). In
 * both cases it is snapshotted to OUT/participant-<id>.png every
 * --snapshot-interval seconds and as we leave. Every second the statistics of every member are printed
 * (confstats.c), and with --stats-json written as JSON lines.
 *
 * With --ice the members connect through ICE (libnice; confice.c) instead
 * of plain UDP: the entries of --members are then the members' virtual
 * addresses, the ICE blobs go through the TCP rendezvous of --rendezvous,
 * and STUN and TURN servers may be given:
 *
 *   conference --id=2 --ice --rendezvous=203.0.113.5:7000 \
 *       --stun=203.0.113.5:3478 --members=1@10.99.0.1:5000,2@10.99.0.2:5000
 */
#include "conference.h"
#include "confexit.h"
#include "confleave.h"

#include <gst/video/video.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#define END_TIMEOUT_SECONDS 5   /* after EOS is sent, wait at most this */

/* From SIGINT (or the end of --duration) to the process's exit at most:
 * the last snapshot (up to 1 s), the EOS (END_TIMEOUT_SECONDS) and the
 * pipeline's stop, within the 15 s scripts/conference.py waits. */
#define EXIT_BOUND_SECONDS 10

GST_DEBUG_CATEGORY (conference_debug);

/* A key frame takes at most this long to cross a link that carries the
 * base layer alone: a member who joins behind a slow link asks each sender
 * for one, and they reach it together over its lossy link, where a smaller
 * key frame is lost less often (docs/conference.md, "Key frames"). */
#define KEY_UNIT_MAX_DELAY_MS 150

/* A parity packet after every two packets of a key frame (tpsssink's
 * key-unit-parity): a joiner's key frame lost in part on its lossy link
 * costs a retry, 0.5 s, and another key frame's way; each pair's parity
 * comes within the receiver's FEC wait (docs/conference.md, "First
 * pictures at a slow joiner"). */
#define KEY_UNIT_PARITY 2

/* The camera's noise quarter holds x264 at its default qp-min (10) to about
 * 2.1 Mbit/s however much it is told (320x240, 15 fps); down to QP 0 it
 * takes up to 3 Mbit/s, what a fast member's link leaves for one sender
 * (docs/conference.md, "How full the links are"). */
#define ENCODER_QP_MIN 0

/* Where the mixed picture goes: a window, or a recording. */
static gchar *
output_branch (const ConfOptions * o)
{
  if (!o->headless)
    return g_strdup ("out. ! queue name=" CONF_OUT_VIDEO_QUEUE " "
        "leaky=downstream max-size-buffers=2 ! autovideosink sync=false");
  return g_strdup_printf ("out. ! queue name=" CONF_OUT_VIDEO_QUEUE " "
      "! videoconvert ! x264enc "
      "tune=zerolatency speed-preset=ultrafast bitrate=1000 key-int-max=%u ! "
      "h264parse name=" CONF_RECORDING_PARSER " ! mp4mux name=recmux "
      "! filesink location=\"%s/participant-%u.mp4\"",
      o->fps * 2, o->out_dir, o->id);
}

/* The session properties of a tpsssink / tpsssrc on @port with @members. */
static gchar *
session_props (const ConfOptions * o, guint port, const gchar * members)
{
  /* with --ice the session opens no socket: the transport is set later */
  if (o->ice)
    return g_strdup_printf ("member-id=%u members=\"%s\" allow-join=true",
        o->id, members);
  return g_strdup_printf ("port=%u member-id=%u members=\"%s\" "
      "allow-join=true%s%s", port, o->id, members,
      o->address ? " address=" : "", o->address ? o->address : "");
}

/* The group key on every tpsssink and tpsssrc of the pipeline, before it
 * starts (a wrong one fails the start with the element's message). */
static void
set_group_key (Conference * conf)
{
  const gchar *names[] = { "tx", "rx", "atx", "arx" };

  if (!conf->opt.key && !conf->opt.key_file)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline), names[i]);
    if (!e)
      continue;
    g_object_set (e, "key", conf->opt.key, "key-file", conf->opt.key_file,
        NULL);
    gst_object_unref (e);
  }
}

/* Our tone (or microphone) to every member, the others' voices mixed into
 * the window's speaker or the recording (confaudio.c adds the voices). */
static gchar *
audio_description (const ConfOptions * o)
{
  gchar *members = conf_audio_members (o->members);
  gchar *session, *src, *out, *desc, *fec;

  if (!members)
    return NULL;
  /* Speech gets Opus in-band FEC (each packet carries a coarse copy of the
   * one before, which the voice decoders use for a lost packet,
   * confaudio.c). It is SILK's, coded only for frames its voice detector
   * finds active: our steady test tone never is, and with FEC on, Opus
   * codes it in SILK, whose concealment keeps less of a tone than CELT's
   * (docs/conference.md, "Audio under loss"). */
  fec = o->audio_device ? g_strdup_printf ("audio-type=voice inband-fec=true "
      "packet-loss-percentage=%u", CONF_AUDIO_EXPECTED_LOSS) : g_strdup ("");
  session = session_props (o, o->port + CONF_AUDIO_PORT_OFFSET, members);
  src = o->audio_device ? g_strdup ("autoaudiosrc name=mic") :
      g_strdup_printf ("audiotestsrc name=mic is-live=true wave=sine "
      "freq=%u volume=0.25", conf_audio_frequency (o->id));
  out = o->headless ? g_strdup ("queue name=" CONF_OUT_AUDIO_QUEUE " "
      "! audioconvert ! opusenc bitrate=32000 ! recmux.") :
      g_strdup ("queue name=" CONF_OUT_AUDIO_QUEUE " ! audioconvert "
      "! audioresample ! autoaudiosink");
  /* Opus at 16 kbit/s in 40 ms frames: with parity and headers at most
   * 57 kbit/s per copy on the wire (conf_voice_copy_rate). */
  desc = g_strdup_printf ("%s ! audioconvert ! audioresample "
      "! audio/x-raw,rate=48000,channels=1 ! opusenc bitrate=%u "
      "frame-size=%u %s ! rtpopuspay pt=97 ! tpsssink name=atx %s "
      "initial-rate=64000 "
      "tpsssrc name=arx %s caps=\"application/x-rtp,media=audio,"
      "clock-rate=48000,encoding-name=OPUS,payload=97\" "
      "sync=sender-reports sync-group=conference "
      "audiotestsrc name=silence is-live=true wave=silence "
      "! audio/x-raw,format=S16LE,rate=48000,channels=1 ! amix. "
      "audiomixer name=amix latency=100000000 "
      "! audio/x-raw,format=S16LE,rate=48000,channels=1 ! %s",
      src, CONF_VOICE_BITRATE, CONF_VOICE_FRAME_MS, fec, session, session,
      out);
  g_free (fec);
  g_free (members);
  g_free (session);
  g_free (src);
  g_free (out);
  return desc;
}

static gchar *
pipeline_description (Conference * conf)
{
  const ConfOptions *o = &conf->opt;
  gchar *session = session_props (o, o->port, o->members);
  gchar *out = output_branch (o);
  gchar *audio = o->audio ? audio_description (o) : g_strdup ("");
  gchar *camera, *desc;
  gchar spread[G_ASCII_DTOSTR_BUF_SIZE];

  if (!audio) {
    g_printerr ("conference: --members entries need a port (id@host:port) "
        "below 65535 for the audio session\n");
    g_free (session);
    g_free (out);
    return NULL;
  }
  camera = conf_camera_description (o);
  g_ascii_dtostr (spread, sizeof spread, o->layer_max_spread);
  desc = g_strdup_printf (
      /* our camera, encoded once for everyone, and shown in our tile */
      "%s "
      "cam. ! queue name=encq leaky=downstream max-size-buffers=2 "
      "! videoconvert "
      "! x264layerenc name=enc layers=3 tune=zerolatency speed-preset=veryfast "
      "key-unit-max-delay=%u key-int-max=%u qp-min=%u "
      "! rtph264pay config-interval=-1 mtu=1200 "
      "! tpsssink name=tx %s initial-rate=%" G_GUINT64_FORMAT " "
      "layer-max-spread=%s uplink-rate=%" G_GUINT64_FORMAT " "
      "uplink-estimate=%s "
      "key-unit-parity=%u "
      "key-unit-queue-time=%" G_GUINT64_FORMAT " "
      "max-queue-age=%" G_GUINT64_FORMAT " parity-age-from-media=%s "
      "parity-max-backlog=%" G_GUINT64_FORMAT " parity-by-share=%s "
      "cam. ! queue name=selfq leaky=downstream max-size-buffers=2 "
      "! videoconvert name=selfconv "
      /* the others' tiles (tiles.c) and the mixed picture */
      "tpsssrc name=rx %s max-receive-rate=%" G_GUINT64_FORMAT " "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\" %s "
      "compositor name=mix background=black latency=100000000 "
      "! video/x-raw,width=%u,height=%u,framerate=%u/1 ! videoconvert "
      "! tee name=out "
      "out. ! queue name=" CONF_SNAPSHOT_QUEUE " leaky=downstream "
      "max-size-buffers=1 ! fakesink name=snap "
      "sync=false async=false enable-last-sample=true %s %s",
      camera, KEY_UNIT_MAX_DELAY_MS, o->fps * 4, ENCODER_QP_MIN,
      session,
      o->initial_rate, spread, conf_video_uplink_rate (o),
      o->uplink_estimate ? "true" : "false", KEY_UNIT_PARITY,
      (guint64) o->key_unit_queue_ms * GST_MSECOND,
      (guint64) o->max_queue_age_ms * GST_MSECOND,
      o->parity_age_from_media ? "true" : "false",
      (guint64) o->parity_max_backlog_ms * GST_MSECOND,
      o->parity_by_share ? "true" : "false", session,
      o->max_receive_rate,
      o->audio ? "sync=sender-reports sync-group=conference" : "",
      o->width * conf->grid_cols, o->height * conf->grid_rows, o->fps, out,
      audio);

  g_free (camera);
  g_free (session);
  g_free (out);
  g_free (audio);
  return desc;
}

/* The camera's tee answers the allocation query itself (confstale.h). */
static void
keep_camera_off_branch_start (Conference * conf)
{
  GstElement *tee = gst_bin_get_by_name (GST_BIN (conf->pipeline), "cam");
  GstPad *sink = gst_element_get_static_pad (tee, "sink");

  conf_allocation_answer_attach (sink);
  gst_object_unref (sink);
  gst_object_unref (tee);
}

static void
leave_out_stale_frames (Conference * conf)
{
  GstElement *q;
  GstPad *src;

  if (!conf->opt.max_frame_age_ms)
    return;
  q = gst_bin_get_by_name (GST_BIN (conf->pipeline), "encq");
  src = gst_element_get_static_pad (q, "src");
  conf_stale_frames_attach (&conf->stale, src,
      conf->opt.max_frame_age_ms * GST_MSECOND);
  gst_object_unref (src);
  gst_object_unref (q);
}

/* On the encoder's output: when a key unit is asked for (a member's PLI
 * through tpsssink) and when each key frame leaves the encoder. */
static GstPadProbeReturn
trace_key_units (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

    if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT))
      GST_INFO ("key frame encoded, %" G_GSIZE_FORMAT " bytes, at %"
          G_GINT64_FORMAT " ms", gst_buffer_get_size (buf), CONF_MONO_MS ());
  } else if (gst_video_event_is_force_key_unit (GST_PAD_PROBE_INFO_EVENT
          (info))) {
    GST_INFO ("key unit asked for at %" G_GINT64_FORMAT " ms",
        CONF_MONO_MS ());
  }
  return GST_PAD_PROBE_OK;
}

#define CAMERA_TRACED_FRAMES 40

/* The age of the camera's first frames as they leave each element on the
 * way to the encoder, to tell where a late start is spent. */
static GstPadProbeReturn
trace_camera_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *count = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime age = conf_frame_age (pad, buf);

  if (g_atomic_int_add (count, 1) >= CAMERA_TRACED_FRAMES)
    return GST_PAD_PROBE_REMOVE;
  GST_INFO ("camera frame %" GST_TIME_FORMAT " at %s:%s, age %"
      G_GINT64_FORMAT " ms, at %" G_GINT64_FORMAT " ms",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_DEBUG_PAD_NAME (pad),
      GST_CLOCK_TIME_IS_VALID (age) ? (gint64) (age / GST_MSECOND) : -1,
      CONF_MONO_MS ());
  return GST_PAD_PROBE_OK;
}

/* Downstream queries on the camera's way: how long each one blocks. */
static GstPadProbeReturn
trace_camera_query (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  GST_INFO ("camera query %s %s at %s:%s at %" G_GINT64_FORMAT " ms",
      GST_QUERY_TYPE_NAME (q),
      (info->type & GST_PAD_PROBE_TYPE_PUSH) ? "sent" : "answered",
      GST_DEBUG_PAD_NAME (pad), CONF_MONO_MS ());
  return GST_PAD_PROBE_OK;
}

static void
trace_camera (Conference * conf)
{
  const gchar *pads[][2] = { {"camera", "src"}, {"texture", "src"},
  {"cammix", "src"}, {"nameplate", "src"}, {"encq", "src"}, {"tx", "sink"}
  };

  for (guint i = 0; i < G_N_ELEMENTS (pads); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline),
        pads[i][0]);
    GstPad *pad = gst_element_get_static_pad (e, pads[i][1]);

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, trace_camera_frame,
        g_new0 (gint, 1), g_free);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
        GST_PAD_PROBE_TYPE_PUSH | GST_PAD_PROBE_TYPE_PULL,
        trace_camera_query, NULL, NULL);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
}

static void
trace_encoder (Conference * conf)
{
  GstElement *tx = gst_bin_get_by_name (GST_BIN (conf->pipeline), "tx");
  GstPad *sink = gst_element_get_static_pad (tx, "sink");
  GstPad *pay_src = gst_pad_get_peer (sink);
  GstElement *pay = gst_pad_get_parent_element (pay_src);
  GstPad *pay_sink = gst_element_get_static_pad (pay, "sink");
  GstPad *enc_src = gst_pad_get_peer (pay_sink);

  gst_pad_add_probe (enc_src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, trace_key_units, NULL, NULL);
  gst_object_unref (enc_src);
  gst_object_unref (pay_sink);
  gst_object_unref (pay);
  gst_object_unref (pay_src);
  gst_object_unref (sink);
  gst_object_unref (tx);
}

/* From the moment the leave began the snapshot keeps the picture of that
 * moment: the others leave at about the same time, and their BYEs (sent at
 * once, confleave.c) would otherwise take their tiles out of our last
 * snapshot before our own leave runs. */
static GstPadProbeReturn
hold_snapshot_at_leave (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return conf_exit_guard_leaving ()? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static void
hold_snapshot_from_leave (GstElement * snap)
{
  GstPad *pad = gst_element_get_static_pad (snap, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hold_snapshot_at_leave,
      NULL, NULL);
  gst_object_unref (pad);
}

static gboolean
build_pipeline (Conference * conf)
{
  GError *err = NULL;
  gchar *desc;
  GstElement *selfconv;
  GstPad *src;

  conf_grid_size (conf_members_count (conf->opt.members), &conf->grid_cols,
      &conf->grid_rows);
  desc = pipeline_description (conf);
  if (!desc)
    return FALSE;
  conf->pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!conf->pipeline || err) {
    g_printerr ("conference: %s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    return FALSE;
  }
  conf->mix = gst_bin_get_by_name (GST_BIN (conf->pipeline), "mix");
  conf->tx = gst_bin_get_by_name (GST_BIN (conf->pipeline), "tx");
  conf->rx = gst_bin_get_by_name (GST_BIN (conf->pipeline), "rx");
  conf->snap = gst_bin_get_by_name (GST_BIN (conf->pipeline), "snap");
  hold_snapshot_from_leave (conf->snap);
  conf->arx = gst_bin_get_by_name (GST_BIN (conf->pipeline), "arx");
  conf->amix = gst_bin_get_by_name (GST_BIN (conf->pipeline), "amix");
  set_group_key (conf);
  selfconv = gst_bin_get_by_name (GST_BIN (conf->pipeline), "selfconv");
  conf->self_pad = gst_element_request_pad_simple (conf->mix, "sink_%u");
  src = gst_element_get_static_pad (selfconv, "src");
  gst_pad_link (src, conf->self_pad);
  gst_object_unref (src);
  gst_object_unref (selfconv);
  if (!conf_tiles_init (conf))
    return FALSE;
  conf_tiles_layout (conf);
  if (conf->arx && !conf_audio_init (conf))
    return FALSE;
  conf_guard_recording (conf->pipeline);
  keep_camera_off_branch_start (conf);
  leave_out_stale_frames (conf);
  if (gst_debug_category_get_threshold (conference_debug) >= GST_LEVEL_INFO) {
    trace_encoder (conf);
    trace_camera (conf);
  }
  return TRUE;
}

/* The mixed picture of now, saved as PNG off the main loop (confsnap.h);
 * the @last one (as we leave) is never left out. */
static void
write_snapshot (Conference * conf, gboolean last)
{
  GstSample *sample = NULL;
  gchar *path;

  g_object_get (conf->snap, "last-sample", &sample, NULL);
  if (!sample)
    return;
  path = g_strdup_printf ("%s/participant-%u.png", conf->opt.out_dir,
      conf->opt.id);
  conf_snapshot_save (&conf->snapshots, sample, path, last);
  g_free (path);
}

/* The sink pads of the sinks and mixers that have not had their EOS, to
 * tell where a leave is held. */
static void
print_pads_without_eos (Conference * conf)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (conf->pipeline));
  GValue v = G_VALUE_INIT;
  GString *held = g_string_new (NULL);

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);

    GST_OBJECT_LOCK (e);
    for (GList * l = e->sinkpads; l; l = l->next) {
      GstPad *pad = l->data;

      if (GST_PAD_IS_LINKED (pad) && !GST_PAD_IS_EOS (pad))
        g_string_append_printf (held, " %s:%s", GST_DEBUG_PAD_NAME (pad));
    }
    GST_OBJECT_UNLOCK (e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  g_printerr ("conference: still without EOS:%s\n", held->str);
  g_string_free (held, TRUE);
}

static gboolean
quit_now (gpointer data)
{
  Conference *conf = data;

  g_printerr ("conference: no EOS within %d s, stopping anyway; the recording "
      "may be incomplete\n", END_TIMEOUT_SECONDS);
  print_pads_without_eos (conf);
  g_main_loop_quit (conf->loop);
  return G_SOURCE_REMOVE;
}

/* Leave the call: our sessions stop (their BYE goes now, whatever the
 * recording waits on later), then the others' branches, our camera and
 * microphone end, and the output ends at its own queues (the recording
 * stops at this moment, not behind the mixers' backlog), so the bus's EOS
 * quits. */
static gboolean
leave (gpointer data)
{
  Conference *conf = data;
  GstElement *nameplate;
  GstPad *sink;

  if (conf->stopping)
    return G_SOURCE_REMOVE;
  conf->stopping = TRUE;
  conf_exit_guard_arm ();
  GST_INFO ("leaving at %" G_GINT64_FORMAT " ms", CONF_MONO_MS ());
  write_snapshot (conf, TRUE);
  /* first: the BYE goes whatever the EOS below waits on, and before our
   * camera's EOS reaches tpsssink, whose EOS waits up to 5 s for its queue
   * to drain (stopping it then would wait as long) */
  conf_exit_guard_step ("saying goodbye");
  conf_leave_sessions (conf->pipeline);
  GST_INFO ("BYE sent at %" G_GINT64_FORMAT " ms", CONF_MONO_MS ());
  conf_exit_guard_step ("sending the EOS");
  conf_tiles_send_eos (conf);
  if (conf->arx)
    conf_audio_end_voices (conf);
  /* The EOS goes in below the camera's own compositor: ending its sources
   * one by one would send a last picture or two without our colour. */
  nameplate = gst_bin_get_by_name (GST_BIN (conf->pipeline), "nameplate");
  sink = gst_element_get_static_pad (nameplate, "video_sink");
  gst_pad_send_event (sink, gst_event_new_eos ());
  gst_object_unref (sink);
  gst_object_unref (nameplate);
  if (conf->arx)
    conf_audio_end_sources (conf);
  conf_leave_output (conf->pipeline);
  GST_INFO ("EOS sent at %" G_GINT64_FORMAT " ms", CONF_MONO_MS ());
  conf_exit_guard_step ("waiting for the EOS");
  g_timeout_add_seconds (END_TIMEOUT_SECONDS, quit_now, conf);
  return G_SOURCE_REMOVE;
}

static gboolean
every_second (gpointer data)
{
  Conference *conf = data;
  gint64 elapsed = (g_get_monotonic_time () - conf->started) / G_USEC_PER_SEC;

  if (conf->stopping)
    return G_SOURCE_REMOVE;
  conf_stats_print (conf);
  if (elapsed > 0 && elapsed % conf->opt.snapshot_interval == 0)
    write_snapshot (conf, FALSE);
  if (conf->opt.duration && elapsed >= conf->opt.duration)
    leave (conf);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  Conference *conf = data;
  GError *err = NULL;
  gchar *dbg = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("conference: error from %s: %s\n%s\n",
          GST_OBJECT_NAME (msg->src), err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      g_main_loop_quit (conf->loop);
      break;
    case GST_MESSAGE_EOS:
      GST_INFO ("EOS at %" G_GINT64_FORMAT " ms", CONF_MONO_MS ());
      g_main_loop_quit (conf->loop);
      break;
    case GST_MESSAGE_STATE_CHANGED:
      if (GST_MESSAGE_SRC (msg) == GST_OBJECT (conf->pipeline)) {
        GstState state;

        gst_message_parse_state_changed (msg, NULL, &state, NULL);
        GST_INFO ("pipeline %s at %" G_GINT64_FORMAT " ms, base time %"
            GST_TIME_FORMAT, gst_element_state_get_name (state),
            CONF_MONO_MS (), GST_TIME_ARGS (gst_element_get_base_time
                (conf->pipeline)));
      }
      break;
    case GST_MESSAGE_QOS:
      GST_INFO ("%s dropped a late buffer at %" G_GINT64_FORMAT " ms",
          GST_OBJECT_NAME (msg->src), CONF_MONO_MS ());
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static void
conference_clear (Conference * conf)
{
  conf_exit_guard_step ("writing the last snapshot");
  conf_snapshots_finish (&conf->snapshots);
  if (conf->snapshots.skipped)
    g_printerr ("conference: %u snapshots left out (the one before was still "
        "being saved)\n", conf->snapshots.skipped);
  GST_INFO ("last snapshot written at %" G_GINT64_FORMAT " ms",
      CONF_MONO_MS ());
  if (conf->pipeline) {
    conf_exit_guard_step ("stopping the pipeline");
    gst_element_set_state (conf->pipeline, GST_STATE_NULL);
    GST_INFO ("stopped at %" G_GINT64_FORMAT " ms", CONF_MONO_MS ());
  }
#ifdef HAVE_NICE
  conf_ice_clear (conf);
#endif
  conf_tiles_clear (conf);
  conf_audio_clear (conf);
  conf_stats_clear (conf);
  g_clear_object (&conf->self_pad);
  g_clear_object (&conf->mix);
  g_clear_object (&conf->tx);
  g_clear_object (&conf->rx);
  g_clear_object (&conf->arx);
  g_clear_object (&conf->amix);
  g_clear_object (&conf->snap);
  g_clear_object (&conf->pipeline);
  if (conf->stats_json)
    fclose (conf->stats_json);
  if (conf->loop)
    g_main_loop_unref (conf->loop);
  g_mutex_clear (&conf->lock);
  conf_options_clear (&conf->opt);
}

static gboolean
start_ice (Conference * conf)
{
#ifdef HAVE_NICE
  GError *err = NULL;

  if (conf_ice_start (conf, &err))
    return TRUE;
  g_printerr ("conference: %s\n", err->message);
  g_error_free (err);
#endif
  return FALSE;
}

/* glibc spreads our ~40 streaming threads over up to 8 malloc arenas per
 * core, and each arena keeps what it once held: over a 2-member call's first
 * ten minutes the RSS grew about 1 MB a minute with the default arenas and a
 * quarter of that with two, at the same CPU (docs/results.md, "Soak").
 * MALLOC_ARENA_MAX in the environment wins. */
static void
limit_malloc_arenas (void)
{
#ifdef __GLIBC__
  if (!g_getenv ("MALLOC_ARENA_MAX"))
    mallopt (M_ARENA_MAX, 2);
#endif
}

static gboolean
parse_options (int argc, char **argv, ConfOptions * o)
{
  GError *err = NULL;
#ifdef HAVE_NICE
  const gboolean with_nice = TRUE;
#else
  const gboolean with_nice = FALSE;
#endif

  if (conf_options_parse (o, argc, argv, gst_init_get_option_group (),
          with_nice, &err))
    return TRUE;
  g_printerr ("conference: %s\n", err->message);
  g_error_free (err);
  return FALSE;
}

int
main (int argc, char **argv)
{
  Conference conf = { 0 };
  GError *err = NULL;
  gchar where[320];
  GstBus *bus;
  int ret = 1;

  limit_malloc_arenas ();
  g_mutex_init (&conf.lock);
  conf_snapshots_init (&conf.snapshots, gst_video_convert_sample);
  GST_DEBUG_CATEGORY_INIT (conference_debug, "conference", 0,
      "conferencing application");
  if (!parse_options (argc, argv, &conf.opt) || !build_pipeline (&conf))
    goto out;
  if (conf.opt.stats_json && !(conf.stats_json =
          fopen (conf.opt.stats_json, "a"))) {
    g_printerr ("conference: cannot write %s\n", conf.opt.stats_json);
    goto out;
  }
  conf.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (conf.pipeline);
  gst_bus_add_watch (bus, on_bus, &conf);
  gst_object_unref (bus);
  if (!conf_exit_guard_install (EXIT_BOUND_SECONDS, leave, &conf, &err)) {
    g_printerr ("conference: %s\n", err->message);
    g_error_free (err);
    goto out;
  }
  if (conf.opt.ice && !start_ice (&conf))
    goto out;
  if (conf.opt.ice)
    g_snprintf (where, sizeof where, "over ICE (rendezvous %s)",
        conf.opt.rendezvous);
  else
    g_snprintf (where, sizeof where, "on port %u", conf.opt.port);
  g_print ("participant %u (%s, colour %06x) %s, %s, grid %ux%u, %s\n",
      conf.opt.id, conf.opt.name, conf.opt.colour, where,
      conf.opt.headless ? "headless" : "window", conf.grid_cols,
      conf.grid_rows, !conf.opt.audio ? "no audio" :
      conf.opt.audio_device ? "audio from the microphone" : "audio tone");
  if (conf.opt.audio && !conf.opt.audio_device && !conf.opt.ice)
    g_print ("participant %u: audio tone %u Hz on port %u\n", conf.opt.id,
        conf_audio_frequency (conf.opt.id),
        conf.opt.port + CONF_AUDIO_PORT_OFFSET);
  else if (conf.opt.audio && !conf.opt.audio_device)
    g_print ("participant %u: audio tone %u Hz over its own ICE transport\n",
        conf.opt.id, conf_audio_frequency (conf.opt.id));
  if (conf.opt.uplink_rate)
    g_print ("participant %u: uplink %" G_GUINT64_FORMAT " bit/s, video "
        "copies within %" G_GUINT64_FORMAT " bit/s\n", conf.opt.id,
        conf.opt.uplink_rate, conf_video_uplink_rate (&conf.opt));
  conf.started = g_get_monotonic_time ();
  if (conf_pipeline_play (conf.pipeline) == GST_STATE_CHANGE_FAILURE) {
    g_printerr ("conference: the pipeline does not start (see above)\n");
    goto out;
  }
  g_timeout_add_seconds (1, every_second, &conf);
  g_main_loop_run (conf.loop);
  ret = 0;

out:
  conference_clear (&conf);
  return ret;
}
