/**
 * SECTION:element-tpssfecenc
 * @title: tpssfecenc
 * @see_also: tpssfecdec, rtpbin, rtpst2022-1-fecenc
 *
 * Protects an RTP stream with the interleaved XOR parity of TPSS (Tojo et
 * al., sections 2.2 and 2.4). The media packets are cut into segments of
 * k x l packets; subsegment j holds packets j, j+k, j+2k, ... and gets one
 * parity packet, pushed on the `fec_0` pad after the segment's data. Any burst
 * of up to k consecutive losses in a segment, or any loss pattern with at most
 * one loss per subsegment, is repaired by tpssfecdec without retransmission.
 *
 * Media packets pass through unchanged. Parity packets are RTP packets with
 * their own SSRC, payload type and sequence numbers; each carries its
 * geometry, so #GstTpssFecEnc:packet-distance and
 * #GstTpssFecEnc:subsegment-length may change while PLAYING (from the next
 * segment on) and the decoder follows. The wire format is in
 * docs/protocols/tpss-fec.md.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! rtph264pay ! \
 *   tpssfecenc name=fec packet-distance=4 subsegment-length=5 ! udpsink host=127.0.0.1 port=5000 \
 *   fec.fec_0 ! udpsink host=127.0.0.1 port=5002 async=false
 * ]| Sends H.264 on port 5000 and its parity on port 5002. The parity branch
 * gets its first buffer only after a segment of media, so its sink must not
 * wait for preroll (`async=false`), or each branch needs a queue.
 *
 * With rtpbin:
 * |[
 * gst-launch-1.0 rtpbin name=rtp fec-encoders='fec,0="tpssfecenc\ packet-distance\=4";' \
 *   videotestsrc is-live=true ! x264enc tune=zerolatency ! rtph264pay ! rtp.send_rtp_sink_0 \
 *   rtp.send_rtp_src_0 ! udpsink port=5000 rtp.send_fec_src_0_0 ! udpsink port=5002 async=false
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpssfecenc.h"
#include "tpssfec.h"

#include <gst/rtp/gstrtpbuffer.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpss_fec_enc_debug);
#define GST_CAT_DEFAULT gst_tpss_fec_enc_debug

#define DEFAULT_PACKET_DISTANCE 20      /* the paper's k */
#define DEFAULT_SUBSEGMENT_LENGTH 5     /* the paper's l */
#define DEFAULT_PT 100
#define DEFAULT_SSRC G_MAXUINT          /* random */

enum
{
  PROP_0,
  PROP_PACKET_DISTANCE,
  PROP_SUBSEGMENT_LENGTH,
  PROP_PT,
  PROP_SSRC,
  PROP_STATS,
};

struct _GstTpssFecEnc
{
  GstElement parent;

  GstPad *sinkpad, *srcpad, *fecpad;

  /* Settings, under the object lock */
  guint packet_distance;
  guint subsegment_length;
  guint pt;
  guint ssrc;

  gint params_changed;          /* atomic: k or l set since last packet */

  /* State, streaming thread only; counters written there with relaxed
   * atomics, read by get_stats; core_distance/length under the object lock */
  TpssFecEncoder *core;
  guint core_distance, core_length;
  guint32 fec_ssrc;
  guint16 fec_seq;
  guint fec_pt;
  gint clock_rate;
  gboolean fec_caps_pending;
  guint64 protected, parity_sent, malformed;
};

#define COUNT(field) __atomic_add_fetch (&(field), 1, __ATOMIC_RELAXED)
#define READ(field) __atomic_load_n (&(field), __ATOMIC_RELAXED)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate fec_template = GST_STATIC_PAD_TEMPLATE ("fec_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpss_fec_enc_parent_class parent_class
G_DEFINE_TYPE (GstTpssFecEnc, gst_tpss_fec_enc, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (tpssfecenc, "tpssfecenc", GST_RANK_NONE,
    GST_TYPE_TPSS_FEC_ENC);

static GstStructure *
get_stats (GstTpssFecEnc * self)
{
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("application/x-tpss-fecenc-stats",
      "protected", G_TYPE_UINT64, READ (self->protected),
      "parity-sent", G_TYPE_UINT64, READ (self->parity_sent),
      "malformed", G_TYPE_UINT64, READ (self->malformed),
      "packet-distance", G_TYPE_UINT, self->core_distance,
      "subsegment-length", G_TYPE_UINT, self->core_length, NULL);
  GST_OBJECT_UNLOCK (self);
  return s;
}

static void
push_fec_caps (GstTpssFecEnc * self)
{
  GstCaps *caps;
  guint pt;

  GST_OBJECT_LOCK (self);
  pt = self->fec_pt = self->pt;
  GST_OBJECT_UNLOCK (self);

  caps = gst_caps_new_simple ("application/x-rtp",
      "media", G_TYPE_STRING, "application",
      "encoding-name", G_TYPE_STRING, "TPSSFEC",
      "payload", G_TYPE_INT, pt,
      "clock-rate", G_TYPE_INT, self->clock_rate,
      "ssrc", G_TYPE_UINT, self->fec_ssrc, NULL);
  gst_pad_push_event (self->fecpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  self->fec_caps_pending = FALSE;
}

/* Applies packet-distance / subsegment-length set since the last packet. */
static void
sync_params (GstTpssFecEnc * self)
{
  guint k, l;

  if (!g_atomic_int_compare_and_exchange (&self->params_changed, TRUE, FALSE))
    return;
  GST_OBJECT_LOCK (self);
  k = self->packet_distance;
  l = self->subsegment_length;
  GST_OBJECT_UNLOCK (self);

  if (k == self->core_distance && l == self->core_length)
    return;
  tpss_fec_encoder_set_params (self->core, k, l);
  GST_OBJECT_LOCK (self);
  self->core_distance = k;
  self->core_length = l;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "next segment: k=%u l=%u", k, l);
}

static GstBuffer *
make_parity_buffer (GstTpssFecEnc * self, const guint8 * payload, gsize len,
    guint32 media_ts, GstBuffer * media)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *buf = gst_rtp_buffer_new_allocate (len, 0, 0);

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, self->fec_pt);
  gst_rtp_buffer_set_seq (&rtp, self->fec_seq++);
  gst_rtp_buffer_set_timestamp (&rtp, media_ts);
  gst_rtp_buffer_set_ssrc (&rtp, self->fec_ssrc);
  memcpy (gst_rtp_buffer_get_payload (&rtp), payload, len);
  gst_rtp_buffer_unmap (&rtp);

  if (media) {
    GST_BUFFER_PTS (buf) = GST_BUFFER_PTS (media);
    GST_BUFFER_DTS (buf) = GST_BUFFER_DTS (media);
  }
  return buf;
}

/* Moves the parity the core has ready into @parity (made when needed),
 * stamped with @media's times. */
static void
take_parity (GstTpssFecEnc * self, GstBuffer * media, GstBufferList ** parity)
{
  const guint8 *payload;
  gsize len;
  guint32 media_ts;

  while (tpss_fec_encoder_pop (self->core, &payload, &len, &media_ts)) {
    if (!*parity)
      *parity = gst_buffer_list_new ();
    gst_buffer_list_add (*parity, make_parity_buffer (self, payload, len,
            media_ts, media));
    COUNT (self->parity_sent);
  }
}

/* Feeds one media packet to the core, reading its memories in place. */
static void
protect (GstTpssFecEnc * self, GstBuffer * buffer)
{
  GstMapInfo maps[8];
  TpssFecChunk chunks[8];
  guint n = gst_buffer_n_memory (buffer), mapped = 0;
  TpssFecError err = TPSS_FEC_ERR_RTP;

  if (n <= G_N_ELEMENTS (maps)) {
    for (; mapped < n; mapped++) {
      if (!gst_memory_map (gst_buffer_peek_memory (buffer, mapped),
              &maps[mapped], GST_MAP_READ))
        break;
      chunks[mapped].data = maps[mapped].data;
      chunks[mapped].len = maps[mapped].size;
    }
    if (mapped == n)
      tpss_fec_encoder_addv (self->core, chunks, n, &err);
    for (guint i = 0; i < mapped; i++)
      gst_memory_unmap (gst_buffer_peek_memory (buffer, i), &maps[i]);
  } else if (gst_buffer_map (buffer, &maps[0], GST_MAP_READ)) {
    tpss_fec_encoder_add (self->core, maps[0].data, maps[0].size, &err);
    gst_buffer_unmap (buffer, &maps[0]);
  }

  if (err == TPSS_FEC_OK) {
    COUNT (self->protected);
  } else {
    COUNT (self->malformed);
    GST_LOG_OBJECT (self, "not protected: %s", tpss_fec_error_to_string (err));
  }
}

/* Pushes parity after the media it protects. A missing FEC peer is not an
 * error: the media flow decides. */
static GstFlowReturn
push_parity (GstTpssFecEnc * self, GstBufferList * parity, GstFlowReturn ret)
{
  GstFlowReturn fec_ret;

  if (!parity)
    return ret;
  if (self->fec_caps_pending)
    push_fec_caps (self);
  fec_ret = gst_pad_push_list (self->fecpad, parity);
  if (ret == GST_FLOW_OK && fec_ret != GST_FLOW_OK &&
      fec_ret != GST_FLOW_NOT_LINKED && fec_ret != GST_FLOW_EOS)
    ret = fec_ret;
  return ret;
}

static GstFlowReturn
gst_tpss_fec_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (parent);
  GstBufferList *parity = NULL;
  GstFlowReturn ret;

  sync_params (self);
  protect (self, buffer);
  take_parity (self, buffer, &parity);
  ret = gst_pad_push (self->srcpad, buffer);
  return push_parity (self, parity, ret);
}

static GstFlowReturn
gst_tpss_fec_enc_chain_list (GstPad * pad, GstObject * parent,
    GstBufferList * list)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (parent);
  GstBufferList *parity = NULL;
  GstFlowReturn ret;

  sync_params (self);
  for (guint i = 0; i < gst_buffer_list_length (list); i++) {
    GstBuffer *buffer = gst_buffer_list_get (list, i);
    protect (self, buffer);
    take_parity (self, buffer, &parity);
  }
  ret = gst_pad_push_list (self->srcpad, list);
  return push_parity (self, parity, ret);
}

static void
forward_stream_start (GstTpssFecEnc * self, GstEvent * event)
{
  gchar *stream_id = gst_pad_create_stream_id (self->fecpad,
      GST_ELEMENT (self), "fec");
  GstEvent *fec_event = gst_event_new_stream_start (stream_id);
  guint group_id;

  if (gst_event_parse_group_id (event, &group_id))
    gst_event_set_group_id (fec_event, group_id);
  gst_pad_push_event (self->fecpad, fec_event);
  g_free (stream_id);
}

static gboolean
gst_tpss_fec_enc_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:
      forward_stream_start (self, event);
      return gst_pad_push_event (self->srcpad, event);
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      const GstStructure *s;
      gint rate = 90000;

      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      gst_structure_get_int (s, "clock-rate", &rate);
      self->clock_rate = rate;
      /* Caps before the segment that follows, as sticky order wants. */
      push_fec_caps (self);
      return gst_pad_push_event (self->srcpad, event);
    }
    case GST_EVENT_EOS:{
      GstBufferList *parity = NULL;

      /* Protect the last, short segment too. */
      tpss_fec_encoder_flush (self->core);
      take_parity (self, NULL, &parity);
      push_parity (self, parity, GST_FLOW_OK);
      gst_pad_push_event (self->fecpad, gst_event_ref (event));
      return gst_pad_push_event (self->srcpad, event);
    }
    case GST_EVENT_FLUSH_STOP:
      if (tpss_fec_encoder_flush (self->core) > 0) {
        const guint8 *p;
        gsize len;
        while (tpss_fec_encoder_pop (self->core, &p, &len, NULL));
      }
      return gst_pad_event_default (pad, parent, event);
    default:
      /* Segment, flushes, tags: to both source pads. */
      return gst_pad_event_default (pad, parent, event);
  }
}

static gboolean
gst_tpss_fec_enc_fec_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  /* Parity has its own caps: answer for them, ask nothing upstream. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *caps = gst_pad_get_pad_template_caps (pad);
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static GstIterator *
gst_tpss_fec_enc_iterate_internal_links (GstPad * pad, GstObject * parent)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (parent);
  GValue v = G_VALUE_INIT;
  GstIterator *it;

  /* Queries and upstream events relate media to media; downstream events go
   * to both source pads. */
  if (pad == self->sinkpad)
    return gst_pad_iterate_internal_links_default (pad, parent);
  g_value_init (&v, GST_TYPE_PAD);
  g_value_set_object (&v, self->sinkpad);
  it = gst_iterator_new_single (GST_TYPE_PAD, &v);
  g_value_unset (&v);
  return it;
}

static void
reset_state (GstTpssFecEnc * self)
{
  guint32 ssrc;

  tpss_fec_encoder_free (self->core);
  GST_OBJECT_LOCK (self);
  self->core = tpss_fec_encoder_new (self->packet_distance,
      self->subsegment_length);
  self->core_distance = self->packet_distance;
  self->core_length = self->subsegment_length;
  ssrc = self->ssrc;
  self->protected = self->parity_sent = self->malformed = 0;
  self->fec_pt = self->pt;
  GST_OBJECT_UNLOCK (self);

  self->fec_ssrc = ssrc == G_MAXUINT ? g_random_int () : ssrc;
  self->fec_seq = g_random_int_range (0, G_MAXUINT16);
  self->clock_rate = 90000;
  self->fec_caps_pending = TRUE;
}

/* fec_0 appears on the first READY->PAUSED, announced with pad-added: that
 * is how rtpbin (and delayed linking in gst-launch) finds it. It stays. */
static void
add_fec_pad (GstTpssFecEnc * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);

  if (self->fecpad)
    return;
  self->fecpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "fec_%u"), "fec_0");
  gst_pad_set_query_function (self->fecpad, gst_tpss_fec_enc_fec_query);
  gst_pad_set_iterate_internal_links_function (self->fecpad,
      gst_tpss_fec_enc_iterate_internal_links);
  gst_pad_use_fixed_caps (self->fecpad);
  gst_pad_set_active (self->fecpad, TRUE);
  gst_element_add_pad (GST_ELEMENT (self), self->fecpad);
  gst_element_no_more_pads (GST_ELEMENT (self));
}

static GstStateChangeReturn
gst_tpss_fec_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    reset_state (self);
    add_fec_pad (self);
  }
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_tpss_fec_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PACKET_DISTANCE:
      self->packet_distance = g_value_get_uint (value);
      g_atomic_int_set (&self->params_changed, TRUE);
      break;
    case PROP_SUBSEGMENT_LENGTH:
      self->subsegment_length = g_value_get_uint (value);
      g_atomic_int_set (&self->params_changed, TRUE);
      break;
    case PROP_PT:
      self->pt = g_value_get_uint (value);
      self->fec_caps_pending = TRUE;
      break;
    case PROP_SSRC:
      self->ssrc = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tpss_fec_enc_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PACKET_DISTANCE:
      g_value_set_uint (value, self->packet_distance);
      break;
    case PROP_SUBSEGMENT_LENGTH:
      g_value_set_uint (value, self->subsegment_length);
      break;
    case PROP_PT:
      g_value_set_uint (value, self->pt);
      break;
    case PROP_SSRC:
      g_value_set_uint (value, self->ssrc);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tpss_fec_enc_finalize (GObject * object)
{
  GstTpssFecEnc *self = GST_TPSS_FEC_ENC (object);

  tpss_fec_encoder_free (self->core);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_tpss_fec_enc_class_init (GstTpssFecEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_tpss_fec_enc_set_property;
  gobject_class->get_property = gst_tpss_fec_enc_get_property;
  gobject_class->finalize = gst_tpss_fec_enc_finalize;
  element_class->change_state = gst_tpss_fec_enc_change_state;

  g_object_class_install_property (gobject_class, PROP_PACKET_DISTANCE,
      g_param_spec_uint ("packet-distance", "Packet distance",
          "Packet distance k: number of interleaved subsegments in a segment; "
          "bursts of up to k consecutive losses are repaired (packets). "
          "Takes effect from the next segment",
          1, TPSS_FEC_MAX_DISTANCE, DEFAULT_PACKET_DISTANCE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SUBSEGMENT_LENGTH,
      g_param_spec_uint ("subsegment-length", "Subsegment length",
          "Subsegment length l: data packets per parity packet, so the "
          "overhead is 1/l; 0 sends no parity. Takes effect from the next "
          "segment", 0, TPSS_FEC_MAX_SUBSEGMENT, DEFAULT_SUBSEGMENT_LENGTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type",
          "RTP payload type of the parity packets", 96, 127, DEFAULT_PT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SSRC,
      g_param_spec_uint ("ssrc", "SSRC",
          "SSRC of the parity stream (4294967295 = random)", 0, G_MAXUINT,
          DEFAULT_SSRC, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstTpssFecEnc:stats:
   *
   * protected (guint64): media packets protected (packets);
   * parity-sent (guint64): parity packets pushed on fec_0 (packets);
   * malformed (guint64): input buffers that are not RTP, passed on
   *   unprotected (buffers);
   * packet-distance (guint): k of the segment being built (packets);
   * subsegment-length (guint): l of the segment being built (packets per
   *   parity packet, 0 = no parity).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "protected: media packets protected (packets); "
          "parity-sent: parity packets pushed on fec_0 (packets); "
          "malformed: input buffers that are not RTP, passed on unprotected "
          "(buffers); "
          "packet-distance: k of the segment being built, interleaved "
          "subsegments per segment (packets); "
          "subsegment-length: l of the segment being built, data packets per "
          "parity packet (packets, 0 = no parity)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_add_static_pad_template (element_class, &fec_template);
  gst_element_class_set_static_metadata (element_class,
      "TPSS interleaved parity FEC encoder", "Codec/Encoder/Network/RTP",
      "Adds interleaved XOR parity packets (TPSS, packet distance k, "
      "subsegment length l) to an RTP stream: media passes on src, parity "
      "goes out on fec_0 after each segment of k x l packets. Example: "
      "gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! "
      "rtph264pay ! tpssfecenc name=fec packet-distance=4 "
      "subsegment-length=5 ! udpsink host=127.0.0.1 port=5000 fec.fec_0 ! "
      "udpsink host=127.0.0.1 port=5002 async=false",
      "gst-rtp-transports developers");

  GST_DEBUG_CATEGORY_INIT (gst_tpss_fec_enc_debug, "tpssfecenc", 0,
      "TPSS interleaved parity FEC encoder");
}

static void
gst_tpss_fec_enc_init (GstTpssFecEnc * self)
{
  self->packet_distance = DEFAULT_PACKET_DISTANCE;
  self->subsegment_length = DEFAULT_SUBSEGMENT_LENGTH;
  self->pt = DEFAULT_PT;
  self->ssrc = DEFAULT_SSRC;
  reset_state (self);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_tpss_fec_enc_chain);
  gst_pad_set_chain_list_function (self->sinkpad,
      gst_tpss_fec_enc_chain_list);
  gst_pad_set_event_function (self->sinkpad, gst_tpss_fec_enc_sink_event);
  gst_pad_set_iterate_internal_links_function (self->sinkpad,
      gst_tpss_fec_enc_iterate_internal_links);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_iterate_internal_links_function (self->srcpad,
      gst_tpss_fec_enc_iterate_internal_links);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
