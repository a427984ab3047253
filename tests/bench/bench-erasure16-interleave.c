/* Why the incremental GF(2^16) decoder cost more CPU on the bed at 32
 * receivers than alone (issue 20, docs/results.md "RMTP: parity decoding
 * off the loop thread"). R receivers of one block of 2048 packets of
 * 1 KiB, each with its own copy of the data and its own 10 % losses, in
 * one thread. The rows go out in turn, row j to every receiver before row
 * j + 1, as on the bed where 32 processes take the same multicast row one
 * after the other:
 *   incremental: each receiver reduces the row as it comes (its pass over
 *     the 2 MiB it holds follows the passes of the other receivers);
 *   one-shot: each receiver decodes once it has all its rows, one after
 *     the other.
 *   incremental in batches of 16 (erasure16_decoder_set_batch): as the
 *     first, but a receiver's pass over its packets serves 16 rows.
 * Prints the CPU per receiver (median of RUNS) for each R, and the region
 * products per row, so a cost that grows with R (the held packets no
 * longer in cache between two rows) shows against one that does not.
 * Usage: bench-erasure16-interleave [-k BLOCK] [-e MIB] [-w] [R ...] (default:
 * block 2048; 1 4 32 receivers). BLOCK is 256 to 8192 packets; the last
 * column scales the batches' figure to 2 MiB (2048 / BLOCK blocks) so
 * block sizes compare on one transfer. -e writes MIB MiB of another
 * buffer before each receiver's turn (each row it takes; its one-shot
 * decode), as the bed's other processes do to the caches between two
 * turns of one receiver; that time is not counted. -w then reads the
 * field's log and exp tables back in (through erasure16_gf_mul and
 * erasure16_gf_inv, every element), as if they were shared with the
 * processes that ran between; not counted either. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "core/erasure16.h"
#include "bench-cpu.h"

#define LEN 1024
#define RUNS 3
#define MAX_ARGS 8
#define BATCH 16

/* packets a block: -k */
static guint K = 2048;

/* -e: bytes written between two turns, and the CPU that took */
static gsize evict_bytes;
static guint8 *evict_buf;
static gdouble evict_secs;
/* -w: the field's tables read back in after each eviction */
static gboolean warm_tables;

static void
evict (void)
{
  gdouble t;

  if (!evict_bytes)
    return;
  t = cpu_now ();
  for (gsize i = 0; i < evict_bytes; i += 64)
    evict_buf[i]++;
  if (warm_tables) {
    guint16 x = 0;

    for (guint a = 1; a < 65536; a++)
      x ^= erasure16_gf_mul ((guint16) a, (guint16) a) ^
          erasure16_gf_inv ((guint16) a);
    evict_buf[0] ^= (guint8) x;
  }
  evict_secs += cpu_now () - t;
}

typedef struct {
  guint8 **data;                /* K packets, NULL where lost */
  guint lost;
  Erasure16Decoder *dec;
} Receiver;

static void
receiver_init (Receiver * r, guint8 ** src, GRand * rng)
{
  r->data = g_new0 (guint8 *, K);
  r->lost = 0;
  for (guint i = 0; i < K; i++) {
    if (g_rand_double (rng) < 0.1) {
      r->lost++;
      continue;
    }
    r->data[i] = g_memdup2 (src[i], LEN);
  }
  r->dec = NULL;
}

static void
receiver_clear (Receiver * r)
{
  for (guint i = 0; i < K; i++)
    g_free (r->data[i]);
  g_free (r->data);
  erasure16_decoder_free (r->dec);
}

/* The rows 0 .. most - 1 of the block. */
static guint8 **
make_rows (guint8 ** src, guint most)
{
  guint8 **rows = g_new (guint8 *, most);

  for (guint j = 0; j < most; j++) {
    rows[j] = g_malloc (LEN);
    erasure16_encode (K, (const guint8 * const *) src, LEN, j, rows[j]);
  }
  return rows;
}

static gdouble
run_incremental (Receiver * rx, guint n, guint8 ** rows, guint most,
    guint batch, guint64 * ops)
{
  gdouble t = cpu_now (), evicted = evict_secs;

  *ops = 0;
  for (guint i = 0; i < n; i++) {
    erasure16_decoder_free (rx[i].dec);
    rx[i].dec = erasure16_decoder_new (K, LEN);
    erasure16_decoder_set_batch (rx[i].dec, batch);
    for (guint p = 0; p < K; p++)
      if (rx[i].data[p])
        erasure16_decoder_add_data (rx[i].dec, p, rx[i].data[p], LEN);
  }
  for (guint j = 0; j < most; j++)
    for (guint i = 0; i < n; i++)
      if (j < rx[i].lost) {
        evict ();
        erasure16_decoder_add_row (rx[i].dec, j, rows[j]);
      }
  for (guint i = 0; i < n; i++) {
    if (erasure16_decoder_missing (rx[i].dec) != 0)
      g_error ("incremental: receiver %u not solved", i);
    *ops += erasure16_decoder_region_ops (rx[i].dec);
  }
  return cpu_now () - t - (evict_secs - evicted);
}

static gdouble
run_one_shot (Receiver * rx, guint n, guint8 ** rows)
{
  gdouble secs = 0.0;

  for (guint i = 0; i < n; i++) {
    guint8 **data = g_new (guint8 *, K);
    gboolean *have = g_new (gboolean, K);
    guint *idx = g_new (guint, rx[i].lost);
    gdouble t;

    for (guint p = 0; p < K; p++) {
      have[p] = rx[i].data[p] != NULL;
      data[p] = have[p] ? rx[i].data[p] : g_malloc0 (LEN);
    }
    for (guint j = 0; j < rx[i].lost; j++)
      idx[j] = j;
    evict ();
    t = cpu_now ();
    if (!erasure16_decode (K, data, have, LEN, rx[i].lost, idx,
            (const guint8 * const *) rows))
      g_error ("one-shot: receiver %u failed", i);
    secs += cpu_now () - t;
    for (guint p = 0; p < K; p++)
      if (!have[p])
        g_free (data[p]);
    g_free (data);
    g_free (have);
    g_free (idx);
  }
  return secs;
}

int
main (int argc, char **argv)
{
  guint counts[MAX_ARGS] = { 1, 4, 32 }, n_counts = 3;
  GRand *rng = g_rand_new_with_seed (3);
  guint8 **src, **rows;
  guint most, first = 1;

  for (; (guint) argc > first && argv[first][0] == '-'; first += 2) {
    guint v;

    if (strcmp (argv[first], "-w") == 0) {
      warm_tables = TRUE;
      first--;
      continue;
    }
    if ((guint) argc <= first + 1)
      g_error ("%s needs a value", argv[first]);
    v = (guint) g_ascii_strtoull (argv[first + 1], NULL, 10);
    if (strcmp (argv[first], "-k") == 0)
      K = CLAMP (v, 256, 8192);
    else if (strcmp (argv[first], "-e") == 0)
      evict_bytes = (gsize) MIN (v, 1024) << 20;
    else
      g_error ("unknown option %s", argv[first]);
  }
  evict_buf = evict_bytes ? g_malloc0 (evict_bytes) : NULL;
  if ((guint) argc > first) {
    n_counts = MIN ((guint) argc - first, MAX_ARGS);
    for (guint a = 0; a < n_counts; a++)
      counts[a] = MAX (1, (guint) g_ascii_strtoull (argv[a + first], NULL,
              10));
  }
  src = g_new (guint8 *, K);
  most = K / 5;
  for (guint p = 0; p < K; p++) {
    src[p] = g_malloc (LEN);
    for (guint b = 0; b < LEN; b++)
      src[p][b] = (guint8) g_rand_int (rng);
  }
  rows = make_rows (src, most);
  printf ("block %u packets of %u bytes, 10 %% loss a receiver, %"
      G_GSIZE_FORMAT " MiB written between turns%s\n\n", K, LEN,
      evict_bytes >> 20, warm_tables ? ", field tables read back in" : "");
  printf ("| receivers | one-shot, ms a receiver | incremental, ms a receiver "
      "| incremental / one-shot | batches of %u, ms a receiver | batches / "
      "one-shot | region products a row (incremental) | batches, ms a "
      "receiver for 2 MiB |\n|---|---|---|---|---|---|---|---|\n", BATCH);
  for (guint a = 0; a < n_counts; a++) {
    guint n = counts[a];
    gdouble one[RUNS], inc[RUNS], bat[RUNS];
    guint64 ops = 0, total_rows = 0;

    for (guint run = 0; run < RUNS; run++) {
      Receiver *rx = g_new (Receiver, n);

      for (guint i = 0; i < n; i++) {
        receiver_init (&rx[i], src, rng);
        if (rx[i].lost > most)
          g_error ("receiver lost %u, over %u rows", rx[i].lost, most);
      }
      /* the arms take turns */
      one[run] = run_one_shot (rx, n, rows) / n;
      inc[run] = run_incremental (rx, n, rows, most, 1, &ops) / n;
      bat[run] = run_incremental (rx, n, rows, most, BATCH, &ops) / n;
      total_rows = 0;
      for (guint i = 0; i < n; i++) {
        total_rows += rx[i].lost;
        receiver_clear (&rx[i]);
      }
      g_free (rx);
    }
    printf ("| %u | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.1f |\n", n,
        median (one, RUNS) * 1e3, median (inc, RUNS) * 1e3,
        median (inc, RUNS) / median (one, RUNS), median (bat, RUNS) * 1e3,
        median (bat, RUNS) / median (one, RUNS),
        (gdouble) ops / MAX (total_rows, 1),
        median (bat, RUNS) * 1e3 * 2048 / K);
  }
  for (guint p = 0; p < K; p++)
    g_free (src[p]);
  for (guint j = 0; j < most; j++)
    g_free (rows[j]);
  g_free (rows);
  g_free (src);
  g_free (evict_buf);
  g_rand_free (rng);
  return 0;
}
