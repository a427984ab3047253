/**
 * SECTION:element-tpsssink
 * @title: tpsssink
 * @see_also: tpsssrc, tpssfecenc, tpssfecdec
 *
 * Sends this member's RTP stream to every other member of a TPSS + NQCP
 * group (Tojo et al., "QoS Control for High-Speed Communication in a
 * Group"). The group is a unicast mesh (#GstTpssSink:members, a list of
 * `id@host:port`) or one multicast group (#GstTpssSink:address a multicast
 * address, #GstTpssSink:port, #GstTpssSink:multicast-iface,
 * #GstTpssSink:ttl-mc, #GstTpssSink:loop). Members join (HELLO) and leave
 * (silence for #GstTpssSink:member-timeout, or a new #GstTpssSink:members
 * while PLAYING).
 *
 * A tpsssink and a tpsssrc of one member share a session (the
 * #GstTpssSink:session name, by default "tpss-<port>"): one protocol core,
 * one UDP socket carrying media, parity and RTCP control (RFC 5761
 * multiplexing), one member id which is also the SSRC of the stream the sink
 * sends (the sink rewrites SSRC and sequence numbers). Either element works
 * alone; the session's thread receives the RATE messages a send-only member
 * needs.
 *
 * What the sink does with each packet (section 3.1): it queues it in the
 * sender queue MQ; the packet waits at least #GstTpssSink:holding-time and
 * leaves paced at the data rate TR. The queue's `<D, TT, HT>` rides on every
 * packet as an RFC 8285 one-byte header extension (#GstTpssSink:qos-ext-id)
 * and, when a packet enters an empty queue, goes ahead in an RTCP APP QOS
 * packet. Each packet is sent to every member (one send in multicast mode)
 * and protected, per destination, by interleaved XOR parity whose geometry
 * (k, l) the two-phase slow start sets for that destination (section 2.3,
 * 2.4); parity has its own SSRC and #GstTpssSink:fec-pt.
 *
 * The data rate TR (the minimum over the destinations: one encoding feeds
 * all) reaches the encoder upstream as the `GstLayerRates` custom upstream
 * event (at most once per #GstTpssSink:min-report-interval) and as the
 * notifying #GstTpssSink:bitrate property (bits/s), for stock encoders
 * (x264enc's `bitrate` is kbit/s).
 *
 * A stream of temporal layers (buffers with the GstTemporalLayerMeta of
 * x264layerenc, which rtph264pay copies to every packet) gets one rate per
 * destination: each destination is sent the prefix of layers that fits the
 * rate it allows (its own RTP sequence numbers and parity; a prefix grows
 * only at a base-layer frame), MQ leaves at the fastest destination's rate,
 * and the `GstLayerRates` event carries one rate per layer, the base layer
 * at the slowest destination's rate and all of them adding up to the
 * slowest's of those within 1.5x of the fastest, so each of them gets
 * every layer (one entry while the destinations allow rates within 1.5x of
 * each other: all get the whole stream). A slow member then sees a lower
 * frame rate instead of a stalled picture.
 *
 * Phase changes are posted as `tpss-phase` element messages (member,
 * phase, distance, length), membership as `tpss-member-joined` /
 * `tpss-member-left`.
 *
 * #GstTpssSink:key-unit-parity gives each key unit (a buffer without
 * GST_BUFFER_FLAG_DELTA_UNIT, as rtph264pay marks an IDR access unit's
 * first packet, and the packets of its RTP time after it) parity of its
 * own: one XOR parity packet per that many of its packets, sent right
 * after them toward every member, so that a key frame lost in part on a
 * lossy link is repaired within the receiver's FEC wait instead of asked
 * for again. The parity leaves through the member's pacer when no media
 * waits (it fills the rate the media leaves) and counts in the stats
 * (parity-sent, key-parity-sent, parity-dropped).
 *
 * With temporal layers each member's copy waits in a queue paced at the
 * member's rate. When a key unit comes while that queue holds more than
 * #GstTpssSink:key-unit-flush (at the member's rate) of whole frames not
 * yet begun on the wire (nor of a key unit queued before), those frames and
 * the parity among them are dropped (key-flush-packets): the member decodes
 * from a key unit on, and a member that asked for one (a late joiner on a
 * slow link) gets it without waiting behind frames it cannot use. The key
 * unit takes over their sequence numbers, so the member sees no loss.
 * With #GstTpssSink:key-unit-queue-time, a member's queue that holds more
 * than that of such frames asks upstream for a key unit (a force-key-unit
 * event, at most one a second), so that a slow member's video does not
 * fall seconds behind its audio while its rate is below the base layer's.
 *
 * A member that starts receiving this stream (a late joiner), or whose
 * depayloader asks for a key unit, sends an RTCP PLI (RFC 4585); a PLI from a
 * member about this member's stream becomes an upstream force-key-unit
 * event (all-headers), at most one per #GstTpssSink:key-unit-holdoff (or
 * twice the RTT to the requester when longer); the others are counted as
 * pli-ignored. PLIs from non-members, from a member's id at another address
 * or about another stream are dropped (pli-dropped).
 *
 * The baselines of the paper are modes of the same element:
 * `slow-start=traditional` (section 4.1) and `control=feedback` (4.2).
 *
 * ## Example launch lines
 *
 * A two-member call on localhost (members 1 and 2, ports 5004 and 5006),
 * each member sending a test video and showing the other's:
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency bitrate=800 ! rtph264pay ! \
 *   tpsssink port=5004 member-id=1 members=1@127.0.0.1:5004,2@127.0.0.1:5006 \
 *   tpsssrc port=5004 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *   rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc is-live=true pattern=ball ! x264enc tune=zerolatency bitrate=800 ! rtph264pay ! \
 *   tpsssink port=5006 member-id=2 members=1@127.0.0.1:5004,2@127.0.0.1:5006 \
 *   tpsssrc port=5006 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *   rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]| With more members, tpsssrc adds one pad per member (use it from an
 * application, or name the pad in gst-launch: `src.src_2 ! ...`).
 *
 * The same with a URI:
 * |[
 * gst-launch-1.0 audiotestsrc is-live=true ! rtpL16pay ! \
 *   "tpss://0.0.0.0:5004?member-id=1&members=1@127.0.0.1:5004,2@127.0.0.1:5006"
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpsssink.h"
#include "gsttpsssession.h"
#include "gstlayerrates.h"
#include "gsttemporallayermeta.h"
#include "gstnettime.h"
#include "tpssgroup.h"
#include "rtcpfb.h"

#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpss_sink_debug);
#define GST_CAT_DEFAULT gst_tpss_sink_debug

#define DEFAULT_KEY_UNIT_HOLDOFF (100 * GST_MSECOND)
#define DEFAULT_KEY_UNIT_PARITY 0
#define DEFAULT_KEY_UNIT_FLUSH (100 * GST_MSECOND)
#define DEFAULT_KEY_UNIT_QUEUE_TIME 0
#define DEFAULT_MAX_QUEUE_AGE 0
#define DEFAULT_PARITY_AGE_FROM_MEDIA FALSE
#define DEFAULT_PARITY_MAX_BACKLOG 0
#define DEFAULT_PARITY_BY_SHARE FALSE
/* A queue's key-unit requests: at most one per key-unit-queue-time, and
 * never more often than this (each is a key frame for every member). */
#define QUEUE_KEY_UNIT_MIN_INTERVAL GST_SECOND

enum
{
  PROP_BITRATE = GST_TPSS_PROP_LAST,
  PROP_STATS,
  PROP_KEY_UNIT_HOLDOFF,
  PROP_KEY_UNIT_PARITY,
  PROP_KEY_UNIT_FLUSH,
  PROP_KEY_UNIT_QUEUE_TIME,
  PROP_MAX_QUEUE_AGE,
  PROP_PARITY_AGE_FROM_MEDIA,
  PROP_PARITY_MAX_BACKLOG,
  PROP_PARITY_BY_SHARE,
};

struct _GstTpssSink
{
  GstBaseSink parent;

  /* Settings, under the object lock */
  GstTpssSettings settings;

  /* The session: set in NULL->READY, started in READY->PAUSED; the pointer
   * and `started` are written only in state changes, under the object lock
   * (for readers elsewhere). */
  GstTpssSession *session;
  gboolean started;
  GstRatePath *rates;
  gboolean rate_set;            /* streaming thread */
  guint clock_rate;             /* streaming thread: the caps' RTP clock */
  guint64 refused;

  /* Key-unit requests from PLIs, under the object lock */
  guint64 key_unit_holdoff;     /* ns */
  KeyUnitHoldoff holdoff;
  guint key_unit_count;
  guint64 key_unit_requests, pli_ignored;
  guint key_unit_parity;        /* key-unit packets per parity packet,
                                 * 0: none */
  guint64 key_unit_flush;       /* ns; GST_CLOCK_TIME_NONE: never */

  /* Key-unit requests from members' queues, under the object lock */
  guint64 key_unit_queue_time;  /* ns; 0: none */
  KeyUnitHoldoff queue_holdoff;
  guint64 queue_key_units, queue_key_ignored;
  gint64 applied_queue_time;    /* streaming thread: what the session has,
                                 * -1 none yet */
  guint64 max_queue_age;        /* ns; 0: none; under the object lock */
  gint64 applied_queue_age;     /* streaming thread, as applied_queue_time */
  gboolean parity_age_from_media;       /* under the object lock */
  gint applied_parity_age;      /* streaming thread; -1: not yet */
  guint64 parity_max_backlog;   /* ns; 0: none; under the object lock */
  gint64 applied_parity_backlog;        /* streaming thread; -1: not yet */
  gboolean parity_by_share;     /* under the object lock */
  gint applied_parity_share;    /* streaming thread; -1: not yet */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpss_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstTpssSink, gst_tpss_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_tpss_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (tpsssink, "tpsssink", GST_RANK_NONE,
    GST_TYPE_TPSS_SINK);

/* The rate path's interval runs on the monotonic clock, as the session
 * does (a pipeline clock may be a test clock that never advances). */
static GstClockTime
running_time (GstTpssSink * self)
{
  return g_get_monotonic_time () * GST_USECOND;
}

static void
set_rates (GstTpssSink * self, const guint64 * rates, guint n_rates)
{
  guint r[GST_LAYER_RATES_MAX_LAYERS];

  n_rates = MIN (n_rates, GST_LAYER_RATES_MAX_LAYERS);
  for (guint k = 0; k < n_rates; k++)
    r[k] = (guint) MIN (rates[k], (guint64) G_MAXUINT);
  GST_DEBUG_OBJECT (self, "%u rate(s), base layer %u bit/s", n_rates, r[0]);
  gst_rate_path_set (self->rates, r, n_rates, running_time (self));
}

/* From the session thread, no lock held. */
static void
on_data_rate (GstElement * element, const guint64 * rates, guint n_rates)
{
  GstTpssSink *self = GST_TPSS_SINK (element);

  self->rate_set = TRUE;
  set_rates (self, rates, n_rates);
}

/* The hold-off after a key-unit request: the property, or twice the RTT
 * to the requester when larger (a request newer than that may still be
 * answered by the key unit on its way, as rtpsession reasons). */
static gint64
effective_holdoff (GstTpssSink * self, gint64 rtt)
{
  return MAX ((gint64) self->key_unit_holdoff, rtt > 0 ? 2 * rtt : 0);
}

/* Asks upstream for key unit number @count (all headers). */
static void
push_key_unit_request (GstTpssSink * self, guint count)
{
  gst_pad_push_event (GST_BASE_SINK_PAD (self),
      gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE, TRUE,
          count));
}

/* From the session thread, no lock held: a member's PLI. */
static void
on_key_unit (GstElement * element, guint32 member, gint64 rtt)
{
  GstTpssSink *self = GST_TPSS_SINK (element);
  gboolean take;
  guint count = 0;

  GST_OBJECT_LOCK (self);
  take = key_unit_holdoff_take (&self->holdoff, g_get_monotonic_time () *
      GST_USECOND, effective_holdoff (self, rtt));
  if (take) {
    self->key_unit_requests++;
    count = ++self->key_unit_count;
  } else {
    self->pli_ignored++;
  }
  GST_OBJECT_UNLOCK (self);

  if (!take) {
    GST_LOG_OBJECT (self, "PLI from member %u within the hold-off", member);
    return;
  }
  GST_DEBUG_OBJECT (self, "PLI from member %u: requesting key unit %u",
      member, count);
  push_key_unit_request (self, count);
}

/* Whether a queue's request is taken at @now, with the object lock: not
 * within the PLIs' hold-off of any request (a key unit is on its way), and
 * not within the queue requests' interval of the last one. A request
 * taken starts the PLIs' hold-off too. */
static gboolean
take_queue_request (GstTpssSink * self, gint64 now)
{
  gint64 interval = MAX (self->key_unit_queue_time,
      QUEUE_KEY_UNIT_MIN_INTERVAL);

  if (self->holdoff.last >= 0 &&
      now - self->holdoff.last < (gint64) self->key_unit_holdoff)
    return FALSE;
  if (!key_unit_holdoff_take (&self->queue_holdoff, now, interval))
    return FALSE;
  self->holdoff.last = now;
  return TRUE;
}

/* From the session thread, no lock held: the queue toward @member holds
 * more than key-unit-queue-time that a key unit would flush. */
static void
on_queue_key_unit (GstElement * element, guint32 member, gint64 queue_time)
{
  GstTpssSink *self = GST_TPSS_SINK (element);
  gboolean take;
  guint count = 0;

  GST_OBJECT_LOCK (self);
  take = take_queue_request (self, g_get_monotonic_time () * GST_USECOND);
  if (take) {
    self->queue_key_units++;
    count = ++self->key_unit_count;
  } else {
    self->queue_key_ignored++;
  }
  GST_OBJECT_UNLOCK (self);

  if (!take) {
    GST_LOG_OBJECT (self, "queue toward member %u (%" G_GINT64_FORMAT
        " ms) within the hold-off", member, queue_time / GST_MSECOND);
    return;
  }
  GST_DEBUG_OBJECT (self, "queue toward member %u holds %" G_GINT64_FORMAT
      " ms: requesting key unit %u", member, queue_time / GST_MSECOND, count);
  push_key_unit_request (self, count);
}

static const GstTpssSinkCallbacks sink_callbacks = {
  .data_rate = on_data_rate,
  .key_unit = on_key_unit,
  .queue_key_unit = on_queue_key_unit,
};

/* Hands key-unit-queue-time to the session when it changed (streaming
 * thread): no less than key-unit-flush, and none when nothing is flushed,
 * for a key unit that flushes nothing does not help. */
static void
apply_queue_time (GstTpssSink * self)
{
  gint64 bound = 0;

  GST_OBJECT_LOCK (self);
  if (self->key_unit_queue_time > 0 &&
      self->key_unit_flush != GST_CLOCK_TIME_NONE)
    bound = (gint64) MIN (MAX (self->key_unit_queue_time,
            self->key_unit_flush), G_MAXINT64);
  GST_OBJECT_UNLOCK (self);
  if (bound == self->applied_queue_time)
    return;
  gst_tpss_session_set_queue_bound (self->session, bound);
  self->applied_queue_time = bound;
}

/* Hands max-queue-age to the session when it changed (streaming thread). */
static void
apply_queue_age (GstTpssSink * self)
{
  gint64 age;

  GST_OBJECT_LOCK (self);
  age = (gint64) MIN (self->max_queue_age, G_MAXINT64);
  GST_OBJECT_UNLOCK (self);
  if (age == self->applied_queue_age)
    return;
  gst_tpss_session_set_max_queue_age (self->session, age);
  self->applied_queue_age = age;
}

/* Hands parity-age-from-media to the session when it changed (streaming
 * thread). */
static void
apply_parity_age (GstTpssSink * self)
{
  gint from_media;

  GST_OBJECT_LOCK (self);
  from_media = self->parity_age_from_media ? 1 : 0;
  GST_OBJECT_UNLOCK (self);
  if (from_media == self->applied_parity_age)
    return;
  gst_tpss_session_set_parity_age_from_media (self->session, from_media);
  self->applied_parity_age = from_media;
}

/* Hands parity-max-backlog to the session when it changed (streaming
 * thread). */
static void
apply_parity_backlog (GstTpssSink * self)
{
  gint64 backlog;

  GST_OBJECT_LOCK (self);
  backlog = (gint64) MIN (self->parity_max_backlog, G_MAXINT64);
  GST_OBJECT_UNLOCK (self);
  if (backlog == self->applied_parity_backlog)
    return;
  gst_tpss_session_set_parity_max_backlog (self->session, backlog);
  self->applied_parity_backlog = backlog;
}

/* Hands parity-by-share to the session when it changed (streaming
 * thread). */
static void
apply_parity_share (GstTpssSink * self)
{
  gint by_share;

  GST_OBJECT_LOCK (self);
  by_share = self->parity_by_share ? 1 : 0;
  GST_OBJECT_UNLOCK (self);
  if (by_share == self->applied_parity_share)
    return;
  gst_tpss_session_set_parity_by_share (self->session, by_share);
  self->applied_parity_share = by_share;
}

static gboolean
gst_tpss_sink_set_caps (GstBaseSink * bsink, GstCaps * caps)
{
  GstTpssSink *self = GST_TPSS_SINK (bsink);
  gint rate = 0;

  if (!gst_structure_get_int (gst_caps_get_structure (caps, 0), "clock-rate",
          &rate) || rate <= 0)
    rate = 0;
  self->clock_rate = (guint) rate;
  return TRUE;
}

/* When @buffer was captured, on the time base of gst_net_now (): its
 * running time plus the base time is a reading of the pipeline clock, which
 * the clock's current reading relates to gst_net_now (). -1 when unknown.
 * Every sink of one pipeline (a member's audio and video) gets the same
 * mapping, so their sender reports share one clock. */
static gint64
capture_time (GstTpssSink * self, GstBuffer * buffer)
{
  GstBaseSink *bsink = GST_BASE_SINK (self);
  GstClockTime pts = GST_BUFFER_PTS (buffer), rt, base, now;
  GstClock *clock;

  if (!GST_CLOCK_TIME_IS_VALID (pts) || self->clock_rate == 0)
    return -1;
  rt = gst_segment_to_running_time (&bsink->segment, GST_FORMAT_TIME, pts);
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock || !GST_CLOCK_TIME_IS_VALID (rt)) {
    g_clear_object (&clock);
    return -1;
  }
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base = gst_element_get_base_time (GST_ELEMENT (self));
  GST_LOG_OBJECT (self, "captured %" G_GINT64_FORMAT " us ago",
      ((gint64) now - (gint64) (rt + base)) / 1000);
  return gst_net_now () - ((gint64) now - (gint64) (rt + base));
}

static GstFlowReturn
gst_tpss_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstTpssSink *self = GST_TPSS_SINK (bsink);
  GstTemporalLayerMeta *meta;
  TpssKeyUnit key;
  gboolean is_key;

  if (!self->rate_set) {
    guint64 initial;
    GST_OBJECT_LOCK (self);
    initial = self->settings.params.cfg.initial_rate;
    GST_OBJECT_UNLOCK (self);
    self->rate_set = TRUE;
    set_rates (self, &initial, 1);
  }
  apply_queue_time (self);
  apply_queue_age (self);
  apply_parity_age (self);
  apply_parity_backlog (self);
  apply_parity_share (self);
  /* x264layerenc's meta, which rtph264pay copies to every packet. */
  meta = (GstTemporalLayerMeta *) gst_buffer_get_meta (buffer,
      gst_temporal_layer_meta_api_get_type ());
  /* A payloader marks the first packet of a key unit (rtph264pay: the
   * first of an IDR access unit) by leaving DELTA_UNIT unset. */
  is_key = !GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_DELTA_UNIT);
  if (is_key) {
    GST_OBJECT_LOCK (self);
    key.parity = self->key_unit_parity;
    key.flush_time = self->key_unit_flush == GST_CLOCK_TIME_NONE ? -1 :
        (gint64) MIN (self->key_unit_flush, G_MAXINT64);
    GST_OBJECT_UNLOCK (self);
  }
  if (!gst_tpss_session_send (self->session, gst_buffer_ref (buffer),
          meta ? meta->layer_id : TPSS_GROUP_LAYER_NONE,
          meta ? meta->n_layers : 0, is_key ? &key : NULL,
          capture_time (self, buffer), self->clock_rate))
    self->refused++;
  gst_rate_path_tick (self->rates, running_time (self));
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_tpss_sink_render_list (GstBaseSink * bsink, GstBufferList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;

  for (guint i = 0; ret == GST_FLOW_OK && i < gst_buffer_list_length (list);
      i++)
    ret = gst_tpss_sink_render (bsink, gst_buffer_list_get (list, i));
  return ret;
}

static gboolean
gst_tpss_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstTpssSink *self = GST_TPSS_SINK (bsink);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS &&
      gst_rate_path_caps_query (self->rates, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (parent_class)->query (bsink, query);
}

static gboolean
gst_tpss_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstTpssSink *self = GST_TPSS_SINK (bsink);

  /* What MQ still holds leaves before EOS goes on (a holding time and the
   * pacing at most, bounded). */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->session) {
    gst_tpss_session_drain (self->session, 5 * GST_SECOND);
    gst_tpss_session_post_stats (GST_ELEMENT (self));
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (bsink, event);
}

static GstStateChangeReturn
gst_tpss_sink_change_state (GstElement * element, GstStateChange transition)
{
  GstTpssSink *self = GST_TPSS_SINK (element);
  GstStateChangeReturn ret;
  GError *err = NULL;
  GstTpssSettings st = { 0, };
  gboolean ok;

  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      GST_OBJECT_LOCK (self);
      gst_tpss_settings_copy (&st, &self->settings);
      GST_OBJECT_UNLOCK (self);
      ok = gst_tpss_element_acquire_session (element, &self->session, &st,
          &err);
      gst_tpss_settings_clear (&st);
      if (!ok) {
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
            (NULL));
        g_error_free (err);
        return GST_STATE_CHANGE_FAILURE;
      }
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:{
      GST_OBJECT_LOCK (self);
      gst_tpss_settings_copy (&st, &self->settings);
      GST_OBJECT_UNLOCK (self);
      /* no lock held: the start resolves names and starts a thread */
      ok = gst_tpss_session_start (self->session, element, &st, &err);
      if (ok)
        gst_tpss_element_session_started (element, &self->settings,
            self->session, &self->started, &st);
      gst_tpss_settings_clear (&st);
      if (!ok) {
        GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE,
            ("Could not start the TPSS session: %s", err->message), (NULL));
        g_error_free (err);
        return GST_STATE_CHANGE_FAILURE;
      }
      self->rate_set = FALSE;
      self->refused = 0;
      self->applied_queue_time = -1;
      self->applied_queue_age = -1;
      self->applied_parity_age = -1;
      self->applied_parity_backlog = -1;
      self->applied_parity_share = -1;
      GST_OBJECT_LOCK (self);
      key_unit_holdoff_init (&self->holdoff);
      key_unit_holdoff_init (&self->queue_holdoff);
      self->key_unit_requests = self->pli_ignored = 0;
      self->queue_key_units = self->queue_key_ignored = 0;
      GST_OBJECT_UNLOCK (self);
      gst_tpss_session_set_sink (self->session, element, &sink_callbacks);
      break;
    }
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      gst_tpss_session_set_sink (self->session, NULL, NULL);
      gst_tpss_element_session_stopping (element, &self->started);
      gst_tpss_session_stop (self->session);
      break;
    case GST_STATE_CHANGE_READY_TO_NULL:
      gst_tpss_element_release_session (element, &self->session);
      break;
    default:
      break;
  }
  return ret;
}

static void
gst_tpss_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpssSink *self = GST_TPSS_SINK (object);

  if (prop_id == PROP_KEY_UNIT_HOLDOFF) {
    GST_OBJECT_LOCK (self);
    self->key_unit_holdoff = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_KEY_UNIT_PARITY) {
    GST_OBJECT_LOCK (self);
    self->key_unit_parity = g_value_get_uint (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_KEY_UNIT_FLUSH) {
    GST_OBJECT_LOCK (self);
    self->key_unit_flush = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_KEY_UNIT_QUEUE_TIME) {
    GST_OBJECT_LOCK (self);
    self->key_unit_queue_time = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_MAX_QUEUE_AGE) {
    GST_OBJECT_LOCK (self);
    self->max_queue_age = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_PARITY_AGE_FROM_MEDIA) {
    GST_OBJECT_LOCK (self);
    self->parity_age_from_media = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_PARITY_MAX_BACKLOG) {
    GST_OBJECT_LOCK (self);
    self->parity_max_backlog = g_value_get_uint64 (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_PARITY_BY_SHARE) {
    GST_OBJECT_LOCK (self);
    self->parity_by_share = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
  } else if (!gst_tpss_element_set_session_property (GST_ELEMENT (self),
          &self->settings, &self->session, &self->started, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GstStructure *
get_stats (GstTpssSink * self)
{
  GstStructure *s;
  guint64 sent = 0, coalesced = 0, requests, ignored, queue_units,
      queue_ignored;

  /* Stopped (READY), the session's counters as it stopped: running false,
   * its BYE counted in bye-sent. */
  GST_OBJECT_LOCK (self);
  s = self->session ? gst_tpss_session_get_stats (self->session) :
      gst_structure_new_empty ("application/x-tpss-stats");
  requests = self->key_unit_requests;
  ignored = self->pli_ignored;
  queue_units = self->queue_key_units;
  queue_ignored = self->queue_key_ignored;
  GST_OBJECT_UNLOCK (self);
  gst_rate_path_get_counters (self->rates, &sent, &coalesced);
  gst_structure_set (s,
      "bitrate", G_TYPE_UINT, gst_rate_path_get_bitrate (self->rates),
      "rate-events", G_TYPE_UINT64, sent,
      "rate-coalesced", G_TYPE_UINT64, coalesced,
      "key-unit-requests", G_TYPE_UINT64, requests,
      "pli-ignored", G_TYPE_UINT64, ignored,
      "queue-key-units", G_TYPE_UINT64, queue_units,
      "queue-key-ignored", G_TYPE_UINT64, queue_ignored, NULL);
  return s;
}

static void
gst_tpss_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTpssSink *self = GST_TPSS_SINK (object);

  switch (prop_id) {
    case PROP_BITRATE:
      g_value_set_uint (value, gst_rate_path_get_bitrate (self->rates));
      break;
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (self));
      break;
    case PROP_KEY_UNIT_HOLDOFF:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->key_unit_holdoff);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_KEY_UNIT_PARITY:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->key_unit_parity);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_KEY_UNIT_FLUSH:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->key_unit_flush);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_KEY_UNIT_QUEUE_TIME:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->key_unit_queue_time);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_MAX_QUEUE_AGE:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->max_queue_age);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PARITY_AGE_FROM_MEDIA:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->parity_age_from_media);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PARITY_MAX_BACKLOG:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->parity_max_backlog);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PARITY_BY_SHARE:
      GST_OBJECT_LOCK (self);
      g_value_set_boolean (value, self->parity_by_share);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      GST_OBJECT_LOCK (self);
      if (!gst_tpss_settings_get_property (&self->settings, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      break;
  }
}

static void
gst_tpss_sink_finalize (GObject * object)
{
  GstTpssSink *self = GST_TPSS_SINK (object);

  gst_rate_path_free (self->rates);
  gst_tpss_settings_clear (&self->settings);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_tpss_sink_class_init (GstTpssSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_tpss_sink_set_property;
  gobject_class->get_property = gst_tpss_sink_get_property;
  gobject_class->finalize = gst_tpss_sink_finalize;
  element_class->change_state = gst_tpss_sink_change_state;
  bsink_class->render = gst_tpss_sink_render;
  bsink_class->render_list = gst_tpss_sink_render_list;
  bsink_class->set_caps = gst_tpss_sink_set_caps;
  bsink_class->query = gst_tpss_sink_query;
  bsink_class->event = gst_tpss_sink_event;

  gst_tpss_settings_install_properties (gobject_class);
  gst_tpss_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SINK);
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bitrate",
          "Data rate the encoder should produce (bits/s): the minimum "
          "over the destinations of the rate the protocol allows, or for a "
          "stream of temporal layers the sum of the layer rates; notifies",
          0, G_MAXUINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_KEY_UNIT_HOLDOFF,
      g_param_spec_uint64 ("key-unit-holdoff", "Key-unit hold-off (ns)",
          "A member's PLI (RTCP picture loss indication) becomes an upstream "
          "force-key-unit event (all-headers) unless one was sent less than "
          "this long ago, or less than twice the RTT to that member when "
          "that is longer; such PLIs are counted as pli-ignored (ns)", 0,
          G_MAXINT64, DEFAULT_KEY_UNIT_HOLDOFF,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_KEY_UNIT_PARITY,
      g_param_spec_uint ("key-unit-parity", "Parity per key unit",
          "Protect every key unit (from a buffer without the DELTA_UNIT "
          "flag through the packets of its RTP time) toward every member "
          "with one XOR parity packet per this many of its packets, sent "
          "right after them through the member's pacer (1: each packet "
          "twice); 0 = only the two-phase slow start's parity (packets)",
          0, 255, DEFAULT_KEY_UNIT_PARITY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_KEY_UNIT_FLUSH,
      g_param_spec_uint64 ("key-unit-flush", "Queue flushed at a key unit "
          "(ns)", "Temporal layers: when a key unit (a buffer without the "
          "DELTA_UNIT flag) is queued toward a member whose queue holds "
          "more than this, at the member's rate, of whole frames not yet "
          "begun on the wire (a key unit queued before stays), those frames "
          "and the parity among them are dropped (key-flush-packets): the "
          "member decodes from a key unit on, and gets one that much "
          "sooner. The key unit takes their "
          "sequence numbers, so the member sees no loss. 0 = always, "
          "GST_CLOCK_TIME_NONE (18446744073709551615) = never (ns)",
          0, G_MAXUINT64, DEFAULT_KEY_UNIT_FLUSH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_KEY_UNIT_QUEUE_TIME,
      g_param_spec_uint64 ("key-unit-queue-time", "Queue that asks for a "
          "key unit (ns)", "Temporal layers: when the queue toward a member "
          "holds more than this, at the member's rate, of whole frames that "
          "a key unit would flush (key-unit-flush), an upstream "
          "force-key-unit event (all-headers) asks for one, at most one per "
          "this time and per second, and none within key-unit-holdoff of "
          "another request (counted in queue-key-units and "
          "queue-key-ignored); bounds how far a slow member's video lags its "
          "audio, at the cost of a key frame for every member. Taken as at "
          "least key-unit-flush; never while that is never. 0 = never "
          "(ns)", 0, G_MAXINT64, DEFAULT_KEY_UNIT_QUEUE_TIME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE_AGE,
      g_param_spec_uint64 ("max-queue-age", "Age bound of a member's queue "
          "(ns)", "Temporal layers: a frame that would wait more than this "
          "in the queue toward a member, at the member's rate, is not sent "
          "to it, nor is any frame after it until the next key unit, which "
          "its queue asks for at once (as key-unit-queue-time does); "
          "counted per member in age-dropped-frames and "
          "age-dropped-packets. The member sees its picture stop instead "
          "of fall further behind. 0 = never (ns)", 0, G_MAXINT64,
          DEFAULT_MAX_QUEUE_AGE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PARITY_AGE_FROM_MEDIA,
      g_param_spec_boolean ("parity-age-from-media", "Parity ages from its "
          "media's departure", "Temporal layers: parity waiting toward a "
          "member is dropped once older than the FEC wait (parity-dropped); "
          "TRUE: its age counts from when the last media packet it covers "
          "left toward that member, FALSE: from its making. Toward a member "
          "with a long queue, parity made while its media still waited is "
          "otherwise dropped before that media even left",
          DEFAULT_PARITY_AGE_FROM_MEDIA, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PARITY_MAX_BACKLOG,
      g_param_spec_uint64 ("parity-max-backlog", "Media backlog above which "
          "no parity is queued (ns)", "Temporal layers: parity made toward "
          "a member while the media queued toward it takes longer than this "
          "to leave at the member's rate is not queued (parity-skipped): "
          "it would wait behind that media until stale. Members with a "
          "shorter queue, those the slow start probes among them, get their "
          "parity as before. 0 = never (ns)", 0, G_MAXINT64,
          DEFAULT_PARITY_MAX_BACKLOG, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PARITY_BY_SHARE,
      g_param_spec_boolean ("parity-by-share", "Parity scaled by the share "
          "that left", "Temporal layers: of the parity made toward a "
          "member, queue only about the share of its recent parity that "
          "left before going stale (an average over about the last 16, at "
          "least 1 in 8, evenly spread; the rest counted in parity-skipped). "
          "A member whose queue drains often loses none",
          DEFAULT_PARITY_BY_SHARE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstTpssSink:stats:
   *
   * The session's counters and one structure per member; every field with
   * its meaning and unit is in the property's description.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Session and per-member counters (read-only GstStructure). "
          "Fields: " GST_TPSS_SESSION_STATS_DOC "; and of tpsssink: "
          "bitrate: the data rate the encoder should produce (bits/s); "
          "rate-events: GstLayerRates events sent upstream (events); "
          "rate-coalesced: rate changes merged into a later event by the "
          "min-report-interval (changes); "
          "key-unit-requests: force-key-unit events sent upstream for PLIs "
          "(events); "
          "pli-ignored: PLIs that came within key-unit-holdoff of a request "
          "(packets); "
          "queue-key-units: force-key-unit events sent upstream because a "
          "member's queue passed key-unit-queue-time or max-queue-age (events); "
          "queue-key-ignored: such queues' requests within the hold-off or "
          "the interval of another request (events)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "TPSS group transport sink", "Sink/Network/RTP",
      "Sends an RTP stream to every member of a group with two-phase slow "
      "start (interleaved parity) and NQCP QoS notification; a member's PLI "
      "becomes an upstream force-key-unit request. "
      "URI: tpss://ADDRESS:PORT?member-id=ID&members=ID@HOST:PORT,... (any "
      "property as a query parameter). Example, member 1 of two on one host: "
      "gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency "
      "bitrate=800 ! rtph264pay config-interval=-1 ! tpsssink port=5004 "
      "member-id=1 members=1@127.0.0.1:5004,2@127.0.0.1:5006",
      "gst-rtp-transports developers");

  gst_type_mark_as_plugin_api (GST_TYPE_TPSS_SLOW_START, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TPSS_CONTROL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TPSS_DELIVERY, 0);
  GST_DEBUG_CATEGORY_INIT (gst_tpss_sink_debug, "tpsssink", 0,
      "TPSS group transport sink");
}

static void
gst_tpss_sink_init (GstTpssSink * self)
{
  GstPad *pad = GST_BASE_SINK_PAD (self);
  TpssConfig cfg;

  gst_tpss_settings_init (&self->settings);
  self->key_unit_holdoff = DEFAULT_KEY_UNIT_HOLDOFF;
  self->key_unit_parity = DEFAULT_KEY_UNIT_PARITY;
  self->key_unit_flush = DEFAULT_KEY_UNIT_FLUSH;
  self->key_unit_queue_time = DEFAULT_KEY_UNIT_QUEUE_TIME;
  self->applied_queue_time = -1;
  self->max_queue_age = DEFAULT_MAX_QUEUE_AGE;
  self->applied_queue_age = -1;
  self->parity_age_from_media = DEFAULT_PARITY_AGE_FROM_MEDIA;
  self->applied_parity_age = -1;
  self->parity_max_backlog = DEFAULT_PARITY_MAX_BACKLOG;
  self->applied_parity_backlog = -1;
  self->parity_by_share = DEFAULT_PARITY_BY_SHARE;
  self->applied_parity_share = -1;
  key_unit_holdoff_init (&self->queue_holdoff);
  key_unit_holdoff_init (&self->holdoff);
  tpss_config_init (&cfg);
  self->rates = gst_rate_path_new (GST_ELEMENT (self), pad,
      (GstClockTime) cfg.min_report_interval, "bitrate", NULL);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}
