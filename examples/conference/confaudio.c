/* The remote participants' voices. The audio of a call is a second TPSS
 * session beside the video one, on each member's port + 1 with the same
 * member ids (conf_audio_members); its tpsssrc adds a pad src_<id> per
 * member, decoded into audiomixer. Both tpsssrc stamp from the members'
 * sender reports in one sync-group, so a member's voice and picture share
 * one offset (lip sync). */
#include "conference.h"

#include <stdlib.h>
#include <string.h>

/* Where a voice's RTP stands: its last sequence number and time. */
typedef struct
{
  gboolean started;
  guint16 seq;
  GstClockTime pts;
} VoiceSequence;

/* Beyond this many packets in a row (2 s of 40 ms frames) a gap is a new
 * start of the stream, not a loss to conceal. */
#define MAX_CONCEALED_PACKETS 50

static gboolean
rtp_seq (GstBuffer * buf, guint16 * seq)
{
  guint8 b[2];

  if (gst_buffer_extract (buf, 2, b, 2) != 2)
    return FALSE;
  *seq = (guint16) (b[0] << 8 | b[1]);
  return TRUE;
}

/* tpsssrc hands a voice's packets over in order with holes where packets
 * were lost for good. The depayloader turns a "GstRTPPacketLost" event into
 * a GAP, on which opusdec conceals the hole or, with in-band FEC, rebuilds
 * its last frame from the packet after it; without the event the hole
 * would be silence. */
static void
signal_holes_before (GstPad * pad, VoiceSequence * v, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  guint16 seq;
  gint missing;

  if (!rtp_seq (buf, &seq))
    return;
  missing = v->started ? (gint16) (seq - v->seq) - 1 : 0;
  if (missing > 0 && missing <= MAX_CONCEALED_PACKETS &&
      GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (v->pts) &&
      pts > v->pts) {
    GstClockTime step = (pts - v->pts) / (missing + 1);
    GstStructure *s = gst_structure_new ("GstRTPPacketLost",
        "seqnum", G_TYPE_UINT, (guint) (guint16) (v->seq + 1),
        "timestamp", G_TYPE_UINT64, v->pts + step,
        "duration", G_TYPE_UINT64, step * missing, NULL);

    gst_pad_send_event (pad,
        gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, s));
  }
  if (!v->started || (gint16) (seq - v->seq) > 0) {
    v->started = TRUE;
    v->seq = seq;
    v->pts = pts;
  }
}

static GstPadProbeReturn
signal_lost_packets (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  signal_holes_before (pad, data, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static void
watch_sequence (GstElement * depay)
{
  GstPad *sink = gst_element_get_static_pad (depay, "sink");

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, signal_lost_packets,
      g_new0 (VoiceSequence, 1), g_free);
  gst_object_unref (sink);
}

/* queue ! rtpopusdepay ! opusdec ! audioconvert ! audioresample ! mixer */
static const gchar *const voice_factories[] = { "queue", "rtpopusdepay",
  "opusdec", "audioconvert", "audioresample", NULL
};

static ConfBranch *
voice_build (Conference * conf, guint member)
{
  ConfBranch *b = conf_branch_new (conf, "voice", member, conf->amix,
      voice_factories);

  if (!b)
    return NULL;
  /* a lost packet is rebuilt from the next one's FEC, or concealed */
  g_object_set (b->elements[2], "plc", TRUE, "use-inband-fec", TRUE, NULL);
  watch_sequence (b->elements[1]);
  if (!conf_branch_link (b)) {
    conf_branch_discard (conf, b);
    return NULL;
  }
  conf_branch_play (b);
  return b;
}

/* The holes @member's voice decoder filled so far (rebuilt from in-band
 * FEC or concealed), as opusdec counts them; 0 without a voice. */
guint64
conf_audio_gaps (Conference * conf, guint member)
{
  GstElement *dec = NULL;
  GstStructure *st = NULL;
  guint64 gaps = 0;
  ConfBranch *b;

  if (!conf->voices.table)
    return 0;
  g_mutex_lock (&conf->lock);
  b = g_hash_table_lookup (conf->voices.table, GUINT_TO_POINTER (member));
  if (b)
    dec = gst_object_ref (b->elements[2]);
  g_mutex_unlock (&conf->lock);
  if (!dec)
    return 0;
  g_object_get (dec, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "num-gap", &gaps);
    gst_structure_free (st);
  }
  gst_object_unref (dec);
  return gaps;
}

/* FALSE, said on stderr, when a voice's element is missing (or, with
 * --preload-decoders, its plugin does not load). */
gboolean
conf_audio_init (Conference * conf)
{
  GError *err = NULL;

  if (!(conf->opt.preload_decoders ?
          conf_plugins_preload (voice_factories, &err) :
          conf_plugins_find (voice_factories, &err))) {
    g_printerr ("conference: %s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  conf_branches_init (&conf->voices, conf, conf->arx, voice_build, NULL);
  return TRUE;
}

/* At the end: every voice ends, so the mix can finish. */
void
conf_audio_end_voices (Conference * conf)
{
  conf_branches_send_eos (&conf->voices);
}

/* At the end, after the voices: our microphone and the mixer's silence
 * end, so the mix and the recording finish. */
void
conf_audio_end_sources (Conference * conf)
{
  const gchar *sources[] = { "mic", "silence" };

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline),
        sources[i]);
    if (e) {
      gst_element_send_event (e, gst_event_new_eos ());
      gst_object_unref (e);
    }
  }
}

guint
conf_audio_count (Conference * conf)
{
  return conf_branches_count (&conf->voices);
}

void
conf_audio_clear (Conference * conf)
{
  conf_branches_clear (&conf->voices);
}
