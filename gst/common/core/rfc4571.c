/* RFC 4571 framer and deframer. See rfc4571.h. */
#include "core/rfc4571.h"
#include "core/wire.h"

gboolean
rfc4571_header_write (gsize len, guint8 * out)
{
  if (len > RFC4571_MAX_FRAME)
    return FALSE;
  write16 (out, (guint16) len);
  return TRUE;
}

gboolean
rfc4571_frame_append (GByteArray * stream, const guint8 * data, gsize len)
{
  guint8 hdr[RFC4571_HEADER_SIZE];

  if (!rfc4571_header_write (len, hdr))
    return FALSE;
  g_byte_array_append (stream, hdr, sizeof hdr);
  g_byte_array_append (stream, data, (guint) len);
  return TRUE;
}

void
rfc4571_deframer_init (Rfc4571Deframer * d, gsize max_frame)
{
  d->buf = g_byte_array_new ();
  d->off = 0;
  d->max_frame = CLAMP (max_frame, 1, RFC4571_MAX_FRAME);
  d->skip = 0;
  d->frames = d->empty = d->oversize = 0;
}

void
rfc4571_deframer_clear (Rfc4571Deframer * d)
{
  g_clear_pointer (&d->buf, g_byte_array_unref);
}

void
rfc4571_deframer_reset (Rfc4571Deframer * d)
{
  g_byte_array_set_size (d->buf, 0);
  d->off = 0;
  d->skip = 0;
}

void
rfc4571_deframer_push (Rfc4571Deframer * d, const guint8 * data, gsize len)
{
  gsize skipped = MIN (d->skip, len);

  d->skip -= skipped;
  data += skipped;
  len -= skipped;
  if (d->off) {
    g_byte_array_remove_range (d->buf, 0, d->off);
    d->off = 0;
  }
  if (len)
    g_byte_array_append (d->buf, data, (guint) len);
}

gboolean
rfc4571_deframer_pop (Rfc4571Deframer * d, const guint8 ** frame,
    gsize * len)
{
  while (d->buf->len - d->off >= RFC4571_HEADER_SIZE) {
    const guint8 *p = d->buf->data + d->off;
    gsize flen = read16 (p), have = d->buf->len - d->off - RFC4571_HEADER_SIZE;

    if (flen == 0) {
      d->empty++;
      d->off += RFC4571_HEADER_SIZE;
    } else if (flen > d->max_frame) {
      /* the length still says where the next frame starts */
      d->oversize++;
      d->off += RFC4571_HEADER_SIZE + MIN (flen, have);
      d->skip = flen - MIN (flen, have);
    } else if (have >= flen) {
      d->frames++;
      d->off += RFC4571_HEADER_SIZE + flen;
      *frame = p + RFC4571_HEADER_SIZE;
      *len = flen;
      return TRUE;
    } else {
      return FALSE;
    }
  }
  return FALSE;
}

gsize
rfc4571_deframer_pending (const Rfc4571Deframer * d)
{
  return d->buf->len - d->off;
}
