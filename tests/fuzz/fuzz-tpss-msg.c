/* libFuzzer target: the session's RTCP walk (tpss_rtcp_next over compound
 * packets: our control messages and RFC 4585 PLIs) and the QoS
 * header-extension parser, and a member core driven by what
 * parses, by data arrivals, queueing and time steps. Every message the core
 * writes, and every PLI found, must parse back as what it was; anything
 * else aborts.
 *
 * With bit 0x80 of the config byte a datagram (op 0) is opened under a
 * group key before it is walked, as the group core does: with op bit 0x10
 * it is first sealed by a member holding the key, and must then open to
 * itself; without it, it comes from a stranger and must not open.
 *
 * Input: [config:1] then records [op:1][len:2, big endian][len bytes]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpsscore.h"
#include "rtcpfb.h"
#include "core/auth.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))

static void
check_roundtrip (const TpssMsg * msg)
{
  guint8 buf[128];
  TpssMsg back;
  gsize len = tpss_msg_write (msg, buf), consumed = 0;

  if (len == 0 || len > sizeof (buf) ||
      !tpss_msg_parse (buf, len, &back, &consumed) || consumed != len ||
      back.type != msg->type || back.sender_ssrc != msg->sender_ssrc ||
      back.media_ssrc != msg->media_ssrc)
    abort ();
}

static void
drain_member (TpssMember * m)
{
  TpssMsg msg;
  TpssEvent ev;
  guint32 dest;

  while (tpss_member_pop_msg (m, &dest, &msg))
    check_roundtrip (&msg);
  while (tpss_member_pop_event (m, &ev));
}

static void
check_pli_roundtrip (const TpssMsg * msg)
{
  guint8 buf[RTCP_PLI_SIZE];
  guint32 sender = 0, media = 0;

  if (rtcp_pli_write (buf, sizeof (buf), msg->sender_ssrc,
          msg->media_ssrc) != RTCP_PLI_SIZE ||
      !rtcp_pli_parse (buf, sizeof (buf), &sender, &media) ||
      sender != msg->sender_ssrc || media != msg->media_ssrc)
    abort ();
}

/* Walks a compound packet as the session does; our messages go to @m. */
static void
feed_compound (TpssMember * m, const guint8 * p, gsize len, gint64 now)
{
  while (len > 0) {
    TpssMsg msg;
    gsize consumed = 0;
    TpssRtcpKind kind = tpss_rtcp_next (p, len, &msg, &consumed);

    if (kind == TPSS_RTCP_MSG) {
      check_roundtrip (&msg);
      tpss_member_on_msg (m, &msg, now);
    } else if (kind == TPSS_RTCP_PLI) {
      check_pli_roundtrip (&msg);
    }
    if (kind == TPSS_RTCP_MALFORMED || consumed == 0 || consumed > len)
      break;
    p += consumed;
    len -= consumed;
  }
}

static const AuthKey fuzz_key = { {0x7a, 0x55} };

/* Keyed: op 0's datagram, sealed by @sealer (op & 0x10) or not, opened by
 * @opener, and what opens walked. */
static void
feed_keyed (AuthSession * sealer, AuthSession * opener, TpssMember * m,
    guint8 op, const guint8 * chunk, gsize len, gint64 now)
{
  guint8 *buf;
  gsize n, plen = 0;

  if (!(op & 0x10)) {
    if (auth_open (opener, chunk, len, now, &plen, NULL) == AUTH_OK)
      abort ();                 /* opened without the key */
    return;
  }
  buf = g_malloc (len + AUTH_TRAILER_SIZE);
  if (len)                      /* an empty record has no chunk */
    memcpy (buf, chunk, len);
  n = auth_seal (sealer, buf, len, len + AUTH_TRAILER_SIZE);
  if (auth_open (opener, buf, n, now, &plen, NULL) != AUTH_OK || plen != len ||
      auth_open (opener, buf, n, now, &plen, NULL) != AUTH_REPLAYED)
    abort ();
  feed_compound (m, buf, plen, now);
  g_free (buf);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  TpssConfig cfg;
  TpssMember *m;
  AuthSession *sealer = NULL, *opener = NULL;
  TpssQos qos;
  gint64 now = 0;
  size_t pos = 1;
  FuzzRecord r;

  tpss_qos_ext_parse (data, size, &qos);
  if (size < 1)
    return 0;

  tpss_config_init (&cfg);
  cfg.slow_start = data[0] & 1 ? TPSS_SLOW_START_TRADITIONAL :
      TPSS_SLOW_START_TPSS;
  cfg.control = data[0] & 2 ? TPSS_CONTROL_FEEDBACK :
      TPSS_CONTROL_NOTIFICATION;
  cfg.delivery = data[0] & 4 ? TPSS_DELIVERY_FAIR : TPSS_DELIVERY_PRIORITY;
  cfg.max_receive_rate = data[0] & 8 ? 10000000 : 0;
  m = tpss_member_new (0x11111111, &cfg);
  tpss_member_add_peer (m, 0x22222222, 2, 0);
  tpss_member_add_peer (m, 0x33333333, 1, 0);
  if (data[0] & 0x80) {
    sealer = auth_session_new (&fuzz_key, 0x22222222, 1);
    opener = auth_session_new (&fuzz_key, 0x11111111, 2);
  }

  while (fuzz_next_record (data, size, &pos, &r)) {
    guint8 op = r.op, *chunk = r.chunk;
    size_t len = r.len;
    guint32 v = r.v;

    switch (op % 4) {
      case 0:
        if (opener)
          feed_keyed (sealer, opener, m, op, chunk, len, now);
        else
          feed_compound (m, chunk, len, now);
        break;
      case 1:
        tpss_member_on_data (m, v % 2 ? 0x22222222 : v, 200 + len,
            op >> 6, (op >> 4) & 3, now);
        break;
      case 2:
        now += (gint64) (v % 2000) * MS;
        tpss_member_advance (m, now);
        break;
      case 3:
        tpss_member_enqueue (m, 100 + v % 60000, now);
        tpss_member_dequeue (m, now, &qos);
        break;
    }
    g_free (chunk);
    drain_member (m);
  }
  tpss_member_free (m);
  g_clear_pointer (&sealer, auth_session_free);
  g_clear_pointer (&opener, auth_session_free);
  return 0;
}
