/* nfq-loop: the NFQUEUE plumbing that nfq-impair and nfq-bottleneck share.
 *
 * Binds a queue in the current network namespace, prints "NAME: ready
 * queue=Q", then runs one loop until SIGTERM or SIGINT: packets go to
 * on_packet (with their id, IP length and arrival time), lines "WORD VALUE" on
 * stdin to on_command, "stats" on stdin and SIGUSR1 to print_stats, and
 * on_time runs whenever next_deadline has passed.  At the end, flush gives the
 * held packets their verdicts and print_stats runs once more.
 */
#ifndef NFQ_LOOP_H
#define NFQ_LOOP_H

#include <stdint.h>

typedef struct {
  const char *name;             /* prefix of every line printed */
  /* a packet of len bytes (IP header included) arrived at now */
  void (*on_packet) (uint32_t id, uint32_t len, uint64_t now, void *data);
  /* a "WORD VALUE" line (value "" for a lone word); 0 if understood */
  int (*on_command) (const char *word, const char *value, void *data);
  void (*print_stats) (void *data);
  /* when on_time must run next (UINT64_MAX: no need) */
  uint64_t (*next_deadline) (void *data);
  void (*on_time) (uint64_t now, void *data);
  void (*flush) (void *data);
} NfqLoopOps;

/* CLOCK_MONOTONIC in ns. */
uint64_t nfq_now_ns (void);
/* Give packet id its verdict (1: accept, 0: drop). */
void nfq_verdict (uint32_t id, int accept);
/* Bind queue and run until stopped; the process's exit status. */
int nfq_loop_run (int queue, const NfqLoopOps * ops, void *data);

#endif
