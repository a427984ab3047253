/* Unit tests of the test bed's bottleneck link (tests/net/aqmcore.c), in exact
 * simulated time: serialisation and delay, drop-tail, RED, CoDel. */
#include <gst/check/gstcheck.h>
#include <math.h>

#include "aqmcore.h"

#define US G_GUINT64_CONSTANT (1000)
#define MS G_GUINT64_CONSTANT (1000000)
/* 8 Mbit/s: a byte a microsecond; 986 bytes + 14 of overhead take 1 ms */
#define RATE 8000000
#define PKT 986

static gboolean
near (double a, double b)
{
  return fabs (a - b) < 1e-9;
}

static double
always (void *data)
{
  return *(double *) data;
}

static AqmLink *
new_link (AqmDiscipline d, guint64 delay, guint64 limit_bytes, double *u)
{
  AqmConfig c;
  const char *err = NULL;
  AqmLink *l;

  aqm_config_defaults (&c, d, RATE);
  c.delay_ns = delay;
  c.limit_bytes = limit_bytes;
  c.codel_mtu = 1000;
  l = aqm_link_new (&c, always, u, &err);
  fail_unless (l != NULL, "aqm_link_new: %s", err);
  return l;
}

/* Poll at now; the verdicts' ids (accepted: id, dropped: -1 - id) go to out. */
static guint
poll_all (AqmLink * l, guint64 now, gint * out, guint n)
{
  AqmVerdict v;
  while (aqm_link_poll (l, now, &v))
    out[n++] = v.kind == AQM_VERDICT_ACCEPT ? (gint) v.id : -1 - (gint) v.id;
  return n;
}

GST_START_TEST (test_serialisation_and_delay)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_DROPTAIL, 20 * MS, 0, &u);
  gint out[8];
  guint n = 0;

  /* three at once: their last bits leave at 1, 2, 3 ms; delivered 20 ms later */
  for (guint i = 0; i < 3; i++)
    fail_unless (aqm_link_enqueue (l, i, PKT, 0));
  fail_unless_equals_uint64 (aqm_link_next_deadline (l), 21 * MS);
  n = poll_all (l, 0, out, n);
  fail_unless_equals_int (n, 0);
  fail_unless_equals_uint64 (aqm_link_next_deadline (l), 21 * MS);
  n = poll_all (l, 21 * MS - 1, out, n);
  fail_unless_equals_int (n, 0);
  n = poll_all (l, 21 * MS, out, n);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_uint64 (aqm_link_next_deadline (l), 22 * MS);
  /* a poll that comes late delivers in order and does not shift the schedule */
  n = poll_all (l, 40 * MS, out, n);
  fail_unless_equals_int (n, 3);
  fail_unless (out[0] == 0 && out[1] == 1 && out[2] == 2);
  fail_unless_equals_uint64 (aqm_link_stats (l)->sojourn_max_ns, 2 * MS);
  fail_unless_equals_uint64 (aqm_link_stats (l)->sojourn_sum_ns, 3 * MS);

  /* a packet that arrives after the link went idle starts at once */
  fail_unless (aqm_link_enqueue (l, 3, PKT, 50 * MS));
  fail_unless_equals_uint64 (aqm_link_next_deadline (l), 71 * MS);
  /* ... and one that arrives while another is on the link waits for it */
  fail_unless (aqm_link_enqueue (l, 4, PKT, 50 * MS + 500 * US));
  n = poll_all (l, 100 * MS, out, n);
  fail_unless_equals_int (n, 5);
  fail_unless_equals_uint64 (aqm_link_stats (l)->sojourn_max_ns, 2 * MS);
  fail_unless_equals_uint64 (aqm_link_stats (l)->last_end_ns, 52 * MS);
  fail_unless_equals_uint64 (aqm_link_stats (l)->passed_bytes, 5 * PKT);
  fail_unless_equals_uint64 (aqm_link_next_deadline (l), G_MAXUINT64);
  aqm_link_free (l);
}

GST_END_TEST;

/* Saturated for a simulated minute, polled at jittery times: exactly the
 * rate. */
GST_START_TEST (test_rate_exact)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_DROPTAIL, 0, 0, &u);
  guint64 t, bytes = 0;
  guint id = 0;
  AqmVerdict v;

  for (t = 0; t < 60000 * MS; t += 700 * US + (t % 7) * 31 * US) {
    /* 1.4 packets a ms against a link of 1 a ms: a standing queue */
    aqm_link_enqueue (l, id++, PKT, t);
    aqm_link_enqueue (l, id++, PKT / 2, t);
    while (aqm_link_poll (l, t, &v))
      fail_unless (v.kind == AQM_VERDICT_ACCEPT);
  }
  bytes = aqm_link_stats (l)->served_bytes;
  /* every byte served took 1 us on the link, back to back from 0 */
  fail_unless_equals_uint64 (aqm_link_stats (l)->last_end_ns, bytes * US);
  fail_unless_equals_uint64 (aqm_link_stats (l)->busy_ns, bytes * US);
  fail_unless (aqm_link_stats (l)->last_end_ns >= t - 1 * MS);
  aqm_link_free (l);
}

GST_END_TEST;

GST_START_TEST (test_droptail_limits)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_DROPTAIL, 0, 3000, &u);
  AqmConfig c = *aqm_link_config (l);
  const char *err;
  gint out[16];

  /* the first goes on the link at once; three wait (3000 bytes), then full */
  fail_unless (aqm_link_enqueue (l, 0, PKT, 0));
  fail_unless_equals_int (poll_all (l, 0, out, 0), 0);
  for (guint i = 1; i <= 3; i++)
    fail_unless (aqm_link_enqueue (l, i, PKT, 0));
  fail_unless (!aqm_link_enqueue (l, 4, PKT, 0));
  fail_unless (!aqm_link_enqueue (l, 5, 1, 0));
  fail_unless_equals_uint64 (aqm_link_stats (l)->dropped_limit, 2);
  fail_unless_equals_uint64 (aqm_link_queued_bytes (l), 3000);
  /* a packet limit as well */
  c.limit_packets = 3;
  c.limit_bytes = 0;
  fail_unless_equals_int (aqm_link_configure (l, &c, &err), 0);
  fail_unless (!aqm_link_enqueue (l, 6, 1, 0));
  fail_unless_equals_int (poll_all (l, 1 * MS, out, 0), 1);
  fail_unless (aqm_link_enqueue (l, 7, 1, 1 * MS));
  fail_unless_equals_uint64 (aqm_link_stats (l)->dropped_aqm, 0);
  aqm_link_free (l);
}

GST_END_TEST;

GST_START_TEST (test_red_drop_probability)
{
  AqmConfig c;

  aqm_config_defaults (&c, AQM_RED, RATE);
  c.red_min_th = 10000;
  c.red_max_th = 30000;
  c.red_max_p = 0.1;
  c.red_gentle = 0;
  fail_unless (near (aqm_red_drop_probability (&c, 9999, 5), 0));
  /* p_b = max_p (avg - min_th) / (max_th - min_th); p_a = p_b / (1 - count p_b) */
  fail_unless (near (aqm_red_drop_probability (&c, 20000, 0), 0.05));
  fail_unless (near (aqm_red_drop_probability (&c, 20000, 10), 0.1));
  fail_unless (near (aqm_red_drop_probability (&c, 20000, 18), 0.5));
  fail_unless (near (aqm_red_drop_probability (&c, 20000, 20), 1.0));
  fail_unless (near (aqm_red_drop_probability (&c, 20000, 25), 1.0));
  fail_unless (near (aqm_red_drop_probability (&c, 30000, 0), 1.0));
  /* gentle: from max_p at max_th to 1 at 2 max_th */
  c.red_gentle = 1;
  fail_unless (near (aqm_red_drop_probability (&c, 30000, 0), 0.1));
  fail_unless (near (aqm_red_drop_probability (&c, 45000, 0), 0.55));
  fail_unless (near (aqm_red_drop_probability (&c, 60000, 0), 1.0));
  /* defaults: Floyd's rules at 8 Mbit/s (660 full packets/s) */
  aqm_config_defaults (&c, AQM_RED, RATE);
  fail_unless (near (c.red_min_th, 5 * 1514));
  fail_unless (near (c.red_max_th, 15 * 1514));
  fail_unless (fabs (c.red_w_q - (1 - exp (-1514 * 8.0 / RATE))) < 1e-12);
  fail_unless (c.red_gentle && c.red_max_p == 0.1);
}

GST_END_TEST;

/* The average follows the EWMA at each arrival and decays over idle time as
 * if typical packets had gone out of an empty queue. */
GST_START_TEST (test_red_average)
{
  double u = 0.999, expect = 0, last = 0;
  AqmLink *l = new_link (AQM_RED, 0, 0, &u);
  AqmConfig c = *aqm_link_config (l);
  const char *err;
  guint64 t = 0;
  gint out[64];

  c.red_w_q = 0.25;
  c.red_mean_pkt = 1000;
  c.red_min_th = 1e9;           /* no drops */
  c.red_max_th = 2e9;
  fail_unless_equals_int (aqm_link_configure (l, &c, &err), 0);
  /* ten arrivals at once: the first goes on the link, the queue grows by 1000 */
  for (guint i = 0; i < 10; i++) {
    aqm_link_enqueue (l, i, PKT, 0);
    fail_unless (fabs (aqm_link_red_avg (l) - expect) < 1e-6);
    last = expect;
    expect = 0.75 * expect + 0.25 * 1000 * i;
  }
  fail_unless (last > 3000);
  /* the last bit leaves at 10 ms; an arrival at 15 ms finds the average
   * decayed by 0.75^5 (5 packet times of 1000 bytes) */
  t = 15 * MS;
  fail_unless_equals_int (poll_all (l, t, out, 0), 10);
  aqm_link_enqueue (l, 10, PKT, t);
  fail_unless (fabs (aqm_link_red_avg (l) - last * pow (0.75, 5)) < 1e-6);
  /* the link is busy now: an EWMA step at q = 0 */
  aqm_link_enqueue (l, 11, PKT, t);
  fail_unless (fabs (aqm_link_red_avg (l) - last * pow (0.75, 6)) < 1e-6);
  aqm_link_free (l);
}

GST_END_TEST;

/* With a uniform draw of 0.5 and p_b constant, drops come when
 * p_b / (1 - count p_b) first exceeds 0.5: evenly spaced, not in bursts. */
GST_START_TEST (test_red_count_spacing)
{
  double u = 0.6;
  AqmLink *l = new_link (AQM_RED, 0, 0, &u);
  AqmConfig c = *aqm_link_config (l);
  const char *err;
  guint64 t;
  guint id = 0, last_drop = 0, drops = 0;
  AqmVerdict v;

  c.red_w_q = 1;                /* the average is the queue */
  c.red_min_th = 0;
  c.red_max_th = 16000;
  c.red_max_p = 0.1;
  c.red_gentle = 0;
  fail_unless_equals_int (aqm_link_configure (l, &c, &err), 0);
  /* every arrival finds 8000 bytes: p_b = 0.05, p_a = 0.5 at count 18 and
   * above 0.6 first at count 19, so every 19th arrival is dropped */
  for (guint i = 0; i < 10; i++)
    aqm_link_enqueue (l, id++, PKT, 0);
  for (t = 1 * MS; t < 2000 * MS; t += 1 * MS) {
    while (aqm_link_poll (l, t, &v));
    while (aqm_link_queued_bytes (l) < 9000) {
      fail_unless_equals_uint64 (aqm_link_queued_bytes (l), 8000);
      if (!aqm_link_enqueue (l, id, PKT, t)) {
        if (drops++ > 0)
          fail_unless_equals_int (id - last_drop, 19);
        last_drop = id;
      }
      id++;
    }
  }
  fail_unless (drops > 90);
  fail_unless_equals_uint64 (aqm_link_stats (l)->dropped_aqm, drops);
  aqm_link_free (l);
}

GST_END_TEST;

/* Overload of 2x from 0 to 1 s: packet k arrives at k/2 ms, starts at k ms
 * while none is dropped, its sojourn k/2 ms.  Sojourn reaches the target at
 * 10 ms, so the first drop is at 110 ms, then at each dequeue past
 * drop_next = previous drop_next + interval / sqrt(count). */
GST_START_TEST (test_codel_control_law)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_CODEL, 0, 0, &u);
  guint64 t = 0, next_arrival = 0, drop_next = 0, expect[64];
  guint64 got[64];
  guint n_expect = 0, n_got = 0, arrivals = 0;
  guint32 count = 0;
  AqmVerdict v;

  /* the expected drop times: on the 1 ms grid of dequeues */
  for (drop_next = 110 * MS; drop_next < 1000 * MS && n_expect < 64;) {
    expect[n_expect++] = (drop_next + MS - 1) / MS * MS;
    count++;
    drop_next += (guint64) (100 * MS / sqrt (count));
  }
  for (;;) {
    guint64 due = aqm_link_next_deadline (l);
    t = next_arrival < 1000 * MS && next_arrival < due ? next_arrival : due;
    if (t == G_MAXUINT64)
      break;
    if (t == next_arrival && t < 1000 * MS) {
      aqm_link_enqueue (l, arrivals++, PKT, t);
      next_arrival += 500 * US;
    }
    while (aqm_link_poll (l, t, &v))
      if (v.kind == AQM_VERDICT_DROP && n_got < 64 && v.at < 1000 * MS)
        got[n_got++] = v.at;
  }
  fail_unless (n_expect > 10);
  fail_unless_equals_int (n_got, n_expect);
  for (guint i = 0; i < n_expect; i++)
    fail_unless_equals_uint64 (got[i], expect[i]);
  /* after the overload the queue drains and every packet is accounted */
  fail_unless_equals_uint64 (aqm_link_stats (l)->passed + aqm_link_stats (l)->dropped_aqm,
      arrivals);
  aqm_link_free (l);
}

GST_END_TEST;

/* Below the target, or with no more than an MTU queued, CoDel never drops. */
GST_START_TEST (test_codel_no_drop_below_target)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_CODEL, 0, 0, &u);
  guint64 t;
  guint id = 0;
  AqmVerdict v;

  /* 4 packets every 4 ms against 1 a ms: sojourn up to 3 ms, forever */
  for (t = 0; t < 10000 * MS; t += 4 * MS) {
    for (guint i = 0; i < 4; i++)
      aqm_link_enqueue (l, id++, PKT, t);
    while (aqm_link_poll (l, t, &v))
      fail_unless (v.kind == AQM_VERDICT_ACCEPT);
  }
  fail_unless_equals_uint64 (aqm_link_stats (l)->sojourn_max_ns, 3 * MS);
  fail_unless_equals_uint64 (aqm_link_stats (l)->dropped_aqm, 0);
  aqm_link_free (l);
}

GST_END_TEST;

/* Re-entering the drop state within 16 intervals resumes the count
 * (count - lastcount), so the drops start at the rate where they stopped
 * rather than one per interval. */
GST_START_TEST (test_codel_resumes_count)
{
  double u = 0.5;
  AqmLink *l = new_link (AQM_CODEL, 0, 0, &u);
  guint64 t, drops_at[4096];
  guint id = 0, n = 0, episode2 = 0;
  AqmVerdict v;

  /* 2x overload in [0, 1) s: the queue drains by about 2 s; again from 2.1 s */
  for (t = 0; t < 2600 * MS; t += 500 * US) {
    if (t < 1000 * MS || t >= 2100 * MS)
      aqm_link_enqueue (l, id++, PKT, t);
    while (aqm_link_poll (l, t, &v))
      if (v.kind == AQM_VERDICT_DROP && n < G_N_ELEMENTS (drops_at)) {
        if (v.at >= 2100 * MS && !episode2)
          episode2 = n;
        drops_at[n++] = v.at;
      }
  }
  fail_unless (episode2 > 10);
  fail_unless (n > episode2 + 2);
  fail_unless_equals_uint64 (drops_at[1] - drops_at[0], 100 * MS);
  /* the second episode starts with the gap the first one ended with */
  fail_unless (drops_at[episode2 + 1] - drops_at[episode2] < 30 * MS);
  aqm_link_free (l);
}

GST_END_TEST;

GST_START_TEST (test_bad_config)
{
  AqmConfig c;
  const char *err = NULL;

  aqm_config_defaults (&c, AQM_RED, 0);
  fail_unless (aqm_link_new (&c, always, NULL, &err) == NULL);
  fail_unless (err != NULL);
  aqm_config_defaults (&c, AQM_RED, RATE);
  c.red_max_th = c.red_min_th;
  fail_unless (aqm_link_new (&c, always, NULL, &err) == NULL);
}

GST_END_TEST;

static Suite *
aqmcore_suite (void)
{
  Suite *s = suite_create ("aqmcore");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_serialisation_and_delay);
  tcase_add_test (tc, test_rate_exact);
  tcase_add_test (tc, test_droptail_limits);
  tcase_add_test (tc, test_red_drop_probability);
  tcase_add_test (tc, test_red_average);
  tcase_add_test (tc, test_red_count_spacing);
  tcase_add_test (tc, test_codel_control_law);
  tcase_add_test (tc, test_codel_no_drop_below_target);
  tcase_add_test (tc, test_codel_resumes_count);
  tcase_add_test (tc, test_bad_config);
  return s;
}

GST_CHECK_MAIN (aqmcore);
