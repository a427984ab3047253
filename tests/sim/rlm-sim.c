#include <unistd.h>
/* RLM in the simulator, on the paper's topologies (Fig. 7) with its
 * section 4 settings: 1.5 Mbit/s links, 20-packet drop-tail queues, 1 KB
 * packets, six layers of 32 * 2^m kbit/s, receivers starting uniformly in
 * [30, 120] s. Prints each receiver's level, convergence time and
 * worst-case loss over 1, 10 and 100 s windows, then the maxima.
 *
 *   rlm-sim [-t TOPOLOGY] [-n RECEIVERS] [-d SECONDS] [-l DELAY_MS]
 *           [-s SEED] [-b BOTTLENECK_BPS] [-q QUEUE_PACKETS] [-m]
 *
 * Topology 1: source - bottleneck - one receiver. 2: source - bottleneck -
 * n receivers. 3: n/2 receivers behind the bottleneck B and n/2 behind
 * B/2. 4: n independent sessions, one receiver each, share a bottleneck
 * of n B whose queue holds twice its bandwidth-delay product (section
 * 4.3); the optimal level is the one that fits the fair share B. -m draws
 * join timers with mean lambda (RLM_JOIN_DRAW_MEAN). */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

typedef struct {
  guint topology, n;
  gint64 duration, delay;
  guint64 seed, bottleneck;
  guint queue;
  gboolean mean_draw;
} Options;

/* The highest level whose cumulative rate fits @rate. */
static guint
optimal_level (const SimConfig * cfg, guint64 rate)
{
  guint64 sum = 0;
  guint level = 0;

  while (level < cfg->n_layers && sum + cfg->layer_rate[level] <= rate)
    sum += cfg->layer_rate[level++];
  return MAX (level, 1);
}

/* Topology (4): n sessions of the same layers, one receiver each, behind
 * one bottleneck of n times the fair share; queue = 2 x bandwidth-delay
 * product (round trip over both links, 1000-byte packets), at least 2. */
static void
build_superposition (Sim * sim, const Options * o, const SimConfig * cfg,
    const RlmConfig * rc, RandomSource * rng)
{
  guint64 rate = o->bottleneck * o->n;
  gdouble rtt = 4.0 * o->delay / 1000.0;
  guint queue = MAX (2, (guint) (2.0 * rate * rtt / (8.0 * 1000)));
  guint hub = sim_add_node (sim, 0, rate, o->delay * SIM_MS, queue, 0);

  for (guint i = 0; i < o->n; i++) {
    guint s = i == 0 ? 0 : sim_add_session (sim, cfg->n_layers,
        cfg->layer_rate);
    guint node = sim_add_node (sim, hub, 10 * o->bottleneck,
        o->delay * SIM_MS, o->queue, 0);

    sim_add_session_receiver (sim, s, node, rc,
        random_source_range (rng, 30 * SIM_S, 120 * SIM_S));
  }
}

static gboolean
parse_options (int argc, char **argv, Options * o)
{
  int c;

  o->topology = 1;
  o->n = 1;
  o->duration = 600;
  o->delay = 10;
  o->seed = 1;
  o->bottleneck = 1500000;
  o->queue = 20;
  o->mean_draw = FALSE;
  while ((c = getopt (argc, argv, "t:n:d:l:s:b:q:m")) != -1) {
    switch (c) {
      case 't':
        o->topology = atoi (optarg);
        break;
      case 'n':
        o->n = MAX (1, atoi (optarg));
        break;
      case 'd':
        o->duration = atoll (optarg);
        break;
      case 'l':
        o->delay = atoll (optarg);
        break;
      case 's':
        o->seed = strtoull (optarg, NULL, 10);
        break;
      case 'b':
        o->bottleneck = strtoull (optarg, NULL, 10);
        break;
      case 'q':
        o->queue = atoi (optarg);
        break;
      case 'm':
        o->mean_draw = TRUE;
        break;
      default:
        return FALSE;
    }
  }
  return o->topology >= 1 && o->topology <= 4 && o->bottleneck > 0;
}

int
main (int argc, char **argv)
{
  Options o;
  SimConfig cfg;
  RlmConfig rc;
  RandomSeeded seeded;
  RandomSource rng;
  Sim *sim;
  guint hub, slow = 0, *optimal;
  gdouble worst[3] = { 0, 0, 0 };
  gint64 windows[3] = { SIM_S, 10 * SIM_S, 100 * SIM_S }, slowest = 0;
  guint unconverged = 0;

  if (!parse_options (argc, argv, &o)) {
    fprintf (stderr, "usage: %s [-t 1|2|3|4] [-n receivers] [-d seconds] "
        "[-l delay_ms] [-s seed] [-b bottleneck_bps] [-q queue] [-m]\n",
        argv[0]);
    return 2;
  }
  sim_config_init (&cfg);
  cfg.seed = o.seed;
  rlm_config_init (&rc);
  if (o.mean_draw)
    rc.join_draw = RLM_JOIN_DRAW_MEAN;
  random_source_init_seeded (&rng, &seeded, o.seed ^ 0x5eed);
  sim = sim_new (&cfg);
  if (o.topology == 4)
    build_superposition (sim, &o, &cfg, &rc, &rng);
  hub = o.topology == 4 ? 0 :
      sim_add_node (sim, 0, o.bottleneck, o.delay * SIM_MS, o.queue, 0);
  if (o.topology == 3)
    slow = sim_add_node (sim, 0, o.bottleneck / 2, o.delay * SIM_MS, o.queue,
        0);
  if (o.topology == 1)
    o.n = 1;
  optimal = g_new0 (guint, o.n);
  for (guint i = 0; i < o.n && o.topology != 4; i++) {
    gboolean behind_slow = o.topology == 3 && i % 2 == 1;
    guint parent = behind_slow ? slow : hub;
    guint node = sim_add_node (sim, parent, o.bottleneck, o.delay * SIM_MS,
        o.queue, 0);
    gint64 start = o.topology == 1 ? 0 :
        random_source_range (&rng, 30 * SIM_S, 120 * SIM_S);

    optimal[i] = optimal_level (&cfg, behind_slow ? o.bottleneck / 2 :
        o.bottleneck);
    sim_add_receiver (sim, node, &rc, start);
  }
  if (o.topology == 4)
    for (guint i = 0; i < o.n; i++)
      optimal[i] = optimal_level (&cfg, o.bottleneck);
  sim_run (sim, o.duration * SIM_S);
  printf ("# rx level optimal convergence_s loss loss1s loss10s loss100s\n");
  for (guint i = 0; i < o.n; i++) {
    gint64 conv = sim_receiver_convergence (sim, i, optimal[i]);
    gdouble l[3];

    for (guint w = 0; w < 3; w++) {
      l[w] = sim_receiver_worst_loss (sim, i, windows[w]);
      worst[w] = MAX (worst[w], l[w]);
    }
    if (conv < 0)
      unconverged++;
    slowest = MAX (slowest, conv);
    /* -1 s: not converged */
    printf ("%u %u %u %.1f %.4f %.4f %.4f %.4f\n", i,
        sim_receiver_level (sim, i), optimal[i], conv < 0 ? -1.0 : conv / 1e9,
        sim_receiver_loss (sim, i), l[0], l[1], l[2]);
  }
  printf ("# topology %u receivers %u: worst loss 1s %.4f 10s %.4f "
      "100s %.4f, slowest convergence %.1f s, not converged %u\n",
      o.topology, o.n, worst[0], worst[1], worst[2], slowest / 1e9,
      unconverged);
  g_free (optimal);
  sim_free (sim);
  return 0;
}
