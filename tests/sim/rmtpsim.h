/* The RMTP simulator: one server core and N receiver cores on the engine's
 * tree (simengine.h). The server sits at the root behind a sender link to a
 * router; each receiver hangs off the router on its own link, which loses
 * each data-direction packet independently with the scenario's probability.
 * Responses climb back through the router and the sender link, whose
 * bounded queue stands for the server's socket buffer: a response dropped
 * there is an implosion drop. */
#ifndef __RMTP_SIM_H__
#define __RMTP_SIM_H__

#include <glib.h>

#include "rmtpcore.h"

G_BEGIN_DECLS

typedef struct {
  guint n_receivers;
  gdouble loss;                 /* per receiver link, server -> receiver */
  guint64 size;                 /* data set bytes */
  guint64 sender_link;          /* bit/s: 10 Mbit/s */
  gint64 core_delay;            /* server -> router: 5 ms */
  gint64 edge_delay;            /* router -> receiver: 5 ms */
  guint64 edge_link;            /* bit/s: 100 Mbit/s */
  guint response_queue;         /* packets the server's side buffers: 64 */
  guint n_slow;                 /* the last n_slow receivers' links: 0 */
  guint64 slow_link;            /* ... run at this rate, bit/s: 2 Mbit/s */
  guint slow_queue;             /* ... with this queue, packets: 32 */
  guint n_cack_lost;            /* the first n receivers' CACKs are all
                                 * lost, the answers to the CONN retries
                                 * too: 0 */
  guint64 seed;
  RmtpConfig cfg;               /* rate: 8 Mbit/s; window_size > 0:
                                 * streaming mode */
} RmtpSimParams;

typedef struct {
  gboolean finished;            /* the server reported DONE */
  gint64 transfer_time;         /* start to the server's DONE, ns */
  guint complete;               /* receivers that verified and were released */
  guint failed;
  guint rounds;
  guint max_responses_per_round;
  guint64 response_drops;       /* responses lost in the server's queue */
  guint64 data_sent, data_resent, polls;
  guint64 unicast_data;         /* DATA sent by unicast */
  guint64 parity_sent;          /* PARITY packets */
  guint slow_detected;          /* receivers the server set aside for loss */
  guint taken_back;             /* ... given up at CONNECT, heard later */
  gint64 fast_done_time;        /* the last receiver not on a slow link
                                 * released, ns (-1: one was not) */
  gint64 slow_done_time;        /* the same for the slow links */
  guint windows;                /* streaming mode: windows sent (else 1) */
  guint64 max_held;             /* the most bytes the server held */
} RmtpSimResult;

void rmtp_sim_params_init (RmtpSimParams * p, guint n, gdouble loss);
void rmtp_sim_run (const RmtpSimParams * p, RmtpSimResult * out);

/* Line time of @size bytes at @rate; the ARQ bound (line time x expected
 * transmissions until all @n receivers hold a packet lost with @loss) and
 * the ideal erasure code (line time / (1 - loss)), all in seconds. */
gdouble rmtp_sim_line_time (guint64 size, guint64 rate);
gdouble rmtp_sim_arq_bound (guint64 size, guint64 rate, guint n,
    gdouble loss);
gdouble rmtp_sim_ideal_code (guint64 size, guint64 rate, gdouble loss);

G_END_DECLS

#endif /* __RMTP_SIM_H__ */
