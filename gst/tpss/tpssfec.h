/* TPSS interleaved XOR parity FEC: a sans-I/O core (GLib only).
 *
 * Tojo et al., "QoS Control for High-Speed Communication in a Group",
 * sections 2.2 and 2.4: a segment of data packets is split into k interleaved
 * subsegments (k = packet distance); subsegment j holds packets j, j+k, j+2k...
 * and gets one XOR parity packet, sent after the segment's data packets.
 * The wire format is in docs/protocols/tpss-fec.md.
 *
 * The core never touches sockets, threads or clocks: callers hand it raw RTP
 * packets and the current time (ns), and take packets from it.
 */
#ifndef __TPSS_FEC_H__
#define __TPSS_FEC_H__

#include <glib.h>

G_BEGIN_DECLS

#define TPSS_FEC_HEADER_SIZE 20
#define TPSS_FEC_VERSION 1
#define TPSS_FEC_MAX_DISTANCE 255
#define TPSS_FEC_MAX_SUBSEGMENT 255
#define TPSS_RTP_HEADER_SIZE 12

/* Why a packet was refused. */
typedef enum {
  TPSS_FEC_OK = 0,
  TPSS_FEC_ERR_TRUNCATED,       /* shorter than its fixed header */
  TPSS_FEC_ERR_VERSION,         /* unknown version or reserved bits set */
  TPSS_FEC_ERR_GEOMETRY,        /* k, l, index or count out of range */
  TPSS_FEC_ERR_RTP,             /* not a valid RTP packet */
} TpssFecError;

const gchar *tpss_fec_error_to_string (TpssFecError err);

/* The FEC header of one parity packet (the RTP payload of a FEC packet). */
typedef struct {
  guint8 index;                 /* subsegment j, 0 .. k-1 */
  guint8 distance;              /* packet distance k */
  guint8 length;                /* subsegment length l the sender used */
  guint16 sn_base;              /* sequence number of the segment's first data packet */
  guint16 count;                /* data packets in the segment, 1 .. k*l */
  guint32 media_ssrc;           /* SSRC of the protected stream */
  guint16 bits_recovery;        /* XOR of (P,X,CC) << 8 | (M,PT) */
  guint16 length_recovery;      /* XOR of (packet length - 12) */
  guint32 ts_recovery;          /* XOR of RTP timestamps */
  const guint8 *xor_data;       /* XOR of the bytes after the fixed RTP header */
  gsize xor_len;
} TpssFecHeader;

TpssFecError tpss_fec_header_parse (const guint8 * data, gsize len,
    TpssFecHeader * hdr);
void tpss_fec_header_write (const TpssFecHeader * hdr, guint8 * out);

/* Number of data packets subsegment @index covers in a segment of @count. */
guint tpss_fec_subsegment_size (guint distance, guint count, guint index);

/* Checks that @data is a well-formed RTP packet: version 2, CSRCs, header
 * extension and padding all within @len. */
gboolean tpss_rtp_is_valid (const guint8 * data, gsize len);

/* ------------------------------------------------------------------ */
/* Encoder */

typedef struct _TpssFecEncoder TpssFecEncoder;

TpssFecEncoder *tpss_fec_encoder_new (guint distance, guint length);
void tpss_fec_encoder_free (TpssFecEncoder * enc);

/* Sets k and l for the next segment; the open segment keeps its own.
 * @length 0 turns parity off. Returns FALSE if out of range. */
gboolean tpss_fec_encoder_set_params (TpssFecEncoder * enc, guint distance,
    guint length);

/* Protects one media RTP packet. A sequence-number discontinuity or SSRC
 * change closes the open segment early. Returns the number of parity packets
 * ready to pop; all must be popped before the next call. */
guint tpss_fec_encoder_add (TpssFecEncoder * enc, const guint8 * rtp,
    gsize len, TpssFecError * err);

/* The same for a packet in pieces (a buffer of several memories), read in
 * place. */
typedef struct {
  const guint8 *data;
  gsize len;
} TpssFecChunk;

guint tpss_fec_encoder_addv (TpssFecEncoder * enc, const TpssFecChunk * chunks,
    guint n_chunks, TpssFecError * err);

/* Closes the open segment (its subsegments are short); returns the number of
 * parity packets ready. */
guint tpss_fec_encoder_flush (TpssFecEncoder * enc);

/* The same, with the segment's overhead kept: its n packets get
 * ceil (n / l) parity packets or a few more (the interleave distance
 * becomes the smallest divisor of k that holds them at length l), where a
 * plain flush gives one per packet up to k. */
guint tpss_fec_encoder_flush_folded (TpssFecEncoder * enc);

/* Forgets the open segment without parity (its packets were never sent);
 * the next packet opens a new one. Parity ready to pop stays. */
void tpss_fec_encoder_discard (TpssFecEncoder * enc);

/* Next parity payload (FEC header + XOR data); valid until the next add or
 * flush. @media_ts is the timestamp of the last media packet it protects. */
gboolean tpss_fec_encoder_pop (TpssFecEncoder * enc, const guint8 ** payload,
    gsize * len, guint32 * media_ts);

/* Packets in the segment being built (0 when none is open). */
guint tpss_fec_encoder_pending (const TpssFecEncoder * enc);

/* ------------------------------------------------------------------ */
/* Decoder */

typedef struct _TpssFecDecoder TpssFecDecoder;

/* Called when the decoder no longer needs a media packet it was given. */
typedef void (*TpssFecReleaseFunc) (gpointer handle);

typedef struct {
  /* The longest any media packet is held back waiting for a missing one, in
   * ns: an upper bound. Within it the decoder waits only as long as parity
   * takes to come (the segment time it measures), and keeps packets for
   * repair at least that long. */
  gint64 size_time;
  TpssFecReleaseFunc release;
} TpssFecDecoderConfig;

typedef struct {
  guint64 media_received;
  guint64 fec_received;
  guint64 recovered;
  guint64 unrecoverable;        /* given up when the hold time ran out */
  guint64 late;                 /* arrived or recovered after being given up */
  guint64 duplicates;
  guint64 malformed;            /* refused FEC or media packets */
  guint64 foreign;              /* FEC for another SSRC or out of window */
  guint64 out_of_window;        /* media too far from the stream, dropped */
  guint64 resets;               /* sequence jumps or SSRC changes that
                                 * restarted the decoder */
  guint64 repaired_late;        /* rebuilt after their gap was given up: the
                                 * parity came later than size_time allowed */
  guint64 fec_late;             /* parity that came after packets of its
                                 * subsegment were output and left the store:
                                 * it repairs nothing and is dropped */
  gint64 segment_time;          /* measured time from a segment's first media
                                 * packet to its parity, ns; -1 unknown */
  gint64 hold_time;             /* the current wait behind a gap, ns */
  guint distance;               /* k of the newest parity received (0 none) */
  guint length;                 /* l of the newest parity received */
} TpssFecDecoderStats;

/* One packet to output, in sequence order. Either a media packet the caller
 * handed in (@handle, still owned by the decoder: take a reference), or a
 * recovered one (@data, owned by the caller: g_free it). */
typedef struct {
  gpointer handle;
  guint8 *data;
  gsize len;
  guint16 seq;
} TpssFecOutput;

TpssFecDecoder *tpss_fec_decoder_new (const TpssFecDecoderConfig * cfg);
void tpss_fec_decoder_free (TpssFecDecoder * dec);
void tpss_fec_decoder_set_size_time (TpssFecDecoder * dec, gint64 size_time);

/* The wait behind a gap now: size_time, or less once the segment time is
 * known. */
gint64 tpss_fec_decoder_hold_time (const TpssFecDecoder * dec);

/* Media packet: @data stays valid until @release(@handle) is called.
 * Returns FALSE if refused (the decoder then does not keep @handle). */
gboolean tpss_fec_decoder_push_media (TpssFecDecoder * dec, gpointer handle,
    const guint8 * data, gsize len, gint64 now);

/* FEC payload (the RTP payload of a parity packet); copied as needed. */
gboolean tpss_fec_decoder_push_fec (TpssFecDecoder * dec, const guint8 * data,
    gsize len, gint64 now);

/* Releases held packets whose hold time has run out by @now. */
void tpss_fec_decoder_advance (TpssFecDecoder * dec, gint64 now);

/* Gives up every gap and releases everything held (EOS, flush). */
void tpss_fec_decoder_drain (TpssFecDecoder * dec);

/* Forgets everything (flush-stop, state change). */
void tpss_fec_decoder_reset (TpssFecDecoder * dec);

gboolean tpss_fec_decoder_pop (TpssFecDecoder * dec, TpssFecOutput * out);

/* Time at which held packets must be released, or -1 if nothing is held. */
gint64 tpss_fec_decoder_next_deadline (const TpssFecDecoder * dec);

void tpss_fec_decoder_get_stats (const TpssFecDecoder * dec,
    TpssFecDecoderStats * stats);

G_END_DECLS

#endif /* __TPSS_FEC_H__ */
