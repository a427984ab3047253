/* TPSS interleaved XOR parity FEC: a sans-I/O core (GLib only).
 * See tpssfec.h and docs/protocols/tpss-fec.md. */
#include "tpssfec.h"
#include "core/wire.h"
#include "core/rtp.h"
#include "core/erasure.h"

#include <string.h>

/* Sequence numbers further ahead than this restart the decoder (a new
 * stream), further behind are refused as out of window. */
#define AHEAD_LIMIT 16384
#define LATE_LIMIT 1024
/* The store never spans more than this many sequence numbers. */
#define STORE_SPAN_LIMIT 60000
/* The store is a ring indexed by sequence number, grown (doubling) while the
 * span it must hold reaches its size: a 3 MB table for every sequence
 * number, touched as the numbers advanced, grew a conference's RSS for its
 * first hour (docs/results.md, "Soak"). */
#define STORE_MIN_SLOTS 1024
#define STORE_MAX_SLOTS 65536
#define MAX_PENDING_FEC 4096
/* The wait behind a gap covers the measured segment time plus a quarter
 * and this much, for jitter between the media and the parity path. */
#define HOLD_MARGIN_NS (5 * G_TIME_SPAN_MILLISECOND * 1000)
/* The segment time estimate follows a longer segment at once and a shorter
 * one by 1/SEGMENT_TIME_DECAY of the difference per parity packet. */
#define SEGMENT_TIME_DECAY 64

/* Signed distance from @b to @a in sequence-number space. */
static inline gint
seq_diff (guint16 a, guint16 b)
{
  return (gint16) (guint16) (a - b);
}

/* (P, X, CC) << 8 | (M, PT): the header bits parity protects. */
static inline guint16
rtp_protected_bits (const guint8 * rtp)
{
  return (guint16) (((rtp[0] & 0x3f) << 8) | rtp[1]);
}

const gchar *
tpss_fec_error_to_string (TpssFecError err)
{
  switch (err) {
    case TPSS_FEC_OK:
      return "ok";
    case TPSS_FEC_ERR_TRUNCATED:
      return "truncated";
    case TPSS_FEC_ERR_VERSION:
      return "unknown version or reserved bits set";
    case TPSS_FEC_ERR_GEOMETRY:
      return "distance, length, index or count out of range";
    case TPSS_FEC_ERR_RTP:
      return "not a valid RTP packet";
  }
  return "unknown error";
}

gboolean
tpss_rtp_is_valid (const guint8 * data, gsize len)
{
  return rtp_header_parse (data, len, NULL);
}

guint
tpss_fec_subsegment_size (guint distance, guint count, guint index)
{
  if (distance == 0 || index >= count)
    return 0;
  return (count - index + distance - 1) / distance;
}

TpssFecError
tpss_fec_header_parse (const guint8 * data, gsize len, TpssFecHeader * hdr)
{
  if (len < TPSS_FEC_HEADER_SIZE)
    return TPSS_FEC_ERR_TRUNCATED;
  if (data[0] != (TPSS_FEC_VERSION << 6))
    return TPSS_FEC_ERR_VERSION;

  hdr->index = data[1];
  hdr->distance = data[2];
  hdr->length = data[3];
  hdr->sn_base = read16 (data + 4);
  hdr->count = read16 (data + 6);
  hdr->media_ssrc = read32 (data + 8);
  hdr->bits_recovery = read16 (data + 12);
  hdr->length_recovery = read16 (data + 14);
  hdr->ts_recovery = read32 (data + 16);
  hdr->xor_data = data + TPSS_FEC_HEADER_SIZE;
  hdr->xor_len = len - TPSS_FEC_HEADER_SIZE;

  if (hdr->distance == 0 || hdr->length == 0 || hdr->count == 0 ||
      hdr->index >= hdr->distance || hdr->index >= hdr->count ||
      hdr->count > (guint) hdr->distance * hdr->length ||
      (hdr->bits_recovery & 0xc000))
    return TPSS_FEC_ERR_GEOMETRY;
  return TPSS_FEC_OK;
}

void
tpss_fec_header_write (const TpssFecHeader * hdr, guint8 * out)
{
  out[0] = TPSS_FEC_VERSION << 6;
  out[1] = hdr->index;
  out[2] = hdr->distance;
  out[3] = hdr->length;
  write16 (out + 4, hdr->sn_base);
  write16 (out + 6, hdr->count);
  write32 (out + 8, hdr->media_ssrc);
  write16 (out + 12, hdr->bits_recovery);
  write16 (out + 14, hdr->length_recovery);
  write32 (out + 16, hdr->ts_recovery);
}

/* ------------------------------------------------------------------ */
/* Encoder */

/* Parity of one subsegment: the FEC header is written in front at pop time. */
typedef struct {
  guint8 *buf;                  /* TPSS_FEC_HEADER_SIZE + xor_len bytes used */
  gsize cap;
  gsize xor_len;
  guint16 bits;
  guint16 length;
  guint32 ts;
  guint packets;
} ParityAcc;

typedef struct {
  guint distance, length;
  guint16 sn_base;
  guint count;
  guint32 ssrc;
  guint32 last_ts;
  ParityAcc acc[TPSS_FEC_MAX_DISTANCE];
} Segment;

/* Two segment banks: one being built while the parity of the other waits to
 * be popped (a discontinuity can close a segment and open the next in one
 * call). */
struct _TpssFecEncoder {
  guint next_distance, next_length;
  Segment bank[2];
  Segment *building;            /* NULL when no segment is open */
  guint cur;                    /* bank the next segment opens in */

  Segment *ready[2];            /* closed segments, oldest first */
  guint n_ready;
  guint ready_index;            /* next subsegment of ready[0] to pop */
};

TpssFecEncoder *
tpss_fec_encoder_new (guint distance, guint length)
{
  TpssFecEncoder *enc = g_new0 (TpssFecEncoder, 1);

  if (!tpss_fec_encoder_set_params (enc, distance, length))
    tpss_fec_encoder_set_params (enc, 1, 0);
  return enc;
}

void
tpss_fec_encoder_free (TpssFecEncoder * enc)
{
  if (!enc)
    return;
  for (guint b = 0; b < 2; b++)
    for (guint j = 0; j < TPSS_FEC_MAX_DISTANCE; j++)
      g_free (enc->bank[b].acc[j].buf);
  g_free (enc);
}

gboolean
tpss_fec_encoder_set_params (TpssFecEncoder * enc, guint distance,
    guint length)
{
  if (distance < 1 || distance > TPSS_FEC_MAX_DISTANCE ||
      length > TPSS_FEC_MAX_SUBSEGMENT)
    return FALSE;
  enc->next_distance = distance;
  enc->next_length = length;
  return TRUE;
}

guint
tpss_fec_encoder_pending (const TpssFecEncoder * enc)
{
  return enc->building ? enc->building->count : 0;
}

/* Copies @count bytes at @offset of a chunked packet; FALSE past its end. */
static gboolean
chunks_read (const TpssFecChunk * chunks, guint n, gsize offset,
    guint8 * out, gsize count)
{
  for (guint i = 0; i < n && count > 0; i++) {
    gsize take;
    if (offset >= chunks[i].len) {
      offset -= chunks[i].len;
      continue;
    }
    take = MIN (count, chunks[i].len - offset);
    memcpy (out, chunks[i].data + offset, take);
    out += take;
    count -= take;
    offset = 0;
  }
  return count == 0;
}

/* tpss_rtp_is_valid() for a chunked packet; fills the fixed header. */
static gboolean
chunks_rtp_valid (const TpssFecChunk * chunks, guint n, gsize len,
    guint8 hdr[TPSS_RTP_HEADER_SIZE])
{
  guint8 prefix[RTP_LAYOUT_PREFIX], last = 0;
  gsize prefix_len;

  if (!chunks_read (chunks, n, 0, prefix, TPSS_RTP_HEADER_SIZE))
    return FALSE;
  /* only what decides the layout: CSRCs and the extension header word */
  prefix_len = MIN (len, rtp_layout_prefix_len (prefix[0]));
  if ((prefix_len > TPSS_RTP_HEADER_SIZE && !chunks_read (chunks, n,
              TPSS_RTP_HEADER_SIZE, prefix + TPSS_RTP_HEADER_SIZE,
              prefix_len - TPSS_RTP_HEADER_SIZE)) ||
      /* the padding count, if there is one */
      ((prefix[0] & 0x20) && !chunks_read (chunks, n, len - 1, &last, 1)) ||
      !rtp_layout_check (prefix, prefix_len, len, last, NULL, NULL))
    return FALSE;
  memcpy (hdr, prefix, TPSS_RTP_HEADER_SIZE);
  return TRUE;
}

static void
parity_acc_add (ParityAcc * acc, const guint8 * hdr,
    const TpssFecChunk * chunks, guint n, gsize len)
{
  gsize rest_len = len - TPSS_RTP_HEADER_SIZE, pos = 0;
  guint8 *dst;

  if (acc->cap < TPSS_FEC_HEADER_SIZE + rest_len) {
    acc->cap = TPSS_FEC_HEADER_SIZE + MAX (rest_len, 2 * acc->xor_len);
    acc->buf = g_realloc (acc->buf, acc->cap);
  }
  dst = acc->buf + TPSS_FEC_HEADER_SIZE;
  if (acc->packets == 0) {
    acc->xor_len = 0;
    acc->bits = acc->length = 0;
    acc->ts = 0;
  }

  /* XOR where the parity already has bytes, copy where it is shorter. */
  for (guint i = 0; i < n; i++) {
    gsize start = MAX (pos, TPSS_RTP_HEADER_SIZE), end = pos + chunks[i].len;
    if (end > start) {
      const guint8 *src = chunks[i].data + (start - pos);
      gsize at = start - TPSS_RTP_HEADER_SIZE, count = end - start;
      gsize common = at < acc->xor_len ? MIN (count, acc->xor_len - at) : 0;
      erasure_xor (dst + at, src, common);
      memcpy (dst + at + common, src + common, count - common);
    }
    pos = end;
  }
  acc->xor_len = MAX (acc->xor_len, rest_len);
  acc->bits ^= rtp_protected_bits (hdr);
  acc->length ^= (guint16) rest_len;
  acc->ts ^= read32 (hdr + 4);
  acc->packets++;
}

static guint
ready_count (const TpssFecEncoder * enc)
{
  guint n = 0;

  for (guint i = 0; i < enc->n_ready; i++)
    n += MIN (enc->ready[i]->distance, enc->ready[i]->count);
  return n - enc->ready_index;
}

static void
close_segment (TpssFecEncoder * enc)
{
  if (!enc->building)
    return;
  enc->ready[enc->n_ready++] = enc->building;
  enc->building = NULL;
}

static void
open_segment (TpssFecEncoder * enc, guint16 seq, guint32 ssrc)
{
  Segment *seg = &enc->bank[enc->cur];

  enc->cur ^= 1;
  seg->distance = enc->next_distance;
  seg->length = enc->next_length;
  seg->sn_base = seq;
  seg->count = 0;
  seg->ssrc = ssrc;
  for (guint j = 0; j < seg->distance; j++)
    seg->acc[j].packets = 0;
  enc->building = seg;
}

guint
tpss_fec_encoder_addv (TpssFecEncoder * enc, const TpssFecChunk * chunks,
    guint n_chunks, TpssFecError * err)
{
  guint8 hdr[TPSS_RTP_HEADER_SIZE];
  Segment *seg;
  guint16 seq;
  guint32 ssrc;
  gsize len = 0;

  g_return_val_if_fail (enc->n_ready == 0, 0);

  for (guint i = 0; i < n_chunks; i++)
    len += chunks[i].len;
  if (!chunks_rtp_valid (chunks, n_chunks, len, hdr) ||
      len - TPSS_RTP_HEADER_SIZE > G_MAXUINT16) {
    if (err)
      *err = TPSS_FEC_ERR_RTP;
    return 0;
  }
  if (err)
    *err = TPSS_FEC_OK;

  seq = read16 (hdr + 2);
  ssrc = read32 (hdr + 8);
  seg = enc->building;
  if (seg && (ssrc != seg->ssrc || seq != (guint16) (seg->sn_base + seg->count)))
    close_segment (enc);
  if (enc->next_length == 0) {
    close_segment (enc);
    return ready_count (enc);
  }
  if (!enc->building)
    open_segment (enc, seq, ssrc);

  seg = enc->building;
  parity_acc_add (&seg->acc[seg->count % seg->distance], hdr, chunks,
      n_chunks, len);
  seg->count++;
  seg->last_ts = read32 (hdr + 4);
  if (seg->count == seg->distance * seg->length)
    close_segment (enc);
  return ready_count (enc);
}

guint
tpss_fec_encoder_add (TpssFecEncoder * enc, const guint8 * rtp, gsize len,
    TpssFecError * err)
{
  TpssFecChunk chunk = { rtp, len };

  return tpss_fec_encoder_addv (enc, &chunk, 1, err);
}

guint
tpss_fec_encoder_flush (TpssFecEncoder * enc)
{
  close_segment (enc);
  return ready_count (enc);
}

void
tpss_fec_encoder_discard (TpssFecEncoder * enc)
{
  enc->building = NULL;
}

/* @src's packets join @dst's subsegment: XOR parity adds up. */
static void
parity_acc_merge (ParityAcc * dst, const ParityAcc * src)
{
  guint8 *d;
  const guint8 *s;
  gsize common;

  if (src->packets == 0)
    return;
  if (dst->packets == 0)
    dst->xor_len = 0;
  if (dst->cap < TPSS_FEC_HEADER_SIZE + src->xor_len) {
    dst->cap = TPSS_FEC_HEADER_SIZE + src->xor_len;
    dst->buf = g_realloc (dst->buf, dst->cap);
  }
  d = dst->buf + TPSS_FEC_HEADER_SIZE;
  s = src->buf + TPSS_FEC_HEADER_SIZE;
  common = MIN (dst->xor_len, src->xor_len);
  erasure_xor (d, s, common);
  memcpy (d + common, s + common, src->xor_len - common);
  dst->xor_len = MAX (dst->xor_len, src->xor_len);
  dst->bits = (dst->packets ? dst->bits : 0) ^ src->bits;
  dst->length = (dst->packets ? dst->length : 0) ^ src->length;
  dst->ts = (dst->packets ? dst->ts : 0) ^ src->ts;
  dst->packets += src->packets;
}

/* The smallest divisor of @seg's distance k whose subsegments, at its
 * length l, hold its packets: ceil (count / l) or more. */
static guint
folded_distance (const Segment * seg)
{
  guint need = (seg->count + seg->length - 1) / seg->length;

  for (guint d = MAX (need, 1); d < seg->distance; d++)
    if (seg->distance % d == 0)
      return d;
  return seg->distance;
}

guint
tpss_fec_encoder_flush_folded (TpssFecEncoder * enc)
{
  Segment *seg = enc->building;
  guint d;

  if (seg && seg->length > 0 && (d = folded_distance (seg)) < seg->distance) {
    /* Subsegment j of distance d is those j' < k with j' = j (mod d): d
     * divides k, so every packet offset keeps its class. */
    for (guint j = d; j < MIN (seg->distance, seg->count); j++)
      parity_acc_merge (&seg->acc[j % d], &seg->acc[j]);
    seg->distance = d;
  }
  return tpss_fec_encoder_flush (enc);
}

gboolean
tpss_fec_encoder_pop (TpssFecEncoder * enc, const guint8 ** payload,
    gsize * len, guint32 * media_ts)
{
  Segment *seg;
  ParityAcc *acc;
  TpssFecHeader hdr;

  if (enc->n_ready == 0)
    return FALSE;

  seg = enc->ready[0];
  acc = &seg->acc[enc->ready_index];
  hdr.index = enc->ready_index;
  hdr.distance = seg->distance;
  hdr.length = seg->length;
  hdr.sn_base = seg->sn_base;
  hdr.count = seg->count;
  hdr.media_ssrc = seg->ssrc;
  hdr.bits_recovery = acc->bits;
  hdr.length_recovery = acc->length;
  hdr.ts_recovery = acc->ts;
  tpss_fec_header_write (&hdr, acc->buf);

  *payload = acc->buf;
  *len = TPSS_FEC_HEADER_SIZE + acc->xor_len;
  if (media_ts)
    *media_ts = seg->last_ts;

  if (++enc->ready_index >= MIN (seg->distance, seg->count)) {
    enc->ready_index = 0;
    enc->ready[0] = enc->ready[1];
    enc->n_ready--;
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Decoder */

typedef enum {
  SLOT_EMPTY = 0,
  SLOT_HELD,                    /* stored, not yet output */
  SLOT_DONE,                    /* stored, output */
} SlotState;

typedef struct {
  gpointer handle;              /* caller's media packet, or NULL */
  const guint8 *data;
  guint8 *owned;                /* a recovered packet's bytes */
  gsize len;
  gint64 arrival;
  guint16 seq;
  guint8 state;
} Slot;

typedef struct {
  guint16 seq;
  gint64 arrival;
} HeldEntry;

typedef struct {
  TpssFecHeader hdr;            /* xor_data points into bytes */
  guint8 *bytes;
  gint64 arrival;
  /* One packet missing, but no later media seen yet: it may still be on its
   * way (parity often travels on another socket), so wait for a packet past
   * it before repairing. */
  gboolean deferred;
  guint16 wait_seq;
} PendingFec;

struct _TpssFecDecoder {
  TpssFecDecoderConfig cfg;
  Slot *slots;                  /* ring: slot_mask + 1 of them, by seq */
  guint slot_mask;

  gboolean started;
  guint32 ssrc;
  guint16 next_out;             /* everything before it is output or given up */
  guint16 tail;                 /* oldest sequence number that may be stored */
  guint16 head;                 /* one past the newest stored */
  /* Bit per sequence number: output (1) or given up (0). Rewritten as
   * next_out passes it, so only bits before next_out mean anything. */
  guint8 *output_bits;

  GQueue held;                  /* HeldEntry, in arrival order */
  GQueue pending;               /* PendingFec that still miss two or more */
  GArray *out;                  /* TpssFecOutput, popped from out_pos */
  guint out_pos;
  GPtrArray *deferred;          /* handles to release once `out` is empty */
  gint64 last_now;
  gint64 segment_time;          /* -1 until parity has been measured */
  guint last_distance, last_length;
  guint keep_count;             /* the largest segment seen, in packets */
  /* A sequence jump is believed after two packets in a row (RFC 3550 A.1). */
  gboolean probation;
  guint16 probation_seq;

  TpssFecDecoderStats stats;
};

TpssFecDecoder *
tpss_fec_decoder_new (const TpssFecDecoderConfig * cfg)
{
  TpssFecDecoder *dec = g_new0 (TpssFecDecoder, 1);

  dec->cfg = *cfg;
  dec->segment_time = -1;
  dec->slots = g_new0 (Slot, STORE_MIN_SLOTS);
  dec->slot_mask = STORE_MIN_SLOTS - 1;
  dec->output_bits = g_new0 (guint8, 65536 / 8);
  dec->deferred = g_ptr_array_new ();
  dec->out = g_array_new (FALSE, FALSE, sizeof (TpssFecOutput));
  g_queue_init (&dec->held);
  g_queue_init (&dec->pending);
  return dec;
}

void
tpss_fec_decoder_set_size_time (TpssFecDecoder * dec, gint64 size_time)
{
  dec->cfg.size_time = size_time;
}

/* How long parity needs to come after a packet: unknown (-1) until measured. */
static gint64
needed_wait (const TpssFecDecoder * dec)
{
  if (dec->segment_time < 0)
    return -1;
  return dec->segment_time + dec->segment_time / 4 + HOLD_MARGIN_NS;
}

gint64
tpss_fec_decoder_hold_time (const TpssFecDecoder * dec)
{
  gint64 needed = needed_wait (dec);

  return needed < 0 ? dec->cfg.size_time : MIN (needed, dec->cfg.size_time);
}

/* Packets stay for repair as long as parity may come, even past the hold:
 * a repair that comes too late is still counted and output. */
static gint64
keep_time (const TpssFecDecoder * dec)
{
  return MAX (needed_wait (dec), dec->cfg.size_time);
}

static void
release_deferred (TpssFecDecoder * dec)
{
  for (guint i = 0; i < dec->deferred->len; i++)
    dec->cfg.release (g_ptr_array_index (dec->deferred, i));
  g_ptr_array_set_size (dec->deferred, 0);
}

/* Outputs still queued may point at a handle: release it only after they are
 * popped. */
static void
release_handle (TpssFecDecoder * dec, gpointer handle)
{
  if (!handle)
    return;
  if (dec->out_pos == dec->out->len)
    dec->cfg.release (handle);
  else
    g_ptr_array_add (dec->deferred, handle);
}

static void
slot_clear (TpssFecDecoder * dec, Slot * slot)
{
  release_handle (dec, slot->handle);
  g_free (slot->owned);
  memset (slot, 0, sizeof (*slot));
}

static inline Slot *
slot_at (TpssFecDecoder * dec, guint16 seq)
{
  return &dec->slots[seq & dec->slot_mask];
}

static inline Slot *
slot_lookup (TpssFecDecoder * dec, guint16 seq)
{
  Slot *slot = slot_at (dec, seq);

  return (slot->state != SLOT_EMPTY && slot->seq == seq) ? slot : NULL;
}

static void
pending_free (PendingFec * p)
{
  g_free (p->bytes);
  g_free (p);
}

static void
forget_all (TpssFecDecoder * dec)
{
  PendingFec *p;

  /* Everything stored lies in [tail, head). */
  for (guint16 seq = dec->tail; dec->started && seq != dec->head; seq++) {
    Slot *slot = slot_lookup (dec, seq);
    if (slot)
      slot_clear (dec, slot);
  }
  g_queue_clear_full (&dec->held, g_free);
  while ((p = g_queue_pop_head (&dec->pending)))
    pending_free (p);
  dec->started = FALSE;
}

static void
set_output_bit (TpssFecDecoder * dec, guint16 seq, gboolean output)
{
  guint8 bit = 1 << (seq & 7);

  if (output)
    dec->output_bits[seq >> 3] |= bit;
  else
    dec->output_bits[seq >> 3] &= ~bit;
}

/* @seq, behind next_out, has been output (it may have left the store). */
static gboolean
was_output (const TpssFecDecoder * dec, guint16 seq)
{
  return seq_diff (seq, dec->next_out) < 0 &&
      (dec->output_bits[seq >> 3] & (1 << (seq & 7)));
}

static void
output_slot (TpssFecDecoder * dec, Slot * slot)
{
  TpssFecOutput o;

  o.seq = slot->seq;
  o.len = slot->len;
  o.handle = slot->handle;
  o.data = slot->handle ? NULL : g_memdup2 (slot->data, slot->len);
  g_array_append_val (dec->out, o);
  slot->state = SLOT_DONE;
  set_output_bit (dec, slot->seq, TRUE);
}

static void
deliver_in_order (TpssFecDecoder * dec)
{
  Slot *slot;

  while (dec->next_out != dec->head &&
      (slot = slot_lookup (dec, dec->next_out)) && slot->state == SLOT_HELD) {
    output_slot (dec, slot);
    dec->next_out++;
  }
}

/* Skips the gap at next_out, counting what is missing as lost. */
static void
give_up_gap (TpssFecDecoder * dec)
{
  while (dec->next_out != dec->head && !slot_lookup (dec, dec->next_out)) {
    dec->stats.unrecoverable++;
    set_output_bit (dec, dec->next_out, FALSE);
    dec->next_out++;
  }
  deliver_in_order (dec);
}

static void
prune_held (TpssFecDecoder * dec)
{
  HeldEntry *e;

  while ((e = g_queue_peek_head (&dec->held))) {
    Slot *slot = slot_lookup (dec, e->seq);
    if (slot && slot->state == SLOT_HELD)
      break;
    g_free (g_queue_pop_head (&dec->held));
  }
}

/* Parity whose segment has left the store can repair nothing; kept, it
 * would match packets 65536 sequence numbers later. */
static gboolean
segment_evicted (const TpssFecDecoder * dec, const TpssFecHeader * hdr)
{
  guint16 last = hdr->sn_base + hdr->count - 1;

  return seq_diff (last, dec->tail) < 0;
}

static void
evict_old (TpssFecDecoder * dec, gint64 now)
{
  gint64 horizon = now - keep_time (dec);
  PendingFec *p;

  while (dec->tail != dec->next_out) {
    Slot *slot = slot_lookup (dec, dec->tail);
    guint16 span = dec->head - dec->tail;
    gboolean too_many = span > STORE_SPAN_LIMIT;
    /* A whole segment stays, however slowly it comes: its parity needs it,
     * and so does measuring the segment time. */
    if (slot && (slot->arrival >= horizon || span <= dec->keep_count) &&
        !too_many)
      break;
    if (slot)
      slot_clear (dec, slot);
    dec->tail++;
  }
  while ((p = g_queue_peek_head (&dec->pending)) &&
      (p->arrival < horizon || dec->pending.length > MAX_PENDING_FEC ||
          segment_evicted (dec, &p->hdr)))
    pending_free (g_queue_pop_head (&dec->pending));
}

static void
start_stream (TpssFecDecoder * dec, guint32 ssrc, guint16 seq)
{
  dec->started = TRUE;
  dec->probation = FALSE;
  dec->ssrc = ssrc;
  dec->next_out = dec->tail = dec->head = seq;
  memset (dec->output_bits, 0, 65536 / 8);
}

/* A new stream or a jump: output what is held, then start over at @seq. */
static void
restart (TpssFecDecoder * dec, guint32 ssrc, guint16 seq)
{
  if (dec->started) {
    tpss_fec_decoder_drain (dec);
    forget_all (dec);
    dec->stats.resets++;
  }
  start_stream (dec, ssrc, seq);
}

/* Everything stored lies in [tail, head), so moving each stored slot to its
 * place in a ring twice the size keeps them apart. */
static void
grow_store (TpssFecDecoder * dec)
{
  guint size = (dec->slot_mask + 1) * 2;
  Slot *slots = g_new0 (Slot, size);

  for (guint i = 0; i <= dec->slot_mask; i++)
    if (dec->slots[i].state != SLOT_EMPTY)
      slots[dec->slots[i].seq & (size - 1)] = dec->slots[i];
  g_free (dec->slots);
  dec->slots = slots;
  dec->slot_mask = size - 1;
}

/* Makes the ring hold [tail, head) with @seq in it. */
static void
make_room (TpssFecDecoder * dec, guint16 seq)
{
  guint16 lo = seq_diff (seq, dec->tail) < 0 ? seq : dec->tail;
  guint16 hi = seq_diff (seq, dec->head) >= 0 ? (guint16) (seq + 1) : dec->head;

  while ((guint16) (hi - lo) > dec->slot_mask &&
      dec->slot_mask + 1 < STORE_MAX_SLOTS)
    grow_store (dec);
}

static Slot *
store (TpssFecDecoder * dec, guint16 seq, gpointer handle,
    const guint8 * data, guint8 * owned, gsize len, gint64 now)
{
  Slot *slot;

  make_room (dec, seq);
  slot = slot_at (dec, seq);
  if (slot->state != SLOT_EMPTY)
    slot_clear (dec, slot);     /* a stale one from 65536 ago */
  slot->handle = handle;
  slot->data = owned ? owned : data;
  slot->owned = owned;
  slot->len = len;
  slot->arrival = now;
  slot->seq = seq;

  if (seq_diff (seq, dec->next_out) >= 0) {
    slot->state = SLOT_HELD;
    if (seq_diff (seq, dec->head) >= 0)
      dec->head = seq + 1;
    deliver_in_order (dec);
    if (slot->state == SLOT_HELD) {
      HeldEntry *e = g_new (HeldEntry, 1);
      e->seq = seq;
      e->arrival = now;
      g_queue_push_tail (&dec->held, e);
    }
  } else {
    /* Given up on already: output at once, out of order. */
    if (seq_diff (seq, dec->tail) < 0)
      dec->tail = seq;
    dec->stats.late++;
    output_slot (dec, slot);
  }
  return slot;
}

static gboolean
fec_covers (const TpssFecHeader * hdr, guint16 seq)
{
  guint16 off = seq - hdr->sn_base;

  return off < hdr->count && off % hdr->distance == hdr->index;
}

/* Rebuilds @seq from @hdr and the other packets of its subsegment. */
static void
recover (TpssFecDecoder * dec, const TpssFecHeader * hdr, guint16 seq,
    gint64 now)
{
  guint n = tpss_fec_subsegment_size (hdr->distance, hdr->count, hdr->index);
  guint16 bits = hdr->bits_recovery;
  guint16 length = hdr->length_recovery;
  guint32 ts = hdr->ts_recovery;
  guint8 *pkt;
  gsize rest_len;

  for (guint i = 0; i < n; i++) {
    guint16 s = hdr->sn_base + hdr->index + i * hdr->distance;
    const Slot *slot;
    if (s == seq)
      continue;
    slot = slot_lookup (dec, s);
    bits ^= rtp_protected_bits (slot->data);
    length ^= (guint16) (slot->len - TPSS_RTP_HEADER_SIZE);
    ts ^= read32 (slot->data + 4);
  }

  rest_len = length;
  if (rest_len > hdr->xor_len) {
    dec->stats.malformed++;
    return;
  }
  pkt = g_malloc (TPSS_RTP_HEADER_SIZE + rest_len);
  pkt[0] = (RTP_VERSION << 6) | (bits >> 8);
  pkt[1] = bits & 0xff;
  write16 (pkt + 2, seq);
  write32 (pkt + 4, ts);
  write32 (pkt + 8, hdr->media_ssrc);
  memcpy (pkt + TPSS_RTP_HEADER_SIZE, hdr->xor_data, rest_len);

  for (guint i = 0; i < n; i++) {
    guint16 s = hdr->sn_base + hdr->index + i * hdr->distance;
    const Slot *slot;
    if (s == seq)
      continue;
    slot = slot_lookup (dec, s);
    erasure_xor (pkt + TPSS_RTP_HEADER_SIZE, slot->data + TPSS_RTP_HEADER_SIZE,
        MIN (rest_len, slot->len - TPSS_RTP_HEADER_SIZE));
  }

  if (!tpss_rtp_is_valid (pkt, TPSS_RTP_HEADER_SIZE + rest_len)) {
    g_free (pkt);
    dec->stats.malformed++;
    return;
  }
  dec->stats.recovered++;
  if (seq_diff (seq, dec->next_out) < 0)
    dec->stats.repaired_late++;
  store (dec, seq, NULL, NULL, pkt, TPSS_RTP_HEADER_SIZE + rest_len, now);
}

/* Returns the number of packets @hdr's subsegment still misses, recovering
 * the one missing packet when there is exactly one. A missing packet past
 * the newest media received is left for later (returns 1, @wait_seq set)
 * unless @force. */
static guint
try_recover (TpssFecDecoder * dec, const TpssFecHeader * hdr, gint64 now,
    gboolean force, guint16 * wait_seq)
{
  guint n = tpss_fec_subsegment_size (hdr->distance, hdr->count, hdr->index);
  guint missing = 0;
  guint16 missing_seq = 0;

  for (guint i = 0; i < n; i++) {
    guint16 s = hdr->sn_base + hdr->index + i * hdr->distance;
    if (slot_lookup (dec, s))
      continue;
    if (was_output (dec, s)) {
      /* Output and gone: this parity came too late to repair anything, and
       * must not rebuild what was delivered. */
      dec->stats.fec_late++;
      return 0;
    }
    missing++;
    missing_seq = s;
  }
  if (missing == 1) {
    if (!force && seq_diff (missing_seq, dec->head) >= 0) {
      *wait_seq = missing_seq;
      return 1;
    }
    recover (dec, hdr, missing_seq, now);
    return 0;
  }
  return missing;
}

/* Media @seq arrived (or, with @force, the stream ends): parity waiting for
 * it, or for a packet past its missing one, may repair now. */
static void
retry_pending (TpssFecDecoder * dec, guint16 seq, gint64 now, gboolean force)
{
  for (GList * l = dec->pending.head; l;) {
    PendingFec *p = l->data;
    GList *next = l->next;
    if (force || fec_covers (&p->hdr, seq) ||
        (p->deferred && seq_diff (seq, p->wait_seq) > 0)) {
      guint missing = try_recover (dec, &p->hdr, now, force, &p->wait_seq);
      p->deferred = missing == 1;
      if (missing == 0) {
        g_queue_delete_link (&dec->pending, l);
        pending_free (p);
      }
    }
    l = next;
  }
}

gboolean
tpss_fec_decoder_push_media (TpssFecDecoder * dec, gpointer handle,
    const guint8 * data, gsize len, gint64 now)
{
  RtpHeader h;
  guint16 seq;
  guint32 ssrc;

  if (!rtp_header_parse (data, len, &h)) {
    dec->stats.malformed++;
    return FALSE;
  }
  seq = h.seq;
  ssrc = h.ssrc;
  dec->stats.media_received++;

  if (!dec->started || ssrc != dec->ssrc)
    restart (dec, ssrc, seq);
  if (seq_diff (seq, dec->head) >= AHEAD_LIMIT ||
      seq_diff (seq, dec->next_out) < -LATE_LIMIT) {
    if (!dec->probation || seq != dec->probation_seq) {
      dec->probation = TRUE;
      dec->probation_seq = seq + 1;
      dec->stats.out_of_window++;
      return FALSE;
    }
    restart (dec, ssrc, seq);
  }
  dec->probation = FALSE;
  /* A gap older than the window is given up to make room. */
  while (seq_diff (seq, dec->next_out) >= AHEAD_LIMIT &&
      dec->next_out != dec->head)
    give_up_gap (dec);
  if (slot_lookup (dec, seq) || was_output (dec, seq)) {
    dec->stats.duplicates++;
    return FALSE;
  }

  dec->last_now = now;
  store (dec, seq, handle, data, NULL, len, now);
  retry_pending (dec, seq, now, FALSE);
  evict_old (dec, now);
  prune_held (dec);
  return TRUE;
}

/* Measures how long after the segment's first received packet (within its
 * first row of k; a repaired one has no arrival of its own) this parity
 * came. */
static void
measure_segment_time (TpssFecDecoder * dec, const TpssFecHeader * hdr,
    gint64 now)
{
  guint row = MIN (hdr->distance, hdr->count);

  dec->last_distance = hdr->distance;
  dec->last_length = hdr->length;
  dec->keep_count = MAX (dec->keep_count, hdr->count);
  for (guint i = 0; i < row; i++) {
    const Slot *slot = slot_lookup (dec, hdr->sn_base + i);
    gint64 sample;
    if (!slot || slot->owned)
      continue;
    sample = MAX (now - slot->arrival, 0);
    if (sample >= dec->segment_time)
      dec->segment_time = sample;
    else
      dec->segment_time -= (dec->segment_time - sample) / SEGMENT_TIME_DECAY;
    return;
  }
}

static gboolean
fec_in_window (const TpssFecDecoder * dec, const TpssFecHeader * hdr)
{
  gint first = seq_diff (hdr->sn_base, dec->next_out);
  gint last = first + hdr->count - 1;

  return first < AHEAD_LIMIT && last >= -LATE_LIMIT;
}

gboolean
tpss_fec_decoder_push_fec (TpssFecDecoder * dec, const guint8 * data,
    gsize len, gint64 now)
{
  TpssFecHeader hdr;
  PendingFec *p;
  guint16 wait_seq = 0;
  guint missing;

  if (tpss_fec_header_parse (data, len, &hdr) != TPSS_FEC_OK) {
    dec->stats.malformed++;
    return FALSE;
  }
  dec->stats.fec_received++;
  if (!dec->started || hdr.media_ssrc != dec->ssrc || !fec_in_window (dec,
          &hdr)) {
    dec->stats.foreign++;
    return FALSE;
  }
  if (segment_evicted (dec, &hdr)) {
    dec->stats.fec_late++;
    return TRUE;
  }

  dec->last_now = now;
  measure_segment_time (dec, &hdr, now);
  missing = try_recover (dec, &hdr, now, FALSE, &wait_seq);
  if (missing > 0) {
    p = g_new (PendingFec, 1);
    p->bytes = g_memdup2 (data, len);
    p->hdr = hdr;
    p->hdr.xor_data = p->bytes + TPSS_FEC_HEADER_SIZE;
    p->arrival = now;
    p->deferred = missing == 1;
    p->wait_seq = wait_seq;
    g_queue_push_tail (&dec->pending, p);
  }
  evict_old (dec, now);
  prune_held (dec);
  return TRUE;
}

/* Deferred repairs wait for a later packet at most size-time too. */
static gint64
deferred_deadline (const TpssFecDecoder * dec)
{
  gint64 deadline = -1;

  for (const GList * l = dec->pending.head; l; l = l->next) {
    const PendingFec *p = l->data;
    gint64 t = p->arrival + tpss_fec_decoder_hold_time (dec);
    if (p->deferred && (deadline < 0 || t < deadline))
      deadline = t;
  }
  return deadline;
}

static void
force_deferred (TpssFecDecoder * dec, gint64 now)
{
  for (GList * l = dec->pending.head; l;) {
    PendingFec *p = l->data;
    GList *next = l->next;
    if (p->deferred && p->arrival + tpss_fec_decoder_hold_time (dec) <= now) {
      try_recover (dec, &p->hdr, now, TRUE, &p->wait_seq);
      g_queue_delete_link (&dec->pending, l);
      pending_free (p);
    }
    l = next;
  }
}

gint64
tpss_fec_decoder_next_deadline (const TpssFecDecoder * dec)
{
  const HeldEntry *e = dec->held.head ? dec->held.head->data : NULL;
  gint64 held = e ? e->arrival + tpss_fec_decoder_hold_time (dec) : -1;
  gint64 deferred = deferred_deadline (dec);

  if (held < 0 || (deferred >= 0 && deferred < held))
    return deferred;
  return held;
}

void
tpss_fec_decoder_advance (TpssFecDecoder * dec, gint64 now)
{
  const HeldEntry *e;
  gint64 hold = tpss_fec_decoder_hold_time (dec);

  force_deferred (dec, now);
  prune_held (dec);
  while ((e = g_queue_peek_head (&dec->held)) && e->arrival + hold <= now) {
    give_up_gap (dec);
    prune_held (dec);
  }
  evict_old (dec, now);
}

void
tpss_fec_decoder_drain (TpssFecDecoder * dec)
{
  retry_pending (dec, 0, dec->last_now, TRUE);
  while (dec->started && dec->next_out != dec->head)
    give_up_gap (dec);
  prune_held (dec);
}

void
tpss_fec_decoder_reset (TpssFecDecoder * dec)
{
  TpssFecOutput o;

  while (tpss_fec_decoder_pop (dec, &o))
    g_free (o.data);
  forget_all (dec);
  release_deferred (dec);
  dec->segment_time = -1;
  dec->last_distance = dec->last_length = dec->keep_count = 0;
}

gboolean
tpss_fec_decoder_pop (TpssFecDecoder * dec, TpssFecOutput * out)
{
  if (dec->out_pos == dec->out->len) {
    g_array_set_size (dec->out, 0);
    dec->out_pos = 0;
    release_deferred (dec);
    return FALSE;
  }
  *out = g_array_index (dec->out, TpssFecOutput, dec->out_pos++);
  return TRUE;
}

void
tpss_fec_decoder_free (TpssFecDecoder * dec)
{
  if (!dec)
    return;
  tpss_fec_decoder_reset (dec);
  g_ptr_array_unref (dec->deferred);
  g_array_unref (dec->out);
  g_free (dec->slots);
  g_free (dec->output_bits);
  g_free (dec);
}

void
tpss_fec_decoder_get_stats (const TpssFecDecoder * dec,
    TpssFecDecoderStats * stats)
{
  *stats = dec->stats;
  stats->segment_time = dec->segment_time;
  stats->hold_time = tpss_fec_decoder_hold_time (dec);
  stats->distance = dec->last_distance;
  stats->length = dec->last_length;
}
