/* TPBA (TCP-rate-probing-based adaptation): a sans-I/O core (GLib only).
 *
 * Tobe, Tamura, Nishino, Tokuda, "TCP-Rate-Probing-Based Adaptation for
 * Continuous Media Communications". One RTP flow is carried over a flow pair
 * (section 5.1): TCP (RFC 4571 framing) in the rate-probing period, UDP in
 * the running period; RTCP over UDP. The sender core decides the periods and
 * the rates; the receiver core merges the two transports back into one RTP
 * stream and writes the RTCP receiver reports. Neither touches a socket, a
 * thread or a clock: they are fed packets, TCP_INFO samples and the current
 * time (ns, monotonic) and answer with decisions, RTCP packets, deadlines
 * and events.
 *
 * Our reading of the paper, made exact (docs/protocols/tpba.md):
 *
 * Sender, TPBA mode (section 4, Fig. 5):
 * - Starts in the rate-probing period. The period's cycle 0 starts at the
 *   first TCP_INFO sample fed at or after the first TCP write of the period;
 *   cycle i ends at the first sample at or after its start + T_tcp, and
 *   r[i] = 8 * (bytes_acked at the end - bytes_acked at the start) /
 *   (end - start), bits/s (the "movement of snd.una"). The next cycle starts
 *   at that sample. With i >= 2, if |r[i-2] - r[i]| < eps and
 *   |r[i-1] - r[i]| < eps, r_s = r[i] and the running period is decided.
 * - Running period: UDP paced at r (initially r_s). At every adaptation point
 *   (running start + k T_adapt) the loss of the RTP packets reported by the
 *   RRs since the previous point, p_loss = delta cumulative lost / delta
 *   extended highest seq, gives r = max(r (1 - p_loss R_f), r_min) when
 *   p_loss > 0; r never increases. At running start + T_running the
 *   rate-probing period is decided.
 * - A decided period takes effect at the next ADU boundary: before a packet
 *   when the previous packet had the RTP marker (ends an ADU) or this packet's
 *   RTP timestamp differs from the previous one; at once when the decision
 *   comes right after a marker packet. The running period and its timers
 *   start at the first UDP packet (the switch), the probing period at the
 *   first TCP packet. The last TCP write of a probing period is done with
 *   TCP_NODELAY set (section 4, "Timing of Switching Periods"); it is off
 *   again for the next probing period.
 * - cwnd_new = max(ceil(cwnd_old r_f / r_s), 1) segments is computed when a
 *   probing period is decided and reported (the kernel change it needs is
 *   not available to a Linux user-space shell).
 * - During probing the encoder is offered r[i] (1 + probe_headroom) so that
 *   TCP, not the encoder, limits the flow (ours: the paper's source was
 *   greedy).
 *
 * Options from the paper's future work (section 7, and section 4 T_running):
 * - end criterion PROPORTIONAL: |r[i-k] - r[i]| < z r[i], k = 1, 2.
 *
 * Ours, for the kept rate's bias (issue 17):
 * - end criterion CONFIDENCE: over the last n cycles that acked something
 *   (3 <= n <= ci_max_cycles), the mean m and the half-width h of its 95 %
 *   confidence interval (Student's t, n - 1 degrees of freedom); the period
 *   ends when h < ci_width m, or when the window is full, and r_s = m: the
 *   mean over TCP's sawtooth, not the value of the cycle that ended it.
 * - end criterion SETTLED: over the newest settle_window cycles that acked
 *   something, the rise across them (least-squares slope times
 *   settle_window - 1); the period ends when the window is full and the
 *   rise is below ci_width times their mean, or after ci_max_cycles cycles,
 *   and r_s is the window's median: the ramp after the switch to TCP and a
 *   single odd cycle are left out of the kept rate.
 * - running_increase, running_increase_fraction: at an adaptation point
 *   that saw no loss (beyond p_probe with allow_probe_loss),
 *   r = r + min(max(running_increase, running_increase_fraction r), (C))
 *   with LDA's line (C) bound on TCP's growth; the paper's r never
 *   increases (both 0).
 * - running_ceiling: the step never takes r above running_ceiling r_s, the
 *   rate the last probing period kept (0: no ceiling); a point already at
 *   or above it leaves r as it is.
 * - running_ceiling_peak: the ceiling is running_ceiling times the last
 *   probing period's largest cycle after its first (never below r_s)
 *   instead of r_s.
 * - running_queue_margin: a loss-free adaptation point takes no step while
 *   the RTT of the last RR is more than this above the probe's RTT, the
 *   mean of TCP_INFO's RTT over the last probing period's cycles: the
 *   climb is filling the bottleneck's queue beyond what the competitors
 *   kept there while the probe ran beside them (0: off).
 * - running_hold_on_loss: with allow_probe_loss, a point whose loss is at
 *   most p_probe holds r; only a point without any loss takes the step.
 * - running_queue_cut: a running point that would step (loss-free, or
 *   within allow_probe_loss's tolerance) while the last RR's RTT is more
 *   than this above the probe's RTT instead sets r = min(r, (r + r_s) / 2):
 *   halfway back to r_s, a hold when r is at or below r_s (0: off).
 * - pace_burst: the UDP pacer keeps up to this much credit, so a shell
 *   that sent late catches up to its schedule (0: exact pacing; 5 ms).
 * - probe interval CWND: a cycle ends at the first cwnd reduction seen in
 *   TCP_INFO at least t_tcp_min after its start, or at t_tcp_max.
 * - reprobe_on_reductions: after reprobe_count successive adaptation points
 *   each cutting r by at least reprobe_cut, probing is decided at once.
 * - reprobe_below (ours, 0 = off): a running cut that takes r below
 *   reprobe_below * r_s decides probing at once, however the cuts came.
 * - max_probe_median: a period ended by max_probe_cycles keeps the median
 *   of its cycles after the first (that acked something), not the last.
 * - max_probe_after_loss: with max_probe_median, the median is over the
 *   cycles after the first one that saw a loss (TCP retransmitted or cut
 *   cwnd): the climb from the UDP rate to the link's limit is left out;
 *   with no such cycle, the last cycle (the climb's top).
 * - max_probe_peak: a period ended by max_probe_cycles keeps the largest
 *   of its cycles after the first: the returning probe stays below the
 *   competitors' rate in every cycle, its best one is the nearest.
 * - max_probe_peak_if_rising: with max_probe_peak, the peak only when the
 *   cycles after the first rise or hold (least-squares slope >= 0); when
 *   they fall, the median of their later half: a falling probe's peak is
 *   its start, riding the cwnd the running period left.
 * - kept_rate EQUATION: a probing period keeps, instead of a rate from its
 *   cycles, the TCP throughput equation of RFC 5348 section 3.1 (Padhye et
 *   al.) on what TCP saw over the cycles after the first: s the mean new
 *   segment (bytes acked / new data segments), R the mean of the TCP_INFO
 *   RTT samples, p the loss event rate (retransmitting samples, those
 *   within one RTT of an event's start merged, over data segments sent),
 *   b = 1, t_RTO = 4 R. TCP_INFO is sampled every tcp_sample_interval
 *   while probing. With no loss event (p = 0) the probe's rate is kept.
 * - kept_rate EQUATION_EPISODES: the loss events the probe saw per second,
 *   e, taken as the link's congestion episodes, which at a drop-tail queue
 *   every flow sees alike; r_s is the rate of a TCP flow seeing e events a
 *   second, the equation's first term at p = e / x: x = 3 / (2 e R^2)
 *   packets of s bytes a second, times episodes_factor.
 * - kept_rate EQUATION_SAWTOOTH: the same e and R, but r_s is the mean rate
 *   of one flow of the probe's own congestion control (Linux's reno or
 *   cubic, sawtooth_reno) whose window is cut at a loss event every 1 / e
 *   seconds and held for sawtooth_hold RTTs after each cut (the event's
 *   detection and recovery), then grows as that algorithm grows it at RTT
 *   R: cubic with C = 0.4, beta = 0.7, fast convergence and its
 *   Reno-friendly estimate (RFC 9438 sections 4.2-4.7), reno by one packet
 *   an RTT after a halving. The cycles are iterated until they repeat.
 *   Reno's rule above is this model with reno and no hold; CUBIC's own
 *   response function (RFC 9438 section 5.1) gives the same rate at the
 *   bed's e and R (docs/results.md, nineteenth pass).
 * - run_probe_ratio: the running period lasts max(T_running, run_probe_ratio
 *   times the probing period before it, first TCP packet to first UDP
 *   packet), so running:probing time is at least that ratio.
 *
 * Ours, measured against the paper (docs/protocols/tpba.md):
 * - allow_probe_loss: r_s is TCP's rate at the loss TCP saw while measuring
 *   it, p_probe = retransmitted / sent data segments over the cycles that
 *   ended the period (TCP_INFO). An adaptation point cuts only for the
 *   excess: r = r (1 - (p_loss - p_probe) R_f) when p_loss > p_probe.
 *
 * Sender, LDA modes (section 3, Fig. 2 with lines (A)): UDP only, from r_0,
 * the same RR-driven p_loss at every T_adapt from the start:
 *   p_loss == 0: if r < b { AIR = AIR (1 - r/b) (B);
 *                          AIR = min(AIR, P/(2 tau) (T_adapt/tau + 1)) (C);
 *                          r = r + AIR }  if r >= b: r = b   (A)
 *   p_loss > 0:  AIR = AIR_0; r = max(r (1 - p_loss R_f), r_min)
 *   b is fed by the shell (0: unknown, taken as infinite); tau is the RTT
 *   from the RRs' LSR/DLSR (unknown: line (C) is skipped); P the packet size
 *   in bits. LDAF (section 6.2) replaces (B) by AIR = AIR_0 (1 - r/b).
 *
 * Receiver: packets from both transports go through a reorder buffer keyed
 * by extended RTP seq and leave in order, each once; a gap is waited for
 * (longer when the packet before it came over TCP: its successors may still
 * be in the TCP stream), then skipped. RRs every T_rtcp per RFC 3550 (A.3
 * loss, A.8 jitter, LSR/DLSR).
 */
#ifndef __TPBA_CORE_H__
#define __TPBA_CORE_H__

#include <glib.h>

#include "core/auth.h"
#include "core/rtcp.h"
#include "core/tcpinfo.h"

G_BEGIN_DECLS

typedef enum {
  TPBA_MODE_TPBA,               /* the paper's scheme */
  TPBA_MODE_LDA,                /* baseline: Fig. 2 with lines (A) */
  TPBA_MODE_LDAF,               /* LDA with a fixed AIR (section 6.2) */
} TpbaMode;

typedef enum {
  TPBA_END_ABSOLUTE,            /* |r[i-k] - r[i]| < eps (section 4) */
  TPBA_END_PROPORTIONAL,        /* |r[i-k] - r[i]| < z r[i] (section 7) */
  TPBA_END_CONFIDENCE,          /* 95 % interval of the mean r < ci_width (ours) */
  TPBA_END_SETTLED,             /* r stopped climbing over the last cycles (ours) */
} TpbaEndCriterion;

typedef enum {
  TPBA_PROBE_INTERVAL_FIXED,    /* cycles of T_tcp (section 4) */
  TPBA_PROBE_INTERVAL_CWND,     /* cycles between cwnd reductions (section 7) */
} TpbaProbeInterval;

/* How a probing period ended (the sender's stats count each). */
typedef enum {
  TPBA_PROBE_END_CRITERION,     /* the end criterion fired */
  TPBA_PROBE_END_WINDOW,        /* confidence/settled: ci_max_cycles reached */
  TPBA_PROBE_END_MAX_CYCLES,    /* max_probe_cycles reached */
  TPBA_PROBE_END_COUNT,
} TpbaProbeEnd;

/* What a probing period keeps as r_s. */
typedef enum {
  TPBA_KEPT_PROBE,              /* from the probe's cycles (end criterion) */
  TPBA_KEPT_EQUATION,           /* TCP's throughput equation (RFC 5348 3.1) */
  TPBA_KEPT_EQUATION_EPISODES,  /* the same at the probe's loss events per
                                 * second, shared by all flows */
  TPBA_KEPT_EQUATION_SAWTOOTH,  /* the mean rate of the probe's own TCP's
                                 * sawtooth at those events and RTT */
} TpbaKeptRate;

typedef enum {
  TPBA_PERIOD_PROBING,
  TPBA_PERIOD_RUNNING,
} TpbaPeriod;

typedef enum {
  TPBA_TRANSPORT_UDP,
  TPBA_TRANSPORT_TCP,
} TpbaTransport;

/* Every paper parameter, with the paper's value as default (see
 * tpba_config_init). Rates in bits/s, times in ns. */
typedef struct {
  TpbaMode mode;
  TpbaEndCriterion end_criterion;
  TpbaProbeInterval probe_interval;
  gint64 t_tcp;                 /* T_tcp: 1 s (Table 2) */
  guint64 epsilon;              /* eps: 30 kbit/s (Table 2) */
  gdouble z;                    /* proportional criterion: 0.05 (section 7) */
  gdouble ci_width;             /* confidence criterion: half-width / mean, 0.1 */
  guint ci_max_cycles;          /* confidence criterion: window, 8 cycles;
                                 * settled: the longest period */
  guint settle_window;          /* settled criterion: cycles looked at, 4 */
  guint64 running_increase;     /* running: r grows by this per loss-free
                                 * adaptation point (<= TCP's growth), 0 */
  gdouble running_increase_fraction;    /* the same as a fraction of r; the
                                         * larger step is taken, 0 */
  gdouble running_ceiling;      /* a step never takes r above this times
                                 * r_s; 0 = no ceiling */
  gboolean running_ceiling_peak;        /* the ceiling multiplies the last
                                         * probe's largest cycle after its
                                         * first (at least r_s): FALSE */
  gint64 running_queue_margin;  /* ns: no step while the RR's RTT is more
                                 * than this above the probe's; 0 = off */
  gboolean running_hold_on_loss;        /* a tolerated loss holds r, no
                                         * step: FALSE */
  gint64 running_queue_cut;     /* ns: a running point whose RR RTT is
                                 * more than this above the probe's cuts r
                                 * halfway to r_s; 0 = off */
  gint64 t_running;             /* T_running: 10 s (section 6.1) */
  gint64 t_adapt;               /* T_adapt: 3 s (sections 3, 6.1) */
  gint64 t_rtcp;                /* T_rtcp: 1 s (sections 3, 6.1) */
  gdouble r_f;                  /* R_f: 3.0 (Table 2) */
  guint64 r_0;                  /* LDA initial rate: 10 kbit/s (section 6.2) */
  guint64 r_min;                /* LDA minimum rate (no value given): 10 kbit/s */
  guint64 air_0;                /* LDA AIR_0: 10 kbit/s (section 3) */
  guint packet_size;            /* P of line (C), bytes; 0 = the mean sent */
  /* Not from the paper (implementation choices, docs/protocols/tpba.md): */
  guint64 probe_initial_rate;   /* offered to the encoder in the 1st probing: 1 Mbit/s */
  gdouble probe_headroom;       /* offer r[i] (1 + this) while probing: 0.25 */
  guint64 max_rate;             /* cap of every rate: 100 Mbit/s */
  gint64 pace_burst;            /* UDP pacer: credit kept for a late send,
                                 * ns: 5 ms; 0 = none (exact pacing) */
  guint max_probe_cycles;       /* end probing after this many cycles; 0 = never (paper) */
  gboolean max_probe_median;    /* at max_probe_cycles keep the median of
                                 * the cycles after the first, not the
                                 * last cycle: FALSE */
  gboolean max_probe_after_loss;        /* with max_probe_median: only the
                                         * cycles after the first loss:
                                         * FALSE */
  gboolean max_probe_peak;      /* at max_probe_cycles keep the largest
                                 * cycle after the first (before the
                                 * median options): FALSE */
  gboolean max_probe_peak_if_rising;    /* with max_probe_peak: when the
                                         * cycles fall, the median of the
                                         * later half: FALSE */
  TpbaKeptRate kept_rate;       /* r_s from the cycles or an equation:
                                 * PROBE */
  gdouble episodes_factor;      /* kept_rate EQUATION_EPISODES: r_s times
                                 * this: 1.0 */
  gdouble sawtooth_hold;        /* kept_rate EQUATION_SAWTOOTH: RTTs the
                                 * window is held after a cut: 1.4 */
  gboolean sawtooth_reno;       /* kept_rate EQUATION_SAWTOOTH: model reno,
                                 * not cubic (the sink sets it from its
                                 * tcp-congestion): FALSE */
  gdouble run_probe_ratio;      /* a running period lasts at least this
                                 * times the probing period before it;
                                 * 0 = T_running only (paper) */
  gint64 t_tcp_min;             /* CWND interval: shortest cycle, 100 ms */
  gint64 t_tcp_max;             /* CWND interval: longest cycle, 4 s */
  gint64 tcp_sample_interval;   /* CWND interval: TCP_INFO sampling, 10 ms */
  gboolean reprobe_on_reductions;       /* option of section 4: FALSE */
  guint reprobe_count;          /* successive large reductions: 2 */
  gdouble reprobe_cut;          /* a large reduction cuts r by >= this: 0.2 */
  gdouble reprobe_below;        /* ours: a cut below this * r_s probes: 0 off */
  gboolean allow_probe_loss;    /* running: cut only for loss above TCP's: FALSE */
  gint64 ntp_offset;            /* added to now for SR NTP timestamps: 0 */
  /* Receiver */
  guint clock_rate;             /* RTP clock rate for jitter: 90000 */
  gint64 reorder_wait;          /* wait for a gap after a UDP packet: 50 ms */
  gint64 switch_wait;           /* wait for a gap after a TCP packet: 1 s */
  guint max_held;               /* reorder buffer bound, packets: 4096 */
  /* Key units (RFC 4585 PLI, ours): */
  gint64 key_unit_holdoff;      /* sender: ignore PLIs this long after one
                                 * was taken (at least 2 RTT): 500 ms */
  gint64 switch_max_delay;      /* a decided switch waits at most this long
                                 * for an ADU boundary (0: for ever, the
                                 * paper's rule): 1 s */
} TpbaConfig;

void tpba_config_init (TpbaConfig * cfg);

/* ------------------------------------------------------------------ */
/* Wire: RTP header fields and RTCP SR/RR (RFC 3550), bounds-checked. */

typedef struct {
  guint16 seq;
  guint32 timestamp;
  guint32 ssrc;
  gboolean marker;
  guint8 payload_type;
  guint size;                   /* whole RTP packet, bytes */
  guint payload_size;           /* without header, extension and padding */
} TpbaRtpInfo;

/* FALSE unless @data is a well-formed RTP packet (version 2, CSRCs,
 * extension and padding within @len). */
gboolean tpba_rtp_parse (const guint8 * data, gsize len, TpbaRtpInfo * info);

/* SR/RR as gst/common/core/rtcp.h has them. */
typedef RtcpReportBlock TpbaReportBlock;

#define TPBA_RTCP_MAX_BLOCKS RTCP_MAX_BLOCKS

typedef RtcpReport TpbaRtcpReport;

/* Parses the first RTCP packet of @data if it is an SR or RR; @consumed is
 * its length when its common header is sound (version 2, length within
 * @len), else 0. */
gboolean tpba_rtcp_parse (const guint8 * data, gsize len,
    TpbaRtcpReport * rep, gsize * consumed);
/* Validates a compound RTCP packet (RFC 3550 A.2: version 2 everywhere,
 * the first is SR or RR without padding, lengths add up to @len) and
 * returns its SR/RR packets one by one through @func. */
gboolean tpba_rtcp_parse_compound (const guint8 * data, gsize len,
    void (*func) (const TpbaRtcpReport * rep, gpointer user), gpointer user);
/* Writes @rep (and an SDES CNAME chunk if @cname) as a compound packet
 * into @out; returns its length, 0 if it does not fit in @max. */
#define TPBA_RTCP_MAX_SIZE 1024
gsize tpba_rtcp_write (const TpbaRtcpReport * rep, const gchar * cname,
    guint8 * out, gsize max);

/* What a datagram of RTCP holds besides SR/RR (tpba_rtcp_scan). */
typedef struct {
  gboolean reports;             /* starts with SR or RR: a compound (A.2) */
  guint n_pli;                  /* PLIs (RFC 4585 6.3.1) */
  guint32 pli_media_ssrc;       /* the last PLI's media source */
  gboolean has_token;           /* a TPBA session-token APP packet */
  guint64 token;
} TpbaRtcpExtras;

/* Walks every RTCP packet of the datagram (each common header sound and
 * within @len; else FALSE and @ex says nothing). A datagram that does not
 * start with SR/RR is a reduced-size packet (RFC 5506). */
gboolean tpba_rtcp_scan (const guint8 * data, gsize len, TpbaRtcpExtras * ex);

/* The sender's session token (ours): an APP packet (PT 204, subtype 0,
 * name "TPBA", 64-bit token) appended to the sink's RTCP; the sink writes
 * the same 8 bytes first on every TCP connection, and the source accepts a
 * connection only with the token its peer's RTCP carried. */
#define TPBA_TOKEN_SIZE 8
#define TPBA_RTCP_TOKEN_SIZE 20
gsize tpba_rtcp_write_token (guint32 ssrc, guint64 token, guint8 * out,
    gsize max);

/* With a group key (docs/security.md; ours, docs/protocols/tpba.md "Group
 * key"): every RTCP datagram either side sends is sealed with the auth.h
 * trailer, and the first bytes of a TCP connection are the token message,
 * the 8-byte token sealed under the sink's session (the same counter as
 * its RTCP, so a captured message opens only once). Without a key (@auth
 * NULL) these are the identity: datagrams as before, the bare token. */
#define TPBA_TOKEN_MESSAGE_SIZE (TPBA_TOKEN_SIZE + AUTH_TRAILER_SIZE)

/* Seals the @len-byte datagram at @buf in place; returns its new length,
 * @len without @auth, 0 if the trailer does not fit in @max. */
gsize tpba_control_seal (AuthSession * auth, guint8 * buf, gsize len,
    gsize max);
/* TRUE if the datagram may be parsed (always without @auth; with it, when
 * it opens, counted by its verdict in @auth otherwise); *@payload_len is
 * then the length of the RTCP in it. */
gboolean tpba_control_open (AuthSession * auth, const guint8 * data,
    gsize len, gint64 now, gsize * payload_len);
/* How many bytes a connection must show first: TPBA_TOKEN_SIZE without
 * @auth, else TPBA_TOKEN_MESSAGE_SIZE. */
gsize tpba_token_message_size (const AuthSession * auth);
/* Writes the token message into @out (tpba_token_message_size bytes);
 * returns its length, 0 if @max is too small. */
gsize tpba_token_message_write (AuthSession * auth, guint64 token,
    guint8 * out, gsize max);
/* The verdict on the token message of @len bytes at @data (AUTH_TRUNCATED
 * if shorter than the size above) and on AUTH_OK the token it carries. */
AuthVerdict tpba_token_message_open (AuthSession * auth, const guint8 * data,
    gsize len, gint64 now, guint64 * token);

/* ------------------------------------------------------------------ */
/* Events the core asks its shell to act on. */

typedef enum {
  TPBA_EVENT_RATE,              /* tell the encoder: rate (GstLayerRates, `bitrate`) */
  TPBA_EVENT_PERIOD,            /* a period was decided (takes effect at an ADU boundary) */
  TPBA_EVENT_TRANSPORT,         /* the transport switched before the next packet */
  TPBA_EVENT_KEY_UNIT,          /* a PLI was taken: ask the encoder for a key unit */
} TpbaEventType;

typedef struct {
  TpbaEventType type;
  guint64 rate;                 /* RATE: bits/s; PERIOD: r_s when RUNNING */
  TpbaPeriod period;
  TpbaTransport transport;
  guint32 cwnd_new;             /* PERIOD PROBING: cwnd_new, segments; 0 unknown */
} TpbaEvent;

/* ------------------------------------------------------------------ */
/* Sender */

typedef struct _TpbaSender TpbaSender;

/* One TCP_INFO sample (core/tcpinfo.h). */
typedef TcpInfo TpbaTcpInfo;

/* What to do with one packet. */
typedef struct {
  TpbaTransport transport;
  /* TCP_NODELAY as it must be on the TCP socket before this packet is
   * written (set it when it changes: turning it on pushes out what Nagle
   * holds). TRUE for the last write of a probing period and while running. */
  gboolean tcp_nodelay;
  gboolean switched;            /* this packet is the first after a switch */
} TpbaSendDecision;

#define TPBA_HISTORY 32

typedef struct {
  TpbaMode mode;
  TpbaPeriod period;            /* decided */
  TpbaTransport transport;      /* in effect */
  guint64 rate;                 /* current rate: pacing (UDP) or offer (TCP) */
  guint64 r_s;                  /* last probing result, 0 before */
  guint64 probe_peak;           /* the last probing period's largest cycle
                                 * after its first, 0 before */
  gint64 probe_rtt;             /* ns, the last probing period's mean
                                 * TCP_INFO RTT; -1 unknown */
  guint64 queue_holds;          /* loss-free running points that took no
                                 * step: the RR's RTT above probe_rtt +
                                 * running_queue_margin */
  guint64 queue_cuts;           /* running points that running_queue_cut
                                 * cut toward r_s (or held at or below it) */
  guint n_r;                    /* r[i] in the current/last probing period */
  guint64 r[TPBA_HISTORY];      /* the last min(n_r, TPBA_HISTORY) r[i], oldest first */
  gdouble p_loss;               /* at the last adaptation point */
  gdouble p_probe;              /* TCP's retransmitted fraction behind r_s; -1 unknown */
  guint8 fraction_lost;         /* last RR */
  gint32 cumulative_lost;       /* last RR */
  gint64 rtt;                   /* ns, from LSR/DLSR; -1 unknown */
  gint64 tcp_rtt;               /* ns, from TCP_INFO; -1 unknown */
  guint64 delivery_rate;        /* bits/s, last TCP_INFO; 0 unknown */
  guint64 air;                  /* LDA */
  guint32 cwnd_new;             /* segments, last computed; 0 unknown */
  gint64 last_cycle;            /* ns, length of the last probing cycle */
  guint64 switches;             /* transport switches */
  guint64 mid_adu_switches;     /* of those, inside an ADU (switch_max_delay) */
  guint64 probing_periods, running_periods;
  guint64 reductions;           /* adaptation points that cut r */
  guint64 running_holds;        /* points held by running_hold_on_loss */
  guint64 stalled_cycles;       /* probing cycles that acked nothing */
  /* probing periods, by how they ended */
  guint64 probe_ends[TPBA_PROBE_END_COUNT];
  guint64 kept_without_loss;    /* max_probe_after_loss periods that kept
                                 * the last cycle: none after a loss */
  guint64 kept_falling;         /* max_probe_peak_if_rising periods whose
                                 * cycles fell: the later median kept */
  guint64 kept_by_equation;     /* kept_rate EQUATION periods that kept it */
  guint64 equation_fallbacks;   /* ... that kept the probe's rate: no loss
                                 * event (or no RTT, no new data) */
  gdouble eq_loss_event_rate;   /* the last period's p; -1 unknown */
  gint64 eq_rtt;                /* the last period's mean RTT, ns; -1 unknown */
  guint64 eq_rate;              /* the equation's value then, bits/s; 0 none */
  guint64 run_ends_timer;       /* running periods ended at their length */
  guint64 run_ends_reductions;  /* ... by reprobe_on_reductions */
  guint64 run_ends_below;       /* ... by reprobe_below */
  guint64 packets_udp, packets_tcp, bytes_udp, bytes_tcp;
  guint64 rtcp_received, rtcp_refused;
  guint64 pli_received;         /* PLIs about our SSRC */
  guint64 pli_ignored;          /* of those, within the key-unit hold-off */
  guint64 key_unit_requests;    /* KEY_UNIT events */
} TpbaSenderStats;

TpbaSender *tpba_sender_new (const TpbaConfig * cfg, guint32 ssrc, gint64 now);
void tpba_sender_free (TpbaSender * s);

/* Earliest time the packet may be sent (>= now). UDP is paced: every
 * departure is at least 8 * size / rate after the previous one (rounded up
 * to the ns), with no credit for idle time; TCP paces itself (now). */
gint64 tpba_sender_next_send_time (TpbaSender * s, const TpbaRtpInfo * pkt,
    gint64 now);
/* The shell sends @pkt now; @d says how. */
void tpba_sender_on_send (TpbaSender * s, const TpbaRtpInfo * pkt, gint64 now,
    TpbaSendDecision * d);
/* A TCP_INFO sample taken at @now. Feed one at every deadline while probing. */
void tpba_sender_on_tcp_info (TpbaSender * s, const TpbaTcpInfo * info,
    gint64 now);
/* A compound RTCP packet from the receiver, or a reduced-size one (RFC
 * 5506) holding a PLI; FALSE if malformed. A PLI about our SSRC outside the
 * key-unit hold-off (the larger of key_unit_holdoff and 2 RTT) gives a
 * TPBA_EVENT_KEY_UNIT. */
gboolean tpba_sender_on_rtcp (TpbaSender * s, const guint8 * data, gsize len,
    gint64 now);
/* The bottleneck bandwidth b of LDA (packet pair, from outside); 0 unknown. */
void tpba_sender_set_bottleneck (TpbaSender * s, guint64 b);

gint64 tpba_sender_next_deadline (const TpbaSender * s);
void tpba_sender_advance (TpbaSender * s, gint64 now);

/* An SR due since the last call (written into @out, TPBA_RTCP_MAX_SIZE);
 * returns its length or 0. */
gsize tpba_sender_pop_rtcp (TpbaSender * s, guint8 * out, gsize max);
gboolean tpba_sender_pop_event (TpbaSender * s, TpbaEvent * ev);
void tpba_sender_get_stats (const TpbaSender * s, TpbaSenderStats * st);

/* ------------------------------------------------------------------ */
/* Receiver */

typedef struct _TpbaReceiver TpbaReceiver;

typedef enum {
  TPBA_RECV_ACCEPTED,           /* held by the core (owned until popped) */
  TPBA_RECV_DUPLICATE,          /* already held or delivered: not taken */
  TPBA_RECV_LATE,               /* its gap was skipped already: not taken */
  TPBA_RECV_INVALID,            /* not RTP, or another SSRC: not taken */
} TpbaRecvResult;

typedef struct {
  guint32 sender_ssrc;          /* 0 before the first packet */
  guint64 packets_udp, packets_tcp, bytes_udp, bytes_tcp;
  guint64 delivered, duplicates, late, skipped, invalid;
  guint held;
  guint32 ext_highest_seq;
  gint64 cumulative_lost;
  guint8 fraction_lost;         /* in the last RR */
  guint32 jitter;               /* RTP timestamp units */
  guint64 rtcp_received, rtcp_refused, rr_sent;
  guint64 pli_sent;
} TpbaReceiverStats;

/* @free_packet frees the user data of packets still held at free time. */
TpbaReceiver *tpba_receiver_new (const TpbaConfig * cfg, guint32 ssrc,
    GDestroyNotify free_packet, gint64 now);
void tpba_receiver_free (TpbaReceiver * r);

/* An RTP packet arrived over @transport; @packet is the shell's handle. */
TpbaRecvResult tpba_receiver_on_rtp (TpbaReceiver * r,
    TpbaTransport transport, const guint8 * data, gsize len,
    gpointer packet, gint64 now);
/* The next packet in sequence order, or NULL; a gap whose wait has passed
 * by @now is skipped. */
gpointer tpba_receiver_pop_rtp (TpbaReceiver * r, gint64 now, guint16 * seq);
/* A compound RTCP packet from the sender; FALSE if malformed. */
gboolean tpba_receiver_on_rtcp (TpbaReceiver * r, const guint8 * data,
    gsize len, gint64 now);

gint64 tpba_receiver_next_deadline (const TpbaReceiver * r);
void tpba_receiver_advance (TpbaReceiver * r, gint64 now);
/* Ask the sender for a key unit (the depayloader asked for one). The core
 * also asks by itself when the first packet of the sender arrives. */
void tpba_receiver_request_key_unit (TpbaReceiver * r);
/* A reduced-size PLI (RFC 5506) due, once the sender's SSRC is known;
 * returns its length or 0. */
gsize tpba_receiver_pop_pli (TpbaReceiver * r, guint8 * out, gsize max);
/* An RR due since the last call; returns its length or 0. */
gsize tpba_receiver_pop_rtcp (TpbaReceiver * r, guint8 * out, gsize max);
void tpba_receiver_get_stats (const TpbaReceiver * r, TpbaReceiverStats * st);

G_END_DECLS

#endif /* __TPBA_CORE_H__ */
