/* libFuzzer target: the TPSS group core's input path. Datagrams from a
 * configured member, a member whose address is learnt, and a stranger;
 * packets queued for sending (stamped with the QoS extension on the way
 * out, their RTP clock given for the sender reports); sender reports in
 * and out; time steps; key-unit requests; leaving. Every datagram the core
 * sends must be sound RTP or RTCP, and every packet it delivers sound RTP;
 * anything else aborts.
 *
 * With bit 0x80 of the config byte the core has a group key: the
 * datagrams of the configured member and of the learnt one (ops 0 and 1)
 * are sealed under it by their senders (op & 8: the previous one of that
 * sender again, a replay), the stranger's (op 2) are not. Every control
 * datagram the core sends must open under the key; no replay and no
 * datagram of the stranger is ever taken as control.
 *
 * Unkeyed, the last join-check cookie the core sent is kept: a stranger's
 * record (op 2) with op & 0x10 is that cookie echoed, from where it went,
 * so that joins through the check are reached.
 *
 * Input: [config:1] then records [op:1][len:2, big endian][len bytes]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpssgroup.h"
#include "core/rtcp.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))
#define ID_A 0x11111111
#define ID_B 0x22222222
#define ID_C 0x33333333

static TpssAddr
addr (guint8 n)
{
  TpssAddr a = { 4, {10, 0, 0, n} };
  return a;
}

static const AuthKey fuzz_key = { {0x5e, 0xed} };

/* Our control messages, PLIs, BYEs and SR compounds. */
static gboolean
control_valid (const guint8 * d, gsize len)
{
  TpssMsg msg;
  gsize consumed = 0;
  TpssRtcpKind kind;

  if (len >= 2 && d[1] == RTCP_PT_SR && rtcp_compound_valid (d, len))
    return TRUE;
  kind = tpss_rtcp_next (d, len, &msg, &consumed);
  return (kind == TPSS_RTCP_MSG || kind == TPSS_RTCP_PLI ||
      kind == TPSS_RTCP_BYE) && consumed == len;
}

/* Control, sealed under the key when @opener is set (a datagram the core
 * sends to several members opens once, then is a replay), or RTP (a queued
 * packet whose marker and payload type look like RTCP, RFC 5761 section 4,
 * is still RTP, and is never sealed). */
static void
check_sent (AuthSession * opener, const guint8 * d, gsize len)
{
  gsize plen = len;
  AuthVerdict v;

  if (len < 4 || (d[0] >> 6) != 2)
    abort ();
  if (opener && d[1] >= 192 && d[1] <= 223) {
    v = auth_open (opener, d, len, 0, &plen, NULL);
    if (v == AUTH_OK || v == AUTH_REPLAYED) {
      if (!control_valid (d, len - AUTH_TRAILER_SIZE))
        abort ();
      return;
    }
    if (control_valid (d, len))
      abort ();                 /* control that was not sealed */
  } else if (control_valid (d, len)) {
    return;
  }
  if (!tpss_rtp_is_valid (d, len))
    abort ();
}

/* The last join-check cookie the core sent. */
typedef struct
{
  gboolean have;
  TpssAddr to;
  TpssMsg msg;
} Challenge;

static void
keep_challenge (Challenge * c, const TpssAddr * to, const guint8 * d,
    gsize len)
{
  TpssMsg m;

  if (tpss_msg_parse (d, len, &m, NULL) && m.type == TPSS_MSG_HELLO &&
      m.u.hello.cookie_kind == TPSS_COOKIE_CHALLENGE) {
    c->have = TRUE;
    c->to = *to;
    c->msg = m;
  }
}

/* The kept cookie echoed by the newcomer it went to. */
static void
echo_challenge (TpssGroup * g, const Challenge * c, gint64 now)
{
  TpssMsg m = { 0, };
  guint8 buf[TPSS_MSG_MAX_SIZE];
  gsize len;

  if (!c->have)
    return;
  m.type = TPSS_MSG_HELLO;
  m.sender_ssrc = m.media_ssrc = m.u.hello.member_id = c->msg.u.hello.cookie_to;
  m.u.hello.cookie_kind = TPSS_COOKIE_ECHO;
  m.u.hello.cookie_to = c->msg.sender_ssrc;
  m.u.hello.cookie = c->msg.u.hello.cookie;
  len = tpss_msg_write (&m, buf);
  tpss_group_handle_datagram (g, buf, len, &c->to, now);
}

static void
drain (TpssGroup * g, AuthSession * opener, Challenge * challenge)
{
  TpssTransmit t;
  TpssGroupEvent ev;

  while (tpss_group_poll_transmit (g, &t)) {
    gsize len;
    const guint8 *d = g_bytes_get_data (t.data, &len);
    if (t.to.len == 0)
      abort ();
    check_sent (opener, d, len);
    if (!opener)
      keep_challenge (challenge, &t.to, d, len);
    g_bytes_unref (t.data);
  }
  while (tpss_group_poll_event (g, &ev)) {
    for (guint i = 0; ev.packets && i < ev.packets->len; i++) {
      gsize len;
      const guint8 *d = g_bytes_get_data (g_ptr_array_index (ev.packets, i),
          &len);
      if (!tpss_rtp_is_valid (d, len))
        abort ();
    }
    tpss_group_event_clear (&ev);
  }
}

static guint32
fixed_random (gpointer data)
{
  return 0x5eed;
}

/* Keyed: the datagrams the members send, and what checks ours. */
typedef struct
{
  AuthSession *peers[2];
  GBytes *last[2];              /* each one's latest sealed datagram */
  AuthSession *opener;
} Keyed;

static void
keyed_init (Keyed * k, TpssGroup * g)
{
  tpss_group_set_key (g, &fuzz_key);
  for (guint i = 0; i < 2; i++)
    k->peers[i] = auth_session_new (&fuzz_key, ID_B + i * 0x11111111, 4);
  k->opener = auth_session_new (&fuzz_key, 1, 4);
}

static void
keyed_clear (Keyed * k)
{
  for (guint i = 0; i < 2; i++) {
    g_clear_pointer (&k->peers[i], auth_session_free);
    g_clear_pointer (&k->last[i], g_bytes_unref);
  }
  g_clear_pointer (&k->opener, auth_session_free);
}

/* Member @i's datagram of @r sealed, or (op & 8) its previous one again;
 * NULL if it has none yet. */
static GBytes *
keyed_datagram (Keyed * k, guint i, const FuzzRecord * r)
{
  guint8 *buf;
  gsize len;

  if (r->op & 8)
    return k->last[i] ? g_bytes_ref (k->last[i]) : NULL;
  buf = g_malloc (r->len + AUTH_TRAILER_SIZE);
  if (r->len)                   /* an empty record has no chunk */
    memcpy (buf, r->chunk, r->len);
  len = auth_seal (k->peers[i], buf, r->len, r->len + AUTH_TRAILER_SIZE);
  g_clear_pointer (&k->last[i], g_bytes_unref);
  k->last[i] = g_bytes_new_take (buf, len);
  return g_bytes_ref (k->last[i]);
}

/* Control taken from members: none may come from a replay or a stranger. */
static guint64
control_taken (TpssGroup * g)
{
  TpssGroupStats st;

  tpss_group_get_stats (g, &st);
  return st.ctrl_received + st.pli_received + st.bye_received +
      st.sr_received + st.auth.accepted;
}

static void
keyed_handle (Keyed * k, TpssGroup * g, guint op, const FuzzRecord * r,
    const TpssAddr * from, gint64 now)
{
  guint64 before = control_taken (g);
  GBytes *b;

  if (op == 2) {
    tpss_group_handle_datagram (g, r->chunk, r->len, from, now);
    if (control_taken (g) != before)
      abort ();
    return;
  }
  if (!(b = keyed_datagram (k, op, r)))
    return;
  tpss_group_handle_datagram (g, g_bytes_get_data (b, NULL),
      g_bytes_get_size (b), from, now);
  if ((r->op & 8) && control_taken (g) != before)
    abort ();
  g_bytes_unref (b);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  TpssGroupConfig cfg;
  TpssGroupPeer peers[2] = { {ID_B, addr (2)}, {ID_C, {0,}} };
  TpssGroup *g;
  Keyed keyed = { {NULL,}, };
  Challenge challenge = { FALSE, };
  gint64 now = 0;
  size_t pos = 1;
  FuzzRecord r;

  if (size < 1)
    return 0;
  tpss_group_config_init (&cfg);
  cfg.id = ID_A;
  cfg.random = fixed_random;
  cfg.cfg.slow_start = data[0] & 1 ? TPSS_SLOW_START_TRADITIONAL :
      TPSS_SLOW_START_TPSS;
  cfg.cfg.control = data[0] & 2 ? TPSS_CONTROL_FEEDBACK :
      TPSS_CONTROL_NOTIFICATION;
  cfg.cfg.packet_distance = 1 + ((data[0] >> 5) & 3);
  cfg.allow_join = (data[0] & 4) != 0;
  if (data[0] & 8)
    cfg.group = addr (239);
  cfg.cfg.holding_time = data[0] & 16 ? 0 : cfg.cfg.holding_time;
  /* bit 4 also bounds the layered copies by a 2 Mbit/s uplink, and by the
   * bound estimated from their falls (the lower of the two) */
  cfg.uplink_rate = data[0] & 16 ? 2000000 : 0;
  cfg.uplink_estimate = (data[0] & 16) != 0;
  g = tpss_group_new (&cfg);
  if (data[0] & 0x80)
    keyed_init (&keyed, g);
  tpss_group_start (g, 0);
  tpss_group_set_members (g, peers, 2, 0);

  while (fuzz_next_record (data, size, &pos, &r)) {
    guint8 op = r.op;
    TpssAddr from = addr (op % 8 == 0 ? 2 : op % 8 == 1 ? 3 : 9);

    switch (op % 8) {
      case 0:
      case 1:
      case 2:
        if (keyed.opener)
          keyed_handle (&keyed, g, op % 8, &r, &from, now);
        else if (op % 8 == 2 && (op & 0x10))
          echo_challenge (g, &challenge, now);
        else
          tpss_group_handle_datagram (g, r.chunk, r.len, &from, now);
        break;
      case 3:
        now += (gint64) (r.v % 2000) * MS;
        tpss_group_handle_timeout (g, now);
        break;
      case 4:
        /* a layer and a count, in range or not (v & 1: no layer); bit 9:
         * the RTP clock is known, for the SRs */
        if (r.v & 0x200)
          tpss_group_set_media_clock (g, r.v, now, 90000);
        tpss_group_enqueue_layer (g, r.chunk, r.len, r.v & 1 ?
            TPSS_GROUP_LAYER_NONE : (r.v >> 1) % 10, (r.v >> 5) % 10, now);
        break;
      case 5:
        tpss_group_request_key_unit (g, r.v % 2 ? ID_B : r.v);
        break;
      case 6:
        /* v % 8 == 7: leave (the core then does nothing more) */
        if (r.v % 8 == 7)
          tpss_group_leave (g, now);
        else
          tpss_group_set_receiving (g, r.v % 2);
        break;
      case 7:
        tpss_group_set_members (g, peers, r.v % 3, now);
        break;
    }
    g_free (r.chunk);
    drain (g, keyed.opener, &challenge);
  }
  tpss_group_free (g);
  keyed_clear (&keyed);
  return 0;
}
