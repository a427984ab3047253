/* Unit tests of gst/common/core/erasure.h: every pattern of up to m losses
 * among k data packets is repaired by m parity rows, in any mix of data
 * and parity losses; more losses than parity, bad and repeated rows are
 * refused with nothing written; a full block of 255 repairs random losses.
 * Every region implementation (reference, portable, SSSE3 where the
 * machine has it) agrees with the product by logarithms for every
 * coefficient, at odd lengths and alignments, and gives the same parity. */
#include <gst/check/gstcheck.h>

#include "core/erasure.h"

#define LEN 37

static void
fill_block (guint8 ** data, guint k, gsize len, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);

  for (guint i = 0; i < k; i++)
    for (gsize b = 0; b < len; b++)
      data[i][b] = (guint8) g_rand_int (r);
  g_rand_free (r);
}

static guint8 **
new_block (guint k, gsize len)
{
  guint8 **d = g_new (guint8 *, k);

  for (guint i = 0; i < k; i++)
    d[i] = g_malloc (len);
  return d;
}

static void
free_block (guint8 ** d, guint k)
{
  for (guint i = 0; i < k; i++)
    g_free (d[i]);
  g_free (d);
}

/* Loses the data packets set in @lost_mask, repairs them with the parity
 * rows @rows (which arrived) and checks the result against @orig. */
static void
check_repair (guint8 ** orig, guint k, guint32 lost_mask, const guint * rows,
    guint n_rows, guint8 ** parity_all)
{
  guint8 **work = new_block (k, LEN);
  gboolean have[32];
  const guint8 *par[32];

  for (guint i = 0; i < k; i++) {
    have[i] = !(lost_mask & (1u << i));
    memcpy (work[i], orig[i], LEN);
    if (!have[i])
      memset (work[i], 0xa5, LEN);
  }
  for (guint j = 0; j < n_rows; j++)
    par[j] = parity_all[rows[j]];
  fail_unless (erasure_decode (k, work, have, LEN, n_rows, rows, par));
  for (guint i = 0; i < k; i++)
    fail_unless (memcmp (work[i], orig[i], LEN) == 0, "packet %u of mask "
        "%x", i, lost_mask);
  free_block (work, k);
}

GST_START_TEST (test_every_pattern_up_to_parity)
{
  const guint k = 8, m = 4, total = k + m;
  guint8 **data = new_block (k, LEN), **parity = new_block (m, LEN);
  guint patterns = 0;

  fill_block (data, k, LEN, 7);
  for (guint r = 0; r < m; r++)
    fail_unless (erasure_encode (k, (const guint8 * const *) data, LEN, r,
            parity[r]));
  /* every subset of the k + m packets with at most m lost */
  for (guint32 mask = 0; mask < (1u << total); mask++) {
    guint rows[4], n = 0;

    if ((guint) __builtin_popcount (mask) > m)
      continue;
    for (guint r = 0; r < m; r++)
      if (!(mask & (1u << (k + r))))
        rows[n++] = r;
    check_repair (data, k, mask & ((1u << k) - 1), rows, n, parity);
    patterns++;
  }
  /* sum of C(12, 0..4) */
  fail_unless_equals_int (patterns, 1 + 12 + 66 + 220 + 495);
  free_block (data, k);
  free_block (parity, m);
}

GST_END_TEST;

GST_START_TEST (test_more_losses_refused)
{
  const guint k = 6;
  guint8 **data = new_block (k, LEN), **work = new_block (k, LEN);
  guint8 **parity = new_block (3, LEN);
  gboolean have[6] = { FALSE, TRUE, FALSE, TRUE, FALSE, TRUE };
  const guint8 *par[3];
  guint rows[3] = { 0, 1, 2 }, dup[2] = { 1, 1 }, bad[1] = { 250 };

  fill_block (data, k, LEN, 11);
  for (guint r = 0; r < 3; r++) {
    erasure_encode (k, (const guint8 * const *) data, LEN, r, parity[r]);
    par[r] = parity[r];
  }
  for (guint i = 0; i < k; i++)
    memset (work[i], 0x5a, LEN);
  /* 3 lost, 2 parity: refused, nothing written */
  fail_if (erasure_decode (k, work, have, LEN, 2, rows, par));
  /* a repeated row is one equation, not two */
  have[4] = TRUE;
  fail_if (erasure_decode (k, work, have, LEN, 2, dup, par));
  /* a row past 256 - k */
  have[2] = TRUE;
  fail_if (erasure_decode (k, work, have, LEN, 1, bad, par));
  for (guint i = 0; i < k; i++)
    for (guint b = 0; b < LEN; b++)
      fail_unless_equals_int (work[i][b], 0x5a);
  /* encode refuses a row or a block size out of range */
  fail_if (erasure_encode (k, (const guint8 * const *) data, LEN, 250,
          parity[0]));
  fail_if (erasure_encode (0, (const guint8 * const *) data, LEN, 0,
          parity[0]));
  fail_unless_equals_int (erasure_rows (256), 0);
  fail_unless_equals_int (erasure_rows (255), 1);
  fail_unless_equals_int (erasure_rows (1), 255);
  free_block (data, k);
  free_block (work, k);
  free_block (parity, 3);
}

GST_END_TEST;

/* The largest block: 200 data packets, 40 losses, 40 of the 56 rows. */
GST_START_TEST (test_large_block)
{
  const guint k = 200, lost = 40;
  guint8 **data = new_block (k, LEN), **work = new_block (k, LEN);
  guint8 **parity = new_block (lost, LEN);
  gboolean *have = g_new (gboolean, k);
  guint rows[40];
  GRand *r = g_rand_new_with_seed (3);

  fill_block (data, k, LEN, 5);
  for (guint j = 0; j < lost; j++) {
    rows[j] = 55 - j;
    erasure_encode (k, (const guint8 * const *) data, LEN, rows[j],
        parity[j]);
  }
  for (guint i = 0; i < k; i++) {
    have[i] = TRUE;
    memcpy (work[i], data[i], LEN);
  }
  for (guint n = 0; n < lost;) {
    guint i = g_rand_int_range (r, 0, k);

    if (have[i]) {
      have[i] = FALSE;
      memset (work[i], 0, LEN);
      n++;
    }
  }
  fail_unless (erasure_decode (k, work, have, LEN, lost, rows,
          (const guint8 * const *) parity));
  for (guint i = 0; i < k; i++)
    fail_unless (memcmp (work[i], data[i], LEN) == 0);
  g_rand_free (r);
  g_free (have);
  free_block (data, k);
  free_block (work, k);
  free_block (parity, lost);
}

GST_END_TEST;

static const ErasureImpl all_impls[] = {
  ERASURE_IMPL_REFERENCE, ERASURE_IMPL_PORTABLE, ERASURE_IMPL_SSSE3,
};

/* lengths around the 8- and 16-byte steps, and a packet's */
static const gsize region_lens[] = {
  0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 63, 100, 1401,
};

#define REGION_MAX 1420

static void
check_region (guint8 c, gsize len, guint src_off, guint dst_off, GRand * r)
{
  guint8 src_buf[REGION_MAX + 32], dst_buf[REGION_MAX + 32],
      want[REGION_MAX + 32];
  guint8 *src = src_buf + src_off, *dst = dst_buf + dst_off;

  for (gsize i = 0; i < sizeof src_buf; i++) {
    src_buf[i] = (guint8) g_rand_int (r);
    dst_buf[i] = (guint8) g_rand_int (r);
  }
  memcpy (want, dst_buf, sizeof dst_buf);
  for (gsize i = 0; i < len; i++)
    want[dst_off + i] ^= erasure_gf_mul (c, src[i]);
  erasure_mul_add (dst, src, c, len);
  /* the bytes around the region are untouched too */
  fail_unless (memcmp (dst_buf, want, sizeof dst_buf) == 0,
      "impl %d, c %u, len %u, offsets %u/%u", erasure_get_impl (), c,
      (guint) len, src_off, dst_off);
}

GST_START_TEST (test_region_every_coefficient)
{
  ErasureImpl saved = erasure_get_impl ();
  GRand *r = g_rand_new_with_seed (20);
  guint tested = 0;

  for (guint n = 0; n < G_N_ELEMENTS (all_impls); n++) {
    if (!erasure_set_impl (all_impls[n])) {
      fail_unless (all_impls[n] == ERASURE_IMPL_SSSE3);
      continue;
    }
    tested++;
    for (guint c = 0; c < 256; c++)
      for (guint l = 0; l < G_N_ELEMENTS (region_lens); l++)
        check_region ((guint8) c, region_lens[l], c % 5, (c / 5) % 3, r);
  }
  fail_unless (tested >= 2);
  fail_unless (erasure_set_impl (saved));
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_region_alignments)
{
  ErasureImpl saved = erasure_get_impl ();
  GRand *r = g_rand_new_with_seed (21);
  static const guint8 coefs[] = { 0, 1, 2, 0x53, 0x8e, 0xff };

  for (guint n = 0; n < G_N_ELEMENTS (all_impls); n++) {
    if (!erasure_set_impl (all_impls[n]))
      continue;
    for (guint s = 0; s < 16; s++)
      for (guint d = 0; d < 16; d++)
        for (guint j = 0; j < G_N_ELEMENTS (coefs); j++)
          check_region (coefs[j], 37 + s + 2 * d, s, d, r);
  }
  fail_unless (erasure_set_impl (saved));
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_field_products)
{
  /* the modulus 0x11d: x * x^7 = x^8 = x^4 + x^3 + x^2 + 1 */
  fail_unless_equals_int (erasure_gf_mul (2, 0x80), 0x1d);
  fail_unless_equals_int (erasure_gf_mul (0, 0x37), 0);
  fail_unless_equals_int (erasure_gf_mul (1, 0x37), 0x37);
  for (guint a = 1; a < 256; a++) {
    guint inverses = 0;

    for (guint b = 1; b < 256; b++) {
      fail_unless_equals_int (erasure_gf_mul (a, b), erasure_gf_mul (b, a));
      inverses += erasure_gf_mul (a, b) == 1;
    }
    fail_unless_equals_int (inverses, 1);
  }
}

GST_END_TEST;

/* Encode and decode of a 1400-byte block with each implementation give
 * the same parity and the same repaired packets. */
GST_START_TEST (test_impls_same_parity)
{
  const guint k = 20, lost = 4;
  const gsize len = 1400;
  ErasureImpl saved = erasure_get_impl ();
  guint8 **data = new_block (k, len), **parity = new_block (lost, len);
  guint8 **first = new_block (lost, len), **work = new_block (k, len);
  guint rows[4] = { 0, 3, 7, 200 };
  gboolean have[20];
  const guint8 *par[4];

  fill_block (data, k, len, 77);
  for (guint n = 0; n < G_N_ELEMENTS (all_impls); n++) {
    if (!erasure_set_impl (all_impls[n]))
      continue;
    for (guint j = 0; j < lost; j++) {
      fail_unless (erasure_encode (k, (const guint8 * const *) data, len,
              rows[j], parity[j]));
      if (n == 0)
        memcpy (first[j], parity[j], len);
      fail_unless (memcmp (first[j], parity[j], len) == 0, "impl %d row %u",
          all_impls[n], rows[j]);
      par[j] = parity[j];
    }
    for (guint i = 0; i < k; i++) {
      have[i] = i % 5 != 2;
      memcpy (work[i], data[i], len);
      if (!have[i])
        memset (work[i], 0, len);
    }
    fail_unless (erasure_decode (k, work, have, len, lost, rows, par));
    for (guint i = 0; i < k; i++)
      fail_unless (memcmp (work[i], data[i], len) == 0, "impl %d packet %u",
          all_impls[n], i);
  }
  fail_unless (erasure_set_impl (saved));
  free_block (data, k);
  free_block (work, k);
  free_block (parity, lost);
  free_block (first, lost);
}

GST_END_TEST;

static Suite *
coreerasure_suite (void)
{
  Suite *s = suite_create ("coreerasure");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_pattern_up_to_parity);
  tcase_add_test (tc, test_more_losses_refused);
  tcase_add_test (tc, test_large_block);
  tcase_add_test (tc, test_region_every_coefficient);
  tcase_add_test (tc, test_region_alignments);
  tcase_add_test (tc, test_field_products);
  tcase_add_test (tc, test_impls_same_parity);
  return s;
}

GST_CHECK_MAIN (coreerasure);
