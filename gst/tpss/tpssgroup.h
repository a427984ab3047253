/* The TPSS group core: one member's view of the group, sans-I/O (GLib only).
 *
 * It wraps the protocol core (TpssMember, tpsscore.h) and the FEC core
 * (tpssfec.h) into what a shell needs to run a group member on a socket:
 * - the one member table: ids, their addresses (opaque bytes the shell
 *   chose, compared bytewise), configured or joined by HELLO;
 * - the receive path: datagrams in (RTP media, parity, RTCP with our
 *   control messages and PLIs), sources checked against their addresses
 *   (forged and unknown ones counted and dropped), sequence gaps counted as
 *   loss before FEC, one FEC decoder per source;
 * - the send path: the sender queue MQ, media stamped with our SSRC,
 *   sequence numbers and the QoS header extension, sent to every
 *   destination (or once to the multicast group), parity composed per
 *   destination by one FEC encoder each, control messages, PLIs;
 * - leaving: a BYE to every member (tpss_group_leave); a member's BYE,
 *   checked as any control packet of its, removes it at once;
 * - RFC 3550 sender reports: once the stream has sent media, an SR (and an
 *   SDES CNAME) to every member every sr_interval (randomised to 0.5..1 of
 *   it), mapping the stream's RTP timestamps to NTP time; a member's SR,
 *   checked as a BYE is, is kept and travels with its deliveries.
 *
 * The shell hands it (bytes, from-address, now) and takes back datagrams to
 * send (tpss_group_poll_transmit, as quinn-proto's poll_transmit), events
 * for the application (tpss_group_poll_event) and the next deadline
 * (tpss_group_next_timeout). No threads, sockets, locks or clock.
 */
#ifndef __TPSS_GROUP_H__
#define __TPSS_GROUP_H__

#include <glib.h>
#include "core/auth.h"
#include "tpsscore.h"
#include "tpssfec.h"
#include "tpsslayers.h"

G_BEGIN_DECLS

/* A network address as the shell encodes it (e.g. a normalized sockaddr);
 * the core only stores, compares and returns it. */
#define TPSS_ADDR_MAX_SIZE 32
typedef struct {
  guint8 len;                   /* 0: no address */
  guint8 bytes[TPSS_ADDR_MAX_SIZE];
} TpssAddr;

gboolean tpss_addr_equal (const TpssAddr * a, const TpssAddr * b);

/* Draws a random 32-bit number (sequence and SSRC starts). */
typedef guint32 (*TpssRandomFunc) (gpointer user_data);

typedef struct {
  guint32 id;                   /* this member, the SSRC of its stream */
  TpssConfig cfg;
  guint fec_pt;                 /* payload type of parity packets */
  guint ext_id;                 /* RFC 8285 id of the QoS extension */
  gint64 fec_size_time;         /* longest wait for a missing packet, ns */
  gboolean allow_join;          /* unknown members may join by HELLO */
  gboolean join_check;          /* without a key, a HELLO-joiner first
                                 * echoes a cookie sent to its address
                                 * (TRUE; docs/protocols/tpss.md) */
  TpssAddr group;               /* multicast group (len 0: unicast): media
                                 * and control to all go there once */
  gdouble layer_spread;         /* layered: the fastest destination must
                                 * allow this x the slowest's rate before
                                 * the layers get different rates (1.5) */
  gdouble layer_max_spread;     /* layered: the whole stream at most this x
                                 * the base layer (4.0); see tpssgroup.c */
  guint64 uplink_rate;          /* layered: what our copies send together
                                 * at most this, bits/s (0: unknown, no
                                 * bound) */
  gboolean uplink_estimate;     /* layered: estimate the uplink's bound
                                 * from falls of two copies' rates within
                                 * uplink_estimate_window (FALSE) */
  gint64 uplink_estimate_window;        /* ns apart at most (250 ms) */
  gdouble uplink_estimate_fall; /* a copy's D below (1 - this) x what it
                                 * was sent is a fall (0.1) */
  gdouble uplink_estimate_factor;       /* the bound: this x what the
                                         * copies sent at the first of the
                                         * two falls (0.85) */
  gdouble uplink_estimate_probe;        /* the bound grows by this share
                                         * of itself a second while it
                                         * holds the copies (0.03) */
  gint64 uplink_estimate_hold;  /* ns after a bound is set or a member
                                 * comes or goes in which falls are not
                                 * counted (2 s) */
  gint64 sr_interval;           /* ns between sender reports (1 s); 0:
                                 * none are sent */
  gint64 ntp_offset;            /* ns added to `now` to get NTP time (ns
                                 * since 1900) in our sender reports */
  TpssRandomFunc random;        /* NULL: g_random_int */
  gpointer random_data;
} TpssGroupConfig;

void tpss_group_config_init (TpssGroupConfig * cfg);

/* One entry of a `members` list; @addr.len 0 when its address is learnt
 * from its first packet. */
typedef struct {
  guint32 id;
  TpssAddr addr;
} TpssGroupPeer;

typedef struct {
  TpssAddr to;
  guint32 member;               /* destination id; 0 = the multicast group */
  GBytes *data;                 /* owned by the caller */
} TpssTransmit;

/* The layer of a packet outside temporal layering (parameter sets, audio):
 * it goes to every destination. */
#define TPSS_GROUP_LAYER_NONE G_MAXUINT

typedef enum {
  TPSS_GROUP_EVENT_DATA_RATE,   /* tell the encoder: rate (the sum), per
                                 * layer in rates[0..n_rates-1] */
  TPSS_GROUP_EVENT_PHASE,       /* member entered phase (distance, length) */
  TPSS_GROUP_EVENT_MEMBER_JOINED,
  TPSS_GROUP_EVENT_MEMBER_LEFT,
  TPSS_GROUP_EVENT_DELIVER,     /* in-order media of member, after FEC */
  TPSS_GROUP_EVENT_KEY_UNIT,    /* member asked for a key unit (a PLI);
                                 * rtt toward it, ns (-1 unknown) */
  TPSS_GROUP_EVENT_QUEUE_KEY_UNIT,      /* layered: the queue toward member
                                         * holds more than
                                         * tpss_group_set_queue_bound
                                         * allows (queue_time): a key unit
                                         * would flush it */
} TpssGroupEventType;

/* A member's latest sender report (RFC 3550 6.4.1): the NTP time at which
 * its stream's RTP clock read @rtp_ts. */
typedef struct {
  gboolean valid;               /* FALSE: none received yet */
  guint64 ntp;                  /* 32.32 fixed point */
  guint32 rtp_ts;
} TpssSenderReport;

typedef struct {
  TpssGroupEventType type;
  guint32 member;
  guint64 rate;
  guint n_rates;                /* DATA_RATE: 1, or one per layer */
  guint64 rates[TPSS_MAX_LAYERS];       /* bits/s per layer, not cumulative */
  TpssPhase phase;
  guint distance, length;
  gint64 rtt;
  gint64 queue_time;            /* QUEUE_KEY_UNIT: what a key unit would
                                 * flush, ns at the member's rate */
  GPtrArray *packets;           /* DELIVER: GBytes, owned by the caller */
  TpssSenderReport sr;          /* DELIVER: the member's latest SR */
} TpssGroupEvent;

/* Frees what an event owns (its packets). */
void tpss_group_event_clear (TpssGroupEvent * ev);

/* Counters of the whole group member. */
typedef struct {
  guint64 sent, send_bytes, queue_dropped, ctrl_sent;
  guint64 stamp_errors;         /* queued packets that were not RTP */
  guint64 ctrl_received, data_received, malformed, non_member, forged, own;
  guint64 other_rtcp, pli_sent, pli_received, pli_dropped;
  guint64 bye_sent;             /* BYE datagrams: one per member with an
                                 * address, or one to the multicast group */
  guint64 bye_received;         /* BYEs that removed a member */
  guint64 bye_refused;          /* BYEs dropped: own looped back aside,
                                 * from a non-member or one already gone,
                                 * forged, from a member whose address is
                                 * not known yet, or naming no source */
  guint64 sr_sent;              /* SR datagrams: one per member with an
                                 * address, or one to the multicast group */
  guint64 sr_received;          /* SRs accepted from members */
  guint64 join_refused;         /* HELLOs of new ids refused: the member
                                 * table full (TPSS_MAX_MEMBERS - 1 others);
                                 * also counted in non_member */
  guint64 join_challenged;      /* join check: cookies sent to newcomers */
  guint64 join_verified;        /* newcomers whose echoed cookie checked
                                 * (then joined, table room permitting) */
  guint64 join_cookie_bad;      /* echoes with a wrong or expired cookie,
                                 * dropped */
  guint64 join_echoed;          /* cookies of others echoed by us */
  guint64 join_answer_limited;  /* cookies not sent nor echoed: over one
                                 * per id and address per hello_interval,
                                 * or TPSS_MAX_MEMBERS per hello_interval */
  guint member_entries;         /* members in the table now, configured
                                 * ones included */
  guint64 sr_refused;           /* SRs dropped: malformed, from a
                                 * non-member or an unknown address,
                                 * forged, or with an NTP time of 0 or
                                 * before the member's previous SR; also
                                 * counted in malformed, non-member or
                                 * forged where those apply */
  guint64 data_rate;            /* the last DATA_RATE, bits/s */
  guint n_layers;               /* of the stream sent (0/1: not layered) */
  guint n_rates;                /* entries of the last DATA_RATE */
  guint64 bad_layer;            /* packets of a layer beyond n_layers */
  guint64 uplink_send_rate;     /* layered: what our copies send together
                                 * (media and parity) at the layers their
                                 * destinations' full rates choose, bits/s */
  gdouble uplink_share;         /* layered: the share of each copy's rates
                                 * used to fit them within uplink_rate (1:
                                 * they fit, or no uplink_rate) */
  guint64 uplink_estimate;      /* layered, uplink_estimate: the bound
                                 * estimated, bits/s (0: none yet) */
  guint64 uplink_shared_falls;  /* falls of two copies within the window:
                                 * each set uplink_estimate */
  guint queued;                 /* packets in MQ */
  gint64 pacing_skipped;        /* ns of departures MQ's pacer did not make
                                 * up after a late loop (pacing_catch_up) */
  gint64 pacing_made_up;        /* ns of them made up from the catch-up
                                 * budget (pacing_catch_up_budget) */
  gboolean authenticated;       /* a group key is set */
  AuthStats auth;               /* its verdicts (zero without a key) */
} TpssGroupStats;

/* One member as the stats show it: members the protocol core knows. */
typedef struct {
  guint32 id;
  TpssAddr addr;
  TpssSendStats send;
  TpssRecvStats recv;
  guint64 parity_sent, parity_received, delivered;
  guint64 parity_lost;          /* gaps in its parity stream toward us */
  guint64 key_parity_sent;      /* of parity_sent: over key units */
  guint64 parity_dropped;       /* layered: of parity_sent, never left: it
                                 * waits behind the media toward it and is
                                 * dropped after fec_size_time (or with a
                                 * key-unit flush) */
  guint64 parity_skipped;       /* layered: made, not queued nor counted in
                                 * parity_sent: its media queue was over
                                 * tpss_group_set_parity_max_backlog, or
                                 * tpss_group_set_parity_by_share thinned
                                 * it */
  guint layers_sent;            /* layered: the prefix it gets now */
  guint64 layer_passed, layer_left_out; /* layered: media packets */
  guint64 layer_queue_dropped;  /* layered: packets over its pacer's queue
                                 * bound (max_queue_bytes), dropped */
  gint64 layer_queue_time;      /* layered: how long what its pacer's queue
                                 * holds takes to leave at its rate, ns */
  guint64 key_flush_packets;    /* layered: media and parity packets queued
                                 * toward it, dropped ahead of a key unit
                                 * (TpssKeyUnit.flush_time) */
  guint64 queue_key_asks;       /* layered: QUEUE_KEY_UNIT events for it */
  guint64 age_dropped_frames;   /* layered: frames left out for its queue's
                                 * age (tpss_group_set_max_queue_age) */
  guint64 age_dropped_packets;  /* layered: their packets */
  gboolean have_decoder;
  TpssFecDecoderStats decoder;
  gboolean left;                /* it said BYE: its counters as it left */
  guint64 sr_received;          /* its SRs accepted */
  TpssSenderReport sr;          /* its latest */
} TpssGroupMemberStats;

typedef struct _TpssGroup TpssGroup;

TpssGroup *tpss_group_new (const TpssGroupConfig * cfg);
void tpss_group_free (TpssGroup * g);

/* The replay windows a keyed member keeps: one per member, as many again
 * for members that restart (a new sender id each time) while their old
 * window is still kept, and one for our own packets looped back. */
#define TPSS_GROUP_AUTH_SENDERS (2 * TPSS_MAX_MEMBERS + 1)

/* Sets the group key (docs/security.md), before tpss_group_start: from then
 * on every control datagram sent (the APP messages, PLIs, BYEs, SRs) is
 * sealed, and every RTCP datagram received must open under @key before it
 * is parsed; one that does not is counted in the auth stats and dropped.
 * With a key, a member's address is learnt only from its control, not
 * from media. Media is not sealed (SRTP's job). */
void tpss_group_set_key (TpssGroup * g, const AuthKey * key);

/* Starts the protocol (the first HELLO). */
void tpss_group_start (TpssGroup * g, gint64 now);

/* Leaves the group (RFC 3550 6.6): queues an RTCP BYE naming this
 * member's id (then its parity SSRC) to every member with an address, or
 * once to the multicast group. From then on the core sends and delivers
 * nothing more: the shell sends what tpss_group_poll_transmit gives and
 * frees it. A second call does nothing. */
void tpss_group_leave (TpssGroup * g, gint64 now);

/* Replaces the configured members: those no longer listed leave, new ones
 * join; this member's own id is skipped. */
void tpss_group_set_members (TpssGroup * g, const TpssGroupPeer * peers,
    guint n_peers, gint64 now);
/* id -> priority (GUINT_TO_POINTER both); takes @priorities. */
void tpss_group_set_priorities (TpssGroup * g, GHashTable * priorities,
    gint64 now);
/* Whether received streams go to an application (a src): each source's
 * stream then starts with a PLI. Setting it starts every stream anew. */
void tpss_group_set_receiving (TpssGroup * g, gboolean receiving);

/* Input: one datagram from @from. */
void tpss_group_handle_datagram (TpssGroup * g, const guint8 * data,
    gsize len, const TpssAddr * from, gint64 now);
/* The same for a datagram that reached the host at @arrival (at most @now,
 * e.g. the kernel's receive time): admission and the receipt rate count
 * it then. */
void tpss_group_handle_datagram_at (TpssGroup * g, const guint8 * data,
    gsize len, const TpssAddr * from, gint64 now, gint64 arrival);
/* Sender: queues one RTP packet for MQ (copied); FALSE if refused. */
gboolean tpss_group_enqueue (TpssGroup * g, const guint8 * rtp, gsize len,
    gint64 now);
/* The same for a packet of temporal layer @layer (0 = base, or
 * TPSS_GROUP_LAYER_NONE) in a stream of @n_layers. From the first packet
 * of a stream of 2..TPSS_MAX_LAYERS layers on, the group sends layered:
 * MQ leaves at the fastest destination's rate, each destination gets the
 * prefix of layers that fits its own rate (its own sequence numbers, its
 * own parity over what it gets; the frames its RTP timestamp groups are
 * kept or left out whole) and DATA_RATE carries one rate per layer, the
 * base layer the slowest destination's, the whole stream the slowest's
 * of those within layer_spread of the fastest (each gets every layer);
 * what goes to a destination leaves paced at its own send rate S.
 * Multicast sends everything to the group. */
gboolean tpss_group_enqueue_layer (TpssGroup * g, const guint8 * rtp,
    gsize len, guint layer, guint n_layers, gint64 now);
/* What the packet that starts a key unit asks for (the unit: the packets
 * from it on with its RTP time, up to its marker bit). */
typedef struct {
  guint parity;                 /* > 0: each this many consecutive packets
                                 * of the unit (at most 255) get one XOR
                                 * parity packet of their own, sent right
                                 * after them toward every destination,
                                 * beside the regular parity of the
                                 * two-phase slow start and paced with it
                                 * (counted in parity_sent and
                                 * key_parity_sent) */
  gint64 flush_time;            /* layered, >= 0: toward a destination
                                 * whose queue holds more than this (ns at
                                 * its pacer's rate) of whole frames not
                                 * begun on the wire ahead of the unit,
                                 * those frames and the parity among them
                                 * are dropped (key_flush_packets); their
                                 * sequence numbers go to the unit, so the
                                 * receiver sees no gap. -1: never */
} TpssKeyUnit;

/* The same; @key non-NULL marks the packet that starts a key unit. */
gboolean tpss_group_enqueue_media (TpssGroup * g, const guint8 * rtp,
    gsize len, guint layer, guint n_layers, const TpssKeyUnit * key,
    gint64 now);
/* Layered: when what a new key unit would flush from a destination's
 * queue (the whole frames after the last key unit queued and after the
 * frame begun on the wire) takes more than @bound ns to leave at its rate,
 * a QUEUE_KEY_UNIT event for it follows, at most one per @bound per
 * destination while that lasts. @bound <= 0: never (the default). */
void tpss_group_set_queue_bound (TpssGroup * g, gint64 bound);
/* Layered: a frame whose first packet would wait more than @age ns in a
 * destination's queue at its rate is not queued toward it, nor is any
 * frame after it until a key unit starts (counted age_dropped_frames and
 * _packets); a QUEUE_KEY_UNIT event for it follows at once and every
 * 250 ms until then. Sequence numbers there run on without a gap.
 * @age <= 0: never (the default). */
void tpss_group_set_max_queue_age (TpssGroup * g, gint64 age);
/* Layered: parity waiting toward a destination is dropped once older than
 * fec_size_time; with @from_media its age counts from when the last media
 * packet it covers left toward it (parity toward a member whose queue is
 * long aged while its media waited ahead of it), else from its making
 * (the default). */
void tpss_group_set_parity_age_from_media (TpssGroup * g,
    gboolean from_media);
/* Layered: parity made toward a destination while the media queued toward
 * it takes more than @backlog ns to leave at its rate is not queued
 * (counted parity_skipped, not in parity_sent): behind that much media it
 * would wait until stale. Destinations with a shorter queue, among them
 * those the slow start probes without a backlog, get their parity as
 * before. @backlog <= 0: never (the default). */
void tpss_group_set_parity_max_backlog (TpssGroup * g, gint64 backlog);
/* Layered: with @by_share, of the parity made toward a destination only
 * about the share of its recently queued parity that left before going
 * stale is queued (an average over about the last 16; at least 1 in 8,
 * evenly spread); the rest is counted parity_skipped. A destination whose
 * queue drains often loses no parity this way. FALSE: all (the default). */
void tpss_group_set_parity_by_share (TpssGroup * g, gboolean by_share);
/* The RTP clock of the stream sent, for its sender reports: the packet
 * with timestamp @rtp_ts was captured at @capture (ns, the time base of
 * `now`) on a clock of @clock_rate Hz. The shell calls it with the packets
 * it queues; an SR's RTP timestamp is the latest such pair carried forward
 * to the SR's time. Ignored when @clock_rate is 0. */
void tpss_group_set_media_clock (TpssGroup * g, guint32 rtp_ts,
    gint64 capture, guint clock_rate);
/* Sends @member a PLI; FALSE unless it is a member with an address. */
gboolean tpss_group_request_key_unit (TpssGroup * g, guint32 member);
/* Runs what is due by @now: timers, FEC hold times, MQ departures (media
 * and parity), control messages. */
void tpss_group_handle_timeout (TpssGroup * g, gint64 now);

/* Output. */
gboolean tpss_group_poll_transmit (TpssGroup * g, TpssTransmit * out);
gboolean tpss_group_poll_event (TpssGroup * g, TpssGroupEvent * ev);
/* When tpss_group_handle_timeout is due next, ns; -1: nothing pending. */
gint64 tpss_group_next_timeout (const TpssGroup * g);

guint32 tpss_group_get_id (const TpssGroup * g);
void tpss_group_get_stats (const TpssGroup * g, TpssGroupStats * st);
/* TpssGroupMemberStats of every member the protocol core knows, then of
 * those that said BYE (@left, their last counters) until they come back
 * (at most TPSS_MAX_MEMBERS of them, the oldest forgotten first). */
GArray *tpss_group_get_member_stats (const TpssGroup * g);

G_END_DECLS

#endif /* __TPSS_GROUP_H__ */
