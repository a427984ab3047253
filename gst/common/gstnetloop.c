/* The session's I/O loop (see gstnetloop.h). */
#define _GNU_SOURCE             /* ppoll */
#include <poll.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include "gstnetloop.h"
#include "gstnettime.h"

GST_DEBUG_CATEGORY_STATIC (net_loop_debug);
#define GST_CAT_DEFAULT net_loop_debug

/* Turns in a row in which the work ran only for its deadline, with no
 * wake and nothing dispatched, and left that deadline due: past this many
 * the work is spinning the loop (a pacer catching up, or a work that asks
 * for "now" a few times, stays far below it), and each such turn first
 * waits SPIN_HOLD, so the loop stays responsive without a core's CPU. */
#define SPIN_TURNS 1000
#define SPIN_HOLD (1000 * 1000)

/* A turn whose work runs this much or more after the time it was due is
 * late: the thread was off the CPU (or busy elsewhere) when its deadline
 * came. ppoll's slack and a turn's own reads stay far below it. */
#define LATE_TURN (2 * 1000 * 1000)

struct _GstNetLoop
{
  gchar *name;
  GMainContext *context;
  GThread *thread;
  GstNetLoopWorkFunc work;
  gpointer user_data;
  gint running;                 /* atomic: cleared by stop */
  gint woken;                   /* atomic: a wake since the work began */
  gsize spins;                  /* atomic: turns held back SPIN_HOLD */
  gsize turns;                  /* atomic: turns run */
  gsize late_turns;             /* atomic: turns LATE_TURN late or more */
  gsize late_time;              /* atomic: ns those turns were late */
  gsize late_max;               /* atomic: the latest of them, ns */
  GstObject *owner;             /* named in the spin warning; not owned */
  GstNetLoopCounts *counts;     /* the element's, taken at stop under */
  GMutex *counts_lock;          /* this lock */
  /* loop thread only */
  gint64 deadline;              /* the work's next run, ns; G_MAXINT64: none */
  gint64 armed;                 /* ns: the turn that set it ran then */
  gint64 hold_until;            /* ns: a spinning work waits until then */
  guint spin_turns;             /* turns running that left the deadline due */
  gboolean warned;
  GPollFD *fds;
  gint n_fds;                   /* allocated */
};

/* GLib's poll is the system's on Unix, so its fds are struct pollfd. */
G_STATIC_ASSERT (sizeof (GPollFD) == sizeof (struct pollfd));

GstNetLoop *
gst_net_loop_new (const gchar * name, GstNetLoopWorkFunc work,
    gpointer user_data)
{
  GstNetLoop *loop = g_new0 (GstNetLoop, 1);

  GST_DEBUG_CATEGORY_INIT (net_loop_debug, "netloop", 0,
      "the shells' I/O loop");
  loop->name = g_strdup (name);
  loop->context = g_main_context_new ();
  loop->work = work;
  loop->user_data = user_data;
  loop->deadline = G_MAXINT64;
  return loop;
}

/* ns until the work is due (rounded up to the us of gst_net_now (), so a
 * wait that ends finds it due); -1: only a wake runs it. The clock is read
 * once: MAX (0, due - gst_net_now ()) read it twice, and when the thread
 * was preempted between the reads across the deadline it gave a negative
 * wait, which ppoll takes as none at all. */
static gint64
work_wait (GstNetLoop * loop)
{
  gint64 due, now;

  if (g_atomic_int_get (&loop->woken))
    return 0;
  if (loop->deadline == G_MAXINT64)
    return -1;
  due = (MAX (loop->deadline, loop->hold_until) + 999) / 1000 * 1000;
  now = gst_net_now ();
  return due > now ? due - now : 0;
}

/* Waits for the context's fds until the earlier of GLib's timeout (ms)
 * and the work's deadline (ns: a pacer's deadline is not rounded to 1 ms
 * as g_poll would). */
static void
wait_for_input (GstNetLoop * loop, gint n_fds, gint timeout_ms)
{
  gint64 wait = work_wait (loop);
  gint64 glib_wait = timeout_ms * G_GINT64_CONSTANT (1000000);
  struct timespec ts;

  if (timeout_ms >= 0 && (wait < 0 || wait > glib_wait))
    wait = glib_wait;
  ts.tv_sec = wait / 1000000000;
  ts.tv_nsec = wait % 1000000000;
  /* EINTR: the check finds nothing new and the next turn waits again */
  ppoll ((struct pollfd *) loop->fds, n_fds, wait < 0 ? NULL : &ts, NULL);
}

static void
warn_spinning (GstNetLoop * loop)
{
  if (loop->warned)
    return;
  loop->warned = TRUE;
  GST_WARNING_OBJECT (loop->owner, "%s: the work left its deadline due for "
      "%u turns running with no input and no wake; each such turn now waits "
      "%d us first (counted in loop-spins)", loop->owner ?
      GST_OBJECT_NAME (loop->owner) : loop->name, SPIN_TURNS,
      SPIN_HOLD / 1000);
}

/* @spun: the work ran only for its deadline and left it due at @now. */
static void
check_spinning (GstNetLoop * loop, gboolean spun, gint64 now)
{
  if (!spun) {
    loop->spin_turns = 0;
    return;
  }
  if (++loop->spin_turns < SPIN_TURNS)
    return;
  loop->hold_until = now + SPIN_HOLD;
  g_atomic_pointer_add (&loop->spins, 1);
  warn_spinning (loop);
}

/* When the work, by the deadline it last gave, was due: never before the
 * turn that gave it, as a pacer making up lost time asks for "now" or
 * earlier on purpose, and only a thread that then waits is late. */
static gint64
work_due (GstNetLoop * loop, gboolean input)
{
  gint64 due = MAX (loop->deadline, loop->armed);

  /* a held turn is due at the hold's end: the loop's choice, not a stall */
  return input ? due : MAX (due, loop->hold_until);
}

/* Counts the turn late when the work, due at @due, runs at @now
 * LATE_TURN or more after it. */
static void
note_lateness (GstNetLoop * loop, gint64 due, gint64 now)
{
  gint64 late = now - due;

  if (due == G_MAXINT64 || late < LATE_TURN)
    return;
  g_atomic_pointer_add (&loop->late_turns, 1);
  g_atomic_pointer_add (&loop->late_time, (gsize) late);
  if ((gsize) late > (gsize) g_atomic_pointer_get (&loop->late_max))
    g_atomic_pointer_set (&loop->late_max, (gsize) late);
}

/* @input: the turn dispatched a source; it ends a hold, as a wake does. */
static void
run_work_if_due (GstNetLoop * loop, gboolean input)
{
  gint64 now = gst_net_now ();
  gboolean woken = g_atomic_int_get (&loop->woken);
  gboolean due = now >= loop->deadline && (input || now >= loop->hold_until);

  if (!woken && !due)
    return;
  if (now >= loop->deadline)
    note_lateness (loop, work_due (loop, input), now);
  /* a wake while the work runs sets it again: the next turn does not wait */
  g_atomic_int_set (&loop->woken, 0);
  loop->deadline = loop->work (loop->user_data, now);
  loop->armed = now;
  check_spinning (loop, !woken && !input && loop->deadline <= now, now);
}

/* One turn: wait, dispatch the ready sources, then the work if it is
 * due, so input that came while the work was due (a stalled thread, a
 * late wake-up) reaches the core before its timers fire. */
static void
loop_turn (GstNetLoop * loop)
{
  gint max_priority, timeout_ms, n;
  gboolean input;

  g_main_context_prepare (loop->context, &max_priority);
  while ((n = g_main_context_query (loop->context, max_priority,
              &timeout_ms, loop->fds, loop->n_fds)) > loop->n_fds) {
    loop->n_fds = n;
    loop->fds = g_renew (GPollFD, loop->fds, n);
  }
  wait_for_input (loop, n, timeout_ms);
  input = g_main_context_check (loop->context, max_priority, loop->fds, n);
  g_main_context_dispatch (loop->context);
  run_work_if_due (loop, input);
  g_atomic_pointer_add (&loop->turns, 1);
}

static gpointer
loop_thread (gpointer data)
{
  GstNetLoop *loop = data;

  /* also acquires the context: its sources dispatch in this thread only */
  g_main_context_push_thread_default (loop->context);
  while (g_atomic_int_get (&loop->running))
    loop_turn (loop);
  g_main_context_pop_thread_default (loop->context);
  return NULL;
}

void
gst_net_loop_start (GstNetLoop * loop)
{
  g_return_if_fail (loop->thread == NULL);
  g_atomic_int_set (&loop->woken, 1);
  g_atomic_int_set (&loop->running, 1);
  loop->thread = g_thread_new (loop->name, loop_thread, loop);
}

void
gst_net_loop_stop (GstNetLoop * loop)
{
  if (!loop->thread)
    return;
  /* the turn under way completes; the thread then ends */
  g_atomic_int_set (&loop->running, 0);
  g_main_context_wakeup (loop->context);
  g_thread_join (loop->thread);
  loop->thread = NULL;
  if (loop->counts) {
    g_mutex_lock (loop->counts_lock);
    gst_net_loop_counts_take (loop->counts, loop);
    g_mutex_unlock (loop->counts_lock);
  }
  GST_INFO_OBJECT (loop->owner, "%s: ended after %" G_GUINT64_FORMAT
      " turns, %" G_GUINT64_FORMAT " held back", loop->owner ?
      GST_OBJECT_NAME (loop->owner) : loop->name,
      gst_net_loop_get_turns (loop), gst_net_loop_get_spins (loop));
}

void
gst_net_loop_free (GstNetLoop * loop)
{
  gst_net_loop_stop (loop);
  g_main_context_unref (loop->context);
  g_free (loop->fds);
  g_free (loop->name);
  g_free (loop);
}

void
gst_net_loop_wake (GstNetLoop * loop)
{
  g_atomic_int_set (&loop->woken, 1);
  g_main_context_wakeup (loop->context);
}

void
gst_net_loop_set_owner (GstNetLoop * loop, GstObject * owner)
{
  loop->owner = owner;
}

guint64
gst_net_loop_get_spins (GstNetLoop * loop)
{
  return (gsize) g_atomic_pointer_get (&loop->spins);
}

guint64
gst_net_loop_get_turns (GstNetLoop * loop)
{
  return (gsize) g_atomic_pointer_get (&loop->turns);
}

guint64
gst_net_loop_get_late_turns (GstNetLoop * loop)
{
  return (gsize) g_atomic_pointer_get (&loop->late_turns);
}

guint64
gst_net_loop_get_late_time (GstNetLoop * loop)
{
  return (gsize) g_atomic_pointer_get (&loop->late_time);
}

guint64
gst_net_loop_get_late_max (GstNetLoop * loop)
{
  return (gsize) g_atomic_pointer_get (&loop->late_max);
}

void
gst_net_loop_counts_clear (GstNetLoopCounts * counts)
{
  memset (counts, 0, sizeof (*counts));
}

void
gst_net_loop_counts_take (GstNetLoopCounts * counts, GstNetLoop * loop)
{
  counts->spins = gst_net_loop_get_spins (loop);
  counts->turns = gst_net_loop_get_turns (loop);
  counts->late_turns = gst_net_loop_get_late_turns (loop);
  counts->late_time = gst_net_loop_get_late_time (loop);
  counts->late_max = gst_net_loop_get_late_max (loop);
}

void
gst_net_loop_keep_counts (GstNetLoop * loop, GstNetLoopCounts * counts,
    GMutex * lock)
{
  g_return_if_fail (loop->thread == NULL);
  loop->counts = counts;
  loop->counts_lock = lock;
}

void
gst_net_loop_counts_add_stats (const GstNetLoopCounts * counts,
    GstStructure * s)
{
  gst_structure_set (s,
      "loop-spins", G_TYPE_UINT64, counts->spins,
      "loop-turns", G_TYPE_UINT64, counts->turns,
      "loop-late-turns", G_TYPE_UINT64, counts->late_turns,
      "loop-late-time", G_TYPE_UINT64, counts->late_time,
      "loop-late-max", G_TYPE_UINT64, counts->late_max, NULL);
}

GMainContext *
gst_net_loop_get_context (GstNetLoop * loop)
{
  return loop->context;
}

GSource *
gst_net_loop_watch (GstNetLoop * loop, GSocket * socket, GIOCondition cond,
    GSocketSourceFunc func, gpointer user_data)
{
  GSource *s = g_socket_create_source (socket, cond, NULL);

  /* GLib blocks a source that cannot recurse while it dispatches: it takes
   * the fd out of the poll set and puts it back, and each change wakes the
   * context (two eventfd writes, a read and one more poll a wake-up) */
  g_source_set_can_recurse (s, TRUE);
  g_source_set_callback (s, G_SOURCE_FUNC (func), user_data, NULL);
  g_source_attach (s, loop->context);
  return s;
}

void
gst_net_loop_unwatch (GSource ** watch)
{
  if (!*watch)
    return;
  g_source_destroy (*watch);
  g_source_unref (*watch);
  *watch = NULL;
}

void
gst_net_loop_attach (GstNetLoop * loop, GstNetTransport * transport,
    GstNetReceiveFunc func, gpointer user_data)
{
  gst_net_transport_attach (transport, loop->context, func, user_data);
}
