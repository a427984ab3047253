/* libFuzzer target: TPBA's RTP and RTCP parsers (SR/RR, the PLI of RFC
 * 4585, the session-token APP packet), and a receiver and a sender core fed
 * with what the input holds. Input: [op:1][len:2, big endian][len bytes]
 * records: RTP over UDP or TCP to the receiver, RTCP (compound or
 * reduced-size) to either side, time steps, key-unit requests. Every packet
 * the receiver hands out must be one it accepted; every RTCP packet a core
 * writes must parse back.
 *
 * With bit 0x80 of the first byte both sides hold a group key, as the
 * elements do: an RTCP chunk is first fed raw, and must not open (the
 * fuzzer does not hold the key) nor reach the core, then sealed by the
 * peer, when it must open and goes to the core; what a core writes is
 * sealed and must open at the other side as written. A raw chunk is
 * never a token message, and a sealed token message opens once, then is
 * a replay. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpbacore.h"
#include "rtcpfb.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))

static void
count_report (const TpbaRtcpReport * rep, gpointer user)
{
  (*(guint *) user)++;
}

static void
check_written (const guint8 * buf, gsize len)
{
  guint n = 0;

  if (len > 0 && (!tpba_rtcp_parse_compound (buf, len, count_report, &n) ||
          n == 0))
    abort ();
}

/* The keyed sides (NULL without a key): each seals what its core writes
 * and opens what the other side sent. */
typedef struct
{
  AuthSession *rx, *tx;
} Keys;

/* Seals the @len bytes at @buf as @from; they must open at @to as they
 * were. */
static gsize
pass_sealed (AuthSession * from, AuthSession * to, guint8 * buf, gsize len,
    gsize max, gint64 now)
{
  gsize sealed = tpba_control_seal (from, buf, len, max), plen;

  if (len > 0 && (sealed == 0 ||
          !tpba_control_open (to, buf, sealed, now, &plen) || plen != len))
    abort ();
  return len;
}

static void
drain (TpbaReceiver * r, TpbaSender * s, const Keys * k, gint64 now)
{
  guint8 buf[TPBA_RTCP_MAX_SIZE + AUTH_TRAILER_SIZE];
  TpbaEvent ev;
  guint16 seq;
  gpointer pkt;
  gsize len;

  while ((pkt = tpba_receiver_pop_rtp (r, now, &seq))) {
    TpbaRtpInfo info;
    GBytes *b = pkt;
    gsize blen;
    const guint8 *bytes = g_bytes_get_data (b, &blen);
    if (!tpba_rtp_parse (bytes, blen, &info))
      abort ();
    g_bytes_unref (b);
  }
  while ((len = tpba_receiver_pop_pli (r, buf, TPBA_RTCP_MAX_SIZE)) > 0) {
    len = pass_sealed (k->rx, k->tx, buf, len, sizeof (buf), now);
    if (!rtcp_pli_parse (buf, len, NULL, NULL) ||
        !tpba_sender_on_rtcp (s, buf, len, now))
      abort ();
  }
  while ((len = tpba_receiver_pop_rtcp (r, buf, TPBA_RTCP_MAX_SIZE)) > 0) {
    check_written (buf, len);
    len = pass_sealed (k->rx, k->tx, buf, len, sizeof (buf), now);
    tpba_sender_on_rtcp (s, buf, len, now);
  }
  while ((len = tpba_sender_pop_rtcp (s, buf, TPBA_RTCP_MAX_SIZE)) > 0) {
    check_written (buf, len);
    len = pass_sealed (k->tx, k->rx, buf, len, sizeof (buf), now);
    tpba_receiver_on_rtcp (r, buf, len, now);
  }
  while (tpba_sender_pop_event (s, &ev));
}

/* A raw chunk from the fuzzer must not open under the key; sealed by
 * @from it must, and only then does @feed get it (to its core). */
static void
feed_rtcp (AuthSession * from, AuthSession * to, const guint8 * chunk,
    gsize len, gint64 now, gboolean (*feed) (gpointer core,
        const guint8 * data, gsize len, gint64 now), gpointer core)
{
  guint8 *buf;
  gsize plen;

  if (!to) {
    feed (core, chunk, len, now);
    return;
  }
  if (tpba_control_open (to, chunk, len, now, &plen))
    abort ();
  buf = g_malloc (len + AUTH_TRAILER_SIZE);
  memcpy (buf, chunk, len);
  len = pass_sealed (from, to, buf, len, len + AUTH_TRAILER_SIZE, now);
  feed (core, buf, len, now);
  g_free (buf);
}

static gboolean
feed_receiver (gpointer core, const guint8 * data, gsize len, gint64 now)
{
  return tpba_receiver_on_rtcp (core, data, len, now);
}

static gboolean
feed_sender (gpointer core, const guint8 * data, gsize len, gint64 now)
{
  return tpba_sender_on_rtcp (core, data, len, now);
}

/* The sink's token message opens once at the source, then is a replay;
 * a raw chunk never opens as one. */
static void
check_token_messages (const Keys * k, const guint8 * chunk, gsize len,
    gint64 now)
{
  guint8 m[TPBA_TOKEN_MESSAGE_SIZE];
  guint64 token = 0;
  gsize n = tpba_token_message_write (k->tx, 0x0123456789abcdefULL, m,
      sizeof (m));

  if (tpba_token_message_open (k->rx, chunk, len, now, &token) == AUTH_OK ||
      n != TPBA_TOKEN_MESSAGE_SIZE ||
      tpba_token_message_open (k->rx, m, n, now, &token) != AUTH_OK ||
      token != 0x0123456789abcdefULL ||
      tpba_token_message_open (k->rx, m, n, now, &token) != AUTH_REPLAYED)
    abort ();
}

static void
keys_init (Keys * k, gboolean keyed)
{
  AuthKey key;

  k->rx = k->tx = NULL;
  if (!keyed)
    return;
  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    key.bytes[i] = (guint8) (i * 3);
  k->rx = auth_session_new (&key, 0x52, AUTH_DEFAULT_MAX_SENDERS);
  k->tx = auth_session_new (&key, 0x53, AUTH_DEFAULT_MAX_SENDERS);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  TpbaConfig cfg;
  TpbaReceiver *r;
  TpbaSender *s;
  TpbaRtpInfo info;
  TpbaRtcpReport rep;
  gsize consumed;
  guint n = 0;
  gint64 now = 0;
  size_t pos = 1;
  Keys k;

  tpba_rtp_parse (data, size, &info);
  tpba_rtcp_parse (data, size, &rep, &consumed);
  tpba_rtcp_parse_compound (data, size, count_report, &n);
  {
    TpbaRtcpExtras ex;
    guint32 a, b;
    guint64 token;
    tpba_rtcp_scan (data, size, &ex);
    rtcp_pli_parse (data, size, &a, &b);
    tpba_token_message_open (NULL, data, size, 0, &token);
  }
  if (size < 1)
    return 0;

  tpba_config_init (&cfg);
  cfg.mode = (data[0] & 0x7f) % 3;
  keys_init (&k, (data[0] & 0x80) != 0);
  r = tpba_receiver_new (&cfg, 0x1234, (GDestroyNotify) g_bytes_unref, 0);
  s = tpba_sender_new (&cfg, 0x5678, 0);
  while (pos + 3 <= size) {
    guint8 op = data[pos];
    size_t len = MIN ((size_t) ((data[pos + 1] << 8) | data[pos + 2]),
        size - pos - 3);
    const guint8 *chunk = data + pos + 3;

    pos += 3 + len;
    switch (op % 6) {
      case 0:
      case 1:{
        GBytes *b = g_bytes_new (chunk, len);
        gsize blen;
        const guint8 *bytes = g_bytes_get_data (b, &blen);
        if (tpba_receiver_on_rtp (r, op % 6 ? TPBA_TRANSPORT_TCP :
                TPBA_TRANSPORT_UDP, bytes, blen, b, now) !=
            TPBA_RECV_ACCEPTED)
          g_bytes_unref (b);
        break;
      }
      case 2:
        feed_rtcp (k.tx, k.rx, chunk, len, now, feed_receiver, r);
        if (k.rx)
          check_token_messages (&k, chunk, len, now);
        break;
      case 3:
        feed_rtcp (k.rx, k.tx, chunk, len, now, feed_sender, s);
        break;
      case 4:
        now += (gint64) (op % 64) * 20 * MS;
        tpba_receiver_advance (r, now);
        tpba_sender_advance (s, now);
        break;
      case 5:
        tpba_receiver_request_key_unit (r);
        break;
    }
    drain (r, s, &k, now);
  }
  tpba_receiver_free (r);
  tpba_sender_free (s);
  auth_session_free (k.rx);
  auth_session_free (k.tx);
  return 0;
}
