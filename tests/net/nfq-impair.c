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
#define _GNU_SOURCE
#include <arpa/inet.h>           /* before the linux/ headers */
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct held {
  uint32_t id;
  uint64_t due_ns;
};

static struct {
  struct nfq_q_handle *qh;
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

static volatile sig_atomic_t got_stop, got_usr1;

static void on_signal (int sig)
{
  if (sig == SIGUSR1)
    got_usr1 = 1;
  else
    got_stop = 1;
}

static uint64_t now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* splitmix64: small, fast and the same on every platform */
static double rng_uniform (void)
{
  uint64_t z = (S.rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

static void print_stats (void)
{
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
    nfq_set_verdict (S.qh, S.fifo[S.head].id, NF_ACCEPT, 0, NULL);
    S.passed++;
    S.head = (S.head + 1) % S.cap;
    S.len--;
  }
}

static int on_packet (struct nfq_q_handle *qh, struct nfgenmsg *msg,
    struct nfq_data *nfa, void *data)
{
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr (nfa);
  uint32_t id;
  (void) msg;
  (void) data;
  if (!ph)
    return 0;
  id = ntohl (ph->packet_id);
  if (should_drop ()) {
    nfq_set_verdict (qh, id, NF_DROP, 0, NULL);
    S.dropped++;
  } else if (S.delay_ns == 0 && S.len == 0) {
    nfq_set_verdict (qh, id, NF_ACCEPT, 0, NULL);
    S.passed++;
  } else {
    fifo_push (id, now_ns () + S.delay_ns);
  }
  return 0;
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

static void on_command (char *line)
{
  char word[16], val[64];
  int n = sscanf (line, "%15s %63s", word, val);
  if (n >= 1 && strcmp (word, "stats") == 0)
    print_stats ();
  else if (n == 2 && (strcmp (word, "delay") == 0 || strcmp (word, "every") == 0
          || strcmp (word, "prob") == 0 || strcmp (word, "burst") == 0
          || strcmp (word, "seed") == 0) && apply (word[0] == 'e' ? 'n' :
          word[0], val) == 0)
    ;
  else if (n >= 1)
    fprintf (stderr, "nfq-impair: bad command: %s\n", line);
}

/* Read what is available on stdin and run complete lines; -1 on EOF. */
static int read_commands (void)
{
  static char buf[1024];
  static size_t used;
  ssize_t r = read (STDIN_FILENO, buf + used, sizeof buf - 1 - used);
  char *nl;
  if (r <= 0)
    return (r < 0 && errno == EINTR) ? 0 : -1;
  used += (size_t) r;
  buf[used] = '\0';
  while ((nl = strchr (buf, '\n'))) {
    *nl = '\0';
    on_command (buf);
    used -= (size_t) (nl + 1 - buf);
    memmove (buf, nl + 1, used + 1);
  }
  if (used == sizeof buf - 1)
    used = 0;                   /* overlong line: discard */
  return 0;
}

int main (int argc, char **argv)
{
  int queue = -1, opt, fd, stdin_open = 1;
  struct nfq_handle *h;
  sigset_t block, orig;
  struct sigaction sa;
  static char buf[65536];

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

  /* Signals are only delivered inside ppoll(), so no wake-up is lost. */
  sigemptyset (&block);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGUSR1);
  sigprocmask (SIG_BLOCK, &block, &orig);
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGUSR1, &sa, NULL);
  signal (SIGPIPE, SIG_IGN);

  h = nfq_open ();
  if (!h) {
    perror ("nfq-impair: nfq_open");
    return 1;
  }
  S.qh = nfq_create_queue (h, (uint16_t) queue, on_packet, NULL);
  if (!S.qh) {
    fprintf (stderr, "nfq-impair: cannot bind queue %d: %s\n", queue, strerror (errno));
    return 1;
  }
  if (nfq_set_mode (S.qh, NFQNL_COPY_META, 0) < 0)
    perror ("nfq-impair: nfq_set_mode");
  nfq_set_queue_maxlen (S.qh, 100000);
  nfnl_rcvbufsiz (nfq_nfnlh (h), 16 << 20);
  fd = nfq_fd (h);
  {
    int one = 1;
    setsockopt (fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
  }
  printf ("nfq-impair: ready queue=%d\n", queue);
  fflush (stdout);

  while (!got_stop) {
    struct pollfd fds[2] = {
      { .fd = fd, .events = POLLIN },
      { .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
    };
    struct timespec ts, *tsp = NULL;
    if (S.len > 0) {
      uint64_t now = now_ns (), due = S.fifo[S.head].due_ns;
      uint64_t wait = due > now ? due - now : 0;
      ts.tv_sec = (time_t) (wait / 1000000000u);
      ts.tv_nsec = (long) (wait % 1000000000u);
      tsp = &ts;
    }
    if (ppoll (fds, 2, tsp, &orig) < 0 && errno != EINTR) {
      perror ("nfq-impair: ppoll");
      break;
    }
    if (fds[0].revents & POLLIN) {
      for (;;) {
        ssize_t r = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r > 0)
          nfq_handle_packet (h, buf, (int) r);
        else if (r < 0 && errno == ENOBUFS)
          fprintf (stderr, "nfq-impair: netlink overrun, packets lost\n");
        else
          break;
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR) && read_commands () < 0)
      stdin_open = 0;
    release (now_ns (), 0);
    if (got_usr1) {
      got_usr1 = 0;
      print_stats ();
    }
  }
  release (0, 1);
  print_stats ();
  nfq_destroy_queue (S.qh);
  nfq_close (h);
  return 0;
}
