/* One I/O loop per session: a thread running a GMainContext in which the
 * session's sockets report readiness and its work function runs whenever
 * it is woken and at the deadline the core last gave, to the microsecond
 * (not GLib's whole-ms poll timeout). Each turn dispatches the ready
 * sources first and then the work, so input that came while the work was
 * due reaches the core before its timers fire. The loop holds no lock
 * while it calls back: the element takes its own. */
#ifndef __GST_NET_LOOP_H__
#define __GST_NET_LOOP_H__

#include <gio/gio.h>
#include <gst/gst.h>
#include "gstnettransport.h"

G_BEGIN_DECLS

typedef struct _GstNetLoop GstNetLoop;

/* The session's work at @now (gst_net_now () ns): feed the core its time,
 * send what it polls out; returns the next deadline (ns on the same clock,
 * G_MAXINT64: none, only a wake). */
typedef gint64 (*GstNetLoopWorkFunc) (gpointer user_data, gint64 now);

GstNetLoop *gst_net_loop_new (const gchar * name, GstNetLoopWorkFunc work,
    gpointer user_data);
/* Starts the thread; the work function runs at once. */
void gst_net_loop_start (GstNetLoop * loop);
/* Ends the thread and waits for it; the work function and the watches do
 * not run after this returns. Idempotent. Call holding no lock the
 * callbacks take. Logs (INFO, category netloop, on the owner) the turns
 * and spins it ended with. */
void gst_net_loop_stop (GstNetLoop * loop);
/* Frees the loop and the watches still attached (stopped first). */
void gst_net_loop_free (GstNetLoop * loop);

/* From any thread: the work function runs soon. */
void gst_net_loop_wake (GstNetLoop * loop);

/* @owner (the element, not reffed; it outlives the loop) is named in the
 * warning of a spinning work. Call before start. */
void gst_net_loop_set_owner (GstNetLoop * loop, GstObject * owner);

/* Turns held back because the work kept its deadline due with no input
 * and no wake (SPIN_TURNS in a row in gstnetloop.c, then 1 ms each): a
 * work that never clears a passed deadline would spin the loop at 100 %
 * CPU. The elements expose it as `loop-spins` in their stats. */
guint64 gst_net_loop_get_spins (GstNetLoop * loop);
/* Turns the loop has run (each a wait, the ready sources and the work if
 * due): its wake-ups, what a per-packet pacer costs in CPU. */
guint64 gst_net_loop_get_turns (GstNetLoop * loop);
/* The loop's stalls: turns whose work ran 2 ms or more after it was due
 * (LATE_TURN in gstnetloop.c), the ns they were late in all, and the
 * latest of them. A deadline the work set before the time it ran (a
 * pacer making up lost time) is due at that run, not before it. A host that keeps the loop's thread off the CPU shows
 * here; a protocol's own idle time does not (no deadline, no lateness). */
guint64 gst_net_loop_get_late_turns (GstNetLoop * loop);
guint64 gst_net_loop_get_late_time (GstNetLoop * loop);
guint64 gst_net_loop_get_late_max (GstNetLoop * loop);
#define GST_NET_LOOP_STATS_DOC \
  "loop-spins: turns of the I/O loop held back 1 ms because the work kept " \
  "its deadline due with nothing to do (turns); " \
  "loop-turns: turns of the I/O loop since the start, each a wake-up " \
  "(turns); " \
  "loop-late-turns: turns whose work ran 2 ms or more after its deadline, " \
  "the thread held off the CPU (turns); " \
  "loop-late-time: the time those turns ran after their deadlines, in all " \
  "(ns); " \
  "loop-late-max: the latest of those turns (ns)"

/* The loop's counts as an element shows them in its `stats`: its work
 * takes them holding the lock its stats getter takes, and the stop once
 * more (gst_net_loop_keep_counts), so they need no loop to read and keep
 * their final values after stop frees the loop. */
typedef struct
{
  guint64 spins;
  guint64 turns;
  guint64 late_turns;
  guint64 late_time;            /* ns */
  guint64 late_max;             /* ns */
} GstNetLoopCounts;

/* At start, before the loop runs. */
void gst_net_loop_counts_clear (GstNetLoopCounts * counts);
/* In the work, with the element's lock. */
void gst_net_loop_counts_take (GstNetLoopCounts * counts, GstNetLoop * loop);
/* Before start: gst_net_loop_stop takes @counts once more, holding @lock
 * (the lock the work takes them with), after the thread ended, so that
 * they keep every turn, also those after the work's last take. */
void gst_net_loop_keep_counts (GstNetLoop * loop, GstNetLoopCounts * counts,
    GMutex * lock);
/* Sets `loop-spins`, `loop-turns` and the `loop-late-*` fields
 * (GST_NET_LOOP_STATS_DOC) in @s. */
void gst_net_loop_counts_add_stats (const GstNetLoopCounts * counts,
    GstStructure * s);

GMainContext *gst_net_loop_get_context (GstNetLoop * loop);

/* Calls @func in the loop's thread whenever @socket meets @cond; it returns
 * G_SOURCE_REMOVE to end the watch. Returns the watch, owned by the caller
 * (gst_net_loop_unwatch ends it; from the loop thread or after stop). */
GSource *gst_net_loop_watch (GstNetLoop * loop, GSocket * socket,
    GIOCondition cond, GSocketSourceFunc func, gpointer user_data);
void gst_net_loop_unwatch (GSource ** watch);

/* Datagrams of @transport go to @func in the loop's thread. */
void gst_net_loop_attach (GstNetLoop * loop, GstNetTransport * transport,
    GstNetReceiveFunc func, gpointer user_data);

G_END_DECLS

#endif /* __GST_NET_LOOP_H__ */
