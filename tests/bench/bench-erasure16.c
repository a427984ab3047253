/* The receiver's and the server's CPU for repair by parity of 2 MiB (2048
 * packets of 1 KiB) at 10 % loss: blocks of 128 over GF(2^8) (the
 * default) against one block of 2048 over GF(2^16) (docs/results.md,
 * RMTP parity by GF(2^16)). The receiver decodes every block it lost
 * packets of, with as many rows as it lost; the server encodes one row.
 * Medians of 5 runs, each with its own random losses, in CPU time. */
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
main (void)
{
  GRand *r = g_rand_new_with_seed (1);
  guint8 **d = new_data (r);
  guint blocks[2] = { 128, 2048 };
  gdouble dec[2][RUNS], enc[2][RUNS], med_dec[2], med_enc[2];
  guint lost = 0;

  for (guint run = 0; run < RUNS; run++)
    for (guint b = 0; b < 2; b++) {
      dec[b][run] = decode_all (d, blocks[b], r, &lost);
      enc[b][run] = encode_row (d, blocks[b]);
    }
  for (guint b = 0; b < 2; b++) {
    med_dec[b] = median (dec[b], RUNS);
    med_enc[b] = median (enc[b], RUNS);
  }
  printf ("| code | block | receiver: decode 2 MiB at 10 %% | server: one row |\n"
      "|---|---|---|---|\n");
  printf ("| GF(2^8) | 128 | %.1f ms | %.3f ms |\n", med_dec[0] * 1e3,
      med_enc[0] * 1e3);
  printf ("| GF(2^16) | 2048 | %.1f ms | %.3f ms |\n", med_dec[1] * 1e3,
      med_enc[1] * 1e3);
  printf ("# ratio: decode %.1fx, one row %.1fx (medians of %d runs; the "
      "last run lost %u packets)\n", med_dec[1] / med_dec[0],
      med_enc[1] / med_enc[0], RUNS, lost);
  for (guint i = 0; i < PACKETS; i++)
    g_free (d[i]);
  g_free (d);
  g_rand_free (r);
  return 0;
}
