/* The member session shared by tpsssink and tpsssrc: one TpssGroup core,
 * one transport (RTP, parity and RTCP multiplexed on one UDP port, RFC
 * 5761), one member id, one I/O loop. See gsttpsssession.c. */
#ifndef __GST_TPSS_SESSION_H__
#define __GST_TPSS_SESSION_H__

#include <gst/gst.h>
#include "gstnetloop.h"
#include "gsttpssutil.h"

G_BEGIN_DECLS

/* The session's `stats` fields, for the stats blurb of both elements
 * (gst-inspect-1.0 shows it): "field: meaning (unit)". */
#define GST_TPSS_SESSION_STATS_DOC \
  "member-id: this member's id, also the SSRC of its stream (number); " \
  "port: the UDP port the session is bound to (port number); " \
  "running: whether the session's socket and thread are up (boolean); " \
  "data-rate: the data rate the encoder is told: TR, the minimum over the " \
  "destinations, or with temporal layers the sum of the layer rates " \
  "(bits/s); " \
  "layers: temporal layers of the stream sent, 0 = none seen (count); " \
  "bad-layer: packets whose layer meta was out of range (packets); " \
  "uplink-send-rate: with temporal layers, what our copies send together " \
  "at the layers their destinations' full rates choose, media and parity " \
  "(bits/s); " \
  "uplink-share: with temporal layers, the share of each destination's " \
  "rate the layers are chosen at so that the copies fit uplink-rate or " \
  "uplink-estimate's bound, 1 when they fit or there is none (fraction); " \
  "uplink-estimate: with uplink-estimate, the bound found on what the " \
  "copies send together, 0 = none yet (bits/s); " \
  "uplink-shared-falls: times two copies' rates fell within " \
  "uplink-estimate-window, each setting that bound (count); " \
  "packets-sent: media packets that left the sender queue MQ (packets); " \
  "bytes-sent: their size (bytes); " \
  "queue-dropped: packets MQ refused for being over max-queue-bytes " \
  "(packets); " \
  "queued: packets waiting in MQ now (packets); " \
  "pacing-skipped: departure time MQ's pacer did not make up because its " \
  "loop ran more than pacing-catch-up late (ns, in all); " \
  "pacing-made-up: departure time made up from pacing-catch-up-budget " \
  "after the first pacing-catch-up of a late loop (ns, in all); " \
  "send-errors: socket sends that failed (datagrams); " \
  "control-sent: TPSS control messages sent (messages); " \
  "control-received: control messages accepted from members (messages); " \
  "data-received: media packets received from members (packets); " \
  "malformed: datagrams or RTCP packets that did not parse, dropped " \
  "(packets); " \
  "non-member: control or data from an id that is not a member, dropped " \
  "(packets); " \
  "join-refused: HELLOs from new ids refused because the member table " \
  "holds its 63 others (allow-join); also counted in non-member " \
  "(packets); " \
  "join-challenged: cookies sent to the addresses of HELLOs from unknown " \
  "ids (join-check) (packets); " \
  "join-verified: HELLOs that echoed a valid cookie: the id joins " \
  "(packets); " \
  "join-cookie-bad: HELLOs echoing a wrong or expired cookie, dropped " \
  "(packets); " \
  "join-echoed: cookies of other members echoed back to them (packets); " \
  "join-answer-limited: cookies not sent nor echoed for the bound of one " \
  "per id and address per hello-interval, 64 in all (packets); " \
  "member-entries: members in the member table now, configured ones " \
  "included, at most 63 (members); " \
  "forged: a member's id from another address, or a HELLO whose id " \
  "disagrees, dropped (packets); " \
  "own: our own packets looped back, dropped (packets); " \
  "other-rtcp: RTCP of other kinds, ignored (packets); " \
  "pli-sent: PLIs (RTCP picture loss indications, key-unit requests) sent " \
  "to members when their stream starts or a pad asks for a key unit " \
  "(packets); " \
  "pli-received: PLIs from members about our stream (packets); " \
  "pli-dropped: PLIs from non-members, forged, or about another stream " \
  "(packets); " \
  "bye-sent: RTCP BYEs sent when the session stopped, one per member " \
  "with a known address or one to the multicast group (packets); " \
  "bye-received: BYEs that removed a member at once (packets); " \
  "bye-refused: BYEs dropped: from a non-member or one already gone, " \
  "forged (another address than the member's, or none known yet), or " \
  "naming no source; also counted in non-member, forged or malformed " \
  "(packets); " \
  "sr-sent: RTCP sender reports sent, one datagram per member with a " \
  "known address or one to the multicast group (packets); " \
  "sr-received: sender reports accepted from members (packets); " \
  "sr-refused: sender reports dropped: malformed, from a non-member, " \
  "forged or from an address not known yet, or with an NTP time of 0 or " \
  "not after the member's previous one (packets); " \
  GST_NET_LOOP_STATS_DOC "; " GST_NET_KEY_STATS_DOC "; " \
  GST_NET_SRTP_STATS_DOC "; " \
  "members: a list with one structure per member, whose fields are " \
  "id: the member's id (number); " \
  "address: its host:port, empty until known (string); " \
  "priority: its priority at this receiver, higher first (number); " \
  "send-phase: the slow-start phase toward it, redundant or non-redundant " \
  "(string); " \
  "send-data-rate: D toward it (bits/s); " \
  "send-rate: S toward it, data plus parity (bits/s); " \
  "send-notified-rate: the last rate it notified (bits/s); " \
  "send-distance: k, interleaved parity groups (count); " \
  "send-length: l, data packets per parity packet, 0 = no parity (packets); " \
  "rtt: round-trip time to it, -1 = unknown (ns); " \
  "packets-sent: media packets sent to it (packets); " \
  "parity-sent: parity packets sent to it (packets); " \
  "key-parity-sent: of those, parity over key units (tpsssink's " \
  "key-unit-parity) (packets); " \
  "parity-dropped: of parity-sent, layered, parity that never left: it " \
  "waits behind the media toward it and is dropped after fec-size-time or " \
  "with a key-unit flush (packets); " \
  "parity-skipped: layered, parity made toward it but never queued nor " \
  "counted in parity-sent: its media queue was over tpsssink's " \
  "parity-max-backlog, or parity-by-share thinned it (packets); " \
  "layers-sent: the prefix of temporal layers it gets, 0 = not layered " \
  "(count); " \
  "layer-left-out: media packets of layers above its prefix, not sent to " \
  "it (packets); " \
  "layer-queue-dropped: packets over the bound (max-queue-bytes) of " \
  "its queue, which paces what goes to it when layered (packets); " \
  "layer-queue-time: how long the media that queue holds now takes to " \
  "leave at its rate (its parity waits behind it), 0 = not layered (ns); " \
  "key-flush-packets: media and parity packets of its queue dropped " \
  "ahead of a key unit (tpsssink's key-unit-flush) (packets); " \
  "queue-key-asks: times its queue held more than tpsssink's " \
  "key-unit-queue-time that a key unit would flush, and asked for one " \
  "(events); " \
  "age-dropped-frames: frames not sent to it because its queue was older " \
  "than tpsssink's max-queue-age, from the first until the next key unit " \
  "(frames); " \
  "age-dropped-packets: their packets (packets); " \
  "packets-received: media packets from it (packets); " \
  "parity-received: parity packets from it (packets); " \
  "parity-lost: gaps in its parity stream; with assign-needs-parity a " \
  "redundant phase's round trip with one is no complete receipt " \
  "(packets); " \
  "packets-lost: sequence gaps before FEC recovery (packets); " \
  "packets-recovered: lost packets FEC rebuilt (packets); " \
  "packets-not-delivered: packets admission refused, over the allocation " \
  "(packets); " \
  "packets-delivered: packets handed on in order (packets); " \
  "receive-rate: measured receive rate from it (bits/s); " \
  "allocated-rate: NQCP allocation, 0 = unlimited (bits/s); " \
  "recv-notified-rate: the rate we last notified it (bits/s); " \
  "late-reports: our reports on its rate that ran more than a report " \
  "interval after their interval ended, because this member's loop was " \
  "held up; such a report does not assign (reports); " \
  "assigns: our reports that assigned its receipt rate and ended its " \
  "redundant phase (reports); " \
  "holds: our reports on a round trip that lost only parity, which " \
  "leave its rate and probe as they were (reports); " \
  "unrecoverable: packets given up after fec-size-time (packets); " \
  "fec-late: parity that came after packets it protects were delivered " \
  "and left the store, dropped (packets); " \
  "fec-duplicates: media packets seen or delivered before, dropped " \
  "(packets); " \
  "fec-malformed: parity packets that did not parse (packets); " \
  "left: it said BYE and left; its counters are those it left with, " \
  "listed until it comes back (boolean); " \
  "sr-received: its sender reports accepted (packets)"

typedef struct _GstTpssSession GstTpssSession;

/* Sets a shared property on a tpsssink / tpsssrc and applies it to its
 * running session (takes the element's object lock). FALSE if @prop_id is
 * not a shared one. */
gboolean gst_tpss_element_set_session_property (GstElement * element,
    GstTpssSettings * settings, GstTpssSession ** session,
    const gboolean * started, guint prop_id, const GValue * value);

/* READY->PAUSED, after gst_tpss_session_start() with the settings copied
 * in @st: from now on (under the object lock) property sets reach the
 * session, and the members and priorities set since @st was copied, which
 * the start missed, are applied now. */
void gst_tpss_element_session_started (GstElement * element,
    GstTpssSettings * settings, GstTpssSession * session, gboolean * started,
    const GstTpssSettings * st);
/* PAUSED->READY, before gst_tpss_session_stop(): property sets from now on
 * are kept for the next start. */
void gst_tpss_element_session_stopping (GstElement * element,
    gboolean * started);

typedef struct
{
  /* The encoder's rates changed: bits/s per layer (@n_rates 1: one rate,
   * TR). */
  void (*data_rate) (GstElement * sink, const guint64 * rates,
      guint n_rates);
  /* A member asked for a key unit of our stream (a PLI); @rtt toward it,
   * ns (-1 unknown). */
  void (*key_unit) (GstElement * sink, guint32 member, gint64 rtt);
  /* Layered: the queue toward @member holds @queue_time ns that a key
   * unit would flush (gst_tpss_session_set_queue_bound). */
  void (*queue_key_unit) (GstElement * sink, guint32 member,
      gint64 queue_time);
} GstTpssSinkCallbacks;

typedef struct
{
  /* In-order RTP of @member after FEC recovery (takes @list); @sr: the
   * member's latest sender report (sr->valid FALSE: none yet). */
  void (*deliver) (GstElement * src, guint32 member, GstBufferList * list,
      const TpssSenderReport * sr);
  /* @member left or timed out. */
  void (*member_left) (GstElement * src, guint32 member);
} GstTpssSrcCallbacks;

/* NULL -> READY: find or create the session the settings name, and merge
 * their explicitly set fields into it. */
GstTpssSession *gst_tpss_session_acquire (GstElement * element,
    const GstTpssSettings * s, GError ** error);
void gst_tpss_session_release (GstTpssSession * session);
/* The same on an element's `session` field, which its `stats` readers use
 * under the element's object lock: the field is written under that lock,
 * and cleared before the session's last reference goes. */
gboolean gst_tpss_element_acquire_session (GstElement * element,
    GstTpssSession ** session, const GstTpssSettings * s, GError ** error);
void gst_tpss_element_release_session (GstElement * element,
    GstTpssSession ** session);

/* READY -> PAUSED / PAUSED -> READY; the first start opens the transport
 * and starts the loop, the last stop ends them. Call holding no lock (the
 * start resolves names). */
gboolean gst_tpss_session_start (GstTpssSession * session,
    GstElement * element, const GstTpssSettings * s, GError ** error);
void gst_tpss_session_stop (GstTpssSession * session);

void gst_tpss_session_set_sink (GstTpssSession * session, GstElement * sink,
    const GstTpssSinkCallbacks * cb);
void gst_tpss_session_set_src (GstTpssSession * session, GstElement * src,
    const GstTpssSrcCallbacks * cb);

/* Layered: a destination's queue asks for a key unit when it holds more
 * than @bound ns that one would flush (tpss_group_set_queue_bound; <= 0:
 * never). A started session's core only: a new start needs it again. */
void gst_tpss_session_set_queue_bound (GstTpssSession * session,
    gint64 bound);
/* Layered: frames that would wait more than @age ns in a destination's
 * queue are not sent to it, up to the next key unit
 * (tpss_group_set_max_queue_age; <= 0: never). A started session's core
 * only. */
void gst_tpss_session_set_max_queue_age (GstTpssSession * session,
    gint64 age);
/* Layered: the age of parity waiting toward a destination counts from when
 * the media it covers left (tpss_group_set_parity_age_from_media). A
 * started session's core only. */
void gst_tpss_session_set_parity_age_from_media (GstTpssSession * session,
    gboolean from_media);
/* Layered: parity toward a destination whose media queue takes more than
 * @backlog ns is not queued (tpss_group_set_parity_max_backlog; <= 0:
 * never). A started session's core only. */
void gst_tpss_session_set_parity_max_backlog (GstTpssSession * session,
    gint64 backlog);
/* Layered: parity toward a destination scaled by the share of its recent
 * parity that left (tpss_group_set_parity_by_share). A started session's
 * core only. */
void gst_tpss_session_set_parity_by_share (GstTpssSession * session,
    gboolean by_share);

/* Waits (at most @timeout ns) until MQ has sent everything (EOS). */
void gst_tpss_session_drain (GstTpssSession * session, gint64 timeout);

/* Queues one RTP packet (takes @buffer) of temporal layer @layer in a
 * stream of @n_layers (TPSS_GROUP_LAYER_NONE: none); FALSE if MQ refused
 * it. @capture: when it was captured, on the monotonic time base of
 * gst_net_now() (-1: unknown), on an RTP clock of @clock_rate Hz (0:
 * unknown); the sender reports map its timestamp to NTP time from it.
 * @key non-NULL: the packet starts a key unit, with its own parity and
 * the queue ahead of it flushed as @key asks (tpss_group_enqueue_media). */
gboolean gst_tpss_session_send (GstTpssSession * session, GstBuffer * buffer,
    guint layer, guint n_layers, const TpssKeyUnit * key, gint64 capture,
    guint clock_rate);

gboolean gst_tpss_session_set_members (GstTpssSession * session,
    const gchar * members, GError ** error);
gboolean gst_tpss_session_set_priorities (GstTpssSession * session,
    const gchar * priorities, GError ** error);

/* Sends @member a PLI (asks it for a key unit of its stream); FALSE if it
 * is not a member with a known address. */
gboolean gst_tpss_session_request_key_unit (GstTpssSession * session,
    guint32 member);

guint32 gst_tpss_session_get_member_id (GstTpssSession * session);
guint gst_tpss_session_get_port (GstTpssSession * session);
GstStructure *gst_tpss_session_get_stats (GstTpssSession * session);
/* Posts @element's `stats` as a `tpss-stats` element message now (at EOS). */
void gst_tpss_session_post_stats (GstElement * element);

G_END_DECLS

#endif /* __GST_TPSS_SESSION_H__ */
