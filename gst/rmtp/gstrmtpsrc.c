/**
 * SECTION:element-rmtpsrc
 * @title: rmtpsrc
 * @see_also: rmtpsink
 *
 * A receiver of RMTP, reliable multicast delivery of a whole data set
 * (Shiroshita et al., 1996; docs/protocols/rmtp.md). It joins the group,
 * answers the server's CONN that lists its #GstRmtpSrc:member id, sends
 * one NACK (the ranges it lacks) or ACK per round after a random backoff,
 * answers POLLs and the release, and checks the data set against the
 * SHA-256 digest the CONN carried.
 *
 * The data set comes out whole and in order, and only once its digest has
 * been verified: buffers of the bytes at their offsets, then EOS. A
 * receiver that cannot complete (refused, the server silent, a digest that
 * differs) posts an error that says so and never an EOS, so no truncated
 * file is presented as whole. A receiver that hears no CONN listing its
 * member within #GstRmtpSrc:connect-timeout of its start (60 s; 0 waits for
 * ever, for a server started much later) posts an error that names the
 * group, the port and the wait: the server is not running, the group or
 * port differs, or the member is not in the server's list. Setting
 * #GstRmtpSrc:busy declares the receiver BUSY to the server (it drops the
 * data and is served by unicast later); clearing it sends RRDY.
 *
 * The receiver's state and counters are in #GstRmtpSrc:stats, also posted
 * as `rmtp-src-stats` every #GstRmtpSrc:stats-interval and once more at
 * the end.
 *
 * With a group key (#GstRmtpSrc:key or #GstRmtpSrc:key-file, the same as
 * the rmtpsink's), every control packet both ways carries a trailer that
 * authenticates it and makes it fresh; packets that fail are dropped and
 * counted in the auth-* stats (docs/security.md). DATA and PARITY are not
 * sealed: the data set is checked against the SHA-256 of the sealed CONN.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m rmtpsrc uri="rmtp://239.2.2.2:6000?member=1" ! \
 *   filesink location=recording.mkv
 * ]| receives the data set of an rmtpsink as member 1.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstrmtpsrc.h"
#include "gstrmtputil.h"
#include "gstnetkey.h"
#include "rmtpstream.h"
#include "gstnetloop.h"
#include "gstnetsocket.h"
#include "gstnetsrc.h"
#include "gstnetstats.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstneturi.h"
#include "core/random.h"

GST_DEBUG_CATEGORY_STATIC (gst_rmtp_src_debug);
#define GST_CAT_DEFAULT gst_rmtp_src_debug

#define DEFAULT_MEMBER 1
/* The group's DATA is read every 4 ms while it flows, a few datagrams a
 * wake-up (each wake-up was a quarter of a receiver's CPU); 4 ms is 50 KB
 * at 100 Mbit/s, a quarter of Linux's default receive buffer */
#define READ_INTERVAL (4 * GST_MSECOND)
#define DEFAULT_OUTPUT_BUFFER_SIZE (1024 * 1024)
#define DEFAULT_ANSWERS_FIRST FALSE
#define DEFAULT_EARLY_OUTPUT FALSE

enum
{
  PROP_0,
  PROP_MEMBER,
  PROP_BUSY,
  PROP_OUTPUT_BUFFER_SIZE,
  PROP_ANSWERS_FIRST,
  PROP_EARLY_OUTPUT,
  PROP_NET_SRC,                 /* gstnetsrc.h's from here */
  PROP_KEY = PROP_NET_SRC + GST_NET_SRC_N_PROPS,        /* gstnetkey.h's */
  PROP_SETTINGS = PROP_KEY + GST_NET_KEY_N_PROPS,       /* GstRmtpSettings' */
};

static const GstNetUdpProps udp_props = {
  .address_default = GST_RMTP_DEFAULT_ADDRESS,
  .port_min = 1,
  .port_default = GST_RMTP_DEFAULT_PORT,
  .address_blurb = "Multicast group of the transfer (IPv4 or IPv6 literal)",
  .port_blurb = "UDP port of the group",
  .multicast_iface_blurb = "Network interface the group is joined on "
      "(NULL: the system's)",
  .buffer_size_blurb = "Receive and send buffer of the sockets, bytes (0: "
      "the system's)",
  .socket_blurb = "A UDP socket of the application's bound to the group's "
      "port, used as given (not bound, never closed; the group is joined on "
      "it)",
};

struct _GstRmtpSrc
{
  GstPushSrc parent;

  /* Settings, under the object lock */
  GstRmtpSettings settings;
  guint member;
  guint output_buffer_size;     /* bytes a buffer at most; 0: a packet's */
  gboolean answers_first;
  gboolean early_output;
  GstNetSrcSettings net_src;    /* stats-interval is in settings */
  GstNetKeySettings key;

  GstNetStats stats;

  /* State, under wait.lock: the loop thread feeds the core, create() takes
   * the verified data set (cond: data, an end, or a flush). */
  GstNetSrcWait wait;
  gboolean busy;                /* asked for; applied after our CACK */
  gboolean backlogged;          /* stream: output a window behind: BUSY */
  GstNetLoop *loop;
  GstNetUdp *group_udp;         /* the group's port, the group joined */
  GstNetUdp *udp;               /* ephemeral port: answers and unicast */
  GSocketAddress *server;       /* where the CONN that listed us came from */
  RandomSeeded seed;
  RandomSource rng;
  RmtpStreamReceiver *rx;       /* the data set, or a stream's windows */
  GQueue held;                  /* GBytes verified, in order */
  guint64 held_bytes, pushed_bytes, max_held_bytes;
  guint out_limit;              /* output-buffer-size, taken at start */
  gboolean out_yields;          /* answers-first, taken at start */
  gboolean early;               /* early-output, taken at start */
  guint64 buffers_pushed, answer_waits;
  gboolean done;                /* released, or verified and then silent */
  RmtpFailReason failed;        /* RMTP_FAIL_NONE while all is well */
  gboolean error_posted;
  guint64 send_errors, other_source;
  GstNetLoopCounts loop_counts;        /* taken by the work */
  GstStructure *final_stats;    /* the stats as the last stop left them */
  gchar *group;                 /* "ADDRESS port PORT", for the error of
                                 * a receiver no CONN came to */
  gint64 connect_timeout;
  gint64 armed;                 /* the loop thread's: when it works next */
  /* parity-decode-thread: the decodes run here (NULL: off), and come back
   * in `decoded` (under wait.lock) for the loop thread */
  GThreadPool *decoder;
  GQueue decoded;
  GstClockTime decode_max;      /* the longest decode's wall time */
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_rmtp_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRmtpSrc, gst_rmtp_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER, gst_net_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (rmtpsrc, "rmtpsrc", GST_RANK_NONE,
    GST_TYPE_RMTP_SRC);

/* ------------------------------------------------------------------ */
/* The loop thread (lock held unless said otherwise) */

/* The core of the data set, or of the stream's current window. */
static RmtpReceiver *
core (GstRmtpSrc * self)
{
  return rmtp_stream_receiver_core (self->rx);
}

static gboolean
connected (GstRmtpSrc * self)
{
  guint64 size;
  const guint8 *digest;

  return rmtp_receiver_data_set (core (self), &size, &digest);
}

static gboolean
same_address (GSocketAddress * a, GSocketAddress * b)
{
  /* the transport hands one object for a sender while it is the same */
  return a == b || (gst_net_address_same_host (a, b) &&
      gst_net_address_get_port (a) == gst_net_address_get_port (b));
}

static void
send_datagrams (GstRmtpSrc * self)
{
  RmtpDatagram d;

  /* a receiver answers only the server, and only after its CONN */
  while (rmtp_stream_receiver_poll_datagram (self->rx, &d))
    if (!gst_rmtp_send_datagram (self->udp, &d, self->server))
      self->send_errors++;
}

/* A stream receiver whose output falls more than a window behind says
 * BUSY until half of that is out, so its memory stays bounded; the sink
 * drops it after the window (a stream cannot wait for it). */
static gboolean
want_busy (GstRmtpSrc * self)
{
  RmtpReceiver *c = core (self);
  guint64 size = 0, offset;
  const guint8 *digest;
  guint32 window;
  gboolean last;

  if (rmtp_receiver_window (c, &window, &offset, &last) &&
      rmtp_receiver_data_set (c, &size, &digest)) {
    if (self->held_bytes > size)
      self->backlogged = TRUE;
    else if (self->held_bytes <= size / 2)
      self->backlogged = FALSE;
  }
  return self->busy || self->backlogged;
}

/* BUSY or RRDY as asked, once our CACK is out: a BUSY before it would
 * reach a server that does not count us as connected yet. */
static void
apply_busy (GstRmtpSrc * self, gint64 now)
{
  if (self->server && rmtp_receiver_stats (core (self))->cack_sent > 0)
    rmtp_receiver_set_busy (core (self), want_busy (self), now);
}

/* Whether create() has data to push: any verified data; with
 * early-output, unverified data only in runs of out_limit, so the output
 * spreads over the transfer in few pushes. */
static gboolean
output_ready (GstRmtpSrc * self)
{
  guint32 window;
  guint64 offset;
  gboolean last;

  if (g_queue_is_empty (&self->held))
    return FALSE;
  if (!self->early || self->held_bytes >= self->out_limit || self->done ||
      self->failed || rmtp_stream_receiver_verified (self->rx))
    return TRUE;
  /* a stream's data come verified, a window at a time */
  return rmtp_stream_receiver_stats (self->rx)->windows > 0 ||
      rmtp_receiver_window (core (self), &window, &offset, &last);
}

static void
take_events (GstRmtpSrc * self)
{
  RmtpEvent ev;

  /* DATA comes verified: the data set's, or a window's, at its end */
  while (rmtp_stream_receiver_poll_event (self->rx, &ev)) {
    switch (ev.type) {
      case RMTP_EVENT_DATA:
        self->held_bytes += g_bytes_get_size (ev.data);
        self->max_held_bytes = MAX (self->max_held_bytes, self->held_bytes);
        g_queue_push_tail (&self->held, ev.data);
        break;
      case RMTP_EVENT_DONE:
        self->done = TRUE;
        break;
      case RMTP_EVENT_FAILED:
        self->failed = ev.reason;
        break;
      case RMTP_EVENT_PROGRESS:
      case RMTP_EVENT_DROPPED:
        break;
    }
  }
  if (output_ready (self) || self->done || self->failed)
    g_cond_broadcast (&self->wait.cond);
}

/* parity-decode-thread: the core's decodes go to the worker. */
static void
hand_out_decodes (GstRmtpSrc * self)
{
  RmtpDecodeJob *job;

  while (self->decoder && (job = rmtp_receiver_take_decode_job (core (self))))
    g_thread_pool_push (self->decoder, job, NULL);
}

/* The worker (without the lock while it decodes). */
static void
run_decode (gpointer job, gpointer data)
{
  GstRmtpSrc *self = data;
  gint64 start = g_get_monotonic_time ();
  GstClockTime wall;

  rmtp_decode_job_run (job);
  wall = (GstClockTime) (g_get_monotonic_time () - start) * GST_USECOND;
  g_mutex_lock (&self->wait.lock);
  g_queue_push_tail (&self->decoded, job);
  self->decode_max = MAX (self->decode_max, wall);
  g_mutex_unlock (&self->wait.lock);
  gst_net_loop_wake (self->loop);
}

/* The decodes done, back to the core (a stream's window that ended
 * meanwhile drops its own). */
static void
take_decoded (GstRmtpSrc * self)
{
  RmtpDecodeJob *job;

  while ((job = g_queue_pop_head (&self->decoded)))
    rmtp_receiver_decode_done (core (self), job);
}

static void
on_datagram (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  GstRmtpSrc *self = user_data;
  gint64 now = gst_net_now ();
  GBytes *bytes;
  gboolean wake;

  g_mutex_lock (&self->wait.lock);
  if (self->server && !same_address (self->server, from)) {
    self->other_source++;
    g_mutex_unlock (&self->wait.lock);
    return;
  }
  /* held data are slices of the datagram: one copy, no other */
  bytes = g_bytes_new (data, size);
  rmtp_stream_receiver_handle_bytes (self->rx, bytes, now);
  g_bytes_unref (bytes);
  hand_out_decodes (self);
  if (!self->server && connected (self)) {
    self->server = g_object_ref (from);
    GST_INFO_OBJECT (self, "connected to %" GST_PTR_FORMAT, from);
  }
  apply_busy (self, now);
  send_datagrams (self);
  take_events (self);
  wake = rmtp_stream_receiver_next_deadline (self->rx) < self->armed;
  g_mutex_unlock (&self->wait.lock);
  /* everything a datagram asks for is done above; the loop is woken only
   * when the core wants it sooner, not once a packet (two syscalls and a
   * pass of src_work each) */
  if (wake)
    gst_net_loop_wake (self->loop);
}

static gint64
src_work (gpointer data, gint64 now)
{
  GstRmtpSrc *self = data;
  gint64 deadline;

  g_mutex_lock (&self->wait.lock);
  gst_net_loop_counts_take (&self->loop_counts, self->loop);
  take_decoded (self);
  rmtp_stream_receiver_handle_timeout (self->rx, now);
  hand_out_decodes (self);
  apply_busy (self, now);
  send_datagrams (self);
  take_events (self);
  deadline = rmtp_stream_receiver_next_deadline (self->rx);
  g_mutex_unlock (&self->wait.lock);
  /* only this thread reads it (on_datagram) */
  self->armed = MIN (deadline, gst_net_stats_poll (&self->stats, now));
  return self->armed;
}

/* ------------------------------------------------------------------ */
/* GstPushSrc */

static const gchar *
fail_text (RmtpFailReason reason)
{
  switch (reason) {
    case RMTP_FAIL_REFUSED:
      return "the connection was refused";
    case RMTP_FAIL_DIGEST:
      return "the data set does not match its SHA-256 digest (corrupt)";
    case RMTP_FAIL_SERVER_SILENT:
      return "the server fell silent";
    case RMTP_FAIL_INCOMPLETE:
      return "the server fell silent before the data set was complete";
    case RMTP_FAIL_DROPPED:
      return "the server dropped this receiver from the stream (it held a "
          "window back, or missed one)";
    case RMTP_FAIL_STREAM_DIGEST:
      return "the stream does not match its SHA-256 digest (each window was "
          "verified, but a window is missing, repeated or out of order)";
    case RMTP_FAIL_NO_CONN:
      return "no server connected this receiver";
    case RMTP_FAIL_NONE:
      break;
  }
  return "unknown";
}

/* The error of a receiver no CONN listing it came to: what it waited for,
 * how long, and what it heard instead (a key that differs shows there). */
static GstFlowReturn
post_no_conn (GstRmtpSrc * self)
{
  RmtpInputStats in;
  AuthStats auth = { 0 };
  guint64 too_large, unopened;
  gchar *group;
  gint64 waited;

  g_mutex_lock (&self->wait.lock);
  in = rmtp_receiver_stats (core (self))->in;
  too_large = rmtp_receiver_stats (core (self))->conn_too_large;
  rmtp_stream_receiver_auth_stats (self->rx, &auth);
  group = g_strdup (self->group);
  waited = self->connect_timeout;
  g_mutex_unlock (&self->wait.lock);
  unopened = auth.truncated + auth.bad_tag + auth.replayed + auth.too_old;
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("RMTP: no server connected "
          "this receiver: no CONN listing member %u came to group %s within "
          "%g s (connect-timeout)", self->member, group,
          (gdouble) waited / GST_SECOND), ("Is the rmtpsink running, on the "
          "same group and port, with member %u in its list? (For a server "
          "started later, connect-timeout=0 waits for ever.) Heard: %"
          G_GUINT64_FORMAT " foreign (another session, or a CONN without "
          "this member), %" G_GUINT64_FORMAT " malformed, %" G_GUINT64_FORMAT
          " CONNs over max-total-size, %" G_GUINT64_FORMAT " that failed "
          "the group key", self->member, in.foreign, in.malformed, too_large,
          unopened));
  g_free (group);
  return GST_FLOW_ERROR;
}

/* The error of a receiver that cannot complete; call holding no lock. */
static GstFlowReturn
post_failure (GstRmtpSrc * self, RmtpFailReason reason)
{
  guint64 size = 0, have, given;
  const guint8 *digest;
  guint windows;

  gst_net_stats_post (&self->stats);
  if (reason == RMTP_FAIL_NO_CONN)
    return post_no_conn (self);
  g_mutex_lock (&self->wait.lock);
  rmtp_receiver_data_set (core (self), &size, &digest);
  have = rmtp_receiver_stats (core (self))->data_received;
  windows = rmtp_stream_receiver_stats (self->rx)->windows;
  given = rmtp_stream_receiver_stats (self->rx)->given;
  g_mutex_unlock (&self->wait.lock);
  if (windows > 0)
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("RMTP transfer failed: %s; "
            "the stream is cut after %u whole windows (%" G_GUINT64_FORMAT
            " bytes output, each window verified)", fail_text (reason),
            windows, given), ("member %u", self->member));
  else if (given > 0)
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("RMTP transfer failed: %s; "
            "the %" G_GUINT64_FORMAT " bytes output before it (early-output) "
            "are not the data set", fail_text (reason), given),
        ("member %u, %" G_GUINT64_FORMAT " packets of a data set of %"
            G_GUINT64_FORMAT " bytes received", self->member, have, size));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("RMTP transfer failed: %s; "
            "nothing of the data set is output", fail_text (reason)),
        ("member %u, %" G_GUINT64_FORMAT " packets of a data set of %"
            G_GUINT64_FORMAT " bytes received", self->member, have, size));
  return GST_FLOW_ERROR;
}

/* answers-first: while the data set is verified but not released, its
 * ACK or RACK on its backoff timer goes before more output, so the loop
 * thread that sends it does not wait for the CPU behind the output (late
 * answers cost the group a POLL each). */
static gboolean
answer_before_output (GstRmtpSrc * self)
{
  RmtpReceiver *c = core (self);

  return self->out_yields && rmtp_receiver_state (c) ==
      RMTP_RECEIVER_COMPLETE && rmtp_receiver_answer_due (c);
}

/* The held run at the head, up to out_limit bytes (at least one packet),
 * taken off the queue with its offsets counted. */
static GPtrArray *
take_run (GstRmtpSrc * self, gsize * size)
{
  GPtrArray *run = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GBytes *b;

  *size = 0;
  while ((b = g_queue_peek_head (&self->held)) && (run->len == 0 ||
          *size + g_bytes_get_size (b) <= self->out_limit)) {
    g_ptr_array_add (run, g_queue_pop_head (&self->held));
    *size += g_bytes_get_size (b);
  }
  self->pushed_bytes += *size;
  self->held_bytes -= *size;
  self->buffers_pushed++;
  return run;
}

/* One buffer of the run, at data set offset @offset (no lock: the copy of
 * a large run would hold back the loop thread). */
static GstBuffer *
join_run (GPtrArray * run, gsize size, guint64 offset)
{
  GstBuffer *buf;
  GstMapInfo map;
  gsize at = 0;

  if (run->len == 1) {
    buf = gst_buffer_new_wrapped_bytes (run->pdata[0]);
  } else {
    buf = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (guint i = 0; i < run->len; i++) {
      gsize n;
      const guint8 *d = g_bytes_get_data (run->pdata[i], &n);

      memcpy (map.data + at, d, n);
      at += n;
    }
    gst_buffer_unmap (buf, &map);
  }
  g_ptr_array_free (run, TRUE);
  GST_BUFFER_OFFSET (buf) = offset;
  GST_BUFFER_OFFSET_END (buf) = offset + size;
  return buf;
}

static GstFlowReturn
gst_rmtp_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstRmtpSrc *self = GST_RMTP_SRC (psrc);
  RmtpFailReason failed;
  gboolean paused = FALSE;

  g_mutex_lock (&self->wait.lock);
  for (;;) {
    if (self->wait.flushing) {
      g_mutex_unlock (&self->wait.lock);
      return GST_FLOW_FLUSHING;
    }
    /* verified windows go out before a later window's failure */
    if (output_ready (self)) {
      gboolean wake;
      guint64 offset;
      gsize size;
      GPtrArray *run;

      if (answer_before_output (self)) {
        self->answer_waits += !paused;
        paused = TRUE;
        g_cond_wait (&self->wait.cond, &self->wait.lock);
        continue;
      }
      wake = self->backlogged;
      offset = self->pushed_bytes;
      run = take_run (self, &size);
      g_mutex_unlock (&self->wait.lock);
      *outbuf = join_run (run, size, offset);
      /* the loop thread sends RRDY once the backlog is down */
      if (wake)
        gst_net_loop_wake (self->loop);
      return GST_FLOW_OK;
    }
    if (self->failed && !self->error_posted) {
      failed = self->failed;
      self->error_posted = TRUE;
      g_mutex_unlock (&self->wait.lock);
      return post_failure (self, failed);
    }
    if (self->done) {
      g_mutex_unlock (&self->wait.lock);
      GST_INFO_OBJECT (self, "data set complete and verified: %"
          G_GUINT64_FORMAT " bytes", self->pushed_bytes);
      return GST_FLOW_EOS;
    }
    g_cond_wait (&self->wait.cond, &self->wait.lock);
  }
}

static void
close_sockets (GstRmtpSrc * self)
{
  g_clear_object (&self->group_udp);
  g_clear_object (&self->udp);
  g_clear_object (&self->server);
}

/* The group's port with the group joined, and an ephemeral port the
 * answers leave from and the server's unicast comes to (several receivers
 * of one host share the group's port). */
static gboolean
open_sockets (GstRmtpSrc * self, const GstNetUdpSettings * net,
    GError ** err)
{
  GstNetUdpSettings us = *net;
  GSocketAddress *group = gst_rmtp_group_address (net, err);
  gboolean ok;

  if (!group)
    return FALSE;
  us.join_later = TRUE;
  self->group_udp = gst_net_udp_new (&us, G_SOCKET_FAMILY_IPV4, err);
  if (self->group_udp)
    gst_net_udp_set_read_interval (self->group_udp, READ_INTERVAL);
  ok = self->group_udp && gst_net_udp_join (self->group_udp,
      g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (group)), NULL,
      err);
  us.socket = NULL;
  us.port = 0;
  if (ok)
    self->udp = gst_net_udp_new (&us, g_socket_address_get_family (group),
        err);
  g_object_unref (group);
  return ok && self->udp;
}

static void
reset_transfer (GstRmtpSrc * self)
{
  g_queue_clear_full (&self->held, (GDestroyNotify) g_bytes_unref);
  self->held_bytes = self->pushed_bytes = self->max_held_bytes = 0;
  self->buffers_pushed = self->answer_waits = 0;
  self->done = self->error_posted = self->backlogged = FALSE;
  self->failed = RMTP_FAIL_NONE;
  self->send_errors = self->other_source = 0;
  self->decode_max = 0;
  gst_net_loop_counts_clear (&self->loop_counts);
}

static gboolean
gst_rmtp_src_start (GstBaseSrc * bsrc)
{
  GstRmtpSrc *self = GST_RMTP_SRC (bsrc);
  GstNetUdpSettings net;
  GstNetKeySettings keys;
  AuthKey key;
  guint64 interval;
  guint32 member;
  GError *err = NULL;
  RmtpConfig cfg;
  guint out_limit;
  gboolean ok, have_key = FALSE, out_yields, early;

  GST_OBJECT_LOCK (self);
  gst_net_udp_settings_copy (&net, &self->settings.net);
  gst_net_key_settings_copy (&keys, &self->key);
  interval = self->settings.stats_interval;
  cfg = self->settings.cfg;
  member = self->member;
  out_limit = self->output_buffer_size;
  out_yields = self->answers_first;
  early = self->early_output;
  if (self->net_src.uri_error)
    err = g_error_copy (self->net_src.uri_error);
  GST_OBJECT_UNLOCK (self);

  ok = !err && gst_net_key_load (&keys, &key, &have_key, &err);
  gst_net_key_settings_clear (&keys);
  g_mutex_lock (&self->wait.lock);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  ok = ok && open_sockets (self, &net, &err);
  if (!ok)
    close_sockets (self);
  g_free (self->group);
  self->group = g_strdup_printf ("%s port %d", net.address, net.port);
  g_mutex_unlock (&self->wait.lock);
  gst_net_udp_settings_clear (&net);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }

  g_mutex_lock (&self->wait.lock);
  reset_transfer (self);
  self->out_limit = out_limit;
  self->out_yields = out_yields;
  self->early = early;
  random_source_init_seeded (&self->rng, &self->seed, g_random_int () |
      ((guint64) g_random_int () << 32));
  self->rx = rmtp_stream_receiver_new (&cfg, member, TRUE, &self->rng);
  rmtp_stream_receiver_set_early_output (self->rx, early);
  if (have_key)
    rmtp_stream_receiver_set_key (self->rx, &key);
  gst_net_key_wipe (&key, sizeof (key));
  self->connect_timeout = cfg.connect_timeout;
  rmtp_stream_receiver_start (self->rx, gst_net_now ());
  g_mutex_unlock (&self->wait.lock);

  if (cfg.parity_decode_apart)
    self->decoder = g_thread_pool_new_full (run_decode, self,
        (GDestroyNotify) rmtp_decode_job_free, 1, FALSE, NULL);
  gst_net_stats_start (&self->stats, interval, gst_net_now ());
  self->armed = G_MININT64;    /* the loop works at once after its start */
  self->loop = gst_net_loop_new ("rmtpsrc", src_work, self);
  gst_net_loop_set_owner (self->loop, GST_OBJECT (self));
  gst_net_loop_keep_counts (self->loop, &self->loop_counts, &self->wait.lock);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->group_udp),
      on_datagram, self);
  gst_net_loop_attach (self->loop, GST_NET_TRANSPORT (self->udp),
      on_datagram, self);
  gst_net_loop_start (self->loop);
  return TRUE;
}

static GstStructure *build_stats (GstRmtpSrc * self);

static gboolean
gst_rmtp_src_stop (GstBaseSrc * bsrc)
{
  GstRmtpSrc *self = GST_RMTP_SRC (bsrc);

  if (self->loop)
    gst_net_loop_stop (self->loop);
  /* a decode running finishes; those queued are dropped */
  if (self->decoder)
    g_thread_pool_free (g_steal_pointer (&self->decoder), TRUE, TRUE);
  g_mutex_lock (&self->wait.lock);
  g_queue_clear_full (&self->decoded, (GDestroyNotify) rmtp_decode_job_free);
  if (self->group_udp)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->group_udp));
  if (self->udp)
    gst_net_transport_detach (GST_NET_TRANSPORT (self->udp));
  close_sockets (self);
  g_clear_pointer (&self->loop, gst_net_loop_free);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  self->final_stats = build_stats (self);
  g_clear_pointer (&self->rx, rmtp_stream_receiver_free);
  reset_transfer (self);
  g_mutex_unlock (&self->wait.lock);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Properties */

static void
set_busy (GstRmtpSrc * self, gboolean busy)
{
  g_mutex_lock (&self->wait.lock);
  self->busy = busy;
  if (self->rx)
    apply_busy (self, gst_net_now ());
  g_mutex_unlock (&self->wait.lock);
  if (self->loop)
    gst_net_loop_wake (self->loop);
}

static void
gst_rmtp_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRmtpSrc *self = GST_RMTP_SRC (object);

  if (gst_net_src_props_set (GST_BASE_SRC (self), &self->net_src,
          PROP_NET_SRC, prop_id, value))
    return;
  if (prop_id == PROP_BUSY) {
    set_busy (self, g_value_get_boolean (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  if (gst_net_key_set (&self->key, PROP_KEY, prop_id, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_MEMBER:
      self->member = g_value_get_uint (value);
      break;
    case PROP_OUTPUT_BUFFER_SIZE:
      self->output_buffer_size = g_value_get_uint (value);
      break;
    case PROP_ANSWERS_FIRST:
      self->answers_first = g_value_get_boolean (value);
      break;
    case PROP_EARLY_OUTPUT:
      self->early_output = g_value_get_boolean (value);
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
state_name (RmtpReceiverState st)
{
  switch (st) {
    case RMTP_RECEIVER_WAIT_CONN:
      return "wait-conn";
    case RMTP_RECEIVER_RECEIVING:
      return "receiving";
    case RMTP_RECEIVER_BUSY:
      return "busy";
    case RMTP_RECEIVER_COMPLETE:
      return "complete";
    case RMTP_RECEIVER_DONE:
      return "done";
    case RMTP_RECEIVER_FAILED:
      return "failed";
  }
  return "unknown";
}

static void
core_stats (GstRmtpSrc * self, GstStructure * s)
{
  const RmtpReceiverStats *st = rmtp_receiver_stats (core (self));
  const RmtpStreamReceiverStats *ss = rmtp_stream_receiver_stats (self->rx);
  guint64 size = 0;
  const guint8 *digest;
  AuthStats auth = { 0 };
  gboolean keyed = rmtp_stream_receiver_auth_stats (self->rx, &auth);

  rmtp_receiver_data_set (core (self), &size, &digest);
  gst_rmtp_input_stats (s, &st->in);
  gst_net_key_stats (s, keyed, &auth);
  gst_structure_set (s,
      "state", G_TYPE_STRING, state_name (rmtp_receiver_state (core (self))),
      "windows-verified", G_TYPE_UINT, ss->windows,
      "backlogged", G_TYPE_BOOLEAN, self->backlogged,
      "window-held-bytes", G_TYPE_UINT64, ss->held,
      "max-window-held-bytes", G_TYPE_UINT64, ss->max_held,
      "total-bytes", G_TYPE_UINT64, size,
      "data-received", G_TYPE_UINT64, st->data_received,
      "cack-sent", G_TYPE_UINT64, st->cack_sent,
      "nack-sent", G_TYPE_UINT64, st->nack_sent,
      "ack-sent", G_TYPE_UINT64, st->ack_sent,
      "rack-sent", G_TYPE_UINT64, st->rack_sent,
      "busy-sent", G_TYPE_UINT64, st->busy_sent,
      "rrdy-sent", G_TYPE_UINT64, st->rrdy_sent,
      "report-sent", G_TYPE_UINT64, st->report_sent,
      "busy-dropped", G_TYPE_UINT64, st->busy_dropped,
      "parity-received", G_TYPE_UINT64, st->parity_received,
      "parity-recovered", G_TYPE_UINT64, st->parity_recovered,
      "conn-too-large", G_TYPE_UINT64, st->conn_too_large,
      "polls-held", G_TYPE_UINT64, st->polls_held,
      "answers-redrawn", G_TYPE_UINT64, st->answers_redrawn,
      "decode-jobs", G_TYPE_UINT64, st->decode_jobs,
      "decode-jobs-dropped", G_TYPE_UINT64, st->decode_jobs_dropped,
      "incremental-blocks", G_TYPE_UINT64, st->incremental_blocks, NULL);
}

/* The transfer's stats now. With `wait.lock`. */
static GstStructure *
build_stats (GstRmtpSrc * self)
{
  GstStructure *s = gst_structure_new_empty ("application/x-rmtp-src-stats");

  if (self->rx)
    core_stats (self, s);
  gst_structure_set (s,
      "verified", G_TYPE_BOOLEAN, self->rx &&
      rmtp_stream_receiver_verified (self->rx),
      "failure", G_TYPE_STRING, gst_rmtp_fail_reason_name (self->failed),
      "held-bytes", G_TYPE_UINT64, self->held_bytes,
      "max-held-bytes", G_TYPE_UINT64, self->max_held_bytes,
      "pushed-bytes", G_TYPE_UINT64, self->pushed_bytes,
      "buffers-pushed", G_TYPE_UINT64, self->buffers_pushed,
      "answer-waits", G_TYPE_UINT64, self->answer_waits,
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "other-source", G_TYPE_UINT64, self->other_source,
      "decode-max-time", G_TYPE_UINT64, self->decode_max, NULL);
  gst_net_loop_counts_add_stats (&self->loop_counts, s);
  return s;
}

/* The transfer's stats; once stopped, those it stopped with (until the
 * next start). */
static GstStructure *
get_stats (GstElement * element)
{
  GstRmtpSrc *self = GST_RMTP_SRC (element);
  GstStructure *s;

  g_mutex_lock (&self->wait.lock);
  s = self->final_stats ? gst_structure_copy (self->final_stats) :
      build_stats (self);
  g_mutex_unlock (&self->wait.lock);
  return s;
}

static void
gst_rmtp_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRmtpSrc *self = GST_RMTP_SRC (object);

  if (gst_net_src_props_get (GST_BASE_SRC (self), &self->net_src,
          &self->stats, PROP_NET_SRC, prop_id, value))
    return;
  if (prop_id == PROP_BUSY) {
    g_mutex_lock (&self->wait.lock);
    g_value_set_boolean (value, self->busy);
    g_mutex_unlock (&self->wait.lock);
    return;
  }
  GST_OBJECT_LOCK (self);
  if (gst_net_key_get (&self->key, PROP_KEY, prop_id, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_MEMBER:
      g_value_set_uint (value, self->member);
      break;
    case PROP_OUTPUT_BUFFER_SIZE:
      g_value_set_uint (value, self->output_buffer_size);
      break;
    case PROP_ANSWERS_FIRST:
      g_value_set_boolean (value, self->answers_first);
      break;
    case PROP_EARLY_OUTPUT:
      g_value_set_boolean (value, self->early_output);
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
gst_rmtp_src_finalize (GObject * object)
{
  GstRmtpSrc *self = GST_RMTP_SRC (object);

  reset_transfer (self);
  g_clear_pointer (&self->final_stats, gst_structure_free);
  g_free (self->group);
  gst_rmtp_settings_clear (&self->settings);
  gst_net_key_settings_clear (&self->key);
  gst_net_src_settings_clear (&self->net_src);
  gst_net_src_wait_clear (&self->wait);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

#define STATS_DOC \
  "state: wait-conn, receiving, busy, complete (verified), done " \
  "(released) or failed; " \
  "total-bytes: size of the data set the CONN announced (of the current " \
  "window, in a stream) (bytes); " \
  "windows-verified: stream windows verified before the current one " \
  "(windows); " \
  "window-held-bytes: bytes of the current window held until it is " \
  "verified (bytes); " \
  "max-window-held-bytes: the most ever held so (bytes); " \
  "backlogged: stream, the output is more than a window behind, so the " \
  "receiver says BUSY (boolean); " \
  "data-received: DATA packets taken (packets); " \
  "cack-sent: CACKs sent (packets); " \
  "nack-sent: NACKs sent (packets); " \
  "ack-sent: ACKs sent (packets); " \
  "rack-sent: RACKs sent (packets); " \
  "busy-sent: BUSY sent, on the busy property or again to a POLL " \
  "(packets); " \
  "rrdy-sent: RRDY sent when busy is cleared (packets); " \
  "report-sent: monitor reports sent (packets); " \
  "busy-dropped: DATA dropped while BUSY (packets); " \
  "parity-received: PARITY packets kept (packets); " \
  "parity-recovered: data packets rebuilt from parity (packets); " \
  "conn-too-large: CONNs of a data set over max-total-size, refused " \
  "(packets); " \
  "polls-held: POLLs not answered, as an answer was due or one went out " \
  "less than tat before (packets); " \
  "answers-redrawn: answers whose timer ran more than their window + tat " \
  "after their request, drawn again over their window (packets); " \
  "decode-jobs: parity-decode-thread, block decodes run on the worker " \
  "(blocks); " \
  "decode-jobs-dropped: decodes that came back after their block was " \
  "complete or gone (blocks); " \
  "incremental-blocks: blocks rebuilt by the incremental decoder " \
  "(parity-incremental, blocks of parity-incremental-min-block or more) " \
  "(blocks); " \
  GST_RMTP_INPUT_STATS_DOC "; " \
  "verified: the data set is whole and its digest matches (boolean); " \
  "failure: none, refused, digest, server-silent, incomplete, dropped, " \
  "stream-digest or no-conn (no CONN within connect-timeout); " \
  "held-bytes: data set bytes not output yet (bytes); " \
  "max-held-bytes: the most ever held so (bytes); " \
  "pushed-bytes: data set bytes output (bytes); " \
  "buffers-pushed: buffers output (buffers); " \
  "answer-waits: times the output paused for an ACK or RACK on its " \
  "backoff timer (answers-first) (pauses); " \
  "send-errors: answers the socket refused (packets); " \
  "decode-max-time: parity-decode-thread, the longest decode's wall time " \
  "on the worker (ns); " \
  "other-source: datagrams from another address than the server's, " \
  "dropped (packets); " \
  GST_NET_LOOP_STATS_DOC "; " \
  GST_NET_KEY_STATS_DOC

static const GstNetSrcProps src_props = {
  .caps_blurb = "The caps of the data set (as udpsrc's; ANY if unset)",
  .stats_blurb = "Receiver state and counters (read-only GstStructure). "
      "Fields: " STATS_DOC,
  .uri_blurb = GST_RMTP_URI_BLURB,
};

static void
install_properties (GObjectClass * oc)
{
  gst_rmtp_settings_install (oc, PROP_SETTINGS, &udp_props,
      GST_RMTP_PARAM_SRC, "rmtp-src-stats");
  g_object_class_install_property (oc, PROP_MEMBER,
      g_param_spec_uint ("member", "Member", "This receiver's id in the "
          "server's member list (rmtpsink receivers=N: 1..N)", 1, G_MAXUINT32,
          DEFAULT_MEMBER, RW));
  g_object_class_install_property (oc, PROP_BUSY,
      g_param_spec_boolean ("busy", "Busy", "Declare this receiver BUSY to "
          "the server (it drops the data and is served by unicast after the "
          "rounds); back to FALSE sends RRDY", FALSE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (oc, PROP_OUTPUT_BUFFER_SIZE,
      g_param_spec_uint ("output-buffer-size", "Output buffer size",
          "Largest buffer the verified data set is output in, bytes: the "
          "packets held in order are joined up to it (0: one buffer a "
          "packet, as before)", 0, G_MAXINT32, DEFAULT_OUTPUT_BUFFER_SIZE,
          RW));
  g_object_class_install_property (oc, PROP_ANSWERS_FIRST,
      g_param_spec_boolean ("answers-first", "Answers first", "While the "
          "data set is verified and not yet released, an ACK or RACK "
          "waiting on its backoff timer goes out before more output (FALSE: "
          "output goes on meanwhile; the default: held so, the output of "
          "20 MiB ended after the release, later)", DEFAULT_ANSWERS_FIRST,
          RW));
  g_object_class_install_property (oc, PROP_EARLY_OUTPUT,
      g_param_spec_boolean ("early-output", "Early output", "A data set "
          "(not a stream) is output in order as it arrives, in buffers of "
          "output-buffer-size, before its SHA-256 is verified; EOS still "
          "comes only after it matched, and a failure is an error after "
          "the bytes already output, which are then not the data set "
          "(FALSE: nothing is output before the digest matched)",
          DEFAULT_EARLY_OUTPUT, RW));
  /**
   * GstRmtpSrc:stats:
   *
   * The receiver's state and counters; every field with its unit in the
   * blurb.
   */
  gst_net_src_props_install (&src_props, oc, PROP_NET_SRC);
  gst_net_key_install (oc, PROP_KEY, "every control packet the receiver "
      "takes (CONN, EOR, POLL, REL, DROP) and sends (CACK, NACK, ACK, RACK, "
      "BUSY, RRDY, REPORT), not DATA or PARITY; the rmtpsink needs the same "
      "key");
}

static void
gst_rmtp_src_class_init (GstRmtpSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = gst_rmtp_src_set_property;
  gobject_class->get_property = gst_rmtp_src_get_property;
  gobject_class->finalize = gst_rmtp_src_finalize;
  bsrc_class->start = gst_rmtp_src_start;
  bsrc_class->stop = gst_rmtp_src_stop;
  gst_net_src_class_init (bsrc_class, G_STRUCT_OFFSET (GstRmtpSrc, wait),
      G_STRUCT_OFFSET (GstRmtpSrc, net_src.caps), &src_template);
  psrc_class->create = gst_rmtp_src_create;

  install_properties (gobject_class);
  gst_net_uri_handler_set_info (G_TYPE_FROM_CLASS (klass), GST_URI_SRC,
      "rmtp", "address", "port");

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "RMTP reliable multicast source", "Source/Network",
      "Receives the data set an rmtpsink delivers by RMTP reliable "
      "multicast, and outputs it whole, in order and verified by its SHA-256, "
      "then EOS; an error if it cannot complete. URI: "
      "rmtp://GROUP:PORT?member=N&... (any property as a query parameter). "
      "Example: gst-launch-1.0 -m rmtpsrc uri=rmtp://239.2.2.2:6000?member=1 "
      "! filesink location=out.bin", "gst-rtp-transports developers");
  GST_DEBUG_CATEGORY_INIT (gst_rmtp_src_debug, "rmtpsrc", 0,
      "RMTP reliable multicast source");
}

static void
gst_rmtp_src_init (GstRmtpSrc * self)
{
  gst_rmtp_settings_init (&self->settings, &udp_props);
  self->member = DEFAULT_MEMBER;
  self->output_buffer_size = DEFAULT_OUTPUT_BUFFER_SIZE;
  self->answers_first = DEFAULT_ANSWERS_FIRST;
  self->early_output = DEFAULT_EARLY_OUTPUT;
  gst_net_src_settings_init (&src_props, &self->net_src);
  gst_net_src_wait_init (&self->wait);
  g_queue_init (&self->held);
  g_queue_init (&self->decoded);
  gst_net_stats_init (&self->stats, GST_ELEMENT (self), "rmtp-src-stats",
      get_stats);
  gst_net_stats_post_at_eos (&self->stats, GST_BASE_SRC_PAD (self));
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_BYTES);
}
