/* RTCP: compound walk, SR/RR, SDES CNAME, APP, RFC 4585 NACK and PLI.
 * See rtcp.h. */
#include "core/rtcp.h"
#include "core/wire.h"

#include <stdlib.h>

gboolean
rtcp_header_parse (const guint8 * data, gsize len, RtcpPacket * pkt)
{
  WireReader r;
  guint8 b0 = 0, type = 0;
  guint16 words = 0;
  gsize plen;

  wire_reader_init (&r, data, len);
  b0 = wire_read_u8 (&r);
  type = wire_read_u8 (&r);
  words = wire_read_u16 (&r);
  plen = ((gsize) words + 1) * 4;
  if (r.failed || (b0 >> 6) != RTCP_VERSION || plen > len)
    return FALSE;
  pkt->padding = (b0 & 0x20) != 0;
  pkt->count = b0 & 0x1f;
  pkt->type = type;
  pkt->data = data;
  pkt->len = plen;
  pkt->body = data + RTCP_HEADER_SIZE;
  pkt->body_len = plen - RTCP_HEADER_SIZE;
  return TRUE;
}

/* RFC 3550 6.4.1: the padding count includes itself and stays within the
 * packet's body. */
static gboolean
strip_padding (RtcpPacket * pkt)
{
  guint8 pad;

  if (!pkt->padding)
    return TRUE;
  pad = pkt->data[pkt->len - 1];
  if (pad == 0 || pad > pkt->body_len)
    return FALSE;
  pkt->body_len -= pad;
  return TRUE;
}

void
rtcp_iter_init (RtcpIter * it, const guint8 * data, gsize len)
{
  it->data = data;
  it->len = data ? len : 0;
  it->pos = 0;
  it->failed = FALSE;
}

gboolean
rtcp_iter_next (RtcpIter * it, RtcpPacket * pkt)
{
  if (it->failed || it->pos >= it->len)
    return FALSE;
  if (!rtcp_header_parse (it->data + it->pos, it->len - it->pos, pkt) ||
      (pkt->padding && it->pos + pkt->len != it->len) ||
      !strip_padding (pkt)) {
    it->failed = TRUE;
    return FALSE;
  }
  it->pos += pkt->len;
  return TRUE;
}

gboolean
rtcp_walk_valid (const guint8 * data, gsize len)
{
  RtcpIter it;
  RtcpPacket pkt;

  if (data == NULL || len == 0)
    return FALSE;
  rtcp_iter_init (&it, data, len);
  while (rtcp_iter_next (&it, &pkt)) {
  }
  return !it.failed;
}

gboolean
rtcp_compound_valid (const guint8 * data, gsize len)
{
  RtcpPacket first;

  return rtcp_header_parse (data, len, &first) && !first.padding &&
      (first.type == RTCP_PT_SR || first.type == RTCP_PT_RR) &&
      rtcp_walk_valid (data, len);
}

/* Starts writing a packet of @len bytes (a multiple of 4) at @out: FALSE,
 * with nothing written, if it does not fit @max or its length field. Every
 * writer here writes all or nothing. */
static gboolean
begin_packet (WireWriter * w, guint8 * out, gsize max, guint8 count,
    guint8 type, gsize len)
{
  if (len > max || len / 4 - 1 > G_MAXUINT16)
    return FALSE;
  wire_writer_init (w, out, max);
  wire_write_u8 (w, (guint8) ((RTCP_VERSION << 6) | count));
  wire_write_u8 (w, type);
  wire_write_u16 (w, (guint16) (len / 4 - 1));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* SR and RR */

static void
read_block (WireReader * r, RtcpReportBlock * k)
{
  guint32 lost = 0;

  k->ssrc = wire_read_u32 (r);
  lost = wire_read_u32 (r);
  k->fraction_lost = lost >> 24;
  lost &= 0xffffff;
  k->cumulative_lost = (lost & 0x800000) ? (gint32) lost - 0x1000000 :
      (gint32) lost;
  k->ext_highest_seq = wire_read_u32 (r);
  k->jitter = wire_read_u32 (r);
  k->lsr = wire_read_u32 (r);
  k->dlsr = wire_read_u32 (r);
}

gboolean
rtcp_report_parse (const RtcpPacket * pkt, RtcpReport * rep)
{
  WireReader r;

  if (pkt->type != RTCP_PT_SR && pkt->type != RTCP_PT_RR)
    return FALSE;
  memset (rep, 0, sizeof (*rep));
  wire_reader_init (&r, pkt->body, pkt->body_len);
  rep->is_sr = pkt->type == RTCP_PT_SR;
  rep->ssrc = wire_read_u32 (&r);
  if (rep->is_sr) {
    rep->ntp = wire_read_u64 (&r);
    rep->rtp_ts = wire_read_u32 (&r);
    rep->packet_count = wire_read_u32 (&r);
    rep->octet_count = wire_read_u32 (&r);
  }
  rep->n_blocks = pkt->count;
  for (guint i = 0; i < rep->n_blocks; i++)
    read_block (&r, &rep->blocks[i]);
  return !r.failed;
}

gsize
rtcp_report_write (const RtcpReport * rep, guint8 * out, gsize max)
{
  WireWriter w;
  guint n = MIN (rep->n_blocks, RTCP_MAX_BLOCKS);
  gsize len = 8 + (rep->is_sr ? RTCP_SR_INFO_SIZE : 0) + RTCP_BLOCK_SIZE * n;

  if (!begin_packet (&w, out, max, (guint8) n, rep->is_sr ? RTCP_PT_SR :
          RTCP_PT_RR, len))
    return 0;
  wire_write_u32 (&w, rep->ssrc);
  if (rep->is_sr) {
    wire_write_u64 (&w, rep->ntp);
    wire_write_u32 (&w, rep->rtp_ts);
    wire_write_u32 (&w, rep->packet_count);
    wire_write_u32 (&w, rep->octet_count);
  }
  for (guint i = 0; i < n; i++) {
    const RtcpReportBlock *k = &rep->blocks[i];
    gint32 lost = CLAMP (k->cumulative_lost, -0x800000, 0x7fffff);

    wire_write_u32 (&w, k->ssrc);
    wire_write_u32 (&w, ((guint32) k->fraction_lost << 24) |
        ((guint32) lost & 0xffffff));
    wire_write_u32 (&w, k->ext_highest_seq);
    wire_write_u32 (&w, k->jitter);
    wire_write_u32 (&w, k->lsr);
    wire_write_u32 (&w, k->dlsr);
  }
  return w.failed ? 0 : w.pos;
}

gsize
rtcp_sdes_cname_write (guint32 ssrc, const gchar * cname, guint8 * out,
    gsize max)
{
  WireWriter w;
  gsize clen = MIN (strlen (cname), 255);
  /* header, SSRC, CNAME item, END, padded to 32 bits */
  gsize len = 8 + ((2 + clen + 1 + 3) & ~(gsize) 3);

  if (!begin_packet (&w, out, max, 1, RTCP_PT_SDES, len))
    return 0;
  wire_write_u32 (&w, ssrc);
  wire_write_u8 (&w, RTCP_SDES_CNAME);
  wire_write_u8 (&w, (guint8) clen);
  wire_write_bytes (&w, (const guint8 *) cname, clen);
  wire_write_zeros (&w, len - w.pos);
  return w.failed ? 0 : w.pos;
}

/* ------------------------------------------------------------------ */
/* BYE */

gboolean
rtcp_bye_parse (const RtcpPacket * pkt, RtcpBye * bye)
{
  WireReader r;

  if (pkt->type != RTCP_PT_BYE)
    return FALSE;
  memset (bye, 0, sizeof (*bye));
  wire_reader_init (&r, pkt->body, pkt->body_len);
  bye->n_sources = pkt->count;
  for (guint i = 0; i < bye->n_sources; i++)
    bye->sources[i] = wire_read_u32 (&r);
  if (!r.failed && wire_reader_remaining (&r) > 0) {
    bye->reason_len = wire_read_u8 (&r);
    bye->reason = wire_read_bytes (&r, bye->reason_len);
  }
  return !r.failed;
}

gsize
rtcp_bye_write (const guint32 * sources, guint n_sources,
    const gchar * reason, guint8 * out, gsize max)
{
  WireWriter w;
  gsize rlen = reason ? MIN (strlen (reason), 255) : 0;
  /* header, SSRCs, the reason (length octet, text) padded to 32 bits */
  gsize len = 4 + 4 * (gsize) n_sources +
      (reason ? (1 + rlen + 3) & ~(gsize) 3 : 0);

  if (n_sources == 0 || n_sources > RTCP_BYE_MAX_SOURCES ||
      !begin_packet (&w, out, max, (guint8) n_sources, RTCP_PT_BYE, len))
    return 0;
  for (guint i = 0; i < n_sources; i++)
    wire_write_u32 (&w, sources[i]);
  if (reason) {
    wire_write_u8 (&w, (guint8) rlen);
    wire_write_bytes (&w, (const guint8 *) reason, rlen);
    wire_write_zeros (&w, len - w.pos);
  }
  return w.failed ? 0 : w.pos;
}

/* ------------------------------------------------------------------ */
/* APP */

gboolean
rtcp_app_parse (const RtcpPacket * pkt, RtcpApp * app)
{
  WireReader r;
  const guint8 *name;

  if (pkt->type != RTCP_PT_APP)
    return FALSE;
  wire_reader_init (&r, pkt->body, pkt->body_len);
  app->subtype = pkt->count;
  app->ssrc = wire_read_u32 (&r);
  name = wire_read_bytes (&r, 4);
  if (!name)
    return FALSE;
  memcpy (app->name, name, 4);
  app->len = wire_reader_remaining (&r);
  app->data = wire_read_bytes (&r, app->len);
  return TRUE;
}

gsize
rtcp_app_write (guint8 subtype, guint32 ssrc, const gchar name[4],
    const guint8 * data, gsize len, guint8 * out, gsize max)
{
  WireWriter w;
  gsize total = RTCP_APP_HEADER_SIZE + len;

  if (len % 4 || subtype > 31 ||
      !begin_packet (&w, out, max, subtype, RTCP_PT_APP, total))
    return 0;
  wire_write_u32 (&w, ssrc);
  wire_write_bytes (&w, (const guint8 *) name, 4);
  wire_write_bytes (&w, data, len);
  return w.failed ? 0 : w.pos;
}

/* ------------------------------------------------------------------ */
/* Generic NACK */

static gint
cmp_u16 (gconstpointer a, gconstpointer b)
{
  return (gint) * (const guint16 *) a - (gint) * (const guint16 *) b;
}

guint
rtcp_nack_items_from_seqs (const guint16 * seqs, guint n, RtcpNackItem * items,
    guint max_items)
{
  guint16 *sorted = g_memdup2 (seqs, n * sizeof (guint16));
  guint n_items = 0;

  /* Sorted from just after the widest gap, so a list across the wrap stays
   * in sequence order. */
  qsort (sorted, n, sizeof (guint16), cmp_u16);
  {
    guint start = 0, widest = 0;
    for (guint i = 0; i < n; i++) {
      guint16 gap = sorted[(i + 1) % n] - sorted[i];
      if (gap > widest) {
        widest = gap;
        start = (i + 1) % n;
      }
    }
    for (guint k = 0; k < n; k++) {
      guint16 s = sorted[(start + k) % n];
      RtcpNackItem *last = n_items ? &items[n_items - 1] : NULL;
      guint16 d = last ? (guint16) (s - last->pid) : 0;

      if (last && d == 0)
        continue;
      if (last && d <= 16) {
        last->blp |= 1 << (d - 1);
        continue;
      }
      if (n_items == max_items)
        break;
      items[n_items].pid = s;
      items[n_items].blp = 0;
      n_items++;
    }
  }
  g_free (sorted);
  return n_items;
}

gsize
rtcp_nack_write (guint32 sender_ssrc, guint32 media_ssrc,
    const RtcpNackItem * items, guint n_items, guint8 * out, gsize max)
{
  WireWriter w;
  gsize len = 12 + 4 * (gsize) n_items;

  if (n_items == 0 ||
      !begin_packet (&w, out, max, RTCP_FMT_NACK, RTCP_PT_RTPFB, len))
    return 0;
  wire_write_u32 (&w, sender_ssrc);
  wire_write_u32 (&w, media_ssrc);
  for (guint i = 0; i < n_items; i++) {
    wire_write_u16 (&w, items[i].pid);
    wire_write_u16 (&w, items[i].blp);
  }
  return w.failed ? 0 : w.pos;
}

/* The two SSRCs that open every RFC 4585 feedback message (6.1), and how
 * many bytes of feedback control information follow. */
static gboolean
read_feedback_ssrcs (const RtcpPacket * pkt, guint32 * sender_ssrc,
    guint32 * media_ssrc, gsize * fci_len)
{
  WireReader r;
  guint32 s = 0, m = 0;

  wire_reader_init (&r, pkt->body, pkt->body_len);
  s = wire_read_u32 (&r);
  m = wire_read_u32 (&r);
  if (r.failed)
    return FALSE;
  if (sender_ssrc)
    *sender_ssrc = s;
  if (media_ssrc)
    *media_ssrc = m;
  *fci_len = wire_reader_remaining (&r);
  return TRUE;
}

gboolean
rtcp_nack_parse (const RtcpPacket * pkt, guint32 * sender_ssrc,
    guint32 * media_ssrc, guint * n_items)
{
  gsize fci_len = 0;
  guint32 s = 0, m = 0;

  /* RFC 4585 6.2.1: at least one item */
  if (pkt->type != RTCP_PT_RTPFB || pkt->count != RTCP_FMT_NACK ||
      !read_feedback_ssrcs (pkt, &s, &m, &fci_len) || fci_len < 4)
    return FALSE;
  if (sender_ssrc)
    *sender_ssrc = s;
  if (media_ssrc)
    *media_ssrc = m;
  if (n_items)
    *n_items = (guint) (fci_len / 4);
  return TRUE;
}

RtcpNackItem
rtcp_nack_item (const RtcpPacket * pkt, guint i)
{
  const guint8 *p = pkt->body + 8 + 4 * (gsize) i;
  RtcpNackItem item = { read16 (p), read16 (p + 2) };

  return item;
}

guint
rtcp_nack_item_expand (RtcpNackItem item, guint16 out[17])
{
  guint n = 0;

  out[n++] = item.pid;
  for (guint i = 0; i < 16; i++)
    if (item.blp & (1 << i))
      out[n++] = (guint16) (item.pid + i + 1);
  return n;
}

/* ------------------------------------------------------------------ */
/* PLI and the key-unit hold-off */

gsize
rtcp_pli_write (guint8 * out, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc)
{
  WireWriter w;

  if (!begin_packet (&w, out, max, RTCP_FMT_PLI, RTCP_PT_PSFB, RTCP_PLI_SIZE))
    return 0;
  wire_write_u32 (&w, sender_ssrc);
  wire_write_u32 (&w, media_ssrc);
  return w.failed ? 0 : w.pos;
}

gboolean
rtcp_pli_parse (const guint8 * data, gsize len, guint32 * sender_ssrc,
    guint32 * media_ssrc)
{
  RtcpPacket pkt;
  gsize fci_len;

  return data != NULL && rtcp_header_parse (data, len, &pkt) &&
      pkt.type == RTCP_PT_PSFB && pkt.count == RTCP_FMT_PLI &&
      read_feedback_ssrcs (&pkt, sender_ssrc, media_ssrc, &fci_len);
}

void
key_unit_holdoff_init (KeyUnitHoldoff * h)
{
  h->last = -1;
}

gboolean
key_unit_holdoff_take (KeyUnitHoldoff * h, gint64 now, gint64 holdoff)
{
  if (h->last >= 0 && now - h->last < holdoff)
    return FALSE;
  h->last = now;
  return TRUE;
}
