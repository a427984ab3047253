/* RFC 4571 framing (GLib only): RTP and RTCP packets over a byte stream
 * such as TCP, each behind a 16-bit big-endian length.
 *
 * The framer puts the length before a packet. The deframer takes the
 * stream as it arrives, in pieces of any size, and gives back whole
 * frames. A frame of length 0 holds no packet: it is counted and skipped.
 * A frame longer than the deframer's bound is refused: counted, and its
 * bytes skipped as they arrive, so the frames after it are still found and
 * the deframer never holds more than the bound and a length. */
#ifndef __CORE_RFC4571_H__
#define __CORE_RFC4571_H__

#include <glib.h>

#define RFC4571_HEADER_SIZE 2
#define RFC4571_MAX_FRAME G_MAXUINT16

/* Writes the length of a @len-byte frame into @out (2 bytes); FALSE, and
 * nothing written, if @len does not fit in 16 bits. */
gboolean rfc4571_header_write (gsize len, guint8 * out);
/* Appends the length and @len bytes of @data to @stream; FALSE, and
 * nothing appended, if @len does not fit in 16 bits. */
gboolean rfc4571_frame_append (GByteArray * stream, const guint8 * data,
    gsize len);

typedef struct
{
  GByteArray *buf;              /* received, not yet taken */
  guint off;                    /* where the next frame starts in @buf */
  gsize max_frame;
  gsize skip;                   /* bytes of a refused frame still to come */
  guint64 frames, empty, oversize;
} Rfc4571Deframer;

/* @max_frame: the longest frame taken (1 to RFC4571_MAX_FRAME). */
void rfc4571_deframer_init (Rfc4571Deframer * d, gsize max_frame);
void rfc4571_deframer_clear (Rfc4571Deframer * d);
/* Forgets the stream so far (a new connection); the counters stay. */
void rfc4571_deframer_reset (Rfc4571Deframer * d);
/* Takes @len bytes of the stream (lent for the call). Invalidates the
 * frames rfc4571_deframer_pop() gave before. */
void rfc4571_deframer_push (Rfc4571Deframer * d, const guint8 * data,
    gsize len);
/* The next whole frame (not empty, not over the bound), valid until the
 * next push or reset; FALSE when the stream holds none yet. */
gboolean rfc4571_deframer_pop (Rfc4571Deframer * d, const guint8 ** frame,
    gsize * len);
/* Bytes held of a frame not yet complete. */
gsize rfc4571_deframer_pending (const Rfc4571Deframer * d);

#endif /* __CORE_RFC4571_H__ */
