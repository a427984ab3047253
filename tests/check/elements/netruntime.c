/* The shell runtime of gst/common on loopback: the I/O loop runs its work
 * at the deadline (not rounded to a whole ms), loses no wake, and reads
 * ready sockets before work due at the same time; the UDP transport
 * delivers datagrams with their source through the loop, queued ones
 * several a read with one address object a sender, none after a detach in
 * the callback, and with a read interval no sooner than it; an
 * application's socket is used as given; multicast joins and leaves at run
 * time, source-specific too. */
#include <gst/check/gstcheck.h>
#include <netinet/in.h>
#include "gstnetloop.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "gstnetsocket.h"
#include "gstparamtable.h"
#include "gstnetkey.h"
#include <glib/gstdio.h>
#include <unistd.h>

typedef struct
{
  GMutex lock;
  GCond cond;
  guint calls;
  gint64 last_end;              /* gst_net_now () when the last call ended */
  gint64 deadline;              /* what the first call returns; later
                                 * calls return G_MAXINT64 */
  gint64 early;                 /* a call before the deadline, ns early */
  guint slow_call;              /* this call sleeps 50 ms */
} Work;

static gint64
work_func (gpointer data, gint64 now)
{
  Work *w = data;
  gint64 d;

  g_mutex_lock (&w->lock);
  w->calls++;
  if (w->calls == 2 && w->deadline != G_MAXINT64 && now < w->deadline)
    w->early = MAX (w->early, w->deadline - now);
  if (w->calls == w->slow_call) {
    g_cond_broadcast (&w->cond);
    g_mutex_unlock (&w->lock);
    g_usleep (50 * 1000);
    g_mutex_lock (&w->lock);
  }
  d = w->calls == 1 ? w->deadline : G_MAXINT64;
  w->last_end = gst_net_now ();
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  return d;
}

/* Waits until *@count, under @lock and signalled on @cond, reaches @want
 * (2 s at most). */
static gboolean
wait_count (GMutex * lock, GCond * cond, const guint * count, guint want)
{
  /* a guard: a loaded host can keep the loop's thread off the CPU a while */
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  gboolean ok = TRUE;

  g_mutex_lock (lock);
  while (ok && *count < want)
    ok = g_cond_wait_until (cond, lock, end);
  g_mutex_unlock (lock);
  return ok;
}

/* Waits until the work ran @calls times. */
static gboolean
wait_calls (Work * w, guint calls)
{
  return wait_count (&w->lock, &w->cond, &w->calls, calls);
}

GST_START_TEST (test_loop_deadline)
{
  Work w = { 0 };
  GstNetLoop *loop = gst_net_loop_new ("test", work_func, &w);
  gint64 t0 = gst_net_now ();

  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  w.deadline = t0 + 30 * GST_MSECOND;
  gst_net_loop_start (loop);
  fail_unless (wait_calls (&w, 2));
  /* the second call came at the deadline, not before */
  fail_unless (gst_net_now () >= t0 + 30 * GST_MSECOND);
  fail_unless_equals_int64 (w.early, 0);
  /* no deadline: only a wake runs it */
  g_usleep (100 * 1000);
  fail_unless_equals_int (w.calls, 2);
  gst_net_loop_wake (loop);
  fail_unless (wait_calls (&w, 3));
  gst_net_loop_free (loop);
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
}

GST_END_TEST;

/* A wake that comes while the work runs makes it run again at once, even
 * though the work then returns a deadline far away: nothing else would run
 * it again, so the third call shows the wake kept (no wall-clock bound). */
GST_START_TEST (test_loop_wake_during_work)
{
  Work w = { 0 };
  GstNetLoop *loop = gst_net_loop_new ("test", work_func, &w);

  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  w.deadline = G_MAXINT64;
  w.slow_call = 2;
  gst_net_loop_start (loop);
  fail_unless (wait_calls (&w, 1));
  gst_net_loop_wake (loop);
  /* the second call has begun: wake it again while it sleeps */
  fail_unless (wait_calls (&w, 2));
  gst_net_loop_wake (loop);
  fail_unless (wait_calls (&w, 3), "the wake during the work was lost");
  gst_net_loop_free (loop);
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
}

GST_END_TEST;

#define PRECISE_CALLS 50
#define PRECISE_AHEAD (300 * GST_USECOND)

typedef struct
{
  GMutex lock;
  GCond cond;
  guint calls;
  gint64 deadline;              /* what the last call returned */
  gint64 least_late;            /* ns after its deadline, the least */
  gint64 early;                 /* a call before its deadline, ns early */
} Precise;

/* Asks to run again PRECISE_AHEAD after it returns, PRECISE_CALLS times. */
static gint64
precise_work (gpointer data, gint64 now)
{
  Precise *p = data;
  gint64 d = G_MAXINT64;

  g_mutex_lock (&p->lock);
  p->calls++;
  if (p->calls > 1 && now < p->deadline)
    p->early = MAX (p->early, p->deadline - now);
  else if (p->calls > 1)
    p->least_late = MIN (p->least_late, now - p->deadline);
  if (p->calls < PRECISE_CALLS)
    d = gst_net_now () + PRECISE_AHEAD;
  p->deadline = d;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return d;
}

/* A deadline less than 1 ms ahead is waited for as it is, not rounded up
 * to a whole ms (a poll in ms waits 1 ms: at least 700 us late here). The
 * least lateness of many runs, so a loaded machine's late wake-ups do not
 * matter; never early. */
GST_START_TEST (test_loop_deadline_sub_ms)
{
  Precise p = { 0 };
  GstNetLoop *loop = gst_net_loop_new ("test", precise_work, &p);

  g_mutex_init (&p.lock);
  g_cond_init (&p.cond);
  p.least_late = G_MAXINT64;
  gst_net_loop_start (loop);
  fail_unless (wait_count (&p.lock, &p.cond, &p.calls, PRECISE_CALLS));
  gst_net_loop_free (loop);
  fail_unless_equals_int64 (p.early, 0);
  fail_unless (p.least_late < 500 * GST_USECOND, "the work ran at least %"
      G_GINT64_FORMAT " us after its deadline", p.least_late / GST_USECOND);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.cond);
}

GST_END_TEST;

static gint64
idle_work (gpointer data, gint64 now)
{
  return G_MAXINT64;
}

static GstNetUdp *
udp_local (GSocket * app)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GError *err = NULL;
  GstNetUdp *u;

  s.address = "127.0.0.1";
  s.socket = app;
  u = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (u != NULL, "%s", err ? err->message : "");
  return u;
}

#define QUEUED 20

/* What the receive function saw of each datagram: its size, first byte,
 * the sender's port and the sender object (a reference). */
typedef struct
{
  GMutex lock;
  GCond cond;
  GstNetTransport *detach_at_call;      /* detach it in this call's func */
  guint detach_call;
  guint calls;
  gsize size[QUEUED];
  guint8 first[QUEUED];
  gint port[QUEUED];
  GSocketAddress *from[QUEUED];
  gint64 at[QUEUED];            /* gst_net_now () */
  gint64 arrival[QUEUED];       /* gst_net_transport_arrival () */
  GstNetLoop *loop;             /* the loop calling */
  guint64 turn[QUEUED];         /* the loop's turns done before the call */
} Seen;

static void
on_seen (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user_data)
{
  Seen *s = user_data;

  g_mutex_lock (&s->lock);
  if (s->calls < QUEUED) {
    s->size[s->calls] = size;
    s->first[s->calls] = data[0];
    s->port[s->calls] = gst_net_address_get_port (from);
    s->from[s->calls] = g_object_ref (from);
    s->at[s->calls] = gst_net_now ();
    s->arrival[s->calls] = gst_net_transport_arrival (t);
    s->turn[s->calls] = gst_net_loop_get_turns (s->loop);
  }
  s->calls++;
  if (s->detach_at_call && s->calls == s->detach_call)
    gst_net_transport_detach (s->detach_at_call);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static void
seen_clear (Seen * s)
{
  for (guint i = 0; i < MIN (s->calls, QUEUED); i++)
    g_object_unref (s->from[i]);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
}

/* Datagram i of QUEUED: from @c when i % 5 == 3, else from @a; i bytes
 * long plus one, its first byte i, and datagram 7 near UDP's largest. */
static void
send_queued (GstNetUdp * a, GstNetUdp * c, GSocketAddress * to)
{
  guint8 *buf = g_malloc0 (60000);

  for (guint i = 0; i < QUEUED; i++) {
    GstNetUdp *from = i % 5 == 3 ? c : a;

    buf[0] = i;
    fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (from), buf,
            i == 7 ? 60000 : i + 1, to, NULL));
  }
  g_free (buf);
}

static gboolean
wait_seen (Seen * s, guint calls)
{
  return wait_count (&s->lock, &s->cond, &s->calls, calls);
}

/* Two senders (a, c) and a receiver (b) on loopback, b's datagrams going
 * to on_seen in a loop. */
typedef struct
{
  GstNetUdp *a, *b, *c;
  GstNetLoop *loop;
  GSocketAddress *to;           /* b's address */
  Seen seen;
} Bed;

static void
bed_init (Bed * bed)
{
  memset (bed, 0, sizeof (*bed));
  bed->a = udp_local (NULL);
  bed->b = udp_local (NULL);
  bed->c = udp_local (NULL);
  bed->loop = gst_net_loop_new ("test", idle_work, NULL);
  bed->to = g_inet_socket_address_new_from_string ("127.0.0.1",
      gst_net_udp_get_port (bed->b));
  g_mutex_init (&bed->seen.lock);
  g_cond_init (&bed->seen.cond);
}

static void
bed_start (Bed * bed)
{
  bed->seen.loop = bed->loop;
  gst_net_loop_attach (bed->loop, GST_NET_TRANSPORT (bed->b), on_seen,
      &bed->seen);
  gst_net_loop_start (bed->loop);
}

static void
bed_clear (Bed * bed)
{
  gst_net_loop_stop (bed->loop);
  g_object_unref (bed->b);
  gst_net_loop_free (bed->loop);
  g_object_unref (bed->a);
  g_object_unref (bed->c);
  g_object_unref (bed->to);
  seen_clear (&bed->seen);
}

/* A datagram from one transport reaches the other's receive function in
 * the loop, with the sender's port. */
GST_START_TEST (test_udp_through_loop)
{
  Bed bed;

  bed_init (&bed);
  bed_start (&bed);
  fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (bed.a),
          (const guint8 *) "hello", 5, bed.to, NULL));
  fail_unless (wait_seen (&bed.seen, 1));
  fail_unless_equals_int (bed.seen.size[0], 5);
  fail_unless_equals_int (bed.seen.first[0], 'h');
  fail_unless_equals_int (bed.seen.port[0], gst_net_udp_get_port (bed.a));
  bed_clear (&bed);
}

GST_END_TEST;

/* A datagram read late is given with the time it reached the host (the
 * kernel's), not the time the loop read it: a loop that fell behind still
 * sees when the wire delivered (TPSS's admission depends on it). */
GST_START_TEST (test_udp_arrival_time)
{
  Bed bed;
  gint64 sent;

  bed_init (&bed);
  /* The first socket of the host to ask for timestamps turns the kernel's
   * stamping on through a deferred work item: a datagram that comes before
   * it runs is stamped when it is read. */
  g_usleep (100 * 1000);
  sent = gst_net_now ();
  fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (bed.a),
          (const guint8 *) "late", 4, bed.to, NULL));
  g_usleep (80 * 1000);
  bed_start (&bed);
  fail_unless (wait_seen (&bed.seen, 1));
  fail_unless (bed.seen.at[0] - sent >= 80 * GST_MSECOND);
  fail_unless (bed.seen.arrival[0] >= sent - GST_MSECOND &&
      bed.seen.arrival[0] < sent + 40 * GST_MSECOND,
      "arrival %" G_GINT64_FORMAT " ns after the send, read %" G_GINT64_FORMAT
      " ns after", bed.seen.arrival[0] - sent, bed.seen.at[0] - sent);
  bed_clear (&bed);
}

GST_END_TEST;

/* Two clocks in simulated time, 5 ms apart: every read takes
 * 100 ns, and the thread is preempted for @preempt[i] after the i-th
 * monotonic read. */
typedef struct {
  gint64 now;                   /* the monotonic clock, ns */
  gint64 offset;                /* the wall clock less it */
  const gint64 *preempt;
  guint n_preempt, monotonic_reads;
} FakeClocks;

static gint64
fake_monotonic (gpointer user_data)
{
  FakeClocks *c = user_data;
  gint64 t = c->now;
  guint i = c->monotonic_reads++;

  c->now += 100 + (i < c->n_preempt ? c->preempt[i] : 0);
  return t;
}

static gint64
fake_wall (gpointer user_data)
{
  FakeClocks *c = user_data;
  gint64 t = c->now + c->offset;

  c->now += 100;
  return t;
}

static gint64
fake_wall_offset (const gint64 * preempt, guint n)
{
  FakeClocks c = { 1000 * GST_SECOND, 5 * GST_MSECOND, preempt, n, 0 };

  return gst_net_wall_offset_with (fake_monotonic, fake_wall, &c) - c.offset;
}

/* The offset that puts the kernel's wall-clock receive stamps on the
 * loop's clock is read again when a thread was preempted between its
 * reads: one pair of reads (what the runtime did) puts the preemption
 * into the offset, and every datagram of the batch arrives that much
 * early. On the loaded namespace bed that took 7 ms off VLMCC's base RTT,
 * which then read every RTT as queue (docs/results.md, "VLMCC: arrival
 * stamps under load"). */
GST_START_TEST (test_wall_offset_preempted)
{
  static const gint64 none[] = { 0 };
  /* preempted before the wall read twice, then not */
  static const gint64 twice[] = { 5 * GST_MSECOND, 0, 3 * GST_MSECOND, 0 };
  /* preempted in every try: the bracket bounds the error */
  static const gint64 always[] = { 4 * GST_MSECOND, 0, 2 * GST_MSECOND, 0,
    6 * GST_MSECOND, 0, 3 * GST_MSECOND, 0
  };
  gint64 err;

  err = fake_wall_offset (none, G_N_ELEMENTS (none));
  fail_unless (ABS (err) <= 100, "off by %" G_GINT64_FORMAT " ns", err);
  err = fake_wall_offset (twice, G_N_ELEMENTS (twice));
  fail_unless (ABS (err) <= 100, "off by %" G_GINT64_FORMAT " ns", err);
  err = fake_wall_offset (always, G_N_ELEMENTS (always));
  fail_unless (ABS (err) <= GST_MSECOND + 100, "off by %" G_GINT64_FORMAT
      " ns", err);
  /* the real clocks: the offset holds from one reading to the next */
  err = gst_net_wall_offset () - gst_net_wall_offset ();
  fail_unless (ABS (err) <= 50 * 1000, "moved %" G_GINT64_FORMAT " ns", err);
}

GST_END_TEST;

/* The NTP offset of RTCP sender reports is read the same way: the wall
 * clock read first and the monotonic one after a preemption put the
 * preemption into every report's NTP time (the receivers' lip sync). */
GST_START_TEST (test_ntp_offset_preempted)
{
  /* preempted between the reads of the first two tries */
  static const gint64 twice[] = { 5 * GST_MSECOND, 0, 3 * GST_MSECOND, 0 };
  FakeClocks c = { 1000 * GST_SECOND, 5 * GST_MSECOND, twice,
    G_N_ELEMENTS (twice), 0
  };
  gint64 err;

  err = gst_net_ntp_offset_with (fake_monotonic, fake_wall, &c) -
      c.offset - GST_NET_NTP_EPOCH_OFFSET;
  fail_unless (ABS (err) <= 100, "off by %" G_GINT64_FORMAT " ns", err);
  /* the real clocks: the NTP time is the wall clock's, from 1900 */
  err = gst_net_ntp_offset () - gst_net_wall_offset () -
      GST_NET_NTP_EPOCH_OFFSET;
  fail_unless (ABS (err) <= 50 * 1000, "moved %" G_GINT64_FORMAT " ns", err);
}

GST_END_TEST;

/* Datagrams queued before the loop runs are read several at a time: each
 * comes whole, in order, with its sender, and the datagrams of one sender
 * share one address object, also when two senders take turns. */
GST_START_TEST (test_udp_queued_datagrams)
{
  Bed bed;
  Seen *s = &bed.seen;

  bed_init (&bed);
  send_queued (bed.a, bed.c, bed.to);
  bed_start (&bed);
  fail_unless (wait_seen (s, QUEUED));
  gst_net_loop_stop (bed.loop);
  fail_unless_equals_int (s->calls, QUEUED);
  for (guint i = 0; i < QUEUED; i++) {
    GstNetUdp *from = i % 5 == 3 ? bed.c : bed.a;

    fail_unless_equals_int (s->size[i], i == 7 ? 60000 : i + 1);
    fail_unless_equals_int (s->first[i], i);
    fail_unless_equals_int (s->port[i], gst_net_udp_get_port (from));
    if (i > 0 && (i - 1) % 5 != 3 && i % 5 != 3)
      fail_unless (s->from[i] == s->from[i - 1], "datagram %u: a new object "
          "for the same sender", i);
    if (i > 0 && i % 5 == 3)
      fail_unless (s->from[i] != s->from[i - 1]);
  }
  /* senders that take turns keep their objects too */
  fail_unless (s->from[4] == s->from[2]);
  fail_unless (s->from[18] == s->from[3]);
  bed_clear (&bed);
}

GST_END_TEST;

/* A receive function that detaches its transport gets no further call,
 * though more datagrams were waiting and read with the one it had. */
GST_START_TEST (test_udp_detach_in_callback)
{
  Bed bed;

  bed_init (&bed);
  bed.seen.detach_at_call = GST_NET_TRANSPORT (bed.b);
  bed.seen.detach_call = 2;
  send_queued (bed.a, bed.c, bed.to);
  bed_start (&bed);
  fail_unless (wait_seen (&bed.seen, 2));
  /* the turn that read them all has ended once the loop has stopped */
  gst_net_loop_stop (bed.loop);
  fail_unless_equals_int (bed.seen.calls, 2);
  bed_clear (&bed);
}

GST_END_TEST;

#define READ_INTERVAL_MS 500

static void
send_byte (Bed * bed, guint8 byte)
{
  fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (bed->a), &byte,
          1, bed->to, NULL));
}

/* The work's first call holds the loop until a datagram is queued and
 * returns a deadline already due; the second notes how many datagrams the
 * receive function had seen by then. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint calls;
  gboolean queued;
  Seen *seen;
  guint seen_at_second;
} Stall;

static gint64
stall_work (gpointer data, gint64 now)
{
  Stall *st = data;
  guint seen;
  gint64 d;

  g_mutex_lock (&st->seen->lock);
  seen = st->seen->calls;
  g_mutex_unlock (&st->seen->lock);
  g_mutex_lock (&st->lock);
  st->calls++;
  if (st->calls == 2)
    st->seen_at_second = seen;
  g_cond_broadcast (&st->cond);
  while (st->calls == 1 && !st->queued)
    g_cond_wait (&st->cond, &st->lock);
  d = st->calls == 1 ? now : G_MAXINT64;
  g_mutex_unlock (&st->lock);
  return d;
}

/* Input and work due at once: the loop reads the socket before it runs
 * the work, so a session that stalled past a timeout sees the answers that
 * came meanwhile before its timer fires. */
GST_START_TEST (test_loop_input_before_work)
{
  Bed bed;
  Stall st = { 0 };

  bed_init (&bed);
  gst_net_loop_free (bed.loop);
  bed.loop = gst_net_loop_new ("test", stall_work, &st);
  g_mutex_init (&st.lock);
  g_cond_init (&st.cond);
  st.seen = &bed.seen;
  bed_start (&bed);
  fail_unless (wait_count (&st.lock, &st.cond, &st.calls, 1));
  send_byte (&bed, 1);
  fail_unless (g_socket_condition_timed_wait (gst_net_udp_get_socket (bed.b),
          G_IO_IN, 2 * G_USEC_PER_SEC, NULL, NULL));
  g_mutex_lock (&st.lock);
  st.queued = TRUE;
  g_cond_broadcast (&st.cond);
  g_mutex_unlock (&st.lock);
  fail_unless (wait_count (&st.lock, &st.cond, &st.calls, 2));
  fail_unless (wait_seen (&bed.seen, 1));
  fail_unless_equals_int (st.seen_at_second, 1);
  bed_clear (&bed);
  g_mutex_clear (&st.lock);
  g_cond_clear (&st.cond);
}

GST_END_TEST;

/* Whether @bed's loop stops turning: no turn in @quiet_us, tried for 10 s
 * (a guard). */
static gboolean
wait_loop_quiet (Bed * bed, gulong quiet_us)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint64 turns;

  do {
    turns = gst_net_loop_get_turns (bed->loop);
    g_usleep (quiet_us);
    if (gst_net_loop_get_turns (bed->loop) == turns)
      return TRUE;
  } while (g_get_monotonic_time () < end);
  return FALSE;
}

/* With a read interval, a datagram that follows a read is read one
 * interval after it, not at once; after a quiet interval, the next is read
 * at once again: the loop waits on the socket, not for the interval's end
 * (checked by the loop's turns, not by wall-clock time). */
GST_START_TEST (test_udp_read_interval)
{
  Bed bed;
  Seen *r = &bed.seen;
  guint64 quiet_turns;

  bed_init (&bed);
  gst_net_udp_set_read_interval (bed.b, READ_INTERVAL_MS * GST_MSECOND);
  bed_start (&bed);
  send_byte (&bed, 1);
  fail_unless (wait_seen (r, 1));
  send_byte (&bed, 2);
  fail_unless (wait_seen (r, 2));
  fail_unless (r->at[1] - r->at[0] >= READ_INTERVAL_MS / 2 * GST_MSECOND,
      "read %" G_GINT64_FORMAT " ms after the first", (r->at[1] - r->at[0]) /
      GST_MSECOND);
  /* a read that finds nothing ends the pause: the loop turns no more */
  fail_unless (wait_loop_quiet (&bed, 2 * READ_INTERVAL_MS * 1000),
      "the loop kept turning with no datagram coming");
  quiet_turns = gst_net_loop_get_turns (bed.loop);
  send_byte (&bed, 3);
  fail_unless (wait_seen (r, 3));
  fail_unless_equals_uint64 (r->turn[2], quiet_turns);
  bed_clear (&bed);
}

GST_END_TEST;

/* Our own socket is closed with the transport; the application's is not,
 * and keeps its blocking mode. */
GST_START_TEST (test_udp_socket_ownership)
{
  GSocket *app = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GSocketAddress *lo = g_inet_socket_address_new_from_string ("127.0.0.1",
      0);
  GstNetUdp *u;
  GSocket *own;

  fail_unless (g_socket_bind (app, lo, FALSE, NULL));
  u = udp_local (app);
  fail_unless (gst_net_udp_get_socket (u) == app);
  fail_unless_equals_int (gst_net_udp_get_port (u),
      gst_net_socket_get_local_port (app));
  g_object_unref (u);
  fail_if (g_socket_is_closed (app));
  fail_unless (g_socket_get_blocking (app));

  u = udp_local (NULL);
  own = g_object_ref (gst_net_udp_get_socket (u));
  g_object_unref (u);
  fail_unless (g_socket_is_closed (own));
  g_object_unref (own);
  g_object_unref (app);
  g_object_unref (lo);
}

GST_END_TEST;

/* A multicast address binds the port and joins the group; groups are
 * joined and left at run time, any-source and source-specific. */
GST_START_TEST (test_udp_multicast_membership)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GInetAddress *g2 = g_inet_address_new_from_string ("239.255.42.43");
  GInetAddress *ssm = g_inet_address_new_from_string ("232.1.2.3");
  GInetAddress *src = g_inet_address_new_from_string ("127.0.0.1");
  GError *err = NULL;
  GstNetUdp *u;

  s.address = "239.255.42.42";
  s.multicast_iface = "lo";
  s.ttl_mc = 1;
  u = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (u != NULL, "%s", err ? err->message : "");
  fail_unless (gst_net_udp_get_port (u) > 0);
  fail_unless (gst_net_udp_join (u, g2, NULL, &err), "%s", err ?
      err->message : "");
  fail_unless (gst_net_udp_leave (u, g2, NULL, NULL));
  /* leaving again: not a member, a clear error */
  fail_if (gst_net_udp_leave (u, g2, NULL, &err));
  fail_unless (strstr (err->message, "Could not leave multicast group "
          "239.255.42.43") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_unless (gst_net_udp_join (u, ssm, src, &err), "%s", err ?
      err->message : "");
  fail_unless (gst_net_udp_leave (u, ssm, src, NULL));
  g_object_unref (u);
  g_object_unref (g2);
  g_object_unref (ssm);
  g_object_unref (src);
}

GST_END_TEST;

/* join_later binds a multicast address's port but joins nothing: leaving
 * the group fails (not a member) until the caller joins it, as RLM's
 * receiver does when its core says so; the socket gets only the groups it
 * joins itself. */
GST_START_TEST (test_udp_multicast_join_later)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GInetAddress *g = g_inet_address_new_from_string ("239.255.42.44");
  GError *err = NULL;
  GstNetUdp *u;

  s.address = "239.255.42.44";
  s.multicast_iface = "lo";
  s.join_later = TRUE;
  u = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (u != NULL, "%s", err ? err->message : "");
  fail_unless (gst_net_udp_get_port (u) > 0);
#ifdef IP_MULTICAST_ALL
  {
    gint all = 1;
    /* only the groups this socket joins, not every group of the host */
    fail_unless (g_socket_get_option (gst_net_udp_get_socket (u), IPPROTO_IP,
            IP_MULTICAST_ALL, &all, NULL));
    fail_unless_equals_int (all, 0);
  }
#endif
  fail_if (gst_net_udp_leave (u, g, NULL, &err));
  g_clear_error (&err);
  fail_unless (gst_net_udp_join (u, g, NULL, &err), "%s", err ?
      err->message : "");
  fail_unless (gst_net_udp_leave (u, g, NULL, NULL));
  g_object_unref (u);
  g_object_unref (g);
}

GST_END_TEST;

/* multicast-iface is also the interface multicast leaves through: a
 * member's datagram to its group loops back over lo (the default route
 * would take it elsewhere); an interface that does not exist is an error
 * naming the setting. */
GST_START_TEST (test_udp_multicast_send_iface)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GInetAddress *group = g_inet_address_new_from_string ("239.255.42.44");
  GSocketAddress *to;
  GSocket *sock;
  GError *err = NULL;
  GstNetUdp *u;
  gchar buf[8];

  s.address = "239.255.42.44";
  s.multicast_iface = "lo";
  u = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (u != NULL, "%s", err ? err->message : "");
  sock = gst_net_udp_get_socket (u);
  to = g_inet_socket_address_new (group, gst_net_udp_get_port (u));
  fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (u),
          (const guint8 *) "mc", 2, to, &err), "%s", err ? err->message : "");
  fail_unless (g_socket_condition_timed_wait (sock, G_IO_IN, G_USEC_PER_SEC,
          NULL, NULL));
  fail_unless_equals_int (g_socket_receive (sock, buf, sizeof (buf), NULL,
          NULL), 2);
  g_object_unref (to);
  g_object_unref (u);

  s.multicast_iface = "no-such-if0";
  fail_if (gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err));
  fail_unless (strstr (err->message, "multicast-iface") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  g_object_unref (group);
}

GST_END_TEST;

/* A table's 64-bit bounds at the type's end are that end exactly (as
 * doubles they round up past it). */
typedef struct
{
  guint64 bytes;
  gint64 wait;
} Bounds;

static void
bounds_init (gpointer cfg)
{
  ((Bounds *) cfg)->bytes = 7;
  ((Bounds *) cfg)->wait = 9;
}

static const GstParamEntry bounds_entries[] = {
  {"bytes", NULL, "bytes", GST_PARAM_KIND_UINT64, NULL, 1,
      (gdouble) G_MAXUINT64, G_STRUCT_OFFSET (Bounds, bytes), 1},
  {"wait", NULL, "ns", GST_PARAM_KIND_TIME, NULL, 0, (gdouble) G_MAXINT64,
      G_STRUCT_OFFSET (Bounds, wait), 1},
};

static const GstParamTable bounds_table = { bounds_entries,
  G_N_ELEMENTS (bounds_entries), sizeof (Bounds), bounds_init
};

typedef struct
{
  GObject parent;
  Bounds cfg;
} BoundsObject;

static void
bounds_set (GObject * o, guint id, const GValue * v, GParamSpec * ps)
{
  gst_param_table_set (&bounds_table, &((BoundsObject *) o)->cfg, 1, id, v);
}

static void
bounds_get (GObject * o, guint id, GValue * v, GParamSpec * ps)
{
  gst_param_table_get (&bounds_table, &((BoundsObject *) o)->cfg, 1, id, v);
}

static void
bounds_class_init (gpointer klass, gpointer data)
{
  G_OBJECT_CLASS (klass)->set_property = bounds_set;
  G_OBJECT_CLASS (klass)->get_property = bounds_get;
  gst_param_table_install (&bounds_table, klass, 1, 1);
}

GST_START_TEST (test_param_table_64bit_bounds)
{
  GType type = g_type_register_static_simple (G_TYPE_OBJECT,
      "NetRuntimeBounds", sizeof (GObjectClass), bounds_class_init,
      sizeof (BoundsObject), NULL, 0);
  GObject *o = g_object_new (type, NULL);
  GObjectClass *klass = G_OBJECT_GET_CLASS (o);
  GParamSpecUInt64 *bytes, *wait;
  guint64 b = 0, w = 0;

  bytes = G_PARAM_SPEC_UINT64 (g_object_class_find_property (klass, "bytes"));
  wait = G_PARAM_SPEC_UINT64 (g_object_class_find_property (klass, "wait"));
  fail_unless_equals_uint64 (bytes->minimum, 1);
  fail_unless_equals_uint64 (bytes->maximum, G_MAXUINT64);
  fail_unless_equals_uint64 (bytes->default_value, 7);
  fail_unless_equals_uint64 (wait->maximum, G_MAXINT64);
  fail_unless_equals_uint64 (wait->default_value, 9);
  g_object_set (o, "bytes", G_MAXUINT64, "wait", (guint64) G_MAXINT64, NULL);
  g_object_get (o, "bytes", &b, "wait", &w, NULL);
  fail_unless_equals_uint64 (b, G_MAXUINT64);
  fail_unless_equals_uint64 (w, G_MAXINT64);
  g_object_unref (o);
}

GST_END_TEST;

/* A name that cannot resolve fails with the setting named. */
GST_START_TEST (test_resolve_errors)
{
  GError *err = NULL;
  GSocketAddress *a = gst_net_resolve ("host", "127.0.0.1", 5004, NULL, NULL);

  fail_unless_equals_int (gst_net_address_get_port (a), 5004);
  g_object_unref (a);
  fail_if (gst_net_resolve ("peer-address", "no-such-host.invalid", 0, NULL,
          &err));
  fail_unless (g_str_has_prefix (err->message,
          "Could not resolve peer-address \"no-such-host.invalid\""), "%s",
      err->message);
  g_clear_error (&err);
}

GST_END_TEST;

/* gstnetkey: none, a key, a key file (trailing white space dropped); both
 * set, a file too long, a NUL byte, an unreadable file and a bad key each
 * give an error naming the setting and never the key; set "" is none. */
static gchar *
key_file_with (const gchar * text, gssize len)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "netkey-XXXXXX", NULL);
  gint fd = g_mkstemp (path);

  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, text, len, NULL));
  return path;
}

static gboolean
load (const gchar * key, const gchar * file, AuthKey * k, gboolean * have,
    GError ** err)
{
  GstNetKeySettings s = { g_strdup (key), g_strdup (file) };
  gboolean ok = gst_net_key_load (&s, k, have, err);

  gst_net_key_settings_clear (&s);
  return ok;
}

GST_START_TEST (test_net_key_load)
{
  const gchar *hex =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  gchar *good = g_strdup_printf ("%s \n\t\n", hex);
  gchar *path = key_file_with (good, -1), *big_text, *big, *nul;
  AuthKey k, want;
  gboolean have = TRUE;
  GError *err = NULL;
  GstNetKeySettings s = { NULL, NULL };
  GValue v = G_VALUE_INIT;

  fail_unless (load (NULL, NULL, &k, &have, &err));
  fail_if (have);
  fail_unless (auth_key_from_string (hex, &want, NULL));
  fail_unless (load (hex, NULL, &k, &have, &err) && have);
  fail_unless (memcmp (k.bytes, want.bytes, AUTH_KEY_SIZE) == 0);
  memset (&k, 0, sizeof (k));
  fail_unless (load (NULL, path, &k, &have, &err) && have);
  fail_unless (memcmp (k.bytes, want.bytes, AUTH_KEY_SIZE) == 0);

  fail_if (load (hex, path, &k, &have, &err));
  fail_unless (strstr (err->message, "both set") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_if (load ("tooshort", NULL, &k, &have, &err));
  fail_unless (g_str_has_prefix (err->message, "key: "), "%s", err->message);
  fail_unless (strstr (err->message, "tooshort") == NULL);
  g_clear_error (&err);
  big_text = g_strnfill (GST_NET_KEY_FILE_MAX + 1, 'a');
  big = key_file_with (big_text, -1);
  fail_if (load (NULL, big, &k, &have, &err));
  fail_unless (strstr (err->message, "longer than 4096 bytes") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  nul = key_file_with ("correct horse\0battery", 21);
  fail_if (load (NULL, nul, &k, &have, &err));
  fail_unless (strstr (err->message, "NUL") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_unless (g_file_set_contents (path, "hunter2\n", -1, NULL));
  fail_if (load (NULL, path, &k, &have, &err));
  fail_unless (g_str_has_prefix (err->message, "key-file \""), "%s",
      err->message);
  fail_unless (strstr (err->message, "hunter2") == NULL);
  g_clear_error (&err);
  g_unlink (path);
  fail_if (load (NULL, path, &k, &have, &err));
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ));
  g_clear_error (&err);

  /* set: "" is none, the key file reads back */
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "");
  fail_unless (gst_net_key_set (&s, 10, 10 + GST_NET_KEY_PROP_KEY, &v));
  fail_unless (s.key == NULL);
  g_value_set_string (&v, "/k");
  fail_unless (gst_net_key_set (&s, 10, 10 + GST_NET_KEY_PROP_KEY_FILE, &v));
  fail_if (gst_net_key_set (&s, 10, 12, &v));
  g_value_set_string (&v, NULL);
  fail_unless (gst_net_key_get (&s, 10, 10 + GST_NET_KEY_PROP_KEY_FILE, &v));
  fail_unless_equals_string (g_value_get_string (&v), "/k");
  fail_if (gst_net_key_get (&s, 10, 10 + GST_NET_KEY_PROP_KEY, &v));
  g_value_unset (&v);
  gst_net_key_settings_clear (&s);
  g_unlink (big);
  g_unlink (nul);
  g_free (good);
  g_free (path);
  g_free (big_text);
  g_free (big);
  g_free (nul);
}

GST_END_TEST;

static Suite *
netruntime_suite (void)
{
  Suite *s = suite_create ("netruntime");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_loop_deadline);
  tcase_add_test (tc, test_loop_wake_during_work);
  tcase_add_test (tc, test_loop_deadline_sub_ms);
  tcase_add_test (tc, test_udp_through_loop);
  tcase_add_test (tc, test_udp_queued_datagrams);
  tcase_add_test (tc, test_udp_arrival_time);
  tcase_add_test (tc, test_wall_offset_preempted);
  tcase_add_test (tc, test_ntp_offset_preempted);
  tcase_add_test (tc, test_udp_detach_in_callback);
  tcase_add_test (tc, test_loop_input_before_work);
  tcase_add_test (tc, test_udp_read_interval);
  tcase_add_test (tc, test_udp_socket_ownership);
  tcase_add_test (tc, test_udp_multicast_membership);
  tcase_add_test (tc, test_udp_multicast_join_later);
  tcase_add_test (tc, test_udp_multicast_send_iface);
  tcase_add_test (tc, test_param_table_64bit_bounds);
  tcase_add_test (tc, test_resolve_errors);
  tcase_add_test (tc, test_net_key_load);
  return s;
}

GST_CHECK_MAIN (netruntime);
