/* nfq-impair: burst loss and fixed delay for packets sent to an NFQUEUE.
 *
 * Usage: nfq-impair -q QUEUE [-d DELAY_MS] [-n EVERY | -p PROB] [-b BURST_LEN] [-s SEED]
 *
 *   -q QUEUE   NFQUEUE number to bind (in the current network namespace)
 *   -d MS      hold every passed packet MS milliseconds (order is kept)
 *   -n EVERY   deterministic bursts: of every EVERY packets the last BURST_LEN
 *              are dropped (packets 0..EVERY-BURST_LEN-1 pass first)
 *   -p PROB    random bursts: each packet outside a burst starts one with
 *              probability PROB (0..1), from a PRNG seeded with SEED
 *   -b LEN     burst length in packets (default 1)
 *   -s SEED    PRNG seed (default 1); same seed and packets -> same drops
 *
 * Settings change at run time through lines on stdin, with the same meaning:
 * "delay MS", "every N", "prob P", "burst LEN", "seed S"; "stats" prints the
 * counters.  After binding, it prints "nfq-impair: ready queue=Q".  On SIGTERM or
 * SIGINT it releases held packets and prints one line
 * "nfq-impair: passed=N dropped=N bursts=N" (also on SIGUSR1 and "stats").
 */
#include "nfq-loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct held {
  uint32_t id;
  uint64_t due_ns;
};

static struct {
  /* settings */
  uint64_t delay_ns;
  uint64_t every;
  double prob;
  uint64_t burst_len;
  uint64_t rng;
  /* state */
  uint64_t seen;        /* packets seen since "every" was set */
  uint64_t burst_left;  /* packets still to drop in the current random burst */
  struct held *fifo;    /* ring buffer of held packets, ordered by due time */
  size_t cap, head, len;
  /* counters */
  uint64_t passed, dropped, bursts;
} S = { .burst_len = 1, .rng = 1 };

/* splitmix64: small, fast and the same on every platform */
static double rng_uniform (void)
{
  uint64_t z = (S.rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

static void print_stats (void *data)
{
  (void) data;
  printf ("nfq-impair: passed=%llu dropped=%llu bursts=%llu\n",
      (unsigned long long) S.passed, (unsigned long long) S.dropped,
      (unsigned long long) S.bursts);
  fflush (stdout);
}

/* Decide whether the next packet is dropped; counts bursts. */
static int should_drop (void)
{
  if (S.every > 0) {
    uint64_t k = S.seen++ % S.every;
    if (k == S.every - S.burst_len)
      S.bursts++;
    return k >= S.every - S.burst_len;
  }
  if (S.burst_left > 0) {
    S.burst_left--;
    return 1;
  }
  if (S.prob > 0 && rng_uniform () < S.prob) {
    S.bursts++;
    S.burst_left = S.burst_len - 1;
    return 1;
  }
  return 0;
}

static void fifo_push (uint32_t id, uint64_t due)
{
  if (S.len == S.cap) {
    size_t ncap = S.cap ? S.cap * 2 : 1024;
    struct held *n = malloc (ncap * sizeof *n);
    if (!n) {
      perror ("nfq-impair: malloc");
      exit (1);
    }
    for (size_t i = 0; i < S.len; i++)
      n[i] = S.fifo[(S.head + i) % S.cap];
    free (S.fifo);
    S.fifo = n;
    S.cap = ncap;
    S.head = 0;
  }
  S.fifo[(S.head + S.len) % S.cap] = (struct held) { id, due };
  S.len++;
}

/* Accept held packets that are due (all of them if force). */
static void release (uint64_t now, int force)
{
  while (S.len > 0 && (force || S.fifo[S.head].due_ns <= now)) {
    nfq_verdict (S.fifo[S.head].id, 1);
    S.passed++;
    S.head = (S.head + 1) % S.cap;
    S.len--;
  }
}

static void on_packet (uint32_t id, uint32_t len, uint64_t now, void *data)
{
  (void) len;
  (void) data;
  if (should_drop ()) {
    nfq_verdict (id, 0);
    S.dropped++;
  } else if (S.delay_ns == 0 && S.len == 0) {
    nfq_verdict (id, 1);
    S.passed++;
  } else {
    fifo_push (id, now + S.delay_ns);
  }
}

/* Apply one setting; returns 0 on success. */
static int apply (char key, const char *val)
{
  char *end;
  double v = strtod (val, &end);
  if (end == val || v < 0)
    return -1;
  switch (key) {
    case 'd': S.delay_ns = (uint64_t) (v * 1e6); return 0;
    case 'n': S.every = (uint64_t) v; S.seen = 0; if (S.every) S.prob = 0; break;
    case 'p': if (v > 1) return -1; S.prob = v; if (v > 0) S.every = 0; break;
    case 'b': if (v < 1) return -1; S.burst_len = (uint64_t) v; break;
    case 's': S.rng = (uint64_t) v; S.burst_left = 0; return 0;
    default: return -1;
  }
  if (S.every && S.burst_len >= S.every) {
    fprintf (stderr, "nfq-impair: burst length must be below EVERY\n");
    S.every = 0;
    return -1;
  }
  return 0;
}

static int on_command (const char *word, const char *val, void *data)
{
  (void) data;
  if (strcmp (word, "delay") == 0 || strcmp (word, "every") == 0
      || strcmp (word, "prob") == 0 || strcmp (word, "burst") == 0
      || strcmp (word, "seed") == 0)
    return apply (word[0] == 'e' ? 'n' : word[0], val);
  return -1;
}

static uint64_t next_deadline (void *data)
{
  (void) data;
  return S.len > 0 ? S.fifo[S.head].due_ns : UINT64_MAX;
}

static void on_time (uint64_t now, void *data)
{
  (void) data;
  release (now, 0);
}

static void flush (void *data)
{
  (void) data;
  release (0, 1);
}

int main (int argc, char **argv)
{
  static const NfqLoopOps ops = {
    "nfq-impair", on_packet, on_command, print_stats, next_deadline, on_time, flush,
  };
  int queue = -1, opt;

  while ((opt = getopt (argc, argv, "q:d:n:p:b:s:")) != -1) {
    if (opt == 'q')
      queue = atoi (optarg);
    else if (opt == '?' || apply ((char) opt, optarg) != 0) {
      fprintf (stderr, "usage: nfq-impair -q QUEUE [-d DELAY_MS] [-n EVERY | -p PROB] "
          "[-b BURST_LEN] [-s SEED]\n");
      return 2;
    }
  }
  if (queue < 0 || queue > 65535) {
    fprintf (stderr, "nfq-impair: -q QUEUE (0..65535) is required\n");
    return 2;
  }
  return nfq_loop_run (queue, &ops, NULL);
}
