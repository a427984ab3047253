/* tpss-fec-demo: live H.264 over RTP/UDP on loopback through a lossy link,
 * protected by tpssfecenc / tpssfecdec. Every second it prints how many media
 * packets the link lost (what a receiver without FEC would miss), how many
 * were still missing after FEC repair, and how many frames decoded intact;
 * at the end a summary and the two elements' `stats`.
 *
 *   tpss-fec-demo [--seconds=N] [--loss=PERCENT] [--burst=LEN] [--k=K] [--l=L]
 *
 * --loss is the share of media packets the link loses on average. It loses
 * them in bursts of LEN consecutive packets: a burst starts at a packet with
 * the probability that gives that share (printed in the header), seeded so
 * runs repeat. Parity travels on its own port, unharmed, as a separate path
 * would.
 *
 * A frame is intact when its pixels are bit-exact with the same frame (same
 * RTP timestamp) from a loss-free decode of the same RTP stream, a second
 * branch on the sender side. Concealed or damaged frames are decoded, not
 * intact.
 */
#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 30
#define KEYFRAME_SECONDS 2      /* a damaged frame spoils the rest of its GOP */
#define DRAIN_MAX_SECONDS 10    /* after the last frame, wait at most this */

/* One decode: its frames keyed by RTP time (ns from the segment start
 * @base), the PTS stamp_rtp_time gave their packets. */
typedef struct
{
  GMutex *lock;
  GstClockTime base;
  GHashTable *digests;          /* RTP time -> MD5 of the pixels */
  guint64 frames;
} Branch;

typedef struct
{
  GMutex lock;

  /* The lossy link */
  GRand *rand;
  gdouble burst_start;          /* chance that a packet starts a burst */
  guint burst, burst_left;
  guint64 sent, dropped;

  /* Media packets out of tpssfecdec: a bitmap by extended sequence number */
  GArray *delivered_map;
  gint64 highest;               /* highest extended seqnum out, -1: none */
  guint64 delivered;

  /* Decoded frames of the loss-free and of the received stream */
  Branch reference, received;
} Demo;

/* What one line of output shows. */
typedef struct
{
  guint64 sent, lost, missing;
  guint64 frames_sent, decoded, intact;
} Figures;

/* A burst of LEN lost packets is followed by a geometric run of delivered
 * ones, mean (1 - p) / p, so the lost share is r = LEN p / (LEN p + 1 - p);
 * solved for p. */
static gdouble
burst_start_probability (gdouble loss_share, guint burst)
{
  return loss_share / (burst * (1.0 - loss_share) + loss_share);
}

static GstPadProbeReturn
lossy_link (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Demo *demo = data;
  gboolean drop;

  g_mutex_lock (&demo->lock);
  demo->sent++;
  if (demo->burst_left == 0 && g_rand_double (demo->rand) < demo->burst_start)
    demo->burst_left = demo->burst;
  drop = demo->burst_left > 0;
  if (drop) {
    demo->burst_left--;
    demo->dropped++;
  }
  g_mutex_unlock (&demo->lock);
  return drop ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* The sender numbers media packets from 0, so the first one out is near 0. */
static gint64
extend_seqnum (gint64 highest, guint16 seq)
{
  if (highest < 0)
    return seq;
  return highest + (gint16) (seq - (guint16) highest);
}

/* Called with the lock held. */
static void
mark_delivered (Demo * demo, guint16 seq)
{
  gint64 ext = extend_seqnum (demo->highest, seq);
  guint byte, bit;
  guint8 *bits;

  if (ext < 0)
    return;
  byte = ext / 8;
  bit = 1u << (ext % 8);
  if (byte >= demo->delivered_map->len)
    g_array_set_size (demo->delivered_map, byte + 1024);
  bits = (guint8 *) demo->delivered_map->data;
  if (bits[byte] & bit)
    return;
  bits[byte] |= bit;
  demo->delivered++;
  demo->highest = MAX (demo->highest, ext);
}

static gboolean
note_delivered_buffer (GstBuffer ** buf, guint idx, gpointer data)
{
  Demo *demo = data;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint16 seq;

  if (!gst_rtp_buffer_map (*buf, GST_MAP_READ, &rtp))
    return TRUE;
  seq = gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);

  g_mutex_lock (&demo->lock);
  mark_delivered (demo, seq);
  g_mutex_unlock (&demo->lock);
  return TRUE;
}

static GstPadProbeReturn
note_delivered (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        note_delivered_buffer, data);
  } else {
    buf = GST_PAD_PROBE_INFO_BUFFER (info);
    note_delivered_buffer (&buf, 0, data);
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
stamp_buffer (GstBuffer ** buf, guint idx, gpointer data)
{
  const GstClockTime *base = data;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 ts;

  if (!gst_rtp_buffer_map (*buf, GST_MAP_READ, &rtp))
    return TRUE;
  ts = gst_rtp_buffer_get_timestamp (&rtp);
  gst_rtp_buffer_unmap (&rtp);

  *buf = gst_buffer_make_writable (*buf);
  GST_BUFFER_PTS (*buf) = *base + gst_util_uint64_scale (ts, GST_SECOND,
      90000);
  GST_BUFFER_DTS (*buf) = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static GstClockTime
segment_start (GstPad * pad)
{
  GstEvent *event = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  const GstSegment *segment;
  GstClockTime start = 0;

  if (event) {
    gst_event_parse_segment (event, &segment);
    start = segment->start;
    gst_event_unref (event);
  }
  return start;
}

/* Stamps RTP packets with their RTP timestamp as PTS (from the segment
 * start, so they stay in the segment), so that the frames of the received
 * and of the reference decode can be matched. */
static GstPadProbeReturn
stamp_rtp_time (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Branch *branch = data;
  GstClockTime base = segment_start (pad);
  GstBufferList *list;
  GstBuffer *buf;

  g_mutex_lock (branch->lock);
  branch->base = base;
  g_mutex_unlock (branch->lock);

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    list = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST
        (info));
    gst_buffer_list_foreach (list, stamp_buffer, &base);
    GST_PAD_PROBE_INFO_DATA (info) = list;
  } else {
    buf = GST_PAD_PROBE_INFO_BUFFER (info);
    stamp_buffer (&buf, 0, &base);
    GST_PAD_PROBE_INFO_DATA (info) = buf;
  }
  return GST_PAD_PROBE_OK;
}

/* MD5 of the visible pixels (not the row padding), or NULL. */
static gchar *
frame_digest (GstBuffer * buf, GstPad * pad)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo info;
  GstVideoFrame frame;
  GChecksum *sum;
  gchar *digest;

  if (!caps || !gst_video_info_from_caps (&info, caps)) {
    gst_clear_caps (&caps);
    return NULL;
  }
  gst_caps_unref (caps);
  if (!gst_video_frame_map (&frame, &info, buf, GST_MAP_READ))
    return NULL;

  sum = g_checksum_new (G_CHECKSUM_MD5);
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&frame); c++) {
    const guint8 *row = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    gsize row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);

    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++) {
      g_checksum_update (sum, row, row_bytes);
      row += GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    }
  }
  gst_video_frame_unmap (&frame);
  digest = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return digest;
}

static void
on_frame (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Branch *branch = data;
  gchar *digest = frame_digest (buf, pad);
  gint64 rtp_time;

  g_mutex_lock (branch->lock);
  branch->frames++;
  rtp_time = GST_BUFFER_PTS (buf) - branch->base;
  if (digest)
    g_hash_table_replace (branch->digests,
        g_memdup2 (&rtp_time, sizeof rtp_time), digest);
  g_mutex_unlock (branch->lock);
}

/* Received frames identical to the reference frame of the same RTP time.
 * Called with the lock held. */
static guint64
count_intact (Demo * demo)
{
  GHashTableIter iter;
  gpointer rtp_time, digest;
  guint64 intact = 0;

  g_hash_table_iter_init (&iter, demo->received.digests);
  while (g_hash_table_iter_next (&iter, &rtp_time, &digest)) {
    const gchar *ref = g_hash_table_lookup (demo->reference.digests, rtp_time);
    intact += ref && strcmp (ref, digest) == 0;
  }
  return intact;
}

/* @final: the stream is over, so every packet not out of the decoder is
 * missing; before that only the gaps behind the newest packet out are. */
static Figures
take_figures (Demo * demo, gboolean final)
{
  Figures f;

  g_mutex_lock (&demo->lock);
  f.sent = demo->sent;
  f.lost = demo->dropped;
  f.missing = final ? demo->sent - MIN (demo->delivered, demo->sent)
      : (guint64) (demo->highest + 1) - demo->delivered;
  f.frames_sent = demo->reference.frames;
  f.decoded = demo->received.frames;
  f.intact = count_intact (demo);
  g_mutex_unlock (&demo->lock);
  return f;
}

static gdouble
percent (guint64 part, guint64 whole)
{
  return whole ? 100.0 * part / whole : 0.0;
}

static guint
free_udp_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  guint port = 0;

  if (s && g_socket_bind (s, any, FALSE, NULL)) {
    bound = g_socket_get_local_address (s, NULL);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_object_unref (bound);
  }
  g_object_unref (any);
  g_object_unref (lo);
  g_clear_object (&s);
  return port;
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  if (err) {
    g_printerr ("cannot build pipeline: %s\n", err->message);
    exit (1);
  }
  return p;
}

/* Numbering packets and RTP time from 0 lets the demo extend sequence
 * numbers without guessing where they start. */
static GstElement *
sender_pipeline (gint seconds, gint k, gint l, guint media_port,
    guint fec_port)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball "
      "num-buffers=%d ! video/x-raw,width=640,height=360,framerate=%d/1 ! "
      "x264enc tune=zerolatency speed-preset=ultrafast bitrate=1500 "
      "key-int-max=%d ! rtph264pay mtu=1200 pt=96 config-interval=-1 "
      "seqnum-offset=0 timestamp-offset=0 ! tee name=t ! queue ! "
      "tpssfecenc name=enc packet-distance=%d subsegment-length=%d pt=100 ! "
      "identity name=link ! udpsink host=127.0.0.1 port=%u "
      "enc.fec_0 ! udpsink host=127.0.0.1 port=%u async=false "
      "t. ! queue ! rtph264depay name=refdepay ! avdec_h264 ! "
      "fakesink name=ref signal-handoffs=true sync=false",
      seconds * FPS, FPS, KEYFRAME_SECONDS * FPS, k, l, media_port,
      fec_port);
  GstElement *p = launch (desc);

  g_free (desc);
  return p;
}

/* A large socket buffer, so that a stall on a loaded machine does not lose
 * packets the link let through: they would not count as lost on the link. */
static GstElement *
receiver_pipeline (guint media_port, guint fec_port)
{
  gchar *desc = g_strdup_printf ("udpsrc port=%u buffer-size=4194304 "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96\" ! "
      "tpssfecdec name=dec size-time=300000000 pt=100 ! "
      "rtph264depay name=depay ! avdec_h264 ! "
      "fakesink name=sink signal-handoffs=true sync=false "
      "udpsrc port=%u caps=\"application/x-rtp,payload=100\" ! dec.fec_0",
      media_port, fec_port);
  GstElement *p = launch (desc);

  g_free (desc);
  return p;
}

static void
add_probe (GstElement * bin, const gchar * element, const gchar * pad_name,
    GstPadProbeType type, GstPadProbeCallback probe, gpointer data)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), element);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);

  gst_pad_add_probe (pad, type, probe, data, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static void
on_handoff (GstElement * bin, const gchar * sink, Branch * branch)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), sink);

  g_signal_connect (e, "handoff", G_CALLBACK (on_frame), branch);
  gst_object_unref (e);
}

/* Prints errors; @eos (if not NULL) is set once the pipeline is at EOS. */
static gboolean
poll_bus (GstElement * pipeline, const gchar * who, gboolean * eos)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;
  gboolean ok = TRUE;

  while ((m = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      if (eos)
        *eos = TRUE;
    } else {
      GError *err;
      gst_message_parse_error (m, &err, NULL);
      g_printerr ("%s: %s\n", who, err->message);
      g_error_free (err);
      ok = FALSE;
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return ok;
}

static gchar *
element_stats (GstElement * bin, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);
  GstStructure *s;
  gchar *str;

  g_object_get (e, "stats", &s, NULL);
  str = gst_structure_to_string (s);
  gst_structure_free (s);
  gst_object_unref (e);
  return str;
}

static void
print_header (gint seconds, gint k, gint l, gdouble loss_percent, gint burst,
    gdouble burst_start)
{
  g_print ("TPSS FEC demo: %d s of 640x360 H.264 at %d fps (keyframe every "
      "%d s), parity\n      k=%d l=%d (%.0f%% overhead)\n", seconds, FPS,
      KEYFRAME_SECONDS, k, l, l ? 100.0 / l : 0.0);
  g_print ("link: loses %.1f%% of media packets on average, in bursts of %d "
      "(a burst\n      starts at a packet with probability %.2f%%); parity "
      "packets are not lost\n", loss_percent, burst, 100.0 * burst_start);
  g_print ("%4s %11s %13s %18s %12s %8s %7s\n", "s", "media sent",
      "lost on link", "missing after FEC", "frames sent", "decoded", "intact");
}

static void
print_row (gint t, const Figures * f)
{
  g_print ("%4d %11" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %4.1f%% %12"
      G_GUINT64_FORMAT " %4.1f%% %12" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
      " %7" G_GUINT64_FORMAT "\n", t, f->sent, f->lost,
      percent (f->lost, f->sent), f->missing, percent (f->missing, f->sent),
      f->frames_sent, f->decoded, f->intact);
}

static void
print_summary (const Figures * f, const gchar * enc_stats,
    const gchar * dec_stats)
{
  g_print ("media packets: %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
      " lost on the link (%.1f%%), %" G_GUINT64_FORMAT
      " still missing after FEC (%.1f%%)\n", f->sent, f->lost,
      percent (f->lost, f->sent), f->missing, percent (f->missing, f->sent));
  g_print ("frames: %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
      " decoded, %" G_GUINT64_FORMAT " intact (bit-exact with a loss-free "
      "decode)\n", f->frames_sent, f->decoded, f->intact);
  g_print ("tpssfecenc stats: %s\ntpssfecdec stats: %s\n", enc_stats,
      dec_stats);
}

static gboolean
check_options (gint seconds, gdouble loss, gint burst, gint k, gint l)
{
  const gchar *problem = NULL;

  if (seconds < 1)
    problem = "--seconds must be at least 1";
  else if (loss < 0 || loss > 100)
    problem = "--loss is a share of media packets, 0 to 100 (%)";
  else if (burst < 1)
    problem = "--burst must be at least 1 packet";
  else if (k < 1 || k > 255)
    problem = "--k (packet distance) must be 1 to 255";
  else if (l < 0 || l > 255)
    problem = "--l (subsegment length) must be 0 (no parity) to 255";
  if (problem)
    g_printerr ("%s\n", problem);
  return problem == NULL;
}

static void
branch_init (Branch * branch, GMutex * lock)
{
  branch->lock = lock;
  branch->digests = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
}

static void
demo_init (Demo * demo, gdouble loss_share, guint burst)
{
  g_mutex_init (&demo->lock);
  demo->rand = g_rand_new_with_seed (42);
  demo->burst_start = burst_start_probability (loss_share, burst);
  demo->burst = burst;
  demo->delivered_map = g_array_new (FALSE, TRUE, 1);
  demo->highest = -1;
  branch_init (&demo->reference, &demo->lock);
  branch_init (&demo->received, &demo->lock);
}

static void
demo_clear (Demo * demo)
{
  g_rand_free (demo->rand);
  g_array_unref (demo->delivered_map);
  g_hash_table_unref (demo->reference.digests);
  g_hash_table_unref (demo->received.digests);
  g_mutex_clear (&demo->lock);
}

/* One line a second until the last frame was sent and the receiver has
 * either decoded every frame or had nothing new for a second. */
static gboolean
run (Demo * demo, GstElement * send, GstElement * recv, gint seconds)
{
  gboolean sender_done = FALSE;
  guint64 delivered_before = 0;

  for (gint t = 1; t <= seconds + DRAIN_MAX_SECONDS; t++) {
    Figures f;
    guint64 delivered;

    g_usleep (G_USEC_PER_SEC);
    if (!poll_bus (send, "sender", &sender_done) ||
        !poll_bus (recv, "receiver", NULL))
      return FALSE;
    f = take_figures (demo, FALSE);
    print_row (t, &f);

    g_mutex_lock (&demo->lock);
    delivered = demo->delivered;
    g_mutex_unlock (&demo->lock);
    if (sender_done && (f.decoded >= f.frames_sent ||
            delivered == delivered_before))
      break;
    delivered_before = delivered;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint seconds = 10, k = 4, l = 5, burst = 3;
  gdouble loss_percent = 3.0;
  GOptionEntry entries[] = {
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds,
        "How long to stream (default 10)", "N"},
    {"loss", 0, 0, G_OPTION_ARG_DOUBLE, &loss_percent,
          "Share of media packets the link loses on average, in bursts "
          "(default 3)", "PERCENT"},
    {"burst", 0, 0, G_OPTION_ARG_INT, &burst,
        "Consecutive media packets lost per burst (default 3)", "LEN"},
    {"k", 0, 0, G_OPTION_ARG_INT, &k,
        "Packet distance: parity repairs bursts up to K packets (default 4)",
          "K"},
    {"l", 0, 0, G_OPTION_ARG_INT, &l,
        "Subsegment length: one parity packet per L media packets, 0 for "
          "none (default 5)", "L"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- TPSS FEC across a lossy link");
  GError *err = NULL;
  Demo demo = { 0 };
  GstElement *send, *recv;
  guint media_port, fec_port;
  gchar *enc_stats, *dec_stats;
  Figures f;
  gboolean ok;

  g_option_context_set_summary (ctx, "Streams live H.264 over RTP on "
      "loopback through a link that loses media packets in bursts, protected "
      "by tpssfecenc/tpssfecdec, and prints each second the media packets "
      "lost on the link and still missing after FEC, and the frames decoded "
      "and decoded intact (bit-exact with a loss-free decode).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!check_options (seconds, loss_percent, burst, k, l))
    return 2;

  demo_init (&demo, loss_percent / 100.0, burst);
  media_port = free_udp_port ();
  fec_port = free_udp_port ();
  recv = receiver_pipeline (media_port, fec_port);
  send = sender_pipeline (seconds, k, l, media_port, fec_port);
  add_probe (send, "link", "src", GST_PAD_PROBE_TYPE_BUFFER, lossy_link,
      &demo);
  add_probe (send, "refdepay", "sink", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, stamp_rtp_time, &demo.reference);
  add_probe (recv, "depay", "sink", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, note_delivered, &demo);
  add_probe (recv, "depay", "sink", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, stamp_rtp_time, &demo.received);
  on_handoff (send, "ref", &demo.reference);
  on_handoff (recv, "sink", &demo.received);

  print_header (seconds, k, l, loss_percent, burst, demo.burst_start);
  gst_element_set_state (recv, GST_STATE_PLAYING);
  gst_element_set_state (send, GST_STATE_PLAYING);
  ok = run (&demo, send, recv, seconds);

  enc_stats = element_stats (send, "enc");
  dec_stats = element_stats (recv, "dec");
  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  if (ok) {
    f = take_figures (&demo, TRUE);
    print_summary (&f, enc_stats, dec_stats);
  }
  g_free (enc_stats);
  g_free (dec_stats);
  gst_object_unref (send);
  gst_object_unref (recv);
  demo_clear (&demo);
  return ok ? 0 : 1;
}
