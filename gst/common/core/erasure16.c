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

/* gf_exp (doubled, so that exp[log a + log b] needs no reduction), gf_log
 * and gf_inv_table, const: see erasure16-gentables.c */
#include "erasure16-tables.h"

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
  return gf_inv_table[a];
}

guint16
erasure16_gf_mul (guint16 a, guint16 b)
{
  return gf_mul (a, b);
}

guint16
erasure16_gf_inv (guint16 a)
{
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

/* The incremental decoder. Its unknowns are the slots: the packets lost
 * when the first row came (packets arrive but are never lost again, so the
 * set only shrinks). A slot is free (unknown, no row solves for it), a
 * pivot (the one row whose column it is; every other row has 0 there) or
 * known (its packet came after all). Each row keeps, over the slots, the
 * coefficients still unknown (its pivot's 1 and free slots' values) and
 * the region they sum to. When no slot is free, each row's region is its
 * pivot's packet. */
enum { SLOT_FREE, SLOT_PIVOT, SLOT_KNOWN, SLOT_TAKEN };

typedef struct {
  guint8 *syn;                  /* len bytes; NULL once taken */
  guint16 *coef;                /* n_slots; 0 at every pivot but its own */
  guint pivot;                  /* a slot */
} DecoderRow;

struct _Erasure16Decoder {
  guint k;
  gsize len;
  const guint8 **data;          /* k: the packets held, NULL if lost */
  gsize *plen;
  guint n_held;
  guint8 *rows_seen;            /* bit per parity row */
  guint n_slots;                /* 0 until the first row */
  guint *slot_col;
  gint *col_slot;               /* -1: not a slot */
  guint8 *slot_state;
  guint *slot_row;              /* a pivot's row */
  guint *free_slots, *free_pos, n_free;
  DecoderRow *rows;
  guint n_rows;
  /* expect_rows: for row j < n_expected not given yet, held[j] is the sum
   * of C[j][i] x packet i over the packets held */
  guint8 **expected;
  guint n_expected;
  /* set_batch: rows taken but not reduced yet (their parity copied) */
  guint batch;
  guint *pending_row;
  guint8 **pending;
  guint n_pending;
  guint64 ops;
};

Erasure16Decoder *
erasure16_decoder_new (guint k, gsize len)
{
  Erasure16Decoder *d;

  if (erasure16_rows (k) == 0 || len % 2 != 0)
    return NULL;
  d = g_new0 (Erasure16Decoder, 1);
  d->k = k;
  d->len = len;
  d->data = g_new0 (const guint8 *, k);
  d->plen = g_new0 (gsize, k);
  d->rows_seen = g_new0 (guint8, erasure16_rows (k) / 8 + 1);
  d->col_slot = g_new (gint, k);
  for (guint i = 0; i < k; i++)
    d->col_slot[i] = -1;
  d->batch = 1;
  return d;
}

void
erasure16_decoder_free (Erasure16Decoder * d)
{
  if (!d)
    return;
  for (guint r = 0; r < d->n_rows; r++) {
    g_free (d->rows[r].syn);
    g_free (d->rows[r].coef);
  }
  g_free (d->rows);
  for (guint j = 0; j < d->n_expected; j++)
    g_free (d->expected[j]);
  g_free (d->expected);
  for (guint j = 0; j < d->n_pending; j++)
    g_free (d->pending[j]);
  g_free (d->pending);
  g_free (d->pending_row);
  g_free (d->slot_col);
  g_free (d->col_slot);
  g_free (d->slot_state);
  g_free (d->slot_row);
  g_free (d->free_slots);
  g_free (d->free_pos);
  g_free (d->rows_seen);
  g_free (d->data);
  g_free (d->plen);
  g_free (d);
}

guint
erasure16_decoder_missing (const Erasure16Decoder * d)
{
  guint unknown = d->n_slots ? d->n_free : d->k - d->n_held;

  /* a pending row counts as one more solved (a dependent one is found
   * when the batch is reduced) */
  return unknown > d->n_pending ? unknown - d->n_pending : 0;
}

guint64
erasure16_decoder_region_ops (const Erasure16Decoder * d)
{
  return d->ops;
}

/* dst ^= c * src, counted */
static void
decoder_mul_add (Erasure16Decoder * d, guint8 * dst, const guint8 * src,
    guint16 c, gsize len)
{
  if (c == 0)
    return;
  region_mul_add (dst, src, c, len);
  d->ops++;
}

/* dst ^= c * (the @plen bytes of @src, then zeros): an odd last byte is
 * the high byte of a symbol whose low byte is the padding's 0. */
static void
decoder_mul_add_packet (Erasure16Decoder * d, guint8 * dst,
    const guint8 * src, guint16 c, gsize plen)
{
  decoder_mul_add (d, dst, src, c, plen & ~(gsize) 1);
  if (plen & 1) {
    guint16 p = gf_mul (c, (guint16) (src[plen - 1] << 8));

    dst[plen - 1] ^= (guint8) (p >> 8);
    dst[plen] ^= (guint8) p;
  }
}

/* x = c * x in place: x ^ (c + 1) x is c x, and the region op reads each
 * step of its source before it writes that step. */
static void
decoder_scale (Erasure16Decoder * d, guint8 * x, guint16 c)
{
  decoder_mul_add (d, x, x, c ^ 1, d->len);
}

static void
decoder_build_slots (Erasure16Decoder * d)
{
  guint n = d->k - d->n_held, s = 0;

  d->n_slots = n;
  d->slot_col = g_new (guint, n);
  d->slot_state = g_new0 (guint8, n);   /* SLOT_FREE */
  d->slot_row = g_new0 (guint, n);
  d->free_slots = g_new (guint, n);
  d->free_pos = g_new (guint, n);
  d->rows = g_new0 (DecoderRow, n);
  for (guint i = 0; i < d->k; i++)
    if (!d->data[i]) {
      d->slot_col[s] = i;
      d->col_slot[i] = (gint) s;
      d->free_slots[s] = d->free_pos[s] = s;
      s++;
    }
  d->n_free = n;
}

static void
decoder_unfree (Erasure16Decoder * d, guint s, guint8 state)
{
  guint last = d->free_slots[--d->n_free];

  d->free_slots[d->free_pos[s]] = last;
  d->free_pos[last] = d->free_pos[s];
  d->slot_state[s] = state;
}

/* row @dst -= f x row @src, over the region and the free slots (@src is 0
 * at every other pivot); @dst's entry at @src's pivot becomes 0. */
static void
decoder_row_sub (Erasure16Decoder * d, DecoderRow * dst,
    const DecoderRow * src, guint16 f)
{
  if (f == 0)
    return;
  decoder_mul_add (d, dst->syn, src->syn, f, d->len);
  for (guint j = 0; j < d->n_free; j++) {
    guint s = d->free_slots[j];

    if (src->coef[s])
      dst->coef[s] ^= gf_mul (f, src->coef[s]);
  }
  dst->coef[src->pivot] = 0;
}

/* Makes free slot @s the pivot of row @r: scales the row to 1 there and
 * clears @s from every other row. */
static void
decoder_pivot (Erasure16Decoder * d, guint r, guint s)
{
  DecoderRow *row = &d->rows[r];
  guint16 f = gf_inv (row->coef[s]);

  decoder_unfree (d, s, SLOT_PIVOT);
  row->pivot = s;
  d->slot_row[s] = r;
  decoder_scale (d, row->syn, f);
  for (guint j = 0; j < d->n_free; j++)
    row->coef[d->free_slots[j]] = gf_mul (f, row->coef[d->free_slots[j]]);
  row->coef[s] = 1;
  for (guint o = 0; o < d->n_rows; o++)
    if (o != r && d->rows[o].coef[s])
      decoder_row_sub (d, &d->rows[o], row, d->rows[o].coef[s]);
}

/* A free slot where row @r is not 0, or -1. */
static gint
decoder_free_nonzero (const Erasure16Decoder * d, guint r)
{
  for (guint j = 0; j < d->n_free; j++)
    if (d->rows[r].coef[d->free_slots[j]])
      return (gint) d->free_slots[j];
  return -1;
}

static void
decoder_drop_row (Erasure16Decoder * d, guint r)
{
  guint last = --d->n_rows;

  g_free (d->rows[r].syn);
  g_free (d->rows[r].coef);
  if (r != last) {
    d->rows[r] = d->rows[last];
    d->slot_row[d->rows[r].pivot] = r;
  }
}

/* Row @r lost its pivot (that packet came): it pivots on another free
 * slot, or, left with none, depends on the others and goes. */
static void
decoder_repivot (Erasure16Decoder * d, guint r)
{
  gint s = decoder_free_nonzero (d, r);

  if (s < 0)
    decoder_drop_row (d, r);
  else
    decoder_pivot (d, r, (guint) s);
}

static gboolean decoder_maybe_flush (Erasure16Decoder * d);

gboolean
erasure16_decoder_add_data (Erasure16Decoder * d, guint i,
    const guint8 * data, gsize plen)
{
  gint s;

  if (i >= d->k || d->data[i] || plen > d->len)
    return FALSE;
  s = d->col_slot[i];
  if (s >= 0 && d->slot_state[s] == SLOT_TAKEN)
    return FALSE;
  d->data[i] = data;
  d->plen[i] = plen;
  d->n_held++;
  for (guint j = 0; j < d->n_expected; j++)
    if (d->expected[j])
      decoder_mul_add_packet (d, d->expected[j], data, cauchy (j, i), plen);
  if (s < 0) {
    decoder_maybe_flush (d);
    return TRUE;
  }
  for (guint r = 0; r < d->n_rows; r++) {
    guint16 c = d->rows[r].coef[s];

    if (c) {
      decoder_mul_add_packet (d, d->rows[r].syn, data, c, plen);
      d->rows[r].coef[s] = 0;
    }
  }
  if (d->slot_state[s] == SLOT_FREE) {
    decoder_unfree (d, s, SLOT_KNOWN);
  } else {
    d->slot_state[s] = SLOT_KNOWN;
    decoder_repivot (d, d->slot_row[s]);
  }
  decoder_maybe_flush (d);
  return TRUE;
}

/* The new row @row's region less what the packets held give: summed as
 * they came if it was expected; else NULL (the caller sums it). */
static guint8 *
decoder_expected_sum (Erasure16Decoder * d, guint row, const guint8 * parity)
{
  guint8 *syn;

  if (row >= d->n_expected || !d->expected[row])
    return NULL;
  syn = d->expected[row];
  d->expected[row] = NULL;
  decoder_mul_add (d, syn, parity, 1, d->len);
  return syn;
}

/* @syn, row @row less what the packets held give, joins the system: it is
 * reduced by the pivots' rows and pivots on a free slot, or is dropped
 * (FALSE) if it depends on the rows held. */
static gboolean
decoder_reduce_row (Erasure16Decoder * d, guint row, guint8 * syn)
{
  DecoderRow *nr;
  gint s;

  if (!d->n_slots)
    decoder_build_slots (d);
  nr = &d->rows[d->n_rows];
  nr->coef = g_new0 (guint16, d->n_slots);
  nr->syn = syn;
  for (guint j = 0; j < d->n_free; j++)
    nr->coef[d->free_slots[j]] = cauchy (row, d->slot_col[d->free_slots[j]]);
  /* less each pivot's row times the pivot's coefficient here */
  for (guint r = 0; r < d->n_rows; r++)
    decoder_row_sub (d, nr, &d->rows[r],
        cauchy (row, d->slot_col[d->rows[r].pivot]));
  d->n_rows++;
  s = decoder_free_nonzero (d, d->n_rows - 1);
  if (s < 0) {
    decoder_drop_row (d, d->n_rows - 1);
    return FALSE;
  }
  decoder_pivot (d, d->n_rows - 1, (guint) s);
  return TRUE;
}

/* Reduces the pending rows: their sums over the packets held in one pass
 * over the packets (each packet read once for the batch, not once a row),
 * then each joins the system. TRUE if any raised the rank. */
static gboolean
decoder_flush (Erasure16Decoder * d)
{
  gboolean raised = FALSE;
  guint n = d->n_pending;

  d->n_pending = 0;
  for (guint i = 0; i < d->k; i++)
    if (d->data[i])
      for (guint j = 0; j < n; j++)
        decoder_mul_add_packet (d, d->pending[j], d->data[i],
            cauchy (d->pending_row[j], i), d->plen[i]);
  for (guint j = 0; j < n; j++) {
    if (erasure16_decoder_missing (d) == 0) {
      g_free (d->pending[j]);   /* the rows before sufficed */
      continue;
    }
    raised |= decoder_reduce_row (d, d->pending_row[j], d->pending[j]);
  }
  return raised;
}

/* A batch is reduced when it is full, or when its rows may be all that is
 * missing (so the last needed row never waits). */
static gboolean
decoder_maybe_flush (Erasure16Decoder * d)
{
  if (d->n_pending == 0 || (d->n_pending < d->batch &&
          erasure16_decoder_missing (d) > 0))
    return FALSE;
  return decoder_flush (d);
}

void
erasure16_decoder_set_batch (Erasure16Decoder * d, guint rows)
{
  rows = CLAMP (rows, 1, 1024);
  if (d->n_pending)
    decoder_flush (d);
  d->batch = rows;
  d->pending = g_renew (guint8 *, d->pending, rows);
  d->pending_row = g_renew (guint, d->pending_row, rows);
}

gboolean
erasure16_decoder_add_row (Erasure16Decoder * d, guint row,
    const guint8 * parity)
{
  guint8 *syn;
  gboolean raised;

  if (row >= erasure16_rows (d->k) || (d->rows_seen[row / 8] & (1 << (row %
                  8))))
    return FALSE;
  d->rows_seen[row / 8] |= 1 << (row % 8);
  if (erasure16_decoder_missing (d) == 0) {
    if (row < d->n_expected)
      g_clear_pointer (&d->expected[row], g_free);
    return FALSE;
  }
  syn = decoder_expected_sum (d, row, parity);
  if (!syn && d->batch > 1) {
    /* its sum over the packets is made with the batch's */
    d->pending_row[d->n_pending] = row;
    d->pending[d->n_pending++] = g_memdup2 (parity, d->len);
    decoder_maybe_flush (d);
    return TRUE;
  }
  if (!syn) {
    syn = g_memdup2 (parity, d->len);
    for (guint i = 0; i < d->k; i++)
      if (d->data[i])
        decoder_mul_add_packet (d, syn, d->data[i], cauchy (row, i),
            d->plen[i]);
  }
  raised = decoder_reduce_row (d, row, syn);
  /* an expected row skips the batch: the pending rows may now be all
   * that is missing */
  decoder_maybe_flush (d);
  return raised;
}

void
erasure16_decoder_expect_rows (Erasure16Decoder * d, guint n)
{
  n = MIN (n, erasure16_rows (d->k));
  if (n <= d->n_expected)
    return;
  d->expected = g_renew (guint8 *, d->expected, n);
  for (guint j = d->n_expected; j < n; j++) {
    d->expected[j] = NULL;
    if (d->rows_seen[j / 8] & (1 << (j % 8)))
      continue;
    d->expected[j] = g_malloc0 (d->len);
    for (guint i = 0; i < d->k; i++)
      if (d->data[i])
        decoder_mul_add_packet (d, d->expected[j], d->data[i], cauchy (j,
                i), d->plen[i]);
  }
  d->n_expected = n;
}

guint8 *
erasure16_decoder_take (Erasure16Decoder * d, guint i)
{
  gint s;
  guint8 *out;

  if (i >= d->k || d->n_free != 0 || (s = d->col_slot[i]) < 0 ||
      d->slot_state[s] != SLOT_PIVOT)
    return NULL;
  out = d->rows[d->slot_row[s]].syn;
  d->rows[d->slot_row[s]].syn = NULL;
  d->slot_state[s] = SLOT_TAKEN;
  return out;
}
