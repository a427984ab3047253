/* RTCP payload-specific feedback that every protocol carries the same way
 * (GLib only, header only): the Picture Loss Indication of RFC 4585 section
 * 6.3.1, and the rule by which a sender turns PLIs into key-unit requests.
 *
 * A receiver sends a PLI when it starts receiving a source (a late joiner)
 * and whenever its depayloader asks for a key unit; the sender asks its
 * encoder for a key unit at most once per hold-off (a PLI that arrives while
 * the requested key unit is still on its way must not ask again, RFC 4585
 * section 3.5.2). */
#ifndef __RTCP_FB_H__
#define __RTCP_FB_H__

#include <glib.h>

#include "wirebytes.h"

#define RTCP_PT_PSFB 206
#define RTCP_FMT_PLI 1
#define RTCP_PLI_SIZE 12

/* Writes a PLI (12 bytes) from @sender_ssrc about @media_ssrc. */
static inline gsize
rtcp_pli_write (guint8 * out, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc)
{
  if (max < RTCP_PLI_SIZE)
    return 0;
  out[0] = 0x80 | RTCP_FMT_PLI;
  out[1] = RTCP_PT_PSFB;
  write16 (out + 2, 2);         /* length in 32-bit words minus one */
  write32 (out + 4, sender_ssrc);
  write32 (out + 8, media_ssrc);
  return RTCP_PLI_SIZE;
}

/* Whether the RTCP packet at @data is a PLI: version 2, PT 206, FMT 1, and
 * a length that fits @len and holds both SSRCs. */
static inline gboolean
rtcp_pli_parse (const guint8 * data, gsize len, guint32 * sender_ssrc,
    guint32 * media_ssrc)
{
  gsize words;

  if (len < RTCP_PLI_SIZE || (data[0] >> 6) != 2 || data[1] != RTCP_PT_PSFB
      || (data[0] & 0x1f) != RTCP_FMT_PLI)
    return FALSE;
  words = read16 (data + 2);
  if (words < 2 || (words + 1) * 4 > len)
    return FALSE;
  if (sender_ssrc)
    *sender_ssrc = read32 (data + 4);
  if (media_ssrc)
    *media_ssrc = read32 (data + 8);
  return TRUE;
}

/* A sender's hold-off between key-unit requests; @last is -1 at start. */
typedef struct
{
  gint64 last;                  /* ns, monotonic; -1: none yet */
} KeyUnitHoldoff;

static inline void
key_unit_holdoff_init (KeyUnitHoldoff * h)
{
  h->last = -1;
}

/* TRUE (and the request is taken) if no request was taken in the last
 * @holdoff ns. */
static inline gboolean
key_unit_holdoff_take (KeyUnitHoldoff * h, gint64 now, gint64 holdoff)
{
  if (h->last >= 0 && now - h->last < holdoff)
    return FALSE;
  h->last = now;
  return TRUE;
}

#endif /* __RTCP_FB_H__ */
