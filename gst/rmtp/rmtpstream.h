/* RMTP streaming mode (ours): a stream larger than memory goes out in
 * windows of cfg->window_size bytes, each a data set of its own (its own
 * session, CONN, rounds, digest and release) whose CONN carries the
 * window's index, stream offset and a last flag. Sans-I/O like the cores
 * it drives (rmtpcore.h); docs/protocols/rmtp.md, "Streaming mode".
 *
 * The server holds at most two windows: the one in flight and the one
 * being filled (2 x window_size + 1 bytes). The next window starts when
 * the one before enters its release (every member still in the stream has
 * ACKed it or been given up), while the RACKs come in. A member
 * that failed a window, or that held it back as slow or BUSY (it finished
 * it by unicast after the rounds), is dropped from the stream.
 *
 * The receiver gives out a window's data, in order, once the window is
 * verified (all packets, SHA-256), and then waits for the next window. */
#ifndef __RMTP_STREAM_H__
#define __RMTP_STREAM_H__

#include "rmtpcore.h"

G_BEGIN_DECLS

typedef struct {
  guint32 window;               /* the window in flight, or the last one */
  guint windows;                /* windows started */
  guint64 window_offset;        /* its first byte in the stream */
  guint64 window_bytes;         /* its size */
  guint64 taken;                /* bytes pushed in */
  guint64 released;             /* bytes of windows every member left has */
  guint64 held, max_held;       /* bytes held: now, at most */
  guint members_left;           /* members still in the stream */
  guint dropped, dropped_slow;  /* members dropped: all, for being slow */
  RmtpServerStats sum;          /* the windows' server counters, added up
                                 * (the window in flight included) */
} RmtpStreamServerStats;

typedef struct _RmtpStreamServer RmtpStreamServer;

/* @cfg->window_size > 0; windows get the sessions @session, @session + 1,
 * ... NULL if the arguments are unusable (as rmtp_server_new). */
RmtpStreamServer *rmtp_stream_server_new (const RmtpConfig * cfg,
    guint32 session, const guint32 * members, guint n_members,
    const RandomSource * rng);
void rmtp_stream_server_free (RmtpStreamServer * s);

/* Bytes push takes now; 0 while two windows are held (upstream waits). */
gsize rmtp_stream_server_room (const RmtpStreamServer * s);
/* Takes up to room bytes of the stream; returns how many. */
gsize rmtp_stream_server_push (RmtpStreamServer * s, const guint8 * data,
    gsize len, gint64 now);
/* The end of the stream: what is held goes as the last window. */
void rmtp_stream_server_finish (RmtpStreamServer * s, gint64 now);

/* As rmtp_server_handle, for the window the datagram belongs to: the
 * member its sound CACK bound, else 0. */
guint32 rmtp_stream_server_handle (RmtpStreamServer * s, guint32 from,
    const guint8 * data, gsize len, gint64 now);
void rmtp_stream_server_handle_timeout (RmtpStreamServer * s, gint64 now);
gboolean rmtp_stream_server_poll_datagram (RmtpStreamServer * s, gint64 now,
    RmtpDatagram * out);
/* PROGRESS (bytes: stream offset of what was sent), DROPPED, and at the
 * end DONE (receivers_complete: members left) or FAILED. */
gboolean rmtp_stream_server_poll_event (RmtpStreamServer * s,
    RmtpEvent * out);
gint64 rmtp_stream_server_next_deadline (const RmtpStreamServer * s);
/* The window in flight or the last one (NULL before the first). */
const RmtpServer *rmtp_stream_server_window (const RmtpStreamServer * s);
const RmtpStreamServerStats *rmtp_stream_server_stats (RmtpStreamServer *
    s);
/* A group key for every window's server (rmtp_server_set_key); the auth
 * counters of all windows added up. Each window seals under a sender id
 * of its own, and a replayed packet of another window names another
 * session, which the window's core refuses. */
void rmtp_stream_server_set_key (RmtpStreamServer * s, const AuthKey * key);
gboolean rmtp_stream_server_auth_stats (const RmtpStreamServer * s,
    AuthStats * st);

typedef struct {
  guint windows;                /* windows verified */
  guint64 given;                /* bytes given out (DATA events) */
  guint64 held, max_held;       /* bytes of windows not verified yet */
} RmtpStreamReceiverStats;

typedef struct _RmtpStreamReceiver RmtpStreamReceiver;

/* A receiver of either a data set or a stream (the first CONN says). */
RmtpStreamReceiver *rmtp_stream_receiver_new (const RmtpConfig * cfg,
    guint32 member, gboolean accept, const RandomSource * rng);
void rmtp_stream_receiver_free (RmtpStreamReceiver * r);

/* The wait for the first CONN starts at @now (rmtp_receiver_start): it
 * fails with RMTP_FAIL_NO_CONN after connect_timeout. Later windows wait
 * receiver_timeout for theirs, from the release of the one before. */
void rmtp_stream_receiver_start (RmtpStreamReceiver * r, gint64 now);
void rmtp_stream_receiver_handle_bytes (RmtpStreamReceiver * r,
    GBytes * bytes, gint64 now);
void rmtp_stream_receiver_handle_timeout (RmtpStreamReceiver * r,
    gint64 now);
gboolean rmtp_stream_receiver_poll_datagram (RmtpStreamReceiver * r,
    RmtpDatagram * out);
/* DATA only once verified (offsets in the stream), then DONE; or FAILED
 * (after the windows already given out). */
gboolean rmtp_stream_receiver_poll_event (RmtpStreamReceiver * r,
    RmtpEvent * out);
gint64 rmtp_stream_receiver_next_deadline (const RmtpStreamReceiver * r);
/* The core of the current window, for its state, stats and BUSY. */
RmtpReceiver *rmtp_stream_receiver_core (RmtpStreamReceiver * r);
/* Whether the data set or the stream's last window is verified. */
gboolean rmtp_stream_receiver_verified (const RmtpStreamReceiver * r);
const RmtpStreamReceiverStats *rmtp_stream_receiver_stats (const
    RmtpStreamReceiver * r);
/* Data set (not streaming) mode: DATA are given out in order as they
 * arrive, before the digest is verified (DONE or FAILED still says whether
 * it matched). Call before the first datagram. */
void rmtp_stream_receiver_set_early_output (RmtpStreamReceiver * r,
    gboolean early);
/* The same for every window's receiver core. */
void rmtp_stream_receiver_set_key (RmtpStreamReceiver * r,
    const AuthKey * key);
gboolean rmtp_stream_receiver_auth_stats (const RmtpStreamReceiver * r,
    AuthStats * st);

G_END_DECLS

#endif /* __RMTP_STREAM_H__ */
