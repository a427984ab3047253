/* Unit tests of the TPSS FEC core, in simulated time. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "tpssfec.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define SSRC 0x11223344u

typedef struct {
  guint8 *data;
  gsize len;
  gboolean parity;              /* data is a FEC payload, not RTP */
} Pkt;

/* A media packet whose shape varies with @seq: payload length, marker, PT,
 * CSRCs, header extension and padding all change, so recovery of every
 * header field is exercised. */
static Pkt
make_media (guint16 seq, guint i)
{
  guint cc = i % 3 == 0 ? i % 4 : 0;
  gboolean ext = i % 5 == 1;
  guint pad = i % 7 == 2 ? 1 + i % 4 : 0;
  gsize payload = (i * 37) % 1400;
  gsize len = 12 + 4 * cc + (ext ? 8 : 0) + payload + pad;
  guint8 *d = g_malloc0 (len);
  gsize off = 12;
  guint32 ts = 90 * i;

  d[0] = 0x80 | (pad ? 0x20 : 0) | (ext ? 0x10 : 0) | cc;
  d[1] = (i % 4 == 3 ? 0x80 : 0) | (96 + i % 2);
  d[2] = seq >> 8;
  d[3] = seq & 0xff;
  d[4] = ts >> 24;
  d[5] = ts >> 16;
  d[6] = ts >> 8;
  d[7] = ts;
  d[8] = SSRC >> 24;
  d[9] = (SSRC >> 16) & 0xff;
  d[10] = (SSRC >> 8) & 0xff;
  d[11] = SSRC & 0xff;
  for (guint c = 0; c < cc; c++, off += 4)
    d[off + 3] = c + 1;
  if (ext) {
    d[off] = 0xbe;
    d[off + 1] = 0xde;
    d[off + 3] = 1;
    d[off + 4] = 0x10 | (i & 0x0f);
    off += 8;
  }
  for (gsize p = 0; p < payload; p++)
    d[off + p] = (guint8) (seq * 31 + p * 7);
  if (pad)
    d[len - 1] = pad;
  g_assert_true (tpss_rtp_is_valid (d, len));
  return (Pkt) {
  d, len, FALSE};
}

static void
pkt_clear (gpointer p)
{
  g_free (((Pkt *) p)->data);
}

static void
collect_parity (TpssFecEncoder * enc, GArray * wire)
{
  const guint8 *payload;
  gsize len;

  while (tpss_fec_encoder_pop (enc, &payload, &len, NULL)) {
    Pkt p = { g_memdup2 (payload, len), len, TRUE };
    g_array_append_val (wire, p);
  }
}

/* Encodes @n media packets from @first_seq; returns what goes on the wire in
 * order (media, then each segment's parity). @media gets the originals. */
static GArray *
encode_stream_flushed (TpssFecEncoder * enc, guint16 first_seq, guint n,
    GArray * media, guint (*flush) (TpssFecEncoder *))
{
  GArray *wire = g_array_new (FALSE, FALSE, sizeof (Pkt));

  g_array_set_clear_func (wire, pkt_clear);
  for (guint i = 0; i < n; i++) {
    Pkt m = make_media (first_seq + i, i);
    Pkt copy = { g_memdup2 (m.data, m.len), m.len, FALSE };
    TpssFecError err;

    g_array_append_val (media, m);
    g_array_append_val (wire, copy);
    tpss_fec_encoder_add (enc, m.data, m.len, &err);
    fail_unless_equals_int (err, TPSS_FEC_OK);
    collect_parity (enc, wire);
  }
  flush (enc);
  collect_parity (enc, wire);
  return wire;
}

static GArray *
encode_stream (TpssFecEncoder * enc, guint16 first_seq, guint n,
    GArray * media)
{
  return encode_stream_flushed (enc, first_seq, n, media,
      tpss_fec_encoder_flush);
}

static void
release_nothing (gpointer handle)
{
}

static TpssFecDecoder *
new_decoder (gint64 size_time)
{
  TpssFecDecoderConfig cfg = { size_time, release_nothing };
  return tpss_fec_decoder_new (&cfg);
}

static guint16
pkt_seq (const guint8 * rtp)
{
  return (rtp[2] << 8) | rtp[3];
}

/* Output collected from a decoder: the bytes of each packet, in order. */
static void
drain_output (TpssFecDecoder * dec, GPtrArray * out)
{
  TpssFecOutput o;

  while (tpss_fec_decoder_pop (dec, &o)) {
    if (o.handle) {
      const Pkt *p = o.handle;
      g_ptr_array_add (out, g_bytes_new (p->data, p->len));
    } else {
      g_ptr_array_add (out, g_bytes_new_take (o.data, o.len));
    }
  }
}

/* Sends @wire through a decoder, one packet a millisecond, dropping those
 * whose index @lost marks; returns the output after the hold time ran out. */
static GPtrArray *
decode_wire (GArray * wire, const gboolean * lost, TpssFecDecoderStats * st)
{
  TpssFecDecoder *dec = new_decoder (1000 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  gint64 now = 0;

  for (guint i = 0; i < wire->len; i++, now += MS) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    tpss_fec_decoder_advance (dec, now);
    if (lost && lost[i])
      continue;
    if (p->parity)
      tpss_fec_decoder_push_fec (dec, p->data, p->len, now);
    else
      fail_unless (tpss_fec_decoder_push_media (dec, p, p->data, p->len,
              now));
    drain_output (dec, out);
  }
  tpss_fec_decoder_advance (dec, now + 2000 * MS);
  drain_output (dec, out);
  tpss_fec_decoder_get_stats (dec, st);
  tpss_fec_decoder_free (dec);
  return out;
}

/* Every media packet not in @expect_missing arrives once, in order, equal
 * to the original byte for byte. */
static void
assert_output (GPtrArray * out, GArray * media, const gboolean * missing)
{
  guint o = 0;

  for (guint i = 0; i < media->len; i++) {
    Pkt *m = &g_array_index (media, Pkt, i);
    GBytes *b;
    if (missing && missing[i])
      continue;
    fail_unless (o < out->len, "output ends before media packet %u", i);
    b = g_ptr_array_index (out, o++);
    fail_unless_equals_int (pkt_seq (g_bytes_get_data (b, NULL)),
        pkt_seq (m->data));
    fail_unless_equals_int (g_bytes_get_size (b), m->len);
    fail_unless (memcmp (g_bytes_get_data (b, NULL), m->data, m->len) == 0,
        "packet %u differs from the original", i);
  }
  fail_unless_equals_int (o, out->len);
}

/* Index on the wire of media packet @i. */
static guint
wire_index_of_media (GArray * wire, guint i)
{
  for (guint w = 0, m = 0; w < wire->len; w++) {
    if (g_array_index (wire, Pkt, w).parity)
      continue;
    if (m++ == i)
      return w;
  }
  g_assert_not_reached ();
}

GST_START_TEST (test_header_roundtrip)
{
  TpssFecHeader in = { 3, 20, 5, 65530, 100, SSRC, 0x3fff, 1400, 0xdeadbeef },
      out;
  guint8 buf[TPSS_FEC_HEADER_SIZE + 4] = { 0 };

  tpss_fec_header_write (&in, buf);
  fail_unless_equals_int (tpss_fec_header_parse (buf, sizeof (buf), &out),
      TPSS_FEC_OK);
  fail_unless_equals_int (out.index, 3);
  fail_unless_equals_int (out.distance, 20);
  fail_unless_equals_int (out.length, 5);
  fail_unless_equals_int (out.sn_base, 65530);
  fail_unless_equals_int (out.count, 100);
  fail_unless_equals_int (out.media_ssrc, SSRC);
  fail_unless_equals_int (out.bits_recovery, 0x3fff);
  fail_unless_equals_int (out.length_recovery, 1400);
  fail_unless_equals_int (out.ts_recovery, 0xdeadbeef);
  fail_unless_equals_int (out.xor_len, 4);

  fail_unless_equals_int (tpss_fec_header_parse (buf, 19, &out),
      TPSS_FEC_ERR_TRUNCATED);
  buf[0] = 0x80;
  fail_unless_equals_int (tpss_fec_header_parse (buf, sizeof (buf), &out),
      TPSS_FEC_ERR_VERSION);
  buf[0] = 0x40;
  buf[1] = 20;                  /* index == k */
  fail_unless_equals_int (tpss_fec_header_parse (buf, sizeof (buf), &out),
      TPSS_FEC_ERR_GEOMETRY);
  buf[1] = 3;
  buf[6] = 0x01;                /* count 356 > k*l = 100 */
  fail_unless_equals_int (tpss_fec_header_parse (buf, sizeof (buf), &out),
      TPSS_FEC_ERR_GEOMETRY);
}

GST_END_TEST;

GST_START_TEST (test_parity_layout)
{
  /* k=4, l=3: a segment of 12 data packets, then 4 parity packets. */
  TpssFecEncoder *enc = tpss_fec_encoder_new (4, 3);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 1000, 24, media);
  fail_unless_equals_int (wire->len, 24 + 8);
  for (guint w = 0; w < wire->len; w++) {
    gboolean parity = (w % 16) >= 12;
    Pkt *p = &g_array_index (wire, Pkt, w);
    fail_unless_equals_int (p->parity, parity);
    if (parity) {
      TpssFecHeader h;
      fail_unless_equals_int (tpss_fec_header_parse (p->data, p->len, &h),
          TPSS_FEC_OK);
      fail_unless_equals_int (h.index, (w % 16) - 12);
      fail_unless_equals_int (h.distance, 4);
      fail_unless_equals_int (h.length, 3);
      fail_unless_equals_int (h.count, 12);
      fail_unless_equals_int (h.sn_base, 1000 + (w / 16) * 12);
      fail_unless_equals_int (h.media_ssrc, SSRC);
    }
  }
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* Every burst of length 1..k at every offset of a segment is repaired. */
GST_START_TEST (test_every_burst_recovered)
{
  for (guint k = 1; k <= 8; k++) {
    for (guint l = 1; l <= 4; l++) {
      guint n = k * l;
      TpssFecEncoder *enc = tpss_fec_encoder_new (k, l);
      GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
      GArray *wire;

      g_array_set_clear_func (media, pkt_clear);
      /* Three segments; the burst hits the middle one. */
      wire = encode_stream (enc, 40000, 3 * n, media);
      for (guint b = 1; b <= k; b++) {
        for (guint off = 0; off + b <= n; off++) {
          gboolean *lost = g_new0 (gboolean, wire->len);
          TpssFecDecoderStats st;
          GPtrArray *out;

          for (guint i = 0; i < b; i++)
            lost[wire_index_of_media (wire, n + off + i)] = TRUE;
          out = decode_wire (wire, lost, &st);
          assert_output (out, media, NULL);
          fail_unless_equals_int (st.recovered, b);
          fail_unless_equals_int (st.unrecoverable, 0);
          fail_unless_equals_int (st.malformed, 0);
          g_ptr_array_unref (out);
          g_free (lost);
        }
      }
      g_array_unref (wire);
      g_array_unref (media);
      tpss_fec_encoder_free (enc);
    }
  }
}

GST_END_TEST;

/* Any pattern with at most one loss per subsegment is repaired: every
 * choice of one victim per subsegment, paper geometry k=20, l=5. */
GST_START_TEST (test_one_loss_per_subsegment)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (20, 5);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  GRand *rand = g_rand_new_with_seed (7);

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 100, 200, media);
  for (guint round = 0; round < 200; round++) {
    gboolean *lost = g_new0 (gboolean, wire->len);
    TpssFecDecoderStats st;
    GPtrArray *out;
    guint victims = 0;

    for (guint seg = 0; seg < 2; seg++)
      for (guint j = 0; j < 20; j++)
        if (g_rand_boolean (rand)) {
          /* The decoder's stream starts at the first packet it gets. */
          guint i = seg * 100 + j + 20 * g_rand_int_range (rand,
              seg == 0 && j == 0 ? 1 : 0, 5);
          lost[wire_index_of_media (wire, i)] = TRUE;
          victims++;
        }
    out = decode_wire (wire, lost, &st);
    assert_output (out, media, NULL);
    fail_unless_equals_int (st.recovered, victims);
    fail_unless_equals_int (st.unrecoverable, 0);
    g_ptr_array_unref (out);
    g_free (lost);
  }
  g_rand_free (rand);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* A segment closed early keeps its overhead: n packets at k = 20, l = 5
 * get ceil (n / 5) parity packets or a few more (the distance a divisor of
 * 20), not one each, and one loss in each folded subsegment is still
 * repaired, byte for byte. */
GST_START_TEST (test_flush_folded)
{
  static const guint n_media[] = { 3, 7, 23, 60 };
  static const guint distance[] = { 1, 2, 5, 20 };
  GRand *rand = g_rand_new_with_seed (11);

  for (guint c = 0; c < G_N_ELEMENTS (n_media); c++) {
    TpssFecEncoder *enc = tpss_fec_encoder_new (20, 5);
    GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
    GArray *wire;
    guint n = n_media[c], d = distance[c], parity = 0;

    g_array_set_clear_func (media, pkt_clear);
    wire = encode_stream_flushed (enc, 500, n, media,
        tpss_fec_encoder_flush_folded);
    for (guint w = 0; w < wire->len; w++) {
      Pkt *p = &g_array_index (wire, Pkt, w);
      TpssFecHeader hdr;
      if (!p->parity)
        continue;
      fail_unless_equals_int (tpss_fec_header_parse (p->data, p->len, &hdr),
          TPSS_FEC_OK);
      fail_unless_equals_int (hdr.distance, d);
      fail_unless_equals_int (hdr.count, n);
      parity++;
    }
    fail_unless_equals_int (parity, MIN (d, n));
    for (guint round = 0; round < 20; round++) {
      gboolean *lost = g_new0 (gboolean, wire->len);
      TpssFecDecoderStats st;
      GPtrArray *out;
      guint victims = 0;

      for (guint j = 0; j < MIN (d, n); j++) {
        guint rows = (n - j + d - 1) / d;
        /* (the decoder's stream starts at the first packet it gets) */
        guint i = j + d * g_rand_int_range (rand, j == 0 ? 1 : 0, rows);
        if (i >= n || (j == 0 && rows < 2))
          continue;
        lost[wire_index_of_media (wire, i)] = TRUE;
        victims++;
      }
      out = decode_wire (wire, lost, &st);
      assert_output (out, media, NULL);
      fail_unless_equals_int (st.recovered, victims);
      g_ptr_array_unref (out);
      g_free (lost);
    }
    g_array_unref (wire);
    g_array_unref (media);
    tpss_fec_encoder_free (enc);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* A discarded segment gives no parity, and the packets added after it, from
 * the first discarded one's sequence number on, open a segment of their
 * own whose parity covers them alone. */
GST_START_TEST (test_discard_open_segment)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (2, 3);
  GArray *wire = g_array_new (FALSE, FALSE, sizeof (Pkt));
  TpssFecHeader hdr;

  g_array_set_clear_func (wire, pkt_clear);
  for (guint i = 0; i < 4; i++) {
    Pkt p = make_media (100 + i, i);
    fail_unless_equals_int (tpss_fec_encoder_add (enc, p.data, p.len, NULL),
        0);
    pkt_clear (&p);
  }
  tpss_fec_encoder_discard (enc);
  fail_unless_equals_int (tpss_fec_encoder_pending (enc), 0);
  fail_unless_equals_int (tpss_fec_encoder_flush (enc), 0);
  /* 102 and 103 again, other packets under the same numbers */
  for (guint i = 0; i < 2; i++) {
    Pkt p = make_media (102 + i, 10 + i);
    tpss_fec_encoder_add (enc, p.data, p.len, NULL);
    pkt_clear (&p);
  }
  fail_unless_equals_int (tpss_fec_encoder_pending (enc), 2);
  fail_unless_equals_int (tpss_fec_encoder_flush (enc), 2);
  collect_parity (enc, wire);
  fail_unless_equals_int (wire->len, 2);
  for (guint j = 0; j < 2; j++) {
    Pkt *p = &g_array_index (wire, Pkt, j);
    fail_unless_equals_int (tpss_fec_header_parse (p->data, p->len, &hdr),
        TPSS_FEC_OK);
    fail_unless_equals_int (hdr.sn_base, 102);
    fail_unless_equals_int (hdr.count, 2);
  }
  g_array_unref (wire);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* A packet handed over in pieces gives the same parity as in one piece,
 * wherever it is cut (inside the header too). */
GST_START_TEST (test_chunked_input)
{
  for (guint cut1 = 0; cut1 < 40; cut1 += 3) {
    TpssFecEncoder *whole = tpss_fec_encoder_new (3, 2);
    TpssFecEncoder *parts = tpss_fec_encoder_new (3, 2);

    for (guint i = 0; i < 6; i++) {
      Pkt m = make_media (700 + i, i + cut1);
      gsize c1 = MIN (cut1, m.len), c2 = MIN (c1 + 17, m.len);
      TpssFecChunk ch[3] = { {m.data, c1}, {m.data + c1, c2 - c1},
      {m.data + c2, m.len - c2}
      };
      TpssFecError err;
      guint a = tpss_fec_encoder_add (whole, m.data, m.len, NULL);
      guint b = tpss_fec_encoder_addv (parts, ch, 3, &err);
      const guint8 *pa, *pb;
      gsize la, lb;

      fail_unless_equals_int (err, TPSS_FEC_OK);
      fail_unless_equals_int (a, b);
      while (tpss_fec_encoder_pop (whole, &pa, &la, NULL)) {
        fail_unless (tpss_fec_encoder_pop (parts, &pb, &lb, NULL));
        fail_unless_equals_int (la, lb);
        fail_unless (memcmp (pa, pb, la) == 0);
      }
      pkt_clear (&m);
    }
    tpss_fec_encoder_free (whole);
    tpss_fec_encoder_free (parts);
  }
}

GST_END_TEST;

/* Two losses in one subsegment: both reported unrecoverable, nothing
 * mis-repaired, the rest of the segment still repaired. */
GST_START_TEST (test_two_losses_in_subsegment)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (4, 3);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  gboolean *lost, missing[24] = { 0 };
  TpssFecDecoderStats st;
  GPtrArray *out;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 65000, 24, media);
  lost = g_new0 (gboolean, wire->len);
  /* Subsegment 1 of segment 0 loses packets 1 and 5; subsegment 2 loses 2. */
  lost[wire_index_of_media (wire, 1)] = missing[1] = TRUE;
  lost[wire_index_of_media (wire, 5)] = missing[5] = TRUE;
  lost[wire_index_of_media (wire, 2)] = TRUE;
  out = decode_wire (wire, lost, &st);
  assert_output (out, media, missing);
  fail_unless_equals_int (st.recovered, 1);
  fail_unless_equals_int (st.unrecoverable, 2);
  fail_unless_equals_int (st.malformed, 0);
  g_ptr_array_unref (out);
  g_free (lost);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* k and l change between segments; the decoder follows from the headers. */
GST_START_TEST (test_params_change_midstream)
{
  static const guint geo[][2] = { {4, 3}, {1, 1}, {10, 2}, {3, 7}, {4, 3} };
  TpssFecEncoder *enc = tpss_fec_encoder_new (geo[0][0], geo[0][1]);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *burst_at = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean *lost;
  guint16 seq = 65500;          /* wraps inside the stream */
  guint i = 0;
  TpssFecDecoderStats st;
  GPtrArray *out;

  g_array_set_clear_func (media, pkt_clear);
  g_array_set_clear_func (wire, pkt_clear);
  for (guint g = 0; g < G_N_ELEMENTS (geo); g++) {
    guint k = geo[g][0], n = k * geo[g][1];
    fail_unless (tpss_fec_encoder_set_params (enc, k, geo[g][1]));
    for (guint s = 0; s < 2; s++) {
      g_array_append_val (burst_at, i);
      for (guint p = 0; p < n; p++, i++, seq++) {
        Pkt m = make_media (seq, i), c = { g_memdup2 (m.data, m.len), m.len };
        g_array_append_val (media, m);
        g_array_append_val (wire, c);
        tpss_fec_encoder_add (enc, m.data, m.len, NULL);
        collect_parity (enc, wire);
      }
    }
  }
  /* In every segment, a burst of k losses at its start (one packet in for
   * the first, which starts the decoder's stream). */
  lost = g_new0 (gboolean, wire->len);
  for (guint b = 0; b < burst_at->len; b++) {
    guint k = geo[b / 2][0], first = g_array_index (burst_at, guint, b);
    for (guint x = 0; x < k; x++)
      lost[wire_index_of_media (wire, first + x + (b == 0))] = TRUE;
  }
  out = decode_wire (wire, lost, &st);
  assert_output (out, media, NULL);
  fail_unless_equals_int (st.unrecoverable, 0);
  fail_unless_equals_int (st.recovered, 2 * (4 + 1 + 10 + 3 + 4));
  g_ptr_array_unref (out);
  g_free (lost);
  g_array_unref (burst_at);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* A gap holds later packets for exactly size-time, then is given up; a
 * stream without loss is never held. */
GST_START_TEST (test_hold_bound)
{
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  Pkt p[6];
  TpssFecDecoderStats st;

  for (guint i = 0; i < 6; i++)
    p[i] = make_media (7 + i, i);

  tpss_fec_decoder_push_media (dec, &p[0], p[0].data, p[0].len, 0);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 1);
  fail_unless_equals_int (tpss_fec_decoder_next_deadline (dec), -1);

  /* p[1] is lost: p[2] at 10 ms and p[3] at 20 ms wait. */
  tpss_fec_decoder_push_media (dec, &p[2], p[2].data, p[2].len, 10 * MS);
  tpss_fec_decoder_push_media (dec, &p[3], p[3].data, p[3].len, 20 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 1);
  fail_unless_equals_int (tpss_fec_decoder_next_deadline (dec), 60 * MS);

  tpss_fec_decoder_advance (dec, 60 * MS - 1);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 1);
  tpss_fec_decoder_advance (dec, 60 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 3);
  fail_unless_equals_int (tpss_fec_decoder_next_deadline (dec), -1);

  /* The lost one turns up late: pushed at once, counted. */
  tpss_fec_decoder_push_media (dec, &p[1], p[1].data, p[1].len, 70 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 4);
  /* In-order packets pass straight through. */
  tpss_fec_decoder_push_media (dec, &p[4], p[4].data, p[4].len, 71 * MS);
  tpss_fec_decoder_push_media (dec, &p[4], p[4].data, p[4].len, 72 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 5);

  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.unrecoverable, 1);
  fail_unless_equals_int (st.late, 1);
  fail_unless_equals_int (st.duplicates, 1);
  fail_unless_equals_int (st.media_received, 6);

  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  for (guint i = 0; i < 6; i++)
    pkt_clear (&p[i]);
}

GST_END_TEST;

/* Malformed, foreign and forged parity is counted and changes nothing. */
GST_START_TEST (test_bad_parity)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (2, 2);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  TpssFecDecoderStats st;
  guint8 *bad;
  Pkt *par;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 10, 4, media);
  par = &g_array_index (wire, Pkt, 4);
  fail_unless (par->parity);

  /* Packet 1 lost; 0, 2, 3 arrive; wire[5] is the parity of {1, 3}. */
  par = &g_array_index (wire, Pkt, 5);
  for (guint i = 0; i < 4; i++) {
    Pkt *m = &g_array_index (wire, Pkt, i);
    if (i != 1)
      tpss_fec_decoder_push_media (dec, m, m->data, m->len, i * MS);
  }
  bad = g_memdup2 (par->data, par->len);
  fail_if (tpss_fec_decoder_push_fec (dec, bad, 10, 5 * MS));   /* truncated */
  bad[0] = 0xff;
  fail_if (tpss_fec_decoder_push_fec (dec, bad, par->len, 5 * MS));
  memcpy (bad, par->data, par->len);
  bad[8] ^= 1;                  /* another SSRC */
  fail_if (tpss_fec_decoder_push_fec (dec, bad, par->len, 5 * MS));
  memcpy (bad, par->data, par->len);
  bad[14] = 0xff;               /* length recovery past the payload: forged */
  bad[15] = 0xff;
  tpss_fec_decoder_push_fec (dec, bad, par->len, 5 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 1);

  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.malformed, 3);
  fail_unless_equals_int (st.foreign, 1);
  fail_unless_equals_int (st.recovered, 0);

  /* The genuine parity still repairs packet 1. */
  tpss_fec_decoder_push_fec (dec, par->data, par->len, 6 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 4);
  assert_output (out, media, NULL);

  g_free (bad);
  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* Parity that overtakes the last media of its segment (another socket)
 * does not "repair" a packet still on its way; if nothing follows, the
 * repair happens when the hold time runs out. */
GST_START_TEST (test_parity_overtakes_media)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (2, 2);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  TpssFecDecoderStats st;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 10, 4, media);     /* m0 m1 m2 m3 p0 p1 */

  for (guint lose_last = 0; lose_last < 2; lose_last++) {
    TpssFecDecoder *dec = new_decoder (50 * MS);
    GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    static const guint order[] = { 0, 1, 2, 4, 5, 3 };

    for (guint i = 0; i < G_N_ELEMENTS (order); i++) {
      Pkt *p = &g_array_index (wire, Pkt, order[i]);
      if (order[i] == 3 && lose_last)
        continue;
      if (p->parity)
        tpss_fec_decoder_push_fec (dec, p->data, p->len, i * MS);
      else
        tpss_fec_decoder_push_media (dec, p, p->data, p->len, i * MS);
    }
    drain_output (dec, out);
    fail_unless_equals_int (out->len, 3 + !lose_last);
    if (lose_last) {
      /* p1 came at 4 ms, 4 ms after the segment's first packet: the
       * repair waits that segment time + 1/4 + 5 ms (10 ms, within the
       * 50 ms bound), until 14 ms. */
      fail_unless_equals_int (tpss_fec_decoder_next_deadline (dec), 14 * MS);
      tpss_fec_decoder_advance (dec, 14 * MS);
      drain_output (dec, out);
    }
    assert_output (out, media, NULL);
    tpss_fec_decoder_get_stats (dec, &st);
    fail_unless_equals_int (st.recovered, lose_last);
    fail_unless_equals_int (st.duplicates, 0);
    g_ptr_array_unref (out);
    tpss_fec_decoder_free (dec);
  }
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* Malformed media is refused; one packet far off the stream is dropped, two
 * in a row start a new stream (RFC 3550's probation). */
GST_START_TEST (test_media_edge_cases)
{
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  Pkt a = make_media (100, 1), b = make_media (101, 2),
      far = make_media (30000, 3), far2 = make_media (30001, 4);
  guint8 junk[11] = { 0x80 };
  TpssFecDecoderStats st;

  fail_if (tpss_fec_decoder_push_media (dec, junk, junk, sizeof (junk), 0));
  tpss_fec_decoder_push_media (dec, &a, a.data, a.len, 0);
  fail_if (tpss_fec_decoder_push_media (dec, &far, far.data, far.len, MS));
  tpss_fec_decoder_push_media (dec, &b, b.data, b.len, 2 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 2);
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.malformed, 1);
  fail_unless_equals_int (st.out_of_window, 1);
  fail_unless_equals_int (st.resets, 0);

  fail_if (tpss_fec_decoder_push_media (dec, &far, far.data, far.len, 3 * MS));
  fail_unless (tpss_fec_decoder_push_media (dec, &far2, far2.data, far2.len,
          4 * MS));
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 3);
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.resets, 1);

  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  pkt_clear (&a);
  pkt_clear (&b);
  pkt_clear (&far);
  pkt_clear (&far2);
}

GST_END_TEST;

/* A gap held at high packet rates neither restarts the decoder nor makes
 * packets 65536 apart look like duplicates (the store spans at most the
 * window). */
GST_START_TEST (test_high_rate_long_hold)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (20, 5);
  TpssFecDecoderConfig cfg = { 1000 * MS, g_free };
  TpssFecDecoder *dec = tpss_fec_decoder_new (&cfg);
  TpssFecDecoderStats st;
  TpssFecOutput o;
  const guint n = 100000;       /* > 65536 stored, gaps held > 16384 */
  guint lost = 0, delivered = 0;

  /* 400 000 packets/s: 1 s of store is 400 000 packets, far past the
   * sequence space. Two losses in one subsegment every 10 000 packets. */
  for (guint i = 0; i < n; i++) {
    Pkt m = make_media (i, i % 50);
    const guint8 *payload;
    gsize plen;
    gint64 now = (gint64) i * 2500;
    gboolean drop = i % 10000 == 5 || i % 10000 == 25;

    tpss_fec_encoder_add (enc, m.data, m.len, NULL);
    if (drop) {
      lost++;
    } else {
      guint8 *copy = g_memdup2 (m.data, m.len);
      tpss_fec_decoder_push_media (dec, copy, copy, m.len, now);
    }
    while (tpss_fec_encoder_pop (enc, &payload, &plen, NULL))
      tpss_fec_decoder_push_fec (dec, payload, plen, now);
    tpss_fec_decoder_advance (dec, now);
    while (tpss_fec_decoder_pop (dec, &o)) {
      g_free (o.data);
      delivered++;
    }
    pkt_clear (&m);
  }
  tpss_fec_decoder_drain (dec);
  while (tpss_fec_decoder_pop (dec, &o)) {
    g_free (o.data);
    delivered++;
  }
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.resets, 0);
  fail_unless_equals_int (st.duplicates, 0);
  fail_unless_equals_int (st.recovered, 0);
  fail_unless (st.unrecoverable <= lost);
  fail_unless_equals_int (st.media_received, n - lost);
  fail_unless_equals_int (delivered, n - lost);
  tpss_fec_decoder_free (dec);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* Issue 13: a packet output and then evicted from the store looked missing,
 * and parity arriving later rebuilt and output it a second time, counted as
 * a recovery. Every sequence number leaves the decoder at most once; parity
 * that comes after its packets left is counted as late. */
GST_START_TEST (test_late_parity_after_eviction)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (4, 5);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  TpssFecDecoderStats st;
  guint n_parity = 0;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 65530, 20, media); /* 20 media, 4 parity */

  for (guint i = 0; i < wire->len; i++) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    if (!p->parity)
      fail_unless (tpss_fec_decoder_push_media (dec, p, p->data, p->len,
              i * MS));
  }
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 20);
  tpss_fec_decoder_advance (dec, 200 * MS);
  drain_output (dec, out);

  /* The parity comes long after size-time (50 ms). */
  for (guint i = 0; i < wire->len; i++) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    if (p->parity) {
      tpss_fec_decoder_push_fec (dec, p->data, p->len, 300 * MS);
      n_parity++;
    }
  }
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 20);
  /* So does a copy of the first media packet. */
  {
    Pkt *p = &g_array_index (wire, Pkt, 0);
    fail_if (tpss_fec_decoder_push_media (dec, p, p->data, p->len,
            301 * MS));
  }
  tpss_fec_decoder_advance (dec, 1000 * MS);
  drain_output (dec, out);
  tpss_fec_decoder_drain (dec);
  drain_output (dec, out);

  assert_output (out, media, NULL);
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (n_parity, 4);
  fail_unless_equals_int (st.recovered, 0);
  fail_unless_equals_int (st.repaired_late, 0);
  fail_unless_equals_int (st.late, 0);
  fail_unless_equals_int (st.fec_late, 4);
  fail_unless_equals_int (st.duplicates, 1);

  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* A gap given up (not output) can still be repaired late by parity whose
 * other packets are still stored, and only once. */
GST_START_TEST (test_late_repair_only_once)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (2, 2);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  TpssFecDecoderStats st;
  Pkt *p1;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 100, 4, media);    /* m0 m1 m2 m3 p0 p1 */
  p1 = &g_array_index (wire, Pkt, 5);
  fail_unless (p1->parity);

  /* m1 lost; m0 m2 m3 come, the gap is given up at 52 ms (m2 waited
   * size-time); m2 and m3 are still stored. */
  for (guint i = 0; i < 4; i++) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    if (i != 1)
      tpss_fec_decoder_push_media (dec, p, p->data, p->len, i * MS);
  }
  tpss_fec_decoder_advance (dec, 52 * MS);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 3);
  /* p1 (m1 ^ m3) comes late, twice: m1 is repaired once. */
  for (guint r = 0; r < 2; r++) {
    tpss_fec_decoder_push_fec (dec, p1->data, p1->len, 52 * MS);
    drain_output (dec, out);
  }
  fail_unless_equals_int (out->len, 4);
  /* Nor later (the whole segment stays stored: it is no bigger than one). */
  tpss_fec_decoder_advance (dec, 500 * MS);
  tpss_fec_decoder_push_fec (dec, p1->data, p1->len, 500 * MS);
  tpss_fec_decoder_drain (dec);
  drain_output (dec, out);
  fail_unless_equals_int (out->len, 4);
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.recovered, 1);
  fail_unless_equals_int (st.repaired_late, 1);
  fail_unless_equals_int (st.unrecoverable, 1);
  fail_unless_equals_int (st.duplicates, 0);

  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* The same when only the oldest packets of a segment left the store: parity
 * over one of them and packets still stored must not rebuild it. */
GST_START_TEST (test_late_parity_partly_evicted)
{
  TpssFecEncoder *enc = tpss_fec_encoder_new (4, 5);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  GArray *wire;
  TpssFecDecoder *dec = new_decoder (50 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  TpssFecDecoderStats st;
  guint m = 0;

  g_array_set_clear_func (media, pkt_clear);
  wire = encode_stream (enc, 7, 20, media);

  /* Media every 3 ms (0 .. 57 ms), parity at 60 ms: the packets older than
   * 10 ms (seq 7, 8, 9, 10) have left the store. */
  for (guint i = 0; i < wire->len; i++) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    if (!p->parity) {
      tpss_fec_decoder_push_media (dec, p, p->data, p->len, m * 3 * MS);
      m++;
    }
  }
  tpss_fec_decoder_advance (dec, 60 * MS);
  for (guint i = 0; i < wire->len; i++) {
    Pkt *p = &g_array_index (wire, Pkt, i);
    if (p->parity)
      tpss_fec_decoder_push_fec (dec, p->data, p->len, 60 * MS);
  }
  tpss_fec_decoder_drain (dec);
  drain_output (dec, out);
  assert_output (out, media, NULL);
  tpss_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.recovered, 0);
  fail_unless_equals_int (st.fec_late, 4);

  g_ptr_array_unref (out);
  tpss_fec_decoder_free (dec);
  g_array_unref (wire);
  g_array_unref (media);
  tpss_fec_encoder_free (enc);
}

GST_END_TEST;

/* The store starts small and grows while a gap holds thousands of packets;
 * the late packet then releases them all, in order and intact. */
GST_START_TEST (test_store_grows_while_gap_held)
{
  TpssFecDecoder *dec = new_decoder (10000 * MS);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GArray *media = g_array_new (FALSE, FALSE, sizeof (Pkt));
  const guint n = 5000;
  gint64 now = 0;

  g_array_set_clear_func (media, pkt_clear);
  for (guint i = 0; i < n; i++) {
    Pkt m = make_media (65000 + i, i);  /* across the wrap too */
    g_array_append_val (media, m);
  }
  for (guint i = 0; i < n; i++, now += MS) {
    Pkt *m = &g_array_index (media, Pkt, i);
    if (i == 1)
      continue;
    fail_unless (tpss_fec_decoder_push_media (dec, m, m->data, m->len, now));
    drain_output (dec, out);
  }
  fail_unless_equals_int (out->len, 1);
  {
    Pkt *late = &g_array_index (media, Pkt, 1);
    fail_unless (tpss_fec_decoder_push_media (dec, late, late->data,
            late->len, now));
  }
  drain_output (dec, out);
  assert_output (out, media, NULL);
  tpss_fec_decoder_free (dec);
  g_ptr_array_unref (out);
  g_array_unref (media);
}

GST_END_TEST;

static Suite *
tpssfec_suite (void)
{
  Suite *s = suite_create ("tpssfec-core");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_header_roundtrip);
  tcase_add_test (tc, test_parity_layout);
  tcase_add_test (tc, test_chunked_input);
  tcase_add_test (tc, test_every_burst_recovered);
  tcase_add_test (tc, test_one_loss_per_subsegment);
  tcase_add_test (tc, test_flush_folded);
  tcase_add_test (tc, test_discard_open_segment);
  tcase_add_test (tc, test_two_losses_in_subsegment);
  tcase_add_test (tc, test_params_change_midstream);
  tcase_add_test (tc, test_hold_bound);
  tcase_add_test (tc, test_parity_overtakes_media);
  tcase_add_test (tc, test_bad_parity);
  tcase_add_test (tc, test_media_edge_cases);
  tcase_add_test (tc, test_high_rate_long_hold);
  tcase_add_test (tc, test_late_parity_after_eviction);
  tcase_add_test (tc, test_late_repair_only_once);
  tcase_add_test (tc, test_late_parity_partly_evicted);
  tcase_add_test (tc, test_store_grows_while_gap_held);
  return s;
}

GST_CHECK_MAIN (tpssfec);
