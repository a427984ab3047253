/* libFuzzer target: the RTP header parser of gst/common/core (RFC 3550 5.1,
 * RFC 8285 extensions). Input: one RTP packet. A packet that parses must be
 * described consistently (header, payload and padding add up, every
 * extension element lies in its block), the prefix check must agree with
 * the whole-packet parse, writing the parsed header back must give the
 * same header, and adding an element must keep the packet and its elements
 * and put the new one last. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rtp.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MAX_ELEMENTS 256

/* The elements of @h, or -1 if the block is not in an RFC 8285 profile or
 * malformed. */
static gint
collect_elements (const RtpHeader * h, RtpExtElement * els)
{
  RtpExtIter it;
  RtpExtElement el;
  gint n = 0;

  if (!rtp_ext_iter_init (&it, h))
    return -1;
  while (rtp_ext_iter_next (&it, &el)) {
    if (el.data < h->ext_data || el.data + el.len > h->ext_data + h->ext_len)
      abort ();
    if (n == MAX_ELEMENTS)
      return -1;
    els[n++] = el;
  }
  return it.failed ? -1 : n;
}

static void
check_rewrite (const RtpHeader * h, const RtpExtElement * els, gint n)
{
  static guint8 out[RTP_LAYOUT_PREFIX + 4 * 65536];
  RtpHeader hh = *h, back;
  RtpExtElement back_els[MAX_ELEMENTS];
  gsize len;

  /* the header alone: no padding after it */
  hh.padding = FALSE;
  len = rtp_header_write (&hh, els, (guint) n, out, sizeof out);
  if (len == 0)
    abort ();
  if (!rtp_header_parse (out, len, &back) || back.seq != h->seq ||
      back.timestamp != h->timestamp || back.ssrc != h->ssrc ||
      back.marker != h->marker || back.payload_type != h->payload_type ||
      back.csrc_count != h->csrc_count ||
      memcmp (back.csrc, h->csrc, 4 * h->csrc_count) != 0 ||
      back.extension != (n > 0) || back.payload_len != 0)
    abort ();
  if (n > 0) {
    if (collect_elements (&back, back_els) != n)
      abort ();
    for (gint i = 0; i < n; i++)
      if (back_els[i].id != els[i].id || back_els[i].len != els[i].len ||
          memcmp (back_els[i].data, els[i].data, els[i].len) != 0)
        abort ();
  }
}

static void
check_ext_add (const guint8 * data, gsize size, const RtpHeader * h,
    const RtpExtElement * els, gint n)
{
  static const guint8 q[3] = { 0xa1, 0xa2, 0xa3 };
  RtpExtElement el = { (guint8) (1 + h->seq % 14), q, 1 + h->timestamp % 3 };
  RtpExtElement back_els[MAX_ELEMENTS];
  gsize max = size + RTP_EXT_ADD_GROWTH (el.len), len;
  guint8 *out = g_malloc (max);
  RtpHeader back;
  gint m;

  len = rtp_ext_add (data, size, &el, out, max);
  if (len == 0) {
    /* only a block of another profile, a malformed one or a full one */
    if (!h->extension || (n >= 0 && n < MAX_ELEMENTS - 1 &&
            h->ext_len < 4 * (gsize) (G_MAXUINT16 - 2)))
      abort ();
    g_free (out);
    return;
  }
  if (!rtp_header_parse (out, len, &back) || back.seq != h->seq ||
      back.ssrc != h->ssrc || back.csrc_count != h->csrc_count ||
      back.payload_len != h->payload_len ||
      back.padding_len != h->padding_len ||
      memcmp (back.payload, h->payload, h->payload_len) != 0)
    abort ();
  m = collect_elements (&back, back_els);
  if (n >= 0 && m >= 0) {
    if (m != n + 1 || back_els[n].id != el.id || back_els[n].len != el.len ||
        memcmp (back_els[n].data, q, el.len) != 0)
      abort ();
    for (gint i = 0; i < n; i++)
      if (back_els[i].id != els[i].id || back_els[i].len != els[i].len ||
          memcmp (back_els[i].data, els[i].data, els[i].len) != 0)
        abort ();
  }
  g_free (out);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static RtpExtElement els[MAX_ELEMENTS];
  RtpHeader h;
  gboolean ok = rtp_header_parse (data, size, &h);
  gsize hlen = 0, pad = 0;
  gint n;

  if (size > 0 && ok != rtp_layout_check (data, MIN (size, RTP_LAYOUT_PREFIX),
          size, data[size - 1], &hlen, &pad))
    abort ();
  if (!ok)
    return 0;
  if (hlen != h.header_len || pad != h.padding_len ||
      h.header_len + h.payload_len + h.padding_len != size ||
      h.payload != data + h.header_len || h.csrc_count > RTP_MAX_CSRC)
    abort ();
  n = collect_elements (&h, els);
  if (n > 0 || !h.extension)
    check_rewrite (&h, els, MAX (n, 0));
  check_ext_add (data, size, &h, els, n);
  return 0;
}
