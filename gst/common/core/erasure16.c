/* Reed-Solomon erasure code over GF(2^16): see erasure16.h. */
#include "erasure16.h"

#include <stdlib.h>
#include <string.h>

#define GF_ORDER 65535          /* nonzero elements */
#define GF_POLY 0x1100B         /* x^16 + x^12 + x^3 + x + 1, primitive */

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_SSSE3_PATH 1
#include <immintrin.h>
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

/* c * x^b for b = 0 .. 15, by doubling; the reduction is masked, not
 * branched on, as its bit is as good as random. */
static void
basis_products (guint16 c, guint16 basis[16])
{
  guint32 v = c;

  for (guint b = 0; b < 16; b++) {
    basis[b] = (guint16) v;
    v = (v << 1) ^ (GF_POLY & (0u - ((v >> 15) & 1)));
  }
}

/* The product of c with every 4-bit digit at each of a symbol's four
 * digit positions: c * (n << 4j) = tab[j][n], from c's @basis. */
static void
split_tables (const guint16 basis[16], guint16 tab[4][16])
{
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
/* The 4-bit tables as vectors: th[j] holds the high bytes of c * (n << 4j)
 * for n = 0 .. 15, tl[j] the low bytes. Each entry is the XOR of the
 * basis products for n's bits, taken under a mask, so it costs 16 vector
 * steps a table and no stores (building them byte by byte and loading them
 * cost more than a 1 KiB region op's own loop). */
__attribute__ ((target ("ssse3")))
static void
vector_tables (const guint16 basis[16], __m128i th[4], __m128i tl[4])
{
  const __m128i n = _mm_setr_epi8 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      13, 14, 15);
  __m128i has[4];

  for (guint b = 0; b < 4; b++) {
    __m128i bit = _mm_set1_epi8 ((gchar) (1 << b));

    has[b] = _mm_cmpeq_epi8 (_mm_and_si128 (n, bit), bit);
  }
  for (guint j = 0; j < 4; j++) {
    th[j] = tl[j] = _mm_setzero_si128 ();
    for (guint b = 0; b < 4; b++) {
      guint16 e = basis[4 * j + b];

      th[j] = _mm_xor_si128 (th[j], _mm_and_si128 (has[b],
              _mm_set1_epi8 ((gchar) (e >> 8))));
      tl[j] = _mm_xor_si128 (tl[j], _mm_and_si128 (has[b],
              _mm_set1_epi8 ((gchar) e)));
    }
  }
}

/* 16 symbols a step: the high and low bytes apart, each digit looked up
 * in a 16-byte table of the products' high and low bytes. */
__attribute__ ((target ("ssse3")))
static gsize
mul_add_ssse3 (guint8 * dst, const guint8 * src, const __m128i th[4],
    const __m128i tl[4], gsize len)
{
  const __m128i split = _mm_setr_epi8 (0, 2, 4, 6, 8, 10, 12, 14,
      1, 3, 5, 7, 9, 11, 13, 15);
  const __m128i low4 = _mm_set1_epi8 (0x0f);
  gsize b = 0;

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

/* 32 symbols a step, the SSSE3 step on both 128-bit lanes: the shuffles
 * keep to their lane, so the tables are broadcast to both, and unpacking
 * the two loads lane by lane puts the symbols back in order. */
__attribute__ ((target ("avx2")))
static gsize
mul_add_avx2 (guint8 * dst, const guint8 * src, const __m128i th128[4],
    const __m128i tl128[4], gsize len)
{
  __m256i th[4], tl[4];
  const __m256i split = _mm256_broadcastsi128_si256 (_mm_setr_epi8 (0, 2, 4,
          6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
  const __m256i low4 = _mm256_set1_epi8 (0x0f);
  gsize b = 0;

  for (guint j = 0; j < 4; j++) {
    th[j] = _mm256_broadcastsi128_si256 (th128[j]);
    tl[j] = _mm256_broadcastsi128_si256 (tl128[j]);
  }
  for (; b + 64 <= len; b += 64) {
    __m256i a = _mm256_shuffle_epi8 (_mm256_loadu_si256 ((const __m256i *)
            (src + b)), split);
    __m256i c = _mm256_shuffle_epi8 (_mm256_loadu_si256 ((const __m256i *)
            (src + b + 32)), split);
    __m256i hi = _mm256_unpacklo_epi64 (a, c), lo = _mm256_unpackhi_epi64 (a,
        c);
    __m256i d[4], ph, pl;

    d[0] = _mm256_and_si256 (lo, low4);
    d[1] = _mm256_and_si256 (_mm256_srli_epi16 (lo, 4), low4);
    d[2] = _mm256_and_si256 (hi, low4);
    d[3] = _mm256_and_si256 (_mm256_srli_epi16 (hi, 4), low4);
    ph = _mm256_shuffle_epi8 (th[0], d[0]);
    pl = _mm256_shuffle_epi8 (tl[0], d[0]);
    for (guint j = 1; j < 4; j++) {
      ph = _mm256_xor_si256 (ph, _mm256_shuffle_epi8 (th[j], d[j]));
      pl = _mm256_xor_si256 (pl, _mm256_shuffle_epi8 (tl[j], d[j]));
    }
    _mm256_storeu_si256 ((__m256i *) (dst + b),
        _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) (dst + b)),
            _mm256_unpacklo_epi8 (ph, pl)));
    _mm256_storeu_si256 ((__m256i *) (dst + b + 32),
        _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) (dst + b +
                    32)), _mm256_unpackhi_epi8 (ph, pl)));
  }
  return b;
}

/* 64 symbols a step: the AVX2 step on four lanes. */
__attribute__ ((target ("avx512bw")))
static gsize
mul_add_avx512 (guint8 * dst, const guint8 * src, const __m128i th128[4],
    const __m128i tl128[4], gsize len)
{
  __m512i th[4], tl[4];
  const __m512i split = _mm512_broadcast_i32x4 (_mm_setr_epi8 (0, 2, 4, 6,
          8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
  const __m512i low4 = _mm512_set1_epi8 (0x0f);
  gsize b = 0;

  for (guint j = 0; j < 4; j++) {
    th[j] = _mm512_broadcast_i32x4 (th128[j]);
    tl[j] = _mm512_broadcast_i32x4 (tl128[j]);
  }
  for (; b + 128 <= len; b += 128) {
    __m512i a = _mm512_shuffle_epi8 (_mm512_loadu_si512 (src + b), split);
    __m512i c = _mm512_shuffle_epi8 (_mm512_loadu_si512 (src + b + 64),
        split);
    __m512i hi = _mm512_unpacklo_epi64 (a, c), lo = _mm512_unpackhi_epi64 (a,
        c);
    __m512i d[4], ph, pl;

    d[0] = _mm512_and_si512 (lo, low4);
    d[1] = _mm512_and_si512 (_mm512_srli_epi16 (lo, 4), low4);
    d[2] = _mm512_and_si512 (hi, low4);
    d[3] = _mm512_and_si512 (_mm512_srli_epi16 (hi, 4), low4);
    ph = _mm512_shuffle_epi8 (th[0], d[0]);
    pl = _mm512_shuffle_epi8 (tl[0], d[0]);
    for (guint j = 1; j < 4; j++) {
      ph = _mm512_xor_si512 (ph, _mm512_shuffle_epi8 (th[j], d[j]));
      pl = _mm512_xor_si512 (pl, _mm512_shuffle_epi8 (tl[j], d[j]));
    }
    _mm512_storeu_si512 (dst + b, _mm512_xor_si512 (_mm512_loadu_si512 (dst +
                b), _mm512_unpacklo_epi8 (ph, pl)));
    _mm512_storeu_si512 (dst + b + 64,
        _mm512_xor_si512 (_mm512_loadu_si512 (dst + b + 64),
            _mm512_unpackhi_epi8 (ph, pl)));
  }
  return b;
}

/* The widest vector the machine has, bytes: 64, 32, 16 or 0. */
static guint
machine_width (void)
{
  static gsize checked = 0;
  static guint width = 0;

  if (g_once_init_enter (&checked)) {
    __builtin_cpu_init ();
    if (__builtin_cpu_supports ("avx512bw"))
      width = 64;
    else if (__builtin_cpu_supports ("avx2"))
      width = 32;
    else if (__builtin_cpu_supports ("ssse3"))
      width = 16;
    g_once_init_leave (&checked, 1);
  }
  return width;
}

/* The vector steps of dst ^= c * src at @width bytes and under: the bytes
 * done, whole steps only. */
__attribute__ ((target ("ssse3")))
static gsize
mul_add_vector (guint8 * dst, const guint8 * src, const guint16 basis[16],
    gsize len, guint width)
{
  __m128i th[4], tl[4];
  gsize done = 0;

  vector_tables (basis, th, tl);
  if (width >= 64)
    done = mul_add_avx512 (dst, src, th, tl, len);
  if (width >= 32)
    done += mul_add_avx2 (dst + done, src + done, th, tl, len - done);
  return done + mul_add_ssse3 (dst + done, src + done, th, tl, len - done);
}
#endif

static guint vector_width = 64;

void
erasure16_set_vector_width (guint bytes)
{
  vector_width = bytes;
}

void
erasure16_set_vector (gboolean on)
{
  erasure16_set_vector_width (on ? 64 : 0);
}

/* dst ^= c * src over @len bytes of big-endian 16-bit symbols */
static void
region_mul_add (guint8 * dst, const guint8 * src, guint16 c, gsize len)
{
  guint16 basis[16], tab[4][16];
  gsize done = 0;
#ifdef HAVE_SSSE3_PATH
  guint width = MIN (vector_width, machine_width ());
#endif

  if (c == 0)
    return;
  basis_products (c, basis);
#ifdef HAVE_SSSE3_PATH
  if (width >= 16)
    done = mul_add_vector (dst, src, basis, len, width);
#endif
  if (done == len)
    return;
  split_tables (basis, tab);
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
