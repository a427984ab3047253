/* The GF(2^16) repair code's region op, old against new on the same run:
 * the code before (erasure16-before.c: 4-bit tables built entry by entry,
 * then SSSE3) against today's at each vector width, SSSE3 (16 bytes),
 * AVX2 (32) and AVX-512BW (64) where the machine has them, and the
 * portable op. Encode: ROWS parity rows of a block of 2048 packets of
 * 1 KiB (the server's cost, a row at a time); decode: 2 MiB in that block
 * after 10 % random losses, rebuilt from as many rows (the receiver's).
 * MB/s of the data bytes coded, thread CPU time, median of RUNS runs, the
 * variants taking turns within each run; every row and every decoded
 * packet is checked to be the same bytes as the code before gives. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/erasure16.h"

gboolean before_erasure16_encode (guint k, const guint8 * const *data,
    gsize len, guint row, guint8 * parity);
gboolean before_erasure16_decode (guint k, guint8 ** data,
    const gboolean * have, gsize len, guint n_parity, const guint * rows,
    const guint8 * const *parity);

#define K 2048
#define LEN 1024
#define RUNS 7
#define LOSS 0.1
#define ROWS 16

#define BEFORE G_MAXUINT
static const guint widths[] = { BEFORE, 16, 32, 64, 0 };
static const gchar *const names[] = { "before (SSSE3)", "SSSE3", "AVX2",
  "AVX-512BW", "portable"
};

#define N_WIDTHS G_N_ELEMENTS (widths)

static gdouble
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds to encode rows @row .. @row + ROWS - 1 into @out (ROWS x LEN),
 * by the code before or today's. */
static gdouble
time_encode (gboolean before, guint8 ** d, guint row, guint8 * out)
{
  gdouble t = cpu_now ();

  for (guint i = 0; i < ROWS; i++)
    if (!(before ? before_erasure16_encode : erasure16_encode) (K,
            (const guint8 * const *) d, LEN, row + i, out + i * LEN))
      g_error ("encode failed");
  return cpu_now () - t;
}

/* Seconds to rebuild the packets @have says are lost from @rows; checks
 * them against @d. */
static gdouble
time_decode (gboolean before, guint8 ** d, const gboolean * have, guint lost,
    guint * rows, guint8 ** parity)
{
  guint8 **data = g_new (guint8 *, K);
  gdouble t;

  for (guint i = 0; i < K; i++)
    data[i] = have[i] ? g_memdup2 (d[i], LEN) : g_malloc0 (LEN);
  t = cpu_now ();
  if (!(before ? before_erasure16_decode : erasure16_decode) (K, data, have,
          LEN, lost, rows, (const guint8 * const *) parity))
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
        before_erasure16_encode (K, (const guint8 * const *) d, LEN, lost,
            parity[lost]);
        lost++;
      }
    time_encode (TRUE, d, 7 + run, ref);
    for (guint w = 0; w < N_WIDTHS; w++) {
      gboolean before = widths[w] == BEFORE;

      if (!before)
        erasure16_set_vector_width (widths[w]);
      enc[w][run] = time_encode (before, d, 7 + run, row);
      if (memcmp (row, ref, ROWS * LEN) != 0)
        g_error ("%s: rows from %u differ from the code before", names[w],
            7 + run);
      dec[w][run] = time_decode (before, d, have, lost, rows, parity);
    }
    for (guint i = 0; i < lost; i++)
      g_free (parity[i]);
    g_free (parity);
    g_free (rows);
    g_free (have);
  }
  printf ("| region op | encode %d rows of 2048 x 1 KiB | MB/s | decode 2 MiB "
      "at 10 %% | MB/s | × before (encode / decode) |\n"
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
