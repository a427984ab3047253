/* Speed of the Reed-Solomon erasure code (gst/common/core/erasure.c) with
 * each of its region implementations side by side: the reference (the
 * loop the code had first: a row of products by logarithms on every call,
 * then a byte at a time), the portable product table (4 bytes a step) and
 * SSSE3 split tables (16 bytes a step, where the machine has it).
 *
 * For blocks of k data packets of len bytes and m parity rows (RMTP's
 * parity repair: k = 128, 1024-byte packets):
 *   encode MB/s = k x len x m / time to compute the m parity rows
 *   decode MB/s = k x len / time to rebuild m lost packets of the block
 * Each cell is the median of --reps runs (5); the implementations take
 * turns within each repetition and rotate who goes first, so a burst of
 * load on a shared machine falls on all of them. Every decode is checked
 * against the original data.
 *
 * Options: --reps N, --seconds S (time of one measurement, 0.2).
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/erasure.h"

#define MAX_REPS 31

typedef struct
{
  guint k;
  gsize len;
  guint m;
} Cell;

static const Cell cells[] = {
  {128, 1024, 13},              /* RMTP, 10 % loss */
  {128, 1024, 2},               /* RMTP, 1 % loss */
  {16, 1400, 4},
};

static const ErasureImpl impls[] = {
  ERASURE_IMPL_REFERENCE, ERASURE_IMPL_PORTABLE, ERASURE_IMPL_SSSE3,
};

static const gchar *const impl_names[] = { "reference", "portable",
  "ssse3"
};

static gint opt_reps = 5;
static gdouble opt_seconds = 0.2;

typedef struct
{
  guint k, m;
  gsize len;
  guint8 **data, **work, **parity;
  guint *rows;
  gboolean *have;
} Block;

static void
block_init (Block * b, const Cell * c)
{
  GRand *r = g_rand_new_with_seed (c->k * 1000 + c->m);

  b->k = c->k;
  b->m = c->m;
  b->len = c->len;
  b->data = g_new (guint8 *, c->k);
  b->work = g_new (guint8 *, c->k);
  b->parity = g_new (guint8 *, c->m);
  b->rows = g_new (guint, c->m);
  b->have = g_new (gboolean, c->k);
  for (guint i = 0; i < c->k; i++) {
    b->data[i] = g_malloc (c->len);
    b->work[i] = g_malloc (c->len);
    for (gsize j = 0; j < c->len; j++)
      b->data[i][j] = (guint8) g_rand_int (r);
    /* m losses spread evenly over the block */
    b->have[i] = i % (c->k / c->m) != 0 || i / (c->k / c->m) >= c->m;
  }
  for (guint j = 0; j < c->m; j++) {
    b->parity[j] = g_malloc (c->len);
    b->rows[j] = j;
  }
  g_rand_free (r);
}

static guint
block_lost (const Block * b)
{
  guint n = 0;

  for (guint i = 0; i < b->k; i++)
    n += !b->have[i];
  return n;
}

static void
free_packets (guint8 ** p, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (p[i]);
  g_free (p);
}

static void
block_clear (Block * b)
{
  free_packets (b->data, b->k);
  free_packets (b->work, b->k);
  free_packets (b->parity, b->m);
  g_free (b->rows);
  g_free (b->have);
}

static void
encode_all (Block * b)
{
  for (guint j = 0; j < b->m; j++)
    erasure_encode (b->k, (const guint8 * const *) b->data, b->len,
        b->rows[j], b->parity[j]);
}

static void
decode_once (Block * b)
{
  for (guint i = 0; i < b->k; i++)
    if (b->have[i])
      memcpy (b->work[i], b->data[i], b->len);
  if (!erasure_decode (b->k, b->work, b->have, b->len, b->m, b->rows,
          (const guint8 * const *) b->parity))
    g_error ("decode refused");
}

static void
check_decoded (const Block * b)
{
  for (guint i = 0; i < b->k; i++)
    if (memcmp (b->work[i], b->data[i], b->len) != 0)
      g_error ("packet %u not repaired", i);
}

/* MB/s of @bytes of work per call of @fn, over about opt_seconds */
static gdouble
rate (void (*fn) (Block *), Block * b, gdouble bytes)
{
  gint64 t0 = g_get_monotonic_time (), t;
  guint n = 0;

  do {
    fn (b);
    n++;
    t = g_get_monotonic_time ();
  } while (t - t0 < opt_seconds * 1e6);
  return bytes * n / ((t - t0) / 1e6) / 1e6;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
run_cell (const Cell * c, gboolean * avail, guint n_impl)
{
  Block b;
  gdouble enc[G_N_ELEMENTS (impls)][MAX_REPS];
  gdouble dec[G_N_ELEMENTS (impls)][MAX_REPS];
  gdouble bytes = (gdouble) c->k * c->len;

  block_init (&b, c);
  for (gint rep = 0; rep < opt_reps; rep++)
    for (guint t = 0; t < n_impl; t++) {
      guint i = (t + rep) % n_impl;

      if (!avail[i])
        continue;
      erasure_set_impl (impls[i]);
      enc[i][rep] = rate (encode_all, &b, bytes * c->m);
      dec[i][rep] = rate (decode_once, &b, bytes);
      check_decoded (&b);
    }
  printf ("| %u | %u | %u (%u lost) |", c->k, (guint) c->len, c->m,
      block_lost (&b));
  for (guint i = 0; i < n_impl; i++)
    if (avail[i])
      printf (" %.0f / %.0f |", median (enc[i], opt_reps),
          median (dec[i], opt_reps));
  for (guint i = 1; i < n_impl; i++)
    if (avail[i])
      printf (" %.1f / %.1f |", median (enc[i], opt_reps) /
          median (enc[0], opt_reps), median (dec[i], opt_reps) /
          median (dec[0], opt_reps));
  printf ("\n");
  fflush (stdout);
  block_clear (&b);
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"reps", 0, 0, G_OPTION_ARG_INT, &opt_reps, "Runs per cell (5)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt_seconds,
        "Time of one measurement (0.2)", "S"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- erasure code speed");
  GError *err = NULL;
  gboolean avail[G_N_ELEMENTS (impls)];
  ErasureImpl chosen = erasure_get_impl ();

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    g_error ("%s", err->message);
  g_option_context_free (ctx);
  opt_reps = CLAMP (opt_reps, 1, MAX_REPS);

  printf ("erasure code, encode / decode MB/s, median of %d; in use: %s\n\n",
      opt_reps, impl_names[chosen]);
  printf ("| k | len | parity rows |");
  for (guint i = 0; i < G_N_ELEMENTS (impls); i++) {
    avail[i] = erasure_set_impl (impls[i]);
    if (avail[i])
      printf (" %s |", impl_names[i]);
  }
  for (guint i = 1; i < G_N_ELEMENTS (impls); i++)
    if (avail[i])
      printf (" %s / reference |", impl_names[i]);
  printf ("\n|---|---|---|");
  for (guint i = 0; i < G_N_ELEMENTS (impls); i++)
    if (avail[i])
      printf ("%s", i ? "---|---|" : "---|");
  printf ("\n");
  for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
    run_cell (&cells[c], avail, G_N_ELEMENTS (impls));
  erasure_set_impl (chosen);
  return 0;
}
