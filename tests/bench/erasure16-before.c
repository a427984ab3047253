/* The GF(2^16) code as it was before the vector tables and the AVX2 and
 * AVX-512BW region ops (gst/common/core/erasure16.c at 6454f22), frozen
 * so that bench-erasure16-vector measures old against new on the same
 * run. Its public functions are renamed before_erasure16_*. */
#define erasure16_gf_mul before_erasure16_gf_mul
#define erasure16_gf_inv before_erasure16_gf_inv
#define erasure16_rows before_erasure16_rows
#define erasure16_encode before_erasure16_encode
#define erasure16_decode before_erasure16_decode
#define erasure16_set_vector before_erasure16_set_vector
#define erasure16_set_vector_width before_erasure16_set_vector_width
#include "core/erasure16.h"

#include <stdlib.h>
#include <string.h>

#define GF_ORDER 65535          /* nonzero elements */
#define GF_POLY 0x1100B         /* x^16 + x^12 + x^3 + x + 1, primitive */

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_SSSE3_PATH 1
#include <tmmintrin.h>
#endif

/* exp is doubled so that exp[log a + log b] needs no reduction */
static guint16 gf_exp[2 * GF_ORDER];
static guint16 gf_log[GF_ORDER + 1];

static gpointer
build_tables (G_GNUC_UNUSED gpointer data)
{
  guint32 x = 1;

  for (guint i = 0; i < GF_ORDER; i++) {
    gf_exp[i] = gf_exp[i + GF_ORDER] = (guint16) x;
    gf_log[x] = (guint16) i;
    x <<= 1;
    if (x & 0x10000)
      x ^= GF_POLY;
  }
  return NULL;
}

static void
ensure_tables (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, build_tables, NULL);
}

static inline guint16
gf_mul (guint16 a, guint16 b)
{
  if (a == 0 || b == 0)
    return 0;
  return gf_exp[gf_log[a] + gf_log[b]];
}

static inline guint16
gf_inv (guint16 a)
{
  return a == 0 ? 0 : gf_exp[GF_ORDER - gf_log[a]];
}

guint16
erasure16_gf_mul (guint16 a, guint16 b)
{
  ensure_tables ();
  return gf_mul (a, b);
}

guint16
erasure16_gf_inv (guint16 a)
{
  ensure_tables ();
  return gf_inv (a);
}

guint
erasure16_rows (guint k)
{
  return k == 0 || k > ERASURE16_MAX_BLOCK ? 0 : GF_ORDER + 1 - k;
}

/* The rows take the field elements 0 .. 65535 - k and the data packets
 * 65536 - k .. 65535, so no sum in a denominator is 0. */
static inline guint16
cauchy (guint row, guint i)
{
  return gf_inv ((guint16) (row ^ (GF_ORDER - i)));
}

/* The product of c with every 4-bit digit at each of a symbol's four
 * digit positions: c * (n << 4j) = tab[j][n]. The products c * x^b come by
 * doubling, so a region op costs no table lookups to set up. */
static void
split_tables (guint16 c, guint16 tab[4][16])
{
  guint16 basis[16];
  guint32 v = c;

  for (guint b = 0; b < 16; b++) {
    basis[b] = (guint16) v;
    v <<= 1;
    if (v & 0x10000)
      v ^= GF_POLY;
  }
  for (guint j = 0; j < 4; j++) {
    tab[j][0] = 0;
    for (guint n = 1; n < 16; n++)
      tab[j][n] = tab[j][n & (n - 1)] ^ basis[4 * j + g_bit_nth_lsf (n, -1)];
  }
}

static void
mul_add_portable (guint8 * dst, const guint8 * src, guint16 tab[4][16],
    gsize from, gsize len)
{
  for (gsize b = from; b < len; b += 2) {
    guint s = ((guint) src[b] << 8) | src[b + 1];
    guint16 p = tab[0][s & 15] ^ tab[1][(s >> 4) & 15] ^
        tab[2][(s >> 8) & 15] ^ tab[3][s >> 12];

    dst[b] ^= (guint8) (p >> 8);
    dst[b + 1] ^= (guint8) p;
  }
}

#ifdef HAVE_SSSE3_PATH
/* 16 symbols a step: the high and low bytes apart, each digit looked up
 * in a 16-byte table of the products' high and low bytes. */
__attribute__ ((target ("ssse3")))
static gsize
mul_add_ssse3 (guint8 * dst, const guint8 * src, guint16 tab[4][16],
    gsize len)
{
  guint8 t[8][16];
  __m128i th[4], tl[4];
  const __m128i split = _mm_setr_epi8 (0, 2, 4, 6, 8, 10, 12, 14,
      1, 3, 5, 7, 9, 11, 13, 15);
  const __m128i low4 = _mm_set1_epi8 (0x0f);
  gsize b = 0;

  for (guint j = 0; j < 4; j++) {
    for (guint n = 0; n < 16; n++) {
      t[2 * j][n] = (guint8) (tab[j][n] >> 8);
      t[2 * j + 1][n] = (guint8) tab[j][n];
    }
    th[j] = _mm_loadu_si128 ((const __m128i *) t[2 * j]);
    tl[j] = _mm_loadu_si128 ((const __m128i *) t[2 * j + 1]);
  }
  for (; b + 32 <= len; b += 32) {
    __m128i a = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *)
            (src + b)), split);
    __m128i c = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *)
            (src + b + 16)), split);
    __m128i hi = _mm_unpacklo_epi64 (a, c), lo = _mm_unpackhi_epi64 (a, c);
    __m128i d[4], ph, pl;

    d[0] = _mm_and_si128 (lo, low4);
    d[1] = _mm_and_si128 (_mm_srli_epi16 (lo, 4), low4);
    d[2] = _mm_and_si128 (hi, low4);
    d[3] = _mm_and_si128 (_mm_srli_epi16 (hi, 4), low4);
    ph = _mm_shuffle_epi8 (th[0], d[0]);
    pl = _mm_shuffle_epi8 (tl[0], d[0]);
    for (guint j = 1; j < 4; j++) {
      ph = _mm_xor_si128 (ph, _mm_shuffle_epi8 (th[j], d[j]));
      pl = _mm_xor_si128 (pl, _mm_shuffle_epi8 (tl[j], d[j]));
    }
    _mm_storeu_si128 ((__m128i *) (dst + b),
        _mm_xor_si128 (_mm_loadu_si128 ((const __m128i *) (dst + b)),
            _mm_unpacklo_epi8 (ph, pl)));
    _mm_storeu_si128 ((__m128i *) (dst + b + 16),
        _mm_xor_si128 (_mm_loadu_si128 ((const __m128i *) (dst + b + 16)),
            _mm_unpackhi_epi8 (ph, pl)));
  }
  return b;
}

static gboolean
have_ssse3 (void)
{
  static gsize checked = 0;
  static gboolean have = FALSE;

  if (g_once_init_enter (&checked)) {
    __builtin_cpu_init ();
    have = __builtin_cpu_supports ("ssse3");
    g_once_init_leave (&checked, 1);
  }
  return have;
}
#endif

static gboolean use_vector = TRUE;

void
erasure16_set_vector (gboolean on)
{
  use_vector = on;
}

/* dst ^= c * src over @len bytes of big-endian 16-bit symbols */
static void
region_mul_add (guint8 * dst, const guint8 * src, guint16 c, gsize len)
{
  guint16 tab[4][16];
  gsize done = 0;

  if (c == 0)
    return;
  split_tables (c, tab);
#ifdef HAVE_SSSE3_PATH
  if (use_vector && have_ssse3 ())
    done = mul_add_ssse3 (dst, src, tab, len);
#endif
  mul_add_portable (dst, src, tab, done, len);
}

gboolean
erasure16_encode (guint k, const guint8 * const *data, gsize len, guint row,
    guint8 * parity)
{
  if (row >= erasure16_rows (k) || len % 2 != 0)
    return FALSE;
  ensure_tables ();
  memset (parity, 0, len);
  for (guint i = 0; i < k; i++)
    region_mul_add (parity, data[i], cauchy (row, i), len);
  return TRUE;
}

static gint
compare_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/* Whether the @n rows are each below @limit and distinct. */
static gboolean
rows_valid (const guint * rows, guint n, guint limit)
{
  guint *sorted = g_memdup2 (rows, n * sizeof (guint));
  gboolean ok = TRUE;

  qsort (sorted, n, sizeof (guint), compare_uint);
  for (guint i = 0; i < n && ok; i++)
    ok = sorted[i] < limit && (i == 0 || sorted[i] != sorted[i - 1]);
  g_free (sorted);
  return ok;
}

/* Inverts the m x m matrix @a in place by Gauss-Jordan elimination; FALSE
 * if it is singular (a Cauchy matrix never is). */
static gboolean
invert (guint16 * a, guint m)
{
  guint16 *inv = g_new0 (guint16, (gsize) m * m);
  gboolean ok = TRUE;

  for (guint i = 0; i < m; i++)
    inv[(gsize) i * m + i] = 1;
  for (guint col = 0; col < m && ok; col++) {
    guint p = col;
    guint16 f;

    while (p < m && a[(gsize) p * m + col] == 0)
      p++;
    if (p == m) {
      ok = FALSE;
      break;
    }
    if (p != col)
      for (guint j = 0; j < m; j++) {
        guint16 t = a[(gsize) p * m + j];

        a[(gsize) p * m + j] = a[(gsize) col * m + j];
        a[(gsize) col * m + j] = t;
        t = inv[(gsize) p * m + j];
        inv[(gsize) p * m + j] = inv[(gsize) col * m + j];
        inv[(gsize) col * m + j] = t;
      }
    f = gf_inv (a[(gsize) col * m + col]);
    for (guint j = 0; j < m; j++) {
      a[(gsize) col * m + j] = gf_mul (a[(gsize) col * m + j], f);
      inv[(gsize) col * m + j] = gf_mul (inv[(gsize) col * m + j], f);
    }
    for (guint r = 0; r < m; r++) {
      guint16 g = a[(gsize) r * m + col];

      if (r == col || g == 0)
        continue;
      for (guint j = 0; j < m; j++) {
        a[(gsize) r * m + j] ^= gf_mul (g, a[(gsize) col * m + j]);
        inv[(gsize) r * m + j] ^= gf_mul (g, inv[(gsize) col * m + j]);
      }
    }
  }
  if (ok)
    memcpy (a, inv, (gsize) m * m * sizeof (guint16));
  g_free (inv);
  return ok;
}

gboolean
erasure16_decode (guint k, guint8 ** data, const gboolean * have, gsize len,
    guint n_parity, const guint * rows, const guint8 * const *parity)
{
  guint *lost, m = 0;
  guint16 *a;
  guint8 **syn;
  gboolean ok;

  if (erasure16_rows (k) == 0 || len % 2 != 0)
    return FALSE;
  for (guint i = 0; i < k; i++)
    m += !have[i];
  if (m == 0)
    return TRUE;
  if (n_parity < m || !rows_valid (rows, n_parity, erasure16_rows (k)))
    return FALSE;
  ensure_tables ();

  lost = g_new (guint, m);
  for (guint i = 0, n = 0; i < k; i++)
    if (!have[i])
      lost[n++] = i;
  /* the first m rows: A[r][j] = C[rows[r]][lost[j]] */
  a = g_new (guint16, (gsize) m * m);
  for (guint r = 0; r < m; r++)
    for (guint j = 0; j < m; j++)
      a[(gsize) r * m + j] = cauchy (rows[r], lost[j]);
  ok = invert (a, m);

  /* each row less what the packets held give: A times the lost packets */
  syn = g_new (guint8 *, m);
  for (guint r = 0; ok && r < m; r++) {
    syn[r] = g_memdup2 (parity[r], len);
    for (guint i = 0; i < k; i++)
      if (have[i])
        region_mul_add (syn[r], data[i], cauchy (rows[r], i), len);
  }
  for (guint j = 0; ok && j < m; j++) {
    memset (data[lost[j]], 0, len);
    for (guint r = 0; r < m; r++)
      region_mul_add (data[lost[j]], syn[r], a[(gsize) j * m + r], len);
  }
  for (guint r = 0; ok && r < m; r++)
    g_free (syn[r]);
  g_free (syn);
  g_free (a);
  g_free (lost);
  return ok;
}
