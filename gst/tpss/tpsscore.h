/* TPSS + NQCP group transport: a sans-I/O core (GLib only).
 *
 * Tojo et al., "QoS Control for High-Speed Communication in a Group":
 * two-phase slow start (section 2) and notification-based QoS control
 * (section 3). Every member sends its stream to every other member and
 * receives from all of them. This core holds one member's protocol state:
 * a sender flow per destination and a receiver flow per source. It is fed
 * packets and the current time and answers with packets to send, deadlines
 * and events; it never touches a socket, thread or clock.
 *
 * Our reading of the paper, made exact (docs/protocols/tpss.md):
 *
 * Sender, per destination j (section 2.3, 2.4):
 * - Starts at `initial-rate`, so small the receiver cannot overrun, in the
 *   redundant phase: D = initial rate, S = D (1 + 1/l), l = initial_length.
 * - Redundant phase (a step being probed): the application data rate D
 *   stays fixed; the sending rate S = D (1 + 1/l) is the step, carried by
 *   parity interleaved with packet distance k (l = round(D / (S - D)),
 *   clamped to 1..255, so S <= 2D). A probe counts once it has sent
 *   k x min(l, initial_length) data packets (parity leaves in bursts after
 *   each segment); before that it holds. A segment that would take more
 *   than two report intervals is closed half an interval into the probe
 *   (event FEC_FLUSH), so a probe at a low rate is judged within about two
 *   round trips. Then:
 *   ASSIGN (j received everything for a round trip): the step is confirmed,
 *   D = min(mean receipt rate assigned in the probe, S), non-redundant;
 *   a hold (the round trip lost only parity, assign_needs_parity): nothing
 *   changes, the next round trip decides;
 *   loss within the threshold (a RATE >= S): the step is confirmed as data,
 *   D = S, and the next step is probed at once at the notified rate;
 *   loss above it (a RATE < S): S backs off, through l down to
 *   D (1 + 1/initial_length), below that with D, the parity kept at one in
 *   initial_length (so the next interval is protected; its ASSIGN restores
 *   D to what arrived), and the probe starts over.
 * - Non-redundant phase: a higher notified rate starts a new probe at that
 *   S with D unchanged (every step up is probed with parity first, so the
 *   overshoot's loss falls on a rate that parity repairs); a lower one
 *   lowers D = S (loss on data backs off as the baseline does).
 * - A rate that is not the rule's increase or decrease of S is an NQCP
 *   allocation: D = S = it, non-redundant.
 * - Traditional baseline: no parity ever, D = S = the rate j notifies.
 * - Application-limited (RFC 7661's idea for a rate): D never grows beyond
 *   app_limit_factor x the data rate MQ actually sent over the last 500 ms
 *   (nor below initial_rate by this rule), so an application that sends
 *   less than it may does not build up a rate it would later burst at; and
 *   a step up is probed only while what MQ sent over those 500 ms is at
 *   least the lowest D of them / increase (a flow that does not use its D
 *   keeps it without parity).
 * - The encoder is told D (the data rate); with several destinations D is the
 *   minimum over them (one encoding feeds all).
 *
 * Receiver, per source i (section 4's rule, and section 3):
 * - Every report interval (the RTT, at least `min-report-interval`) it
 *   computes the raw packet loss p of the interval (before FEC) and tells i
 *   a new rate: p > loss-threshold: rate * decrease (0.8), else
 *   rate * increase (1.2); in the redundant phase a complete receipt (p == 0)
 *   instead assigns the measured receive rate and ends the phase. With
 *   assign_needs_parity a round trip that lost parity and no media is no
 *   complete receipt: its RATE holds (flag hold, rate S), and the source
 *   keeps D, S and its probe until the next round trip decides.
 *   "rate" is S, the source's send rate from its REPORT. The interval starts
 *   with the first packet after the REPORT that answers the previous RATE
 *   (rate_seq), so it measures only traffic sent at that S; the source
 *   answers every RATE with a REPORT at once. RATE echoes the last REPORT's
 *   time (LSR/DLSR style) and the source measures its RTT from it.
 * - on_data is called for every packet of the source, parity included
 *   (the receive rate is the total one); refused packets count as lost.
 * - NQCP (control = notification): sources announce <D, TT, HT> ahead of
 *   their data; the receiver estimates, per 10 ms slot, the traffic
 *   Trf_i[T] = D/TT for T in [HT, HT+TT] from every source; where the sum
 *   (plus its own sending rate) exceeds max-receive-rate it allocates the
 *   capacity by priority (highest first, lower priorities cut first) or
 *   fairly (max-min), caps each source's notified rate by its allocation
 *   (when that cuts it, or it announces less than its send rate: a demand
 *   equal to the source's own rate is not a need to cap at; and the
 *   announced rate is D / max(TT, HT - ht), the traffic, not the
 *   permission D / TT = TR),
 *   and admits arriving packets from a token bucket per source (filled at its
 *   allocation, admission-burst deep; the rest of the capacity in a shared
 *   pool); under priority delivery a source out of tokens takes those of a
 *   lower priority, so the packets of lower-priority sources are the ones
 *   not delivered. No source is notified more than the capacity less what
 *   the sources above it announce.
 *   Control = feedback (the baseline): no announcements are used, the rule
 *   above is the only control, and admission is first come, first served.
 * - Sender queue (section 3.1): every packet waits at least the holding time
 *   HT in the queue MQ, then leaves paced at TR (the data rate; parity is
 *   added per destination after the queue); when a packet
 *   enters an empty queue a control packet with <D, TT, HT> goes to every
 *   destination at once, otherwise the QoS information rides on the data.
 *   A receiving shell passes a header extension's <D, TT, HT> to on_msg as
 *   a TPSS_MSG_QOS from the packet's source.
 */
#ifndef __TPSS_CORE_H__
#define __TPSS_CORE_H__

#include <glib.h>

G_BEGIN_DECLS

#define TPSS_SLOT_NS (10 * G_GINT64_CONSTANT (1000000))        /* 10 ms */
#define TPSS_MAX_MEMBERS 64

typedef enum {
  TPSS_SLOW_START_TPSS,         /* two-phase, rate raised by redundancy */
  TPSS_SLOW_START_TRADITIONAL,  /* baseline: rate raised by data */
} TpssSlowStart;

typedef enum {
  TPSS_CONTROL_NOTIFICATION,    /* NQCP */
  TPSS_CONTROL_FEEDBACK,        /* baseline: loss feedback only */
} TpssControl;

typedef enum {
  TPSS_DELIVERY_PRIORITY,
  TPSS_DELIVERY_FAIR,
} TpssDelivery;

typedef enum {
  TPSS_PHASE_REDUNDANT,
  TPSS_PHASE_NON_REDUNDANT,
} TpssPhase;

/* Every paper parameter, with the paper's value as default (see
 * tpss_config_init). Rates in bits/s, times in ns. */
typedef struct {
  TpssSlowStart slow_start;
  TpssControl control;
  TpssDelivery delivery;
  guint64 initial_rate;         /* default 1 Mbit/s */
  guint64 max_rate;             /* cap of any sending rate, default 1 Gbit/s */
  guint packet_distance;        /* k in the redundant phase: 20 */
  guint initial_length;         /* l at the start of the redundant phase: 5 */
  gdouble loss_threshold;       /* 0.05 */
  gdouble decrease;             /* 0.8 */
  gdouble increase;             /* 1.2 */
  gint64 holding_time;          /* HT: 100 ms */
  gint64 min_report_interval;   /* lower bound of the RTT-long report: 20 ms */
  guint64 max_receive_rate;     /* this member's receive capacity; 0 = unlimited */
  gint64 member_timeout;        /* silent member removed after: 5 s */
  /* Not from the paper (implementation choices, docs/protocols/tpss.md): */
  gint64 hello_interval;        /* HELLO and periodic REPORT period: 1 s */
  guint64 max_queue_bytes;      /* bound of MQ, bytes; 0 = none; 64 MiB */
  gint64 admission_burst;       /* depth of each admission bucket, as time
                                 * at its allocation (whole 10 ms slots,
                                 * at least one): 40 ms */
  gint64 pacing_catch_up;       /* MQ's pacer makes up at most this much
                                 * of the departure time its loop missed
                                 * (ns; 0 = all of it): 10 ms */
  gint64 pacing_catch_up_budget;        /* ours, off by default: the most
                                         * missed departure time made up
                                         * per stall in all, a mirror of a
                                         * receiver's admission bucket that
                                         * refills with time (ns; 0 = only
                                         * pacing_catch_up): 0 */
  gdouble pacing_catch_up_factor;        /* what the budget makes up after
                                         * the first pacing_catch_up leaves
                                         * at this many times TR (a
                                         * factor, >= 1): 1.25 */
  gdouble app_limit_factor;     /* D at most this x the data rate MQ sent
                                 * over the last 500 ms (never below
                                 * initial_rate); 0 = unbounded; 2.0 */
  /* Receiver: a round trip with a parity gap is no complete receipt (the
   * paper's "all of the packets", 2.3): one whose losses all fell on
   * parity answers with a hold (no ASSIGN, no step); FALSE: media gaps
   * alone count. */
  gboolean assign_needs_parity;
} TpssConfig;

void tpss_config_init (TpssConfig * cfg);

/* ------------------------------------------------------------------ */
/* Wire: control packets are RTCP APP packets (PT 204, name "TPSS"),
 * subtype in the RTCP count field; QoS information on data packets is an
 * RFC 8285 one-byte header extension element. docs/protocols/tpss.md. */

typedef enum {
  TPSS_MSG_QOS = 1,             /* <D, TT, HT> announcement */
  TPSS_MSG_RATE = 2,            /* rate_ij notified by a receiver */
  TPSS_MSG_REPORT = 3,          /* sender report to one receiver (feeds the RTT) */
  TPSS_MSG_HELLO = 4,           /* membership keep-alive */
} TpssMsgType;

/* What a HELLO's cookie extension is (docs/protocols/tpss.md, "Join
 * check"). */
typedef enum {
  TPSS_COOKIE_NONE = 0,         /* a plain HELLO (24 bytes) */
  TPSS_COOKIE_CHALLENGE = 1,    /* a member's cookie for newcomer cookie_to */
  TPSS_COOKIE_ECHO = 2,         /* a newcomer's echo of member cookie_to's */
} TpssCookieKind;

typedef struct {
  guint32 bytes;                /* D: data queued, bytes */
  guint32 tt_us;                /* TT = D / TR, microseconds */
  guint32 ht_us;                /* remaining holding time, microseconds */
} TpssQos;

typedef struct {
  TpssMsgType type;
  guint32 sender_ssrc;          /* the member that sent this message */
  guint32 media_ssrc;           /* the stream it is about */
  union {
    TpssQos qos;
    struct {
      guint64 rate;             /* bits/s */
      gboolean assign;          /* ends the redundant phase */
      gboolean hold;            /* no verdict: D and the probe stay */
      guint32 echo_ntp;         /* middle 32 bits of the report's time */
      guint32 delay;            /* since that report, 1/65536 s (as LSR/DLSR) */
      guint32 seq;              /* counts the RATEs this receiver sent the source */
    } rate;
    struct {
      guint32 dest_ssrc;        /* the receiver this report is for */
      guint32 ntp;              /* middle 32 bits of the send time (nonzero) */
      guint32 rtt;              /* sender's RTT to dest, 1/65536 s; 0 unknown */
      guint32 rate_seq;         /* seq of the last RATE from dest applied */
      guint64 send_rate;        /* S, bits/s */
      guint64 data_rate;        /* D, bits/s */
      TpssPhase phase;
      guint8 distance, length;  /* k, l (l = 0: no parity) */
    } report;
    struct {
      guint32 ntp;              /* middle 32 bits of the send time */
      guint32 member_id;
      /* The join check's extension (a 36-byte HELLO; kind NONE: absent) */
      TpssCookieKind cookie_kind;
      guint32 cookie_to;        /* the member this cookie HELLO is for */
      guint64 cookie;           /* 56 bits */
    } hello;
  } u;
} TpssMsg;

/* Parses one RTCP APP packet of ours out of @data (a compound packet may
 * hold several: @consumed says how far this one went). On failure @consumed
 * is still the packet's length if its RTCP common header was sound (version 2,
 * length within @data), so a caller can skip other RTCP packets; else 0. */
gboolean tpss_msg_parse (const guint8 * data, gsize len, TpssMsg * msg,
    gsize * consumed);
/* Writes @msg as an RTCP APP packet into @out (at least TPSS_MSG_MAX_SIZE
 * bytes); returns its length (0 for an unknown type). */
#define TPSS_MSG_MAX_SIZE 52
gsize tpss_msg_write (const TpssMsg * msg, guint8 * out);

/* What one RTCP packet of a compound datagram is (the session's receive
 * path, RFC 5761 multiplexing: PT 192..223 is RTCP). */
typedef enum {
  TPSS_RTCP_MSG,                /* one of our APP messages, in @msg */
  TPSS_RTCP_PLI,                /* an RFC 4585 PLI: @msg->sender_ssrc asks
                                 * for a key unit of @msg->media_ssrc */
  TPSS_RTCP_BYE,                /* an RFC 3550 BYE: @msg->sender_ssrc (its
                                 * first source) leaves the group */
  TPSS_RTCP_BAD,                /* claims to be ours (APP "TPSS", PSFB
                                 * FMT 1 or BYE) but does not parse, or a
                                 * BYE that names no source */
  TPSS_RTCP_OTHER,              /* sound RTCP of another kind */
  TPSS_RTCP_MALFORMED,          /* no sound RTCP header: stop (@consumed 0) */
} TpssRtcpKind;

/* Classifies the RTCP packet at @data (@len bytes left in the datagram);
 * @consumed: its length, so the caller steps to the next one. */
TpssRtcpKind tpss_rtcp_next (const guint8 * data, gsize len, TpssMsg * msg,
    gsize * consumed);

#define TPSS_QOS_EXT_SIZE 12
void tpss_qos_ext_write (const TpssQos * qos, guint8 * out);
gboolean tpss_qos_ext_parse (const guint8 * data, gsize len, TpssQos * qos);

/* ------------------------------------------------------------------ */
/* The member */

typedef struct _TpssMember TpssMember;

typedef struct {
  guint32 id;                   /* the remote member (its SSRC) */
  TpssPhase phase;
  guint64 data_rate;            /* D, bits/s */
  guint64 send_rate;            /* S, bits/s */
  guint64 notified_rate;        /* the last rate_ij the destination sent */
  guint distance, length;       /* k, l in use (l = 0: no parity) */
  gint64 rtt;                   /* ns, -1 before the first sample */
  guint64 packets_sent, bytes_sent;
} TpssSendStats;

typedef struct {
  guint32 id;
  guint priority;
  guint64 packets_received, packets_lost, packets_recovered;
  guint64 packets_not_delivered;        /* refused by admission */
  guint64 receive_rate;         /* measured, bits/s */
  guint64 allocated_rate;       /* NQCP allocation, 0 = unlimited */
  guint64 notified_rate;        /* what we last told the source */
  guint64 late_reports;         /* reports that ran more than a report
                                 * interval after their interval's end */
  guint64 assigns, holds;       /* RATEs sent with ASSIGN, with hold */
  TpssQos last_qos;
} TpssRecvStats;

/* What the core asks its shell to do. */
typedef enum {
  TPSS_EVENT_DATA_RATE,         /* tell the encoder: u.rate */
  TPSS_EVENT_PARITY,            /* set FEC toward u.member: k, l */
  TPSS_EVENT_PHASE,             /* u.member entered a phase */
  TPSS_EVENT_MEMBER_JOINED,
  TPSS_EVENT_MEMBER_LEFT,
  TPSS_EVENT_FEC_FLUSH,         /* close the FEC segment open toward
                                 * u.member now: its parity leaves (a probe
                                 * is judged within a report interval) */
} TpssEventType;

typedef struct {
  TpssEventType type;
  guint32 member;
  guint64 rate;
  guint distance, length;
  TpssPhase phase;
} TpssEvent;

TpssMember *tpss_member_new (guint32 own_ssrc, const TpssConfig * cfg);
void tpss_member_free (TpssMember * m);

void tpss_member_add_peer (TpssMember * m, guint32 ssrc, guint priority,
    gint64 now);
void tpss_member_remove_peer (TpssMember * m, guint32 ssrc, gint64 now);

/* Sender: queue one media packet of @bytes at @now; returns FALSE when the
 * queue is over its bound (the packet is refused). */
gboolean tpss_member_enqueue (TpssMember * m, guint32 bytes, gint64 now);
/* A packet outside the temporal layering: it goes to every destination. */
#define TPSS_LAYER_ANY 0xff
/* As tpss_member_enqueue, for a packet of temporal layer @layer (or
 * TPSS_LAYER_ANY): layered, each destination is announced the bytes of the
 * layers in its prefix (tpss_member_set_prefix). */
gboolean tpss_member_enqueue_layer (TpssMember * m, guint32 bytes,
    guint layer, gint64 now);
/* Number of packets whose holding time has passed and whose pacing slot
 * has come by @now; the shell sends that many from its queue, in order. */
guint tpss_member_dequeue (TpssMember * m, gint64 now, TpssQos * piggyback);
/* Departure time MQ's pacer did not make up because its loop ran more than
 * pacing_catch_up late (ns, in all). */
gint64 tpss_member_pacing_skipped (const TpssMember * m);
/* Departure time made up from pacing_catch_up_budget after the first
 * pacing_catch_up of a late loop (ns, in all). */
gint64 tpss_member_pacing_made_up (const TpssMember * m);

/* Layered sending (one encoding of temporal layers, each destination sent
 * the prefix that fits its D): TR, MQ's pace and the DATA_RATE event, is
 * the maximum D over destinations instead of the minimum, and what a
 * destination was sent is counted by tpss_member_count_sent, not by
 * dequeue. */
void tpss_member_set_layered (TpssMember * m, gboolean layered);
/* Layered: @bytes of a dequeued packet went to @dest (its probes count
 * them). Ignored when not layered. */
void tpss_member_count_sent (TpssMember * m, guint32 dest, guint32 bytes,
    gint64 now);
/* Layered: @dest is sent layers 0..@prefix-1 (0: all); its QOS
 * announcements count only those. */
void tpss_member_set_prefix (TpssMember * m, guint32 dest, guint prefix);
/* Layered: the <D, TT, HT> that a packet to @dest carries (as the
 * piggyback of tpss_member_dequeue, for @dest's prefix). */
void tpss_member_peer_qos (const TpssMember * m, guint32 dest, gint64 now,
    TpssQos * q);

/* Receiver: a data packet from @ssrc arrived at @now (when the host
 * received it, which may be before the core's last time: admission and the
 * receipt rate follow the wire, not a loop that fell behind); returns
 * FALSE if admission refuses it (over this member's capacity). @lost /
 * @recovered: gaps seen and packets FEC rebuilt since the last call, for
 * the report. */
gboolean tpss_member_on_data (TpssMember * m, guint32 ssrc, guint32 bytes,
    guint lost, guint recovered, gint64 now);
/* Receiver: @lost parity packets from @ssrc went missing (gaps in its
 * parity stream toward us). With assign_needs_parity a redundant phase is
 * confirmed only by a round trip that lost none of the packets sent,
 * parity included (section 2.3); one that lost parity and no media is
 * answered with a hold (neither confirmed nor backed off); the loss
 * threshold weighs the media's loss alone. */
void tpss_member_on_parity_loss (TpssMember * m, guint32 ssrc, guint lost);
/* A control message from another member. */
void tpss_member_on_msg (TpssMember * m, const TpssMsg * msg, gint64 now);

/* Timers: the next time the core wants tpss_member_advance(). */
gint64 tpss_member_next_deadline (const TpssMember * m);
void tpss_member_advance (TpssMember * m, gint64 now);

/* Output: control messages to send (destination 0 = every member). */
gboolean tpss_member_pop_msg (TpssMember * m, guint32 * dest, TpssMsg * msg);
gboolean tpss_member_pop_event (TpssMember * m, TpssEvent * ev);

gboolean tpss_member_get_send_stats (const TpssMember * m, guint32 dest,
    TpssSendStats * st);
gboolean tpss_member_get_recv_stats (const TpssMember * m, guint32 src,
    TpssRecvStats * st);

G_END_DECLS

#endif /* __TPSS_CORE_H__ */
