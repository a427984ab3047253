/* VLMCC scenarios in simulated time on the real cores:
 *   vlmcc-sim alone      one bottleneck, the session alone (Figure 4b)
 *   vlmcc-sim figure5    two bottlenecks, cross traffic switched on and
 *                        off (Figure 5 at small scale): leader timeline
 *   vlmcc-sim figure5-csv  the same run as CSV for tests/sim/vlmcc_plots.py:
 *                        rates every 500 ms and the leader changes
 *   vlmcc-sim scale      feedback packets per RTT for N = 10 .. 1000
 *   vlmcc-sim scale-csv [N...]  the same feedback counts (and the churn's
 *                        with and without the challenge echo) as CSV
 *   vlmcc-sim scale-echo [SEED...]  the churn part of scale for each seed
 *                        (3 and 4), the paper's and with the challenge echo
 *                        (VLMCC_SIM_CHALLENGE_DELAY=RTTs: challenge_delay;
 *                        VLMCC_SIM_START_JITTER=ms: receivers start up to
 *                        that much later, drawn from the seed)
 *   vlmcc-sim late-acks  one bottleneck, feedback late (jitter, stalls)
 *                        but never lost: rate, losses taken, halvings
 *   vlmcc-sim ack-jitter one bottleneck, jitter on the feedback only:
 *                        rate and halvings for each Vegas delay input
 *   vlmcc-sim skew       receivers' clocks fast or slow: the leader's
 *                        (each Vegas delay input) and a follower's
 *   vlmcc-sim membership [SEED...]  receivers join and leave (the leader
 *                        too, silently): time to the right leader, time
 *                        without one, elections, rate dips; then random
 *                        churn for each seed (1-3 if none)
 * figure5 and figure5-csv take VLMCC_SIM_SENDER_READ_LAG=ms (the sender's loop reads
 * feedback that late), VLMCC_SIM_START_HOLD_OFF=1 (its STARTs report
 * no hold), VLMCC_SIM_START_UNQUEUED=1 (STARTs skip the links' queues,
 * as before issue 19's fix) and VLMCC_SIM_FEEDBACK_QUEUED=1 (feedback
 * through the upstream queues).
 * figure5, figure5-csv, skew and membership take VLMCC_SIM_START_ANCHOR=1
 * (start_anchor), VLMCC_SIM_RTT_MIN_WINDOW=RTTs (rtt_min_window) and
 * VLMCC_SIM_CHALLENGE_CONFIRM=RTTs (challenge_confirm) for the receivers,
 * VLMCC_SIM_VEGAS_ACK_CLOCK=1 (vegas_ack_clock) for the sender.
 * Prints figures; never fails on them (test-vlmcc-sim asserts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vlmccsim.h"

#define MBIT (G_GUINT64_CONSTANT (1000000))

static void
print_rate (VlmccSim * sim, guint rx, gint64 from, gint64 to)
{
  guint64 bytes = vlmcc_sim_receiver_bytes (sim, rx, from, to);

  printf ("  receiver %u: %.0f kbit/s over %.0f-%.0f s\n", rx,
      bytes * 8.0 / ((to - from) / 1e9) / 1000.0, from / 1e9, to / 1e9);
}

static void config_from_env (VlmccConfig * cfg);

/* Each receiver's last START RTT, base RTT and hold at the end, the
 * sender's base, and the STARTs sent and lost on the way. */
static void
print_base_rtts (VlmccSim * sim)
{
  VlmccSenderStats st;
  VlmccSimFeedback fb;

  for (guint i = 0; i < vlmcc_sim_n_receivers (sim); i++) {
    VlmccReceiverStats rs;

    vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, i), &rs);
    printf ("  receiver %u: START rtt %.2f ms (hold %.2f ms, %"
        G_GUINT64_FORMAT " starts), base %.2f ms at the end\n", i,
        vlmcc_sim_receiver_start_rtt (sim, i) / 1e6, rs.start_hold / 1e6,
        rs.starts, rs.base_rtt / 1e6);
  }
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  vlmcc_sim_feedback (sim, &fb);
  printf ("  sender: base %.2f ms at the end; STARTs sent %" G_GUINT64_FORMAT
      ", lost %" G_GUINT64_FORMAT "\n", st.base_rtt / 1e6, fb.starts_sent,
      fb.starts_dropped);
}

/* VLMCC_SIM_SENDER_READ_LAG=ms: the sender's loop reads feedback that
 * late (vlmcc_sim_set_sender_read_lag); VLMCC_SIM_START_HOLD_OFF=1: its
 * STARTs report no hold, as a sender before the field;
 * VLMCC_SIM_START_UNQUEUED=1: STARTs skip the queues;
 * VLMCC_SIM_FEEDBACK_QUEUED=1: feedback crosses the upstream queues. */
static void
sender_host_from_env (VlmccSim * sim)
{
  const gchar *lag = g_getenv ("VLMCC_SIM_SENDER_READ_LAG");
  const gchar *off = g_getenv ("VLMCC_SIM_START_HOLD_OFF");
  const gchar *unqueued = g_getenv ("VLMCC_SIM_START_UNQUEUED");
  const gchar *fb_queued = g_getenv ("VLMCC_SIM_FEEDBACK_QUEUED");

  if (lag)
    vlmcc_sim_set_sender_read_lag (sim, (gint64) (g_ascii_strtod (lag,
                NULL) * VSIM_MS));
  if (off)
    vlmcc_sim_set_start_hold_zeroed (sim, g_ascii_strtoull (off, NULL,
            10) != 0);
  if (unqueued)
    vlmcc_sim_set_start_unqueued (sim, g_ascii_strtoull (unqueued, NULL,
            10) != 0);
  if (fb_queued)
    vlmcc_sim_set_feedback_queued (sim, g_ascii_strtoull (fb_queued, NULL,
            10) != 0);
}

static void
run_alone (void)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccSenderStats st;
  guint64 drops[2];
  guint bottleneck;

  vlmcc_config_init (&cfg);
  sim = vlmcc_sim_new (&cfg, 1);
  bottleneck = vlmcc_sim_add_node (sim, 0, 1 * MBIT, 10 * VSIM_MS, 20);
  vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, bottleneck,
          10 * MBIT, VSIM_MS, 0), 0);
  vlmcc_sim_run (sim, 60 * VSIM_S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  printf ("alone: 1 Mbit/s bottleneck, 20-packet drop-tail queue, 60 s\n");
  print_rate (sim, 0, 10 * VSIM_S, 60 * VSIM_S);
  for (gint64 t = 0; t < 60 * VSIM_S; t += 10 * VSIM_S) {
    vlmcc_sim_link_drops (sim, bottleneck, t, t + 10 * VSIM_S, &drops[0],
        &drops[1]);
    printf ("  %2.0f-%2.0f s: %" G_GUINT64_FORMAT " packets dropped\n",
        t / 1e9, (t + 10 * VSIM_S) / 1e9, drops[0]);
  }
  printf ("  window %.1f, rtt %.1f ms, base %.1f ms, halvings %"
      G_GUINT64_FORMAT "\n", st.window, st.rtt / 1e6, st.base_rtt / 1e6,
      st.halvings);
  vlmcc_sim_free (sim);
}

static void
run_figure5 (void)
{
  VlmccConfig cfg;
  VlmccSim *sim;
  const GArray *lc;

  config_from_env (&cfg);
  sim = vlmcc_sim_figure5 (&cfg, 2);
  sender_host_from_env (sim);
  vlmcc_sim_run (sim, 60 * VSIM_S);
  printf ("figure5: receivers 0, 1 behind router 2; 2, 3 behind router 3\n");
  printf ("  cross traffic: router 2 500 kbit/s 10-25 s and 41-60 s; "
      "router 3 750 kbit/s 27-45 s\n");
  lc = vlmcc_sim_leader_changes (sim);
  for (guint i = 0; i < lc->len; i++) {
    VlmccSimLeaderChange *c = &g_array_index (lc, VlmccSimLeaderChange, i);

    printf ("  %7.3f s: leader %d\n", c->time / 1e9, c->rx);
  }
  for (gint64 t = 0; t < 60 * VSIM_S; t += 5 * VSIM_S)
    printf ("  %2.0f-%2.0f s: %.0f kbit/s, leader at end %d\n", t / 1e9,
        (t + 5 * VSIM_S) / 1e9,
        vlmcc_sim_receiver_bytes (sim, 0, t, t + 5 * VSIM_S) * 8.0 / 5e3,
        vlmcc_sim_leader_at (sim, t + 5 * VSIM_S - 1));
  print_base_rtts (sim);
  vlmcc_sim_free (sim);
}

/* The figure5 run as CSV: a "bin" row every 500 ms (5 of the receivers'
 * 100 ms byte bins) with the sender's announced rate at its end, each
 * receiver's rate over it and the leader at its end (-1: none); then a
 * "leader" row for each of the sender's LEADER events. */
static void
run_figure5_csv (void)
{
  const gint64 bin = 500 * VSIM_MS, end = 60 * VSIM_S;
  VlmccConfig cfg;
  VlmccSim *sim;
  const GArray *lc;
  guint n;

  config_from_env (&cfg);
  sim = vlmcc_sim_figure5 (&cfg, 2);
  sender_host_from_env (sim);
  n = vlmcc_sim_n_receivers (sim);
  printf ("kind,t_s,sender_kbit");
  for (guint i = 0; i < n; i++)
    printf (",rx%u_kbit", i);
  printf (",leader\n");
  for (gint64 t = bin; t <= end; t += bin) {
    VlmccSenderStats st;

    vlmcc_sim_run (sim, t);
    vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
    printf ("bin,%.1f,%.1f", t / 1e9, st.rate / 1e3);
    for (guint i = 0; i < n; i++)
      printf (",%.1f", vlmcc_sim_receiver_bytes (sim, i, t - bin, t) * 8.0 /
          (bin / 1e6));
    printf (",%d\n", vlmcc_sim_leader_at (sim, t));
  }
  lc = vlmcc_sim_leader_changes (sim);
  for (guint i = 0; i < lc->len; i++) {
    VlmccSimLeaderChange *c = &g_array_index (lc, VlmccSimLeaderChange, i);

    printf ("leader,%.3f,%d\n", c->time / 1e9, c->rx);
  }
  vlmcc_sim_free (sim);
}

/* Runs a one-receiver scenario for 60 s: the sender's stats, the data
 * packets dropped on the bottleneck (node 1), and the receiver's kbit/s
 * over 10-60 s. */
static gdouble
run_single_path (VlmccSim * sim, VlmccSenderStats * st, guint64 * dropped)
{
  guint64 drops[2];

  vlmcc_sim_run (sim, 60 * VSIM_S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), st);
  vlmcc_sim_link_drops (sim, 1, 0, 60 * VSIM_S, &drops[0], &drops[1]);
  *dropped = drops[0];
  return vlmcc_sim_receiver_bytes (sim, 0, 10 * VSIM_S, 60 * VSIM_S) * 8.0 /
      50e3;
}

static void
run_late_acks (void)
{
  static const gint64 stalls[] = { 150 * VSIM_MS, 300 * VSIM_MS };
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  printf ("late-acks: 10 Mbit/s, 20 ms, 100-packet queue; feedback jitter "
      "1 ms, stalls every 2 s, 60 s (3 seeds)\n");
  for (guint i = 0; i < G_N_ELEMENTS (stalls); i++) {
    for (guint64 seed = 1; seed <= 3; seed++) {
      VlmccSim *sim = vlmcc_sim_late_acks (&cfg, seed, stalls[i]);
      VlmccSenderStats st;
      guint64 dropped;
      gdouble kbit = run_single_path (sim, &st, &dropped);

      printf ("  stalls up to %3.0f ms, seed %" G_GUINT64_FORMAT ": %.0f "
          "kbit/s over 10-60 s, dropped %" G_GUINT64_FORMAT ", taken as "
          "lost %" G_GUINT64_FORMAT " (spurious %" G_GUINT64_FORMAT "), "
          "halvings %" G_GUINT64_FORMAT " (undone %" G_GUINT64_FORMAT "), "
          "leader given up %" G_GUINT64_FORMAT " (regained %"
          G_GUINT64_FORMAT ")\n", stalls[i] / 1e6, seed, kbit, dropped,
          st.lost, st.spurious_losses, st.halvings,
          st.halvings_undone, st.leader_losses, st.leaders_regained);
      vlmcc_sim_free (sim);
    }
  }
}

/* The same path with 5 Mbit/s of CBR on the bottleneck over 20-60 s: a
 * forward queue that is not ours, which every delay input must yield to. */
static void
run_ack_jitter_cross (VlmccConfig * cfg, const gchar ** delays, guint n)
{
  printf ("  with 5 Mbit/s CBR on the bottleneck over 20-60 s, seed 1:\n");
  for (guint d = 0; d < n; d++) {
    cfg->vegas_delay = d;
    for (gint64 jitter = 0; jitter <= 10 * VSIM_MS; jitter += 5 * VSIM_MS) {
      VlmccSim *sim = vlmcc_sim_ack_jitter (cfg, 1, jitter);
      VlmccSenderStats st;
      guint64 drops[2];

      vlmcc_sim_add_cross_traffic (sim, 1, 5 * MBIT, 1000, 20 * VSIM_S, -1,
          0, 0);
      vlmcc_sim_run (sim, 60 * VSIM_S);
      vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
      vlmcc_sim_link_drops (sim, 1, 30 * VSIM_S, 60 * VSIM_S, &drops[0],
          &drops[1]);
      printf ("  %-7s jitter %2.0f ms: %.0f kbit/s over 30-60 s, dropped %"
          G_GUINT64_FORMAT " (CBR %" G_GUINT64_FORMAT "), window %.0f, "
          "vegas rtt %.1f ms, base %.1f ms\n", delays[d], jitter / 1e6,
          vlmcc_sim_receiver_bytes (sim, 0, 30 * VSIM_S, 60 * VSIM_S) * 8.0 /
          30e3, drops[0], drops[1], st.window, st.vegas_rtt / 1e6,
          st.base_rtt / 1e6);
      vlmcc_sim_free (sim);
    }
  }
}

static void
print_ack_jitter_run (const VlmccConfig * cfg, const gchar * delay,
    gint64 jitter, guint64 seed)
{
  VlmccSim *sim = vlmcc_sim_ack_jitter (cfg, seed, jitter);
  VlmccSenderStats st;
  guint64 dropped;
  gdouble kbit = run_single_path (sim, &st, &dropped);

  printf ("  %-7s jitter %2.0f ms, seed %" G_GUINT64_FORMAT ": %.0f "
      "kbit/s over 10-60 s, dropped %" G_GUINT64_FORMAT ", halvings %"
      G_GUINT64_FORMAT " (undone %" G_GUINT64_FORMAT "), window %.0f, "
      "rtt %.1f ms, base %.1f ms, vegas rtt %.1f ms\n", delay, jitter / 1e6,
      seed, kbit, dropped, st.halvings, st.halvings_undone, st.window,
      st.rtt / 1e6, st.base_rtt / 1e6, st.vegas_rtt / 1e6);
  vlmcc_sim_free (sim);
}

static void
run_ack_jitter (void)
{
  static const gint64 jitters[] = { 0, 2 * VSIM_MS, 5 * VSIM_MS,
    10 * VSIM_MS
  };
  static const gchar *delays[] = { "rtt", "min-rtt", "forward" };
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  printf ("ack-jitter: 10 Mbit/s, 20 ms, 100-packet queue; feedback "
      "jitter only, 60 s (3 seeds)\n");
  for (guint d = 0; d < G_N_ELEMENTS (delays); d++) {
    cfg.vegas_delay = d;
    for (guint j = 0; j < G_N_ELEMENTS (jitters); j++)
      for (guint64 seed = 1; seed <= 3; seed++)
        print_ack_jitter_run (&cfg, delays[d], jitters[j], seed);
  }
  run_ack_jitter_cross (&cfg, delays, G_N_ELEMENTS (delays));
}

#define SKEW_RUN (120 * VSIM_S)

/* The leader's clock @ppm off, up to @jitter on the feedback, 120 s: the
 * session's rate and the sender's Vegas over the last 60 s. */
static void
print_skew_leader (const VlmccConfig * cfg, const gchar * delay, gdouble ppm,
    gint64 jitter)
{
  VlmccSim *sim = vlmcc_sim_skew (cfg, 1, ppm, jitter, NULL);
  VlmccSenderStats st;
  guint64 drops[2];

  vlmcc_sim_run (sim, SKEW_RUN);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  vlmcc_sim_link_drops (sim, 1, 0, SKEW_RUN, &drops[0], &drops[1]);
  printf ("  %-7s leader %+5.0f ppm, jitter %2.0f ms: %.0f kbit/s over "
      "60-120 s, dropped %" G_GUINT64_FORMAT ", halvings %" G_GUINT64_FORMAT
      ", window %.0f, rtt %.1f ms, base %.1f ms, vegas rtt %.1f ms, forward "
      "queue %.2f ms\n", delay, ppm, jitter / 1e6,
      vlmcc_sim_receiver_bytes (sim, 0, 60 * VSIM_S, SKEW_RUN) * 8.0 / 60e3,
      drops[0], st.halvings, st.window, st.rtt / 1e6, st.base_rtt / 1e6,
      st.vegas_rtt / 1e6, st.forward_queue / 1e6);
  vlmcc_sim_free (sim);
}

/* A follower's clock @ppm off (CBR on its branch from @cbr_start): its
 * estimate at the end, its challenges, and when it first led after the
 * CBR began. */
static void
print_skew_follower (const VlmccConfig * cfg, gdouble ppm, gint64 cbr_start)
{
  VlmccSimSkewFollower f = { ppm, cbr_start };
  VlmccSim *sim = vlmcc_sim_skew (cfg, 1, 0, 0, &f);
  VlmccSenderStats st;
  VlmccReceiverStats fr;
  gint64 led = -1;

  vlmcc_sim_run (sim, SKEW_RUN);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, 1), &fr);
  for (gint64 t = cbr_start; cbr_start >= 0 && t < SKEW_RUN;
      t += 10 * VSIM_MS)
    if (vlmcc_sim_leader_at (sim, t) == 1) {
      led = t - cbr_start;
      break;
    }
  printf ("  follower %+5.0f ppm%s: receiver 0 %.0f kbit/s over 60-120 s, "
      "follower rtt %.1f ms, base %.1f ms, window %.1f, challenges %"
      G_GUINT64_FORMAT ", leader changes %" G_GUINT64_FORMAT, ppm,
      cbr_start >= 0 ? ", CBR from 60 s" : "",
      vlmcc_sim_receiver_bytes (sim, 0, 60 * VSIM_S, SKEW_RUN) * 8.0 / 60e3,
      fr.rtt / 1e6, fr.base_rtt / 1e6, fr.window, fr.challenges_sent,
      st.leader_changes);
  if (cbr_start >= 0)
    printf (", leads %.2f s after the CBR began", led / 1e9);
  printf ("\n");
  vlmcc_sim_free (sim);
}

/* A follower's clock @ppm off, no CBR, the first 10 s: before its skew
 * estimate is ready (5 s) a fast clock reads as a queue building. */
static void
print_skew_start (const VlmccConfig * cfg, gdouble ppm)
{
  VlmccSimSkewFollower f = { ppm, -1 };
  VlmccSim *sim = vlmcc_sim_skew (cfg, 1, 0, 0, &f);
  VlmccSenderStats st;
  VlmccReceiverStats fr;

  vlmcc_sim_run (sim, 10 * VSIM_S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, 1), &fr);
  printf ("  follower %+5.0f ppm, 0-10 s: challenges %" G_GUINT64_FORMAT
      ", elections %" G_GUINT64_FORMAT ", leader at 10 s %d, receiver 0 "
      "%.0f kbit/s over 5-10 s\n", ppm, fr.challenges_sent, st.elections,
      vlmcc_sim_leader_at (sim, 10 * VSIM_S),
      vlmcc_sim_receiver_bytes (sim, 0, 5 * VSIM_S, 10 * VSIM_S) * 8.0 /
      5e3);
  vlmcc_sim_free (sim);
}

/* VLMCC_SIM_START_ANCHOR=1: the receivers' start_anchor;
 * VLMCC_SIM_RTT_MIN_WINDOW=RTTs: their rtt_min_window;
 * VLMCC_SIM_CHALLENGE_CONFIRM=RTTs: their challenge_confirm;
 * VLMCC_SIM_VEGAS_ACK_CLOCK=1: the sender's vegas_ack_clock. */
static void
config_from_env (VlmccConfig * cfg)
{
  const gchar *anchor = g_getenv ("VLMCC_SIM_START_ANCHOR");
  const gchar *window = g_getenv ("VLMCC_SIM_RTT_MIN_WINDOW");
  const gchar *confirm = g_getenv ("VLMCC_SIM_CHALLENGE_CONFIRM");
  const gchar *ack_clock = g_getenv ("VLMCC_SIM_VEGAS_ACK_CLOCK");

  vlmcc_config_init (cfg);
  if (ack_clock)
    cfg->vegas_ack_clock = g_ascii_strtoull (ack_clock, NULL, 10) != 0;
  if (anchor)
    cfg->start_anchor = g_ascii_strtoull (anchor, NULL, 10) != 0;
  if (window)
    cfg->rtt_min_window = g_ascii_strtod (window, NULL);
  if (confirm)
    cfg->challenge_confirm = g_ascii_strtod (confirm, NULL);
}

static void
run_skew (void)
{
  static const gdouble ppms[] = { 0, 100, -100, 1000, -1000 };
  /* and past the early doubt's old 1000 ppm, up to the estimate's range */
  static const gdouble start_ppms[] = { 0, 100, -100, 1000, -1000, 1500,
    2000, 3000
  };
  static const gchar *delays[] = { "rtt", "min-rtt", "forward" };
  VlmccConfig cfg;

  config_from_env (&cfg);
  printf ("skew: 10 Mbit/s, 20 ms, 100-packet queue, clocks 4290 s ahead, "
      "120 s\n");
  for (guint d = 0; d < G_N_ELEMENTS (delays); d += 2) {
    cfg.vegas_delay = d;
    for (gint64 jitter = 0; jitter <= 5 * VSIM_MS; jitter += 5 * VSIM_MS)
      for (guint p = 0; p < G_N_ELEMENTS (ppms); p++)
        print_skew_leader (&cfg, delays[d], ppms[p], jitter);
  }
  printf (" a follower on a 12 Mbit/s, 1 ms branch:\n");
  cfg.vegas_delay = VLMCC_VEGAS_DELAY_RTT;
  for (guint p = 0; p < G_N_ELEMENTS (start_ppms); p++)
    print_skew_start (&cfg, start_ppms[p]);
  for (guint p = 0; p < G_N_ELEMENTS (ppms); p++)
    print_skew_follower (&cfg, ppms[p], -1);
  for (guint p = 0; p < G_N_ELEMENTS (ppms); p++)
    print_skew_follower (&cfg, ppms[p], 60 * VSIM_S);
}

static void
print_membership (const VlmccConfig * cfg, guint64 seed)
{
  VlmccSimChurnRun run;

  vlmcc_sim_membership_churn (cfg, seed, &run);
  printf ("  seed %" G_GUINT64_FORMAT ": elections %" G_GUINT64_FORMAT
      " (least gap %.0f ms), challenges %" G_GUINT64_FORMAT " (accepted %"
      G_GUINT64_FORMAT ", refused in hold-off %" G_GUINT64_FORMAT "), "
      "leader losses %" G_GUINT64_FORMAT " (regained %" G_GUINT64_FORMAT
      "), unsettled at most %" G_GUINT64_FORMAT ", elections off the "
      "tightest branch %u (on A %u)\n", seed, run.end.elections,
      run.min_election_gap / 1e6, run.challenges, run.end.accepted,
      run.end.refused_holdoff, run.end.leader_losses,
      run.end.leaders_regained, run.unsettled, run.misplaced, run.loosest);
  vlmcc_sim_print_churn_spans (&run, "    ");
  printf ("    all gone at 70 s: window %.0f, %.0f kbit/s announced; at "
      "80 s: window %.0f, %.0f kbit/s\n", run.at_empty.window,
      run.at_empty.rate / 1e3, run.empty_end.window,
      run.empty_end.rate / 1e3);
}

static void
print_random_churn (const VlmccConfig * cfg, guint n, guint64 seed)
{
  VlmccSimRandomChurn run;

  vlmcc_sim_random_churn (cfg, seed, n, &run);
  printf ("  N %3u, seed %" G_GUINT64_FORMAT ": right leader %.3f of the "
      "time, none %.3f, longest without the right one %.2f s; elections %u "
      "(least gap %.0f ms), challenges %" G_GUINT64_FORMAT " (refused in "
      "hold-off %" G_GUINT64_FORMAT "), probes %" G_GUINT64_FORMAT ", acks %"
      G_GUINT64_FORMAT ", unsettled at most %" G_GUINT64_FORMAT "\n", n, seed,
      run.right, run.leaderless, run.longest_wrong / 1e9, run.elections,
      run.min_election_gap / 1e6, run.fb.challenges, run.end.refused_holdoff,
      run.fb.probes, run.fb.acks, run.unsettled);
}

static void
run_membership (int argc, char **argv)
{
  VlmccConfig cfg;
  const gchar *limit = g_getenv ("VLMCC_SIM_LEADERLESS_LIMIT");
  const gchar *volunteer = g_getenv ("VLMCC_SIM_VOLUNTEER_AFTER");

  config_from_env (&cfg);
  if (limit)
    cfg.leaderless_growth_limit = g_ascii_strtod (limit, NULL);
  if (volunteer)
    cfg.volunteer_after = g_ascii_strtod (volunteer, NULL);
  printf ("membership (leaderless-growth-limit %g, volunteer-after %g%s): "
      "branches of 10, 4, 2, 1 Mbit/s behind 20 Mbit/s; "
      "joins, silent leaves, 90 s\n", cfg.leaderless_growth_limit,
      cfg.volunteer_after, cfg.start_anchor ? ", start-anchor" : "");
  if (argc > 2)
    for (gint i = 2; i < argc; i++)
      print_membership (&cfg, g_ascii_strtoull (argv[i], NULL, 10));
  else
    for (guint64 seed = 1; seed <= 3; seed++)
      print_membership (&cfg, seed);
  printf ("random churn: the same branches (A 70 %%, B 20, C 8, D 2 %% of "
      "the receivers), joins over 0-60 s, lives of mean 20 s, the leader "
      "leaves every 7 s, 90 s\n");
  for (guint n = 30; n <= 300; n *= 10) {
    if (argc > 2)
      for (gint i = 2; i < argc; i++)
        print_random_churn (&cfg, n, g_ascii_strtoull (argv[i], NULL, 10));
    else
      for (guint64 seed = 1; seed <= 3; seed++)
        print_random_churn (&cfg, n, seed);
  }
}

static void
print_churn (const gchar * what, guint64 seed, gboolean echo,
    gint64 start_jitter)
{
  static const guint ns[] = { 10, 30, 100, 300, 1000 };
  const gchar *delay = g_getenv ("VLMCC_SIM_CHALLENGE_DELAY");
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  cfg.challenge_echo = echo;
  if (delay)
    cfg.challenge_delay = g_ascii_strtod (delay, NULL);
  printf ("scale, churn%s, seed %" G_GUINT64_FORMAT ": 10 branches of "
      "2 Mbit/s behind 10 Mbit/s, CBR on/off into branches 0 and 5, "
      "feedback over 10-60 s\n", what, seed);
  printf ("  %6s %10s %10s %10s %10s %12s %10s %8s %9s\n", "N", "acks",
      "challenges", "probes", "media", "per RTT", "peak/100ms", "leaders",
      "kbit/s");
  for (guint i = 0; i < G_N_ELEMENTS (ns); i++) {
    VlmccSimChurn c;
    gdouble per_rtt = vlmcc_sim_scale_churn_with (&cfg, ns[i], seed,
        start_jitter, &c);

    printf ("  %6u %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
        G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %12.2f %10"
        G_GUINT64_FORMAT " %8u %9.0f\n", ns[i], c.fb.acks, c.fb.challenges,
        c.fb.probes, c.fb.media_sent, per_rtt, c.peak_challenges,
        c.leader_changes, c.kbit);
  }
}

static void
run_scale (void)
{
  static const guint ns[] = { 10, 30, 100, 300, 1000 };

  printf ("scale: feedback at the sender over 10-30 s, 2 Mbit/s bottleneck\n");
  printf ("  %6s %10s %10s %10s %10s %12s\n", "N", "acks", "challenges",
      "probes", "media", "per RTT");
  for (guint i = 0; i < G_N_ELEMENTS (ns); i++) {
    VlmccSimFeedback fb;
    gdouble per_rtt = vlmcc_sim_scale_feedback (ns[i], 3, &fb);

    printf ("  %6u %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
        G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %12.2f\n", ns[i], fb.acks,
        fb.challenges, fb.probes, fb.media_sent, per_rtt);
  }
  print_churn ("", 3, FALSE, 0);
}

/* run_scale's figures as CSV, one row per scenario and N: "quiet" (one
 * bottleneck, 10-30 s), "churn" and "churn-echo" (the worst branch moves,
 * 10-60 s; the paper's followers and with the challenge echo), seed 3;
 * for the N on the command line (vlmcc-sim scale-csv N...; 10, 30, 100,
 * 300 and 1000 by default). */
static void
run_scale_csv (int argc, char **argv)
{
  static const guint def[] = { 10, 30, 100, 300, 1000 };
  guint n = argc > 2 ? (guint) argc - 2 : G_N_ELEMENTS (def);
  guint *ns = g_new (guint, n);
  VlmccConfig cfg;

  for (guint i = 0; i < n; i++)
    ns[i] = argc > 2 ? (guint) g_ascii_strtoull (argv[i + 2], NULL, 10) :
        def[i];
  vlmcc_config_init (&cfg);
  printf ("scenario,n,acks,challenges,probes,other,media,per_rtt,"
      "peak_challenges_100ms,leader_changes\n");
  for (guint i = 0; i < n; i++) {
    VlmccSimFeedback fb;
    gdouble per_rtt = vlmcc_sim_scale_feedback (ns[i], 3, &fb);

    printf ("quiet,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
        G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%.3f,,\n", ns[i], fb.acks, fb.challenges, fb.probes, fb.other,
        fb.media_sent, per_rtt);
  }
  for (guint echo = 0; echo <= 1; echo++) {
    cfg.challenge_echo = echo;
    for (guint i = 0; i < n; i++) {
      VlmccSimChurn c;
      gdouble per_rtt = vlmcc_sim_scale_churn_with (&cfg, ns[i], 3, 0, &c);

      printf ("%s,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
          G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
          ",%.3f,%" G_GUINT64_FORMAT ",%u\n", echo ? "churn-echo" : "churn",
          ns[i], c.fb.acks, c.fb.challenges, c.fb.probes, c.fb.other,
          c.fb.media_sent, per_rtt, c.peak_challenges, c.leader_changes);
    }
  }
  g_free (ns);
}

/* The churn sweep with the challenge echo on and off, for the seeds on the
 * command line (vlmcc-sim scale-echo SEED...; 3 and 4 by default). */
static void
run_scale_echo (int argc, char **argv)
{
  static const gchar *def[] = { "3", "4" };
  const gchar **seeds = argc > 2 ? (const gchar **) argv + 2 : def;
  guint n = argc > 2 ? (guint) argc - 2 : G_N_ELEMENTS (def);
  const gchar *env = g_getenv ("VLMCC_SIM_START_JITTER");
  gint64 jitter = env ? g_ascii_strtoll (env, NULL, 10) * VSIM_MS : 0;

  for (guint i = 0; i < n; i++) {
    guint64 seed = g_ascii_strtoull (seeds[i], NULL, 10);

    print_churn (" (paper)", seed, FALSE, jitter);
    print_churn (" with the challenge echo", seed, TRUE, jitter);
  }
}

static void
print_share (const VlmccConfig * cfg, const gchar * what,
    AqmDiscipline discipline, guint n_tcp, guint64 seed)
{
  static const gchar *names[] = { "drop-tail", "RED", "CoDel" };
  VlmccSimShare r;

  vlmcc_sim_aqm_share (cfg, seed, discipline, n_tcp, &r);
  printf ("  %-10s %-9s %u %4" G_GUINT64_FORMAT " %7.0f %7.0f %6.3f %5.2f "
      "%6" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " %5" G_GUINT64_FORMAT
      " %8" G_GUINT64_FORMAT " %s\n", what, names[discipline], n_tcp, seed,
      r.kbit, r.tcp_kbit, r.jain, r.share, r.drops, r.halvings, r.switches,
      r.tcp_halvings, r.loss_based ? "loss" : "vegas");
}

/* VLMCC beside Reno-like flows and alone through drop-tail, RED and CoDel
 * (vlmcc-sim aqm [SEED...]; 1 to 3 by default), the paper's Vegas, Vegas+
 * with the held-queue test alone and with the AQM rule
 * (VLMCC_SIM_PLUS_LOSS_EPOCHS sets its plus_loss_epochs). */
static void
run_aqm (int argc, char **argv)
{
  static const gchar *def[] = { "1", "2", "3" };
  const gchar **seeds = argc > 2 ? (const gchar **) argv + 2 : def;
  guint n = argc > 2 ? (guint) argc - 2 : G_N_ELEMENTS (def);
  VlmccConfig cfg[3];
  static const gchar *what[] = { "paper", "held-only", "vegas-plus" };
  const gchar *quiet = g_getenv ("VLMCC_SIM_PLUS_LOSS_EPOCHS");

  for (guint c = 0; c < 3; c++) {
    vlmcc_config_init (&cfg[c]);
    cfg[c].vegas_plus = c > 0;
    cfg[c].plus_loss_mode = VLMCC_PLUS_LOSS_RENO;
  }
  cfg[1].plus_loss_epochs = 0;
  if (quiet)
    cfg[2].plus_loss_epochs = (guint) g_ascii_strtoull (quiet, NULL, 10);
  printf ("aqm: 2 Mbit/s, 20 ms, 25-packet queue; rates over 15-60 s\n");
  printf ("  %-10s %-9s %s %4s %7s %7s %6s %5s %6s %6s %5s %8s %s\n",
      "scheme", "queue", "N", "seed", "kbit/s", "tcp", "f", "share",
      "drops", "halv", "sw", "tcp-halv", "mode");
  for (guint d = AQM_DROPTAIL; d <= AQM_CODEL; d++)
    for (guint n_tcp = 0; n_tcp <= 1; n_tcp++)
      for (guint c = 0; c < 3; c++)
        for (guint i = 0; i < n; i++)
          print_share (&cfg[c], what[c], d, n_tcp,
              g_ascii_strtoull (seeds[i], NULL, 10));
}

/* One line of run_cubic: the medians of f over means, f per 1 s and the
 * share over the seeds, the shares' range, and the session's bottleneck
 * drops and halvings per run. */
#define CUBIC_MAX_SEEDS 16

static void
print_cubic_case (const VlmccConfig * cfg, const gchar * what,
    const VlmccSimShareBed * bed, const gchar ** seeds, guint n)
{
  static const gchar *queues[] = { "drop-tail", "RED", "CoDel" };
  gdouble f[CUBIC_MAX_SEEDS], fw[CUBIC_MAX_SEEDS], sh[CUBIC_MAX_SEEDS];
  gdouble lo = G_MAXDOUBLE, hi = 0.0;
  guint64 drops = 0, halvings = 0;
  VlmccSimShare r;

  n = MIN (n, CUBIC_MAX_SEEDS);
  for (guint i = 0; i < n; i++) {
    vlmcc_sim_share (cfg, g_ascii_strtoull (seeds[i], NULL, 10), bed, &r);
    f[i] = r.jain;
    fw[i] = r.jain_window;
    sh[i] = r.share;
    lo = MIN (lo, r.share);
    hi = MAX (hi, r.share);
    drops += r.drops;
    halvings += r.halvings;
  }
  printf ("  %4.0f %-9s %u %-5s %-12s %.3f %.3f %.2f (%.2f-%.2f) %5.1f %5.1f\n",
      bed->rate / 1e6, queues[bed->discipline], bed->n_tcp,
      bed->cc == VLMCC_SIM_TCP_CUBIC ? "cubic" : "reno", what,
      sim_median (f, n), sim_median (fw, n), sim_median (sh, n), lo, hi,
      (gdouble) drops / n, (gdouble) halvings / n);
  fflush (stdout);
}

/* The session beside CUBIC-like and Reno-like flows (vlmcc-sim cubic
 * [SEED...]; 1 to 3 by default): Vegas+ with the reno, the cubic and the
 * cubic-linux loss-based mode, and one more flow in the session's place (the
 * reference), on the namespace bench's cases. */
static void
run_cubic (int argc, char **argv)
{
  static const gchar *def[] = { "1", "2", "3" };
  const gchar **seeds = argc > 2 ? (const gchar **) argv + 2 : def;
  guint n = argc > 2 ? (guint) argc - 2 : G_N_ELEMENTS (def);
  static const VlmccSimShareBed beds[] = {
    {10000000, AQM_DROPTAIL, 1, VLMCC_SIM_TCP_CUBIC, FALSE},
    {10000000, AQM_DROPTAIL, 2, VLMCC_SIM_TCP_CUBIC, FALSE},
    {10000000, AQM_DROPTAIL, 4, VLMCC_SIM_TCP_CUBIC, FALSE},
    {10000000, AQM_DROPTAIL, 1, VLMCC_SIM_TCP_RENO, FALSE},
    {2000000, AQM_DROPTAIL, 1, VLMCC_SIM_TCP_CUBIC, FALSE},
    {2000000, AQM_DROPTAIL, 2, VLMCC_SIM_TCP_CUBIC, FALSE},
    {2000000, AQM_DROPTAIL, 1, VLMCC_SIM_TCP_RENO, FALSE},
    {2000000, AQM_RED, 1, VLMCC_SIM_TCP_CUBIC, FALSE},
    {2000000, AQM_CODEL, 1, VLMCC_SIM_TCP_CUBIC, FALSE},
    {2000000, AQM_DROPTAIL, 0, VLMCC_SIM_TCP_CUBIC, FALSE},
  };
  static const gchar *what[] = { "vplus", "vplus-cubic", "vplus-cubic-l",
    "reference"
  };
  VlmccConfig cfg[3];

  for (guint c = 0; c < 3; c++) {
    vlmcc_config_init (&cfg[c]);
    cfg[c].vegas_plus = TRUE;
  }
  cfg[0].plus_loss_mode = VLMCC_PLUS_LOSS_RENO;
  cfg[1].plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC;
  cfg[2].plus_loss_mode = VLMCC_PLUS_LOSS_CUBIC_LINUX;
  printf ("cubic: 20 ms, 100 ms of queue; rates over 15-60 s; medians over "
      "%u seeds\n", n);
  printf ("  %4s %-9s %s %-5s %-12s %5s %5s %s %5s %5s\n", "Mbit", "queue",
      "N", "cc", "scheme", "f", "f/1s", "share (range)", "drops", "halv");
  for (guint b = 0; b < G_N_ELEMENTS (beds); b++)
    for (guint c = 0; c < 4; c++) {
      VlmccSimShareBed bed = beds[b];

      if (c == 3 && bed.n_tcp == 0)
        continue;
      bed.reference = c == 3;
      print_cubic_case (&cfg[MIN (c, 2)], what[c], &bed, seeds, n);
    }
}

int
main (int argc, char **argv)
{
  const gchar *what = argc > 1 ? argv[1] : "all";

  if (!strcmp (what, "alone") || !strcmp (what, "all"))
    run_alone ();
  if (!strcmp (what, "figure5") || !strcmp (what, "all"))
    run_figure5 ();
  if (!strcmp (what, "figure5-csv"))
    run_figure5_csv ();
  if (!strcmp (what, "scale") || !strcmp (what, "all"))
    run_scale ();
  if (!strcmp (what, "scale-csv"))
    run_scale_csv (argc, argv);
  if (!strcmp (what, "scale-echo") || !strcmp (what, "all"))
    run_scale_echo (argc, argv);
  if (!strcmp (what, "late-acks") || !strcmp (what, "all"))
    run_late_acks ();
  if (!strcmp (what, "ack-jitter") || !strcmp (what, "all"))
    run_ack_jitter ();
  if (!strcmp (what, "membership") || !strcmp (what, "all"))
    run_membership (argc, argv);
  if (!strcmp (what, "skew") || !strcmp (what, "all"))
    run_skew ();
  if (!strcmp (what, "aqm") || !strcmp (what, "all"))
    run_aqm (argc, argv);
  if (!strcmp (what, "cubic") || !strcmp (what, "all"))
    run_cubic (argc, argv);
  return 0;
}
