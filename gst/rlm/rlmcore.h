/* RLM (receiver-driven layered multicast): a sans-I/O core (GLib only).
 *
 * McCanne, Jacobson, Vetterli, "Receiver-driven Layered Multicast",
 * SIGCOMM '96. The source sends layer i of a cumulative layered stream to
 * its own multicast group and takes no other part: the sender side here
 * only stamps each packet with the per-layer sequence extension and maps
 * layers to groups. Each receiver runs the state machine of section 3.4
 * (steady S, hysteresis H, measurement M, drop D) with a join timer per
 * level, backoff and relaxation (3.5), the detection-time estimator (3.5)
 * and shared learning by join-experiment announcements (3.3).
 *
 * Our reading of the paper, made exact (docs/protocols/rlm.md):
 * - Levels are 1-based (level N: layers 0 .. N-1 subscribed). The join
 *   timer of level k (2 <= k <= n_layers) is the one whose expiry adds the
 *   layer that makes level k; a failed experiment at k backs it off, and
 *   steady state at level N relaxes the timer of level N (so a level lost
 *   to transient congestion is soon taken again, Fig. 4 F).
 * - A loss is a gap in the per-layer sequence of a subscribed layer, seen
 *   since that layer's first packet after the join; an unsubscribed layer's
 *   packets are counted and ignored.
 * - Experiments are tracked per level by their announcement time (ours
 *   and others'); one is in progress for k1 T_D + k2 sigma_D after it.
 * - S: the join timer for level N+1 expires: if an experiment at a lower
 *   level is in progress it is rescheduled (suppressed when that
 *   experiment is someone else's), else an announcement is queued and the
 *   layer added. With join_latency_hold another's lower experiment holds
 *   the timer for at most that many of our largest join latency; with
 *   first_climb_unheld, until the receiver's first loss and while the
 *   timer of its next level never backed off (and, with
 *   first_climb_unheld_for, for that long after its start; with
 *   first_climb_to_settled, only for a next level at most the lowest one
 *   reported settled), another's
 *   experiment does not hold it (every lower level is one we hold). A loss
 *   in S: an own experiment in progress at the highest level in progress
 *   failed (drop, backoff, detection-time sample, D); an
 *   own experiment under a higher one in progress goes to M; otherwise H,
 *   and if the highest experiment in progress is someone else's at N+1,
 *   the timer of level N+1 backs off (learned); with
 *   learn_higher_failures, when it is someone else's two or more levels
 *   up, that level's timer backs off and we stay in S (with
 *   learn_higher_sole only when no other experiment above our level is
 *   in progress, with learn_higher_onset only within that long
 *   of its first announcement, and with learn_higher_fresh_between not
 *   while one between began within that bound). Every T_D in S
 *   relaxes the
 *   timer of level N; an own experiment that lasts T_D without loss
 *   succeeded.
 * - H: losses are absorbed; after T_D, M. M: the loss estimator, ramping
 *   up from 0 from the entry to M, above the threshold drops the layer
 *   (D); after T_D without that, S. D: losses are ignored; after T_D, S.
 *   The estimator is the loss fraction with both counts decayed with a
 *   time constant (ours: the paper names a short-term estimator only).
 * - T_J^max is multiplied by max(1, n / join_max_ref) where n is the
 *   session size estimated from the receivers' periodic reports.
 * - With learn_reported_failures (ours; the paper's section 8 names
 *   learning beyond one's own observations as future work) a receiver
 *   whose experiment failed, or that learned a failure, names the level in
 *   its REPORTs until its earliest retry there (half the join timer it
 *   backed off to, after the failure); a receiver below that level that
 *   hears it makes no experiment at that level before then.
 */
#ifndef __RLM_CORE_H__
#define __RLM_CORE_H__

#include <glib.h>

#include "core/auth.h"
#include "core/random.h"

G_BEGIN_DECLS

#define RLM_MAX_LAYERS 16

/* The per-layer sequence extension (RFC 8285 one-byte element): layer
 * index (8 bits), then the layer's own 16-bit sequence number. */
#define RLM_LAYER_EXT_SIZE 3

/* Announcements (RTCP APP, name "RLM "): 12-byte APP header, then
 * level (8), flags (8, 0), failed level (8), hold (8). The last two are 0
 * in a JOIN; in a REPORT (learn_reported_failures) they name a level whose
 * experiment failed recently (0: none) and the time from the REPORT to the
 * reporter's earliest retry there, coded as RLM_FAIL_HOLD_UNIT x
 * 2^(code/8), rounded down. */
#define RLM_APP_NAME "RLM "
#define RLM_CTRL_SIZE 16
#define RLM_CTRL_JOIN 0         /* subtype: join-experiment at level */
#define RLM_CTRL_REPORT 1       /* subtype: presence, current level */
/* REPORT flag: the reporter's level is not a step of a climb: the level
 * above failed for it since it reached its level, it has every layer, or
 * it has held the level for 2 T_J^min. */
#define RLM_CTRL_FLAG_SETTLED 0x01
#define RLM_FAIL_HOLD_UNIT (G_GINT64_CONSTANT (100000000))    /* 100 ms */
/* An announcement with the group key's trailer (auth.h) after it. */
#define RLM_CTRL_MAX_SIZE (RLM_CTRL_SIZE + AUTH_TRAILER_SIZE)

typedef enum {
  RLM_STATE_STEADY,             /* S */
  RLM_STATE_HYSTERESIS,         /* H */
  RLM_STATE_MEASUREMENT,        /* M */
  RLM_STATE_DROP,               /* D */
} RlmState;

/* How a join-timer interval is drawn: lambda/2 + X, X truncated to
 * [0, 4 lambda] with lambda = the level's mean join timer in seconds. */
typedef enum {
  /* section 4 as printed: density
   * lambda e^(-lambda x) / (1 - e^(-4 lambda^2)) */
  RLM_JOIN_DRAW_PAPER,
  /* exponential of mean lambda, (1/lambda) e^(-x/lambda) / (1 - e^-4) */
  RLM_JOIN_DRAW_MEAN,
} RlmJoinDraw;

/* Every constant of the paper, with its value as default (rlm_config_init).
 * Times in ns. */
typedef struct {
  guint n_layers;               /* layers the source sends: 6 (section 4) */
  gdouble alpha;                /* join-timer backoff: 2 */
  gdouble beta;                 /* join-timer relaxation: 2/3 */
  gdouble k1, k2;               /* detection-timer scaling: 1, 2 */
  gdouble g1, g2;               /* detection-time filter gains: 0.25, 0.25 */
  gint64 t_join_min;            /* T_J^min: 5 s */
  gint64 t_join_max;            /* T_J^max: 600 s */
  RlmJoinDraw join_draw;        /* PAPER */
  /* Not given by the paper (ours, docs/protocols/rlm.md): */
  gint64 detection_time_init;   /* T_D's conservative start: 2 s */
  gint64 detection_dev_init;    /* sigma_D's start: 500 ms */
  gint64 loss_time_constant;    /* short-term loss estimator's memory: 1 s */
  gdouble loss_threshold;       /* L > T in M: 0.1 */
  gboolean scale_join_max;      /* T_J^max grows with the session: TRUE */
  guint join_max_ref;           /* ... as n / this: 1 receiver */
  guint start_level;            /* the level joined at the start: 1 (the
                                 * paper); a level learned in an earlier
                                 * session saves the climb to it */
  gboolean join_reported;       /* a receiver that has not dropped a layer
                                 * joins at once, unannounced, up to the
                                 * lowest level reported as settled:
                                 * FALSE (the paper) */
  gboolean gap_retry;           /* a join timer suppressed by another's
                                 * lower experiment retries when the last
                                 * one in progress ends, not after a new
                                 * draw: FALSE (the paper) */
  gboolean measure_own_loss;    /* M without an experiment of ours neither
                                 * drops nor counts a loss while another
                                 * receiver's experiment above our level is
                                 * in progress: FALSE (the paper) */
  gboolean learn_detection_time;        /* another's failure learned one
                                         * level up also feeds the
                                         * detection-time estimator: FALSE
                                         * (the paper) */
  gdouble join_latency_hold;    /* another receiver's experiment below
                                 * our target holds our join timer for at
                                 * most this many times the largest join
                                 * latency we measured (our join to the
                                 * layer's first packet), not the whole
                                 * detection window; 0: the window (the
                                 * paper) */
  gint64 reported_max_age;      /* join_reported counts only settled
                                 * REPORTs heard within this long, ns;
                                 * 0: every member's last one */
  gboolean first_climb_unheld;  /* until our first loss (first exit from
                                 * S) and while the timer of our next level
                                 * is at t_join_min, another receiver's
                                 * experiment at a level we hold does not
                                 * hold our join timer (section 3.4 holds
                                 * it): FALSE */
  gint64 first_climb_unheld_for;        /* first_climb_unheld ends this
                                         * long after the receiver's
                                         * start, ns; 0: with the first
                                         * climb only */
  gboolean first_climb_to_settled;      /* with first_climb_unheld, an
                                         * experiment to a level above the
                                         * lowest level the members report
                                         * settled is held as the paper
                                         * holds it; none heard: no cap:
                                         * FALSE */
  gboolean learn_higher_failures;       /* a loss in S, nothing of ours
                                         * in progress, while another's
                                         * experiment two or more levels
                                         * above ours is the highest in
                                         * progress: that level's timer
                                         * backs off once per experiment
                                         * and we stay in S (section 3.4:
                                         * H, then M): FALSE */
  gboolean learn_higher_sole;   /* with learn_higher_failures, only while
                                 * that experiment is the only one in
                                 * progress above our level; with another
                                 * between, the loss may be that one's,
                                 * perhaps behind another bottleneck:
                                 * the paper's H: FALSE */
  gint64 learn_higher_onset;    /* with learn_higher_failures, a loss that
                                 * comes later than this after the first
                                 * announcement of that experiment is not
                                 * taken as its failure (the paper's H), ns;
                                 * 0: no bound */
  gboolean learn_higher_onset_measured; /* with learn_higher_failures, the
                                         * bound is measured on our path:
                                         * the mean of our detection-time
                                         * samples (own failed experiments,
                                         * others' one level up; none
                                         * shorter than our largest join
                                         * latency) plus k2 deviations,
                                         * filtered from the first sample;
                                         * learn_higher_onset before it:
                                         * FALSE */
  gboolean learn_higher_fresh_between;  /* with learn_higher_failures, not
                                         * while another experiment above
                                         * our level and below that one
                                         * began within the onset bound
                                         * (learn_higher_onset or the
                                         * measured one; none: the
                                         * detection window): it may be
                                         * the one congesting our path.
                                         * One whose overlapping
                                         * announcements began earlier
                                         * has had time to congest it and
                                         * did not: FALSE */
  gboolean learn_reported_failures;     /* a receiver whose experiment
                                         * failed, or that learned a
                                         * failure, names the level in its
                                         * REPORTs with the time left to
                                         * its earliest retry there (half
                                         * the join timer it backed off
                                         * to); one below that level that
                                         * hears it makes no experiment
                                         * there before then (a newcomer
                                         * learns failures made before it
                                         * joined): FALSE */
  gint64 report_interval;       /* presence report, mean: 5 s */
  guint report_bandwidth;       /* reports of all receivers, bit/s: 4000 */
  guint member_timeout;         /* a member is gone after this many
                                 * report intervals of silence: 5 */
  guint max_members;            /* member table bound: 10000 */
  guint ext_id;                 /* RFC 8285 id of the layer extension: 6 */
  gint64 source_timeout;        /* another SSRC is taken as the source once
                                 * the source was silent this long: 2 s */
} RlmConfig;

void rlm_config_init (RlmConfig * cfg);

/* ------------------------------------------------------------------ */
/* Wire */

/* Reads the layer extension of an RTP packet; FALSE if it is not RTP or
 * carries no well-formed element @ext_id. */
gboolean rlm_layer_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    guint * layer, guint16 * layer_seq);

typedef struct {
  guint8 type;                  /* RLM_CTRL_JOIN or RLM_CTRL_REPORT */
  guint32 ssrc;                 /* the receiver's id */
  guint8 level;
  guint8 flags;                 /* RLM_CTRL_FLAG_*; unknown bits ignored */
  guint8 fail_level;            /* REPORT: a recently failed level, 0 none */
  guint8 fail_hold;             /* ... the time to its earliest retry, coded */
} RlmCtrl;

/* The hold's code for @hold ns (rounded down, clamped to 0..255) and the
 * ns a code stands for. */
guint8 rlm_fail_hold_encode (gint64 hold);
gint64 rlm_fail_hold_decode (guint8 code);

/* Parses one announcement datagram (a single RTCP APP packet, or the first
 * packet of a compound); FALSE unless it is a sound APP "RLM " with a known
 * subtype and its 4-byte body. The failed level is not checked here
 * (the receiver checks it against its layers). */
gboolean rlm_ctrl_parse (const guint8 * data, gsize len, RlmCtrl * ctrl);
/* Writes @ctrl (RLM_CTRL_SIZE bytes); 0 if @max is too small. */
gsize rlm_ctrl_write (const RlmCtrl * ctrl, guint8 * out, gsize max);

/* The group of @layer: @base (4 or 16 address bytes) + @layer as one
 * big-endian number, the port @base_port, or @base_port + 2 @layer when
 * @port_per_layer (an even RTP port each). FALSE when the address or the
 * port would wrap. */
gboolean rlm_layer_group (const guint8 * base, gsize len, guint16 base_port,
    guint layer, gboolean port_per_layer, guint8 * out, guint16 * port);

/* ------------------------------------------------------------------ */
/* Sender: stamps the packets of each layer */

typedef struct {
  guint ext_id;
  guint16 next_seq[RLM_MAX_LAYERS];
  guint64 stamped[RLM_MAX_LAYERS];
  guint64 refused;
} RlmStamper;

/* Layer sequence numbers start at random values from @rng. */
void rlm_stamper_init (RlmStamper * st, guint ext_id, const RandomSource * rng);
/* Copies the RTP packet @in into @out with the layer extension of @layer
 * added; returns the new length, or 0 (counted in @refused) when @in is
 * not RTP, already carries an element with @ext_id, @layer >=
 * RLM_MAX_LAYERS or @out is too small
 * (len + RTP_EXT_ADD_GROWTH (RLM_LAYER_EXT_SIZE) always suffices). */
gsize rlm_stamper_stamp (RlmStamper * st, guint layer, const guint8 * in,
    gsize len, guint8 * out, gsize max);
/* Uses up the next sequence number of @layer as a packet stamped and sent
 * would, without building one (a simulator's packet that no link or
 * receiver would take). */
void rlm_stamper_skip (RlmStamper * st, guint layer);

/* ------------------------------------------------------------------ */
/* Receiver */

typedef enum {
  RLM_REASON_START,             /* the base layer, when the receiver starts */
  RLM_REASON_JOIN_EXPERIMENT,   /* a join timer expired: layer added */
  RLM_REASON_EXPERIMENT_FAILED, /* loss during our experiment (S -> D) */
  RLM_REASON_CONGESTION,        /* loss rate over the threshold (M -> D) */
  RLM_REASON_REPORTED_LEVEL,    /* joined up to the session's reported level */
} RlmReason;

typedef enum {
  RLM_EVENT_JOIN,               /* join the group of @layer */
  RLM_EVENT_LEAVE,              /* leave the group of @layer */
  RLM_EVENT_LEVEL,              /* the level changed to @level, for @reason */
} RlmEventType;

typedef struct {
  RlmEventType type;
  guint layer;                  /* JOIN, LEAVE: 0-based */
  guint level;                  /* LEVEL: layers subscribed */
  RlmReason reason;
  RlmState state;               /* the state after the change */
} RlmEvent;

typedef enum {
  RLM_PACKET_MEDIA,             /* RTP of a subscribed layer */
  RLM_PACKET_UNSUBSCRIBED,      /* RTP of a layer not subscribed: ignored */
  RLM_PACKET_CONTROL,           /* an announcement or report, taken */
  RLM_PACKET_OWN,               /* our own announcement looped back */
  RLM_PACKET_FORGED,            /* a receiver id from another address */
  RLM_PACKET_FOREIGN,           /* RTP of another SSRC while the source sends */
  RLM_PACKET_MALFORMED,         /* counted and dropped */
  RLM_PACKET_UNAUTHENTICATED,   /* control without a sound, fresh trailer
                                 * under the key: counted in auth, dropped */
} RlmPacketKind;

/* A peer's address as the shell encodes it; the core compares bytes. */
#define RLM_ADDR_MAX_SIZE 32
typedef struct {
  guint8 len;
  guint8 bytes[RLM_ADDR_MAX_SIZE];
} RlmAddr;

typedef struct {
  guint64 received, lost, late, resyncs;
} RlmLayerStats;

typedef struct {
  guint32 ssrc;
  guint level;
  RlmState state;
  gint64 join_timer[RLM_MAX_LAYERS + 1];        /* mean T_J^k by level k, ns */
  gint64 join_deadline;         /* pending join timer, -1 none */
  gint64 detection_time;        /* T_D estimate, ns */
  gint64 detection_dev;         /* sigma_D, ns */
  gint64 join_max;              /* T_J^max in effect, ns */
  gdouble loss_estimate;
  guint session_size;           /* this receiver and the members heard */
  RlmLayerStats layers[RLM_MAX_LAYERS];
  guint64 experiments_run, experiments_succeeded, experiments_failed;
  guint64 experiments_suppressed, experiments_learned;
  guint64 detection_learned;    /* detection-time samples taken from others'
                                 * experiments (learn_detection_time) */
  guint64 higher_failures_ambiguous;    /* losses under another's higher
                                         * experiment not learned from:
                                         * another one above our level was
                                         * in progress (learn_higher_sole),
                                         * one between began within the
                                         * onset bound
                                         * (learn_higher_fresh_between),
                                         * or it began more than
                                         * learn_higher_onset before */
  guint64 higher_failures_fresh_between;        /* ... of those, with one
                                                 * between that began
                                                 * within the onset bound
                                                 * (learn_higher_fresh_between) */
  gint64 onset_estimate;        /* mean of the onset samples, ns; -1 none */
  gint64 onset_dev;             /* their deviation, ns; -1 none */
  guint64 onset_samples;        /* detection-time samples of our path */
  gint64 join_latency;          /* largest join latency measured, ns; -1
                                 * none yet */
  guint64 join_latency_samples; /* joins of ours whose first packet came */
  guint64 failures_repeated;    /* REPORTs sent naming a recent failure
                                 * (learn_reported_failures) */
  guint64 failures_heard;       /* REPORTs heard naming one */
  guint64 failures_adopted;     /* ... that held our experiment at a level
                                 * above ours later than before */
  guint64 drops;                /* layers dropped on congestion */
  guint64 reported_joins;       /* climbs to the reported level (join_reported) */
  guint64 reported_joins_failed;        /* ... undone by a loss in their window */
  guint64 announcements_sent, reports_sent;
  guint64 control_received, own, malformed, forged, foreign;
  guint64 source_changes;       /* new SSRCs taken after the source's silence */
  guint64 unsubscribed;         /* packets of layers not subscribed */
  guint64 member_overflow;      /* members not kept: table full */
  gboolean authenticated;       /* a key is set */
  AuthStats auth;               /* its counters (zero without a key) */
} RlmReceiverStats;

typedef struct _RlmReceiver RlmReceiver;

/* @rng must outlive the receiver; its id (SSRC of its announcements) and
 * every join-timer interval are drawn from it. Subscribes to the base
 * layer (JOIN 0, LEVEL 1 START events). */
RlmReceiver *rlm_receiver_new (const RlmConfig * cfg,
    const RandomSource * rng, gint64 now);
void rlm_receiver_free (RlmReceiver * r);
/* With a key, every announcement and report is sealed (auth.h) as this
 * receiver's id, and control datagrams are taken only when their trailer
 * is sound and fresh; the others are counted and touch nothing else. Call
 * once, before any datagram; @key is copied into the session. */
void rlm_receiver_set_key (RlmReceiver * r, const AuthKey * key);

/* One datagram received on any of the session's groups (RTP media or an
 * RTCP announcement, told apart as RFC 5761 does), from @from. */
RlmPacketKind rlm_receiver_on_datagram (RlmReceiver * r, const guint8 * data,
    gsize len, const RlmAddr * from, gint64 now);

gint64 rlm_receiver_next_deadline (const RlmReceiver * r);
void rlm_receiver_advance (RlmReceiver * r, gint64 now);

/* An announcement or report to multicast to the session (the base
 * layer's group); returns its length (RLM_CTRL_SIZE, or RLM_CTRL_MAX_SIZE
 * with a key) or 0, and keeps it queued if @max is too small. */
gsize rlm_receiver_pop_transmit (RlmReceiver * r, guint8 * out, gsize max);
gboolean rlm_receiver_pop_event (RlmReceiver * r, RlmEvent * ev);
void rlm_receiver_get_stats (const RlmReceiver * r, RlmReceiverStats * st);

const gchar *rlm_state_name (RlmState state);
const gchar *rlm_reason_name (RlmReason reason);

G_END_DECLS

#endif /* __RLM_CORE_H__ */
