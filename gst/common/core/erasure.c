/* Reed-Solomon erasure code over GF(2^8). See erasure.h. */
#include "erasure.h"

#include <string.h>

/* GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1, generator 2 */
#define GF_POLY 0x11d

static guint8 gf_exp[512];      /* doubled: no reduction after adding logs */
static guint8 gf_log[256];

static void
gf_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint x = 1;

    for (guint i = 0; i < 255; i++) {
      gf_exp[i] = gf_exp[i + 255] = (guint8) x;
      gf_log[x] = (guint8) i;
      x <<= 1;
      if (x & 0x100)
        x ^= GF_POLY;
    }
    g_once_init_leave (&done, 1);
  }
}

static guint8
gf_mul (guint8 a, guint8 b)
{
  if (a == 0 || b == 0)
    return 0;
  return gf_exp[gf_log[a] + gf_log[b]];
}

static guint8
gf_inv (guint8 a)
{
  return gf_exp[255 - gf_log[a]];
}

/* dst ^= c * src over @len bytes */
static void
gf_mul_add (guint8 * dst, const guint8 * src, guint8 c, gsize len)
{
  guint8 row[256];

  if (c == 0)
    return;
  if (c == 1) {
    for (gsize i = 0; i < len; i++)
      dst[i] ^= src[i];
    return;
  }
  for (guint x = 0; x < 256; x++)
    row[x] = gf_mul (c, (guint8) x);
  for (gsize i = 0; i < len; i++)
    dst[i] ^= row[src[i]];
}

static guint8
cauchy (guint row, guint i)
{
  return gf_inv ((guint8) (row ^ (255 - i)));
}

guint
erasure_rows (guint k)
{
  return k == 0 || k > ERASURE_MAX_BLOCK ? 0 : 256 - k;
}

gboolean
erasure_encode (guint k, const guint8 * const *data, gsize len, guint row,
    guint8 * parity)
{
  if (row >= erasure_rows (k))
    return FALSE;
  gf_init ();
  memset (parity, 0, len);
  for (guint i = 0; i < k; i++)
    gf_mul_add (parity, data[i], cauchy (row, i), len);
  return TRUE;
}

static gboolean
rows_valid (guint k, guint n, const guint * rows)
{
  guint8 seen[256] = { 0 };

  for (guint j = 0; j < n; j++) {
    if (rows[j] >= erasure_rows (k) || seen[rows[j]])
      return FALSE;
    seen[rows[j]] = 1;
  }
  return TRUE;
}

/* Inverts the @m x @m matrix @a (row-major) into @inv by Gauss-Jordan
 * elimination; a Cauchy submatrix always has an inverse. */
static gboolean
gf_invert (guint8 * a, guint8 * inv, guint m)
{
  for (guint i = 0; i < m; i++)
    for (guint j = 0; j < m; j++)
      inv[i * m + j] = i == j;
  for (guint c = 0; c < m; c++) {
    guint p = c;
    guint8 f;

    while (p < m && a[p * m + c] == 0)
      p++;
    if (p == m)
      return FALSE;
    for (guint j = 0; j < m && p != c; j++) {
      guint8 t = a[c * m + j];

      a[c * m + j] = a[p * m + j];
      a[p * m + j] = t;
      t = inv[c * m + j];
      inv[c * m + j] = inv[p * m + j];
      inv[p * m + j] = t;
    }
    f = gf_inv (a[c * m + c]);
    for (guint j = 0; j < m; j++) {
      a[c * m + j] = gf_mul (a[c * m + j], f);
      inv[c * m + j] = gf_mul (inv[c * m + j], f);
    }
    for (guint r = 0; r < m; r++) {
      guint8 g = a[r * m + c];

      if (r == c || g == 0)
        continue;
      for (guint j = 0; j < m; j++) {
        a[r * m + j] ^= gf_mul (g, a[c * m + j]);
        inv[r * m + j] ^= gf_mul (g, inv[c * m + j]);
      }
    }
  }
  return TRUE;
}

gboolean
erasure_decode (guint k, guint8 ** data, const gboolean * have, gsize len,
    guint n_parity, const guint * rows, const guint8 * const *parity)
{
  guint lost[ERASURE_MAX_BLOCK];
  guint m = 0;
  guint8 *a, *inv, *syn;
  gboolean ok;

  if (erasure_rows (k) == 0)
    return FALSE;
  for (guint i = 0; i < k; i++)
    if (!have[i])
      lost[m++] = i;
  if (m == 0)
    return TRUE;
  if (m > n_parity || !rows_valid (k, n_parity, rows))
    return FALSE;
  gf_init ();
  /* syndromes: each parity minus what the packets that arrived put in it */
  syn = g_malloc0 ((gsize) m * len);
  a = g_malloc ((gsize) m * m);
  inv = g_malloc ((gsize) m * m);
  for (guint j = 0; j < m; j++) {
    memcpy (syn + j * len, parity[j], len);
    for (guint i = 0; i < k; i++)
      if (have[i])
        gf_mul_add (syn + j * len, data[i], cauchy (rows[j], i), len);
    for (guint t = 0; t < m; t++)
      a[j * m + t] = cauchy (rows[j], lost[t]);
  }
  ok = gf_invert (a, inv, m);
  for (guint t = 0; ok && t < m; t++) {
    memset (data[lost[t]], 0, len);
    for (guint j = 0; j < m; j++)
      gf_mul_add (data[lost[t]], syn + j * len, inv[t * m + j], len);
  }
  g_free (syn);
  g_free (a);
  g_free (inv);
  return ok;
}
