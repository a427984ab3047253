/* The RMTP cores in the simulator: every receiver completes, the server's
 * side drops no response (no implosion), and the transfer takes at most
 * @over times the ARQ bound plus, for each round and for the connection and
 * release, the response window delta x N, TAT + alpha and a round trip:
 * the protocol's own cost in the paper's model (eq. 2). */
#include <stdio.h>

#include "rmtpsim.h"

static void
check_scenario (guint n, gdouble loss, gdouble over)
{
  RmtpSimParams p;
  RmtpSimResult r;
  gdouble arq, t, waits;

  rmtp_sim_params_init (&p, n, loss);
  p.size = 512 * 1024;
  rmtp_sim_run (&p, &r);
  arq = rmtp_sim_arq_bound (p.size, p.cfg.rate, n, loss);
  t = r.transfer_time / 1e9;
  waits = (r.rounds + 2) * (p.cfg.delta * n + p.cfg.tat + p.cfg.alpha +
      2 * (p.core_delay + p.edge_delay)) / 1e9;
  printf ("%u receivers, loss %.2f: %.3f s (ARQ bound %.3f s), %u rounds, "
      "max %u responses a round, %" G_GUINT64_FORMAT " dropped\n", n, loss,
      t, arq, r.rounds, r.max_responses_per_round, r.response_drops);
  g_assert_true (r.finished);
  g_assert_cmpuint (r.complete, ==, n);
  g_assert_cmpuint (r.response_drops, ==, 0);
  g_assert_cmpuint (r.max_responses_per_round, <=, n);
  g_assert_cmpfloat (t, <=, over * arq + waits);
}

static void
test_no_loss_near_line_time (void)
{
  check_scenario (8, 0.0, 1.1);
}

static void
test_loss_within_bound (void)
{
  check_scenario (32, 0.01, 1.1);
  check_scenario (32, 0.10, 1.1);
}

static void
test_many_receivers_no_implosion (void)
{
  check_scenario (500, 0.01, 1.1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rmtpsim/no-loss", test_no_loss_near_line_time);
  g_test_add_func ("/rmtpsim/loss", test_loss_within_bound);
  g_test_add_func ("/rmtpsim/many", test_many_receivers_no_implosion);
  return g_test_run ();
}
