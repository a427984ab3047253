/* Unit tests of gst/common/core/erasure16.h: the field (every element's
 * inverse, the products against carry-less multiplication); round trips
 * of blocks over GF(2^8)'s limit with random erasures up to the parity
 * count, rows from the whole range, data and parity lost together; a
 * block of 2048 with 230 losses; refusals with nothing written. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "core/erasure16.h"

/* a * b modulo x^16 + x^12 + x^3 + x + 1, bit by bit */
static guint16
slow_mul (guint16 a, guint16 b)
{
  guint32 p = 0;

  for (guint i = 0; i < 16; i++)
    if (b & (1u << i))
      p ^= (guint32) a << i;
  for (gint i = 31; i >= 16; i--)
    if (p & (1u << i))
      p ^= 0x1100Bu << (i - 16);
  return (guint16) p;
}

GST_START_TEST (test_field)
{
  GRand *r = g_rand_new_with_seed (3);

  for (guint a = 1; a < 65536; a++)
    fail_unless_equals_int (erasure16_gf_mul (a, erasure16_gf_inv (a)), 1);
  fail_unless_equals_int (erasure16_gf_inv (0), 0);
  for (guint i = 0; i < 100000; i++) {
    guint16 a = g_rand_int (r), b = g_rand_int (r);

    fail_unless_equals_int (erasure16_gf_mul (a, b), slow_mul (a, b));
  }
  g_rand_free (r);
}

GST_END_TEST;

/* The tables are written at build time (erasure16-gentables.c): each of
 * their entries against the field's definition. x * 2 reads exp at every
 * log + 1 (1 .. 65535), x * 2^-1 at every log + 65534 (the doubled half),
 * x * 1 at every log; x^-1 is every inverse-table entry. */
GST_START_TEST (test_tables_match_the_field)
{
  const guint16 half = 0x8805;  /* x^15 + x^11 + x^2 + 1 = 1 / x */

  fail_unless_equals_int (slow_mul (half, 2), 1);
  for (guint a = 1; a < 65536; a++) {
    guint16 inv = erasure16_gf_inv (a);

    fail_unless_equals_int (erasure16_gf_mul (a, 1), a);
    fail_unless_equals_int (erasure16_gf_mul (a, 2), slow_mul (a, 2));
    fail_unless_equals_int (erasure16_gf_mul (a, half), slow_mul (a, half));
    fail_unless_equals_int (slow_mul (a, inv), 1);
  }
  fail_unless_equals_int (erasure16_gf_inv (0), 0);
  fail_unless_equals_int (erasure16_gf_mul (0, 7), 0);
}

GST_END_TEST;

typedef struct
{
  guint k;
  gsize len;
  guint8 **data, **orig;
  gboolean *have;
} Block;

static void
block_init (Block * b, guint k, gsize len, GRand * r)
{
  b->k = k;
  b->len = len;
  b->data = g_new (guint8 *, k);
  b->orig = g_new (guint8 *, k);
  b->have = g_new (gboolean, k);
  for (guint i = 0; i < k; i++) {
    b->data[i] = g_malloc (len);
    for (gsize x = 0; x < len; x++)
      b->data[i][x] = (guint8) g_rand_int (r);
    b->orig[i] = g_memdup2 (b->data[i], len);
    b->have[i] = TRUE;
  }
}

static void
block_clear (Block * b)
{
  for (guint i = 0; i < b->k; i++) {
    g_free (b->data[i]);
    g_free (b->orig[i]);
  }
  g_free (b->data);
  g_free (b->orig);
  g_free (b->have);
}

/* Loses @m distinct data packets at random (their buffers overwritten). */
static void
block_lose (Block * b, guint m, GRand * r)
{
  for (guint n = 0; n < m;) {
    guint i = g_rand_int_range (r, 0, b->k);

    if (!b->have[i])
      continue;
    b->have[i] = FALSE;
    memset (b->data[i], 0xA5, b->len);
    n++;
  }
}

static gboolean
block_whole (const Block * b)
{
  for (guint i = 0; i < b->k; i++)
    if (memcmp (b->data[i], b->orig[i], b->len) != 0)
      return FALSE;
  return TRUE;
}

/* @n distinct rows drawn from the whole range of a block of @k */
static guint *
draw_rows (guint k, guint n, GRand * r)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint *rows = g_new (guint, n);

  for (guint i = 0; i < n;) {
    guint row = g_rand_int_range (r, 0, erasure16_rows (k));

    if (g_hash_table_contains (seen, GUINT_TO_POINTER (row + 1)))
      continue;
    g_hash_table_add (seen, GUINT_TO_POINTER (row + 1));
    rows[i++] = row;
  }
  g_hash_table_unref (seen);
  return rows;
}

static guint8 **
encode_rows (const Block * b, const guint * rows, guint n)
{
  guint8 **p = g_new (guint8 *, n);

  for (guint i = 0; i < n; i++) {
    p[i] = g_malloc (b->len);
    fail_unless (erasure16_encode (b->k, (const guint8 * const *) b->orig,
            b->len, rows[i], p[i]));
  }
  return p;
}

static void
free_rows (guint8 ** p, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (p[i]);
  g_free (p);
}

/* @m losses among @k packets, repaired from @n >= m rows of which the
 * first @lost_rows were lost too (so the decoder gets n - lost_rows). */
static void
round_trip (guint k, gsize len, guint m, guint n, guint lost_rows,
    guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  Block b;
  guint *rows;
  guint8 **parity;

  block_init (&b, k, len, r);
  rows = draw_rows (k, n, r);
  parity = encode_rows (&b, rows, n);
  block_lose (&b, m, r);
  fail_unless (erasure16_decode (k, b.data, b.have, len, n - lost_rows,
          rows + lost_rows, (const guint8 * const *) parity + lost_rows),
      "k %u, %u lost, %u rows", k, m, n - lost_rows);
  fail_unless (block_whole (&b), "k %u, %u lost: not whole", k, m);
  free_rows (parity, n);
  g_free (rows);
  block_clear (&b);
  g_rand_free (r);
}

GST_START_TEST (test_round_trip_random_erasures)
{
  guint ks[] = { 1, 2, 7, 256, 300, 1000 };

  for (guint s = 0; s < 8; s++)
    for (guint x = 0; x < G_N_ELEMENTS (ks); x++) {
      guint k = ks[x];
      GRand *r = g_rand_new_with_seed (100 * s + x);
      guint m = g_rand_int_range (r, 1, MIN (k, 64) + 1);
      guint extra = g_rand_int_range (r, 0, 4);

      g_rand_free (r);
      round_trip (k, 2 * (1 + s), m, m + extra, extra, 100 * s + x);
    }
}

GST_END_TEST;

/* Every data packet lost: the rows alone give the block back. */
GST_START_TEST (test_all_data_lost)
{
  round_trip (40, 16, 40, 40, 0, 9);
}

GST_END_TEST;

/* The block the model asks for: 2048 packets, a receiver at 10 %
 * short of 230 of them. */
GST_START_TEST (test_block_of_2048)
{
  round_trip (2048, 8, 230, 240, 10, 11);
}

GST_END_TEST;

/* Row 65535 - k is the last; the data packets take the elements above. */
GST_START_TEST (test_rows_at_the_ends)
{
  GRand *r = g_rand_new_with_seed (5);
  guint k = 300, rows[3] = { 0, 65535 - 300, 12345 };
  Block b;
  guint8 **parity;

  fail_unless_equals_int (erasure16_rows (k), 65236);
  fail_unless_equals_int (erasure16_rows (0), 0);
  fail_unless_equals_int (erasure16_rows (65535), 1);
  fail_unless_equals_int (erasure16_rows (65536), 0);
  block_init (&b, k, 10, r);
  parity = encode_rows (&b, rows, 3);
  block_lose (&b, 3, r);
  fail_unless (erasure16_decode (k, b.data, b.have, 10, 3, rows,
          (const guint8 * const *) parity));
  fail_unless (block_whole (&b));
  free_rows (parity, 3);
  block_clear (&b);
  g_rand_free (r);
}

GST_END_TEST;

/* Too few rows, a row out of range, a row twice, an odd length: FALSE,
 * and the lost packets' buffers are left as they were. */
GST_START_TEST (test_refusals_write_nothing)
{
  GRand *r = g_rand_new_with_seed (6);
  guint k = 300, rows[4] = { 1, 2, 3, 4 };
  guint bad_range[3] = { 1, 2, 65536 - 300 };
  guint twice[3] = { 1, 2, 1 };
  guint8 **parity, scratch[10], marked[10];
  Block b;

  block_init (&b, k, 10, r);
  parity = encode_rows (&b, rows, 4);
  block_lose (&b, 3, r);
  memset (marked, 0xA5, sizeof (marked));
  fail_if (erasure16_decode (k, b.data, b.have, 10, 2, rows,
          (const guint8 * const *) parity));
  fail_if (erasure16_decode (k, b.data, b.have, 10, 3, bad_range,
          (const guint8 * const *) parity));
  fail_if (erasure16_decode (k, b.data, b.have, 10, 3, twice,
          (const guint8 * const *) parity));
  fail_if (erasure16_decode (k, b.data, b.have, 9, 3, rows,
          (const guint8 * const *) parity));
  for (guint i = 0; i < k; i++)
    if (!b.have[i])
      fail_unless (memcmp (b.data[i], marked, sizeof (marked)) == 0);
  fail_if (erasure16_encode (k, (const guint8 * const *) b.orig, 9, 0,
          scratch));
  fail_if (erasure16_encode (k, (const guint8 * const *) b.orig, 10,
          65536 - k, scratch));
  fail_unless (erasure16_decode (k, b.data, b.have, 10, 4, rows,
          (const guint8 * const *) parity));
  fail_unless (block_whole (&b));
  free_rows (parity, 4);
  block_clear (&b);
  g_rand_free (r);
}

GST_END_TEST;

/* A row is the sum of C[row][i] * data_i: one packet of symbol 1 at
 * index i gives C[row][i] = 1 / (row ^ (65535 - i)) in every symbol. */
GST_START_TEST (test_row_is_cauchy)
{
  guint k = 500;
  guint8 **d = g_new0 (guint8 *, k), parity[4];

  for (guint i = 0; i < k; i++)
    d[i] = g_malloc0 (4);
  d[321][1] = 1;
  d[321][3] = 1;
  fail_unless (erasure16_encode (k, (const guint8 * const *) d, 4, 777,
          parity));
  for (guint s = 0; s < 2; s++)
    fail_unless_equals_int ((parity[2 * s] << 8) | parity[2 * s + 1],
        erasure16_gf_inv (777 ^ (65535 - 321)));
  for (guint i = 0; i < k; i++)
    g_free (d[i]);
  g_free (d);
}

GST_END_TEST;

/* The AVX-512BW, AVX2 and SSSE3 region ops (64, 32, 16 symbols a step,
 * where the machine has them) and the portable one give the same rows,
 * at lengths with and without a tail of under 64, 32 and 16 symbols, and
 * the portable one decodes. */
GST_START_TEST (test_vector_and_portable_agree)
{
  GRand *r = g_rand_new_with_seed (12);
  gsize lens[] = { 2, 30, 32, 34, 62, 64, 66, 126, 128, 130, 190, 1024, 1026,
    1150
  };
  guint widths[] = { 64, 32, 16 };

  for (guint x = 0; x < G_N_ELEMENTS (lens); x++) {
    Block b;
    guint8 *p1 = g_malloc (lens[x]), *p2 = g_malloc (lens[x]);

    block_init (&b, 20, lens[x], r);
    for (guint row = 0; row < 40; row += 7) {
      erasure16_set_vector (FALSE);
      fail_unless (erasure16_encode (20, (const guint8 * const *) b.orig,
              lens[x], row * 1000, p2));
      for (guint w = 0; w < G_N_ELEMENTS (widths); w++) {
        erasure16_set_vector_width (widths[w]);
        fail_unless (erasure16_encode (20, (const guint8 * const *) b.orig,
                lens[x], row * 1000, p1));
        fail_unless (memcmp (p1, p2, lens[x]) == 0, "width %u, len %"
            G_GSIZE_FORMAT ", row %u", widths[w], lens[x], row * 1000);
      }
    }
    g_free (p1);
    g_free (p2);
    block_clear (&b);
  }
  erasure16_set_vector (FALSE);
  round_trip (300, 1026, 40, 40, 0, 13);
  erasure16_set_vector (TRUE);
  g_rand_free (r);
}

GST_END_TEST;

/* The incremental decoder fed a block's events in order: data packets
 * (@plen bytes each, the last maybe short) held from the start, then
 * @events: row j as j >= 0, late data packet i as -1 - i. */
static Erasure16Decoder *
feed (const Block * b, const gsize * plen, const gint * events, guint n_ev,
    const guint * rows, guint8 ** parity, const gboolean * held,
    guint expect, guint batch)
{
  Erasure16Decoder *d = erasure16_decoder_new (b->k, b->len);

  erasure16_decoder_set_batch (d, batch);
  /* rows 0 .. expect - 1 expected: half before the packets, all after */
  erasure16_decoder_expect_rows (d, expect / 2);
  for (guint i = 0; i < b->k; i++)
    if (held[i])
      fail_unless (erasure16_decoder_add_data (d, i, b->orig[i], plen[i]));
  erasure16_decoder_expect_rows (d, expect);
  for (guint e = 0; e < n_ev; e++) {
    if (events[e] >= 0)
      erasure16_decoder_add_row (d, rows[events[e]], parity[events[e]]);
    else
      fail_unless (erasure16_decoder_add_data (d, -1 - events[e],
              b->orig[-1 - events[e]], plen[-1 - events[e]]));
  }
  return d;
}

/* Random blocks, losses, late packets and row orders (some blocks with a
 * short odd last packet; some with rows 0, 1, ... of which the first were
 * expected, their held sums made as the packets came): whenever the rows suffice, the incremental
 * decoder gives the same bytes as erasure16_decode on the same packets
 * and rows, and the original; when they do not, it says how many are
 * missing and hands nothing over. Each case runs with the rows reduced
 * one by one and in batches of 4 (erasure16_decoder_set_batch). */
GST_START_TEST (test_incremental_matches_one_shot)
{
  guint ks[] = { 1, 2, 7, 64, 256, 300, 1000 };

  for (guint run = 0; run < 80; run++) {
    guint seed = run % 40, batch = run < 40 ? 1 : 4;
    GRand *r = g_rand_new_with_seed (700 + seed);
    guint k = ks[seed % G_N_ELEMENTS (ks)];
    gsize len = 2 * g_rand_int_range (r, 1, 40);
    guint m = g_rand_int_range (r, 1, MIN (k, 48) + 1);
    guint late = g_rand_int_range (r, 0, m + 1);
    /* from too few rows to a few more than needed */
    guint n = g_rand_int_range (r, m - late > 0 ? m - late - 1 : 0,
        m + 4);
    Block b;
    guint *rows, n_ev = 0, got, expect;
    guint8 **parity;
    gsize *plen = g_new (gsize, k);
    gboolean *held = g_new (gboolean, k);
    gint *events = g_new (gint, n + late);
    Erasure16Decoder *d;

    block_init (&b, k, len, r);
    for (guint i = 0; i < k; i++)
      plen[i] = len;
    if (seed % 3 == 0) {        /* the last packet short and odd */
      plen[k - 1] = 2 * g_rand_int_range (r, 0, len / 2) + 1;
      memset (b.orig[k - 1] + plen[k - 1], 0, len - plen[k - 1]);
      memcpy (b.data[k - 1], b.orig[k - 1], len);
    }
    rows = draw_rows (k, MAX (n, 1), r);
    expect = 0;
    if (seed % 4 == 1) {        /* the sender's rows, some expected */
      for (guint j = 0; j < MAX (n, 1); j++)
        rows[j] = MIN (j, erasure16_rows (k) - 1);
      expect = g_rand_int_range (r, 1, n + 3);
    }
    parity = encode_rows (&b, rows, MAX (n, 1));
    block_lose (&b, m, r);
    memcpy (held, b.have, k * sizeof (gboolean));
    /* the rows in order, the late packets put in at random places */
    for (guint j = 0; j < n; j++)
      events[n_ev++] = j;
    for (guint i = 0, l = 0; i < k && l < late; i++)
      if (!held[i]) {
        guint at = g_rand_int_range (r, 0, n_ev + 1);

        memmove (events + at + 1, events + at, (n_ev - at) * sizeof (gint));
        events[at] = -1 - (gint) i;
        n_ev++;
        l++;
        b.have[i] = TRUE;
        memcpy (b.data[i], b.orig[i], len);
      }
    d = feed (&b, plen, events, n_ev, rows, parity, held, expect, batch);
    got = 0;
    for (guint i = 0; i < k; i++)
      got += !b.have[i];
    if (erasure16_decoder_missing (d) > 0) {
      fail_unless (n < got, "seed %u: %u rows for %u lost, not solved",
          seed, n, got);
      fail_unless_equals_int (erasure16_decoder_missing (d), got - n);
      for (guint i = 0; i < k; i++)
        fail_unless (erasure16_decoder_take (d, i) == NULL);
    } else {
      Block one;
      guint8 **one_data = g_new (guint8 *, k);

      fail_unless (n >= got);
      /* the one-shot decoder on the same packets and rows */
      for (guint i = 0; i < k; i++)
        one_data[i] = g_memdup2 (b.data[i], len);
      one = b;
      one.data = one_data;
      fail_unless (erasure16_decode (k, one.data, b.have, len, n, rows,
              (const guint8 * const *) parity));
      for (guint i = 0; i < k; i++) {
        guint8 *x = erasure16_decoder_take (d, i);

        if (b.have[i]) {
          fail_unless (x == NULL);
          continue;
        }
        fail_unless (x != NULL, "seed %u: packet %u not handed over", seed,
            i);
        fail_unless (memcmp (x, one.data[i], len) == 0,
            "seed %u: packet %u differs from the one-shot decoder", seed, i);
        fail_unless (memcmp (x, b.orig[i], len) == 0);
        fail_unless (erasure16_decoder_take (d, i) == NULL);
        g_free (x);
      }
      for (guint i = 0; i < k; i++)
        g_free (one_data[i]);
      g_free (one_data);
    }
    erasure16_decoder_free (d);
    free_rows (parity, MAX (n, 1));
    g_free (rows);
    g_free (events);
    g_free (held);
    g_free (plen);
    block_clear (&b);
    g_rand_free (r);
  }
}

GST_END_TEST;

/* An expected row skips the batch; when it leaves the pending rows all
 * that is missing, they are reduced at once, so every lost packet can be
 * taken (fuzz-rmtp found a block that said nothing was missing and then
 * had no packet to hand over). */
GST_START_TEST (test_incremental_expected_row_flushes_batch)
{
  GRand *r = g_rand_new_with_seed (33);
  Block b;
  guint rows[] = { 5, 0, 1 };
  guint8 **parity;
  Erasure16Decoder *d;

  block_init (&b, 16, 32, r);
  parity = encode_rows (&b, rows, 3);
  d = erasure16_decoder_new (16, 32);
  erasure16_decoder_set_batch (d, 4);
  erasure16_decoder_expect_rows (d, 2);
  for (guint i = 0; i < 16; i++)
    if (i < 1 || i > 3)
      fail_unless (erasure16_decoder_add_data (d, i, b.orig[i], 32));
  for (guint j = 0; j < 3; j++)
    erasure16_decoder_add_row (d, rows[j], parity[j]);
  fail_unless_equals_int (erasure16_decoder_missing (d), 0);
  for (guint i = 1; i <= 3; i++) {
    guint8 *x = erasure16_decoder_take (d, i);

    fail_unless (x != NULL, "packet %u not handed over", i);
    fail_unless (memcmp (x, b.orig[i], 32) == 0);
    g_free (x);
  }
  erasure16_decoder_free (d);
  free_rows (parity, 3);
  block_clear (&b);
  g_rand_free (r);
}

GST_END_TEST;

/* Rows that add nothing are refused and dropped: a repeated row, one out
 * of range, rows beyond the losses, and a row whose only unknown packet
 * then arrives (its system shrinks, the block still decodes). */
GST_START_TEST (test_incremental_dependent_rows)
{
  GRand *r = g_rand_new_with_seed (21);
  Block b;
  guint rows[] = { 5, 9, 300, 1 };
  guint8 **parity;
  Erasure16Decoder *d;
  guint8 *x;

  block_init (&b, 100, 32, r);
  parity = encode_rows (&b, rows, 4);
  d = erasure16_decoder_new (100, 32);
  for (guint i = 0; i < 100; i++)
    if (i != 10 && i != 20)
      fail_unless (erasure16_decoder_add_data (d, i, b.orig[i], 32));
  fail_if (erasure16_decoder_add_data (d, 0, b.orig[0], 32));
  fail_if (erasure16_decoder_add_data (d, 100, b.orig[0], 32));
  fail_if (erasure16_decoder_add_data (d, 10, b.orig[10], 34));
  fail_if (erasure16_decoder_add_row (d, erasure16_rows (100), parity[0]));
  fail_unless (erasure16_decoder_add_row (d, rows[0], parity[0]));
  fail_if (erasure16_decoder_add_row (d, rows[0], parity[0]));
  fail_unless_equals_int (erasure16_decoder_missing (d), 1);
  fail_unless (erasure16_decoder_take (d, 10) == NULL);
  /* packet 20 comes: row 5 alone solves packet 10 */
  fail_unless (erasure16_decoder_add_data (d, 20, b.orig[20], 32));
  fail_unless_equals_int (erasure16_decoder_missing (d), 0);
  /* no more unknowns: further rows add nothing */
  fail_if (erasure16_decoder_add_row (d, rows[1], parity[1]));
  x = erasure16_decoder_take (d, 10);
  fail_unless (x && memcmp (x, b.orig[10], 32) == 0);
  g_free (x);
  fail_unless (erasure16_decoder_take (d, 20) == NULL);
  erasure16_decoder_free (d);

  /* two rows for two losses, then both packets come: both rows go */
  d = erasure16_decoder_new (100, 32);
  for (guint i = 0; i < 100; i++)
    if (i != 10 && i != 20)
      erasure16_decoder_add_data (d, i, b.orig[i], 32);
  fail_unless (erasure16_decoder_add_row (d, rows[2], parity[2]));
  fail_unless (erasure16_decoder_add_row (d, rows[3], parity[3]));
  fail_unless_equals_int (erasure16_decoder_missing (d), 0);
  fail_unless (erasure16_decoder_add_data (d, 10, b.orig[10], 32));
  fail_unless (erasure16_decoder_add_data (d, 20, b.orig[20], 32));
  fail_unless_equals_int (erasure16_decoder_missing (d), 0);
  fail_unless (erasure16_decoder_take (d, 10) == NULL);
  erasure16_decoder_free (d);
  fail_unless (erasure16_decoder_new (0, 32) == NULL);
  fail_unless (erasure16_decoder_new (100, 31) == NULL);
  free_rows (parity, 4);
  block_clear (&b);
  g_rand_free (r);
}

GST_END_TEST;

/* The block (2048 packets, 205 lost, rows 0 .. 204; @expect:
 * rows expected before the packets): the region products after the last
 * row, and in @all the whole decode's. */
static guint64
work_after_last_row (guint expect, guint batch, guint64 * all)
{
  GRand *r = g_rand_new_with_seed (31);
  const guint k = 2048, m = 205;
  Block b;
  guint rows[205];
  guint8 **parity;
  Erasure16Decoder *d;
  guint64 before;

  block_init (&b, k, 16, r);
  for (guint j = 0; j < m; j++)
    rows[j] = j;
  parity = encode_rows (&b, rows, m);
  block_lose (&b, m, r);
  d = erasure16_decoder_new (k, 16);
  erasure16_decoder_set_batch (d, batch);
  erasure16_decoder_expect_rows (d, expect);
  for (guint i = 0; i < k; i++)
    if (b.have[i])
      erasure16_decoder_add_data (d, i, b.orig[i], 16);
  for (guint j = 0; j + 1 < m; j++)
    fail_unless (erasure16_decoder_add_row (d, rows[j], parity[j]));
  fail_unless_equals_int (erasure16_decoder_missing (d), 1);
  before = erasure16_decoder_region_ops (d);
  fail_unless (erasure16_decoder_add_row (d, rows[m - 1], parity[m - 1]));
  fail_unless_equals_int (erasure16_decoder_missing (d), 0);
  *all = erasure16_decoder_region_ops (d);
  for (guint i = 0; i < k; i++)
    if (!b.have[i]) {
      guint8 *x = erasure16_decoder_take (d, i);

      fail_unless (x && memcmp (x, b.orig[i], 16) == 0);
      g_free (x);
    }
  erasure16_decoder_free (d);
  free_rows (parity, m);
  block_clear (&b);
  g_rand_free (r);
  return *all - before;
}

/* The last row leaves at most its own k - m products for the packets held
 * and 2 m + 1 to reduce it, scale it and clear its column; expected, only
 * the 2 m + 2; the one-shot decoder does all m x (k - m) + m x m after it.
 * The whole is no more than the one-shot's, expected rows (8 too many)
 * included. In batches of 8 the products are the same in all, and the
 * last row leaves at most its batch's 8 rows' work. */
GST_START_TEST (test_incremental_work_after_last_row)
{
  const guint64 k = 2048, m = 205;
  guint64 all, all_batched, after = work_after_last_row (0, 1, &all);
  guint64 after_batched = work_after_last_row (0, 8, &all_batched);

  fail_unless_equals_uint64 (all_batched, all);
  fail_unless (after_batched <= 8 * ((k - m) + 2 * m + 1), "%"
      G_GUINT64_FORMAT " region ops after the last row, batches of 8",
      after_batched);

  fail_unless (after <= (k - m) + 2 * m + 1, "%" G_GUINT64_FORMAT
      " region ops after the last row", after);
  fail_unless (all <= m * (k - m) + m * m + m);
  after = work_after_last_row (m + 8, 1, &all);
  fail_unless (after <= 2 * m + 2, "%" G_GUINT64_FORMAT " region ops after "
      "the last row, rows expected", after);
  fail_unless (all <= (m + 8) * (k - m) + m * m + 2 * m);
}

GST_END_TEST;

static Suite *
erasure16_suite (void)
{
  Suite *s = suite_create ("coreerasure16");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_field);
  tcase_add_test (tc, test_tables_match_the_field);
  tcase_add_test (tc, test_round_trip_random_erasures);
  tcase_add_test (tc, test_all_data_lost);
  tcase_add_test (tc, test_block_of_2048);
  tcase_add_test (tc, test_rows_at_the_ends);
  tcase_add_test (tc, test_refusals_write_nothing);
  tcase_add_test (tc, test_row_is_cauchy);
  tcase_add_test (tc, test_vector_and_portable_agree);
  tcase_add_test (tc, test_incremental_matches_one_shot);
  tcase_add_test (tc, test_incremental_dependent_rows);
  tcase_add_test (tc, test_incremental_expected_row_flushes_batch);
  tcase_add_test (tc, test_incremental_work_after_last_row);
  return s;
}

GST_CHECK_MAIN (erasure16);
