/* The VLMCC simulator: a binary heap of events over a tree of drop-tail
 * links, the real cores at its ends. See vlmccsim.h. */
#include <string.h>

#include "vlmccsim.h"
#include "core/rtp.h"

#define BIN (100 * VSIM_MS)
#define MAX_DATAGRAM 2048
/* The greedy source keeps this many packets waiting in the sender core. */
#define SOURCE_BACKLOG 8

typedef enum {
  EV_DATA,                      /* a data packet reaches a node */
  EV_CROSS,                     /* cross traffic leaves its source */
  EV_CROSS_DONE,                /* a cross packet reaches its node */
  EV_FEEDBACK,                  /* a receiver's datagram reaches the sender */
  EV_FEEDBACK_HOP,              /* ... reaches node @gen on its way up */
  EV_START,                     /* a START reaches a receiver */
  EV_SENDER_TIMER,
  EV_RECEIVER_TIMER,
  EV_KILL,
} EventType;

typedef struct {
  gint64 time;
  guint64 order;
  EventType type;
  guint target;                 /* node, receiver or cross source */
  guint64 gen;                  /* timers: the generation armed */
  GBytes *data;
} Event;

/* One direction of a link: a drop-tail queue and the transmitter. */
typedef struct {
  GQueue departures;            /* gint64 * of the packets in the queue */
  gint64 busy_until;
} LinkQueue;

typedef struct {
  guint parent;
  guint64 rate;
  gint64 delay;
  guint queue_limit;
  LinkQueue down, up;
  GArray *children;             /* guint */
  GArray *receivers;            /* guint */
  gboolean in_group;
  GArray *drop_bins;            /* guint64 pairs: data, cross */
} Node;

typedef struct {
  guint node;
  guint64 rate;
  guint size;
  gint64 start, stop, on, off;
} Cross;

typedef struct {
  VlmccReceiver *core;
  guint node;
  gint64 start;
  gboolean dead;
  guint64 timer_gen;
  GArray *byte_bins;            /* guint64 */
} Receiver;

struct _VlmccSim {
  VlmccConfig cfg;
  RandomSeeded rng_state;
  RandomSource rng;
  GArray *heap;                 /* Event */
  guint64 order;
  gint64 now;
  GPtrArray *nodes;
  GPtrArray *receivers;
  GArray *cross;
  VlmccSender *sender;
  guint64 sender_gen;
  guint16 rtp_seq;
  guint32 rtp_ts;
  GArray *leader_changes;
  VlmccSimFeedback fb;
  gboolean started;
  gboolean feedback_queued;
};

/* ------------------------------------------------------------------ */
/* Event heap */

static gboolean
event_before (const Event * a, const Event * b)
{
  return a->time < b->time || (a->time == b->time && a->order < b->order);
}

static void
heap_push (VlmccSim * sim, Event ev)
{
  Event *h;
  guint i;

  ev.order = sim->order++;
  g_array_append_val (sim->heap, ev);
  h = (Event *) sim->heap->data;
  for (i = sim->heap->len - 1; i > 0; i = (i - 1) / 2) {
    Event tmp;

    if (!event_before (&h[i], &h[(i - 1) / 2]))
      break;
    tmp = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = tmp;
  }
}

static Event
heap_pop (VlmccSim * sim)
{
  Event *h = (Event *) sim->heap->data;
  Event top = h[0];
  guint n = sim->heap->len - 1, i = 0;

  h[0] = h[n];
  g_array_set_size (sim->heap, n);
  h = (Event *) sim->heap->data;
  for (;;) {
    guint l = 2 * i + 1, r = l + 1, m = i;
    Event tmp;

    if (l < n && event_before (&h[l], &h[m]))
      m = l;
    if (r < n && event_before (&h[r], &h[m]))
      m = r;
    if (m == i)
      break;
    tmp = h[i];
    h[i] = h[m];
    h[m] = tmp;
    i = m;
  }
  return top;
}

static void
schedule (VlmccSim * sim, gint64 time, EventType type, guint target,
    GBytes * data, guint64 gen)
{
  Event ev = { time, 0, type, target, gen, data };

  heap_push (sim, ev);
}

/* ------------------------------------------------------------------ */
/* Topology */

static Node *
node_new (guint parent, guint64 rate, gint64 delay, guint queue)
{
  Node *n = g_new0 (Node, 1);

  n->parent = parent;
  n->rate = rate;
  n->delay = delay;
  n->queue_limit = queue;
  n->children = g_array_new (FALSE, FALSE, sizeof (guint));
  n->receivers = g_array_new (FALSE, FALSE, sizeof (guint));
  n->drop_bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  return n;
}

static void
node_free (Node * n)
{
  g_queue_clear_full (&n->down.departures, g_free);
  g_queue_clear_full (&n->up.departures, g_free);
  g_array_free (n->children, TRUE);
  g_array_free (n->receivers, TRUE);
  g_array_free (n->drop_bins, TRUE);
  g_free (n);
}

static Node *
node_at (const VlmccSim * sim, guint i)
{
  return g_ptr_array_index (sim->nodes, i);
}

static Receiver *
receiver_at (const VlmccSim * sim, guint i)
{
  return g_ptr_array_index (sim->receivers, i);
}

static void
bin_add (GArray * bins, guint per, guint slot, gint64 time, guint64 v)
{
  guint i = (guint) (time / BIN) * per + slot;

  if (i >= bins->len)
    g_array_set_size (bins, i + per);
  g_array_index (bins, guint64, i) += v;
}

static guint64
bin_sum (GArray * bins, guint per, guint slot, gint64 from, gint64 to)
{
  guint64 sum = 0;

  for (guint i = (guint) (from / BIN); (gint64) i * BIN < to; i++) {
    if (i * per + slot >= bins->len)
      break;
    sum += g_array_index (bins, guint64, i * per + slot);
  }
  return sum;
}

VlmccSim *
vlmcc_sim_new (const VlmccConfig * cfg, guint64 seed)
{
  VlmccSim *sim = g_new0 (VlmccSim, 1);

  sim->cfg = *cfg;
  random_source_init_seeded (&sim->rng, &sim->rng_state, seed);
  sim->heap = g_array_new (FALSE, FALSE, sizeof (Event));
  sim->nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  sim->receivers = g_ptr_array_new ();
  sim->cross = g_array_new (FALSE, FALSE, sizeof (Cross));
  sim->leader_changes = g_array_new (FALSE, FALSE,
      sizeof (VlmccSimLeaderChange));
  g_ptr_array_add (sim->nodes, node_new (0, 0, 0, 0));
  sim->sender = vlmcc_sender_new (cfg, 0x5e4de7, &sim->rng, 0);
  return sim;
}

void
vlmcc_sim_free (VlmccSim * sim)
{
  for (guint i = 0; i < sim->heap->len; i++) {
    Event *ev = &g_array_index (sim->heap, Event, i);

    if (ev->data)
      g_bytes_unref (ev->data);
  }
  g_array_free (sim->heap, TRUE);
  for (guint i = 0; i < sim->receivers->len; i++) {
    Receiver *r = receiver_at (sim, i);

    vlmcc_receiver_free (r->core);
    g_array_free (r->byte_bins, TRUE);
    g_free (r);
  }
  g_ptr_array_free (sim->receivers, TRUE);
  g_ptr_array_free (sim->nodes, TRUE);
  g_array_free (sim->cross, TRUE);
  g_array_free (sim->leader_changes, TRUE);
  vlmcc_sender_free (sim->sender);
  g_free (sim);
}

guint
vlmcc_sim_add_node (VlmccSim * sim, guint parent, guint64 rate, gint64 delay,
    guint queue)
{
  guint idx = sim->nodes->len;

  g_return_val_if_fail (parent < sim->nodes->len, 0);
  g_ptr_array_add (sim->nodes, node_new (parent, rate, delay, queue));
  g_array_append_val (node_at (sim, parent)->children, idx);
  return idx;
}

guint
vlmcc_sim_add_receiver (VlmccSim * sim, guint node, gint64 start)
{
  Receiver *r = g_new0 (Receiver, 1);
  guint idx = sim->receivers->len;

  r->node = node;
  r->start = start;
  r->byte_bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_ptr_array_add (sim->receivers, r);
  g_array_append_val (node_at (sim, node)->receivers, idx);
  for (guint n = node; n != 0; n = node_at (sim, n)->parent)
    node_at (sim, n)->in_group = TRUE;
  schedule (sim, start, EV_RECEIVER_TIMER, idx, NULL, 0);
  return idx;
}

void
vlmcc_sim_add_cross_traffic (VlmccSim * sim, guint node, guint64 rate,
    guint size, gint64 start, gint64 stop, gint64 on, gint64 off)
{
  Cross c = { node, rate, size, start, stop, on, off };

  g_array_append_val (sim->cross, c);
  schedule (sim, start, EV_CROSS, sim->cross->len - 1, NULL, 0);
}

void
vlmcc_sim_set_feedback_queued (VlmccSim * sim, gboolean queued)
{
  sim->feedback_queued = queued;
}

void
vlmcc_sim_kill_receiver (VlmccSim * sim, guint rx, gint64 when)
{
  schedule (sim, when, EV_KILL, rx, NULL, 0);
}

/* Sum of the propagation delays between @node and the root. */
static gint64
path_delay (const VlmccSim * sim, guint node)
{
  gint64 d = 0;

  for (guint n = node; n != 0; n = node_at (sim, n)->parent)
    d += node_at (sim, n)->delay;
  return d;
}

/* ------------------------------------------------------------------ */
/* Links */

/* Drop-tail on the link into @node, downstream or (@up) upstream: FALSE
 * if the queue is full; else when the packet arrives at the far end. */
static gboolean
link_enqueue (VlmccSim * sim, guint node, gboolean up, guint bytes,
    gboolean cross, gint64 * arrival)
{
  Node *n = node_at (sim, node);
  LinkQueue *q = up ? &n->up : &n->down;
  gint64 start, *dep;

  while (!g_queue_is_empty (&q->departures) &&
      *(gint64 *) g_queue_peek_head (&q->departures) <= sim->now)
    g_free (g_queue_pop_head (&q->departures));
  if (n->queue_limit && g_queue_get_length (&q->departures) >= n->queue_limit) {
    if (!up)
      bin_add (n->drop_bins, 2, cross ? 1 : 0, sim->now, 1);
    return FALSE;
  }
  start = MAX (sim->now, q->busy_until);
  q->busy_until = start + (gint64) bytes * 8 * VSIM_S / MAX (n->rate, 1);
  dep = g_new (gint64, 1);
  *dep = q->busy_until;
  g_queue_push_tail (&q->departures, dep);
  *arrival = q->busy_until + n->delay;
  return TRUE;
}

static void
forward_data (VlmccSim * sim, guint node, GBytes * data)
{
  Node *n = node_at (sim, node);

  for (guint i = 0; i < n->children->len; i++) {
    guint child = g_array_index (n->children, guint, i);
    gint64 arrival;

    if (!node_at (sim, child)->in_group)
      continue;
    if (link_enqueue (sim, child, FALSE, g_bytes_get_size (data), FALSE,
            &arrival))
      schedule (sim, arrival, EV_DATA, child, g_bytes_ref (data), 0);
  }
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
      schedule (sim, sim->now, EV_FEEDBACK_HOP, idx, g_bytes_new (buf, len),
          r->node);
    else
      schedule (sim, sim->now + path_delay (sim, r->node), EV_FEEDBACK, idx,
          g_bytes_new (buf, len), 0);
  }
  while (vlmcc_receiver_pop_event (r->core, &ev));
  deadline = vlmcc_receiver_next_deadline (r->core);
  if (deadline >= 0)
    schedule (sim, MAX (deadline, sim->now), EV_RECEIVER_TIMER, idx, NULL,
        ++r->timer_gen);
}

static void
record_leader (VlmccSim * sim, guint32 id)
{
  VlmccSimLeaderChange c = { sim->now, vlmcc_sim_receiver_of (sim, id) };

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
    vlmcc_sender_push (sim->sender, pkt, MIN (size, sizeof (pkt)), sim->now);
  }
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

      schedule (sim, sim->now + path_delay (sim, receiver_at (sim,
                  rx)->node), EV_START, rx, g_bytes_new (buf, len), 0);
    }
    top_up_source (sim);
  }
  while (vlmcc_sender_pop_event (sim->sender, &ev))
    if (ev.type == VLMCC_EVENT_LEADER)
      record_leader (sim, ev.leader);
  schedule (sim, MAX (vlmcc_sender_next_deadline (sim->sender), sim->now),
      EV_SENDER_TIMER, 0, NULL, ++sim->sender_gen);
}

static void
on_data (VlmccSim * sim, guint node, GBytes * data)
{
  Node *n = node_at (sim, node);
  gsize len;
  const guint8 *p = g_bytes_get_data (data, &len);

  for (guint i = 0; i < n->receivers->len; i++) {
    guint idx = g_array_index (n->receivers, guint, i);
    Receiver *r = receiver_at (sim, idx);

    if (!r->core || r->dead)
      continue;
    bin_add (r->byte_bins, 1, 0, sim->now, len);
    vlmcc_receiver_on_data (r->core, p, len, sim->now);
    drain_receiver (sim, idx);
  }
  forward_data (sim, node, data);
}

static void
on_feedback (VlmccSim * sim, guint rx, GBytes * data)
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
  vlmcc_sender_on_feedback (sim->sender, p, len, &from, sim->now);
  drain_sender (sim);
}

/* Feedback through the upstream queues: at @node, on to its parent. */
static void
on_feedback_hop (VlmccSim * sim, guint rx, guint node, GBytes * data)
{
  gint64 arrival;

  if (node == 0) {
    on_feedback (sim, rx, data);
    return;
  }
  if (link_enqueue (sim, node, TRUE, g_bytes_get_size (data), FALSE,
          &arrival))
    schedule (sim, arrival, EV_FEEDBACK_HOP, rx, g_bytes_ref (data),
        node_at (sim, node)->parent);
}

static void
on_receiver_timer (VlmccSim * sim, guint idx, guint64 gen)
{
  Receiver *r = receiver_at (sim, idx);

  if (r->dead)
    return;
  if (!r->core) {
    r->core = vlmcc_receiver_new (&sim->cfg, &sim->rng, sim->now);
  } else {
    if (gen != r->timer_gen)
      return;
    vlmcc_receiver_advance (r->core, sim->now);
  }
  drain_receiver (sim, idx);
}

static void
on_cross (VlmccSim * sim, guint ci)
{
  Cross *c = &g_array_index (sim->cross, Cross, ci);
  gint64 gap = (gint64) c->size * 8 * VSIM_S / MAX (c->rate, 1);
  gint64 next = sim->now + gap, arrival;

  if (c->stop >= 0 && sim->now >= c->stop)
    return;
  if (link_enqueue (sim, c->node, FALSE, c->size, TRUE, &arrival))
    schedule (sim, arrival, EV_CROSS_DONE, c->node, NULL, 0);
  if (c->off > 0 && (next - c->start) % (c->on + c->off) >= c->on)
    next += c->on + c->off - (next - c->start) % (c->on + c->off);
  schedule (sim, next, EV_CROSS, ci, NULL, 0);
}

static void
dispatch (VlmccSim * sim, Event * ev)
{
  switch (ev->type) {
    case EV_DATA:
      on_data (sim, ev->target, ev->data);
      break;
    case EV_CROSS:
      on_cross (sim, ev->target);
      break;
    case EV_CROSS_DONE:
      break;
    case EV_FEEDBACK:
      on_feedback (sim, ev->target, ev->data);
      break;
    case EV_FEEDBACK_HOP:
      on_feedback_hop (sim, ev->target, (guint) ev->gen, ev->data);
      break;
    case EV_START:{
      Receiver *r = receiver_at (sim, ev->target);
      gsize len;
      const guint8 *p = g_bytes_get_data (ev->data, &len);

      if (r->core && !r->dead) {
        vlmcc_receiver_on_control (r->core, p, len, sim->now);
        drain_receiver (sim, ev->target);
      }
      break;
    }
    case EV_SENDER_TIMER:
      if (ev->gen == sim->sender_gen) {
        vlmcc_sender_advance (sim->sender, sim->now);
        drain_sender (sim);
      }
      break;
    case EV_RECEIVER_TIMER:
      on_receiver_timer (sim, ev->target, ev->gen);
      break;
    case EV_KILL:
      receiver_at (sim, ev->target)->dead = TRUE;
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
  while (sim->heap->len > 0 &&
      g_array_index (sim->heap, Event, 0).time <= until) {
    Event ev = heap_pop (sim);

    sim->now = ev.time;
    dispatch (sim, &ev);
    if (ev.data)
      g_bytes_unref (ev.data);
  }
  sim->now = until;
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
  return bin_sum (receiver_at (sim, rx)->byte_bins, 1, 0, from, to);
}

void
vlmcc_sim_link_drops (const VlmccSim * sim, guint node, gint64 from,
    gint64 to, guint64 * data, guint64 * cross)
{
  Node *n = node_at (sim, node);

  *data = bin_sum (n->drop_bins, 2, 0, from, to);
  *cross = bin_sum (n->drop_bins, 2, 1, from, to);
}
