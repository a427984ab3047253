/* The I/O loop against a clock that moves 2 us between any two reads, as
 * the monotonic clock does for a thread preempted between them: the loop
 * never takes a deadline it finds passed for no deadline at all; and a
 * work that keeps its deadline due is held back, with one warning that
 * names the loop's owner; one that asks for "now" a few times is not; a
 * turn held off the CPU is counted late, one a pacer asked for before
 * its run on purpose is not. Own
 * binary: this file replaces GLib's g_get_monotonic_time (gst_net_now ()
 * reads it) for the whole process. */
#include <gst/check/gstcheck.h>
#include <string.h>
#include <time.h>
#include "gstnetloop.h"
#include "gstnettime.h"

/* 2 us: a read one us before a deadline and the next read after it */
#define STEP_US 2
#define RUNS 2000

static gint stepping;           /* atomic */
static gssize steps;            /* atomic; kept when stepping ends */

/* The real monotonic time in us, plus STEP_US a read while stepping. */
gint64
g_get_monotonic_time (void)
{
  struct timespec ts;
  gint64 us;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  us = ts.tv_sec * G_GINT64_CONSTANT (1000000) + ts.tv_nsec / 1000;
  if (g_atomic_int_get (&stepping))
    return us + STEP_US * (g_atomic_pointer_add (&steps, 1) + 1);
  return us + STEP_US * (gssize) g_atomic_pointer_get (&steps);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  guint calls;
} Runs;

/* Asks to run again 1 to 16 us after @now (its turn reads the clock a few
 * times in between, so some waits find the deadline one read away). */
static gint64
near_work (gpointer data, gint64 now)
{
  Runs *r = data;
  gint64 ahead;

  g_mutex_lock (&r->lock);
  ahead = 1 + r->calls % 16;
  r->calls++;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  return now + ahead * GST_USECOND;
}

/* TRUE once the work ran @n times; FALSE if it stopped for about a second
 * before (the stepped clock runs a little ahead of the real one, which
 * g_cond_wait_until waits on). */
static gboolean
wait_runs (Runs * r, guint n)
{
  gboolean moving = TRUE;

  g_mutex_lock (&r->lock);
  while (r->calls < n && moving) {
    guint before = r->calls;
    gint64 end = g_get_monotonic_time () + G_TIME_SPAN_SECOND;

    while (r->calls == before)
      if (!g_cond_wait_until (&r->cond, &r->lock, end))
        break;
    moving = r->calls > before;
  }
  g_mutex_unlock (&r->lock);
  return moving;
}

/* A deadline the loop finds passed between two reads of the clock runs
 * the work at once: the loop does not stop with no wake to come. */
GST_START_TEST (test_loop_deadline_passed_between_reads)
{
  Runs r = { 0 };
  GstNetLoop *loop = gst_net_loop_new ("test", near_work, &r);
  gboolean moving;

  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  g_atomic_int_set (&stepping, 1);
  gst_net_loop_start (loop);
  moving = wait_runs (&r, RUNS);
  g_atomic_int_set (&stepping, 0);
  gst_net_loop_free (loop);
  fail_unless (moving, "the loop stopped after %u runs of %u (a deadline it "
      "found passed was waited for with no timeout)", r.calls, RUNS);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
}

GST_END_TEST;

/* Never clears its deadline: asks to run again at the time it was given. */
static gint64
stuck_work (gpointer data, gint64 now)
{
  g_atomic_int_inc ((gint *) data);
  return now;
}

/* Asks for "now" 50 times in a row, then for 100 us later, as a work
 * that sends what is due in several goes does. */
static gint64
bursty_work (gpointer data, gint64 now)
{
  gint calls = g_atomic_int_add ((gint *) data, 1) + 1;

  return calls % 51 ? now : now + 100 * GST_USECOND;
}

/* Runs of the work per second over 200 ms or more, from 100 ms after the
 * start: divided by the time that really passed (a loaded host sleeps
 * longer than asked). */
static gdouble
work_rate (GstNetLoop * loop, gint * calls)
{
  gint before;
  gint64 from;

  gst_net_loop_start (loop);
  g_usleep (100000);
  before = g_atomic_int_get (calls);
  from = g_get_monotonic_time ();
  g_usleep (200000);
  return (g_atomic_int_get (calls) - before) * (gdouble) G_USEC_PER_SEC /
      (g_get_monotonic_time () - from);
}

/* A work that keeps its deadline due with nothing coming in is held back:
 * the loop does not spin a core, and counts it. */
GST_START_TEST (test_loop_spinning_work_held_back)
{
  gint calls = 0;
  GstNetLoop *loop = gst_net_loop_new ("test", stuck_work, &calls);
  gdouble rate = work_rate (loop, &calls);
  guint64 spins = gst_net_loop_get_spins (loop);

  gst_net_loop_free (loop);
  GST_INFO ("the stuck work ran %.0f times a second, %" G_GUINT64_FORMAT
      " turns held back", rate, spins);
  /* held 1 ms a turn: about 1000 a second; spinning: hundreds of
   * thousands */
  fail_unless (rate < 5000, "the work ran %.0f times a second", rate);
  fail_unless (spins > 10, "%" G_GUINT64_FORMAT " turns held back", spins);
}

GST_END_TEST;

typedef struct
{
  GMutex lock;
  guint naming;                 /* warnings that name the owner */
  guint others;                 /* any other warning of the loop */
} Warnings;

static void
count_loop_warnings (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  Warnings *w = data;
  const gchar *text;

  if (level != GST_LEVEL_WARNING ||
      g_strcmp0 (gst_debug_category_get_name (category), "netloop") != 0)
    return;
  text = gst_debug_message_get (message);
  g_mutex_lock (&w->lock);
  if (strstr (text, "spinner:") && strstr (text, "loop-spins"))
    w->naming++;
  else
    w->others++;
  g_mutex_unlock (&w->lock);
}

/* The spinning work's warning names the element that owns the loop (what
 * a user sees in the log), and comes once however long the work spins. */
GST_START_TEST (test_loop_spin_warning_names_owner)
{
  Warnings w = { 0 };
  gint calls = 0;
  GstElement *owner = gst_element_factory_make ("fakesink", "spinner");
  GstNetLoop *loop = gst_net_loop_new ("test", stuck_work, &calls);

  g_mutex_init (&w.lock);
  gst_debug_set_threshold_for_name ("netloop", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_loop_warnings, &w, NULL);
  gst_net_loop_set_owner (loop, GST_OBJECT (owner));
  work_rate (loop, &calls);
  gst_net_loop_free (loop);
  gst_debug_remove_log_function (count_loop_warnings);
  fail_unless_equals_int (w.naming, 1);
  fail_unless_equals_int (w.others, 0);
  gst_object_unref (owner);
  g_mutex_clear (&w.lock);
}

GST_END_TEST;

/* A work that asks for "now" a few times running and then for later is
 * never held back. */
GST_START_TEST (test_loop_rescheduling_now_not_held)
{
  gint calls = 0;
  GstNetLoop *loop = gst_net_loop_new ("test", bursty_work, &calls);
  guint64 spins;

  work_rate (loop, &calls);
  spins = gst_net_loop_get_spins (loop);
  gst_net_loop_free (loop);
  fail_unless (spins == 0, "%" G_GUINT64_FORMAT " turns held back after %d "
      "runs", spins, g_atomic_int_get (&calls));
}

GST_END_TEST;

/* Asks to run again 1 ms on; its fourth run then keeps the thread 30 ms,
 * as a host that takes the CPU away does, so the next turn comes 29 ms
 * after its deadline. */
static gint64
stalling_work (gpointer data, gint64 now)
{
  gint calls = g_atomic_int_add ((gint *) data, 1) + 1;

  if (calls == 4)
    g_usleep (30000);
  return now + GST_MSECOND;
}

/* Runs @work on a loop as work_rate does, then stops it; the loop's
 * late-turn counts into @counts; returns how long the run took, ns. */
static gint64
run_counting_late (GstNetLoopWorkFunc work, gint * calls,
    GstNetLoopCounts * counts)
{
  GstNetLoop *loop = gst_net_loop_new ("test", work, calls);
  gint64 from = gst_net_now (), ran;

  work_rate (loop, calls);
  gst_net_loop_stop (loop);
  ran = gst_net_now () - from;
  gst_net_loop_counts_take (counts, loop);
  gst_net_loop_free (loop);
  return ran;
}

/* The loop counts its own stalls: a turn 29 ms late counts with its
 * lateness; the on-time turns around it add nothing like it. */
GST_START_TEST (test_loop_counts_late_turns)
{
  gint calls = 0;
  GstNetLoopCounts counts;
  gint64 ran = run_counting_late (stalling_work, &calls, &counts);

  GST_INFO ("%d runs, %" G_GUINT64_FORMAT " late turns, %" G_GUINT64_FORMAT
      " ns late in all, at most %" G_GUINT64_FORMAT, calls, counts.late_turns,
      counts.late_time, counts.late_max);
  fail_unless (counts.late_turns >= 1);
  fail_unless (counts.late_max >= 29 * GST_MSECOND, "latest %"
      G_GUINT64_FORMAT " ns", counts.late_max);
  fail_unless (counts.late_time >= counts.late_max);
  /* a loaded host may add late turns, never more time than the run took
   * (the turns' late spans do not overlap) */
  fail_unless (counts.late_time < (guint64) ran, "%" G_GUINT64_FORMAT
      " ns late in a run of %" G_GINT64_FORMAT " ns", counts.late_time, ran);
}

GST_END_TEST;

/* A pacer that makes up lost time: every fourth run asks for a time
 * CATCH_UP before the one it was given (the sends it is behind on), the
 * others for 200 us on. */
#define CATCH_UP (50 * GST_MSECOND)

static gint64
catching_up_work (gpointer data, gint64 now)
{
  gint calls = g_atomic_int_add ((gint *) data, 1) + 1;

  return calls % 4 ? now + 200 * GST_USECOND : now - CATCH_UP;
}

/* A deadline the work set before the time it ran is its choice, not a
 * stall: the turn it asks for runs at once and is not late by the time
 * the work chose to make up. Counted from the deadline, each such turn
 * would add CATCH_UP, and the late time would pass the run's own length;
 * real stalls never do (the late spans do not overlap), so the check
 * holds on a loaded host too. */
GST_START_TEST (test_loop_catch_up_not_late)
{
  gint calls = 0;
  GstNetLoopCounts counts;
  gint64 ran = run_counting_late (catching_up_work, &calls, &counts);

  GST_INFO ("%d runs, %d of them catching up, %" G_GUINT64_FORMAT
      " late turns, %" G_GUINT64_FORMAT " ns late in all, in %"
      G_GINT64_FORMAT " ns", calls, calls / 4, counts.late_turns,
      counts.late_time, ran);
  fail_unless (calls >= 8, "%d runs", calls);
  fail_unless (counts.late_time < (guint64) ran, "%" G_GUINT64_FORMAT
      " ns late (%" G_GUINT64_FORMAT " turns) in a run of %" G_GINT64_FORMAT
      " ns, %d runs catching up %" G_GINT64_FORMAT " ns", counts.late_time,
      counts.late_turns, ran, calls / 4, CATCH_UP);
}

GST_END_TEST;

static Suite *
netloopclock_suite (void)
{
  Suite *s = suite_create ("netloopclock");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_loop_deadline_passed_between_reads);
  tcase_add_test (tc, test_loop_spinning_work_held_back);
  tcase_add_test (tc, test_loop_spin_warning_names_owner);
  tcase_add_test (tc, test_loop_rescheduling_now_not_held);
  tcase_add_test (tc, test_loop_counts_late_turns);
  tcase_add_test (tc, test_loop_catch_up_not_late);
  return s;
}

GST_CHECK_MAIN (netloopclock);
