/* libFuzzer target: the RFC 4571 deframer of gst/common/core. Input: one
 * byte choosing the deframer's bound, one choosing the size of the pieces
 * the stream arrives in, then the stream. However the stream is cut, the
 * same frames must come out with the same counts; every frame lies within
 * the bound and is not empty; the deframer never holds more than the bound
 * and a length; the frames written again with the framer give the same
 * frames back, and give the input itself when nothing was skipped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rfc4571.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Deframes @stream arriving in pieces of @piece bytes; returns the frames
 * written again with the framer. */
static GByteArray *
deframe (Rfc4571Deframer * d, const guint8 * stream, gsize len, gsize piece)
{
  GByteArray *out = g_byte_array_new ();
  const guint8 *frame;
  gsize flen;

  for (gsize off = 0; off < len; off += piece) {
    rfc4571_deframer_push (d, stream + off, MIN (piece, len - off));
    while (rfc4571_deframer_pop (d, &frame, &flen)) {
      if (flen == 0 || flen > d->max_frame ||
          !rfc4571_frame_append (out, frame, flen))
        abort ();
    }
    if (rfc4571_deframer_pending (d) > d->max_frame + RFC4571_HEADER_SIZE)
      abort ();
  }
  return out;
}

static gboolean
same_bytes (const GByteArray * a, const guint8 * b, gsize len)
{
  return a->len == len && (len == 0 || memcmp (a->data, b, len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  Rfc4571Deframer whole, cut, again;
  GByteArray *a, *b, *c;
  gsize max_frame, piece;

  if (size < 2)
    return 0;
  /* bounds from 1 to the field's largest, small ones likely */
  max_frame = data[0] < 128 ? (gsize) data[0] + 1 :
      (gsize) (data[0] - 127) * 512;
  piece = data[1] + 1;
  data += 2;
  size -= 2;
  rfc4571_deframer_init (&whole, max_frame);
  rfc4571_deframer_init (&cut, max_frame);
  rfc4571_deframer_init (&again, RFC4571_MAX_FRAME);
  a = deframe (&whole, data, size, MAX (size, 1));
  b = deframe (&cut, data, size, piece);
  if (!same_bytes (a, b->data, b->len) || whole.frames != cut.frames ||
      whole.empty != cut.empty || whole.oversize != cut.oversize ||
      rfc4571_deframer_pending (&whole) != rfc4571_deframer_pending (&cut))
    abort ();
  c = deframe (&again, a->data, a->len, 7);
  if (!same_bytes (c, a->data, a->len) || again.frames != whole.frames ||
      again.empty || again.oversize || rfc4571_deframer_pending (&again))
    abort ();
  if (whole.empty == 0 && whole.oversize == 0 &&
      rfc4571_deframer_pending (&whole) == 0 && !same_bytes (a, data, size))
    abort ();
  g_byte_array_unref (a);
  g_byte_array_unref (b);
  g_byte_array_unref (c);
  rfc4571_deframer_clear (&whole);
  rfc4571_deframer_clear (&cut);
  rfc4571_deframer_clear (&again);
  return 0;
}
