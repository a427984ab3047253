/* nfq-loop: the NFQUEUE plumbing that nfq-impair and nfq-bottleneck share. */
#define _GNU_SOURCE
#include "nfq-loop.h"

#include <arpa/inet.h>           /* before the linux/ headers */
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Enough of each packet to read the IPv4 total length. */
#define COPY_RANGE 4

static struct nfq_q_handle *qh;
static const NfqLoopOps *ops;
static void *ops_data;
static volatile sig_atomic_t got_stop, got_usr1;

static void on_signal (int sig)
{
  if (sig == SIGUSR1)
    got_usr1 = 1;
  else
    got_stop = 1;
}

uint64_t nfq_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void nfq_verdict (uint32_t id, int accept)
{
  nfq_set_verdict (qh, id, accept ? NF_ACCEPT : NF_DROP, 0, NULL);
}

/* The IP packet's length: the IPv4 total length field (the copy holds only
 * its first bytes), else what the kernel copied. */
static uint32_t packet_length (struct nfq_data *nfa)
{
  unsigned char *p;
  int n = nfq_get_payload (nfa, &p);
  if (n >= 4 && (p[0] >> 4) == 4)
    return (uint32_t) p[2] << 8 | p[3];
  return n > 0 ? (uint32_t) n : 0;
}

static int on_nfq_packet (struct nfq_q_handle *q, struct nfgenmsg *msg,
    struct nfq_data *nfa, void *data)
{
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr (nfa);
  (void) q;
  (void) msg;
  (void) data;
  if (ph)
    ops->on_packet (ntohl (ph->packet_id), packet_length (nfa), nfq_now_ns (), ops_data);
  return 0;
}

static void on_line (char *line)
{
  char word[24], val[64];
  int n = sscanf (line, "%23s %63s", word, val);
  if (n >= 1 && strcmp (word, "stats") == 0)
    ops->print_stats (ops_data);
  else if (n >= 1 && ops->on_command (word, n == 2 ? val : "", ops_data) == 0)
    ;
  else if (n >= 1)
    fprintf (stderr, "%s: bad command: %s\n", ops->name, line);
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
    on_line (buf);
    used -= (size_t) (nl + 1 - buf);
    memmove (buf, nl + 1, used + 1);
  }
  if (used == sizeof buf - 1)
    used = 0;                   /* overlong line: discard */
  return 0;
}

/* Signals are only delivered inside ppoll(), so no wake-up is lost; *orig
 * gets the mask to wait with. */
static void catch_signals (sigset_t * orig)
{
  sigset_t block;
  struct sigaction sa;
  sigemptyset (&block);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGUSR1);
  sigprocmask (SIG_BLOCK, &block, orig);
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGUSR1, &sa, NULL);
  signal (SIGPIPE, SIG_IGN);
}

static struct nfq_handle *bind_queue (int queue)
{
  struct nfq_handle *h = nfq_open ();
  int one = 1;
  if (!h) {
    fprintf (stderr, "%s: nfq_open: %s\n", ops->name, strerror (errno));
    return NULL;
  }
  qh = nfq_create_queue (h, (uint16_t) queue, on_nfq_packet, NULL);
  if (!qh) {
    fprintf (stderr, "%s: cannot bind queue %d: %s\n", ops->name, queue, strerror (errno));
    nfq_close (h);
    return NULL;
  }
  if (nfq_set_mode (qh, NFQNL_COPY_PACKET, COPY_RANGE) < 0)
    fprintf (stderr, "%s: nfq_set_mode: %s\n", ops->name, strerror (errno));
  nfq_set_queue_maxlen (qh, 100000);
  nfnl_rcvbufsiz (nfq_nfnlh (h), 16 << 20);
  setsockopt (nfq_fd (h), SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
  return h;
}

static void receive_packets (struct nfq_handle *h)
{
  static char buf[65536];
  for (;;) {
    ssize_t r = recv (nfq_fd (h), buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0)
      nfq_handle_packet (h, buf, (int) r);
    else if (r < 0 && errno == ENOBUFS)
      fprintf (stderr, "%s: netlink overrun, packets lost\n", ops->name);
    else
      break;
  }
}

int nfq_loop_run (int queue, const NfqLoopOps * o, void *data)
{
  struct nfq_handle *h;
  sigset_t orig;
  int stdin_open = 1;

  ops = o;
  ops_data = data;
  catch_signals (&orig);
  if (!(h = bind_queue (queue)))
    return 1;
  printf ("%s: ready queue=%d\n", ops->name, queue);
  fflush (stdout);

  while (!got_stop) {
    struct pollfd fds[2] = {
      { .fd = nfq_fd (h), .events = POLLIN },
      { .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
    };
    struct timespec ts, *tsp = NULL;
    uint64_t due = ops->next_deadline (data);
    if (due != UINT64_MAX) {
      uint64_t now = nfq_now_ns (), wait = due > now ? due - now : 0;
      ts.tv_sec = (time_t) (wait / 1000000000u);
      ts.tv_nsec = (long) (wait % 1000000000u);
      tsp = &ts;
    }
    if (ppoll (fds, 2, tsp, &orig) < 0 && errno != EINTR) {
      fprintf (stderr, "%s: ppoll: %s\n", ops->name, strerror (errno));
      break;
    }
    if (fds[0].revents & POLLIN)
      receive_packets (h);
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR) && read_commands () < 0)
      stdin_open = 0;
    ops->on_time (nfq_now_ns (), data);
    if (got_usr1) {
      got_usr1 = 0;
      ops->print_stats (data);
    }
  }
  ops->flush (data);
  ops->print_stats (data);
  nfq_destroy_queue (qh);
  nfq_close (h);
  return 0;
}
