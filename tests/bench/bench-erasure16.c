/* The receiver's and the server's CPU for repair by parity of 2 MiB (2048
 * packets of 1 KiB) at 10 % loss: blocks of 128 over GF(2^8) (the
 * default) against one block of 2048 over GF(2^16) (docs/results.md,
 * RMTP parity by GF(2^16)). The receiver decodes every block it lost
 * packets of, with as many rows as it lost; the server encodes one row.
 * Medians of 5 runs, each with its own random losses, in CPU time.
 * Blocks over 255 are also decoded by the incremental decoder: its whole
 * CPU and its CPU after the last row, without and with the rows expected
 * as the packets come (parity-expect-rows; issue 20, docs/results.md "RMTP:
 * parity decoded as rows arrive").
 * Usage: bench-erasure16 [BLOCK ...] (default 128 2048; up to 8 sizes,
 * the first the reference of the ratios). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/erasure.h"
#include "core/erasure16.h"
#include "bench-cpu.h"

#define PACKETS 2048
#define LEN 1024
#define RUNS 5
#define MAX_BLOCKS 8

static guint8 **
new_data (GRand * r)
{
  guint8 **d = g_new (guint8 *, PACKETS);

  for (guint i = 0; i < PACKETS; i++) {
    d[i] = g_malloc (LEN);
    for (guint b = 0; b < LEN; b++)
      d[i][b] = (guint8) g_rand_int (r);
  }
  return d;
}

/* Decodes every block of @block packets after 10 % random losses; the
 * seconds it took, and the packets lost in @lost_out. */
static gdouble
decode_all (guint8 ** d, guint block, GRand * r, guint * lost_out)
{
  gboolean wide = block > ERASURE_MAX_BLOCK;
  gdouble secs = 0.0;

  *lost_out = 0;
  for (guint first = 0; first < PACKETS; first += block) {
    guint k = MIN (block, PACKETS - first), lost = 0;
    gboolean *have = g_new (gboolean, k);
    guint *rows = g_new (guint, k);
    guint8 **parity = g_new (guint8 *, k);
    guint8 **data = g_new (guint8 *, k);
    gdouble t;

    for (guint i = 0; i < k; i++) {
      have[i] = g_rand_double (r) >= 0.1;
      data[i] = g_memdup2 (d[first + i], LEN);
    }
    for (guint i = 0; i < k; i++)
      if (!have[i]) {
        rows[lost] = lost;
        parity[lost] = g_malloc (LEN);
        if (wide)
          erasure16_encode (k, (const guint8 * const *) data, LEN, lost,
              parity[lost]);
        else
          erasure_encode (k, (const guint8 * const *) data, LEN, lost,
              parity[lost]);
        lost++;
      }
    for (guint i = 0; i < k; i++)
      if (!have[i])
        memset (data[i], 0, LEN);
    t = cpu_now ();
    if (lost && !(wide ? erasure16_decode (k, data, have, LEN, lost, rows,
                (const guint8 * const *) parity) : erasure_decode (k, data,
                have, LEN, lost, rows, (const guint8 * const *) parity)))
      g_error ("decode failed");
    secs += cpu_now () - t;
    for (guint i = 0; i < k; i++)
      if (memcmp (data[i], d[first + i], LEN) != 0)
        g_error ("decoded packet %u differs", first + i);
    *lost_out += lost;
    for (guint i = 0; i < lost; i++)
      g_free (parity[i]);
    for (guint i = 0; i < k; i++)
      g_free (data[i]);
    g_free (data);
    g_free (parity);
    g_free (rows);
    g_free (have);
  }
  return secs;
}

/* The same losses decoded by the incremental decoder (GF(2^16) blocks):
 * the packets held, then the rows one by one; its whole CPU, and in
 * @after the CPU from the last row on (that row and handing over). */
static gdouble
decode_all_incremental (guint8 ** d, guint block, GRand * r, gboolean expect,
    gdouble * after)
{
  gdouble secs = 0.0;

  *after = 0.0;
  for (guint first = 0; first < PACKETS; first += block) {
    guint k = MIN (block, PACKETS - first), lost = 0;
    gboolean *have = g_new (gboolean, k);
    guint8 *parity = g_malloc (LEN);
    Erasure16Decoder *dec = erasure16_decoder_new (k, LEN);
    gdouble t = cpu_now (), t_last = t;

    for (guint i = 0; i < k; i++) {
      have[i] = g_rand_double (r) >= 0.1;
      if (have[i])
        erasure16_decoder_add_data (dec, i, d[first + i], LEN);
      lost += !have[i];
      /* as rmtpcore's parity-expect-rows does */
      if (expect && lost)
        erasure16_decoder_expect_rows (dec, lost + lost / 4 + 4);
    }
    for (guint row = 0; row < lost; row++) {
      /* encoding the row is the sender's work, not timed */
      secs += cpu_now () - t;
      erasure16_encode (k, (const guint8 * const *) (d + first), LEN, row,
          parity);
      t = cpu_now ();
      if (row == lost - 1)
        t_last = t;
      erasure16_decoder_add_row (dec, row, parity);
    }
    for (guint i = 0; i < k; i++)
      if (!have[i]) {
        guint8 *x = erasure16_decoder_take (dec, i);

        if (!x || memcmp (x, d[first + i], LEN) != 0)
          g_error ("incremental: packet %u differs", first + i);
        g_free (x);
      }
    secs += cpu_now () - t;
    if (lost)
      *after += cpu_now () - t_last;
    erasure16_decoder_free (dec);
    g_free (parity);
    g_free (have);
  }
  return secs;
}

/* A block size from the command line: 1 to 2048 packets, and over 255
 * only as GF(2^16) allows it. */
static guint
block_arg (const gchar * arg)
{
  guint64 b = g_ascii_strtoull (arg, NULL, 10);

  if (b < 1 || b > PACKETS)
    g_error ("block %s: give 1 to %d packets", arg, PACKETS);
  return (guint) b;
}

static gdouble
encode_row (guint8 ** d, guint block)
{
  guint8 *parity = g_malloc (LEN);
  gdouble t = cpu_now ();

  if (block > ERASURE_MAX_BLOCK)
    erasure16_encode (block, (const guint8 * const *) d, LEN, 7, parity);
  else
    erasure_encode (block, (const guint8 * const *) d, LEN, 7, parity);
  t = cpu_now () - t;
  g_free (parity);
  return t;
}

int
main (int argc, char **argv)
{
  GRand *r = g_rand_new_with_seed (1);
  guint8 **d = new_data (r);
  guint blocks[MAX_BLOCKS] = { 128, 2048 }, n = 2;
  gdouble dec[MAX_BLOCKS][RUNS], enc[MAX_BLOCKS][RUNS];
  gdouble inc[MAX_BLOCKS][RUNS], inc_after[MAX_BLOCKS][RUNS];
  gdouble exp_all[MAX_BLOCKS][RUNS], exp_after[MAX_BLOCKS][RUNS];
  gdouble med_dec[MAX_BLOCKS], med_enc[MAX_BLOCKS];
  guint lost = 0;

  if (argc > 1) {
    n = MIN ((guint) argc - 1, MAX_BLOCKS);
    for (guint b = 0; b < n; b++)
      blocks[b] = block_arg (argv[b + 1]);
  }
  for (guint run = 0; run < RUNS; run++)
    for (guint b = 0; b < n; b++) {
      dec[b][run] = decode_all (d, blocks[b], r, &lost);
      enc[b][run] = encode_row (d, blocks[b]);
      inc[b][run] = inc_after[b][run] = 0.0;
      exp_all[b][run] = exp_after[b][run] = 0.0;
      if (blocks[b] > ERASURE_MAX_BLOCK) {
        inc[b][run] = decode_all_incremental (d, blocks[b], r, FALSE,
            &inc_after[b][run]);
        exp_all[b][run] = decode_all_incremental (d, blocks[b], r, TRUE,
            &exp_after[b][run]);
      }
    }
  for (guint b = 0; b < n; b++) {
    med_dec[b] = median (dec[b], RUNS);
    med_enc[b] = median (enc[b], RUNS);
  }
  printf ("| code | block | receiver: decode 2 MiB at 10 %% | server: one row "
      "| × the first (decode / row) |\n|---|---|---|---|---|\n");
  for (guint b = 0; b < n; b++)
    printf ("| %s | %u | %.1f ms | %.3f ms | %.1f / %.1f |\n",
        blocks[b] > ERASURE_MAX_BLOCK ? "GF(2^16)" : "GF(2^8)", blocks[b],
        med_dec[b] * 1e3, med_enc[b] * 1e3, med_dec[b] / med_dec[0],
        med_enc[b] / med_enc[0]);
  printf ("# medians of %d runs, the blocks taking turns; the last run lost "
      "%u packets\n", RUNS, lost);
  printf ("\n| block | one-shot: decode (all after the last row) | "
      "incremental: all / after the last row | with rows expected: all / "
      "after the last row |\n|---|---|---|---|\n");
  for (guint b = 0; b < n; b++)
    if (blocks[b] > ERASURE_MAX_BLOCK)
      printf ("| %u | %.2f ms | %.2f / %.3f ms | %.2f / %.3f ms |\n",
          blocks[b], med_dec[b] * 1e3, median (inc[b], RUNS) * 1e3,
          median (inc_after[b], RUNS) * 1e3, median (exp_all[b], RUNS) * 1e3,
          median (exp_after[b], RUNS) * 1e3);
  for (guint i = 0; i < PACKETS; i++)
    g_free (d[i]);
  g_free (d);
  g_rand_free (r);
  return 0;
}
