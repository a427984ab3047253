/* libFuzzer target: the SRTP helper of gst/common/gstnetsrtp.h, the first
 * code that reads a keyed receiver's datagrams (RLM, TPSS, TPBA, VLMCC).
 * Input: a config byte (bits 0-1: the profile; bit 2: a second receiving
 * session under another key, tried when the first finds a bad tag, as
 * TPSS's gst_net_srtp_unprotect_either), then records (fuzzrecords.h)
 * whose op, modulo 4, is:
 *   0  open the chunk as a received datagram, as it is;
 *   1  make the chunk an RTP packet (version 2, payload type below 128),
 *      protect it and open the result: it must open to the same bytes,
 *      unless the sender refused it (an index it used already);
 *   2  open the last protected packet again: refused as replayed;
 *   3  as 1, but first open the packet with one bit flipped (the chunk's
 *      first bytes pick where): refused (with the 80-bit tags; a 32-bit
 *      tag is left to chance, 2^-32 a try), and the sound packet then
 *      opens as in 1.
 * Every verdict is counted once, in its own counter, across the two
 * receiving sessions; a protected packet is the RTP packet plus the
 * profile's tag. Keys: bytes 0, 1, 2, ... (the second: 0x80, 0x81, ...). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gstnetsrtp.h"
#include "fuzzrecords.h"

#define MAX_PACKET 1500
#define RTP_HEADER 12

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

typedef struct
{
  GstNetSrtpProfile profile;
  GstNetSrtp *tx, *rx, *rx2;
  guint64 protects;
  guint8 last[MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD];
  gsize last_len;
} Rig;

static gsize
tag_length (GstNetSrtpProfile profile)
{
  return profile == GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32 ||
      profile == GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32 ? 4 : 10;
}

/* Both receiving sessions' counters added up. */
static GstNetSrtpStats
rx_stats (const Rig * r)
{
  GstNetSrtpStats st = { 0, };

  gst_net_srtp_add_stats (r->rx, &st);
  if (r->rx2)
    gst_net_srtp_add_stats (r->rx2, &st);
  return st;
}

/* Opens a copy of the @len bytes at @p into @out; *@out_len is then the
 * RTP packet's length. The verdict is the one counter that moved. */
static GstNetSrtpVerdict
open_counted (Rig * r, const guint8 * p, gsize len, guint8 * out,
    gsize * out_len)
{
  GstNetSrtpStats a = rx_stats (r), b;
  gsize n = len;
  const guint8 *got = gst_net_srtp_unprotect_copy (r->rx, r->rx2, p, &n, out,
      MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD);
  guint64 moved[4];
  GstNetSrtpVerdict v = GST_NET_SRTP_OK;

  b = rx_stats (r);
  moved[GST_NET_SRTP_OK] = b.accepted - a.accepted;
  moved[GST_NET_SRTP_AUTH_FAILED] = b.auth_failed - a.auth_failed;
  moved[GST_NET_SRTP_REPLAYED] = b.replayed - a.replayed;
  moved[GST_NET_SRTP_MALFORMED] = b.malformed - a.malformed;
  if (moved[0] + moved[1] + moved[2] + moved[3] != 1)
    abort ();
  while (!moved[v])
    v++;
  if ((got != NULL) != (v == GST_NET_SRTP_OK) || (got && n > len))
    abort ();
  *out_len = got ? n : 0;
  return v;
}

/* Makes the chunk an RTP packet in @plain and protects a copy of it into
 * r->last: its length, 0 when the sender refused it. */
static gsize
protect_chunk (Rig * r, const FuzzRecord * rec, guint8 * plain, gsize * len)
{
  GstNetSrtpStats st;
  gsize n;

  *len = MIN (rec->len, MAX_PACKET);
  r->last_len = 0;
  if (*len < RTP_HEADER)
    return 0;
  memcpy (plain, rec->chunk, *len);
  plain[0] = 0x80 | (plain[0] & 0x3f);
  plain[1] &= 0x7f;
  memcpy (r->last, plain, *len);
  n = gst_net_srtp_protect (r->tx, r->last, *len, sizeof (r->last));
  r->protects++;
  gst_net_srtp_get_stats (r->tx, &st);
  if (st.protected_packets + st.protect_failed != r->protects ||
      (n && n != *len + tag_length (r->profile)))
    abort ();
  r->last_len = n;
  return n;
}

/* The last protected packet opens to @plain's @len bytes. */
static void
expect_opens (Rig * r, const guint8 * plain, gsize len)
{
  guint8 out[MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD];
  gsize out_len;

  if (open_counted (r, r->last, r->last_len, out, &out_len) !=
      GST_NET_SRTP_OK || out_len != len || memcmp (out, plain, len) != 0)
    abort ();
}

static void
protect_and_open (Rig * r, const FuzzRecord * rec)
{
  guint8 plain[MAX_PACKET];
  gsize len;

  if (protect_chunk (r, rec, plain, &len))
    expect_opens (r, plain, len);
}

static void
replay_last (Rig * r)
{
  guint8 out[MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD];
  gsize out_len;

  if (r->last_len &&
      open_counted (r, r->last, r->last_len, out, &out_len) !=
      GST_NET_SRTP_REPLAYED)
    abort ();
}

/* A fresh packet with one bit flipped (the chunk's first bytes pick
 * where) is refused, and leaves no trace: the sound packet opens after
 * it. */
static void
protect_flip_open (Rig * r, const FuzzRecord * rec)
{
  guint8 plain[MAX_PACKET], bad[sizeof (r->last)];
  guint8 out[MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD];
  gsize len, out_len;
  guint pos, bit;
  gboolean short_tag = tag_length (r->profile) == 4;

  if (!protect_chunk (r, rec, plain, &len))
    return;
  pos = (rec->v >> 16) % r->last_len;
  bit = (rec->v >> 8) & 7;
  memcpy (bad, r->last, r->last_len);
  bad[pos] ^= 1 << bit;
  if (open_counted (r, bad, r->last_len, out, &out_len) == GST_NET_SRTP_OK) {
    if (!short_tag)
      abort ();
    return;                     /* a 32-bit tag matched by chance */
  }
  expect_opens (r, plain, len);
}

static GstNetSrtp *
session (GstNetSrtpProfile profile, guint8 first, GstNetSrtpDirection dir)
{
  guint8 key[GST_NET_SRTP_KEY_MAX];
  GstNetSrtp *s;

  for (guint i = 0; i < sizeof (key); i++)
    key[i] = first + i;
  s = gst_net_srtp_new (key, profile, dir, NULL);
  if (!s)
    abort ();
  return s;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const GstNetSrtpProfile profiles[] = {
    GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80, GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32,
    GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80, GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32,
  };
  Rig r = { 0, };
  FuzzRecord rec;
  size_t pos = 1;

  /* Debian's libsrtp2 runs on NSS, initialised by each cipher and shut
   * down with the last: one session held for the process keeps NSS
   * loaded, else every input loads it again (most of the time). */
  static GstNetSrtp *nss_hold;

  if (!nss_hold)
    nss_hold = session (profiles[0], 0, GST_NET_SRTP_RECEIVE);
  if (size < 1)
    return 0;
  r.profile = profiles[data[0] & 3];
  r.tx = session (r.profile, 0, GST_NET_SRTP_SEND);
  r.rx = session (r.profile, 0, GST_NET_SRTP_RECEIVE);
  if (data[0] & 4)
    r.rx2 = session (r.profile, 0x80, GST_NET_SRTP_RECEIVE);
  while (fuzz_next_record (data, size, &pos, &rec)) {
    guint8 out[MAX_PACKET + GST_NET_SRTP_MAX_OVERHEAD];
    gsize out_len;

    switch (rec.op % 4) {
      case 0:
        open_counted (&r, rec.chunk, rec.len, out, &out_len);
        break;
      case 1:
        protect_and_open (&r, &rec);
        break;
      case 2:
        replay_last (&r);
        break;
      case 3:
        protect_flip_open (&r, &rec);
        break;
    }
    g_free (rec.chunk);
  }
  gst_net_srtp_free (r.tx);
  gst_net_srtp_free (r.rx);
  gst_net_srtp_free (r.rx2);
  return 0;
}
