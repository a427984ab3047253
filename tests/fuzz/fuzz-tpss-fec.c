/* libFuzzer target: the TPSS FEC header parser and the decoder fed with
 * arbitrary media and parity packets, arbitrary time steps, and parity made
 * by the encoder from fuzzed media. Every packet the decoder outputs must be
 * valid RTP of the stream's SSRC; anything else aborts.
 *
 * Input: a sequence of records [op:1][len:2, big endian][len bytes]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpssfec.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_output (TpssFecDecoder * dec)
{
  TpssFecOutput o;

  while (tpss_fec_decoder_pop (dec, &o)) {
    const guint8 *pkt = o.handle ? o.handle : o.data;
    if (!tpss_rtp_is_valid (pkt, o.len) ||
        ((pkt[2] << 8) | pkt[3]) != o.seq)
      abort ();
    g_free (o.data);
  }
}

static void
feed_media (TpssFecDecoder * dec, const guint8 * bytes, gsize len, gint64 now)
{
  /* A copy of exactly @len bytes, so an over-read is caught. */
  guint8 *copy = g_memdup2 (bytes, len);

  if (!tpss_fec_decoder_push_media (dec, copy, copy, len, now))
    g_free (copy);
}

/* Delivers the parity the encoder has ready, as a sender must before it
 * adds the next packet. */
static void
drain_parity (TpssFecEncoder * enc, TpssFecDecoder * dec, gint64 now)
{
  const guint8 *payload;
  gsize plen;

  while (tpss_fec_encoder_pop (enc, &payload, &plen, NULL))
    tpss_fec_decoder_push_fec (dec, payload, plen, now);
}

/* Protects a packet; @deliver FALSE loses it on the way, parity still goes. */
static void
feed_encoder (TpssFecEncoder * enc, TpssFecDecoder * dec,
    const guint8 * bytes, gsize len, gint64 now, gboolean deliver)
{
  tpss_fec_encoder_add (enc, bytes, len, NULL);
  if (deliver)
    feed_media (dec, bytes, len, now);
  drain_parity (enc, dec, now);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  TpssFecDecoderConfig cfg = { 20 * G_TIME_SPAN_MILLISECOND * 1000, g_free };
  TpssFecDecoder *dec;
  TpssFecEncoder *enc;
  TpssFecHeader hdr;
  gint64 now = 0;
  size_t pos = 0;

  tpss_fec_header_parse (data, size, &hdr);
  if (size < 1)
    return 0;

  dec = tpss_fec_decoder_new (&cfg);
  enc = tpss_fec_encoder_new (1 + data[0] % 8, data[0] >> 5);
  pos = 1;
  while (pos + 3 <= size) {
    guint8 op = data[pos];
    size_t len = MIN ((size_t) ((data[pos + 1] << 8) | data[pos + 2]),
        size - pos - 3);
    guint8 *chunk = g_memdup2 (data + pos + 3, len);

    pos += 3 + len;
    switch (op % 6) {
      case 0:
        feed_media (dec, chunk, len, now);
        break;
      case 1:
        tpss_fec_decoder_push_fec (dec, chunk, len, now);
        break;
      case 2:
        now += (gint64) op * G_TIME_SPAN_MILLISECOND * 1000 / 4;
        tpss_fec_decoder_advance (dec, now);
        break;
      case 3:
      case 4:
        feed_encoder (enc, dec, chunk, len, now, op % 6 == 3);
        break;
      case 5:
        tpss_fec_encoder_set_params (enc, 1 + op % 16, op % 7);
        if (tpss_fec_encoder_flush (enc) > 0) {
          drain_parity (enc, dec, now);
          feed_encoder (enc, dec, chunk, len, now, TRUE);
        }
        break;
    }
    g_free (chunk);
    check_output (dec);
  }
  tpss_fec_decoder_drain (dec);
  check_output (dec);
  tpss_fec_decoder_free (dec);
  tpss_fec_encoder_free (enc);
  return 0;
}
