/* Lip sync of a member's streams from its RTCP sender reports, sans-I/O
 * (GLib only), after rtpbin's reasoning.
 *
 * A member sends several streams (audio, video), each with its own RTP
 * clock, and each stream's sender reports tie that clock to one NTP clock
 * of the member. For a packet, the sender time is the NTP time of its RTP
 * timestamp (tpss_sync_sender_time); its delay is its local arrival time
 * less that. A stream's delay is the least over a sliding window (the
 * packets that waited least: jitter and FEC waits do not count), and the
 * member's offset is the largest delay of its streams: the stream that
 * arrives later sets it, and every stream of the member is stamped
 * sender time + offset, so a capture instant gets one local time in all
 * of them. Streams silent for a while no longer count. A stream is held
 * back at most max_hold: when the member's later stream lags it by more
 * (a video path seconds behind its audio), it is stamped on its own
 * delay instead, as rtpbin's max-ts-offset gives up on a sync it cannot
 * make without delaying the faster stream by that much.
 *
 * Times are ns; the local time is whatever the caller uses (a running
 * time), the sender time ns since 1900. */
#ifndef __TPSS_SYNC_H__
#define __TPSS_SYNC_H__

#include <glib.h>
#include "tpssgroup.h"

G_BEGIN_DECLS

typedef struct _TpssSync TpssSync;

/* @window: how long a stream's least delay is kept (ns, > 0); a stream
 * silent for 4 windows stops counting toward its member's offset. */
TpssSync *tpss_sync_new (gint64 window);
void tpss_sync_free (TpssSync * s);

/* The sender's NTP time (ns since 1900) at which its RTP clock of
 * @clock_rate Hz read @rtp_ts, from its sender report @sr (valid, and
 * @clock_rate > 0); timestamps within 2^31 ticks of the SR's either way. */
gint64 tpss_sync_sender_time (const TpssSenderReport * sr, guint32 rtp_ts,
    guint clock_rate);

/* A packet of @member's stream @stream (any key the caller picks, one per
 * stream) with sender time @sender_time arrived at @arrival (local ns).
 * Returns the offset to stamp it with, local time = sender time + offset:
 * the member's offset, or the stream's own least delay when that is more
 * than @max_hold (ns; < 0: no limit) below it. */
gint64 tpss_sync_update (TpssSync * s, guint32 member, gpointer stream,
    gint64 sender_time, gint64 arrival, gint64 max_hold);

/* The offset of @member as of @now (local ns); FALSE if none of its
 * streams counts. */
gboolean tpss_sync_get_offset (const TpssSync * s, guint32 member,
    gint64 now, gint64 * offset);

/* @stream's own least delay for @member (local ns - sender ns); FALSE if
 * it has none. */
gboolean tpss_sync_get_stream_delay (const TpssSync * s, guint32 member,
    gpointer stream, gint64 * delay);

/* Forgets @stream (of every member): its element stopped. */
void tpss_sync_remove_stream (TpssSync * s, gpointer stream);

G_END_DECLS

#endif /* __TPSS_SYNC_H__ */
