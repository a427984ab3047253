/* x264layerenc: layer structure, decodability of every layer prefix (from a
 * file-like source, and live through RTP as a receiver decodes it), the
 * layer meta through rtph264pay, droppable flags, force-key-unit, and rates
 * from downstream caps (harness and capsfilter, with renegotiation). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include "gsttemporallayermeta.h"
#include "gstlayerrates.h"

/* videotestsrc: SMPTE bars scrolled 3 pixels per frame (moving content). */
#define SRC_360 "videotestsrc pattern=smpte horizontal-speed=3 num-buffers=%u " \
  "! video/x-raw,format=I420,width=640,height=360,framerate=30/1 "
/* The same, live (real time) and smaller: a receiver's decoder sees a live
 * upstream in its latency query. */
#define SRC_LIVE_180 "videotestsrc is-live=true pattern=smpte " \
  "horizontal-speed=3 num-buffers=%u " \
  "! video/x-raw,format=I420,width=320,height=180,framerate=30/1 "

/* -------------------------------------------------- libav error counter */

static gint libav_errors;
static gint libav_infos;

static void
count_libav (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (category), "libav") != 0)
    return;
  /* gst-libav maps AV_LOG_ERROR (and worse) to GST_LEVEL_ERROR, warnings
   * to INFO. */
  if (level <= GST_LEVEL_ERROR) {
    g_atomic_int_inc (&libav_errors);
    g_printerr ("libav error: %s\n", gst_debug_message_get (message));
  } else if (level <= GST_LEVEL_INFO) {
    g_atomic_int_inc (&libav_infos);
  }
}

static void
libav_counter_install (void)
{
  static gboolean done;

  if (!done) {
    gst_debug_add_log_function (count_libav, NULL, NULL);
    done = TRUE;
  }
  gst_debug_set_threshold_for_name ("libav", GST_LEVEL_INFO);
  g_atomic_int_set (&libav_errors, 0);
  g_atomic_int_set (&libav_infos, 0);
}

/* ------------------------------------------------------- prefix decode */

typedef struct
{
  guint keep_below;             /* keep layers < this */
  guint n_layers;
  guint seen[8];                /* frames per layer out of the encoder */
  guint kept;
  guint no_meta;
  guint bad_droppable;
  guint decoded;
  GHashTable *hashes;           /* PTS -> checksum of the decoded picture */
} PrefixCtx;

static GstPadProbeReturn
prefix_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PrefixCtx *c = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstTemporalLayerMeta *m = gst_buffer_find_temporal_layer_meta (buf);

  if (!m) {
    c->no_meta++;
    return GST_PAD_PROBE_OK;
  }
  c->seen[MIN (m->layer_id, 7)]++;
  c->n_layers = m->n_layers;
  if (m->droppable != GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DROPPABLE))
    c->bad_droppable++;
  if (m->layer_id >= c->keep_below)
    return GST_PAD_PROBE_DROP;
  c->kept++;
  return GST_PAD_PROBE_OK;
}

/* SHA-1 of the picture's visible samples: the decoder's row padding is
 * not part of the picture (and libav leaves it uninitialised). */
static gchar *
picture_checksum (GstBuffer * buf, GstPad * pad)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA1);
  GstVideoInfo info;
  GstVideoFrame frame;
  gchar *hex;

  fail_unless (caps && gst_video_info_from_caps (&info, caps));
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    const guint8 *row = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gint width = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, p);

    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p); y++)
      g_checksum_update (sum, row + (gsize) y * stride, width);
  }
  gst_video_frame_unmap (&frame);
  gst_caps_unref (caps);
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return hex;
}

static void
on_decoded (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  PrefixCtx *c = data;

  c->decoded++;
  g_hash_table_insert (c->hashes, g_memdup2 (&GST_BUFFER_PTS (buf),
          sizeof (GstClockTime)), picture_checksum (buf, pad));
}

static guint
hash_time (gconstpointer p)
{
  return g_int64_hash (p);
}

static gboolean
equal_time (gconstpointer a, gconstpointer b)
{
  return g_int64_equal (a, b);
}

/* Pictures of @prefix that differ from the same picture (PTS) decoded from
 * the full stream @full: a frame that referenced a dropped frame decodes to
 * something else, even when the decoder reports nothing. */
static guint
count_mismatches (PrefixCtx * prefix, PrefixCtx * full)
{
  GHashTableIter it;
  gpointer k, v;
  guint bad = 0;

  g_hash_table_iter_init (&it, prefix->hashes);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    const gchar *ref = g_hash_table_lookup (full->hashes, k);
    if (!ref || strcmp (ref, v) != 0)
      bad++;
  }
  return bad;
}

#define MAX_PREFIXES 5

/* Where the prefixes are decoded: from a file-like (non-live) source, or
 * as an RLM receiver does (live, through RTP, the decoder its docs give). */
typedef struct
{
  gboolean live;
  const gchar *decoder;         /* the chain after the layer filter */
} DecodePath;

static const DecodePath FILE_PATH = { FALSE, "avdec_h264" };

/* In a live pipeline avdec_h264 picks slice threads, which fail to fill a
 * frame_num gap of more than one frame (docs/x264layerenc.md). */
static const DecodePath RECEIVER_PATH = { TRUE,
  "rtph264pay mtu=1200 ! rtph264depay ! avdec_h264 thread-type=frame"
};

/* Encodes @frames frames with @layers layers and @gop once; a tee feeds
 * one decoding branch (@path's decoder) per prefix, branch k dropping the
 * layers at and above k + 1, so branch @layers - 1 decodes the full
 * stream. Returns the bus warnings+errors of the run; fills @c[0] to
 * @c[@layers - 1]. */
static guint
run_prefixes (const DecodePath * path, guint layers, const gchar * gop,
    const gchar * extra, guint frames, PrefixCtx * c)
{
  GString *desc = g_string_new (NULL);
  GstElement *pipeline;
  GstPad *pads[MAX_PREFIXES];
  GstBus *bus;
  GstMessage *msg;
  guint complaints = 0;
  gboolean eos = FALSE;

  fail_unless (layers <= MAX_PREFIXES);
  if (path->live)
    g_string_printf (desc, SRC_LIVE_180, frames);
  else
    g_string_printf (desc, SRC_360, frames);
  g_string_append_printf (desc, "! x264layerenc name=enc layers=%u "
      "gop-structure=%s %s ! tee name=t", layers, gop, extra);
  for (guint k = 0; k < layers; k++)
    g_string_append_printf (desc, " t. ! queue ! identity name=keep%u ! "
        "%s ! fakesink name=sink%u signal-handoffs=true sync=false",
        k, path->decoder, k);
  pipeline = gst_parse_launch (desc->str, NULL);
  fail_unless (pipeline != NULL, "%s", desc->str);
  for (guint k = 0; k < layers; k++) {
    gchar *name = g_strdup_printf ("keep%u", k);
    GstElement *keep = gst_bin_get_by_name (GST_BIN (pipeline), name);
    GstElement *sink;

    memset (&c[k], 0, sizeof (c[k]));
    c[k].keep_below = k + 1;
    c[k].hashes = g_hash_table_new_full (hash_time, equal_time, g_free,
        g_free);
    pads[k] = gst_element_get_static_pad (keep, "sink");
    gst_pad_add_probe (pads[k], GST_PAD_PROBE_TYPE_BUFFER, prefix_probe,
        &c[k], NULL);
    g_free (name);
    name = g_strdup_printf ("sink%u", k);
    sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
    g_signal_connect (sink, "handoff", G_CALLBACK (on_decoded), &c[k]);
    gst_object_unref (sink);
    gst_object_unref (keep);
    g_free (name);
  }

  libav_counter_install ();
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  /* generous: under valgrind on a loaded machine one run takes minutes */
  while (!eos && (msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      eos = TRUE;
    } else {
      GError *err = NULL;
      gchar *dbg = NULL;
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (msg, &err, &dbg);
        eos = TRUE;
      } else {
        gst_message_parse_warning (msg, &err, &dbg);
      }
      g_printerr ("%s from %s: %s (%s)\n", GST_MESSAGE_TYPE_NAME (msg),
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message, dbg);
      g_clear_error (&err);
      g_free (dbg);
      complaints++;
    }
    gst_message_unref (msg);
  }
  /* stopped before any check: the callbacks use @c, on the caller's
   * stack */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless (eos, "no EOS: %s", desc->str);
  gst_object_unref (bus);
  for (guint k = 0; k < layers; k++)
    gst_object_unref (pads[k]);
  gst_object_unref (pipeline);
  g_string_free (desc, TRUE);
  return complaints;
}

/* Frames of layer @l among @frames = K*period + 1 frames of @layers layers
 * (the extra frame ends the stream on a base-layer frame: a B-frame cannot
 * end a stream, x264 would code it as P). */
static guint
layer_frames (guint layers, guint l, guint frames)
{
  guint period = 1u << (layers - 1);
  guint k = (frames - 1) / period;

  if (layers == 1)
    return frames;
  return l == 0 ? k + 1 : k * (1u << (l - 1));
}

static guint
expected_frames (guint layers, guint keep_below, guint frames)
{
  guint n = 0;

  for (guint l = 0; l < keep_below; l++)
    n += layer_frames (layers, l, frames);
  return n;
}

static void
check_prefixes (const DecodePath * path, const gchar * gop,
    const gchar * extra, guint min_layers, guint max_layers)
{
  const guint frames = 97;      /* 96 + 1: see layer_frames () */

  for (guint layers = min_layers; layers <= max_layers; layers++) {
    PrefixCtx c[MAX_PREFIXES];
    guint complaints = run_prefixes (path, layers, gop, extra, frames, c);
    PrefixCtx *full = &c[layers - 1];

    /* The full stream: the reference pictures. */
    fail_unless_equals_int (full->decoded, frames);
    fail_unless_equals_int (full->kept, frames);
    for (guint keep = 1; keep <= layers; keep++) {
      PrefixCtx *p = &c[keep - 1];
      guint expect = expected_frames (layers, keep, frames);
      guint mismatches = count_mismatches (p, full);

      g_print ("%s%s%s layers=%u prefix=%u: kept %u (expected %u) decoded %u, "
          "pictures differing from the full decode %u\n",
          path->live ? "live " : "", gop, extra,
          layers, keep, p->kept, expect, p->decoded, mismatches);
      fail_unless_equals_int (p->no_meta, 0);
      fail_unless_equals_int (p->bad_droppable, 0);
      fail_unless_equals_int (p->n_layers, layers);
      fail_unless_equals_int (p->kept, expect);
      fail_unless_equals_int (p->decoded, expect);
      fail_unless_equals_int (mismatches, 0);
      /* The layer sizes of a regular hierarchy. */
      for (guint l = 0; l < layers; l++)
        fail_unless_equals_int (p->seen[l], layer_frames (layers, l, frames));
    }
    g_print ("%s%s%s layers=%u: bus warnings/errors %u, libav errors %d\n",
        path->live ? "live " : "", gop, extra, layers, complaints,
        libav_errors);
    fail_unless_equals_int (complaints, 0);
    fail_unless_equals_int (libav_errors, 0);
    for (guint keep = 1; keep <= layers; keep++)
      g_hash_table_unref (c[keep - 1].hashes);
  }
}

GST_START_TEST (test_prefixes_hierarchical_p)
{
  check_prefixes (&FILE_PATH, "hierarchical-p", "", 1, 5);
}

GST_END_TEST;

GST_START_TEST (test_prefixes_hierarchical_p_frame_threads)
{
  /* Without zerolatency (frame threads, lookahead): still clean. */
  check_prefixes (&FILE_PATH, "hierarchical-p", " tune=0", 1, 3);
}

GST_END_TEST;

GST_START_TEST (test_prefixes_hierarchical_b)
{
  check_prefixes (&FILE_PATH, "hierarchical-b", "", 1, 3);
}

GST_END_TEST;

GST_START_TEST (test_prefixes_live_receiver)
{
  /* Prefixes below the top two layers leave frame_num gaps of 3 to 15
   * frames; decoded live as rlmsrc's receivers do, every frame of each
   * prefix must come out with no decoder error. */
  check_prefixes (&RECEIVER_PATH, "hierarchical-p", "", 3, 5);
}

GST_END_TEST;

GST_START_TEST (test_layers_clamped_b)
{
  /* hierarchical-b cannot do 4 layers: the encoder runs 3 and says so. */
  PrefixCtx c[4];
  guint complaints = run_prefixes (&FILE_PATH, 4, "hierarchical-b", "", 49,
      c);

  fail_unless_equals_int (complaints, 0);
  fail_unless_equals_int (c[3].n_layers, 3);
  fail_unless_equals_int (c[3].decoded, 49);
  for (guint k = 0; k < 4; k++)
    g_hash_table_unref (c[k].hashes);
}

GST_END_TEST;

/* -------------------------------------------------------- zero delay */

GST_START_TEST (test_zero_delay)
{
  /* hierarchical-p with zerolatency: every frame pushed in comes out before
   * the next one goes in; hierarchical-b holds 3 frames (3 layers). */
  const gchar *gops[] = { "hierarchical-p", "hierarchical-b" };
  const guint delays[] = { 0, 3 };

  for (guint g = 0; g < 2; g++) {
    gchar *launch = g_strdup_printf ("x264layerenc layers=3 "
        "gop-structure=%s", gops[g]);
    GstHarness *h = gst_harness_new_parse (launch);
    GstVideoInfo info;
    guint max_held = 0;

    gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=320,"
        "height=240,framerate=30/1");
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 320, 240);
    for (guint i = 0; i < 16; i++) {
      GstBuffer *in = gst_harness_create_buffer (h, info.size);
      gst_buffer_memset (in, 0, i * 8, info.size);
      GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
      GST_BUFFER_DURATION (in) = GST_SECOND / 30;
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      max_held = MAX (max_held, i + 1 - gst_harness_buffers_received (h));
    }
    g_print ("%s: at most %u frame(s) held\n", gops[g], max_held);
    fail_unless_equals_int (max_held, delays[g]);
    gst_harness_teardown (h);
    g_free (launch);
  }
}

GST_END_TEST;

/* ------------------------------------------------------ meta over RTP */

typedef struct
{
  guint packets, with_meta, layers_seen[8];
  guint frames, frame_layers[8];
} RtpCtx;

static GstPadProbeReturn
rtp_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RtpCtx *c = data;
  GstTemporalLayerMeta *m =
      gst_buffer_find_temporal_layer_meta (GST_PAD_PROBE_INFO_BUFFER (info));

  c->packets++;
  if (m) {
    c->with_meta++;
    c->layers_seen[MIN (m->layer_id, 7)]++;
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
frame_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RtpCtx *c = data;
  GstTemporalLayerMeta *m =
      gst_buffer_find_temporal_layer_meta (GST_PAD_PROBE_INFO_BUFFER (info));

  c->frames++;
  if (m)
    c->frame_layers[MIN (m->layer_id, 7)]++;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_meta_survives_rtph264pay)
{
  gchar *desc = g_strdup_printf (SRC_360 "! x264layerenc name=enc layers=3 "
      "layer-rates=<600000,300000,300000> ! rtph264pay name=pay mtu=1200 "
      "! fakesink name=sink sync=false", 60);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstPad *epad = gst_element_get_static_pad (enc, "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  RtpCtx c = { 0 };

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, rtp_probe, &c, NULL);
  gst_pad_add_probe (epad, GST_PAD_PROBE_TYPE_BUFFER, frame_probe, &c, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  g_print ("rtph264pay: %u frames -> %u packets, %u with meta "
      "(layers %u/%u/%u)\n", c.frames, c.packets, c.with_meta,
      c.layers_seen[0], c.layers_seen[1], c.layers_seen[2]);
  fail_unless_equals_int (c.frames, 60);
  fail_unless (c.packets > c.frames);   /* more than one packet a frame */
  fail_unless_equals_int (c.with_meta, c.packets);
  for (guint l = 0; l < 3; l++)
    fail_unless (c.layers_seen[l] >= c.frame_layers[l] && c.frame_layers[l]);

  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (epad);
  gst_object_unref (sink);
  gst_object_unref (enc);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* -------------------------------------------------- force-key-unit */

static gboolean
buffer_has_idr (GstBuffer * buf)
{
  GstMapInfo map;
  gboolean idr = FALSE;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize i = 0; i + 3 < map.size; i++) {
    if (map.data[i] == 0 && map.data[i + 1] == 0 && map.data[i + 2] == 1 &&
        (map.data[i + 3] & 0x1f) == 5) {
      idr = TRUE;
      break;
    }
  }
  gst_buffer_unmap (buf, &map);
  return idr;
}

/* A harness around the element itself (gst_harness_new_parse() would wrap
 * it in a bin): @launch is "x264layerenc prop=value ...". */
static GstHarness *
new_harness (const gchar * launch)
{
  GError *err = NULL;
  GstElement *e = gst_parse_launch (launch, &err);
  GstHarness *h;

  fail_unless (e != NULL && err == NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);

  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=320,"
      "height=240,framerate=30/1");
  return h;
}

static GstFlowReturn
push_frame (GstHarness * h, guint i)
{
  GstVideoInfo info;
  GstBuffer *in;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 320, 240);
  in = gst_harness_create_buffer (h, info.size);
  /* A moving gradient: bytes depend on position and frame. */
  {
    GstMapInfo map;
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (gsize k = 0; k < map.size; k++)
      map.data[k] = (guint8) ((k % 320) * 2 + (k / 320) + i * 5);
    gst_buffer_unmap (in, &map);
  }
  GST_BUFFER_PTS (in) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  return gst_harness_push (h, in);
}

GST_START_TEST (test_force_key_unit)
{
  const gchar *gops[] = { "hierarchical-p", "hierarchical-b" };

  for (guint g = 0; g < 2; g++) {
    gchar *launch = g_strdup_printf ("x264layerenc layers=3 key-int-max=1000 "
        "gop-structure=%s", gops[g]);
    GstHarness *h = new_harness (launch);
    GstBuffer *out;
    guint idr_frames = 0, keyframes = 0, i;

    g_free (launch);
    for (i = 0; i < 20; i++)
      fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
    /* Upstream force-key-unit (as a receiver's PLI would make it). */
    fail_unless (gst_harness_push_upstream_event (h,
            gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
                TRUE, 1)));
    for (; i < 30; i++)
      fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
    /* Downstream force-key-unit at frame 40's running time. */
    fail_unless (gst_harness_push_event (h,
            gst_video_event_new_downstream_force_key_unit
            (GST_CLOCK_TIME_NONE, gst_util_uint64_scale (40, GST_SECOND, 30),
                gst_util_uint64_scale (40, GST_SECOND, 30), TRUE, 2)));
    for (; i < 50; i++)
      fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
    gst_harness_push_event (h, gst_event_new_eos ());

    while ((out = gst_harness_try_pull (h))) {
      gboolean idr = buffer_has_idr (out);
      if (idr)
        idr_frames++;
      if (!GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DELTA_UNIT)) {
        keyframes++;
        fail_unless (idr);
      }
      gst_buffer_unref (out);
    }
    g_print ("%s: %u IDR frames, %u keyframes\n", gops[g], idr_frames,
        keyframes);
    /* The first frame and one per request. */
    fail_unless_equals_int (idr_frames, 3);
    fail_unless_equals_int (keyframes, 3);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ------------------------------------------------- caps-driven rates */

static void
stats_targets (GstElement * enc, guint * targets, guint * n)
{
  GstStructure *s;
  const GValue *v;

  g_object_get (enc, "stats", &s, NULL);
  v = gst_structure_get_value (s, "layer-targets");
  *n = gst_value_array_get_size (v);
  for (guint i = 0; i < *n; i++)
    targets[i] = g_value_get_int (gst_value_array_get_value (v, i));
  gst_structure_free (s);
}

static void
check_caps_rates (GstCaps * caps, const guint * rates, guint n)
{
  guint got[8], m;
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint layers;

  fail_unless (gst_layer_rates_structure_get (s, got, &m));
  fail_unless (gst_structure_get_int (s, "layers", &layers));
  fail_unless_equals_int (layers, n);
  fail_unless_equals_int (m, n);
  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (got[i], rates[i]);
}

GST_START_TEST (test_caps_rates_harness)
{
  GstHarness *h = new_harness ("x264layerenc layers=2 bitrate=400");
  guint t[8], n, i;
  const guint r1[] = { 300000, 150000, 150000 };
  const guint r2[] = { 200000, 100000, 50000 };
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,layers=3,layer-rates=<300000,150000,150000>");
  for (i = 0; i < 8; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  stats_targets (h->element, t, &n);
  fail_unless_equals_int (n, 3);
  for (guint l = 0; l < 3; l++)
    fail_unless_equals_int (t[l], r1[l]);
  caps = gst_pad_get_current_caps (h->sinkpad);
  check_caps_rates (caps, r1, 3);
  gst_caps_unref (caps);

  /* New caps downstream: RECONFIGURE, renegotiation, new targets. */
  gst_harness_set_sink_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au,layers=3,layer-rates=<200000,100000,50000>");
  for (; i < 16; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  stats_targets (h->element, t, &n);
  fail_unless_equals_int (n, 3);
  for (guint l = 0; l < 3; l++)
    fail_unless_equals_int (t[l], r2[l]);
  caps = gst_pad_get_current_caps (h->sinkpad);
  check_caps_rates (caps, r2, 3);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The layers of the newest buffer the harness holds (the others dropped). */
static guint
newest_layers (GstHarness * h)
{
  GstBuffer *buf, *last = NULL;
  GstTemporalLayerMeta *m;
  guint n;

  while ((buf = gst_harness_try_pull (h))) {
    gst_clear_buffer (&last);
    last = buf;
  }
  fail_unless (last != NULL);
  m = gst_buffer_find_temporal_layer_meta (last);
  fail_unless (m != NULL);
  n = m->n_layers;
  gst_buffer_unref (last);
  return n;
}

/* Behind rtph264pay only the GstLayerRates event reaches the encoder (the
 * payloader answers caps queries with H.264 fields alone): an event of
 * several rates sets the layer count, one rate is a total and does not. */
GST_START_TEST (test_event_sets_layers)
{
  GstHarness *h = new_harness ("x264layerenc layers=2 bitrate=400");
  const guint four[] = { 100000, 100000, 200000, 400000 };
  const guint total = 500000;
  guint t[8], n, i = 0;
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-h264,stream-format=byte-stream,"
      "alignment=au");
  for (; i < 4; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  fail_unless_equals_int (newest_layers (h), 2);

  fail_unless (gst_harness_push_upstream_event (h,
          gst_layer_rates_event_new (four, 4)));
  for (; i < 12; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  fail_unless_equals_int (newest_layers (h), 4);
  stats_targets (h->element, t, &n);
  fail_unless_equals_int (n, 4);
  for (guint l = 0; l < 4; l++)
    fail_unless_equals_int (t[l], four[l]);
  caps = gst_pad_get_current_caps (h->sinkpad);
  check_caps_rates (caps, four, 4);
  gst_caps_unref (caps);

  fail_unless (gst_harness_push_upstream_event (h,
          gst_layer_rates_event_new (&total, 1)));
  for (; i < 16; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  fail_unless_equals_int (newest_layers (h), 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstPadProbeReturn
change_caps_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstElement *capsf = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (GST_BUFFER_PTS (buf) >= GST_SECOND) {
    GstCaps *caps = gst_caps_from_string ("video/x-h264,layers=2,"
        "layer-rates=<250000,250000>");
    g_object_set (capsf, "caps", caps, NULL);
    gst_caps_unref (caps);
    return GST_PAD_PROBE_REMOVE;
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_caps_rates_capsfilter)
{
  gchar *desc = g_strdup_printf (SRC_360 "! x264layerenc name=enc layers=2 "
      "! capsfilter name=cf caps=\"video/x-h264,layers=3,"
      "layer-rates=<400000,200000,100000>\" ! fakesink name=sink sync=false",
      60);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
  GstElement *cf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GstCaps *caps;
  guint t[8], n;
  const guint r1[] = { 400000, 200000, 100000 };
  const guint r2[] = { 250000, 250000 };
  GstStructure *s;
  guint64 reconf = 0;

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);
  stats_targets (enc, t, &n);
  fail_unless_equals_int (n, 3);
  for (guint l = 0; l < 3; l++)
    fail_unless_equals_int (t[l], r1[l]);
  caps = gst_pad_get_current_caps (pad);
  check_caps_rates (caps, r1, 3);
  gst_caps_unref (caps);

  /* At 1 s, the capsfilter asks for 2 layers at other rates. */
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, change_caps_probe, cf,
      NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);

  stats_targets (enc, t, &n);
  fail_unless_equals_int (n, 2);
  for (guint l = 0; l < 2; l++)
    fail_unless_equals_int (t[l], r2[l]);
  caps = gst_pad_get_current_caps (pad);
  check_caps_rates (caps, r2, 2);
  gst_caps_unref (caps);
  /* 3 -> 2 layers: x264 was reopened once. */
  g_object_get (enc, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, "reconfigurations", &reconf));
  fail_unless_equals_int (reconf, 1);
  gst_structure_free (s);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (cf);
  gst_object_unref (enc);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* -------------------------------------------------------------- stats */

/* The meta lives in the static gstcommon library, so the plugin and this test
 * each have a copy of its registration: both must name one API type and one
 * meta info, whichever registers first. */
GST_START_TEST (test_meta_one_type_across_copies)
{
  GstHarness *h = new_harness ("x264layerenc layers=2 "
      "layer-rates=<200000,100000>");
  GstBuffer *out, *own;
  GstTemporalLayerMeta *m;

  for (guint i = 0; i < 4; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  /* The plugin's copy registered; this copy must take the same type. */
  fail_unless (gst_temporal_layer_meta_api_get_type () ==
      g_type_from_name (GST_TEMPORAL_LAYER_META_API_NAME));
  fail_unless (gst_temporal_layer_meta_get_info () ==
      gst_meta_get_info (GST_TEMPORAL_LAYER_META_INFO_NAME));
  m = (GstTemporalLayerMeta *) gst_buffer_get_meta (out,
      gst_temporal_layer_meta_api_get_type ());
  fail_unless (m != NULL && m->n_layers == 2);

  own = gst_buffer_new ();
  fail_unless (gst_buffer_add_temporal_layer_meta (own, 1, 2, 2, TRUE));
  m = gst_buffer_find_temporal_layer_meta (own);
  fail_unless (m != NULL && m->layer_id == 1 && m->droppable);

  gst_buffer_unref (own);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_stats_fields)
{
  GstHarness *h = new_harness ("x264layerenc layers=3 "
      "layer-rates=<200000,100000,100000>");
  GstStructure *s;
  const gchar *arrays[] = { "layer-frames", "layer-bytes", "layer-targets",
    "layer-measured", "layer-errors", "layer-qp"
  };
  guint64 frames;
  guint i;

  for (i = 0; i < 16; i++)
    fail_unless_equals_int (push_frame (h, i), GST_FLOW_OK);
  g_object_get (h->element, "stats", &s, NULL);
  {
    gchar *str = gst_structure_to_string (s);
    g_print ("%s\n", str);
    g_free (str);
  }
  fail_unless (gst_structure_get_uint64 (s, "frames", &frames));
  fail_unless_equals_int (frames, 16);
  for (i = 0; i < G_N_ELEMENTS (arrays); i++) {
    const GValue *v = gst_structure_get_value (s, arrays[i]);
    fail_unless (v && GST_VALUE_HOLDS_ARRAY (v), "%s", arrays[i]);
    fail_unless_equals_int (gst_value_array_get_size (v), 3);
  }
  /* 16 frames, 3 layers: 4 + 4 + 8. */
  {
    const GValue *v = gst_structure_get_value (s, "layer-frames");
    fail_unless_equals_int (g_value_get_uint64 (gst_value_array_get_value (v,
                0)), 4);
    fail_unless_equals_int (g_value_get_uint64 (gst_value_array_get_value (v,
                2)), 8);
  }
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
x264layerenc_suite (void)
{
  Suite *s = suite_create ("x264layerenc");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_prefixes_hierarchical_p);
  tcase_add_test (tc, test_prefixes_hierarchical_p_frame_threads);
  tcase_add_test (tc, test_prefixes_hierarchical_b);
  tcase_add_test (tc, test_prefixes_live_receiver);
  tcase_add_test (tc, test_layers_clamped_b);
  tcase_add_test (tc, test_zero_delay);
  tcase_add_test (tc, test_meta_survives_rtph264pay);
  tcase_add_test (tc, test_force_key_unit);
  tcase_add_test (tc, test_caps_rates_harness);
  tcase_add_test (tc, test_event_sets_layers);
  tcase_add_test (tc, test_caps_rates_capsfilter);
  tcase_add_test (tc, test_meta_one_type_across_copies);
  tcase_add_test (tc, test_stats_fields);
  return s;
}

GST_CHECK_MAIN (x264layerenc);
