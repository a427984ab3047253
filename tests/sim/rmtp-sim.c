/* The RMTP scenario program: transfer time of 2 MB at 8 Mbit/s against the
 * number of receivers and the loss on each receiver link, next to the ARQ
 * bound and the ideal erasure code, with the server's responses per round.
 * Usage: rmtp-sim [--parity[=K]] [--window=W] [--size=S] [N ...] (default
 * 1 8 32 1000); --parity repairs by parity over blocks of K (default the
 * core's) data packets; --window=W sends in streaming mode, windows of W
 * bytes (the rows then give the windows and the most the server held);
 * --size=S sends S bytes instead of 2 MiB; --release-on-ack releases each
 * receiver as it ACKs; --early-repair sends the next round's repairs as
 * the NACKs arrive; --no-surplus sizes parity to the losses alone; --delta=D sets the backoff per receiver to D us;
 * --tat=T the turn-around allowance to T ms; --loss=P runs loss P (a
 * fraction) alone instead of 0, 1 and 10 %; --seed=S draws the losses
 * and backoffs from seed S (default 1); --incremental decodes a GF(2^16)
 * block as its rows arrive (parity-incremental), --expect-rows also with
 * its rows expected (parity-expect-rows). The last column splits the
 * repairs: how many of them were DATA resent (the rest are parity rows),
 * and in brackets the DATA sent by unicast to members served separately. */
#include <stdio.h>
#include <stdlib.h>

#include "rmtpsim.h"

static RmtpRepair repair = RMTP_REPAIR_RETRANSMIT;
static guint parity_block;
static guint64 window_size, size;
static gboolean release_on_ack, early_repair, no_surplus;
static gboolean incremental, expect_rows;
static gint64 delta, tat;
static guint64 seed = 1;

static void
print_row (guint n, gdouble loss)
{
  RmtpSimParams p;
  RmtpSimResult r;
  gdouble line;

  rmtp_sim_params_init (&p, n, loss);
  p.cfg.repair = repair;
  if (parity_block)
    p.cfg.parity_block = parity_block;
  p.cfg.window_size = window_size;
  if (size)
    p.size = size;
  p.cfg.release_on_ack = release_on_ack;
  p.cfg.early_repair = early_repair;
  p.cfg.parity_surplus = !no_surplus;
  p.cfg.parity_incremental = incremental || expect_rows;
  /* the flags ask for the incremental decoder at any GF(2^16) block */
  p.cfg.parity_incremental_min_block = 256;
  p.cfg.parity_expect_rows = expect_rows;
  if (delta)
    p.cfg.delta = delta;
  if (tat)
    p.cfg.tat = tat;
  p.seed = seed;
  rmtp_sim_run (&p, &r);
  line = rmtp_sim_line_time (p.size, p.cfg.rate);
  printf ("| %u | %.0f %% | %.2f s | %.2f s | %.2f s | %.2f s | %u | %u | "
      "%" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
      " | %u/%u | %u | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " (%"
      G_GUINT64_FORMAT ") |\n", n,
      loss * 100, r.transfer_time / 1e9, line,
      rmtp_sim_arq_bound (p.size, p.cfg.rate, n, loss),
      rmtp_sim_ideal_code (p.size, p.cfg.rate, loss), r.rounds,
      r.max_responses_per_round, r.response_drops, r.polls,
      r.data_resent + r.parity_sent, r.complete, n, r.windows, r.max_held,
      r.data_resent, r.unicast_data);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  static const guint defaults[] = { 1, 8, 32, 1000 };
  static const gdouble all_losses[] = { 0.0, 0.01, 0.10 };
  const gdouble *losses = all_losses;
  guint n_losses = G_N_ELEMENTS (all_losses);
  gdouble one_loss = 0.0;

  printf ("| receivers | loss | RMTP (sim) | line time | ARQ bound | "
      "ideal code | rounds | max responses/round | response drops | "
      "POLLs | repairs sent | complete | windows | most held (bytes) | "
      "of the repairs, DATA resent (DATA by unicast) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (; argc > 1 && g_str_has_prefix (argv[1], "--"); argv++, argc--) {
    if (g_str_has_prefix (argv[1], "--parity")) {
      repair = RMTP_REPAIR_PARITY;
      if (argv[1][8] == '=')
        parity_block = (guint) atoi (argv[1] + 9);
    } else if (g_str_has_prefix (argv[1], "--window=")) {
      window_size = g_ascii_strtoull (argv[1] + 9, NULL, 10);
    } else if (g_str_has_prefix (argv[1], "--size=")) {
      size = g_ascii_strtoull (argv[1] + 7, NULL, 10);
    } else if (g_str_equal (argv[1], "--release-on-ack")) {
      release_on_ack = TRUE;
    } else if (g_str_equal (argv[1], "--early-repair")) {
      early_repair = TRUE;
    } else if (g_str_equal (argv[1], "--no-surplus")) {
      no_surplus = TRUE;
    } else if (g_str_equal (argv[1], "--incremental")) {
      incremental = TRUE;
    } else if (g_str_equal (argv[1], "--expect-rows")) {
      expect_rows = TRUE;
    } else if (g_str_has_prefix (argv[1], "--delta=")) {
      delta = g_ascii_strtoll (argv[1] + 8, NULL, 10) * 1000;
    } else if (g_str_has_prefix (argv[1], "--tat=")) {
      tat = g_ascii_strtoll (argv[1] + 6, NULL, 10) * 1000000;
    } else if (g_str_has_prefix (argv[1], "--loss=")) {
      one_loss = g_ascii_strtod (argv[1] + 7, NULL);
      losses = &one_loss;
      n_losses = 1;
    } else if (g_str_has_prefix (argv[1], "--seed=")) {
      seed = g_ascii_strtoull (argv[1] + 7, NULL, 10);
    }
  }
  for (guint i = 0; i < (argc > 1 ? (guint) argc - 1 :
          G_N_ELEMENTS (defaults)); i++)
    for (guint l = 0; l < n_losses; l++)
      print_row (argc > 1 ? (guint) atoi (argv[i + 1]) : defaults[i],
          losses[l]);
  return 0;
}
