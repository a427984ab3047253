/* The VLMCC side of the simulator: the real sender and receiver cores of
 * gst/vlmcc in simulated time (GLib only).
 *
 * The network is the engine's tree (simengine.h) rooted at the sender's
 * node 0: every link carries data downstream at its rate, after its
 * propagation delay, through a drop-tail queue bounded in packets (the
 * packet on the wire included). The session is one multicast group that
 * reaches every node with a receiver below it (the group is joined for
 * the whole run: no graft or prune). The sender is
 * greedy: its core always has packets waiting, so its window alone sets
 * the rate. The sender's START answers travel by unicast down the tree
 * path through the same queues as the data (vlmcc_sim_set_start_unqueued:
 * after the path's propagation delay only, as before). Feedback (acks,
 * challenges) travels up after the path's propagation delay, not queued,
 * or (vlmcc_sim_set_feedback_queued) through each link's upstream queue. Cross traffic is CBR, optionally on/off, queued on one link,
 * or greedy loss-based flows that move their windows as TCP Reno or CUBIC
 * does; a
 * link may put tests/net/aqmcore's RED or CoDel in place of drop-tail.
 * Everything random draws from one seeded RandomSource. */
#ifndef __VLMCC_SIM_H__
#define __VLMCC_SIM_H__

#include <glib.h>

#include "simengine.h"
#include "vlmcccore.h"

G_BEGIN_DECLS

#define VSIM_MS SIM_MS
#define VSIM_S SIM_S

typedef struct _VlmccSim VlmccSim;

/* @cfg: the cores' configuration (sender and receivers alike). */
VlmccSim *vlmcc_sim_new (const VlmccConfig * cfg, guint64 seed);
void vlmcc_sim_free (VlmccSim * sim);

/* A node below @parent over a link of @rate bit/s, @delay ns, a drop-tail
 * queue of @queue packets (0: unbounded). Node 0 is the sender's. */
guint vlmcc_sim_add_node (VlmccSim * sim, guint parent, guint64 rate,
    gint64 delay, guint queue);
/* A receiver core at @node, started at @start. Returns its index. */
guint vlmcc_sim_add_receiver (VlmccSim * sim, guint node, gint64 start);
/* CBR cross traffic of @rate bit/s, @size-byte packets, on the link into
 * @node, from @start to @stop (-1: never), on @on / off @off (@off 0:
 * always on). */
void vlmcc_sim_add_cross_traffic (VlmccSim * sim, guint node, guint64 rate,
    guint size, gint64 start, gint64 stop, gint64 on, gint64 off);
/* Feedback (acks, challenges) crosses each link's upstream drop-tail
 * queue (same rate and bound as downstream) instead of only its delay. */
void vlmcc_sim_set_feedback_queued (VlmccSim * sim, gboolean queued);
/* The feedback path is late now and then, never lossy: each datagram a
 * receiver sends takes up to @jitter more, and stalls (a reverse queue
 * or a descheduled host) begin at exponential intervals of mean
 * @stall_every, each holding every datagram sent in it until a time
 * uniform in (0, @stall_max] after its start. Each receiver's feedback
 * stays in order. Off (the default) with @stall_every 0 and @jitter 0. */
void vlmcc_sim_set_feedback_jitter (VlmccSim * sim, gint64 jitter,
    gint64 stall_every, gint64 stall_max);
/* The sender's loop reads each feedback datagram @lag after it came (a
 * loaded host), the core told when it came: acks keep the path's RTT, and
 * a START reports the lag as its hold. 0 (the default): read at once. */
void vlmcc_sim_set_sender_read_lag (VlmccSim * sim, gint64 lag);
/* Every START's hold field 0, as a sender before it wrote it. */
void vlmcc_sim_set_start_hold_zeroed (VlmccSim * sim, gboolean zeroed);
/* STARTs reach their receiver after the path's propagation delay alone,
 * skipping the links' queues and serialisation (the simulator before
 * issue 19's fix). Off by default: each START waits behind the data on
 * every link down to its receiver and is lost when a queue is full. */
void vlmcc_sim_set_start_unqueued (VlmccSim * sim, gboolean unqueued);
/* tests/net/aqmcore's @discipline (RED, CoDel) with its defaults for the
 * link's rate in front of the link into @node, downstream, bounded by the
 * link's queue; RED draws from @seed. Before any packet is sent. */
gboolean vlmcc_sim_set_discipline (VlmccSim * sim, guint node,
    AqmDiscipline discipline, guint32 seed);
/* A greedy loss-based flow from the sender's node to @node from @start
 * until @stop (-1: never),
 * its window moved as TCP Reno's (slow start, +1 per RTT, halved once per
 * RTT on loss, back to one after a timeout of max(200 ms, 2 srtt)), of
 * 1000-byte segments acked one by one after the path's propagation delay.
 * Returns its index. */
guint vlmcc_sim_add_tcp (VlmccSim * sim, guint node, gint64 start,
    gint64 stop);
/* The same with CUBIC's window (RFC 9438: W(t) = 0.4 (t - K)^3 + W_max
 * with the Reno-friendly region and fast convergence, x 0.7 on loss,
 * per ack) for VLMCC_SIM_TCP_CUBIC. */
typedef enum {
  VLMCC_SIM_TCP_RENO,
  VLMCC_SIM_TCP_CUBIC,
} VlmccSimTcpCc;
guint vlmcc_sim_add_tcp_cc (VlmccSim * sim, guint node, gint64 start,
    gint64 stop, VlmccSimTcpCc cc);
/* Bytes flow @flow delivered in [@from, @to), and its halvings and
 * timeouts so far. */
guint64 vlmcc_sim_tcp_bytes (const VlmccSim * sim, guint flow, gint64 from,
    gint64 to);
guint64 vlmcc_sim_tcp_halvings (const VlmccSim * sim, guint flow);
/* Receiver @rx's host clock reads @offset (>= 0) + t (1 + @ppm 1e-6) at
 * simulated time t: every time its core is given or gives is on it. The
 * default is the simulator's own clock (0 ppm, no offset). */
void vlmcc_sim_set_receiver_clock (VlmccSim * sim, guint rx, gdouble ppm,
    gint64 offset);
/* A receiver goes silent (its process killed) at @when. */
void vlmcc_sim_kill_receiver (VlmccSim * sim, guint rx, gint64 when);
/* The receiver that leads at @when, if any, goes silent then. */
void vlmcc_sim_kill_leader (VlmccSim * sim, gint64 when);
/* Whether receiver @rx had started and not been killed at @t. */
gboolean vlmcc_sim_receiver_alive (const VlmccSim * sim, guint rx,
    gint64 t);

void vlmcc_sim_run (VlmccSim * sim, gint64 until);

VlmccSender *vlmcc_sim_sender (VlmccSim * sim);
VlmccReceiver *vlmcc_sim_receiver (VlmccSim * sim, guint rx);
guint vlmcc_sim_n_receivers (const VlmccSim * sim);
/* The RTT (ns) receiver @rx took from its last START (the first or a
 * re-probe's: hold out, start_anchor's move in), -1 if none yet. */
gint64 vlmcc_sim_receiver_start_rtt (const VlmccSim * sim, guint rx);
/* The receiver whose id is @id, or -1. */
gint vlmcc_sim_receiver_of (const VlmccSim * sim, guint32 id);

/* The sender's LEADER events: time and the receiver index (-1: none). */
typedef struct {
  gint64 time;
  gint rx;
} VlmccSimLeaderChange;
const GArray *vlmcc_sim_leader_changes (const VlmccSim * sim);
/* The leader (receiver index, -1: none) at @time. */
gint vlmcc_sim_leader_at (const VlmccSim * sim, gint64 time);

typedef struct {
  guint64 acks, challenges, probes, other;      /* feedback at the sender */
  guint64 media_sent;           /* data packets the sender sent */
  /* STARTs the sender sent, and those a full queue on the way dropped
   * (counted among the link's data drops too) */
  guint64 starts_sent, starts_dropped;
} VlmccSimFeedback;
void vlmcc_sim_feedback (const VlmccSim * sim, VlmccSimFeedback * fb);

/* Data packets the receiver got and the bytes of them, in [@from, @to). */
guint64 vlmcc_sim_receiver_bytes (const VlmccSim * sim, guint rx,
    gint64 from, gint64 to);
/* Data packets lost on the link into @node (drop-tail) in [@from, @to);
 * cross-traffic drops apart. */
void vlmcc_sim_link_drops (const VlmccSim * sim, guint node, gint64 from,
    gint64 to, guint64 * data, guint64 * cross);

/* Scenarios (vlmccscenarios.c). Figure 5 at small scale: router 1 below
 * the sender over 10 Mbit/s; routers 2 and 3 below it over 1 Mbit/s with
 * 30-packet queues; receivers 0, 1 behind router 2 and 2, 3 behind router
 * 3 (10 Mbit/s, 1 ms each); CBR cross traffic of 500 kbit/s into router 2
 * over 10-25 s and 41-60 s, of 750 kbit/s into router 3 over 27-45 s. */
VlmccSim *vlmcc_sim_figure5 (const VlmccConfig * cfg, guint64 seed);
/* One receiver behind a 10 Mbit/s, 20 ms bottleneck (100-packet queue)
 * whose feedback is late but never lost: up to 1 ms of jitter and stalls
 * of up to @stall_max every 2 s on average. */
VlmccSim *vlmcc_sim_late_acks (const VlmccConfig * cfg, guint64 seed,
    gint64 stall_max);
/* The same path with only jitter on the feedback: each datagram up to
 * @jitter late, in order, never lost; nothing stalls. */
VlmccSim *vlmcc_sim_ack_jitter (const VlmccConfig * cfg, guint64 seed,
    gint64 jitter);
/* Clock skew: the ack-jitter path with up to @jitter on the feedback,
 * receiver 0's clock @leader_ppm off the simulator's and 4290 s ahead
 * (its us stamps wrap 5 s in). With @follower, receiver 1 joins at 50 ms
 * behind the same bottleneck on a 12 Mbit/s, 1 ms branch (100 packets),
 * its clock as @follower->ppm says, and from @follower->cbr_start (-1:
 * never) 8 Mbit/s of CBR on its branch makes it the worse one. */
typedef struct {
  gdouble ppm;
  gint64 cbr_start;
} VlmccSimSkewFollower;
VlmccSim *vlmcc_sim_skew (const VlmccConfig * cfg, guint64 seed,
    gdouble leader_ppm, gint64 jitter, const VlmccSimSkewFollower * follower);
/* Membership churn: receivers join and leave (silently, as killed)
 * behind a 20 Mbit/s, 5 ms bottleneck over branches A (10 Mbit/s, 5 ms),
 * B (4 Mbit/s, 10 ms), C (2 Mbit/s, 5 ms) and D (1 Mbit/s, 15 ms), 50
 * packets of queue each: two on A from 0, one on B at 10 s and another at
 * 12 s, one on C at 20 s, the leader leaves at 30 s, one on D at 40 s and
 * the leader leaves at 40.1 s (D, elected at 40.07 s, before its first
 * ack), two on C at 50 s, the leader leaves at 60 s, all leave at 70 s,
 * one on A at 80 s; 90 s. For each event's span up to the next: how long until the
 * leader was one of the live receivers on the tightest branch and stayed
 * so (-1: never), the time without a leader while some receiver lived,
 * the elections, and the session's rate at a receiver on A (receiver 0,
 * then the last to join; 0 and -1 with none): over the span and the
 * least over any 500 ms of it. */
#define VLMCC_SIM_CHURN_SPANS 16
typedef struct {
  gint64 time;
  const gchar *what;
  gint64 settle, leaderless;
  guint leader_changes;         /* to a receiver */
  gdouble kbit, min_kbit;
} VlmccSimChurnSpan;
typedef struct {
  VlmccSimChurnSpan spans[VLMCC_SIM_CHURN_SPANS];
  guint n_spans;
  gint64 min_election_gap;      /* between two elections, -1: under two */
  guint64 challenges;           /* sent, all receivers */
  guint64 unsettled;            /* the most sent by one receiver and
                                 * neither accepted nor refused */
  /* elections of a receiver not on the tightest branch alive, and of
   * one on A (the loosest) while another branch had a live receiver */
  guint misplaced, loosest;
  /* the sender when everyone left (70 s), 10 s later, and at the end */
  VlmccSenderStats at_empty, empty_end, end;
} VlmccSimChurnRun;
void vlmcc_sim_membership_churn (const VlmccConfig * cfg, guint64 seed,
    VlmccSimChurnRun * out);
/* Prints one line per span of @run to stdout, each after @indent: the
 * event, when the right leader came, the time with none, the leader
 * changes and the rate at A (and its least over 500 ms). */
void vlmcc_sim_print_churn_spans (const VlmccSimChurnRun * run,
    const gchar * indent);
/* Random churn on the membership churn's branches: @n receivers join at
 * times uniform over 0-60 s, on A, B, C or D with odds 70, 20, 8 and
 * 2 %, and leave silently after an exponential time of mean 20 s; the
 * leader of the moment leaves silently every 7 s; 90 s. Over the time some
 * receiver lives (10 ms samples): the share with the leader on the
 * tightest branch alive, the share with none, the longest stretch
 * without the right leader; the elections and their least gap, the
 * feedback, the most challenges one receiver left unsettled. */
typedef struct {
  gdouble right, leaderless;
  gint64 longest_wrong;
  guint elections;
  gint64 min_election_gap;
  VlmccSimFeedback fb;
  guint64 unsettled;
  VlmccSenderStats end;
} VlmccSimRandomChurn;
void vlmcc_sim_random_churn (const VlmccConfig * cfg, guint64 seed, guint n,
    VlmccSimRandomChurn * out);
/* @n receivers over 10 branches (1 .. 10 ms) behind a 2 Mbit/s, 10 ms
 * bottleneck: the feedback the sender got over 10-30 s in @fb, and its
 * packets per (sender) RTT. */
gdouble vlmcc_sim_scale_feedback (guint n, guint64 seed,
    VlmccSimFeedback * fb);
/* The same N over 10 branches of 2 Mbit/s (1 .. 10 ms, 30-packet queues)
 * behind a 10 Mbit/s, 10 ms bottleneck, with CBR on/off (10 s each) of
 * 1 Mbit/s into branch 0 from 10 s and 1.5 Mbit/s into branch 5 from
 * 15 s, so the worst receivers change: over 10-60 s the feedback, the
 * most challenges in any 100 ms, the leader changes of the whole run and
 * receiver 1's rate; returns the feedback per (sender) RTT. */
typedef struct {
  VlmccSimFeedback fb;
  guint64 peak_challenges;
  guint leader_changes;
  gdouble kbit;
} VlmccSimChurn;
gdouble vlmcc_sim_scale_churn (guint n, guint64 seed, VlmccSimChurn * out);
/* The same with the cores' configuration @cfg (the challenge echo), and
 * each receiver's start up to @start_jitter later (drawn from @seed; 0:
 * none), which changes which receiver of a branch meets equation (6)
 * first and so which one leads. */
gdouble vlmcc_sim_scale_churn_with (const VlmccConfig * cfg, guint n,
    guint64 seed, gint64 start_jitter, VlmccSimChurn * out);

/* One receiver beside @n_tcp loss-based flows (vlmcc_sim_add_tcp) that
 * stop at @tcp_stop (-1: never) behind a 2 Mbit/s, 20 ms bottleneck (its
 * node in *@bottleneck) with a 25-packet queue (the bench's 100 ms) under
 * @discipline (drop-tail, RED or CoDel), all started at 0. */
VlmccSim *vlmcc_sim_aqm (const VlmccConfig * cfg, guint64 seed,
    AqmDiscipline discipline, guint n_tcp, gint64 tcp_stop,
    guint * bottleneck);
/* That run (the flows never stop, at most VLMCC_SIM_SHARE_MAX_TCP of
 * them): over 15-60 s the session's rate, the loss-based flows' mean,
 * Jain's f over the rates, the session's share of the fair rate, the data
 * packets the bottleneck dropped, and the sender's halvings and Vegas+
 * state at the end. */
#define VLMCC_SIM_SHARE_MAX_TCP 4
typedef struct {
  gdouble kbit, tcp_kbit, jain, share;
  gdouble jain_window;          /* the median of f over each 1 s */
  guint64 drops, cross_drops;
  guint64 halvings, tcp_halvings, switches;
  gboolean loss_based;
} VlmccSimShare;
void vlmcc_sim_aqm_share (const VlmccConfig * cfg, guint64 seed,
    AqmDiscipline discipline, guint n_tcp, VlmccSimShare * out);
/* The same measure on another bed: a bottleneck of @rate bit/s, 20 ms,
 * 100 ms of queue (@rate / 80000 packets) under @discipline, @n_tcp
 * greedy flows of @cc beside the session, or with @reference one more
 * such flow in its place (the TCP reference of the namespace bench; no
 * sender stats then). */
typedef struct {
  guint64 rate;
  AqmDiscipline discipline;
  guint n_tcp;
  VlmccSimTcpCc cc;
  gboolean reference;
} VlmccSimShareBed;
void vlmcc_sim_share (const VlmccConfig * cfg, guint64 seed,
    const VlmccSimShareBed * bed, VlmccSimShare * out);

G_END_DECLS

#endif /* __VLMCC_SIM_H__ */
