/* The RLM simulator on the engine (simengine.h). See sim.h. */
#include <string.h>

#include "sim.h"
#include "core/random.h"
#include "core/rtp.h"

#define SIM_RTP_PT 96
#define SIM_SSRC 0x5151AA01u
#define SIM_MAX_PKT 64

typedef enum {
  EV_SOURCE = SIM_ENGINE_KIND_USER,     /* a: session, b: layer */
  EV_ARRIVE,                    /* a: node, p: packet */
  EV_WAKE,                      /* a: receiver, b: generation */
  EV_CTRL,                      /* a: receiver, b: sender, p: packet */
  EV_REFRESH,                   /* a: node, b: group */
  EV_RX_START,                  /* a: receiver */
} SimEventType;

typedef struct {
  gint ref;
  guint size;                   /* bytes on the wire */
  guint session;
  guint layer;
  gsize len;
  guint8 data[SIM_MAX_PKT];     /* the RTP header the core parses */
} SimPacket;

/* What the RLM side keeps of a node (the engine keeps the rest). */
typedef struct {
  GHashTable *groups;           /* group + 1 -> SimGroup */
  gboolean has_children;        /* a leaf forwards nothing: no lookup */
  guint64 delivered;
  guint64 layer_delivered[RLM_MAX_LAYERS];
} SimNode;

/* A group (a layer of a session) at a node. */
typedef struct {
  guint members;                /* subscribed receivers at or below it */
  gboolean forwards;            /* the link into the node carries it */
  /* children whose links carry it; inline, as every packet at the node
   * reads them */
  guint *out;
  guint n_out, out_size;
} SimGroup;

typedef struct {
  guint n_layers;
  guint64 layer_rate[RLM_MAX_LAYERS];
  RlmStamper stamper;
  guint16 rtp_seq;
  guint32 ssrc;
} SimSession;

typedef struct {
  guint node;
  guint session;
  gint64 start;
  RlmConfig cfg;
  RlmReceiver *core;
  RandomSeeded seeded;
  RandomSource rng;
  guint wake_gen;
  gint64 wake_at;
  gboolean subscribed[RLM_MAX_LAYERS];
  gboolean have_seq[RLM_MAX_LAYERS];
  guint16 next_seq[RLM_MAX_LAYERS];
  GArray *events;               /* SimEventRecord */
  GArray *bins;                 /* guint64 pairs: received, lost */
  guint64 received, lost;
} SimReceiver;

struct _Sim {
  SimConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  SimEngine *engine;
  GArray *nodes;                /* SimNode */
  GPtrArray *receivers;         /* SimReceiver, each allocated once: the
                                 * cores hold pointers to their rng */
  GArray *sessions;             /* SimSession; sources all at node 0 */
  gboolean started;
  GArray *joins;                /* SimJoinRecord */
  /* sim_trace_core: the receiver traced (G_MAXUINT none), its stats
   * before the next call into its core */
  guint traced;
  SimCoreTraceFunc trace_func;
  gpointer trace_data;
  RlmReceiverStats trace_before;
};

void
sim_config_init (SimConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->seed = 1;
  cfg->n_layers = 6;
  for (guint i = 0; i < RLM_MAX_LAYERS; i++)
    cfg->layer_rate[i] = 32000ull << MIN (i, 20);
  cfg->packet_size = 1000;
  cfg->join_latency = 10 * SIM_MS;
  cfg->leave_latency = 100 * SIM_MS;
  cfg->source_jitter = TRUE;
}

static void
schedule (Sim * sim, gint64 time, SimEventType type, guint a, guint b,
    gpointer p)
{
  sim_engine_schedule (sim->engine, time, type, a, b, p);
}

static gint64
now (const Sim * sim)
{
  return sim_engine_now (sim->engine);
}

/* ------------------------------------------------------------------ */
/* Packets, nodes, groups */

static gpointer
packet_ref (gpointer data)
{
  SimPacket *p = data;

  p->ref++;
  return p;
}

static void
packet_unref (gpointer data)
{
  SimPacket *p = data;

  if (--p->ref == 0)
    g_free (p);
}

static SimNode *
node_at (const Sim * sim, guint n)
{
  return &g_array_index (sim->nodes, SimNode, n);
}

static SimReceiver *
rx_at (const Sim * sim, guint i)
{
  return g_ptr_array_index (sim->receivers, i);
}

static guint
group_of (guint session, guint layer)
{
  return session * RLM_MAX_LAYERS + layer;
}

/* The state of group @g at node @n; NULL if it never had any and not
 * @create. */
static SimGroup *
group_at (Sim * sim, guint n, guint g, gboolean create)
{
  SimNode *node = node_at (sim, n);
  SimGroup *st = g_hash_table_lookup (node->groups, GUINT_TO_POINTER (g + 1));

  if (!st && create) {
    st = g_new0 (SimGroup, 1);
    g_hash_table_insert (node->groups, GUINT_TO_POINTER (g + 1), st);
  }
  return st;
}

static void
group_free (gpointer data)
{
  SimGroup *st = data;

  g_free (st->out);
  g_free (st);
}

static SimSession *
session_at (const Sim * sim, guint s)
{
  return &g_array_index (sim->sessions, SimSession, s);
}

/* ------------------------------------------------------------------ */
/* Receivers */

/* The simulator's own loss count, independent of the core's. */
static void
account_packet (SimReceiver * rx, const SimPacket * p, gint64 time)
{
  guint layer;
  guint16 seq, gap = 0;

  if (!rlm_layer_ext_parse (p->data, p->len, rx->cfg.ext_id, &layer, &seq))
    return;
  if (rx->have_seq[layer] && (gint16) (seq - rx->next_seq[layer]) > 0)
    gap = seq - rx->next_seq[layer];
  if (!rx->have_seq[layer] || (gint16) (seq - rx->next_seq[layer]) >= 0)
    rx->next_seq[layer] = seq + 1;
  rx->have_seq[layer] = TRUE;
  sim_bins_add (rx->bins, 2, 0, time, 1);
  sim_bins_add (rx->bins, 2, 1, time, gap);
  rx->received++;
  rx->lost += gap;
}

static void
group_add_out (SimGroup * st, guint child)
{
  if (st->n_out == st->out_size) {
    st->out_size = MAX (4, 2 * st->out_size);
    st->out = g_renew (guint, st->out, st->out_size);
  }
  st->out[st->n_out++] = child;
}

/* The last child takes the place of the one removed. */
static void
group_remove_out (SimGroup * st, guint child)
{
  for (guint k = 0; k < st->n_out; k++) {
    if (st->out[k] == child) {
      st->out[k] = st->out[--st->n_out];
      return;
    }
  }
}

/* Grafts or prunes group @g on every link from node @n up to the root,
 * as the members below each link now ask. */
static void
refresh_path (Sim * sim, guint n, guint g)
{
  for (; n != 0; n = sim_engine_parent (sim->engine, n)) {
    SimGroup *st = group_at (sim, n, g, TRUE);
    SimGroup *up = group_at (sim, sim_engine_parent (sim->engine, n), g,
        TRUE);
    gboolean want = st->members > 0;

    if (want == st->forwards)
      continue;
    st->forwards = want;
    if (want)
      group_add_out (up, n);
    else
      group_remove_out (up, n);
  }
}

static void
change_membership (Sim * sim, SimReceiver * rx, guint layer, gboolean join)
{
  guint g = group_of (rx->session, layer);

  if (layer >= session_at (sim, rx->session)->n_layers ||
      rx->subscribed[layer] == join)
    return;
  rx->subscribed[layer] = join;
  rx->have_seq[layer] = FALSE;
  for (guint n = rx->node; n != 0; n = sim_engine_parent (sim->engine, n)) {
    if (join)
      group_at (sim, n, g, TRUE)->members++;
    else
      group_at (sim, n, g, TRUE)->members--;
  }
  schedule (sim, now (sim) + (join ? sim->cfg.join_latency :
          sim->cfg.leave_latency), EV_REFRESH, rx->node, g, NULL);
}

static void
record_join (Sim * sim, guint from, const guint8 * data, gsize len)
{
  RlmCtrl c;

  if (rlm_ctrl_parse (data, len, &c) && c.type == RLM_CTRL_JOIN) {
    SimJoinRecord rec = { now (sim), from, c.level };

    g_array_append_val (sim->joins, rec);
  }
}

static void
send_control (Sim * sim, guint from, const guint8 * data, gsize len)
{
  SimReceiver *src = rx_at (sim, from);
  SimPacket *p = g_new0 (SimPacket, 1);

  record_join (sim, from, data, len);
  p->ref = 1;
  p->len = MIN (len, SIM_MAX_PKT);
  memcpy (p->data, data, p->len);
  for (guint i = 0; i < sim->receivers->len; i++) {
    SimReceiver *rx = rx_at (sim, i);
    gint64 delay;

    if (i == from || !rx->core || rx->session != src->session)
      continue;
    delay = sim_engine_path_delay (sim->engine, src->node, rx->node);
    schedule (sim, now (sim) + delay, EV_CTRL, i, from, packet_ref (p));
  }
  packet_unref (p);
}

static void
reschedule_wake (Sim * sim, guint i)
{
  SimReceiver *rx = rx_at (sim, i);
  gint64 t = rlm_receiver_next_deadline (rx->core);

  if (t < 0 || t == rx->wake_at)
    return;
  rx->wake_at = t;
  rx->wake_gen++;
  /* never at now again: a core that keeps asking cannot stall the run */
  schedule (sim, MAX (t, now (sim) + 1), EV_WAKE, i, rx->wake_gen, NULL);
}

/* Takes what the core produced: announcements, events. */
static void
drain_receiver (Sim * sim, guint i)
{
  SimReceiver *rx = rx_at (sim, i);
  guint8 buf[RLM_CTRL_SIZE];
  gsize len;
  RlmEvent ev;

  while ((len = rlm_receiver_pop_transmit (rx->core, buf, sizeof (buf))))
    send_control (sim, i, buf, len);
  while (rlm_receiver_pop_event (rx->core, &ev)) {
    SimEventRecord rec = { now (sim), ev };

    g_array_append_val (rx->events, rec);
    if (ev.type == RLM_EVENT_JOIN || ev.type == RLM_EVENT_LEAVE)
      change_membership (sim, rx, ev.layer, ev.type == RLM_EVENT_JOIN);
  }
  if (i == sim->traced) {
    RlmReceiverStats after;

    rlm_receiver_get_stats (rx->core, &after);
    sim->trace_func (sim, i, &sim->trace_before, &after, sim->trace_data);
    sim->trace_before = after;
  }
  reschedule_wake (sim, i);
}

static void
sender_addr (guint from, RlmAddr * addr)
{
  memset (addr, 0, sizeof (*addr));
  addr->len = 4;
  addr->bytes[0] = 10;
  addr->bytes[1] = (from >> 16) & 0xff;
  addr->bytes[2] = (from >> 8) & 0xff;
  addr->bytes[3] = from & 0xff;
}

static void
deliver (Sim * sim, guint i, const SimPacket * p, guint from)
{
  SimReceiver *rx = rx_at (sim, i);
  RlmAddr addr;

  if (!rx->core)
    return;
  if (from == G_MAXUINT)
    sender_addr (0xffffff, &addr);
  else
    sender_addr (from, &addr);
  rlm_receiver_on_datagram (rx->core, p->data, p->len, &addr, now (sim));
  drain_receiver (sim, i);
}

/* A packet reached node @n: to its receivers that joined the group, and
 * down every link that forwards the group. */
static void
arrive (Sim * sim, guint n, SimPacket * p)
{
  SimNode *node = node_at (sim, n);
  const GArray *attached = sim_engine_attached (sim->engine, n);
  SimGroup *st;

  if (n != 0) {
    node->layer_delivered[p->layer]++;
    node->delivered++;
  }
  for (guint k = 0; k < attached->len; k++) {
    guint i = g_array_index (attached, guint, k);
    SimReceiver *rx = rx_at (sim, i);

    if (rx->core && rx->session == p->session && rx->subscribed[p->layer]) {
      account_packet (rx, p, now (sim));
      deliver (sim, i, p, G_MAXUINT);
    }
  }
  if (!node->has_children)
    return;
  st = group_at (sim, n, group_of (p->session, p->layer), FALSE);
  for (guint k = 0; st && k < st->n_out; k++) {
    guint child = st->out[k];

    sim_engine_link_send_flow (sim->engine, child, SIM_DOWN, p->session,
        p->size, EV_ARRIVE, child, 0, p);
  }
}

/* ------------------------------------------------------------------ */
/* The source */

static SimPacket *
make_media (Sim * sim, guint session, guint layer)
{
  SimSession *ss = session_at (sim, session);
  SimPacket *p = g_new0 (SimPacket, 1);
  guint8 hdr[RTP_HEADER_SIZE];
  RtpHeader h;

  memset (&h, 0, sizeof (h));
  h.payload_type = SIM_RTP_PT;
  h.seq = ss->rtp_seq++;
  h.timestamp = (guint32) (now (sim) / 11111);   /* 90 kHz */
  h.ssrc = ss->ssrc;
  rtp_header_write (&h, NULL, 0, hdr, sizeof (hdr));
  p->ref = 1;
  p->size = sim->cfg.packet_size;
  p->session = session;
  p->layer = layer;
  p->len = rlm_stamper_stamp (&ss->stamper, layer, hdr, sizeof (hdr),
      p->data, sizeof (p->data));
  return p;
}

/* No receiver at the source's node and no link from it carries @layer
 * of @session now: a packet would go nowhere. */
static gboolean
source_unheard (Sim * sim, guint session, guint layer)
{
  SimGroup *st;

  if (sim_engine_attached (sim->engine, 0)->len > 0)
    return FALSE;
  st = group_at (sim, 0, group_of (session, layer), FALSE);
  return !st || st->n_out == 0;
}

/* Sends the next packet of a layer; one that would go nowhere (the top
 * layers, most of a run) only uses up its sequence numbers. */
static void
source_send (Sim * sim, guint session, guint layer)
{
  SimSession *ss = session_at (sim, session);
  gint64 delta = (gint64) (sim->cfg.packet_size * 8.0 * SIM_S /
      ss->layer_rate[layer]);
  gint64 noise = 0;

  if (source_unheard (sim, session, layer)) {
    ss->rtp_seq++;
    rlm_stamper_skip (&ss->stamper, layer);
  } else {
    SimPacket *p = make_media (sim, session, layer);

    arrive (sim, 0, p);
    packet_unref (p);
  }
  if (sim->cfg.source_jitter)
    noise = random_source_range (&sim->rng, -delta / 2, delta / 2);
  schedule (sim, now (sim) + delta + noise, EV_SOURCE, session, layer, NULL);
}

/* ------------------------------------------------------------------ */
/* Building and running */

static void dispatch (gpointer owner, const SimEngineEvent * ev);

/* The RLM side of the next node. */
static void
add_node_state (Sim * sim)
{
  SimNode node;

  memset (&node, 0, sizeof (node));
  node.groups = g_hash_table_new_full (NULL, NULL, NULL, group_free);
  g_array_append_val (sim->nodes, node);
}

Sim *
sim_new (const SimConfig * cfg)
{
  Sim *sim = g_new0 (Sim, 1);
  SimEngineCallbacks cb = { sim, dispatch, packet_ref, packet_unref };

  sim->cfg = *cfg;
  sim->cfg.n_layers = CLAMP (sim->cfg.n_layers, 1, RLM_MAX_LAYERS);
  random_source_init_seeded (&sim->rng, &sim->seeded, cfg->seed);
  sim->engine = sim_engine_new (&cb, SIM_LINK_TRANSMITTER);
  sim->nodes = g_array_new (FALSE, TRUE, sizeof (SimNode));
  sim->receivers = g_ptr_array_new ();
  sim->sessions = g_array_new (FALSE, TRUE, sizeof (SimSession));
  sim->joins = g_array_new (FALSE, FALSE, sizeof (SimJoinRecord));
  sim->traced = G_MAXUINT;
  add_node_state (sim);
  sim_add_session (sim, sim->cfg.n_layers, sim->cfg.layer_rate);
  return sim;
}

void
sim_free (Sim * sim)
{
  if (!sim)
    return;
  sim_engine_free (sim->engine);
  for (guint n = 0; n < sim->nodes->len; n++)
    g_hash_table_destroy (node_at (sim, n)->groups);
  for (guint i = 0; i < sim->receivers->len; i++) {
    SimReceiver *rx = rx_at (sim, i);

    rlm_receiver_free (rx->core);
    g_array_free (rx->events, TRUE);
    g_array_free (rx->bins, TRUE);
    g_free (rx);
  }
  g_array_free (sim->nodes, TRUE);
  g_ptr_array_free (sim->receivers, TRUE);
  g_array_free (sim->sessions, TRUE);
  g_array_free (sim->joins, TRUE);
  g_free (sim);
}

guint
sim_add_node (Sim * sim, guint parent, guint64 rate, gint64 delay,
    guint queue_packets, guint queue_bytes)
{
  g_return_val_if_fail (parent < sim->nodes->len && rate > 0, 0);
  add_node_state (sim);
  node_at (sim, parent)->has_children = TRUE;
  return sim_engine_add_node (sim->engine, parent, rate, delay, queue_packets,
      queue_bytes);
}

gboolean
sim_set_fair_queueing (Sim * sim, guint node)
{
  return sim_engine_set_fair_queueing (sim->engine, node, SIM_DOWN);
}

gboolean
sim_set_discipline (Sim * sim, guint node, AqmDiscipline discipline)
{
  return sim_engine_set_discipline (sim->engine, node, SIM_DOWN, discipline,
      (guint32) (sim->cfg.seed * 31 + node));
}

guint
sim_add_session (Sim * sim, guint n_layers, const guint64 * layer_rate)
{
  SimSession ss;
  RlmConfig rc;

  g_return_val_if_fail (!sim->started, 0);
  memset (&ss, 0, sizeof (ss));
  ss.n_layers = CLAMP (n_layers, 1, RLM_MAX_LAYERS);
  for (guint l = 0; l < ss.n_layers; l++)
    ss.layer_rate[l] = MAX (layer_rate[l], 1);
  ss.ssrc = SIM_SSRC + sim->sessions->len;
  rlm_config_init (&rc);
  rlm_stamper_init (&ss.stamper, rc.ext_id, &sim->rng);
  g_array_append_val (sim->sessions, ss);
  return sim->sessions->len - 1;
}

guint
sim_add_receiver (Sim * sim, guint node, const RlmConfig * cfg, gint64 start)
{
  return sim_add_session_receiver (sim, 0, node, cfg, start);
}

guint
sim_add_session_receiver (Sim * sim, guint session, guint node,
    const RlmConfig * cfg, gint64 start)
{
  SimReceiver *rx;
  guint i = sim->receivers->len;

  g_return_val_if_fail (node < sim->nodes->len, 0);
  g_return_val_if_fail (session < sim->sessions->len, 0);
  rx = g_new0 (SimReceiver, 1);
  rx->node = node;
  rx->session = session;
  rx->start = start;
  rx->cfg = *cfg;
  rx->cfg.n_layers = session_at (sim, session)->n_layers;
  rx->wake_at = -1;
  rx->events = g_array_new (FALSE, FALSE, sizeof (SimEventRecord));
  rx->bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  random_source_init_seeded (&rx->rng, &rx->seeded,
      random_source_u64 (&sim->rng));
  g_ptr_array_add (sim->receivers, rx);
  sim_engine_attach (sim->engine, node, i);
  schedule (sim, start, EV_RX_START, i, 0, NULL);
  return i;
}

void
sim_add_cross_traffic (Sim * sim, guint node, guint64 rate, guint size,
    gint64 start, gint64 stop, gint64 on, gint64 off)
{
  sim_engine_add_cross_traffic (sim->engine, node, rate, size, start, stop,
      on, off);
}

static void
start_receiver (Sim * sim, guint i)
{
  SimReceiver *rx = rx_at (sim, i);

  rx->core = rlm_receiver_new (&rx->cfg, &rx->rng, now (sim));
  if (i == sim->traced)
    rlm_receiver_get_stats (rx->core, &sim->trace_before);
  drain_receiver (sim, i);
}

static void
dispatch (gpointer owner, const SimEngineEvent * ev)
{
  Sim *sim = owner;

  switch (ev->kind) {
    case EV_SOURCE:
      source_send (sim, ev->a, ev->b);
      break;
    case EV_ARRIVE:
      arrive (sim, ev->a, ev->p);
      break;
    case EV_WAKE:
      if (ev->b == rx_at (sim, ev->a)->wake_gen) {
        rx_at (sim, ev->a)->wake_at = -1;
        rlm_receiver_advance (rx_at (sim, ev->a)->core, now (sim));
        drain_receiver (sim, ev->a);
      }
      break;
    case EV_CTRL:
      deliver (sim, ev->a, ev->p, ev->b);
      break;
    case EV_REFRESH:
      refresh_path (sim, ev->a, ev->b);
      break;
    case EV_RX_START:
      start_receiver (sim, ev->a);
      break;
  }
}

void
sim_run (Sim * sim, gint64 until)
{
  if (!sim->started) {
    sim->started = TRUE;
    for (guint s = 0; s < sim->sessions->len; s++)
      for (guint l = 0; l < session_at (sim, s)->n_layers; l++)
        schedule (sim, random_source_range (&sim->rng, 0, 10 * SIM_MS),
            EV_SOURCE, s, l, NULL);
  }
  sim_engine_run (sim->engine, until);
}

const GArray *
sim_join_announcements (const Sim * sim)
{
  return sim->joins;
}

gint64
sim_control_delay (const Sim * sim, guint from, guint to)
{
  return sim_engine_path_delay (sim->engine, rx_at (sim, from)->node,
      rx_at (sim, to)->node);
}

void
sim_trace_core (Sim * sim, guint rx, SimCoreTraceFunc func,
    gpointer user_data)
{
  sim->traced = func ? rx : G_MAXUINT;
  sim->trace_func = func;
  sim->trace_data = user_data;
}

gint64
sim_now (const Sim * sim)
{
  return now (sim);
}

/* ------------------------------------------------------------------ */
/* Results */

guint
sim_n_receivers (const Sim * sim)
{
  return sim->receivers->len;
}

RlmReceiver *
sim_receiver_core (Sim * sim, guint i)
{
  return i < sim->receivers->len ? rx_at (sim, i)->core : NULL;
}

const GArray *
sim_receiver_events (const Sim * sim, guint i)
{
  return rx_at (sim, i)->events;
}

guint
sim_receiver_level (const Sim * sim, guint i)
{
  const GArray *evs = rx_at (sim, i)->events;
  guint level = 0;

  for (guint k = 0; k < evs->len; k++) {
    const SimEventRecord *r = &g_array_index (evs, SimEventRecord, k);

    if (r->ev.type == RLM_EVENT_LEVEL)
      level = r->ev.level;
  }
  return level;
}

gdouble
sim_receiver_worst_loss (const Sim * sim, guint i, gint64 window)
{
  const SimReceiver *rx = rx_at (sim, i);
  const guint64 *bins = (const guint64 *) rx->bins->data;
  guint n_bins = rx->bins->len / 2;
  guint w = MAX (1, (guint) (window / SIM_BIN));
  guint first = (guint) (rx->start / SIM_BIN) + w - 1;
  guint64 recv = 0, lost = 0;
  gdouble worst = 0;

  /* only whole windows after the start; none: the whole run */
  if (first >= n_bins)
    return sim_receiver_loss (sim, i);
  for (guint k = 0; k < n_bins; k++) {
    recv += bins[2 * k];
    lost += bins[2 * k + 1];
    if (k >= w) {
      recv -= bins[2 * (k - w)];
      lost -= bins[2 * (k - w) + 1];
    }
    if (k >= first && recv + lost > 0)
      worst = MAX (worst, (gdouble) lost / (recv + lost));
  }
  return worst;
}

void
sim_receiver_counts (const Sim * sim, guint i, guint64 * received,
    guint64 * lost)
{
  *received = rx_at (sim, i)->received;
  *lost = rx_at (sim, i)->lost;
}

gdouble
sim_receiver_loss (const Sim * sim, guint i)
{
  const SimReceiver *rx = rx_at (sim, i);

  return rx->received + rx->lost > 0 ?
      (gdouble) rx->lost / (rx->received + rx->lost) : 0;
}

gint64
sim_receiver_convergence (const Sim * sim, guint i, guint optimal)
{
  const SimReceiver *rx = rx_at (sim, i);
  guint level = 0;
  gint64 reached = -1;

  for (guint k = 0; k < rx->events->len; k++) {
    const SimEventRecord *r = &g_array_index (rx->events, SimEventRecord, k);

    if (r->ev.type != RLM_EVENT_LEVEL)
      continue;
    if (level < optimal && r->ev.level >= optimal)
      reached = r->time;
    level = r->ev.level;
  }
  return level >= optimal && reached >= 0 ? reached - rx->start : -1;
}

void
sim_link_stats (const Sim * sim, guint node, SimLinkStats * st)
{
  SimEngineLinkStats es;

  sim_engine_link_stats (sim->engine, node, SIM_DOWN, &es);
  memset (st, 0, sizeof (*st));
  st->sent = es.sent;
  st->dropped = es.dropped;
  st->cross_sent = es.cross_sent;
  st->cross_dropped = es.cross_dropped;
  st->delivered = node_at (sim, node)->delivered;
  memcpy (st->layer_delivered, node_at (sim, node)->layer_delivered,
      sizeof (st->layer_delivered));
}

gboolean
sim_link_forwards (const Sim * sim, guint node, guint session, guint layer)
{
  SimGroup *st;

  if (layer >= RLM_MAX_LAYERS || node >= sim->nodes->len)
    return FALSE;
  st = g_hash_table_lookup (node_at (sim, node)->groups,
      GUINT_TO_POINTER (group_of (session, layer) + 1));
  return st && st->forwards;
}
