/* Unit tests of gst/common/core/random.h: the seeded source is exact and
 * repeatable, and an injected one is used as given. */
#include <gst/check/gstcheck.h>

#include "core/random.h"

GST_START_TEST (test_seeded_is_repeatable)
{
  RandomSource a, b, c;
  RandomSeeded sa, sb, sc;
  gboolean differ = FALSE;

  random_source_init_seeded (&a, &sa, 42);
  random_source_init_seeded (&b, &sb, 42);
  random_source_init_seeded (&c, &sc, 43);
  for (guint i = 0; i < 1000; i++) {
    guint64 x = random_source_u64 (&a);
    fail_unless_equals_uint64 (x, random_source_u64 (&b));
    differ |= x != random_source_u64 (&c);
  }
  fail_unless (differ);
  /* SplitMix64's published first output for seed 0 */
  random_source_init_seeded (&a, &sa, 0);
  fail_unless_equals_uint64 (random_source_u64 (&a),
      G_GUINT64_CONSTANT (0xe220a8397b1dcdaf));
}

GST_END_TEST;

GST_START_TEST (test_ranges)
{
  RandomSource r;
  RandomSeeded st;
  guint hist[5] = { 0 };

  random_source_init_seeded (&r, &st, 7);
  for (guint i = 0; i < 50000; i++) {
    gint64 v = random_source_range (&r, -2, 2);
    gdouble d = random_source_double (&r);
    fail_unless (v >= -2 && v <= 2);
    fail_unless (d >= 0.0 && d < 1.0);
    hist[v + 2]++;
  }
  /* uniform: each value 10000 +- 5 % */
  for (guint i = 0; i < 5; i++)
    fail_unless (hist[i] > 9500 && hist[i] < 10500, "%u: %u", i, hist[i]);
  fail_unless_equals_int64 (random_source_range (&r, 5, 5), 5);
  fail_unless_equals_int64 (random_source_range (&r, 5, 1), 5);
}

GST_END_TEST;

static guint64
counter_next (gpointer state)
{
  return (*(guint64 *) state)++;
}

GST_START_TEST (test_injected_source)
{
  guint64 count = 0;
  RandomSource r = { counter_next, &count };

  /* a test can script the draws exactly */
  fail_unless_equals_uint64 (random_source_u64 (&r), 0);
  fail_unless_equals_int64 (random_source_range (&r, 10, 19), 11);
  fail_unless_equals_uint64 (count, 2);
  fail_unless (random_source_double (&r) == 0.0);
}

GST_END_TEST;

static Suite *
corerandom_suite (void)
{
  Suite *s = suite_create ("corerandom");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_seeded_is_repeatable);
  tcase_add_test (tc, test_ranges);
  tcase_add_test (tc, test_injected_source);
  return s;
}

GST_CHECK_MAIN (corerandom);
