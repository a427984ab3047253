/* The RTP header of RFC 3550 section 5.1 with the header extensions of RFC
 * 8285 (GLib only): one parser and one writer for every protocol.
 *
 * Parsing checks the layout only: version 2, the CSRC list, the extension
 * block and the padding (RFC 3550 5.1: the last octet counts the padding,
 * itself included, so it is never 0 and never reaches into the header) all
 * within the packet. The extension elements are read on demand with
 * RtpExtIter, which refuses an element that overruns its block; a packet
 * whose elements are malformed is still a valid RTP packet. */
#ifndef __CORE_RTP_H__
#define __CORE_RTP_H__

#include <glib.h>

#define RTP_VERSION 2
#define RTP_HEADER_SIZE 12
#define RTP_MAX_CSRC 15
/* The longest prefix that decides a header's layout: fixed header, 15
 * CSRCs and the extension header word. */
#define RTP_LAYOUT_PREFIX (RTP_HEADER_SIZE + 4 * RTP_MAX_CSRC + 4)

/* RFC 8285 section 4.2 (one-byte) and 4.3 (two-byte) profiles. */
#define RTP_EXT_PROFILE_ONE_BYTE 0xBEDE
#define RTP_EXT_PROFILE_TWO_BYTE 0x1000
#define RTP_EXT_PROFILE_TWO_BYTE_MASK 0xFFF0

typedef struct
{
  gboolean padding;
  gboolean extension;
  gboolean marker;
  guint8 payload_type;
  guint16 seq;
  guint32 timestamp;
  guint32 ssrc;
  guint csrc_count;
  guint32 csrc[RTP_MAX_CSRC];
  /* The extension block (when @extension): profile and data, 4n bytes. */
  guint16 ext_profile;
  const guint8 *ext_data;
  gsize ext_len;
  /* Layout of the parsed packet (0 / NULL from a writer's point of view). */
  gsize header_len;             /* fixed header, CSRCs and extension */
  gsize padding_len;            /* trailing padding, count octet included */
  const guint8 *payload;
  gsize payload_len;
} RtpHeader;

/* How many leading bytes decide the layout of a packet whose first octet
 * is @b0: fixed header, CSRCs and the extension header word. */
static inline gsize
rtp_layout_prefix_len (guint8 b0)
{
  return RTP_HEADER_SIZE + 4 * (gsize) (b0 & 0x0f) + ((b0 & 0x10) ? 4 : 0);
}

/* Checks the layout of a packet of @len bytes from its first bytes
 * (@prefix, @prefix_len: MIN (@len, rtp_layout_prefix_len()) suffice) and
 * its last octet; on success sets @header_len and @padding_len. A prefix
 * too short to decide is refused. For packets held in pieces. */
gboolean rtp_layout_check (const guint8 * prefix, gsize prefix_len, gsize len,
    guint8 last_octet, gsize * header_len, gsize * padding_len);

/* FALSE unless @data is a well-formed RTP packet; fills @h (may be NULL). */
gboolean rtp_header_parse (const guint8 * data, gsize len, RtpHeader * h);

/* One RFC 8285 element: @id 1-14 (one-byte form) or 1-255 (two-byte form),
 * @len 1-16 (one-byte) or 0-255 (two-byte). */
typedef struct
{
  guint8 id;
  const guint8 *data;
  gsize len;
} RtpExtElement;

typedef struct
{
  const guint8 *data;
  gsize len;
  gsize pos;
  gboolean two_byte;
  gboolean failed;              /* an element overran the block */
} RtpExtIter;

/* FALSE if @h has no extension block in an RFC 8285 profile. */
gboolean rtp_ext_iter_init (RtpExtIter * it, const RtpHeader * h);
/* The next element, skipping padding (ID 0); FALSE at the end of the
 * block, at the one-byte form's terminating ID 15, or on a malformed
 * element (then @it->failed). */
gboolean rtp_ext_iter_next (RtpExtIter * it, RtpExtElement * el);
/* The first element with @id, or FALSE. */
gboolean rtp_ext_find (const RtpHeader * h, guint8 id, RtpExtElement * el);

/* Writes the header of @h (fields up to @csrc; @header_len and the layout
 * fields are ignored) and, when @n_ext > 0, an extension block holding
 * @ext in the one-byte form if every element fits it, else the two-byte
 * form, padded to 32 bits. @h->padding sets the P bit only: the caller
 * appends the payload and rtp_padding_write(). Returns the bytes written,
 * or 0 if they do not fit in @max or an element cannot be written. */
gsize rtp_header_write (const RtpHeader * h, const RtpExtElement * ext,
    guint n_ext, guint8 * out, gsize max);

/* The most rtp_ext_add() can add to a packet for an element of @elen
 * bytes: an extension header word, a two-byte element header and three
 * octets to reach a 32-bit boundary. */
#define RTP_EXT_ADD_GROWTH(elen) (4 + 2 + (gsize) (elen) + 3)

/* Copies the RTP packet @in (@len bytes) to @out (@max bytes, not
 * overlapping @in) with the element @el added: in a new block when @in has
 * none (one-byte form when @el fits it), else after the last element of
 * its RFC 8285 block, in that block's form; the padding after the last
 * element is written anew and what an ID 15 ends is not kept. Returns the
 * new length, or 0 (nothing useful in @out) when @in is not RTP, its block
 * is of another profile or holds a malformed element, @el does not fit the
 * block's form, or @out is too small. */
gsize rtp_ext_add (const guint8 * in, gsize len, const RtpExtElement * el,
    guint8 * out, gsize max);

/* Writes @n (1-255) octets of padding: zeros, then the count. */
gsize rtp_padding_write (guint8 n, guint8 * out, gsize max);

/* Rewrites the sequence number of the RTP packet at @data (12+ bytes). */
void rtp_set_seq (guint8 * data, guint16 seq);
/* Rewrites the SSRC of the RTP packet at @data (12+ bytes). */
void rtp_set_ssrc (guint8 * data, guint32 ssrc);

#endif /* __CORE_RTP_H__ */
