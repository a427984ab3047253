/* A discrete-event network simulator that runs the real sans-I/O RLM
 * cores in simulated time (GLib only), on the engine of simengine.h.
 *
 * The network is a tree rooted at the source's node: every link carries
 * data downstream (parent to child) at its rate, after its propagation
 * delay, through a drop-tail queue bounded in packets or bytes. Each layer
 * of the source is one multicast group; a link forwards a group only while
 * a receiver below it is subscribed: a join grafts the links of the
 * receiver's path after join_latency, a leave prunes the links below which
 * no member is left after leave_latency. The source sends each layer as
 * CBR with the jitter of the paper's section 4 (T_k = T_(k-1) + Delta +
 * N_k, N_k uniform on [-Delta/2, Delta/2]). Several independent sessions
 * (sources, all at the root, each with its own groups and receivers) may
 * share the tree, as in the paper's topology (4). Receivers are RLM cores;
 * their announcements reach every other receiver of their session after
 * the propagation delay of the tree path between them (control traffic is
 * not queued). Cross traffic is CBR, optionally on/off, queued on one
 * link.
 *
 * Everything random draws from the simulator's seeded RandomSource, so a
 * run is exact and repeatable. */
#ifndef __SIM_H__
#define __SIM_H__

#include <glib.h>

#include "rlmcore.h"
#include "simengine.h"

G_BEGIN_DECLS

typedef struct _Sim Sim;

typedef struct {
  guint64 seed;
  /* session 0 */
  guint n_layers;
  guint64 layer_rate[RLM_MAX_LAYERS];   /* bit/s of each layer */
  guint packet_size;            /* bytes on the wire: 1000 (the paper: 1 KB) */
  gint64 join_latency;          /* graft: 10 ms */
  gint64 leave_latency;         /* prune: 100 ms */
  gboolean source_jitter;       /* the paper's N_k: TRUE */
} SimConfig;

void sim_config_init (SimConfig * cfg);

Sim *sim_new (const SimConfig * cfg);
void sim_free (Sim * sim);

/* Node 0 is the source's node. A new node below @parent, reached over a
 * link of @rate bit/s, @delay ns and a drop-tail queue of @queue_packets
 * packets (0: no bound in packets) and @queue_bytes bytes (0: none). */
guint sim_add_node (Sim * sim, guint parent, guint64 rate, gint64 delay,
    guint queue_packets, guint queue_bytes);

/* Another session (before sim_run): a source at node 0 sending
 * @n_layers layers of @layer_rate bit/s. Returns its index; session 0 is
 * SimConfig's. */
/* The queue discipline of the link down into @node (drop-tail without). */
gboolean sim_set_discipline (Sim * sim, guint node, AqmDiscipline discipline);
/* Fair queueing per session on the link down into @node. */
gboolean sim_set_fair_queueing (Sim * sim, guint node);

guint sim_add_session (Sim * sim, guint n_layers, const guint64 * layer_rate);

/* An RLM receiver of session 0 at @node, starting at @start with @cfg
 * (n_layers is taken from the session). Returns its index. */
guint sim_add_receiver (Sim * sim, guint node, const RlmConfig * cfg,
    gint64 start);
guint sim_add_session_receiver (Sim * sim, guint session, guint node,
    const RlmConfig * cfg, gint64 start);

/* CBR cross traffic of @rate bit/s in packets of @size bytes on the link
 * into @node, from @start to @stop (-1: never), on for @on and off for
 * @off ns in turn (@off 0: always on). */
void sim_add_cross_traffic (Sim * sim, guint node, guint64 rate, guint size,
    gint64 start, gint64 stop, gint64 on, gint64 off);

/* Runs every event up to @until. */
void sim_run (Sim * sim, gint64 until);
gint64 sim_now (const Sim * sim);

/* What happened to a receiver. */
typedef struct {
  gint64 time;
  RlmEvent ev;
} SimEventRecord;

guint sim_n_receivers (const Sim * sim);
RlmReceiver *sim_receiver_core (Sim * sim, guint rx);
/* Every event the receiver's core gave, in order. */
const GArray *sim_receiver_events (const Sim * sim, guint rx);
guint sim_receiver_level (const Sim * sim, guint rx);
/* The highest fraction lost over any window of @window ns (a multiple of
 * SIM_BIN) that begins at or after the receiver's start; the whole run's
 * fraction when no window fits; 0 with no packet. */
gdouble sim_receiver_worst_loss (const Sim * sim, guint rx, gint64 window);
/* The simulator's own count of the packets the receiver got and the gaps
 * in each layer's sequence since it joined the layer. */
void sim_receiver_counts (const Sim * sim, guint rx, guint64 * received,
    guint64 * lost);
/* Lost / expected over the whole run. */
gdouble sim_receiver_loss (const Sim * sim, guint rx);
/* When the receiver last rose to @optimal from below (the paper's
 * convergence: reached and kept, join-experiments above aside), minus its
 * start; -1 if it is not at @optimal or above at the end. */
gint64 sim_receiver_convergence (const Sim * sim, guint rx, guint optimal);

/* Every join-experiment announced in the run, in order. */
typedef struct {
  gint64 time;
  guint rx;                     /* the announcer */
  guint level;                  /* the level under test */
} SimJoinRecord;

const GArray *sim_join_announcements (const Sim * sim);
/* How long an announcement of receiver @from takes to reach @to. */
gint64 sim_control_delay (const Sim * sim, guint from, guint to);

/* Called after every call into receiver @rx's core with its stats before
 * and after the call (a diagnostic trace: rlm-sim -V). */
typedef void (*SimCoreTraceFunc) (Sim * sim, guint rx,
    const RlmReceiverStats * before, const RlmReceiverStats * after,
    gpointer user_data);
void sim_trace_core (Sim * sim, guint rx, SimCoreTraceFunc func,
    gpointer user_data);

typedef struct {
  guint64 sent, delivered, dropped, cross_sent, cross_dropped;
  /* packets that crossed it, by layer, all sessions together */
  guint64 layer_delivered[RLM_MAX_LAYERS];
} SimLinkStats;

/* The link into @node. */
void sim_link_stats (const Sim * sim, guint node, SimLinkStats * st);
/* Whether the link into @node forwards @layer of @session now. */
gboolean sim_link_forwards (const Sim * sim, guint node, guint session,
    guint layer);

G_END_DECLS

#endif /* __SIM_H__ */
