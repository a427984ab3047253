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

/* Separate retransmission (3.2.2): a receiver behind a link a quarter of
 * the send rate is detected by its losses and served by unicast at the
 * rate it takes once the multicast rounds are over, and the others are
 * released as if it were not there. */
static void
run_slow_link (guint slow_rounds, gboolean early, RmtpSimResult * r)
{
  RmtpSimParams p;

  rmtp_sim_params_init (&p, 4, 0.0);
  p.size = 512 * 1024;
  p.n_slow = 1;
  p.cfg.slow_rounds = slow_rounds;
  p.cfg.early_repair = early;
  rmtp_sim_run (&p, r);
  printf ("slow link, slow-rounds %u: %.3f s, others released at %.3f s, "
      "slow one at %.3f s, %u rounds, %" G_GUINT64_FORMAT " unicast DATA, "
      "%u detected\n", slow_rounds, r->transfer_time / 1e9,
      r->fast_done_time / 1e9, r->slow_done_time / 1e9, r->rounds,
      r->unicast_data, r->slow_detected);
  g_assert_true (r->finished);
  g_assert_cmpuint (r->complete, ==, 4);
}

static void
test_slow_link_served_by_unicast (void)
{
  RmtpSimResult on, off;
  gdouble line = rmtp_sim_line_time (512 * 1024, 8000000) * 1e9;

  run_slow_link (2, FALSE, &on);
  run_slow_link (0, FALSE, &off);
  g_assert_cmpuint (on.slow_detected, ==, 1);
  g_assert_cmpuint (on.unicast_data, >, 0);
  g_assert_cmpuint (off.slow_detected, ==, 0);
  g_assert_cmpuint (off.unicast_data, ==, 0);
  /* the others: the line time and one round's answers and release */
  g_assert_cmpint (on.fast_done_time, >, 0);
  g_assert_cmpfloat (on.fast_done_time, <, line + 0.5e9);
  /* unicast at the rate it takes beats resending to it at the group's */
  g_assert_cmpint (on.slow_done_time, <, off.slow_done_time);
}

/* Issue 20: receivers whose CACKs are all lost, the answers to the CONN
 * retries too, still take the CONN and the data. At 100 receivers and 1 %
 * the group's repairs do not cover their own losses; they are taken back
 * by their first NACK and served by unicast, and nobody is released
 * without the data set. */
static void
test_lost_cacks_taken_back (void)
{
  RmtpSimParams p;
  RmtpSimResult r;

  rmtp_sim_params_init (&p, 100, 0.01);
  p.size = 512 * 1024;
  p.n_cack_lost = 5;
  rmtp_sim_run (&p, &r);
  printf ("5 of 100 without CACK: %.3f s, %u complete, %u taken back, %"
      G_GUINT64_FORMAT " unicast DATA\n", r.transfer_time / 1e9, r.complete,
      r.taken_back, r.unicast_data);
  g_assert_true (r.finished);
  g_assert_cmpuint (r.complete, ==, 100);
  g_assert_cmpuint (r.taken_back, ==, 5);
  g_assert_cmpint (r.fast_done_time, >, 0);
}

/* Repair by parity: at 32 receivers and 10 % loss the transfer takes at
 * most 1.2 x the ideal erasure code plus the protocol's waits, and sends
 * far fewer repairs than retransmission (one parity packet repairs a
 * different loss at each receiver). */
static void
test_parity_near_ideal (void)
{
  RmtpSimParams p;
  RmtpSimResult par, arq;
  gdouble ideal, waits, t;

  rmtp_sim_params_init (&p, 32, 0.10);
  p.size = 512 * 1024;
  rmtp_sim_run (&p, &arq);
  p.cfg.repair = RMTP_REPAIR_PARITY;
  rmtp_sim_run (&p, &par);
  ideal = rmtp_sim_ideal_code (p.size, p.cfg.rate, 0.10);
  waits = (par.rounds + 2) * (p.cfg.delta * 32 + 2 * (p.core_delay +
          p.edge_delay)) / 1e9;
  t = par.transfer_time / 1e9;
  printf ("parity: %.3f s (ideal %.3f s), %u rounds, %" G_GUINT64_FORMAT
      " parity; retransmit: %.3f s, %" G_GUINT64_FORMAT " resent\n", t,
      ideal, par.rounds, par.parity_sent, arq.transfer_time / 1e9,
      arq.data_resent);
  g_assert_true (par.finished);
  g_assert_cmpuint (par.complete, ==, 32);
  g_assert_cmpuint (par.data_resent, ==, 0);
  g_assert_cmpuint (par.parity_sent, >, 0);
  g_assert_cmpuint (par.parity_sent * 3, <, arq.data_resent);
  g_assert_cmpfloat (t, <=, 1.2 * ideal + waits);
  g_assert_cmpint (par.transfer_time, <, arq.transfer_time);
}

/* 2 MiB to 32 receivers at 10 % loss, parity, release on ACK, delta
 * 0.5 ms, seed @seed, with or without early repair. */
static void
run_early (guint64 seed, gboolean early, RmtpSimResult * r)
{
  RmtpSimParams p;

  rmtp_sim_params_init (&p, 32, 0.10);
  p.seed = seed;
  p.cfg.repair = RMTP_REPAIR_PARITY;
  p.cfg.release_on_ack = TRUE;
  p.cfg.delta = 500000;
  p.cfg.early_repair = early;
  rmtp_sim_run (&p, r);
  printf ("seed %" G_GUINT64_FORMAT ", early repair %d: %.3f s, %u rounds, %"
      G_GUINT64_FORMAT " parity, %" G_GUINT64_FORMAT " POLLs\n", seed, early,
      r->transfer_time / 1e9, r->rounds, r->parity_sent, r->polls);
  g_assert_true (r->finished);
  g_assert_cmpuint (r->complete, ==, 32);
  g_assert_cmpuint (r->response_drops, ==, 0);
}

/* Early repair: in seeds 1 and 7 a receiver loses all three copies of an
 * EOR; the paper's rounds POLL it (TAT + window + alpha) and take over 1.2
 * x the ideal erasure code (2.80 s), early repair does not POLL, fills the
 * repair rounds' answer windows with rows, and stays under it. A slow link
 * is still detected and served by unicast. */
static void
test_early_repair (void)
{
  gdouble ideal = rmtp_sim_ideal_code (2 * 1024 * 1024, 8000000, 0.10);
  static const guint64 seeds[] = { 1, 7 };
  RmtpSimResult with, without;

  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++) {
    run_early (seeds[i], TRUE, &with);
    run_early (seeds[i], FALSE, &without);
    g_assert_cmpuint (with.polls, ==, 0);
    g_assert_cmpuint (without.polls, >, 0);
    g_assert_cmpfloat (with.transfer_time / 1e9, <=, 1.2 * ideal);
    g_assert_cmpfloat (without.transfer_time / 1e9, >, 1.2 * ideal);
    g_assert_cmpuint (with.parity_sent, <=, without.parity_sent * 1.1);
  }
  run_slow_link (2, TRUE, &with);
  g_assert_cmpuint (with.slow_detected, ==, 1);
  g_assert_cmpuint (with.unicast_data, >, 0);
}

/* Streaming mode: 2 MiB in 256 KiB windows to 8 receivers at 1 % loss.
 * Every receiver completes, the server never holds more than two windows,
 * and each window after the first costs at most its connection, its last
 * round's answers and its release (each an answer window delta x N and
 * two round trips) over the data-set transfer. */
static void
test_stream_windows (void)
{
  RmtpSimParams p;
  RmtpSimResult set, stream;
  gdouble per_window;

  rmtp_sim_params_init (&p, 8, 0.01);
  rmtp_sim_run (&p, &set);
  p.cfg.window_size = 256 * 1024;
  rmtp_sim_run (&p, &stream);
  per_window = 3 * (p.cfg.delta * 8 + 4 * (p.core_delay + p.edge_delay));
  printf ("stream: %.3f s in %u windows, most held %" G_GUINT64_FORMAT
      " bytes; data set: %.3f s\n", stream.transfer_time / 1e9,
      stream.windows, stream.max_held, set.transfer_time / 1e9);
  g_assert_true (stream.finished);
  g_assert_cmpuint (stream.complete, ==, 8);
  g_assert_cmpuint (stream.windows, ==, 8);
  g_assert_cmpuint (stream.max_held, <=, 2 * p.cfg.window_size + 1);
  g_assert_cmpfloat (stream.transfer_time, <=, set.transfer_time +
      (stream.windows - 1) * per_window);
  g_assert_cmpint (stream.transfer_time, >, set.transfer_time);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rmtpsim/no-loss", test_no_loss_near_line_time);
  g_test_add_func ("/rmtpsim/loss", test_loss_within_bound);
  g_test_add_func ("/rmtpsim/many", test_many_receivers_no_implosion);
  g_test_add_func ("/rmtpsim/slow-link", test_slow_link_served_by_unicast);
  g_test_add_func ("/rmtpsim/lost-cacks", test_lost_cacks_taken_back);
  g_test_add_func ("/rmtpsim/parity", test_parity_near_ideal);
  g_test_add_func ("/rmtpsim/early-repair", test_early_repair);
  g_test_add_func ("/rmtpsim/stream", test_stream_windows);
  return g_test_run ();
}
