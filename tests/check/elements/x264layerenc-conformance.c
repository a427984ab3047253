/* x264layerenc: what a new user hits first (issue 12).
 *
 *  - `bitrate` is kbit/s, as x264enc's: bitrate=800 gives ~800 kbit/s;
 *  - hierarchical-b streams carry DTS <= PTS, DTS increasing;
 *  - every prefix of layers is a conforming stream: where dropping the upper
 *    layers leaves frame_num gaps, the SPS allows them (checked with the
 *    codecparsers H.264 parser, independent of the encoder's SPS rewriter);
 *  - gst-inspect-1.0 shows the unit of every property and every stats field,
 *    and the description has a gst-launch-1.0 example.
 *
 * Streams are small (320x240), x264 is CPU-heavy.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#define GST_USE_UNSTABLE_API   /* codecparsers */
#include <gst/codecparsers/gsth264parser.h>
#include <string.h>
#include "checkutil.h"

#include "gsttemporallayermeta.h"

#define SRC_240 "videotestsrc pattern=smpte horizontal-speed=3 ! capsfilter " \
  "caps=video/x-raw,format=I420,width=320,height=240,framerate=30/1"

/* A harness around the element @launch describes, fed by @source. */
static GstHarness *
new_harness_with_source (const gchar * launch, const gchar * source)
{
  GError *err = NULL;
  GstElement *e = gst_parse_launch (launch, &err);
  GstHarness *h;

  fail_unless (e != NULL && err == NULL, "%s", launch);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_add_src_parse (h, source, FALSE);
  return h;
}

/* ... fed by a scrolled-bars source. */
static GstHarness *
new_harness (const gchar * launch)
{
  return new_harness_with_source (launch, SRC_240);
}

/* Pushes @frames frames and EOS; returns every output buffer, in order. */
static GPtrArray *
encode (GstHarness * h, guint frames)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;

  for (guint i = 0; i < frames; i++) {
    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)))
      g_ptr_array_add (out, b);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (out, b);
  return out;
}

/* --------------------------------------------------- bitrate: kbit/s */

GST_START_TEST (test_bitrate_is_kbits)
{
  GstHarness *h = new_harness ("x264layerenc layers=3 bitrate=800");
  GPtrArray *out;
  GstStructure *s;
  guint64 bytes = 0;
  guint target = 0, kbits;
  gdouble rate;

  g_object_get (h->element, "bitrate", &kbits, NULL);
  fail_unless_equals_int (kbits, 800);

  /* 2 s at 30 frames/s. */
  out = encode (h, 60);
  fail_unless_equals_int (out->len, 60);
  for (guint i = 0; i < out->len; i++)
    bytes += gst_buffer_get_size (g_ptr_array_index (out, i));
  rate = bytes * 8.0 / 2.0;
  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint (s, "bitrate-target", &target));
  g_print ("bitrate=800: %.0f bit/s over 2 s, stats target %u bit/s\n", rate,
      target);
  /* Stats stay in bit/s, as layer-rates, the caps and the event. */
  fail_unless_equals_int (target, 800000);
  fail_unless (rate > 800000 * 0.8 && rate < 800000 * 1.2,
      "bitrate=800 gave %.0f bit/s, expected ~800 kbit/s", rate);

  gst_structure_free (s);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Out-of-range values are refused by GParamSpec with a message naming the
 * range; x264enc's range is 1..2048000 kbit/s, so is ours. */
GST_START_TEST (test_bitrate_range_is_x264enc)
{
  GstElement *e = gst_element_factory_make ("x264layerenc", NULL);
  GParamSpecUInt *p = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "bitrate"));

  fail_unless_equals_int (p->minimum, 1);
  fail_unless_equals_int (p->maximum, 2048000);
  fail_unless (strstr (g_param_spec_get_blurb (G_PARAM_SPEC (p)),
          "kbit/s") != NULL);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------- adaptive quantisation kept */

/* x264's option string (its user-data SEI in the first access unit) of a
 * stream coded by @launch; "" if there is none. */
static gchar *
x264_options_of (const gchar * launch)
{
  GstHarness *h = new_harness (launch);
  GPtrArray *out = encode (h, 3);
  GstMapInfo map;
  gchar *opts = g_strdup ("");
  const guint8 *at;

  fail_unless (out->len > 0);
  fail_unless (gst_buffer_map (g_ptr_array_index (out, 0), &map,
          GST_MAP_READ));
  at = NULL;
  for (gsize i = 0; !at && i + 9 <= map.size; i++)
    if (memcmp (map.data + i, "options: ", 9) == 0)
      at = map.data + i;
  if (at) {
    const guint8 *end = memchr (at, 0, map.data + map.size - at);
    g_free (opts);
    opts = g_strndup ((const gchar *) at, end ? end - at :
        map.data + map.size - at);
  }
  gst_buffer_unmap (g_ptr_array_index (out, 0), &map);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
  return opts;
}

static gboolean
has_option (const gchar * opts, const gchar * opt)
{
  gchar **tokens = g_strsplit (opts, " ", -1);
  gboolean found = g_strv_contains ((const gchar * const *) tokens, opt);

  g_strfreev (tokens);
  return found;
}

/* x264's CQP mode turns adaptive quantisation off (x264enc's ABR keeps
 * aq=1:1.00); at the same rate that cost 0.04 SSIM on scrolled bars at
 * 400 kbit/s. Every layer count keeps AQ unless aq-strength=0 asks for the
 * cheaper CQP mode. */
GST_START_TEST (test_adaptive_quantisation_kept)
{
  const gchar *on[] = { "x264layerenc layers=1 bitrate=400",
    "x264layerenc layers=3 bitrate=400",
    "x264layerenc layers=3 gop-structure=hierarchical-b bitrate=400"
  };
  gchar *opts;

  for (guint i = 0; i < G_N_ELEMENTS (on); i++) {
    opts = x264_options_of (on[i]);
    g_print ("%s: %s\n", on[i], opts);
    fail_unless (has_option (opts, "aq=1:1.00"), "%s: no AQ in '%s'", on[i],
        opts);
    g_free (opts);
  }
  opts = x264_options_of ("x264layerenc layers=3 aq-strength=0.5");
  fail_unless (has_option (opts, "aq=1:0.50"), "%s", opts);
  g_free (opts);
  opts = x264_options_of ("x264layerenc layers=3 aq-strength=0");
  fail_unless (has_option (opts, "aq=0"), "%s", opts);
  fail_unless (has_option (opts, "rc=cqp"), "%s", opts);
  g_free (opts);
}

GST_END_TEST;

/* ------------------------------------------- a total over layers */

#define SRC_ZONE_PLATE "videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 " \
  "! capsfilter caps=video/x-raw,format=I420,width=320,height=240," \
  "framerate=30/1"

static GstHarness *
new_zone_plate_harness (const gchar * launch)
{
  return new_harness_with_source (launch, SRC_ZONE_PLATE);
}

/* Codes 3 s of a moving zone plate with @launch; the share of the bytes in
 * layer 0 and the rate in bit/s. */
static void
zone_plate_split (const gchar * launch, gdouble * base_share, gdouble * rate)
{
  GstHarness *h = new_zone_plate_harness (launch);
  GPtrArray *out;
  guint64 bytes[2] = { 0, 0 };

  out = encode (h, 90);
  for (guint i = 0; i < out->len; i++) {
    GstBuffer *b = g_ptr_array_index (out, i);
    GstTemporalLayerMeta *m = gst_buffer_find_temporal_layer_meta (b);
    fail_unless (m != NULL);
    bytes[m->layer_id == 0 ? 0 : 1] += gst_buffer_get_size (b);
  }
  *base_share = (gdouble) bytes[0] / (bytes[0] + bytes[1]);
  *rate = (bytes[0] + bytes[1]) * 8.0 / 3.0;
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

/* `bitrate` is a total: the encoder splits it over the layers itself, with
 * QPs rising 1.5 per layer. Split by frames instead (a quarter to the base
 * of 3 layers), a moving zone plate at 1 Mbit/s 360p lost 2.9 dB against the
 * base layer getting half. Per-layer `layer-rates` stay as they are. */
GST_START_TEST (test_total_split_by_content)
{
  gdouble share, rate;
  GstHarness *h;
  GstStructure *s;
  const GValue *targets;
  gint sum = 0;

  zone_plate_split ("x264layerenc layers=3 bitrate=600", &share, &rate);
  g_print ("bitrate=600, 3 layers: base layer %.0f%% of %.0f bit/s\n",
      100 * share, rate);
  fail_unless (rate > 600000 * 0.9 && rate < 600000 * 1.1, "%.0f", rate);
  fail_unless (share > 0.35, "the base layer got %.0f%% of the total",
      100 * share);

  zone_plate_split ("x264layerenc layers=3 "
      "layer-rates=<150000,150000,300000>", &share, &rate);
  g_print ("layer-rates 150k/150k/300k: base layer %.0f%% of %.0f bit/s\n",
      100 * share, rate);
  fail_unless (share > 0.25 * 0.85 && share < 0.25 * 1.15, "%.2f", share);

  /* stats: the split the encoder chose, adding up to the total. */
  h = new_zone_plate_harness ("x264layerenc layers=3 bitrate=600");
  g_ptr_array_unref (encode (h, 30));
  g_object_get (h->element, "stats", &s, NULL);
  targets = gst_structure_get_value (s, "layer-targets");
  for (guint l = 0; l < gst_value_array_get_size (targets); l++)
    sum += g_value_get_int (gst_value_array_get_value (targets, l));
  fail_unless (ABS (sum - 600000) < 3, "layer-targets add up to %d", sum);
  fail_unless (g_value_get_int (gst_value_array_get_value (targets, 0)) >
      600000 * 0.3);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ------------------------------------------------------ DTS <= PTS */

/* Every buffer has PTS and DTS, DTS <= PTS, DTS strictly increasing. */
static void
check_buffer_timestamps (const gchar * what, GPtrArray * out)
{
  GstClockTime last_dts = GST_CLOCK_TIME_NONE;
  guint late = 0, backwards = 0;

  for (guint i = 0; i < out->len; i++) {
    GstBuffer *b = g_ptr_array_index (out, i);
    GstClockTime pts = GST_BUFFER_PTS (b), dts = GST_BUFFER_DTS (b);

    fail_unless (GST_CLOCK_TIME_IS_VALID (pts), "%s: buffer %u has no PTS",
        what, i);
    fail_unless (GST_CLOCK_TIME_IS_VALID (dts), "%s: buffer %u has no DTS",
        what, i);
    if (dts > pts) {
      late++;
      g_printerr ("%s: buffer %u DTS %" GST_TIME_FORMAT " > PTS %"
          GST_TIME_FORMAT "\n", what, i, GST_TIME_ARGS (dts),
          GST_TIME_ARGS (pts));
    }
    if (GST_CLOCK_TIME_IS_VALID (last_dts) && dts <= last_dts)
      backwards++;
    last_dts = dts;
  }
  fail_unless_equals_int (late, 0);
  fail_unless_equals_int (backwards, 0);
}

static void
check_timestamps (const gchar * launch, guint frames)
{
  GstHarness *h = new_harness (launch);
  GPtrArray *out = encode (h, frames);

  fail_unless_equals_int (out->len, frames);
  check_buffer_timestamps (launch, out);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_dts_hierarchical_b)
{
  for (guint layers = 1; layers <= 3; layers++) {
    gchar *launch = g_strdup_printf ("x264layerenc layers=%u "
        "gop-structure=hierarchical-b", layers);
    /* Whole periods and one more base frame, and a second IDR. */
    check_timestamps (launch, 4 * 8 + 1);
    g_free (launch);
  }
  check_timestamps ("x264layerenc layers=3 gop-structure=hierarchical-b "
      "key-int-max=8", 4 * 8 + 1);
}

GST_END_TEST;

/* Downstream asks for 2 layers mid-stream: x264 is drained and reopened,
 * the DTS go on increasing across the two instances. */
GST_START_TEST (test_dts_hierarchical_b_reopen)
{
  GstHarness *h = new_harness ("x264layerenc layers=3 "
      "gop-structure=hierarchical-b");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GPtrArray *rest;
  GstStructure *s;
  guint64 reconfigs = 0;
  GstBuffer *b;

  gst_harness_set_sink_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,layers=3");
  for (guint i = 0; i < 17; i++) {
    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)))
      g_ptr_array_add (out, b);
  }
  gst_harness_set_sink_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,layers=2");
  rest = encode (h, 16);
  for (guint i = 0; i < rest->len; i++)
    g_ptr_array_add (out, gst_buffer_ref (g_ptr_array_index (rest, i)));
  g_ptr_array_unref (rest);

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, "reconfigurations", &reconfigs));
  fail_unless_equals_int (reconfigs, 1);
  gst_structure_free (s);
  fail_unless_equals_int (out->len, 33);
  check_buffer_timestamps ("hierarchical-b, 3 then 2 layers", out);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_dts_hierarchical_p)
{
  check_timestamps ("x264layerenc layers=3", 17);
}

GST_END_TEST;

/* ------------------------------------- frame_num gaps in every prefix */

typedef struct
{
  guint pictures;
  guint gaps;                   /* frame_num gaps in the prefix */
  guint gaps_forbidden;         /* ... while the SPS forbids them */
  guint longest_gap;            /* frame_num values skipped at once */
  guint num_ref_frames;         /* max_num_ref_frames of the SPS */
  gboolean have_sps;
  gboolean gaps_allowed;
} GapCheck;

/* Walks the access units of layers < @keep_below in decode order and checks
 * frame_num against H.264 7.4.3: a picture's frame_num is
 * PrevRefFrameNum or PrevRefFrameNum + 1 (mod MaxFrameNum) unless the SPS
 * has gaps_in_frame_num_value_allowed_flag. */
static void
check_frame_num (GPtrArray * aus, guint keep_below, GapCheck * g)
{
  GstH264NalParser *parser = gst_h264_nal_parser_new ();
  gint prev_ref = -1;
  guint max_frame_num = 16;

  memset (g, 0, sizeof (*g));
  for (guint i = 0; i < aus->len; i++) {
    GstBuffer *b = g_ptr_array_index (aus, i);
    GstTemporalLayerMeta *m = gst_buffer_find_temporal_layer_meta (b);
    GstMapInfo map;
    GstH264NalUnit nalu;
    guint off = 0;
    gboolean first_slice = TRUE;

    fail_unless (m != NULL);
    if (m->layer_id >= keep_below)
      continue;
    gst_buffer_map (b, &map, GST_MAP_READ);
    for (;;) {
      GstH264ParserResult res = gst_h264_parser_identify_nalu (parser,
          map.data, off, map.size, &nalu);
      if (res != GST_H264_PARSER_OK && res != GST_H264_PARSER_NO_NAL_END)
        break;
      off = nalu.offset + nalu.size;
      if (nalu.type == GST_H264_NAL_SPS) {
        GstH264SPS sps;
        fail_unless_equals_int (gst_h264_parser_parse_sps (parser, &nalu,
                &sps), GST_H264_PARSER_OK);
        g->have_sps = TRUE;
        g->gaps_allowed = sps.gaps_in_frame_num_value_allowed_flag;
        max_frame_num = 1u << (sps.log2_max_frame_num_minus4 + 4);
        g->num_ref_frames = sps.num_ref_frames;
        gst_h264_sps_clear (&sps);
      } else if (nalu.type == GST_H264_NAL_PPS) {
        GstH264PPS pps;
        fail_unless_equals_int (gst_h264_parser_parse_pps (parser, &nalu,
                &pps), GST_H264_PARSER_OK);
        gst_h264_pps_clear (&pps);
      } else if ((nalu.type == GST_H264_NAL_SLICE
              || nalu.type == GST_H264_NAL_SLICE_IDR) && first_slice) {
        GstH264SliceHdr slice;
        gint fn;

        fail_unless_equals_int (gst_h264_parser_parse_slice_hdr (parser,
                &nalu, &slice, FALSE, FALSE), GST_H264_PARSER_OK);
        first_slice = FALSE;
        fn = slice.frame_num;
        g->pictures++;
        if (nalu.idr_pic_flag) {
          fail_unless_equals_int (fn, 0);
        } else if (prev_ref >= 0 && fn != prev_ref
            && fn != (gint) ((prev_ref + 1) % max_frame_num)) {
          guint skipped = (fn - prev_ref - 1 + max_frame_num) % max_frame_num;
          g->gaps++;
          g->longest_gap = MAX (g->longest_gap, skipped);
          if (!g->gaps_allowed)
            g->gaps_forbidden++;
        }
        if (nalu.ref_idc != 0)
          prev_ref = fn;
      }
      if (res == GST_H264_PARSER_NO_NAL_END || off >= map.size)
        break;
    }
    gst_buffer_unmap (b, &map);
  }
  gst_h264_nal_parser_free (parser);
}

static void
check_prefixes_conform (const gchar * gop, guint layers, guint frames)
{
  gchar *launch = g_strdup_printf ("x264layerenc layers=%u gop-structure=%s "
      "key-int-max=16", layers, gop);
  GstHarness *h = new_harness (launch);
  GPtrArray *out = encode (h, frames);
  guint gaps_somewhere = 0;

  for (guint k = 1; k <= layers; k++) {
    GapCheck g;
    check_frame_num (out, k, &g);
    g_print ("%s, layers < %u: %u pictures, %u frame_num gaps, SPS allows "
        "gaps: %d\n", launch, k, g.pictures, g.gaps, g.gaps_allowed);
    fail_unless (g.have_sps);
    fail_unless (g.pictures > 0);
    fail_unless_equals_int (g.gaps_forbidden, 0);
    /* The decoder fills a gap with as many "non-existing" reference frames
     * (sliding window): the last kept reference must survive them. */
    fail_unless (g.longest_gap + 1 <= g.num_ref_frames, "gap of %u frames, "
        "max_num_ref_frames %u", g.longest_gap, g.num_ref_frames);
    if (k == layers)
      fail_unless_equals_int (g.gaps, 0);
    gaps_somewhere += g.gaps;
  }
  /* The check checks something: dropped reference layers leave gaps. */
  if (layers > 1 && strcmp (gop, "hierarchical-p") == 0)
    fail_unless (gaps_somewhere > 0);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
}

GST_START_TEST (test_prefixes_conform_hierarchical_p)
{
  for (guint layers = 1; layers <= 5; layers++)
    check_prefixes_conform ("hierarchical-p", layers, 2 * 16 + 1);
}

GST_END_TEST;

GST_START_TEST (test_prefixes_conform_hierarchical_b)
{
  for (guint layers = 1; layers <= 3; layers++)
    check_prefixes_conform ("hierarchical-b", layers, 2 * 16 + 1);
}

GST_END_TEST;

/* ----------------------------------------- what gst-inspect-1.0 shows */

/* The unit (or what the number counts) each numeric property's blurb must
 * name; a new numeric property needs an entry. */
static const struct
{
  const gchar *property, *unit;
} units[] = {
  {"layers", "layers"},
  {"layer-rates", "bit/s"},
  {"bitrate", "kbit/s"},
  {"key-int-max", "frames"},
  {"qp-min", "QP"},
  {"qp-max", "QP"},
  {"threads", "threads"},
  {"key-unit-max-delay", "ms"},
};

static const gchar *
unit_of (const gchar * property)
{
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strcmp (units[i].property, property) == 0)
      return units[i].unit;
  return NULL;
}

GST_START_TEST (test_property_blurbs_have_units)
{
  GstElement *e = gst_element_factory_make ("x264layerenc", NULL);
  guint n;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);

  for (guint i = 0; i < n; i++) {
    GType t = G_PARAM_SPEC_VALUE_TYPE (specs[i]);
    const gchar *blurb = g_param_spec_get_blurb (specs[i]);
    const gchar *unit = unit_of (specs[i]->name);
    gchar *in_unit;

    if (specs[i]->owner_type != G_OBJECT_TYPE (e))
      continue;
    if (t != G_TYPE_UINT && t != G_TYPE_INT && t != G_TYPE_UINT64
        && t != GST_TYPE_ARRAY)
      continue;
    fail_unless (unit != NULL, "%s: no unit known to the test", specs[i]->name);
    /* "in <unit>", the way every blurb states it. */
    in_unit = g_strdup_printf ("in %s", unit);
    fail_unless (strstr (blurb, in_unit) != NULL, "%s: \"%s\" does not say "
        "\"%s\"", specs[i]->name, blurb, in_unit);
    g_free (in_unit);
  }
  g_free (specs);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_stats_documented)
{
  GstHarness *h = new_harness ("x264layerenc layers=3");
  GPtrArray *out = encode (h, 8);

  check_stats_documented (h->element);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_description_has_example)
{
  GstElementFactory *f = gst_element_factory_find ("x264layerenc");
  const gchar *desc;

  fail_unless (f != NULL);
  desc = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_DESCRIPTION);
  fail_unless (strstr (desc, "gst-launch-1.0 ") != NULL, "%s", desc);
  fail_unless (strstr (desc, "x264layerenc") != NULL, "%s", desc);
  gst_object_unref (f);
}

GST_END_TEST;

static Suite *
x264layerenc_conformance_suite (void)
{
  Suite *s = suite_create ("x264layerenc-conformance");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bitrate_is_kbits);
  tcase_add_test (tc, test_bitrate_range_is_x264enc);
  tcase_add_test (tc, test_adaptive_quantisation_kept);
  tcase_add_test (tc, test_total_split_by_content);
  tcase_add_test (tc, test_dts_hierarchical_b);
  tcase_add_test (tc, test_dts_hierarchical_b_reopen);
  tcase_add_test (tc, test_dts_hierarchical_p);
  tcase_add_test (tc, test_prefixes_conform_hierarchical_p);
  tcase_add_test (tc, test_prefixes_conform_hierarchical_b);
  tcase_add_test (tc, test_property_blurbs_have_units);
  tcase_add_test (tc, test_stats_documented);
  tcase_add_test (tc, test_description_has_example);
  return s;
}

GST_CHECK_MAIN (x264layerenc_conformance);
