/* Unit tests of gst/common/core/addrcookie.h: cookies bound to an id and
 * an address, the secret's rotation, and the bound on answers. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "core/addrcookie.h"

#define S (G_GINT64_CONSTANT (1000000000))

static void
counted_secret (guint8 * secret, gsize len, gpointer data)
{
  guint *n = data;

  memset (secret, 0, len);
  secret[0] = ++*n;
}

static const guint8 addr_a[4] = { 10, 0, 0, 1 };
static const guint8 addr_b[4] = { 10, 0, 0, 2 };

/* A cookie checks for its id and address only, under the secret now or
 * the one before, and not after two rotations. */
GST_START_TEST (test_cookie_bound_and_rotated)
{
  AddrCookieJar jar;
  guint n = 0;
  guint64 c;

  addr_cookie_jar_init (&jar, 8 * S, 0, counted_secret, &n);
  c = addr_cookie_make (&jar, 7, addr_a, 4);
  fail_unless (c < (G_GUINT64_CONSTANT (1) << ADDR_COOKIE_BITS));
  fail_unless (addr_cookie_check (&jar, 7, addr_a, 4, c));
  fail_if (addr_cookie_check (&jar, 8, addr_a, 4, c));
  fail_if (addr_cookie_check (&jar, 7, addr_b, 4, c));
  fail_if (addr_cookie_check (&jar, 7, addr_a, 3, c));
  fail_if (addr_cookie_check (&jar, 7, addr_a, 4, c ^ 1));

  addr_cookie_jar_tick (&jar, 7 * S, counted_secret, &n);
  fail_unless_equals_int (n, 1);        /* not yet */
  addr_cookie_jar_tick (&jar, 8 * S, counted_secret, &n);
  fail_unless_equals_int (n, 2);
  fail_unless (addr_cookie_check (&jar, 7, addr_a, 4, c));
  fail_if (addr_cookie_make (&jar, 7, addr_a, 4) == c);
  addr_cookie_jar_tick (&jar, 16 * S, counted_secret, &n);
  fail_if (addr_cookie_check (&jar, 7, addr_a, 4, c));

  /* after a pause of two periods both secrets are new */
  c = addr_cookie_make (&jar, 7, addr_a, 4);
  addr_cookie_jar_tick (&jar, 40 * S, counted_secret, &n);
  fail_if (addr_cookie_check (&jar, 7, addr_a, 4, c));
}

GST_END_TEST;

/* One answer per (id, address) per interval, and the cap in all. */
GST_START_TEST (test_limiter)
{
  AddrCookieLimiter l;
  guint taken = 0;

  addr_cookie_limiter_init (&l, S, 64);
  fail_unless (addr_cookie_limiter_take (&l, 7, addr_a, 4, 0));
  fail_if (addr_cookie_limiter_take (&l, 7, addr_a, 4, S / 2));
  fail_unless (addr_cookie_limiter_take (&l, 7, addr_a, 4, S));

  /* 1000 ids in one interval: at most the cap */
  for (guint i = 0; i < 1000; i++)
    taken += addr_cookie_limiter_take (&l, 100 + i, addr_b, 4, 2 * S);
  fail_unless (taken <= 64);
  fail_unless (taken >= 50);    /* slots shared by hashing cost a few */
  fail_if (addr_cookie_limiter_take (&l, 5000, addr_b, 4, 2 * S + 1));
}

GST_END_TEST;

/* Two secrets from the system's generator differ, and neither is the
 * zeroed buffer it was given. */
GST_START_TEST (test_system_random)
{
  guint8 zero[ADDR_COOKIE_SECRET_SIZE] = { 0 };
  guint8 a[ADDR_COOKIE_SECRET_SIZE] = { 0 };
  guint8 b[ADDR_COOKIE_SECRET_SIZE] = { 0 };

  addr_cookie_system_random (a, sizeof (a), NULL);
  addr_cookie_system_random (b, sizeof (b), NULL);
  fail_if (memcmp (a, zero, sizeof (a)) == 0);
  fail_if (memcmp (a, b, sizeof (a)) == 0);
}

GST_END_TEST;

static Suite *
coreaddrcookie_suite (void)
{
  Suite *s = suite_create ("coreaddrcookie");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cookie_bound_and_rotated);
  tcase_add_test (tc, test_limiter);
  tcase_add_test (tc, test_system_random);
  return s;
}

GST_CHECK_MAIN (coreaddrcookie);
