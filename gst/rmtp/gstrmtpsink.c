/**
 * SECTION:element-rmtpsink
 * @title: rmtpsink
 * @see_also: rmtpsrc
 *
 * The server of RMTP, reliable multicast delivery of a whole data set
 * (Shiroshita et al., "Performance evaluation of reliable multicast
 * transport protocol for large-scale delivery", 1996;
 * docs/protocols/rmtp.md). The sink takes the data set as a byte stream
 * until EOS (a file, say), then delivers it to every member of a fixed
 * member list: a CONN multicast with the list and the data set's SHA-256,
 * multicast rounds with selective repeat driven by one NACK or ACK per
 * receiver and round (spread by backoff), POLLs of silent receivers,
 * unicast recovery of slow or BUSY receivers after the rounds (a receiver
 * whose losses stay far above the others' is detected as slow), and a
 * release. With #GstRmtpSink:repair=parity the rounds after the first send
 * Reed-Solomon parity rows over blocks, as many in each block as the worst
 * receiver lacks there, instead of the lost packets. The members are 1 .. #GstRmtpSink:receivers, or the ids of
 * #GstRmtpSink:members; each rmtpsrc names its own with its `member`
 * property. A member's address is the one its CACK came from.
 *
 * The pipeline gets its EOS only when the transfer is over: every member
 * complete, or given up. Each round's end is posted as an element message
 * `rmtp-progress` (bytes, round, receivers-complete), the outcome as
 * `rmtp-done` (receivers-complete, receivers-failed, seconds), so
 * `gst-launch-1.0 -m` shows the progress; the counters are in
 * #GstRmtpSink:stats, also posted as `rmtp-sink-stats` every
 * #GstRmtpSink:stats-interval. When no member completes, the sink posts an
 * error instead of the EOS. Every constant of the protocol is a property
 * with the paper's (or our) value as default.
 *
 * With a group key (#GstRmtpSink:key or #GstRmtpSink:key-file, the same on
 * every rmtpsrc of the session), every control packet both ways carries a
 * trailer that authenticates it and makes it fresh; packets that fail are
 * dropped and counted in the auth-* stats (docs/security.md). DATA and
 * PARITY are not sealed: the data set's SHA-256 in the sealed CONN is what
 * the receivers check it against.
 *
 * With #GstRmtpSink:window-size set (streaming mode), the sink does not
 * wait for EOS: it sends the stream in windows of that many bytes as it
 * comes, each window a data set of its own whose CONN carries its place in
 * the stream, and holds at most two windows (the one in flight and the one
 * filling); upstream blocks while they are full. A window goes out once
 * every member still in the stream has ACKed the one before. A member
 * that fails a window, or holds it back as slow or BUSY (it finishes that
 * window by unicast), is dropped from the stream and posted as
 * `rmtp-receiver-dropped` (member, window, reason). rmtpsrc outputs each
 * window as soon as it is verified.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m filesrc location=recording.mkv ! \
 *   rmtpsink uri="rmtp://239.2.2.2:6000?receivers=4"
 * ]| delivers recording.mkv to the four rmtpsrc of members 1 .. 4.
 * |[
 * gst-launch-1.0 -m filesrc location=archive.tar ! \
 *   rmtpsink uri="rmtp://239.2.2.2:6000?receivers=4&window-size=16777216"
 * ]| streams archive.tar, however large, in 16 MiB windows.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstrmtpsink.h"
#include "gstrmtputil.h"
#include "gstnetkey.h"
#include "rmtpdigest.h"
#include "rmtpstream.h"
#include "gstnetloop.h"
#include "gstnetsrc.h"
#include "gstnetsocket.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstneturi.h"
#include "core/random.h"

GST_DEBUG_CATEGORY_STATIC (gst_rmtp_sink_debug);
#define GST_CAT_DEFAULT gst_rmtp_sink_debug

#define DEFAULT_RECEIVERS 1
#define DEFAULT_RECV_BUFFER_SIZE 0
/* 1 ms: the sink woke once a packet (3,300 times a second at 40 Mbit/s
 * with 1400-byte packets); once a ms it takes a third of the wake-ups and
 * 0.73 x the CPU, in the same time (docs/results.md) */
#define DEFAULT_SEND_INTERVAL GST_MSECOND

/* recv-buffer-size 0: room for every member's answer in one burst (a
 * stall that makes the answers' backoff fall due together), twice over.
 * The kernel charges a datagram its allocation, not its payload: 768 to
 * 1280 bytes for a CACK, ACK or RACK and 1.3 KiB for a NACK of 64 ranges
 * on lo, more on NICs that give each frame a buffer of its own; 2 KiB
 * covers both. From the system's default (the floor) up to 64 MiB (10,000
 * members need 40 MiB). */
#define ANSWER_CHARGE 2048
#define ANSWER_MARGIN 2
#define RECV_BUFFER_MAX (64 << 20)

enum
{
  PROP_0,
  PROP_RECEIVERS,
  PROP_MEMBERS,
  PROP_SESSION,
  PROP_RECV_BUFFER_SIZE,
  PROP_SEND_INTERVAL,
  PROP_NET_SINK,                /* gstnetsrc.h's (stats, uri) from here */
  PROP_KEY = PROP_NET_SINK + GST_NET_SRC_N_PROPS,       /* gstnetkey.h's */
  PROP_SETTINGS = PROP_KEY + GST_NET_KEY_N_PROPS,       /* GstRmtpSettings' */
};

static const GstNetUdpProps udp_props = {
  .address_default = GST_RMTP_DEFAULT_ADDRESS,
  .port_min = 1,
  .port_default = GST_RMTP_DEFAULT_PORT,
  .address_blurb = "Multicast group the data set is sent to (IPv4 or IPv6 "
      "literal)",
  .port_blurb = "UDP port of the group",
  .ttl_mc_blurb = "TTL of the multicast packets, hops (-1: the system's)",
  .multicast_iface_blurb = "Network interface the group is sent on (NULL: "
      "the system's route)",
  .loop_blurb = "Multicast loopback: receivers on this host hear the group",
  .buffer_size_blurb = "Send and receive buffer of the socket, bytes (0: "
      "the system's)",
  .socket_blurb = "A UDP socket of the application's to send from and take "
      "the answers on, used as given (not bound, never closed)",
};

struct _GstRmtpSink
{
  GstBaseSink parent;

  /* Settings, under the object lock */
  GstRmtpSettings settings;
  GstNetSinkSettings net_sink;  /* uri_error */
  guint receivers;
  gchar *members;
  guint session;
  gint recv_buffer_size;        /* bytes, 0: from the members */
  guint64 send_interval;        /* ns between wake-ups to send, 0: none */
  GstNetKeySettings key;

  GstNetStats stats;
  GByteArray *data;             /* streaming thread: the data set so far */
  RmtpDigest *data_digest;      /* streaming thread: its SHA-256 so far,
                                 * so the CONN needs no pass of its own */

  /* State, under lock; cond: the transfer ended or a flush began */
  GMutex lock;
  GCond cond;
  gboolean flushing;
  GstNetLoop *loop;
  GstNetUdp *udp;
  GSocketAddress *group;
  guint32 *ids;
  guint n_ids;
  GHashTable *member_addr;      /* member id -> GSocketAddress of its CACK */
  GHashTable *addr_member;      /* "host:port" -> member id */
  RandomSeeded seed;
  RandomSource rng;
  RmtpServer *server;
  AuthKey auth_key;             /* loaded at start, set on the server;
                                 * wiped at stop */
  gboolean have_key;
  RmtpStreamServer *stream;     /* streaming mode (window-size > 0) */
  gint64 blocked;               /* ns upstream waited for room */
  gboolean finished;
  RmtpEvent outcome;            /* DONE or FAILED, once finished */
  GArray *progress;             /* RmtpEvent: to post */
  guint64 total;
  gint64 started, ended;
  guint64 send_errors, unknown_unicast, before_start;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  GstStructure *final_stats;    /* the stats as the last stop left them */
  gint recv_buffer;             /* the socket's, as SO_RCVBUF reports it */
  gint64 wake_interval;         /* send-interval, taken at start */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_rmtp_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRmtpSink, gst_rmtp_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rmtpsink, "rmtpsink", GST_RANK_NONE,
    GST_TYPE_RMTP_SINK);

/* ------------------------------------------------------------------ */
/* Members and their addresses */

/* The member list: the ids of @members ("3,7,12"), else 1 .. @receivers. */
static guint32 *
parse_members (const gchar * members, guint receivers, guint * n,
    GError ** error)
{
  gchar **list;
  guint32 *ids;
  GHashTable *seen;
  guint i;

  if (!members || !*members) {
    ids = g_new (guint32, receivers);
    for (i = 0; i < receivers; i++)
      ids[i] = i + 1;
    *n = receivers;
    return ids;
  }
  list = g_strsplit (members, ",", -1);
  *n = g_strv_length (list);
  ids = g_new0 (guint32, MAX (*n, 1));
  seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (i = 0; i < *n; i++) {
    gchar *end;
    guint64 v = g_ascii_strtoull (g_strstrip (list[i]), &end, 10);

    if (!*list[i] || *end || v == 0 || v > G_MAXUINT32 ||
        g_hash_table_contains (seen, GUINT_TO_POINTER ((guint32) v)))
      break;
    ids[i] = (guint32) v;
    g_hash_table_add (seen, GUINT_TO_POINTER (ids[i]));
  }
  if (i < *n || *n > RMTP_MAX_MEMBERS)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "members: \"%s\" is not a list of at most %u distinct ids 1..%u "
        "(bad entry %u)", members, RMTP_MAX_MEMBERS, G_MAXUINT32, i + 1);
  g_hash_table_unref (seen);
  g_strfreev (list);
  if (i < *n || *n > RMTP_MAX_MEMBERS)
    g_clear_pointer (&ids, g_free);
  return ids;
}

/* ------------------------------------------------------------------ */
/* The loop thread */

/* Gives the datagram to the server as from the member its source address
 * is bound to (0: none); the server binds a member to the source of its
 * first sound CACK. */
static void
take_datagram (GstRmtpSink * self, const guint8 * data, gsize size,
    GSocketAddress * from)
{
  gchar *key = gst_net_address_to_string (from);
  guint32 id = GPOINTER_TO_UINT (g_hash_table_lookup (self->addr_member,
          key));
  guint32 bound = self->stream ?
      rmtp_stream_server_handle (self->stream, id, data, size, gst_net_now ())
      : rmtp_server_handle (self->server, id, data, size, gst_net_now ());

  if (id != 0 || bound == 0) {
    g_free (key);
    return;
  }
  GST_DEBUG_OBJECT (self, "member %u is at %s", bound, key);
  g_hash_table_insert (self->member_addr, GUINT_TO_POINTER (bound),
      g_object_ref (from));
  g_hash_table_insert (self->addr_member, key, GUINT_TO_POINTER (bound));
}

static void
on_datagram (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstRmtpSink *self = user_data;

  g_mutex_lock (&self->lock);
  if (self->server || self->stream)
    take_datagram (self, data, size, from);
  else
    self->before_start++;
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
}

/* Where a datagram for @to goes: the group, or the member's address. A
 * CONN retry to a member never heard from goes to the group: it lists only
 * that member, so the others ignore it. */
static GSocketAddress *
destination (GstRmtpSink * self, guint32 to)
{
  GSocketAddress *a = NULL;

  if (to != RMTP_TO_GROUP)
    a = g_hash_table_lookup (self->member_addr, GUINT_TO_POINTER (to));
  if (to != RMTP_TO_GROUP && !a)
    self->unknown_unicast++;
  return a ? a : self->group;
}

static gboolean
poll_datagram (GstRmtpSink * self, gint64 now, RmtpDatagram * d)
{
  if (self->stream)
    return rmtp_stream_server_poll_datagram (self->stream, now, d);
  return rmtp_server_poll_datagram (self->server, now, d);
}

static gboolean
poll_event (GstRmtpSink * self, RmtpEvent * ev)
{
  if (self->stream)
    return rmtp_stream_server_poll_event (self->stream, ev);
  return rmtp_server_poll_event (self->server, ev);
}

static void
send_datagrams (GstRmtpSink * self, gint64 now)
{
  RmtpDatagram d;

  while (poll_datagram (self, now, &d))
    if (!gst_rmtp_send_datagram (self->udp, &d, destination (self, d.to)))
      self->send_errors++;
}

static void
take_events (GstRmtpSink * self, gint64 now)
{
  RmtpEvent ev;

  while (poll_event (self, &ev)) {
    if (ev.type == RMTP_EVENT_PROGRESS || ev.type == RMTP_EVENT_DROPPED) {
      g_array_append_val (self->progress, ev);
      continue;
    }
    if (ev.type != RMTP_EVENT_DONE && ev.type != RMTP_EVENT_FAILED)
      continue;
    self->outcome = ev;
    self->finished = TRUE;
    self->ended = now;
    g_cond_broadcast (&self->cond);
  }
  /* a window finished: upstream may go on */
  if (self->stream && rmtp_stream_server_room (self->stream) > 0)
    g_cond_broadcast (&self->cond);
}

static void
post_dropped (GstRmtpSink * self, const RmtpEvent * ev)
{
  const gchar *why = ev->reason == RMTP_FAIL_NONE ? "slow" : "failed";

  GST_WARNING_OBJECT (self, "member %u dropped from the stream after window "
      "%u (%s)", ev->member, ev->round, why);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("rmtp-receiver-dropped",
              "member", G_TYPE_UINT, ev->member,
              "window", G_TYPE_UINT, ev->round,
              "reason", G_TYPE_STRING, why, NULL)));
}

/* Posts the progress taken so far; call holding no lock. */
static void
post_progress (GstRmtpSink * self)
{
  GArray *list;

  g_mutex_lock (&self->lock);
  list = self->progress;
  self->progress = g_array_new (FALSE, FALSE, sizeof (RmtpEvent));
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < list->len; i++) {
    RmtpEvent *ev = &g_array_index (list, RmtpEvent, i);

    if (ev->type == RMTP_EVENT_DROPPED) {
      post_dropped (self, ev);
      continue;
    }
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("rmtp-progress",
                "bytes", G_TYPE_UINT64, ev->bytes,
                "total", G_TYPE_UINT64, self->total,
                "round", G_TYPE_UINT, ev->round,
                "receivers-complete", G_TYPE_UINT, ev->receivers_complete,
                "receivers", G_TYPE_UINT, self->n_ids, NULL)));
  }
  g_array_unref (list);
}

static gint64
sink_work (gpointer data, gint64 now)
{
  GstRmtpSink *self = data;
  gint64 deadline = G_MAXINT64;

  g_mutex_lock (&self->lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  if (self->stream && !self->finished) {
    rmtp_stream_server_handle_timeout (self->stream, now);
    send_datagrams (self, now);
    take_events (self, now);
    if (!self->finished)
      deadline = rmtp_stream_server_next_deadline (self->stream);
  } else if (self->server && !self->finished) {
    rmtp_server_handle_timeout (self->server, now);
    send_datagrams (self, now);
    take_events (self, now);
    if (!self->finished)
      deadline = rmtp_server_next_deadline (self->server);
  }
  g_mutex_unlock (&self->lock);
  post_progress (self);
  deadline = MIN (deadline, gst_net_stats_poll (&self->stats, now));
  /* send-interval: the pacer's credit sends what fell due meanwhile in one
   * go; a wake (data, an answer) still runs the work at once */
  if (deadline != G_MAXINT64 && deadline < now + self->wake_interval)
    deadline = now + self->wake_interval;
  return deadline;
}

/* ------------------------------------------------------------------ */
/* GstBaseSink */

static gboolean finish_transfer (GstRmtpSink * self);

/* Waits until the stream takes more or ends (lock held), counting the
 * time upstream is held; FALSE if a flush came first. */
static gboolean
wait_room (GstRmtpSink * self)
{
  gint64 start = gst_net_now ();

  while (!self->flushing && !self->finished &&
      rmtp_stream_server_room (self->stream) == 0)
    g_cond_wait (&self->cond, &self->lock);
  self->blocked += gst_net_now () - start;
  return !self->flushing;
}

/* Streaming mode: @data goes into the stream as it has room; upstream
 * blocks here while two windows are held. */
static GstFlowReturn
push_stream (GstRmtpSink * self, const guint8 * data, gsize size)
{
  gsize done = 0;
  gboolean ended = FALSE;

  g_mutex_lock (&self->lock);
  while (done < size && !ended) {
    gint64 now;
    gsize n;

    if (!wait_room (self)) {
      g_mutex_unlock (&self->lock);
      return GST_FLOW_FLUSHING;
    }
    ended = self->finished;
    now = gst_net_now ();
    if (!self->started)
      self->started = now;
    n = rmtp_stream_server_push (self->stream, data + done, size - done, now);
    done += n;
    self->total += n;
    gst_net_loop_wake (self->loop);
  }
  g_mutex_unlock (&self->lock);
  /* every member was dropped, or none accepted: nobody to send to */
  if (ended && !finish_transfer (self))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* The data set so far and its digest, emptied (streaming thread). */
static void
clear_data (GstRmtpSink * self)
{
  g_byte_array_set_size (self->data, 0);
  g_clear_pointer (&self->data_digest, rmtp_digest_free);
  self->data_digest = rmtp_digest_new ();
}

/* Whole data set: the bytes are hashed as they come, while the cache has
 * them, instead of in a pass over the whole set between EOS and CONN. */
static void
take_data (GstRmtpSink * self, const guint8 * data, gsize size)
{
  g_byte_array_append (self->data, data, size);
  rmtp_digest_update (self->data_digest, data, size);
}

static GstFlowReturn
gst_rmtp_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo map;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (self->stream)
    ret = push_stream (self, map.data, map.size);
  else
    take_data (self, map.data, map.size);
  gst_buffer_unmap (buffer, &map);
  return ret;
}

/* The server on the whole data set; FALSE (and an error) if it cannot be
 * sent. */
static gboolean
begin_transfer (GstRmtpSink * self)
{
  GBytes *bytes = g_byte_array_free_to_bytes (self->data);
  guint8 digest[RMTP_DIGEST_SIZE];
  RmtpConfig cfg;
  guint32 session;

  rmtp_digest_finish (self->data_digest, digest);
  self->data = g_byte_array_new ();
  clear_data (self);
  GST_OBJECT_LOCK (self);
  cfg = self->settings.cfg;
  session = self->session;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  if (session == 0)
    session = random_source_range (&self->rng, 1, G_MAXUINT32);
  self->total = g_bytes_get_size (bytes);
  self->server = rmtp_server_new_digested (&cfg, session, self->ids,
      self->n_ids, bytes, digest, &self->rng);
  if (self->server && self->have_key)
    rmtp_server_set_key (self->server, &self->auth_key);
  if (self->server) {
    self->started = gst_net_now ();
    rmtp_server_start (self->server, self->started);
  }
  g_mutex_unlock (&self->lock);
  g_bytes_unref (bytes);
  if (!self->server) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Nothing to send: the data set "
            "is empty (or has more than 2^32 packets)"), (NULL));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "session %u: %" G_GUINT64_FORMAT " bytes to %u "
      "members", session, self->total, self->n_ids);
  gst_net_loop_wake (self->loop);
  return TRUE;
}

/* Waits for the end of the transfer; FALSE if a flush came first. */
static gboolean
wait_transfer (GstRmtpSink * self)
{
  gboolean done;

  g_mutex_lock (&self->lock);
  while (!self->finished && !self->flushing)
    g_cond_wait (&self->cond, &self->lock);
  done = self->finished;
  g_mutex_unlock (&self->lock);
  return done;
}

static void
post_done (GstRmtpSink * self)
{
  RmtpEvent ev;
  gdouble seconds;

  g_mutex_lock (&self->lock);
  ev = self->outcome;
  seconds = (self->ended - self->started) / 1e9;
  g_mutex_unlock (&self->lock);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("rmtp-done",
              "receivers-complete", G_TYPE_UINT, ev.receivers_complete,
              "receivers-failed", G_TYPE_UINT, ev.type == RMTP_EVENT_DONE ?
              ev.receivers_failed : self->n_ids,
              "bytes", G_TYPE_UINT64, self->total,
              "seconds", G_TYPE_DOUBLE, seconds,
              "reason", G_TYPE_STRING, ev.type == RMTP_EVENT_DONE ? "none" :
              gst_rmtp_fail_reason_name (ev.reason), NULL)));
  gst_net_stats_post (&self->stats);
  if (ev.type == RMTP_EVENT_DONE && ev.receivers_failed > 0)
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("%u of %u receivers did not "
            "complete the data set", ev.receivers_failed, self->n_ids),
        (NULL));
}

/* The outcome as the pipeline sees it: EOS when at least one member has
 * the data set, else an error. */
static gboolean
finish_transfer (GstRmtpSink * self)
{
  RmtpEvent ev;

  post_done (self);
  g_mutex_lock (&self->lock);
  ev = self->outcome;
  g_mutex_unlock (&self->lock);
  if (ev.type == RMTP_EVENT_DONE && ev.receivers_complete > 0)
    return TRUE;
  if (ev.type == RMTP_EVENT_FAILED)
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("No receiver accepted the "
            "data set: none of the %u members answered the connection "
            "with yes", self->n_ids), ("reason: %s",
            gst_rmtp_fail_reason_name (ev.reason)));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("No receiver completed the "
            "data set (%u members)", self->n_ids), (NULL));
  return FALSE;
}

/* Streaming mode: the rest goes as the last window; FALSE (and an error)
 * if nothing was streamed. */
static gboolean
end_stream (GstRmtpSink * self)
{
  guint64 taken;

  g_mutex_lock (&self->lock);
  taken = rmtp_stream_server_stats (self->stream)->taken;
  rmtp_stream_server_finish (self->stream, gst_net_now ());
  g_mutex_unlock (&self->lock);
  gst_net_loop_wake (self->loop);
  if (taken == 0)
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Nothing to send: the stream "
            "is empty"), (NULL));
  return taken > 0;
}

static gboolean
gst_rmtp_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    if (!(self->stream ? end_stream (self) : begin_transfer (self)) ||
        !wait_transfer (self) || !finish_transfer (self)) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (bsink, event);
}

static gboolean
gst_rmtp_sink_unlock (GstBaseSink * bsink)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);

  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_rmtp_sink_unlock_stop (GstBaseSink * bsink)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);

  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
clear_session (GstRmtpSink * self)
{
  g_clear_object (&self->udp);
  g_clear_object (&self->group);
  g_clear_pointer (&self->ids, g_free);
  self->n_ids = 0;
  g_hash_table_remove_all (self->member_addr);
  g_hash_table_remove_all (self->addr_member);
  g_clear_pointer (&self->server, rmtp_server_free);
  gst_net_key_wipe (&self->auth_key, sizeof (self->auth_key));
  self->have_key = FALSE;
  g_clear_pointer (&self->stream, rmtp_stream_server_free);
  self->blocked = 0;
  g_array_set_size (self->progress, 0);
  self->finished = FALSE;
  memset (&self->outcome, 0, sizeof (self->outcome));
  self->total = 0;
  self->started = self->ended = 0;
  self->send_errors = self->unknown_unicast = self->before_start = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
  self->recv_buffer = 0;
}

/* The receive buffer for the answers of @n_members (recv-buffer-size 0):
 * never below what the socket has. */
static gint
answers_buffer_size (guint n_members, gint have)
{
  gint64 want = (gint64) n_members * ANSWER_CHARGE * ANSWER_MARGIN;

  return (gint) MAX (have, MIN (want, RECV_BUFFER_MAX));
}

/* Sizes our socket's receive buffer: @bytes, or from the members. */
static void
size_recv_buffer (GstRmtpSink * self, gint bytes)
{
  GSocket *sock = gst_net_udp_get_socket (self->udp);
  gint have = gst_net_socket_get_recv_buffer (sock);
  gint want = bytes > 0 ? bytes : answers_buffer_size (self->n_ids, have);

  self->recv_buffer = want == have ? have :
      gst_net_socket_set_recv_buffer (sock, want);
  if (self->recv_buffer < want)
    GST_WARNING_OBJECT (self, "asked for a receive buffer of %d bytes for "
        "the answers of %u members, the kernel gave %d: without "
        "CAP_NET_ADMIN it caps it at twice net.core.rmem_max", want,
        self->n_ids, self->recv_buffer);
}

/* The socket: an ephemeral port on the any address (the members answer to
 * it), multicast options for the group, a receive buffer for the answers
 * (an application's socket is used as given). */
static gboolean
open_socket (GstRmtpSink * self, GstNetUdpSettings * us, gint recv_bytes,
    GError ** err)
{
  self->group = gst_rmtp_group_address (us, err);
  if (!self->group)
    return FALSE;
  us->port = 0;
  us->join_later = TRUE;
  self->udp = gst_net_udp_new (us, g_socket_address_get_family (self->group),
      err);
  if (!self->udp)
    return FALSE;
  if (us->socket)
    self->recv_buffer = gst_net_socket_get_recv_buffer (us->socket);
  else
    size_recv_buffer (self, recv_bytes);
  return TRUE;
}

static gboolean
gst_rmtp_sink_start (GstBaseSink * bsink)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);
  GstNetUdpSettings us;
  GstNetKeySettings keys;
  AuthKey key;
  gboolean have_key = FALSE;
  gchar *members;
  guint receivers;
  gint recv_bytes;
  guint64 send_interval;
  guint64 interval;
  GError *err = NULL;
  gboolean ok;
  RmtpConfig cfg;
  guint32 session;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&us, &self->settings.net);
  gst_net_key_settings_copy (&keys, &self->key);
  members = g_strdup (self->members);
  receivers = self->receivers;
  recv_bytes = self->recv_buffer_size;
  send_interval = self->send_interval;
  interval = self->settings.stats_interval;
  cfg = self->settings.cfg;
  session = self->session;
  if (self->net_sink.uri_error)
    err = g_error_copy (self->net_sink.uri_error);
  GST_OBJECT_UNLOCK (self);

  ok = !err && gst_net_key_load (&keys, &key, &have_key, &err);
  gst_net_key_settings_clear (&keys);
  g_mutex_lock (&self->lock);
  clear_session (self);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  self->have_key = ok && have_key;
  if (self->have_key)
    self->auth_key = key;
  gst_net_key_wipe (&key, sizeof (key));
  ok = ok && (self->ids = parse_members (members, receivers,
          &self->n_ids, &err)) && open_socket (self, &us, recv_bytes, &err);
  if (!ok)
    clear_session (self);
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  if (ok && cfg.window_size)
    self->stream = rmtp_stream_server_new (&cfg, session ? session :
        random_source_range (&self->rng, 1, G_MAXUINT32), self->ids,
        self->n_ids, &self->rng);
  if (self->stream && self->have_key)
    rmtp_stream_server_set_key (self->stream, &self->auth_key);
  g_mutex_unlock (&self->lock);
  gst_net_udp_settings_clear (&us);
  g_free (members);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  clear_data (self);
  /* past the pacer's credit a late wake-up loses its slots */
  self->wake_interval = MIN ((gint64) send_interval, cfg.send_burst);
  gst_net_stats_start (&self->stats, interval, gst_net_now ());
  self->loop = gst_net_loop_new ("rmtpsink", sink_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->udp),
      on_datagram, self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static GstStructure *build_stats (GstRmtpSink * self);

static gboolean
gst_rmtp_sink_stop (GstBaseSink * bsink)
{
  GstRmtpSink *self = GST_RMTP_SINK (bsink);

  if (self->loop)
    gst_net_loop_stop (self->loop);
  g_mutex_lock (&self->lock);
  if (self->udp)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->udp));
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  self->final_stats = build_stats (self);
  clear_session (self);
  g_mutex_unlock (&self->lock);
  clear_data (self);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
gst_rmtp_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRmtpSink *self = GST_RMTP_SINK (object);

  if (gst_net_props_set (GST_ELEMENT (self), &self->net_sink, PROP_NET_SINK,
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (gst_net_key_set (&self->key, PROP_KEY, prop_id, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_RECEIVERS:
      self->receivers = g_value_get_uint (value);
      break;
    case PROP_MEMBERS:
      g_free (self->members);
      self->members = g_value_dup_string (value);
      break;
    case PROP_SESSION:
      self->session = g_value_get_uint (value);
      break;
    case PROP_RECV_BUFFER_SIZE:
      self->recv_buffer_size = g_value_get_int (value);
      break;
    case PROP_SEND_INTERVAL:
      self->send_interval = g_value_get_uint64 (value);
      break;
    default:
      if (!gst_rmtp_settings_set (&self->settings, &udp_props,
              PROP_SETTINGS, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static const gchar *
phase_name (RmtpServerPhase phase)
{
  switch (phase) {
    case RMTP_SERVER_CONNECT:
      return "connect";
    case RMTP_SERVER_ROUNDS:
      return "rounds";
    case RMTP_SERVER_SEPARATE:
      return "separate";
    case RMTP_SERVER_RELEASE:
      return "release";
    case RMTP_SERVER_DONE:
      return "done";
  }
  return "unknown";
}

static void
server_stats (GstStructure * s, const RmtpServerStats * st,
    const gchar * phase)
{
  gst_rmtp_input_stats (s, &st->in);
  gst_structure_set (s,
      "phase", G_TYPE_STRING, phase,
      "datagrams-sent", G_TYPE_UINT64, st->datagrams_sent,
      "data-sent", G_TYPE_UINT64, st->data_sent,
      "data-resent", G_TYPE_UINT64, st->data_resent,
      "parity-sent", G_TYPE_UINT64, st->parity_sent,
      "unicast-data-sent", G_TYPE_UINT64, st->unicast_data_sent,
      "conn-sent", G_TYPE_UINT64, st->conn_sent,
      "polls-sent", G_TYPE_UINT64, st->polls_sent,
      "rel-sent", G_TYPE_UINT64, st->rel_sent,
      "eor-sent", G_TYPE_UINT64, st->eor_sent,
      "busy-received", G_TYPE_UINT64, st->busy_received,
      "rrdy-received", G_TYPE_UINT64, st->rrdy_received,
      "responses", G_TYPE_UINT64, st->responses,
      "rounds", G_TYPE_UINT, st->rounds,
      "max-responses-per-round", G_TYPE_UINT, st->max_responses_per_round,
      "rate", G_TYPE_UINT64, st->rate,
      "rate-changes", G_TYPE_UINT, st->rate_changes,
      "slow-receivers", G_TYPE_UINT, st->slow_receivers,
      "slow-detected", G_TYPE_UINT, st->slow_detected,
      "taken-back", G_TYPE_UINT, st->taken_back,
      "gone-complete", G_TYPE_UINT, st->gone_complete,
      "gone-rel-sent", G_TYPE_UINT64, st->gone_rel_sent,
      "nacks-overlapping", G_TYPE_UINT64, st->nacks_overlapping,
      "empty-rounds", G_TYPE_UINT64, st->empty_rounds, NULL);
}

/* The auth-* fields: the data set's server, or every window's. */
static void
key_stats (GstRmtpSink * self, GstStructure * s)
{
  AuthStats auth = { 0 };

  if (self->stream)
    rmtp_stream_server_auth_stats (self->stream, &auth);
  else if (self->server)
    rmtp_server_auth_stats (self->server, &auth);
  gst_net_key_stats (s, self->have_key, &auth);
}

/* Streaming mode: the windows' counters added up, and where the stream
 * is. */
static void
stream_stats (GstRmtpSink * self, GstStructure * s)
{
  const RmtpStreamServerStats *st = rmtp_stream_server_stats (self->stream);
  const RmtpServer *window = rmtp_stream_server_window (self->stream);

  server_stats (s, &st->sum, window ? phase_name (rmtp_server_phase (window))
      : self->finished ? "done" : "filling");
  gst_structure_set (s,
      "window", G_TYPE_UINT, st->window,
      "windows", G_TYPE_UINT, st->windows,
      "window-offset", G_TYPE_UINT64, st->window_offset,
      "window-bytes", G_TYPE_UINT64, st->window_bytes,
      "bytes-taken", G_TYPE_UINT64, st->taken,
      "bytes-released", G_TYPE_UINT64, st->released,
      "held-bytes", G_TYPE_UINT64, st->held,
      "max-held-bytes", G_TYPE_UINT64, st->max_held,
      "blocked-time", G_TYPE_UINT64, (guint64) self->blocked,
      "receivers-dropped", G_TYPE_UINT, st->dropped,
      "receivers-dropped-slow", G_TYPE_UINT, st->dropped_slow, NULL);
}

/* The stats of the session now. With `lock`. */
static GstStructure *
build_stats (GstRmtpSink * self)
{
  GstStructure *s = gst_structure_new_empty ("application/x-rmtp-sink-stats");
  gint64 end;

  if (self->stream)
    stream_stats (self, s);
  else if (self->server)
    server_stats (s, rmtp_server_stats (self->server),
        phase_name (rmtp_server_phase (self->server)));
  key_stats (self, s);
  end = self->finished ? self->ended : gst_net_now ();
  gst_structure_set (s,
      "receivers", G_TYPE_UINT, self->n_ids,
      "local-port", G_TYPE_INT, self->udp ? gst_net_udp_get_port (self->udp) :
      -1,
      "receivers-known", G_TYPE_UINT, g_hash_table_size (self->member_addr),
      "receivers-complete", G_TYPE_UINT, self->finished ?
      self->outcome.receivers_complete : 0,
      "receivers-failed", G_TYPE_UINT, self->finished ?
      (self->outcome.type == RMTP_EVENT_DONE ?
          self->outcome.receivers_failed : self->n_ids) : 0,
      "total-bytes", G_TYPE_UINT64, self->total,
      "elapsed", G_TYPE_UINT64, self->started ?
      (guint64) (end - self->started) : (guint64) 0,
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "unknown-unicast", G_TYPE_UINT64, self->unknown_unicast,
      "before-start", G_TYPE_UINT64, self->before_start,
      "recv-buffer", G_TYPE_INT, self->recv_buffer, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  return s;
}

/* The session's stats; once stopped, those it stopped with (until the next
 * start): what a transfer did stays readable after the pipeline ends. */
static GstStructure *
get_stats (GstElement * element)
{
  GstRmtpSink *self = GST_RMTP_SINK (element);
  GstStructure *s;

  g_mutex_lock (&self->lock);
  s = self->final_stats ? gst_structure_copy (self->final_stats) :
      build_stats (self);
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_rmtp_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRmtpSink *self = GST_RMTP_SINK (object);

  if (gst_net_props_get (GST_ELEMENT (self), &self->net_sink, get_stats,
          NULL, PROP_NET_SINK, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  if (gst_net_key_get (&self->key, PROP_KEY, prop_id, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_RECEIVERS:
      g_value_set_uint (value, self->receivers);
      break;
    case PROP_MEMBERS:
      g_value_set_string (value, self->members);
      break;
    case PROP_SESSION:
      g_value_set_uint (value, self->session);
      break;
    case PROP_RECV_BUFFER_SIZE:
      g_value_set_int (value, self->recv_buffer_size);
      break;
    case PROP_SEND_INTERVAL:
      g_value_set_uint64 (value, self->send_interval);
      break;
    default:
      if (!gst_rmtp_settings_get (&self->settings, PROP_SETTINGS, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rmtp_sink_finalize (GObject * object)
{
  GstRmtpSink *self = GST_RMTP_SINK (object);

  clear_session (self);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  g_hash_table_unref (self->member_addr);
  g_hash_table_unref (self->addr_member);
  g_array_unref (self->progress);
  g_byte_array_unref (self->data);
  g_clear_pointer (&self->data_digest, rmtp_digest_free);
  gst_rmtp_settings_clear (&self->settings);
  gst_net_src_settings_clear (&self->net_sink);
  gst_net_key_settings_clear (&self->key);
  g_free (self->members);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

#define STATS_DOC \
  "phase: connect, rounds, separate (unicast to slow receivers), release " \
  "or done; " \
  "receivers: members of the session (members); " \
  "local-port: the UDP port the members answer to (port, -1: not " \
  "started); " \
  "receivers-known: members whose CACK gave their address (members); " \
  "receivers-complete: members that have the data set, at the end " \
  "(members); " \
  "receivers-failed: members given up, at the end (members); " \
  "total-bytes: size of the data set (bytes); " \
  "elapsed: time since the CONN, until the end (ns); " \
  "datagrams-sent: every packet sent (packets); " \
  "data-sent: DATA packets sent (packets); " \
  "data-resent: DATA packets of rounds after the first (packets); " \
  "parity-sent: PARITY packets sent, repair=parity (packets); " \
  "unicast-data-sent: DATA packets sent by unicast to slow receivers " \
  "(packets); " \
  "conn-sent: CONN packets sent (packets); " \
  "polls-sent: POLL packets sent (packets); " \
  "rel-sent: REL packets sent (packets); " \
  "eor-sent: EOR packets sent (packets); " \
  "busy-received: BUSY from connected members, first or repeated " \
  "(packets); " \
  "rrdy-received: RRDY from connected members (packets); " \
  "responses: NACKs and ACKs taken (packets); " \
  "rounds: rounds begun, multicast and unicast (rounds); " \
  "max-responses-per-round: most answers one round took (packets); " \
  "rate: the send rate now (bit/s); " \
  "rate-changes: changes by the rate control (changes); " \
  "slow-receivers: members set aside as slow or BUSY (members); " \
  "slow-detected: of those, members set aside for their losses " \
  "(members); " \
  "taken-back: members given up at the connection (no CACK) and heard " \
  "from later, served again; the CACK or NACK that brings one back counts " \
  "as accepted, not late (members); " \
  "gone-complete: members given up in their unicast turn (every POLL " \
  "unanswered) or while BUSY whose later ACK or RACK proved them " \
  "complete: counted complete, not failed (members); " \
  "gone-rel-sent: unicast RELs to members given up, in the release " \
  "(gone-rel-retries) (packets); " \
  "nacks-overlapping: NACKs whose ranges overlap or go back, refused " \
  "(packets); " \
  "empty-rounds: rounds of an EOR alone, as a receiver's NACK listed " \
  "nothing (it holds the parity it needs and is decoding) (rounds); " \
  GST_RMTP_INPUT_STATS_DOC "; " \
  "send-errors: packets the socket refused (packets); " \
  "unknown-unicast: packets for a member never heard from, sent to the " \
  "group (packets); " \
  "before-start: datagrams that came before the transfer began, dropped " \
  "(packets); " \
  GST_NET_LOOP_STATS_DOC "; " \
  "recv-buffer: the socket's receive buffer as the kernel reports it " \
  "(SO_RCVBUF, its bookkeeping included), 0 before the start (bytes); " \
  GST_NET_KEY_STATS_DOC \
  "; " \
  "streaming mode only (window-size > 0; the counters above are then the " \
  "windows' added up): " \
  "window: index of the window in flight, or of the last one (windows); " \
  "windows: windows started (windows); " \
  "window-offset: the window's first byte in the stream (bytes); " \
  "window-bytes: the window's size (bytes); " \
  "bytes-taken: bytes taken from upstream (bytes); " \
  "bytes-released: bytes of the windows finished with members left " \
  "(bytes); " \
  "held-bytes: bytes held now, the window in flight and the one filling " \
  "(bytes); " \
  "max-held-bytes: the most ever held (bytes); " \
  "blocked-time: time upstream waited for a window to finish (ns); " \
  "receivers-dropped: members dropped from the stream (members); " \
  "receivers-dropped-slow: of those, members that held a window back " \
  "(members)"

/* stats-interval is GstRmtpSettings', shared with rmtpsrc */
static const GstNetSinkProps sink_props = {
  .stats_blurb = "Server phase and counters (read-only GstStructure). "
      "Fields: " STATS_DOC,
  .uri_blurb = GST_RMTP_URI_BLURB,
};

static void
install_properties (GObjectClass * oc)
{
  gst_rmtp_settings_install (oc, PROP_SETTINGS, &udp_props,
      GST_RMTP_PARAM_SINK, "rmtp-sink-stats");
  g_object_class_install_property (oc, PROP_RECEIVERS,
      g_param_spec_uint ("receivers", "Receivers", "Members of the session: "
          "ids 1 .. receivers (unless members is set), receivers",
          1, RMTP_MAX_MEMBERS, DEFAULT_RECEIVERS, RW));
  g_object_class_install_property (oc, PROP_MEMBERS,
      g_param_spec_string ("members", "Members", "Comma-separated member ids "
          "(1..2^32-1, each rmtpsrc's member), instead of 1 .. receivers",
          NULL, RW));
  g_object_class_install_property (oc, PROP_SESSION,
      g_param_spec_uint ("session", "Session", "Session id of the transfer "
          "(0: a random one)", 0, G_MAXUINT32, 0, RW));
  g_object_class_install_property (oc, PROP_RECV_BUFFER_SIZE,
      g_param_spec_int ("recv-buffer-size", "Receive buffer size",
          "Receive buffer of the socket the answers come to, bytes as the "
          "kernel reports it (SO_RCVBUF, twice what it is asked for); 0: "
          "4 KiB a member, at least the system's (or buffer-size's) and at "
          "most 64 MiB; asked by SO_RCVBUFFORCE when allowed, else capped at "
          "twice net.core.rmem_max (stats: recv-buffer)", 0, G_MAXINT,
          DEFAULT_RECV_BUFFER_SIZE, RW));
  g_object_class_install_property (oc, PROP_SEND_INTERVAL,
      g_param_spec_uint64 ("send-interval", "Send interval",
          "Least time between the I/O loop's wake-ups to send, ns (0: one "
          "a packet, at its pacer slot); the pacer's credit (send-burst) "
          "sends what fell due meanwhile in one go, so it is at most "
          "send-burst, and timers may run up to this late (stats: "
          "loop-turns)", 0, 100 * GST_MSECOND,
          DEFAULT_SEND_INTERVAL, RW));
  /**
   * GstRmtpSink:stats:
   *
   * The server's phase and counters; every field with its unit in the
   * blurb.
   */
  gst_net_src_props_install (&sink_props, oc, PROP_NET_SINK);
  gst_net_key_install (oc, PROP_KEY, "every control packet the server sends "
      "and takes (CONN, EOR, POLL, REL, DROP to the members; CACK, NACK, "
      "ACK, RACK, BUSY, RRDY, REPORT from them), not DATA or PARITY; every "
      "rmtpsrc of the session needs the same key");
}

static void
gst_rmtp_sink_class_init (GstRmtpSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = gst_rmtp_sink_set_property;
  gobject_class->get_property = gst_rmtp_sink_get_property;
  gobject_class->finalize = gst_rmtp_sink_finalize;
  bsink_class->render = gst_rmtp_sink_render;
  bsink_class->event = gst_rmtp_sink_event;
  bsink_class->unlock = gst_rmtp_sink_unlock;
  bsink_class->unlock_stop = gst_rmtp_sink_unlock_stop;
  bsink_class->start = gst_rmtp_sink_start;
  bsink_class->stop = gst_rmtp_sink_stop;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SINK,
      "rmtp", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "RMTP reliable multicast sink", "Sink/Network",
      "Delivers the whole byte stream it takes until EOS (a file) to every "
      "member of a fixed list by RMTP reliable multicast (rmtpsrc), and "
      "posts EOS only once the transfer is over. URI: "
      "rmtp://GROUP:PORT?receivers=N&... (any property as a query "
      "parameter). Example: gst-launch-1.0 -m filesrc location=in.bin ! "
      "rmtpsink uri=rmtp://239.2.2.2:6000?receivers=4",
      "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_rmtp_sink_debug, "rmtpsink", 0,
      "RMTP reliable multicast sink");
}

static void
gst_rmtp_sink_init (GstRmtpSink * self)
{
  gst_rmtp_settings_init (&self->settings, &udp_props);
  gst_net_src_settings_init (&sink_props, &self->net_sink);
  self->receivers = DEFAULT_RECEIVERS;
  self->send_interval = DEFAULT_SEND_INTERVAL;
  self->data = g_byte_array_new ();
  self->data_digest = rmtp_digest_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->member_addr = g_hash_table_new_full (g_direct_hash, g_direct_equal,
      NULL, g_object_unref);
  self->addr_member = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  self->progress = g_array_new (FALSE, FALSE, sizeof (RmtpEvent));
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "rmtp-sink-stats",
      get_stats);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}
