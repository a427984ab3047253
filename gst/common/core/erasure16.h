/* A systematic Reed-Solomon erasure code over GF(2^16) (sans-I/O, GLib
 * only), for blocks larger than GF(2^8) allows (core/erasure.h: at most
 * 255 packets with their rows). A packet is a string of 16-bit symbols,
 * big-endian, so its length must be even. A block is k data packets of
 * one length; parity row r is sum_i C[r][i] * data_i with the Cauchy
 * matrix C[r][i] = 1 / (r + (65535 - i)) (addition is XOR), rows 0 ..
 * 65535 - k. Any k of the data packets and rows give the block back. The
 * field is GF(2)[x] / (x^16 + x^12 + x^3 + x + 1), by log and exp tables
 * (384 KiB, built at first use). */
#ifndef __CORE_ERASURE16_H__
#define __CORE_ERASURE16_H__

#include <glib.h>

G_BEGIN_DECLS

#define ERASURE16_MAX_BLOCK 65535       /* data packets of one block */

/* The parity rows a block of @k data packets has (65536 - k; 0 when @k is
 * 0 or over ERASURE16_MAX_BLOCK). */
guint erasure16_rows (guint k);

/* Writes parity row @row of the @k packets @data (each @len bytes, @len
 * even) into @parity; FALSE (nothing written) if @k, @row or @len is out
 * of range. */
gboolean erasure16_encode (guint k, const guint8 * const *data, gsize len,
    guint row, guint8 * parity);

/* Rebuilds the lost data packets of a block of @k: @data holds @k buffers
 * of @len bytes (@len even), @have[i] tells whether data[i] arrived; the
 * @n_parity parity packets @parity carry the rows @rows. Fills every lost
 * data[i] and returns TRUE; FALSE, with nothing written, when more packets
 * are lost than parity packets arrived, or a row is out of range or
 * repeated, or @len is odd. Cost: for m losses, m x (k - m) + m x m
 * region products and an m x m inversion. */
gboolean erasure16_decode (guint k, guint8 ** data, const gboolean * have,
    gsize len, guint n_parity, const guint * rows,
    const guint8 * const *parity);

/* An incremental decoder for one block: each data packet and parity row
 * is eliminated against the block's system as it arrives (Gauss-Jordan,
 * row by row, over the packets lost when the first row came), so the work
 * left when the last needed row arrives is that row's own: k - m region
 * products for what the packets held give, and 2 x m to reduce it and clear
 * its column from the other rows (one-shot erasure16_decode does m x k).
 * For a consistent block it rebuilds the same bytes as erasure16_decode. */
typedef struct _Erasure16Decoder Erasure16Decoder;

/* A decoder for a block of @k data packets of @len bytes (@len even); NULL
 * if @k or @len is out of range. */
Erasure16Decoder *erasure16_decoder_new (guint k, gsize len);
void erasure16_decoder_free (Erasure16Decoder * d);

/* Data packet @i arrived: its first @plen bytes (at most the block's
 * length; the rest are zeros). The decoder reads @data until it is freed,
 * so the caller keeps it. FALSE (nothing done) if @i is out of range or
 * already held, or @plen too long. */
gboolean erasure16_decoder_add_data (Erasure16Decoder * d, guint i,
    const guint8 * data, gsize plen);

/* Parity row @row arrived (the block's length in bytes, copied). TRUE if
 * it raised the rank (with a batch: was taken into it); FALSE if it is out
 * of range or given before, nothing is lost, or it depends on the rows
 * held (then it is dropped). */
gboolean erasure16_decoder_add_row (Erasure16Decoder * d, guint row,
    const guint8 * parity);

/* Rows 0 .. @n - 1 are expected (a sender that numbers a block's rows
 * from 0): from now on each packet that arrives is added to what they will
 * need from the held packets, so a row that then comes costs 2 x m region
 * products instead of k - m more. Catching up costs a product per packet
 * held for each row newly expected. Rows already given, and those at and
 * over erasure16_rows, are skipped; @n never shrinks what is expected. */
void erasure16_decoder_expect_rows (Erasure16Decoder * d, guint n);

/* Rows are reduced @rows at a time (1, the default: each as it comes; at
 * most 1024): a row's sum over the packets held is made with its batch's,
 * in one pass over the packets, each read once a batch instead of once a
 * row. Many receivers that share a machine's cache take a row each in
 * turn, so each pass reads its packets from memory (issue 20: 1.44 x the
 * CPU at 32 receivers). A batch is reduced when full, or as soon as its
 * rows may be all that is missing, so the last needed row leaves its
 * batch's sums (at most @rows - 1 more rows') and its own work. */
void erasure16_decoder_set_batch (Erasure16Decoder * d, guint rows);

/* The lost data packets the rows held cannot rebuild yet (a row of a
 * batch not reduced yet counts as solving one): 0 when every lost packet
 * is solved. */
guint erasure16_decoder_missing (const Erasure16Decoder * d);

/* Once missing is 0: lost packet @i rebuilt (the block's length, for
 * g_free), handed over; NULL if @i was held or is not solved yet, or was
 * taken. */
guint8 *erasure16_decoder_take (Erasure16Decoder * d, guint i);

/* For tests: the region products (and region scalings) done so far. */
guint64 erasure16_decoder_region_ops (const Erasure16Decoder * d);

/* For tests and benchmarks: the widest vector, in bytes, the region op
 * may use where the machine has it: 64 (AVX-512BW, 64 symbols a step; the
 * default), 32 (AVX2, 32), 16 (SSSE3, 16), 0 (portable: 4-bit split
 * tables, a symbol at a time). Every width gives the same bytes. Not
 * thread-safe against calls running at the same time. */
void erasure16_set_vector_width (guint bytes);
/* TRUE: the widest (64), FALSE: portable (0). */
void erasure16_set_vector (gboolean on);

/* The product and the inverse in GF(2^16) (the inverse of 0 is 0). */
guint16 erasure16_gf_mul (guint16 a, guint16 b);
guint16 erasure16_gf_inv (guint16 a);

G_END_DECLS

#endif /* __CORE_ERASURE16_H__ */
