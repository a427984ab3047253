/* The discrete-event engine. See simengine.h. */
#include <stdlib.h>
#include <string.h>

#include "simengine.h"

typedef enum {
  KIND_LINK_DONE,               /* a: node, b: direction */
  KIND_CROSS,                   /* a: cross flow */
  KIND_AQM_POLL,                /* a: node, b: direction */
} EngineKind;

/* A packet in a link's queue. */
typedef struct {
  guint size;
  guint flow;                   /* fair queueing's class */
  gboolean cross;
  gint64 departure;             /* SIM_LINK_RECKONED */
  SimEngineEvent arrival;       /* run at the far end (not for cross) */
} LinkEntry;

/* One direction of a link. */
typedef struct {
  GQueue queue;                 /* LinkEntry *: waiting (TRANSMITTER), or
                                 * not yet out (RECKONED) */
  guint queued_bytes;
  LinkEntry *in_flight;         /* TRANSMITTER */
  gint64 busy_until;            /* RECKONED */
  SimEngineLinkStats st;
  GArray *drop_bins;            /* guint64 pairs: data, cross */
  /* with a queue discipline (sim_engine_set_discipline): aqmcore's link
   * serialises, delays and drops; the entries wait here by id */
  AqmLink *aqm;
  GHashTable *aqm_entries;      /* id -> LinkEntry * */
  guint32 aqm_next_id;
  gint64 aqm_poll_at;           /* the pending poll event, -1: none */
  GRand *aqm_rand;
  /* with fair queueing (sim_engine_set_fair_queueing): a queue per flow,
   * served by deficit round robin; link->queue stays empty */
  GHashTable *fq_flows;         /* flow -> FqFlow * */
  GQueue fq_active;             /* FqFlow * with packets, in service order */
  guint fq_packets;
} Link;

/* One flow's queue under fair queueing. */
typedef struct {
  GQueue q;                     /* LinkEntry * */
  guint bytes;
  gint deficit;
  gboolean active;
} FqFlow;

/* DRR's quantum: a full Ethernet frame, so each visit may send a packet. */
#define FQ_QUANTUM 1514

typedef struct {
  guint parent;
  GArray *children;             /* guint */
  GArray *attached;             /* guint */
  guint hops;                   /* links from the root */
  gint64 depth_delay;           /* propagation delay from the root */
  /* the link from the parent */
  guint64 rate;
  gint64 delay;
  guint queue_packets, queue_bytes;
  Link dir[2];
} Node;

typedef struct {
  guint node;
  guint64 rate;
  guint size;
  gint64 start, stop, on, off;
} Cross;

struct _SimEngine {
  SimEngineCallbacks cb;
  SimLinkTiming timing;
  gint64 now;
  guint64 order;
  GArray *heap;                 /* SimEngineEvent */
  GArray *nodes;                /* Node */
  GArray *cross;                /* Cross */
  GPtrArray *spare_entries;     /* LinkEntry * to reuse: a run queues and
                                 * frees one per packet and link */
};

/* ------------------------------------------------------------------ */
/* The event heap */

/* Without branches: which child is earlier is a coin toss, and a
 * mispredicted branch per level is what a pop costs. */
static inline guint
event_before (const SimEngineEvent * x, const SimEngineEvent * y)
{
  return (x->time < y->time) | ((x->time == y->time) & (x->order < y->order));
}

/* A binary heap that moves a hole instead of swapping. (time, order) is a
 * total order, so the events run exactly in the order any other heap
 * would give. */
void
sim_engine_schedule (SimEngine * e, gint64 time, guint kind, guint a,
    guint64 b, gpointer p)
{
  SimEngineEvent ev = { MAX (time, e->now), e->order++, kind, a, b, p };
  SimEngineEvent *h;
  guint i;

  g_array_set_size (e->heap, e->heap->len + 1);
  h = (SimEngineEvent *) e->heap->data;
  for (i = e->heap->len - 1; i > 0; i = (i - 1) / 2) {
    guint parent = (i - 1) / 2;

    if (!event_before (&ev, &h[parent]))
      break;
    h[i] = h[parent];
  }
  h[i] = ev;
}

/* Floyd's pop: the hole left by the top goes down to a leaf along the
 * earlier child, then the last event rises from there, which is seldom
 * more than a level; half the comparisons of the usual sift, and the
 * loop's branch is predictable. */
static SimEngineEvent
pop_event (SimEngine * e)
{
  SimEngineEvent *h = (SimEngineEvent *) e->heap->data, top = h[0];
  guint n = e->heap->len - 1, i = 0;
  SimEngineEvent last = h[n];

  for (;;) {
    guint l = 2 * i + 1, m;

    if (l + 1 < n)
      m = l + event_before (&h[l + 1], &h[l]);
    else if (l < n)
      m = l;
    else
      break;
    h[i] = h[m];
    i = m;
  }
  while (i > 0 && event_before (&last, &h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = last;
  g_array_set_size (e->heap, n);
  return top;
}

static gint64
next_event_time (const SimEngine * e)
{
  return g_array_index (e->heap, SimEngineEvent, 0).time;
}

static void
release_payload (SimEngine * e, gpointer p)
{
  if (p && e->cb.payload_unref)
    e->cb.payload_unref (p);
}

/* ------------------------------------------------------------------ */
/* The tree */

static Node *
node_at (const SimEngine * e, guint n)
{
  return &g_array_index (e->nodes, Node, n);
}

static void
append_node (SimEngine * e, Node * node)
{
  node->children = g_array_new (FALSE, FALSE, sizeof (guint));
  node->attached = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint d = 0; d < 2; d++) {
    g_queue_init (&node->dir[d].queue);
    node->dir[d].drop_bins = g_array_new (FALSE, TRUE, sizeof (guint64));
  }
  g_array_append_val (e->nodes, *node);
}

guint
sim_engine_add_node (SimEngine * e, guint parent, guint64 rate, gint64 delay,
    guint queue_packets, guint queue_bytes)
{
  Node node;
  guint n = e->nodes->len;

  g_return_val_if_fail (parent < e->nodes->len, 0);
  memset (&node, 0, sizeof (node));
  node.parent = parent;
  node.hops = node_at (e, parent)->hops + 1;
  node.depth_delay = node_at (e, parent)->depth_delay + delay;
  node.rate = rate;
  node.delay = delay;
  node.queue_packets = queue_packets;
  node.queue_bytes = queue_bytes;
  append_node (e, &node);
  g_array_append_val (node_at (e, parent)->children, n);
  return n;
}

guint
sim_engine_n_nodes (const SimEngine * e)
{
  return e->nodes->len;
}

guint
sim_engine_parent (const SimEngine * e, guint node)
{
  return node_at (e, node)->parent;
}

const GArray *
sim_engine_children (const SimEngine * e, guint node)
{
  return node_at (e, node)->children;
}

void
sim_engine_attach (SimEngine * e, guint node, guint endpoint)
{
  g_array_append_val (node_at (e, node)->attached, endpoint);
}

const GArray *
sim_engine_attached (const SimEngine * e, guint node)
{
  return node_at (e, node)->attached;
}

gint64
sim_engine_path_delay (const SimEngine * e, guint a, guint b)
{
  guint x = a, y = b;

  /* up to the lowest common ancestor */
  while (x != y) {
    if (node_at (e, x)->hops >= node_at (e, y)->hops)
      x = node_at (e, x)->parent;
    else
      y = node_at (e, y)->parent;
  }
  return node_at (e, a)->depth_delay + node_at (e, b)->depth_delay -
      2 * node_at (e, x)->depth_delay;
}

/* ------------------------------------------------------------------ */
/* Links */

static gint64
serialisation (guint64 rate, guint size)
{
  return (gint64) size * 8 * SIM_S / (gint64) MAX (rate, 1);
}

static gboolean
queue_full (const Node * node, const Link * link, guint size)
{
  return (node->queue_packets && link->queue.length >= node->queue_packets)
      || (node->queue_bytes &&
      link->queued_bytes + size > node->queue_bytes);
}

static void
schedule_arrival (SimEngine * e, const LinkEntry * entry, gint64 time)
{
  if (!entry->cross)
    sim_engine_schedule (e, time, entry->arrival.kind, entry->arrival.a,
        entry->arrival.b, entry->arrival.p);
}

static LinkEntry *
entry_new (SimEngine * e)
{
  LinkEntry *entry;

  if (e->spare_entries->len == 0)
    return g_new0 (LinkEntry, 1);
  entry = g_ptr_array_steal_index_fast (e->spare_entries,
      e->spare_entries->len - 1);
  memset (entry, 0, sizeof (*entry));
  return entry;
}

/* Gives back an entry whose payload, if any, is held elsewhere. */
static void
entry_recycle (SimEngine * e, LinkEntry * entry)
{
  g_ptr_array_add (e->spare_entries, entry);
}

static void
free_entry (SimEngine * e, LinkEntry * entry)
{
  if (entry) {
    release_payload (e, entry->arrival.p);
    entry_recycle (e, entry);
  }
}

static LinkEntry *
pop_entry (Link * link)
{
  LinkEntry *entry = g_queue_pop_head (&link->queue);

  if (entry)
    link->queued_bytes -= entry->size;
  return entry;
}

/* Deficit round robin (Shreedhar and Varghese, 1995): the flow at the
 * head sends while its deficit covers its next packet, else it gains a
 * quantum and goes to the back. */
static LinkEntry *
fq_pop (Link * link)
{
  FqFlow *f;

  while ((f = g_queue_peek_head (&link->fq_active))) {
    LinkEntry *entry = g_queue_peek_head (&f->q);

    if (!entry) {               /* emptied by a buffer-full drop */
      g_queue_pop_head (&link->fq_active);
      f->active = FALSE;
      f->deficit = 0;
      continue;
    }
    if (f->deficit < (gint) entry->size) {
      f->deficit += FQ_QUANTUM;
      g_queue_push_tail (&link->fq_active, g_queue_pop_head (&link->fq_active));
      continue;
    }
    g_queue_pop_head (&f->q);
    f->deficit -= entry->size;
    f->bytes -= entry->size;
    link->queued_bytes -= entry->size;
    link->fq_packets--;
    if (g_queue_is_empty (&f->q)) {
      g_queue_pop_head (&link->fq_active);
      f->active = FALSE;
      f->deficit = 0;
    }
    return entry;
  }
  return NULL;
}

static void
start_transmission (SimEngine * e, guint n, SimLinkDir dir)
{
  Node *node = node_at (e, n);
  Link *link = &node->dir[dir];
  LinkEntry *entry = link->fq_flows ? fq_pop (link) : pop_entry (link);

  if (!entry)
    return;
  link->in_flight = entry;
  sim_engine_schedule (e, e->now + serialisation (node->rate, entry->size),
      KIND_LINK_DONE, n, dir, NULL);
}

static void
link_done (SimEngine * e, guint n, SimLinkDir dir)
{
  Node *node = node_at (e, n);
  LinkEntry *entry = node->dir[dir].in_flight;

  node->dir[dir].in_flight = NULL;
  schedule_arrival (e, entry, e->now + node->delay);
  entry_recycle (e, entry);
  start_transmission (e, n, dir);
}

/* Forgets the packets that are out by now. */
static void
reckon_departures (SimEngine * e, Link * link)
{
  LinkEntry *head;

  while ((head = g_queue_peek_head (&link->queue)) &&
      head->departure <= e->now)
    entry_recycle (e, pop_entry (link));
}

static void
reckon_arrival (SimEngine * e, Node * node, Link * link, LinkEntry * entry)
{
  entry->departure = MAX (e->now, link->busy_until) +
      serialisation (node->rate, entry->size);
  link->busy_until = entry->departure;
  schedule_arrival (e, entry, entry->departure + node->delay);
  /* the arrival event holds the payload now */
  entry->arrival.p = NULL;
}

static void
count_drop (SimEngine * e, Link * link, gboolean cross)
{
  if (cross)
    link->st.cross_dropped++;
  else
    link->st.dropped++;
  sim_bins_add (link->drop_bins, 2, cross ? 1 : 0, e->now, 1);
}

/* A queued packet holds its payload until it arrives or is dropped. */
static void
hold_payload (SimEngine * e, LinkEntry * entry)
{
  if (!entry->cross && e->cb.payload_ref)
    entry->arrival.p = e->cb.payload_ref (entry->arrival.p);
}

/* Keeps one poll event pending at the discipline's next deadline. */
static void
aqm_schedule_poll (SimEngine * e, guint n, SimLinkDir dir)
{
  Link *link = &node_at (e, n)->dir[dir];
  guint64 due = aqm_link_next_deadline (link->aqm);

  if (due == G_MAXUINT64 || (link->aqm_poll_at >= 0 &&
          link->aqm_poll_at <= (gint64) due))
    return;
  link->aqm_poll_at = MAX ((gint64) due, e->now);
  sim_engine_schedule (e, link->aqm_poll_at, KIND_AQM_POLL, n, dir, NULL);
}

/* The discipline's verdicts due now: drops counted, deliveries on their
 * way (the delay is the discipline's). */
static void
aqm_poll (SimEngine * e, guint n, SimLinkDir dir, gint64 at)
{
  Link *link = &node_at (e, n)->dir[dir];
  AqmVerdict v;

  if (at != link->aqm_poll_at)
    return;                     /* superseded by an earlier one */
  link->aqm_poll_at = -1;
  while (aqm_link_poll (link->aqm, (guint64) e->now, &v)) {
    LinkEntry *entry = NULL;

    g_hash_table_steal_extended (link->aqm_entries, GUINT_TO_POINTER (v.id),
        NULL, (gpointer *) & entry);
    if (v.kind == AQM_VERDICT_DROP) {
      count_drop (e, link, entry->cross);
      free_entry (e, entry);
    } else {
      schedule_arrival (e, entry, e->now);
      entry_recycle (e, entry);
    }
  }
  aqm_schedule_poll (e, n, dir);
}

static gboolean
aqm_offer (SimEngine * e, guint n, SimLinkDir dir, LinkEntry * entry)
{
  Link *link = &node_at (e, n)->dir[dir];
  guint32 id = link->aqm_next_id++;

  if (!aqm_link_enqueue (link->aqm, id, entry->size, (guint64) e->now)) {
    count_drop (e, link, entry->cross);
    entry_recycle (e, entry);
    return FALSE;
  }
  hold_payload (e, entry);
  g_hash_table_insert (link->aqm_entries, GUINT_TO_POINTER (id), entry);
  aqm_schedule_poll (e, n, dir);
  return TRUE;
}

static FqFlow *
fq_flow (Link * link, guint flow)
{
  FqFlow *f = g_hash_table_lookup (link->fq_flows, GUINT_TO_POINTER (flow));

  if (!f) {
    f = g_new0 (FqFlow, 1);
    g_queue_init (&f->q);
    g_hash_table_insert (link->fq_flows, GUINT_TO_POINTER (flow), f);
  }
  return f;
}

static FqFlow *
fq_longest (Link * link)
{
  GHashTableIter it;
  FqFlow *f, *longest = NULL;

  g_hash_table_iter_init (&it, link->fq_flows);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) & f))
    if (!longest || f->bytes > longest->bytes)
      longest = f;
  return longest;
}

static gboolean
fq_full (const Node * node, const Link * link, guint size)
{
  return (node->queue_packets && link->fq_packets >= node->queue_packets)
      || (node->queue_bytes && link->queued_bytes + size > node->queue_bytes);
}

/* Fair queueing's buffer is shared: when it is full, the longest flow
 * loses its last packet, and an arrival of that flow is itself lost. */
static gboolean
fq_offer (SimEngine * e, guint n, SimLinkDir dir, LinkEntry * entry)
{
  Node *node = node_at (e, n);
  Link *link = &node->dir[dir];
  FqFlow *own = fq_flow (link, entry->flow);

  while (fq_full (node, link, entry->size)) {
    FqFlow *longest = fq_longest (link);
    LinkEntry *victim;

    if (longest == own || own->bytes + entry->size > longest->bytes ||
        !longest->bytes) {
      count_drop (e, link, entry->cross);
      entry_recycle (e, entry);
      return FALSE;
    }
    victim = g_queue_pop_tail (&longest->q);
    longest->bytes -= victim->size;
    link->queued_bytes -= victim->size;
    link->fq_packets--;
    count_drop (e, link, victim->cross);
    free_entry (e, victim);
    /* a flow emptied here stays in the active list; fq_pop skips it */
  }
  hold_payload (e, entry);
  g_queue_push_tail (&own->q, entry);
  own->bytes += entry->size;
  link->queued_bytes += entry->size;
  link->fq_packets++;
  if (!own->active) {
    own->active = TRUE;
    g_queue_push_tail (&link->fq_active, own);
  }
  if (!link->in_flight)
    start_transmission (e, n, dir);
  return TRUE;
}

/* Drop-tail: a packet that finds the queue full is lost. */
static gboolean
link_offer (SimEngine * e, guint n, SimLinkDir dir, LinkEntry * entry)
{
  Node *node = node_at (e, n);
  Link *link = &node->dir[dir];

  if (entry->cross)
    link->st.cross_sent++;
  else
    link->st.sent++;
  if (link->aqm)
    return aqm_offer (e, n, dir, entry);
  if (link->fq_flows)
    return fq_offer (e, n, dir, entry);
  if (e->timing == SIM_LINK_RECKONED)
    reckon_departures (e, link);
  if (queue_full (node, link, entry->size)) {
    count_drop (e, link, entry->cross);
    entry_recycle (e, entry);
    return FALSE;
  }
  hold_payload (e, entry);
  if (e->timing == SIM_LINK_RECKONED)
    reckon_arrival (e, node, link, entry);
  g_queue_push_tail (&link->queue, entry);
  link->queued_bytes += entry->size;
  if (e->timing == SIM_LINK_TRANSMITTER && !link->in_flight)
    start_transmission (e, n, dir);
  return TRUE;
}

gboolean
sim_engine_link_send (SimEngine * e, guint node, SimLinkDir dir, guint size,
    guint kind, guint a, guint64 b, gpointer p)
{
  return sim_engine_link_send_flow (e, node, dir, 0, size, kind, a, b, p);
}

gboolean
sim_engine_link_send_flow (SimEngine * e, guint node, SimLinkDir dir,
    guint flow, guint size, guint kind, guint a, guint64 b, gpointer p)
{
  LinkEntry *entry = entry_new (e);

  g_return_val_if_fail (node > 0 && node < e->nodes->len, FALSE);
  entry->size = size;
  entry->flow = flow;
  entry->arrival.kind = kind;
  entry->arrival.a = a;
  entry->arrival.b = b;
  entry->arrival.p = p;
  return link_offer (e, node, dir, entry);
}

static gdouble
aqm_uniform (gpointer data)
{
  return g_rand_double ((GRand *) data);
}

gboolean
sim_engine_set_discipline (SimEngine * e, guint n, SimLinkDir dir,
    AqmDiscipline discipline, guint32 seed)
{
  Node *node = node_at (e, n);
  Link *link = &node->dir[dir];
  AqmConfig cfg;
  const char *err = NULL;

  g_return_val_if_fail (n > 0 && n < e->nodes->len && !link->aqm, FALSE);
  g_return_val_if_fail (link->queue.length == 0 && !link->in_flight, FALSE);
  aqm_config_defaults (&cfg, discipline, node->rate);
  cfg.delay_ns = (guint64) node->delay;
  cfg.overhead = 0;             /* sizes here are wire sizes */
  cfg.limit_packets = node->queue_packets;
  cfg.limit_bytes = node->queue_bytes;
  link->aqm_rand = g_rand_new_with_seed (seed);
  link->aqm = aqm_link_new (&cfg, aqm_uniform, link->aqm_rand, &err);
  if (!link->aqm) {
    g_warning ("queue discipline: %s", err);
    g_clear_pointer (&link->aqm_rand, g_rand_free);
    return FALSE;
  }
  link->aqm_entries = g_hash_table_new (NULL, NULL);
  link->aqm_poll_at = -1;
  return TRUE;
}

static void
free_fq_flow (gpointer data)
{
  FqFlow *f = data;

  g_assert (g_queue_is_empty (&f->q));
  g_free (f);
}

gboolean
sim_engine_set_fair_queueing (SimEngine * e, guint n, SimLinkDir dir)
{
  Link *link = &node_at (e, n)->dir[dir];

  g_return_val_if_fail (n > 0 && n < e->nodes->len && !link->aqm &&
      !link->fq_flows, FALSE);
  g_return_val_if_fail (e->timing == SIM_LINK_TRANSMITTER, FALSE);
  g_return_val_if_fail (link->queue.length == 0 && !link->in_flight, FALSE);
  link->fq_flows = g_hash_table_new_full (NULL, NULL, NULL, free_fq_flow);
  g_queue_init (&link->fq_active);
  return TRUE;
}

void
sim_engine_link_stats (const SimEngine * e, guint node, SimLinkDir dir,
    SimEngineLinkStats * st)
{
  *st = node_at (e, node)->dir[dir].st;
}

void
sim_engine_link_drops (const SimEngine * e, guint node, SimLinkDir dir,
    gint64 from, gint64 to, guint64 * data, guint64 * cross)
{
  const GArray *bins = node_at (e, node)->dir[dir].drop_bins;

  *data = sim_bins_sum (bins, 2, 0, from, to);
  *cross = sim_bins_sum (bins, 2, 1, from, to);
}

/* ------------------------------------------------------------------ */
/* Cross traffic */

void
sim_engine_add_cross_traffic (SimEngine * e, guint node, guint64 rate,
    guint size, gint64 start, gint64 stop, gint64 on, gint64 off)
{
  Cross c = { node, rate, size, start, stop, on, off };

  g_return_if_fail (node > 0 && node < e->nodes->len && rate > 0 &&
      size > 0 && (off == 0 || on > 0));
  g_array_append_val (e->cross, c);
  sim_engine_schedule (e, start, KIND_CROSS, e->cross->len - 1, 0, NULL);
}

/* Sends one packet, then waits for the next, past an off period. */
static void
cross_send (SimEngine * e, guint f)
{
  Cross *c = &g_array_index (e->cross, Cross, f);
  gint64 next = e->now + serialisation (c->rate, c->size);
  LinkEntry *entry;

  if (c->stop >= 0 && e->now >= c->stop)
    return;
  entry = entry_new (e);
  entry->size = c->size;
  entry->flow = G_MAXUINT - f;
  entry->cross = TRUE;
  link_offer (e, c->node, SIM_DOWN, entry);
  if (c->off > 0 && (next - c->start) % (c->on + c->off) >= c->on)
    next += c->on + c->off - (next - c->start) % (c->on + c->off);
  sim_engine_schedule (e, next, KIND_CROSS, f, 0, NULL);
}

/* ------------------------------------------------------------------ */
/* Building and running */

SimEngine *
sim_engine_new (const SimEngineCallbacks * cb, SimLinkTiming timing)
{
  SimEngine *e = g_new0 (SimEngine, 1);
  Node root;

  e->cb = *cb;
  e->timing = timing;
  e->heap = g_array_new (FALSE, FALSE, sizeof (SimEngineEvent));
  e->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  e->cross = g_array_new (FALSE, TRUE, sizeof (Cross));
  e->spare_entries = g_ptr_array_new_with_free_func (g_free);
  memset (&root, 0, sizeof (root));
  append_node (e, &root);
  return e;
}

static void
clear_link (SimEngine * e, Link * link)
{
  LinkEntry *entry;

  while ((entry = g_queue_pop_head (&link->queue)))
    free_entry (e, entry);
  free_entry (e, link->in_flight);
  g_array_free (link->drop_bins, TRUE);
  if (link->aqm) {
    GHashTableIter it;

    g_hash_table_iter_init (&it, link->aqm_entries);
    while (g_hash_table_iter_next (&it, NULL, (gpointer *) & entry))
      free_entry (e, entry);
    g_hash_table_destroy (link->aqm_entries);
    aqm_link_free (link->aqm);
    g_rand_free (link->aqm_rand);
  }
  if (link->fq_flows) {
    GHashTableIter it;
    FqFlow *f;

    g_hash_table_iter_init (&it, link->fq_flows);
    while (g_hash_table_iter_next (&it, NULL, (gpointer *) & f))
      while ((entry = g_queue_pop_head (&f->q)))
        free_entry (e, entry);
    g_queue_clear (&link->fq_active);
    g_hash_table_destroy (link->fq_flows);
  }
}

void
sim_engine_free (SimEngine * e)
{
  if (!e)
    return;
  for (guint i = 0; i < e->heap->len; i++)
    release_payload (e, g_array_index (e->heap, SimEngineEvent, i).p);
  for (guint n = 0; n < e->nodes->len; n++) {
    Node *node = node_at (e, n);

    for (guint d = 0; d < 2; d++)
      clear_link (e, &node->dir[d]);
    g_array_free (node->children, TRUE);
    g_array_free (node->attached, TRUE);
  }
  g_array_free (e->heap, TRUE);
  g_array_free (e->nodes, TRUE);
  g_array_free (e->cross, TRUE);
  g_ptr_array_free (e->spare_entries, TRUE);
  g_free (e);
}

gint64
sim_engine_now (const SimEngine * e)
{
  return e->now;
}

static void
run_event (SimEngine * e, const SimEngineEvent * ev)
{
  switch (ev->kind) {
    case KIND_LINK_DONE:
      link_done (e, ev->a, (SimLinkDir) ev->b);
      break;
    case KIND_CROSS:
      cross_send (e, ev->a);
      break;
    case KIND_AQM_POLL:
      aqm_poll (e, ev->a, (SimLinkDir) ev->b, ev->time);
      break;
    default:
      e->cb.dispatch (e->cb.owner, ev);
      break;
  }
  release_payload (e, ev->p);
}

void
sim_engine_run (SimEngine * e, gint64 until)
{
  while (e->heap->len > 0 && next_event_time (e) <= until) {
    SimEngineEvent ev = pop_event (e);

    e->now = ev.time;
    run_event (e, &ev);
  }
  e->now = MAX (e->now, until);
}

/* ------------------------------------------------------------------ */
/* Binned counters */

void
sim_bins_add (GArray * bins, guint per, guint slot, gint64 time, guint64 v)
{
  guint i = (guint) (time / SIM_BIN) * per + slot;

  if (i >= bins->len)
    g_array_set_size (bins, i + per);
  g_array_index (bins, guint64, i) += v;
}

guint64
sim_bins_sum (const GArray * bins, guint per, guint slot, gint64 from,
    gint64 to)
{
  guint64 sum = 0;

  for (guint i = (guint) (from / SIM_BIN); (gint64) i * SIM_BIN < to; i++) {
    if (i * per + slot >= bins->len)
      break;
    sum += g_array_index (bins, guint64, i * per + slot);
  }
  return sum;
}

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

gdouble
sim_median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (gdouble), compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
