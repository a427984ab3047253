/* libFuzzer target: TPBA's RTP and RTCP parsers (SR/RR, the PLI of RFC
 * 4585, the session-token APP packet), and a receiver and a sender core fed
 * with what the input holds. Input: [op:1][len:2, big endian][len bytes]
 * records: RTP over UDP or TCP to the receiver, RTCP (compound or
 * reduced-size) to either side, time steps, key-unit requests. Every packet
 * the receiver hands out must be one it accepted; every RTCP packet a core
 * writes must parse back. */
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

static void
drain (TpbaReceiver * r, TpbaSender * s, gint64 now)
{
  guint8 buf[TPBA_RTCP_MAX_SIZE];
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
  while ((len = tpba_receiver_pop_pli (r, buf, sizeof (buf))) > 0) {
    if (!rtcp_pli_parse (buf, len, NULL, NULL) ||
        !tpba_sender_on_rtcp (s, buf, len, now))
      abort ();
  }
  while ((len = tpba_receiver_pop_rtcp (r, buf, sizeof (buf))) > 0) {
    check_written (buf, len);
    tpba_sender_on_rtcp (s, buf, len, now);
  }
  while ((len = tpba_sender_pop_rtcp (s, buf, sizeof (buf))) > 0) {
    check_written (buf, len);
    tpba_receiver_on_rtcp (r, buf, len, now);
  }
  while (tpba_sender_pop_event (s, &ev));
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

  tpba_rtp_parse (data, size, &info);
  tpba_rtcp_parse (data, size, &rep, &consumed);
  tpba_rtcp_parse_compound (data, size, count_report, &n);
  {
    TpbaRtcpExtras ex;
    guint32 a, b;
    tpba_rtcp_scan (data, size, &ex);
    rtcp_pli_parse (data, size, &a, &b);
  }
  if (size < 1)
    return 0;

  tpba_config_init (&cfg);
  cfg.mode = data[0] % 3;
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
        tpba_receiver_on_rtcp (r, chunk, len, now);
        break;
      case 3:
        tpba_sender_on_rtcp (s, chunk, len, now);
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
    drain (r, s, now);
  }
  tpba_receiver_free (r);
  tpba_sender_free (s);
  return 0;
}
