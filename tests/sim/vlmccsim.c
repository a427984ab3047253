/* The VLMCC simulator: the real cores at the ends of the engine's tree
 * (simengine.h). See vlmccsim.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simengine.h"
#include "vlmccsim.h"
#include "core/rtp.h"

#define MAX_DATAGRAM 2048
/* The greedy source keeps this many packets waiting in the sender core. */
#define SOURCE_BACKLOG 8

typedef enum {
  EV_DATA = SIM_ENGINE_KIND_USER,       /* a data packet reaches a node */
  EV_FEEDBACK,                  /* a receiver's datagram reaches the sender */
  EV_FEEDBACK_HOP,              /* ... reaches node @b on its way up */
  EV_FEEDBACK_READ,             /* the sender's loop reads one that came
                                 * at @b (vlmcc_sim_set_sender_read_lag) */
  EV_START,                     /* a START reaches a receiver */
  EV_START_HOP,                 /* ... reaches node @b on its way down */
  EV_SENDER_TIMER,
  EV_RECEIVER_TIMER,
  EV_KILL,
  EV_TCP_DATA,                  /* a loss-based flow's segment reaches a node */
  EV_TCP_ACK,                   /* its ack reaches the flow's sender */
  EV_TCP_TIMER,                 /* the flow's timeout, or its start */
} EventType;

typedef struct {
  VlmccReceiver *core;
  guint node;
  gint64 start;
  gboolean dead;
  gint64 killed_at;             /* -1: alive */
  guint64 timer_gen;
  GArray *byte_bins;            /* guint64 */
  gint64 last_feedback;         /* arrival of its last feedback */
  /* its host's clock (vlmcc_sim_set_receiver_clock): offset + t (1 + ppm
   * 1e-6) at simulated time t */
  gdouble ppm;
  gint64 offset;
  gint64 start_rtt;             /* the RTT its last START taken gave, -1: none */
} Receiver;

/* CUBIC's state (RFC 9438) for a flow that moves its window so. */
typedef struct {
  gint64 epoch_start;           /* 0: none (the next ack starts one) */
  gdouble w_max, k, w_est, prior;
} TcpCubic;

/* A greedy loss-based flow from the root to one node, as TCP Reno or
 * CUBIC moves its window (vlmcc_sim_add_tcp_cc). */
typedef struct {
  guint node;
  VlmccSimTcpCc cc;
  TcpCubic cubic;
  gint64 stop;                  /* sends nothing from then (-1: never) */
  gdouble cwnd, ssthresh;       /* packets */
  guint32 next_seq;             /* the next segment to send */
  guint32 high;                 /* every segment below is acked or lost */
  guint32 recover;              /* losses below: answered by the last halving */
  gint64 srtt;
  gint64 last_progress;         /* the last ack, or the start */
  guint64 timer_gen;
  guint64 halvings, timeouts;
  GArray *byte_bins;            /* guint64 */
} TcpFlow;

typedef struct {
  guint32 seq;
  gint64 sent;
} TcpSegment;

/* The feedback path's lateness (vlmcc_sim_set_feedback_jitter). */
typedef struct {
  gint64 jitter, stall_every, stall_max;
  gint64 next_stall;            /* start of the next stall */
  gint64 stall_end;             /* the current one holds until then */
} LateFeedback;

struct _VlmccSim {
  VlmccConfig cfg;
  RandomSeeded rng_state;
  RandomSource rng;
  SimEngine *engine;
  GArray *in_group;             /* gboolean, by node: a receiver below */
  GPtrArray *receivers;
  VlmccSender *sender;
  guint64 sender_gen;
  guint16 rtp_seq;
  guint32 rtp_ts;
  GArray *leader_changes;
  VlmccSimFeedback fb;
  gboolean started;
  gboolean feedback_queued;
  LateFeedback late;
  gint64 sender_read_lag;       /* the sender reads feedback this late */
  gboolean start_hold_zeroed;   /* STARTs as a sender before the hold */
  gboolean start_unqueued;      /* STARTs skip the links' queues */
  GPtrArray *tcp;               /* TcpFlow */
};

static void dispatch (gpointer owner, const SimEngineEvent * ev);

static void
schedule (VlmccSim * sim, gint64 time, EventType type, guint target,
    GBytes * data, guint64 gen)
{
  sim_engine_schedule (sim->engine, time, type, target, gen, data);
}

static gint64
now (const VlmccSim * sim)
{
  return sim_engine_now (sim->engine);
}

/* ------------------------------------------------------------------ */
/* Topology */

static Receiver *
receiver_at (const VlmccSim * sim, guint i)
{
  return g_ptr_array_index (sim->receivers, i);
}

static gboolean *
in_group (const VlmccSim * sim, guint node)
{
  return &g_array_index (sim->in_group, gboolean, node);
}

VlmccSim *
vlmcc_sim_new (const VlmccConfig * cfg, guint64 seed)
{
  VlmccSim *sim = g_new0 (VlmccSim, 1);
  SimEngineCallbacks cb = { sim, dispatch,
    (gpointer (*)(gpointer)) g_bytes_ref, (GDestroyNotify) g_bytes_unref
  };

  sim->cfg = *cfg;
  random_source_init_seeded (&sim->rng, &sim->rng_state, seed);
  sim->engine = sim_engine_new (&cb, SIM_LINK_RECKONED);
  sim->in_group = g_array_new (FALSE, TRUE, sizeof (gboolean));
  g_array_set_size (sim->in_group, 1);
  sim->receivers = g_ptr_array_new ();
  sim->tcp = g_ptr_array_new ();
  sim->leader_changes = g_array_new (FALSE, FALSE,
      sizeof (VlmccSimLeaderChange));
  sim->sender = vlmcc_sender_new (cfg, 0x5e4de7, &sim->rng, 0);
  return sim;
}

void
vlmcc_sim_free (VlmccSim * sim)
{
  sim_engine_free (sim->engine);
  for (guint i = 0; i < sim->receivers->len; i++) {
    Receiver *r = receiver_at (sim, i);

    vlmcc_receiver_free (r->core);
    g_array_free (r->byte_bins, TRUE);
    g_free (r);
  }
  g_ptr_array_free (sim->receivers, TRUE);
  for (guint i = 0; i < sim->tcp->len; i++) {
    TcpFlow *t = g_ptr_array_index (sim->tcp, i);

    g_array_free (t->byte_bins, TRUE);
    g_free (t);
  }
  g_ptr_array_free (sim->tcp, TRUE);
  g_array_free (sim->in_group, TRUE);
  g_array_free (sim->leader_changes, TRUE);
  vlmcc_sender_free (sim->sender);
  g_free (sim);
}

guint
vlmcc_sim_add_node (VlmccSim * sim, guint parent, guint64 rate, gint64 delay,
    guint queue)
{
  guint n = sim_engine_add_node (sim->engine, parent, rate, delay, queue, 0);

  g_array_set_size (sim->in_group, sim_engine_n_nodes (sim->engine));
  return n;
}

guint
vlmcc_sim_add_receiver (VlmccSim * sim, guint node, gint64 start)
{
  Receiver *r = g_new0 (Receiver, 1);
  guint idx = sim->receivers->len;

  r->node = node;
  r->start = start;
  r->killed_at = -1;
  r->start_rtt = -1;
  r->byte_bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_ptr_array_add (sim->receivers, r);
  sim_engine_attach (sim->engine, node, idx);
  for (guint n = node; n != 0; n = sim_engine_parent (sim->engine, n))
    *in_group (sim, n) = TRUE;
  schedule (sim, start, EV_RECEIVER_TIMER, idx, NULL, 0);
  return idx;
}

void
vlmcc_sim_add_cross_traffic (VlmccSim * sim, guint node, guint64 rate,
    guint size, gint64 start, gint64 stop, gint64 on, gint64 off)
{
  sim_engine_add_cross_traffic (sim->engine, node, rate, size, start, stop,
      on, off);
}

void
vlmcc_sim_set_feedback_queued (VlmccSim * sim, gboolean queued)
{
  sim->feedback_queued = queued;
}

void
vlmcc_sim_set_sender_read_lag (VlmccSim * sim, gint64 lag)
{
  sim->sender_read_lag = MAX (lag, 0);
}

void
vlmcc_sim_set_start_hold_zeroed (VlmccSim * sim, gboolean zeroed)
{
  sim->start_hold_zeroed = zeroed;
}

void
vlmcc_sim_set_start_unqueued (VlmccSim * sim, gboolean unqueued)
{
  sim->start_unqueued = unqueued;
}

static gint64
draw_exponential (VlmccSim * sim, gint64 mean)
{
  return (gint64) (-log (1.0 - random_source_double (&sim->rng)) * mean);
}

void
vlmcc_sim_set_feedback_jitter (VlmccSim * sim, gint64 jitter,
    gint64 stall_every, gint64 stall_max)
{
  LateFeedback *l = &sim->late;

  l->jitter = MAX (jitter, 0);
  l->stall_every = MAX (stall_every, 0);
  l->stall_max = MAX (stall_max, 0);
  l->stall_end = 0;
  if (l->stall_every)
    l->next_stall = now (sim) + draw_exponential (sim, l->stall_every);
}

/* The extra delay of a datagram sent now, stalls and jitter together. */
static gint64
late_feedback_delay (VlmccSim * sim)
{
  LateFeedback *l = &sim->late;
  gint64 t = now (sim), extra = 0;

  while (l->stall_every && t >= l->next_stall) {
    l->stall_end = l->next_stall + random_source_range (&sim->rng, 1,
        MAX (l->stall_max, 1));
    l->next_stall += MAX (draw_exponential (sim, l->stall_every), 1);
  }
  if (t < l->stall_end)
    extra = l->stall_end - t;
  if (l->jitter)
    extra += random_source_range (&sim->rng, 0, l->jitter);
  return extra;
}

void
vlmcc_sim_set_receiver_clock (VlmccSim * sim, guint rx, gdouble ppm,
    gint64 offset)
{
  Receiver *r = receiver_at (sim, rx);

  r->ppm = ppm;
  r->offset = MAX (offset, 0);
}

/* The receiver's clock at simulated time @t, and back. */
static gint64
receiver_clock (const Receiver * r, gint64 t)
{
  return r->offset + t + (gint64) llround (t * r->ppm * 1e-6);
}

static gint64
receiver_clock_to_sim (const Receiver * r, gint64 local)
{
  gint64 t = (gint64) llround ((local - r->offset) / (1.0 + r->ppm * 1e-6));

  /* no earlier than the instant whose clock reads @local */
  while (receiver_clock (r, t) < local)
    t++;
  return t;
}

void
vlmcc_sim_kill_receiver (VlmccSim * sim, guint rx, gint64 when)
{
  schedule (sim, when, EV_KILL, rx, NULL, 0);
}

/* EV_KILL's target for the leader of the moment */
#define KILL_LEADER G_MAXUINT

void
vlmcc_sim_kill_leader (VlmccSim * sim, gint64 when)
{
  schedule (sim, when, EV_KILL, KILL_LEADER, NULL, 0);
}

static void
on_kill (VlmccSim * sim, guint rx)
{
  Receiver *r;

  if (rx == KILL_LEADER) {
    gint l = vlmcc_sim_leader_at (sim, now (sim));

    if (l < 0)
      return;
    rx = (guint) l;
  }
  r = receiver_at (sim, rx);
  if (!r->dead)
    r->killed_at = now (sim);
  r->dead = TRUE;
}

gboolean
vlmcc_sim_receiver_alive (const VlmccSim * sim, guint rx, gint64 t)
{
  const Receiver *r = receiver_at (sim, rx);

  return t >= r->start && (r->killed_at < 0 || t < r->killed_at);
}

/* Sum of the propagation delays between @node and the root. */
static gint64
path_delay (const VlmccSim * sim, guint node)
{
  return sim_engine_path_delay (sim->engine, node, 0);
}

/* The child of @from on the way down to @target. */
static guint
next_hop_down (const VlmccSim * sim, guint from, guint target)
{
  guint n = target;

  while (sim_engine_parent (sim->engine, n) != from)
    n = sim_engine_parent (sim->engine, n);
  return n;
}

static void
forward_data (VlmccSim * sim, guint node, GBytes * data)
{
  const GArray *children = sim_engine_children (sim->engine, node);

  for (guint i = 0; i < children->len; i++) {
    guint child = g_array_index (children, guint, i);

    if (*in_group (sim, child))
      sim_engine_link_send (sim->engine, child, SIM_DOWN,
          g_bytes_get_size (data), EV_DATA, child, 0, data);
  }
}

/* ------------------------------------------------------------------ */
/* Loss-based flows */

#define TCP_SEGMENT 1000
#define TCP_RTO_MIN (200 * VSIM_MS)

gboolean
vlmcc_sim_set_discipline (VlmccSim * sim, guint node,
    AqmDiscipline discipline, guint32 seed)
{
  return sim_engine_set_discipline (sim->engine, node, SIM_DOWN, discipline,
      seed);
}

static TcpFlow *
tcp_at (const VlmccSim * sim, guint i)
{
  return g_ptr_array_index (sim->tcp, i);
}

guint
vlmcc_sim_add_tcp (VlmccSim * sim, guint node, gint64 start, gint64 stop)
{
  return vlmcc_sim_add_tcp_cc (sim, node, start, stop, VLMCC_SIM_TCP_RENO);
}

guint
vlmcc_sim_add_tcp_cc (VlmccSim * sim, guint node, gint64 start, gint64 stop,
    VlmccSimTcpCc cc)
{
  TcpFlow *t = g_new0 (TcpFlow, 1);

  t->node = node;
  t->cc = cc;
  t->stop = stop;
  t->byte_bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_ptr_array_add (sim->tcp, t);
  schedule (sim, start, EV_TCP_TIMER, sim->tcp->len - 1, NULL, 0);
  return sim->tcp->len - 1;
}

static gint64
tcp_rto (const TcpFlow * t)
{
  return MAX (TCP_RTO_MIN, 2 * t->srtt);
}

static gboolean
tcp_stopped (const VlmccSim * sim, const TcpFlow * t)
{
  return t->stop >= 0 && now (sim) >= t->stop;
}

static void
tcp_arm_timer (VlmccSim * sim, guint idx)
{
  TcpFlow *t = tcp_at (sim, idx);

  if (tcp_stopped (sim, t) && t->next_seq == t->high)
    return;
  schedule (sim, MAX (t->last_progress + tcp_rto (t), now (sim)),
      EV_TCP_TIMER, idx, NULL, ++t->timer_gen);
}

static void
tcp_send_segment (VlmccSim * sim, guint idx, guint from, GBytes * seg)
{
  TcpFlow *t = tcp_at (sim, idx);

  sim_engine_link_send (sim->engine, next_hop_down (sim, from, t->node),
      SIM_DOWN, TCP_SEGMENT, EV_TCP_DATA, idx, t->node, seg);
}

/* Segments leave while fewer than cwnd are in travel (ack clocked). */
static void
tcp_fill (VlmccSim * sim, guint idx)
{
  TcpFlow *t = tcp_at (sim, idx);

  while (!tcp_stopped (sim, t) &&
      t->next_seq - t->high < (guint32) MAX (t->cwnd, 1.0)) {
    TcpSegment seg = { t->next_seq++, now (sim) };
    GBytes *b = g_bytes_new (&seg, sizeof (seg));

    tcp_send_segment (sim, idx, 0, b);
    g_bytes_unref (b);
  }
}

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

static gdouble
tcp_cubic_at (const TcpCubic * c, gint64 t)
{
  gdouble x = t / 1e9 - c->k;

  return CUBIC_C * x * x * x + c->w_max;
}

static void
tcp_cubic_start (TcpCubic * c, gdouble w_max, gdouble cwnd, gint64 now)
{
  c->epoch_start = MAX (now, 1);
  c->w_max = w_max;
  c->k = cbrt ((w_max - cwnd) / CUBIC_C);
  c->w_est = cwnd;
}

/* RFC 9438 per ack in congestion avoidance: towards W(t + srtt), never
 * under the Reno-friendly estimate. */
static void
tcp_cubic_ack (TcpFlow * t, gint64 now)
{
  TcpCubic *c = &t->cubic;
  gdouble alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
  gdouble target;

  if (c->epoch_start == 0) {
    tcp_cubic_start (c, t->cwnd, t->cwnd, now);
    c->prior = t->cwnd;
  }
  c->w_est += (c->w_est >= c->prior ? 1.0 : alpha) / t->cwnd;
  if (tcp_cubic_at (c, now - c->epoch_start) < c->w_est) {
    t->cwnd = MAX (t->cwnd, c->w_est);
    return;
  }
  target = CLAMP (tcp_cubic_at (c, now - c->epoch_start + t->srtt), t->cwnd,
      1.5 * t->cwnd);
  t->cwnd += (target - t->cwnd) / t->cwnd;
}

/* Reno halves; CUBIC takes 0.7 and starts an epoch, with fast
 * convergence. */
static void
tcp_on_loss (TcpFlow * t, gint64 now)
{
  gdouble factor = t->cc == VLMCC_SIM_TCP_CUBIC ? CUBIC_BETA : 0.5;

  if (t->cc == VLMCC_SIM_TCP_CUBIC) {
    TcpCubic *c = &t->cubic;
    gdouble w_max = t->cwnd;

    if (c->epoch_start && t->cwnd < c->w_max)
      w_max = t->cwnd * (1.0 + CUBIC_BETA) / 2.0;
    c->prior = t->cwnd;
    tcp_cubic_start (c, w_max, MAX (t->cwnd * factor, 2.0), now);
  }
  t->ssthresh = MAX (t->cwnd * factor, 2.0);
  t->cwnd = t->ssthresh;
  t->recover = t->next_seq;
  t->halvings++;
}

/* Every link is FIFO: a gap before the acked segment is a loss (Reno's
 * three duplicate acks, one segment time sooner). */
static void
on_tcp_ack (VlmccSim * sim, guint idx, GBytes * data)
{
  TcpFlow *t = tcp_at (sim, idx);
  const TcpSegment *seg = g_bytes_get_data (data, NULL);
  gint64 rtt = now (sim) - seg->sent;

  if ((gint32) (seg->seq - t->high) < 0)
    return;
  if (seg->seq != t->high && (gint32) (seg->seq - 1 - t->recover) >= 0)
    tcp_on_loss (t, now (sim));
  t->high = seg->seq + 1;
  t->srtt = t->srtt ? (7 * t->srtt + rtt) / 8 : rtt;
  if (t->cwnd < t->ssthresh)
    t->cwnd += 1.0;
  else if (t->cc == VLMCC_SIM_TCP_CUBIC)
    tcp_cubic_ack (t, now (sim));
  else
    t->cwnd += 1.0 / t->cwnd;
  t->last_progress = now (sim);
  tcp_fill (sim, idx);
  tcp_arm_timer (sim, idx);
}

static void
on_tcp_data (VlmccSim * sim, guint idx, guint node, GBytes * data)
{
  TcpFlow *t = tcp_at (sim, idx);

  if (node != t->node) {
    tcp_send_segment (sim, idx, node, data);
    return;
  }
  sim_bins_add (t->byte_bins, 1, 0, now (sim), TCP_SEGMENT);
  schedule (sim, now (sim) + path_delay (sim, node), EV_TCP_ACK, idx,
      g_bytes_ref (data), 0);
}

/* The start (generation 0), or nothing acked for a timeout: every
 * segment in travel is lost, the window restarts from one. */
static void
on_tcp_timer (VlmccSim * sim, guint idx, guint64 gen)
{
  TcpFlow *t = tcp_at (sim, idx);

  if (gen != t->timer_gen)
    return;
  if (gen == 0) {
    t->cwnd = 2.0;
    t->ssthresh = G_MAXUINT16;
  } else if (t->next_seq != t->high) {
    t->ssthresh = MAX (t->cwnd * (t->cc == VLMCC_SIM_TCP_CUBIC ?
            CUBIC_BETA : 0.5), 2.0);
    t->cwnd = 1.0;
    /* after slow start the first ack begins a new epoch */
    t->cubic.epoch_start = 0;
    t->high = t->recover = t->next_seq;
    t->timeouts++;
  }
  t->last_progress = now (sim);
  tcp_fill (sim, idx);
  tcp_arm_timer (sim, idx);
}

static void
on_tcp_event (VlmccSim * sim, const SimEngineEvent * ev)
{
  if (ev->kind == EV_TCP_DATA)
    on_tcp_data (sim, ev->a, (guint) ev->b, ev->p);
  else if (ev->kind == EV_TCP_ACK)
    on_tcp_ack (sim, ev->a, ev->p);
  else
    on_tcp_timer (sim, ev->a, ev->b);
}

guint64
vlmcc_sim_tcp_bytes (const VlmccSim * sim, guint flow, gint64 from, gint64 to)
{
  return sim_bins_sum (tcp_at (sim, flow)->byte_bins, 1, 0, from, to);
}

guint64
vlmcc_sim_tcp_halvings (const VlmccSim * sim, guint flow)
{
  return tcp_at (sim, flow)->halvings + tcp_at (sim, flow)->timeouts;
}

/* ------------------------------------------------------------------ */
/* Cores */

static void
drain_receiver (VlmccSim * sim, guint idx)
{
  Receiver *r = receiver_at (sim, idx);
  guint8 buf[MAX_DATAGRAM];
  gsize len;
  gint64 deadline;
  VlmccEvent ev;

  while ((len = vlmcc_receiver_pop_transmit (r->core, buf, sizeof (buf)))) {
    if (sim->feedback_queued)
      schedule (sim, now (sim), EV_FEEDBACK_HOP, idx, g_bytes_new (buf, len),
          r->node);
    else {
      gint64 at = now (sim) + path_delay (sim, r->node);

      if (sim->late.jitter || sim->late.stall_every) {
        at += late_feedback_delay (sim);
        at = MAX (at, r->last_feedback);
      }
      r->last_feedback = at;
      schedule (sim, at, EV_FEEDBACK, idx, g_bytes_new (buf, len), 0);
    }
  }
  while (vlmcc_receiver_pop_event (r->core, &ev));
  deadline = vlmcc_receiver_next_deadline (r->core);
  if (deadline >= 0)
    schedule (sim, MAX (receiver_clock_to_sim (r, deadline), now (sim)),
        EV_RECEIVER_TIMER, idx, NULL, ++r->timer_gen);
}

static void
record_leader (VlmccSim * sim, guint32 id)
{
  VlmccSimLeaderChange c = { now (sim), vlmcc_sim_receiver_of (sim, id) };

  g_array_append_val (sim->leader_changes, c);
}

static void
top_up_source (VlmccSim * sim)
{
  guint8 pkt[MAX_DATAGRAM];
  guint size = sim->cfg.packet_size > RTP_HEADER_SIZE + 24 ?
      sim->cfg.packet_size - 24 : RTP_HEADER_SIZE + 1;
  RtpHeader h = { 0 };

  h.payload_type = 96;
  h.ssrc = 0x5e4de7;
  while (vlmcc_sender_queued (sim->sender) < SOURCE_BACKLOG) {
    h.seq = sim->rtp_seq++;
    h.timestamp = sim->rtp_ts += 90;
    memset (pkt, 0, sizeof (pkt));
    rtp_header_write (&h, NULL, 0, pkt, sizeof (pkt));
    vlmcc_sender_push (sim->sender, pkt, MIN (size, sizeof (pkt)), now (sim));
  }
}

/* A START on its way down to receiver @rx's node, now at @node: through
 * the next link's queue and serialisation as the data on that link, and
 * lost when that queue is full. */
static void
start_hop (VlmccSim * sim, guint rx, guint node, GBytes * start)
{
  guint target = receiver_at (sim, rx)->node;
  guint next;

  if (node == target) {
    schedule (sim, now (sim), EV_START, rx, g_bytes_ref (start), 0);
    return;
  }
  next = next_hop_down (sim, node, target);
  if (!sim_engine_link_send (sim->engine, next, SIM_DOWN,
          g_bytes_get_size (start), EV_START_HOP, rx, next, start))
    sim->fb.starts_dropped++;
}

/* The sender's START to receiver @rx: queued on every link of its path
 * (vlmcc_sim_set_start_unqueued: only the links' delays). */
static void
send_start (VlmccSim * sim, guint rx, GBytes * start)
{
  sim->fb.starts_sent++;
  if (sim->start_unqueued) {
    schedule (sim, now (sim) + path_delay (sim, receiver_at (sim, rx)->node),
        EV_START, rx, g_bytes_ref (start), 0);
    return;
  }
  start_hop (sim, rx, 0, start);
}

/* A START as a sender that predates its hold field writes it: 0. */
static gsize
start_without_hold (guint8 * buf, gsize len)
{
  VlmccMsg m;

  if (!vlmcc_msg_parse (buf, len, &m))
    return len;
  m.hold = 0;
  return vlmcc_msg_write (&m, buf, len);
}

static void
drain_sender (VlmccSim * sim)
{
  guint8 buf[MAX_DATAGRAM];
  VlmccAddr to;
  gsize len;
  VlmccEvent ev;

  top_up_source (sim);
  while ((len = vlmcc_sender_pop_transmit (sim->sender, buf, sizeof (buf),
              &to))) {
    if (to.len == 0) {
      GBytes *data = g_bytes_new (buf, len);

      sim->fb.media_sent++;
      forward_data (sim, 0, data);
      g_bytes_unref (data);
    } else {
      guint rx = (guint) to.bytes[0] << 24 | to.bytes[1] << 16 |
          to.bytes[2] << 8 | to.bytes[3];

      GBytes *start;

      if (sim->start_hold_zeroed)
        len = start_without_hold (buf, len);
      start = g_bytes_new (buf, len);
      send_start (sim, rx, start);
      g_bytes_unref (start);
    }
    top_up_source (sim);
  }
  while (vlmcc_sender_pop_event (sim->sender, &ev))
    if (ev.type == VLMCC_EVENT_LEADER)
      record_leader (sim, ev.leader);
  schedule (sim, MAX (vlmcc_sender_next_deadline (sim->sender), now (sim)),
      EV_SENDER_TIMER, 0, NULL, ++sim->sender_gen);
}

static void
on_data (VlmccSim * sim, guint node, GBytes * data)
{
  const GArray *attached = sim_engine_attached (sim->engine, node);
  gsize len;
  const guint8 *p = g_bytes_get_data (data, &len);

  for (guint i = 0; i < attached->len; i++) {
    guint idx = g_array_index (attached, guint, i);
    Receiver *r = receiver_at (sim, idx);

    if (!r->core || r->dead)
      continue;
    sim_bins_add (r->byte_bins, 1, 0, now (sim), len);
    vlmcc_receiver_on_data (r->core, p, len, receiver_clock (r, now (sim)));
    drain_receiver (sim, idx);
  }
  forward_data (sim, node, data);
}

/* The sender's loop reads feedback that came at @arrival. */
static void
on_feedback_read (VlmccSim * sim, guint rx, GBytes * data, gint64 arrival)
{
  VlmccAddr from = { 4 };
  VlmccMsg m;
  gsize len;
  const guint8 *p = g_bytes_get_data (data, &len);

  from.bytes[0] = rx >> 24;
  from.bytes[1] = rx >> 16;
  from.bytes[2] = rx >> 8;
  from.bytes[3] = rx;
  if (!vlmcc_msg_parse (p, len, &m))
    sim->fb.other++;
  else if (m.type == VLMCC_MSG_ACK)
    sim->fb.acks++;
  else if (m.type == VLMCC_MSG_CHALLENGE && m.probe)
    sim->fb.probes++;
  else if (m.type == VLMCC_MSG_CHALLENGE)
    sim->fb.challenges++;
  else
    sim->fb.other++;
  vlmcc_sender_on_feedback_at (sim->sender, p, len, &from, now (sim),
      arrival);
  drain_sender (sim);
}

static void
on_feedback (VlmccSim * sim, guint rx, GBytes * data)
{
  if (sim->sender_read_lag == 0) {
    on_feedback_read (sim, rx, data, now (sim));
    return;
  }
  schedule (sim, now (sim) + sim->sender_read_lag, EV_FEEDBACK_READ, rx,
      g_bytes_ref (data), (guint64) now (sim));
}

/* Feedback through the upstream queues: at @node, on to its parent. */
static void
on_feedback_hop (VlmccSim * sim, guint rx, guint node, GBytes * data)
{
  if (node == 0) {
    on_feedback (sim, rx, data);
    return;
  }
  sim_engine_link_send (sim->engine, node, SIM_UP, g_bytes_get_size (data),
      EV_FEEDBACK_HOP, rx, sim_engine_parent (sim->engine, node), data);
}

static void
on_receiver_timer (VlmccSim * sim, guint idx, guint64 gen)
{
  Receiver *r = receiver_at (sim, idx);

  if (r->dead)
    return;
  if (!r->core) {
    r->core = vlmcc_receiver_new (&sim->cfg, &sim->rng, receiver_clock (r,
            now (sim)));
  } else {
    if (gen != r->timer_gen)
      return;
    vlmcc_receiver_advance (r->core, receiver_clock (r, now (sim)));
  }
  drain_receiver (sim, idx);
}

static void
on_start (VlmccSim * sim, guint rx, GBytes * data)
{
  Receiver *r = receiver_at (sim, rx);
  gsize len;
  const guint8 *p = g_bytes_get_data (data, &len);

  if (r->core && !r->dead) {
    if (vlmcc_receiver_on_control (r->core, p, len, receiver_clock (r,
                now (sim))) == VLMCC_INPUT_TAKEN) {
      VlmccReceiverStats st;

      vlmcc_receiver_get_stats (r->core, &st);
      r->start_rtt = st.rtt;
    }
    drain_receiver (sim, rx);
  }
}

static void
dispatch (gpointer owner, const SimEngineEvent * ev)
{
  VlmccSim *sim = owner;

  switch (ev->kind) {
    case EV_DATA:
      on_data (sim, ev->a, ev->p);
      break;
    case EV_FEEDBACK:
      on_feedback (sim, ev->a, ev->p);
      break;
    case EV_FEEDBACK_HOP:
      on_feedback_hop (sim, ev->a, (guint) ev->b, ev->p);
      break;
    case EV_FEEDBACK_READ:
      on_feedback_read (sim, ev->a, ev->p, (gint64) ev->b);
      break;
    case EV_START:
      on_start (sim, ev->a, ev->p);
      break;
    case EV_START_HOP:
      start_hop (sim, ev->a, (guint) ev->b, ev->p);
      break;
    case EV_SENDER_TIMER:
      if (ev->b == sim->sender_gen) {
        vlmcc_sender_advance (sim->sender, now (sim));
        drain_sender (sim);
      }
      break;
    case EV_RECEIVER_TIMER:
      on_receiver_timer (sim, ev->a, ev->b);
      break;
    case EV_KILL:
      on_kill (sim, ev->a);
      break;
    case EV_TCP_DATA:
    case EV_TCP_ACK:
    case EV_TCP_TIMER:
      on_tcp_event (sim, ev);
      break;
  }
}

void
vlmcc_sim_run (VlmccSim * sim, gint64 until)
{
  if (!sim->started) {
    sim->started = TRUE;
    drain_sender (sim);
  }
  sim_engine_run (sim->engine, until);
}

/* ------------------------------------------------------------------ */
/* Results */

VlmccSender *
vlmcc_sim_sender (VlmccSim * sim)
{
  return sim->sender;
}

VlmccReceiver *
vlmcc_sim_receiver (VlmccSim * sim, guint rx)
{
  return rx < sim->receivers->len ? receiver_at (sim, rx)->core : NULL;
}

guint
vlmcc_sim_n_receivers (const VlmccSim * sim)
{
  return sim->receivers->len;
}

gint
vlmcc_sim_receiver_of (const VlmccSim * sim, guint32 id)
{
  VlmccReceiverStats st;

  if (id == 0)
    return -1;
  for (guint i = 0; i < sim->receivers->len; i++) {
    Receiver *r = receiver_at (sim, i);

    if (!r->core)
      continue;
    vlmcc_receiver_get_stats (r->core, &st);
    if (st.id == id)
      return (gint) i;
  }
  return -1;
}

gint64
vlmcc_sim_receiver_start_rtt (const VlmccSim * sim, guint rx)
{
  return receiver_at (sim, rx)->start_rtt;
}

const GArray *
vlmcc_sim_leader_changes (const VlmccSim * sim)
{
  return sim->leader_changes;
}

gint
vlmcc_sim_leader_at (const VlmccSim * sim, gint64 time)
{
  gint rx = -1;

  for (guint i = 0; i < sim->leader_changes->len; i++) {
    VlmccSimLeaderChange *c =
        &g_array_index (sim->leader_changes, VlmccSimLeaderChange, i);

    if (c->time > time)
      break;
    rx = c->rx;
  }
  return rx;
}

void
vlmcc_sim_feedback (const VlmccSim * sim, VlmccSimFeedback * fb)
{
  *fb = sim->fb;
}

guint64
vlmcc_sim_receiver_bytes (const VlmccSim * sim, guint rx, gint64 from,
    gint64 to)
{
  return sim_bins_sum (receiver_at (sim, rx)->byte_bins, 1, 0, from, to);
}

void
vlmcc_sim_link_drops (const VlmccSim * sim, guint node, gint64 from,
    gint64 to, guint64 * data, guint64 * cross)
{
  sim_engine_link_drops (sim->engine, node, SIM_DOWN, from, to, data, cross);
}

void
vlmcc_sim_print_churn_spans (const VlmccSimChurnRun * run,
    const gchar * indent)
{
  for (guint i = 0; i < run->n_spans; i++) {
    const VlmccSimChurnSpan *sp = &run->spans[i];

    printf ("%s%5.1f s %-38s right leader after %7.0f ms, none for %5.0f "
        "ms, %u leader changes, %5.0f kbit/s (least %5.0f over 500 ms)\n",
        indent, sp->time / 1e9, sp->what, sp->settle / 1e6,
        sp->leaderless / 1e6, sp->leader_changes, sp->kbit, sp->min_kbit);
  }
}
