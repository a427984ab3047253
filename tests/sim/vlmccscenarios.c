/* The VLMCC scenarios that vlmcc-sim prints and test-vlmcc-sim asserts. */
#include <math.h>
#include <string.h>

#include "vlmccsim.h"

#define MBIT (G_GUINT64_CONSTANT (1000000))

VlmccSim *
vlmcc_sim_figure5 (const VlmccConfig * cfg, guint64 seed)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint r1, r2, r3;

  r1 = vlmcc_sim_add_node (sim, 0, 10 * MBIT, VSIM_MS, 0);
  r2 = vlmcc_sim_add_node (sim, r1, 1 * MBIT, VSIM_MS, 30);
  r3 = vlmcc_sim_add_node (sim, r1, 1 * MBIT, VSIM_MS, 30);
  for (guint i = 0; i < 2; i++)
    vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, r2, 10 * MBIT,
            VSIM_MS, 0), i * 10 * VSIM_MS);
  for (guint i = 0; i < 2; i++)
    vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, r3, 10 * MBIT,
            VSIM_MS, 0), (i + 2) * 10 * VSIM_MS);
  /* the paper's TCP flows, as CBR */
  vlmcc_sim_add_cross_traffic (sim, r2, MBIT / 2, 1000, 10 * VSIM_S,
      25 * VSIM_S, 0, 0);
  vlmcc_sim_add_cross_traffic (sim, r2, MBIT / 2, 1000, 41 * VSIM_S,
      60 * VSIM_S, 0, 0);
  vlmcc_sim_add_cross_traffic (sim, r3, 3 * MBIT / 4, 1000, 27 * VSIM_S,
      45 * VSIM_S, 0, 0);
  return sim;
}

VlmccSim *
vlmcc_sim_late_acks (const VlmccConfig * cfg, guint64 seed,
    gint64 stall_max)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint b = vlmcc_sim_add_node (sim, 0, 10 * MBIT, 20 * VSIM_MS, 100);

  vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, b, 100 * MBIT,
          VSIM_MS, 0), 0);
  vlmcc_sim_set_feedback_jitter (sim, VSIM_MS, 2 * VSIM_S, stall_max);
  return sim;
}

VlmccSim *
vlmcc_sim_ack_jitter (const VlmccConfig * cfg, guint64 seed, gint64 jitter)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint b = vlmcc_sim_add_node (sim, 0, 10 * MBIT, 20 * VSIM_MS, 100);

  vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim, b, 100 * MBIT,
          VSIM_MS, 0), 0);
  vlmcc_sim_set_feedback_jitter (sim, jitter, 0, 0);
  return sim;
}

/* The feedback counters' growth from @a to @b into @fb. */
static void
feedback_since (const VlmccSimFeedback * a, const VlmccSimFeedback * b,
    VlmccSimFeedback * fb)
{
  fb->acks = b->acks - a->acks;
  fb->challenges = b->challenges - a->challenges;
  fb->probes = b->probes - a->probes;
  fb->other = b->other - a->other;
  fb->media_sent = b->media_sent - a->media_sent;
}

/* @n receivers, one every ms (plus up to @start_jitter, drawn from
 * @seed), over 10 branches of @branch_rate bit/s (1 .. 10 ms,
 * @branch_queue packets) behind a @rate bit/s, 10 ms bottleneck (@queue
 * packets); the branches' nodes in @branch. */
static VlmccSim *
branches_sim (const VlmccConfig * cfg, guint n, guint64 seed,
    gint64 start_jitter, guint64 rate, guint queue, guint64 branch_rate,
    guint branch_queue, guint branch[10])
{
  VlmccSim *sim;
  guint bottleneck;
  RandomSeeded state;
  RandomSource rng;

  sim = vlmcc_sim_new (cfg, seed);
  bottleneck = vlmcc_sim_add_node (sim, 0, rate, 10 * VSIM_MS, queue);
  for (guint i = 0; i < 10; i++)
    branch[i] = vlmcc_sim_add_node (sim, bottleneck, branch_rate,
        (1 + i) * VSIM_MS, branch_queue);
  random_source_init_seeded (&rng, &state, seed);
  for (guint i = 0; i < n; i++)
    vlmcc_sim_add_receiver (sim, branch[i % 10], i * VSIM_MS +
        (start_jitter ? random_source_range (&rng, 0, start_jitter) : 0));
  return sim;
}

/* @fb's packets per RTT of the sender's estimate now, over @span. */
static gdouble
feedback_per_rtt (VlmccSim * sim, const VlmccSimFeedback * fb, gint64 span)
{
  VlmccSenderStats st;

  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
  return (fb->acks + fb->challenges + fb->probes + fb->other) /
      ((gdouble) span / st.rtt);
}

gdouble
vlmcc_sim_scale_feedback (guint n, guint64 seed, VlmccSimFeedback * fb)
{
  guint branch[10];
  VlmccConfig cfg;
  VlmccSim *sim;
  VlmccSimFeedback a, b;
  gdouble per_rtt;

  vlmcc_config_init (&cfg);
  sim = branches_sim (&cfg, n, seed, 0, 2 * MBIT, 30, 10 * MBIT, 0, branch);
  vlmcc_sim_run (sim, 10 * VSIM_S);
  vlmcc_sim_feedback (sim, &a);
  vlmcc_sim_run (sim, 30 * VSIM_S);
  vlmcc_sim_feedback (sim, &b);
  feedback_since (&a, &b, fb);
  per_rtt = feedback_per_rtt (sim, fb, 20 * VSIM_S);
  vlmcc_sim_free (sim);
  return per_rtt;
}

gdouble
vlmcc_sim_scale_churn (guint n, guint64 seed, VlmccSimChurn * out)
{
  VlmccConfig cfg;

  vlmcc_config_init (&cfg);
  return vlmcc_sim_scale_churn_with (&cfg, n, seed, 0, out);
}

gdouble
vlmcc_sim_scale_churn_with (const VlmccConfig * cfg, guint n, guint64 seed,
    gint64 start_jitter, VlmccSimChurn * out)
{
  guint branch[10];
  VlmccSim *sim = branches_sim (cfg, n, seed, start_jitter, 10 * MBIT, 100,
      2 * MBIT, 30, branch);
  gint64 from = 10 * VSIM_S, to = 60 * VSIM_S;
  VlmccSimFeedback first, prev, cur;
  gdouble per_rtt;

  /* its documented figures were taken with STARTs that skip the queues
   * (at N = 1,000 the STARTs are 200 ms of the 2 Mbit/s branches' time) */
  vlmcc_sim_set_start_unqueued (sim, TRUE);

  /* two branches congested in turn: the worst receivers move */
  vlmcc_sim_add_cross_traffic (sim, branch[0], MBIT, 1000, from, -1,
      10 * VSIM_S, 10 * VSIM_S);
  vlmcc_sim_add_cross_traffic (sim, branch[5], 3 * MBIT / 2, 1000,
      15 * VSIM_S, -1, 10 * VSIM_S, 10 * VSIM_S);
  vlmcc_sim_run (sim, from);
  vlmcc_sim_feedback (sim, &first);
  prev = first;
  memset (out, 0, sizeof (*out));
  for (gint64 t = from + 100 * VSIM_MS; t <= to; t += 100 * VSIM_MS) {
    vlmcc_sim_run (sim, t);
    vlmcc_sim_feedback (sim, &cur);
    out->peak_challenges = MAX (out->peak_challenges,
        cur.challenges - prev.challenges);
    prev = cur;
  }
  feedback_since (&first, &cur, &out->fb);
  out->leader_changes = vlmcc_sim_leader_changes (sim)->len;

  out->kbit = vlmcc_sim_receiver_bytes (sim, 1, from, to) * 8.0 /
      ((to - from) / 1e6);
  per_rtt = feedback_per_rtt (sim, &out->fb, to - from);
  vlmcc_sim_free (sim);
  return per_rtt;
}

/* Jain's fairness index over @n rates. */
static gdouble
jain (const gdouble * x, guint n)
{
  gdouble sum = 0.0, sq = 0.0;

  for (guint i = 0; i < n; i++) {
    sum += x[i];
    sq += x[i] * x[i];
  }
  return sq > 0.0 ? sum * sum / (n * sq) : 0.0;
}

/* One receiver (none with @reference) beside the bed's flows behind a
 * @rate bit/s, 20 ms bottleneck with 100 ms of queue (25 packets at
 * 2 Mbit/s) under @discipline; with @reference one more flow of the bed's
 * kind stands in the session's place, as flow 0. */
static VlmccSim *
share_bed_new (const VlmccConfig * cfg, guint64 seed,
    const VlmccSimShareBed * bed, gint64 tcp_stop, guint * bottleneck)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint queue = (guint) (bed->rate / 10 / (8 * 1000));
  guint b = vlmcc_sim_add_node (sim, 0, bed->rate, 20 * VSIM_MS, queue);
  guint leaf = vlmcc_sim_add_node (sim, b, 100 * MBIT, VSIM_MS, 0);

  if (bed->discipline != AQM_DROPTAIL)
    vlmcc_sim_set_discipline (sim, b, bed->discipline, (guint32) seed);
  if (bed->reference)
    vlmcc_sim_add_tcp_cc (sim, leaf, 0, tcp_stop, bed->cc);
  else
    vlmcc_sim_add_receiver (sim, leaf, 0);
  for (guint i = 0; i < bed->n_tcp; i++)
    vlmcc_sim_add_tcp_cc (sim, leaf, 0, tcp_stop, bed->cc);
  *bottleneck = b;
  return sim;
}

VlmccSim *
vlmcc_sim_aqm (const VlmccConfig * cfg, guint64 seed,
    AqmDiscipline discipline, guint n_tcp, gint64 tcp_stop,
    guint * bottleneck)
{
  VlmccSimShareBed bed = { 2 * MBIT, discipline, n_tcp, VLMCC_SIM_TCP_RENO,
    FALSE
  };

  return share_bed_new (cfg, seed, &bed, tcp_stop, bottleneck);
}

/* Bytes the scheme's place (the receiver, or flow 0 with @reference) and
 * the bed's flows got in [@from, @to), as bit/s in @rates. */
static void
share_rates (VlmccSim * sim, const VlmccSimShareBed * bed, gint64 from,
    gint64 to, gdouble * rates)
{
  gdouble span = (to - from) / 1e9;
  guint first = bed->reference ? 1 : 0;

  rates[0] = (bed->reference ? vlmcc_sim_tcp_bytes (sim, 0, from, to) :
      vlmcc_sim_receiver_bytes (sim, 0, from, to)) * 8.0 / span;
  for (guint i = 0; i < bed->n_tcp; i++)
    rates[1 + i] = vlmcc_sim_tcp_bytes (sim, first + i, from, to) * 8.0 /
        span;
}

void
vlmcc_sim_share (const VlmccConfig * cfg, guint64 seed,
    const VlmccSimShareBed * bed_in, VlmccSimShare * out)
{
  gint64 from = 15 * VSIM_S, to = 60 * VSIM_S;
  gdouble rates[1 + VLMCC_SIM_SHARE_MAX_TCP];
  gdouble per_s[60];
  VlmccSimShareBed bed = *bed_in;
  VlmccSenderStats st;
  VlmccSim *sim;
  guint b, n_s = 0;

  bed.n_tcp = MIN (bed.n_tcp, VLMCC_SIM_SHARE_MAX_TCP);
  sim = share_bed_new (cfg, seed, &bed, -1, &b);
  vlmcc_sim_run (sim, to);
  memset (out, 0, sizeof (*out));
  for (gint64 t = from; t + VSIM_S <= to; t += VSIM_S) {
    share_rates (sim, &bed, t, t + VSIM_S, rates);
    per_s[n_s++] = jain (rates, 1 + bed.n_tcp);
  }
  out->jain_window = sim_median (per_s, n_s);
  share_rates (sim, &bed, from, to, rates);
  out->kbit = rates[0] / 1000.0;
  for (guint i = 0; i < bed.n_tcp; i++) {
    out->tcp_kbit += rates[1 + i] / 1000.0 / bed.n_tcp;
    out->tcp_halvings += vlmcc_sim_tcp_halvings (sim,
        i + (bed.reference ? 1 : 0));
  }
  out->jain = jain (rates, 1 + bed.n_tcp);
  out->share = rates[0] / ((gdouble) bed.rate / (1 + bed.n_tcp));
  vlmcc_sim_link_drops (sim, b, from, to, &out->drops, &out->cross_drops);
  if (!bed.reference) {
    vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &st);
    out->halvings = st.halvings;
    out->switches = st.plus_switches;
    out->loss_based = st.loss_based;
  }
  vlmcc_sim_free (sim);
}

void
vlmcc_sim_aqm_share (const VlmccConfig * cfg, guint64 seed,
    AqmDiscipline discipline, guint n_tcp, VlmccSimShare * out)
{
  VlmccSimShareBed bed = { 2 * MBIT, discipline, n_tcp, VLMCC_SIM_TCP_RENO,
    FALSE
  };

  vlmcc_sim_share (cfg, seed, &bed, out);
}

VlmccSim *
vlmcc_sim_skew (const VlmccConfig * cfg, guint64 seed, gdouble leader_ppm,
    gint64 jitter, const VlmccSimSkewFollower * follower)
{
  VlmccSim *sim = vlmcc_sim_ack_jitter (cfg, seed, jitter);
  guint branch;

  /* 2^32 us is 4294.97 s: the us stamps wrap 5 s in */
  vlmcc_sim_set_receiver_clock (sim, 0, leader_ppm, 4290 * VSIM_S);
  if (!follower)
    return sim;
  branch = vlmcc_sim_add_node (sim, 1, 12 * MBIT, VSIM_MS, 100);
  vlmcc_sim_add_receiver (sim, branch, 50 * VSIM_MS);
  vlmcc_sim_set_receiver_clock (sim, 1, follower->ppm, 4290 * VSIM_S);
  if (follower->cbr_start >= 0)
    vlmcc_sim_add_cross_traffic (sim, branch, 8 * MBIT, 1000,
        follower->cbr_start, -1, 0, 0);
  return sim;
}

/* The membership churn: branches A-D, tightest last; who joins and
 * leaves when; the events. */
static const guint64 churn_branch_rate[] = { 10 * MBIT, 4 * MBIT,
  2 * MBIT, 1 * MBIT
};

static const gint64 churn_branch_delay[] = { 5 * VSIM_MS, 10 * VSIM_MS,
  5 * VSIM_MS, 15 * VSIM_MS
};

/* receiver: branch, join, leave (-1: never, or the leader's kill) */
static const gint64 churn_members[][3] = {
  {0, 0, 70 * VSIM_S},
  {0, 0, 70 * VSIM_S},
  {1, 10 * VSIM_S, 70 * VSIM_S},
  {1, 12 * VSIM_S, 70 * VSIM_S},
  {2, 20 * VSIM_S, 70 * VSIM_S},
  {3, 40 * VSIM_S, 70 * VSIM_S},
  {2, 50 * VSIM_S, 70 * VSIM_S},
  {2, 50 * VSIM_S, 70 * VSIM_S},
  {0, 80 * VSIM_S, -1},
};

/* the leader (whoever it is then) leaves silently at these */
static const gint64 churn_leader_kills[] = { 30 * VSIM_S, 40100 * VSIM_MS,
  60 * VSIM_S
};

static const struct {
  gint64 time;
  const gchar *what;
} churn_events[] = {
  {0, "two join on A"},
  {10 * VSIM_S, "one joins on B"},
  {12 * VSIM_S, "another joins on B"},
  {20 * VSIM_S, "one joins on C"},
  {30 * VSIM_S, "the leader (C) leaves"},
  {40 * VSIM_S, "one joins on D"},
  {40100 * VSIM_MS, "D, just elected, leaves before it acks"},
  {50 * VSIM_S, "two join on C"},
  {60 * VSIM_S, "the leader (C) leaves"},
  {70 * VSIM_S, "all leave"},
  {80 * VSIM_S, "one joins on A"},
};

#define CHURN_END (90 * VSIM_S)
G_STATIC_ASSERT (G_N_ELEMENTS (churn_events) <= VLMCC_SIM_CHURN_SPANS);

/* The receivers alive at @t on the tightest branch that has any, as
 * bits; 0 when none is alive. */
static guint32
churn_expected (VlmccSim * sim, gint64 t)
{
  guint32 set = 0;
  guint64 tightest = G_MAXUINT64;

  for (guint i = 0; i < G_N_ELEMENTS (churn_members); i++) {
    guint64 rate = churn_branch_rate[churn_members[i][0]];

    if (!vlmcc_sim_receiver_alive (sim, i, t) || rate > tightest)
      continue;
    if (rate < tightest)
      set = 0;
    tightest = rate;
    set |= 1u << i;
  }
  return set;
}

static gboolean
churn_leads (VlmccSim * sim, guint32 set, gint64 t)
{
  gint l = vlmcc_sim_leader_at (sim, t);

  return set == 0 ? l < 0 : l >= 0 && (set & (1u << l)) != 0;
}

/* The span from @e to @end: when the right leader took over for good,
 * how long there was none, the elections, receiver @rx's rate. */
static void
churn_span (VlmccSim * sim, VlmccSimChurnSpan * sp, gint64 end, gint rx)
{
  guint32 set = churn_expected (sim, sp->time + VSIM_MS);
  const GArray *lc = vlmcc_sim_leader_changes (sim);

  sp->settle = -1;
  for (gint64 t = sp->time; t < end && sp->settle < 0; t += VSIM_MS) {
    gboolean kept = TRUE;

    for (gint64 u = t; u < end && kept; u += VSIM_MS)
      kept = churn_leads (sim, set, u);
    if (kept)
      sp->settle = t - sp->time;
  }
  for (gint64 t = sp->time; t < end; t += VSIM_MS)
    if (set != 0 && vlmcc_sim_leader_at (sim, t) < 0)
      sp->leaderless += VSIM_MS;
  for (guint i = 0; i < lc->len; i++) {
    const VlmccSimLeaderChange *c =
        &g_array_index (lc, VlmccSimLeaderChange, i);

    if (c->time >= sp->time && c->time < end && c->rx >= 0)
      sp->leader_changes++;
  }
  sp->min_kbit = -1;
  if (rx < 0)
    return;
  sp->kbit = vlmcc_sim_receiver_bytes (sim, rx, sp->time, end) * 8.0 /
      ((end - sp->time) / 1e6);
  for (gint64 t = sp->time; t + 500 * VSIM_MS <= end; t += 100 * VSIM_MS) {
    gdouble k = vlmcc_sim_receiver_bytes (sim, rx, t, t + 500 * VSIM_MS) *
        8.0 / 500.0;

    if (sp->min_kbit < 0 || k < sp->min_kbit)
      sp->min_kbit = k;
  }
}

/* An election of a receiver not on the tightest branch alive then
 * (misplaced), and of one on A, the loosest, while another lives. */
static void
churn_judge_election (VlmccSim * sim, const VlmccSimLeaderChange * c,
    VlmccSimChurnRun * out)
{
  guint32 set = churn_expected (sim, c->time);
  guint64 rate = churn_branch_rate[churn_members[c->rx][0]];

  if ((set & (1u << c->rx)) != 0)
    return;
  out->misplaced++;
  if (set != 0 && rate == churn_branch_rate[0])
    out->loosest++;
}

/* Receiver 0 while it lives, then the last joined. */
static gint
churn_reference (VlmccSim * sim, gint64 t)
{
  return vlmcc_sim_receiver_alive (sim, 0, t) ? 0 :
      vlmcc_sim_receiver_alive (sim, G_N_ELEMENTS (churn_members) - 1, t) ?
      (gint) G_N_ELEMENTS (churn_members) - 1 : -1;
}

void
vlmcc_sim_membership_churn (const VlmccConfig * cfg, guint64 seed,
    VlmccSimChurnRun * out)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint b = vlmcc_sim_add_node (sim, 0, 20 * MBIT, 5 * VSIM_MS, 100);
  guint branch[G_N_ELEMENTS (churn_branch_rate)];
  const GArray *lc;
  gint64 last_election = -1;

  memset (out, 0, sizeof (*out));
  /* receivers join branches the stream overfills: a queued START meets a
   * full queue there at the same phase of the periodic data every probe
   * interval and is lost each time; its figures were taken with STARTs
   * that skip the queues */
  vlmcc_sim_set_start_unqueued (sim, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (branch); i++)
    branch[i] = vlmcc_sim_add_node (sim, b, churn_branch_rate[i],
        churn_branch_delay[i], 50);
  for (guint i = 0; i < G_N_ELEMENTS (churn_members); i++) {
    guint node = vlmcc_sim_add_node (sim, branch[churn_members[i][0]],
        100 * MBIT, VSIM_MS, 0);
    guint rx = vlmcc_sim_add_receiver (sim, node, churn_members[i][1]);

    if (churn_members[i][2] >= 0)
      vlmcc_sim_kill_receiver (sim, rx, churn_members[i][2]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (churn_leader_kills); i++)
    vlmcc_sim_kill_leader (sim, churn_leader_kills[i]);
  vlmcc_sim_run (sim, 70 * VSIM_S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &out->at_empty);
  vlmcc_sim_run (sim, 80 * VSIM_S);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &out->empty_end);
  vlmcc_sim_run (sim, CHURN_END);
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &out->end);
  out->n_spans = G_N_ELEMENTS (churn_events);
  for (guint i = 0; i < out->n_spans; i++) {
    VlmccSimChurnSpan *sp = &out->spans[i];
    gint64 end = i + 1 < out->n_spans ? churn_events[i + 1].time :
        CHURN_END;

    sp->time = churn_events[i].time;
    sp->what = churn_events[i].what;
    churn_span (sim, sp, end, churn_reference (sim, sp->time + VSIM_MS));
  }
  /* elections: a new leader other than a regained one */
  lc = vlmcc_sim_leader_changes (sim);
  out->min_election_gap = -1;
  for (guint i = 0; i < lc->len; i++) {
    const VlmccSimLeaderChange *c =
        &g_array_index (lc, VlmccSimLeaderChange, i);
    gboolean regained = i >= 2 && c->rx >= 0 &&
        g_array_index (lc, VlmccSimLeaderChange, i - 1).rx < 0 &&
        g_array_index (lc, VlmccSimLeaderChange, i - 2).rx == c->rx;

    if (c->rx < 0 || regained)
      continue;
    churn_judge_election (sim, c, out);
    if (last_election >= 0 && (out->min_election_gap < 0 ||
            c->time - last_election < out->min_election_gap))
      out->min_election_gap = c->time - last_election;
    last_election = c->time;
  }
  for (guint i = 0; i < G_N_ELEMENTS (churn_members); i++) {
    VlmccReceiverStats st;
    VlmccReceiver *r = vlmcc_sim_receiver (sim, i);

    if (!r)
      continue;
    vlmcc_receiver_get_stats (r, &st);
    out->challenges += st.challenges_sent;
    out->unsettled = MAX (out->unsettled, st.challenges_sent -
        st.challenges_accepted - st.challenges_refused);
  }
  vlmcc_sim_free (sim);
}

/* Random churn over the same branches: the receivers' branches, A most
 * likely and D least. */
#define RANDOM_CHURN_END (90 * VSIM_S)

static guint
random_churn_branch (const RandomSource * rng)
{
  guint x = random_source_range (rng, 0, 99);

  return x < 70 ? 0 : x < 90 ? 1 : x < 98 ? 2 : 3;
}

/* The tightest branch rate alive at @t (0: none alive) and whether the
 * leader then is on it. */
static guint64
random_churn_tightest (VlmccSim * sim, const guint * branch, guint n,
    gint64 t)
{
  guint64 tightest = 0;

  for (guint i = 0; i < n; i++)
    if (vlmcc_sim_receiver_alive (sim, i, t) && (tightest == 0 ||
            churn_branch_rate[branch[i]] < tightest))
      tightest = churn_branch_rate[branch[i]];
  return tightest;
}

static void
random_churn_judge (VlmccSim * sim, const guint * branch, guint n,
    VlmccSimRandomChurn * out)
{
  gint64 wrong_since = -1;
  guint samples = 0, right = 0, none = 0;

  for (gint64 t = 0; t < RANDOM_CHURN_END; t += 10 * VSIM_MS) {
    guint64 tightest = random_churn_tightest (sim, branch, n, t);
    gint l = vlmcc_sim_leader_at (sim, t);
    gboolean ok;

    if (tightest == 0) {
      wrong_since = -1;
      continue;
    }
    samples++;
    ok = l >= 0 && churn_branch_rate[branch[l]] == tightest;
    right += ok;
    none += l < 0;
    if (ok)
      wrong_since = -1;
    else if (wrong_since < 0)
      wrong_since = t;
    else
      out->longest_wrong = MAX (out->longest_wrong, t + 10 * VSIM_MS -
          wrong_since);
  }
  out->right = samples ? (gdouble) right / samples : 0.0;
  out->leaderless = samples ? (gdouble) none / samples : 0.0;
}

void
vlmcc_sim_random_churn (const VlmccConfig * cfg, guint64 seed, guint n,
    VlmccSimRandomChurn * out)
{
  VlmccSim *sim = vlmcc_sim_new (cfg, seed);
  guint b = vlmcc_sim_add_node (sim, 0, 20 * MBIT, 5 * VSIM_MS, 100);
  guint nodes[G_N_ELEMENTS (churn_branch_rate)];
  guint *branch = g_new0 (guint, n);
  RandomSeeded state;
  RandomSource rng;
  const GArray *lc;
  gint64 last = -1;

  memset (out, 0, sizeof (*out));
  out->min_election_gap = -1;
  /* as the membership churn's: joins into overfilled branches */
  vlmcc_sim_set_start_unqueued (sim, TRUE);
  random_source_init_seeded (&rng, &state, seed);
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    nodes[i] = vlmcc_sim_add_node (sim, b, churn_branch_rate[i],
        churn_branch_delay[i], 50);
  for (guint i = 0; i < n; i++) {
    gint64 join = random_source_range (&rng, 0, 60 * VSIM_S);
    gint64 life = (gint64) (-log (1.0 - random_source_double (&rng)) *
        20 * VSIM_S);
    guint rx;

    branch[i] = random_churn_branch (&rng);
    rx = vlmcc_sim_add_receiver (sim, vlmcc_sim_add_node (sim,
            nodes[branch[i]], 100 * MBIT, VSIM_MS, 0), join);
    vlmcc_sim_kill_receiver (sim, rx, join + MAX (life, VSIM_MS));
  }
  for (gint64 t = 7 * VSIM_S; t < RANDOM_CHURN_END; t += 7 * VSIM_S)
    vlmcc_sim_kill_leader (sim, t);
  vlmcc_sim_run (sim, RANDOM_CHURN_END);
  random_churn_judge (sim, branch, n, out);
  lc = vlmcc_sim_leader_changes (sim);
  for (guint i = 0; i < lc->len; i++) {
    const VlmccSimLeaderChange *c =
        &g_array_index (lc, VlmccSimLeaderChange, i);

    if (c->rx < 0 || (i >= 2 && g_array_index (lc, VlmccSimLeaderChange,
                i - 1).rx < 0 && g_array_index (lc, VlmccSimLeaderChange,
                i - 2).rx == c->rx))
      continue;
    out->elections++;
    if (last >= 0 && (out->min_election_gap < 0 ||
            c->time - last < out->min_election_gap))
      out->min_election_gap = c->time - last;
    last = c->time;
  }
  vlmcc_sim_feedback (sim, &out->fb);
  for (guint i = 0; i < n; i++) {
    VlmccReceiverStats st;

    if (!vlmcc_sim_receiver (sim, i))
      continue;
    vlmcc_receiver_get_stats (vlmcc_sim_receiver (sim, i), &st);
    out->unsettled = MAX (out->unsettled, st.challenges_sent -
        st.challenges_accepted - st.challenges_refused);
  }
  vlmcc_sender_get_stats (vlmcc_sim_sender (sim), &out->end);
  g_free (branch);
  vlmcc_sim_free (sim);
}
