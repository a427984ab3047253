/* The record stream the TPSS fuzz targets read after their config byte:
 * [op:1][len:2, big endian][len bytes], the last record cut to what is
 * left. */
#ifndef __FUZZ_RECORDS_H__
#define __FUZZ_RECORDS_H__

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  guint8 op;
  guint8 *chunk;                /* a copy, so reads past @len are caught */
  size_t len;
  guint32 v;                    /* the chunk's first 4 bytes, big endian */
} FuzzRecord;

/* Reads the record at *@pos into @r (free @r->chunk) and steps past it. */
static inline gboolean
fuzz_next_record (const uint8_t * data, size_t size, size_t * pos,
    FuzzRecord * r)
{
  if (*pos + 3 > size)
    return FALSE;
  r->op = data[*pos];
  r->len = MIN ((size_t) ((data[*pos + 1] << 8) | data[*pos + 2]),
      size - *pos - 3);
  r->chunk = g_memdup2 (data + *pos + 3, r->len);
  r->v = 0;
  for (size_t i = 0; i < 4 && i < r->len; i++)
    r->v = (r->v << 8) | r->chunk[i];
  *pos += 3 + r->len;
  return TRUE;
}

#endif /* __FUZZ_RECORDS_H__ */
