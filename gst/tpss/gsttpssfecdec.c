/**
 * SECTION:element-tpssfecdec
 * @title: tpssfecdec
 * @see_also: tpssfecenc, rtpbin, rtpst2022-1-fecdec
 *
 * Repairs an RTP stream protected by tpssfecenc. Media packets enter on
 * `sink`, parity packets on one or more `fec_%u` request pads. A lost packet
 * is rebuilt byte for byte from the parity of its subsegment as soon as the
 * other packets of that subsegment are in.
 *
 * Output is in sequence order: when a packet is missing, the packets behind
 * it wait until it is repaired or arrives, but only as long as parity takes
 * to come: the element measures the time from a segment's first media packet
 * to its parity (stats `segment-time`) and waits that + 1/4 + 5 ms (stats
 * `hold-time`), never longer than #GstTpssFecDec:size-time. Then the gap is
 * given up (counted as unrecoverable) and the stream moves on; a repair that
 * comes later is still pushed, out of order (`late`, `repaired-late`).
 * Without loss nothing waits. Packets are kept for repair for a whole
 * segment (k x l packets, learnt from the parity) and at least size-time.
 *
 * #GstTpssFecDec:size-time is thus an upper bound, and the latency the
 * element adds to what it reports. When a segment lasts longer than that,
 * parity comes too late to help: the element posts a warning once, naming
 * the size-time that would do. Output is pushed from the element's own
 * thread (a srcpad task, as rtpjitterbuffer does), so a synced sink waiting
 * out the latency never holds up the thread that receives.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 udpsrc port=5000 caps="application/x-rtp, media=video, clock-rate=90000, encoding-name=H264" ! \
 *   tpssfecdec name=fec size-time=200000000 ! rtph264depay ! avdec_h264 ! autovideosink \
 *   udpsrc port=5002 caps="application/x-rtp, payload=100" ! fec.fec_0
 * ]| Receives what the tpssfecenc example sends.
 *
 * With rtpbin:
 * |[
 * gst-launch-1.0 rtpbin name=rtp fec-decoders='fec,0="tpssfecdec\ size-time\=200000000";' \
 *   udpsrc port=5000 caps="application/x-rtp, media=video, clock-rate=90000, encoding-name=H264, payload=96" ! rtp.recv_rtp_sink_0 \
 *   udpsrc port=5002 caps="application/x-rtp, payload=100" ! rtp.recv_fec_sink_0_0 \
 *   rtp. ! rtph264depay ! avdec_h264 ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpssfecdec.h"
#include "tpssfec.h"

#include <gst/rtp/gstrtpbuffer.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpss_fec_dec_debug);
#define GST_CAT_DEFAULT gst_tpss_fec_dec_debug

#define DEFAULT_SIZE_TIME (200 * GST_MSECOND)
#define MAX_SIZE_TIME (60 * GST_SECOND)
/* Output packets the receiving thread may run ahead of the srcpad task
 * before it waits (a non-live upstream would otherwise queue everything). */
#define MAX_QUEUED_OUTPUT 1024
#define DEFAULT_PT 0                    /* any */

enum
{
  PROP_0,
  PROP_SIZE_TIME,
  PROP_PT,
  PROP_STATS,
};

struct _GstTpssFecDec
{
  GstElement parent;

  GstPad *sinkpad, *srcpad;
  guint next_fec_pad;

  /* Settings, under the object lock */
  GstClockTime size_time;
  guint pt;

  /* `lock` guards the core, the output queue and the task's state. Only
   * the srcpad task pushes data, so a downstream that blocks (a synced sink
   * waiting for the latency) never stalls the thread that receives. */
  GMutex lock;
  GCond cond;
  GCond drained;                /* the output queue fell to its bound */
  TpssFecDecoder *core;
  GQueue out_queue;             /* GstBuffer and serialized GstEvent */
  GstFlowReturn srcresult;      /* FLUSHING when stopped or flushing */
  gboolean task_idle;           /* the task waits for output or a deadline */
  GstClockID clock_id;
  gint64 clock_deadline;        /* what clock_id waits for, running time */
  GstClockTime last_pts, last_dts;      /* stamps for recovered packets */
  guint64 wrong_pt;
  gboolean warned_too_short;    /* the size-time warning is posted once */
};

/* A media buffer, mapped while the core keeps it. */
typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
} MediaHandle;

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate fec_template = GST_STATIC_PAD_TEMPLATE ("fec_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpss_fec_dec_parent_class parent_class
G_DEFINE_TYPE (GstTpssFecDec, gst_tpss_fec_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (tpssfecdec, "tpssfecdec", GST_RANK_NONE,
    GST_TYPE_TPSS_FEC_DEC);

static void
media_handle_release (gpointer data)
{
  MediaHandle *h = data;

  gst_buffer_unmap (h->buffer, &h->map);
  gst_buffer_unref (h->buffer);
  g_free (h);
}

static GstStructure *
get_stats (GstTpssFecDec * self)
{
  TpssFecDecoderStats st;
  guint64 wrong_pt;

  g_mutex_lock (&self->lock);
  tpss_fec_decoder_get_stats (self->core, &st);
  wrong_pt = self->wrong_pt;
  g_mutex_unlock (&self->lock);

  return gst_structure_new ("application/x-tpss-fecdec-stats",
      "received", G_TYPE_UINT64, st.media_received,
      "fec-received", G_TYPE_UINT64, st.fec_received,
      "recovered", G_TYPE_UINT64, st.recovered,
      "unrecoverable", G_TYPE_UINT64, st.unrecoverable,
      "late", G_TYPE_UINT64, st.late,
      "out-of-window", G_TYPE_UINT64, st.out_of_window,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "malformed", G_TYPE_UINT64, st.malformed,
      "foreign", G_TYPE_UINT64, st.foreign + wrong_pt,
      "resets", G_TYPE_UINT64, st.resets,
      "repaired-late", G_TYPE_UINT64, st.repaired_late,
      "fec-late", G_TYPE_UINT64, st.fec_late,
      "segment-time", G_TYPE_UINT64,
      (guint64) (st.segment_time < 0 ? 0 : st.segment_time),
      "hold-time", G_TYPE_UINT64, (guint64) st.hold_time, NULL);
}

/* Running time in ns, the core's clock (the monotonic clock, which the
 * system clock uses, until the element has one). Once per packet: no refs. */
static gint64
running_now (GstTpssFecDec * self)
{
  GstClockTime now, base;

  GST_OBJECT_LOCK (self);
  base = GST_ELEMENT_CAST (self)->base_time;
  if (GST_ELEMENT_CLOCK (self))
    now = gst_clock_get_time (GST_ELEMENT_CLOCK (self));
  else
    now = g_get_monotonic_time () * GST_USECOND;
  GST_OBJECT_UNLOCK (self);
  return now > base ? (gint64) (now - base) : 0;
}

/* Moves what the core has to output to the output queue, with `lock`. */
static void
collect_output (GstTpssFecDec * self)
{
  TpssFecOutput o;

  while (tpss_fec_decoder_pop (self->core, &o)) {
    GstBuffer *buf;

    if (o.handle) {
      buf = gst_buffer_ref (((MediaHandle *) o.handle)->buffer);
    } else {
      buf = gst_buffer_new_wrapped (o.data, o.len);
      GST_BUFFER_PTS (buf) = self->last_pts;
      GST_BUFFER_DTS (buf) = self->last_dts;
      GST_DEBUG_OBJECT (self, "recovered seq %u", o.seq);
    }
    g_queue_push_tail (&self->out_queue, buf);
  }
}

/* With `lock`: wakes the task when it has something to do now: output to
 * push, a first deadline, or an earlier one (the hold time shrinks once the
 * segment time is measured). It is woken only from its idle wait or a clock
 * wait, so a steady stream costs one wake per burst. */
static void
wake_task (GstTpssFecDec * self)
{
  gboolean have_output = !g_queue_is_empty (&self->out_queue);

  if (self->task_idle && (have_output ||
          tpss_fec_decoder_next_deadline (self->core) >= 0)) {
    g_cond_signal (&self->cond);
  } else if (self->clock_id) {
    gint64 deadline;
    if (have_output ||
        ((deadline = tpss_fec_decoder_next_deadline (self->core)) >= 0 &&
            deadline < self->clock_deadline))
      gst_clock_id_unschedule (self->clock_id);
  }
}

static void
clear_out_queue (GstTpssFecDec * self)
{
  GstMiniObject *item;

  while ((item = g_queue_pop_head (&self->out_queue)))
    gst_mini_object_unref (item);
}

/* Hands one media buffer to the core, with `lock` held. */
static void
push_media_locked (GstTpssFecDec * self, GstBuffer * buffer, gint64 now)
{
  MediaHandle *h = g_new (MediaHandle, 1);

  h->buffer = buffer;
  if (!gst_buffer_map (buffer, &h->map, GST_MAP_READ)) {
    GST_WARNING_OBJECT (self, "cannot map a media buffer, dropped");
    gst_buffer_unref (buffer);
    g_free (h);
    return;
  }
  self->last_pts = GST_BUFFER_PTS (buffer);
  self->last_dts = GST_BUFFER_DTS (buffer);
  if (!tpss_fec_decoder_push_media (self->core, h, h->map.data, h->map.size,
          now)) {
    GST_LOG_OBJECT (self, "dropped a malformed or duplicate media packet");
    media_handle_release (h);
  }
}

/* Media in: one buffer, or each buffer of a list. */
static GstFlowReturn
handle_media (GstTpssFecDec * self, GstBuffer * buffer, GstBufferList * list)
{
  gint64 now = running_now (self);
  GstFlowReturn ret;

  g_mutex_lock (&self->lock);
  ret = self->srcresult;
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&self->lock);
    gst_clear_buffer (&buffer);
    gst_clear_buffer_list (&list);
    return ret;
  }
  if (buffer)
    push_media_locked (self, buffer, now);
  for (guint i = 0; list && i < gst_buffer_list_length (list); i++)
    push_media_locked (self, gst_buffer_ref (gst_buffer_list_get (list, i)),
        now);
  gst_clear_buffer_list (&list);
  collect_output (self);
  wake_task (self);
  while (self->srcresult == GST_FLOW_OK &&
      g_queue_get_length (&self->out_queue) > MAX_QUEUED_OUTPUT)
    g_cond_wait (&self->drained, &self->lock);
  ret = self->srcresult;
  g_mutex_unlock (&self->lock);
  return ret;
}

static GstFlowReturn
gst_tpss_fec_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  return handle_media (GST_TPSS_FEC_DEC (parent), buffer, NULL);
}

static GstFlowReturn
gst_tpss_fec_dec_chain_list (GstPad * pad, GstObject * parent,
    GstBufferList * list)
{
  return handle_media (GST_TPSS_FEC_DEC (parent), NULL, list);
}

/* With `lock`: TRUE the first time the measured segment time exceeds
 * size-time (parity cannot come within the wait), filling @st. */
static gboolean
size_time_too_short (GstTpssFecDec * self, TpssFecDecoderStats * st,
    GstClockTime size_time)
{
  if (self->warned_too_short)
    return FALSE;
  tpss_fec_decoder_get_stats (self->core, st);
  if (st->segment_time < 0 || (GstClockTime) st->segment_time <= size_time)
    return FALSE;
  self->warned_too_short = TRUE;
  return TRUE;
}

static void
warn_size_time_too_short (GstTpssFecDec * self, const TpssFecDecoderStats * st,
    GstClockTime size_time)
{
  guint segment_ms = st->segment_time / GST_MSECOND;

  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("Parity comes %u ms after its segment starts, but size-time allows "
          "only %" G_GUINT64_FORMAT " ms of waiting: lost packets are "
          "repaired too late (counted in stats as repaired-late)", segment_ms,
          size_time / GST_MSECOND),
      ("segments of packet-distance %u x subsegment-length %u = %u packets; "
          "set size-time to at least %u ms (it adds that much latency), or "
          "have tpssfecenc send shorter segments", st->distance, st->length,
          st->distance * st->length, segment_ms + segment_ms / 4 + 5));
}

static GstFlowReturn
gst_tpss_fec_dec_fec_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (parent);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gint64 now = running_now (self);
  TpssFecDecoderStats st;
  GstClockTime size_time;
  gboolean warn;
  guint pt;

  GST_OBJECT_LOCK (self);
  pt = self->pt;
  size_time = self->size_time;
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->lock);
  if (self->srcresult == GST_FLOW_FLUSHING) {
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_FLUSHING;
  }
  if (!gst_rtp_buffer_map (buffer, GST_MAP_READ, &rtp)) {
    /* Counted by the core as malformed. */
    tpss_fec_decoder_push_fec (self->core, NULL, 0, now);
  } else {
    if (pt != 0 && gst_rtp_buffer_get_payload_type (&rtp) != pt)
      self->wrong_pt++;
    else
      tpss_fec_decoder_push_fec (self->core,
          gst_rtp_buffer_get_payload (&rtp),
          gst_rtp_buffer_get_payload_len (&rtp), now);
    gst_rtp_buffer_unmap (&rtp);
  }
  gst_buffer_unref (buffer);
  collect_output (self);
  wake_task (self);
  warn = size_time_too_short (self, &st, size_time);
  g_mutex_unlock (&self->lock);
  if (warn)
    warn_size_time_too_short (self, &st, size_time);
  /* Parity problems never stop the FEC branch. */
  return GST_FLOW_OK;
}

/* With `lock`, released while waiting: sleeps on the element's clock until
 * the core's next deadline (or until unscheduled for new output), then
 * releases what has run out. */
static void
wait_for_deadline (GstTpssFecDec * self, gint64 deadline)
{
  GstClock *clock;
  GstClockTime base;
  GstClockID id;

  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    clock = gst_system_clock_obtain ();
  base = gst_element_get_base_time (GST_ELEMENT (self));
  id = self->clock_id = gst_clock_new_single_shot_id (clock, base + deadline);
  self->clock_deadline = deadline;
  gst_object_unref (clock);
  g_mutex_unlock (&self->lock);

  gst_clock_id_wait (id, NULL);

  g_mutex_lock (&self->lock);
  self->clock_id = NULL;
  gst_clock_id_unref (id);
  if (self->srcresult == GST_FLOW_OK) {
    tpss_fec_decoder_advance (self->core, running_now (self));
    collect_output (self);
  }
}

/* The srcpad task: pushes the output queue in order, and releases held
 * packets at their deadline on the clock, not when the next packet comes. */
static void
gst_tpss_fec_dec_loop (GstTpssFecDec * self)
{
  GstMiniObject *item;
  GstFlowReturn ret = GST_FLOW_OK;
  gint64 deadline = -1;

  g_mutex_lock (&self->lock);
  while (self->srcresult == GST_FLOW_OK &&
      g_queue_is_empty (&self->out_queue) &&
      (deadline = tpss_fec_decoder_next_deadline (self->core)) < 0) {
    self->task_idle = TRUE;
    g_cond_wait (&self->cond, &self->lock);
  }
  self->task_idle = FALSE;
  if (self->srcresult == GST_FLOW_OK && g_queue_is_empty (&self->out_queue))
    wait_for_deadline (self, deadline);
  if (self->srcresult != GST_FLOW_OK)
    goto pause;
  item = g_queue_pop_head (&self->out_queue);
  if (g_queue_get_length (&self->out_queue) == MAX_QUEUED_OUTPUT)
    g_cond_signal (&self->drained);
  g_mutex_unlock (&self->lock);
  if (!item)
    return;

  if (GST_IS_BUFFER (item)) {
    ret = gst_pad_push (self->srcpad, GST_BUFFER_CAST (item));
  } else {
    GstEvent *event = GST_EVENT_CAST (item);
    gboolean eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_pad_push_event (self->srcpad, event);
    if (eos)
      ret = GST_FLOW_EOS;
  }
  if (ret == GST_FLOW_OK)
    return;

  g_mutex_lock (&self->lock);
  if (self->srcresult == GST_FLOW_OK)
    self->srcresult = ret;
  g_cond_broadcast (&self->drained);
  GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
pause:
  g_mutex_unlock (&self->lock);
  gst_pad_pause_task (self->srcpad);
}

/* Stops (or lets run again) everything that pushes or waits. */
static void
set_flushing (GstTpssFecDec * self, gboolean flushing)
{
  g_mutex_lock (&self->lock);
  self->srcresult = flushing ? GST_FLOW_FLUSHING : GST_FLOW_OK;
  if (flushing && self->clock_id)
    gst_clock_id_unschedule (self->clock_id);
  g_cond_signal (&self->cond);
  g_cond_broadcast (&self->drained);
  g_mutex_unlock (&self->lock);
}

static void
forget_everything (GstTpssFecDec * self)
{
  g_mutex_lock (&self->lock);
  tpss_fec_decoder_reset (self->core);
  clear_out_queue (self);
  g_mutex_unlock (&self->lock);
}

static gboolean
gst_tpss_fec_dec_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (active) {
    set_flushing (self, FALSE);
    return gst_pad_start_task (pad, (GstTaskFunction) gst_tpss_fec_dec_loop,
        self, NULL);
  }
  set_flushing (self, TRUE);
  return gst_pad_stop_task (pad);
}

/* Serialized events keep their place behind the data queued before them. */
static gboolean
queue_event (GstTpssFecDec * self, GstEvent * event)
{
  g_mutex_lock (&self->lock);
  if (self->srcresult != GST_FLOW_OK) {
    gboolean sticky = GST_EVENT_IS_STICKY (event);
    g_mutex_unlock (&self->lock);
    gst_event_unref (event);
    /* Sticky events are stored on the pad and sent again on restart. */
    return sticky;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    tpss_fec_decoder_drain (self->core);
    collect_output (self);
  }
  g_queue_push_tail (&self->out_queue, event);
  wake_task (self);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_tpss_fec_dec_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:{
      /* Downstream first: unblocks the task's push. */
      gboolean ret = gst_pad_push_event (self->srcpad, event);
      set_flushing (self, TRUE);
      gst_pad_pause_task (self->srcpad);
      return ret;
    }
    case GST_EVENT_FLUSH_STOP:{
      gboolean ret;

      forget_everything (self);
      ret = gst_pad_push_event (self->srcpad, event);
      set_flushing (self, FALSE);
      gst_pad_start_task (self->srcpad,
          (GstTaskFunction) gst_tpss_fec_dec_loop, self, NULL);
      return ret;
    }
    default:
      if (GST_EVENT_IS_SERIALIZED (event))
        return queue_event (self, event);
      return gst_pad_event_default (pad, parent, event);
  }
}

static gboolean
gst_tpss_fec_dec_fec_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  /* The parity branch's events end here; the media branch speaks for the
   * stream. */
  gst_event_unref (event);
  return TRUE;
}

static gboolean
gst_tpss_fec_dec_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (parent);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, size_time;


    if (!gst_pad_peer_query (self->sinkpad, query))
      return FALSE;
    GST_OBJECT_LOCK (self);
    size_time = self->size_time;
    GST_OBJECT_UNLOCK (self);
    gst_query_parse_latency (query, &live, &min, &max);
    /* Held packets wait in the element's own queue, which has no limit. */
    gst_query_set_latency (query, live, min + size_time, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static GstIterator *
gst_tpss_fec_dec_iterate_internal_links (GstPad * pad, GstObject * parent)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (parent);
  GstPad *other = NULL;
  GstIterator *it = NULL;
  GValue v = G_VALUE_INIT;

  if (pad == self->sinkpad)
    other = self->srcpad;
  else if (pad == self->srcpad)
    other = self->sinkpad;
  if (!other)
    return gst_iterator_new_single (GST_TYPE_PAD, NULL);
  g_value_init (&v, GST_TYPE_PAD);
  g_value_set_object (&v, other);
  it = gst_iterator_new_single (GST_TYPE_PAD, &v);
  g_value_unset (&v);
  return it;
}

static GstPad *
gst_tpss_fec_dec_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (element);
  GstPad *pad;
  gchar *pad_name;

  GST_OBJECT_LOCK (self);
  pad_name = name ? g_strdup (name) :
      g_strdup_printf ("fec_%u", self->next_fec_pad++);
  GST_OBJECT_UNLOCK (self);

  pad = gst_pad_new_from_template (templ, pad_name);
  g_free (pad_name);
  gst_pad_set_chain_function (pad, gst_tpss_fec_dec_fec_chain);
  gst_pad_set_event_function (pad, gst_tpss_fec_dec_fec_event);
  gst_pad_set_iterate_internal_links_function (pad,
      gst_tpss_fec_dec_iterate_internal_links);
  gst_pad_set_active (pad, TRUE);
  if (!gst_element_add_pad (element, pad)) {
    gst_object_unref (pad);
    return NULL;
  }
  return pad;
}

static void
gst_tpss_fec_dec_release_pad (GstElement * element, GstPad * pad)
{
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
}

static GstStateChangeReturn
gst_tpss_fec_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      forget_everything (self);
      g_mutex_lock (&self->lock);
      self->wrong_pt = 0;
      self->warned_too_short = FALSE;
      self->last_pts = self->last_dts = GST_CLOCK_TIME_NONE;
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }
  /* Pad (de)activation starts and stops the task. */
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    forget_everything (self);
  return ret;
}

static void
gst_tpss_fec_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (object);

  switch (prop_id) {
    case PROP_SIZE_TIME:{
      GstClockTime t = g_value_get_uint64 (value);
      GST_OBJECT_LOCK (self);
      self->size_time = t;
      GST_OBJECT_UNLOCK (self);
      g_mutex_lock (&self->lock);
      tpss_fec_decoder_set_size_time (self->core, t);
      self->warned_too_short = FALSE;   /* once per setting */
      if (self->clock_id)       /* the task recomputes its deadline */
        gst_clock_id_unschedule (self->clock_id);
      g_mutex_unlock (&self->lock);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_latency (GST_OBJECT (self)));
      break;
    }
    case PROP_PT:
      GST_OBJECT_LOCK (self);
      self->pt = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_tpss_fec_dec_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (object);

  switch (prop_id) {
    case PROP_SIZE_TIME:
      GST_OBJECT_LOCK (self);
      g_value_set_uint64 (value, self->size_time);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PT:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->pt);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_tpss_fec_dec_finalize (GObject * object)
{
  GstTpssFecDec *self = GST_TPSS_FEC_DEC (object);

  clear_out_queue (self);
  tpss_fec_decoder_free (self->core);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_cond_clear (&self->drained);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_tpss_fec_dec_class_init (GstTpssFecDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_tpss_fec_dec_set_property;
  gobject_class->get_property = gst_tpss_fec_dec_get_property;
  gobject_class->finalize = gst_tpss_fec_dec_finalize;
  element_class->change_state = gst_tpss_fec_dec_change_state;
  element_class->request_new_pad = gst_tpss_fec_dec_request_new_pad;
  element_class->release_pad = gst_tpss_fec_dec_release_pad;

  g_object_class_install_property (gobject_class, PROP_SIZE_TIME,
      g_param_spec_uint64 ("size-time", "Storage size (in ns)",
          "Upper bound on how long media waits behind a missing packet "
          "before the gap is given up, and the latency the element reports "
          "(ns, at most 60 s). Within it the element waits only as long as "
          "parity takes to come (stats: segment-time, hold-time); if parity "
          "takes longer it posts a warning, once per setting. Packets are "
          "kept for repair for a whole segment, and at least this long",
          0, MAX_SIZE_TIME, DEFAULT_SIZE_TIME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type",
          "RTP payload type of the parity packets; others on the fec pads "
          "are dropped and counted as foreign (0 = accept any)", 0, 127,
          DEFAULT_PT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstTpssFecDec:stats:
   *
   * The same text as the property blurb, so gst-inspect-1.0 shows it.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "received: media packets in (packets); "
          "fec-received: well-formed parity packets in (packets); "
          "recovered: media packets rebuilt from parity (packets); "
          "unrecoverable: missing media packets given up when the wait ran "
          "out (packets); "
          "late: packets that arrived or were rebuilt after their gap was "
          "given up, pushed at once out of order (packets); "
          "repaired-late: of those, packets rebuilt from parity that came "
          "later than size-time allowed (packets); "
          "fec-late: parity that came after packets of its subsegment were "
          "pushed and left the store: it repairs nothing and is dropped, so "
          "no packet is pushed twice (packets); "
          "out-of-window: media far off the stream's sequence numbers, "
          "dropped, and two in a row start a new stream (packets); "
          "duplicates: media packets seen before, dropped (packets); "
          "malformed: parity or media that failed to parse, and repairs that "
          "gave no valid RTP (forged parity), dropped (packets); "
          "foreign: parity for another SSRC or payload type or outside the "
          "sequence window, dropped (packets); "
          "resets: sequence jumps or SSRC changes that restarted the decoder "
          "(count); "
          "segment-time: measured time from a segment's first media packet to "
          "its parity, 0 until parity has come (ns); "
          "hold-time: how long media now waits behind a missing packet, the "
          "segment time + 1/4 + 5 ms, at most size-time (ns)",
          GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_add_static_pad_template (element_class, &fec_template);
  gst_element_class_set_static_metadata (element_class,
      "TPSS interleaved parity FEC decoder", "Codec/Decoder/Network/RTP",
      "Rebuilds lost RTP packets from TPSS interleaved XOR parity (made by "
      "tpssfecenc) and outputs the stream in sequence order from its own "
      "thread; media behind a missing packet waits as long as its parity "
      "takes to come, at most size-time. Example: gst-launch-1.0 udpsrc "
      "port=5000 caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\" ! tpssfecdec name=fec size-time=200000000 ! "
      "rtph264depay ! avdec_h264 ! autovideosink udpsrc port=5002 "
      "caps=\"application/x-rtp,payload=100\" ! fec.fec_0",
      "gst-rtp-transports developers");

  GST_DEBUG_CATEGORY_INIT (gst_tpss_fec_dec_debug, "tpssfecdec", 0,
      "TPSS interleaved parity FEC decoder");
}

static void
gst_tpss_fec_dec_init (GstTpssFecDec * self)
{
  TpssFecDecoderConfig cfg = {
    .size_time = DEFAULT_SIZE_TIME,
    .release = media_handle_release,
  };

  self->size_time = DEFAULT_SIZE_TIME;
  self->pt = DEFAULT_PT;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_cond_init (&self->drained);
  self->core = tpss_fec_decoder_new (&cfg);
  self->srcresult = GST_FLOW_FLUSHING;
  g_queue_init (&self->out_queue);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_tpss_fec_dec_chain);
  gst_pad_set_chain_list_function (self->sinkpad,
      gst_tpss_fec_dec_chain_list);
  gst_pad_set_event_function (self->sinkpad, gst_tpss_fec_dec_sink_event);
  gst_pad_set_iterate_internal_links_function (self->sinkpad,
      gst_tpss_fec_dec_iterate_internal_links);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad, gst_tpss_fec_dec_src_query);
  gst_pad_set_activatemode_function (self->srcpad,
      gst_tpss_fec_dec_src_activate_mode);
  gst_pad_set_iterate_internal_links_function (self->srcpad,
      gst_tpss_fec_dec_iterate_internal_links);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
