/* The RMTP simulator. See rmtpsim.h. */
#include "rmtpsim.h"

#include <math.h>
#include <string.h>

#include "rmtpstream.h"
#include "simengine.h"

#define UDP_IP_OVERHEAD 28
#define ROUTER 1

enum {
  K_SERVER_WAKE = SIM_ENGINE_KIND_USER,
  K_RX_WAKE,
  K_AT_ROUTER_DOWN,             /* b: destination (RMTP_TO_GROUP or id) */
  K_AT_RX,                      /* a: receiver */
  K_AT_ROUTER_UP,               /* a: receiver */
  K_AT_SERVER,                  /* a: receiver */
};

typedef struct {
  RmtpStreamReceiver *r;        /* a data set or a stream, as the CONN says */
  RandomSeeded loss_seeded, seeded;
  RandomSource loss_rng, rng;
  guint node;
  gint64 wake;
  gint64 done_at;               /* released, ns; -1: not */
  gboolean slow_link;
} SimRx;

typedef struct {
  const RmtpSimParams *p;
  SimEngine *e;
  RmtpServer *s;                /* data-set mode */
  RmtpStreamServer *ss;         /* streaming mode (cfg.window_size > 0) */
  GBytes *data;
  gsize fed;                    /* bytes of data the stream took */
  RandomSeeded seeded;
  RandomSource rng;
  gint64 server_wake;
  SimRx *rx;
  guint32 *ids;
  RmtpSimResult *out;
} Sim;

void
rmtp_sim_params_init (RmtpSimParams * p, guint n, gdouble loss)
{
  memset (p, 0, sizeof (*p));
  p->n_receivers = n;
  p->loss = loss;
  p->size = 2 * 1024 * 1024;
  p->sender_link = 10000000;
  p->core_delay = 5 * SIM_MS;
  p->edge_delay = 5 * SIM_MS;
  p->edge_link = 100000000;
  p->response_queue = 64;
  p->slow_link = 2000000;
  p->slow_queue = 32;
  p->seed = 1;
  rmtp_config_init (&p->cfg);
}

static void
schedule_wake (Sim * sim, gint64 * wake, gint64 t, guint kind, guint a)
{
  gint64 now = sim_engine_now (sim->e);

  if (t == G_MAXINT64)
    return;
  t = MAX (t, now + 1);
  if (*wake > now && *wake <= t)
    return;                     /* an earlier wake is already queued */
  *wake = t;
  sim_engine_schedule (sim->e, t, kind, a, 0, NULL);
}

/* Streaming mode: the producer pushes as fast as the stream takes. */
static void
feed_stream (Sim * sim, gint64 now)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (sim->data, &len);

  if (sim->fed < len)
    sim->fed += rmtp_stream_server_push (sim->ss, d + sim->fed,
        len - sim->fed, now);
  if (sim->fed == len)
    rmtp_stream_server_finish (sim->ss, now);
}

static void
server_timeout (Sim * sim, gint64 now)
{
  if (sim->ss) {
    feed_stream (sim, now);
    rmtp_stream_server_handle_timeout (sim->ss, now);
  } else {
    rmtp_server_handle_timeout (sim->s, now);
  }
}

static gboolean
server_datagram (Sim * sim, gint64 now, RmtpDatagram * d)
{
  return sim->ss ? rmtp_stream_server_poll_datagram (sim->ss, now, d) :
      rmtp_server_poll_datagram (sim->s, now, d);
}

static gboolean
server_event (Sim * sim, RmtpEvent * ev)
{
  return sim->ss ? rmtp_stream_server_poll_event (sim->ss, ev) :
      rmtp_server_poll_event (sim->s, ev);
}

static gint64
server_deadline (Sim * sim)
{
  return sim->ss ? rmtp_stream_server_next_deadline (sim->ss) :
      rmtp_server_next_deadline (sim->s);
}

static void
pump_server (Sim * sim)
{
  gint64 now = sim_engine_now (sim->e);
  RmtpDatagram d;
  RmtpEvent ev;

  server_timeout (sim, now);
  while (server_datagram (sim, now, &d)) {
    sim_engine_link_send (sim->e, ROUTER, SIM_DOWN,
        g_bytes_get_size (d.bytes) + UDP_IP_OVERHEAD, K_AT_ROUTER_DOWN, 0,
        d.to, d.bytes);
    g_bytes_unref (d.bytes);
  }
  while (server_event (sim, &ev))
    if (ev.type == RMTP_EVENT_DONE || ev.type == RMTP_EVENT_FAILED) {
      sim->out->finished = ev.type == RMTP_EVENT_DONE;
      sim->out->transfer_time = now;
      sim->out->complete = ev.receivers_complete;
      sim->out->failed = ev.receivers_failed;
    }
  schedule_wake (sim, &sim->server_wake, server_deadline (sim),
      K_SERVER_WAKE, 0);
}

static void
pump_receiver (Sim * sim, guint i)
{
  SimRx *x = &sim->rx[i];
  gint64 now = sim_engine_now (sim->e);
  RmtpDatagram d;
  RmtpEvent ev;

  rmtp_stream_receiver_handle_timeout (x->r, now);
  while (rmtp_stream_receiver_poll_datagram (x->r, &d)) {
    sim_engine_link_send (sim->e, x->node, SIM_UP,
        g_bytes_get_size (d.bytes) + UDP_IP_OVERHEAD, K_AT_ROUTER_UP, i, 0,
        d.bytes);
    g_bytes_unref (d.bytes);
  }
  while (rmtp_stream_receiver_poll_event (x->r, &ev)) {
    if (ev.data)
      g_bytes_unref (ev.data);
    if (ev.type == RMTP_EVENT_DONE)
      x->done_at = now;
  }
  schedule_wake (sim, &x->wake, rmtp_stream_receiver_next_deadline (x->r),
      K_RX_WAKE, i);
}

static void
fan_out (Sim * sim, guint64 to, GBytes * b)
{
  guint size = g_bytes_get_size (b) + UDP_IP_OVERHEAD;

  for (guint i = 0; i < sim->p->n_receivers; i++)
    if (to == RMTP_TO_GROUP || to == sim->ids[i])
      sim_engine_link_send (sim->e, sim->rx[i].node, SIM_DOWN, size,
          K_AT_RX, i, 0, b);
}

/* Whether @b, from receiver @i, is a CACK the scenario loses. */
static gboolean
cack_lost (const Sim * sim, guint i, GBytes * b)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (b, &len);

  return i < sim->p->n_cack_lost && len > 3 && d[3] == RMTP_CACK;
}

static void
dispatch (gpointer owner, const SimEngineEvent * ev)
{
  Sim *sim = owner;
  SimRx *x = ev->kind >= K_RX_WAKE ? &sim->rx[ev->a] : NULL;

  switch (ev->kind) {
    case K_SERVER_WAKE:
      if (ev->time == sim->server_wake)
        pump_server (sim);
      break;
    case K_RX_WAKE:
      if (ev->time == x->wake)
        pump_receiver (sim, ev->a);
      break;
    case K_AT_ROUTER_DOWN:
      fan_out (sim, ev->b, ev->p);
      break;
    case K_AT_RX:
      if (random_source_double (&x->loss_rng) >= sim->p->loss) {
        rmtp_stream_receiver_handle_bytes (x->r, ev->p, ev->time);
        pump_receiver (sim, ev->a);
      }
      break;
    case K_AT_ROUTER_UP:
      if (cack_lost (sim, ev->a, ev->p))
        break;
      if (!sim_engine_link_send (sim->e, ROUTER, SIM_UP,
              g_bytes_get_size (ev->p) + UDP_IP_OVERHEAD, K_AT_SERVER,
              ev->a, 0, ev->p))
        sim->out->response_drops++;
      break;
    case K_AT_SERVER:
      if (sim->ss)
        rmtp_stream_server_handle (sim->ss, sim->ids[ev->a],
            g_bytes_get_data (ev->p, NULL), g_bytes_get_size (ev->p),
            ev->time);
      else
        rmtp_server_handle (sim->s, sim->ids[ev->a], g_bytes_get_data (ev->p,
                NULL), g_bytes_get_size (ev->p), ev->time);
      pump_server (sim);
      break;
  }
}

static GBytes *
make_data_set (guint64 size)
{
  guint8 *d = g_malloc (size);

  for (guint64 i = 0; i < size; i++)
    d[i] = (guint8) (i ^ (i >> 11));
  return g_bytes_new_take (d, size);
}

static void
build_tree (Sim * sim)
{
  const RmtpSimParams *p = sim->p;

  /* the bound upstream into the server stands for its socket buffer */
  sim_engine_add_node (sim->e, 0, p->sender_link, p->core_delay,
      p->response_queue, 0);
  for (guint i = 0; i < p->n_receivers; i++) {
    SimRx *x = &sim->rx[i];

    x->slow_link = i >= p->n_receivers - MIN (p->n_slow, p->n_receivers);
    x->node = sim_engine_add_node (sim->e, ROUTER, x->slow_link ?
        p->slow_link : p->edge_link, p->edge_delay, x->slow_link ?
        p->slow_queue : 0, 0);
    x->done_at = -1;
    random_source_init_seeded (&x->loss_rng, &x->loss_seeded,
        p->seed * 1000003 + 2 * i + 1);
    random_source_init_seeded (&x->rng, &x->seeded,
        p->seed * 1000003 + 2 * i + 2);
    sim->ids[i] = i + 1;
    x->r = rmtp_stream_receiver_new (&p->cfg, sim->ids[i], TRUE, &x->rng);
    x->wake = G_MININT64;
  }
}

/* RMTP_SIM_DEBUG: the receivers that did not end released, on stderr. */
static void
list_unfinished (const Sim * sim)
{
  for (guint i = 0; i < sim->p->n_receivers; i++) {
    RmtpReceiver *r = rmtp_stream_receiver_core (sim->rx[i].r);
    const RmtpReceiverStats *st = rmtp_receiver_stats (r);

    if (rmtp_receiver_state (r) != RMTP_RECEIVER_DONE)
      g_printerr ("receiver %u: state %d, %" G_GUINT64_FORMAT " packets, %"
          G_GUINT64_FORMAT " CACKs\n", i, rmtp_receiver_state (r),
          st->data_received, st->cack_sent);
  }
}

/* The latest release among the receivers on normal and on slow links. */
static void
collect_done_times (Sim * sim)
{
  RmtpSimResult *out = sim->out;

  out->fast_done_time = out->slow_done_time = 0;
  for (guint i = 0; i < sim->p->n_receivers; i++) {
    const SimRx *x = &sim->rx[i];
    gint64 *t = x->slow_link ? &out->slow_done_time : &out->fast_done_time;

    if (*t >= 0)
      *t = x->done_at < 0 ? -1 : MAX (*t, x->done_at);
  }
}

void
rmtp_sim_run (const RmtpSimParams * p, RmtpSimResult * out)
{
  SimEngineCallbacks cb = { NULL, dispatch, (gpointer (*)(gpointer))
        g_bytes_ref, (GDestroyNotify) g_bytes_unref
  };
  Sim sim = { p };
  GBytes *data = make_data_set (p->size);
  const RmtpServerStats *st;

  memset (out, 0, sizeof (*out));
  sim.out = out;
  cb.owner = &sim;
  sim.e = sim_engine_new (&cb, SIM_LINK_RECKONED);
  sim.rx = g_new0 (SimRx, p->n_receivers);
  sim.ids = g_new0 (guint32, p->n_receivers);
  build_tree (&sim);
  random_source_init_seeded (&sim.rng, &sim.seeded, p->seed);
  sim.data = data;
  if (p->cfg.window_size) {
    sim.ss = rmtp_stream_server_new (&p->cfg, 1, sim.ids, p->n_receivers,
        &sim.rng);
  } else {
    sim.s = rmtp_server_new (&p->cfg, 1, sim.ids, p->n_receivers, data,
        &sim.rng);
    rmtp_server_start (sim.s, 0);
  }
  sim.server_wake = G_MININT64;
  pump_server (&sim);
  sim_engine_run (sim.e, 3600 * SIM_S);
  st = sim.ss ? &rmtp_stream_server_stats (sim.ss)->sum :
      rmtp_server_stats (sim.s);
  out->windows = sim.ss ? rmtp_stream_server_stats (sim.ss)->windows : 1;
  out->max_held = sim.ss ? rmtp_stream_server_stats (sim.ss)->max_held :
      p->size;
  out->rounds = st->rounds;
  out->max_responses_per_round = st->max_responses_per_round;
  out->data_sent = st->data_sent;
  out->data_resent = st->data_resent;
  out->polls = st->polls_sent;
  out->unicast_data = st->unicast_data_sent;
  out->parity_sent = st->parity_sent;
  out->slow_detected = st->slow_detected;
  out->taken_back = st->taken_back;
  collect_done_times (&sim);
  if (g_getenv ("RMTP_SIM_DEBUG"))
    list_unfinished (&sim);
  rmtp_server_free (sim.s);
  rmtp_stream_server_free (sim.ss);
  for (guint i = 0; i < p->n_receivers; i++)
    rmtp_stream_receiver_free (sim.rx[i].r);
  sim_engine_free (sim.e);
  g_free (sim.rx);
  g_free (sim.ids);
  g_bytes_unref (data);
}

gdouble
rmtp_sim_line_time (guint64 size, guint64 rate)
{
  return size * 8.0 / rate;
}

gdouble
rmtp_sim_arq_bound (guint64 size, guint64 rate, guint n, gdouble loss)
{
  /* E[max of n geometric] = sum over k >= 0 of P(some receiver still
   * lacks the packet after k sends) = sum 1 - (1 - loss^k)^n */
  gdouble sends = 0.0;

  for (guint k = 0; k < 10000; k++) {
    gdouble term = 1.0 - pow (1.0 - pow (loss, k), n);

    sends += term;
    if (term < 1e-12)
      break;
  }
  return rmtp_sim_line_time (size, rate) * sends;
}

gdouble
rmtp_sim_ideal_code (guint64 size, guint64 rate, gdouble loss)
{
  return rmtp_sim_line_time (size, rate) / (1.0 - loss);
}
