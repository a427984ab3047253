/* nfq-impair: burst loss, fixed delay and jitter for packets sent to an NFQUEUE.
 *
 * Usage: nfq-impair -q QUEUE [-d DELAY_MS] [-j JITTER_MS] [-o 0|1]
 *                    [-n EVERY | -p PROB] [-b BURST_LEN] [-s SEED]
 *
 *   -q QUEUE   NFQUEUE number to bind (in the current network namespace)
 *   -d MS      hold every passed packet MS milliseconds
 *   -j MS      hold every passed packet a further time drawn uniformly from
 *              [0, MS] (a PRNG seeded with SEED, apart from the loss one)
 *   -o 1|0     1 (default): keep the order, a packet never leaves before one
 *              that came earlier (it waits for it); 0: each leaves at its
 *              own time, so jitter reorders
 *   -n EVERY   deterministic bursts: of every EVERY packets the last BURST_LEN
 *              are dropped (packets 0..EVERY-BURST_LEN-1 pass first)
 *   -p PROB    random bursts: each packet outside a burst starts one with
 *              probability PROB (0..1), from a PRNG seeded with SEED
 *   -b LEN     burst length in packets (default 1)
 *   -s SEED    PRNG seed (default 1); same seed and packets -> same drops
 *
 * Settings change at run time through lines on stdin, with the same meaning:
 * "delay MS", "jitter MS", "order 0|1", "every N", "prob P", "burst LEN",
 * "seed S"; "stats" prints the counters.  After binding, it prints
 * "nfq-impair: ready queue=Q".  On SIGTERM or SIGINT it releases held packets
 * and prints one line "nfq-impair: passed=N dropped=N bursts=N
 * jitter_mean_us=N jitter_max_us=N reordered=N" (also on SIGUSR1 and
 * "stats"): the time passed packets were held beyond the fixed delay (their
 * draw, or longer to keep the order) and the packets that left after one that
 * came later.
 */
#include "nfq-loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The jitter draws come from a stream of their own, so that turning jitter on
 * leaves a seed's drops as they were. */
#define JITTER_SALT 0x6a09e667f3bcc908ull

struct held {
  uint64_t due_ns;
  uint64_t seq;                 /* arrival order: ties and reordering */
  uint64_t extra_ns;            /* hold beyond the fixed delay */
  uint32_t id;
};

static struct {
  /* settings */
  uint64_t delay_ns;
  uint64_t jitter_ns;
  int keep_order;
  uint64_t every;
  double prob;
  uint64_t burst_len;
  uint64_t rng;
  uint64_t jitter_rng;
  /* state */
  uint64_t seen;        /* packets seen since "every" was set */
  uint64_t burst_left;  /* packets still to drop in the current random burst */
  struct held *heap;    /* held packets, a min-heap on (due time, arrival) */
  size_t cap, len;
  uint64_t arrivals;    /* packets held so far: the next one's seq */
  uint64_t last_due;    /* latest due time given so far */
  uint64_t released_seq;        /* one above the latest seq released */
  /* counters */
  uint64_t passed, dropped, bursts;
  uint64_t held_passed, extra_sum_ns, extra_max_ns, reordered;
} S = { .burst_len = 1, .keep_order = 1, .rng = 1, .jitter_rng = JITTER_SALT ^ 1 };

/* splitmix64: small, fast and the same on every platform */
static double rng_uniform_from (uint64_t * state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_uniform (void)
{
  return rng_uniform_from (&S.rng);
}

static void print_stats (void *data)
{
  uint64_t mean_ns = S.held_passed ? S.extra_sum_ns / S.held_passed : 0;

  (void) data;
  printf ("nfq-impair: passed=%llu dropped=%llu bursts=%llu jitter_mean_us=%llu "
      "jitter_max_us=%llu reordered=%llu\n",
      (unsigned long long) S.passed, (unsigned long long) S.dropped,
      (unsigned long long) S.bursts, (unsigned long long) (mean_ns / 1000),
      (unsigned long long) (S.extra_max_ns / 1000),
      (unsigned long long) S.reordered);
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

static int held_before (const struct held *a, const struct held *b)
{
  return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void held_swap (size_t i, size_t j)
{
  struct held t = S.heap[i];
  S.heap[i] = S.heap[j];
  S.heap[j] = t;
}

static void heap_push (struct held h)
{
  size_t i;

  if (S.len == S.cap) {
    size_t ncap = S.cap ? S.cap * 2 : 1024;
    struct held *n = realloc (S.heap, ncap * sizeof *n);
    if (!n) {
      perror ("nfq-impair: realloc");
      exit (1);
    }
    S.heap = n;
    S.cap = ncap;
  }
  i = S.len++;
  S.heap[i] = h;
  while (i > 0 && held_before (&S.heap[i], &S.heap[(i - 1) / 2])) {
    held_swap (i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

static struct held heap_pop (void)
{
  struct held top = S.heap[0];
  size_t i = 0;

  S.heap[0] = S.heap[--S.len];
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < S.len && held_before (&S.heap[l], &S.heap[m]))
      m = l;
    if (r < S.len && held_before (&S.heap[r], &S.heap[m]))
      m = r;
    if (m == i)
      break;
    held_swap (i, m);
    i = m;
  }
  return top;
}

static void pass (const struct held *h)
{
  nfq_verdict (h->id, 1);
  S.passed++;
  S.held_passed++;
  S.extra_sum_ns += h->extra_ns;
  if (h->extra_ns > S.extra_max_ns)
    S.extra_max_ns = h->extra_ns;
  if (h->seq + 1 < S.released_seq)
    S.reordered++;
  else
    S.released_seq = h->seq + 1;
}

/* Accept held packets that are due (all of them if force). */
static void release (uint64_t now, int force)
{
  while (S.len > 0 && (force || S.heap[0].due_ns <= now)) {
    struct held h = heap_pop ();
    pass (&h);
  }
}

/* Hold a passed packet for the delay and a jitter draw, or until the packet
 * before it leaves if that is later and the order is kept. */
static void hold (uint32_t id, uint64_t now)
{
  uint64_t draw = 0, due;

  if (S.jitter_ns > 0)
    draw = (uint64_t) (rng_uniform_from (&S.jitter_rng) * S.jitter_ns + 0.5);
  due = now + S.delay_ns + draw;
  if (S.keep_order && due < S.last_due)
    due = S.last_due;
  if (due > S.last_due)
    S.last_due = due;
  heap_push ((struct held) { due, S.arrivals++, due - now - S.delay_ns, id });
}

static void on_packet (uint32_t id, uint32_t len, uint64_t now, void *data)
{
  (void) len;
  (void) data;
  if (should_drop ()) {
    nfq_verdict (id, 0);
    S.dropped++;
  } else if (S.delay_ns == 0 && S.jitter_ns == 0 && S.len == 0) {
    nfq_verdict (id, 1);
    S.passed++;
  } else {
    hold (id, now);
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
    case 'j': S.jitter_ns = (uint64_t) (v * 1e6); return 0;
    case 'o': if (v != 0 && v != 1) return -1; S.keep_order = v > 0; return 0;
    case 'n': S.every = (uint64_t) v; S.seen = 0; if (S.every) S.prob = 0; break;
    case 'p': if (v > 1) return -1; S.prob = v; if (v > 0) S.every = 0; break;
    case 'b': if (v < 1) return -1; S.burst_len = (uint64_t) v; break;
    case 's':
      S.rng = (uint64_t) v;
      S.jitter_rng = JITTER_SALT ^ (uint64_t) v;
      S.burst_left = 0;
      return 0;
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
  if (strcmp (word, "delay") == 0 || strcmp (word, "jitter") == 0
      || strcmp (word, "order") == 0 || strcmp (word, "every") == 0
      || strcmp (word, "prob") == 0 || strcmp (word, "burst") == 0
      || strcmp (word, "seed") == 0)
    return apply (word[0] == 'e' ? 'n' : word[0], val);
  return -1;
}

static uint64_t next_deadline (void *data)
{
  (void) data;
  return S.len > 0 ? S.heap[0].due_ns : UINT64_MAX;
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

  while ((opt = getopt (argc, argv, "q:d:j:o:n:p:b:s:")) != -1) {
    if (opt == 'q')
      queue = atoi (optarg);
    else if (opt == '?' || apply ((char) opt, optarg) != 0) {
      fprintf (stderr, "usage: nfq-impair -q QUEUE [-d DELAY_MS] [-j JITTER_MS] "
          "[-o 0|1] [-n EVERY | -p PROB] [-b BURST_LEN] [-s SEED]\n");
      return 2;
    }
  }
  if (queue < 0 || queue > 65535) {
    fprintf (stderr, "nfq-impair: -q QUEUE (0..65535) is required\n");
    return 2;
  }
  return nfq_loop_run (queue, &ops, NULL);
}
