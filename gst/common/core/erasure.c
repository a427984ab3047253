/* Reed-Solomon erasure code over GF(2^8). See erasure.h. */
#include "erasure.h"

#include <string.h>

/* GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1, generator 2 */
#define GF_POLY 0x11d

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_SSSE3_PATH 1
#include <tmmintrin.h>
#endif

static guint8 gf_exp[512];      /* doubled: no reduction after adding logs */
static guint8 gf_log[256];
static guint8 gf_prod[256][256];        /* gf_prod[c][x] = c * x */
/* c * x = gf_nib_lo[c][x & 15] ^ gf_nib_hi[c][x >> 4] */
static guint8 gf_nib_lo[256][16];
static guint8 gf_nib_hi[256][16];
static ErasureImpl gf_impl;

static guint8
gf_mul (guint8 a, guint8 b)
{
  if (a == 0 || b == 0)
    return 0;
  return gf_exp[gf_log[a] + gf_log[b]];
}

static gboolean
impl_available (ErasureImpl impl)
{
  switch (impl) {
    case ERASURE_IMPL_REFERENCE:
    case ERASURE_IMPL_PORTABLE:
      return TRUE;
    case ERASURE_IMPL_SSSE3:
#ifdef HAVE_SSSE3_PATH
      __builtin_cpu_init ();
      return __builtin_cpu_supports ("ssse3");
#else
      return FALSE;
#endif
  }
  return FALSE;
}

static void
gf_fill_tables (void)
{
  for (guint c = 0; c < 256; c++) {
    for (guint x = 0; x < 256; x++)
      gf_prod[c][x] = gf_mul ((guint8) c, (guint8) x);
    for (guint x = 0; x < 16; x++) {
      gf_nib_lo[c][x] = gf_prod[c][x];
      gf_nib_hi[c][x] = gf_prod[c][x << 4];
    }
  }
}

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
    gf_fill_tables ();
    gf_impl = impl_available (ERASURE_IMPL_SSSE3) ? ERASURE_IMPL_SSSE3 :
        ERASURE_IMPL_PORTABLE;
    g_once_init_leave (&done, 1);
  }
}

static guint8
gf_inv (guint8 a)
{
  return gf_exp[255 - gf_log[a]];
}

/* The code as it was first written: a row of products by logarithms on
 * every call, then a byte at a time. */
static void
mul_add_reference (guint8 * dst, const guint8 * src, guint8 c, gsize len)
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

#ifdef __GNUC__
/* GCC/Clang vector type: SSE2 on x86-64, NEON on arm64; other compilers
 * take the byte loop */
typedef guint64 Xor128 __attribute__ ((vector_size (16)));
#endif

void
erasure_xor (guint8 * dst, const guint8 * src, gsize len)
{
  gsize i = 0;

#ifdef __GNUC__
  for (; i + 16 <= len; i += 16) {
    Xor128 a, b;

    memcpy (&a, dst + i, 16);
    memcpy (&b, src + i, 16);
    a ^= b;
    memcpy (dst + i, &a, 16);
  }
#endif
  for (; i < len; i++)
    dst[i] ^= src[i];
}

/* Four lookups a step in the coefficient's row of the product table; the
 * loads go ahead of the stores so they can overlap. */
static void
mul_add_portable (guint8 * dst, const guint8 * src, guint8 c, gsize len)
{
  const guint8 *row = gf_prod[c];
  gsize i = 0;

  for (; i + 4 <= len; i += 4) {
    guint8 p0 = row[src[i]], p1 = row[src[i + 1]];
    guint8 p2 = row[src[i + 2]], p3 = row[src[i + 3]];

    dst[i] ^= p0;
    dst[i + 1] ^= p1;
    dst[i + 2] ^= p2;
    dst[i + 3] ^= p3;
  }
  for (; i < len; i++)
    dst[i] ^= row[src[i]];
}

#ifdef HAVE_SSSE3_PATH
/* 16 bytes a step: PSHUFB looks up the low and the high nibble of each
 * byte in the coefficient's two 16-entry tables. */
__attribute__ ((target ("ssse3")))
static void
mul_add_ssse3 (guint8 * dst, const guint8 * src, guint8 c, gsize len)
{
  const __m128i lo = _mm_loadu_si128 ((const __m128i *) gf_nib_lo[c]);
  const __m128i hi = _mm_loadu_si128 ((const __m128i *) gf_nib_hi[c]);
  const __m128i mask = _mm_set1_epi8 (0x0f);
  gsize i = 0;

  for (; i + 16 <= len; i += 16) {
    __m128i s = _mm_loadu_si128 ((const __m128i *) (src + i));
    __m128i d = _mm_loadu_si128 ((const __m128i *) (dst + i));
    __m128i pl = _mm_shuffle_epi8 (lo, _mm_and_si128 (s, mask));
    __m128i ph = _mm_shuffle_epi8 (hi,
        _mm_and_si128 (_mm_srli_epi64 (s, 4), mask));

    d = _mm_xor_si128 (d, _mm_xor_si128 (pl, ph));
    _mm_storeu_si128 ((__m128i *) (dst + i), d);
  }
  mul_add_portable (dst + i, src + i, c, len - i);
}
#endif

/* dst ^= c * src over @len bytes */
static void
gf_mul_add (guint8 * dst, const guint8 * src, guint8 c, gsize len)
{
  if (gf_impl == ERASURE_IMPL_REFERENCE) {
    mul_add_reference (dst, src, c, len);
    return;
  }
  if (c == 0)
    return;
  if (c == 1) {
    erasure_xor (dst, src, len);
    return;
  }
#ifdef HAVE_SSSE3_PATH
  if (gf_impl == ERASURE_IMPL_SSSE3) {
    mul_add_ssse3 (dst, src, c, len);
    return;
  }
#endif
  mul_add_portable (dst, src, c, len);
}

void
erasure_mul_add (guint8 * dst, const guint8 * src, guint8 c, gsize len)
{
  gf_init ();
  gf_mul_add (dst, src, c, len);
}

guint8
erasure_gf_mul (guint8 a, guint8 b)
{
  gf_init ();
  return gf_mul (a, b);
}

gboolean
erasure_set_impl (ErasureImpl impl)
{
  gf_init ();
  if (!impl_available (impl))
    return FALSE;
  gf_impl = impl;
  return TRUE;
}

ErasureImpl
erasure_get_impl (void)
{
  gf_init ();
  return gf_impl;
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
      a[c * m + j] = gf_prod[f][a[c * m + j]];
      inv[c * m + j] = gf_prod[f][inv[c * m + j]];
    }
    for (guint r = 0; r < m; r++) {
      guint8 g = a[r * m + c];

      if (r == c || g == 0)
        continue;
      for (guint j = 0; j < m; j++) {
        a[r * m + j] ^= gf_prod[g][a[c * m + j]];
        inv[r * m + j] ^= gf_prod[g][inv[c * m + j]];
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
