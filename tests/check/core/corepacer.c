/* Unit tests of gst/common/core/pacer.h: the pacer's rate and burst bound,
 * no credit for idle time, and the sliding-window rate meter. */
#include <gst/check/gstcheck.h>

#include "core/pacer.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))

/* Sends 1000-byte packets as soon as allowed from @start until @end;
 * returns how many left, and at @first_gap the time between the first two. */
static guint
send_greedy (Pacer * p, gint64 start, gint64 end, gint64 * first_gap)
{
  gint64 now = start, prev = -1;
  guint n = 0;

  while ((now = pacer_next_send_time (p, now)) < end) {
    if (n == 1 && first_gap)
      *first_gap = now - prev;
    pacer_on_send (p, 1000, now);
    prev = now;
    n++;
  }
  return n;
}

GST_START_TEST (test_rate)
{
  Pacer p;
  gint64 gap = -1;

  /* 8 Mbit/s: 1000 bytes every 1 ms, 1000 packets a second */
  pacer_init (&p, 8000000, 0);
  fail_unless_equals_int (send_greedy (&p, 0, S, &gap), 1000);
  fail_unless_equals_int64 (gap, MS);
  fail_unless_equals_int64 (pacer_cost (1000, 8000000), MS);
  /* rounded up: 1 byte at 3 bit/s */
  fail_unless_equals_int64 (pacer_cost (1, 3), 2666666667);
  fail_unless_equals_int64 (pacer_cost (G_MAXUINT32, 0), G_MAXINT64 / 4);
}

GST_END_TEST;

GST_START_TEST (test_no_credit_for_idle)
{
  Pacer p;
  gint64 gap = -1;

  pacer_init (&p, 8000000, 0);
  pacer_on_send (&p, 1000, 0);
  /* idle for an hour: the next packets are still one cost apart */
  fail_unless_equals_int (send_greedy (&p, 3600 * S, 3600 * S + 10 * MS,
          &gap), 10);
  fail_unless_equals_int64 (gap, MS);
}

GST_END_TEST;

GST_START_TEST (test_burst_is_bounded)
{
  Pacer p;

  /* a 5 ms burst at 8 Mbit/s: 5 packets of credit, however long the idle */
  pacer_init (&p, 8000000, 5 * MS);
  pacer_on_send (&p, 1000, 0);
  /* at the same instant: the 5 of credit and the one the bucket allows at 0 */
  fail_unless_equals_int (send_greedy (&p, 3600 * S, 3600 * S + 1, NULL), 6);
  /* then the rate */
  fail_unless_equals_int (send_greedy (&p, 3600 * S + 1, 3600 * S + 1 + 10 *
          MS, NULL), 10);
  /* after an idle hour, 5 of credit again; then idle for 2 ms: 2 */
  fail_unless_equals_int (send_greedy (&p, 3602 * S, 3602 * S + 1, NULL), 6);
  fail_unless_equals_int (send_greedy (&p, 3602 * S + 3 * MS, 3602 * S + 3 *
          MS + 1, NULL), 3);
}

GST_END_TEST;

GST_START_TEST (test_rate_meter)
{
  RateMeter m;

  rate_meter_init (&m, S);
  /* 1250 bytes every 10 ms: 1 Mbit/s */
  for (gint64 t = 0; t < 3 * S; t += 10 * MS)
    rate_meter_add (&m, 1250, t);
  fail_unless_equals_uint64 (rate_meter_rate (&m, 3 * S - 1), 1000000);
  /* what is older than the window is forgotten */
  fail_unless_equals_uint64 (rate_meter_bytes (&m, 4 * S + 62500000), 0);
  fail_unless_equals_uint64 (rate_meter_rate (&m, 10 * S), 0);
  rate_meter_add (&m, 100, 10 * S);
  fail_unless_equals_uint64 (rate_meter_bytes (&m, 10 * S), 100);
  /* half a window later, still counted */
  fail_unless_equals_uint64 (rate_meter_bytes (&m, 10 * S + S / 2), 100);
}

GST_END_TEST;

static Suite *
corepacer_suite (void)
{
  Suite *s = suite_create ("corepacer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rate);
  tcase_add_test (tc, test_no_credit_for_idle);
  tcase_add_test (tc, test_burst_is_bounded);
  tcase_add_test (tc, test_rate_meter);
  return s;
}

GST_CHECK_MAIN (corepacer);
