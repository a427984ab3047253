/* aqmcore: a bottleneck link with a queue discipline, sans I/O (plain C).
 *
 * Packets arrive with an id, a size and the time; the link serves them at a
 * fixed rate in arrival order (serialisation: size * 8 / rate), holds each
 * for a fixed one-way delay after its last bit left, and the queue in front
 * of the link drops by its discipline: drop-tail at the limit, RED (Floyd and
 * Jacobson 1993) at enqueue, or CoDel (RFC 8289) at dequeue.  The caller
 * passes the current time and asks for verdicts (drop or deliver an id) and
 * the next deadline; all times are in nanoseconds of one monotonic clock.
 *
 * The link's schedule is virtual: a packet starts when the link is free and
 * the packet has arrived, whatever time the caller polls at, so the rate is
 * exact even when the caller wakes late.
 */
#ifndef AQMCORE_H
#define AQMCORE_H

#include <stdint.h>

typedef enum {
  AQM_DROPTAIL,
  AQM_RED,
  AQM_CODEL,
} AqmDiscipline;

typedef struct {
  AqmDiscipline discipline;
  uint64_t rate_bps;            /* link rate, bit/s (> 0) */
  uint64_t delay_ns;            /* one-way delay after serialisation */
  uint64_t limit_bytes;         /* queue limit in bytes (0: none) */
  uint64_t limit_packets;       /* queue limit in packets (0: none) */
  uint32_t overhead;            /* bytes added to each packet's size on the link */
  /* RED, thresholds on the average queue in bytes */
  double red_min_th, red_max_th, red_max_p, red_w_q;
  int red_gentle;
  uint32_t red_mean_pkt;        /* typical packet size on the link, for idle decay */
  /* CoDel */
  uint64_t codel_target_ns, codel_interval_ns;
  uint32_t codel_mtu;           /* no drop while at most this many bytes are queued */
} AqmConfig;

typedef enum {
  AQM_VERDICT_DROP,
  AQM_VERDICT_ACCEPT,
} AqmVerdictKind;

typedef struct {
  uint32_t id;
  AqmVerdictKind kind;
  uint64_t at;                  /* when it fell due: dequeue (drop), delivery (accept) */
} AqmVerdict;

typedef struct {
  uint64_t arrived, arrived_bytes;
  uint64_t passed, passed_bytes;        /* delivered (accepted) */
  uint64_t dropped_limit;               /* queue full */
  uint64_t dropped_aqm;                 /* RED early/forced drops, CoDel drops */
  uint64_t sojourn_max_ns, sojourn_sum_ns, sojourn_n;  /* queue delay of served packets */
  uint64_t first_start_ns, last_end_ns; /* first bit and last bit on the link */
  uint64_t served_bytes;                /* bytes serialised (with overhead) */
  uint64_t busy_ns;                     /* time the link spent serialising */
} AqmStats;

typedef struct AqmLink AqmLink;

/* A uniform random number in [0, 1); RED's only source of chance. */
typedef double (*AqmUniform) (void *data);

/* Fill cfg with the defaults for rate_bps and discipline (see aqmcore.c:
 * RED after Floyd's parameter rules, CoDel after RFC 8289). */
void aqm_config_defaults (AqmConfig * cfg, AqmDiscipline discipline, uint64_t rate_bps);
/* NULL with a reason in *err if cfg is inconsistent. */
AqmLink *aqm_link_new (const AqmConfig * cfg, AqmUniform uniform, void *uniform_data,
    const char **err);
void aqm_link_free (AqmLink * l);
/* Change the settings; queued packets stay, the discipline's state resets
 * when the discipline changes.  0 or -1 with *err. */
int aqm_link_configure (AqmLink * l, const AqmConfig * cfg, const char **err);
const AqmConfig *aqm_link_config (const AqmLink * l);

/* A packet of size bytes arrives at now.  Returns 1 if it is queued, 0 if it
 * was dropped at enqueue (limit or RED): then its verdict is the caller's. */
int aqm_link_enqueue (AqmLink * l, uint32_t id, uint32_t size, uint64_t now);
/* The next verdict due by now; 0 when there is none. */
int aqm_link_poll (AqmLink * l, uint64_t now, AqmVerdict * out);
/* When the next delivery falls due (UINT64_MAX: nothing queued or held); the
 * link's schedule needs no wake-ups of its own. */
uint64_t aqm_link_next_deadline (const AqmLink * l);
/* Deliver everything still queued or held now (at shutdown). */
int aqm_link_flush (AqmLink * l, AqmVerdict * out);
const AqmStats *aqm_link_stats (const AqmLink * l);
/* Start the counters anew (e.g. after a warm-up). */
void aqm_link_reset_stats (AqmLink * l);
/* Packets and bytes waiting for the link (not yet serialising). */
uint64_t aqm_link_queued_bytes (const AqmLink * l);
uint64_t aqm_link_queued_packets (const AqmLink * l);
/* RED's probability of dropping an arrival at average queue avg (bytes),
 * count arrivals after the last drop (Floyd & Jacobson's p_a). */
double aqm_red_drop_probability (const AqmConfig * cfg, double avg, long count);
/* RED's average queue in bytes (0 for the others). */
double aqm_link_red_avg (const AqmLink * l);

#endif
