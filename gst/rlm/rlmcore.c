/* RLM core: wire formats, the sender's stamping and the receiver's state
 * machine. See rlmcore.h and docs/protocols/rlm.md. */
#include <math.h>
#include <string.h>

#include "rlmcore.h"
#include "core/polled.h"
#include "core/rtcp.h"
#include "core/rtp.h"
#include "core/rtpseq.h"
#include "core/wire.h"

#define NS_PER_S 1e9
#define RLM_MIN_TIMER (G_GINT64_CONSTANT (1000000))
/* Bytes of one announcement on the wire (RTCP APP, UDP, IPv4): what the
 * report interval budgets. */
#define RLM_CTRL_WIRE_SIZE (RLM_CTRL_SIZE + 28)

void
rlm_config_init (RlmConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->n_layers = 6;
  cfg->alpha = 2.0;
  cfg->beta = 2.0 / 3.0;
  cfg->k1 = 1.0;
  cfg->k2 = 2.0;
  cfg->g1 = 0.25;
  cfg->g2 = 0.25;
  cfg->t_join_min = 5 * G_GINT64_CONSTANT (1000000000);
  cfg->t_join_max = 600 * G_GINT64_CONSTANT (1000000000);
  cfg->join_draw = RLM_JOIN_DRAW_PAPER;
  cfg->detection_time_init = 2 * G_GINT64_CONSTANT (1000000000);
  cfg->detection_dev_init = 500 * G_GINT64_CONSTANT (1000000);
  cfg->loss_time_constant = G_GINT64_CONSTANT (1000000000);
  cfg->loss_threshold = 0.1;
  cfg->scale_join_max = TRUE;
  cfg->join_max_ref = 1;
  cfg->start_level = 1;
  cfg->join_reported = FALSE;
  cfg->measure_own_loss = FALSE;
  cfg->gap_retry = FALSE;
  cfg->learn_detection_time = FALSE;
  cfg->join_latency_hold = 0;
  cfg->reported_max_age = 0;
  cfg->first_climb_unheld = FALSE;
  cfg->first_climb_unheld_for = 0;
  cfg->first_climb_to_settled = FALSE;
  cfg->learn_higher_failures = FALSE;
  cfg->learn_higher_sole = FALSE;
  cfg->learn_higher_onset = 0;
  cfg->learn_higher_onset_measured = FALSE;
  cfg->learn_higher_fresh_between = FALSE;
  cfg->learn_reported_failures = FALSE;
  cfg->report_interval = 5 * G_GINT64_CONSTANT (1000000000);
  cfg->report_bandwidth = 4000;
  cfg->member_timeout = 5;
  cfg->max_members = 10000;
  cfg->ext_id = 6;
  cfg->source_timeout = 2 * G_GINT64_CONSTANT (1000000000);
}

const gchar *
rlm_state_name (RlmState state)
{
  static const gchar *names[] = { "steady", "hysteresis", "measurement",
    "drop"
  };

  return state <= RLM_STATE_DROP ? names[state] : "unknown";
}

const gchar *
rlm_reason_name (RlmReason reason)
{
  static const gchar *names[] = { "start", "join-experiment",
    "experiment-failed", "congestion", "reported-level"
  };

  return reason <= RLM_REASON_REPORTED_LEVEL ? names[reason] : "unknown";
}

/* ------------------------------------------------------------------ */
/* Wire */

gboolean
rlm_layer_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    guint * layer, guint16 * layer_seq)
{
  RtpHeader h;
  RtpExtElement el;

  if (!rtp_header_parse (rtp, len, &h) || !rtp_ext_find (&h, ext_id, &el) ||
      el.len != RLM_LAYER_EXT_SIZE)
    return FALSE;
  *layer = el.data[0];
  *layer_seq = read16 (el.data + 1);
  return TRUE;
}

gboolean
rlm_ctrl_parse (const guint8 * data, gsize len, RlmCtrl * ctrl)
{
  RtcpIter it;
  RtcpPacket pkt;
  RtcpApp app;

  rtcp_iter_init (&it, data, len);
  if (!rtcp_iter_next (&it, &pkt) || !rtcp_app_parse (&pkt, &app) ||
      memcmp (app.name, RLM_APP_NAME, 4) != 0 || app.len < 4 ||
      (app.subtype != RLM_CTRL_JOIN && app.subtype != RLM_CTRL_REPORT))
    return FALSE;
  ctrl->type = app.subtype;
  ctrl->ssrc = app.ssrc;
  ctrl->level = app.data[0];
  ctrl->flags = app.data[1];
  ctrl->fail_level = app.data[2];
  ctrl->fail_hold = app.data[3];
  return TRUE;
}

gsize
rlm_ctrl_write (const RlmCtrl * ctrl, guint8 * out, gsize max)
{
  guint8 body[4] = { ctrl->level, ctrl->flags, ctrl->fail_level,
    ctrl->fail_hold
  };

  return rtcp_app_write (ctrl->type, ctrl->ssrc, RLM_APP_NAME, body,
      sizeof (body), out, max);
}

guint8
rlm_fail_hold_encode (gint64 hold)
{
  gdouble units = (gdouble) hold / RLM_FAIL_HOLD_UNIT;

  if (units <= 1.0)
    return 0;
  return (guint8) MIN (floor (8.0 * log2 (units)), 255.0);
}

gint64
rlm_fail_hold_decode (guint8 code)
{
  return (gint64) (RLM_FAIL_HOLD_UNIT * exp2 (code / 8.0));
}

gboolean
rlm_layer_group (const guint8 * base, gsize len, guint16 base_port,
    guint layer, gboolean port_per_layer, guint8 * out, guint16 * port)
{
  guint carry = layer;
  guint32 p = base_port;

  if ((len != 4 && len != 16) || layer > G_MAXUINT16)
    return FALSE;
  if (port_per_layer)
    p += 2 * layer;
  if (p > G_MAXUINT16)
    return FALSE;
  for (gsize i = len; i-- > 0;) {
    guint sum = base[i] + (carry & 0xff);

    out[i] = sum & 0xff;
    carry = (carry >> 8) + (sum >> 8);
  }
  if (carry != 0)
    return FALSE;
  *port = (guint16) p;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Sender */

void
rlm_stamper_init (RlmStamper * st, guint ext_id, const RandomSource * rng)
{
  memset (st, 0, sizeof (*st));
  st->ext_id = ext_id;
  for (guint i = 0; i < RLM_MAX_LAYERS; i++)
    st->next_seq[i] = (guint16) random_source_range (rng, 0, G_MAXUINT16);
}

gsize
rlm_stamper_stamp (RlmStamper * st, guint layer, const guint8 * in,
    gsize len, guint8 * out, gsize max)
{
  guint8 data[RLM_LAYER_EXT_SIZE];
  RtpExtElement el = { st->ext_id, data, sizeof (data) }, found;
  RtpHeader h;
  gsize n;

  /* a packet that carries our id already would be read ambiguously */
  if (layer >= RLM_MAX_LAYERS || !rtp_header_parse (in, len, &h) ||
      rtp_ext_find (&h, st->ext_id, &found)) {
    st->refused++;
    return 0;
  }
  data[0] = (guint8) layer;
  write16 (data + 1, st->next_seq[layer]);
  n = rtp_ext_add (in, len, &el, out, max);
  if (n == 0) {
    st->refused++;
    return 0;
  }
  st->next_seq[layer]++;
  st->stamped[layer]++;
  return n;
}

void
rlm_stamper_skip (RlmStamper * st, guint layer)
{
  if (layer >= RLM_MAX_LAYERS) {
    st->refused++;
    return;
  }
  st->next_seq[layer]++;
  st->stamped[layer]++;
}

/* ------------------------------------------------------------------ */
/* Receiver */

typedef struct
{
  RlmAddr addr;
  gint64 last_heard;
  guint level;                  /* its last REPORT's level, 0 none yet */
  gboolean settled;             /* ... and its RLM_CTRL_FLAG_SETTLED */
  gint64 reported_at;           /* when that REPORT came */
} RlmMember;

typedef struct
{
  gboolean have_seq;
  gint64 ext_max;               /* highest extended layer sequence */
} RlmLayerSeq;

struct _RlmReceiver
{
  RlmConfig cfg;
  const RandomSource *rng;
  guint32 ssrc;
  gint64 started;               /* rlm_receiver_new's now */

  guint level;
  RlmState state;
  gint64 state_deadline;        /* detection timer (S: relaxation) */
  gint64 join_deadline;         /* S only; -1 none */
  gint64 join_timer[RLM_MAX_LAYERS + 1];        /* mean, by level */
  gdouble t_d, sigma_d;         /* detection-time estimator, ns */

  /* the last announced experiment at each level, and the first of the
   * announcements at that level that kept one in progress since */
  gint64 exp_start[RLM_MAX_LAYERS + 1];
  gint64 exp_first[RLM_MAX_LAYERS + 1];
  gboolean exp_own[RLM_MAX_LAYERS + 1];
  /* learn_higher_failures: the exp_start already learned from */
  gint64 exp_learned[RLM_MAX_LAYERS + 1];
  guint own_level;              /* our experiment's level, 0 none */
  /* learn_reported_failures: our last failure (own or learned) and our
   * earliest retry at its level; level 0: none. And by level, the time
   * before which reported failures hold our experiments there. */
  guint fail_level;
  gint64 fail_retry;
  gint64 hold_until[RLM_MAX_LAYERS + 1];
  gboolean congested;           /* we left S on a loss at least once */
  gint64 own_start;
  gint64 own_onset;             /* its first loss when it went to M; -1 */
  /* learn_higher_onset_measured: the detection-time samples of our path
   * (the paper's D_i), filtered as T_D and sigma_D are but from the first
   * sample on, not from the conservative start; onset_samples 0: none */
  gdouble onset_mean, onset_dev;
  guint64 onset_samples;

  /* join_reported: allowed until we first drop a layer (congestion at
   * the base drops none); the level climbed from by the last such join
   * (0 none) and when, to undo it on a loss */
  gboolean may_join_reported;
  guint reported_from;
  gint64 reported_start;
  /* the level above ours failed for us since we reached ours */
  gboolean settled;
  /* time in S at our level: before the current stay in S, and when that
   * stay began (-1 out of S) */
  gint64 steady_held;
  gint64 steady_since;
  /* our last loss, -1 none: a loss after an announcement and no loss
   * between is our onset of its congestion (learn_detection_time) */
  gint64 last_loss;
  /* our joins of each layer still waiting for its first packet (-1
   * none), and the largest join latency measured (-1 none) */
  gint64 join_sent[RLM_MAX_LAYERS];
  gint64 join_latency_max;

  /* the loss estimator: lost and expected packets, both decayed with
   * loss_time_constant; their ratio is the estimate */
  gdouble loss_lost, loss_expected;
  gint64 loss_time;
  RlmLayerSeq seq[RLM_MAX_LAYERS];
  gboolean have_media_ssrc;
  guint32 media_ssrc;
  gint64 media_last;            /* the source's last packet */

  GHashTable *members;          /* ssrc -> RlmMember */
  gint64 report_deadline;

  GQueue events;
  GQueue transmits;             /* RlmCtrl */
  AuthSession *auth;            /* NULL: no key */
  RlmReceiverStats st;
};

/* k1 T_D + k2 sigma_D; at least 1 ms, so that odd settings cannot make
 * a timer that is always due. */
static gint64
detection_window (const RlmReceiver * r)
{
  return MAX ((gint64) (r->cfg.k1 * r->t_d + r->cfg.k2 * r->sigma_d),
      RLM_MIN_TIMER);
}

static gboolean
exp_in_progress (const RlmReceiver * r, guint level, gint64 now)
{
  return r->exp_start[level] >= 0 &&
      now - r->exp_start[level] < detection_window (r);
}

/* How long another receiver's experiment below our target holds our join
 * timer: its detection window, or with join_latency_hold at most that
 * many of our largest join latency. A layer cannot congest a path before
 * it reaches it, so the join latency is a floor of any detection time;
 * the scale is the margin for the queue to build up. */
static gint64
lower_hold (const RlmReceiver * r)
{
  gint64 w = detection_window (r);

  if (r->cfg.join_latency_hold > 0 && r->join_latency_max >= 0)
    w = MIN (w, MAX ((gint64) (r->cfg.join_latency_hold *
                (gdouble) r->join_latency_max), RLM_MIN_TIMER));
  return w;
}

/* Ours is the last announcement at @level, or our experiment there is
 * still being judged (another's later JOIN at that level took its
 * record). */
static gboolean
own_experiment_at (const RlmReceiver * r, guint level)
{
  return r->exp_own[level] || r->own_level == level;
}

/* The lowest level of the members' last REPORTs that were settled, 0
 * when none was heard. Receivers still climbing do not report settled,
 * so newcomers do not pull it down. With reported_max_age, older REPORTs
 * do not count: in a large session a member reports once a minute or
 * more, and its last REPORT may be a level it has long left. */
static guint
lowest_settled_level (const RlmReceiver * r, gint64 now)
{
  GHashTableIter it;
  gpointer value;
  guint lowest = 0;

  g_hash_table_iter_init (&it, r->members);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    const RlmMember *m = value;

    if (r->cfg.reported_max_age > 0 &&
        now - m->reported_at > r->cfg.reported_max_age)
      continue;
    if (m->settled && m->level >= 1 && m->level <= r->cfg.n_layers)
      lowest = lowest ? MIN (lowest, m->level) : m->level;
  }
  return lowest;
}

/* We never lost a packet (never left S) and the join timer of our next
 * level never backed off (no failure there, learned or ours, and no join
 * up to the reported level below it); with first_climb_unheld_for, we
 * started less than that long ago. */
static gboolean
on_first_climb (const RlmReceiver * r, gint64 now)
{
  if (r->cfg.first_climb_unheld_for > 0 &&
      now - r->started >= r->cfg.first_climb_unheld_for)
    return FALSE;
  return !r->congested && r->level < r->cfg.n_layers &&
      r->join_timer[r->level + 1] <= r->cfg.t_join_min;
}

/* first_climb_to_settled: our next level is at most the lowest level the
 * members report settled (or none was heard). The receivers that report a
 * settled level hold it, so it fits their paths; the level above it is
 * where some stopped, and our experiment there may be the first above our
 * own path's optimum. Unheld, its failure would land on the lower
 * experiments of newcomers behind the same link. */
static gboolean
within_settled_level (const RlmReceiver * r, gint64 now)
{
  guint lowest;

  if (!r->cfg.first_climb_to_settled)
    return TRUE;
  lowest = lowest_settled_level (r, now);
  return lowest == 0 || r->level + 1 <= lowest;
}

/* The experiment at @level holds a join timer for a level above it: our
 * own for its whole window, another's for lower_hold. With
 * first_climb_unheld, on our first climb another's at a level we hold
 * does not: that layer already reaches us on every link of our path, so
 * it cannot load it. After a loss or a backoff the paper's hold applies
 * again; it keeps experiments at the top from failing under others'
 * climbs. */
static gboolean
holds_join_timer (const RlmReceiver * r, guint level, gint64 now)
{
  if (!exp_in_progress (r, level, now))
    return FALSE;
  if (own_experiment_at (r, level))
    return TRUE;
  if (r->cfg.first_climb_unheld && level <= r->level &&
      on_first_climb (r, now) && within_settled_level (r, now))
    return FALSE;
  return now - r->exp_start[level] < lower_hold (r);
}

/* An experiment announced at @level now (ours or another's). */
static void
record_experiment (RlmReceiver * r, guint level, gboolean own, gint64 now)
{
  if (!exp_in_progress (r, level, now))
    r->exp_first[level] = now;
  r->exp_start[level] = now;
  r->exp_own[level] = own;
}

/* The highest level with an experiment in progress, 0 none. */
static guint
highest_in_progress (const RlmReceiver * r, gint64 now)
{
  for (guint k = r->cfg.n_layers; k >= 2; k--)
    if (exp_in_progress (r, k, now))
      return k;
  return 0;
}

/* Our last join up to the reported level is still being judged. */
static gboolean
reported_join_in_progress (const RlmReceiver * r, gint64 now)
{
  return r->reported_from > 0 &&
      now - r->reported_start < detection_window (r);
}

/* Another receiver's experiment above our level is in progress: a loss
 * now may be its failure rather than ours. */
static gboolean
foreign_experiment_above (const RlmReceiver * r, gint64 now)
{
  for (guint k = r->level + 1; k <= r->cfg.n_layers; k++)
    if (exp_in_progress (r, k, now) && !r->exp_own[k])
      return TRUE;
  return FALSE;
}

static guint
session_size (const RlmReceiver * r)
{
  return 1 + g_hash_table_size (r->members);
}

static gint64
join_max (const RlmReceiver * r)
{
  gdouble scale = 1.0;

  if (r->cfg.scale_join_max && r->cfg.join_max_ref > 0)
    scale = MAX (1.0, (gdouble) session_size (r) / r->cfg.join_max_ref);
  return (gint64) MIN ((gdouble) r->cfg.t_join_max * scale, 1e18);
}

/* lambda/2 + X, section 4, with lambda the mean join timer of @level. */
static gint64
draw_join_interval (RlmReceiver * r, guint level)
{
  gdouble lambda = MIN (r->join_timer[level], join_max (r)) / NS_PER_S;
  gdouble u = random_source_double (r->rng), x;

  if (lambda <= 0)
    return RLM_MIN_TIMER;
  if (r->cfg.join_draw == RLM_JOIN_DRAW_PAPER)
    x = -log (1.0 - u * (1.0 - exp (-4.0 * lambda * lambda))) / lambda;
  else
    x = -lambda * log (1.0 - u * (1.0 - exp (-4.0)));
  return MAX ((gint64) ((lambda / 2.0 + x) * NS_PER_S), RLM_MIN_TIMER);
}

/* A new draw, no earlier than a reported failure's hold on the level
 * (learn_reported_failures; hold_until is 0 without it). */
static void
schedule_join (RlmReceiver * r, gint64 now)
{
  gint64 at;

  if (r->level >= r->cfg.n_layers) {
    r->join_deadline = -1;
    return;
  }
  at = now + draw_join_interval (r, r->level + 1);
  r->join_deadline = MAX (at, r->hold_until[r->level + 1]);
}

static void
backoff (RlmReceiver * r, guint level)
{
  gint64 max = join_max (r);

  if (level < 2 || level > r->cfg.n_layers)
    return;
  r->join_timer[level] = (gint64) MIN (r->cfg.alpha * r->join_timer[level],
      (gdouble) max);
}

/* A failed experiment at @level, ours or learned, just backed off its
 * timer: learn_reported_failures repeats it until our earliest retry, the
 * lambda / 2 of the next draw. */
static void
note_failure (RlmReceiver * r, guint level, gint64 now)
{
  if (level < 2 || level > r->cfg.n_layers)
    return;
  r->fail_level = level;
  r->fail_retry = now + MIN (r->join_timer[level], join_max (r)) / 2;
}

static void
relax (RlmReceiver * r, guint level)
{
  if (level < 2 || level > r->cfg.n_layers)
    return;
  r->join_timer[level] = MAX ((gint64) (r->cfg.beta * r->join_timer[level]),
      r->cfg.t_join_min);
}

static void
push_event (RlmReceiver * r, RlmEventType type, guint layer, RlmReason reason)
{
  RlmEvent *ev = polled_push (&r->events, sizeof (RlmEvent));

  ev->type = type;
  ev->layer = layer;
  ev->level = r->level;
  ev->reason = reason;
  ev->state = r->state;
}

/* We reached a new level: its time in S starts from nothing. */
static void
level_changed (RlmReceiver * r, gint64 now)
{
  r->steady_held = 0;
  r->steady_since = r->state == RLM_STATE_STEADY ? now : -1;
}

static gint64
steady_time_at_level (const RlmReceiver * r, gint64 now)
{
  return r->steady_held + (r->steady_since >= 0 ? now - r->steady_since : 0);
}

/* Our level is not a step of a climb: the level above failed for us, or,
 * with no experiment of ours in progress, we have every layer or have
 * spent two T_J^min in S at the level (a climbing receiver adds a layer
 * about every T_J^min, docs/protocols/rlm.md). Time in H, M or D does not
 * count: no join timer runs there, so a receiver kept there by others'
 * losses is held back, not settled. The top level during our experiment
 * to it is not settled: it may yet fail. */
static gboolean
is_settled (const RlmReceiver * r, gint64 now)
{
  return r->settled || (!r->own_level && (r->level >= r->cfg.n_layers ||
          steady_time_at_level (r, now) >= 2 * r->cfg.t_join_min));
}

static void
queue_ctrl (RlmReceiver * r, guint8 type, gint64 now)
{
  RlmCtrl *c = polled_push (&r->transmits, sizeof (RlmCtrl));

  c->type = type;
  c->ssrc = r->ssrc;
  c->level = (guint8) (type == RLM_CTRL_JOIN ? r->level + 1 : r->level);
  c->flags = type == RLM_CTRL_REPORT && is_settled (r, now) ?
      RLM_CTRL_FLAG_SETTLED : 0;
  c->fail_level = c->fail_hold = 0;
  if (type == RLM_CTRL_REPORT && r->cfg.learn_reported_failures &&
      r->fail_level && now < r->fail_retry) {
    c->fail_level = (guint8) r->fail_level;
    c->fail_hold = rlm_fail_hold_encode (r->fail_retry - now);
    r->st.failures_repeated++;
  }
}

static void
enter_state (RlmReceiver * r, RlmState state, gint64 now)
{
  /* M looks for longer-term congestion: the estimate ramps up from 0
   * there (section 3.4), so the burst that sent us to M cannot drop a
   * layer by itself; D forgets the old level's loss */
  if (state == RLM_STATE_MEASUREMENT || state == RLM_STATE_DROP)
    r->loss_lost = 0;
  if (r->steady_since >= 0)
    r->steady_held += now - r->steady_since;
  r->steady_since = state == RLM_STATE_STEADY ? now : -1;
  if (state != RLM_STATE_STEADY)
    r->congested = TRUE;
  r->state = state;
  r->state_deadline = now + detection_window (r);
  if (state == RLM_STATE_STEADY)
    schedule_join (r, now);
  else
    r->join_deadline = -1;
}

static void
add_layer (RlmReceiver * r, gint64 now)
{
  guint layer = r->level;

  r->level++;
  r->settled = FALSE;
  level_changed (r, now);
  memset (&r->seq[layer], 0, sizeof (RlmLayerSeq));
  r->join_sent[layer] = now;
  push_event (r, RLM_EVENT_JOIN, layer, RLM_REASON_JOIN_EXPERIMENT);
  push_event (r, RLM_EVENT_LEVEL, layer, RLM_REASON_JOIN_EXPERIMENT);
}

/* learn_higher_onset_measured: one onset sample of our path. A loss
 * sooner after the join than our largest join latency came before the
 * layer could reach us: another congestion, not this join's. */
static void
onset_sample (RlmReceiver * r, gint64 d_i)
{
  if (d_i < r->join_latency_max)
    return;
  if (r->onset_samples++ == 0) {
    /* seeded as RFC 6298 seeds an RTT estimator */
    r->onset_mean = d_i;
    r->onset_dev = d_i / 2.0;
    return;
  }
  r->onset_dev = (1.0 - r->cfg.g2) * r->onset_dev +
      r->cfg.g2 * fabs (d_i - r->onset_mean);
  r->onset_mean = (1.0 - r->cfg.g1) * r->onset_mean + r->cfg.g1 * d_i;
}

/* Feeds the detection-time estimator one failed experiment (section 3.5:
 * the deviation is filtered against the old mean). */
static void
detection_sample (RlmReceiver * r, gint64 d_i)
{
  r->sigma_d = (1.0 - r->cfg.g2) * r->sigma_d +
      r->cfg.g2 * fabs (d_i - r->t_d);
  r->t_d = (1.0 - r->cfg.g1) * r->t_d + r->cfg.g1 * d_i;
}

/* The drop action: leave the top layer (never the base), back off its
 * join timer, enter D. An own experiment in progress failed. */
static void
drop_layer (RlmReceiver * r, gint64 now)
{
  RlmReason reason = RLM_REASON_CONGESTION;

  r->reported_from = 0;
  if (r->own_level) {
    /* D_i runs to the onset of congestion (section 3.2): the loss that
     * sent an overlapped experiment to M, else this one */
    gint64 onset = r->own_onset >= 0 ? r->own_onset : now;

    r->st.experiments_failed++;
    detection_sample (r, onset - r->own_start);
    if (r->cfg.learn_higher_onset_measured)
      onset_sample (r, onset - r->own_start);
    reason = RLM_REASON_EXPERIMENT_FAILED;
    r->own_level = 0;
  }
  if (r->level > 1) {
    guint layer = r->level - 1;

    r->may_join_reported = FALSE;
    backoff (r, r->level);
    if (reason == RLM_REASON_EXPERIMENT_FAILED)
      note_failure (r, r->level, now);
    r->level--;
    /* the level we leave failed (our experiment, or congestion); at the
     * base level there is none, and congestion there says nothing of the
     * level above */
    r->settled = TRUE;
    level_changed (r, now);
    r->seq[layer].have_seq = FALSE;
    r->join_sent[layer] = -1;
    r->st.drops++;
    enter_state (r, RLM_STATE_DROP, now);
    push_event (r, RLM_EVENT_LEAVE, layer, reason);
    push_event (r, RLM_EVENT_LEVEL, layer, reason);
    return;
  }
  enter_state (r, RLM_STATE_DROP, now);
}

/* An own experiment that lasted a detection window without being judged
 * failed succeeded. */
static void
settle_own_experiment (RlmReceiver * r, gint64 now)
{
  if (r->own_level && now - r->own_start >= detection_window (r)) {
    r->st.experiments_succeeded++;
    r->own_level = 0;
  }
}

/* A loss while our join up to the reported level is judged, with no other
 * experiment above us to blame: our path carries less than the session's.
 * Back to the level we climbed from, like one failed experiment, and no
 * such join again. */
static void
undo_reported_join (RlmReceiver * r, gint64 now)
{
  guint top = r->level;

  r->st.reported_joins_failed++;
  r->st.drops++;
  r->may_join_reported = FALSE;
  backoff (r, top);
  note_failure (r, top, now);
  r->level = r->reported_from;
  level_changed (r, now);
  r->reported_from = 0;
  r->settled = FALSE;
  enter_state (r, RLM_STATE_DROP, now);
  for (guint layer = top - 1; layer >= r->level; layer--) {
    r->seq[layer].have_seq = FALSE;
    r->join_sent[layer] = -1;
    push_event (r, RLM_EVENT_LEAVE, layer, RLM_REASON_EXPERIMENT_FAILED);
  }
  push_event (r, RLM_EVENT_LEVEL, r->level, RLM_REASON_EXPERIMENT_FAILED);
}

/* learn_detection_time: a loss in S, with nothing of ours in progress,
 * that teaches us another's failure one level up (section 3.3) is also
 * one detection-time sample, from the announcement to the loss, when it is
 * our first loss since (section 3.5 correlates failed experiments with the
 * onset of congestion). Conservative: the first of overlapping
 * announcements at that level, and at most our detection window, since an
 * experiment that outlasts it without loss has succeeded by our own
 * measure. */
static void
learn_detection_time (RlmReceiver * r, gint64 now)
{
  guint top = highest_in_progress (r, now);
  gint64 first = -1;

  if (top == r->level + 1 && !r->exp_own[top])
    first = r->exp_first[top];
  /* a loss of ours since the announcement may have been its onset */
  if (first < 0 || first <= r->last_loss)
    return;
  detection_sample (r, CLAMP (now - first, RLM_MIN_TIMER,
          detection_window (r)));
  r->st.detection_learned++;
}

/* learn_higher_onset_measured: the same loss is a sample of our path's
 * onset, taken from the last announcement at that level rather than the
 * first: with overlapping experiments at one level behind different
 * bottlenecks, the first may be on another path, and its congestion
 * reaches us later than our own path's would. */
static void
learn_onset (RlmReceiver * r, gint64 now)
{
  guint top = highest_in_progress (r, now);
  gint64 last;

  if (top != r->level + 1 || r->exp_own[top])
    return;
  last = r->exp_start[top];
  if (last < 0 || last <= r->last_loss)
    return;
  onset_sample (r, CLAMP (now - last, RLM_MIN_TIMER, detection_window (r)));
}

/* learn_higher_failures: another's experiment at @top, two or more
 * levels above ours, is failing; its load on our path ends when its
 * receivers drop it. We learn that @top failed (once per experiment: its
 * congestion brings a burst of losses) and stay in S: the paper's H and M
 * would stop our join timer for two detection windows for a level that
 * is not the one above ours, and end a first climb. */
static void
learn_higher_failure (RlmReceiver * r, guint top, gint64 now)
{
  if (r->exp_learned[top] == r->exp_start[top])
    return;
  backoff (r, top);
  note_failure (r, top, now);
  r->exp_learned[top] = r->exp_start[top];
  r->st.experiments_learned++;
}

/* How long after an announcement a failure on our path congests it; 0:
 * no bound. learn_higher_onset_measured: our onset estimate plus
 * k2 deviations once we have a sample, else learn_higher_onset. */
static gint64
onset_bound (const RlmReceiver * r)
{
  if (r->cfg.learn_higher_onset_measured && r->onset_samples > 0) {
    return MAX ((gint64) (r->onset_mean + r->cfg.k2 * r->onset_dev),
        RLM_MIN_TIMER);
  }
  return r->cfg.learn_higher_onset;
}

/* The loss need not be @top's failure. learn_higher_sole: another
 * experiment above our level and below @top is in progress too, and may
 * be the one failing: receivers behind different bottlenecks (section
 * 3.3) run their experiments at different levels, and the highest in
 * progress may load a link that is not on our path at all.
 * learn_higher_onset: the first announcement at @top came longer ago than
 * a failure on our path takes to congest it (its layer's join latency
 * and the queue's filling); the loss has another cause. */
static gboolean
higher_failure_ambiguous (const RlmReceiver * r, guint top, gint64 now)
{
  gint64 bound = onset_bound (r);

  if (bound > 0 && now - r->exp_first[top] > bound)
    return TRUE;
  if (!r->cfg.learn_higher_sole)
    return FALSE;
  for (guint k = r->level + 1; k < top; k++)
    if (exp_in_progress (r, k, now))
      return TRUE;
  return FALSE;
}

/* learn_higher_fresh_between: another experiment above our level and
 * below @top began (the first of its overlapping announcements) within
 * the onset bound, so it may be the one congesting our path: receivers
 * behind another bottleneck climb to other levels (section 3.3). One
 * that began earlier has had the time to congest our path and did not
 * (in a large session one is nearly always in progress). Experiments at
 * two levels that begin together still look alike from here, whichever
 * path they load (docs/protocols/rlm.md). */
static gboolean
fresh_experiment_between (const RlmReceiver * r, guint top, gint64 now)
{
  gint64 bound = onset_bound (r);

  if (bound <= 0)
    bound = detection_window (r);
  for (guint k = r->level + 1; k < top; k++)
    if (exp_in_progress (r, k, now) && now - r->exp_first[k] <= bound)
      return TRUE;
  return FALSE;
}

/* learn_higher_failures: the loss is taken as @top's failure. */
static gboolean
blame_higher (RlmReceiver * r, guint top, gint64 now)
{
  if (higher_failure_ambiguous (r, top, now)) {
    r->st.higher_failures_ambiguous++;
    return FALSE;
  }
  if (r->cfg.learn_higher_fresh_between &&
      fresh_experiment_between (r, top, now)) {
    r->st.higher_failures_ambiguous++;
    r->st.higher_failures_fresh_between++;
    return FALSE;
  }
  return TRUE;
}

static void
loss_in_steady (RlmReceiver * r, gint64 now)
{
  guint top = highest_in_progress (r, now);
  gboolean reported = reported_join_in_progress (r, now);

  settle_own_experiment (r, now);
  if (r->cfg.learn_detection_time && !r->own_level && !reported)
    learn_detection_time (r, now);
  if (r->cfg.learn_higher_onset_measured && !r->own_level && !reported)
    learn_onset (r, now);
  if (reported && !foreign_experiment_above (r, now)) {
    undo_reported_join (r, now);
  } else if (r->own_level && top == r->own_level) {
    drop_layer (r, now);
  } else if (r->own_level) {
    r->own_onset = now;
    enter_state (r, RLM_STATE_MEASUREMENT, now);
  } else {
    /* shared learning: someone's experiment one level above ours */
    if (top == r->level + 1 && !r->exp_own[top]) {
      backoff (r, top);
      note_failure (r, top, now);
      r->settled = TRUE;
      r->st.experiments_learned++;
      /* one experiment teaches once */
      r->exp_start[top] = -1;
    } else if (r->cfg.learn_higher_failures && top > r->level + 1 &&
        !r->exp_own[top]) {
      if (blame_higher (r, top, now)) {
        learn_higher_failure (r, top, now);
        return;
      }
    }
    enter_state (r, RLM_STATE_HYSTERESIS, now);
  }
}

static gdouble
loss_estimate (const RlmReceiver * r)
{
  return r->loss_expected > 0 ? r->loss_lost / r->loss_expected : 0;
}

/* measure_own_loss: a loss in M, with no experiment of ours in progress,
 * while another receiver's experiment above our level is, is most likely
 * that experiment failing: a congestion that ends when its receivers drop
 * it, not the long-term congestion M looks for (H's reasoning). The
 * estimate forgets it, and M measures for a whole detection time from
 * here. An experiment of ours may be the one failing and is judged as the
 * paper does. */
static void
discount_foreign_loss (RlmReceiver * r, gint64 now)
{
  r->loss_lost = 0;
  r->state_deadline = MAX (r->state_deadline, now + detection_window (r));
}

static void
on_loss (RlmReceiver * r, gint64 now)
{
  switch (r->state) {
    case RLM_STATE_STEADY:
      loss_in_steady (r, now);
      break;
    case RLM_STATE_MEASUREMENT:
      if (r->cfg.measure_own_loss && !r->own_level &&
          foreign_experiment_above (r, now))
        discount_foreign_loss (r, now);
      else if (loss_estimate (r) > r->cfg.loss_threshold)
        drop_layer (r, now);
      break;
    case RLM_STATE_HYSTERESIS:
    case RLM_STATE_DROP:
      break;
  }
}

/* @lost packets missing, then one received. Both counts decay with the
 * time constant, so lost / expected is the loss fraction of roughly the
 * last loss_time_constant, whatever the packet rate; clearing the lost
 * count alone makes the estimate ramp up again as losses come. */
static void
feed_loss_estimator (RlmReceiver * r, guint64 lost, gint64 now)
{
  gdouble tau = (gdouble) MAX (r->cfg.loss_time_constant, 1);
  gdouble keep = exp (-(gdouble) MAX (now - r->loss_time, 0) / tau);

  r->loss_lost = r->loss_lost * keep + (gdouble) lost;
  r->loss_expected = r->loss_expected * keep + (gdouble) lost + 1.0;
  r->loss_time = now;
}

/* The first packet of @layer since our join of it: one join latency. */
static void
join_latency_sample (RlmReceiver * r, guint layer, gint64 now)
{
  if (r->join_sent[layer] < 0)
    return;
  r->join_latency_max = MAX (r->join_latency_max, now - r->join_sent[layer]);
  r->join_sent[layer] = -1;
  r->st.join_latency_samples++;
}

static RlmPacketKind
on_media (RlmReceiver * r, const guint8 * data, gsize len, gint64 now)
{
  RtpHeader h;
  RtpExtElement el;
  RlmLayerSeq *s;
  RlmLayerStats *ls;
  guint layer;
  gint64 ext, d;

  if (!rtp_header_parse (data, len, &h) ||
      !rtp_ext_find (&h, r->cfg.ext_id, &el) || el.len != RLM_LAYER_EXT_SIZE ||
      el.data[0] >= r->cfg.n_layers) {
    r->st.malformed++;
    return RLM_PACKET_MALFORMED;
  }
  if (r->have_media_ssrc && h.ssrc != r->media_ssrc) {
    if (now - r->media_last < r->cfg.source_timeout) {
      r->st.foreign++;
      return RLM_PACKET_FOREIGN;
    }
    /* the source fell silent and another took over (a restarted sender):
     * its layers start new sequences */
    memset (r->seq, 0, sizeof (r->seq));
    r->st.source_changes++;
  }
  r->have_media_ssrc = TRUE;
  r->media_ssrc = h.ssrc;
  r->media_last = now;
  layer = el.data[0];
  if (layer >= r->level) {
    r->st.unsubscribed++;
    return RLM_PACKET_UNSUBSCRIBED;
  }
  s = &r->seq[layer];
  ls = &r->st.layers[layer];
  ls->received++;
  if (!s->have_seq) {
    /* the layer's first packet since the join: a baseline, not a gap */
    s->have_seq = TRUE;
    s->ext_max = RTP_SEQ_MOD + read16 (el.data + 1);
    join_latency_sample (r, layer, now);
    return RLM_PACKET_MEDIA;
  }
  ext = rtp_seq_extend (s->ext_max, read16 (el.data + 1));
  d = ext - s->ext_max;
  if (d <= 0) {
    ls->late++;
    return RLM_PACKET_MEDIA;
  }
  s->ext_max = ext;
  if (d > RTP_SEQ_MAX_DROPOUT) {
    ls->resyncs++;
    return RLM_PACKET_MEDIA;
  }
  ls->lost += d - 1;
  if (r->state != RLM_STATE_DROP)
    feed_loss_estimator (r, d - 1, now);
  if (d > 1) {
    on_loss (r, now);
    r->last_loss = now;
  }
  return RLM_PACKET_MEDIA;
}

/* A REPORT's failed level is 0 or one a join-experiment can reach (a
 * JOIN's is reserved and ignored). */
static gboolean
fail_level_sound (const RlmReceiver * r, const RlmCtrl * c)
{
  return c->type != RLM_CTRL_REPORT || c->fail_level == 0 ||
      (c->fail_level >= 2 && c->fail_level <= r->cfg.n_layers);
}

/* learn_reported_failures: another receiver's experiment at @level
 * failed, and it will not retry there for @code's time. Above our level
 * we do not try before then either: the newcomers that did not see the
 * failure then try together with the session, not one by one. */
static void
heard_failure (RlmReceiver * r, guint level, guint8 code, gint64 now)
{
  gint64 until;

  r->st.failures_heard++;
  if (!r->cfg.learn_reported_failures || level <= r->level)
    return;
  until = now + MIN (rlm_fail_hold_decode (code), join_max (r));
  if (until <= r->hold_until[level])
    return;
  r->hold_until[level] = until;
  r->st.failures_adopted++;
  if (level == r->level + 1 && r->join_deadline >= 0)
    r->join_deadline = MAX (r->join_deadline, until);
}

static RlmPacketKind
on_control (RlmReceiver * r, const guint8 * data, gsize len,
    const RlmAddr * from, gint64 now)
{
  RlmCtrl c;
  RlmMember *m;
  guint lo;

  if (!rlm_ctrl_parse (data, len, &c)) {
    r->st.malformed++;
    return RLM_PACKET_MALFORMED;
  }
  lo = c.type == RLM_CTRL_JOIN ? 2 : 1;
  if (c.level < lo || c.level > r->cfg.n_layers ||
      !fail_level_sound (r, &c)) {
    r->st.malformed++;
    return RLM_PACKET_MALFORMED;
  }
  if (c.ssrc == r->ssrc) {
    r->st.own++;
    return RLM_PACKET_OWN;
  }
  m = g_hash_table_lookup (r->members, GUINT_TO_POINTER (c.ssrc));
  if (m && from && (m->addr.len != from->len ||
          memcmp (m->addr.bytes, from->bytes, MIN (from->len,
                  RLM_ADDR_MAX_SIZE)) != 0)) {
    r->st.forged++;
    return RLM_PACKET_FORGED;
  }
  if (!m && g_hash_table_size (r->members) < r->cfg.max_members) {
    m = g_new0 (RlmMember, 1);
    if (from)
      m->addr = *from;
    m->addr.len = MIN (m->addr.len, RLM_ADDR_MAX_SIZE);
    g_hash_table_insert (r->members, GUINT_TO_POINTER (c.ssrc), m);
  } else if (!m) {
    r->st.member_overflow++;
  }
  if (m)
    m->last_heard = now;
  if (m && c.type == RLM_CTRL_REPORT) {
    m->level = c.level;
    m->settled = (c.flags & RLM_CTRL_FLAG_SETTLED) != 0;
    m->reported_at = now;
  }
  r->st.control_received++;
  if (c.type == RLM_CTRL_JOIN)
    record_experiment (r, c.level, FALSE, now);
  else if (c.fail_level != 0)
    heard_failure (r, c.fail_level, c.fail_hold, now);
  return RLM_PACKET_CONTROL;
}

RlmPacketKind
rlm_receiver_on_datagram (RlmReceiver * r, const guint8 * data, gsize len,
    const RlmAddr * from, gint64 now)
{
  if (!data || len < 2) {
    r->st.malformed++;
    return RLM_PACKET_MALFORMED;
  }
  /* RFC 5761 4: RTCP packet types 192-223 in the second octet */
  if (data[1] >= 192 && data[1] <= 223) {
    if (r->auth && auth_open (r->auth, data, len, now, &len, NULL) != AUTH_OK)
      return RLM_PACKET_UNAUTHENTICATED;
    return on_control (r, data, len, from, now);
  }
  return on_media (r, data, len, now);
}

/* RTCP-like: the reports of all receivers share report_bandwidth. */
static gint64
report_interval (const RlmReceiver * r)
{
  gsize wire = RLM_CTRL_WIRE_SIZE + (r->auth ? AUTH_TRAILER_SIZE : 0);
  gdouble shared = r->cfg.report_bandwidth > 0 ?
      session_size (r) * wire * 8.0 / r->cfg.report_bandwidth * NS_PER_S : 0;

  return MAX (MAX (r->cfg.report_interval, (gint64) shared), RLM_MIN_TIMER);
}

static void
schedule_report (RlmReceiver * r, gint64 now)
{
  gint64 t = report_interval (r);

  r->report_deadline = now + random_source_range (r->rng, t / 2, t + t / 2);
}

static void
expire_members (RlmReceiver * r, gint64 now)
{
  GHashTableIter it;
  gpointer value;
  gint64 timeout = (gint64) r->cfg.member_timeout * report_interval (r);

  g_hash_table_iter_init (&it, r->members);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    RlmMember *m = value;

    if (now - m->last_heard > timeout)
      g_hash_table_iter_remove (&it);
  }
}

RlmReceiver *
rlm_receiver_new (const RlmConfig * cfg, const RandomSource * rng,
    gint64 now)
{
  RlmReceiver *r = g_new0 (RlmReceiver, 1);

  r->cfg = *cfg;
  r->cfg.n_layers = CLAMP (r->cfg.n_layers, 1, RLM_MAX_LAYERS);
  r->cfg.t_join_min = MAX (r->cfg.t_join_min, 1);
  r->rng = rng;
  r->ssrc = (guint32) random_source_range (rng, 1, G_MAXUINT32);
  r->started = now;
  r->t_d = (gdouble) cfg->detection_time_init;
  r->sigma_d = (gdouble) cfg->detection_dev_init;
  for (guint k = 0; k <= RLM_MAX_LAYERS; k++) {
    r->join_timer[k] = r->cfg.t_join_min;
    r->exp_start[k] = -1;
    r->exp_first[k] = -1;
    r->exp_learned[k] = -1;
  }
  r->last_loss = -1;
  for (guint layer = 0; layer < RLM_MAX_LAYERS; layer++)
    r->join_sent[layer] = -1;
  r->join_latency_max = -1;
  r->members = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_queue_init (&r->events);
  g_queue_init (&r->transmits);
  r->level = CLAMP (r->cfg.start_level, 1, r->cfg.n_layers);
  level_changed (r, now);
  r->may_join_reported = r->cfg.join_reported;
  enter_state (r, RLM_STATE_STEADY, now);
  for (guint layer = 0; layer < r->level; layer++)
    push_event (r, RLM_EVENT_JOIN, layer, RLM_REASON_START);
  push_event (r, RLM_EVENT_LEVEL, r->level - 1, RLM_REASON_START);
  schedule_report (r, now);
  return r;
}

void
rlm_receiver_free (RlmReceiver * r)
{
  if (!r)
    return;
  g_hash_table_destroy (r->members);
  auth_session_free (r->auth);
  polled_clear (&r->events);
  polled_clear (&r->transmits);
  g_free (r);
}

void
rlm_receiver_set_key (RlmReceiver * r, const AuthKey * key)
{
  auth_session_free (r->auth);
  /* every member and our own packets looped back */
  r->auth = auth_session_new (key, r->ssrc, r->cfg.max_members + 1);
}

/* join_reported: every receiver that reports a settled level holds it,
 * so the lowest of them is carried by the shared links already; we join
 * up to it at once, without announcing it: the others' success, shared as
 * section 3.3 shares failures. It is judged like an experiment of ours
 * (undo_reported_join). The level above is where the receivers that
 * reported it settled: its timer starts backed off once, as if we had
 * learned one failure there, so that newcomers do not all try it at once.
 * FALSE when there is nothing to join. */
static gboolean
join_reported_level (RlmReceiver * r, gint64 now)
{
  guint target;

  if (!r->may_join_reported || r->own_level)
    return FALSE;
  target = lowest_settled_level (r, now);
  if (target <= r->level)
    return FALSE;
  r->reported_from = r->level;
  r->reported_start = now;
  r->settled = FALSE;
  level_changed (r, now);
  r->st.reported_joins++;
  while (r->level < target) {
    memset (&r->seq[r->level], 0, sizeof (RlmLayerSeq));
    r->join_sent[r->level] = now;
    push_event (r, RLM_EVENT_JOIN, r->level, RLM_REASON_REPORTED_LEVEL);
    r->level++;
  }
  push_event (r, RLM_EVENT_LEVEL, r->level - 1, RLM_REASON_REPORTED_LEVEL);
  backoff (r, target + 1);
  schedule_join (r, now);
  return TRUE;
}

/* gap_retry: a join timer held back by another receiver's experiment
 * retries once every lower experiment in progress has ended, plus up to
 * 0.5 s so that the receivers it held back do not all start together; the
 * paper draws a new interval instead (as it still does when only our own
 * experiment held it back). */
static void
retry_after_lower (RlmReceiver * r, guint target, gint64 now)
{
  gint64 end = now;

  for (guint k = 2; k < target; k++)
    if (holds_join_timer (r, k, now))
      end = MAX (end, r->exp_start[k] + (own_experiment_at (r, k) ?
              detection_window (r) : lower_hold (r)));
  end += random_source_range (r->rng, 1, (gint64) (NS_PER_S / 2));
  r->join_deadline = MAX (end, r->hold_until[target]);
}

/* The join timer of S expired: a join up to the reported level
 * (join_reported), else an experiment, unless a lower one or our join up
 * to the reported level is in progress (section 3.4). */
static void
join_timer_expired (RlmReceiver * r, gint64 now)
{
  guint target = r->level + 1;
  gboolean lower = FALSE, foreign = FALSE;

  if (reported_join_in_progress (r, now)) {
    schedule_join (r, now);
    return;
  }
  if (join_reported_level (r, now))
    return;

  for (guint k = 2; k < target; k++) {
    if (holds_join_timer (r, k, now)) {
      lower = TRUE;
      foreign |= !r->exp_own[k];
    }
  }
  if (lower) {
    if (foreign)
      r->st.experiments_suppressed++;
    if (r->cfg.gap_retry && foreign)
      retry_after_lower (r, target, now);
    else
      schedule_join (r, now);
    return;
  }
  queue_ctrl (r, RLM_CTRL_JOIN, now);
  r->st.announcements_sent++;
  r->st.experiments_run++;
  record_experiment (r, target, TRUE, now);
  r->own_level = target;
  r->own_start = now;
  r->own_onset = -1;
  add_layer (r, now);
  schedule_join (r, now);
}

static void
advance_steady (RlmReceiver * r, gint64 now)
{
  settle_own_experiment (r, now);
  if (now >= r->state_deadline) {
    if (!r->own_level)
      relax (r, r->level);
    r->state_deadline = now + detection_window (r);
  }
  if (r->join_deadline >= 0 && now >= r->join_deadline)
    join_timer_expired (r, now);
}

void
rlm_receiver_advance (RlmReceiver * r, gint64 now)
{
  if (now >= r->report_deadline) {
    expire_members (r, now);
    queue_ctrl (r, RLM_CTRL_REPORT, now);
    r->st.reports_sent++;
    schedule_report (r, now);
  }
  switch (r->state) {
    case RLM_STATE_STEADY:
      advance_steady (r, now);
      break;
    case RLM_STATE_HYSTERESIS:
      if (now >= r->state_deadline)
        enter_state (r, RLM_STATE_MEASUREMENT, now);
      break;
    case RLM_STATE_MEASUREMENT:
      if (now >= r->state_deadline) {
        settle_own_experiment (r, now);
        enter_state (r, RLM_STATE_STEADY, now);
      }
      break;
    case RLM_STATE_DROP:
      if (now >= r->state_deadline) {
        r->loss_lost = 0;
        enter_state (r, RLM_STATE_STEADY, now);
      }
      break;
  }
}

gint64
rlm_receiver_next_deadline (const RlmReceiver * r)
{
  gint64 t = MIN (r->report_deadline, r->state_deadline);

  if (r->state == RLM_STATE_STEADY) {
    if (r->join_deadline >= 0)
      t = MIN (t, r->join_deadline);
    if (r->own_level)
      t = MIN (t, r->own_start + detection_window (r));
  }
  return t;
}

gsize
rlm_receiver_pop_transmit (RlmReceiver * r, guint8 * out, gsize max)
{
  gsize need = RLM_CTRL_SIZE + (r->auth ? AUTH_TRAILER_SIZE : 0), len;
  RlmCtrl c;

  if (max < need || !polled_pop (&r->transmits, &c, sizeof (c)))
    return 0;
  len = rlm_ctrl_write (&c, out, max);
  return r->auth ? auth_seal (r->auth, out, len, max) : len;
}

gboolean
rlm_receiver_pop_event (RlmReceiver * r, RlmEvent * ev)
{
  return polled_pop (&r->events, ev, sizeof (RlmEvent));
}

void
rlm_receiver_get_stats (const RlmReceiver * r, RlmReceiverStats * st)
{
  *st = r->st;
  st->ssrc = r->ssrc;
  st->level = r->level;
  st->state = r->state;
  memcpy (st->join_timer, r->join_timer, sizeof (st->join_timer));
  st->join_deadline = r->state == RLM_STATE_STEADY ? r->join_deadline : -1;
  st->detection_time = (gint64) r->t_d;
  st->detection_dev = (gint64) r->sigma_d;
  st->onset_samples = r->onset_samples;
  st->onset_estimate = r->onset_samples ? (gint64) r->onset_mean : -1;
  st->onset_dev = r->onset_samples ? (gint64) r->onset_dev : -1;
  st->join_max = join_max (r);
  st->loss_estimate = loss_estimate (r);
  st->join_latency = r->join_latency_max;
  st->session_size = session_size (r);
  st->authenticated = r->auth != NULL;
  if (r->auth)
    auth_session_get_stats (r->auth, &st->auth);
}
