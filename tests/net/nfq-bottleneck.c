/* nfq-bottleneck: a bottleneck link with drop-tail, RED or CoDel for packets
 * sent to an NFQUEUE (the kernel here has no AQM qdisc).
 *
 * Usage: nfq-bottleneck -q QUEUE [--NAME VALUE ...]
 *
 *   rate BPS         link rate in bit/s (required); each packet takes
 *                    (IP length + overhead) * 8 / rate on the link
 *   delay MS         one-way delay added after serialisation (0)
 *   limit BYTES      queue limit in bytes (default: 200 ms of the rate or
 *                    20 packets of 1514 bytes, whichever is more; 0: none)
 *   limit-packets N  queue limit in packets (0: none)
 *   overhead BYTES   bytes added to each IP packet on the link (14: Ethernet,
 *                    as tbf counts them)
 *   qdisc NAME       droptail, red or codel (droptail)
 *   min-th, max-th BYTES, max-p P, w-q W, gentle 0|1, seed S   RED
 *   target MS, interval MS                                    CoDel
 *
 * RED's unset parameters follow from the rate (see aqmcore.c).  The same
 * names work as lines "NAME VALUE" on stdin at run time; "stats" prints the
 * counters and "reset" starts them anew.  After binding it prints
 * "nfq-bottleneck: ready queue=Q"; on SIGTERM or SIGINT it passes what it
 * holds and prints a last line of counters (also on SIGUSR1):
 * "nfq-bottleneck: arrived=N passed=N passed_bytes=N dropped_aqm=N
 *  dropped_limit=N delay_mean_us=N delay_max_us=N link_bps=N busy_permille=N
 *  queued=N": packets and bytes (IP) passed, drops by the discipline and by
 *  the limit, the queue's delay (sojourn before serialisation) of the packets
 *  served, the link's bit rate (overhead included) from the first bit sent to
 *  the last and the share of that time it was busy, and packets now queued.
 */
#define _GNU_SOURCE
#include "aqmcore.h"
#include "nfq-loop.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "nfq-bottleneck"

/* Settings as given; NAN where the rate's default applies. */
static struct {
  double rate, delay_ms, limit, limit_packets, overhead;
  AqmDiscipline qdisc;
  double min_th, max_th, max_p, w_q, gentle, target_ms, interval_ms;
} set = {
  .rate = NAN, .delay_ms = 0, .limit = NAN, .limit_packets = 0, .overhead = NAN,
  .qdisc = AQM_DROPTAIL, .min_th = NAN, .max_th = NAN, .max_p = NAN, .w_q = NAN,
  .gentle = NAN, .target_ms = NAN, .interval_ms = NAN,
};

static AqmLink *link_;
static uint64_t rng = 1;

/* splitmix64, seeded: a run's RED drops repeat with its packets */
static double rng_uniform (void *data)
{
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  (void) data;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

static void or_default (double v, double *field)
{
  if (!isnan (v))
    *field = v;
}

static AqmConfig config_from_settings (void)
{
  AqmConfig c;
  double limit, overhead, gentle, target, interval;
  aqm_config_defaults (&c, set.qdisc, (uint64_t) set.rate);
  limit = (double) c.limit_bytes;
  overhead = c.overhead;
  gentle = c.red_gentle;
  target = c.codel_target_ns / 1e6;
  interval = c.codel_interval_ns / 1e6;
  or_default (set.limit, &limit);
  or_default (set.overhead, &overhead);
  or_default (set.min_th, &c.red_min_th);
  or_default (set.max_th, &c.red_max_th);
  or_default (set.max_p, &c.red_max_p);
  or_default (set.w_q, &c.red_w_q);
  or_default (set.gentle, &gentle);
  or_default (set.target_ms, &target);
  or_default (set.interval_ms, &interval);
  c.delay_ns = (uint64_t) (set.delay_ms * 1e6);
  c.limit_bytes = (uint64_t) limit;
  c.limit_packets = (uint64_t) set.limit_packets;
  c.overhead = (uint32_t) overhead;
  c.red_gentle = gentle != 0;
  c.codel_target_ns = (uint64_t) (target * 1e6);
  c.codel_interval_ns = (uint64_t) (interval * 1e6);
  return c;
}

static int parse_qdisc (const char *v)
{
  static const char *names[] = { "droptail", "red", "codel" };
  for (int i = 0; i < 3; i++)
    if (strcmp (v, names[i]) == 0) {
      set.qdisc = (AqmDiscipline) i;
      return 0;
    }
  return -1;
}

/* One setting by name; 0 on success. */
static int apply (const char *name, const char *val)
{
  static const struct { const char *name; double *field; } numeric[] = {
    { "rate", &set.rate }, { "delay", &set.delay_ms }, { "limit", &set.limit },
    { "limit-packets", &set.limit_packets }, { "overhead", &set.overhead },
    { "min-th", &set.min_th }, { "max-th", &set.max_th }, { "max-p", &set.max_p },
    { "w-q", &set.w_q }, { "gentle", &set.gentle }, { "target", &set.target_ms },
    { "interval", &set.interval_ms },
  };
  char *end;
  double v;
  if (strcmp (name, "qdisc") == 0)
    return parse_qdisc (val);
  v = strtod (val, &end);
  if (end == val || *end || v < 0)
    return -1;
  if (strcmp (name, "seed") == 0) {
    rng = (uint64_t) v;
    return 0;
  }
  for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
    if (strcmp (name, numeric[i].name) == 0) {
      *numeric[i].field = v;
      return 0;
    }
  return -1;
}

static void print_stats (void *data)
{
  const AqmStats *s = aqm_link_stats (link_);
  uint64_t span = s->last_end_ns - s->first_start_ns;
  (void) data;
  printf (NAME ": arrived=%llu passed=%llu passed_bytes=%llu dropped_aqm=%llu "
      "dropped_limit=%llu delay_mean_us=%llu delay_max_us=%llu link_bps=%llu busy_permille=%llu queued=%llu\n",
      (unsigned long long) s->arrived, (unsigned long long) s->passed,
      (unsigned long long) s->passed_bytes, (unsigned long long) s->dropped_aqm,
      (unsigned long long) s->dropped_limit,
      (unsigned long long) (s->sojourn_n ? s->sojourn_sum_ns / s->sojourn_n / 1000 : 0),
      (unsigned long long) (s->sojourn_max_ns / 1000),
      (unsigned long long) (span ? s->served_bytes * 8 * 1000000000.0 / span : 0),
      (unsigned long long) (span ? s->busy_ns * 1000 / span : 0),
      (unsigned long long) aqm_link_queued_packets (link_));
  fflush (stdout);
}

static void give_verdicts (uint64_t now, void *data)
{
  AqmVerdict v;
  (void) data;
  while (aqm_link_poll (link_, now, &v))
    nfq_verdict (v.id, v.kind == AQM_VERDICT_ACCEPT);
}

static void on_packet (uint32_t id, uint32_t len, uint64_t now, void *data)
{
  if (!aqm_link_enqueue (link_, id, len, now))
    nfq_verdict (id, 0);
  give_verdicts (now, data);
}

static int on_command (const char *word, const char *val, void *data)
{
  AqmConfig c;
  const char *err;
  (void) data;
  if (strcmp (word, "reset") == 0) {
    aqm_link_reset_stats (link_);
    return 0;
  }
  if (apply (word, val) != 0)
    return -1;
  c = config_from_settings ();
  if (aqm_link_configure (link_, &c, &err) != 0) {
    fprintf (stderr, NAME ": %s\n", err);
    return -1;
  }
  return 0;
}

static uint64_t next_deadline (void *data)
{
  (void) data;
  return aqm_link_next_deadline (link_);
}

static void flush (void *data)
{
  AqmVerdict v;
  (void) data;
  while (aqm_link_flush (link_, &v))
    nfq_verdict (v.id, v.kind == AQM_VERDICT_ACCEPT);
}

static void usage (void)
{
  fprintf (stderr, "usage: " NAME " -q QUEUE --rate BPS [--delay MS] [--limit BYTES] "
      "[--limit-packets N] [--overhead BYTES] [--qdisc droptail|red|codel] "
      "[--min-th BYTES] [--max-th BYTES] [--max-p P] [--w-q W] [--gentle 0|1] "
      "[--seed S] [--target MS] [--interval MS]\n");
}

int main (int argc, char **argv)
{
  static const NfqLoopOps ops = {
    NAME, on_packet, on_command, print_stats, next_deadline, give_verdicts, flush,
  };
  static const struct option longopts[] = {
    { "rate", 1, 0, 0 }, { "delay", 1, 0, 0 }, { "limit", 1, 0, 0 },
    { "limit-packets", 1, 0, 0 }, { "overhead", 1, 0, 0 }, { "qdisc", 1, 0, 0 },
    { "min-th", 1, 0, 0 }, { "max-th", 1, 0, 0 }, { "max-p", 1, 0, 0 },
    { "w-q", 1, 0, 0 }, { "gentle", 1, 0, 0 }, { "seed", 1, 0, 0 },
    { "target", 1, 0, 0 }, { "interval", 1, 0, 0 }, { 0, 0, 0, 0 },
  };
  int queue = -1, opt, index, status;
  const char *err;
  AqmConfig c;

  while ((opt = getopt_long (argc, argv, "q:", longopts, &index)) != -1) {
    if (opt == 'q')
      queue = atoi (optarg);
    else if (opt != 0 || apply (longopts[index].name, optarg) != 0) {
      usage ();
      return 2;
    }
  }
  if (queue < 0 || queue > 65535 || isnan (set.rate)) {
    usage ();
    return 2;
  }
  c = config_from_settings ();
  if (!(link_ = aqm_link_new (&c, rng_uniform, NULL, &err))) {
    fprintf (stderr, NAME ": %s\n", err);
    return 2;
  }
  status = nfq_loop_run (queue, &ops, NULL);
  aqm_link_free (link_);
  return status;
}
