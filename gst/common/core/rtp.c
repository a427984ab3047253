/* RTP header parser and writer, RFC 3550 5.1 and RFC 8285. See rtp.h. */
#include "core/rtp.h"
#include "core/wire.h"

gboolean
rtp_layout_check (const guint8 * prefix, gsize prefix_len, gsize len,
    guint8 last_octet, gsize * header_len, gsize * padding_len)
{
  WireReader r;
  guint8 b0 = 0;
  guint16 ext_words = 0;
  gsize hlen, pad = 0;

  wire_reader_init (&r, prefix, MIN (prefix_len, len));
  b0 = wire_read_u8 (&r);
  if (r.failed || (b0 >> 6) != RTP_VERSION ||
      !wire_skip (&r, RTP_HEADER_SIZE - 1 + 4 * (gsize) (b0 & 0x0f)))
    return FALSE;
  if (b0 & 0x10) {
    wire_skip (&r, 2);
    ext_words = wire_read_u16 (&r);
    if (r.failed)
      return FALSE;
  }
  hlen = r.pos + 4 * (gsize) ext_words;
  if (hlen > len)
    return FALSE;
  if (b0 & 0x20) {
    pad = last_octet;
    if (pad == 0 || hlen + pad > len)
      return FALSE;
  }
  if (header_len)
    *header_len = hlen;
  if (padding_len)
    *padding_len = pad;
  return TRUE;
}

gboolean
rtp_header_parse (const guint8 * data, gsize len, RtpHeader * h)
{
  gsize hlen, pad;

  if (data == NULL || len == 0 ||
      !rtp_layout_check (data, len, len, data[len - 1], &hlen, &pad))
    return FALSE;
  if (!h)
    return TRUE;
  h->padding = (data[0] & 0x20) != 0;
  h->extension = (data[0] & 0x10) != 0;
  h->csrc_count = data[0] & 0x0f;
  h->marker = (data[1] & 0x80) != 0;
  h->payload_type = data[1] & 0x7f;
  h->seq = read16 (data + 2);
  h->timestamp = read32 (data + 4);
  h->ssrc = read32 (data + 8);
  for (guint i = 0; i < h->csrc_count; i++)
    h->csrc[i] = read32 (data + RTP_HEADER_SIZE + 4 * i);
  h->ext_profile = 0;
  h->ext_data = NULL;
  h->ext_len = 0;
  if (h->extension) {
    const guint8 *e = data + RTP_HEADER_SIZE + 4 * h->csrc_count;
    h->ext_profile = read16 (e);
    h->ext_data = e + 4;
    h->ext_len = 4 * (gsize) read16 (e + 2);
  }
  h->header_len = hlen;
  h->padding_len = pad;
  h->payload = data + hlen;
  h->payload_len = len - hlen - pad;
  return TRUE;
}

gboolean
rtp_ext_iter_init (RtpExtIter * it, const RtpHeader * h)
{
  it->data = NULL;
  it->len = it->pos = 0;
  it->failed = FALSE;
  if (!h->extension)
    return FALSE;
  if (h->ext_profile == RTP_EXT_PROFILE_ONE_BYTE)
    it->two_byte = FALSE;
  else if ((h->ext_profile & RTP_EXT_PROFILE_TWO_BYTE_MASK) ==
      RTP_EXT_PROFILE_TWO_BYTE)
    it->two_byte = TRUE;
  else
    return FALSE;
  it->data = h->ext_data;
  it->len = h->ext_len;
  return TRUE;
}

gboolean
rtp_ext_iter_next (RtpExtIter * it, RtpExtElement * el)
{
  WireReader r;
  guint8 b = 0, l = 0;

  if (it->failed)
    return FALSE;
  wire_reader_init (&r, it->data, it->len);
  r.pos = it->pos;
  /* ID 0 is reserved for padding in both forms (RFC 8285 4.2, 4.3): an
   * octet with ID 0 is skipped whatever its length bits, as GStreamer's
   * RTP buffer reader does */
  do
    b = wire_read_u8 (&r);
  while (!r.failed && (it->two_byte ? b : b >> 4) == 0);
  if (r.failed) {
    it->pos = it->len;
    return FALSE;
  }
  if (!it->two_byte) {
    if (b >> 4 == 15) {         /* reserved: stop processing */
      it->pos = it->len;
      return FALSE;
    }
    el->id = b >> 4;
    el->len = (b & 0x0f) + 1;
  } else {
    el->id = b;
    l = wire_read_u8 (&r);
    el->len = l;
  }
  el->data = wire_read_bytes (&r, el->len);
  if (r.failed) {
    it->failed = TRUE;
    return FALSE;
  }
  it->pos = r.pos;
  return TRUE;
}

gboolean
rtp_ext_find (const RtpHeader * h, guint8 id, RtpExtElement * el)
{
  RtpExtIter it;

  if (!rtp_ext_iter_init (&it, h))
    return FALSE;
  while (rtp_ext_iter_next (&it, el))
    if (el->id == id)
      return TRUE;
  return FALSE;
}

static gboolean
ext_fits_one_byte (const RtpExtElement * ext, guint n)
{
  for (guint i = 0; i < n; i++)
    if (ext[i].id < 1 || ext[i].id > 14 || ext[i].len < 1 || ext[i].len > 16)
      return FALSE;
  return TRUE;
}

static void
ext_write_element (WireWriter * w, const RtpExtElement * el, gboolean two_byte)
{
  if (two_byte) {
    wire_write_u8 (w, el->id);
    wire_write_u8 (w, (guint8) el->len);
  } else {
    wire_write_u8 (w, (guint8) ((el->id << 4) | (el->len - 1)));
  }
  wire_write_bytes (w, el->data, el->len);
}

static gboolean
ext_write_block (WireWriter * w, const RtpExtElement * ext, guint n)
{
  gboolean one = ext_fits_one_byte (ext, n);
  gsize start, body;

  wire_write_u16 (w, one ? RTP_EXT_PROFILE_ONE_BYTE :
      RTP_EXT_PROFILE_TWO_BYTE);
  wire_write_u16 (w, 0);        /* length, patched below */
  start = w->pos;
  for (guint i = 0; i < n; i++)
    ext_write_element (w, &ext[i], !one);
  body = w->pos - start;
  wire_write_zeros (w, (4 - body % 4) % 4);
  if (w->failed || (w->pos - start) / 4 > G_MAXUINT16)
    return FALSE;
  write16 (w->data + start - 2, (guint16) ((w->pos - start) / 4));
  return TRUE;
}

/* Bytes of the extension block holding @ext, header word included; 0 if
 * an element can be written in neither form. */
static gsize
ext_block_size (const RtpExtElement * ext, guint n)
{
  gsize per = ext_fits_one_byte (ext, n) ? 1 : 2, body = 0;

  for (guint i = 0; i < n; i++) {
    if (ext[i].id == 0 || ext[i].len > 255)
      return 0;
    body += per + ext[i].len;
  }
  return 4 + (body + 3) / 4 * 4;
}

gsize
rtp_header_write (const RtpHeader * h, const RtpExtElement * ext,
    guint n_ext, guint8 * out, gsize max)
{
  WireWriter w;
  guint cc = MIN (h->csrc_count, RTP_MAX_CSRC);
  gsize ext_size = n_ext ? ext_block_size (ext, n_ext) : 0;

  /* all or nothing */
  if ((n_ext && ext_size == 0) || RTP_HEADER_SIZE + 4 * cc + ext_size > max)
    return 0;
  wire_writer_init (&w, out, max);
  wire_write_u8 (&w, (guint8) ((RTP_VERSION << 6) | (h->padding ? 0x20 : 0) |
          (n_ext ? 0x10 : 0) | cc));
  wire_write_u8 (&w, (guint8) ((h->marker ? 0x80 : 0) |
          (h->payload_type & 0x7f)));
  wire_write_u16 (&w, h->seq);
  wire_write_u32 (&w, h->timestamp);
  wire_write_u32 (&w, h->ssrc);
  for (guint i = 0; i < cc; i++)
    wire_write_u32 (&w, h->csrc[i]);
  if (n_ext && !w.failed && !ext_write_block (&w, ext, n_ext))
    return 0;
  return w.failed ? 0 : w.pos;
}

/* Where the elements of @h's block end (0 without a block), and its form;
 * FALSE if the block is of another profile or an element overruns it. */
static gboolean
ext_elements_end (const RtpHeader * h, gsize * end, gboolean * two_byte)
{
  RtpExtIter it;
  RtpExtElement el;

  *end = 0;
  if (!h->extension)
    return TRUE;
  if (!rtp_ext_iter_init (&it, h))
    return FALSE;
  while (rtp_ext_iter_next (&it, &el))
    *end = it.pos;
  *two_byte = it.two_byte;
  return !it.failed;
}

gsize
rtp_ext_add (const guint8 * in, gsize len, const RtpExtElement * el,
    guint8 * out, gsize max)
{
  RtpHeader h;
  WireWriter w;
  gsize fixed, keep, body, block;
  gboolean two_byte = !ext_fits_one_byte (el, 1);

  if (!rtp_header_parse (in, len, &h) || el->id == 0 || el->len > 255 ||
      !ext_elements_end (&h, &keep, &two_byte) ||
      (!two_byte && !ext_fits_one_byte (el, 1)))
    return 0;
  fixed = RTP_HEADER_SIZE + 4 * (gsize) h.csrc_count;
  body = keep + (two_byte ? 2 : 1) + el->len;
  block = (body + 3) / 4 * 4;
  if (block / 4 > G_MAXUINT16)
    return 0;
  wire_writer_init (&w, out, max);
  wire_write_bytes (&w, in, fixed);
  wire_write_u16 (&w, h.extension ? h.ext_profile : two_byte ?
      RTP_EXT_PROFILE_TWO_BYTE : RTP_EXT_PROFILE_ONE_BYTE);
  wire_write_u16 (&w, (guint16) (block / 4));
  wire_write_bytes (&w, h.ext_data, keep);
  ext_write_element (&w, el, two_byte);
  wire_write_zeros (&w, block - body);
  wire_write_bytes (&w, in + h.header_len, len - h.header_len);
  if (w.failed)
    return 0;
  out[0] |= 0x10;
  return w.pos;
}

gsize
rtp_padding_write (guint8 n, guint8 * out, gsize max)
{
  if (n == 0 || n > max)
    return 0;
  memset (out, 0, n - 1);
  out[n - 1] = n;
  return n;
}

void
rtp_set_seq (guint8 * data, guint16 seq)
{
  write16 (data + 2, seq);
}

void
rtp_set_ssrc (guint8 * data, guint32 ssrc)
{
  write32 (data + 8, ssrc);
}
