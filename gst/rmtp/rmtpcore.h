/* RMTP (reliable multicast transport protocol, Shiroshita et al. 1996): a
 * sans-I/O server core and receiver core (GLib only). The shell feeds
 * datagrams and the clock in, polls datagrams, events and the next
 * deadline out. Wire formats and state machines: docs/protocols/rmtp.md.
 *
 * Every packet starts with an 8-byte header:
 *   magic "RM" (2) | version 1 (1) | type (1) | session id (4)
 * then the type's body, all integers big-endian. Receivers are named by a
 * 32-bit member id from the member list the application gives the server.
 */
#ifndef __RMTP_CORE_H__
#define __RMTP_CORE_H__

#include <glib.h>

#include "core/auth.h"
#include "core/random.h"
#include "core/pacer.h"

G_BEGIN_DECLS

#define RMTP_HEADER_SIZE 8
#define RMTP_VERSION 1
#define RMTP_DIGEST_SIZE 32     /* SHA-256 */
#define RMTP_MAX_MEMBERS 65535
#define RMTP_MAX_RANGES 512     /* ranges one NACK carries */
#define RMTP_MAX_PACKET_SIZE 65000
/* With a group key: the server keeps a replay window for each member (and
 * one more), a receiver for this many servers (a restarted one included). */
#define RMTP_RECEIVER_AUTH_SENDERS 4

typedef enum {
  RMTP_CONN = 1,                /* server -> all / one: connection request */
  RMTP_CACK = 2,                /* receiver -> server: yes / no */
  RMTP_DATA = 3,                /* server -> all / one: one data packet */
  RMTP_EOR = 4,                 /* server -> all / one: round ended */
  RMTP_NACK = 5,                /* receiver -> server: missing ranges */
  RMTP_ACK = 6,                 /* receiver -> server: all received */
  RMTP_POLL = 7,                /* server -> one: answer this round */
  RMTP_REL = 8,                 /* server -> all / one: release */
  RMTP_RACK = 9,                /* receiver -> server: release ack */
  RMTP_BUSY = 10,               /* receiver -> server: cannot receive now */
  RMTP_RRDY = 11,               /* receiver -> server: ready again */
  RMTP_REPORT = 12,             /* receiver -> server: monitor count */
  RMTP_PARITY = 13,             /* server -> all: a parity packet (ours) */
  RMTP_DROP = 14,               /* server -> all: stream, nobody is left (ours) */
  RMTP_PARITY16 = 15,           /* server -> all: a parity packet over
                                 * GF(2^16), blocks over 255 (ours) */
  RMTP_CONN_RETRY = 16,         /* server -> one: a CONN retried by unicast,
                                 * listing only its recipient (ours); parsed
                                 * as a CONN with retry set */
} RmtpType;

/* How a multicast round after the first repairs losses. */
typedef enum {
  RMTP_REPAIR_RETRANSMIT,       /* the NACKed packets again (the paper) */
  RMTP_REPAIR_PARITY,           /* Reed-Solomon parity over blocks (ours) */
} RmtpRepair;

/* DATA flags (the header's type byte is followed by these in the body) */
#define RMTP_FLAG_START 0x01    /* monitor period starts with this packet */
#define RMTP_FLAG_STOP 0x02     /* ... and ends with this one */

/* Every constant, with its default (rmtp_config_init). The paper gives
 * delta (2-4 ms), the 1 KB packet; the rest are ours (docs/protocols). */
typedef struct {
  guint packet_size;            /* payload bytes per DATA: 1024 (paper) */
  gint64 delta;                 /* backoff per receiver, ns: 2 ms (paper) */
  gint64 tat;                   /* turn-around time allowance: 100 ms */
  gint64 alpha;                 /* timer surplus: 50 ms */
  guint max_polls;              /* POLLs before a receiver is slow: 3 */
  guint max_conn_retries;       /* unicast CONN retries: 3 */
  guint max_rel_retries;        /* unicast REL retries: 3 */
  gint64 empty_round_wait;      /* server, ns: the k-th EOR-only round
                                 * running (members decoding apart) waits
                                 * this x 2^(k-1), at most
                                 * busy_poll_interval, after the answers of
                                 * the one before; 0: at once (ours): 0 */
  guint gone_rel_retries;       /* unicast RELs to each given-up member
                                 * that has not RACKed, each wait twice
                                 * the one before from tat + alpha: 3 */
  guint max_separate_rounds;    /* unicast rounds per slow receiver: 20 */
  /* Detection of a slow receiver that answers (3.2.2 leaves the rule
   * open): in slow_rounds multicast rounds running, it lost more than
   * slow_loss of the packets it needed and more than slow_factor times the
   * others' mean loss; rounds where it needed fewer than slow_min_packets
   * are not judged. It is then served by unicast after the rounds, paced at
   * the rate its losses show it takes. */
  gdouble slow_loss;            /* fraction: 0.5 */
  gdouble slow_factor;          /* x the others' mean loss: 3 */
  guint slow_rounds;            /* rounds running (0: never): 2 */
  guint slow_min_packets;       /* packets: 16 */
  guint64 rate;                 /* initial send rate, bit/s: 8 Mbit/s */
  guint64 min_rate, max_rate;   /* rate control bounds: 256k, 100M */
  gboolean rate_control;        /* monitor-based rate control: TRUE */
  guint monitor_packets;        /* packets per monitor period: 256 */
  guint reporters;              /* representatives (first members): 32 */
  gdouble decrease_below;       /* mean receipt ratio: 0.95 */
  gdouble increase_above;       /* ... : 0.995 */
  gdouble decrease_factor;      /* 0.8 */
  gdouble increase_factor;      /* 1.05 */
  gint64 receiver_timeout;      /* receiver: server silent, fail: 30 s;
                                 * server: longest wait for a BUSY member */
  gint64 connect_timeout;       /* receiver, from rmtp_receiver_start: fail
                                 * when no CONN listing it has come in this
                                 * long, ns; 0: wait for ever: 60 s */
  gint64 busy_poll_interval;    /* server POLLs BUSY members: 1 s */
  guint64 max_total_size;       /* receiver: the largest data set it holds,
                                 * bytes, its packet index included: 128 MiB
                                 * (a CONN over it is refused: a forged one
                                 * must not make it allocate gigabytes) */
  guint control_copies;         /* server: each CONN, EOR, REL to the group
                                 * goes out this many times back to back, so
                                 * a loss seldom costs a timeout (ours): 3 */
  RmtpRepair repair;            /* server: RMTP_REPAIR_RETRANSMIT */
  guint parity_block;           /* server, parity: data packets a block:
                                 * 128; up to 255 by GF(2^8), over that
                                 * (up to 65535) by GF(2^16) */
  gboolean parity_surplus;      /* server, parity: a receiver's rows over
                                 * (1 - its loss), not just its losses:
                                 * TRUE */
  gboolean early_repair;        /* server, multicast rounds: the next
                                 * round's repairs for a NACK go out as it
                                 * arrives, while the round's other answers
                                 * still come in (ours): FALSE, the paper */
  gboolean release_on_ack;      /* server: a member that ACKs gets its REL
                                 * by unicast at once (control_copies
                                 * copies, answered at once), not after the
                                 * round in a group REL with a window of
                                 * delta x N (ours): FALSE, the paper */
  gboolean conn_retry_backoff;  /* server: a CONN retry carries the window
                                 * delta x the members retried with it and
                                 * is answered over it, as the paper's
                                 * backoff for every CACK (3.2.2): FALSE,
                                 * window 0, answered at once (the stalled
                                 * emulator took 1.22 x as long with it) */
  guint conn_retry_storm;       /* server, with conn_retry_backoff: the
                                 * members retried in one batch from which
                                 * the batch carries the window; a smaller
                                 * batch is answered at once (ours): 0,
                                 * every batch (the paper) */
  gint64 send_burst;            /* server: credit of the pacer, ns: 0 (the
                                 * simulator's exact clock needs none; a
                                 * shell woken late catches up with it) */
  gboolean parity_incremental;  /* receiver: a GF(2^16) block's packets and
                                 * rows are eliminated as they arrive, so
                                 * the last needed row leaves only its own
                                 * work; off: all of it then; ignored with
                                 * parity_decode_apart (ours): TRUE
                                 * (issue 20: 0.96 x the transfer at 32
                                 * receivers and 2048, rows in batches) */
  gboolean parity_expect_rows;  /* receiver, with parity_incremental: the
                                 * rows a block will need (the server sends
                                 * 0, 1, ...; its losses so far x 1.25 + 4)
                                 * have their sums over the packets held
                                 * made as the DATA come, so a row costs
                                 * 2 x its losses, not the block (ours):
                                 * FALSE */
  guint parity_incremental_batch;       /* receiver, with
                                         * parity_incremental: rows reduced
                                         * a batch at a time, each packet
                                         * read once a batch
                                         * (erasure16_decoder_set_batch;
                                         * 1 to 1024; 1: each row as it
                                         * comes) (ours): 16 (issue 20:
                                         * 1.15 x the CPU with 1, 1.01 x
                                         * with 16, at 32 receivers) */
  guint parity_incremental_min_block;   /* receiver, with
                                         * parity_incremental: only blocks
                                         * of at least this many packets
                                         * are decoded incrementally;
                                         * smaller ones one-shot (ours):
                                         * 1024 (issue 20: at 512 the
                                         * incremental decode cost 1.2 x
                                         * the one-shot's CPU on the bed,
                                         * with no faster transfer) */
  gboolean parity_decode_apart; /* receiver: a block's decode is one-shot
                                 * (parity_incremental unused) and is
                                 * handed to the shell as a job
                                 * (rmtp_receiver_take_decode_job) to run
                                 * where it likes, so the caller's thread
                                 * keeps answering; FALSE: it runs inside
                                 * the call that brought the last row
                                 * (ours): FALSE */
  guint64 window_size;          /* server shell, streaming mode: bytes of
                                 * the stream one window (one data set)
                                 * carries; 0: data-set mode (default) */
} RmtpConfig;

void rmtp_config_init (RmtpConfig * cfg);

/* ------------------------------------------------------------------ */
/* Wire: every packet either side parses. */

typedef struct {
  guint32 first;
  guint32 count;
} RmtpRange;

typedef struct {
  RmtpType type;
  guint32 session;
  guint32 member;               /* CACK NACK ACK RACK BUSY RRDY REPORT POLL */
  guint32 round;                /* DATA EOR NACK ACK POLL REL */
  /* CONN */
  guint64 total_size;
  guint32 packet_size;
  guint32 n_packets;
  guint32 delta_us;
  guint32 reporters;
  guint32 parity_block;         /* data packets a parity block; 0: none;
                                 * over 255: GF(2^16) */
  const guint8 *digest;         /* RMTP_DIGEST_SIZE, points into the packet */
  guint32 n_members;
  const guint8 *members;        /* n_members x 4 bytes */
  /* CONN of a stream window (streaming mode): the trailer after the
   * members; @total_size is then this window's size */
  gboolean stream;
  guint32 window;               /* the window's index in the stream */
  guint64 offset;               /* stream offset of its first byte */
  gboolean last;                /* the stream ends with this window */
  const guint8 *stream_digest;  /* last: SHA-256 of the whole stream
                                 * (RMTP_DIGEST_SIZE, into the packet) */
  gboolean retry;               /* a CONN sent as RMTP_CONN_RETRY (@type is
                                 * RMTP_CONN) */
  /* CACK */
  gboolean yes;
  /* DATA */
  guint8 flags;
  guint32 seq;
  /* PARITY: the block (data packets block x parity_block ..), its row;
   * the payload is as long as the block's first data packet */
  guint32 block;
  guint row;                    /* u8 in PARITY, u16 in PARITY16 */
  const guint8 *payload;
  gsize payload_len;
  /* CONN, EOR, POLL, REL: the backoff window of the answers, in us (0: at once) */
  guint32 window_us;
  /* NACK */
  guint32 n_ranges;
  const guint8 *ranges;         /* n_ranges x 8 bytes: first, count */
  /* REPORT */
  guint32 monitor;
  guint32 received;
} RmtpPacket;

/* Parses one datagram; FALSE (and nothing to trust in @pkt) if it is not a
 * whole, well-formed RMTP packet. Pointers in @pkt point into @data. */
gboolean rmtp_packet_parse (const guint8 * data, gsize len, RmtpPacket * pkt);
/* The @i-th member id / NACK range of a parsed packet. */
guint32 rmtp_packet_member (const RmtpPacket * pkt, guint i);
RmtpRange rmtp_packet_range (const RmtpPacket * pkt, guint i);

/* ------------------------------------------------------------------ */
/* Output of both cores */

#define RMTP_TO_GROUP 0         /* a datagram's destination: the group */

typedef struct {
  guint32 to;                   /* RMTP_TO_GROUP, or a member id (unicast) */
  GBytes *bytes;                /* owned by the caller once polled */
} RmtpDatagram;

typedef enum {
  RMTP_EVENT_PROGRESS,          /* bytes, round, receivers_complete */
  RMTP_EVENT_DATA,              /* receiver: @data, in order, at @offset */
  RMTP_EVENT_DONE,              /* transfer finished (see counts) */
  RMTP_EVENT_FAILED,            /* @reason */
  RMTP_EVENT_DROPPED,           /* stream server: @member left the stream
                                 * after window @round (@reason: NONE if
                                 * it was slow, else why it failed) */
} RmtpEventType;

typedef enum {
  RMTP_FAIL_NONE,
  RMTP_FAIL_REFUSED,            /* receiver answered CACK no / none said yes */
  RMTP_FAIL_DIGEST,             /* all packets arrived, digest differs */
  RMTP_FAIL_SERVER_SILENT,      /* receiver: server silent too long */
  RMTP_FAIL_INCOMPLETE,         /* released before the data set was whole */
  RMTP_FAIL_DROPPED,            /* stream: a later window does not list us */
  RMTP_FAIL_STREAM_DIGEST,      /* stream: every window verified, but the
                                 * stream's digest differs (a window
                                 * missing, repeated or out of order) */
  RMTP_FAIL_NO_CONN,            /* receiver: no CONN listing it came within
                                 * connect_timeout of its start */
} RmtpFailReason;

typedef struct {
  RmtpEventType type;
  guint64 bytes;                /* PROGRESS: bytes sent / delivered */
  guint round;
  guint receivers_complete;     /* server: members that ACKed */
  guint receivers_failed;       /* server, DONE: members that never did */
  guint64 offset;               /* DATA */
  GBytes *data;                 /* DATA: owned by the caller once polled */
  RmtpFailReason reason;
  guint32 member;               /* DROPPED */
} RmtpEvent;

/* What became of each datagram handed to a core. */
typedef struct {
  guint64 accepted;
  guint64 malformed;            /* not an RMTP packet */
  guint64 foreign;              /* another session, or not for this side */
  guint64 forged;               /* member id unknown, or from the wrong peer */
  guint64 out_of_window;        /* sequence / range / round out of bounds */
  guint64 duplicates;           /* DATA already held */
  guint64 late;                 /* a response for a round already closed
                                 * (a set-aside member's newer NACK is
                                 * taken), or a CACK after CONNECT; a CONN
                                 * retry after the rounds began */
} RmtpInputStats;

/* ------------------------------------------------------------------ */
/* Server */

typedef enum {
  RMTP_SERVER_CONNECT,
  RMTP_SERVER_ROUNDS,           /* multicast rounds */
  RMTP_SERVER_SEPARATE,         /* unicast to slow / BUSY receivers */
  RMTP_SERVER_RELEASE,
  RMTP_SERVER_DONE,
} RmtpServerPhase;

typedef struct {
  RmtpInputStats in;
  guint64 datagrams_sent, data_sent, data_resent, unicast_data_sent;
  guint64 parity_sent;
  guint64 conn_sent, polls_sent, rel_sent, eor_sent;
  guint64 busy_received, rrdy_received; /* from connected members */
  guint64 responses;            /* NACK + ACK taken */
  guint rounds;
  guint max_responses_per_round;
  guint64 rate;                 /* the send rate now */
  guint rate_changes;
  guint slow_receivers;         /* detected or BUSY */
  guint slow_detected;          /* ... set aside for their losses */
  guint taken_back;             /* members given up at CONNECT (no CACK)
                                 * and heard from later: set aside (the
                                 * packet that brings one back counts in
                                 * in.accepted, not in in.late) */
  guint gone_complete;          /* members given up in SEPARATE (POLLs
                                 * unanswered, BUSY too long) whose later
                                 * ACK or RACK proved them complete */
  guint64 gone_rel_sent;        /* unicast RELs to given-up members in the
                                 * release (gone_rel_retries) */
  guint64 nacks_overlapping;    /* NACKs whose ranges overlap or go back,
                                 * refused (a repair set stays at most the
                                 * data set) */
  guint64 empty_rounds;         /* rounds of an EOR alone: a member's NACK
                                 * listed nothing (it holds what it needs
                                 * and is decoding), so it is asked again
                                 * instead of released unverified */
} RmtpServerStats;

typedef struct _RmtpServer RmtpServer;

/* @members: @n_members distinct ids, none 0; @data: the whole data set.
 * NULL if the arguments are unusable. */
RmtpServer *rmtp_server_new (const RmtpConfig * cfg, guint32 session,
    const guint32 * members, guint n_members, GBytes * data,
    const RandomSource * rng);
/* The same with the data set's SHA-256 already known (@digest, 32 bytes,
 * which the CONN carries as given): a shell that hashed the data as it
 * took them saves a pass over the whole set before the CONN. */
RmtpServer *rmtp_server_new_digested (const RmtpConfig * cfg,
    guint32 session, const guint32 * members, guint n_members, GBytes * data,
    const guint8 * digest, const RandomSource * rng);
void rmtp_server_free (RmtpServer * s);

/* A group key (docs/security.md): from now on every control packet the
 * server sends is sealed, and every datagram it takes must open under the
 * key; one that does not is counted by verdict and changes nothing. DATA
 * and PARITY are media and go unsealed. Call before rmtp_server_start. */
void rmtp_server_set_key (RmtpServer * s, const AuthKey * key);
/* FALSE without a key; else the auth counters in @st. */
gboolean rmtp_server_auth_stats (const RmtpServer * s, AuthStats * st);
/* Starts the connection phase at @now. */
void rmtp_server_start (RmtpServer * s, gint64 now);
/* A datagram from member @from (the shell maps the source address to the
 * member id it knows; 0 if unknown). A sound CACK from an unknown source
 * (@from 0) that names a member not bound yet binds that member (so does
 * a NACK, ACK or RACK of a member given up at CONNECT): the return value
 * is then its id, for the shell to map the source address to; 0
 * otherwise. */
guint32 rmtp_server_handle (RmtpServer * s, guint32 from,
    const guint8 * data, gsize len, gint64 now);
/* Runs timers due at @now. */
void rmtp_server_handle_timeout (RmtpServer * s, gint64 now);
/* The next datagram the pacer lets out at @now. */
gboolean rmtp_server_poll_datagram (RmtpServer * s, gint64 now,
    RmtpDatagram * out);
gboolean rmtp_server_poll_event (RmtpServer * s, RmtpEvent * out);
/* When to call handle_timeout / poll_datagram next (a time already past:
 * at once); G_MAXINT64 if never. */
gint64 rmtp_server_next_deadline (const RmtpServer * s);
RmtpServerPhase rmtp_server_phase (const RmtpServer * s);
const RmtpServerStats *rmtp_server_stats (const RmtpServer * s);
/* Streaming mode: the data set is window @window of a stream, starting at
 * @offset. @stream_digest, the SHA-256 of the whole stream, is given for
 * the last window only (NULL for the others). Its CONN then carries these
 * (call before rmtp_server_start). */
void rmtp_server_set_window (RmtpServer * s, guint32 window, guint64 offset,
    const guint8 * stream_digest);
/* Once in RELEASE (or DONE) the data set is not sent again: drops the
 * server's reference to it (a stream holds no more than it needs). */
void rmtp_server_drop_data (RmtpServer * s);
/* Streaming mode, when the stream goes on for none of its members: queues
 * a DROP of @window (the next one, which will not come) to the group,
 * control_copies times, so the members dropped learn it at once. */
void rmtp_server_queue_drop (RmtpServer * s, guint32 window);
/* Whether member @id has the data set (ACKed or RACKed); @slow: whether it
 * was set aside as slow or BUSY on the way. */
gboolean rmtp_server_member_complete (const RmtpServer * s, guint32 id,
    gboolean * slow);
/* The responses (NACK/ACK) taken in round @round (0-based); 0 past the end */
guint rmtp_server_round_responses (const RmtpServer * s, guint round);

/* ------------------------------------------------------------------ */
/* Receiver */

typedef enum {
  RMTP_RECEIVER_WAIT_CONN,
  RMTP_RECEIVER_RECEIVING,
  RMTP_RECEIVER_BUSY,
  RMTP_RECEIVER_COMPLETE,       /* all data, digest verified, not released */
  RMTP_RECEIVER_DONE,           /* released */
  RMTP_RECEIVER_FAILED,
} RmtpReceiverState;

typedef struct {
  RmtpInputStats in;
  guint64 data_received;
  guint64 cack_sent, nack_sent, ack_sent, rack_sent, report_sent;
  guint64 busy_sent, rrdy_sent; /* BUSY again answers a POLL too */
  guint64 busy_dropped;         /* DATA dropped while BUSY */
  guint64 parity_received;      /* PARITY packets kept */
  guint64 parity_recovered;     /* data packets rebuilt from parity */
  guint64 conn_too_large;       /* CONNs over max_total_size, refused */
  guint64 polls_held;           /* POLLs not answered: an answer was due
                                 * already, or one went out less than `tat`
                                 * before */
  guint64 answers_redrawn;      /* answers whose timer ran more than their
                                 * window + `tat` after their request (the
                                 * server waits no longer), drawn again
                                 * over their window */
  guint64 decode_jobs;          /* parity_decode_apart: decodes handed out */
  guint64 incremental_blocks;   /* blocks rebuilt by the incremental
                                 * decoder (parity_incremental) */
  guint64 decode_jobs_dropped;  /* returned after their block was complete
                                 * (its packets came) or is gone */
} RmtpReceiverStats;

typedef struct _RmtpReceiver RmtpReceiver;

/* @member: our id in the member list; @accept: the CACK answer. */
RmtpReceiver *rmtp_receiver_new (const RmtpConfig * cfg, guint32 member,
    gboolean accept, const RandomSource * rng);
void rmtp_receiver_free (RmtpReceiver * r);
/* A group key, as rmtp_server_set_key: every answer is sealed, every
 * datagram but DATA and PARITY must open. */
void rmtp_receiver_set_key (RmtpReceiver * r, const AuthKey * key);
gboolean rmtp_receiver_auth_stats (const RmtpReceiver * r, AuthStats * st);

/* Starts the wait for the first CONN at @now: without a CONN that lists
 * us (and that we can hold) by @now + connect_timeout, the receiver fails
 * with RMTP_FAIL_NO_CONN. Without this call, or with a connect_timeout of
 * 0, it waits for ever (a simulation starts every side at once). */
void rmtp_receiver_start (RmtpReceiver * r, gint64 now);
/* A datagram from the server (to the group or to us). */
void rmtp_receiver_handle (RmtpReceiver * r, const guint8 * data, gsize len,
    gint64 now);
/* The same for a datagram held in @bytes: DATA payloads are kept as slices
 * of it instead of copies. */
void rmtp_receiver_handle_bytes (RmtpReceiver * r, GBytes * bytes,
    gint64 now);
void rmtp_receiver_handle_timeout (RmtpReceiver * r, gint64 now);
/* Declares BUSY (TRUE) or RRDY (FALSE) to the server. */
void rmtp_receiver_set_busy (RmtpReceiver * r, gboolean busy, gint64 now);
gboolean rmtp_receiver_poll_datagram (RmtpReceiver * r, RmtpDatagram * out);
gboolean rmtp_receiver_poll_event (RmtpReceiver * r, RmtpEvent * out);
gint64 rmtp_receiver_next_deadline (const RmtpReceiver * r);
RmtpReceiverState rmtp_receiver_state (const RmtpReceiver * r);
/* Whether an answer (CACK, NACK/ACK or RACK) waits on its backoff timer. */
gboolean rmtp_receiver_answer_due (const RmtpReceiver * r);
const RmtpReceiverStats *rmtp_receiver_stats (const RmtpReceiver * r);
/* Streaming mode: take only the CONN of window @window of a stream, at
 * stream offset @offset (not the CONN of a data set; without this call,
 * only window 0 at offset 0); a CONN to the group for a later window, or
 * one that does not list us, fails with RMTP_FAIL_DROPPED, and one at
 * another offset is counted out of window. The server's silence counts
 * from @now. Call before the first datagram. */
void rmtp_receiver_expect_window (RmtpReceiver * r, guint32 window,
    guint64 offset, gint64 now);
/* The stream window of the CONN taken; FALSE for a data set (or before a
 * CONN). */
gboolean rmtp_receiver_window (const RmtpReceiver * r, guint32 * window,
    guint64 * offset, gboolean * last);
/* The SHA-256 of the whole stream that the CONN of its last window
 * carries; FALSE for any other CONN (or before one). */
gboolean rmtp_receiver_stream_digest (const RmtpReceiver * r,
    const guint8 ** digest);
/* Fails the receiver at once with @reason (a check above the core, such as
 * the stream's digest): an answer queued and not yet polled is withdrawn,
 * nothing more is sent, and its data must not be used. */
void rmtp_receiver_abort (RmtpReceiver * r, RmtpFailReason reason);
/* The session of the CONN taken; 0 before one. */
guint32 rmtp_receiver_session (const RmtpReceiver * r);
/* The data set's size and SHA-256 from the CONN taken; FALSE before one. */
gboolean rmtp_receiver_data_set (const RmtpReceiver * r, guint64 * size,
    const guint8 ** digest);

/* parity_decode_apart: a block's decode, taken from the receiver that
 * made it. It holds its own references to the block's packets and rows,
 * so running it touches nothing else: any thread may run it while the
 * receiver goes on. Give it back to the same receiver (it takes the
 * rebuilt packets and frees the job); a receiver freed meanwhile is
 * replaced by rmtp_decode_job_free. */
typedef struct _RmtpDecodeJob RmtpDecodeJob;

/* The next block ready to decode; NULL if none (call after each
 * handle, handle_bytes and handle_timeout). */
RmtpDecodeJob *rmtp_receiver_take_decode_job (RmtpReceiver * r);
/* Rebuilds the lost packets (thread-safe; the CPU-heavy part). */
void rmtp_decode_job_run (RmtpDecodeJob * job);
/* Hands a run job back: its packets are taken if its block still
 * needs them, then delivered in order; frees @job. A job that is not
 * this receiver's pending one is counted (decode_jobs_dropped) and freed. */
void rmtp_receiver_decode_done (RmtpReceiver * r, RmtpDecodeJob * job);
void rmtp_decode_job_free (RmtpDecodeJob * job);

G_END_DECLS

#endif /* __RMTP_CORE_H__ */
