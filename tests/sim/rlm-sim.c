#include <unistd.h>
/* RLM in the simulator, on the paper's topologies (Fig. 7) with its
 * section 4 settings: 1.5 Mbit/s links, 20-packet drop-tail queues, 1 KB
 * packets, six layers of 32 * 2^m kbit/s, receivers starting uniformly in
 * [30, 120] s. Prints each receiver's level, convergence time and
 * worst-case loss over 1, 10 and 100 s windows, then the maxima.
 *
 *   rlm-sim [-t TOPOLOGY] [-n RECEIVERS] [-d SECONDS] [-l DELAY_MS]
 *           [-s SEED] [-b BOTTLENECK_BPS] [-q QUEUE_PACKETS] [-m]
 *           [-r RATE,RATE,...] [-p PACKET_BYTES] [-Q QUEUE_BYTES]
 *           [-P PRUNE_MS] [-S] [-B] [-j START_LEVEL]
 *           [-A droptail|red|codel|fq] [-T LOSS_THRESHOLD] [-R] [-G] [-M]
 *           [-D] [-I] [-U MS] [-L] [-F] [-O] [-W MS] [-E TD_MS,DEV_MS]
 *           [-H SCALE]
 *           [-v RX] [-V RX] [-k K] [-Z]
 *
 * Topology 1: source - bottleneck - one receiver. 2: source - bottleneck -
 * n receivers. 3: n/2 receivers behind the bottleneck B and n/2 behind
 * B/2. 4: n independent sessions, one receiver each, share a bottleneck
 * of n B whose queue holds twice its bandwidth-delay product (section
 * 4.3); the optimal level is the one that fits the fair share B. -m draws
 * join timers with mean lambda (RLM_JOIN_DRAW_MEAN).
 *
 * -r sets the layers (bit/s each, not cumulative), -p the wire size, -Q a
 * queue bound in bytes, -P the prune latency, -S starts every receiver at
 * 0. -B is the namespace bed of tests/net/test_rlm_single.py: 4 layers of
 * 250, 250, 500, 1000 kbit/s, 1240-byte packets, the tbf's 200 ms queue
 * (37500 bytes at 1.5 Mbit/s, scaled with -b), 1 ms links, a 2 s prune
 * (the bridge's two group-specific queries 1 s apart), receivers started
 * together, 70 s. Options after -B override it. -j starts each receiver
 * at START_LEVEL (RlmConfig.start_level; 0: the optimal level of its path,
 * as a receiver that learned it in an earlier session). -A puts a queue
 * discipline on the bottleneck links (the shared one, and in topology (3)
 * the slow one): tests/net/aqmcore's drop-tail, RED or CoDel, or fair
 * queueing per session; the paper's sections 5 and 8 expect RED to lower
 * the loss, and RED or FQ to share a link fairly among sessions. -T sets
 * the loss threshold T of the M state (RlmConfig.loss_threshold). -R
 * turns join_reported on, -G gap_retry, -M measure_own_loss, -D
 * learn_detection_time. -E starts every receiver's detection-time
 * estimate at T̂_D = TD_MS and σ̂_D = DEV_MS (RlmConfig.detection_time_init,
 * detection_dev_init), as one carried from an earlier session; the
 * summary's last line gives the median of the receivers' estimates at the
 * end, what such a session would carry. -H SCALE turns join_latency_hold
 * on: another's experiment below a receiver's target holds its join timer
 * for at most SCALE times the largest join latency it measured; the
 * summary gives the median of those latencies. -a MS sets
 * reported_max_age: join_reported counts only settled REPORTs heard in
 * the last MS milliseconds. -I turns first_climb_unheld on: until a
 * receiver's first loss, and while the timer of its next level never
 * backed off, another receiver's experiment at a level it holds does not
 * hold back its join timer; -U MS does too, and ends it MS milliseconds
 * after the receiver's start (first_climb_unheld_for). -L (with -I or
 * -U) holds an experiment above the lowest level the members report
 * settled as the paper holds it (first_climb_to_settled). -F turns
 * learn_higher_failures on: a loss during another's experiment two or
 * more levels up backs off that level's timer and keeps the receiver in
 * S. -O (with -F) learns so only while that experiment is the only one in
 * progress above the receiver's level (learn_higher_sole); -W MS (with
 * -F) only within MS milliseconds of that level's first announcement
 * (learn_higher_onset); -Y (with -F) within the onset measured on the
 * receiver's own path, -W's bound until it has a sample
 * (learn_higher_onset_measured); -X (with -F) not while an experiment
 * between began within that bound (learn_higher_fresh_between). -N turns
 * learn_reported_failures on: failures are repeated in the REPORTs for
 * as long as the join timer they set, and a receiver below the level
 * raises its timer to the reported one; the summary then counts those
 * REPORTs sent, heard and adopted. -k K puts every K-th receiver of topology (3)
 * behind B/2 (2: half of them; -n K -k K: one, slower than all others).
 * -Z (topology 3) puts each loss of the slow set down to what the slow
 * link carried when it came (lines "#Z"; see the comment on CAUSE_STEP)
 * and lists the episodes of slow receivers above the level that link
 * fits.
 * -v RX prints receiver RX's level changes and experiment counters, -V RX
 * (lines "##") what its core did as it happened: each join-timer expiry,
 * its outcome and the announced lower experiments that held it back
 * (announcer, its start, level, age), learned backoffs, failures with the
 * detection-time estimate, state changes. The summary gives
 * the median and the slowest convergence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* -V: what the traced receiver's core did, call by call */
typedef struct {
  const gint64 *starts;         /* receivers' start times */
  gdouble k1, k2;               /* the detection window's scaling */
} CoreTrace;

/* -A beyond aqmcore's disciplines */
#define QUEUEING_ENGINE (-1)    /* the engine's own drop-tail */
#define QUEUEING_FQ 100

typedef struct {
  guint topology, n;
  gint64 duration, delay;
  guint64 seed, bottleneck;
  guint queue, queue_bytes, packet_size;
  gint64 prune_ms;
  gboolean mean_draw, start_together;
  gint start_level;
  gint queueing;                /* QUEUEING_* or an AqmDiscipline */
  gdouble loss_threshold;       /* 0: the core's default */
  gboolean join_reported;
  gboolean gap_retry;
  gboolean measure_own_loss;
  gboolean learn_detection_time;
  gint64 start_detection_time;  /* -E: ns, 0 the core's default */
  gint64 start_detection_dev;
  gdouble join_latency_hold;    /* -H: RlmConfig.join_latency_hold */
  gint64 reported_max_age;      /* -a: ns, 0 every last REPORT */
  gboolean first_climb_unheld;  /* -I */
  gint64 first_climb_unheld_for;        /* -U: ns, turns -I on too */
  gboolean learn_higher_failures;       /* -F */
  gboolean learn_higher_sole;   /* -O */
  gint64 learn_higher_onset;    /* -W: ns, 0 none */
  gboolean learn_higher_onset_measured; /* -Y */
  gboolean learn_higher_fresh_between;  /* -X */
  gboolean learn_reported_failures;     /* -N */
  gboolean first_climb_to_settled;      /* -L */
  gint trace;                   /* receiver whose level changes to print, -1 */
  gint core_trace;              /* receiver whose core calls to trace, -1 */
  gboolean loss_causes;         /* -Z */
  guint slow_every;             /* topology (3): every this-th receiver is
                                 * behind B/2 */
  guint n_layers;
  guint64 layer_rate[RLM_MAX_LAYERS];
} Options;

static gint
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The median of @n convergence times, a receiver not converged counting
 * as the slowest; -1 when that median one did not converge. */
static gint64
median_convergence (gint64 * conv, guint n)
{
  gint64 m;

  for (guint i = 0; i < n; i++)
    if (conv[i] < 0)
      conv[i] = G_MAXINT64;
  qsort (conv, n, sizeof (gint64), compare_gint64);
  m = n % 2 ? conv[n / 2] : (conv[n / 2 - 1] / 2 + conv[n / 2] / 2);
  return conv[n / 2] == G_MAXINT64 ? -1 : m;
}

/* The median over the receivers of their detection-time estimate, its
 * deviation and their largest join latency (-1: none) at the end of the
 * run, in @t_d, @dev and @join_latency (ns); the estimate's median over
 * those that failed an experiment of their own in @failed_t_d and
 * @failed_dev (-1: none did). */
static void
median_estimate (Sim * sim, guint n, gint64 * t_d, gint64 * dev,
    gint64 * join_latency, gint64 * failed_t_d, gint64 * failed_dev)
{
  gint64 *a = g_new (gint64, n), *b = g_new (gint64, n);
  gint64 *c = g_new (gint64, n), *fa = g_new (gint64, n);
  gint64 *fb = g_new (gint64, n);
  guint nf = 0;

  for (guint i = 0; i < n; i++) {
    RlmReceiverStats st;

    rlm_receiver_get_stats (sim_receiver_core (sim, i), &st);
    a[i] = st.detection_time;
    b[i] = st.detection_dev;
    c[i] = st.join_latency;
    if (st.experiments_failed > 0) {
      fa[nf] = st.detection_time;
      fb[nf++] = st.detection_dev;
    }
  }
  qsort (fa, nf, sizeof (gint64), compare_gint64);
  qsort (fb, nf, sizeof (gint64), compare_gint64);
  *failed_t_d = nf ? fa[nf / 2] : -1;
  *failed_dev = nf ? fb[nf / 2] : -1;
  qsort (a, n, sizeof (gint64), compare_gint64);
  qsort (b, n, sizeof (gint64), compare_gint64);
  qsort (c, n, sizeof (gint64), compare_gint64);
  *t_d = a[n / 2];
  *dev = b[n / 2];
  *join_latency = c[n / 2];
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (fa);
  g_free (fb);
}

/* -v: every level change of receiver @i, with its time and reason. */
static void
print_trace (Sim * sim, guint i)
{
  const GArray *evs = sim_receiver_events (sim, i);
  RlmReceiverStats st;

  for (guint k = 0; k < evs->len; k++) {
    const SimEventRecord *e = &g_array_index (evs, SimEventRecord, k);

    if (e->ev.type == RLM_EVENT_LEVEL)
      printf ("# rx %u %.3f s level %u %s\n", i, e->time / 1e9, e->ev.level,
          rlm_reason_name (e->ev.reason));
  }
  rlm_receiver_get_stats (sim_receiver_core (sim, i), &st);
  printf ("# rx %u experiments run %" G_GUINT64_FORMAT " failed %"
      G_GUINT64_FORMAT " suppressed %" G_GUINT64_FORMAT " learned %"
      G_GUINT64_FORMAT " detection samples learned %" G_GUINT64_FORMAT
      " T_D %.2f s sigma %.2f s\n", i, st.experiments_run,
      st.experiments_failed, st.experiments_suppressed,
      st.experiments_learned, st.detection_learned,
      st.detection_time / 1e9, st.detection_dev / 1e9);
}

/* The announced experiments at levels below @target that receiver @rx
 * counted in progress at @now: the ones that held its join timer back. */
static void
print_holders (Sim * sim, guint rx, guint target, gint64 window, gint64 now,
    const CoreTrace * t)
{
  const GArray *joins = sim_join_announcements (sim);

  for (guint k = joins->len; k-- > 0;) {
    const SimJoinRecord *j = &g_array_index (joins, SimJoinRecord, k);
    gint64 heard = j->time + (j->rx == rx ? 0 :
        sim_control_delay (sim, j->rx, rx));

    if (now - j->time > window + SIM_S)
      break;
    if (j->level < target && heard <= now && now - heard < window)
      printf (" [rx %u (start %.1f s) at %u, %.2f s ago]", j->rx,
          t->starts[j->rx] / 1e9, j->level, (now - heard) / 1e9);
  }
}

/* Prints what changed in receiver @rx's core in one call: join-timer
 * expiries and their outcome, learned backoffs, failures, state. */
static void
trace_core (Sim * sim, guint rx, const RlmReceiverStats * b,
    const RlmReceiverStats * a, gpointer data)
{
  const CoreTrace *t = data;
  gint64 now = sim_now (sim);
  gint64 window = (gint64) (t->k1 * b->detection_time +
      t->k2 * b->detection_dev);

  if (b->join_deadline >= 0 && b->join_deadline <= now) {
    printf ("## %.3f level %u join timer (mean %.1f s): ", now / 1e9, b->level,
        b->join_timer[MIN (b->level + 1, RLM_MAX_LAYERS)] / 1e9);
    if (a->experiments_run > b->experiments_run)
      printf ("experiment at %u", a->level);
    else if (a->reported_joins > b->reported_joins)
      printf ("joined the reported level %u", a->level);
    else if (a->experiments_suppressed > b->experiments_suppressed)
      printf ("suppressed, window %.2f s, by", window / 1e9);
    else
      printf ("held by its own experiment or join");
    if (a->experiments_run == b->experiments_run &&
        a->reported_joins == b->reported_joins)
      print_holders (sim, rx, b->level + 1, window, now, t);
    printf ("; next in %.2f s\n", a->join_deadline >= 0 ?
        (a->join_deadline - now) / 1e9 : -1.0);
  }
  if (a->experiments_learned > b->experiments_learned)
    printf ("## %.3f level %u learned: timer of %u now %.1f s\n", now / 1e9,
        b->level, b->level + 1, a->join_timer[b->level + 1] / 1e9);
  if (a->detection_learned > b->detection_learned)
    printf ("## %.3f level %u detection time learned: T_D %.2f s sigma "
        "%.2f s\n", now / 1e9, b->level, a->detection_time / 1e9,
        a->detection_dev / 1e9);
  if (a->experiments_failed > b->experiments_failed)
    printf ("## %.3f own experiment at %u failed: T_D %.2f s sigma %.2f s\n",
        now / 1e9, b->level, a->detection_time / 1e9,
        a->detection_dev / 1e9);
  if (a->state != b->state || a->level != b->level)
    printf ("## %.3f level %u %s\n", now / 1e9, a->level,
        rlm_state_name (a->state));
}

/* -V: every join-experiment announced in the run. */
static void
print_joins (Sim * sim)
{
  const GArray *joins = sim_join_announcements (sim);

  for (guint k = 0; k < joins->len; k++) {
    const SimJoinRecord *j = &g_array_index (joins, SimJoinRecord, k);

    printf ("#J %.3f rx %u level %u\n", j->time / 1e9, j->rx, j->level);
  }
}

/* -Z: where topology (3)'s slow set loses its packets. The run goes in
 * steps of CAUSE_STEP; each step's new losses of every slow receiver are
 * put down to what the slow link carried then: a slow receiver subscribed
 * above the level the link fits (an experiment, from its join to its
 * leave), the link still forwarding that layer after the last such
 * receiver left (prune latency), the layer gone within CAUSE_DRAIN (the
 * queue draining; a gap is counted when the next packet comes), or
 * nothing of it. An episode is a time with a slow receiver above that
 * level; its experimenter is the first to rise. The slow link's own drops
 * are split the same way, at the time they happen. */
#define CAUSE_STEP (10 * SIM_MS)
#define CAUSE_DRAIN SIM_S
#define CAUSE_WINDOW 100        /* seconds */

enum { CAUSE_EXPERIMENT, CAUSE_PRUNE, CAUSE_QUEUE, CAUSE_OTHER, N_CAUSES };

typedef struct {
  guint n, n_sec, fit;          /* fit: the level the slow link carries */
  guint slow_node;
  const gboolean *slow;
  const gint64 *starts;
  guint64 *received, *lost;     /* per receiver, last step */
  guint *lost_sec;              /* [rx][cause][sec] */
  guint *packets_sec;           /* [rx][sec] */
  guint *tries;                 /* per receiver: rises above fit */
  gboolean *above;
  guint in_episode;             /* slow receivers above fit now */
  gint64 forwarded_at;          /* last step the link carried layer fit+1 */
  gint64 episode_end;           /* end of the last episode, -1 none */
  guint *level_at_end;          /* each receiver's level then */
  guint64 link_dropped;         /* the slow link's drops, last step */
  guint64 link_drops[N_CAUSES];
  GArray *episodes;             /* CauseEpisode */
} CauseTrace;

/* What the experimenter was when the last episode ended. */
enum { WAS_ABSENT, WAS_BELOW_FIT, WAS_AT_FIT, N_WAS };
static const char *const was_names[N_WAS] =
    { "arrived since the last episode", "below the fit level at the last",
  "at the fit level at the last"
};

typedef struct {
  gint64 start, end;
  guint experimenter, try_no, peak;     /* peak: most above fit at once */
  guint was;                    /* WAS_* */
  guint64 link_drops;           /* the slow link's, until the next one */
} CauseEpisode;

static gsize
cause_index (const CauseTrace * c, guint rx, guint cause, guint sec)
{
  return ((gsize) rx * N_CAUSES + cause) * c->n_sec + sec;
}

static void
cause_init (CauseTrace * c, guint n, gint64 duration, guint fit,
    guint slow_node, const gboolean * slow, const gint64 * starts)
{
  c->n = n;
  c->n_sec = (guint) (duration / SIM_S) + 1;
  c->fit = fit;
  c->slow_node = slow_node;
  c->slow = slow;
  c->starts = starts;
  c->received = g_new0 (guint64, n);
  c->lost = g_new0 (guint64, n);
  c->lost_sec = g_new0 (guint, (gsize) n * N_CAUSES * c->n_sec);
  c->packets_sec = g_new0 (guint, (gsize) n * c->n_sec);
  c->tries = g_new0 (guint, n);
  c->above = g_new0 (gboolean, n);
  c->in_episode = 0;
  c->forwarded_at = -1;
  c->episode_end = -1;
  c->level_at_end = g_new0 (guint, n);
  c->link_dropped = 0;
  memset (c->link_drops, 0, sizeof (c->link_drops));
  c->episodes = g_array_new (FALSE, TRUE, sizeof (CauseEpisode));
}

static void
cause_clear (CauseTrace * c)
{
  g_free (c->received);
  g_free (c->lost);
  g_free (c->lost_sec);
  g_free (c->packets_sec);
  g_free (c->tries);
  g_free (c->above);
  g_free (c->level_at_end);
  g_array_free (c->episodes, TRUE);
}

/* Which slow receivers are above fit now; opens and closes episodes. */
static void
cause_track_episodes (CauseTrace * c, Sim * sim, gint64 now)
{
  guint above = 0;
  gint first = -1;

  for (guint i = 0; i < c->n; i++) {
    gboolean up = c->slow[i] && sim_receiver_level (sim, i) > c->fit;

    if (up && !c->above[i]) {
      c->tries[i]++;
      if (first < 0)
        first = i;
    }
    c->above[i] = up;
    above += up;
  }
  if (above > 0 && c->in_episode == 0) {
    CauseEpisode e = { now, -1, (guint) first, c->tries[first], above,
      WAS_ABSENT, 0
    };

    if (c->starts[first] <= c->episode_end)
      e.was = c->level_at_end[first] < c->fit ? WAS_BELOW_FIT : WAS_AT_FIT;
    g_array_append_val (c->episodes, e);
  } else if (above > 0) {
    CauseEpisode *e = &g_array_index (c->episodes, CauseEpisode,
        c->episodes->len - 1);
    e->peak = MAX (e->peak, above);
  } else if (c->in_episode > 0) {
    g_array_index (c->episodes, CauseEpisode, c->episodes->len - 1).end =
        now;
    c->episode_end = now;
    for (guint i = 0; i < c->n; i++)
      c->level_at_end[i] = sim_receiver_level (sim, i);
  }
  c->in_episode = above;
}

static guint
cause_now (const CauseTrace * c, Sim * sim, gint64 now)
{
  if (c->in_episode > 0)
    return CAUSE_EXPERIMENT;
  if (sim_link_forwards (sim, c->slow_node, 0, c->fit))
    return CAUSE_PRUNE;
  if (c->forwarded_at >= 0 && now - c->forwarded_at <= CAUSE_DRAIN)
    return CAUSE_QUEUE;
  return CAUSE_OTHER;
}

static void
cause_step (CauseTrace * c, Sim * sim, gint64 now)
{
  guint sec = MIN ((guint) (now / SIM_S), c->n_sec - 1);
  guint cause;

  SimLinkStats ls;

  cause_track_episodes (c, sim, now);
  cause = cause_now (c, sim, now);
  sim_link_stats (sim, c->slow_node, &ls);
  c->link_drops[cause] += ls.dropped - c->link_dropped;
  if (c->episodes->len > 0)
    g_array_index (c->episodes, CauseEpisode, c->episodes->len - 1)
        .link_drops += ls.dropped - c->link_dropped;
  c->link_dropped = ls.dropped;
  if (sim_link_forwards (sim, c->slow_node, 0, c->fit))
    c->forwarded_at = now;
  for (guint i = 0; i < c->n; i++) {
    guint64 rcv, lost;

    if (!c->slow[i])
      continue;
    sim_receiver_counts (sim, i, &rcv, &lost);
    c->lost_sec[cause_index (c, i, cause, sec)] += lost - c->lost[i];
    c->packets_sec[(gsize) i * c->n_sec + sec] +=
        (rcv - c->received[i]) + (lost - c->lost[i]);
    c->received[i] = rcv;
    c->lost[i] = lost;
  }
}

/* Runs the simulation to @until in steps, tracing. */
static void
cause_run (CauseTrace * c, Sim * sim, gint64 until)
{
  for (gint64 t = CAUSE_STEP; t <= until; t += CAUSE_STEP) {
    sim_run (sim, t);
    cause_step (c, sim, t);
  }
}

/* Receiver @rx's worst CAUSE_WINDOW s (whole seconds from its start, or
 * from @not_before s if later): its first second in @from, its lost
 * packets by cause in @by_cause and the packets in @packets. */
static void
cause_worst_window (const CauseTrace * c, guint rx, guint not_before,
    guint * from, guint64 * by_cause, guint64 * packets)
{
  guint first = MAX ((guint) ((c->starts[rx] + SIM_S - 1) / SIM_S),
      not_before);
  gdouble worst = -1;

  *from = first;
  for (guint s = first; s + CAUSE_WINDOW <= c->n_sec; s++) {
    guint64 lost = 0, pk = 0, bc[N_CAUSES] = { 0 };

    for (guint k = s; k < s + CAUSE_WINDOW; k++) {
      pk += c->packets_sec[(gsize) rx * c->n_sec + k];
      for (guint q = 0; q < N_CAUSES; q++)
        bc[q] += c->lost_sec[cause_index (c, rx, q, k)];
    }
    for (guint q = 0; q < N_CAUSES; q++)
      lost += bc[q];
    if (pk > 0 && (gdouble) lost / pk > worst) {
      worst = (gdouble) lost / pk;
      *from = s;
      *packets = pk;
      memcpy (by_cause, bc, sizeof (bc));
    }
  }
}

/* Episodes that began in [@from, @to) s. */
static guint
cause_episodes_in (const CauseTrace * c, guint from, guint to,
    guint * was, guint * first_try)
{
  guint n = 0;

  memset (was, 0, N_WAS * sizeof (guint));
  *first_try = 0;
  for (guint k = 0; k < c->episodes->len; k++) {
    const CauseEpisode *e = &g_array_index (c->episodes, CauseEpisode, k);

    if (e->start >= (gint64) from * SIM_S && e->start < (gint64) to * SIM_S) {
      n++;
      was[e->was]++;
      *first_try += e->try_no == 1;
    }
  }
  return n;
}

/* The slow set's worst CAUSE_WINDOW s among windows that begin after
 * the last receiver started: the loss once the arrivals are over. */
static gdouble
cause_worst_after_arrivals (const CauseTrace * c)
{
  gint64 last = 0;
  gdouble worst = 0;

  for (guint i = 0; i < c->n; i++)
    last = MAX (last, c->starts[i]);
  for (guint i = 0; i < c->n; i++) {
    guint from;
    guint64 bc[N_CAUSES] = { 0 }, pk = 0, lost = 0;

    if (!c->slow[i])
      continue;
    cause_worst_window (c, i, (guint) (last / SIM_S) + 1, &from, bc, &pk);
    for (guint q = 0; q < N_CAUSES; q++)
      lost += bc[q];
    if (pk > 0)
      worst = MAX (worst, (gdouble) lost / pk);
  }
  return worst;
}

static void
cause_print (const CauseTrace * c)
{
  guint worst_rx = G_MAXUINT;
  gdouble worst = -1;

  for (guint k = 0; k < c->episodes->len; k++) {
    const CauseEpisode *e = &g_array_index (c->episodes, CauseEpisode, k);

    printf ("#Z episode %.3f-%.3f s experimenter %u (start %.1f s, try %u, "
        "%s) at most %u above %u at once, slow link dropped %"
        G_GUINT64_FORMAT "\n", e->start / 1e9, e->end / 1e9,
        e->experimenter, c->starts[e->experimenter] / 1e9, e->try_no,
        was_names[e->was], e->peak, c->fit, e->link_drops);
  }
  printf ("#Z slow link drops: experiment %" G_GUINT64_FORMAT " prune %"
      G_GUINT64_FORMAT " queue %" G_GUINT64_FORMAT " other %"
      G_GUINT64_FORMAT "\n", c->link_drops[CAUSE_EXPERIMENT],
      c->link_drops[CAUSE_PRUNE], c->link_drops[CAUSE_QUEUE],
      c->link_drops[CAUSE_OTHER]);
  for (guint i = 0; i < c->n; i++) {
    guint from, was[N_WAS], first_try, eps;
    guint64 bc[N_CAUSES] = { 0 }, pk = 0, lost = 0;

    if (!c->slow[i])
      continue;
    cause_worst_window (c, i, 0, &from, bc, &pk);
    for (guint q = 0; q < N_CAUSES; q++)
      lost += bc[q];
    eps = cause_episodes_in (c, from, from + CAUSE_WINDOW, was, &first_try);
    printf ("#Z rx %u worst %u s from %u s: %.4f (%" G_GUINT64_FORMAT
        " of %" G_GUINT64_FORMAT "); experiment %" G_GUINT64_FORMAT
        " prune %" G_GUINT64_FORMAT " queue %" G_GUINT64_FORMAT " other %"
        G_GUINT64_FORMAT "; episodes begun in it %u (experimenter arrived "
        "since the last %u, below fit at it %u, at fit %u; first try %u)\n",
        i, CAUSE_WINDOW, from,
        pk ? (gdouble) lost / pk : 0.0, lost, pk, bc[CAUSE_EXPERIMENT],
        bc[CAUSE_PRUNE], bc[CAUSE_QUEUE], bc[CAUSE_OTHER], eps,
        was[WAS_ABSENT], was[WAS_BELOW_FIT], was[WAS_AT_FIT], first_try);
    if (pk && (gdouble) lost / pk > worst) {
      worst = (gdouble) lost / pk;
      worst_rx = i;
    }
  }
  if (worst_rx != G_MAXUINT)
    printf ("#Z worst slow receiver %u: %.4f; worst %u s beginning after the "
        "last start: %.4f\n", worst_rx, worst, CAUSE_WINDOW,
        cause_worst_after_arrivals (c));
}

static gboolean
parse_queueing (const char *arg, gint * queueing)
{
  static const struct {
    const char *name;
    gint value;
  } names[] = {
    {"droptail", AQM_DROPTAIL}, {"red", AQM_RED}, {"codel", AQM_CODEL},
    {"fq", QUEUEING_FQ},
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (arg, names[i].name)) {
      *queueing = names[i].value;
      return TRUE;
    }
  return FALSE;
}

/* -A's discipline on the link down into @node. */
static void
apply_queueing (Sim * sim, const Options * o, guint node)
{
  if (o->queueing == QUEUEING_FQ)
    sim_set_fair_queueing (sim, node);
  else if (o->queueing != QUEUEING_ENGINE)
    sim_set_discipline (sim, node, (AqmDiscipline) o->queueing);
}

/* The highest level whose cumulative rate fits @rate. */
static guint
optimal_level (const SimConfig * cfg, guint64 rate)
{
  guint64 sum = 0;
  guint level = 0;

  while (level < cfg->n_layers && sum + cfg->layer_rate[level] <= rate)
    sum += cfg->layer_rate[level++];
  return MAX (level, 1);
}

/* When a receiver starts: at 0 in topology (1) or with -S, else
 * uniformly in [30, 120] s as in the paper's section 4. */
static gint64
receiver_start (const Options * o, RandomSource * rng)
{
  if (o->topology == 1 || o->start_together)
    return 0;
  return random_source_range (rng, 30 * SIM_S, 120 * SIM_S);
}

/* Topology (4): n sessions of the same layers, one receiver each, behind
 * one bottleneck of n times the fair share; queue = 2 x bandwidth-delay
 * product (round trip over both links, 1000-byte packets), at least 2. */
static void
build_superposition (Sim * sim, const Options * o, const SimConfig * cfg,
    const RlmConfig * rc, RandomSource * rng)
{
  guint64 rate = o->bottleneck * o->n;
  gdouble rtt = 4.0 * o->delay / 1000.0;
  guint queue = MAX (2, (guint) (2.0 * rate * rtt / (8.0 * 1000)));
  guint hub = sim_add_node (sim, 0, rate, o->delay * SIM_MS, queue, 0);

  apply_queueing (sim, o, hub);

  for (guint i = 0; i < o->n; i++) {
    guint s = i == 0 ? 0 : sim_add_session (sim, cfg->n_layers,
        cfg->layer_rate);
    guint node = sim_add_node (sim, hub, 10 * o->bottleneck,
        o->delay * SIM_MS, o->queue, o->queue_bytes);

    sim_add_session_receiver (sim, s, node, rc, receiver_start (o, rng));
  }
}

/* "250000,250000,..." into the layer rates; FALSE if malformed. */
static gboolean
parse_rates (const char *arg, Options * o)
{
  gchar **parts = g_strsplit (arg, ",", -1);
  guint n = 0;
  gboolean ok = TRUE;

  for (; parts[n] && ok; n++) {
    gchar *end;

    ok = n < RLM_MAX_LAYERS;
    if (ok)
      o->layer_rate[n] = g_ascii_strtoull (parts[n], &end, 10);
    ok = ok && *end == '\0' && o->layer_rate[n] > 0;
  }
  o->n_layers = ok ? n : 0;
  g_strfreev (parts);
  return ok && n > 0;
}

/* -E "T_D_MS,SIGMA_MS": the detection-time estimate a receiver carries
 * in from an earlier session; FALSE if malformed. */
static gboolean
parse_start_estimate (const char *arg, Options * o)
{
  gchar *end;
  gdouble t_d = g_ascii_strtod (arg, &end), dev;

  if (*end != ',' || t_d <= 0)
    return FALSE;
  dev = g_ascii_strtod (end + 1, &end);
  if (*end != '\0' || dev < 0)
    return FALSE;
  o->start_detection_time = (gint64) (t_d * SIM_MS);
  o->start_detection_dev = (gint64) (dev * SIM_MS);
  return TRUE;
}

/* The namespace bed's settings (-B); see the comment at the top. */
static void
set_bed_profile (Options * o)
{
  parse_rates ("250000,250000,500000,1000000", o);
  o->bottleneck = 1500000;
  o->packet_size = 1240;
  o->queue = 0;
  o->queue_bytes = 37500;
  o->delay = 1;
  o->prune_ms = 2000;
  o->start_together = TRUE;
  o->duration = 70;
}

static gboolean
parse_options (int argc, char **argv, Options * o)
{
  int c;
  gboolean rates_ok = TRUE;

  o->topology = 1;
  o->n = 1;
  o->duration = 600;
  o->delay = 10;
  o->seed = 1;
  o->bottleneck = 1500000;
  o->queue = 20;
  o->mean_draw = FALSE;
  o->queue_bytes = 0;
  o->packet_size = 0;
  o->prune_ms = -1;
  o->start_together = FALSE;
  o->start_level = 1;
  o->queueing = QUEUEING_ENGINE;
  o->loss_threshold = 0;
  o->join_reported = FALSE;
  o->gap_retry = FALSE;
  o->measure_own_loss = FALSE;
  o->learn_detection_time = FALSE;
  o->start_detection_time = 0;
  o->start_detection_dev = 0;
  o->join_latency_hold = 0;
  o->reported_max_age = 0;
  o->first_climb_unheld = FALSE;
  o->first_climb_unheld_for = 0;
  o->learn_higher_failures = FALSE;
  o->learn_higher_sole = FALSE;
  o->learn_higher_onset = 0;
  o->learn_higher_onset_measured = FALSE;
  o->learn_higher_fresh_between = FALSE;
  o->learn_reported_failures = FALSE;
  o->first_climb_to_settled = FALSE;
  o->trace = -1;
  o->core_trace = -1;
  o->loss_causes = FALSE;
  o->slow_every = 2;
  o->n_layers = 0;
  while ((c = getopt (argc, argv,
              "t:n:d:l:s:b:q:mr:p:Q:P:SBj:A:T:RGMDFOW:YXNILU:E:H:a:v:V:k:Z")) != -1) {
    switch (c) {
      case 't':
        o->topology = atoi (optarg);
        break;
      case 'n':
        o->n = MAX (1, atoi (optarg));
        break;
      case 'd':
        o->duration = atoll (optarg);
        break;
      case 'l':
        o->delay = atoll (optarg);
        break;
      case 's':
        o->seed = strtoull (optarg, NULL, 10);
        break;
      case 'b':
        o->bottleneck = strtoull (optarg, NULL, 10);
        break;
      case 'q':
        o->queue = atoi (optarg);
        break;
      case 'm':
        o->mean_draw = TRUE;
        break;
      case 'r':
        rates_ok = parse_rates (optarg, o);
        break;
      case 'p':
        o->packet_size = atoi (optarg);
        break;
      case 'Q':
        o->queue_bytes = atoi (optarg);
        break;
      case 'P':
        o->prune_ms = atoll (optarg);
        break;
      case 'S':
        o->start_together = TRUE;
        break;
      case 'B':
        set_bed_profile (o);
        break;
      case 'j':
        o->start_level = atoi (optarg);
        break;
      case 'T':
        o->loss_threshold = g_ascii_strtod (optarg, NULL);
        rates_ok = rates_ok && o->loss_threshold > 0 && o->loss_threshold < 1;
        break;
      case 'k':
        o->slow_every = MAX (1, atoi (optarg));
        break;
      case 'v':
        o->trace = atoi (optarg);
        break;
      case 'V':
        o->core_trace = atoi (optarg);
        break;
      case 'Z':
        o->loss_causes = TRUE;
        break;
      case 'R':
        o->join_reported = TRUE;
        break;
      case 'G':
        o->gap_retry = TRUE;
        break;
      case 'M':
        o->measure_own_loss = TRUE;
        break;
      case 'D':
        o->learn_detection_time = TRUE;
        break;
      case 'F':
        o->learn_higher_failures = TRUE;
        break;
      case 'O':
        o->learn_higher_sole = TRUE;
        break;
      case 'W':
        o->learn_higher_onset = (gint64) atoi (optarg) * 1000000;
        rates_ok = rates_ok && o->learn_higher_onset > 0;
        break;
      case 'Y':
        o->learn_higher_onset_measured = TRUE;
        break;
      case 'X':
        o->learn_higher_fresh_between = TRUE;
        break;
      case 'N':
        o->learn_reported_failures = TRUE;
        break;
      case 'L':
        o->first_climb_to_settled = TRUE;
        break;
      case 'U':
        o->first_climb_unheld_for = (gint64) atoi (optarg) * 1000000;
        rates_ok = rates_ok && o->first_climb_unheld_for > 0;
        /* fall through */
      case 'I':
        o->first_climb_unheld = TRUE;
        break;
      case 'H':
        o->join_latency_hold = g_ascii_strtod (optarg, NULL);
        rates_ok = rates_ok && o->join_latency_hold > 0;
        break;
      case 'a':
        o->reported_max_age = (gint64) atoi (optarg) * 1000000;
        rates_ok = rates_ok && o->reported_max_age > 0;
        break;
      case 'E':
        rates_ok = rates_ok && parse_start_estimate (optarg, o);
        break;
      case 'A':
        rates_ok = rates_ok && parse_queueing (optarg, &o->queueing);
        break;
      default:
        return FALSE;
    }
  }
  return rates_ok && o->topology >= 1 && o->topology <= 4 &&
      o->bottleneck > 0;
}

static void
apply_options (const Options * o, SimConfig * cfg)
{
  if (o->n_layers > 0) {
    cfg->n_layers = o->n_layers;
    memcpy (cfg->layer_rate, o->layer_rate, sizeof (o->layer_rate));
  }
  if (o->packet_size > 0)
    cfg->packet_size = o->packet_size;
  if (o->prune_ms >= 0)
    cfg->leave_latency = o->prune_ms * SIM_MS;
}

/* The experiment counters summed over the receivers (and, with -N, the
 * failures carried in REPORTs). */
static void
print_experiment_totals (Sim * sim, guint n, gboolean reported_failures)
{
  guint64 run = 0, failed = 0, suppressed = 0, learned = 0;
  guint64 repeated = 0, heard = 0, adopted = 0;

  for (guint i = 0; i < n; i++) {
    RlmReceiverStats st;

    rlm_receiver_get_stats (sim_receiver_core (sim, i), &st);
    run += st.experiments_run;
    failed += st.experiments_failed;
    suppressed += st.experiments_suppressed;
    learned += st.experiments_learned;
    repeated += st.failures_repeated;
    heard += st.failures_heard;
    adopted += st.failures_adopted;
  }
  printf ("# experiments of all receivers: run %" G_GUINT64_FORMAT
      " failed %" G_GUINT64_FORMAT " suppressed %" G_GUINT64_FORMAT
      " learned %" G_GUINT64_FORMAT "\n", run, failed, suppressed, learned);
  if (reported_failures)
    printf ("# failures in REPORTs: sent %" G_GUINT64_FORMAT " heard %"
        G_GUINT64_FORMAT " adopted %" G_GUINT64_FORMAT "\n", repeated, heard,
        adopted);
}

int
main (int argc, char **argv)
{
  Options o;
  SimConfig cfg;
  RlmConfig rc;
  RandomSeeded seeded;
  RandomSource rng;
  Sim *sim;
  guint hub, slow = 0, *optimal;
  gdouble worst[3] = { 0, 0, 0 };
  gint64 windows[3] = { SIM_S, 10 * SIM_S, 100 * SIM_S }, slowest = 0;
  guint unconverged = 0;
  gint64 *convs, *starts, median, est_td, est_dev, est_join, fail_td,
      fail_dev;
  guint within_20s = 0;
  CoreTrace ct;
  CauseTrace cause;
  gboolean *behind = NULL;

  if (!parse_options (argc, argv, &o)) {
    fprintf (stderr, "usage: %s [-t 1|2|3|4] [-n receivers] [-d seconds] "
        "[-l delay_ms] [-s seed] [-b bottleneck_bps] [-q queue] [-m] "
        "[-r rate,...] [-p bytes] [-Q queue_bytes] [-P prune_ms] [-S] [-B] "
        "[-j start_level] [-A droptail|red|codel|fq] [-T loss_threshold] "
        "[-R] [-G] [-M] [-D] [-I] [-U unheld_ms] [-L] [-F] [-O] [-W onset_ms] [-Y] [-X] "
        "[-E td_ms,dev_ms] "
        "[-H scale] [-a max_age_ms] [-v receiver] [-V receiver] "
        "[-k slow_every] [-Z]\n",
        argv[0]);
    return 2;
  }
  sim_config_init (&cfg);
  cfg.seed = o.seed;
  apply_options (&o, &cfg);
  rlm_config_init (&rc);
  if (o.mean_draw)
    rc.join_draw = RLM_JOIN_DRAW_MEAN;
  if (o.loss_threshold > 0)
    rc.loss_threshold = o.loss_threshold;
  rc.join_reported = o.join_reported;
  rc.gap_retry = o.gap_retry;
  rc.measure_own_loss = o.measure_own_loss;
  rc.learn_detection_time = o.learn_detection_time;
  rc.join_latency_hold = o.join_latency_hold;
  rc.reported_max_age = o.reported_max_age;
  rc.first_climb_unheld = o.first_climb_unheld;
  rc.first_climb_unheld_for = o.first_climb_unheld_for;
  rc.learn_higher_failures = o.learn_higher_failures;
  rc.learn_higher_sole = o.learn_higher_sole;
  rc.learn_higher_onset = o.learn_higher_onset;
  rc.learn_higher_onset_measured = o.learn_higher_onset_measured;
  rc.learn_higher_fresh_between = o.learn_higher_fresh_between;
  rc.learn_reported_failures = o.learn_reported_failures;
  rc.first_climb_to_settled = o.first_climb_to_settled;
  if (o.start_detection_time > 0) {
    rc.detection_time_init = o.start_detection_time;
    rc.detection_dev_init = o.start_detection_dev;
  }
  random_source_init_seeded (&rng, &seeded, o.seed ^ 0x5eed);
  sim = sim_new (&cfg);
  if (o.topology == 4) {
    rc.start_level = o.start_level > 0 ? (guint) o.start_level :
        optimal_level (&cfg, o.bottleneck);
    build_superposition (sim, &o, &cfg, &rc, &rng);
  }
  hub = o.topology == 4 ? 0 :
      sim_add_node (sim, 0, o.bottleneck, o.delay * SIM_MS, o.queue,
      o.queue_bytes);
  if (o.topology == 3)
    slow = sim_add_node (sim, 0, o.bottleneck / 2, o.delay * SIM_MS, o.queue,
        o.queue_bytes / 2);
  if (o.topology != 4)
    apply_queueing (sim, &o, hub);
  if (slow)
    apply_queueing (sim, &o, slow);
  if (o.topology == 1)
    o.n = 1;
  optimal = g_new0 (guint, o.n);
  behind = g_new0 (gboolean, o.n);
  convs = g_new0 (gint64, o.n);
  starts = g_new0 (gint64, o.n);
  for (guint i = 0; i < o.n && o.topology != 4; i++) {
    gboolean behind_slow = o.topology == 3 &&
        i % o.slow_every == o.slow_every - 1;
    guint parent = behind_slow ? slow : hub;
    guint node = sim_add_node (sim, parent, o.bottleneck, o.delay * SIM_MS,
        o.queue, o.queue_bytes);
    gint64 start = receiver_start (&o, &rng);

    behind[i] = behind_slow;
    optimal[i] = optimal_level (&cfg, behind_slow ? o.bottleneck / 2 :
        o.bottleneck);
    rc.start_level = o.start_level > 0 ? (guint) o.start_level : optimal[i];
    sim_add_receiver (sim, node, &rc, start);
    starts[i] = start;
  }
  if (o.topology == 4)
    for (guint i = 0; i < o.n; i++)
      optimal[i] = optimal_level (&cfg, o.bottleneck);
  ct.starts = starts;
  ct.k1 = rc.k1;
  ct.k2 = rc.k2;
  if (o.core_trace >= 0 && (guint) o.core_trace < o.n)
    sim_trace_core (sim, o.core_trace, trace_core, &ct);
  if (o.loss_causes && slow) {
    cause_init (&cause, o.n, o.duration * SIM_S,
        optimal_level (&cfg, o.bottleneck / 2), slow, behind, starts);
    cause_run (&cause, sim, o.duration * SIM_S);
  } else {
    sim_run (sim, o.duration * SIM_S);
  }
  printf ("# rx level optimal convergence_s loss loss1s loss10s loss100s "
      "start_s(topologies 1-3)\n");
  for (guint i = 0; i < o.n; i++) {
    gint64 conv = sim_receiver_convergence (sim, i, optimal[i]);
    gdouble l[3];

    convs[i] = conv;
    for (guint w = 0; w < 3; w++) {
      l[w] = sim_receiver_worst_loss (sim, i, windows[w]);
      worst[w] = MAX (worst[w], l[w]);
    }
    if (conv < 0)
      unconverged++;
    else if (conv <= 20 * SIM_S)
      within_20s++;
    slowest = MAX (slowest, conv);
    /* -1 s: not converged */
    printf ("%u %u %u %.1f %.4f %.4f %.4f %.4f %.1f\n", i,
        sim_receiver_level (sim, i), optimal[i], conv < 0 ? -1.0 : conv / 1e9,
        sim_receiver_loss (sim, i), l[0], l[1], l[2], starts[i] / 1e9);
  }
  if (o.loss_causes && slow) {
    cause_print (&cause);
    cause_clear (&cause);
  }
  if (o.trace >= 0 && (guint) o.trace < o.n)
    print_trace (sim, o.trace);
  if (o.core_trace >= 0 && (guint) o.core_trace < o.n)
    print_joins (sim);
  median = median_convergence (convs, o.n);
  printf ("# topology %u receivers %u: worst loss 1s %.4f 10s %.4f "
      "100s %.4f, slowest convergence %.1f s, not converged %u, "
      "median convergence %.1f s\n", o.topology, o.n, worst[0], worst[1],
      worst[2], slowest / 1e9, unconverged, median < 0 ? -1.0 : median / 1e9);
  median_estimate (sim, o.n, &est_td, &est_dev, &est_join, &fail_td,
      &fail_dev);
  printf ("# median at the end: detection-time estimate T_D %.0f ms "
      "sigma %.0f ms (of receivers that failed one of their own: %.0f ms, "
      "%.0f ms), largest join latency %.0f ms; converged within 20 s: %u\n",
      est_td / 1e6, est_dev / 1e6, fail_td / 1e6, fail_dev / 1e6,
      est_join / 1e6, within_20s);
  print_experiment_totals (sim, o.n, o.learn_reported_failures);
  g_free (convs);
  g_free (starts);
  g_free (optimal);
  g_free (behind);
  sim_free (sim);
  return 0;
}
