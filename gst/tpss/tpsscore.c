/* TPSS + NQCP group transport: a sans-I/O core (GLib only).
 * See tpsscore.h and docs/protocols/tpss.md. */
#include "tpsscore.h"
#include "tpsslayers.h"
#include "core/wire.h"
#include "core/rtcp.h"
#include "core/ntp.h"
#include "core/polled.h"

#include <string.h>

#define TPSS_APP_NAME "TPSS"
#define APP_HEADER_SIZE 16      /* common header, SSRC, name, media SSRC */
/* flags of a RATE (its ninth byte) */
#define RATE_ASSIGN 0x80
#define RATE_HOLD 0x40

#define NS_PER_S G_GINT64_CONSTANT (1000000000)
#define NS_PER_US 1000

/* The sender never lowers a data rate below this (a RATE of 0, an allocation
 * of nothing, still leaves a trickle for the receiver to measure). */
#define TPSS_MIN_RATE 8000
/* A receiver waiting for the report that answers its RATE gives up after
 * this many report intervals and measures again. */
#define WAIT_INTERVALS 3
/* The application-limited bound measures the data MQ sent over the last
 * USE_BUCKETS x USE_BUCKET_NS. */
#define USE_BUCKETS 10
#define USE_BUCKET_NS (50 * G_GINT64_CONSTANT (1000000))
/* A probe whose FEC segment takes longer than this many report intervals
 * closes it early (probe_flush_time). */
#define PROBE_SEGMENT_INTERVALS 2

/* ------------------------------------------------------------------ */
/* Arithmetic */

static guint64
scale_rate (guint64 rate, gdouble factor)
{
  gdouble r = (gdouble) rate * factor + 0.5;

  return r >= 1.8e19 ? G_MAXUINT64 : (guint64) r;
}

/* Middle 32 bits of an NTP-like timestamp of @now (16.16 seconds), never 0:
 * 0 means "no report" in an echo, as RTCP's LSR. */
static guint32
ntp32 (gint64 now)
{
  guint32 v = ntp_short_from_ns (now);

  return v ? v : 1;
}

static gint64
slot_of (gint64 t)
{
  return t >= 0 ? t / TPSS_SLOT_NS : -((-t + TPSS_SLOT_NS - 1) / TPSS_SLOT_NS);
}

/* ------------------------------------------------------------------ */
/* Configuration */

void
tpss_config_init (TpssConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->slow_start = TPSS_SLOW_START_TPSS;
  cfg->control = TPSS_CONTROL_NOTIFICATION;
  cfg->delivery = TPSS_DELIVERY_PRIORITY;
  cfg->initial_rate = 1000000;
  cfg->max_rate = 1000000000;
  cfg->packet_distance = 20;
  cfg->initial_length = 5;
  cfg->loss_threshold = 0.05;
  cfg->decrease = 0.8;
  cfg->increase = 1.2;
  cfg->holding_time = 100 * G_GINT64_CONSTANT (1000000);
  cfg->min_report_interval = 20 * G_GINT64_CONSTANT (1000000);
  cfg->max_receive_rate = 0;
  cfg->member_timeout = 5 * NS_PER_S;
  cfg->hello_interval = NS_PER_S;
  cfg->max_queue_bytes = 64 * 1024 * 1024;
  cfg->admission_burst = 40 * G_GINT64_CONSTANT (1000000);
  cfg->pacing_catch_up = 10 * G_GINT64_CONSTANT (1000000);
  cfg->pacing_catch_up_budget = 0;
  cfg->pacing_catch_up_factor = 1.25;
  cfg->app_limit_factor = 2.0;
}

/* ------------------------------------------------------------------ */
/* Wire */

static gsize
msg_body_size (guint type)
{
  switch (type) {
    case TPSS_MSG_QOS:
      return 12;
    case TPSS_MSG_RATE:
      return 24;
    case TPSS_MSG_REPORT:
      return 36;
    case TPSS_MSG_HELLO:
      return 8;
    default:
      return 0;
  }
}

static void
qos_read (const guint8 * p, TpssQos * q)
{
  q->bytes = read32 (p);
  q->tt_us = read32 (p + 4);
  q->ht_us = read32 (p + 8);
}

static void
qos_write (const TpssQos * q, guint8 * p)
{
  write32 (p, q->bytes);
  write32 (p + 4, q->tt_us);
  write32 (p + 8, q->ht_us);
}

/* The join check's HELLO extension after member_id: cookie_to (32 bits),
 * kind (8), cookie (56). A body too short, or of an unknown kind, is a
 * plain HELLO (the rest of a packet is ignored). */
#define HELLO_COOKIE_BODY_SIZE 20

static void
hello_cookie_read (const guint8 * b, gsize body, TpssMsg * msg)
{
  guint64 c = 0;

  if (body < HELLO_COOKIE_BODY_SIZE || b[12] < TPSS_COOKIE_CHALLENGE ||
      b[12] > TPSS_COOKIE_ECHO)
    return;
  msg->u.hello.cookie_to = read32 (b + 8);
  msg->u.hello.cookie_kind = b[12];
  for (guint i = 13; i < HELLO_COOKIE_BODY_SIZE; i++)
    c = (c << 8) | b[i];
  msg->u.hello.cookie = c;
}

static void
hello_cookie_write (const TpssMsg * msg, guint8 * b)
{
  guint64 c = msg->u.hello.cookie;

  write32 (b + 8, msg->u.hello.cookie_to);
  b[12] = msg->u.hello.cookie_kind;
  for (guint i = HELLO_COOKIE_BODY_SIZE; i-- > 13; c >>= 8)
    b[i] = c & 0xff;
}

gboolean
tpss_msg_parse (const guint8 * data, gsize len, TpssMsg * msg,
    gsize * consumed)
{
  RtcpPacket pkt;
  gsize plen, body;
  guint type;
  const guint8 *b;

  if (consumed)
    *consumed = 0;
  if (!rtcp_header_parse (data, len, &pkt))
    return FALSE;
  plen = pkt.len;
  if (consumed)
    *consumed = plen;

  type = pkt.count;
  body = msg_body_size (type);
  if (pkt.padding || pkt.type != RTCP_PT_APP || plen < APP_HEADER_SIZE ||
      memcmp (data + 8, TPSS_APP_NAME, 4) != 0 || body == 0 ||
      plen < APP_HEADER_SIZE + body)
    return FALSE;

  memset (msg, 0, sizeof (*msg));
  msg->type = type;
  msg->sender_ssrc = read32 (data + 4);
  msg->media_ssrc = read32 (data + 12);
  b = data + APP_HEADER_SIZE;
  switch (type) {
    case TPSS_MSG_QOS:
      qos_read (b, &msg->u.qos);
      break;
    case TPSS_MSG_RATE:
      msg->u.rate.rate = read64 (b);
      msg->u.rate.assign = (b[8] & RATE_ASSIGN) != 0;
      msg->u.rate.hold = (b[8] & RATE_HOLD) != 0;
      msg->u.rate.echo_ntp = read32 (b + 12);
      msg->u.rate.delay = read32 (b + 16);
      msg->u.rate.seq = read32 (b + 20);
      break;
    case TPSS_MSG_REPORT:
      msg->u.report.dest_ssrc = read32 (b);
      msg->u.report.ntp = read32 (b + 4);
      msg->u.report.rtt = read32 (b + 8);
      msg->u.report.rate_seq = read32 (b + 12);
      msg->u.report.send_rate = read64 (b + 16);
      msg->u.report.data_rate = read64 (b + 24);
      if (b[32] > TPSS_PHASE_NON_REDUNDANT)
        return FALSE;
      msg->u.report.phase = b[32];
      msg->u.report.distance = b[33];
      msg->u.report.length = b[34];
      if (msg->u.report.distance == 0)
        return FALSE;
      break;
    case TPSS_MSG_HELLO:
      msg->u.hello.ntp = read32 (b);
      msg->u.hello.member_id = read32 (b + 4);
      hello_cookie_read (b, plen - APP_HEADER_SIZE, msg);
      break;
  }
  return TRUE;
}

/* A BYE: its first source is the member that leaves (the others, if any,
 * are that member's other streams). */
static TpssRtcpKind
classify_bye (const guint8 * data, gsize len, TpssMsg * msg)
{
  RtcpPacket pkt;
  RtcpBye bye;

  memset (msg, 0, sizeof (*msg));
  if (!rtcp_header_parse (data, len, &pkt) || !rtcp_bye_parse (&pkt, &bye) ||
      bye.n_sources == 0)
    return TPSS_RTCP_BAD;
  msg->sender_ssrc = msg->media_ssrc = bye.sources[0];
  return TPSS_RTCP_BYE;
}

TpssRtcpKind
tpss_rtcp_next (const guint8 * data, gsize len, TpssMsg * msg,
    gsize * consumed)
{
  gsize plen = 0;

  if (tpss_msg_parse (data, len, msg, &plen)) {
    *consumed = plen;
    return TPSS_RTCP_MSG;
  }
  *consumed = plen;
  if (plen == 0)
    return TPSS_RTCP_MALFORMED;
  if (data[1] == RTCP_PT_PSFB && (data[0] & 0x1f) == RTCP_FMT_PLI) {
    memset (msg, 0, sizeof (*msg));
    return rtcp_pli_parse (data, plen, &msg->sender_ssrc, &msg->media_ssrc) ?
        TPSS_RTCP_PLI : TPSS_RTCP_BAD;
  }
  if (data[1] == RTCP_PT_BYE)
    return classify_bye (data, plen, msg);
  if (data[1] == RTCP_PT_APP && plen >= 12 &&
      memcmp (data + 8, TPSS_APP_NAME, 4) == 0)
    return TPSS_RTCP_BAD;
  return TPSS_RTCP_OTHER;
}

gsize
tpss_msg_write (const TpssMsg * msg, guint8 * out)
{
  gsize body = msg_body_size (msg->type), len;
  guint8 *b;

  if (body == 0)
    return 0;
  if (msg->type == TPSS_MSG_HELLO &&
      msg->u.hello.cookie_kind != TPSS_COOKIE_NONE)
    body = HELLO_COOKIE_BODY_SIZE;
  len = APP_HEADER_SIZE + body;
  memset (out, 0, len);
  out[0] = (RTCP_VERSION << 6) | msg->type;
  out[1] = RTCP_PT_APP;
  write16 (out + 2, (guint16) (len / 4 - 1));
  write32 (out + 4, msg->sender_ssrc);
  memcpy (out + 8, TPSS_APP_NAME, 4);
  write32 (out + 12, msg->media_ssrc);
  b = out + APP_HEADER_SIZE;
  switch (msg->type) {
    case TPSS_MSG_QOS:
      qos_write (&msg->u.qos, b);
      break;
    case TPSS_MSG_RATE:
      write64 (b, msg->u.rate.rate);
      b[8] = (msg->u.rate.assign ? RATE_ASSIGN : 0) |
          (msg->u.rate.hold ? RATE_HOLD : 0);
      write32 (b + 12, msg->u.rate.echo_ntp);
      write32 (b + 16, msg->u.rate.delay);
      write32 (b + 20, msg->u.rate.seq);
      break;
    case TPSS_MSG_REPORT:
      write32 (b, msg->u.report.dest_ssrc);
      write32 (b + 4, msg->u.report.ntp);
      write32 (b + 8, msg->u.report.rtt);
      write32 (b + 12, msg->u.report.rate_seq);
      write64 (b + 16, msg->u.report.send_rate);
      write64 (b + 24, msg->u.report.data_rate);
      b[32] = msg->u.report.phase;
      b[33] = msg->u.report.distance;
      b[34] = msg->u.report.length;
      break;
    case TPSS_MSG_HELLO:
      write32 (b, msg->u.hello.ntp);
      write32 (b + 4, msg->u.hello.member_id);
      if (msg->u.hello.cookie_kind != TPSS_COOKIE_NONE)
        hello_cookie_write (msg, b);
      break;
  }
  return len;
}

void
tpss_qos_ext_write (const TpssQos * qos, guint8 * out)
{
  qos_write (qos, out);
}

gboolean
tpss_qos_ext_parse (const guint8 * data, gsize len, TpssQos * qos)
{
  if (data == NULL || len != TPSS_QOS_EXT_SIZE)
    return FALSE;
  qos_read (data, qos);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The member */

/* Bytes sent over the application-limited window, USE_BUCKETS buckets of
 * USE_BUCKET_NS. */
typedef struct {
  guint64 bytes[USE_BUCKETS];   /* per bucket (ring) */
  gint64 bucket;                /* index (time / USE_BUCKET_NS) of the newest */
  gint64 first;                 /* time of the first byte counted, -1 none */
} UseWindow;

typedef struct {
  guint32 bytes;
  gint64 t;                     /* pk.T: enqueue time */
  guint8 layer;                 /* temporal layer, or TPSS_LAYER_ANY */
} QPkt;

typedef struct {
  guint32 dest;
  TpssMsg msg;
} OutMsg;

typedef enum {
  RX_IDLE,                      /* no report from the source yet, or none
                                 * answered our last RATE in time */
  RX_MEASURING,                 /* counting one report interval */
  RX_WAITING,                   /* RATE sent, waiting for the answering report */
} RxState;

typedef struct {
  guint32 id;
  guint priority;
  gint64 last_seen;
  gboolean heard;               /* anything from it has arrived */

  /* Sender flow toward this peer (section 2.3, 2.4). */
  TpssPhase phase;
  guint64 data_rate, send_rate, notified;
  guint k, l;
  gint64 rtt;
  guint64 packets_sent, bytes_sent;
  UseWindow sent;               /* the data sent toward it */
  gboolean have_rate;
  guint32 rate_seq;             /* last RATE seq applied */
  gint64 next_report;
  guint64 probe_start;          /* packets_sent when the probe began */
  gint64 probe_first;           /* its first packet's departure, -1 none */
  gboolean probe_flushed;       /* its FEC segment was closed early */
  guint64 probe_sum, probe_n;   /* rates assigned during the probe */

  /* Receiver flow from this peer (section 4's rule, section 3.2). */
  RxState rx;
  TpssPhase src_phase;
  guint64 src_send_rate, src_data_rate;
  guint src_length;
  gint64 src_rtt;
  guint32 report_ntp;
  gint64 report_time;
  gint64 iv_start, rx_deadline;
  guint32 seq_sent;
  guint64 iv_received, iv_lost, iv_bytes;
  guint64 iv_parity_lost;       /* parity gaps: no complete receipt */
  guint64 received, lost, recovered, not_delivered;
  guint64 receive_rate, allocated, notified_out;
  guint64 late_reports;         /* ran over an interval past the deadline */
  guint64 assigns, holds;       /* RATEs sent with ASSIGN, with hold */

  /* Layered: the prefix of layers it is sent (0: all), and the QOS
   * control packet announcing them not yet popped. */
  guint prefix;
  OutMsg *pending_qos;

  /* NQCP: the latest announcement, as a rate over a time window. */
  gboolean have_qos;
  TpssQos last_qos;
  guint64 qos_rate;             /* bits/s, with the source's redundancy */
  gint64 qos_start, qos_end;

  /* Admission: a token bucket filled at the allocation each slot. */
  gint64 tokens;                /* bytes; may be one packet in debt */
  gint64 depth;                 /* bytes; 0 while nothing is allocated */

  /* The lowest D in effect in each bucket of the application-limited
   * window (ring, as UseWindow's bytes), to set what MQ sent over
   * that window against the rate it had then (uses_rate). */
  guint64 d_low[USE_BUCKETS];
  gint64 d_bucket;              /* index of the newest, -1 before any */
} Peer;

struct _TpssMember {
  guint32 ssrc;
  TpssConfig cfg;
  GPtrArray *peers;

  GQueue msgs;                  /* OutMsg */
  OutMsg *pending_qos;          /* control packet not yet popped */
  gint64 pending_qos_time;
  GQueue events;                /* TpssEvent */

  /* MQ */
  GQueue mq;                    /* QPkt */
  guint64 mq_bytes;
  guint64 mq_layer_bytes[TPSS_MAX_LAYERS];      /* of mq_bytes, by layer */
  gint64 next_send;             /* pacing: earliest next departure */
  gint64 pacing_skipped;        /* ns not made up after a late loop */
  /* pacing_catch_up_budget: the mirror of a receiver's bucket for us, as
   * ns at TR (refilled by time, spent by what leaves), the missed time
   * still to make up, and what was made up from it. */
  gint64 catch_up_credit, catch_up_time, catch_up_debt, pacing_made_up;
  guint64 tr;                   /* TR: data rate, min D over destinations
                                 * (max D when layered) */
  gboolean layered;             /* each destination gets a prefix of layers */
  gboolean sending;             /* anything enqueued yet */
  UseWindow use;                /* the data MQ sent */

  gboolean started;
  gint64 next_hello;

  /* Admission */
  gint64 slot;
  gint64 pool;                  /* bucket of the unallocated capacity and
                                 * of what full buckets overflow, bytes */
};

static void
push_event (TpssMember * m, TpssEventType type, guint32 member)
{
  TpssEvent *ev = polled_push (&m->events, sizeof (TpssEvent));

  ev->type = type;
  ev->member = member;
}

static void
push_parity_event (TpssMember * m, Peer * p)
{
  TpssEvent *ev = polled_push (&m->events, sizeof (TpssEvent));

  ev->type = TPSS_EVENT_PARITY;
  ev->member = p->id;
  ev->distance = p->k;
  ev->length = p->l;
  ev->phase = p->phase;
}

static void
push_phase_event (TpssMember * m, Peer * p)
{
  TpssEvent *ev = polled_push (&m->events, sizeof (TpssEvent));

  ev->type = TPSS_EVENT_PHASE;
  ev->member = p->id;
  ev->phase = p->phase;
  ev->distance = p->k;
  ev->length = p->l;
}

static OutMsg *
push_msg (TpssMember * m, guint32 dest, TpssMsgType type, guint32 media)
{
  OutMsg *o = polled_push (&m->msgs, sizeof (OutMsg));

  o->dest = dest;
  o->msg.type = type;
  o->msg.sender_ssrc = m->ssrc;
  o->msg.media_ssrc = media;
  return o;
}

static Peer *
find_peer (const TpssMember * m, guint32 ssrc, guint * index)
{
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    if (p->id == ssrc) {
      if (index)
        *index = i;
      return p;
    }
  }
  return NULL;
}

static gint64
hold_time (const TpssMember * m)
{
  /* The feedback baseline announces nothing and so holds nothing. */
  return m->cfg.control == TPSS_CONTROL_NOTIFICATION ? m->cfg.holding_time : 0;
}

/* TT = D / TR in microseconds, truncated. */
static guint32
transmission_time_us (const TpssMember * m, guint64 bytes)
{
  guint64 us = muldiv (bytes, 8 * G_GUINT64_CONSTANT (1000000), m->tr);

  return us > G_MAXUINT32 ? G_MAXUINT32 : (guint32) us;
}

/* The bytes of MQ that go to @p: layered, those of the layers in its
 * prefix and those outside the layering; else (or @p NULL) all of MQ. */
static guint64
queued_bytes_for (const TpssMember * m, const Peer * p)
{
  guint64 bytes = m->mq_bytes;

  if (m->layered && p && p->prefix > 0)
    for (guint l = p->prefix; l < TPSS_MAX_LAYERS; l++)
      bytes -= m->mq_layer_bytes[l];
  return bytes;
}

/* <D, TT, HT> of the queue as it is at @now (section 3.1), as destination
 * @p (NULL: any) gets it. A prefix of the layers is spread over the whole
 * queue's departure, so TT stays that of the whole queue: D / TT is the
 * rate the prefix arrives at. */
static void
queue_qos (const TpssMember * m, const Peer * p, gint64 now, TpssQos * q)
{
  const QPkt *top = m->mq.head ? m->mq.head->data : NULL;

  q->bytes = (guint32) MIN (queued_bytes_for (m, p), G_MAXUINT32);
  q->tt_us = transmission_time_us (m, m->mq_bytes);
  q->ht_us = 0;
  if (top) {
    gint64 ht = hold_time (m) - (now - top->t);
    q->ht_us = ht > 0 ? (guint32) MIN (ht / NS_PER_US, G_MAXUINT32) : 0;
  }
}

static gint64
report_interval (const TpssMember * m, const Peer * p)
{
  return MAX (p->src_rtt, m->cfg.min_report_interval);
}

/* TR is the minimum data rate over destinations: one encoding feeds all.
 * Layered, the whole stream goes to the fastest (the others get a prefix of
 * it), so TR is the maximum. */
static void
update_data_rate (TpssMember * m)
{
  guint64 tr = m->layered ? 0 : G_MAXUINT64;
  TpssEvent *ev;

  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    tr = m->layered ? MAX (tr, p->data_rate) : MIN (tr, p->data_rate);
  }
  if (m->peers->len == 0 || tr == m->tr)
    return;
  m->tr = tr;
  ev = polled_push (&m->events, sizeof (TpssEvent));
  ev->type = TPSS_EVENT_DATA_RATE;
  ev->rate = tr;
}

static void
send_report (TpssMember * m, Peer * p, gint64 now)
{
  OutMsg *o = push_msg (m, p->id, TPSS_MSG_REPORT, m->ssrc);

  o->msg.u.report.dest_ssrc = p->id;
  o->msg.u.report.ntp = ntp32 (now);
  o->msg.u.report.rtt = p->rtt >= 0 ?
      MAX (ntp_duration_to_short (p->rtt), 1) : 0;
  o->msg.u.report.rate_seq = p->rate_seq;
  o->msg.u.report.send_rate = p->send_rate;
  o->msg.u.report.data_rate = p->data_rate;
  o->msg.u.report.phase = p->phase;
  o->msg.u.report.distance = (guint8) p->k;
  o->msg.u.report.length = (guint8) p->l;
  p->next_report = now + m->cfg.hello_interval;
}

static void
send_hello (TpssMember * m, gint64 now)
{
  OutMsg *o = push_msg (m, 0, TPSS_MSG_HELLO, m->ssrc);

  o->msg.u.hello.ntp = ntp32 (now);
  o->msg.u.hello.member_id = m->ssrc;
  m->next_hello = now + m->cfg.hello_interval;
}

static void
ensure_started (TpssMember * m, gint64 now)
{
  if (m->started)
    return;
  m->started = TRUE;
  m->slot = G_MININT64;
  send_hello (m, now);
}

static Peer *
add_peer (TpssMember * m, guint32 ssrc, guint priority, gint64 now)
{
  Peer *p;

  if (ssrc == m->ssrc || m->peers->len >= TPSS_MAX_MEMBERS - 1)
    return NULL;
  p = g_new0 (Peer, 1);
  p->id = ssrc;
  p->priority = priority;
  p->last_seen = now;
  p->k = CLAMP (m->cfg.packet_distance, 1, 255);
  p->data_rate = CLAMP (m->cfg.initial_rate, TPSS_MIN_RATE,
      MAX (m->cfg.max_rate, TPSS_MIN_RATE));
  if (m->cfg.slow_start == TPSS_SLOW_START_TPSS) {
    p->phase = TPSS_PHASE_REDUNDANT;
    p->l = CLAMP (m->cfg.initial_length, 1, 255);
    p->send_rate = p->data_rate + p->data_rate / p->l;
  } else {
    p->phase = TPSS_PHASE_NON_REDUNDANT;
    p->l = 0;
    p->send_rate = p->data_rate;
  }
  p->rtt = -1;
  p->probe_first = -1;
  p->sent.first = -1;
  p->d_bucket = -1;
  p->src_rtt = 0;
  p->rx = RX_IDLE;
  g_ptr_array_add (m->peers, p);

  push_event (m, TPSS_EVENT_MEMBER_JOINED, ssrc);
  push_phase_event (m, p);
  push_parity_event (m, p);
  update_data_rate (m);
  if (m->sending)
    send_report (m, p, now);
  return p;
}

static void
remove_peer_at (TpssMember * m, guint index)
{
  Peer *p = g_ptr_array_index (m->peers, index);

  push_event (m, TPSS_EVENT_MEMBER_LEFT, p->id);
  g_ptr_array_remove_index (m->peers, index);
  update_data_rate (m);
}

TpssMember *
tpss_member_new (guint32 own_ssrc, const TpssConfig * cfg)
{
  TpssMember *m = g_new0 (TpssMember, 1);

  m->ssrc = own_ssrc;
  if (cfg)
    m->cfg = *cfg;
  else
    tpss_config_init (&m->cfg);
  if (m->cfg.hello_interval <= 0)
    m->cfg.hello_interval = NS_PER_S;
  if (m->cfg.min_report_interval <= 0)
    m->cfg.min_report_interval = 1;
  m->peers = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&m->msgs);
  g_queue_init (&m->events);
  g_queue_init (&m->mq);
  m->tr = CLAMP (m->cfg.initial_rate, TPSS_MIN_RATE,
      MAX (m->cfg.max_rate, TPSS_MIN_RATE));
  m->next_send = G_MININT64;
  m->catch_up_credit = m->cfg.pacing_catch_up_budget;
  m->catch_up_time = G_MININT64;
  m->use.first = -1;
  return m;
}

void
tpss_member_free (TpssMember * m)
{
  if (!m)
    return;
  g_ptr_array_unref (m->peers);
  polled_clear (&m->msgs);
  polled_clear (&m->events);
  g_queue_clear_full (&m->mq, g_free);
  g_free (m);
}

void
tpss_member_add_peer (TpssMember * m, guint32 ssrc, guint priority,
    gint64 now)
{
  Peer *p;

  ensure_started (m, now);
  p = find_peer (m, ssrc, NULL);
  if (p) {
    p->priority = priority;
    p->last_seen = now;
    return;
  }
  add_peer (m, ssrc, priority, now);
}

void
tpss_member_remove_peer (TpssMember * m, guint32 ssrc, gint64 now)
{
  guint i;

  ensure_started (m, now);
  if (find_peer (m, ssrc, &i))
    remove_peer_at (m, i);
}

/* ------------------------------------------------------------------ */
/* Sender: MQ (section 3.1) */

/* Moves @w's ring forward to @now's bucket. */
static void
use_window_roll (UseWindow * w, gint64 now)
{
  gint64 b = now / USE_BUCKET_NS;

  if (b - w->bucket >= USE_BUCKETS)
    memset (w->bytes, 0, sizeof (w->bytes));
  else
    for (gint64 i = w->bucket + 1; i <= b; i++)
      w->bytes[i % USE_BUCKETS] = 0;
  w->bucket = MAX (b, w->bucket);
}

static void
use_window_count (UseWindow * w, guint32 bytes, gint64 now)
{
  if (w->first < 0) {
    w->first = now;
    w->bucket = now / USE_BUCKET_NS;
    memset (w->bytes, 0, sizeof (w->bytes));
  }
  use_window_roll (w, now);
  w->bytes[w->bucket % USE_BUCKETS] += bytes;
}

/* The rate @w counted over its USE_BUCKETS buckets (or since its first
 * byte, at least one bucket). */
static guint64
use_window_rate (UseWindow * w, gint64 now)
{
  guint64 bytes = 0;
  gint64 span;

  if (w->first >= 0) {
    use_window_roll (w, now);
    for (guint i = 0; i < USE_BUCKETS; i++)
      bytes += w->bytes[i];
  }
  span = MIN (now - w->first, USE_BUCKETS * USE_BUCKET_NS);
  span = MAX (span, USE_BUCKET_NS);
  return muldiv (bytes, 8 * NS_PER_S, (guint64) span);
}

/* The data rate MQ sent over the application-limited window. */
static guint64
sent_rate (TpssMember * m, gint64 now)
{
  return use_window_rate (&m->use, now);
}

/* What the flow has shown it uses: app_limit_factor x sent_rate;
 * G_MAXUINT64 when unbounded. */
static guint64
shown_use (TpssMember * m, gint64 now)
{
  if (m->cfg.app_limit_factor <= 0)
    return G_MAXUINT64;
  return MAX (scale_rate (sent_rate (m, now), m->cfg.app_limit_factor),
      TPSS_MIN_RATE);
}

/* What the flow has shown it uses, as an ASSIGN may bound D by: as
 * shown_use, but no bound (G_MAXUINT64) when MQ has sent before and sent
 * nothing over the window. That is a pause of the application (an encoder
 * held up), which shows nothing about what it uses, as RFC 7661 takes no
 * pipeACK sample then; bound by it, an ASSIGN set D to TPSS_MIN_RATE. */
static guint64
shown_use_for_assign (TpssMember * m, gint64 now)
{
  if (m->use.first >= 0 && sent_rate (m, now) == 0)
    return G_MAXUINT64;
  return shown_use (m, now);
}

/* What the flow sends now, for the application-limited rules; G_MAXUINT64
 * when they are off (app_limit_factor 0). */
static guint64
used_rate (TpssMember * m, gint64 now)
{
  return m->cfg.app_limit_factor <= 0 ? G_MAXUINT64 : sent_rate (m, now);
}

/* The highest D the flow may have: what it has shown it uses, never below
 * initial_rate. RFC 7661's rule for a window that the application does not
 * fill, for a rate. */
static guint64
app_limit (TpssMember * m, gint64 now)
{
  return MAX (shown_use (m, now), MAX (m->cfg.initial_rate, TPSS_MIN_RATE));
}

/* A control packet without data tells the destinations <D, TT, HT> at
 * once: one for all, or layered, one for each with its prefix. */
static void
announce_queue (TpssMember * m, gint64 now)
{
  m->pending_qos_time = now;
  if (!m->layered) {
    m->pending_qos = push_msg (m, 0, TPSS_MSG_QOS, m->ssrc);
    queue_qos (m, NULL, now, &m->pending_qos->msg.u.qos);
    return;
  }
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    p->pending_qos = push_msg (m, p->id, TPSS_MSG_QOS, m->ssrc);
    queue_qos (m, p, now, &p->pending_qos->msg.u.qos);
  }
}

/* Updates the control packets announce_queue() made at @now that have not
 * left yet. */
static void
update_announcement (TpssMember * m, gint64 now)
{
  if (m->pending_qos_time != now)
    return;
  if (m->pending_qos)
    queue_qos (m, NULL, now, &m->pending_qos->msg.u.qos);
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    if (p->pending_qos)
      queue_qos (m, p, now, &p->pending_qos->msg.u.qos);
  }
}

gboolean
tpss_member_enqueue (TpssMember * m, guint32 bytes, gint64 now)
{
  return tpss_member_enqueue_layer (m, bytes, TPSS_LAYER_ANY, now);
}

gboolean
tpss_member_enqueue_layer (TpssMember * m, guint32 bytes, guint layer,
    gint64 now)
{
  QPkt *pk;
  gboolean was_empty = g_queue_is_empty (&m->mq);

  ensure_started (m, now);
  if (m->cfg.max_queue_bytes && m->mq_bytes + bytes > m->cfg.max_queue_bytes)
    return FALSE;

  pk = g_new (QPkt, 1);
  pk->bytes = bytes;
  pk->t = now;
  pk->layer = layer < TPSS_MAX_LAYERS ? layer : TPSS_LAYER_ANY;
  g_queue_push_tail (&m->mq, pk);
  m->mq_bytes += bytes;
  if (pk->layer != TPSS_LAYER_ANY)
    m->mq_layer_bytes[pk->layer] += bytes;

  if (!m->sending) {
    m->sending = TRUE;
    for (guint i = 0; i < m->peers->len; i++)
      send_report (m, g_ptr_array_index (m->peers, i), now);
  }

  if (m->cfg.control != TPSS_CONTROL_NOTIFICATION || m->peers->len == 0)
    return TRUE;
  if (was_empty) {
    /* The top packet of a message entered an empty MQ. */
    announce_queue (m, now);
  } else {
    /* Further packets of the same message (same time), before the control
     * packet left: it announces the whole message, as pkt(m) in 3.1. */
    update_announcement (m, now);
  }
  return TRUE;
}

static gint64
queue_departure (const TpssMember * m)
{
  const QPkt *top = m->mq.head ? m->mq.head->data : NULL;

  if (!top)
    return -1;
  return MAX (top->t + hold_time (m), m->next_send);
}

/* The catch-up credit at @now: it refills with time up to the budget. */
static gint64
refill_catch_up (TpssMember * m, gint64 now)
{
  gint64 budget = m->cfg.pacing_catch_up_budget;

  if (m->catch_up_time != G_MININT64 && now > m->catch_up_time)
    m->catch_up_credit = MIN (budget,
        m->catch_up_credit + (now - m->catch_up_time));
  m->catch_up_time = now;
  return m->catch_up_credit;
}

/* The top packet's departure for a dequeue at @now: a loop that ran late
 * makes up at most pacing_catch_up of it, and what follows leaves at TR
 * from there. Without the bound a sender held off the CPU for 100 ms sent
 * its backlog back to back, above what its receivers admit (tpss-admission
 * with the prioritized sender stopped 100 ms a second: 131 refused). Of
 * the rest, what the catch-up credit covers beyond that first part and the
 * debt still owed is kept as debt, made up at pacing_catch_up_factor x TR
 * (pace_next); the remainder is skipped. */
static gint64
paced_departure (TpssMember * m, gint64 now)
{
  gint64 dep = queue_departure (m), bound = m->cfg.pacing_catch_up;

  if (bound > 0 && now - dep > bound) {
    gint64 excess = now - dep - bound, keep = 0;

    if (m->cfg.pacing_catch_up_budget > 0)
      keep = CLAMP (refill_catch_up (m, now) - bound - m->catch_up_debt, 0,
          excess);
    m->catch_up_debt += keep;
    m->pacing_skipped += excess - keep;
    dep = now - bound;
  }
  return dep;
}

/* The departure after a packet of @bytes that left at @dep: at TR, or,
 * once the part made up at once has left, faster (pacing_catch_up_factor x
 * TR) while there is debt to make up. */
static gint64
pace_next (TpssMember * m, gint64 dep, guint32 bytes, gint64 now)
{
  gint64 tx = (gint64) muldiv_ceil (bytes, 8 * NS_PER_S, m->tr), cut;

  if (m->cfg.pacing_catch_up_budget <= 0)
    return dep + tx;
  refill_catch_up (m, now);
  m->catch_up_credit -= tx;
  if (dep + tx <= now)
    return dep + tx;
  cut = MIN (MIN (m->catch_up_debt, dep + tx - now),
      tx - (gint64) (tx / MAX (m->cfg.pacing_catch_up_factor, 1.0)));
  m->catch_up_debt -= cut;
  m->pacing_made_up += cut;
  return dep + tx - cut;
}

static void
count_peer_sent (Peer * p, guint32 bytes, gint64 now)
{
  p->packets_sent++;
  p->bytes_sent += bytes;
  use_window_count (&p->sent, bytes, now);
  if (p->phase == TPSS_PHASE_REDUNDANT && p->probe_first < 0)
    p->probe_first = now;
}

void
tpss_member_set_layered (TpssMember * m, gboolean layered)
{
  if (m->layered == layered)
    return;
  m->layered = layered;
  update_data_rate (m);
}

void
tpss_member_count_sent (TpssMember * m, guint32 dest, guint32 bytes,
    gint64 now)
{
  Peer *p = find_peer (m, dest, NULL);

  if (p && m->layered)
    count_peer_sent (p, bytes, now);
}

guint
tpss_member_dequeue (TpssMember * m, gint64 now, TpssQos * piggyback)
{
  guint n = 0;

  ensure_started (m, now);
  while (!g_queue_is_empty (&m->mq)) {
    gint64 dep = paced_departure (m, now);
    QPkt *pk;

    if (dep > now)
      break;
    pk = g_queue_pop_head (&m->mq);
    m->mq_bytes -= pk->bytes;
    if (pk->layer != TPSS_LAYER_ANY)
      m->mq_layer_bytes[pk->layer] -= pk->bytes;
    m->next_send = pace_next (m, dep, pk->bytes, now);
    use_window_count (&m->use, pk->bytes, now);
    for (guint i = 0; i < m->peers->len && !m->layered; i++)
      count_peer_sent (g_ptr_array_index (m->peers, i), pk->bytes, now);
    g_free (pk);
    n++;
  }
  if (g_queue_is_empty (&m->mq))
    m->catch_up_debt = 0;       /* nothing left behind to make up */
  if (piggyback)
    queue_qos (m, NULL, now, piggyback);
  return n;
}

gint64
tpss_member_pacing_skipped (const TpssMember * m)
{
  return m->pacing_skipped;
}

gint64
tpss_member_pacing_made_up (const TpssMember * m)
{
  return m->pacing_made_up;
}

void
tpss_member_set_prefix (TpssMember * m, guint32 dest, guint prefix)
{
  Peer *p = find_peer (m, dest, NULL);

  if (p)
    p->prefix = MIN (prefix, TPSS_MAX_LAYERS);
}

void
tpss_member_peer_qos (const TpssMember * m, guint32 dest, gint64 now,
    TpssQos * q)
{
  queue_qos (m, find_peer (m, dest, NULL), now, q);
}

/* Probes a step up from D to @rate with redundancy only (or, for a lower
 * @rate, lowers S through l): l = round(D / (S - D)), clamped to 1..255. */
static void
set_redundancy (Peer * p, guint64 rate)
{
  guint64 d = p->data_rate;

  if (rate / 2 >= d) {
    p->l = 1;
  } else if ((unsigned __int128) rate * 255 < (unsigned __int128) d * 256) {
    /* Below D (1 + 1/255): redundancy alone cannot go lower. */
    p->l = 255;
    p->data_rate = MAX (muldiv (rate, 255, 256), TPSS_MIN_RATE);
  } else {
    guint64 extra = rate - d;
    guint64 l = (2 * (unsigned __int128) d + extra) / (2 * extra);
    p->l = (guint) CLAMP (l, 1, 255);
  }
  p->send_rate = p->data_rate + p->data_rate / p->l;
}

/* S down to @rate after loss above the threshold in a probe. Within
 * D (1 + 1/initial_length) only the redundancy shrinks; below it D goes down
 * and the parity stays at 1 in initial_length, so the next interval, still
 * lossy or not, is protected (its ASSIGN restores D to what arrived, parity
 * included). */
static void
back_off (const TpssMember * m, Peer * p, guint64 rate)
{
  guint l = CLAMP (m->cfg.initial_length, 1, 255);

  if (rate >= p->data_rate + p->data_rate / l) {
    set_redundancy (p, rate);
    return;
  }
  p->l = l;
  p->data_rate = MIN (p->data_rate, MAX (muldiv (rate, l, l + 1),
          TPSS_MIN_RATE));
  p->send_rate = p->data_rate + p->data_rate / l;
}

static void
enter_phase (Peer * p, TpssPhase phase)
{
  p->phase = phase;
  p->probe_start = p->packets_sent;
  p->probe_first = -1;
  p->probe_flushed = FALSE;
  p->probe_sum = p->probe_n = 0;
  if (phase == TPSS_PHASE_NON_REDUNDANT) {
    p->l = 0;
    p->send_rate = p->data_rate;
  }
}

/* Parity leaves in bursts, after each interleaved segment of k x l data
 * packets, so one round trip may hold none of it: a probe counts once it has
 * sent a whole segment (at most k x initial_length packets: a longer
 * segment's parity is a small share of S), or once its segment was closed
 * early (probe_flush_time). */
static gboolean
probe_covered (const TpssMember * m, const Peer * p)
{
  guint l = MIN (p->l, MAX (m->cfg.initial_length, 1));

  return p->probe_flushed ||
      p->packets_sent - p->probe_start >= (guint64) p->k * l;
}

/* When the FEC segment open toward @p closes early, -1 for none. A probe
 * whose segment (k x l data packets at D) takes longer than
 * PROBE_SEGMENT_INTERVALS report intervals (a low rate: seconds, while the
 * rates it competes with are cut in 0.8 x steps every two round trips)
 * closes it half a report interval after the probe's first packet. The
 * receiver measures one report interval from the first packet after the
 * REPORT that starts the probe, so the parity falls inside it and the
 * probe is judged within about two round trips. The interleave distance
 * stays k (a stall of up to k packets still costs at most one packet per
 * subsegment), and at higher rates the probe runs its whole segment: a
 * probe of one short window confirms what a bottleneck's queue absorbs. */
static gint64
probe_flush_time (const TpssMember * m, const Peer * p)
{
  gint64 interval = MAX (p->rtt, m->cfg.min_report_interval);
  guint l = MIN (p->l, MAX (m->cfg.initial_length, 1));
  guint64 segment_bits;

  if (p->phase != TPSS_PHASE_REDUNDANT || p->l == 0 || p->probe_first < 0 ||
      probe_covered (m, p) || p->packets_sent == 0)
    return -1;
  segment_bits = (guint64) p->k * l * (p->bytes_sent / p->packets_sent) * 8;
  if (muldiv (segment_bits, NS_PER_S, MAX (p->data_rate, 1)) <=
      (guint64) (PROBE_SEGMENT_INTERVALS * interval))
    return -1;
  return p->probe_first + interval / 2;
}

static void
flush_probe (TpssMember * m, Peer * p)
{
  p->probe_flushed = TRUE;
  push_event (m, TPSS_EVENT_FEC_FLUSH, p->id);
}

/* Whether @rate is the section 4.1 rule's answer to our S (increase or
 * decrease x S, as the receiver rounds it), rather than a rate an NQCP
 * receiver allocated: only the rule's steps are probed or backed off with
 * parity; an allocation is the rate to send at. */
static gboolean
rule_rate (const TpssMember * m, const Peer * p, guint64 rate)
{
  guint64 up = scale_rate (p->send_rate, m->cfg.increase);
  guint64 down = scale_rate (p->send_rate, m->cfg.decrease);
  guint64 max = MAX (m->cfg.max_rate, TPSS_MIN_RATE);

  return rate + 1 >= MIN (up, max) && rate <= MIN (up, max) + 1 ? TRUE :
      rate + 1 >= down && rate <= down + 1;
}

/* Moves @p's ring of the lowest D per bucket forward to @now's bucket;
 * the buckets it enters start at the D in effect. */
static void
roll_rate_low (Peer * p, gint64 now)
{
  gint64 b = now / USE_BUCKET_NS;

  if (p->d_bucket < 0 || b - p->d_bucket >= USE_BUCKETS)
    for (guint i = 0; i < USE_BUCKETS; i++)
      p->d_low[i] = p->data_rate;
  else
    for (gint64 i = p->d_bucket + 1; i <= b; i++)
      p->d_low[i % USE_BUCKETS] = p->data_rate;
  p->d_bucket = MAX (b, p->d_bucket);
}

/* @p's D has (maybe) changed at @now. */
static void
note_rate_low (Peer * p, gint64 now)
{
  guint64 *low;

  roll_rate_low (p, now);
  low = &p->d_low[p->d_bucket % USE_BUCKETS];
  *low = MIN (*low, p->data_rate);
}

/* The lowest D toward @p over the application-limited window. */
static guint64
window_rate_low (Peer * p, gint64 now)
{
  guint64 low = G_MAXUINT64;

  roll_rate_low (p, now);
  for (guint i = 0; i < USE_BUCKETS; i++)
    low = MIN (low, p->d_low[i]);
  return low;
}

/* Whether a flow that sent @used over the application-limited window uses
 * its data rate toward @p: one step of the increase factor above it
 * reaches the lowest D of that window (not the D of now: the window lags a
 * flow that follows its rate up by a step or two). A step up probed for a
 * flow that does not is parity for a rate it would not send at: toward a
 * fast member of a layered conference, probes one after the other, each
 * closing its segment early with one parity packet per data packet
 * (docs/protocols/tpss.md, "application-limited probe"). */
static gboolean
uses_rate (const TpssMember * m, Peer * p, guint64 used, gint64 now)
{
  return used == G_MAXUINT64 ||
      scale_rate (used, MAX (m->cfg.increase, 1.0)) >=
      window_rate_low (p, now);
}

/* The lowest D an ASSIGN may leave toward @p (0: none). Toward a flow that
 * sent it less than its D over the application-limited window (one
 * increase step short of it) a round trip without loss holds what the
 * application offered, not what the path carries: its receipt rate, below
 * D, is no reason to lower D (RFC 7661's rule, for a rate), but the bounds
 * of what the flow may have (@cap, @shown) still apply. Toward a member
 * sent a sparse base layer, one packet in a round trip was assigned as its
 * D (docs/protocols/tpss.md, "application-limited ASSIGN"). */
static guint64
assign_lowest_rate (const TpssMember * m, Peer * p, guint64 cap, guint64 shown,
    gint64 now)
{
  guint64 offered;

  if (m->cfg.app_limit_factor <= 0)
    return 0;
  offered = use_window_rate (&p->sent, now);
  if (scale_rate (offered, MAX (m->cfg.increase, 1.0)) >= p->data_rate)
    return 0;
  return MIN (p->data_rate, MIN (cap, shown));
}

/* A RATE from destination @p at @now: rate_ij (section 2.3, 2.4). @cap:
 * the application-limited bound of D; @shown: what the flow has shown it
 * uses (the bound without its floor at initial_rate); @used: what it sent
 * over the window (uses_rate). */
static void
apply_rate (TpssMember * m, Peer * p, guint64 rate, gboolean assign,
    guint64 cap, guint64 shown, guint64 used, gint64 now)
{
  guint64 max = MAX (m->cfg.max_rate, TPSS_MIN_RATE);
  guint64 lowest = assign ? assign_lowest_rate (m, p, cap, shown, now) : 0;
  guint old_l = p->l;
  TpssPhase old_phase = p->phase;

  roll_rate_low (p, now);
  p->notified = rate;
  rate = CLAMP (rate, TPSS_MIN_RATE, max);
  if (m->cfg.slow_start == TPSS_SLOW_START_TRADITIONAL ||
      (!assign && !rule_rate (m, p, rate))) {
    /* (an NQCP allocation: a rate notified, not a step to probe) */
    p->data_rate = p->send_rate = MIN (rate, cap);
    enter_phase (p, TPSS_PHASE_NON_REDUNDANT);
  } else if (p->phase == TPSS_PHASE_REDUNDANT &&
      (assign || rate >= p->send_rate)) {
    if (assign) {
      p->probe_sum += rate;
      p->probe_n++;
    }
    if (!probe_covered (m, p)) {
      /* hold at S: the round trip may have held none of the probe's parity */
    } else if (assign) {
      /* Confirmed: the data rate follows, to the mean receipt rate assigned
       * during the probe (one round trip holds a parity burst or none),
       * never above what was probed nor above what the flow has shown it
       * uses: a short interval that caught a flushed segment's parity burst
       * measures up to k times what an application-limited flow sends, and
       * D = cap (initial_rate at least) would then never be probed again.
       * Nor below @lowest. */
      p->data_rate = MAX (MIN (MIN (p->probe_sum / p->probe_n, p->send_rate),
              MIN (cap, shown)), MAX (lowest, TPSS_MIN_RATE));
      enter_phase (p, TPSS_PHASE_NON_REDUNDANT);
    } else {
      /* Loss within the threshold, on a probe whose parity covers it: the
       * step is confirmed as data, and the next one is probed at once,
       * still with parity (a lossy path keeps its redundancy). */
      p->data_rate = MAX (MIN (p->send_rate, cap), TPSS_MIN_RATE);
      enter_phase (p, TPSS_PHASE_REDUNDANT);
      set_redundancy (p, MAX (rate, p->data_rate + p->data_rate / 255 + 1));
    }
  } else if (p->phase == TPSS_PHASE_REDUNDANT) {
    /* Loss above the threshold: the step backs off and the probe starts
     * over at the new S. */
    enter_phase (p, TPSS_PHASE_REDUNDANT);
    back_off (m, p, rate);
    if (p->data_rate > cap) {
      p->data_rate = cap;
      p->send_rate = p->data_rate + p->data_rate / p->l;
    }
  } else if (rate > p->data_rate && p->data_rate < cap) {
    /* A step up starts as a redundant phase at the new rate: D stays until
     * a round trip at it arrives complete. A flow that does not use its D
     * keeps it, unprobed. */
    if (uses_rate (m, p, used, now)) {
      enter_phase (p, TPSS_PHASE_REDUNDANT);
      set_redundancy (p, MIN (rate, cap));
    }
  } else {
    /* (an ASSIGN here answers a REPORT of the probe before: not below
     * @lowest either) */
    p->data_rate = p->send_rate = MAX (MIN (rate, cap), lowest);
  }

  note_rate_low (p, now);
  if (p->phase != old_phase)
    push_phase_event (m, p);
  if (p->l != old_l || p->phase != old_phase)
    push_parity_event (m, p);
  update_data_rate (m);
}

/* ------------------------------------------------------------------ */
/* Receiver: NQCP estimation and allocation (section 3.2) */

static gboolean
qos_covers_slot (const Peer * p, gint64 slot)
{
  return p->have_qos && p->qos_rate > 0 && slot_of (p->qos_start) <= slot &&
      slot <= slot_of (p->qos_end);
}

static gint
cmp_alloc (gconstpointer a, gconstpointer b, gpointer user)
{
  const guint64 *demand = user;
  guint ia = *(const guint *) a, ib = *(const guint *) b;

  return demand[ia] < demand[ib] ? -1 : demand[ia] > demand[ib];
}

/* Max-min water filling of @avail among @idx[0..n) by @demand. */
static guint64
water_fill (guint * idx, guint n, const guint64 * demand, guint64 * alloc,
    guint64 avail)
{
  guint64 used = 0;

  g_qsort_with_data (idx, n, sizeof (guint), cmp_alloc, (gpointer) demand);
  for (guint i = 0; i < n; i++) {
    guint64 share = (avail - used) / (n - i);
    alloc[idx[i]] = MIN (demand[idx[i]], share);
    used += alloc[idx[i]];
  }
  return used;
}

/* Demands of the peers (0 = none): every announced one whose window covers
 * @slot, or (slot == G_MININT64) every one whose window has not ended by
 * @now. Returns TRUE with @alloc filled when the sum plus the member's own
 * sending rate exceeds the capacity. */
static gboolean
allocate (TpssMember * m, gint64 slot, gint64 now, guint64 * demand,
    guint64 * alloc, guint64 * avail_out)
{
  guint n = m->peers->len;
  guint64 own = g_queue_is_empty (&m->mq) ? 0 : m->tr;
  guint64 cap = m->cfg.max_receive_rate, avail, sum = 0;
  guint idx[TPSS_MAX_MEMBERS];

  avail = cap > own ? cap - own : 0;
  *avail_out = avail;
  for (guint i = 0; i < n; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    gboolean active = slot == G_MININT64 ?
        (p->have_qos && p->qos_rate > 0 && p->qos_end >= now) :
        qos_covers_slot (p, slot);
    demand[i] = active ? p->qos_rate : 0;
    alloc[i] = demand[i];
    sum += demand[i];
  }
  if (sum <= avail)
    return FALSE;

  if (m->cfg.delivery == TPSS_DELIVERY_FAIR) {
    for (guint i = 0; i < n; i++)
      idx[i] = i;
    water_fill (idx, n, demand, alloc, avail);
  } else {
    /* Highest priority first; each gets min(demand, remaining); equal
     * priorities share what is left max-min fairly. */
    guint64 remaining = avail;
    gboolean *done = g_newa (gboolean, n);

    memset (done, 0, n * sizeof (gboolean));
    for (;;) {
      guint best = G_MAXUINT, k = 0;
      for (guint i = 0; i < n; i++) {
        Peer *p = g_ptr_array_index (m->peers, i);
        if (!done[i] && (best == G_MAXUINT || p->priority > best))
          best = p->priority;
      }
      if (best == G_MAXUINT)
        break;
      for (guint i = 0; i < n; i++) {
        Peer *p = g_ptr_array_index (m->peers, i);
        if (!done[i] && p->priority == best) {
          idx[k++] = i;
          done[i] = TRUE;
        }
      }
      remaining -= water_fill (idx, k, demand, alloc, remaining);
    }
  }
  return TRUE;
}

static gint64
slot_budget (guint64 rate)
{
  guint64 b = muldiv (rate, TPSS_SLOT_NS, 8 * NS_PER_S);

  return (gint64) MIN (b, (guint64) G_MAXINT64 / 4);
}

static gint64
burst_slots (const TpssMember * m)
{
  return MAX (m->cfg.admission_burst / TPSS_SLOT_NS, 1);
}

/* @n slots of @rate in bytes, bounded so that sums over every member's
 * bucket and the pool cannot overflow. */
#define BUCKET_MAX (G_MAXINT64 / 256)
static gint64
slots_budget (gint64 n, guint64 rate)
{
  gint64 b = slot_budget (rate);

  if (n <= 0 || b <= 0)
    return 0;
  return b > BUCKET_MAX / n ? BUCKET_MAX : n * b;
}

/* Fills @p's bucket for @n slots at @alloc (a first fill, or one after
 * nothing was allocated, starts it full); what overflows goes to the pool. */
static void
fill_bucket (TpssMember * m, Peer * p, guint64 alloc, gint64 n, gboolean first)
{
  gint64 depth = slots_budget (burst_slots (m), alloc);

  if (depth > 0 && (first || p->depth == 0))
    p->tokens = depth + MIN (p->tokens, 0);
  else
    p->tokens += slots_budget (n, alloc);
  if (p->tokens > depth) {
    m->pool += p->tokens - depth;
    p->tokens = depth;
  }
  p->depth = depth;
}

/* At the first arrival in @slot: the allocation of the slot sets every
 * bucket's fill, and the slots since the last arrival are filled in. */
static void
begin_slot (TpssMember * m, gint64 slot, gint64 now)
{
  guint n = m->peers->len;
  guint64 demand[TPSS_MAX_MEMBERS], alloc[TPSS_MAX_MEMBERS], avail, given = 0;
  guint64 own = g_queue_is_empty (&m->mq) ? 0 : m->tr;
  gboolean first = m->slot == G_MININT64;
  gint64 slots = first ? 0 : MIN (slot - m->slot, burst_slots (m));
  gint64 pool_depth;
  gboolean over = FALSE;

  if (m->cfg.control == TPSS_CONTROL_NOTIFICATION) {
    over = allocate (m, slot, now, demand, alloc, &avail);
  } else {
    avail = m->cfg.max_receive_rate > own ? m->cfg.max_receive_rate - own : 0;
    memset (alloc, 0, n * sizeof (guint64));
  }
  m->slot = slot;
  for (guint i = 0; i < n; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    fill_bucket (m, p, alloc[i], slots, first);
    p->allocated = over ? alloc[i] : 0;
    given += alloc[i];
  }
  /* The pool starts with what is not allocated; it holds at most a burst of
   * the whole capacity (it takes the overflow of the buckets too). */
  pool_depth = slots_budget (burst_slots (m), avail);
  m->pool += slots_budget (first ? burst_slots (m) : slots,
      avail > given ? avail - given : 0);
  m->pool = MIN (m->pool, pool_depth);
}

/* Priority delivery under NQCP: a source out of tokens takes them from the
 * least prioritized source below it, even into debt down to minus that
 * source's depth, so the packets refused are those of lower priority
 * (section 3.2): the debt is refused to the lender later, and the total
 * admitted stays within the capacity plus the buckets' depths. */
static gboolean
by_priority (const TpssMember * m)
{
  return m->cfg.control == TPSS_CONTROL_NOTIFICATION &&
      m->cfg.delivery == TPSS_DELIVERY_PRIORITY;
}

static Peer *
lender_for (TpssMember * m, const Peer * p)
{
  Peer *lender = NULL;

  if (!by_priority (m))
    return NULL;
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *q = g_ptr_array_index (m->peers, i);
    if (q->priority < p->priority && q->tokens > -q->depth &&
        (!lender || q->priority < lender->priority ||
            (q->priority == lender->priority && q->tokens > lender->tokens)))
      lender = q;
  }
  return lender;
}

/* Own tokens first, then the pool, then a lower priority's. */
static gboolean
admit_packet (TpssMember * m, Peer * p, guint32 bytes)
{
  Peer *lender;

  if (p->tokens > 0) {
    p->tokens -= bytes;
  } else if (m->pool > 0) {
    m->pool -= bytes;
  } else if ((lender = lender_for (m, p))) {
    lender->tokens -= bytes;
  } else {
    return FALSE;
  }
  return TRUE;
}

static void
on_qos (TpssMember * m, Peer * p, const TpssQos * q, gint64 now)
{
  gint64 span_us = 0;
  guint64 tt_us = q->tt_us;

  p->last_qos = *q;
  p->have_qos = TRUE;
  /* Trf_i[T] = D / TT for T = HT .. HT + TT (section 3.2), in bits/s.
   * TT = D / TR uses the rate the source may send at; what it actually
   * sends can be less (a source that offers less than it is allowed). Every
   * packet stays HT in MQ, and the queue's top packet has HT - ht of it
   * behind it, so the D bytes were enqueued over at least that long and
   * cannot arrive faster: TT is at least HT - ht (HT is a group parameter,
   * our own). Without this the announced rate is the source's permission,
   * not its traffic, and a high-priority source's grant, growing by the
   * increase rule, claims the whole capacity (docs/protocols/tpss.md). */
  if (m->cfg.control == TPSS_CONTROL_NOTIFICATION && q->bytes > 0)
    span_us = m->cfg.holding_time / NS_PER_US - (gint64) q->ht_us;
  if (span_us > (gint64) tt_us)
    tt_us = (guint64) span_us;
  p->qos_rate = tt_us ? muldiv (q->bytes, 8 * G_GUINT64_CONSTANT (1000000),
      tt_us) : 0;
  if (p->src_length > 0)
    p->qos_rate += p->qos_rate / p->src_length;
  p->qos_start = now + (gint64) q->ht_us * NS_PER_US;
  p->qos_end = p->qos_start + (gint64) tt_us * NS_PER_US;
}

/* ------------------------------------------------------------------ */
/* Receiver: reports and rates */

/* The interval itself starts with the first packet that arrives in it, so
 * that it never covers time before the source's data reached us. */
static void
start_measuring (Peer * p)
{
  p->rx = RX_MEASURING;
  p->iv_start = -1;
  p->iv_received = p->iv_lost = p->iv_bytes = p->iv_parity_lost = 0;
  p->rx_deadline = G_MAXINT64;
}

/* The most @p could be admitted at: the capacity less what the sources
 * above it announce (priority delivery). A rate above it would only let
 * the source's queue drain in bursts the receiver must refuse. */
static guint64
reachable_rate (const TpssMember * m, const Peer * p, const guint64 * demand,
    guint64 avail)
{
  guint64 above = 0;

  if (m->cfg.delivery == TPSS_DELIVERY_PRIORITY)
    for (guint i = 0; i < m->peers->len; i++) {
      const Peer *q = g_ptr_array_index (m->peers, i);
      if (q->priority > p->priority)
        above += demand[i];
    }
  return avail > above ? avail - above : 0;
}

/* Whether the interval ending at @now ended within one report interval of
 * its deadline. One that ran later (a receiver whose loop was busy: 110-
 * 145 ms as a joiner starts) measured its packets over the delay, not over
 * a round trip: at a joiner, one 113-byte packet over 158 ms was assigned
 * as 5.7 kbit/s. */
static gboolean
measured_on_time (const TpssMember * m, const Peer * p, gint64 now)
{
  return now - p->rx_deadline <= report_interval (m, p);
}

static void
receiver_report (TpssMember * m, Peer * p, gint64 now)
{
  guint64 total = p->iv_received + p->iv_lost, rate;
  gint64 elapsed = now - p->iv_start;
  gboolean assign = FALSE, hold = FALSE, on_time;
  guint64 nominal;
  OutMsg *o;

  if (total == 0 || elapsed <= 0) {
    start_measuring (p);
    return;
  }
  p->receive_rate = muldiv (p->iv_bytes, 8 * NS_PER_S, (guint64) elapsed);

  on_time = measured_on_time (m, p, now);
  if (!on_time)
    p->late_reports++;
  if (p->src_phase == TPSS_PHASE_REDUNDANT && p->iv_lost == 0 &&
      p->src_rtt > 0 && on_time) {
    /* Complete receipt for a round trip (so the RTT must be known: before
     * it, the interval is only min-report-interval long): assign the
     * receipt rate. With assign_needs_parity the parity must have come
     * too; a round trip that lost only parity holds the probe as it is
     * (S, unless an allocation below cuts it). */
    hold = m->cfg.assign_needs_parity && p->iv_parity_lost > 0;
    assign = !hold;
    rate = hold ? p->src_send_rate : p->receive_rate;
  } else if ((gdouble) p->iv_lost > m->cfg.loss_threshold * (gdouble) total) {
    rate = scale_rate (p->src_send_rate, m->cfg.decrease);
  } else {
    rate = scale_rate (p->src_send_rate, m->cfg.increase);
  }
  nominal = rate;

  if (m->cfg.control == TPSS_CONTROL_NOTIFICATION &&
      m->cfg.max_receive_rate > 0) {
    guint64 demand[TPSS_MAX_MEMBERS], alloc[TPSS_MAX_MEMBERS], avail;
    guint i;
    gboolean over = allocate (m, G_MININT64, now, demand, alloc, &avail);

    rate = MIN (rate, reachable_rate (m, p, demand, avail));
    if (over && find_peer (m, p->id, &i) && demand[i] > 0) {
      /* A source that announces (about) all its send rate allows is
       * limited by that rate, not by its need: capping it at an allocation
       * that covers its demand would hold it at its current rate for good
       * (and, with noise, ratchet it down). Only a source the allocation
       * cuts, or one that announces less than it may send, is capped. */
      gboolean at_own_rate = (unsigned __int128) demand[i] * 100 >=
          (unsigned __int128) p->src_send_rate * 99;
      if (alloc[i] < demand[i] || !at_own_rate)
        rate = MIN (rate, alloc[i]);
      p->allocated = alloc[i];
    } else {
      p->allocated = 0;
    }
  }
  if (m->cfg.max_rate > 0)
    rate = MIN (rate, m->cfg.max_rate);
  /* a cut hold is the cap's rate to send at, which the source applies */
  hold = hold && rate == nominal;
  p->assigns += assign;
  p->holds += hold;

  o = push_msg (m, p->id, TPSS_MSG_RATE, p->id);
  o->msg.u.rate.rate = rate;
  o->msg.u.rate.assign = assign;
  o->msg.u.rate.hold = hold;
  o->msg.u.rate.echo_ntp = p->report_ntp;
  o->msg.u.rate.delay = ntp_duration_to_short (now - p->report_time);
  o->msg.u.rate.seq = ++p->seq_sent;
  p->notified_out = rate;

  p->rx = RX_WAITING;
  /* Until the RTT is known the interval may be shorter than it; the
   * periodic report repeats the answer, so a hello interval is enough. */
  p->rx_deadline = now + MAX (WAIT_INTERVALS * report_interval (m, p),
      m->cfg.hello_interval);
}

gboolean
tpss_member_on_data (TpssMember * m, guint32 ssrc, guint32 bytes,
    guint lost, guint recovered, gint64 now)
{
  Peer *p = find_peer (m, ssrc, NULL);
  gboolean admit = TRUE;

  ensure_started (m, now);
  if (!p)
    return FALSE;
  p->last_seen = now;
  p->lost += lost;
  p->recovered += recovered;

  if (m->cfg.max_receive_rate > 0) {
    gint64 slot = slot_of (now);
    /* arrival times from two sockets may interleave: never back a slot */
    if (slot > m->slot)
      begin_slot (m, slot, now);
    admit = admit_packet (m, p, bytes);
  }

  if (admit)
    p->received++;
  else
    p->not_delivered++;
  if (p->rx == RX_MEASURING) {
    if (p->iv_start < 0) {
      p->iv_start = now;
      p->rx_deadline = now + report_interval (m, p);
    }
    /* A refused packet is lost to the application, as an overrun is. */
    p->iv_lost += lost + (admit ? 0 : 1);
    if (admit) {
      p->iv_received++;
      p->iv_bytes += bytes;
    }
  }
  return admit;
}

void
tpss_member_on_parity_loss (TpssMember * m, guint32 ssrc, guint lost)
{
  Peer *p = find_peer (m, ssrc, NULL);

  if (p && p->rx == RX_MEASURING)
    p->iv_parity_lost += lost;
}

void
tpss_member_on_msg (TpssMember * m, const TpssMsg * msg, gint64 now)
{
  Peer *p;

  ensure_started (m, now);
  if (msg->sender_ssrc == m->ssrc)
    return;
  p = find_peer (m, msg->sender_ssrc, NULL);
  if (!p)
    p = add_peer (m, msg->sender_ssrc, 0, now);
  else if (!p->heard && m->sending && msg->type != TPSS_MSG_RATE)
    /* A configured member that started after our first REPORT (sent to a
     * port not bound yet) would measure nothing until the periodic one. */
    send_report (m, p, now);
  if (!p)
    return;
  p->heard = TRUE;
  p->last_seen = now;

  switch (msg->type) {
    case TPSS_MSG_QOS:
      on_qos (m, p, &msg->u.qos, now);
      break;
    case TPSS_MSG_RATE:{
      guint32 echo = msg->u.rate.echo_ntp;
      if (msg->media_ssrc != m->ssrc)
        break;
      if (p->have_rate && (gint32) (msg->u.rate.seq - p->rate_seq) <= 0)
        break;
      if (echo != 0) {
        ntp_round_trip (ntp32 (now), echo, msg->u.rate.delay, &p->rtt);
      }
      p->have_rate = TRUE;
      p->rate_seq = msg->u.rate.seq;
      if (msg->u.rate.hold)
        /* no verdict on the round trip: D, S and the probe stay */
        p->notified = msg->u.rate.rate;
      else
        apply_rate (m, p, msg->u.rate.rate, msg->u.rate.assign,
            app_limit (m, now), shown_use_for_assign (m, now),
            used_rate (m, now), now);
      /* Answer at once: the receiver measures from this report on. */
      send_report (m, p, now);
      break;
    }
    case TPSS_MSG_REPORT:{
      gboolean answer;
      if (msg->u.report.dest_ssrc != m->ssrc)
        break;
      p->src_phase = msg->u.report.phase;
      p->src_send_rate = msg->u.report.send_rate;
      p->src_data_rate = msg->u.report.data_rate;
      p->src_length = msg->u.report.length;
      if (msg->u.report.rtt)
        p->src_rtt = ntp_short_to_ns (msg->u.report.rtt);
      p->report_ntp = msg->u.report.ntp;
      p->report_time = now;
      answer = p->rx == RX_IDLE || (p->rx == RX_WAITING &&
          (gint32) (msg->u.report.rate_seq - p->seq_sent) >= 0);
      if (answer)
        start_measuring (p);
      break;
    }
    case TPSS_MSG_HELLO:
      break;
  }
}

/* ------------------------------------------------------------------ */
/* Timers and output */

gint64
tpss_member_next_deadline (const TpssMember * m)
{
  gint64 t;

  if (!m->started)
    return -1;
  t = m->next_hello;
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    t = MIN (t, p->last_seen + m->cfg.member_timeout);
    if (m->sending)
      t = MIN (t, p->next_report);
    if (p->rx != RX_IDLE)
      t = MIN (t, p->rx_deadline);
    if (probe_flush_time (m, p) >= 0)
      t = MIN (t, probe_flush_time (m, p));
  }
  if (m->mq.length > 0)
    t = MIN (t, queue_departure (m));
  return t;
}

void
tpss_member_advance (TpssMember * m, gint64 now)
{
  ensure_started (m, now);
  if (now >= m->next_hello)
    send_hello (m, now);
  for (guint i = m->peers->len; i-- > 0;) {
    Peer *p = g_ptr_array_index (m->peers, i);
    if (now - p->last_seen >= m->cfg.member_timeout) {
      remove_peer_at (m, i);
      continue;
    }
    if (m->sending && now >= p->next_report)
      send_report (m, p, now);
    if (probe_flush_time (m, p) >= 0 && now >= probe_flush_time (m, p))
      flush_probe (m, p);
    if (p->rx == RX_MEASURING && now >= p->rx_deadline)
      receiver_report (m, p, now);
    else if (p->rx == RX_WAITING && now >= p->rx_deadline)
      /* The answering REPORT was lost: measuring now would judge the
       * source's new S as the old one, and a step of the old S is no step
       * of the new, so the source takes it for an allocation (D = S, no
       * parity). The next REPORT, the periodic one, starts the interval. */
      p->rx = RX_IDLE;
  }
}

gboolean
tpss_member_pop_msg (TpssMember * m, guint32 * dest, TpssMsg * msg)
{
  OutMsg *o = g_queue_pop_head (&m->msgs);

  if (!o)
    return FALSE;
  if (o == m->pending_qos)
    m->pending_qos = NULL;
  for (guint i = 0; i < m->peers->len; i++) {
    Peer *p = g_ptr_array_index (m->peers, i);
    if (o == p->pending_qos)
      p->pending_qos = NULL;
  }
  if (dest)
    *dest = o->dest;
  if (msg)
    *msg = o->msg;
  g_free (o);
  return TRUE;
}

gboolean
tpss_member_pop_event (TpssMember * m, TpssEvent * ev)
{
  return polled_pop (&m->events, ev, sizeof (TpssEvent));
}

gboolean
tpss_member_get_send_stats (const TpssMember * m, guint32 dest,
    TpssSendStats * st)
{
  const Peer *p = find_peer (m, dest, NULL);

  if (!p)
    return FALSE;
  memset (st, 0, sizeof (*st));
  st->id = p->id;
  st->phase = p->phase;
  st->data_rate = p->data_rate;
  st->send_rate = p->send_rate;
  st->notified_rate = p->notified;
  st->distance = p->k;
  st->length = p->l;
  st->rtt = p->rtt;
  st->packets_sent = p->packets_sent;
  st->bytes_sent = p->bytes_sent;
  return TRUE;
}

gboolean
tpss_member_get_recv_stats (const TpssMember * m, guint32 src,
    TpssRecvStats * st)
{
  const Peer *p = find_peer (m, src, NULL);

  if (!p)
    return FALSE;
  memset (st, 0, sizeof (*st));
  st->id = p->id;
  st->priority = p->priority;
  st->packets_received = p->received;
  st->packets_lost = p->lost;
  st->packets_recovered = p->recovered;
  st->packets_not_delivered = p->not_delivered;
  st->receive_rate = p->receive_rate;
  st->allocated_rate = p->allocated;
  st->notified_rate = p->notified_out;
  st->late_reports = p->late_reports;
  st->assigns = p->assigns;
  st->holds = p->holds;
  st->last_qos = p->last_qos;
  return TRUE;
}
