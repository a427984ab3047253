/* Packet rate of the TPSS FEC elements against rtpst2022-1-fec{enc,dec}.
 *
 * For payload sizes 200, 1200 and 8000 bytes and geometries k (columns) in
 * {4, 10, 20} x l (rows) in {5, 10} (theirs: columns=k rows=l, row FEC off,
 * so both send k parity packets per k*l media packets), measures media
 * packets per second
 *
 *   - through the encoder: a pre-built stream pushed with gst_pad_push from a
 *     pad of ours straight into the element's sink pad; its src and fec pads
 *     are linked to pads of ours whose chain function only unrefs. Twice:
 *     with the packets as gst_rtp_buffer_new_allocate() and most payloaders
 *     make them (a header memory and a payload memory), and with the same
 *     packets in one memory;
 *   - through the decoder: the stream pre-encoded by the matching encoder,
 *     with one media packet dropped per segment (the same indexes for both
 *     schemes), as one-memory buffers (as udpsrc gives them), pushed in wire
 *     order (media and parity in the order the encoder emitted them) into
 *     sink and fec_0, then EOS.
 *
 * Each number is the median of 5 runs, each run on a fresh element; the
 * repetitions are the outer loop (each cell's runs spread over the whole
 * payload size's time, against bursts of load on a shared machine) and ours
 * and theirs alternate who runs first. The decoder runs check that the dropped
 * packets were recovered (tpssfecdec's stats; for rtpst2022-1-fecdec, which
 * has none, by counting its output) and abort otherwise.
 *
 * Both decoders keep 200 ms of packets: rtpst2022-1-fecdec by PTS (stamped
 * at 10 kpps), tpssfecdec by its element clock, here a GstTestClock moved
 * along the same PTS (every 16 packets), so both hold about 2000 packets.
 *
 * Options: --scale F (packet counts x F), --reps N, --payload B, --k K,
 * --l L, --scheme ours|theirs, --dir enc|dec (for profiling a single cell),
 * --sysclock (tpssfecdec on the real clock, as deployed; at benchmark speed
 * its 200 ms window then spans more than a sequence-number cycle, which
 * tpssfecdec does not survive: see docs/results.md).
 *
 * The timed loops toggle callgrind collection (when valgrind/callgrind.h is
 * there): `valgrind --tool=callgrind --collect-atstart=no bench-fec-rate
 * --scale 0.1 --reps 1 --payload 1200 --k 20 --l 5 --dir dec --scheme ours`
 * profiles just the decoder's packets.
 */
#include <gst/gst.h>
#include <gst/check/gsttestclock.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <stdio.h>

#include "tpssfec.h"
#include "bench-common.h"

#define MAX_REPS 15

static const guint payload_sizes[] = { 200, 1200, 8000 };
static const guint base_counts[] = { 200000, 100000, 30000 };
static const guint ks[] = { 4, 10, 20 };
static const guint ls[] = { 5, 10 };

static gdouble opt_scale = 1.0;
static gint opt_reps = 5;
static gint opt_payload = 0, opt_k = 0, opt_l = 0;
static gchar *opt_scheme = NULL, *opt_dir = NULL;
static gboolean opt_sysclock = FALSE;

typedef struct
{
  guint64 n;
} Count;

static GstFlowReturn
count_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  Count *c = gst_pad_get_element_private (pad);

  c->n++;
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
scheme_enabled (Scheme s)
{
  return !opt_scheme || g_str_equal (opt_scheme, scheme_name[s]);
}

/* FALSE if the element does not take this geometry. */
static gboolean
geometry_supported (Scheme s, guint k, guint l)
{
  GstElement *e = bench_make_encoder (s, k, l);
  guint rk = 0, rl = 0;

  if (s == SCHEME_OURS)
    g_object_get (e, "packet-distance", &rk, "subsegment-length", &rl, NULL);
  else
    g_object_get (e, "columns", &rk, "rows", &rl, NULL);
  gst_object_unref (e);
  return rk == k && rl == l;
}

/* ------------------------------------------------------------------ */
/* Encoder */

/* @list_len > 1: pushed as buffer lists of that many packets. */
static gdouble
measure_encoder (Scheme s, guint k, guint l, GstBuffer ** media, guint n,
    guint list_len)
{
  GstElement *enc = bench_make_encoder (s, k, l);
  GstPad *esink, *esrc, *efec, *src, *msink, *fsink;
  Count cm = { 0 }, cf = { 0 };
  guint segs = n / (k * l);
  guint64 expect_fec;
  gint64 t0, t1;

  bench_set_state (enc, GST_STATE_PAUSED);
  esink = bench_static_pad (enc, "sink");
  esrc = bench_static_pad (enc, "src");
  efec = bench_static_pad (enc, "fec_0");
  msink = bench_sink_pad_new (esrc, count_chain, &cm);
  fsink = bench_sink_pad_new (efec, count_chain, &cf);
  src = bench_src_pad_new (esink, BENCH_MEDIA_CAPS, "bench-media");

  CALLGRIND_TOGGLE_COLLECT;
  t0 = bench_now_ns ();
  for (guint i = 0; i < n; i += list_len) {
    GstFlowReturn ret;
    if (list_len > 1) {
      GstBufferList *list = gst_buffer_list_new_sized (list_len);
      for (guint j = i; j < i + list_len && j < n; j++)
        gst_buffer_list_add (list, gst_buffer_ref (media[j]));
      ret = gst_pad_push_list (src, list);
    } else {
      ret = gst_pad_push (src, gst_buffer_ref (media[i]));
    }
    if (G_UNLIKELY (ret != GST_FLOW_OK))
      bench_die ("%s encoder: push %u: %s", scheme_name[s], i,
          gst_flow_get_name (ret));
  }
  t1 = bench_now_ns ();
  CALLGRIND_TOGGLE_COLLECT;

  /* Ours sends a segment's parity right after it; theirs sends a matrix's
   * column FEC interleaved into the next matrix, so the last one is still
   * queued when the stream stops. */
  expect_fec = s == SCHEME_OURS ? (guint64) segs * k : (guint64) (segs - 1) * k;
  if (cm.n != n || cf.n != expect_fec)
    bench_die ("%s encoder k=%u l=%u: %" G_GUINT64_FORMAT " media, %"
        G_GUINT64_FORMAT " parity out; expected %u and %" G_GUINT64_FORMAT,
        scheme_name[s], k, l, cm.n, cf.n, n, expect_fec);

  bench_pad_free (src);
  bench_set_state (enc, GST_STATE_NULL);
  bench_pad_free (msink);
  bench_pad_free (fsink);
  gst_object_unref (esink);
  gst_object_unref (esrc);
  gst_object_unref (efec);
  gst_object_unref (enc);
  return n / ((t1 - t0) / 1e9);
}

/* ------------------------------------------------------------------ */
/* Decoder */

typedef struct
{
  GArray *items;                /* WireItem, own one-memory copies */
  guint n_media;                /* media packets the encoder passed */
  guint dropped;
  guint expect_recovered;
} DecInput;

/* The dropped media index of segment @s: spread over the segment, the same
 * for both schemes. */
static guint
drop_index (guint s, guint k, guint l)
{
  return s * k * l + (s * 37 + 11) % (k * l);
}

/* Removes one media packet per segment from the captured wire, and gives
 * the rest as one-memory buffers, as a receiver's udpsrc would: media from
 * @media_flat (the same packets), parity copied. */
static void
dec_input_build (DecInput * in, const Wire * w, Scheme s, guint k, guint l,
    GstBuffer ** media_flat)
{
  guint segs = w->n_media / (k * l);
  guint next_drop_seg = 0;
  /* Segments whose parity is on the wire: all of ours, all but the last of
   * theirs (see measure_encoder). */
  guint protected_segs = MIN (segs, w->n_fec / k);

  in->items = g_array_sized_new (FALSE, FALSE, sizeof (WireItem),
      w->items->len);
  in->n_media = w->n_media;
  in->dropped = 0;
  in->expect_recovered = 0;
  for (guint i = 0; i < w->items->len; i++) {
    const WireItem *it = &g_array_index (w->items, WireItem, i);
    if (it->kind == WIRE_MEDIA && next_drop_seg < segs &&
        it->index == drop_index (next_drop_seg, k, l)) {
      in->dropped++;
      if (next_drop_seg < protected_segs)
        in->expect_recovered++;
      next_drop_seg++;
      continue;
    }
    {
      WireItem copy = *it;
      copy.buf = it->kind == WIRE_MEDIA ? gst_buffer_ref (media_flat[it->index])
          : bench_flatten (it->buf);
      g_array_append_val (in->items, copy);
    }
  }
  if (in->dropped != segs)
    bench_die ("%s: dropped %u packets for %u segments", scheme_name[s],
        in->dropped, segs);

  /* Our parity must carry the geometry asked for. */
  if (s == SCHEME_OURS) {
    for (guint i = 0; i < w->items->len; i++) {
      const WireItem *it = &g_array_index (w->items, WireItem, i);
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      TpssFecHeader hdr;
      if (it->kind != WIRE_FEC)
        continue;
      gst_rtp_buffer_map (it->buf, GST_MAP_READ, &rtp);
      if (tpss_fec_header_parse (gst_rtp_buffer_get_payload (&rtp),
              gst_rtp_buffer_get_payload_len (&rtp), &hdr) != TPSS_FEC_OK ||
          hdr.distance != k || hdr.length != l)
        bench_die ("tpssfecenc parity does not carry k=%u l=%u", k, l);
      gst_rtp_buffer_unmap (&rtp);
      break;
    }
  }
}

static gdouble
measure_decoder (Scheme s, const DecInput * in)
{
  GstElement *dec = bench_make_decoder (s);
  GstClock *tc = NULL;
  GstPad *dsink, *dsrc, *dfec, *msrc, *fsrc, *osink;
  Count out = { 0 };
  guint64 expect_out = in->n_media - in->dropped + in->expect_recovered;
  gint64 t0, t1;

  if (s == SCHEME_OURS && !opt_sysclock) {
    /* tpssfecdec times its store by the element clock: give it the simulated
     * packet clock, so it keeps the same 200 ms (2000 packets) as
     * rtpst2022-1-fecdec does by PTS. */
    tc = gst_test_clock_new ();
    gst_element_set_clock (dec, tc);
  }
  bench_set_state (dec, GST_STATE_PAUSED);
  dsink = bench_static_pad (dec, "sink");
  dsrc = bench_static_pad (dec, "src");
  dfec = bench_request_fec_pad (dec);
  osink = bench_sink_pad_new (dsrc, count_chain, &out);
  msrc = bench_src_pad_new (dsink, BENCH_MEDIA_CAPS, "bench-media");
  fsrc = bench_src_pad_new (dfec, BENCH_FEC_CAPS, "bench-fec");

  CALLGRIND_TOGGLE_COLLECT;
  t0 = bench_now_ns ();
  for (guint i = 0; i < in->items->len; i++) {
    const WireItem *it = &g_array_index (in->items, WireItem, i);
    GstFlowReturn ret;
    if (it->kind == WIRE_MEDIA) {
      if (tc && (it->index & 15) == 0)
        gst_test_clock_set_time (GST_TEST_CLOCK (tc), GST_BUFFER_PTS (it->buf));
      ret = gst_pad_push (msrc, gst_buffer_ref (it->buf));
    } else {
      ret = gst_pad_push (fsrc, gst_buffer_ref (it->buf));
    }
    if (G_UNLIKELY (ret != GST_FLOW_OK))
      bench_die ("%s decoder: push %u: %s", scheme_name[s], i,
          gst_flow_get_name (ret));
  }
  /* tpssfecdec holds back a repair whose missing packet is the newest until
   * a later packet shows it is not just late; EOS drains that. Its output
   * comes from its own thread: time until EOS is out. */
  gst_pad_push_event (msrc, gst_event_new_eos ());
  bench_wait_eos (osink);
  t1 = bench_now_ns ();
  CALLGRIND_TOGGLE_COLLECT;

  if (out.n != expect_out)
    bench_die ("%s decoder: %" G_GUINT64_FORMAT " packets out, expected %"
        G_GUINT64_FORMAT " (%u media, %u dropped, %u recoverable)",
        scheme_name[s], out.n, expect_out, in->n_media, in->dropped,
        in->expect_recovered);
  if (s == SCHEME_OURS) {
    GstStructure *st;
    guint64 recovered = 0, unrecoverable = 0, received = 0;
    g_object_get (dec, "stats", &st, NULL);
    gst_structure_get (st, "recovered", G_TYPE_UINT64, &recovered,
        "unrecoverable", G_TYPE_UINT64, &unrecoverable,
        "received", G_TYPE_UINT64, &received, NULL);
    gst_structure_free (st);
    if (recovered != in->expect_recovered || unrecoverable != 0 ||
        received != in->n_media - in->dropped)
      bench_die ("tpssfecdec stats: recovered %" G_GUINT64_FORMAT
          " (expected %u), unrecoverable %" G_GUINT64_FORMAT ", received %"
          G_GUINT64_FORMAT " (expected %u)", recovered, in->expect_recovered,
          unrecoverable, received, in->n_media - in->dropped);
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
  return in->n_media / ((t1 - t0) / 1e9);
}

/* ------------------------------------------------------------------ */
/* Tables */

static void
dec_input_clear (DecInput * in)
{
  for (guint i = 0; i < in->items->len; i++)
    gst_buffer_unref (g_array_index (in->items, WireItem, i).buf);
  g_array_unref (in->items);
}

/* [scheme][table][l][k] median pps; < 0: not supported or not run.
 * Tables: encoder (two-memory input), encoder (one-memory input), decoder,
 * encoder (lists of two-memory packets). */
#define N_TABLES 4
#define TABLE_DECODER 2
#define LIST_LEN 8
static gdouble result[2][N_TABLES][G_N_ELEMENTS (ls)][G_N_ELEMENTS (ks)];
static const gchar *const table_title[N_TABLES] = {
  "Encoder, input as payloaders give it (header and payload memories)",
  "Encoder, one-memory input",
  "Decoder (one-memory input, as from udpsrc)",
  "Encoder, buffer lists of 8 header+payload packets (as rtph264pay pushes "
      "a fragmented frame)",
};

static gchar *
fmt_pps (gdouble pps)
{
  if (pps >= 1e6)
    return g_strdup_printf ("%.2f M", pps / 1e6);
  return g_strdup_printf ("%.0f k", pps / 1e3);
}

static void
print_table (guint payload, guint n, guint dir)
{
  printf ("\n%s; payload %u B, %u media packets, median of %d; "
      "media packets/s, ours / theirs (ours/theirs)\n\n",
      table_title[dir], payload, n, opt_reps);
  printf ("| l \\ k |");
  for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++)
    printf (" k = %u |", ks[ki]);
  printf ("\n|---|");
  for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++)
    printf ("---|");
  printf ("\n");
  for (guint li = 0; li < G_N_ELEMENTS (ls); li++) {
    printf ("| l = %u |", ls[li]);
    for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++) {
      gdouble o = result[SCHEME_OURS][dir][li][ki];
      gdouble t = result[SCHEME_THEIRS][dir][li][ki];
      gchar *os = o > 0 ? fmt_pps (o) : g_strdup ("n/a");
      gchar *ts = t > 0 ? fmt_pps (t) : g_strdup ("n/a");
      if (o > 0 && t > 0)
        printf (" %s / %s (%.2fx) |", os, ts, o / t);
      else
        printf (" %s / %s |", os, ts);
      g_free (os);
      g_free (ts);
    }
    printf ("\n");
  }
  fflush (stdout);
}

/* ------------------------------------------------------------------ */

/* A geometry cell of the grid. */
typedef struct
{
  guint li, ki;
  gboolean ok[2];
  DecInput in[2];
  gdouble v[2][N_TABLES][MAX_REPS];
} Cell;

static void
run_payload (guint pi)
{
  guint payload = payload_sizes[pi];
  guint n = (guint) (base_counts[pi] * opt_scale);
  GRand *rand = g_rand_new_with_seed (0xfec0 + payload);
  GstBuffer **media, **media_flat;
  gboolean do_enc = !opt_dir || g_str_equal (opt_dir, "enc");
  gboolean do_dec = !opt_dir || g_str_equal (opt_dir, "dec");
  Cell cells[G_N_ELEMENTS (ls) * G_N_ELEMENTS (ks)];
  guint n_cells = 0;

  n -= n % 200;                 /* whole segments for every geometry */
  if (n < 400)
    n = 400;
  media = g_new (GstBuffer *, n);
  media_flat = g_new (GstBuffer *, n);
  for (guint i = 0; i < n; i++) {
    media[i] = bench_make_media (i, payload, BENCH_PKT_INTERVAL, rand);
    media_flat[i] = bench_flatten (media[i]);
  }
  g_rand_free (rand);

  /* The cells to run, their decoder input encoded once. */
  for (guint li = 0; li < G_N_ELEMENTS (ls); li++) {
    for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++) {
      guint k = ks[ki], l = ls[li];
      Cell *c = &cells[n_cells];

      for (guint s = 0; s < 2; s++)
        for (guint t = 0; t < N_TABLES; t++)
          result[s][t][li][ki] = -1;
      if ((opt_k && (guint) opt_k != k) || (opt_l && (guint) opt_l != l))
        continue;
      memset (c, 0, sizeof (*c));
      c->li = li;
      c->ki = ki;
      for (guint s = 0; s < 2; s++) {
        c->ok[s] = scheme_enabled (s) && geometry_supported (s, k, l);
        if (c->ok[s] && do_dec) {
          Wire wire;
          bench_encode (s, k, l, media, n, &wire);
          dec_input_build (&c->in[s], &wire, s, k, l, media_flat);
          wire_clear (&wire);
        }
      }
      n_cells++;
    }
  }

  /* Repetitions outermost, so that a burst of load from elsewhere spoils
   * one sample of many cells rather than all samples of one cell; ours and
   * theirs alternate who goes first. */
  for (gint r = 0; r < opt_reps; r++) {
    for (guint ci = 0; ci < n_cells; ci++) {
      Cell *c = &cells[ci];
      guint k = ks[c->ki], l = ls[c->li];
      for (guint t = 0; t < N_TABLES; t++) {
        if (t != TABLE_DECODER ? !do_enc : !do_dec)
          continue;
        for (guint j = 0; j < 2; j++) {
          Scheme s = (r + j + ci) % 2;
          if (!c->ok[s])
            continue;
          c->v[s][t][r] = t == TABLE_DECODER ?
              measure_decoder (s, &c->in[s]) :
              measure_encoder (s, k, l, t == 1 ? media_flat : media, n,
              t == 3 ? LIST_LEN : 1);
        }
      }
    }
    g_printerr ("  payload %u: repetition %d of %d done\n", payload, r + 1,
        opt_reps);
  }

  for (guint ci = 0; ci < n_cells; ci++) {
    Cell *c = &cells[ci];
    for (guint s = 0; s < 2; s++) {
      if (!c->ok[s])
        continue;
      for (guint t = 0; t < N_TABLES; t++)
        if (t != TABLE_DECODER ? do_enc : do_dec)
          result[s][t][c->li][c->ki] = bench_median (c->v[s][t], opt_reps);
      if (do_dec)
        dec_input_clear (&c->in[s]);
    }
  }

  if (do_enc) {
    print_table (payload, n, 0);
    print_table (payload, n, 1);
    print_table (payload, n, 3);
  }
  if (do_dec)
    print_table (payload, n, 2);

  for (guint i = 0; i < n; i++) {
    gst_buffer_unref (media[i]);
    gst_buffer_unref (media_flat[i]);
  }
  g_free (media);
  g_free (media_flat);
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"scale", 0, 0, G_OPTION_ARG_DOUBLE, &opt_scale,
        "Multiply the packet counts by this", "F"},
    {"reps", 0, 0, G_OPTION_ARG_INT, &opt_reps, "Runs per cell (median)",
        "N"},
    {"payload", 0, 0, G_OPTION_ARG_INT, &opt_payload,
        "Only this payload size", "B"},
    {"k", 0, 0, G_OPTION_ARG_INT, &opt_k, "Only this k (columns)", "K"},
    {"l", 0, 0, G_OPTION_ARG_INT, &opt_l, "Only this l (rows)", "L"},
    {"scheme", 0, 0, G_OPTION_ARG_STRING, &opt_scheme,
        "Only ours or theirs", "S"},
    {"dir", 0, 0, G_OPTION_ARG_STRING, &opt_dir, "Only enc or dec", "D"},
    {"sysclock", 0, 0, G_OPTION_ARG_NONE, &opt_sysclock,
        "Run tpssfecdec on the system clock instead of the simulated "
        "10 kpps packet clock", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- TPSS FEC packet rate");
  GError *err = NULL;
  gint64 t0 = bench_now_ns ();

  bench_pin_allocator ();
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    bench_die ("%s", err->message);
  g_option_context_free (ctx);
  if (opt_reps < 1 || opt_reps > MAX_REPS)
    bench_die ("--reps must be 1..%d", MAX_REPS);

  printf ("TPSS FEC packet rate: tpssfecenc/tpssfecdec (ours) against "
      "rtpst2022-1-fecenc/fecdec (theirs, columns=k rows=l, row FEC off)\n");
  printf ("GStreamer %s, %u CPUs; decoders get one media packet dropped per "
      "segment and recover it (checked)\n", gst_version_string (),
      g_get_num_processors ());
  for (guint li = 0; li < G_N_ELEMENTS (ls); li++)
    for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++)
      if (!geometry_supported (SCHEME_THEIRS, ks[ki], ls[li]))
        printf ("rtpst2022-1-fecenc refuses columns=%u rows=%u\n", ks[ki],
            ls[li]);
  fflush (stdout);

  for (guint pi = 0; pi < G_N_ELEMENTS (payload_sizes); pi++)
    if (!opt_payload || (guint) opt_payload == payload_sizes[pi])
      run_payload (pi);

  printf ("\ntotal time %.1f s\n", (bench_now_ns () - t0) / 1e9);
  return 0;
}
