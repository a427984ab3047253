/* The GF(2^16) repair code's region op at each vector width on the same
 * run: SSSE3 (16 bytes), AVX2 (32) and AVX-512BW (64) where the machine
 * has them, against the portable op (a symbol at a time). Encode: ROWS parity rows of a block of 2048 packets of
 * 1 KiB (the server's cost, a row at a time); decode: 2 MiB in that block
 * after 10 % random losses, rebuilt from as many rows (the receiver's).
 * MB/s of the data bytes coded, thread CPU time, median of RUNS runs, the
 * variants taking turns within each run; every row and every decoded
 * packet is checked to be the same bytes as the portable op gives. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/erasure16.h"
#include "bench-cpu.h"

#define K 2048
#define LEN 1024
#define RUNS 7
#define LOSS 0.1
#define ROWS 16

/* the portable op first: the reference */
static const guint widths[] = { 0, 16, 32, 64 };
static const gchar *const names[] = { "portable", "SSSE3", "AVX2",
  "AVX-512BW"
};

#define N_WIDTHS G_N_ELEMENTS (widths)

/* Seconds to encode rows @row .. @row + ROWS - 1 into @out (ROWS x LEN). */
static gdouble
time_encode (guint8 ** d, guint row, guint8 * out)
{
  gdouble t = cpu_now ();

  for (guint i = 0; i < ROWS; i++)
    if (!erasure16_encode (K, (const guint8 * const *) d, LEN, row + i,
            out + i * LEN))
      g_error ("encode failed");
  return cpu_now () - t;
}

/* Seconds to rebuild the packets @have says are lost from @rows; checks
 * them against @d. */
static gdouble
time_decode (guint8 ** d, const gboolean * have, guint lost, guint * rows,
    guint8 ** parity)
{
  guint8 **data = g_new (guint8 *, K);
  gdouble t;

  for (guint i = 0; i < K; i++)
    data[i] = have[i] ? g_memdup2 (d[i], LEN) : g_malloc0 (LEN);
  t = cpu_now ();
  if (!erasure16_decode (K, data, have, LEN, lost, rows,
          (const guint8 * const *) parity))
    g_error ("decode failed");
  t = cpu_now () - t;
  for (guint i = 0; i < K; i++) {
    if (memcmp (data[i], d[i], LEN) != 0)
      g_error ("decoded packet %u differs", i);
    g_free (data[i]);
  }
  g_free (data);
  return t;
}

int
main (void)
{
  GRand *r = g_rand_new_with_seed (1);
  guint8 **d = g_new (guint8 *, K);
  gdouble enc[N_WIDTHS][RUNS], dec[N_WIDTHS][RUNS];
  guint8 *ref = g_malloc (ROWS * LEN), *row = g_malloc (ROWS * LEN);
  guint lost = 0;

  for (guint i = 0; i < K; i++) {
    d[i] = g_malloc (LEN);
    for (guint b = 0; b < LEN; b++)
      d[i][b] = (guint8) g_rand_int (r);
  }
  for (guint run = 0; run < RUNS; run++) {
    gboolean *have = g_new (gboolean, K);
    guint *rows = g_new (guint, K);
    guint8 **parity = g_new (guint8 *, K);

    lost = 0;
    for (guint i = 0; i < K; i++)
      if (!(have[i] = g_rand_double (r) >= LOSS)) {
        rows[lost] = lost;
        parity[lost] = g_malloc (LEN);
        erasure16_encode (K, (const guint8 * const *) d, LEN, lost,
            parity[lost]);
        lost++;
      }
    for (guint w = 0; w < N_WIDTHS; w++) {
      erasure16_set_vector_width (widths[w]);
      enc[w][run] = time_encode (d, 7 + run, w == 0 ? ref : row);
      if (w > 0 && memcmp (row, ref, ROWS * LEN) != 0)
        g_error ("%s: rows from %u differ from the portable op's", names[w],
            7 + run);
      dec[w][run] = time_decode (d, have, lost, rows, parity);
    }
    for (guint i = 0; i < lost; i++)
      g_free (parity[i]);
    g_free (parity);
    g_free (rows);
    g_free (have);
  }
  printf ("| region op | encode %d rows of 2048 x 1 KiB | MB/s | decode 2 MiB "
      "at 10 %% | MB/s | × portable (encode / decode) |\n"
      "|---|---|---|---|---|---|\n", ROWS);
  for (guint w = 0; w < N_WIDTHS; w++) {
    gdouble e = median (enc[w], RUNS), x = median (dec[w], RUNS);
    gdouble e0 = median (enc[0], RUNS), x0 = median (dec[0], RUNS);

    printf ("| %s | %.3f ms | %.0f | %.1f ms | %.1f | %.2f / %.2f |\n",
        names[w], e * 1e3, ROWS * K * LEN / e / 1e6, x * 1e3,
        K * LEN / x / 1e6,
        e0 / e, x0 / x);
  }
  printf ("# medians of %d runs, thread CPU time; the last run lost %u of "
      "%d packets; MB/s: the data bytes coded (2 MiB a row, 2 MiB a "
      "decode) over the time\n", RUNS, lost, K);
  for (guint i = 0; i < K; i++)
    g_free (d[i]);
  g_free (d);
  g_free (ref);
  g_free (row);
  g_rand_free (r);
  return 0;
}
