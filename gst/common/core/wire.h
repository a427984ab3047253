/* Wire formats (GLib only, header only): big-endian reads and writes at a
 * known-good offset (read16 .. write64), saturating 64-bit a * b / c, and
 * the bounds-checked cursors WireReader and WireWriter.
 *
 * A cursor refuses every read or write past its end: a read yields 0 (or
 * NULL), a write writes nothing and returns FALSE, and the cursor remembers
 * the failure (@failed) and refuses everything after it, so a parser may
 * read a whole structure and check once. */
#ifndef __CORE_WIRE_H__
#define __CORE_WIRE_H__

#include <glib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ */
/* Reader */

typedef struct
{
  const guint8 *data;
  gsize len;
  gsize pos;
  gboolean failed;              /* a read went past the end */
} WireReader;

static inline void
wire_reader_init (WireReader * r, const guint8 * data, gsize len)
{
  r->data = data;
  r->len = data ? len : 0;
  r->pos = 0;
  r->failed = FALSE;
}

static inline gsize
wire_reader_remaining (const WireReader * r)
{
  return r->len - r->pos;
}

/* Advances a cursor at *@pos of @len bytes by @n, or fails it for good. */
static inline gboolean
wire_advance (gsize len, gsize * pos, gboolean * failed, gsize n)
{
  if (*failed || n > len - *pos) {
    *failed = TRUE;
    return FALSE;
  }
  *pos += n;
  return TRUE;
}

/* The next @n bytes, or NULL (and the reader fails) if fewer are left. */
static inline const guint8 *
wire_read_bytes (WireReader * r, gsize n)
{
  return wire_advance (r->len, &r->pos, &r->failed, n) ?
      r->data + r->pos - n : NULL;
}

static inline gboolean
wire_skip (WireReader * r, gsize n)
{
  return wire_read_bytes (r, n) != NULL;
}

/* The next big-endian number of @n bytes (1 to 8); 0 if it is not there
 * (then @r->failed: check once after reading a structure). */
static inline guint64
wire_read_be (WireReader * r, guint n)
{
  const guint8 *p = wire_read_bytes (r, n);
  guint64 v = 0;

  if (!p)
    return 0;
  for (guint i = 0; i < n; i++)
    v = (v << 8) | p[i];
  return v;
}

/* The fixed sizes test the bounds once and read at once (no loop over
 * the bytes: it is the per-field cost under a fuzzer's tracing). */
static inline guint8
wire_read_u8 (WireReader * r)
{
  const guint8 *p = wire_read_bytes (r, 1);

  return p ? p[0] : 0;
}

static inline guint16
wire_read_u16 (WireReader * r)
{
  const guint8 *p = wire_read_bytes (r, 2);

  return p ? read16 (p) : 0;
}

static inline guint32
wire_read_u32 (WireReader * r)
{
  const guint8 *p = wire_read_bytes (r, 4);

  return p ? read32 (p) : 0;
}

static inline guint64
wire_read_u64 (WireReader * r)
{
  const guint8 *p = wire_read_bytes (r, 8);

  return p ? read64 (p) : 0;
}

/* ------------------------------------------------------------------ */
/* Writer */

typedef struct
{
  guint8 *data;
  gsize len;
  gsize pos;
  gboolean failed;              /* a write did not fit */
} WireWriter;

static inline void
wire_writer_init (WireWriter * w, guint8 * data, gsize len)
{
  w->data = data;
  w->len = data ? len : 0;
  w->pos = 0;
  w->failed = FALSE;
}

/* Room for the next @n bytes, or NULL (and the writer fails). */
static inline guint8 *
wire_write_reserve (WireWriter * w, gsize n)
{
  return wire_advance (w->len, &w->pos, &w->failed, n) ?
      w->data + w->pos - n : NULL;
}

static inline gboolean
wire_write_bytes (WireWriter * w, const guint8 * src, gsize n)
{
  guint8 *p = wire_write_reserve (w, n);

  if (p && n)
    memcpy (p, src, n);
  return p != NULL;
}

static inline gboolean
wire_write_zeros (WireWriter * w, gsize n)
{
  guint8 *p = wire_write_reserve (w, n);

  if (p && n)
    memset (p, 0, n);
  return p != NULL;
}

/* @v as a big-endian number of @n bytes (1 to 8). */
static inline gboolean
wire_write_be (WireWriter * w, guint64 v, guint n)
{
  guint8 *p = wire_write_reserve (w, n);

  if (!p)
    return FALSE;
  for (guint i = 0; i < n; i++)
    p[i] = (guint8) (v >> (8 * (n - 1 - i)));
  return TRUE;
}

static inline gboolean
wire_write_u8 (WireWriter * w, guint8 v)
{
  guint8 *p = wire_write_reserve (w, 1);

  if (p)
    p[0] = v;
  return p != NULL;
}

static inline gboolean
wire_write_u16 (WireWriter * w, guint16 v)
{
  guint8 *p = wire_write_reserve (w, 2);

  if (p)
    write16 (p, v);
  return p != NULL;
}

static inline gboolean
wire_write_u32 (WireWriter * w, guint32 v)
{
  guint8 *p = wire_write_reserve (w, 4);

  if (p)
    write32 (p, v);
  return p != NULL;
}

static inline gboolean
wire_write_u64 (WireWriter * w, guint64 v)
{
  guint8 *p = wire_write_reserve (w, 8);

  if (p)
    write64 (p, v);
  return p != NULL;
}

#endif /* __CORE_WIRE_H__ */
