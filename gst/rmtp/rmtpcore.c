/* RMTP server and receiver cores. See rmtpcore.h and docs/protocols/rmtp.md.
 */
#include "rmtpcore.h"

#include <string.h>

#include "core/erasure.h"
#include "core/erasure16.h"
#include "core/polled.h"
#include "core/wire.h"
#include "rmtpdigest.h"

#define US (G_GINT64_CONSTANT (1000))
#define MS (G_GINT64_CONSTANT (1000000))
#define S (G_GINT64_CONSTANT (1000000000))
#define RMTP_MAGIC 0x524d       /* "RM" */

void
rmtp_config_init (RmtpConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->packet_size = 1024;
  cfg->delta = 2 * MS;
  cfg->tat = 100 * MS;
  cfg->alpha = 50 * MS;
  cfg->max_polls = 3;
  cfg->max_conn_retries = 3;
  cfg->max_rel_retries = 3;
  cfg->gone_rel_retries = 3;
  cfg->max_separate_rounds = 20;
  cfg->slow_loss = 0.5;
  cfg->slow_factor = 3.0;
  cfg->slow_rounds = 2;
  cfg->slow_min_packets = 16;
  cfg->rate = 8000000;
  cfg->min_rate = 256000;
  cfg->max_rate = 100000000;
  cfg->rate_control = FALSE;
  cfg->monitor_packets = 256;
  cfg->reporters = 32;
  cfg->decrease_below = 0.95;
  cfg->increase_above = 0.995;
  cfg->decrease_factor = 0.8;
  cfg->increase_factor = 1.05;
  cfg->receiver_timeout = 30 * S;
  cfg->connect_timeout = 60 * S;
  cfg->busy_poll_interval = 1 * S;
  cfg->max_total_size = 128 * G_GUINT64_CONSTANT (1024) * 1024;
  cfg->repair = RMTP_REPAIR_RETRANSMIT;
  cfg->parity_block = 128;
  cfg->parity_surplus = TRUE;
  cfg->control_copies = 3;
  cfg->release_on_ack = FALSE;
  cfg->early_repair = FALSE;
  cfg->conn_retry_backoff = FALSE;
  cfg->conn_retry_storm = 0;
  cfg->parity_incremental = TRUE;
  cfg->parity_expect_rows = FALSE;
  cfg->parity_decode_apart = FALSE;
  cfg->parity_incremental_batch = 16;
  cfg->parity_incremental_min_block = 1024;
}

/* ------------------------------------------------------------------ */
/* Wire */

#define RMTP_STREAM_TRAILER 13      /* window u32, offset u64, flags u8 */
#define RMTP_STREAM_LAST 0x01

/* The trailer's size: the last window's also carries the stream's SHA-256. */
static gsize
stream_trailer_size (gboolean last)
{
  return RMTP_STREAM_TRAILER + (last ? RMTP_DIGEST_SIZE : 0);
}

/* A CONN ends after its members (a data set) or with a stream window's
 * trailer. */
static gboolean
parse_stream_trailer (WireReader * r, RmtpPacket * p)
{
  guint8 flags;

  if (r->failed || wire_reader_remaining (r) == 0)
    return !r->failed;
  p->stream = TRUE;
  p->window = wire_read_u32 (r);
  p->offset = wire_read_u64 (r);
  flags = wire_read_u8 (r);
  p->last = flags & RMTP_STREAM_LAST;
  if (p->last)
    p->stream_digest = wire_read_bytes (r, RMTP_DIGEST_SIZE);
  return !r->failed && (flags & ~RMTP_STREAM_LAST) == 0 &&
      p->offset <= G_MAXUINT64 - p->total_size;
}

static gboolean
parse_conn (WireReader * r, RmtpPacket * p)
{
  p->total_size = wire_read_u64 (r);
  p->packet_size = wire_read_u32 (r);
  p->n_packets = wire_read_u32 (r);
  p->delta_us = wire_read_u32 (r);
  p->window_us = wire_read_u32 (r);
  p->reporters = wire_read_u32 (r);
  p->parity_block = wire_read_u32 (r);
  p->digest = wire_read_bytes (r, RMTP_DIGEST_SIZE);
  p->n_members = wire_read_u32 (r);
  if (r->failed || p->n_members == 0 || p->n_members > RMTP_MAX_MEMBERS)
    return FALSE;
  p->members = wire_read_bytes (r, (gsize) p->n_members * 4);
  if (!parse_stream_trailer (r, p))
    return FALSE;
  if (p->packet_size == 0 || p->packet_size > RMTP_MAX_PACKET_SIZE ||
      p->parity_block > ERASURE16_MAX_BLOCK)
    return FALSE;
  return p->n_packets == (p->total_size + p->packet_size - 1) /
      p->packet_size && p->total_size > 0;
}

static gboolean
parse_body (WireReader * r, RmtpPacket * p)
{
  switch (p->type) {
    case RMTP_CONN:
      return parse_conn (r, p);
    case RMTP_CONN_RETRY:
      p->type = RMTP_CONN;
      p->retry = TRUE;
      return parse_conn (r, p) && p->n_members == 1;
    case RMTP_CACK:
      p->member = wire_read_u32 (r);
      p->yes = wire_read_u8 (r);
      return p->yes <= 1;
    case RMTP_DATA:
      p->round = wire_read_u32 (r);
      p->seq = wire_read_u32 (r);
      p->flags = wire_read_u8 (r);
      p->payload_len = wire_reader_remaining (r);
      p->payload = wire_read_bytes (r, p->payload_len);
      return p->payload_len > 0;
    case RMTP_EOR:
      p->round = wire_read_u32 (r);
      p->window_us = wire_read_u32 (r);
      return TRUE;
    case RMTP_PARITY:
    case RMTP_PARITY16:
      p->round = wire_read_u32 (r);
      p->block = wire_read_u32 (r);
      p->row = p->type == RMTP_PARITY ? wire_read_u8 (r) : wire_read_u16 (r);
      p->payload_len = wire_reader_remaining (r);
      p->payload = wire_read_bytes (r, p->payload_len);
      return p->payload_len > 0;
    case RMTP_NACK:
      p->member = wire_read_u32 (r);
      p->round = wire_read_u32 (r);
      p->n_ranges = wire_read_u32 (r);
      /* no ranges: nothing to repair, not verified yet (a decode under
       * way, parity_decode_apart) */
      if (r->failed || p->n_ranges > RMTP_MAX_RANGES)
        return FALSE;
      p->ranges = wire_read_bytes (r, (gsize) p->n_ranges * 8);
      return TRUE;
    case RMTP_ACK:
      p->member = wire_read_u32 (r);
      p->round = wire_read_u32 (r);
      return TRUE;
    case RMTP_POLL:
      p->member = wire_read_u32 (r);
      p->round = wire_read_u32 (r);
      p->window_us = wire_read_u32 (r);
      return TRUE;
    case RMTP_REL:
      p->round = wire_read_u32 (r);
      p->window_us = wire_read_u32 (r);
      return TRUE;
    case RMTP_RACK:
    case RMTP_BUSY:
    case RMTP_RRDY:
      p->member = wire_read_u32 (r);
      return TRUE;
    case RMTP_REPORT:
      p->member = wire_read_u32 (r);
      p->monitor = wire_read_u32 (r);
      p->received = wire_read_u32 (r);
      return TRUE;
    case RMTP_DROP:
      p->window = wire_read_u32 (r);
      return TRUE;
  }
  return FALSE;
}

gboolean
rmtp_packet_parse (const guint8 * data, gsize len, RmtpPacket * pkt)
{
  WireReader r;

  memset (pkt, 0, sizeof (*pkt));
  wire_reader_init (&r, data, len);
  if (wire_read_u16 (&r) != RMTP_MAGIC || wire_read_u8 (&r) != RMTP_VERSION)
    return FALSE;
  pkt->type = wire_read_u8 (&r);
  pkt->session = wire_read_u32 (&r);
  if (r.failed || !parse_body (&r, pkt))
    return FALSE;
  /* a packet is exactly its fields: trailing bytes make it malformed */
  return !r.failed && wire_reader_remaining (&r) == 0;
}

guint32
rmtp_packet_member (const RmtpPacket * pkt, guint i)
{
  return i < pkt->n_members ? read32 (pkt->members + 4 * i) : 0;
}

RmtpRange
rmtp_packet_range (const RmtpPacket * pkt, guint i)
{
  RmtpRange rg = { 0, 0 };

  if (i < pkt->n_ranges) {
    rg.first = read32 (pkt->ranges + 8 * i);
    rg.count = read32 (pkt->ranges + 8 * i + 4);
  }
  return rg;
}

static void
write_header (WireWriter * w, RmtpType type, guint32 session)
{
  wire_write_u16 (w, RMTP_MAGIC);
  wire_write_u8 (w, RMTP_VERSION);
  wire_write_u8 (w, type);
  wire_write_u32 (w, session);
}

static void
queue_datagram (GQueue * q, guint32 to, guint8 * buf, WireWriter * w)
{
  RmtpDatagram *d = polled_push (q, sizeof (RmtpDatagram));

  g_assert (!w->failed);
  d->to = to;
  d->bytes = g_bytes_new_take (buf, w->pos);
}

static void
queue_member_packet (GQueue * q, guint32 to, RmtpType type, guint32 session,
    guint32 member, const guint32 * extra, guint n_extra)
{
  guint8 *buf = g_malloc (RMTP_HEADER_SIZE + 4 + 4 * n_extra);
  WireWriter w;

  wire_writer_init (&w, buf, RMTP_HEADER_SIZE + 4 + 4 * n_extra);
  write_header (&w, type, session);
  wire_write_u32 (&w, member);
  for (guint i = 0; i < n_extra; i++)
    wire_write_u32 (&w, extra[i]);
  queue_datagram (q, to, buf, &w);
}

/* Queues the last datagram @copies - 1 times more. */
static void
repeat_last_datagram (GQueue * q, guint copies)
{
  const RmtpDatagram *last = g_queue_peek_tail (q);

  for (guint i = 1; last && i < copies; i++) {
    RmtpDatagram *d = polled_push (q, sizeof (RmtpDatagram));

    d->to = last->to;
    d->bytes = g_bytes_ref (last->bytes);
  }
}

/* DATA and PARITY are media: never sealed (docs/security.md). */
static gboolean
is_media (const guint8 * data, gsize len)
{
  return len > 3 && (data[3] == RMTP_DATA || data[3] == RMTP_PARITY ||
      data[3] == RMTP_PARITY16);
}

/* With a key, a control datagram leaves with the auth trailer. */
static void
seal_datagram (AuthSession * auth, RmtpDatagram * d)
{
  gsize len;
  const guint8 *src = g_bytes_get_data (d->bytes, &len);
  guint8 *buf;

  if (!auth || is_media (src, len))
    return;
  buf = g_malloc (len + AUTH_TRAILER_SIZE);
  memcpy (buf, src, len);
  len = auth_seal (auth, buf, len, len + AUTH_TRAILER_SIZE);
  g_bytes_unref (d->bytes);
  d->bytes = g_bytes_new_take (buf, len);
}

/* Without a key, TRUE; with one, whether the datagram opens (counted by
 * verdict), *@len then the length of the packet inside. */
static gboolean
open_control (AuthSession * auth, const guint8 * data, gsize * len,
    gint64 now)
{
  return !auth || auth_open (auth, data, *len, now, len, NULL) == AUTH_OK;
}

static void
clear_datagrams (GQueue * q)
{
  RmtpDatagram d;

  while (polled_pop (q, &d, sizeof (d)))
    g_bytes_unref (d.bytes);
}

static void
clear_events (GQueue * q)
{
  RmtpEvent e;

  while (polled_pop (q, &e, sizeof (e)))
    if (e.data)
      g_bytes_unref (e.data);
}

static RmtpEvent *
push_event (GQueue * q, RmtpEventType type)
{
  RmtpEvent *e = polled_push (q, sizeof (RmtpEvent));

  e->type = type;
  return e;
}

/* ------------------------------------------------------------------ */
/* Parity blocks: block b holds data packets b x k .. b x k + k - 1 (the
 * last one fewer); its parity packets are as long as its first packet. */

static guint32
block_count (guint32 n_packets, guint k)
{
  return k ? (guint32) (((guint64) n_packets + k - 1) / k) : 0;
}

static guint
block_size (guint32 n_packets, guint k, guint32 b)
{
  return (guint) MIN ((guint64) k, n_packets - (guint64) b * k);
}

/* ------------------------------------------------------------------ */
/* Server */

typedef enum {
  MEMBER_UNCONNECTED,
  MEMBER_CONNECTED,
  MEMBER_REFUSED,
  MEMBER_ACKED,
  MEMBER_UNHEARD,               /* no CACK through every CONN retry */
  MEMBER_GONE,                  /* unicast recovery failed */
} MemberState;

typedef struct {
  guint32 id;
  MemberState state;
  gboolean slow;                /* BUSY, or detected: separate retransmission */
  gboolean busy;                /* declared BUSY, no RRDY yet */
  gboolean released;            /* RACK taken */
  guint tries;                  /* CONN / POLL / REL retries in this step */
  gint64 rel_due;               /* RELEASE, GONE: its next unicast REL, or
                                 * the end of the wait for its RACK */
  gint64 responded_round;       /* -1 before the first */
  GArray *missing;              /* RmtpRange of the last NACK; NULL: all */
  gint64 missing_round;         /* the round that NACK answered; -1 */
  guint separate_rounds;
  guint64 needed;               /* packets missing before this round */
  gboolean unmeasurable;        /* BUSY since its last measure: what it
                                 * lacks it dropped itself */
  gdouble loss;                 /* fraction of them lost; < 0: not known */
  gint64 measured_round;        /* the round @loss is from */
  guint lossy_rounds;           /* multicast rounds running judged slow */
  guint64 rate;                 /* what its losses show it takes, bit/s */
  gboolean bound;               /* a CACK from an unknown source named it */
  gint64 reported_stop;         /* the STOP its last REPORT was for; -1 */
  gint64 planned_round;         /* early_repair: the round whose NACK is
                                 * planned into the next round; -1 */
} Member;

typedef struct {
  guint32 block;
  guint16 row;
} ParityItem;

struct _RmtpServer {
  RmtpConfig cfg;
  RandomSource rng;
  guint32 session;
  GBytes *data;
  guint64 total;
  guint32 n_packets;
  guint8 digest[RMTP_DIGEST_SIZE];
  Member *members;
  guint n_members;
  GHashTable *index;            /* member id -> index + 1 */

  RmtpServerPhase phase;
  Pacer pacer;
  gint64 timer;                 /* G_MAXINT64: none */
  GQueue out, events;

  /* the current multicast or unicast round */
  guint round;
  GArray *send;                 /* guint32 seqs left to send this round */
  guint send_pos;
  guint32 send_to;              /* RMTP_TO_GROUP or a slow member */
  gboolean waiting;             /* EOR sent, collecting answers */
  guint8 *need;                 /* union of this round's NACKs */
  GArray *round_responses;      /* guint per round */
  guint current_slow;           /* index of the member served by unicast */

  /* repair by parity (parity_block 0: by retransmission) */
  guint parity_block;
  guint32 n_blocks;
  guint16 *next_row;            /* per block: its next parity row */
  guint32 *block_need;          /* per block: parity packets this round */
  guint32 *block_lost;          /* per block: one member's losses */
  guint32 *block_queued;        /* early_repair, per block: rows of the
                                 * next round queued ... */
  guint32 *block_sent;          /* ... and sent, while answers come in */
  gboolean *block_short;        /* ... its unused rows ran out */
  GArray *parity;               /* ParityItem left to send this round */
  guint parity_pos;

  /* monitor-based rate control */
  guint monitor_left;           /* data packets until STOP */
  guint32 monitor_stop;         /* seq of the last STOP packet */
  gboolean monitor_open;        /* a period ended, its reports count */
  gint64 busy_wait_until;       /* SEPARATE: give up on BUSY members then */
  gint64 rel_at;                /* SEPARATE: next REL to those waiting */
  gint64 round_hold;            /* no EOR before this (empty_round_wait) */
  guint empty_run;              /* EOR-only rounds running */
  guint64 monitor_sum, monitor_reports;
  guint64 bytes_sent;

  /* streaming mode: this data set is a window of a stream */
  gboolean stream;
  guint32 window;
  guint64 offset;
  gboolean last;
  guint8 stream_digest[RMTP_DIGEST_SIZE];       /* last: the whole stream's */

  RmtpServerStats stats;
  AuthSession *auth;            /* NULL: no key */
};

static void server_begin_round (RmtpServer * s, gint64 now);
static void server_begin_separate (RmtpServer * s, gint64 now);
static void server_begin_release (RmtpServer * s, gint64 now);

static guint32
packet_len (guint64 total, guint packet_size, guint32 seq)
{
  guint64 off = (guint64) seq * packet_size;

  return (guint32) MIN ((guint64) packet_size, total - off);
}

/* Blocks of up to 255 packets take the GF(2^8) code (PARITY), larger
 * ones GF(2^16) (PARITY16), whose 16-bit symbols make its rows as long as
 * the block's first packet rounded up to even. */
static gboolean
wide_code (guint parity_block)
{
  return parity_block > ERASURE_MAX_BLOCK;
}

static guint
code_rows (guint parity_block, guint k)
{
  return wide_code (parity_block) ? erasure16_rows (k) : erasure_rows (k);
}

static gsize
code_len (guint parity_block, gsize plen)
{
  return wide_code (parity_block) ? plen + (plen & 1) : plen;
}

static gboolean
code_encode (guint parity_block, guint k, const guint8 * const *data,
    gsize len, guint row, guint8 * parity)
{
  return wide_code (parity_block) ?
      erasure16_encode (k, data, len, row, parity) :
      erasure_encode (k, data, len, row, parity);
}

static gboolean
code_decode (guint parity_block, guint k, guint8 ** data,
    const gboolean * have, gsize len, guint n, const guint * rows,
    const guint8 * const *parity)
{
  return wide_code (parity_block) ?
      erasure16_decode (k, data, have, len, n, rows, parity) :
      erasure_decode (k, data, have, len, n, rows, parity);
}

static gboolean
server_init_parity (RmtpServer * s)
{
  if (s->cfg.parity_block == 0 || s->cfg.parity_block > ERASURE16_MAX_BLOCK)
    return FALSE;
  s->parity_block = s->cfg.parity_block;
  s->n_blocks = block_count (s->n_packets, s->parity_block);
  s->next_row = g_new0 (guint16, s->n_blocks);
  s->block_need = g_new0 (guint32, s->n_blocks);
  s->block_lost = g_new0 (guint32, s->n_blocks);
  s->block_queued = g_new0 (guint32, s->n_blocks);
  s->block_sent = g_new0 (guint32, s->n_blocks);
  s->block_short = g_new0 (gboolean, s->n_blocks);
  s->parity = g_array_new (FALSE, FALSE, sizeof (ParityItem));
  return TRUE;
}

RmtpServer *
rmtp_server_new (const RmtpConfig * cfg, guint32 session,
    const guint32 * members, guint n_members, GBytes * data,
    const RandomSource * rng)
{
  guint8 digest[RMTP_DIGEST_SIZE];
  RmtpDigest *ck = rmtp_digest_new ();

  if (data)
    rmtp_digest_update (ck, g_bytes_get_data (data, NULL),
        g_bytes_get_size (data));
  rmtp_digest_finish (ck, digest);
  rmtp_digest_free (ck);
  return rmtp_server_new_digested (cfg, session, members, n_members, data,
      digest, rng);
}

RmtpServer *
rmtp_server_new_digested (const RmtpConfig * cfg, guint32 session,
    const guint32 * members, guint n_members, GBytes * data,
    const guint8 * digest, const RandomSource * rng)
{
  RmtpServer *s;
  gsize size;

  size = data ? g_bytes_get_size (data) : 0;
  if (size == 0 || n_members == 0 || n_members > RMTP_MAX_MEMBERS ||
      cfg->packet_size == 0 || cfg->packet_size > RMTP_MAX_PACKET_SIZE ||
      (size + cfg->packet_size - 1) / cfg->packet_size > G_MAXUINT32)
    return NULL;
  s = g_new0 (RmtpServer, 1);
  s->cfg = *cfg;
  s->rng = *rng;
  s->session = session;
  s->data = g_bytes_ref (data);
  s->total = size;
  s->n_packets = (size + cfg->packet_size - 1) / cfg->packet_size;
  memcpy (s->digest, digest, RMTP_DIGEST_SIZE);
  s->index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->members = g_new0 (Member, n_members);
  for (guint i = 0; i < n_members; i++) {
    if (members[i] == 0 || g_hash_table_contains (s->index,
            GUINT_TO_POINTER (members[i]))) {
      rmtp_server_free (s);
      return NULL;
    }
    s->members[i].id = members[i];
    s->members[i].responded_round = -1;
    s->members[i].missing_round = -1;
    s->members[i].needed = (size + cfg->packet_size - 1) / cfg->packet_size;
    s->members[i].loss = -1.0;
    s->members[i].measured_round = -1;
    s->members[i].rate = cfg->rate;
    s->members[i].reported_stop = -1;
    s->members[i].planned_round = -1;
    g_hash_table_insert (s->index, GUINT_TO_POINTER (members[i]),
        GUINT_TO_POINTER (i + 1));
    s->n_members++;
  }
  if (cfg->repair == RMTP_REPAIR_PARITY && !server_init_parity (s)) {
    rmtp_server_free (s);
    return NULL;
  }
  pacer_init (&s->pacer, cfg->rate, cfg->send_burst);
  s->stats.rate = cfg->rate;
  s->timer = G_MAXINT64;
  s->send = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->need = g_new0 (guint8, s->n_packets);
  s->round_responses = g_array_new (FALSE, TRUE, sizeof (guint));
  g_queue_init (&s->out);
  g_queue_init (&s->events);
  return s;
}

void
rmtp_server_free (RmtpServer * s)
{
  if (!s)
    return;
  for (guint i = 0; i < s->n_members; i++)
    if (s->members[i].missing)
      g_array_unref (s->members[i].missing);
  g_free (s->members);
  g_hash_table_unref (s->index);
  g_bytes_unref (s->data);
  if (s->send)
    g_array_unref (s->send);
  g_free (s->need);
  g_free (s->next_row);
  g_free (s->block_need);
  g_free (s->block_lost);
  g_free (s->block_queued);
  g_free (s->block_sent);
  g_free (s->block_short);
  if (s->parity)
    g_array_unref (s->parity);
  if (s->round_responses)
    g_array_unref (s->round_responses);
  clear_datagrams (&s->out);
  clear_events (&s->events);
  auth_session_free (s->auth);
  g_free (s);
}

void
rmtp_server_set_key (RmtpServer * s, const AuthKey * key)
{
  auth_session_free (s->auth);
  /* every member, and one more for a member that restarts */
  s->auth = auth_session_new (key, (guint32) random_source_range (&s->rng, 1,
          G_MAXUINT32), s->n_members + 1);
}

gboolean
rmtp_server_auth_stats (const RmtpServer * s, AuthStats * st)
{
  if (s->auth)
    auth_session_get_stats (s->auth, st);
  return s->auth != NULL;
}

static Member *
server_member (RmtpServer * s, guint32 id)
{
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (s->index,
          GUINT_TO_POINTER (id)));

  return i ? &s->members[i - 1] : NULL;
}

static gint64
server_window (const RmtpServer * s, guint n)
{
  return s->cfg.delta * n;
}

/* Arms the response timer @wait after what is queued now has left: a
 * batch of unicast retries can take longer to send than a turn-around. */
static void
server_arm (RmtpServer * s, gint64 now, gint64 wait)
{
  guint64 bytes = 0;
  gint64 start = MAX (now, s->pacer.next_free);

  for (GList * l = s->out.head; l; l = l->next)
    bytes += g_bytes_get_size (((RmtpDatagram *) l->data)->bytes);
  s->timer = start + pacer_cost (bytes, s->pacer.rate) + wait;
}

/* The CONN to the group lists every member and spreads the CACKs over
 * @window, delta x N. A unicast retry to @only (a CONN_RETRY) lists only
 * that member, so a batch of retries stays small; its @window is 0 (an
 * answer at once) or, with conn_retry_backoff, delta x the members retried
 * in the batch, as a POLL's (from conn_retry_storm members on); it keeps
 * the member a representative (reporters 1, index 0) if it is one. */
static void
server_queue_conn (RmtpServer * s, const Member * only, gint64 window)
{
  guint n = only ? 1 : s->n_members;
  gsize len = RMTP_HEADER_SIZE + 68 + 4 * (gsize) n +
      (s->stream ? stream_trailer_size (s->last) : 0);
  guint32 reporters = s->cfg.reporters;
  guint8 *buf = g_malloc (len);
  WireWriter w;

  if (only)
    reporters = (guint) (only - s->members) < s->cfg.reporters;
  wire_writer_init (&w, buf, len);
  write_header (&w, only ? RMTP_CONN_RETRY : RMTP_CONN, s->session);
  wire_write_u64 (&w, s->total);
  wire_write_u32 (&w, s->cfg.packet_size);
  wire_write_u32 (&w, s->n_packets);
  wire_write_u32 (&w, (guint32) MIN (s->cfg.delta / US, G_MAXUINT32));
  wire_write_u32 (&w, (guint32) MIN (window / US, G_MAXUINT32));
  wire_write_u32 (&w, reporters);
  wire_write_u32 (&w, s->parity_block);
  wire_write_bytes (&w, s->digest, RMTP_DIGEST_SIZE);
  wire_write_u32 (&w, n);
  for (guint i = 0; i < n; i++)
    wire_write_u32 (&w, only ? only->id : s->members[i].id);
  if (s->stream) {
    wire_write_u32 (&w, s->window);
    wire_write_u64 (&w, s->offset);
    wire_write_u8 (&w, s->last ? RMTP_STREAM_LAST : 0);
    if (s->last)
      wire_write_bytes (&w, s->stream_digest, RMTP_DIGEST_SIZE);
  }
  queue_datagram (&s->out, only ? only->id : RMTP_TO_GROUP, buf, &w);
  s->stats.conn_sent++;
  if (!only)
    repeat_last_datagram (&s->out, s->cfg.control_copies);
}

static void
server_queue_round_packet (RmtpServer * s, guint32 to, RmtpType type,
    guint32 second)
{
  guint8 *buf = g_malloc (RMTP_HEADER_SIZE + 8);
  WireWriter w;

  wire_writer_init (&w, buf, RMTP_HEADER_SIZE + 8);
  write_header (&w, type, s->session);
  wire_write_u32 (&w, s->round);
  wire_write_u32 (&w, second);
  queue_datagram (&s->out, to, buf, &w);
}

void
rmtp_server_start (RmtpServer * s, gint64 now)
{
  if (s->phase != RMTP_SERVER_CONNECT || s->timer != G_MAXINT64)
    return;
  server_queue_conn (s, NULL, server_window (s, s->n_members));
  /* CACKs arrive over delta x N, then a turn-around and the surplus */
  server_arm (s, now, s->cfg.tat + server_window (s, s->n_members) +
      s->cfg.alpha);
}

static guint
count_members (const RmtpServer * s, MemberState state)
{
  guint n = 0;

  for (guint i = 0; i < s->n_members; i++)
    n += s->members[i].state == state;
  return n;
}

/* Members expected to answer this multicast round. */
static gboolean
member_active (const Member * m)
{
  return m->state == MEMBER_CONNECTED && !m->slow;
}

static void
server_fail (RmtpServer * s, RmtpFailReason reason)
{
  push_event (&s->events, RMTP_EVENT_FAILED)->reason = reason;
  s->phase = RMTP_SERVER_DONE;
  s->timer = G_MAXINT64;
}

/* Silent members with a CONN retry left; the others are given up. */
static guint
count_conn_retries (RmtpServer * s)
{
  guint n = 0;

  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];

    if (m->state != MEMBER_UNCONNECTED)
      continue;
    if (m->tries < s->cfg.max_conn_retries)
      n++;
    else
      m->state = MEMBER_UNHEARD;
  }
  return n;
}

/* The answer window of a batch of @retries CONN retries. A batch smaller
 * than conn_retry_storm is answered at once: a CONN lost to a few members
 * costs them no backoff, and at most that many CACKs come unspread. */
static gint64
server_conn_retry_window (const RmtpServer * s, guint retries)
{
  if (!s->cfg.conn_retry_backoff || retries < s->cfg.conn_retry_storm)
    return 0;
  return server_window (s, retries);
}

static void
server_connect_timeout (RmtpServer * s, gint64 now)
{
  guint retries = count_conn_retries (s);
  gint64 window = server_conn_retry_window (s, retries);

  for (guint i = 0; i < s->n_members && retries; i++) {
    Member *m = &s->members[i];

    if (m->state != MEMBER_UNCONNECTED)
      continue;
    m->tries++;
    server_queue_conn (s, m, window);
  }
  if (retries) {
    server_arm (s, now, s->cfg.tat + window + s->cfg.alpha);
    return;
  }
  if (count_members (s, MEMBER_CONNECTED) == 0) {
    server_fail (s, RMTP_FAIL_REFUSED);
    return;
  }
  for (guint i = 0; i < s->n_members; i++)
    s->members[i].tries = 0;
  for (guint32 q = 0; q < s->n_packets; q++)
    g_array_append_val (s->send, q);
  s->phase = RMTP_SERVER_ROUNDS;
  server_begin_round (s, now);
}

/* Opens round s->round on the lists as they are (with early_repair some
 * of its repairs went out while the round before took its answers). */
static void
server_open_round (RmtpServer * s)
{
  guint zero = 0;

  s->send_to = RMTP_TO_GROUP;
  s->waiting = FALSE;
  s->timer = G_MAXINT64;
  g_array_append_val (s->round_responses, zero);
  s->stats.rounds = s->round + 1;
  for (guint i = 0; i < s->n_members; i++)
    s->members[i].tries = 0;
}

static void
server_begin_round (RmtpServer * s, gint64 now)
{
  s->send_pos = 0;
  s->parity_pos = 0;
  memset (s->need, 0, s->n_packets);
  server_open_round (s);
}

/* early_repair: while a multicast round takes its answers, the repairs
 * each NACK asks for go out at once, as the next round's. */
static gboolean
server_repairs_early (const RmtpServer * s)
{
  return s->cfg.early_repair && s->phase == RMTP_SERVER_ROUNDS &&
      s->send_to == RMTP_TO_GROUP;
}

/* The round a DATA or PARITY queued now belongs to. */
static guint32
server_packet_round (const RmtpServer * s)
{
  return s->round + (s->waiting ? 1 : 0);
}

/* early_repair: the next round's lists start empty at the EOR. */
static void
server_clear_next_round (RmtpServer * s)
{
  g_array_set_size (s->send, 0);
  s->send_pos = 0;
  memset (s->need, 0, s->n_packets);
  if (!s->parity)
    return;
  g_array_set_size (s->parity, 0);
  s->parity_pos = 0;
  memset (s->block_queued, 0, s->n_blocks * sizeof (guint32));
  memset (s->block_sent, 0, s->n_blocks * sizeof (guint32));
  memset (s->block_short, 0, s->n_blocks * sizeof (gboolean));
}

static guint
active_unanswered (const RmtpServer * s)
{
  guint n = 0;

  for (guint i = 0; i < s->n_members; i++) {
    const Member *m = &s->members[i];

    n += member_active (m) && m->responded_round < (gint64) s->round;
  }
  return n;
}

/* The data of this round is out: tell receivers to answer within a window
 * sized by how many are expected to answer (delta x N_k). */
static void
server_end_of_data (RmtpServer * s, gint64 now)
{
  guint n = s->send_to == RMTP_TO_GROUP ? active_unanswered (s) : 1;
  gint64 window = s->send_to == RMTP_TO_GROUP ? server_window (s, n) : 0;

  server_queue_round_packet (s, s->send_to, RMTP_EOR,
      (guint32) MIN (window / US, G_MAXUINT32));
  s->stats.eor_sent++;
  if (s->send_to == RMTP_TO_GROUP)
    repeat_last_datagram (&s->out, s->cfg.control_copies);
  s->waiting = TRUE;
  if (server_repairs_early (s))
    server_clear_next_round (s);
  server_arm (s, now, s->cfg.tat + window + s->cfg.alpha);
}

static void
server_queue_rel (RmtpServer * s, guint32 to)
{
  gint64 window = to == RMTP_TO_GROUP ? server_window (s, s->n_members) : 0;

  server_queue_round_packet (s, to, RMTP_REL,
      (guint32) MIN (window / US, G_MAXUINT32));
  s->stats.rel_sent++;
  if (to == RMTP_TO_GROUP)
    repeat_last_datagram (&s->out, s->cfg.control_copies);
}

static guint64
missing_count (const Member * m, guint32 n_packets)
{
  guint64 n = 0;

  if (m->state == MEMBER_ACKED)
    return 0;
  if (!m->missing)
    return n_packets;
  for (guint i = 0; i < m->missing->len; i++)
    n += g_array_index (m->missing, RmtpRange, i).count;
  return n;
}

/* The rate a member takes, from the share @loss of what it was sent at
 * @sent_rate that it lost: with a margin below it when the loss is heavy,
 * a little above it when there was next to none. */
static guint64
server_rate_for_loss (const RmtpServer * s, guint64 sent_rate, gdouble loss)
{
  if (loss > 0.1)
    return MAX (s->cfg.min_rate, (guint64) (sent_rate * (1.0 - loss) * 0.9));
  if (loss < 0.02)
    return MIN (s->stats.rate, (guint64) (sent_rate *
            s->cfg.increase_factor));
  return sent_rate;
}

/* Measures, from @m's answer, the share of the packets it needed this
 * round that it lost (rounds with fewer than slow_min_packets needed are
 * too noisy to tell). */
static void
server_measure (RmtpServer * s, Member * m)
{
  guint64 left = missing_count (m, s->n_packets);

  if (m->unmeasurable) {
    /* its drops while BUSY are not the path's losses */
    m->unmeasurable = m->busy;
    m->needed = left;
    return;
  }
  if (m->needed >= s->cfg.slow_min_packets && m->needed > 0) {
    m->loss = MIN (1.0, (gdouble) left / m->needed);
    m->measured_round = s->round;
    m->rate = server_rate_for_loss (s, s->pacer.rate, m->loss);
  }
  m->needed = left;
}

/* The mean loss of the other members measured, in @mean; FALSE when no
 * other has been measured, so there is nothing to be far above. */
static gboolean
others_mean_loss (const RmtpServer * s, const Member * m, gdouble * mean)
{
  gdouble sum = 0.0;
  guint n = 0;

  for (guint i = 0; i < s->n_members; i++) {
    const Member *o = &s->members[i];

    if (o == m || o->slow || o->loss < 0 || (o->state != MEMBER_CONNECTED &&
            o->state != MEMBER_ACKED))
      continue;
    sum += o->loss;
    n++;
  }
  *mean = n ? sum / n : 0.0;
  return n > 0;
}

/* Separate retransmission of receivers the server detects as slow (3.2.2):
 * one whose loss stays far above the others' is set aside, so the
 * multicast rounds end when the others are complete. A member with no
 * measured other (a sole receiver) is never set aside: its losses are the
 * path's, and the rounds serve nobody else. */
static void
server_judge_losses (RmtpServer * s)
{
  if (s->cfg.slow_rounds == 0)
    return;
  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];
    gdouble others;

    if (!member_active (m) || m->measured_round != (gint64) s->round)
      continue;
    if (m->loss > s->cfg.slow_loss && others_mean_loss (s, m, &others) &&
        m->loss > s->cfg.slow_factor * others)
      m->lossy_rounds++;
    else
      m->lossy_rounds = 0;
    if (m->lossy_rounds >= s->cfg.slow_rounds) {
      m->slow = TRUE;
      s->stats.slow_receivers++;
      s->stats.slow_detected++;
    }
  }
}

/* The union of the ranges the members still in the rounds NACKed. */
static void
server_collect_need (RmtpServer * s)
{
  memset (s->need, 0, s->n_packets);
  for (guint i = 0; i < s->n_members; i++) {
    const Member *m = &s->members[i];

    if (!member_active (m) || m->responded_round != (gint64) s->round ||
        !m->missing)
      continue;
    for (guint j = 0; j < m->missing->len; j++) {
      RmtpRange rg = g_array_index (m->missing, RmtpRange, j);

      memset (s->need + rg.first, 1, rg.count);
    }
  }
}

/* Adds @m's losses in each block (its NACK's ranges) to block_lost. */
static void
server_count_block_losses (RmtpServer * s, const Member * m)
{
  for (guint i = 0; i < m->missing->len; i++) {
    RmtpRange rg = g_array_index (m->missing, RmtpRange, i);
    guint64 q = rg.first, end = (guint64) rg.first + rg.count;

    while (q < end) {
      guint32 b = (guint32) (q / s->parity_block);
      guint64 stop = MIN (end, (guint64) (b + 1) * s->parity_block);

      s->block_lost[b] += (guint32) (stop - q);
      q = stop;
    }
  }
}

/* A block whose fresh parity rows are too few for its worst receiver
 * (each row helps a receiver once) gets its NACKed packets again. */
static void
server_resend_block (RmtpServer * s, guint32 b)
{
  guint32 first = b * s->parity_block;
  guint k = block_size (s->n_packets, s->parity_block, b);

  for (guint32 q = first; q < first + k; q++)
    if (s->need[q])
      g_array_append_val (s->send, q);
  s->block_need[b] = 0;
}

/* Appends block_need[b] new rows of each block b to the parity list,
 * interleaved across the blocks. */
static void
server_queue_rows (RmtpServer * s)
{
  guint32 most = 0;

  for (guint32 b = 0; b < s->n_blocks; b++)
    most = MAX (most, s->block_need[b]);
  for (guint32 r = 0; r < most; r++)
    for (guint32 b = 0; b < s->n_blocks; b++) {
      ParityItem it = { b, s->next_row[b] };

      if (s->block_need[b] <= r)
        continue;
      g_array_append_val (s->parity, it);
      s->next_row[b]++;
    }
}

/* The parity rows that give @m its @lost rows back in one round at the
 * loss it showed (capped at one half), when parity_surplus is on. */
static guint32
parity_for (const RmtpServer * s, const Member * m, guint32 lost)
{
  gdouble loss = MIN (MAX (m->loss, 0.0), 0.5);

  if (!s->cfg.parity_surplus || lost == 0)
    return lost;
  return (guint32) (lost / (1.0 - loss) + 0.999);
}

/* Repair by parity (ours): each block gets as many new parity rows as the
 * worst receiver lacks in it, so one parity packet repairs a different
 * loss at each receiver. Rows go out interleaved across the blocks. */
static void
server_plan_parity (RmtpServer * s)
{
  g_array_set_size (s->parity, 0);
  server_collect_need (s);
  memset (s->block_need, 0, s->n_blocks * sizeof (guint32));
  for (guint i = 0; i < s->n_members; i++) {
    const Member *m = &s->members[i];

    if (!member_active (m) || m->responded_round != (gint64) s->round ||
        !m->missing)
      continue;
    memset (s->block_lost, 0, s->n_blocks * sizeof (guint32));
    server_count_block_losses (s, m);
    for (guint32 b = 0; b < s->n_blocks; b++)
      s->block_need[b] = MAX (s->block_need[b], parity_for (s, m,
              s->block_lost[b]));
  }
  for (guint32 b = 0; b < s->n_blocks; b++) {
    guint rows = code_rows (s->parity_block, block_size (s->n_packets,
            s->parity_block, b));

    if (s->block_need[b] > rows - s->next_row[b])
      server_resend_block (s, b);
  }
  server_queue_rows (s);
}

/* Marks @m's NACKed packets in need; with @queue, appends those no NACK
 * of this round asked for yet to the send list. */
static void
server_mark_need (RmtpServer * s, const Member * m, gboolean queue)
{
  for (guint i = 0; i < m->missing->len; i++) {
    RmtpRange rg = g_array_index (m->missing, RmtpRange, i);

    for (guint32 q = rg.first; q - rg.first < rg.count; q++) {
      if (s->need[q])
        continue;
      s->need[q] = 1;
      if (queue)
        g_array_append_val (s->send, q);
    }
  }
}

/* The rows of block @b in the next round that @m's NACK has not counted.
 * An answer to the EOR lists what was missing at the EOR, before any of
 * them; one to a POLL may have counted those sent already. */
static guint32
server_rows_to_come (const RmtpServer * s, const Member * m, guint32 b)
{
  if (m->tries == 0)
    return s->block_queued[b];
  return s->block_queued[b] > s->block_sent[b] ?
      s->block_queued[b] - s->block_sent[b] : 0;
}

/* early_repair: the rows @m's NACK needs beyond those of its blocks it
 * has not counted. A block out of unused rows is resent when the round
 * closes. */
static void
server_plan_member_parity (RmtpServer * s, const Member * m)
{
  memset (s->block_lost, 0, s->n_blocks * sizeof (guint32));
  server_count_block_losses (s, m);
  for (guint32 b = 0; b < s->n_blocks; b++) {
    guint rows = code_rows (s->parity_block, block_size (s->n_packets,
            s->parity_block, b));
    guint32 supply = server_rows_to_come (s, m, b);
    guint32 want = parity_for (s, m, s->block_lost[b]);
    guint32 add = want > supply ? want - supply : 0;

    if (add > rows - s->next_row[b]) {
      s->block_short[b] = TRUE;
      add = 0;
    }
    s->block_need[b] = add;
    s->block_queued[b] += add;
  }
  server_queue_rows (s);
}

static void
server_plan_early (RmtpServer * s, Member * m)
{
  m->planned_round = s->round;
  server_mark_need (s, m, s->parity_block == 0);
  if (s->parity_block)
    server_plan_member_parity (s, m);
}

/* A NACK whose loss share may make its member slow waits for the round's
 * end, where slow members' NACKs are left out. */
static gboolean
server_may_be_slow (const RmtpServer * s, const Member * m)
{
  return s->cfg.slow_rounds > 0 && m->measured_round == (gint64) s->round
      && m->loss > s->cfg.slow_loss;
}

/* early_repair, at the round's end: the NACKs not planned yet (held back
 * as above) and the blocks that ran out of rows. */
static void
server_plan_rest (RmtpServer * s)
{
  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];

    if (member_active (m) && m->responded_round == (gint64) s->round &&
        m->missing && m->planned_round != (gint64) s->round)
      server_plan_early (s, m);
  }
  for (guint32 b = 0; s->parity && b < s->n_blocks; b++)
    if (s->block_short[b])
      server_resend_block (s, b);
}

/* A member of the multicast rounds whose NACK of this round listed
 * nothing: it holds the parity it needs and is still decoding. */
static gboolean
server_members_decoding (const RmtpServer * s)
{
  for (guint i = 0; i < s->n_members; i++) {
    const Member *m = &s->members[i];

    if (m->state == MEMBER_CONNECTED && !m->slow && m->missing &&
        m->missing->len == 0 && m->missing_round == (gint64) s->round)
      return TRUE;
  }
  return FALSE;
}

/* An EOR-only round asks members still decoding again; their answers
 * come within the window, so unheld such rounds follow one another every
 * window and turn-around (about 26 ms with 4 receivers) for the whole
 * decode. With empty_round_wait each waits twice the one before. */
static void
server_hold_empty_round (RmtpServer * s, gint64 now)
{
  gint64 wait = s->cfg.empty_round_wait << MIN (s->empty_run, 20);

  s->empty_run++;
  s->round_hold = now + MIN (wait, s->cfg.busy_poll_interval);
}

static void
server_next_multicast_round (RmtpServer * s, gint64 now)
{
  gboolean acked = FALSE;

  server_judge_losses (s);
  if (s->cfg.early_repair) {
    server_plan_rest (s);
  } else if (s->parity_block) {
    g_array_set_size (s->send, 0);
    server_plan_parity (s);
  } else {
    g_array_set_size (s->send, 0);
    server_collect_need (s);
    for (guint32 q = 0; q < s->n_packets; q++)
      if (s->need[q])
        g_array_append_val (s->send, q);
  }
  for (guint i = 0; i < s->n_members; i++)
    acked |= s->members[i].state == MEMBER_ACKED && !s->members[i].released;
  /* REL after each round releases those already complete (3.2.1); with
   * release_on_ack each has had its own */
  if (acked && !s->cfg.release_on_ack)
    server_queue_rel (s, RMTP_TO_GROUP);
  if (s->send->len == 0 && (!s->parity || s->parity->len == 0)) {
    if (!server_members_decoding (s)) {
      server_begin_separate (s, now);
      return;
    }
    s->stats.empty_rounds++;
    server_hold_empty_round (s, now);
  } else {
    s->empty_run = 0;
  }
  s->round++;
  if (s->cfg.early_repair)
    server_open_round (s);
  else
    server_begin_round (s, now);
}

static void
server_emit_progress (RmtpServer * s)
{
  RmtpEvent *e = push_event (&s->events, RMTP_EVENT_PROGRESS);

  e->bytes = s->bytes_sent;
  e->round = s->round;
  e->receivers_complete = count_members (s, MEMBER_ACKED);
}

static void
server_queue_poll (RmtpServer * s, Member * m, gint64 window)
{
  guint32 extra[2] = { s->round, (guint32) MIN (window / US, G_MAXUINT32) };

  m->tries++;
  queue_member_packet (&s->out, m->id, RMTP_POLL, s->session, m->id, extra,
      2);
  s->stats.polls_sent++;
}

static void
server_poll_silent (RmtpServer * s, Member * m, gint64 window)
{
  if (m->tries < s->cfg.max_polls) {
    server_queue_poll (s, m, window);
  } else if (!m->slow) {
    /* silent after every POLL: served by unicast after the rounds */
    m->slow = TRUE;
    s->stats.slow_receivers++;
  }
}

/* The silent are POLLed together, so their answers too are spread over
 * delta x N'_k (the paper's second backoff). */
static void
server_round_timeout (RmtpServer * s, gint64 now)
{
  gboolean polled = FALSE;
  gint64 window = server_window (s, active_unanswered (s));

  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];

    if (member_active (m) && m->responded_round < (gint64) s->round) {
      server_poll_silent (s, m, window);
      polled |= !m->slow;
    }
  }
  server_emit_progress (s);
  if (polled) {
    server_arm (s, now, s->cfg.tat + window + s->cfg.alpha);
    return;
  }
  server_next_multicast_round (s, now);
}

/* Unicast recovery of slow members, one at a time, once every multicast
 * round is over; BUSY members wait for their RRDY. */
static Member *
server_pick_slow (RmtpServer * s)
{
  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];

    if (m->state == MEMBER_CONNECTED && m->slow && !m->busy) {
      s->current_slow = i;
      return m;
    }
  }
  return NULL;
}

static gboolean
server_any_busy (const RmtpServer * s)
{
  for (guint i = 0; i < s->n_members; i++)
    if (s->members[i].state == MEMBER_CONNECTED && s->members[i].busy)
      return TRUE;
  return FALSE;
}

static void
server_fill_missing (RmtpServer * s, const Member * m)
{
  g_array_set_size (s->send, 0);
  if (s->parity)
    g_array_set_size (s->parity, 0);
  /* never NACKed: an EOR alone asks what it is missing */
  if (!m->missing)
    return;
  for (guint i = 0; i < m->missing->len; i++) {
    RmtpRange rg = g_array_index (m->missing, RmtpRange, i);

    for (guint32 q = rg.first; q - rg.first < rg.count; q++)
      g_array_append_val (s->send, q);
  }
}

/* Only BUSY members are left: POLL them every busy_poll_interval (a lost
 * RRDY is then answered by a NACK), at most receiver_timeout in all. */
static void
server_wait_busy (RmtpServer * s, gint64 now)
{
  s->send_to = RMTP_TO_GROUP;
  g_array_set_size (s->send, 0);
  pacer_set_rate (&s->pacer, s->stats.rate);
  if (s->busy_wait_until == 0)
    s->busy_wait_until = now + s->cfg.receiver_timeout;
  if (now >= s->busy_wait_until) {
    for (guint i = 0; i < s->n_members; i++)
      if (s->members[i].state == MEMBER_CONNECTED && s->members[i].busy)
        s->members[i].state = MEMBER_GONE;
    server_begin_release (s, now);
    return;
  }
  for (guint i = 0; i < s->n_members; i++)
    if (s->members[i].state == MEMBER_CONNECTED && s->members[i].busy)
      server_queue_poll (s, &s->members[i], 0);
  s->timer = MIN (now + s->cfg.busy_poll_interval, s->busy_wait_until);
}

static void
server_begin_separate (RmtpServer * s, gint64 now)
{
  Member *m;

  if (s->phase != RMTP_SERVER_SEPARATE)
    s->rel_at = now + s->cfg.busy_poll_interval;
  s->phase = RMTP_SERVER_SEPARATE;
  s->waiting = FALSE;
  m = server_pick_slow (s);
  if (!m) {
    if (server_any_busy (s)) {
      server_wait_busy (s, now);
      return;
    }
    server_begin_release (s, now);
    return;
  }
  if (m->separate_rounds++ >= s->cfg.max_separate_rounds) {
    m->state = MEMBER_GONE;
    server_begin_separate (s, now);
    return;
  }
  s->round++;
  server_begin_round (s, now);
  s->send_to = m->id;
  server_fill_missing (s, m);
  m->tries = 0;
  /* unicast at the rate its losses showed it takes, not the group's */
  pacer_set_rate (&s->pacer, m->rate);
}

static void
server_separate_timeout (RmtpServer * s, gint64 now)
{
  Member *m;

  if (!s->waiting) {
    server_wait_busy (s, now);
    return;
  }
  m = &s->members[s->current_slow];
  if (m->state == MEMBER_CONNECTED && !m->busy && m->tries <
      s->cfg.max_polls) {
    server_queue_poll (s, m, 0);
    server_arm (s, now, s->cfg.tat + s->cfg.alpha);
    return;
  }
  if (m->state == MEMBER_CONNECTED && !m->busy)
    m->state = MEMBER_GONE;
  server_begin_separate (s, now);
}

static gboolean
server_all_released (const RmtpServer * s)
{
  for (guint i = 0; i < s->n_members; i++)
    if (s->members[i].state == MEMBER_ACKED && !s->members[i].released)
      return FALSE;
  return TRUE;
}

/* Whether the release still has a REL to send to given-up member @m, or
 * waits for its RACK to the last one. */
static gboolean
server_gone_rel_pending (const RmtpServer * s, const Member * m, gint64 now)
{
  return m->state == MEMBER_GONE && (m->tries < s->cfg.gone_rel_retries ||
      now < m->rel_due);
}

/* The release is over once every complete member RACKed and each member
 * given up has had its RELs and their waits. */
static gboolean
server_release_over (const RmtpServer * s, gint64 now)
{
  if (!server_all_released (s))
    return FALSE;
  for (guint i = 0; i < s->n_members; i++)
    if (server_gone_rel_pending (s, &s->members[i], now))
      return FALSE;
  return TRUE;
}

static void server_finish (RmtpServer * s);

/* release_on_ack: every complete member has had its REL already; the
 * RACKs still out come within a turn-around, else the retries follow. */
static void
server_await_racks (RmtpServer * s, gint64 now)
{
  if (server_release_over (s, now))
    server_finish (s);
  else
    server_arm (s, now, s->cfg.tat + s->cfg.alpha);
}

static void
server_begin_release (RmtpServer * s, gint64 now)
{
  s->phase = RMTP_SERVER_RELEASE;
  s->waiting = FALSE;
  g_array_set_size (s->send, 0);
  pacer_set_rate (&s->pacer, s->stats.rate);
  for (guint i = 0; i < s->n_members; i++) {
    s->members[i].tries = 0;
    s->members[i].rel_due = 0;
  }
  if (s->cfg.release_on_ack) {
    server_await_racks (s, now);
    return;
  }
  server_queue_rel (s, RMTP_TO_GROUP);
  server_arm (s, now, s->cfg.tat + server_window (s, s->n_members) +
      s->cfg.alpha);
}

static void
server_finish (RmtpServer * s)
{
  RmtpEvent *e = push_event (&s->events, RMTP_EVENT_DONE);

  e->bytes = s->bytes_sent;
  e->round = s->round;
  e->receivers_complete = count_members (s, MEMBER_ACKED);
  e->receivers_failed = s->n_members - e->receivers_complete;
  s->phase = RMTP_SERVER_DONE;
  s->timer = G_MAXINT64;
}

/* A member given up (silent in its unicast turn, or BUSY too long) may be
 * complete and have lost every copy of the group REL, or been stalled
 * through it. It gets gone_rel_retries RELs by unicast, the waits after
 * them tat + alpha, then twice, four times that, so that a receiver
 * stalled for a while still answers; a complete one RACKs and is counted
 * complete, one not complete ignores them (3.2.1). Returns when @m is
 * next due, G_MAXINT64 once it has had all. */
static gint64
server_retry_gone_rel (RmtpServer * s, Member * m, gint64 now)
{
  if (!server_gone_rel_pending (s, m, now))
    return G_MAXINT64;
  if (now >= m->rel_due) {
    m->rel_due = now + ((s->cfg.tat + s->cfg.alpha) << MIN (m->tries, 16));
    m->tries++;
    server_queue_rel (s, m->id);
    s->stats.gone_rel_sent++;
  }
  return m->rel_due;
}

static void
server_release_timeout (RmtpServer * s, gint64 now)
{
  gint64 next = G_MAXINT64;

  for (guint i = 0; i < s->n_members; i++) {
    Member *m = &s->members[i];

    if (m->state == MEMBER_GONE) {
      next = MIN (next, server_retry_gone_rel (s, m, now));
      continue;
    }
    if (m->state != MEMBER_ACKED || m->released ||
        m->tries >= s->cfg.max_rel_retries)
      continue;
    m->tries++;
    server_queue_rel (s, m->id);
    next = MIN (next, now + s->cfg.tat + s->cfg.alpha);
  }
  if (next == G_MAXINT64)
    server_finish (s);
  else
    server_arm (s, now, next - now);
}

/* Whether @m waits through SEPARATE hearing nothing: ACKed but not RACKed
 * (every copy of the group REL lost, or its ACK came in this phase), or
 * set aside while another member is served by unicast. */
static gboolean
member_waits_unheard (const RmtpServer * s, const Member * m)
{
  if (m->state == MEMBER_ACKED)
    return !m->released;
  return m->state == MEMBER_CONNECTED && m->slow &&
      s->send_to != RMTP_TO_GROUP && s->send_to != m->id;
}

/* The unicast phase can outlast a receiver's silence timeout. Every
 * busy_poll_interval each waiting member gets a REL by unicast: a complete
 * one RACKs and is released instead of failing as server-silent; one not
 * complete ignores it (3.2.1) but has heard the server. */
static void
server_keep_members_informed (RmtpServer * s, gint64 now)
{
  for (guint i = 0; i < s->n_members; i++)
    if (member_waits_unheard (s, &s->members[i]))
      server_queue_rel (s, s->members[i].id);
  s->rel_at = now + s->cfg.busy_poll_interval;
}

void
rmtp_server_handle_timeout (RmtpServer * s, gint64 now)
{
  if (s->phase == RMTP_SERVER_SEPARATE && now >= s->rel_at)
    server_keep_members_informed (s, now);
  if (now < s->timer)
    return;
  s->timer = G_MAXINT64;
  switch (s->phase) {
    case RMTP_SERVER_CONNECT:
      server_connect_timeout (s, now);
      break;
    case RMTP_SERVER_ROUNDS:
      if (s->waiting)
        server_round_timeout (s, now);
      break;
    case RMTP_SERVER_SEPARATE:
      server_separate_timeout (s, now);
      break;
    case RMTP_SERVER_RELEASE:
      server_release_timeout (s, now);
      break;
    case RMTP_SERVER_DONE:
      break;
  }
}

/* ---- responses ---- */

static gboolean
server_check_round (RmtpServer * s, const RmtpPacket * p)
{
  if (p->round > s->round) {
    s->stats.in.out_of_window++;
    return FALSE;
  }
  if (p->round < s->round || !s->waiting) {
    s->stats.in.late++;
    return FALSE;
  }
  return TRUE;
}

static void
server_count_response (RmtpServer * s, Member * m)
{
  guint *n = &g_array_index (s->round_responses, guint, s->round);

  m->responded_round = s->round;
  (*n)++;
  s->stats.responses++;
  s->stats.max_responses_per_round = MAX (s->stats.max_responses_per_round,
      *n);
}

/* A receiver's ranges are in order and disjoint, so one NACK asks for each
 * packet at most once: a repair set never grows past the data set. */
static gboolean
ranges_ordered (const RmtpPacket * p)
{
  guint64 end = 0;

  for (guint i = 0; i < p->n_ranges; i++) {
    RmtpRange rg = rmtp_packet_range (p, i);

    if (i > 0 && rg.first < end)
      return FALSE;
    end = (guint64) rg.first + rg.count;
  }
  return TRUE;
}

static gboolean
server_take_ranges (RmtpServer * s, Member * m, const RmtpPacket * p)
{
  GArray *missing = g_array_new (FALSE, FALSE, sizeof (RmtpRange));

  for (guint i = 0; i < p->n_ranges; i++) {
    RmtpRange rg = rmtp_packet_range (p, i);

    if (rg.count == 0 || rg.first >= s->n_packets ||
        rg.count > s->n_packets - rg.first) {
      g_array_unref (missing);
      s->stats.in.out_of_window++;
      return FALSE;
    }
    g_array_append_val (missing, rg);
  }
  if (m->missing)
    g_array_unref (m->missing);
  m->missing = missing;
  m->missing_round = p->round;
  return TRUE;
}

static void
server_round_answered (RmtpServer * s, gint64 now)
{
  if (!s->waiting)
    return;
  if (s->phase == RMTP_SERVER_SEPARATE) {
    server_begin_separate (s, now);
    return;
  }
  /* everyone answered: no need to wait out the window (ours) */
  if (active_unanswered (s) == 0) {
    server_emit_progress (s);
    server_next_multicast_round (s, now);
  }
}

/* Whether @m's NACK / ACK is awaited: in the multicast rounds from every
 * connected member not set aside as slow, in SEPARATE from the one served. */
static gboolean
server_awaits_answer (RmtpServer * s, const Member * m)
{
  if (m->state != MEMBER_CONNECTED)
    return FALSE;
  if (s->phase == RMTP_SERVER_ROUNDS)
    return !m->slow;
  return s->phase == RMTP_SERVER_SEPARATE &&
      m == &s->members[s->current_slow];
}

static void server_on_ack (RmtpServer * s, Member * m);

/* A member given up at CONNECT that is heard from later took the CONN:
 * its CACKs were lost or late (a loaded receiver may answer the unicast
 * retries after they are spent), and it is getting the data. It is taken
 * back as slow, so that it is served by unicast after the rounds instead
 * of being released without the data and failing as incomplete. In
 * RELEASE that means a return to SEPARATE, unless a stream dropped the
 * window's data. TRUE if @m was taken back. */
static gboolean
server_take_back (RmtpServer * s, Member * m, gint64 now)
{
  if (m->state != MEMBER_UNHEARD || s->phase == RMTP_SERVER_CONNECT ||
      s->phase == RMTP_SERVER_DONE || !s->data)
    return FALSE;
  m->state = MEMBER_CONNECTED;
  m->slow = TRUE;
  s->stats.slow_receivers++;
  s->stats.taken_back++;
  /* the server idles in RELEASE, or in SEPARATE waiting on BUSY members */
  if (s->phase == RMTP_SERVER_RELEASE || (s->phase == RMTP_SERVER_SEPARATE &&
          s->send_to == RMTP_TO_GROUP && !s->waiting))
    server_begin_separate (s, now);
  return TRUE;
}

/* A member given up (UNHEARD at CONNECT, GONE in SEPARATE) that ACKs or
 * RACKs has verified the set: its answers were lost or late, not the
 * data. It is counted complete, not failed, and its counter noted. */
static void
server_note_proven (RmtpServer * s, const Member * m)
{
  s->stats.taken_back += m->state == MEMBER_UNHEARD;
  s->stats.gone_complete += m->state == MEMBER_GONE;
}

/* A member set aside as slow still hears the multicast rounds and may
 * complete from them; it ACKs at the next EOR, unasked. An ACK says the
 * set is verified (as a RACK does), so it is taken: the member is released
 * with the others instead of waiting, complete, for its unicast turn. So
 * is one from a member given up at CONNECT, whose CACKs were lost, or in
 * its unicast turn, whose answers came after the last POLL. */
static gboolean
server_take_slow_ack (RmtpServer * s, Member * m, const RmtpPacket * p)
{
  gboolean set_aside = m->state == MEMBER_CONNECTED && m->slow && !m->busy;

  if (p->type != RMTP_ACK || !(set_aside || m->state == MEMBER_UNHEARD ||
          m->state == MEMBER_GONE) ||
      p->round > s->round || s->phase == RMTP_SERVER_CONNECT ||
      s->phase == RMTP_SERVER_DONE)
    return FALSE;
  server_note_proven (s, m);
  s->stats.in.accepted++;
  server_on_ack (s, m);
  return TRUE;
}

/* A member set aside still hears the multicast rounds and NACKs them. No
 * round awaits its answer, so a NACK newer than the one held is taken,
 * even after its round closed: its ranges are what the member's unicast
 * turn sends first. An older one is late, a second of the same round a
 * duplicate. The rounds' repairs leave it out (member_active). */
static gboolean
server_take_set_aside_nack (RmtpServer * s, Member * m, const RmtpPacket * p)
{
  if (p->type != RMTP_NACK || m->state != MEMBER_CONNECTED || !m->slow ||
      m->busy || (s->phase != RMTP_SERVER_ROUNDS &&
          s->phase != RMTP_SERVER_SEPARATE) || p->round > s->round ||
      (gint64) p->round < m->missing_round)
    return FALSE;
  if ((gint64) p->round == m->missing_round)
    s->stats.in.duplicates++;
  else if (server_take_ranges (s, m, p))
    s->stats.in.accepted++;
  return TRUE;
}

static void
server_on_response (RmtpServer * s, Member * m, const RmtpPacket * p,
    gint64 now)
{
  if (s->phase == RMTP_SERVER_SEPARATE && m->busy &&
      m->state == MEMBER_CONNECTED && !s->waiting) {
    /* an answer to the busy POLL: ready again, its RRDY was lost */
    s->stats.in.accepted++;
    m->busy = FALSE;
    server_begin_separate (s, now);
    return;
  }
  if (!server_awaits_answer (s, m)) {
    if (!server_take_slow_ack (s, m, p) &&
        !server_take_set_aside_nack (s, m, p))
      s->stats.in.late++;
    return;
  }
  if (!server_check_round (s, p))
    return;
  if (m->responded_round == (gint64) s->round) {
    s->stats.in.duplicates++;
    return;
  }
  if (p->type == RMTP_NACK && !server_take_ranges (s, m, p))
    return;
  s->stats.in.accepted++;
  server_count_response (s, m);
  if (p->type == RMTP_ACK)
    server_on_ack (s, m);
  server_measure (s, m);
  if (p->type == RMTP_NACK && server_repairs_early (s) &&
      !server_may_be_slow (s, m))
    server_plan_early (s, m);
  server_round_answered (s, now);
}

/* With release_on_ack the REL follows the ACK at once, by unicast with a
 * window of 0: the ACKs were spread by their backoff, so the RACKs are
 * too, and nobody waits out a second window of delta x N. */
static void
server_on_ack (RmtpServer * s, Member * m)
{
  m->state = MEMBER_ACKED;
  if (!s->cfg.release_on_ack || m->released)
    return;
  server_queue_rel (s, m->id);
  repeat_last_datagram (&s->out, s->cfg.control_copies);
}

static void
server_on_cack (RmtpServer * s, Member * m, const RmtpPacket * p, gint64 now)
{
  if (s->phase != RMTP_SERVER_CONNECT) {
    s->stats.in.late++;
    return;
  }
  s->stats.in.accepted++;
  if (m->state == MEMBER_UNCONNECTED)
    m->state = p->yes ? MEMBER_CONNECTED : MEMBER_REFUSED;
  if (count_members (s, MEMBER_UNCONNECTED) == 0) {
    s->timer = now;
    rmtp_server_handle_timeout (s, now);
  }
}

static void
server_on_busy (RmtpServer * s, Member * m, gboolean busy, gint64 now)
{
  s->stats.in.accepted++;
  if (m->state != MEMBER_CONNECTED)
    return;
  if (busy)
    s->stats.busy_received++;
  else
    s->stats.rrdy_received++;
  m->busy = busy;
  m->unmeasurable |= busy;
  if (busy && !m->slow) {
    m->slow = TRUE;
    s->stats.slow_receivers++;
  }
  if (busy && s->phase == RMTP_SERVER_ROUNDS)
    server_round_answered (s, now);
  /* the server idles waiting for this RRDY */
  if (!busy && s->phase == RMTP_SERVER_SEPARATE && !s->waiting &&
      s->send->len == 0)
    server_begin_separate (s, now);
}

/* One report a period from each representative: more would weigh the
 * mean (a repeated or forged REPORT cannot steer the rate alone). */
static void
server_on_report (RmtpServer * s, Member * m, const RmtpPacket * p)
{
  if ((guint) (m - s->members) >= s->cfg.reporters) {
    s->stats.in.foreign++;
    return;
  }
  if (!s->monitor_open || p->monitor != s->monitor_stop ||
      p->received > s->cfg.monitor_packets) {
    s->stats.in.late++;
    return;
  }
  if (m->reported_stop == (gint64) p->monitor) {
    s->stats.in.duplicates++;
    return;
  }
  m->reported_stop = p->monitor;
  s->stats.in.accepted++;
  s->monitor_sum += p->received;
  s->monitor_reports++;
}

/* The first sound CACK naming @m from a source the shell does not know
 * binds @m to it (the shell keeps the address). So does the first NACK,
 * ACK or RACK of a member given up at CONNECT, whose every CACK was lost:
 * else the packet that takes it back would count as forged. */
static guint32
server_bind (Member * m, guint32 from, const RmtpPacket * p)
{
  gboolean given_up = m && m->state == MEMBER_UNHEARD &&
      (p->type == RMTP_ACK || p->type == RMTP_RACK ||
      (p->type == RMTP_NACK && ranges_ordered (p)));

  if (!m || from != 0 || m->bound || (p->type != RMTP_CACK && !given_up))
    return 0;
  m->bound = TRUE;
  return m->id;
}

/* A receiver RACKs only a verified set: one not counted complete had its
 * ACK refused or lost (or its CACKs or its unicast answers, and was given
 * up), and now counts complete. After DONE, whose event has counted the
 * members, such a RACK is late. */
static void
server_on_rack (RmtpServer * s, Member * m, gint64 now)
{
  gboolean unproven = m->state == MEMBER_CONNECTED ||
      m->state == MEMBER_UNHEARD || m->state == MEMBER_GONE;

  if (unproven && s->phase == RMTP_SERVER_DONE) {
    s->stats.in.late++;
    return;
  }
  s->stats.in.accepted++;
  if (unproven && s->phase != RMTP_SERVER_CONNECT) {
    server_note_proven (s, m);
    m->state = MEMBER_ACKED;
  }
  if (m->state == MEMBER_ACKED && !m->released) {
    m->released = TRUE;
    if (s->phase == RMTP_SERVER_RELEASE && server_release_over (s, now))
      server_finish (s);
  }
}

guint32
rmtp_server_handle (RmtpServer * s, guint32 from, const guint8 * data,
    gsize len, gint64 now)
{
  RmtpPacket p;
  Member *m;
  guint32 bound;

  if (!open_control (s->auth, data, &len, now))
    return 0;
  if (!rmtp_packet_parse (data, len, &p)) {
    s->stats.in.malformed++;
    return 0;
  }
  if (p.session != s->session || p.type == RMTP_CONN || p.type == RMTP_DATA
      || p.type == RMTP_PARITY || p.type == RMTP_PARITY16
      || p.type == RMTP_EOR || p.type == RMTP_POLL || p.type == RMTP_REL
      || p.type == RMTP_DROP) {
    s->stats.in.foreign++;
    return 0;
  }
  m = server_member (s, p.member);
  bound = server_bind (m, from, &p);
  if (bound)
    from = bound;
  /* a response must come from the member it names */
  if (!m || p.member != from) {
    s->stats.in.forged++;
    return 0;
  }
  if (p.type == RMTP_NACK && !ranges_ordered (&p)) {
    s->stats.nacks_overlapping++;
    return bound;
  }
  /* The CACK or NACK that brings a member back has done its work: it is
   * taken. It answers a CONN or a round closed long ago, and was counted
   * late as well, as if it had been dropped. */
  if ((p.type == RMTP_NACK || (p.type == RMTP_CACK && p.yes)) &&
      server_take_back (s, m, now)) {
    s->stats.in.accepted++;
    return bound;
  }
  switch (p.type) {
    case RMTP_CACK:
      server_on_cack (s, m, &p, now);
      break;
    case RMTP_NACK:
    case RMTP_ACK:
      server_on_response (s, m, &p, now);
      break;
    case RMTP_RACK:
      server_on_rack (s, m, now);
      break;
    case RMTP_BUSY:
    case RMTP_RRDY:
      server_on_busy (s, m, p.type == RMTP_BUSY, now);
      break;
    case RMTP_REPORT:
      server_on_report (s, m, &p);
      break;
    default:
      s->stats.in.foreign++;
      break;
  }
  return bound;
}

/* ---- output ---- */

/* Monitor-based rate control (3.2.3): the mean receipt ratio the
 * representatives reported for the last period decides the next rate. */
static void
server_adjust_rate (RmtpServer * s)
{
  gdouble ratio;
  guint64 rate = s->stats.rate;
  guint expected = MIN (s->cfg.reporters, s->n_members);

  if (!s->monitor_open)
    return;
  if (s->monitor_reports * 2 < expected)
    ratio = 0.0;                /* most representatives did not answer */
  else
    ratio = (gdouble) s->monitor_sum / (s->monitor_reports *
        (gdouble) s->cfg.monitor_packets);
  if (ratio < s->cfg.decrease_below)
    rate = MAX (s->cfg.min_rate, (guint64) (rate * s->cfg.decrease_factor));
  else if (ratio > s->cfg.increase_above)
    rate = MIN (s->cfg.max_rate, (guint64) (rate * s->cfg.increase_factor));
  if (rate != s->stats.rate) {
    s->stats.rate = rate;
    s->stats.rate_changes++;
    pacer_set_rate (&s->pacer, rate);
  }
}

/* A period's reports arrive a round trip after its STOP, so each STOP
 * decides the rate from the period before it. */
static guint8
server_monitor_flags (RmtpServer * s, guint32 seq)
{
  guint8 flags = 0;

  if (!s->cfg.rate_control || s->send_to != RMTP_TO_GROUP ||
      s->cfg.monitor_packets < 2)
    return 0;
  if (s->monitor_left == 0) {
    flags |= RMTP_FLAG_START;
    s->monitor_left = s->cfg.monitor_packets;
  }
  if (--s->monitor_left == 0) {
    flags |= RMTP_FLAG_STOP;
    server_adjust_rate (s);
    s->monitor_sum = s->monitor_reports = 0;
    s->monitor_stop = seq;
    s->monitor_open = TRUE;
  }
  return flags;
}

static void
server_queue_data (RmtpServer * s, guint32 seq)
{
  guint32 plen = packet_len (s->total, s->cfg.packet_size, seq);
  gsize len = RMTP_HEADER_SIZE + 9 + plen;
  guint8 *buf = g_malloc (len);
  const guint8 *src = g_bytes_get_data (s->data, NULL);
  WireWriter w;

  wire_writer_init (&w, buf, len);
  write_header (&w, RMTP_DATA, s->session);
  wire_write_u32 (&w, server_packet_round (s));
  wire_write_u32 (&w, seq);
  wire_write_u8 (&w, server_monitor_flags (s, seq));
  wire_write_bytes (&w, src + (gsize) seq * s->cfg.packet_size, plen);
  queue_datagram (&s->out, s->send_to, buf, &w);
  s->stats.data_sent++;
  s->stats.data_resent += server_packet_round (s) > 0;
  s->stats.unicast_data_sent += s->send_to != RMTP_TO_GROUP;
  s->bytes_sent += plen;
}

static void
server_queue_parity (RmtpServer * s, const ParityItem * it)
{
  guint k = block_size (s->n_packets, s->parity_block, it->block);
  guint32 first = it->block * s->parity_block;
  gsize plen = code_len (s->parity_block, packet_len (s->total,
          s->cfg.packet_size, first));
  gboolean wide = wide_code (s->parity_block);
  const guint8 *src = g_bytes_get_data (s->data, NULL);
  const guint8 **rows = g_new (const guint8 *, k);
  GPtrArray *pads = g_ptr_array_new_with_free_func (g_free);
  guint8 *parity = g_malloc (plen), *buf;
  gsize len = RMTP_HEADER_SIZE + (wide ? 10 : 9) + plen;
  WireWriter w;

  for (guint i = 0; i < k; i++) {
    guint32 qlen = packet_len (s->total, s->cfg.packet_size, first + i);

    rows[i] = src + (gsize) (first + i) * s->cfg.packet_size;
    if (qlen < plen) {
      /* the data set's last packet (or every one of an odd size, for
       * 16-bit symbols), zero-padded to the block's length */
      guint8 *pad = g_malloc0 (plen);

      memcpy (pad, rows[i], qlen);
      rows[i] = pad;
      g_ptr_array_add (pads, pad);
    }
  }
  code_encode (s->parity_block, k, rows, plen, it->row, parity);
  buf = g_malloc (len);
  wire_writer_init (&w, buf, len);
  write_header (&w, wide ? RMTP_PARITY16 : RMTP_PARITY, s->session);
  wire_write_u32 (&w, server_packet_round (s));
  wire_write_u32 (&w, it->block);
  if (wide)
    wire_write_u16 (&w, it->row);
  else
    wire_write_u8 (&w, (guint8) it->row);
  wire_write_bytes (&w, parity, plen);
  queue_datagram (&s->out, RMTP_TO_GROUP, buf, &w);
  s->stats.parity_sent++;
  s->block_sent[it->block]++;
  s->bytes_sent += plen;
  g_ptr_array_unref (pads);
  g_free (parity);
  g_free (rows);
}

static gboolean
server_has_pending (const RmtpServer * s)
{
  return s->send_pos < s->send->len || (s->parity &&
      s->parity_pos < s->parity->len);
}

/* Refills the output with the next data packet or the end of the round;
 * while a round takes its answers, with the next round's early repairs. */
static void
server_refill (RmtpServer * s, gint64 now)
{
  if ((s->waiting && !server_repairs_early (s)) ||
      (s->phase != RMTP_SERVER_ROUNDS && s->phase != RMTP_SERVER_SEPARATE))
    return;
  if (s->phase == RMTP_SERVER_SEPARATE && s->send_to == RMTP_TO_GROUP)
    return;
  if (s->send_pos < s->send->len)
    server_queue_data (s, g_array_index (s->send, guint32, s->send_pos++));
  else if (s->parity && s->parity_pos < s->parity->len)
    server_queue_parity (s, &g_array_index (s->parity, ParityItem,
            s->parity_pos++));
  else if (!s->waiting && now >= s->round_hold)
    server_end_of_data (s, now);
}

gboolean
rmtp_server_poll_datagram (RmtpServer * s, gint64 now, RmtpDatagram * out)
{
  if (pacer_next_send_time (&s->pacer, now) > now)
    return FALSE;
  if (g_queue_is_empty (&s->out))
    server_refill (s, now);
  if (!polled_pop (&s->out, out, sizeof (*out)))
    return FALSE;
  seal_datagram (s->auth, out);
  pacer_on_send (&s->pacer, g_bytes_get_size (out->bytes), now);
  s->stats.datagrams_sent++;
  return TRUE;
}

gboolean
rmtp_server_poll_event (RmtpServer * s, RmtpEvent * out)
{
  return polled_pop (&s->events, out, sizeof (*out));
}

/* When the pacer lets the next datagram go; when that is the EOR of a
 * round held back (empty_round_wait), not before its hold. */
static gint64
server_next_send (const RmtpServer * s)
{
  gint64 t = s->pacer.next_free == G_MININT64 ? G_MININT64 + 1 :
      s->pacer.next_free;
  gboolean eor_next = s->out.length == 0 && !s->waiting &&
      s->send_pos >= s->send->len &&
      (!s->parity || s->parity_pos >= s->parity->len);

  return eor_next ? MAX (t, s->round_hold) : t;
}

gint64
rmtp_server_next_deadline (const RmtpServer * s)
{
  gint64 t = s->timer;
  gboolean more = s->out.length > 0 || (!s->waiting &&
      (s->phase == RMTP_SERVER_ROUNDS || (s->phase == RMTP_SERVER_SEPARATE
              && s->send_to != RMTP_TO_GROUP))) || (s->waiting &&
      server_repairs_early (s) && server_has_pending (s));

  if (more)
    t = MIN (t, server_next_send (s));
  if (s->phase == RMTP_SERVER_SEPARATE)
    t = MIN (t, s->rel_at);
  return t;
}

RmtpServerPhase
rmtp_server_phase (const RmtpServer * s)
{
  return s->phase;
}

const RmtpServerStats *
rmtp_server_stats (const RmtpServer * s)
{
  return &s->stats;
}

void
rmtp_server_set_window (RmtpServer * s, guint32 window, guint64 offset,
    const guint8 * stream_digest)
{
  if (s->phase != RMTP_SERVER_CONNECT || s->timer != G_MAXINT64 ||
      offset > G_MAXUINT64 - s->total)
    return;
  s->stream = TRUE;
  s->window = window;
  s->offset = offset;
  s->last = stream_digest != NULL;
  if (s->last)
    memcpy (s->stream_digest, stream_digest, RMTP_DIGEST_SIZE);
}

void
rmtp_server_drop_data (RmtpServer * s)
{
  if (s->phase == RMTP_SERVER_RELEASE || s->phase == RMTP_SERVER_DONE)
    g_clear_pointer (&s->data, g_bytes_unref);
}

void
rmtp_server_queue_drop (RmtpServer * s, guint32 window)
{
  guint8 *buf = g_malloc (RMTP_HEADER_SIZE + 4);
  WireWriter w;

  wire_writer_init (&w, buf, RMTP_HEADER_SIZE + 4);
  write_header (&w, RMTP_DROP, s->session);
  wire_write_u32 (&w, window);
  queue_datagram (&s->out, RMTP_TO_GROUP, buf, &w);
  repeat_last_datagram (&s->out, s->cfg.control_copies);
}

gboolean
rmtp_server_member_complete (const RmtpServer * s, guint32 id,
    gboolean * slow)
{
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (s->index,
          GUINT_TO_POINTER (id)));

  *slow = i && s->members[i - 1].slow;
  return i && s->members[i - 1].state == MEMBER_ACKED;
}

guint
rmtp_server_round_responses (const RmtpServer * s, guint round)
{
  return round < s->round_responses->len ?
      g_array_index (s->round_responses, guint, round) : 0;
}

/* ------------------------------------------------------------------ */
/* Receiver */

typedef enum {
  DUE_NONE,
  DUE_CACK,
  DUE_ROUND,                    /* NACK or ACK */
  DUE_RACK,
} DueKind;

/* The parity rows a receiver holds for one block, at most one per data
 * packet of the block (more are never needed). */
typedef struct {
  guint n;
  guint *rows;
  GBytes **parity;              /* NULL with dec: it took a copy */
  Erasure16Decoder *dec;        /* parity_incremental, GF(2^16) */
  RmtpDecodeJob *job;           /* parity_decode_apart: handed out, not
                                 * back yet (the shell owns it) */
} RxBlock;

struct _RmtpDecodeJob {
  guint32 block;
  guint parity_block, k;
  gsize len;
  GBytes **held;                /* k: the packets held, NULL where lost */
  guint n_rows;                 /* = the block's losses */
  guint *rows;
  GBytes **parity;
  guint8 **out;                 /* k: rebuilt packets (len bytes), NULL
                                 * where held; all NULL until run */
  gboolean ok;
};

struct _RmtpReceiver {
  RmtpConfig cfg;
  RandomSource rng;
  guint32 member;
  gboolean accept;
  RmtpReceiverState state;
  gboolean connected;

  /* from CONN */
  guint32 session;
  guint64 total;
  guint32 packet_size, n_packets, n_members, reporters, my_index;
  gint64 delta;
  guint8 digest[RMTP_DIGEST_SIZE];

  guint8 *have;
  GBytes **held;                /* out-of-order payloads; with parity,
                                 * also those of incomplete blocks */
  guint32 n_have;
  guint32 next_deliver;
  guint64 delivered;
  RmtpDigest *checksum;

  guint parity_block;           /* from CONN; 0: no parity */
  guint32 n_blocks;
  guint *block_have;            /* per block: data packets held */
  RxBlock **blocks;             /* per block: parity held, or NULL */

  DueKind due;
  gint64 due_at;
  gint64 due_window;            /* the backoff window it was drawn over */
  gboolean due_redrawn;         /* drawn again once, found overdue */
  gint64 due_patience;          /* the server waits for it until about
                                 * then: request + window + tat */
  gboolean cack_redrawn;        /* our CACK was: we stalled at CONNECT */
  guint32 due_round;
  gint64 responded_round;
  gboolean acked;               /* an ACK went out */
  gint64 max_window;            /* the largest answer window announced */
  gint64 last_heard;
  gint64 conn_deadline;         /* fail if no CONN is taken by then */

  gboolean counting;
  guint32 monitor_count;

  /* streaming mode: the window expected (expect_window), the one taken */
  gboolean expect_stream;
  guint32 expect_window;
  guint64 expect_offset;
  gboolean stream;
  guint32 window;
  guint64 offset;
  gboolean last;
  guint8 stream_digest[RMTP_DIGEST_SIZE];       /* last: the whole stream's */

  GQueue out, events;
  RmtpReceiverStats stats;
  AuthSession *auth;            /* NULL: no key */
  gint64 last_answer;           /* when the last NACK, ACK or BUSY went */
  gint64 last_cack;             /* when the last CACK went */
  gboolean past_connect;        /* heard DATA, PARITY, EOR, POLL or REL of
                                 * the session: the server left CONNECT */
  GArray *answer_ranges;        /* the due NACK's ranges, as they were at
                                 * its EOR or POLL; NULL: none */
  GQueue jobs;                  /* parity_decode_apart: not taken yet */
};

RmtpReceiver *
rmtp_receiver_new (const RmtpConfig * cfg, guint32 member, gboolean accept,
    const RandomSource * rng)
{
  RmtpReceiver *r;

  if (member == 0)
    return NULL;
  r = g_new0 (RmtpReceiver, 1);
  r->cfg = *cfg;
  r->rng = *rng;
  r->member = member;
  r->accept = accept;
  r->responded_round = -1;
  r->due_at = G_MAXINT64;
  r->last_heard = G_MAXINT64;
  r->conn_deadline = G_MAXINT64;
  r->last_answer = G_MININT64 / 2;
  r->last_cack = G_MININT64 / 2;
  g_queue_init (&r->out);
  g_queue_init (&r->events);
  return r;
}

static void
rx_block_free (RxBlock * blk)
{
  if (!blk)
    return;
  for (guint i = 0; i < blk->n; i++)
    if (blk->parity[i])
      g_bytes_unref (blk->parity[i]);
  erasure16_decoder_free (blk->dec);
  g_free (blk->rows);
  g_free (blk->parity);
  g_free (blk);
}

void
rmtp_receiver_free (RmtpReceiver * r)
{
  if (!r)
    return;
  if (r->held)
    for (guint32 i = 0; i < r->n_packets; i++)
      if (r->held[i])
        g_bytes_unref (r->held[i]);
  g_free (r->held);
  g_free (r->have);
  for (guint32 b = 0; r->blocks && b < r->n_blocks; b++)
    rx_block_free (r->blocks[b]);
  g_free (r->blocks);
  g_free (r->block_have);
  if (r->checksum)
    rmtp_digest_free (r->checksum);
  if (r->answer_ranges)
    g_array_unref (r->answer_ranges);
  clear_datagrams (&r->out);
  clear_events (&r->events);
  g_queue_clear_full (&r->jobs, (GDestroyNotify) rmtp_decode_job_free);
  auth_session_free (r->auth);
  g_free (r);
}

void
rmtp_receiver_set_key (RmtpReceiver * r, const AuthKey * key)
{
  auth_session_free (r->auth);
  r->auth = auth_session_new (key, (guint32) random_source_range (&r->rng, 1,
          G_MAXUINT32), RMTP_RECEIVER_AUTH_SENDERS);
}

gboolean
rmtp_receiver_auth_stats (const RmtpReceiver * r, AuthStats * st)
{
  if (r->auth)
    auth_session_get_stats (r->auth, st);
  return r->auth != NULL;
}

static void
receiver_fail (RmtpReceiver * r, RmtpFailReason reason)
{
  r->state = RMTP_RECEIVER_FAILED;
  r->due = DUE_NONE;
  r->due_at = G_MAXINT64;
  push_event (&r->events, RMTP_EVENT_FAILED)->reason = reason;
}

static GArray *receiver_missing_ranges (const RmtpReceiver * r);

/* An answer to a round lists what was missing at its EOR or POLL: a
 * server with early_repair counts every row of the next round as still to
 * come for it, so rows taken during the backoff must not shrink it (rows
 * and DATA of the next round follow the EOR on the same path). */
static void
receiver_keep_answer (RmtpReceiver * r)
{
  g_clear_pointer (&r->answer_ranges, g_array_unref);
  if (r->state == RMTP_RECEIVER_RECEIVING)
    r->answer_ranges = receiver_missing_ranges (r);
}

static void
receiver_schedule (RmtpReceiver * r, DueKind kind, guint32 round,
    gint64 window, gint64 now)
{
  if (kind == DUE_ROUND)
    receiver_keep_answer (r);
  r->due = kind;
  r->due_round = round;
  r->max_window = MAX (r->max_window, window);
  r->due_window = MAX (window, 0);
  r->due_redrawn = FALSE;
  r->due_patience = now + r->due_window + r->cfg.tat;
  r->due_at = now + random_source_range (&r->rng, 0, r->due_window);
}

/* An answer whose timer runs after the server stopped waiting for it
 * (its window and a turn-around from when its request came: a stalled
 * process, a loaded host) is drawn again, once, over its window from now.
 * It is late whenever it goes; sent at once, it would leave together with
 * the answers of every receiver stalled with it, the burst the backoff is
 * there to prevent (issue 20: 285 CACKs at once after the emulator's
 * stall). One that can still be in time goes at once. */
static gboolean
receiver_redraw_overdue (RmtpReceiver * r, gint64 now)
{
  if (r->due_redrawn || r->due_window == 0 || now <= r->due_patience)
    return FALSE;
  r->due_redrawn = TRUE;
  r->cack_redrawn |= r->due == DUE_CACK;
  r->due_at = now + random_source_range (&r->rng, 0, r->due_window);
  r->stats.answers_redrawn++;
  return TRUE;
}

/* The answer windows the server announces are at most delta x the
 * members of its CONN: a larger one (forged) would put our answer and our
 * silence limit off by up to an hour. */
static gint64
receiver_window (const RmtpReceiver * r, guint32 window_us)
{
  return MIN ((gint64) window_us, (r->delta / US + 1) * r->n_members) * US;
}

/* Our index in the CONN's member list, or -1 if it does not list us. */
static gint
conn_index (const RmtpPacket * p, guint32 member)
{
  for (guint i = 0; i < p->n_members; i++)
    if (rmtp_packet_member (p, i) == member)
      return (gint) i;
  return -1;
}

static gboolean
receiver_take_conn (RmtpReceiver * r, const RmtpPacket * p)
{
  gint i = conn_index (p, r->member);

  if (i < 0)
    return FALSE;
  r->my_index = i;
  r->session = p->session;
  r->total = p->total_size;
  r->packet_size = p->packet_size;
  r->n_packets = p->n_packets;
  r->n_members = p->n_members;
  r->reporters = p->reporters;
  r->delta = (gint64) p->delta_us * US;
  memcpy (r->digest, p->digest, RMTP_DIGEST_SIZE);
  r->have = g_new0 (guint8, r->n_packets);
  r->held = g_new0 (GBytes *, r->n_packets);
  r->checksum = rmtp_digest_new ();
  r->stream = p->stream;
  r->window = p->window;
  r->offset = p->offset;
  r->last = p->last;
  if (p->last)
    memcpy (r->stream_digest, p->stream_digest, RMTP_DIGEST_SIZE);
  r->parity_block = p->parity_block;
  r->n_blocks = block_count (r->n_packets, r->parity_block);
  r->block_have = g_new0 (guint, r->n_blocks);
  r->blocks = g_new0 (RxBlock *, r->n_blocks);
  r->connected = TRUE;
  return TRUE;
}

/* Whether the data set @p announces, with our index of its packets (a
 * flag and a pointer each), fits in max_total_size. */
static gboolean
receiver_can_hold (const RmtpReceiver * r, const RmtpPacket * p)
{
  guint64 index = (guint64) p->n_packets * (1 + sizeof (gpointer)) +
      (guint64) block_count (p->n_packets, p->parity_block) *
      (sizeof (guint) + sizeof (gpointer));

  return p->total_size <= r->cfg.max_total_size &&
      index <= r->cfg.max_total_size - p->total_size;
}

/* Before a CONN is taken, whether @p is one to take: a data set, or
 * window 0 of a stream, unless a window was set with expect_window. A
 * group CONN past the expected window, or one of it that leaves us out,
 * means the server dropped us from the stream. */
static gboolean
receiver_conn_wanted (RmtpReceiver * r, const RmtpPacket * p)
{
  guint32 want = r->expect_stream ? r->expect_window : 0;

  if (r->expect_stream && p->stream && !p->retry &&
      (p->window > want || (p->window == want && conn_index (p,
                  r->member) < 0))) {
    receiver_fail (r, RMTP_FAIL_DROPPED);
    return FALSE;
  }
  if ((r->expect_stream && !p->stream) || (p->stream && p->window != want)) {
    r->stats.in.foreign++;
    return FALSE;
  }
  /* the window must start where the windows before it ended */
  if (p->stream && p->offset != r->expect_offset) {
    r->stats.in.out_of_window++;
    return FALSE;
  }
  return TRUE;
}

/* A DROP says the stream goes on for none of its members: it ends a
 * receiver that waits for that window or an earlier one, or that is still
 * short of an earlier window it is in (whose data the server dropped). */
static void
receiver_on_drop (RmtpReceiver * r, const RmtpPacket * p)
{
  gboolean waiting = !r->connected && r->expect_stream &&
      p->window >= r->expect_window;
  gboolean short_of = r->connected && r->stream && p->window > r->window &&
      r->state != RMTP_RECEIVER_COMPLETE && r->state != RMTP_RECEIVER_DONE;

  if (!waiting && !short_of) {
    r->stats.in.foreign++;
    return;
  }
  r->stats.in.accepted++;
  receiver_fail (r, RMTP_FAIL_DROPPED);
}

static void
receiver_on_conn (RmtpReceiver * r, const RmtpPacket * p, gint64 now)
{
  if (!r->connected && !receiver_conn_wanted (r, p))
    return;
  if (!r->connected && !receiver_can_hold (r, p)) {
    r->stats.conn_too_large++;
    return;
  }
  if (!r->connected) {
    if (!receiver_take_conn (r, p)) {
      r->stats.in.foreign++;
      return;
    }
    r->state = r->accept ? RMTP_RECEIVER_RECEIVING : RMTP_RECEIVER_WAIT_CONN;
    r->stats.in.accepted++;
    receiver_schedule (r, DUE_CACK, 0, (gint64) p->window_us * US, now);
    return;
  }
  /* a retry to another member, sent to the group because the server
   * does not know that member's address */
  if (conn_index (p, r->member) < 0) {
    r->stats.in.foreign++;
    return;
  }
  /* a copy of the group's CONN (control_copies): answered already */
  if (!p->retry) {
    r->stats.in.duplicates++;
    return;
  }
  /* read after the rounds began (a receiver reading a backlog, as after
   * a stall): a CACK would come late */
  if (r->past_connect) {
    r->stats.in.late++;
    return;
  }
  /* a retried CONN within tat of our CACK crossed it (the server waits
   * tat + alpha before each retry): the CACK is on its way, and another
   * would only add to a burst, as after a stall */
  if (now < r->last_cack + r->cfg.tat) {
    r->stats.in.duplicates++;
    return;
  }
  /* we stalled through our CACK's slot: the retries we read may have
   * queued before it went, and if the server gave us up, our first NACK
   * takes us back */
  if (r->cack_redrawn) {
    r->stats.in.duplicates++;
    return;
  }
  /* a retried CONN: our CACK was lost; answer it over the retry's window
   * (delta x the members retried with us) */
  r->stats.in.accepted++;
  if (r->due != DUE_CACK)
    receiver_schedule (r, DUE_CACK, 0, receiver_window (r, p->window_us),
        now);
}

static void
receiver_check_digest (RmtpReceiver * r)
{
  guint8 got[RMTP_DIGEST_SIZE];

  rmtp_digest_finish (r->checksum, got);
  if (memcmp (got, r->digest, RMTP_DIGEST_SIZE) != 0) {
    receiver_fail (r, RMTP_FAIL_DIGEST);
    return;
  }
  r->state = RMTP_RECEIVER_COMPLETE;
}

static gboolean
receiver_block_complete (const RmtpReceiver * r, guint32 b)
{
  return r->block_have[b] == block_size (r->n_packets, r->parity_block, b);
}

static void
receiver_deliver (RmtpReceiver * r)
{
  while (r->next_deliver < r->n_packets && r->have[r->next_deliver]) {
    GBytes *b = r->held[r->next_deliver];
    RmtpEvent *e = push_event (&r->events, RMTP_EVENT_DATA);
    gsize len;
    const guint8 *d = g_bytes_get_data (b, &len);
    /* a block still missing packets needs this one to decode them */
    gboolean keep = r->parity_block &&
        !receiver_block_complete (r, r->next_deliver / r->parity_block);

    rmtp_digest_update (r->checksum, d, len);
    e->offset = r->delivered;
    e->data = keep ? g_bytes_ref (b) : b;
    if (!keep)
      r->held[r->next_deliver] = NULL;
    r->delivered += len;
    r->next_deliver++;
  }
  if (r->next_deliver == r->n_packets)
    receiver_check_digest (r);
}

static void
receiver_count_monitor (RmtpReceiver * r, const RmtpPacket * p)
{
  if (p->flags & RMTP_FLAG_START) {
    r->counting = TRUE;
    r->monitor_count = 0;
  }
  if (!r->counting)
    return;
  r->monitor_count++;
  if (p->flags & RMTP_FLAG_STOP) {
    r->counting = FALSE;
    /* only the representatives report, so reports cannot implode */
    if (r->my_index < r->reporters) {
      guint32 extra[2] = { p->seq, r->monitor_count };

      queue_member_packet (&r->out, RMTP_TO_GROUP, RMTP_REPORT, r->session,
          r->member, extra, 2);
      r->stats.report_sent++;
    }
  }
}

/* Whether DATA and PARITY are taken in this state (counted if not). */
static gboolean
receiver_takes_payload (RmtpReceiver * r)
{
  if (r->state == RMTP_RECEIVER_BUSY) {
    r->stats.busy_dropped++;
    return FALSE;
  }
  if (r->state != RMTP_RECEIVER_RECEIVING && r->state !=
      RMTP_RECEIVER_COMPLETE && r->state != RMTP_RECEIVER_DONE) {
    r->stats.in.late++;
    return FALSE;
  }
  return TRUE;
}

/* The payload of @p: a slice of the datagram @src (at @base) if the shell
 * gave it as GBytes, a copy otherwise. */
static GBytes *
payload_bytes (const RmtpPacket * p, GBytes * src, const guint8 * base)
{
  return src ? g_bytes_new_from_bytes (src, p->payload - base,
      p->payload_len) : g_bytes_new (p->payload, p->payload_len);
}

/* A complete block's packets already delivered are not needed again. */
static void
receiver_release_block (RmtpReceiver * r, guint32 b)
{
  guint32 first = b * r->parity_block;
  guint k = block_size (r->n_packets, r->parity_block, b);

  for (guint32 q = first; q < first + k && q < r->next_deliver; q++)
    g_clear_pointer (&r->held[q], g_bytes_unref);
  g_clear_pointer (&r->blocks[b], rx_block_free);
}

/* The block's buffers for the decoder: the packets held, zero-padded to
 * the block's length, and zeroed room for the lost ones; @own[i] are the
 * buffers allocated here. */
static void
receiver_block_buffers (RmtpReceiver * r, guint32 b, gsize len,
    guint8 ** data, gboolean * have, guint8 ** own)
{
  guint32 first = b * r->parity_block;
  guint k = block_size (r->n_packets, r->parity_block, b);

  for (guint i = 0; i < k; i++) {
    gsize plen = 0;
    const guint8 *d = NULL;

    have[i] = r->have[first + i];
    own[i] = NULL;
    if (have[i])
      d = g_bytes_get_data (r->held[first + i], &plen);
    if (have[i] && plen == len) {
      data[i] = (guint8 *) d;   /* read only: the decoder writes lost ones */
      continue;
    }
    own[i] = data[i] = g_malloc0 (len);
    if (have[i])
      memcpy (own[i], d, plen);
  }
}

/* The lost packet at @seq rebuilt (@buf, the block's length) is held. */
static void
receiver_take_rebuilt (RmtpReceiver * r, guint32 seq, guint8 * buf)
{
  r->held[seq] = g_bytes_new_take (buf, packet_len (r->total,
          r->packet_size, seq));
  r->have[seq] = 1;
  r->n_have++;
  r->block_have[seq / r->parity_block]++;
  r->stats.parity_recovered++;
}

/* With the incremental decoder, the lost packets are solved once it says
 * so; only handing them over is left. */
static gboolean
receiver_take_decoded (RmtpReceiver * r, guint32 b)
{
  Erasure16Decoder *dec = r->blocks[b]->dec;
  guint32 first = b * r->parity_block;
  guint k = block_size (r->n_packets, r->parity_block, b);

  if (erasure16_decoder_missing (dec) > 0)
    return FALSE;
  for (guint i = 0; i < k; i++)
    if (!r->have[first + i]) {
      guint8 *buf = erasure16_decoder_take (dec, i);

      g_assert (buf);
      receiver_take_rebuilt (r, first + i, buf);
    }
  r->stats.incremental_blocks++;
  return TRUE;
}

/* parity_decode_apart: the block's decode as a job holding its own
 * references, for the shell to take. */
static void
receiver_queue_job (RmtpReceiver * r, guint32 b, gsize len, guint lost)
{
  RxBlock *blk = r->blocks[b];
  guint32 first = b * r->parity_block;
  RmtpDecodeJob *job = g_new0 (RmtpDecodeJob, 1);

  job->block = b;
  job->parity_block = r->parity_block;
  job->k = block_size (r->n_packets, r->parity_block, b);
  job->len = len;
  job->held = g_new0 (GBytes *, job->k);
  for (guint i = 0; i < job->k; i++)
    if (r->have[first + i])
      job->held[i] = g_bytes_ref (r->held[first + i]);
  job->n_rows = lost;
  job->rows = g_memdup2 (blk->rows, lost * sizeof (guint));
  job->parity = g_new (GBytes *, lost);
  for (guint j = 0; j < lost; j++)
    job->parity[j] = g_bytes_ref (blk->parity[j]);
  job->out = g_new0 (guint8 *, job->k);
  blk->job = job;
  g_queue_push_tail (&r->jobs, job);
  r->stats.decode_jobs++;
}

/* Rebuilds a block's lost packets once it holds as many parity rows. */
static gboolean
receiver_try_decode (RmtpReceiver * r, guint32 b)
{
  RxBlock *blk = r->blocks[b];
  guint32 first = b * r->parity_block;
  guint k = block_size (r->n_packets, r->parity_block, b);
  gsize len = code_len (r->parity_block, packet_len (r->total,
          r->packet_size, first));
  guint lost = k - r->block_have[b];
  guint8 **data, **own;
  gboolean *have;
  const guint8 **parity;
  gboolean ok;

  if (blk && blk->dec)
    return receiver_take_decoded (r, b);
  if (!blk || lost == 0 || blk->n < lost || blk->job)
    return FALSE;
  if (r->cfg.parity_decode_apart) {
    receiver_queue_job (r, b, len, lost);
    return FALSE;
  }
  data = g_new (guint8 *, k);
  own = g_new (guint8 *, k);
  have = g_new (gboolean, k);
  parity = g_new (const guint8 *, lost);
  for (guint j = 0; j < lost; j++)
    parity[j] = g_bytes_get_data (blk->parity[j], NULL);
  receiver_block_buffers (r, b, len, data, have, own);
  ok = code_decode (r->parity_block, k, data, have, len, lost, blk->rows,
      parity);
  for (guint i = 0; i < k; i++) {
    if (ok && !have[i]) {
      receiver_take_rebuilt (r, first + i, own[i]);
      own[i] = NULL;
    }
    g_free (own[i]);
  }
  g_free (data);
  g_free (own);
  g_free (have);
  g_free (parity);
  return ok;
}

static void
receiver_block_changed (RmtpReceiver * r, guint32 b)
{
  if (!receiver_block_complete (r, b) && receiver_try_decode (r, b))
    receiver_deliver (r);
  if (receiver_block_complete (r, b))
    receiver_release_block (r, b);
}

static gboolean
receiver_parity_valid (const RmtpReceiver * r, const RmtpPacket * p)
{
  guint k;

  if (!r->parity_block || p->block >= r->n_blocks)
    return FALSE;
  if ((p->type == RMTP_PARITY16) != wide_code (r->parity_block))
    return FALSE;
  k = block_size (r->n_packets, r->parity_block, p->block);
  return p->row < code_rows (r->parity_block, k) && p->payload_len ==
      code_len (r->parity_block, packet_len (r->total, r->packet_size,
          p->block * r->parity_block));
}

/* Hands the decoder the packet at @seq (held, kept while its block is
 * not complete: receiver_deliver). */
static void
receiver_decoder_add (RmtpReceiver * r, Erasure16Decoder * dec, guint32 seq)
{
  gsize plen;
  const guint8 *d = g_bytes_get_data (r->held[seq], &plen);

  erasure16_decoder_add_data (dec, seq % r->parity_block, d, plen);
}

/* A block's incremental decoder, given the packets held so far. */
static Erasure16Decoder *
receiver_new_decoder (RmtpReceiver * r, guint32 b)
{
  guint32 first = b * r->parity_block;
  guint k = block_size (r->n_packets, r->parity_block, b);
  Erasure16Decoder *dec = erasure16_decoder_new (k,
      code_len (r->parity_block, packet_len (r->total, r->packet_size,
              first)));

  if (dec)
    erasure16_decoder_set_batch (dec, r->cfg.parity_incremental_batch);
  for (guint i = 0; dec && i < k; i++)
    if (r->have[first + i])
      receiver_decoder_add (r, dec, first + i);
  return dec;
}

/* parity_decode_apart asks for the one-shot decode on a worker; below
 * parity_incremental_min_block the one-shot decode is cheaper (issue 20). */
static gboolean
receiver_decodes_incrementally (const RmtpReceiver * r)
{
  return r->cfg.parity_incremental && !r->cfg.parity_decode_apart &&
      wide_code (r->parity_block) &&
      r->parity_block >= r->cfg.parity_incremental_min_block;
}

static RxBlock *
receiver_block (RmtpReceiver * r, guint32 b)
{
  guint k = block_size (r->n_packets, r->parity_block, b);

  if (!r->blocks[b]) {
    r->blocks[b] = g_new0 (RxBlock, 1);
    r->blocks[b]->rows = g_new0 (guint, k);
    r->blocks[b]->parity = g_new0 (GBytes *, k);
    if (receiver_decodes_incrementally (r))
      r->blocks[b]->dec = receiver_new_decoder (r, b);
  }
  return r->blocks[b];
}

/* A PARITY of round k + 1 says that round k has ended (a server with
 * early_repair sends them while that round's answers come in). A receiver
 * that lost every copy of its EOR answers now, spread over the largest
 * window announced, instead of waiting for the server's POLL. */
static void
receiver_infer_eor (RmtpReceiver * r, guint32 round, gint64 now)
{
  gint64 ended = (gint64) round - 1;

  if (ended < 0 || r->acked || r->responded_round >= ended ||
      (r->state != RMTP_RECEIVER_RECEIVING &&
          r->state != RMTP_RECEIVER_COMPLETE))
    return;
  if (r->due != DUE_NONE && !(r->due == DUE_ROUND && r->due_round < ended))
    return;
  receiver_schedule (r, DUE_ROUND, (guint32) ended, r->max_window, now);
}

static void
receiver_on_parity (RmtpReceiver * r, const RmtpPacket * p, GBytes * src,
    const guint8 * base, gint64 now)
{
  RxBlock *blk;

  if (!receiver_parity_valid (r, p)) {
    r->stats.in.out_of_window++;
    return;
  }
  if (!receiver_takes_payload (r))
    return;
  receiver_infer_eor (r, p->round, now);
  if (receiver_block_complete (r, p->block)) {
    r->stats.in.duplicates++;
    return;
  }
  blk = receiver_block (r, p->block);
  if (blk->n >= block_size (r->n_packets, r->parity_block, p->block)) {
    r->stats.in.duplicates++;
    return;
  }
  for (guint i = 0; i < blk->n; i++)
    if (blk->rows[i] == p->row) {
      r->stats.in.duplicates++;
      return;
    }
  r->stats.in.accepted++;
  r->stats.parity_received++;
  blk->rows[blk->n] = p->row;
  if (blk->dec)
    erasure16_decoder_add_row (blk->dec, p->row, p->payload);
  else
    blk->parity[blk->n] = payload_bytes (p, src, base);
  blk->n++;
  receiver_block_changed (r, p->block);
}

/* parity_expect_rows: after the DATA at @seq, the rows its block will need
 * for the packets it lost so far (those below @seq) are expected; the
 * block's decoder starts at its first loss. */
static void
receiver_expect_rows (RmtpReceiver * r, guint32 seq)
{
  guint32 b = seq / r->parity_block, first = b * r->parity_block;
  gint64 lost = (gint64) seq - first + 1 - r->block_have[b];
  RxBlock *blk;

  if (!r->cfg.parity_expect_rows || !receiver_decodes_incrementally (r) ||
      lost <= 0 ||
      receiver_block_complete (r, b))
    return;
  blk = receiver_block (r, b);
  if (blk->dec)
    erasure16_decoder_expect_rows (blk->dec, (guint) (lost + lost / 4 + 4));
}

static void
receiver_on_data (RmtpReceiver * r, const RmtpPacket * p, GBytes * src,
    const guint8 * base)
{
  if (p->seq >= r->n_packets ||
      p->payload_len != packet_len (r->total, r->packet_size, p->seq)) {
    r->stats.in.out_of_window++;
    return;
  }
  if (!receiver_takes_payload (r))
    return;
  receiver_count_monitor (r, p);
  if (r->have[p->seq]) {
    r->stats.in.duplicates++;
    return;
  }
  r->stats.in.accepted++;
  r->stats.data_received++;
  r->have[p->seq] = 1;
  r->n_have++;
  r->held[p->seq] = payload_bytes (p, src, base);
  if (r->parity_block) {
    guint32 b = p->seq / r->parity_block;

    r->block_have[b]++;
    if (r->blocks[b] && r->blocks[b]->dec)
      receiver_decoder_add (r, r->blocks[b]->dec, p->seq);
    receiver_expect_rows (r, p->seq);
  }
  receiver_deliver (r);
  if (r->parity_block)
    receiver_block_changed (r, p->seq / r->parity_block);
}

/* A POLL is answered at most once per `tat` (the server waits at least that
 * long between two POLLs of a member), and not while an answer is due: a
 * repeated or forged POLL gets no extra answer and no later one. */
static gboolean
receiver_poll_held (RmtpReceiver * r, const RmtpPacket * p, gint64 now)
{
  if ((r->due == DUE_ROUND && r->due_round == p->round) ||
      now < r->last_answer + r->cfg.tat) {
    r->stats.polls_held++;
    return TRUE;
  }
  return FALSE;
}

static void
receiver_on_round (RmtpReceiver * r, const RmtpPacket * p, gint64 window,
    gint64 now)
{
  gboolean poll = p->type == RMTP_POLL && p->member == r->member;

  if (poll && receiver_poll_held (r, p, now))
    return;
  if (r->state == RMTP_RECEIVER_BUSY && poll) {
    /* still busy: say so again, the BUSY may have been lost */
    r->stats.in.accepted++;
    r->last_answer = now;
    r->stats.busy_sent++;
    queue_member_packet (&r->out, RMTP_TO_GROUP, RMTP_BUSY, r->session,
        r->member, NULL, 0);
    return;
  }
  if (r->state != RMTP_RECEIVER_RECEIVING &&
      r->state != RMTP_RECEIVER_COMPLETE) {
    r->stats.in.late++;
    return;
  }
  if (p->type == RMTP_POLL && p->member != r->member) {
    r->stats.in.foreign++;
    return;
  }
  r->stats.in.accepted++;
  /* one answer per round; a POLL asks again because it was lost */
  if (p->type == RMTP_EOR && (r->responded_round >= (gint64) p->round ||
          (r->due == DUE_ROUND && r->due_round == p->round)))
    return;
  /* the server holds our ACK; it POLLs if that was lost */
  if (p->type == RMTP_EOR && r->acked)
    return;
  receiver_schedule (r, DUE_ROUND, p->round, window, now);
}

static void
receiver_on_rel (RmtpReceiver * r, const RmtpPacket * p, gint64 now)
{
  /* NACK or BUSY receivers ignore REL (3.2.1) */
  if (r->state != RMTP_RECEIVER_COMPLETE && r->state != RMTP_RECEIVER_DONE) {
    r->stats.in.late++;
    return;
  }
  r->stats.in.accepted++;
  if (r->due != DUE_RACK && r->responded_round >= 0)
    receiver_schedule (r, DUE_RACK, 0, receiver_window (r, p->window_us),
        now);
}

static void
receiver_handle (RmtpReceiver * r, const guint8 * data, gsize len,
    GBytes * src, gint64 now)
{
  RmtpPacket p;

  if (r->auth && !is_media (data, len) && !open_control (r->auth, data,
          &len, now))
    return;
  if (!rmtp_packet_parse (data, len, &p)) {
    r->stats.in.malformed++;
    return;
  }
  if (p.type == RMTP_CACK || p.type == RMTP_NACK || p.type == RMTP_ACK ||
      p.type == RMTP_RACK || p.type == RMTP_BUSY || p.type == RMTP_RRDY ||
      p.type == RMTP_REPORT || (r->connected && p.session != r->session) ||
      (!r->connected && p.type != RMTP_CONN && p.type != RMTP_DROP)) {
    r->stats.in.foreign++;
    return;
  }
  if (r->state == RMTP_RECEIVER_FAILED) {
    r->stats.in.late++;
    return;
  }
  r->last_heard = now;
  r->past_connect |= p.type != RMTP_CONN && p.type != RMTP_DROP;
  switch (p.type) {
    case RMTP_CONN:
      receiver_on_conn (r, &p, now);
      break;
    case RMTP_DATA:
      receiver_on_data (r, &p, src, data);
      break;
    case RMTP_PARITY:
    case RMTP_PARITY16:
      receiver_on_parity (r, &p, src, data, now);
      break;
    case RMTP_EOR:
    case RMTP_POLL:
      receiver_on_round (r, &p, receiver_window (r, p.window_us), now);
      break;
    case RMTP_REL:
      receiver_on_rel (r, &p, now);
      break;
    case RMTP_DROP:
      receiver_on_drop (r, &p);
      break;
    default:
      r->stats.in.foreign++;
      break;
  }
}

void
rmtp_receiver_handle (RmtpReceiver * r, const guint8 * data, gsize len,
    gint64 now)
{
  receiver_handle (r, data, len, NULL, now);
}

void
rmtp_receiver_handle_bytes (RmtpReceiver * r, GBytes * bytes, gint64 now)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  receiver_handle (r, data, len, bytes, now);
}

/* Whether the NACK lists @q. With parity, a block lists only as many of
 * its lost packets as it lacks parity rows to rebuild them (@left counts
 * down within the block), so the server sizes the block's parity to it. */
static gboolean
receiver_wants (const RmtpReceiver * r, guint32 q, guint * left)
{
  if (r->parity_block && q % r->parity_block == 0) {
    guint32 b = q / r->parity_block;
    guint lost = block_size (r->n_packets, r->parity_block, b) -
        r->block_have[b];
    guint held = r->blocks[b] ? r->blocks[b]->n : 0;

    *left = lost > held ? lost - held : 0;
  }
  if (r->have[q] || (r->parity_block && *left == 0))
    return FALSE;
  if (r->parity_block)
    (*left)--;
  return TRUE;
}

/* The packets still missing, as ranges (the first RMTP_MAX_RANGES; the
 * rest are asked for in a later round). */
static GArray *
receiver_missing_ranges (const RmtpReceiver * r)
{
  GArray *rg = g_array_new (FALSE, FALSE, sizeof (RmtpRange));
  guint left = 0;

  for (guint32 q = 0; q < r->n_packets && rg->len < RMTP_MAX_RANGES; q++) {
    RmtpRange x = { q, 0 };

    if (!receiver_wants (r, q, &left))
      continue;
    do {
      x.count++;
      q++;
    } while (q < r->n_packets && receiver_wants (r, q, &left));
    g_array_append_val (rg, x);
  }
  return rg;
}

/* The NACK lists what was missing when its EOR or POLL came (the ranges
 * kept then), or now. */
static void
receiver_queue_nack (RmtpReceiver * r, guint32 round)
{
  GArray *rg = r->answer_ranges ? r->answer_ranges :
      receiver_missing_ranges (r);
  guint8 *buf;
  WireWriter w;
  gsize len;

  r->answer_ranges = NULL;
  len = RMTP_HEADER_SIZE + 12 + 8 * (gsize) rg->len;
  buf = g_malloc (len);
  wire_writer_init (&w, buf, len);
  write_header (&w, RMTP_NACK, r->session);
  wire_write_u32 (&w, r->member);
  wire_write_u32 (&w, round);
  wire_write_u32 (&w, rg->len);
  for (guint i = 0; i < rg->len; i++) {
    wire_write_u32 (&w, g_array_index (rg, RmtpRange, i).first);
    wire_write_u32 (&w, g_array_index (rg, RmtpRange, i).count);
  }
  queue_datagram (&r->out, RMTP_TO_GROUP, buf, &w);
  g_array_unref (rg);
  r->stats.nack_sent++;
}

static void
receiver_send_due (RmtpReceiver * r, gint64 now)
{
  guint32 round = r->due_round;

  switch (r->due) {
    case DUE_CACK:
      {
        guint8 buf[RMTP_HEADER_SIZE + 5];
        WireWriter w;

        /* an answer to a retry, due when the rounds had begun: late (the
         * first CACK still goes, it may take us back) */
        if (r->stats.cack_sent > 0 && r->past_connect)
          break;

        wire_writer_init (&w, buf, sizeof (buf));
        write_header (&w, RMTP_CACK, r->session);
        wire_write_u32 (&w, r->member);
        wire_write_u8 (&w, r->accept);
        queue_datagram (&r->out, RMTP_TO_GROUP, g_memdup2 (buf, w.pos), &w);
        r->stats.cack_sent++;
        r->last_cack = now;
        if (!r->accept)
          receiver_fail (r, RMTP_FAIL_REFUSED);
        break;
      }
    case DUE_ROUND:
      r->responded_round = MAX (r->responded_round, (gint64) round);
      r->last_answer = now;
      if (r->state == RMTP_RECEIVER_COMPLETE) {
        queue_member_packet (&r->out, RMTP_TO_GROUP, RMTP_ACK, r->session,
            r->member, &round, 1);
        r->stats.ack_sent++;
        r->acked = TRUE;
      } else if (r->state == RMTP_RECEIVER_RECEIVING) {
        receiver_queue_nack (r, round);
      }
      g_clear_pointer (&r->answer_ranges, g_array_unref);
      break;
    case DUE_RACK:
      queue_member_packet (&r->out, RMTP_TO_GROUP, RMTP_RACK, r->session,
          r->member, NULL, 0);
      r->stats.rack_sent++;
      if (r->state == RMTP_RECEIVER_COMPLETE) {
        RmtpEvent *e = push_event (&r->events, RMTP_EVENT_DONE);

        e->bytes = r->delivered;
        r->state = RMTP_RECEIVER_DONE;
      }
      break;
    case DUE_NONE:
      break;
  }
}

/* The server may rightly be silent to us for a few answer windows (the
 * CONN retries, a round's answers and its POLLs): they scale with delta x
 * N, so the limit grows with the largest window announced. */
static gint64
receiver_silence_limit (const RmtpReceiver * r)
{
  return r->cfg.receiver_timeout + 4 * r->max_window;
}

void
rmtp_receiver_start (RmtpReceiver * r, gint64 now)
{
  if (!r->connected && r->cfg.connect_timeout > 0)
    r->conn_deadline = now + r->cfg.connect_timeout;
}

/* Whether the wait for the first CONN is still on. */
static gboolean
receiver_awaits_conn (const RmtpReceiver * r)
{
  return !r->connected && r->state != RMTP_RECEIVER_FAILED &&
      r->conn_deadline != G_MAXINT64;
}

void
rmtp_receiver_handle_timeout (RmtpReceiver * r, gint64 now)
{
  if (receiver_awaits_conn (r) && now >= r->conn_deadline) {
    receiver_fail (r, RMTP_FAIL_NO_CONN);
    return;
  }
  if (now >= r->due_at && r->state != RMTP_RECEIVER_FAILED &&
      !receiver_redraw_overdue (r, now)) {
    DueKind kind = r->due;

    r->due_at = G_MAXINT64;
    receiver_send_due (r, now);
    if (r->due == kind)
      r->due = DUE_NONE;
  }
  if ((r->connected || r->expect_stream) && r->state != RMTP_RECEIVER_DONE &&
      r->state != RMTP_RECEIVER_FAILED && r->last_heard != G_MAXINT64 &&
      now - r->last_heard >= receiver_silence_limit (r))
    receiver_fail (r, r->connected && r->n_have == r->n_packets ?
        RMTP_FAIL_SERVER_SILENT : RMTP_FAIL_INCOMPLETE);
}

void
rmtp_receiver_set_busy (RmtpReceiver * r, gboolean busy, gint64 now)
{
  gboolean is_busy = r->state == RMTP_RECEIVER_BUSY;

  if (!r->connected || busy == is_busy || (busy && r->state !=
          RMTP_RECEIVER_RECEIVING))
    return;
  r->state = busy ? RMTP_RECEIVER_BUSY : RMTP_RECEIVER_RECEIVING;
  if (busy)
    r->stats.busy_sent++;
  else
    r->stats.rrdy_sent++;
  queue_member_packet (&r->out, RMTP_TO_GROUP, busy ? RMTP_BUSY : RMTP_RRDY,
      r->session, r->member, NULL, 0);
  if (busy && r->due == DUE_ROUND) {
    r->due = DUE_NONE;
    r->due_at = G_MAXINT64;
  }
  r->last_heard = now;
}

gboolean
rmtp_receiver_poll_datagram (RmtpReceiver * r, RmtpDatagram * out)
{
  if (!polled_pop (&r->out, out, sizeof (*out)))
    return FALSE;
  seal_datagram (r->auth, out);
  return TRUE;
}

RmtpDecodeJob *
rmtp_receiver_take_decode_job (RmtpReceiver * r)
{
  return g_queue_pop_head (&r->jobs);
}

void
rmtp_decode_job_run (RmtpDecodeJob * job)
{
  guint8 **data = g_new (guint8 *, job->k);
  gboolean *have = g_new (gboolean, job->k);
  const guint8 **parity = g_new (const guint8 *, job->n_rows);

  for (guint i = 0; i < job->k; i++) {
    gsize plen = 0;
    const guint8 *d = job->held[i] ?
        g_bytes_get_data (job->held[i], &plen) : NULL;

    have[i] = d != NULL;
    if (have[i] && plen == job->len) {
      data[i] = (guint8 *) d;   /* read only */
      continue;
    }
    /* lost, or a short last packet zero-padded */
    data[i] = g_malloc0 (job->len);
    if (have[i])
      memcpy (data[i], d, plen);
  }
  for (guint j = 0; j < job->n_rows; j++)
    parity[j] = g_bytes_get_data (job->parity[j], NULL);
  job->ok = code_decode (job->parity_block, job->k, data, have, job->len,
      job->n_rows, job->rows, parity);
  for (guint i = 0; i < job->k; i++) {
    if (!have[i] && job->ok)
      job->out[i] = data[i];
    else if (!have[i] || data[i] != g_bytes_get_data (job->held[i], NULL))
      g_free (data[i]);
  }
  g_free (data);
  g_free (have);
  g_free (parity);
}

void
rmtp_decode_job_free (RmtpDecodeJob * job)
{
  if (!job)
    return;
  for (guint i = 0; i < job->k; i++) {
    if (job->held[i])
      g_bytes_unref (job->held[i]);
    g_free (job->out[i]);
  }
  for (guint j = 0; j < job->n_rows; j++)
    g_bytes_unref (job->parity[j]);
  g_free (job->held);
  g_free (job->out);
  g_free (job->rows);
  g_free (job->parity);
  g_free (job);
}

/* Whether @job is the one block @job->block of @r waits for. */
static gboolean
receiver_job_pending (const RmtpReceiver * r, const RmtpDecodeJob * job)
{
  return r->blocks && job->block < r->n_blocks && r->blocks[job->block] &&
      r->blocks[job->block]->job == job;
}

void
rmtp_receiver_decode_done (RmtpReceiver * r, RmtpDecodeJob * job)
{
  guint32 b = job->block, first;

  if (!receiver_job_pending (r, job)) {
    r->stats.decode_jobs_dropped++;
    rmtp_decode_job_free (job);
    return;
  }
  r->blocks[b]->job = NULL;
  first = b * r->parity_block;
  /* a packet that came during the decode is held already */
  for (guint i = 0; job->ok && i < job->k; i++)
    if (job->out[i] && !r->have[first + i]) {
      receiver_take_rebuilt (r, first + i, job->out[i]);
      job->out[i] = NULL;
    }
  rmtp_decode_job_free (job);
  if (r->state == RMTP_RECEIVER_FAILED)
    return;
  receiver_deliver (r);
  receiver_block_changed (r, b);
}

gboolean
rmtp_receiver_poll_event (RmtpReceiver * r, RmtpEvent * out)
{
  return polled_pop (&r->events, out, sizeof (*out));
}

gint64
rmtp_receiver_next_deadline (const RmtpReceiver * r)
{
  gint64 t = r->due_at;

  if ((r->connected || r->expect_stream) && r->last_heard != G_MAXINT64 &&
      r->state != RMTP_RECEIVER_DONE && r->state != RMTP_RECEIVER_FAILED)
    t = MIN (t, r->last_heard + receiver_silence_limit (r));
  if (receiver_awaits_conn (r))
    t = MIN (t, r->conn_deadline);
  return t;
}

RmtpReceiverState
rmtp_receiver_state (const RmtpReceiver * r)
{
  return r->state;
}

gboolean
rmtp_receiver_answer_due (const RmtpReceiver * r)
{
  return r->due != DUE_NONE;
}

const RmtpReceiverStats *
rmtp_receiver_stats (const RmtpReceiver * r)
{
  return &r->stats;
}

void
rmtp_receiver_expect_window (RmtpReceiver * r, guint32 window,
    guint64 offset, gint64 now)
{
  if (r->connected)
    return;
  r->expect_stream = TRUE;
  r->expect_window = window;
  r->expect_offset = offset;
  r->last_heard = now;
}

gboolean
rmtp_receiver_window (const RmtpReceiver * r, guint32 * window,
    guint64 * offset, gboolean * last)
{
  if (!r->connected || !r->stream)
    return FALSE;
  *window = r->window;
  *offset = r->offset;
  *last = r->last;
  return TRUE;
}

gboolean
rmtp_receiver_stream_digest (const RmtpReceiver * r, const guint8 ** digest)
{
  if (!r->connected || !r->stream || !r->last)
    return FALSE;
  *digest = r->stream_digest;
  return TRUE;
}

void
rmtp_receiver_abort (RmtpReceiver * r, RmtpFailReason reason)
{
  if (r->state == RMTP_RECEIVER_FAILED)
    return;
  clear_datagrams (&r->out);
  receiver_fail (r, reason);
}

guint32
rmtp_receiver_session (const RmtpReceiver * r)
{
  return r->connected ? r->session : 0;
}

gboolean
rmtp_receiver_data_set (const RmtpReceiver * r, guint64 * size,
    const guint8 ** digest)
{
  if (!r->connected)
    return FALSE;
  *size = r->total;
  *digest = r->digest;
  return TRUE;
}
