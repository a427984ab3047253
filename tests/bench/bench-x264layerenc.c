/* Benchmark of x264layerenc against x264enc (prints markdown tables).
 *
 * 1. Speed: the same pre-rendered 720p30 frames (videotestsrc smpte,
 *    scrolled 3 pixels per frame) through appsrc ! encoder ! fakesink, as
 *    fast as possible; x264enc and x264layerenc at the same speed-preset,
 *    tune and total bitrate, in the same run, alternating, best of N runs
 *    (another process may load the machine). Wall-clock frames/s and CPU
 *    seconds per frame (user+sys of the process), and the ratio to x264enc.
 * 2. Rate tracking over a step change: total 2 Mbit/s -> 500 kbit/s (at
 *    10 s) -> 2 Mbit/s (at 20 s). x264layerenc (3 layers) gets the
 *    GstLayerRates event from the sink's pad, as a network sink sends it;
 *    x264enc gets its `bitrate` property (kbit/s) set at the same frame.
 *    Error per 1 s window of stream time (PTS) and the time to settle: the
 *    earliest offset after the step from which every 1 s window (sliding by
 *    one frame, until the next step) is within 15% of the target.
 *
 * Usage: bench-x264layerenc [--runs N] [--width W --height H]
 *                           [--append PATH]   (appends the tables to PATH)
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include "gstlayerrates.h"

#define FPS 30
#define DISTINCT 60             /* pre-rendered frames, cycled */
#define SPEED_FRAMES 450
#define TOL 0.15

static gint width = 1280, height = 720;
static GString *out_md;

#define emit(...) G_STMT_START { \
    gchar *_s = g_strdup_printf (__VA_ARGS__); \
    g_print ("%s", _s); g_string_append (out_md, _s); g_free (_s); \
  } G_STMT_END

static void
die (const gchar * what)
{
  g_printerr ("bench-x264layerenc: %s\n", what);
  exit (1);
}

/* ----------------------------------------------------------- frames */

static GstBuffer *rendered[DISTINCT];
static GstCaps *raw_caps;

static void
render_frames (void)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte "
      "horizontal-speed=3 num-buffers=%d ! video/x-raw,format=I420,width=%d,"
      "height=%d,framerate=%d/1 ! appsink name=sink sync=false", DISTINCT,
      width, height, FPS);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (gint i = 0; i < DISTINCT; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    if (!s)
      die ("cannot render frames");
    rendered[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    if (!raw_caps)
      raw_caps = gst_caps_ref (gst_sample_get_caps (s));
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
}

typedef struct
{
  guint pushed, total;
} Feed;

static void
need_data (GstAppSrc * src, guint length, gpointer data)
{
  Feed *f = data;
  GstBuffer *b;

  if (f->pushed >= f->total) {
    gst_app_src_end_of_stream (src);
    return;
  }
  /* Shares the memory of the pre-rendered frame. */
  b = gst_buffer_copy (rendered[f->pushed % DISTINCT]);
  GST_BUFFER_PTS (b) = gst_util_uint64_scale (f->pushed, GST_SECOND, FPS);
  GST_BUFFER_DTS (b) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (b) = GST_SECOND / FPS;
  f->pushed++;
  gst_app_src_push_buffer (src, b);
}

static gdouble
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
count_bytes (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  *(guint64 *) data += gst_buffer_get_size (buf);
}

static void
wait_eos (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  if (!m || GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS)
    die ("pipeline did not reach EOS");
  gst_message_unref (m);
  gst_object_unref (bus);
}

/* One timed run; returns wall seconds, fills cpu seconds and bitrate. */
static gdouble
speed_run (const gchar * enc, gdouble * cpu, gdouble * bps)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "max-buffers=4 ! %s ! fakesink name=sink sync=false "
      "signal-handoffs=true", enc);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  Feed feed = { 0, SPEED_FRAMES };
  GstAppSrcCallbacks cb = { need_data, NULL, NULL };
  guint64 bytes = 0;
  gint64 t0;
  gdouble c0, wall;

  if (!p)
    die (desc);
  g_object_set (src, "caps", raw_caps, NULL);
  gst_app_src_set_callbacks (GST_APP_SRC (src), &cb, &feed, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (count_bytes), &bytes);
  c0 = cpu_seconds ();
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  wait_eos (p);
  wall = (g_get_monotonic_time () - t0) / 1e6;
  *cpu = cpu_seconds () - c0;
  *bps = bytes * 8.0 / ((gdouble) SPEED_FRAMES / FPS);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return wall;
}

static void
bench_speed (guint runs)
{
  struct
  {
    const gchar *name;
    const gchar *enc;
    gdouble best_wall, best_cpu, bps;
  } cfg[] = {
    {"x264enc (reference)", "x264enc speed-preset=veryfast "
          "tune=zerolatency bitrate=2000", 1e9, 1e9, 0},
    /* x264 in the mode x264layerenc aq-strength=0 drives it in (constant
     * QP: no adaptive quantisation), without any rate control. */
    {"x264enc pass=quant (CQP)", "x264enc speed-preset=veryfast "
          "tune=zerolatency pass=quant quantizer=30", 1e9, 1e9, 0},
    {"x264layerenc layers=1", "x264layerenc speed-preset=veryfast "
          "tune=zerolatency layers=1 bitrate=2000", 1e9, 1e9, 0},
    /* The mode before issue 14: constant QP, no AQ (less CPU, lower
     * quality at the same rate: bench-x264layerenc-quality.py). */
    {"x264layerenc layers=1 aq-strength=0", "x264layerenc "
          "speed-preset=veryfast tune=zerolatency layers=1 aq-strength=0 "
          "bitrate=2000", 1e9, 1e9, 0},
    {"x264layerenc layers=3 hierarchical-p", "x264layerenc "
          "speed-preset=veryfast tune=zerolatency layers=3 "
          "bitrate=2000", 1e9, 1e9, 0},
    {"x264layerenc layers=3 hierarchical-b", "x264layerenc "
          "speed-preset=veryfast tune=zerolatency layers=3 "
          "gop-structure=hierarchical-b bitrate=2000", 1e9, 1e9, 0},
  };
  const guint n = G_N_ELEMENTS (cfg);

  for (guint r = 0; r < runs; r++) {
    for (guint i = 0; i < n; i++) {
      gdouble cpu, bps, wall = speed_run (cfg[i].enc, &cpu, &bps);
      cfg[i].best_wall = MIN (cfg[i].best_wall, wall);
      cfg[i].best_cpu = MIN (cfg[i].best_cpu, cpu);
      cfg[i].bps = bps;
    }
  }

  emit ("### Encoding speed, %dx%d@%d, %d frames, speed-preset=veryfast "
      "tune=zerolatency, 2 Mbit/s, best of %u runs\n\n", width, height, FPS,
      SPEED_FRAMES, runs);
  emit ("| encoder | frames/s (wall) | ratio to x264enc | CPU ms/frame | "
      "CPU ratio | bitrate (kbit/s) |\n|---|---|---|---|---|---|\n");
  for (guint i = 0; i < n; i++) {
    gdouble fps = SPEED_FRAMES / cfg[i].best_wall;
    gdouble fps0 = SPEED_FRAMES / cfg[0].best_wall;
    emit ("| %s | %.1f | %.2f | %.2f | %.2f | %.0f |\n", cfg[i].name, fps,
        fps / fps0, 1000 * cfg[i].best_cpu / SPEED_FRAMES,
        cfg[i].best_cpu / cfg[0].best_cpu, cfg[i].bps / 1000);
  }
  emit ("\n");
}

/* ----------------------------------------------------- rate tracking */

#define STEP_SECONDS 30
static const guint step_at[] = { 10, 20 };
static const guint step_rate[] = { 2000000, 500000, 2000000 };

typedef struct
{
  gboolean ours;
  GstElement *enc;
  GstClockTime first;
  gboolean have_first;
  guint next_step;
  guint64 bytes[STEP_SECONDS * FPS];    /* per frame index */
} Track;

static guint
target_at (gdouble t)
{
  guint k = 0;

  while (k < G_N_ELEMENTS (step_at) && t >= step_at[k])
    k++;
  return step_rate[k];
}

static GstPadProbeReturn
track_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Track *t = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime pts = GST_BUFFER_PTS (buf);
  guint idx;

  if (!t->have_first) {
    t->first = pts;
    t->have_first = TRUE;
  }
  pts -= t->first;
  idx = (guint) gst_util_uint64_scale_round (pts, FPS, GST_SECOND);
  if (idx < G_N_ELEMENTS (t->bytes))
    t->bytes[idx] += gst_buffer_get_size (buf);
  /* The step: after the frame that ends the segment left the encoder, as a
   * network sink would ask. */
  if (t->next_step < G_N_ELEMENTS (step_at) &&
      idx + 1 >= step_at[t->next_step] * FPS) {
    guint rate = step_rate[t->next_step + 1];
    if (t->ours) {
      gst_pad_push_event (pad, gst_layer_rates_event_new (&rate, 1));
    } else {
      g_object_set (t->enc, "bitrate", rate / 1000, NULL);
    }
    t->next_step++;
  }
  return GST_PAD_PROBE_OK;
}

static gdouble
window_rate (Track * t, guint from, guint frames)
{
  guint64 b = 0;

  for (guint i = from; i < from + frames && i < G_N_ELEMENTS (t->bytes); i++)
    b += t->bytes[i];
  return b * 8.0 * FPS / frames;
}

static void
track_run (Track * t, const gchar * enc)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte "
      "horizontal-speed=3 num-buffers=%d ! video/x-raw,format=I420,width=%d,"
      "height=%d,framerate=%d/1 ! %s name=enc ! fakesink name=sink "
      "sync=false", STEP_SECONDS * FPS, width, height, FPS, enc);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GstPad *pad;

  if (!p)
    die (desc);
  t->enc = gst_bin_get_by_name (GST_BIN (p), "enc");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, track_probe, t, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  wait_eos (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (t->enc);
  gst_object_unref (p);
  g_free (desc);
}

/* Earliest offset (s) after segment start @s from which every 1 s window
 * inside the segment [s, e) is within TOL; -1 if never. */
static gdouble
settle_time (Track * t, guint s, guint e, guint target)
{
  gint last_bad = -1;

  for (guint i = s; i + FPS <= e; i++) {
    gdouble r = window_rate (t, i, FPS);
    if (fabs (r - target) / target >= TOL)
      last_bad = i;
  }
  if (last_bad < 0)
    return 0.0;
  if ((guint) last_bad + 1 + FPS > e)
    return -1;
  return (gdouble) (last_bad + 1 - s) / FPS;
}

static void
bench_tracking (void)
{
  static Track ours, ref;
  const guint seg[] = { 0, step_at[0] * FPS, step_at[1] * FPS,
    STEP_SECONDS * FPS
  };

  memset (&ours, 0, sizeof (ours));
  memset (&ref, 0, sizeof (ref));
  ours.ours = TRUE;
  track_run (&ours, "x264layerenc speed-preset=veryfast tune=zerolatency "
      "layers=3 bitrate=2000");
  track_run (&ref, "x264enc speed-preset=veryfast tune=zerolatency "
      "bitrate=2000");

  emit ("### Rate tracking over a step change, %dx%d@%d, "
      "2 Mbit/s -> 500 kbit/s (10 s) -> 2 Mbit/s (20 s)\n\n", width, height,
      FPS);
  emit ("x264layerenc: 3 layers (hierarchical-p), one-entry GstLayerRates "
      "event, a new total that the encoder splits over the layers itself "
      "(started from bitrate=2000); x264enc: `bitrate` property (ABR, "
      "tune=zerolatency). Error of each 1 s window of PTS.\n\n");
  emit ("| window (s) | target (kbit/s) | x264layerenc (kbit/s) | error | "
      "x264enc (kbit/s) | error |\n|---|---|---|---|---|---|\n");
  for (guint w = 0; w < STEP_SECONDS; w++) {
    guint target = target_at (w);
    gdouble a = window_rate (&ours, w * FPS, FPS);
    gdouble b = window_rate (&ref, w * FPS, FPS);
    emit ("| %u-%u | %u | %.0f | %+.1f%% | %.0f | %+.1f%% |\n", w, w + 1,
        target / 1000, a / 1000, 100 * (a - target) / target, b / 1000,
        100 * (b - target) / target);
  }
  emit ("\nTime to settle within 15%% (every sliding 1 s window from then "
      "on, until the next step, within 15%% of the target; -1: never):\n\n");
  emit ("| segment | target (kbit/s) | x264layerenc (s) | x264enc (s) |\n"
      "|---|---|---|---|\n");
  for (guint k = 0; k < 3; k++) {
    gdouble so = settle_time (&ours, seg[k], seg[k + 1], step_rate[k]);
    gdouble sr = settle_time (&ref, seg[k], seg[k + 1], step_rate[k]);
    emit ("| %u-%u s | %u | %.2f | %.2f |\n", seg[k] / FPS, seg[k + 1] / FPS,
        step_rate[k] / 1000, so, sr);
  }
  emit ("\n");
}

int
main (int argc, char **argv)
{
  guint runs = 3;
  const gchar *append = NULL;

  gst_init (&argc, &argv);
  for (gint i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--runs") && i + 1 < argc)
      runs = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--width") && i + 1 < argc)
      width = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--height") && i + 1 < argc)
      height = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--append") && i + 1 < argc)
      append = argv[++i];
  }
  if (!gst_element_factory_find ("x264layerenc") ||
      !gst_element_factory_find ("x264enc"))
    die ("x264layerenc or x264enc missing");

  out_md = g_string_new (NULL);
  render_frames ();
  bench_speed (runs);
  bench_tracking ();

  if (append) {
    FILE *f = fopen (append, "a");
    if (!f)
      die ("cannot open the results file");
    fprintf (f, "\n## x264layerenc\n\nRecorded by `bench-x264layerenc "
        "--append docs/results.md` (tests/bench/bench-x264layerenc.c) on "
        "%u cores; the tables are what it prints.\n\n",
        g_get_num_processors ());
    fputs (out_md->str, f);
    fclose (f);
  }
  for (guint i = 0; i < DISTINCT; i++)
    gst_buffer_unref (rendered[i]);
  gst_caps_unref (raw_caps);
  g_string_free (out_md, TRUE);
  return 0;
}
