/**
 * SECTION:element-tpsssrc
 * @title: tpsssrc
 * @see_also: tpsssink, tpssfecdec
 *
 * Receives the RTP streams of every other member of a TPSS + NQCP group
 * (Tojo et al., "QoS Control for High-Speed Communication in a Group") and
 * exposes one sometimes pad per remote member, `src_<id>` (the member's id,
 * which is also the SSRC of its stream), so an application links a
 * depayloader and a decoder per participant. Each pad carries that member's
 * RTP after parity recovery, in sequence order (a packet waits behind a
 * missing one at most #GstTpssSrc:fec-size-time, as in tpssfecdec). The pad
 * appears with the member's first packet and goes away, after an EOS, when
 * the member leaves or stays silent for #GstTpssSrc:member-timeout. The pad
 * is added, and pad-added emitted, from the pad's own streaming thread,
 * never from the session's: a handler that builds and links a decoder
 * branch there holds up that member's stream alone, not the protocol's
 * timers and sockets. A pad is removed, and pad-removed emitted, from a
 * thread of the element (the one that starts new pads' tasks), after its
 * EOS, and before a new pad of the same member appears. An EOS sent to the
 * element (gst-launch-1.0 -e does so on Ctrl-C) ends every pad after what
 * it holds; no new pad appears until the element restarts. If no member's media arrived before that EOS
 * (no pad ever appeared, so no sink behind the element can get the EOS),
 * the element posts an error (stream error "failed") instead, so the
 * pipeline ends on the first Ctrl-C. The
 * EOS also emits no-more-pads: a sink linked by name to the pad of a member
 * that never sent (`src.src_3 ! ...`) gets no EOS, and gst-launch-1.0 then
 * warns "Delayed linking failed" for it; its second Ctrl-C stops the
 * pipeline.
 *
 * The receiver side of the protocol runs in the session (shared with a
 * tpsssink of the same member, see tpsssink): every report interval it
 * tells each source the rate it may send at (section 4's rule: decrease on
 * loss above #GstTpssSrc:loss-threshold, else increase; a complete receipt
 * in the redundant phase assigns the receive rate and ends the phase; with
 * #GstTpssSrc:assign-needs-parity a round trip that lost only parity holds
 * the source's rate and probe as they are). With
 * `control=notification` (NQCP), sources announce `<D, TT, HT>` ahead of
 * their data; when the announced traffic exceeds #GstTpssSrc:max-receive-rate
 * the capacity is allocated by #GstTpssSrc:priorities
 * (`delivery=priority`) or fairly (`delivery=fair`). Admission is a token
 * bucket per source, filled at its allocation and #GstTpssSrc:admission-burst
 * deep, so a source at its rate is not refused however it bunches its
 * packets; when capacity runs short the less prioritized sources' packets
 * are the ones not delivered (counted in stats). With
 * `control=feedback` (the section 4.2 baseline) admission is first come,
 * first served.
 *
 * Key units: when a member's stream starts (its first packet) and whenever
 * a force-key-unit event comes upstream on its pad (rtph264depay and
 * decoders send one when they cannot decode), the member gets an RTCP PLI
 * (RFC 4585), counted as pli-sent; its tpsssink asks its encoder for a key
 * unit, so a late joiner decodes at once instead of at the sender's next
 * key frame.
 *
 * Control packets that do not parse, come from ids that are not members, or
 * claim a member's id from another address are counted in
 * #GstTpssSrc:stats and dropped.
 *
 * The session's datagrams go through a UDP socket of its own on
 * #GstTpssSrc:address and #GstTpssSrc:port, or through the application's:
 * #GstTpssSrc:socket (a bound UDP GSocket, used as given and never closed)
 * or #GstTpssSrc:transport (any GstNetTransport, e.g. an ICE one; the
 * session then opens no socket). Give a tpsssink of the same member the same
 * object.
 *
 * Output caps: #GstTpssSrc:caps if set, else application/x-rtp with
 * #GstTpssSrc:media, #GstTpssSrc:clock-rate, #GstTpssSrc:encoding-name and
 * #GstTpssSrc:payload; the pad's caps also carry `ssrc` (the member id).
 *
 * Timestamps: with `sync=none` (the default) a buffer's PTS is the running
 * time of its delivery. With `sync=sender-reports`, once a member's RTCP
 * sender report has arrived, its buffers are stamped as rtpbin's lip sync
 * does: the sender's NTP time of the packet's RTP timestamp (from the
 * latest SR and the caps' clock-rate) plus one offset per member, the
 * largest least delay of that member's streams, so that the stream that
 * arrives later sets it. tpsssrc elements with the same
 * #GstTpssSrc:sync-group share those offsets: a member's audio and video,
 * received by two tpsssrc of two sessions, then get one time base and
 * play in sync. Before a member's first SR its buffers are stamped as
 * with `sync=none`. A stream is held back at most #GstTpssSrc:max-hold
 * (1 s): when its member's other stream lags more, it is stamped on its
 * own delay. #GstTpssSrc:latency (added to the fec-size-time answered to
 * a LATENCY query) is what sinks wait beyond that for packets that were
 * delayed more than the least (jitter, FEC recovery).
 *
 * ## Example launch lines
 *
 * Receive-only member 3 of a group, showing member 1's video (pads are
 * named after member ids):
 * |[
 * gst-launch-1.0 tpsssrc name=src port=5008 member-id=3 \
 *   members=1@127.0.0.1:5004,2@127.0.0.1:5006,3@127.0.0.1:5008 \
 *   caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" \
 *   src.src_1 ! rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]|
 * A two-member call on localhost is in the tpsssink documentation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpsssrc.h"
#include "gsttpsssession.h"
#include "tpsssync.h"

#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_tpss_src_debug);
#define GST_CAT_DEFAULT gst_tpss_src_debug

#define DEFAULT_MEDIA "video"
#define DEFAULT_CLOCK_RATE 90000
#define DEFAULT_ENCODING_NAME NULL
#define DEFAULT_PAYLOAD -1
#define MAX_PAD_QUEUE 4096      /* packets waiting for a slow downstream */
#define DEFAULT_SYNC GST_TPSS_SYNC_NONE
#define DEFAULT_LATENCY 200     /* ms */
#define DEFAULT_SYNC_GROUP NULL
#define DEFAULT_MAX_HOLD 1000   /* ms */
#define SYNC_WINDOW (2 * GST_SECOND)

typedef enum
{
  GST_TPSS_SYNC_NONE,
  GST_TPSS_SYNC_SENDER_REPORTS,
} GstTpssSyncMode;

#define GST_TYPE_TPSS_SYNC_MODE (gst_tpss_sync_mode_get_type ())
static GType
gst_tpss_sync_mode_get_type (void)
{
  static GType type;
  static const GEnumValue values[] = {
    {GST_TPSS_SYNC_NONE, "Stamp buffers with their arrival running time",
        "none"},
    {GST_TPSS_SYNC_SENDER_REPORTS, "Stamp buffers from the members' RTCP "
          "sender reports, one offset per member (lip sync)",
        "sender-reports"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstTpssSyncMode",
            values));
  return type;
}

/* The lip-sync state tpsssrc elements of one sync-group share (an unnamed
 * one is the element's own). */
typedef struct
{
  gchar *name;
  gint refcount;                /* sync_registry_lock */
  GMutex lock;
  TpssSync *sync;
} SharedSync;

static GMutex sync_registry_lock;
static GHashTable *sync_registry;

static SharedSync *
shared_sync_acquire (const gchar * name)
{
  SharedSync *ss = NULL;

  g_mutex_lock (&sync_registry_lock);
  if (!sync_registry)
    sync_registry = g_hash_table_new (g_str_hash, g_str_equal);
  if (name && *name)
    ss = g_hash_table_lookup (sync_registry, name);
  if (ss) {
    ss->refcount++;
  } else {
    ss = g_new0 (SharedSync, 1);
    ss->name = name && *name ? g_strdup (name) : NULL;
    ss->refcount = 1;
    g_mutex_init (&ss->lock);
    ss->sync = tpss_sync_new (SYNC_WINDOW);
    if (ss->name)
      g_hash_table_insert (sync_registry, ss->name, ss);
  }
  g_mutex_unlock (&sync_registry_lock);
  return ss;
}

static void
shared_sync_release (SharedSync * ss, gpointer stream)
{
  g_mutex_lock (&ss->lock);
  tpss_sync_remove_stream (ss->sync, stream);
  g_mutex_unlock (&ss->lock);
  g_mutex_lock (&sync_registry_lock);
  if (--ss->refcount > 0) {
    g_mutex_unlock (&sync_registry_lock);
    return;
  }
  if (ss->name)
    g_hash_table_remove (sync_registry, ss->name);
  g_mutex_unlock (&sync_registry_lock);
  tpss_sync_free (ss->sync);
  g_mutex_clear (&ss->lock);
  g_free (ss->name);
  g_free (ss);
}

enum
{
  PROP_CAPS = GST_TPSS_PROP_LAST,
  PROP_MEDIA,
  PROP_CLOCK_RATE,
  PROP_ENCODING_NAME,
  PROP_PAYLOAD,
  PROP_STATS,
  PROP_SYNC,
  PROP_LATENCY,
  PROP_SYNC_GROUP,
  PROP_MAX_HOLD,
};

/* One output pad: a member's stream, pushed by the pad's own task so a slow
 * participant's branch never stalls the session thread or the others. */
typedef struct
{
  GstPad *pad;
  GstTpssSrc *src;              /* its element: every pad is removed, its
                                 * task stopped, before the element goes */
  guint32 member;
  gboolean added;               /* in the element (its task added it) */
  GMutex lock;
  GCond cond;
  GQueue queue;                 /* GstBuffer */
  gboolean flushing;
  gboolean removing;            /* remove_src_pad: the task ends; unlike
                                 * flushing, no activation clears it */
  gboolean eos;                 /* push EOS after the queue */
  gboolean eos_pushed;
  gboolean started;             /* sticky events sent */
  guint64 pushed, dropped;
  /* the session thread's (deliveries), read under pads_lock for stats */
  guint64 sr_stamped;           /* buffers stamped from sender reports */
  gint64 sync_offset;           /* local running time - sender NTP, ns */
  gint64 sync_hold;             /* how much later than its own least delay
                                 * this stream is stamped, ns */
  guint64 over_max_hold;        /* buffers stamped on their own delay: the
                                 * member's later stream lagged more than
                                 * max-hold */
} SrcPad;

struct _GstTpssSrc
{
  GstElement parent;

  /* Settings, under the object lock */
  GstTpssSettings settings;
  GstCaps *caps;
  gchar *media, *encoding_name;
  gint clock_rate, payload;
  GstTpssSyncMode sync_mode;
  guint latency;                /* ms */
  guint max_hold;               /* ms */
  gchar *sync_group;

  SharedSync *sync;             /* set in READY->PAUSED */
  /* Under the object lock: PLAYING, so the base time is this run's */
  gboolean playing;

  /* Written only in state changes, under the object lock (for readers
   * elsewhere) */
  GstTpssSession *session;
  gboolean started;

  /* pads_lock: the pad table, `running` and `eos` */
  GMutex pads_lock;
  /* held by a delivery from start to end (it may add and start a pad after
   * pads_lock) and while pads are taken out of the table: a pad is never
   * freed while a delivery still sets it up */
  GMutex deliver_lock;
  GHashTable *pads;             /* member id -> SrcPad */
  gboolean running;
  gboolean eos;                 /* the application sent EOS: pads end */
  guint64 pads_removed;
  guint64 unstamped;            /* buffers out without a PTS: no running
                                 * time when they came */
  /* pads_lock: pads a member's leaving is removing outside the table; the
   * stop waits for them (removed_cond), so no pad-removed comes after it */
  guint removing;
  GCond removed_cond;
  /* pads_lock: pads whose task has not added them yet, and a no-more-pads
   * the EOS left to the last of them */
  guint adding;
  gboolean no_more_pads_due;
  /* The thread that starts new pads and removes the pads of members that
   * left, in the order the session asked (PAUSED and up); pads_lock: its
   * jobs (PadJob), the pad it is starting, whether it runs */
  GThread *starter;
  GQueue jobs;
  SrcPad *starting;
  gboolean starter_running;
  GCond start_cond;
};

typedef enum
{
  PAD_JOB_START,                /* activate a new pad, start its task */
  PAD_JOB_REMOVE,               /* a member left: EOS on its pad, remove it */
} PadJobType;

typedef struct
{
  PadJobType type;
  SrcPad *sp;                   /* START */
  guint32 member;               /* REMOVE */
} PadJob;

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_tpss_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstTpssSrc, gst_tpss_src, GST_TYPE_ELEMENT,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_tpss_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (tpsssrc, "tpsssrc", GST_RANK_NONE,
    GST_TYPE_TPSS_SRC);

static GstCaps *
make_caps (GstTpssSrc * self, guint32 member)
{
  GstCaps *caps;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  if (self->caps) {
    caps = gst_caps_copy (self->caps);
  } else {
    caps = gst_caps_new_simple ("application/x-rtp",
        "media", G_TYPE_STRING, self->media,
        "clock-rate", G_TYPE_INT, self->clock_rate, NULL);
    if (self->encoding_name)
      gst_caps_set_simple (caps, "encoding-name", G_TYPE_STRING,
          self->encoding_name, NULL);
    if (self->payload >= 0)
      gst_caps_set_simple (caps, "payload", G_TYPE_INT, self->payload, NULL);
  }
  GST_OBJECT_UNLOCK (self);
  s = gst_caps_get_structure (caps, 0);
  gst_structure_set (s, "ssrc", G_TYPE_UINT, member, NULL);
  return caps;
}

/* A queue entry: a buffer, or NULL, the EOS mark of a member that left
 * (still queued when the pad was deactivated before its task took it). */
static void
queued_free (GstBuffer * buf)
{
  if (buf)
    gst_buffer_unref (buf);
}

static void
src_pad_free (SrcPad * sp)
{
  g_queue_clear_full (&sp->queue, (GDestroyNotify) queued_free);
  g_mutex_clear (&sp->lock);
  g_cond_clear (&sp->cond);
  gst_object_unref (sp->pad);
  g_free (sp);
}

/* With pads_lock: a pad waiting to be added is settled (added, or removed
 * before it was); returns whether the EOS's no-more-pads is now to post. */
static gboolean
pad_add_settled (GstTpssSrc * self)
{
  gboolean post;

  self->adding--;
  post = self->adding == 0 && self->no_more_pads_due;
  if (post)
    self->no_more_pads_due = FALSE;
  return post;
}

/* In @sp's task, before its first push: the application's pad-added
 * handler runs here. */
static void
add_src_pad (GstTpssSrc * self, SrcPad * sp)
{
  gboolean post;

  GST_INFO_OBJECT (self, "new pad for member %u", sp->member);
  gst_element_add_pad (GST_ELEMENT (self), sp->pad);    /* takes a ref */
  g_mutex_lock (&sp->lock);
  sp->added = TRUE;
  g_mutex_unlock (&sp->lock);
  g_mutex_lock (&self->pads_lock);
  post = pad_add_settled (self);
  g_mutex_unlock (&self->pads_lock);
  if (post)
    gst_element_no_more_pads (GST_ELEMENT (self));
}

static void
src_pad_loop (gpointer data)
{
  SrcPad *sp = data;
  GstPad *pad = sp->pad;
  GstTpssSrc *self = gst_object_ref (sp->src);
  GstBuffer *buf;
  GstFlowReturn ret;
  gboolean add;

  g_mutex_lock (&sp->lock);
  add = !sp->added && !sp->flushing && !sp->removing;
  g_mutex_unlock (&sp->lock);
  if (add)
    add_src_pad (self, sp);

  g_mutex_lock (&sp->lock);
  while (!sp->flushing && !sp->removing && g_queue_is_empty (&sp->queue)
      && !sp->eos)
    g_cond_wait (&sp->cond, &sp->lock);
  if (sp->flushing || sp->removing || sp->eos_pushed) {
    g_mutex_unlock (&sp->lock);
    gst_pad_pause_task (pad);
    gst_object_unref (self);
    return;
  }
  buf = g_queue_pop_head (&sp->queue);
  g_mutex_unlock (&sp->lock);

  if (!sp->started) {
    gchar *sid = g_strdup_printf ("tpss-%u", sp->member);
    gchar *stream_id = gst_pad_create_stream_id (pad, GST_ELEMENT (self), sid);
    GstCaps *caps = make_caps (self, sp->member);
    GstSegment seg;

    gst_pad_push_event (pad, gst_event_new_stream_start (stream_id));
    gst_pad_push_event (pad, gst_event_new_caps (caps));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (pad, gst_event_new_segment (&seg));
    gst_caps_unref (caps);
    g_free (stream_id);
    g_free (sid);
    sp->started = TRUE;
  }

  if (!buf) {
    /* The member left: EOS, then the pad is removed. */
    gst_pad_push_event (pad, gst_event_new_eos ());
    g_mutex_lock (&sp->lock);
    sp->eos_pushed = TRUE;
    g_cond_broadcast (&sp->cond);
    g_mutex_unlock (&sp->lock);
    gst_pad_pause_task (pad);
    gst_object_unref (self);
    return;
  }

  ret = gst_pad_push (pad, buf);
  sp->pushed++;
  if (ret == GST_FLOW_FLUSHING) {
    gst_pad_pause_task (pad);
  } else if (ret != GST_FLOW_OK && ret != GST_FLOW_NOT_LINKED) {
    /* One participant's branch failing must not end the call. */
    GST_DEBUG_OBJECT (pad, "push: %s", gst_flow_get_name (ret));
  }
  gst_object_unref (self);
}

static gboolean
src_pad_activate_mode (GstPad * pad, GstObject * parent, GstPadMode mode,
    gboolean active)
{
  SrcPad *sp = gst_pad_get_element_private (pad);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  g_mutex_lock (&sp->lock);
  sp->flushing = !active;
  g_cond_broadcast (&sp->cond);
  g_mutex_unlock (&sp->lock);
  /* The task starts with the pad, and adds it (pad-added links it). */
  if (active)
    return TRUE;
  return gst_pad_stop_task (pad);
}

static gboolean
src_pad_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstTpssSrc *self = GST_TPSS_SRC (parent);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min;
    GST_OBJECT_LOCK (self);
    min = (guint64) self->settings.params.fec_size_time;
    if (self->sync_mode == GST_TPSS_SYNC_SENDER_REPORTS)
      min += self->latency * GST_MSECOND;
    GST_OBJECT_UNLOCK (self);
    gst_query_set_latency (query, TRUE, min, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    SrcPad *sp = gst_pad_get_element_private (pad);
    GstCaps *caps = make_caps (self, sp->member), *filter;
    gst_query_parse_caps (query, &filter);
    if (filter) {
      GstCaps *i = gst_caps_intersect_full (filter, caps,
          GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (caps);
      caps = i;
    }
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

/* A depayloader or decoder asking for a key unit (as rtpbin handles it):
 * the member of this pad gets a PLI. */
static gboolean
src_pad_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstTpssSrc *self = GST_TPSS_SRC (parent);
  SrcPad *sp = gst_pad_get_element_private (pad);

  if (gst_video_event_is_force_key_unit (event) &&
      GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM) {
    gboolean sent = self->session &&
        gst_tpss_session_request_key_unit (self->session, sp->member);
    GST_DEBUG_OBJECT (pad, "key unit requested: %s", sent ? "PLI sent to "
        "the member" : "member unknown, no PLI");
    gst_event_unref (event);
    return sent;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* The running time now, NONE before PLAYING. A pipeline going to PLAYING
 * hands every element its clock first and then, as its bin reaches each,
 * the base time: until then ours is 0 or the last run's, and the clock's
 * time less it would be the host's uptime (the delays sync=sender-reports
 * takes would jump by that, once the base time comes). */
static GstClockTime
running_time (GstTpssSrc * self)
{
  GstClock *clock = NULL;
  GstClockTime now, base;

  GST_OBJECT_LOCK (self);
  if (self->playing && GST_ELEMENT_CLOCK (self))
    clock = gst_object_ref (GST_ELEMENT_CLOCK (self));
  base = GST_ELEMENT_CAST (self)->base_time;
  GST_OBJECT_UNLOCK (self);
  if (!clock)
    return GST_CLOCK_TIME_NONE;
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  return now > base ? now - base : 0;
}

/* The RTP clock rate of the output: the caps' clock-rate, else the
 * property. */
static guint
output_clock_rate (GstTpssSrc * self)
{
  gint rate = 0;

  GST_OBJECT_LOCK (self);
  if (!self->caps || gst_caps_is_empty (self->caps) ||
      !gst_structure_get_int (gst_caps_get_structure (self->caps, 0),
          "clock-rate", &rate))
    rate = self->clock_rate;
  GST_OBJECT_UNLOCK (self);
  return rate > 0 ? (guint) rate : 0;
}

/* The PTS of @buf of @sp's member from its sender report @sr: sender time
 * + the member's offset; @arrival when it cannot be (not RTP). */
static GstClockTime
sync_pts (GstTpssSrc * self, SrcPad * sp, GstBuffer * buf,
    const TpssSenderReport * sr, guint clock_rate, GstClockTime arrival,
    gint64 max_hold)
{
  guint8 hdr[8];
  gint64 sender, offset, member_offset = 0, own = 0, pts;

  if (gst_buffer_extract (buf, 0, hdr, sizeof (hdr)) != sizeof (hdr))
    return arrival;
  sender = tpss_sync_sender_time (sr, GST_READ_UINT32_BE (hdr + 4),
      clock_rate);
  g_mutex_lock (&self->sync->lock);
  offset = tpss_sync_update (self->sync->sync, sp->member, self, sender,
      (gint64) arrival, max_hold);
  tpss_sync_get_stream_delay (self->sync->sync, sp->member, self, &own);
  tpss_sync_get_offset (self->sync->sync, sp->member, (gint64) arrival,
      &member_offset);
  g_mutex_unlock (&self->sync->lock);
  pts = sender + offset;
  GST_LOG_OBJECT (self, "member %u: delay %" G_GINT64_FORMAT " us, least %"
      G_GINT64_FORMAT " us, offset %" G_GINT64_FORMAT " us", sp->member,
      ((gint64) arrival - sender) / 1000, own / 1000, offset / 1000);
  sp->sync_offset = offset;
  sp->sync_hold = offset - own;
  if (offset != member_offset)
    sp->over_max_hold++;
  sp->sr_stamped++;
  return pts > 0 ? (GstClockTime) pts : 0;
}

/* With pads_lock: a job for the starter's thread (none once it stopped:
 * no pad is left to start or remove). */
static void
push_pad_job (GstTpssSrc * self, PadJobType type, SrcPad * sp,
    guint32 member)
{
  PadJob *job;

  if (!self->starter_running)
    return;
  job = g_new0 (PadJob, 1);
  job->type = type;
  job->sp = sp;
  job->member = member;
  g_queue_push_tail (&self->jobs, job);
  g_cond_broadcast (&self->start_cond);
}

/* From the session thread, no lock held. */
static void
on_deliver (GstElement * element, guint32 member, GstBufferList * list,
    const TpssSenderReport * sr)
{
  GstTpssSrc *self = GST_TPSS_SRC (element);
  SrcPad *sp;
  GstClockTime ts = running_time (self);
  gboolean added = FALSE, synced;
  guint clock_rate = output_clock_rate (self);
  gint64 max_hold;

  GST_OBJECT_LOCK (self);
  synced = self->sync_mode == GST_TPSS_SYNC_SENDER_REPORTS && sr->valid &&
      clock_rate > 0 && GST_CLOCK_TIME_IS_VALID (ts);
  max_hold = self->max_hold * GST_MSECOND;
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->deliver_lock);
  g_mutex_lock (&self->pads_lock);
  if (!self->running || self->eos) {
    g_mutex_unlock (&self->pads_lock);
    g_mutex_unlock (&self->deliver_lock);
    gst_buffer_list_unref (list);
    return;
  }
  sp = g_hash_table_lookup (self->pads, GUINT_TO_POINTER (member));
  if (!sp) {
    gchar *name = g_strdup_printf ("src_%u", member);
    sp = g_new0 (SrcPad, 1);
    sp->src = self;
    sp->member = member;
    g_mutex_init (&sp->lock);
    g_cond_init (&sp->cond);
    g_queue_init (&sp->queue);
    sp->pad = gst_pad_new_from_static_template (&src_template, name);
    gst_object_ref_sink (sp->pad);
    g_free (name);
    gst_pad_set_element_private (sp->pad, sp);
    gst_pad_set_activatemode_function (sp->pad, src_pad_activate_mode);
    gst_pad_set_query_function (sp->pad, src_pad_query);
    gst_pad_set_event_function (sp->pad, src_pad_event);
    gst_pad_use_fixed_caps (sp->pad);
    g_hash_table_insert (self->pads, GUINT_TO_POINTER (member), sp);
    self->adding++;
    added = TRUE;
  }
  if (!GST_CLOCK_TIME_IS_VALID (ts)) {
    self->unstamped += gst_buffer_list_length (list);
    GST_LOG_OBJECT (self, "member %u: %u buffers out unstamped: no running "
        "time before PLAYING", member, gst_buffer_list_length (list));
  }
  g_mutex_lock (&sp->lock);
  for (guint i = 0; i < gst_buffer_list_length (list); i++) {
    GstBuffer *b = gst_buffer_make_writable (gst_buffer_ref
        (gst_buffer_list_get (list, i)));
    GST_BUFFER_PTS (b) = synced && self->sync ?
        sync_pts (self, sp, b, sr, clock_rate, ts, max_hold) : ts;
    GST_BUFFER_DTS (b) = GST_CLOCK_TIME_NONE;
    if (sp->queue.length >= MAX_PAD_QUEUE) {
      gst_buffer_unref (g_queue_pop_head (&sp->queue));
      sp->dropped++;
    }
    g_queue_push_tail (&sp->queue, b);
  }
  g_cond_broadcast (&sp->cond);
  g_mutex_unlock (&sp->lock);
  g_mutex_unlock (&self->pads_lock);
  gst_buffer_list_unref (list);

  if (added) {
    /* not started here: see starter_thread */
    g_mutex_lock (&self->pads_lock);
    push_pad_job (self, PAD_JOB_START, sp, member);
    g_mutex_unlock (&self->pads_lock);
  }
  g_mutex_unlock (&self->deliver_lock);
}

static void remove_member (GstTpssSrc * self, guint32 member);

/* The starter's thread: activates each new pad and starts its task, and
 * removes the pad of each member that left. Why not the session thread:
 * pthread_create waits while another thread of the process is in dlopen
 * (glibc's loader lock), and an application's pad-added handler loads its
 * decoder's plugin (gst-libav: it held a task's start 0.15 s on an idle
 * machine, 0.2-1.1 s on a loaded one, and the session's reports as long);
 * handing a removal to GStreamer's thread pool may create a thread too.
 * One thread for both keeps a member's pads in order: a pad that left is
 * gone before its member's next pad, of the same name, is added. */
static gpointer
starter_thread (gpointer data)
{
  GstTpssSrc *self = data;
  PadJob *job;

  g_mutex_lock (&self->pads_lock);
  while (self->starter_running) {
    job = g_queue_pop_head (&self->jobs);
    if (!job) {
      g_cond_wait (&self->start_cond, &self->pads_lock);
      continue;
    }
    if (job->type == PAD_JOB_START)
      self->starting = job->sp;
    g_mutex_unlock (&self->pads_lock);
    if (job->type == PAD_JOB_START) {
      gst_pad_set_active (job->sp->pad, TRUE);
      gst_pad_start_task (job->sp->pad, src_pad_loop, job->sp, NULL);
    } else {
      remove_member (self, job->member);
    }
    g_free (job);
    g_mutex_lock (&self->pads_lock);
    self->starting = NULL;
    g_cond_broadcast (&self->start_cond);
  }
  g_mutex_unlock (&self->pads_lock);
  return NULL;
}

static void
starter_start (GstTpssSrc * self)
{
  g_mutex_lock (&self->pads_lock);
  self->starter_running = TRUE;
  g_mutex_unlock (&self->pads_lock);
  self->starter = g_thread_new ("tpsssrc-pads", starter_thread, self);
}

/* After remove_all_pads: nothing is left to start, and removals left
 * have no pad to remove. */
static void
starter_stop (GstTpssSrc * self)
{
  if (!self->starter)
    return;
  g_mutex_lock (&self->pads_lock);
  self->starter_running = FALSE;
  g_cond_broadcast (&self->start_cond);
  g_mutex_unlock (&self->pads_lock);
  g_thread_join (self->starter);
  self->starter = NULL;
  g_queue_clear_full (&self->jobs, g_free);
}

static gint
pad_job_starts (gconstpointer job, gconstpointer sp)
{
  const PadJob *j = job;

  return j->type == PAD_JOB_START && j->sp == sp ? 0 : 1;
}

/* @sp, out of the table, out of the starter's hands too: left unstarted if
 * still queued, started if under way (never the case on the starter's own
 * thread). */
static void
take_from_starter (GstTpssSrc * self, SrcPad * sp)
{
  GList *l;

  g_mutex_lock (&self->pads_lock);
  l = g_queue_find_custom (&self->jobs, sp, pad_job_starts);
  if (l) {
    g_free (l->data);
    g_queue_delete_link (&self->jobs, l);
  }
  while (self->starting == sp)
    g_cond_wait (&self->start_cond, &self->pads_lock);
  g_mutex_unlock (&self->pads_lock);
}

/* Sends EOS on @sp's pad (waiting a little for its task to push it), then
 * removes the pad. */
static void
remove_src_pad (GstTpssSrc * self, SrcPad * sp, gboolean drain)
{
  take_from_starter (self, sp);
  g_mutex_lock (&sp->lock);
  if (drain && gst_pad_is_active (sp->pad)) {
    gint64 end = g_get_monotonic_time () + G_TIME_SPAN_SECOND;
    sp->eos = TRUE;
    g_queue_push_tail (&sp->queue, NULL);
    g_cond_broadcast (&sp->cond);
    while (!sp->eos_pushed && !sp->flushing)
      if (!g_cond_wait_until (&sp->cond, &sp->lock, end))
        break;
  }
  sp->removing = TRUE;
  g_cond_broadcast (&sp->cond);
  g_mutex_unlock (&sp->lock);
  /* Stops the task, and then its own stop for a task the deactivation
   * missed (one that finds the pad inactive stops nothing): a task was
   * seen once pushing a freed pad's queue after its removal
   * (test_src_after_sink_sends_pli, 1 run in 260). `added` is settled
   * after them. */
  gst_pad_set_active (sp->pad, FALSE);
  gst_pad_stop_task (sp->pad);
  if (sp->added) {
    gst_element_remove_pad (GST_ELEMENT (self), sp->pad);
  } else {
    gboolean post;
    g_mutex_lock (&self->pads_lock);
    post = pad_add_settled (self);
    g_mutex_unlock (&self->pads_lock);
    if (post)
      gst_element_no_more_pads (GST_ELEMENT (self));
  }
  src_pad_free (sp);
}

/* On the starter's thread. */
static void
remove_member (GstTpssSrc * self, guint32 member)
{
  SrcPad *sp;

  g_mutex_lock (&self->deliver_lock);
  g_mutex_lock (&self->pads_lock);
  sp = g_hash_table_lookup (self->pads, GUINT_TO_POINTER (member));
  if (sp) {
    g_hash_table_steal (self->pads, GUINT_TO_POINTER (member));
    self->removing++;
  }
  g_mutex_unlock (&self->pads_lock);
  g_mutex_unlock (&self->deliver_lock);
  if (!sp)
    return;
  GST_INFO_OBJECT (self, "member %u left: removing its pad", member);
  remove_src_pad (self, sp, TRUE);
  g_mutex_lock (&self->pads_lock);
  self->pads_removed++;
  self->removing--;
  g_cond_broadcast (&self->removed_cond);
  g_mutex_unlock (&self->pads_lock);
}

/* From the session thread: the removal waits for the pad's EOS and runs
 * the application's pad-removed handler, on the starter's thread. */
static void
on_member_left (GstElement * element, guint32 member)
{
  GstTpssSrc *self = GST_TPSS_SRC (element);

  g_mutex_lock (&self->pads_lock);
  push_pad_job (self, PAD_JOB_REMOVE, NULL, member);
  g_mutex_unlock (&self->pads_lock);
}

static const GstTpssSrcCallbacks src_callbacks = {
  .deliver = on_deliver,
  .member_left = on_member_left,
};

static void
remove_all_pads (GstTpssSrc * self)
{
  GList *all;

  g_mutex_lock (&self->deliver_lock);
  g_mutex_lock (&self->pads_lock);
  self->running = FALSE;
  all = g_hash_table_get_values (self->pads);
  g_hash_table_steal_all (self->pads);
  g_mutex_unlock (&self->pads_lock);
  g_mutex_unlock (&self->deliver_lock);
  for (GList * l = all; l; l = l->next)
    remove_src_pad (self, l->data, FALSE);
  g_list_free (all);
  g_mutex_lock (&self->pads_lock);
  while (self->removing > 0)
    g_cond_wait (&self->removed_cond, &self->pads_lock);
  g_mutex_unlock (&self->pads_lock);
}

/* @sp's task pushes EOS after what it holds (no wait: the caller may be
 * the application's thread). */
static void
queue_eos_mark (gpointer key, gpointer value, gpointer data)
{
  SrcPad *sp = value;

  g_mutex_lock (&sp->lock);
  if (!sp->eos) {
    sp->eos = TRUE;
    g_queue_push_tail (&sp->queue, NULL);
    g_cond_broadcast (&sp->cond);
  }
  g_mutex_unlock (&sp->lock);
}

/* The application's EOS (gst-launch-1.0 -e on SIGINT sends it to every
 * source of the pipeline): GstElement's default handler looks for a sink
 * pad to send it on and drops it, so no member's pad would ever see EOS and
 * the pipeline would wait forever. Every pad ends after its queue; the
 * pads stay until the stop, and no new one appears. With no pad ever
 * added, nothing downstream can get the EOS: as a demuxer that meets EOS
 * before its first stream, the element posts an error, which ends the
 * pipeline. No pad appears after it either, which no-more-pads says: a
 * link by name to a member that never sent (gst-launch-1.0's
 * `src.src_3 ! ...`) then gets gst-launch's "Delayed linking failed"
 * warning instead of a silent wait for an EOS its sink cannot get. A pad
 * whose task has not added it yet is added first: the last such task posts
 * no-more-pads. */
static gboolean
gst_tpss_src_send_event (GstElement * element, GstEvent * event)
{
  GstTpssSrc *self = GST_TPSS_SRC (element);
  gboolean first, never_had_pad, post;

  if (GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
  gst_event_unref (event);
  g_mutex_lock (&self->pads_lock);
  first = self->running && !self->eos;
  never_had_pad = first && g_hash_table_size (self->pads) == 0 &&
      self->pads_removed == 0;
  self->eos = TRUE;
  g_hash_table_foreach (self->pads, queue_eos_mark, NULL);
  post = first && self->adding == 0;
  self->no_more_pads_due = first && self->adding > 0;
  g_mutex_unlock (&self->pads_lock);
  if (post)
    gst_element_no_more_pads (element);
  if (never_had_pad)
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("No member of the group sent media before the end of the stream"),
        ("EOS before any member's pad: nothing downstream can get it"));
  return TRUE;
}

static GstStateChangeReturn
gst_tpss_src_change_state (GstElement * element, GstStateChange transition)
{
  GstTpssSrc *self = GST_TPSS_SRC (element);
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
      gchar *group;
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
        GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
            ("Could not start the TPSS session: %s", err->message), (NULL));
        g_error_free (err);
        return GST_STATE_CHANGE_FAILURE;
      }
      GST_OBJECT_LOCK (self);
      group = g_strdup (self->sync_group);
      GST_OBJECT_UNLOCK (self);
      self->sync = shared_sync_acquire (group);
      g_free (group);
      g_mutex_lock (&self->pads_lock);
      self->running = TRUE;
      self->eos = FALSE;
      self->pads_removed = 0;
      self->unstamped = 0;
      self->no_more_pads_due = FALSE;
      g_mutex_unlock (&self->pads_lock);
      starter_start (self);
      gst_tpss_session_set_src (self->session, element, &src_callbacks);
      break;
    }
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      /* the bin set our base time just before this */
      GST_OBJECT_LOCK (self);
      self->playing = TRUE;
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      GST_OBJECT_LOCK (self);
      self->playing = FALSE;
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      gst_tpss_session_set_src (self->session, NULL, NULL);
      remove_all_pads (self);
      starter_stop (self);
      /* no delivery runs any more (running is FALSE) */
      if (self->sync)
        shared_sync_release (self->sync, self);
      self->sync = NULL;
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      ret = GST_STATE_CHANGE_NO_PREROLL;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
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
gst_tpss_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstTpssSrc *self = GST_TPSS_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CAPS:{
      const GstCaps *c = gst_value_get_caps (value);
      gst_caps_replace (&self->caps, NULL);
      if (c)
        self->caps = gst_caps_copy (c);
      GST_OBJECT_UNLOCK (self);
      return;
    }
    case PROP_MEDIA:
      g_free (self->media);
      self->media = g_value_dup_string (value);
      if (!self->media)
        self->media = g_strdup (DEFAULT_MEDIA);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_CLOCK_RATE:
      self->clock_rate = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_ENCODING_NAME:
      g_free (self->encoding_name);
      self->encoding_name = g_value_dup_string (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_PAYLOAD:
      self->payload = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_SYNC:
      self->sync_mode = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_LATENCY:
      self->latency = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_SYNC_GROUP:
      g_free (self->sync_group);
      self->sync_group = g_value_dup_string (value);
      GST_OBJECT_UNLOCK (self);
      return;
    case PROP_MAX_HOLD:
      self->max_hold = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      return;
    default:
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (!gst_tpss_element_set_session_property (GST_ELEMENT (self),
          &self->settings, &self->session, &self->started, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GstStructure *
get_stats (GstTpssSrc * self)
{
  GstStructure *s;
  guint64 queue_dropped = 0, pads_removed, unstamped;
  guint n_pads;
  GHashTableIter it;
  gpointer v;
  GValue sync = G_VALUE_INIT;

  /* Stopped (READY), the session's counters as it stopped: running false,
   * its BYE counted in bye-sent. */
  GST_OBJECT_LOCK (self);
  s = self->session ? gst_tpss_session_get_stats (self->session) :
      gst_structure_new_empty ("application/x-tpss-stats");
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->pads_lock);
  n_pads = g_hash_table_size (self->pads);
  pads_removed = self->pads_removed;
  unstamped = self->unstamped;
  g_value_init (&sync, GST_TYPE_LIST);
  g_hash_table_iter_init (&it, self->pads);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    SrcPad *sp = v;
    GValue ps = G_VALUE_INIT;

    queue_dropped += sp->dropped;
    g_value_init (&ps, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&ps, gst_structure_new ("tpss-sync",
            "id", G_TYPE_UINT, sp->member,
            "sr-stamped", G_TYPE_UINT64, sp->sr_stamped,
            "offset", G_TYPE_INT64, sp->sync_offset,
            "hold", G_TYPE_INT64, sp->sync_hold,
            "over-max-hold", G_TYPE_UINT64, sp->over_max_hold, NULL));
    gst_value_list_append_and_take_value (&sync, &ps);
  }
  g_mutex_unlock (&self->pads_lock);
  gst_structure_take_value (s, "sync", &sync);
  gst_structure_set (s, "pads", G_TYPE_UINT, n_pads,
      "pads-removed", G_TYPE_UINT64, pads_removed,
      "pad-queue-dropped", G_TYPE_UINT64, queue_dropped,
      "unstamped", G_TYPE_UINT64, unstamped, NULL);
  return s;
}

static void
gst_tpss_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstTpssSrc *self = GST_TPSS_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CAPS:
      gst_value_set_caps (value, self->caps);
      break;
    case PROP_MEDIA:
      g_value_set_string (value, self->media);
      break;
    case PROP_CLOCK_RATE:
      g_value_set_int (value, self->clock_rate);
      break;
    case PROP_ENCODING_NAME:
      g_value_set_string (value, self->encoding_name);
      break;
    case PROP_PAYLOAD:
      g_value_set_int (value, self->payload);
      break;
    case PROP_SYNC:
      g_value_set_enum (value, self->sync_mode);
      break;
    case PROP_LATENCY:
      g_value_set_uint (value, self->latency);
      break;
    case PROP_SYNC_GROUP:
      g_value_set_string (value, self->sync_group);
      break;
    case PROP_MAX_HOLD:
      g_value_set_uint (value, self->max_hold);
      break;
    default:
      if (!gst_tpss_settings_get_property (&self->settings, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tpss_src_finalize (GObject * object)
{
  GstTpssSrc *self = GST_TPSS_SRC (object);

  gst_tpss_settings_clear (&self->settings);
  gst_caps_replace (&self->caps, NULL);
  g_free (self->media);
  g_free (self->encoding_name);
  g_free (self->sync_group);
  g_hash_table_unref (self->pads);
  g_mutex_clear (&self->pads_lock);
  g_mutex_clear (&self->deliver_lock);
  g_cond_clear (&self->removed_cond);
  g_cond_clear (&self->start_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_tpss_src_class_init (GstTpssSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_tpss_src_set_property;
  gobject_class->get_property = gst_tpss_src_get_property;
  gobject_class->finalize = gst_tpss_src_finalize;
  element_class->change_state = gst_tpss_src_change_state;
  element_class->send_event = gst_tpss_src_send_event;

  gst_tpss_settings_install_properties (gobject_class);
  gst_tpss_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SRC);
  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps",
          "Caps of the output pads (an ssrc field is added per member); "
          "overrides media, clock-rate, encoding-name and payload",
          GST_TYPE_CAPS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MEDIA,
      g_param_spec_string ("media", "Media", "RTP media type of the output",
          DEFAULT_MEDIA, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CLOCK_RATE,
      g_param_spec_int ("clock-rate", "Clock rate",
          "RTP clock rate of the output (Hz)", 1, G_MAXINT,
          DEFAULT_CLOCK_RATE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ENCODING_NAME,
      g_param_spec_string ("encoding-name", "Encoding name",
          "RTP encoding name of the output (e.g. H264; NULL: not set)",
          DEFAULT_ENCODING_NAME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_PAYLOAD,
      g_param_spec_int ("payload", "Payload type",
          "RTP payload type in the output caps (-1: not set)", -1, 127,
          DEFAULT_PAYLOAD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SYNC,
      g_param_spec_enum ("sync", "Sync",
          "How buffers are timestamped: none (the running time of their "
          "arrival) or sender-reports (from each member's RTCP sender "
          "reports: its NTP time of the packet plus one offset per member, "
          "shared with the tpsssrc elements of the same sync-group; lip "
          "sync as rtpbin's)", GST_TYPE_TPSS_SYNC_MODE, DEFAULT_SYNC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_uint ("latency", "Latency",
          "With sync=sender-reports: how long sinks wait beyond the least "
          "delay for packets delayed more (jitter, FEC recovery); added to "
          "fec-size-time in the LATENCY query (ms)", 0, 60000,
          DEFAULT_LATENCY, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SYNC_GROUP,
      g_param_spec_string ("sync-group", "Sync group",
          "tpsssrc elements of this process with the same sync-group share "
          "one offset per member (e.g. a member's audio and video received "
          "in two sessions); NULL: this element's own. Read when the "
          "element starts", DEFAULT_SYNC_GROUP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MAX_HOLD,
      g_param_spec_uint ("max-hold", "Maximum hold",
          "With sync=sender-reports: the most a stream is held back to wait "
          "for its member's later stream; when that lags more, the stream "
          "is stamped on its own delay (no lip sync for it then), as "
          "rtpbin's max-ts-offset (ms)", 0, G_MAXUINT, DEFAULT_MAX_HOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstTpssSrc:stats:
   *
   * The session's counters (the same session as a tpsssink of this member)
   * and one structure per member; every field with its meaning and unit is
   * in the property's description.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Session and per-member counters (read-only GstStructure). "
          "Fields: " GST_TPSS_SESSION_STATS_DOC "; and of tpsssrc: "
          "pads: output pads now, one per sending member (pads); "
          "pads-removed: pads removed after their member left (pads); "
          "pad-queue-dropped: packets dropped because a member's branch did "
          "not keep up (packets); "
          "unstamped: buffers put out without a timestamp because they came "
          "before the element was PLAYING, when it has no running time "
          "(buffers); "
          "sync: a list with one structure per pad, whose fields are "
          "id: the member (number); "
          "sr-stamped: buffers stamped from its sender reports (buffers); "
          "offset: its offset, local running time less its NTP time "
          "(ns); "
          "hold: how much later than its own least delay this stream is "
          "stamped so that the member's later stream keeps up (ns); "
          "over-max-hold: buffers stamped on their own delay because the "
          "member's later stream lagged more than max-hold (buffers)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "TPSS group transport source", "Source/Network/RTP",
      "Receives the RTP streams of every member of a group (two-phase slow "
      "start, NQCP), one pad src_ID per member after parity recovery; asks a "
      "member for a key unit (PLI) when its stream starts and when a key "
      "unit is requested upstream on its pad. "
      "URI: tpss://ADDRESS:PORT?member-id=ID&members=ID@HOST:PORT,... (any "
      "property as a query parameter). Example, member 2 showing member 1: "
      "gst-launch-1.0 tpsssrc name=src port=5006 member-id=2 "
      "members=1@127.0.0.1:5004,2@127.0.0.1:5006 caps=\"application/x-rtp,"
      "media=video,clock-rate=90000,encoding-name=H264\" src.src_1 ! "
      "rtph264depay ! avdec_h264 ! videoconvert ! autovideosink",
      "gst-rtp-transports developers");

  GST_DEBUG_CATEGORY_INIT (gst_tpss_src_debug, "tpsssrc", 0,
      "TPSS group transport source");
}

static void
gst_tpss_src_init (GstTpssSrc * self)
{
  gst_tpss_settings_init (&self->settings);
  self->media = g_strdup (DEFAULT_MEDIA);
  self->clock_rate = DEFAULT_CLOCK_RATE;
  self->payload = DEFAULT_PAYLOAD;
  self->sync_mode = DEFAULT_SYNC;
  self->latency = DEFAULT_LATENCY;
  self->max_hold = DEFAULT_MAX_HOLD;
  g_mutex_init (&self->pads_lock);
  g_mutex_init (&self->deliver_lock);
  g_cond_init (&self->removed_cond);
  g_cond_init (&self->start_cond);
  g_queue_init (&self->jobs);
  self->pads = g_hash_table_new (NULL, NULL);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SOURCE);
}
