/* The discrete-event engine under both simulators (sim.h for RLM,
 * vlmccsim.h for VLMCC), GLib only.
 *
 * Events sit in a binary heap ordered by time, then by the order they
 * were queued, so a run is exact and repeatable. The network is a tree
 * rooted at node 0: every other node is reached from its parent over a
 * link of some rate and propagation delay with a drop-tail queue bounded
 * in packets and/or bytes, in each direction (or RED, CoDel or fair
 * queueing in its place). A packet handed to a link is
 * serialised at its rate behind the packets queued before it, then
 * travels the delay; on arrival the engine runs the event the sender
 * named for it. Cross traffic is CBR, optionally on/off, on one link.
 *
 * The simulators keep their protocol parts: their own event kinds (from
 * SIM_ENGINE_KIND_USER up), which the engine hands back to their dispatch
 * function, and their payloads, which it references while they travel. */
#ifndef __SIM_ENGINE_H__
#define __SIM_ENGINE_H__

#include <glib.h>

#include "aqmcore.h"

G_BEGIN_DECLS

#define SIM_MS (G_GINT64_CONSTANT (1000000))
#define SIM_S (G_GINT64_CONSTANT (1000000000))
/* Counts over time are binned in slots of this length. */
#define SIM_BIN (100 * SIM_MS)

/* The kinds below are the engine's own. */
#define SIM_ENGINE_KIND_USER 16

typedef struct _SimEngine SimEngine;

typedef struct {
  gint64 time;
  guint64 order;                /* ties run in the order they were queued */
  guint kind;
  guint a;
  guint64 b;
  gpointer p;                   /* released after the event ran */
} SimEngineEvent;

typedef void (*SimEngineDispatch) (gpointer owner, const SimEngineEvent * ev);

typedef struct {
  gpointer owner;
  SimEngineDispatch dispatch;
  gpointer (*payload_ref) (gpointer p);
  GDestroyNotify payload_unref;
} SimEngineCallbacks;

/* When a link's queue gives up a packet. sim.c runs on the first, vlmccsim.c
 * on the second: each simulator's figures were taken with its own, and the
 * other one moves them (same-time events, the bound off by one). */
typedef enum {
  /* The transmitter takes the next packet as the last one is out (an
   * event per packet) and schedules the arrival then; the bound counts
   * the packets waiting, not the one on the wire. */
  SIM_LINK_TRANSMITTER,
  /* Each packet's departure is reckoned as it is queued and its arrival
   * scheduled at once; the bound counts every packet not yet out, the
   * one on the wire included. */
  SIM_LINK_RECKONED,
} SimLinkTiming;

typedef enum {
  SIM_DOWN,                     /* parent to child */
  SIM_UP,
} SimLinkDir;

typedef struct {
  guint64 sent, dropped, cross_sent, cross_dropped;
} SimEngineLinkStats;

SimEngine *sim_engine_new (const SimEngineCallbacks * cb,
    SimLinkTiming timing);
void sim_engine_free (SimEngine * e);

gint64 sim_engine_now (const SimEngine * e);
/* Queues an event of the simulator's @kind at @time (not before now). */
void sim_engine_schedule (SimEngine * e, gint64 time, guint kind, guint a,
    guint64 b, gpointer p);
/* Runs every event up to @until. */
void sim_engine_run (SimEngine * e, gint64 until);

/* A node below @parent over a link of @rate bit/s, @delay ns and queues
 * of @queue_packets packets (0: no bound) and @queue_bytes bytes (0:
 * none). Node 0 is the root. */
guint sim_engine_add_node (SimEngine * e, guint parent, guint64 rate,
    gint64 delay, guint queue_packets, guint queue_bytes);
guint sim_engine_n_nodes (const SimEngine * e);
guint sim_engine_parent (const SimEngine * e, guint node);
const GArray *sim_engine_children (const SimEngine * e, guint node);
/* The simulator's endpoints (indices of its own) at a node, in the order
 * attached. */
void sim_engine_attach (SimEngine * e, guint node, guint endpoint);
const GArray *sim_engine_attached (const SimEngine * e, guint node);
/* The propagation delay of the tree path between two nodes. */
gint64 sim_engine_path_delay (const SimEngine * e, guint a, guint b);

/* Hands @size bytes to the link into @node in @dir: FALSE if its queue
 * is full (dropped); else, once the packet is across, the event (@kind,
 * @a, @b, @p) runs, with a reference to @p taken now. */
gboolean sim_engine_link_send (SimEngine * e, guint node, SimLinkDir dir,
    guint size, guint kind, guint a, guint64 b, gpointer p);
/* The same, for fair queueing's @flow. */
gboolean sim_engine_link_send_flow (SimEngine * e, guint node,
    SimLinkDir dir, guint flow, guint size, guint kind, guint a, guint64 b,
    gpointer p);
/* Puts the queue discipline of tests/net/aqmcore in front of the link
 * into @node in @dir, with its defaults for the link's rate (RED after
 * Floyd's rules, CoDel after RFC 8289), the link's delay and queue bound,
 * drawing RED's chances from @seed. Before any packet is sent; FALSE if
 * aqmcore refuses the settings. */
gboolean sim_engine_set_discipline (SimEngine * e, guint node, SimLinkDir dir,
    AqmDiscipline discipline, guint32 seed);
/* Fair queueing on the link into @node in @dir: a queue per flow (the
 * @flow of sim_engine_link_send_flow, 0 for sim_engine_link_send; each
 * cross-traffic flow is one of its own) served by deficit round robin, one buffer of the link's
 * bound shared, the longest flow losing a packet when it is full.
 * SIM_LINK_TRANSMITTER only; before any packet is sent. */
gboolean sim_engine_set_fair_queueing (SimEngine * e, guint node,
    SimLinkDir dir);
void sim_engine_link_stats (const SimEngine * e, guint node, SimLinkDir dir,
    SimEngineLinkStats * st);
/* Data and cross packets dropped on the link in [@from, @to). */
void sim_engine_link_drops (const SimEngine * e, guint node, SimLinkDir dir,
    gint64 from, gint64 to, guint64 * data, guint64 * cross);

/* CBR cross traffic of @rate bit/s in packets of @size bytes down the
 * link into @node, from @start to @stop (-1: never), on for @on and off
 * for @off ns in turn (@off 0: always on). */
void sim_engine_add_cross_traffic (SimEngine * e, guint node, guint64 rate,
    guint size, gint64 start, gint64 stop, gint64 on, gint64 off);

/* Counters binned by SIM_BIN: @per counters a bin, @slot the one meant. */
void sim_bins_add (GArray * bins, guint per, guint slot, gint64 time,
    guint64 v);
guint64 sim_bins_sum (const GArray * bins, guint per, guint slot,
    gint64 from, gint64 to);
/* The median of @n values (@n > 0; sorts them in place). */
gdouble sim_median (gdouble * v, guint n);

G_END_DECLS

#endif /* __SIM_ENGINE_H__ */
