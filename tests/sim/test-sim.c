/* Unit tests of the simulator with the real RLM core as the receiver. */
#include "sim.h"

/* Topology (1) of the RLM paper: one receiver behind a 1.5 Mbit/s link
 * with a 20-packet drop-tail queue, six layers of 32 * 2^m kbit/s. */
static Sim *
topology_one (guint64 seed, guint * rx_node)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;

  sim_config_init (&cfg);
  cfg.seed = seed;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  *rx_node = sim_add_node (sim, 0, 1500000, 10 * SIM_MS, 20, 0);
  sim_add_receiver (sim, *rx_node, &rc, 0);
  return sim;
}

static guint64
core_lost (Sim * sim, guint rx)
{
  RlmReceiverStats st;
  guint64 lost = 0;

  rlm_receiver_get_stats (sim_receiver_core (sim, rx), &st);
  for (guint l = 0; l < RLM_MAX_LAYERS; l++)
    lost += st.layers[l].lost;
  return lost;
}

/* The receiver climbs to level 5 (992 kbit/s; level 6 needs 2016), stays
 * there but for short experiments, and the layer it does not take is
 * pruned from its link. */
static void
test_topology_one_converges (void)
{
  guint node, level = 0, max_level = 0;
  Sim *sim = topology_one (1, &node);
  const GArray *evs;
  SimLinkStats ls;
  gint64 above = 0, since = -1;
  guint64 received, lost;

  sim_run (sim, 300 * SIM_S);
  evs = sim_receiver_events (sim, 0);
  for (guint k = 0; k < evs->len; k++) {
    const SimEventRecord *r = &g_array_index (evs, SimEventRecord, k);

    if (r->ev.type != RLM_EVENT_LEVEL)
      continue;
    if (level > 5)
      above += r->time - since;
    level = r->ev.level;
    since = r->time;
    max_level = MAX (max_level, level);
  }
  g_assert_cmpuint (max_level, ==, 6);
  g_assert_cmpuint (sim_receiver_level (sim, 0), >=, 5);
  g_assert_cmpint (sim_receiver_convergence (sim, 0, 5), >, 0);
  g_assert_cmpint (sim_receiver_convergence (sim, 0, 5), <, 60 * SIM_S);
  /* experiments above the bottleneck are short: under 5 % of the run */
  g_assert_cmpint (above, <, 15 * SIM_S);
  g_assert_cmpfloat (sim_receiver_loss (sim, 0), <, 0.01);
  g_assert_cmpfloat (sim_receiver_worst_loss (sim, 0, 100 * SIM_S), <,
      0.03);
  /* the core and the simulator count the same losses */
  sim_link_stats (sim, node, &ls);
  g_assert_cmpuint (ls.dropped, >, 0);
  sim_receiver_counts (sim, 0, &received, &lost);
  g_assert_cmpuint (lost, >, 0);
  g_assert_cmpuint (core_lost (sim, 0), ==, lost);
  g_assert_cmpuint (sim_link_forwards (sim, node, 0, 5), ==,
      sim_receiver_level (sim, 0) == 6);
  g_assert_true (sim_link_forwards (sim, node, 0, 4));
  sim_free (sim);
}

/* The same seed gives the same run. */
static void
test_repeatable (void)
{
  guint na, nb;
  Sim *a = topology_one (7, &na), *b = topology_one (7, &nb);
  const GArray *ea, *eb;

  sim_run (a, 120 * SIM_S);
  sim_run (b, 120 * SIM_S);
  ea = sim_receiver_events (a, 0);
  eb = sim_receiver_events (b, 0);
  g_assert_cmpuint (ea->len, ==, eb->len);
  for (guint k = 0; k < ea->len; k++) {
    g_assert_cmpint (g_array_index (ea, SimEventRecord, k).time, ==,
        g_array_index (eb, SimEventRecord, k).time);
    g_assert_cmpuint (g_array_index (ea, SimEventRecord, k).ev.level, ==,
        g_array_index (eb, SimEventRecord, k).ev.level);
  }
  sim_free (a);
  sim_free (b);
}

/* Topology (3): receivers behind B and B/2 each settle at their own
 * level (5 and 4), and the slow link never carries layer 5 at the end. */
static void
test_heterogeneous_sets (void)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;
  guint fast, slow, rx_node[4];

  sim_config_init (&cfg);
  cfg.seed = 3;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  fast = sim_add_node (sim, 0, 1500000, 10 * SIM_MS, 20, 0);
  slow = sim_add_node (sim, 0, 750000, 10 * SIM_MS, 20, 0);
  for (guint i = 0; i < 4; i++) {
    rx_node[i] = sim_add_node (sim, i % 2 ? slow : fast, 10000000,
        SIM_MS, 20, 0);
    sim_add_receiver (sim, rx_node[i], &rc, (gint64) i * 7 * SIM_S);
  }
  sim_run (sim, 400 * SIM_S);
  for (guint i = 0; i < 4; i++) {
    guint optimal = i % 2 ? 4 : 5;

    g_assert_cmpint (sim_receiver_convergence (sim, i, optimal), >, 0);
    g_assert_cmpint (sim_receiver_convergence (sim, i, optimal), <,
        120 * SIM_S);
    g_assert_cmpfloat (sim_receiver_loss (sim, i), <, 0.02);
  }
  g_assert_false (sim_link_forwards (sim, slow, 0, 5));
  sim_free (sim);
}

/* Cross traffic that takes half the bottleneck for a while pushes the
 * receiver down; when it stops, the receiver climbs back. */
static void
test_cross_traffic (void)
{
  guint node;
  Sim *sim = topology_one (5, &node);
  SimLinkStats ls;

  sim_add_cross_traffic (sim, node, 750000, 1000, 100 * SIM_S,
      200 * SIM_S, 0, 0);
  sim_run (sim, 190 * SIM_S);
  g_assert_cmpuint (sim_receiver_level (sim, 0), <=, 4);
  sim_run (sim, 400 * SIM_S);
  g_assert_cmpuint (sim_receiver_level (sim, 0), >=, 5);
  sim_link_stats (sim, node, &ls);
  g_assert_cmpuint (ls.cross_sent, >, 0);
  sim_free (sim);
}

/* Topology (4) in small: two independent sessions share a 2 Mbit/s
 * bottleneck. Their announcements stay in their session, each leaf link
 * carries only its own session's groups, and neither is starved. */
static void
test_two_sessions_share_a_link (void)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;
  guint hub, leaf[2], s1;

  sim_config_init (&cfg);
  cfg.seed = 9;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  s1 = sim_add_session (sim, cfg.n_layers, cfg.layer_rate);
  g_assert_cmpuint (s1, ==, 1);
  hub = sim_add_node (sim, 0, 2000000, 10 * SIM_MS, 20, 0);
  for (guint i = 0; i < 2; i++) {
    leaf[i] = sim_add_node (sim, hub, 15000000, 10 * SIM_MS, 20, 0);
    sim_add_session_receiver (sim, i, leaf[i], &rc, (gint64) i * 5 * SIM_S);
  }
  sim_run (sim, 300 * SIM_S);
  for (guint i = 0; i < 2; i++) {
    RlmReceiverStats st;

    rlm_receiver_get_stats (sim_receiver_core (sim, i), &st);
    g_assert_cmpuint (st.session_size, ==, 1);
    g_assert_cmpuint (st.control_received, ==, 0);
    g_assert_cmpuint (sim_receiver_level (sim, i), >=, 3);
    g_assert_cmpfloat (sim_receiver_loss (sim, i), <, 0.02);
    g_assert_true (sim_link_forwards (sim, leaf[i], i, 0));
    for (guint l = 0; l < cfg.n_layers; l++)
      g_assert_false (sim_link_forwards (sim, leaf[i], 1 - i, l));
  }
  /* together they fill the bottleneck: at least one takes level 5 */
  g_assert_cmpuint (MAX (sim_receiver_level (sim, 0),
          sim_receiver_level (sim, 1)), >=, 5);
  sim_free (sim);
}

/* aqmcore's drop-tail, and fair queueing with one flow, are the engine's
 * own drop-tail: the same packets lost at the same times. */
static void
test_queueing_equivalences (void)
{
  guint64 rx[3], lost[3];

  for (guint k = 0; k < 3; k++) {
    guint node;
    Sim *sim = topology_one (3, &node);

    /* topology_one sent nothing yet: the discipline may still change */
    if (k == 1)
      g_assert_true (sim_set_discipline (sim, node, AQM_DROPTAIL));
    if (k == 2)
      g_assert_true (sim_set_fair_queueing (sim, node));
    sim_run (sim, 200 * SIM_S);
    sim_receiver_counts (sim, 0, &rx[k], &lost[k]);
    g_assert_cmpuint (lost[k], >, 0);
    sim_free (sim);
  }
  g_assert_cmpuint (rx[1], ==, rx[0]);
  g_assert_cmpuint (lost[1], ==, lost[0]);
  g_assert_cmpuint (rx[2], ==, rx[0]);
  g_assert_cmpuint (lost[2], ==, lost[0]);
}

/* Topology (4) with 16 sessions on 16 x 1.5 Mbit/s, the queue twice the
 * bandwidth-delay product. With drop-tail some sessions end below the
 * level of their fair share (section 4.3: "often unfair"); with fair
 * queueing per session none does (section 8's expectation). */
static guint
superposition_below_fair (gboolean queueing)
{
  SimConfig cfg;
  RlmConfig rc;
  Sim *sim;
  guint hub, below = 0;
  GRand *starts = g_rand_new_with_seed (4);

  sim_config_init (&cfg);
  cfg.seed = 4;
  rlm_config_init (&rc);
  sim = sim_new (&cfg);
  hub = sim_add_node (sim, 0, 16 * 1500000, 10 * SIM_MS, 240, 0);
  if (queueing)
    g_assert_true (sim_set_fair_queueing (sim, hub));
  for (guint i = 0; i < 16; i++) {
    guint s = i == 0 ? 0 : sim_add_session (sim, cfg.n_layers,
        cfg.layer_rate);
    guint leaf = sim_add_node (sim, hub, 15000000, 10 * SIM_MS, 20, 0);

    sim_add_session_receiver (sim, s, leaf, &rc,
        g_rand_int_range (starts, 30, 120) * SIM_S);
  }
  sim_run (sim, 400 * SIM_S);
  for (guint i = 0; i < 16; i++)
    below += sim_receiver_level (sim, i) < 5;
  g_rand_free (starts);
  sim_free (sim);
  return below;
}

static void
test_fair_queueing_shares_fairly (void)
{
  g_assert_cmpuint (superposition_below_fair (FALSE), >, 0);
  g_assert_cmpuint (superposition_below_fair (TRUE), ==, 0);
}

/* Behind RED or CoDel (aqmcore, in the engine) the receiver of topology
 * (1) still converges, and loses less than 1 % as with drop-tail. */
static void
test_aqm_converges (void)
{
  for (AqmDiscipline d = AQM_RED; d <= AQM_CODEL; d++) {
    guint node;
    Sim *sim = topology_one (1, &node);
    SimLinkStats ls;

    g_assert_true (sim_set_discipline (sim, node, d));
    sim_run (sim, 300 * SIM_S);
    g_assert_cmpuint (sim_receiver_level (sim, 0), >=, 5);
    g_assert_cmpint (sim_receiver_convergence (sim, 0, 5), >, 0);
    g_assert_cmpfloat (sim_receiver_loss (sim, 0), <, 0.01);
    sim_link_stats (sim, node, &ls);
    g_assert_cmpuint (ls.dropped, >, 0);
    sim_free (sim);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/topology-one-converges",
      test_topology_one_converges);
  g_test_add_func ("/sim/repeatable", test_repeatable);
  g_test_add_func ("/sim/heterogeneous-sets", test_heterogeneous_sets);
  g_test_add_func ("/sim/cross-traffic", test_cross_traffic);
  g_test_add_func ("/sim/two-sessions-share-a-link",
      test_two_sessions_share_a_link);
  g_test_add_func ("/sim/queueing-equivalences", test_queueing_equivalences);
  g_test_add_func ("/sim/fair-queueing-shares-fairly",
      test_fair_queueing_shares_fairly);
  g_test_add_func ("/sim/aqm-converges", test_aqm_converges);
  return g_test_run ();
}
