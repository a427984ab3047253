/* Residual loss after FEC against raw loss: tpssfecenc/tpssfecdec (ours)
 * and rtpst2022-1-fecenc/fecdec (theirs, columns=k rows=l, row FEC off), next
 * to the analytical value.
 *
 * Both schemes run as elements: encoder -> loss -> decoder, through pads of
 * ours linked straight to the elements. The stream is encoded once per
 * scheme and geometry; for every loss pattern a fresh decoder gets the wire
 * packets that survive, then EOS (tpssfecdec drains what it holds). A media
 * packet counts as delivered if a byte-identical copy of it came out.
 *
 *   1. i.i.d. loss, p = 1..10 %, on every packet on the wire (media and
 *      parity alike). Analytical residual data loss: p (1 - (1-p)^l), as a
 *      lost data packet is repaired iff the l other packets of its
 *      subsegment (l-1 data + 1 parity) all arrived. A 2022-1 column is the
 *      same l data + 1 parity, so the formula holds for theirs too.
 *   2. one burst per segment of b = 1 .. 2k consecutive media packets (parity
 *      not lost), at a seeded random offset inside the segment's data.
 *      Analytical: nothing lost for b <= k; for k < b <= 2k, b-k subsegments
 *      lose two packets each, i.e. 2(b-k) per segment, 2(b-k)/b of the burst.
 *
 * The same loss pattern is applied to both schemes: media by index, parity
 * by emission index (the m-th parity packet protects subsegment/column m % k
 * of segment/matrix m / k in both schemes). rtpst2022-1-fecenc sends a
 * matrix's column FEC interleaved into the next matrix and never sends the
 * last matrix's, so the stream ends with one lossless, uncounted segment.
 *
 * Time is simulated: one media packet every 100 us (10 kpps; --rate), as PTS
 * for theirs (it trims its store by PTS) and as the GstTestClock given to
 * tpssfecdec (it times its store and its hold-back by the element clock; due
 * clock waits are released as the simulated time passes them). Both keep
 * 200 ms.
 *
 * Options: --media N, --payload B, --rate PPS, --seed S.
 */
#include <gst/gst.h>
#include <gst/check/gsttestclock.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <math.h>
#include <stdio.h>

#include "tpssfec.h"
#include "bench-common.h"

static gint opt_media = 100000;
static gint opt_payload = 200;
static gint opt_rate = 10000;
static gint opt_seed = 2024;

typedef struct
{
  guint k, l;
} Geometry;

static const Geometry geometries[] = { {20, 5}, {4, 5} };

/* One scheme's encoded stream for one geometry. */
typedef struct
{
  Scheme scheme;
  guint k, l;
  Wire wire;
  guint n_counted;              /* media packets whose loss is counted */
  guint n_fec_counted;          /* parity packets of the counted segments */
} Encoded;

typedef struct
{
  guint8 *media_lost;           /* [n_counted] */
  guint8 *fec_lost;             /* [n_fec_counted] */
  guint raw_lost;
} Loss;

typedef struct
{
  GMutex lock;
  const guint8 *orig;           /* n_counted packets of pkt_len bytes */
  gsize pkt_len;
  guint n_counted;
  guint8 *delivered;
  guint64 out, corrupt;
} Capture;

typedef struct
{
  guint delivered;
  guint64 corrupt;
  guint64 recovered, unrecoverable, resets, late;       /* ours only */
} Result;

/* ------------------------------------------------------------------ */

static GstFlowReturn
capture_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  Capture *c = gst_pad_get_element_private (pad);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_mutex_lock (&c->lock);
  c->out++;
  if (map.size >= 12) {
    guint32 ts = GST_READ_UINT32_BE (map.data + 4);
    guint16 seq = GST_READ_UINT16_BE (map.data + 2);
    guint32 d = ts - BENCH_TS0;
    guint idx = d / BENCH_TS_STEP;

    if (d % BENCH_TS_STEP == 0 && idx < c->n_counted && (guint16) idx == seq) {
      if (map.size == c->pkt_len &&
          memcmp (map.data, c->orig + (gsize) idx * c->pkt_len,
              c->pkt_len) == 0)
        c->delivered[idx] = 1;
      else
        c->corrupt++;
    } else if (d % BENCH_TS_STEP != 0 || (idx < c->n_counted &&
            (guint16) idx != seq)) {
      c->corrupt++;             /* not a packet of the stream */
    }
  }
  g_mutex_unlock (&c->lock);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

/* Releases the test clock waits the simulated time has passed, and gives
 * tpssfecdec's timer thread the moment to act on each before going on. */
static void
crank_due (GstTestClock * tc)
{
  GstClockID id;

  while ((id = gst_test_clock_process_next_clock_id (tc))) {
    gint64 until = g_get_monotonic_time () + 2000;
    gst_clock_id_unref (id);
    /* The timer re-arms once done, or waits for held packets if none. */
    while (gst_test_clock_peek_id_count (tc) == 0 &&
        g_get_monotonic_time () < until)
      g_thread_yield ();
  }
}

/* Checks that the m-th parity packet protects subsegment m % k of segment
 * m / k, on which the loss patterns rely. */
static void
check_parity_order (const Encoded * e)
{
  for (guint i = 0; i < e->wire.items->len; i++) {
    const WireItem *it = &g_array_index (e->wire.items, WireItem, i);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint16 expect = (guint16) ((it->index / e->k) * e->k * e->l +
        it->index % e->k);
    guint16 base;
    const guint8 *p;

    if (it->kind != WIRE_FEC)
      continue;
    gst_rtp_buffer_map (it->buf, GST_MAP_READ, &rtp);
    p = gst_rtp_buffer_get_payload (&rtp);
    if (e->scheme == SCHEME_OURS) {
      TpssFecHeader hdr;
      if (tpss_fec_header_parse (p, gst_rtp_buffer_get_payload_len (&rtp),
              &hdr) != TPSS_FEC_OK)
        bench_die ("tpssfecenc sent malformed parity");
      base = hdr.sn_base + hdr.index;
    } else {
      base = GST_READ_UINT16_BE (p);    /* SNBase low bits */
    }
    gst_rtp_buffer_unmap (&rtp);
    if (base != expect)
      bench_die ("%s parity %u protects seq %u, expected %u",
          scheme_name[e->scheme], it->index, base, expect);
  }
}

static void
encode (Encoded * e, Scheme s, const Geometry * g, GstBuffer ** media,
    guint n_total, guint n_counted)
{
  e->scheme = s;
  e->k = g->k;
  e->l = g->l;
  e->n_counted = n_counted;
  e->n_fec_counted = n_counted / (g->k * g->l) * g->k;
  bench_encode (s, g->k, g->l, media, n_total, &e->wire);
  if (e->wire.n_fec < e->n_fec_counted)
    bench_die ("%s encoder sent %u parity packets, expected >= %u",
        scheme_name[s], e->wire.n_fec, e->n_fec_counted);
  check_parity_order (e);
}

static Result
decode (const Encoded * e, const Loss * loss, Capture * cap)
{
  Scheme s = e->scheme;
  GstElement *dec = bench_make_decoder (s);
  GstClock *tc = NULL;
  GstPad *dsink, *dsrc, *dfec, *msrc, *fsrc, *osink;
  Result r = { 0 };

  memset (cap->delivered, 0, cap->n_counted);
  cap->out = cap->corrupt = 0;

  if (s == SCHEME_OURS) {
    tc = gst_test_clock_new ();
    gst_element_set_clock (dec, tc);
  }
  bench_set_state (dec, GST_STATE_PAUSED);
  dsink = bench_static_pad (dec, "sink");
  dsrc = bench_static_pad (dec, "src");
  dfec = bench_request_fec_pad (dec);
  osink = bench_sink_pad_new (dsrc, capture_chain, cap);
  msrc = bench_src_pad_new (dsink, BENCH_MEDIA_CAPS, "bench-media");
  fsrc = bench_src_pad_new (dfec, BENCH_FEC_CAPS, "bench-fec");

  for (guint i = 0; i < e->wire.items->len; i++) {
    const WireItem *it = &g_array_index (e->wire.items, WireItem, i);
    gboolean media = it->kind == WIRE_MEDIA;

    if (media && it->index < e->n_counted && loss->media_lost[it->index])
      continue;
    if (!media && it->index < e->n_fec_counted && loss->fec_lost[it->index])
      continue;
    if (tc) {
      GstClockTime t = GST_BUFFER_PTS (it->buf);
      if (t > gst_clock_get_time (tc))
        gst_test_clock_set_time (GST_TEST_CLOCK (tc), t);
      crank_due (GST_TEST_CLOCK (tc));
    }
    gst_pad_push (media ? msrc : fsrc, gst_buffer_ref (it->buf));
  }
  gst_pad_push_event (msrc, gst_event_new_eos ());
  gst_pad_push_event (fsrc, gst_event_new_eos ());
  bench_wait_eos (osink);

  if (s == SCHEME_OURS) {
    GstStructure *st;
    g_object_get (dec, "stats", &st, NULL);
    gst_structure_get (st, "recovered", G_TYPE_UINT64, &r.recovered,
        "unrecoverable", G_TYPE_UINT64, &r.unrecoverable,
        "resets", G_TYPE_UINT64, &r.resets, "late", G_TYPE_UINT64, &r.late,
        NULL);
    gst_structure_free (st);
  }

  bench_pad_free (msrc);
  bench_pad_free (fsrc);
  bench_set_state (dec, GST_STATE_NULL);
  bench_pad_free (osink);
  gst_element_release_request_pad (dec, dfec);
  gst_object_unref (dfec);
  gst_object_unref (dsink);
  gst_object_unref (dsrc);
  gst_object_unref (dec);
  if (tc)
    gst_object_unref (tc);

  for (guint i = 0; i < cap->n_counted; i++)
    r.delivered += cap->delivered[i];
  r.corrupt = cap->corrupt;
  return r;
}

/* ------------------------------------------------------------------ */

static void
loss_init (Loss * loss, guint n_counted, guint n_fec_counted)
{
  loss->media_lost = g_new0 (guint8, n_counted);
  loss->fec_lost = g_new0 (guint8, n_fec_counted);
  loss->raw_lost = 0;
}

static void
loss_clear (Loss * loss)
{
  g_free (loss->media_lost);
  g_free (loss->fec_lost);
}

static gchar *
fmt_pct (gdouble v)
{
  return g_strdup_printf ("%.3f %%", 100 * v);
}

static void
note_result (const Encoded * e, const Result * r, const gchar * what)
{
  if (r->corrupt)
    printf ("  ! %s %s: %" G_GUINT64_FORMAT " corrupt output packets\n",
        scheme_name[e->scheme], what, r->corrupt);
  if (r->resets)
    printf ("  ! ours %s: decoder restarted %" G_GUINT64_FORMAT " times "
        "(sequence jumped past its window)\n", what, r->resets);
}

static void
experiment_random (guint gi, Encoded enc[2], Capture * cap)
{
  const Geometry *g = &geometries[gi];

  printf ("\n### Random loss, k = %u, l = %u (%u media packets counted, "
      "seed %d)\n\n", g->k, g->l, enc[0].n_counted, opt_seed);
  printf ("| p | raw media loss | residual ours | residual theirs | "
      "analytical p(1-(1-p)^l) |\n|---|---|---|---|---|\n");

  for (guint pc = 1; pc <= 10; pc++) {
    gdouble p = pc / 100.0;
    GRand *rand = g_rand_new_with_seed (opt_seed + 1000 * gi + pc);
    Loss loss;
    Result r[2];
    gchar *c[4];

    loss_init (&loss, enc[0].n_counted, enc[0].n_fec_counted);
    for (guint i = 0; i < enc[0].n_counted; i++)
      if (g_rand_double (rand) < p) {
        loss.media_lost[i] = 1;
        loss.raw_lost++;
      }
    for (guint m = 0; m < enc[0].n_fec_counted; m++)
      loss.fec_lost[m] = g_rand_double (rand) < p;
    g_rand_free (rand);

    for (guint s = 0; s < 2; s++) {
      gchar *what = g_strdup_printf ("k=%u l=%u p=%u%%", g->k, g->l, pc);
      r[s] = decode (&enc[s], &loss, cap);
      note_result (&enc[s], &r[s], what);
      g_free (what);
    }
    c[0] = fmt_pct ((gdouble) loss.raw_lost / enc[0].n_counted);
    c[1] = fmt_pct (1.0 - (gdouble) r[0].delivered / enc[0].n_counted);
    c[2] = fmt_pct (1.0 - (gdouble) r[1].delivered / enc[1].n_counted);
    c[3] = fmt_pct (p * (1 - pow (1 - p, g->l)));
    printf ("| %u %% | %s | %s | %s | %s |\n", pc, c[0], c[1], c[2], c[3]);
    fflush (stdout);
    for (guint j = 0; j < 4; j++)
      g_free (c[j]);
    loss_clear (&loss);
  }
}

static void
experiment_burst (guint gi, Encoded enc[2], Capture * cap)
{
  const Geometry *g = &geometries[gi];
  guint seg = g->k * g->l;
  guint n_segs = enc[0].n_counted / seg;

  printf ("\n### One burst of b media packets per segment, k = %u, l = %u "
      "(%u segments counted, seed %d)\n\n", g->k, g->l, n_segs, opt_seed);
  printf ("| b | raw media loss | residual ours | residual theirs | "
      "analytical | of the burst lost (ours / theirs / analytical) |\n"
      "|---|---|---|---|---|---|\n");

  for (guint b = 1; b <= 2 * g->k; b++) {
    GRand *rand = g_rand_new_with_seed (opt_seed + 5000 + 1000 * gi + b);
    Loss loss;
    Result r[2];
    gdouble analytic = b <= g->k ? 0 : 2.0 * (b - g->k) / seg;
    gchar *c[4];

    loss_init (&loss, enc[0].n_counted, enc[0].n_fec_counted);
    for (guint s = 0; s < n_segs; s++) {
      guint off = g_rand_int_range (rand, 0, seg - b + 1);
      for (guint j = 0; j < b; j++)
        loss.media_lost[s * seg + off + j] = 1;
      loss.raw_lost += b;
    }
    g_rand_free (rand);

    for (guint s = 0; s < 2; s++) {
      gchar *what = g_strdup_printf ("k=%u l=%u b=%u", g->k, g->l, b);
      r[s] = decode (&enc[s], &loss, cap);
      note_result (&enc[s], &r[s], what);
      g_free (what);
    }
    c[0] = fmt_pct ((gdouble) loss.raw_lost / enc[0].n_counted);
    c[1] = fmt_pct (1.0 - (gdouble) r[0].delivered / enc[0].n_counted);
    c[2] = fmt_pct (1.0 - (gdouble) r[1].delivered / enc[1].n_counted);
    c[3] = fmt_pct (analytic);
    printf ("| %u | %s | %s | %s | %s | %.3f / %.3f / %.3f |\n", b, c[0],
        c[1], c[2], c[3],
        (gdouble) (enc[0].n_counted - r[0].delivered) / loss.raw_lost,
        (gdouble) (enc[1].n_counted - r[1].delivered) / loss.raw_lost,
        b <= g->k ? 0.0 : 2.0 * (b - g->k) / b);
    fflush (stdout);
    for (guint j = 0; j < 4; j++)
      g_free (c[j]);
    loss_clear (&loss);
  }
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"media", 0, 0, G_OPTION_ARG_INT, &opt_media,
        "Media packets whose loss is counted", "N"},
    {"payload", 0, 0, G_OPTION_ARG_INT, &opt_payload, "Payload bytes", "B"},
    {"rate", 0, 0, G_OPTION_ARG_INT, &opt_rate,
        "Simulated media packet rate (packets/s)", "PPS"},
    {"seed", 0, 0, G_OPTION_ARG_INT, &opt_seed, "PRNG seed", "S"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- TPSS FEC residual loss");
  GError *err = NULL;
  gint64 t0 = bench_now_ns ();
  Capture cap;

  bench_pin_allocator ();
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    bench_die ("%s", err->message);
  g_option_context_free (ctx);
  if (opt_media < 1000 || opt_payload < 1 || opt_rate < 1)
    bench_die ("bad options");

  printf ("TPSS FEC residual loss: tpssfecenc/tpssfecdec (ours) against "
      "rtpst2022-1-fecenc/fecdec (theirs, columns=k rows=l, row FEC off)\n");
  printf ("GStreamer %s; payload %d B; simulated %d media packets/s; "
      "size-time 200 ms for both decoders\n", gst_version_string (),
      opt_payload, opt_rate);

  g_mutex_init (&cap.lock);
  for (guint gi = 0; gi < G_N_ELEMENTS (geometries); gi++) {
    const Geometry *g = &geometries[gi];
    guint seg = g->k * g->l;
    guint n_counted = opt_media - opt_media % seg;
    guint n_total = n_counted + seg;    /* + one lossless segment */
    GstClockTime interval = GST_SECOND / opt_rate;
    GRand *rand = g_rand_new_with_seed (opt_seed);
    GstBuffer **media = g_new (GstBuffer *, n_total);
    gsize pkt_len = TPSS_RTP_HEADER_SIZE + opt_payload;
    guint8 *orig = g_malloc ((gsize) n_counted * pkt_len);
    Encoded enc[2];

    for (guint i = 0; i < n_total; i++) {
      media[i] = bench_make_media (i, opt_payload, interval, rand);
      if (i < n_counted)
        gst_buffer_extract (media[i], 0, orig + (gsize) i * pkt_len, pkt_len);
    }
    g_rand_free (rand);
    for (guint s = 0; s < 2; s++)
      encode (&enc[s], s, g, media, n_total, n_counted);

    cap.orig = orig;
    cap.pkt_len = pkt_len;
    cap.n_counted = n_counted;
    cap.delivered = g_malloc0 (n_counted);

    printf ("\n## k = %u, l = %u: %u parity packets per %u media (ours), %u "
        "(theirs) on the wire\n", g->k, g->l, enc[0].wire.n_fec, n_total,
        enc[1].wire.n_fec);
    experiment_random (gi, enc, &cap);
    experiment_burst (gi, enc, &cap);

    g_free (cap.delivered);
    for (guint s = 0; s < 2; s++)
      wire_clear (&enc[s].wire);
    for (guint i = 0; i < n_total; i++)
      gst_buffer_unref (media[i]);
    g_free (media);
    g_free (orig);
  }
  g_mutex_clear (&cap.lock);

  printf ("\ntotal time %.1f s\n", (bench_now_ns () - t0) / 1e9);
  return 0;
}
