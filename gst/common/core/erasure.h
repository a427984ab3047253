/* A systematic Reed-Solomon erasure code over GF(2^8) (sans-I/O, GLib
 * only). A block is k data packets of one length; parity row r is
 * sum_i C[r][i] * data_i with the Cauchy matrix C[r][i] = 1 / (r + (255 -
 * i)) (addition is XOR), rows 0 .. 255 - k. Every square submatrix of a
 * Cauchy matrix is invertible, so any k of the data packets and parity rows
 * give the block back: m parity rows repair any m losses, and a parity
 * packet repairs a different loss at each receiver. */
#ifndef __CORE_ERASURE_H__
#define __CORE_ERASURE_H__

#include <glib.h>

G_BEGIN_DECLS

#define ERASURE_MAX_BLOCK 255   /* data packets of one block */

/* The parity rows a block of @k data packets has (256 - k; 0 when @k is 0
 * or over ERASURE_MAX_BLOCK). */
guint erasure_rows (guint k);

/* Writes parity row @row of the @k packets @data (each @len bytes) into
 * @parity; FALSE (nothing written) if @k or @row is out of range. */
gboolean erasure_encode (guint k, const guint8 * const *data, gsize len,
    guint row, guint8 * parity);

/* Rebuilds the lost data packets of a block of @k: @data holds @k buffers
 * of @len bytes, @have[i] tells whether data[i] arrived; the @n_parity
 * parity packets @parity carry the rows @rows. Fills every lost data[i]
 * and returns TRUE; FALSE, with nothing written, when more packets are lost
 * than parity packets arrived, or a row is out of range or repeated. */
gboolean erasure_decode (guint k, guint8 ** data, const gboolean * have,
    gsize len, guint n_parity, const guint * rows,
    const guint8 * const *parity);

/* The region operation under encode and decode: dst ^= c * src over @len
 * bytes, every product in GF(2^8). ERASURE_IMPL_REFERENCE multiplies by
 * logarithms into a row on every call, then a byte at a time (the code
 * as first written); PORTABLE looks each byte up in the coefficient's row
 * of a product table built once, four bytes a step; SSSE3 looks up 16
 * bytes a step in split 4-bit tables. The fastest the machine has is
 * chosen at first use. */
typedef enum
{
  ERASURE_IMPL_REFERENCE,
  ERASURE_IMPL_PORTABLE,
  ERASURE_IMPL_SSSE3,
} ErasureImpl;

void erasure_mul_add (guint8 * dst, const guint8 * src, guint8 c, gsize len);

/* dst ^= src over @len bytes: the sum in GF(2^8), all of an XOR parity
 * (16 bytes a step where the compiler has vector types). */
void erasure_xor (guint8 * dst, const guint8 * src, gsize len);

/* The product @a * @b in GF(2^8) by logarithms. */
guint8 erasure_gf_mul (guint8 a, guint8 b);

/* For tests and benchmarks: selects @impl for every later call; FALSE
 * (nothing changed) if this build or machine lacks it. Not thread-safe
 * against calls running at the same time. */
gboolean erasure_set_impl (ErasureImpl impl);
ErasureImpl erasure_get_impl (void);

G_END_DECLS

#endif /* __CORE_ERASURE_H__ */
