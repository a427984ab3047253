/* What the protocol cores share (GLib only, header only): big-endian reads
 * and writes of wire formats, and saturating 64-bit a * b / c. */
#ifndef __WIRE_BYTES_H__
#define __WIRE_BYTES_H__

#include <glib.h>

static inline guint16
read16 (const guint8 * p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static inline guint32
read32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8) | p[3];
}

static inline guint64
read64 (const guint8 * p)
{
  return ((guint64) read32 (p) << 32) | read32 (p + 4);
}

static inline void
write16 (guint8 * p, guint16 v)
{
  p[0] = v >> 8;
  p[1] = v & 0xff;
}

static inline void
write32 (guint8 * p, guint32 v)
{
  p[0] = v >> 24;
  p[1] = (v >> 16) & 0xff;
  p[2] = (v >> 8) & 0xff;
  p[3] = v & 0xff;
}

static inline void
write64 (guint8 * p, guint64 v)
{
  write32 (p, (guint32) (v >> 32));
  write32 (p + 4, (guint32) v);
}

/* a * b / c, truncated, saturating; c == 0 gives 0. */
static inline guint64
muldiv (guint64 a, guint64 b, guint64 c)
{
  unsigned __int128 r;

  if (c == 0)
    return 0;
  r = (unsigned __int128) a * b / c;
  return r > G_MAXUINT64 ? G_MAXUINT64 : (guint64) r;
}

/* a * b / c, rounded up, saturating; c == 0 gives 0. */
static inline guint64
muldiv_ceil (guint64 a, guint64 b, guint64 c)
{
  unsigned __int128 r;

  if (c == 0)
    return 0;
  r = ((unsigned __int128) a * b + c - 1) / c;
  return r > G_MAXUINT64 ? G_MAXUINT64 : (guint64) r;
}

#endif /* __WIRE_BYTES_H__ */
