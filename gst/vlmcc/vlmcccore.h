/* VLMCC (single-rate multicast congestion control): a sans-I/O core (GLib
 * only).
 *
 * Rodriguez-Perez et al., "A Receiver Based Single-Layer Multicast
 * Congestion Control Protocol for Multimedia Streaming". The sender runs a
 * TCP-Vegas window toward one receiver, the leader, which acks every
 * packet (section 2.2); the other receivers (followers) run the same Vegas
 * estimation on an RTT kept current from the drift of each data packet and
 * challenge the leader when the sender's announced rate is above what
 * their own window allows (section 2.3, equation 6); a leader silent for
 * more than a window of packets is replaced by provoking a challenge
 * (section 2.4).
 *
 * Our reading, made exact (docs/protocols/vlmcc.md):
 * - The Vegas difference is W (rtt - base_rtt) / rtt packets, the
 *   expected minus the actual throughput normalised by base_rtt, with the
 *   actual throughput taken as the packets in travel over the RTT at the
 *   peak of the last RTT (a receiver has no packets in travel and uses W).
 * - Equation (2)'s "variance" is a mean deviation in time units, and the
 *   loss timeout is rtt + 4 sigma in those units.
 * - A follower's Delta_rtt uses drift_prev for consecutive packets and the
 *   difference of the sender timestamps across a gap, and the follower
 *   takes out its clock's skew against the sender's, estimated from the
 *   least drift sum of each second; when the sum takes its RTT well under
 *   0 (its START missed a queue the data was in) it probes again.
 * - Receivers always run the follower estimation; the role only decides
 *   who acks and who may challenge. A challenge carries the follower's
 *   base RTT as well, so the sender's Vegas starts right after an
 *   election. With no leader, the first receiver heard becomes leader.
 */
#ifndef __VLMCC_CORE_H__
#define __VLMCC_CORE_H__

#include <glib.h>

#include "core/auth.h"
#include "core/random.h"
#include "core/rtp.h"

G_BEGIN_DECLS

/* The data-packet extension (RFC 8285 one-byte element, 16 bytes):
 * seq (16), leader id (32), tstamp (32, sender clock in us, wraps),
 * drift_prev (24, us since the previous packet, saturating), rate (24,
 * W_sender / rtt_sender in 1/64 packet/s, saturating). */
#define VLMCC_EXT_SIZE 16
#define VLMCC_RATE_SCALE 64
/* Ours (config challenge_echo; docs/protocols/vlmcc.md, "Challenge
 * echo"): a second element, id echo_ext_id, of two bytes: the time left
 * of the sender's election hold-off when the packet left, ms, saturating
 * (0: a challenge arriving now is taken). */
#define VLMCC_ECHO_SIZE 2
/* The most the sender adds to an application's RTP packet: each element
 * may need an extension header word, a two-byte element header and three
 * octets of padding (core/rtp.h, RTP_EXT_ADD_GROWTH). */
#define VLMCC_DATA_GROWTH (2 * (4 + 2 + 3) + VLMCC_EXT_SIZE + VLMCC_ECHO_SIZE)
/* Feedback and start packets: one RTCP APP packet, name "VLMC". */
#define VLMCC_APP_NAME "VLMC"
#define VLMCC_ACK_SIZE 24
#define VLMCC_CHALLENGE_SIZE 36
#define VLMCC_START_SIZE 40
/* The START's hold field (ours, in the 16 bits the paper's START leaves
 * reserved): the time from the probe's arrival at the sender to the
 * START's send, in units of this many us, rounded down and saturating at
 * 65535 units (655.35 ms). A sender that predates it writes 0. */
#define VLMCC_START_HOLD_UNIT_US 10
#define VLMCC_START_HOLD_MAX_US (G_MAXUINT16 * VLMCC_START_HOLD_UNIT_US)
#define VLMCC_MAX_PACKET 40
/* A control packet with the group key's trailer (auth.h) after it. */
#define VLMCC_MAX_CONTROL_SIZE (VLMCC_MAX_PACKET + AUTH_TRAILER_SIZE)
/* Bounds on what other hosts can make a core hold (docs/protocols/vlmcc.md,
 * "Bounded state"): control packets queued for sending (STARTs at the
 * sender, acks and challenges at a receiver; beyond it the packet is
 * dropped and counted), and with a key the receivers whose replay windows
 * the sender keeps (the least recently heard is forgotten). */
#define VLMCC_MAX_QUEUED_CONTROL 64
#define VLMCC_MAX_KEYED_RECEIVERS AUTH_DEFAULT_MAX_SENDERS

/* What the sender's Vegas step compares with the base RTT (config
 * vegas_delay; docs/protocols/vlmcc.md, "Vegas delay input"). */
typedef enum {
  VLMCC_VEGAS_DELAY_RTT,        /* the paper: rtt hat of equation (1) */
  VLMCC_VEGAS_DELAY_MIN_RTT,    /* the least RTT sample of the epoch */
  VLMCC_VEGAS_DELAY_FORWARD,    /* base RTT + the forward queueing delay
                                 * from the leader's arrival stamps */
} VlmccVegasDelay;

/* The window rule of the Vegas+ loss-based mode (config plus_loss_mode;
 * docs/protocols/vlmcc.md, "Cubic loss-based mode"). */
typedef enum {
  VLMCC_PLUS_LOSS_RENO,         /* +1 packet per RTT, halved on loss */
  VLMCC_PLUS_LOSS_CUBIC,        /* RFC 9438's growth, x 0.7 on loss */
  VLMCC_PLUS_LOSS_CUBIC_LINUX,  /* as cubic, the Reno-friendly estimate
                                 * at alpha_cubic per RTT throughout */
} VlmccPlusLossMode;

typedef enum {
  VLMCC_MSG_ACK = 0,            /* leader -> sender, one per data packet */
  VLMCC_MSG_CHALLENGE = 1,      /* receiver -> sender (join probe or claim) */
  VLMCC_MSG_START = 2,          /* sender -> receiver, answers a probe */
} VlmccMsgType;

/* Every constant of the paper with its value as default
 * (vlmcc_config_init). Times in ns. */
typedef struct {
  gdouble g;                    /* RTT gain, eq. (1): 0.1 */
  gdouble g_var;                /* deviation gain, eq. (2): 0.1 */
  guint burst;                  /* packets per burst: 2 */
  guint rto_var_mult;           /* loss timeout rtt + this * sigma: 4 */
  guint packet_size;            /* MaxSegment, bytes: 1000 (section 3) */
  /* Not given by the paper (ours, docs/protocols/vlmcc.md): */
  gdouble alpha;                /* Vegas lower threshold, packets: 1 */
  gdouble beta;                 /* Vegas upper threshold, packets: 3 */
  gdouble n_extra;              /* N_extra of eq. (6), packets: 2 */
  gdouble diff_avg_gain;        /* follower's moving average of the rate
                                 * difference: 0.1 */
  gint64 rto_granularity;       /* the loss timeout's margin over rtt is
                                 * at least this (RFC 6298's G): 10 ms */
  gint64 rto_min;               /* and the timeout is never under this
                                 * (RFC 6298's floor, Linux's 200 ms) */
  guint dup_thresh;             /* a packet is lost when one sent this
                                 * many after it is acked (RFC 5681's
                                 * three duplicate acks): 3 */
  guint initial_window;         /* packets: 2 */
  gint64 initial_rtt;           /* before any sample: 100 ms */
  guint election_holdoff;       /* refuse challenges this many RTTs after
                                 * an election: 4 */
  gint64 election_holdoff_min;  /* ours: and never less than this after
                                 * one, whatever RTT a challenge claimed:
                                 * 100 ms */
  guint start_rate;             /* STARTs per second at most, overall (a
                                 * bucket of one second's worth): 200 */
  gint64 start_gap;             /* and one per address per this, or per
                                 * rtt when longer (up to 1 s): 100 ms */
  guint64 rate_floor;           /* bit/s; refused below, followers leave
                                 * below it: 0 (none) */
  gint64 leave_time;            /* below the floor this long: leave: 2 s */
  gint64 probe_interval;        /* join probe repeated until answered: 1 s */
  guint max_queue;              /* packets the sender holds: 512 */
  guint ext_id;                 /* RFC 8285 id of the extension: 7 */
  /* Ours, off by default (docs/protocols/vlmcc.md, "Vegas+ fallback"):
   * when the queue holds more packets than the window (queueing delay
   * over the packet-pair time per packet) for plus_epochs RTTs, a
   * loss-based flow holds it; the window then grows by one packet per
   * RTT, halved on loss (or as CUBIC, plus_loss_mode), until a halving
   * finds the queue back within the window. */
  gboolean vegas_plus;
  guint plus_epochs;            /* RTTs the queue must be held: 2 */
  /* Vegas+ on an AQM, which keeps the queue short (docs/protocols/vlmcc.md,
   * "Vegas+ on RED and CoDel"): a halving while the window is Vegas turns
   * it loss-based too, and it goes back to Vegas only with the queue
   * within the window and after this many RTTs without a halving, or
   * sooner when our packets alone fill the link: 16 (0: the held-queue
   * test alone) */
  guint plus_loss_epochs;
  /* Ours: the loss-based mode's window rule (VlmccPlusLossMode; default
   * VLMCC_PLUS_LOSS_CUBIC); the Vegas mode is the same either way */
  gint plus_loss_mode;
  /* Ours: the loss-based mode grows nothing for one RTT after a
   * reduction, and its cubic epoch starts then, as a TCP's cwnd stays put
   * through its fast recovery (FALSE: grow from the next RTT) */
  gboolean plus_recovery_hold;
  /* Ours: a reduction in the loss-based mode leaves a whole number of
   * segments of this many bytes (at least 2), as Linux's TCP keeps its
   * cwnd in whole segments and floors 0.7 cwnd; 0: off */
  guint plus_loss_segment;
  /* Ours: the sender's Vegas delay input (VlmccVegasDelay; default
   * VLMCC_VEGAS_DELAY_RTT, the paper's) */
  gint vegas_delay;
  /* Ours, off by default (docs/protocols/vlmcc.md, "Challenge echo"):
   * the sender tells the group in every data packet how long its election
   * hold-off lasts; followers that hear it keep back the challenges it
   * would refuse, and wait a random time of up to challenge_delay of their
   * RTTs (biased late) before they challenge. */
  gboolean challenge_echo;
  guint echo_ext_id;            /* RFC 8285 id of the echo element: 8 */
  gdouble challenge_delay;      /* RTTs: 2 */
  /* Ours, off by default (docs/protocols/vlmcc.md, "Leaderless bound"):
   * after a leadership loss section 2.4's growth stops at this many times
   * the window the last leader left (0: no bound, the paper's) */
  gdouble leaderless_growth_limit;
  /* and a follower whose path could carry more than the announced rate
   * volunteers (a challenge flagged so) when the data has named no leader
   * for this many of its RTTs, after a wait of up to this many times
   * 50 ms ranked by its path's headroom, the tightest first (0: never,
   * the paper's) */
  gdouble volunteer_after;
  /* Ours, off by default (docs/protocols/vlmcc.md, "START anchor"): the
   * START's RTT is moved by the data's one-way delay over the START's
   * (both stamped by the sender's clock), so it is a data packet's RTT
   * (the paper takes the small START's as is) */
  gboolean start_anchor;
  /* On by default (docs/protocols/vlmcc.md, "START hold"): the START's
   * RTT less the hold the sender reports in it, so it is the path's, as
   * the paper means it (FALSE: the RTT as it came, as before the field) */
  gboolean start_hold;
  /* Ours, off by default (docs/protocols/vlmcc.md, "Stamps under load"):
   * a challenger's base RTT is the sender's acks of its first RTT less
   * the queueing it claimed, not its claimed base */
  gboolean own_base;
  /* Ours, 0 (off, the paper's: each sample as is) by default
   * (docs/protocols/vlmcc.md, "Scheduling jitter"): a follower's RTT
   * sample enters equation (1) as the least over the last this many of
   * its rtt hat, so a packet held late by a loaded host is not queueing */
  gdouble rtt_min_window;
  /* Ours, 0 (off, the paper's: a challenge as soon as equation (6) holds)
   * by default (docs/protocols/vlmcc.md, "Challenge confirmation"): a
   * follower challenges only once equation (6) has held at every data
   * packet over the last this many of its rtt hat */
  gdouble challenge_confirm;
  /* Ours, off by default (docs/protocols/vlmcc.md, "Ack clock"): the
   * sender's Vegas takes its actual rate as the packets in travel over
   * rtt hat plus the hosts' time per ack (send to the read of the ack,
   * less the RTT sample), not over rtt hat */
  gboolean vegas_ack_clock;
  /* Ours, off by default (docs/protocols/vlmcc.md, "Window over the hosts'
   * hold"): the sender lets W (1 + h hat / rtt hat) packets travel, h hat
   * the hosts' time per ack (at most rtt hat), so W / rtt hat flows while
   * acks wait in the hosts; Vegas counts W of them. 0 hold: the paper's */
  gboolean window_covers_hold;
  /* Ours, 0 (off) by default (docs/protocols/vlmcc.md, "Window over the
   * hosts' hold"): the pace keeps its schedule after a late loop and makes
   * up at most this much of it (ns); 0: the next burst waits a whole gap
   * from the late send, the lateness lost, the paper's pace */
  gint64 pacing_catch_up;
} VlmccConfig;

void vlmcc_config_init (VlmccConfig * cfg);

/* ------------------------------------------------------------------ */
/* Wire */

typedef struct {
  guint16 seq;
  guint32 leader;               /* 0: none */
  guint32 tstamp;               /* us */
  guint32 drift;                /* us, 24 bits */
  guint32 rate;                 /* 1/64 packet/s, 24 bits */
} VlmccDataExt;

gboolean vlmcc_data_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    VlmccDataExt * ext);
/* The echo element's hold-off left, ms; FALSE when there is none. */
gboolean vlmcc_echo_ext_parse (const guint8 * rtp, gsize len, guint ext_id,
    guint16 * holdoff_ms);
/* The same two elements from an RTP header already parsed. */
gboolean vlmcc_data_ext_read (const RtpHeader * h, guint ext_id,
    VlmccDataExt * ext);
gboolean vlmcc_echo_ext_read (const RtpHeader * h, guint ext_id,
    guint16 * holdoff_ms);

typedef struct {
  VlmccMsgType type;
  guint32 id;                   /* ack, challenge: the receiver; start: the
                                 * sender's SSRC */
  /* ACK: seq, tstamp (tstamp_comp), arrival (the leader's clock when
   * the packet arrived, us) */
  /* CHALLENGE: probe (rtt etc. unset), volunteer (the data names no
   * leader and we could take more), tstamp (receiver clock, us), rtt,
   * base_rtt (us), rate (1/64 packet/s), win (1/256 packet) */
  /* START: target, seq (next), leader, rate, win, tstamp (tstamp_comp),
   * sent (ours: the sender's clock when it answered, us, as the data's
   * tstamp), hold (ours: us from the probe's arrival to the answer, a
   * multiple of VLMCC_START_HOLD_UNIT_US up to VLMCC_START_HOLD_MAX_US) */
  gboolean probe;
  gboolean volunteer;
  guint16 seq;
  guint32 tstamp;
  guint32 rtt, base_rtt;
  guint32 rate;
  guint32 win;
  guint32 target;
  guint32 leader;
  guint32 arrival;
  guint32 sent;
  guint32 hold;
} VlmccMsg;

/* One datagram: a single RTCP APP "VLMC" packet of a known subtype and
 * its exact size. */
gboolean vlmcc_msg_parse (const guint8 * data, gsize len, VlmccMsg * msg);
/* Writes @msg; 0 if @max is too small. */
gsize vlmcc_msg_write (const VlmccMsg * msg, guint8 * out, gsize max);

/* A peer's address as the shell encodes it; the core compares bytes. */
#define VLMCC_ADDR_MAX_SIZE 32
typedef struct {
  guint8 len;                   /* 0: the multicast group / the sender */
  guint8 bytes[VLMCC_ADDR_MAX_SIZE];
} VlmccAddr;

typedef enum {
  VLMCC_ROLE_NONE,              /* receiver: joining, no START yet */
  VLMCC_ROLE_FOLLOWER,
  VLMCC_ROLE_LEADER,
  VLMCC_ROLE_LEFT,              /* gave up: below the rate floor */
  VLMCC_ROLE_SENDER,
} VlmccRole;

typedef enum {
  VLMCC_EVENT_RATE,             /* @rate bit/s for the encoder */
  VLMCC_EVENT_LEADER,           /* leader is now @leader (0: none) */
  VLMCC_EVENT_ROLE,             /* receiver's role is now @role */
  VLMCC_EVENT_LEFT,             /* receiver left: below the floor */
} VlmccEventType;

typedef struct {
  VlmccEventType type;
  guint64 rate;
  guint32 leader;
  VlmccRole role;
  gint64 time;
} VlmccEvent;

typedef enum {
  VLMCC_INPUT_TAKEN,
  VLMCC_INPUT_IGNORED,          /* sound but of no use now */
  VLMCC_INPUT_MALFORMED,
  VLMCC_INPUT_FORGED,
  VLMCC_INPUT_UNAUTHENTICATED,  /* with a key: no sound, fresh trailer;
                                 * counted in auth, dropped unparsed */
} VlmccInput;

/* ------------------------------------------------------------------ */
/* Sender */

typedef struct {
  guint32 ssrc;
  gdouble window;               /* packets */
  gint64 rtt, rtt_dev, base_rtt;        /* ns */
  gint64 ack_hold;              /* ns: the hosts' time per ack, smoothed */
  gint64 vegas_rtt;             /* ns: the delay the last Vegas step
                                 * compared with base_rtt */
  gint64 forward_queue;         /* ns: forward queueing delay (smoothed)
                                 * from the leader's arrival stamps */
  guint64 rate;                 /* bit/s */
  guint32 leader;
  guint in_flight;
  guint64 sent, acked, lost, halvings, queue_dropped, unstamped;
  /* packets taken as lost whose ack came after all, and the halvings
   * undone because every loss they answered was such a one */
  guint64 spurious_losses, halvings_undone;
  guint64 leader_changes, leader_losses;
  guint64 leaders_regained;     /* given up, then a late ack of theirs came */
  gboolean loss_based;          /* vegas_plus: in the loss-based mode */
  guint64 plus_switches;        /* vegas_plus: entries into that mode */
  guint64 challenges, accepted, refused_holdoff, refused_floor, probes;
  /* volunteers heard (counted in challenges too), and elected */
  guint64 volunteers, volunteers_elected;
  guint64 malformed, forged, stale;
  guint64 elections;            /* leaders elected (probe or challenge) */
  guint64 control_dropped;      /* STARTs beyond VLMCC_MAX_QUEUED_CONTROL */
  guint64 starts_refused;       /* probes left unanswered: over start_rate,
                                 * or their address answered within
                                 * start_gap */
  gboolean authenticated;       /* a key is set */
  AuthStats auth;               /* its counters (zero without a key) */
} VlmccSenderStats;

typedef struct _VlmccSender VlmccSender;

VlmccSender *vlmcc_sender_new (const VlmccConfig * cfg, guint32 ssrc,
    const RandomSource * rng, gint64 now);
void vlmcc_sender_free (VlmccSender * s);
/* With a key, every START is sealed (auth.h) under a sender id drawn from
 * @rng, and every ack and challenge must open before it is parsed. Call
 * once, before any datagram; @key is copied into the session. */
void vlmcc_sender_set_key (VlmccSender * s, const AuthKey * key,
    const RandomSource * rng);

/* An RTP packet from the application (copied); FALSE if it is not RTP or
 * the queue is full (queue_dropped), or it carries an element with our
 * extension id already (unstamped). */
gboolean vlmcc_sender_push (VlmccSender * s, const guint8 * rtp, gsize len,
    gint64 now);
/* As _push, without sending: the packet waits for the next call that
 * runs the sender (_advance, _on_feedback), so a shell whose sending
 * thread is not the pushing one stamps each packet as it sends it. */
gboolean vlmcc_sender_enqueue (VlmccSender * s, const guint8 * rtp,
    gsize len);
guint vlmcc_sender_queued (const VlmccSender * s);
/* A datagram from a receiver (ack or challenge), from @from. */
VlmccInput vlmcc_sender_on_feedback (VlmccSender * s, const guint8 * data,
    gsize len, const VlmccAddr * from, gint64 now);
/* As _on_feedback, the datagram having reached the host at @arrival (<=
 * @now): an ack's RTT and spacing are measured to @arrival, so a loop
 * that read it late does not add its lateness. */
VlmccInput vlmcc_sender_on_feedback_at (VlmccSender * s, const guint8 * data,
    gsize len, const VlmccAddr * from, gint64 now, gint64 arrival);
gint64 vlmcc_sender_next_deadline (const VlmccSender * s);
void vlmcc_sender_advance (VlmccSender * s, gint64 now);
/* The next datagram: stamped RTP to the group (@to->len 0) or a START to
 * @to (sealed with a key); returns its length, 0 when nothing is due or
 * @max is too small (len + VLMCC_DATA_GROWTH, and VLMCC_MAX_CONTROL_SIZE,
 * always suffice). */
gsize vlmcc_sender_pop_transmit (VlmccSender * s, guint8 * out, gsize max,
    VlmccAddr * to);
gboolean vlmcc_sender_pop_event (VlmccSender * s, VlmccEvent * ev);
void vlmcc_sender_get_stats (const VlmccSender * s, VlmccSenderStats * st);
/* The window (packets) with the RTT and base RTT (ns), without copying
 * the stats. */
gdouble vlmcc_sender_get_window (const VlmccSender * s, gint64 * rtt,
    gint64 * base_rtt);

/* ------------------------------------------------------------------ */
/* Receiver */

typedef struct {
  guint32 id;
  VlmccRole role;
  gdouble window;
  gboolean loss_based;          /* vegas_plus: the window's mode */
  guint64 plus_switches;
  gint64 rtt, rtt_dev, base_rtt;        /* ns, the follower estimate */
  guint64 sender_rate;          /* bit/s announced */
  guint32 leader;
  guint64 received, lost, acks_sent, probes_sent, challenges_sent;
  /* a challenge is accepted when the data names us leader within two
   * RTTs, refused when it still names another */
  guint64 challenges_accepted, challenges_refused;
  /* challenges kept back under the sender's echo: it was in hold-off, or
   * equation (6) no longer held when the delay ran out */
  guint64 challenges_suppressed;
  /* volunteers sent, and those kept back when a leader was named or
   * our path filled during the wait (config volunteer_after) */
  guint64 volunteers_sent, volunteers_suppressed;
  guint64 leader_changes, starts;
  /* ns: the hold the last START taken reported, taken out of its RTT */
  gint64 start_hold;
  /* STARTs whose hold was not under their RTT: taken, the hold ignored */
  guint64 start_holds_invalid;
  guint64 malformed, forged, plain;
  guint64 control_dropped;      /* beyond VLMCC_MAX_QUEUED_CONTROL */
  gboolean authenticated;       /* a key is set */
  AuthStats auth;               /* its counters (zero without a key) */
} VlmccReceiverStats;

typedef struct _VlmccReceiver VlmccReceiver;

/* @rng must outlive the receiver; its id is drawn from it. It starts by
 * probing the sender (a challenge with only id and tstamp). */
VlmccReceiver *vlmcc_receiver_new (const VlmccConfig * cfg,
    const RandomSource * rng, gint64 now);
void vlmcc_receiver_free (VlmccReceiver * r);
/* With a key, every ack and challenge (the probe queued by _new too) is
 * sealed under the receiver's id, and every START must open before it is
 * parsed. Call before any datagram; @key is copied. */
void vlmcc_receiver_set_key (VlmccReceiver * r, const AuthKey * key);

/* A data packet from the group. */
VlmccInput vlmcc_receiver_on_data (VlmccReceiver * r, const guint8 * rtp,
    gsize len, gint64 now);
/* A START (or anything else) from the sender's unicast address. */
VlmccInput vlmcc_receiver_on_control (VlmccReceiver * r, const guint8 * data,
    gsize len, gint64 now);
/* As _on_data and _on_control, the datagram having reached the host at
 * @arrival (<= @now): the drift (equations 4 and 5), the START's RTT and
 * the echo's hold-off count from @arrival, and a leader's ack adds the
 * time it held the packet (@now - @arrival) to the echoed tstamp. */
VlmccInput vlmcc_receiver_on_data_at (VlmccReceiver * r, const guint8 * rtp,
    gsize len, gint64 now, gint64 arrival);
VlmccInput vlmcc_receiver_on_control_at (VlmccReceiver * r,
    const guint8 * data, gsize len, gint64 now, gint64 arrival);
gint64 vlmcc_receiver_next_deadline (const VlmccReceiver * r);
void vlmcc_receiver_advance (VlmccReceiver * r, gint64 now);
/* An ack or challenge for the sender (sealed with a key); its length, or
 * 0 when none is due or @max (VLMCC_MAX_CONTROL_SIZE suffices) is too
 * small. */
gsize vlmcc_receiver_pop_transmit (VlmccReceiver * r, guint8 * out,
    gsize max);
gboolean vlmcc_receiver_pop_event (VlmccReceiver * r, VlmccEvent * ev);
void vlmcc_receiver_get_stats (const VlmccReceiver * r,
    VlmccReceiverStats * st);
/* The window, packets. */
gdouble vlmcc_receiver_get_window (const VlmccReceiver * r);

const gchar *vlmcc_role_name (VlmccRole role);

G_END_DECLS

#endif /* __VLMCC_CORE_H__ */
