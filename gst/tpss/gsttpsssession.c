/* The member session shared by tpsssink and tpsssrc: the shell of the TPSS
 * group core (tpssgroup.h) on the runtime in gst/common
 * (docs/architecture.md, the shell contract).
 *
 * One session = one group member: one TpssGroup (the member table, source
 * checks, FEC per source and per destination, MQ, the protocol core), one
 * GstNetTransport on which RTP media, parity and RTCP control are
 * multiplexed (RFC 5761): a GstNetUdp of ours or of the application's
 * `socket`, or the application's `transport`; one member id (= the RTP SSRC
 * of its stream), and one GstNetLoop. Sessions are looked up by name in a
 * process table (the `session` property, default "tpss-<port>"),
 * refcounted, so a tpsssink and a tpsssrc of the same member share them;
 * either works alone.
 *
 * Threads and locks:
 * - `lock` guards the group core, the transport's use and the counters.
 * - The loop's thread hands every datagram to the core under `lock` and
 *   wakes the work function, which (under `lock`) runs the core's timeout,
 *   sends what it polls out and turns its events into actions; the actions
 *   (rates, delivered packets, members leaving, bus messages) run after
 *   `lock` is released, with a reference on the element taken under it.
 *   Every send happens in the loop's thread, but for the BYE of the last
 *   stop, sent once that thread has ended (send_bye).
 * - tpsssink's streaming thread takes `lock` only to enqueue into MQ.
 * - `start_lock` orders starts and stops: a start opens the transport and
 *   resolves the members holding it but not `lock`.
 * - `registry_lock` guards the name table and the refcounts; never taken
 *   with `lock` held. A property set takes it under the element's object
 *   lock (its reference on the session), so it never takes an object lock.
 * - `srtp.lock` guards the SRTP sessions of the media; taken last.
 *
 * SRTP (docs/security.md): media and parity leave protected after the core
 * stamped them, under a key per destination derived from the srtp-key
 * (one for the multicast group), because the core gives each destination
 * its own sequence numbers and parity under one SSRC: one key for all would
 * encrypt different packets with the same keystream. A member opens what
 * it receives under its own key (or the group's) before the core reads any
 * header.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpsssession.h"
#include "gstnetloop.h"
#include "gstnetsocket.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetsrtp.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (tpss_session_debug);
#define GST_CAT_DEFAULT tpss_session_debug

typedef enum
{
  ACT_DATA_RATE,
  ACT_MESSAGE,
  ACT_DELIVER,
  ACT_LEFT,
  ACT_KEY_UNIT,
  ACT_QUEUE_KEY_UNIT,
} ActType;

/* The derivation's label: the key of destination id D is derived with
 * (SRTP_LABEL, D), the multicast group's with (SRTP_LABEL, 0). */
#define SRTP_LABEL "TPSS SRTP destination"
#define SRTP_MAX_DATAGRAM 65536

typedef struct
{
  GMutex lock;
  gboolean on;                  /* start_lock: the key the session started
                                 * with, wiped at the last stop */
  GstNetSrtpKey master;
  GstNetSrtp *rx;               /* under this member's key */
  GstNetSrtp *rx_group;         /* multicast: under the group's key */
  GHashTable *tx;               /* destination id -> GstNetSrtp */
  GstNetSrtpStats last;         /* the counters when it stopped */
  guint8 *in;                   /* the loop's thread: a datagram opened */
} SessionSrtp;

typedef struct
{
  ActType type;
  guint32 member;
  guint64 rates[TPSS_MAX_LAYERS];       /* ACT_DATA_RATE: per layer */
  guint n_rates;
  gint64 rtt;                   /* ACT_KEY_UNIT: toward the requester, ns */
  gint64 queue_time;            /* ACT_QUEUE_KEY_UNIT: ns */
  TpssSenderReport sr;          /* ACT_DELIVER */
  GstStructure *msg;
  GstBufferList *list;
} Act;

struct _GstTpssSession
{
  gchar *name;
  gint refcount;                /* registry_lock */
  GstTpssSettings settings;     /* registry_lock until started, then fixed */

  GMutex start_lock;
  gint starts;                  /* start_lock */
  /* start_lock: the element that started the loop, named in its spin
   * warning; reffed, as it may stop before the last stop ends the loop */
  GstElement *loop_owner;
  /* Serializes the elements' applies of members and priorities, each of
   * which reads the element's newest values under it */
  GMutex apply_lock;
  gchar *applied_members;       /* apply_lock: the list in effect */
  gboolean have_key;            /* start_lock: the key the session started */
  AuthKey key;                  /* with, wiped at the last stop */
  SessionSrtp srtp;

  GMutex lock;
  gboolean running;
  GstNetLoop *loop;
  GstNetLoopCounts loop_counts;        /* taken by the work, kept at stop */
  GstNetTransport *transport;
  guint local_port;
  gboolean multicast;
  TpssAddr group;
  TpssGroup *core;
  guint32 id;
  TpssGroupStats last;          /* the core's counters when it stopped */
  gint send_errors;             /* atomic: sends happen with no lock held */
  GCond drained;
  GstTpssSinkCallbacks sink_cb;
  GstElement *sink;
  GstTpssSrcCallbacks src_cb;
  GstElement *src;

  GstNetStats stats;            /* the loop's thread only */
};

static GMutex registry_lock;
static GHashTable *registry;

GstTpssSession *
gst_tpss_session_acquire (GstElement * element, const GstTpssSettings * st,
    GError ** error)
{
  gchar *name = gst_tpss_settings_session_name (st);
  GstTpssSession *s;
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);

  if (g_once_init_enter (&registry)) {
    GST_DEBUG_CATEGORY_INIT (tpss_session_debug, "tpsssession", 0,
        "TPSS member session");
    g_once_init_leave (&registry, g_hash_table_new (g_str_hash, g_str_equal));
  }
  if (!gst_tpss_parse_members (st->members, NULL, error) ||
      !gst_tpss_parse_priorities (st->priorities, NULL, error)) {
    g_free (name);
    return NULL;
  }

  g_mutex_lock (&registry_lock);
  s = g_hash_table_lookup (registry, name);
  if (s) {
    s->refcount++;
    g_free (name);
    if (!s->running)
      gst_tpss_settings_merge (&s->settings, st, klass);
  } else {
    s = g_new0 (GstTpssSession, 1);
    s->name = name;
    s->refcount = 1;
    gst_tpss_settings_copy (&s->settings, st);
    g_mutex_init (&s->start_lock);
    g_mutex_init (&s->apply_lock);
    g_mutex_init (&s->lock);
    g_mutex_init (&s->srtp.lock);
    g_cond_init (&s->drained);
    g_hash_table_insert (registry, s->name, s);
    GST_DEBUG ("new session %s", s->name);
  }
  g_mutex_unlock (&registry_lock);
  return s;
}

void
gst_tpss_session_release (GstTpssSession * s)
{
  if (!s)
    return;
  g_mutex_lock (&registry_lock);
  if (--s->refcount > 0) {
    g_mutex_unlock (&registry_lock);
    return;
  }
  g_hash_table_remove (registry, s->name);
  g_mutex_unlock (&registry_lock);

  g_warn_if_fail (s->starts == 0);
  gst_tpss_settings_clear (&s->settings);
  g_mutex_clear (&s->start_lock);
  g_mutex_clear (&s->apply_lock);
  g_free (s->applied_members);
  g_mutex_clear (&s->lock);
  g_mutex_clear (&s->srtp.lock);
  g_cond_clear (&s->drained);
  g_free (s->name);
  g_free (s);
}

gboolean
gst_tpss_element_acquire_session (GstElement * element,
    GstTpssSession ** session, const GstTpssSettings * s, GError ** error)
{
  GstTpssSession *acquired = gst_tpss_session_acquire (element, s, error);

  GST_OBJECT_LOCK (element);
  *session = acquired;
  GST_OBJECT_UNLOCK (element);
  return acquired != NULL;
}

void
gst_tpss_element_release_session (GstElement * element,
    GstTpssSession ** session)
{
  GstTpssSession *released;

  GST_OBJECT_LOCK (element);
  released = *session;
  *session = NULL;
  GST_OBJECT_UNLOCK (element);
  gst_tpss_session_release (released);
}

/* ------------------------------------------------------------------ */
/* Members */

static void
member_specs_free (GArray * specs)
{
  for (guint i = 0; i < specs->len; i++)
    g_free (g_array_index (specs, GstTpssMemberSpec, i).host);
  g_array_free (specs, TRUE);
}

/* Parses and resolves a `members` list into TpssGroupPeers (the hosts of
 * names resolve here: call holding no lock). */
static GArray *
resolve_members (const gchar * str, GError ** error)
{
  GArray *specs = g_array_new (FALSE, TRUE, sizeof (GstTpssMemberSpec));
  GArray *peers = g_array_new (FALSE, TRUE, sizeof (TpssGroupPeer));
  gboolean ok = gst_tpss_parse_members (str, specs, error);

  for (guint i = 0; ok && i < specs->len; i++) {
    GstTpssMemberSpec *ms = &g_array_index (specs, GstTpssMemberSpec, i);
    TpssGroupPeer p = { ms->id, };
    GSocketAddress *sa = NULL;
    GError *err = NULL;

    if (ms->host && !(sa = gst_net_resolve ("host", ms->host, ms->port, NULL,
                &err))) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "member \"%u@%s:%u\": cannot resolve the host: %s", ms->id,
          ms->host, ms->port, err->message);
      g_error_free (err);
      ok = FALSE;
    }
    if (sa)
      gst_tpss_addr_from_socket_address (sa, &p.addr);
    g_clear_object (&sa);
    g_array_append_val (peers, p);
  }
  member_specs_free (specs);
  if (!ok)
    g_clear_pointer (&peers, g_array_unref);
  return peers;
}

/* Hands resolved @peers to the group core. With `lock`. */
static gboolean
apply_members (GstTpssSession * s, GArray * peers, gint64 now,
    GError ** error)
{
  guint others = 0;

  for (guint i = 0; i < peers->len; i++)
    others += g_array_index (peers, TpssGroupPeer, i).id != s->id;
  if (others > TPSS_MAX_MEMBERS - 1) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "too many members: %u besides this one (%u), a group has at most %u "
        "(this member included)", others, s->id, TPSS_MAX_MEMBERS);
    return FALSE;
  }
  tpss_group_set_members (s->core, (TpssGroupPeer *) peers->data, peers->len,
      now);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The loop */

/* Sends what the group core has to send. With `lock`, in the loop. */
/* Moves what the group core has to send to @out. With `lock`. */
static void
take_transmits (GstTpssSession * s, GQueue * out)
{
  TpssTransmit t;

  while (tpss_group_poll_transmit (s->core, &t))
    g_queue_push_tail (out, g_memdup2 (&t, sizeof (t)));
}

/* The outgoing session toward destination @member (made on first use).
 * With `srtp.lock`. */
static GstNetSrtp *
srtp_tx_for (GstTpssSession * s, guint32 member)
{
  GstNetSrtp *tx = g_hash_table_lookup (s->srtp.tx, GUINT_TO_POINTER (member));
  GstNetSrtpKey k;
  GError *err = NULL;

  if (tx)
    return tx;
  gst_net_srtp_key_derive (&s->srtp.master, SRTP_LABEL, member, &k);
  tx = gst_net_srtp_new_from_key (&k, GST_NET_SRTP_SEND, &err);
  gst_net_key_wipe (&k, sizeof (k));
  if (!tx) {
    GST_WARNING ("SRTP toward %u: %s", member, err->message);
    g_error_free (err);
    return NULL;
  }
  g_hash_table_insert (s->srtp.tx, GUINT_TO_POINTER (member), tx);
  GST_DEBUG ("session %s: SRTP toward destination %u", s->name, member);
  return tx;
}

/* Media and parity to @member as SRTP: a new packet (free it) in *@data
 * and *@len, or NULL: RTCP and everything without SRTP go as they are
 * (*@data unchanged); a refused packet makes *@data NULL. */
static guint8 *
srtp_protect (GstTpssSession * s, guint32 member, const guint8 ** data,
    gsize * len)
{
  GstNetSrtp *tx;
  guint8 *out = NULL;

  if (!s->srtp.on || gst_net_srtp_is_rtcp (*data, *len))
    return NULL;
  g_mutex_lock (&s->srtp.lock);
  tx = s->srtp.tx ? srtp_tx_for (s, member) : NULL;
  if (tx) {
    out = g_malloc (*len + GST_NET_SRTP_MAX_OVERHEAD);
    memcpy (out, *data, *len);
    *len = gst_net_srtp_protect (tx, out, *len,
        *len + GST_NET_SRTP_MAX_OVERHEAD);
    if (*len == 0)
      g_clear_pointer (&out, g_free);
  }
  g_mutex_unlock (&s->srtp.lock);
  *data = out;
  return out;
}

/* Sends what take_transmits() took, holding no lock: the transport is
 * there as long as the loop runs, and sends never block. */
static void
send_transmits (GstTpssSession * s, GQueue * q)
{
  TpssTransmit *t;

  while ((t = g_queue_pop_head (q))) {
    GSocketAddress *to = gst_tpss_addr_to_socket_address (&t->to);
    gsize len;
    const guint8 *data = g_bytes_get_data (t->data, &len);
    guint8 *sealed = srtp_protect (s, t->member, &data, &len);
    GError *err = NULL;

    /* no data: SRTP refused it and counted it */
    if (data && (!to || !gst_net_transport_send_to (s->transport, data, len,
                to, &err))) {
      g_atomic_int_inc (&s->send_errors);
      GST_LOG ("send: %s", err ? err->message : "no address");
      g_clear_error (&err);
    }
    g_clear_object (&to);
    g_free (sealed);
    g_bytes_unref (t->data);
    g_free (t);
  }
}

static Act *
act_add (GQueue * acts, ActType type, guint32 member)
{
  Act *a = g_new0 (Act, 1);

  a->type = type;
  a->member = member;
  g_queue_push_tail (acts, a);
  return a;
}

static void
act_message (GQueue * acts, GstStructure * st)
{
  act_add (acts, ACT_MESSAGE, 0)->msg = st;
}

static GstBufferList *
buffer_list_from_packets (GPtrArray * packets)
{
  GstBufferList *list = gst_buffer_list_new_sized (packets->len);

  for (guint i = 0; i < packets->len; i++)
    gst_buffer_list_add (list,
        gst_buffer_new_wrapped_bytes (g_ptr_array_index (packets, i)));
  return list;
}

/* Turns the group core's events into what reaches the elements once `lock`
 * is released. With `lock`. */
static void
collect_events (GstTpssSession * s, GQueue * acts)
{
  TpssGroupEvent ev;

  while (tpss_group_poll_event (s->core, &ev)) {
    switch (ev.type) {
      case TPSS_GROUP_EVENT_DATA_RATE:{
        Act *a = act_add (acts, ACT_DATA_RATE, 0);
        a->n_rates = ev.n_rates;
        memcpy (a->rates, ev.rates, sizeof (a->rates));
        break;
      }
      case TPSS_GROUP_EVENT_PHASE:
        act_message (acts, gst_structure_new ("tpss-phase",
                "member", G_TYPE_UINT, ev.member,
                "phase", G_TYPE_STRING, ev.phase == TPSS_PHASE_REDUNDANT ?
                "redundant" : "non-redundant",
                "distance", G_TYPE_UINT, ev.distance,
                "length", G_TYPE_UINT, ev.length, NULL));
        break;
      case TPSS_GROUP_EVENT_MEMBER_JOINED:
        act_message (acts, gst_structure_new ("tpss-member-joined",
                "member", G_TYPE_UINT, ev.member, NULL));
        break;
      case TPSS_GROUP_EVENT_MEMBER_LEFT:
        act_add (acts, ACT_LEFT, ev.member);
        act_message (acts, gst_structure_new ("tpss-member-left",
                "member", G_TYPE_UINT, ev.member, NULL));
        break;
      case TPSS_GROUP_EVENT_DELIVER:
      {
        Act *a = act_add (acts, ACT_DELIVER, ev.member);
        a->list = buffer_list_from_packets (ev.packets);
        a->sr = ev.sr;
        break;
      }
      case TPSS_GROUP_EVENT_KEY_UNIT:
        act_add (acts, ACT_KEY_UNIT, ev.member)->rtt = ev.rtt;
        break;
      case TPSS_GROUP_EVENT_QUEUE_KEY_UNIT:
        act_add (acts, ACT_QUEUE_KEY_UNIT, ev.member)->queue_time =
            ev.queue_time;
        break;
    }
    tpss_group_event_clear (&ev);
  }
}

/* The elements the actions go to, taken under `lock` with a reference. */
typedef struct
{
  GstElement *sink;
  GstTpssSinkCallbacks sink_cb;
  GstElement *src;
  GstTpssSrcCallbacks src_cb;
  gboolean stats_on_leave;      /* stats-interval set: a member that leaves
                                 * gets a `tpss-stats` message first */
} Targets;

static void
targets_take (GstTpssSession * s, Targets * t)
{
  t->sink = s->sink ? gst_object_ref (s->sink) : NULL;
  t->src = s->src ? gst_object_ref (s->src) : NULL;
  t->sink_cb = s->sink_cb;
  t->src_cb = s->src_cb;
  t->stats_on_leave = s->stats.interval > 0;
}

static void
targets_release (Targets * t)
{
  g_clear_object (&t->sink);
  g_clear_object (&t->src);
}

/* Runs the actions with no lock held. */
static void
dispatch (GQueue * acts, const Targets * t)
{
  GstElement *poster = t->sink ? t->sink : t->src;
  Act *a;

  while ((a = g_queue_pop_head (acts))) {
    switch (a->type) {
      case ACT_DATA_RATE:
        if (t->sink && t->sink_cb.data_rate)
          t->sink_cb.data_rate (t->sink, a->rates, a->n_rates);
        break;
      case ACT_MESSAGE:
        if (poster)
          gst_element_post_message (poster,
              gst_message_new_element (GST_OBJECT (poster), a->msg));
        else
          gst_structure_free (a->msg);
        break;
      case ACT_DELIVER:
        if (t->src && t->src_cb.deliver)
          t->src_cb.deliver (t->src, a->member, a->list, &a->sr);
        else
          gst_buffer_list_unref (a->list);
        break;
      case ACT_LEFT:
        /* Its last counters (left by BYE) reach the bus before its pad's
         * EOS, which may end the application (gst-launch) before the next
         * periodic message. */
        if (t->stats_on_leave && poster)
          gst_tpss_session_post_stats (poster);
        if (t->src && t->src_cb.member_left)
          t->src_cb.member_left (t->src, a->member);
        break;
      case ACT_KEY_UNIT:
        if (t->sink && t->sink_cb.key_unit)
          t->sink_cb.key_unit (t->sink, a->member, a->rtt);
        break;
      case ACT_QUEUE_KEY_UNIT:
        if (t->sink && t->sink_cb.queue_key_unit)
          t->sink_cb.queue_key_unit (t->sink, a->member, a->queue_time);
        break;
    }
    g_free (a);
  }
}

/* The element's `stats` (the session's fields and its own), for the
 * periodic `tpss-stats` message. */
static GstStructure *
element_stats (GstElement * element)
{
  GstStructure *st = NULL;

  g_object_get (element, "stats", &st, NULL);
  return st ? st : gst_structure_new_empty ("tpss-stats");
}

/* Posts @element's `tpss-stats` message now (at EOS). */
void
gst_tpss_session_post_stats (GstElement * element)
{
  GstNetStats stats;

  gst_net_stats_init (&stats, element, "tpss-stats", element_stats);
  gst_net_stats_post (&stats);
}

/* The loop's work: the core's timers, its datagrams out, its events to the
 * elements, the stats message; returns when to run again. */
static gint64
session_work (gpointer data, gint64 now)
{
  GstTpssSession *s = data;
  GQueue acts = G_QUEUE_INIT, out = G_QUEUE_INIT;
  TpssGroupStats st;
  Targets t;
  gint64 deadline;

  g_mutex_lock (&s->lock);
  gst_net_loop_counts_take (&s->loop_counts, s->loop);
  if (!s->core) {
    g_mutex_unlock (&s->lock);
    return G_MAXINT64;
  }
  tpss_group_handle_timeout (s->core, now);
  take_transmits (s, &out);
  collect_events (s, &acts);
  tpss_group_get_stats (s->core, &st);
  if (st.queued == 0)
    g_cond_broadcast (&s->drained);
  deadline = tpss_group_next_timeout (s->core);
  if (deadline < 0)
    deadline = G_MAXINT64;
  targets_take (s, &t);
  g_mutex_unlock (&s->lock);

  send_transmits (s, &out);
  dispatch (&acts, &t);
  s->stats.element = t.sink ? t.sink : t.src;
  if (s->stats.element)
    deadline = MIN (deadline, gst_net_stats_poll (&s->stats, now));
  s->stats.element = NULL;
  targets_release (&t);
  return deadline;
}

/* One datagram from the transport, in the loop's thread. */
static void
on_datagram (GstNetTransport * transport, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstTpssSession *s = user_data;
  GQueue out = G_QUEUE_INIT;
  TpssAddr addr;

  /* before the core reads a header: forged media stops here */
  if (s->srtp.on && !gst_net_srtp_is_rtcp (data, size) &&
      !(data = gst_net_srtp_unprotect_copy (s->srtp.rx, s->srtp.rx_group,
              data, &size, s->srtp.in, SRTP_MAX_DATAGRAM)))
    return;
  gst_tpss_addr_from_socket_address (from, &addr);
  g_mutex_lock (&s->lock);
  if (s->core) {
    tpss_group_handle_datagram_at (s->core, data, size, &addr, gst_net_now (),
        gst_net_transport_arrival (transport));
    take_transmits (s, &out);
    /* the work function delivers the events, once per batch read */
    gst_net_loop_wake (s->loop);
  }
  g_mutex_unlock (&s->lock);
  send_transmits (s, &out);
}

/* ------------------------------------------------------------------ */
/* Start and stop */

/* The application's transport, or a UDP one on its socket or ours. */
static GstNetTransport *
open_transport (const GstTpssSettings * st, GSocketFamily family,
    GError ** error)
{
  if (st->transport)
    return g_object_ref (st->transport);
  return (GstNetTransport *) gst_net_udp_new (&st->udp, family, error);
}

static guint32
random_u32 (gpointer unused)
{
  return g_random_int ();
}

/* The offset from gst_net_now () to NTP time in our sender reports, read
 * once per process: every session (a member's audio and video) then stamps
 * its SRs on one clock, the monotonic one, and the realtime clock only
 * gives its epoch. */
static gint64
process_ntp_offset (void)
{
  static gint64 offset;
  static gsize once;

  if (g_once_init_enter (&once)) {
    offset = gst_net_ntp_offset ();
    g_once_init_leave (&once, 1);
  }
  return offset;
}

static TpssGroup *
new_group_core (GstTpssSession * s, const GstTpssSettings * st, gint64 now)
{
  TpssGroupConfig cfg = st->params;
  GHashTable *prio = g_hash_table_new (NULL, NULL);
  TpssGroup *core;

  cfg.id = s->id;
  cfg.group = s->group;
  cfg.random = random_u32;
  cfg.random_data = NULL;
  cfg.ntp_offset = process_ntp_offset ();
  core = tpss_group_new (&cfg);
  gst_tpss_parse_priorities (st->priorities, prio, NULL);
  tpss_group_set_priorities (core, prio, now);
  return core;
}

/* Opens what a start needs before the core runs: the transport, the
 * members' addresses. Holding `start_lock` only. */
static gboolean
open_session (GstTpssSession * s, const GstTpssSettings * st,
    GstNetTransport ** transport, GArray ** peers, GError ** error)
{
  GInetAddress *addr = g_inet_address_new_from_string (st->udp.address);

  if (!addr) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "address \"%s\" is not an IP address", st->udp.address);
    return FALSE;
  }
  s->multicast = g_inet_address_get_is_multicast (addr);
  memset (&s->group, 0, sizeof (s->group));
  if (s->multicast) {
    GSocketAddress *sa = g_inet_socket_address_new (addr, st->udp.port);
    gst_tpss_addr_from_socket_address (sa, &s->group);
    g_object_unref (sa);
  }
  *transport = open_transport (st, g_inet_address_get_family (addr), error);
  g_object_unref (addr);
  if (!*transport)
    return FALSE;
  if (GST_IS_NET_UDP (*transport))
    s->local_port = gst_net_udp_get_port (GST_NET_UDP (*transport));
  else
    s->local_port = st->udp.port;
  *peers = resolve_members (st->members, error);
  if (!*peers) {
    g_clear_object (transport);
    return FALSE;
  }
  return TRUE;
}

/* With `start_lock`. */
static void
forget_key (GstTpssSession * s)
{
  gst_net_key_wipe (&s->key, sizeof (s->key));
  s->have_key = FALSE;
  gst_net_key_wipe (&s->srtp.master, sizeof (s->srtp.master));
  s->srtp.on = FALSE;
}

static GstNetSrtp *
srtp_rx_new (GstTpssSession * s, guint32 id, GError ** error)
{
  GstNetSrtpKey k;
  GstNetSrtp *rx;

  gst_net_srtp_key_derive (&s->srtp.master, SRTP_LABEL, id, &k);
  rx = gst_net_srtp_new_from_key (&k, GST_NET_SRTP_RECEIVE, error);
  gst_net_key_wipe (&k, sizeof (k));
  return rx;
}

/* The SRTP sessions of a started session, once its id is known: incoming
 * under this member's key (parity, layered media) and in multicast mode
 * the group's (the media sent once to the group); outgoing made per
 * destination as packets leave. */
static gboolean
srtp_open (GstTpssSession * s, GError ** error)
{
  if (!s->srtp.on)
    return TRUE;
  GST_DEBUG ("session %s: SRTP in under the key of %u%s", s->name, s->id,
      s->multicast ? " and the group's" : "");
  g_mutex_lock (&s->srtp.lock);
  s->srtp.rx = srtp_rx_new (s, s->id, error);
  if (s->srtp.rx && s->multicast)
    s->srtp.rx_group = srtp_rx_new (s, 0, error);
  s->srtp.tx = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) gst_net_srtp_free);
  s->srtp.in = g_malloc (SRTP_MAX_DATAGRAM);
  memset (&s->srtp.last, 0, sizeof (s->srtp.last));
  g_mutex_unlock (&s->srtp.lock);
  return s->srtp.rx && (!s->multicast || s->srtp.rx_group);
}

/* The counters of every SRTP session. With `srtp.lock`. */
static void
srtp_sum (GstTpssSession * s, GstNetSrtpStats * st)
{
  GHashTableIter it;
  gpointer tx;

  *st = s->srtp.last;
  if (s->srtp.rx)
    gst_net_srtp_add_stats (s->srtp.rx, st);
  if (s->srtp.rx_group)
    gst_net_srtp_add_stats (s->srtp.rx_group, st);
  if (!s->srtp.tx)
    return;
  g_hash_table_iter_init (&it, s->srtp.tx);
  while (g_hash_table_iter_next (&it, NULL, &tx))
    gst_net_srtp_add_stats (tx, st);
}

/* Once nothing sends or receives any more: keeps the counters. */
static void
srtp_close (GstTpssSession * s)
{
  g_mutex_lock (&s->srtp.lock);
  srtp_sum (s, &s->srtp.last);
  g_clear_pointer (&s->srtp.rx, gst_net_srtp_free);
  g_clear_pointer (&s->srtp.rx_group, gst_net_srtp_free);
  g_clear_pointer (&s->srtp.tx, g_hash_table_unref);
  g_clear_pointer (&s->srtp.in, g_free);
  g_mutex_unlock (&s->srtp.lock);
}

/* Both elements of a session must have the same SRTP key (and profile) or
 * none. With `start_lock`. */
static gboolean
check_same_srtp (GstTpssSession * s, gboolean on, const GstNetSrtpKey * key,
    GError ** error)
{
  if (on == s->srtp.on && (!on || (key->profile == s->srtp.master.profile &&
              memcmp (key->bytes, s->srtp.master.bytes,
                  sizeof (key->bytes)) == 0)))
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "srtp-key: the tpsssink and tpsssrc of session \"%s\" must have the "
      "same SRTP key and profile or none", s->name);
  return FALSE;
}

/* A later start of a running session: the element's key must be the one
 * the session runs with (the sink and the src of a member share one core,
 * so they cannot seal or open under two keys). With `start_lock`. */
static gboolean
check_same_key (GstTpssSession * s, gboolean have_key, const AuthKey * key,
    GError ** error)
{
  if (have_key == s->have_key && (!have_key ||
          memcmp (key->bytes, s->key.bytes, AUTH_KEY_SIZE) == 0))
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "key: the tpsssink and tpsssrc of session \"%s\" must have the same "
      "key or none; this element's %s", s->name, !have_key ? "has none" :
      s->have_key ? "differs" : "is set and the running session has none");
  return FALSE;
}

gboolean
gst_tpss_session_start (GstTpssSession * s, GstElement * element,
    const GstTpssSettings * est, GError ** error)
{
  GstTpssSettings st = { 0, };
  GstNetTransport *transport = NULL;
  GstNetLoop *loop = NULL;
  GArray *peers = NULL;
  AuthKey key;
  GstNetSrtpKey srtp = { {0,}, 0 };
  gboolean have_key = FALSE, have_srtp = FALSE;
  gint64 now;
  gboolean ok;

  /* no lock held: the keys may be read from files */
  if (est && (!gst_net_key_load (&est->key, &key, &have_key, error) ||
          !gst_net_srtp_key_load (&est->srtp, &srtp, &have_srtp, error))) {
    gst_net_key_wipe (&key, sizeof (key));
    return FALSE;
  }
  g_mutex_lock (&s->start_lock);
  if (s->starts > 0) {
    ok = check_same_key (s, have_key, &key, error) &&
        check_same_srtp (s, have_srtp, &srtp, error);
    s->starts += ok;
    gst_net_key_wipe (&key, sizeof (key));
    gst_net_key_wipe (&srtp, sizeof (srtp));
    g_mutex_unlock (&s->start_lock);
    return ok;
  }
  s->starts++;
  s->have_key = have_key;
  if (have_key)
    s->key = key;
  gst_net_key_wipe (&key, sizeof (key));
  s->srtp.on = have_srtp;
  s->srtp.master = srtp;
  gst_net_key_wipe (&srtp, sizeof (srtp));
  g_mutex_lock (&registry_lock);
  if (est)
    gst_tpss_settings_merge (&s->settings, est, G_OBJECT_GET_CLASS (element));
  gst_tpss_settings_copy (&st, &s->settings);
  g_mutex_unlock (&registry_lock);

  ok = open_session (s, &st, &transport, &peers, error);
  if (ok) {
    now = gst_net_now ();
    loop = gst_net_loop_new ("tpss-session", session_work, s);
    gst_net_stats_init (&s->stats, NULL, "tpss-stats", element_stats);
    gst_net_stats_start (&s->stats, (gint64) st.stats_interval, now);
    g_mutex_lock (&s->lock);
    s->id = st.member_id;
    while (s->id == 0)
      s->id = g_random_int ();
    s->core = new_group_core (s, &st, now);
    if (s->have_key)
      tpss_group_set_key (s->core, &s->key);
    tpss_group_set_receiving (s->core, s->src != NULL);
    ok = srtp_open (s, error) && apply_members (s, peers, now, error);
    if (ok) {
      tpss_group_start (s->core, now);
      s->transport = transport;
      g_atomic_int_set (&s->send_errors, 0);
      gst_net_loop_counts_clear (&s->loop_counts);
      s->running = TRUE;
      s->loop = loop;
    } else {
      g_clear_pointer (&s->core, tpss_group_free);
    }
    g_mutex_unlock (&s->lock);
    if (!ok)
      srtp_close (s);
  }
  if (ok) {
    g_mutex_lock (&s->apply_lock);
    g_free (s->applied_members);
    s->applied_members = g_strdup (st.members);
    g_mutex_unlock (&s->apply_lock);
    s->loop_owner = gst_object_ref (element);
    gst_net_loop_set_owner (loop, GST_OBJECT (element));
    gst_net_loop_keep_counts (loop, &s->loop_counts, &s->lock);
    gst_net_loop_attach (loop, transport, on_datagram, s);
    gst_net_loop_start (loop);
    GST_INFO ("session %s: member %u on port %u%s", s->name, s->id,
        s->local_port, s->multicast ? " (multicast)" : "");
  } else {
    s->starts--;
    forget_key (s);
    g_clear_object (&transport);
    g_clear_pointer (&loop, gst_net_loop_free);
  }
  g_clear_pointer (&peers, g_array_unref);
  gst_tpss_settings_clear (&st);
  g_mutex_unlock (&s->start_lock);
  return ok;
}

/* The last stop: the core's BYE goes to every member before the transport
 * closes, so that they drop this member at once instead of after
 * member-timeout. Sent from the stopping thread once the loop's thread has
 * ended; sends never block (a full socket buffer loses the BYE: the others
 * then fall back on member-timeout). With `lock`. */
static void
send_bye (GstTpssSession * s)
{
  GQueue out = G_QUEUE_INIT;

  tpss_group_leave (s->core, gst_net_now ());
  take_transmits (s, &out);
  send_transmits (s, &out);
}

void
gst_tpss_session_stop (GstTpssSession * s)
{
  GstNetLoop *loop;
  GstElement *owner;

  g_mutex_lock (&s->start_lock);
  if (s->starts == 0 || --s->starts > 0) {
    g_mutex_unlock (&s->start_lock);
    return;
  }
  g_mutex_lock (&s->lock);
  s->running = FALSE;
  loop = s->loop;
  g_cond_broadcast (&s->drained);
  g_mutex_unlock (&s->lock);

  /* after this, no callback of the loop runs */
  gst_net_loop_stop (loop);
  gst_net_transport_detach (s->transport);

  g_mutex_lock (&s->lock);
  s->loop = NULL;
  send_bye (s);
  g_clear_object (&s->transport);
  tpss_group_get_stats (s->core, &s->last);
  s->last.queued = 0;
  g_clear_pointer (&s->core, tpss_group_free);
  g_mutex_unlock (&s->lock);
  srtp_close (s);
  forget_key (s);
  gst_net_loop_free (loop);
  owner = g_steal_pointer (&s->loop_owner);
  g_mutex_unlock (&s->start_lock);
  /* may be its last reference: no session lock held */
  gst_object_unref (owner);
}

void
gst_tpss_session_set_sink (GstTpssSession * s, GstElement * sink,
    const GstTpssSinkCallbacks * cb)
{
  g_mutex_lock (&s->lock);
  s->sink = sink;
  if (cb)
    s->sink_cb = *cb;
  else
    memset (&s->sink_cb, 0, sizeof (s->sink_cb));
  if (s->loop)
    gst_net_loop_wake (s->loop);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_src (GstTpssSession * s, GstElement * src,
    const GstTpssSrcCallbacks * cb)
{
  g_mutex_lock (&s->lock);
  s->src = src;
  if (cb)
    s->src_cb = *cb;
  else
    memset (&s->src_cb, 0, sizeof (s->src_cb));
  /* A new src starts every stream anew: each gets a PLI with its next
   * packet. */
  if (s->core)
    tpss_group_set_receiving (s->core, src != NULL);
  if (s->loop)
    gst_net_loop_wake (s->loop);
  g_mutex_unlock (&s->lock);
}

gboolean
gst_tpss_session_send (GstTpssSession * s, GstBuffer * buffer, guint layer,
    guint n_layers, const TpssKeyUnit * key, gint64 capture,
    guint clock_rate)
{
  gboolean ok = FALSE;
  gint64 now = gst_net_now ();
  TpssGroupStats st;
  GstMapInfo map;

  g_mutex_lock (&s->lock);
  if (!s->core) {
    s->last.queue_dropped++;
  } else if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_atomic_int_inc (&s->send_errors);
  } else {
    tpss_group_get_stats (s->core, &st);
    if (capture >= 0 && map.size >= 8)
      tpss_group_set_media_clock (s->core, GST_READ_UINT32_BE (map.data + 4),
          capture, clock_rate);
    ok = tpss_group_enqueue_media (s->core, map.data, map.size, layer,
        n_layers, key, now);
    gst_buffer_unmap (buffer, &map);
    /* The loop recomputes its deadline: a packet entering an empty MQ
     * (or its QOS announcement) needs it. */
    if (ok && (st.queued == 0 || s->settings.params.cfg.holding_time == 0 ||
            s->settings.params.cfg.control == TPSS_CONTROL_FEEDBACK))
      gst_net_loop_wake (s->loop);
  }
  g_mutex_unlock (&s->lock);
  gst_buffer_unref (buffer);
  return ok;
}

void
gst_tpss_session_set_max_queue_age (GstTpssSession * s, gint64 age)
{
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_max_queue_age (s->core, age);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_parity_age_from_media (GstTpssSession * s,
    gboolean from_media)
{
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_parity_age_from_media (s->core, from_media);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_parity_max_backlog (GstTpssSession * s, gint64 backlog)
{
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_parity_max_backlog (s->core, backlog);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_parity_by_share (GstTpssSession * s, gboolean by_share)
{
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_parity_by_share (s->core, by_share);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_queue_bound (GstTpssSession * s, gint64 bound)
{
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_queue_bound (s->core, bound);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_drain (GstTpssSession * s, gint64 timeout)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;
  TpssGroupStats st;

  g_mutex_lock (&s->lock);
  while (s->running) {
    tpss_group_get_stats (s->core, &st);
    if (st.queued == 0 || !g_cond_wait_until (&s->drained, &s->lock, end))
      break;
  }
  g_mutex_unlock (&s->lock);
}

gboolean
gst_tpss_session_set_members (GstTpssSession * s, const gchar * members,
    GError ** error)
{
  GArray *peers = resolve_members (members, error);
  gboolean ok;

  if (!peers)
    return FALSE;
  g_mutex_lock (&s->lock);
  ok = !s->core || apply_members (s, peers, gst_net_now (), error);
  if (s->loop)
    gst_net_loop_wake (s->loop);
  g_mutex_unlock (&s->lock);
  g_array_unref (peers);
  return ok;
}

gboolean
gst_tpss_session_set_priorities (GstTpssSession * s, const gchar * prio,
    GError ** error)
{
  GHashTable *t = g_hash_table_new (NULL, NULL);

  if (!gst_tpss_parse_priorities (prio, t, error)) {
    g_hash_table_unref (t);
    return FALSE;
  }
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_priorities (s->core, g_steal_pointer (&t), gst_net_now ());
  g_mutex_unlock (&s->lock);
  g_clear_pointer (&t, g_hash_table_unref);
  return TRUE;
}

gboolean
gst_tpss_session_request_key_unit (GstTpssSession * s, guint32 member)
{
  gboolean sent = FALSE;

  g_mutex_lock (&s->lock);
  if (s->core) {
    /* the PLI leaves from the loop, as everything does */
    sent = tpss_group_request_key_unit (s->core, member);
    gst_net_loop_wake (s->loop);
  }
  g_mutex_unlock (&s->lock);
  return sent;
}

guint32
gst_tpss_session_get_member_id (GstTpssSession * s)
{
  guint32 id;

  g_mutex_lock (&s->lock);
  id = s->id;
  g_mutex_unlock (&s->lock);
  return id;
}

guint
gst_tpss_session_get_port (GstTpssSession * s)
{
  guint port;

  g_mutex_lock (&s->lock);
  port = s->local_port;
  g_mutex_unlock (&s->lock);
  return port;
}

GstStructure *
gst_tpss_session_get_stats (GstTpssSession * s)
{
  TpssGroupStats gs;
  GArray *members = NULL;
  guint32 id;
  guint port;
  gboolean running;
  guint64 send_errors;
  GstNetLoopCounts loop_counts;
  GstNetSrtpStats srtp;
  GstStructure *st;

  g_mutex_lock (&s->lock);
  gs = s->last;
  if (s->core) {
    tpss_group_get_stats (s->core, &gs);
    members = tpss_group_get_member_stats (s->core);
  }
  id = s->id;
  port = s->local_port;
  running = s->running;
  send_errors = (guint) g_atomic_int_get (&s->send_errors);
  loop_counts = s->loop_counts;
  g_mutex_unlock (&s->lock);

  st = gst_tpss_stats_structure (id, port, running, send_errors, &gs, members);
  gst_net_loop_counts_add_stats (&loop_counts, st);
  g_mutex_lock (&s->srtp.lock);
  srtp_sum (s, &srtp);
  g_mutex_unlock (&s->srtp.lock);
  gst_net_srtp_stats_fields (st, s->srtp.on, &srtp);
  if (members)
    g_array_free (members, TRUE);
  return st;
}

/* A reference on a live session, taken under the element's object lock
 * (which READY->NULL clears the pointer under): the session outlives the
 * apply whatever state change runs meanwhile. Not the object lock across the
 * apply, as it resolves names. Released with gst_tpss_session_release(). */
static GstTpssSession *
session_ref (GstTpssSession * s)
{
  g_mutex_lock (&registry_lock);
  s->refcount++;
  g_mutex_unlock (&registry_lock);
  return s;
}

/* Applies @element's newest @members list to @s, with @s's apply_lock held
 * and the list read under it. A refused list gives the element back the
 * list in effect (unless a newer one replaced it) and returns the error,
 * which the caller posts with no lock held. */
static GError *
apply_members_locked (GstElement * element, GstTpssSettings * settings,
    GstTpssSession * s, const gchar * members)
{
  GError *err = NULL;

  if (gst_tpss_session_set_members (s, members, &err)) {
    g_free (s->applied_members);
    s->applied_members = g_strdup (members);
    return NULL;
  }
  GST_OBJECT_LOCK (element);
  if (g_strcmp0 (settings->members, members) == 0) {
    g_free (settings->members);
    settings->members = g_strdup (s->applied_members);
  }
  GST_OBJECT_UNLOCK (element);
  return err;
}

/* Applies @element's members (@members) and/or priorities (@priorities) to
 * its running session @s, the values as they are now, skipping those equal
 * to @in_effect's (may be NULL). Every apply reads the values under @s's
 * apply_lock, so whichever runs last carries the newest: a set racing the
 * start's apply can no longer leave an older value in the session. */
static void
apply_newest (GstElement * element, GstTpssSettings * settings,
    GstTpssSession * s, gboolean members, gboolean priorities,
    const GstTpssSettings * in_effect)
{
  gchar *m = NULL, *p = NULL;
  GError *refused = NULL;

  g_mutex_lock (&s->apply_lock);
  GST_OBJECT_LOCK (element);
  if (members && (!in_effect ||
          g_strcmp0 (settings->members, in_effect->members) != 0))
    m = g_strdup (settings->members);
  if (priorities && (!in_effect ||
          g_strcmp0 (settings->priorities, in_effect->priorities) != 0))
    p = g_strdup (settings->priorities);
  GST_OBJECT_UNLOCK (element);
  if (m)
    refused = apply_members_locked (element, settings, s, m);
  /* an unparsable list was warned about by its own set */
  if (p && gst_tpss_parse_priorities (p, NULL, NULL))
    gst_tpss_session_set_priorities (s, p, NULL);
  g_mutex_unlock (&s->apply_lock);

  if (refused) {
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
        ("%s; the members stay as they were", refused->message), (NULL));
    g_error_free (refused);
  }
  g_free (m);
  g_free (p);
}

static void
warn_unparsable (GstElement * element, GError * err)
{
  GST_WARNING_OBJECT (element, "%s (the state change will fail)",
      err->message);
  g_error_free (err);
}

/* Sets a session property of @element (tpsssink or tpsssrc) under its
 * object lock and applies it to its running session: a refused member list
 * keeps the old one; other bad lists fail the next state change. */
gboolean
gst_tpss_element_set_session_property (GstElement * element,
    GstTpssSettings * settings, GstTpssSession ** session,
    const gboolean * started, guint prop_id, const GValue * value)
{
  gchar *members = NULL, *prio = NULL;
  GstTpssSession *live;
  GError *err = NULL;

  GST_OBJECT_LOCK (element);
  if (!gst_tpss_settings_set_property (settings, prop_id, value)) {
    GST_OBJECT_UNLOCK (element);
    return FALSE;
  }
  live = *started ? session_ref (*session) : NULL;
  if (prop_id == GST_TPSS_PROP_MEMBERS || prop_id == GST_TPSS_PROP_MEMBER_LIST)
    members = g_strdup (settings->members);
  if (prop_id == GST_TPSS_PROP_PRIORITIES)
    prio = g_strdup (settings->priorities);
  GST_OBJECT_UNLOCK (element);

  if (members && !live && !gst_tpss_parse_members (members, NULL, &err))
    warn_unparsable (element, err);
  if (prio && !gst_tpss_parse_priorities (prio, NULL, &err))
    warn_unparsable (element, err);
  if (live && (members || prio))
    apply_newest (element, settings, live, members != NULL, prio != NULL,
        NULL);
  gst_tpss_session_release (live);
  g_free (members);
  g_free (prio);
  return TRUE;
}

void
gst_tpss_element_session_started (GstElement * element,
    GstTpssSettings * settings, GstTpssSession * session, gboolean * started,
    const GstTpssSettings * st)
{
  GST_OBJECT_LOCK (element);
  *started = TRUE;
  GST_OBJECT_UNLOCK (element);

  /* No reference: only this element's own state changes release it. What
   * was set since @st was copied, which the start missed; a set from now
   * on applies itself. */
  apply_newest (element, settings, session, TRUE, TRUE, st);
}

void
gst_tpss_element_session_stopping (GstElement * element, gboolean * started)
{
  GST_OBJECT_LOCK (element);
  *started = FALSE;
  GST_OBJECT_UNLOCK (element);
}
