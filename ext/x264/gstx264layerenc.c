/* x264layerenc: temporal-scalable (layered) H.264 encoder on libx264.
 *
 * Every output buffer belongs to one temporal layer (GstTemporalLayerMeta);
 * layers 0..k of the stream decode on their own at 1/2^(layers-1-k) of the
 * frame rate. x264 runs in CRF mode with forced QPs (adaptive quantisation
 * stays on), or constant-QP mode without AQ; the QP of every frame comes from
 * one closed-loop controller per layer (gstlayerratectl.c) so that each
 * layer meets its own rate. Rates come from the `layer-rates` property, from
 * downstream caps ("layers", "layer-rates") and, at run time, from the
 * GstLayerRates custom upstream event (gst/common/gstlayerrates.h).
 *
 * docs/x264layerenc.md documents the element, the choice of GOP structures
 * and the measurements behind them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstx264layerenc.h"
#include "gsttemporallayermeta.h"
#include "gstlayerratectl.h"
#include "gsth264spsgaps.h"
#include "gstlayerrates.h"

#include <stdint.h>
#include <math.h>
#include <string.h>
#include <x264.h>

GST_DEBUG_CATEGORY_STATIC (gst_x264_layer_enc_debug);
#define GST_CAT_DEFAULT gst_x264_layer_enc_debug

#define MAX_LAYERS GST_X264_LAYER_ENC_MAX_LAYERS_P

/* The window of stream time over which stats measures the rates. */
#define MEASURE_WINDOW GST_SECOND

/* With B-frames the first DTS lie before the first PTS: input timestamps
 * are moved up by this much (the output segment by as much, so running
 * times do not change), as x264enc does. */
#define B_FRAME_MIN_PTS (GST_SECOND * 60 * 60 * 1000)

enum
{
  PROP_0,
  PROP_LAYERS,
  PROP_LAYER_RATES,
  PROP_BITRATE,
  PROP_GOP_STRUCTURE,
  PROP_SPEED_PRESET,
  PROP_TUNE,
  PROP_KEY_INT_MAX,
  PROP_QP_MIN,
  PROP_QP_MAX,
  PROP_THREADS,
  PROP_AQ_STRENGTH,
  PROP_KEY_UNIT_MAX_DELAY,
  PROP_STATS,
};

#define DEFAULT_LAYERS 3
#define DEFAULT_BITRATE 1000      /* kbit/s, as x264enc's */
#define MAX_BITRATE 2048000     /* kbit/s, x264enc's maximum */
#define DEFAULT_GOP GST_X264_LAYER_ENC_GOP_HIERARCHICAL_P
#define DEFAULT_SPEED_PRESET 3  /* veryfast */
#define DEFAULT_TUNE GST_X264_LAYER_ENC_TUNE_ZEROLATENCY
#define DEFAULT_KEY_INT_MAX 0
#define DEFAULT_QP_MIN 10
#define DEFAULT_QP_MAX 51
#define DEFAULT_THREADS 0
#define DEFAULT_AQ_STRENGTH 1.0   /* x264's default, as x264enc runs it */
#define MAX_AQ_STRENGTH 3.0
#define DEFAULT_KEY_UNIT_MAX_DELAY 0

typedef enum
{
  GST_X264_LAYER_ENC_TUNE_NONE = 0,
  GST_X264_LAYER_ENC_TUNE_STILLIMAGE = (1 << 0),
  GST_X264_LAYER_ENC_TUNE_FASTDECODE = (1 << 1),
  GST_X264_LAYER_ENC_TUNE_ZEROLATENCY = (1 << 2),
} GstX264LayerEncTune;

/* One encoded frame seen in the measuring window. */
typedef struct
{
  GstClockTime pts;
  guint layer;
  gsize bytes;
} WindowEntry;

struct _GstX264LayerEnc
{
  GstVideoEncoder parent;

  /* Settings, with the object lock. */
  guint layers;
  guint rates[GST_LAYER_RATES_MAX_LAYERS];      /* from the property */
  guint n_rates;                /* 0: split `bitrate` */
  guint bitrate;                /* kbit/s */
  GstX264LayerEncGop gop;
  gint speed_preset;
  guint tune;
  guint key_int_max;
  guint qp_min, qp_max;
  guint threads;
  gdouble aq_strength;
  guint key_unit_max_delay;     /* ms */

  /* Rates asked for at run time, applied on the next frame (object lock). */
  gboolean rates_pending;
  guint pending_rates[GST_LAYER_RATES_MAX_LAYERS];
  guint pending_n;
  /* Downstream caps asked for another number of layers (object lock). */
  guint pending_layers;
  /* Rates from downstream caps: they win over the property. */
  gboolean caps_rates;
  guint caps_rate[GST_LAYER_RATES_MAX_LAYERS];
  guint caps_n;

  /* State: with the stream lock, except where noted. */
  GstVideoCodecState *input_state;
  x264_t *x264;
  x264_param_t params;
  guint n_layers;               /* of the running encoder */
  GstX264LayerEncGop run_gop;
  guint period;
  gint64 pic_count;             /* x264 pts of the next picture */
  guint64 gop_pos;              /* position in the layering period */
  guint64 since_key;            /* frames since the last keyframe */
  gint64 last_of_layer[MAX_LAYERS];     /* x264 pts, -1: none */
  gint64 last_encoded;          /* x264 pts of the last picture passed */
  /* PTS of the input pictures by x264 pts (modulo in_pts_size), from
   * first_pic (the first of this x264 instance) on: x264's DTS of a picture
   * is the x264 pts of an earlier input picture. */
  GstClockTime *in_pts;
  guint in_pts_size;
  gint64 first_pic;
  GstClockTime frame_duration;
  guint key_interval;           /* frames, 0: none */
  LayerRateCtl ctl;

  /* Stats: with the object lock. */
  guint targets[GST_LAYER_RATES_MAX_LAYERS];
  guint64 layer_frames[MAX_LAYERS];
  guint64 layer_bytes[MAX_LAYERS];
  gint layer_qp[MAX_LAYERS];
  guint64 window_bytes[MAX_LAYERS];
  GQueue window;                /* of WindowEntry */
  GstClockTime first_pts;
  GstClockTime last_pts;
  guint64 events_applied;
  guint64 keyframes;
  guint64 reconfigs;
};

#define gst_x264_layer_enc_parent_class parent_class
G_DEFINE_TYPE (GstX264LayerEnc, gst_x264_layer_enc, GST_TYPE_VIDEO_ENCODER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (x264layerenc, "x264layerenc",
    GST_RANK_NONE, GST_TYPE_X264_LAYER_ENC,
    gst_temporal_layer_meta_get_info ());

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) { I420, NV12 }, "
        "width = (int) [ 16, 4096 ], height = (int) [ 16, 4096 ], "
        "framerate = (fraction) [ 1/1, 300/1 ]"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-h264, stream-format = (string) byte-stream, "
        "alignment = (string) au"));

/* ---------------------------------------------------------------- enums */

#define GST_TYPE_X264_LAYER_ENC_GOP (gst_x264_layer_enc_gop_get_type ())
static GType
gst_x264_layer_enc_gop_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_X264_LAYER_ENC_GOP_HIERARCHICAL_P,
        "Hierarchical P-frames, zero frame delay, up to 5 layers",
        "hierarchical-p"},
    {GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B,
          "B-pyramid, upper layer non-reference B-frames, "
          "delay 2^(layers-1)-1 frames, up to 3 layers", "hierarchical-b"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstX264LayerEncGop", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_X264_LAYER_ENC_PRESET (gst_x264_layer_enc_preset_get_type ())
static GType
gst_x264_layer_enc_preset_get_type (void)
{
  static GType type = 0;
  /* The same values as x264enc's speed-preset (0 = no preset). */
  static const GEnumValue values[] = {
    {0, "No preset", "None"},
    {1, "ultrafast", "ultrafast"},
    {2, "superfast", "superfast"},
    {3, "veryfast", "veryfast"},
    {4, "faster", "faster"},
    {5, "fast", "fast"},
    {6, "medium", "medium"},
    {7, "slow", "slow"},
    {8, "slower", "slower"},
    {9, "veryslow", "veryslow"},
    {10, "placebo", "placebo"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstX264LayerEncPreset", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_X264_LAYER_ENC_TUNE (gst_x264_layer_enc_tune_get_type ())
static GType
gst_x264_layer_enc_tune_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_X264_LAYER_ENC_TUNE_STILLIMAGE, "Still image", "stillimage"},
    {GST_X264_LAYER_ENC_TUNE_FASTDECODE, "Fast decode", "fastdecode"},
    {GST_X264_LAYER_ENC_TUNE_ZEROLATENCY, "Zero latency", "zerolatency"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstX264LayerEncTune", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---------------------------------------------------------- layer maths */

static guint
max_layers_for (GstX264LayerEncGop gop)
{
  return gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B ?
      GST_X264_LAYER_ENC_MAX_LAYERS_B : GST_X264_LAYER_ENC_MAX_LAYERS_P;
}

/* Layer of position @pos (0..period-1) in the period of @n_layers layers:
 * 0 for pos 0, else n_layers-1 minus the number of trailing zero bits. */
static guint
layer_of_pos (guint n_layers, guint64 pos)
{
  guint period = 1u << (n_layers - 1);

  pos %= period;
  if (pos == 0)
    return 0;
  return n_layers - 1 - (guint) __builtin_ctzll (pos);
}

/* Splits @total over @n layers in proportion to @shape (or, if @shape is
 * NULL or sums to 0, to the frames of each layer per period). */
static void
split_total (guint total, guint n, const guint * shape, guint * out)
{
  guint64 sum = 0;
  guint64 given = 0;

  if (shape)
    for (guint l = 0; l < n; l++)
      sum += shape[l];
  for (guint l = 0; l < n; l++) {
    guint64 w, ws;
    if (sum > 0) {
      w = shape[l];
      ws = sum;
    } else {
      w = layer_rate_ctl_frames_per_period (n, l);
      ws = 1u << (n - 1);
    }
    out[l] = (guint) (((guint64) total * w) / ws);
    given += out[l];
  }
  /* Rounding remainder to the base layer. */
  if (n > 0 && given < total)
    out[0] += (guint) (total - given);
  for (guint l = 0; l < n; l++)
    out[l] = MAX (out[l], 1u);
}

/* Maps @n rates onto @n_layers: equal counts are taken as they are, any
 * other count as a total split in the proportions of @current (or the
 * default split). With the object lock. */
static void
map_rates (const guint * rates, guint n, guint n_layers,
    const guint * current, guint * out)
{
  guint64 total = 0;

  if (n == n_layers) {
    memcpy (out, rates, n * sizeof (guint));
    return;
  }
  for (guint l = 0; l < n; l++)
    total += rates[l];
  split_total ((guint) MIN (total, G_MAXUINT), n_layers, current, out);
}

/* The targets the settings ask for, for @n_layers. With the object lock. */
static void
settings_targets (GstX264LayerEnc * self, guint n_layers, guint * out)
{
  if (self->caps_rates)
    map_rates (self->caps_rate, self->caps_n, n_layers, NULL, out);
  else if (self->n_rates > 0)
    map_rates (self->rates, self->n_rates, n_layers, NULL, out);
  else
    split_total (self->bitrate * 1000, n_layers, NULL, out);
}

/* ------------------------------------------------------------ x264 glue */

static void
x264_log_cb (void *priv, int level, const char *fmt, va_list args)
{
  GstDebugLevel gst_level;
  GstObject *obj = priv;

  switch (level) {
    case X264_LOG_ERROR:
      gst_level = GST_LEVEL_ERROR;
      break;
    case X264_LOG_WARNING:
      gst_level = GST_LEVEL_WARNING;
      break;
    case X264_LOG_INFO:
      gst_level = GST_LEVEL_INFO;
      break;
    default:
      gst_level = GST_LEVEL_LOG;
      break;
  }
  if (G_LIKELY (gst_level > _gst_debug_min))
    return;
  gst_debug_log_valist (GST_CAT_DEFAULT, gst_level, __FILE__, "x264", 0,
      G_OBJECT (obj), fmt, args);
}

/* --------------------------------------------------------- timestamps */

/* Sizes the PTS record for the running x264: x264 names as DTS the pts of
 * the input picture (B-frame delay) pictures before the one it outputs,
 * and holds at most its maximum delay of pictures. */
static void
input_pts_reset (GstX264LayerEnc * self)
{
  GstVideoInfo *info = &self->input_state->info;

  g_free (self->in_pts);
  self->in_pts_size = x264_encoder_maximum_delayed_frames (self->x264) +
      self->params.i_bframe + 2;
  self->in_pts = g_new (GstClockTime, self->in_pts_size);
  for (guint i = 0; i < self->in_pts_size; i++)
    self->in_pts[i] = GST_CLOCK_TIME_NONE;
  self->first_pic = self->pic_count;
  self->frame_duration = GST_VIDEO_INFO_FPS_N (info) > 0 ?
      gst_util_uint64_scale (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
      GST_VIDEO_INFO_FPS_N (info)) : GST_CLOCK_TIME_NONE;
}

static void
input_pts_store (GstX264LayerEnc * self, gint64 pic, GstClockTime pts)
{
  self->in_pts[pic % self->in_pts_size] = pts;
}

/* The DTS of an output picture from x264's i_dts (in x264 pts units). The
 * first pictures of a B-frame stream get a DTS before the first PTS: one
 * frame duration per picture earlier. */
static GstClockTime
output_dts (GstX264LayerEnc * self, gint64 i_dts)
{
  GstClockTime first, back;

  if (i_dts >= self->first_pic)
    return self->in_pts[i_dts % self->in_pts_size];
  first = self->in_pts[self->first_pic % self->in_pts_size];
  if (!GST_CLOCK_TIME_IS_VALID (first) ||
      !GST_CLOCK_TIME_IS_VALID (self->frame_duration))
    return GST_CLOCK_TIME_NONE;
  back = (GstClockTime) (self->first_pic - i_dts) * self->frame_duration;
  /* Only without the B_FRAME_MIN_PTS room, i.e. never in practice. */
  return first > back ? first - back : 0;
}

/* Rate control is ours: the QP of every frame is forced through i_qpplus1.
 * With adaptive quantisation x264 runs in CRF mode, the only way to keep AQ
 * (its CQP mode turns AQ off, and ignores quant offsets without it): a
 * forced QP overrides CRF's choice, and x264 then moves each macroblock's QP
 * around it by the AQ offset (measured on scrolled bars at 1 Mbit/s, x264enc:
 * AQ off costs 0.46 dB PSNR and 0.012 SSIM). CRF also makes x264 estimate
 * every frame's cost on the half-resolution picture, which costs CPU;
 * aq-strength=0 keeps the cheaper CQP mode. */
static void
set_rate_control (x264_param_t * p, guint qp_min, guint qp_max,
    gdouble aq_strength)
{
  p->rc.i_qp_min = qp_min;
  p->rc.i_qp_max = qp_max;
  if (aq_strength > 0) {
    p->rc.i_rc_method = X264_RC_CRF;
    /* Unused (every frame has a forced QP) but must be valid. */
    p->rc.f_rf_constant = (qp_min + qp_max) / 2;
    p->rc.f_rf_constant_max = 0;
    p->rc.i_aq_mode = X264_AQ_VARIANCE;
    p->rc.f_aq_strength = aq_strength;
    return;
  }
  p->rc.i_rc_method = X264_RC_CQP;
  /* In CQP mode x264 clamps every QP, forced ones too, to the span of its
   * I/P/B constants (qp_constant -/+ 6*log2 of the ip/pb factors): make that
   * span [qp_min, qp_max]. The factors do nothing else here, as every frame
   * has a forced QP. */
  p->rc.i_qp_constant = (qp_min + qp_max) / 2;
  p->rc.f_ip_factor =
      exp2 ((p->rc.i_qp_constant - (gdouble) qp_min + 0.01) / 6.0);
  p->rc.f_pb_factor =
      exp2 ((qp_max - (gdouble) p->rc.i_qp_constant + 0.01) / 6.0);
}

/* Hands @n rates to the controller: a total only (`bitrate`, or one entry
 * while the controller splits a total) is split by the controller itself,
 * per-layer rates are taken as they are. */
static void
set_ctl_rates (GstX264LayerEnc * self, const guint * rates, guint n,
    gboolean total)
{
  guint64 sum = 0;

  if (!total) {
    layer_rate_ctl_set_targets (&self->ctl, rates);
    return;
  }
  for (guint l = 0; l < n; l++)
    sum += rates[l];
  layer_rate_ctl_set_total (&self->ctl, (guint) MIN (sum, G_MAXUINT));
}

/* The controller's targets (its own split of a total) into stats. With the
 * object lock. */
static void
targets_from_ctl (GstX264LayerEnc * self)
{
  for (guint l = 0; l < self->n_layers; l++)
    self->targets[l] = (guint) lround (self->ctl.target[l]);
}

static gboolean
open_x264 (GstX264LayerEnc * self, guint n_layers, GstX264LayerEncGop gop)
{
  GstVideoInfo *info = &self->input_state->info;
  x264_param_t *p = &self->params;
  gchar *tune = NULL;
  const gchar *preset;
  GPtrArray *tunes = g_ptr_array_new ();
  gint speed_preset;
  guint tune_flags, key_int_max, qp_min, qp_max, threads, key_max_delay;
  gdouble aq_strength;
  gboolean shared;
  guint targets[GST_LAYER_RATES_MAX_LAYERS];
  guint period = 1u << (n_layers - 1);
  gdouble fps;

  GST_OBJECT_LOCK (self);
  speed_preset = self->speed_preset;
  tune_flags = self->tune;
  key_int_max = self->key_int_max;
  qp_min = self->qp_min;
  qp_max = MAX (self->qp_max, qp_min);
  threads = self->threads;
  aq_strength = self->aq_strength;
  key_max_delay = self->key_unit_max_delay;
  settings_targets (self, n_layers, targets);
  shared = !self->caps_rates && self->n_rates == 0;
  GST_OBJECT_UNLOCK (self);

  preset = speed_preset > 0 ? x264_preset_names[speed_preset - 1] : NULL;
  if (tune_flags & GST_X264_LAYER_ENC_TUNE_STILLIMAGE)
    g_ptr_array_add (tunes, (gpointer) "stillimage");
  if (tune_flags & GST_X264_LAYER_ENC_TUNE_FASTDECODE)
    g_ptr_array_add (tunes, (gpointer) "fastdecode");
  if (tune_flags & GST_X264_LAYER_ENC_TUNE_ZEROLATENCY)
    g_ptr_array_add (tunes, (gpointer) "zerolatency");
  g_ptr_array_add (tunes, NULL);
  if (tunes->len > 1)
    tune = g_strjoinv (",", (gchar **) tunes->pdata);
  g_ptr_array_free (tunes, TRUE);

  if (x264_param_default_preset (p, preset, tune) < 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("x264 refused preset %s tune %s", GST_STR_NULL (preset),
            GST_STR_NULL (tune)));
    g_free (tune);
    return FALSE;
  }
  g_free (tune);

  p->pf_log = x264_log_cb;
  p->p_log_private = self;
  /* x264 formats a line per frame at its debug level: only when asked. */
  switch (gst_debug_category_get_threshold (GST_CAT_DEFAULT)) {
    case GST_LEVEL_NONE:
    case GST_LEVEL_ERROR:
    case GST_LEVEL_WARNING:
    case GST_LEVEL_FIXME:
      p->i_log_level = X264_LOG_WARNING;
      break;
    case GST_LEVEL_INFO:
    case GST_LEVEL_DEBUG:
      p->i_log_level = X264_LOG_INFO;
      break;
    default:
      p->i_log_level = X264_LOG_DEBUG;
      break;
  }
  p->i_threads = threads;
  p->i_width = GST_VIDEO_INFO_WIDTH (info);
  p->i_height = GST_VIDEO_INFO_HEIGHT (info);
  p->i_csp = GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_NV12 ?
      X264_CSP_NV12 : X264_CSP_I420;
  p->i_fps_num = GST_VIDEO_INFO_FPS_N (info);
  p->i_fps_den = GST_VIDEO_INFO_FPS_D (info);
  p->i_timebase_num = p->i_fps_den;
  p->i_timebase_den = p->i_fps_num;
  p->b_vfr_input = 0;
  p->vui.i_sar_width = GST_VIDEO_INFO_PAR_N (info);
  p->vui.i_sar_height = GST_VIDEO_INFO_PAR_D (info);

  /* Output for RTP: Annex-B, SPS/PPS in front of every keyframe. */
  p->b_annexb = 1;
  p->b_repeat_headers = 1;
  p->b_aud = 0;

  /* Frame types and keyframes are ours: no scenecut, no adaptive B. */
  p->i_keyint_max = X264_KEYINT_MAX_INFINITE;
  p->i_keyint_min = 1;
  p->i_scenecut_threshold = 0;
  p->b_intra_refresh = 0;
  p->b_open_gop = 0;

  set_rate_control (p, qp_min, qp_max, aq_strength);
  p->rc.b_mb_tree = 0;
  p->rc.i_vbv_buffer_size = 0;
  p->rc.i_vbv_max_bitrate = 0;

  if (n_layers > 1 && gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B) {
    p->i_bframe = period - 1;
    p->i_bframe_adaptive = X264_B_ADAPT_NONE;
    p->i_bframe_pyramid = period > 2 ? X264_B_PYRAMID_NORMAL :
        X264_B_PYRAMID_NONE;
    /* One reference: with more, P-frames pick the B-ref of the previous
     * minigop and the base layer no longer decodes alone (measured). */
    p->i_frame_reference = 1;
    p->rc.i_lookahead = 0;
    p->i_sync_lookahead = 0;
  } else if (n_layers > 1) {
    /* Hierarchical P: one reference in the lists, but a DPB that keeps the
     * last frame of each lower layer through a whole period (a decoder that
     * drops the upper layers fills the frame_num gap with as many frames). */
    p->i_bframe = 0;
    p->i_frame_reference = 1;
    p->i_dpb_size = MIN (period + 1, 16);
    p->rc.i_lookahead = 0;
    p->i_sync_lookahead = 0;
    /* Frame threads (no zerolatency) are fine: every prefix still decodes
     * bit-exact (test_prefixes_hierarchical_p_frame_threads, 3 threads). */
  } else {
    if (tune_flags & GST_X264_LAYER_ENC_TUNE_ZEROLATENCY)
      p->i_bframe = 0;
  }

  self->x264 = x264_encoder_open (p);
  if (!self->x264) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL),
        ("x264_encoder_open failed (%ux%u, %u layers)", p->i_width,
            p->i_height, n_layers));
    return FALSE;
  }
  x264_encoder_parameters (self->x264, p);
  GST_DEBUG_OBJECT (self, "x264 QP range %d-%d", p->rc.i_qp_min,
      p->rc.i_qp_max);
  input_pts_reset (self);

  GST_OBJECT_LOCK (self);
  self->n_layers = n_layers;
  self->run_gop = gop;
  self->period = period;
  GST_OBJECT_UNLOCK (self);
  self->gop_pos = 0;
  self->since_key = 0;
  self->last_encoded = -1;
  for (guint l = 0; l < MAX_LAYERS; l++)
    self->last_of_layer[l] = -1;
  fps = GST_VIDEO_INFO_FPS_D (info) > 0 ?
      (gdouble) GST_VIDEO_INFO_FPS_N (info) / GST_VIDEO_INFO_FPS_D (info) : 30;
  self->key_interval = key_int_max;
  if (self->key_interval == 0)
    self->key_interval = 250;
  layer_rate_ctl_init (&self->ctl, n_layers, fps, p->i_width, p->i_height,
      qp_min, qp_max);
  self->ctl.intra_max_delay = key_max_delay / 1000.0;
  set_ctl_rates (self, targets, n_layers, shared);

  GST_OBJECT_LOCK (self);
  memcpy (self->targets, targets, sizeof (targets));
  self->rates_pending = FALSE;
  GST_OBJECT_UNLOCK (self);

  GST_INFO_OBJECT (self, "opened x264: %dx%d %u/%u fps, %u layer(s), %s, "
      "preset %s, bframes %d, refs %d, dpb %d, threads %d%s, delay %d",
      p->i_width, p->i_height, p->i_fps_num, p->i_fps_den, n_layers,
      gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B ? "hierarchical-b" :
      "hierarchical-p", GST_STR_NULL (preset), p->i_bframe,
      p->i_frame_reference, p->i_dpb_size, p->i_threads,
      p->b_sliced_threads ? " (sliced)" : "",
      x264_encoder_maximum_delayed_frames (self->x264));
  return TRUE;
}

static void
close_x264 (GstX264LayerEnc * self)
{
  if (self->x264) {
    x264_encoder_close (self->x264);
    self->x264 = NULL;
  }
  g_clear_pointer (&self->in_pts, g_free);
  self->in_pts_size = 0;
}

/* --------------------------------------------------------------- output */

static void
window_account (GstX264LayerEnc * self, GstClockTime pts, guint layer,
    gsize bytes)
{
  WindowEntry *e;

  /* With the object lock. */
  self->layer_frames[layer]++;
  self->layer_bytes[layer] += bytes;
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  if (!GST_CLOCK_TIME_IS_VALID (self->first_pts))
    self->first_pts = pts;
  if (!GST_CLOCK_TIME_IS_VALID (self->last_pts) || pts > self->last_pts)
    self->last_pts = pts;
  e = g_new (WindowEntry, 1);
  e->pts = pts;
  e->layer = layer;
  e->bytes = bytes;
  g_queue_push_tail (&self->window, e);
  self->window_bytes[layer] += bytes;
  while ((e = g_queue_peek_head (&self->window)) &&
      e->pts + MEASURE_WINDOW <= self->last_pts) {
    g_queue_pop_head (&self->window);
    self->window_bytes[e->layer] -= e->bytes;
    g_free (e);
  }
}

static void
window_clear (GstX264LayerEnc * self)
{
  WindowEntry *e;

  while ((e = g_queue_pop_head (&self->window)))
    g_free (e);
  memset (self->window_bytes, 0, sizeof (self->window_bytes));
}

/* Layer of a coded picture: in hierarchical-B the picture type decides (x264
 * may turn a B-ref into a P in front of a forced IDR); in hierarchical-P the
 * position it was given. */
static guint
output_layer (GstX264LayerEnc * self, const x264_picture_t * pic,
    guint planned)
{
  if (self->n_layers == 1)
    return 0;
  if (self->run_gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B) {
    if (pic->i_type == X264_TYPE_B)
      return self->n_layers - 1;
    if (pic->i_type == X264_TYPE_BREF)
      return MIN (1u, self->n_layers - 1);
    return 0;
  }
  return planned;
}

/* Length of the Annex B start code at @p (x264 writes 3 or 4 bytes). */
static guint
start_code_length (const guint8 * p, int size)
{
  guint n = 0;

  while ((int) n < size && p[n] == 0)
    n++;
  return (int) n < size && p[n] == 1 ? n + 1 : 0;
}

/* Appends @nal to @au, its SPS with gaps_in_frame_num_value_allowed_flag
 * set: dropping upper layers leaves frame_num gaps (see
 * gsth264spsgaps.h). */
static void
append_nal (GstX264LayerEnc * self, GByteArray * au, const x264_nal_t * nal)
{
  guint sc = start_code_length (nal->p_payload, nal->i_payload);
  GByteArray *sps = NULL;

  if (nal->i_type == NAL_SPS && sc > 0)
    sps = h264_sps_allow_frame_num_gaps (nal->p_payload + sc,
        nal->i_payload - sc);
  if (!sps) {
    if (nal->i_type == NAL_SPS)
      GST_WARNING_OBJECT (self, "could not parse x264's SPS, left as it is");
    g_byte_array_append (au, nal->p_payload, nal->i_payload);
    return;
  }
  g_byte_array_append (au, nal->p_payload, sc);
  g_byte_array_append (au, sps->data, sps->len);
  g_byte_array_unref (sps);
}

/* The access unit of @i_nal NAL units (@size bytes, contiguous) as a
 * buffer; with more than one layer, SPSs allow frame_num gaps. */
static GstBuffer *
output_buffer (GstX264LayerEnc * self, x264_nal_t * nal, int i_nal, int size)
{
  GstVideoEncoder *venc = GST_VIDEO_ENCODER (self);
  GByteArray *au;
  GstBuffer *buf;
  gboolean has_sps = FALSE;

  for (int i = 0; i < i_nal; i++)
    has_sps |= nal[i].i_type == NAL_SPS;
  if (self->n_layers == 1 || !has_sps) {
    buf = gst_video_encoder_allocate_output_buffer (venc, size);
    gst_buffer_fill (buf, 0, nal[0].p_payload, size);
    return buf;
  }
  au = g_byte_array_sized_new (size + 8);
  for (int i = 0; i < i_nal; i++)
    append_nal (self, au, &nal[i]);
  buf = gst_video_encoder_allocate_output_buffer (venc, au->len);
  gst_buffer_fill (buf, 0, au->data, au->len);
  g_byte_array_unref (au);
  return buf;
}

static GstFlowReturn
push_output (GstX264LayerEnc * self, x264_nal_t * nal, int i_nal, int size,
    x264_picture_t * pic_out)
{
  GstVideoEncoder *venc = GST_VIDEO_ENCODER (self);
  GstVideoCodecFrame *frame;
  guint planned, layer;
  gboolean droppable, intra;
  gint qp;
  GstBuffer *buf;

  frame = gst_video_encoder_get_frame (venc, (int) (intptr_t) pic_out->opaque);
  if (!frame) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, (NULL),
        ("x264 returned a picture of an unknown frame"));
    return GST_FLOW_ERROR;
  }
  planned = GPOINTER_TO_UINT (gst_video_codec_frame_get_user_data (frame));
  layer = output_layer (self, pic_out, planned);
  intra = IS_X264_TYPE_I (pic_out->i_type);
  qp = pic_out->i_qpplus1 - 1;
  if (self->n_layers == 1)
    droppable = FALSE;
  else if (self->run_gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B)
    droppable = pic_out->i_type == X264_TYPE_B;
  else
    droppable = layer == self->n_layers - 1;

  layer_rate_ctl_update (&self->ctl, layer, intra, qp, (gsize) size * 8);

  buf = output_buffer (self, nal, i_nal, size);
  gst_buffer_add_temporal_layer_meta (buf, layer, self->n_layers,
      self->period, droppable);
  if (droppable)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DROPPABLE);
  frame->output_buffer = buf;
  frame->dts = output_dts (self, pic_out->i_dts);
  if (pic_out->b_keyframe)
    GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT (frame);
  else
    GST_VIDEO_CODEC_FRAME_UNSET_SYNC_POINT (frame);

  GST_OBJECT_LOCK (self);
  if (self->ctl.total > 0)
    targets_from_ctl (self);
  window_account (self, frame->pts, layer, size);
  self->layer_qp[layer] = qp;
  if (pic_out->b_keyframe)
    self->keyframes++;
  GST_OBJECT_UNLOCK (self);

  GST_LOG_OBJECT (self, "frame %u pts %" GST_TIME_FORMAT " type %d layer %u "
      "qp %d %d bytes%s", frame->system_frame_number,
      GST_TIME_ARGS (frame->pts), pic_out->i_type, layer, qp, size,
      droppable ? " droppable" : "");

  return gst_video_encoder_finish_frame (venc, frame);
}

static GstFlowReturn
encode_picture (GstX264LayerEnc * self, x264_picture_t * pic_in)
{
  x264_picture_t pic_out;
  x264_nal_t *nal = NULL;
  int i_nal = 0, size;

  x264_picture_init (&pic_out);
  size = x264_encoder_encode (self->x264, &nal, &i_nal, pic_in, &pic_out);
  if (size < 0) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, (NULL),
        ("x264_encoder_encode failed"));
    return GST_FLOW_ERROR;
  }
  if (size == 0)
    return GST_FLOW_OK;
  return push_output (self, nal, i_nal, size, &pic_out);
}

static GstFlowReturn
drain (GstX264LayerEnc * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if (!self->x264)
    return GST_FLOW_OK;
  while (ret == GST_FLOW_OK && x264_encoder_delayed_frames (self->x264) > 0)
    ret = encode_picture (self, NULL);
  return ret;
}

/* ------------------------------------------------------------ the frame */

/* Applies rates asked for by event, property or caps. With the stream
 * lock. */
static void
apply_pending (GstX264LayerEnc * self)
{
  guint targets[GST_LAYER_RATES_MAX_LAYERS];
  gboolean apply = FALSE, total = FALSE;

  GST_OBJECT_LOCK (self);
  if (self->rates_pending) {
    /* A total stays a total while the controller splits one. */
    total = self->ctl.total > 0 && self->pending_n != self->n_layers;
    map_rates (self->pending_rates, self->pending_n, self->n_layers,
        self->targets, targets);
    memcpy (self->targets, targets, self->n_layers * sizeof (guint));
    self->rates_pending = FALSE;
    self->events_applied++;
    apply = TRUE;
  }
  GST_OBJECT_UNLOCK (self);

  if (apply) {
    GST_DEBUG_OBJECT (self, "new targets: %u layer(s), base %u bit/s",
        self->n_layers, targets[0]);
    set_ctl_rates (self, targets, self->n_layers, total);
    GST_OBJECT_LOCK (self);
    targets_from_ctl (self);
    GST_OBJECT_UNLOCK (self);
  }
}

static void set_output_caps (GstX264LayerEnc * self, guint n_layers,
    const guint * targets);

/* The caps say the running layers and targets (finish_frame negotiates). */
static void
update_output_caps (GstX264LayerEnc * self)
{
  guint targets[GST_LAYER_RATES_MAX_LAYERS];

  GST_OBJECT_LOCK (self);
  memcpy (targets, self->targets, sizeof (targets));
  GST_OBJECT_UNLOCK (self);
  set_output_caps (self, self->n_layers, targets);
}

static GstFlowReturn
reopen (GstX264LayerEnc * self, guint n_layers)
{
  GstFlowReturn ret = drain (self);

  close_x264 (self);
  if (!open_x264 (self, n_layers, self->run_gop))
    return GST_FLOW_NOT_NEGOTIATED;
  GST_OBJECT_LOCK (self);
  self->reconfigs++;
  GST_OBJECT_UNLOCK (self);
  return ret;
}

/* A reopen for the layers of a GstLayerRates event keeps that event's
 * rates pending (open_x264 takes the settings' and clears them). */
static GstFlowReturn
reopen_keeping_rates (GstX264LayerEnc * self, guint n_layers)
{
  gboolean pending;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  pending = self->rates_pending;
  GST_OBJECT_UNLOCK (self);
  ret = reopen (self, n_layers);
  GST_OBJECT_LOCK (self);
  self->rates_pending |= pending;
  GST_OBJECT_UNLOCK (self);
  return ret;
}

static GstFlowReturn
gst_x264_layer_enc_handle_frame (GstVideoEncoder * venc,
    GstVideoCodecFrame * frame)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  GstVideoFrame vframe;
  x264_picture_t pic;
  gboolean key;
  guint layer, pending_layers;
  gint64 pts;
  GstFlowReturn ret;

  if (!self->x264) {
    gst_video_codec_frame_unref (frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  GST_OBJECT_LOCK (self);
  pending_layers = self->pending_layers;
  self->pending_layers = 0;
  GST_OBJECT_UNLOCK (self);
  if (pending_layers && pending_layers != self->n_layers) {
    GST_INFO_OBJECT (self, "downstream asks for %u layers", pending_layers);
    ret = reopen_keeping_rates (self, pending_layers);
    if (ret != GST_FLOW_OK) {
      gst_video_codec_frame_unref (frame);
      return ret;
    }
  }
  apply_pending (self);
  if (pending_layers)
    update_output_caps (self);

  if (!gst_video_frame_map (&vframe, &self->input_state->info,
          frame->input_buffer, GST_MAP_READ)) {
    gst_video_codec_frame_unref (frame);
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, (NULL), ("cannot map frame"));
    return GST_FLOW_ERROR;
  }

  key = GST_VIDEO_CODEC_FRAME_IS_FORCE_KEYFRAME (frame) || self->since_key == 0
      || (self->key_interval > 0 && self->since_key >= self->key_interval
      && self->gop_pos % self->period == 0);
  if (key) {
    self->gop_pos = 0;
    self->since_key = 0;
    for (guint l = 0; l < MAX_LAYERS; l++)
      self->last_of_layer[l] = -1;
  }
  layer = layer_of_pos (self->n_layers, self->gop_pos);
  pts = self->pic_count++;
  input_pts_store (self, pts, frame->pts);

  x264_picture_init (&pic);
  pic.img.i_csp = self->params.i_csp;
  pic.img.i_plane = GST_VIDEO_FRAME_N_PLANES (&vframe);
  for (guint i = 0; i < (guint) pic.img.i_plane; i++) {
    pic.img.plane[i] = GST_VIDEO_FRAME_PLANE_DATA (&vframe, i);
    pic.img.i_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&vframe, i);
  }
  pic.i_pts = pts;
  pic.opaque = (void *) (intptr_t) frame->system_frame_number;
  gst_video_codec_frame_set_user_data (frame, GUINT_TO_POINTER (layer), NULL);

  if (key) {
    pic.i_type = X264_TYPE_IDR;
  } else if (self->n_layers > 1 &&
      self->run_gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B) {
    if (layer == 0)
      pic.i_type = X264_TYPE_P;
    else if (layer == self->n_layers - 1)
      pic.i_type = X264_TYPE_B;
    else
      pic.i_type = X264_TYPE_BREF;
  } else {
    pic.i_type = X264_TYPE_P;
    if (self->n_layers > 1) {
      /* Forget every picture newer than the last one of a layer <= this
       * one: this picture may only reference its own layer and below. */
      gint64 base = -1;
      for (guint l = 0; l <= layer; l++)
        base = MAX (base, self->last_of_layer[l]);
      if (base >= 0 && self->last_encoded > base)
        x264_encoder_invalidate_reference (self->x264, base + 1);
    }
  }
  pic.i_qpplus1 = layer_rate_ctl_qp (&self->ctl, layer, key) + 1;
  GST_LOG_OBJECT (self, "frame %u: layer %u, qp %d%s",
      frame->system_frame_number, layer, pic.i_qpplus1 - 1, key ? ", IDR" : "");

  self->last_of_layer[layer] = pts;
  self->last_encoded = pts;
  self->gop_pos++;
  self->since_key++;

  /* The frame stays in the base class's list; x264 hands it back through
   * pic.opaque. */
  gst_video_codec_frame_unref (frame);
  ret = encode_picture (self, &pic);
  gst_video_frame_unmap (&vframe);
  return ret;
}

/* ---------------------------------------------------------- negotiation */

/* Reads layers and rates that downstream proposes. FALSE if it proposes
 * none (or nothing fixed). */
static gboolean
downstream_rates (GstX264LayerEnc * self, guint * rates, guint * n,
    guint * layers)
{
  GstPad *srcpad = GST_VIDEO_ENCODER_SRC_PAD (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (srcpad);
  GstCaps *peer = gst_pad_peer_query_caps (srcpad, tmpl);
  gboolean ret = FALSE;
  gint l;

  *n = 0;
  *layers = 0;
  gst_caps_unref (tmpl);
  if (peer && !gst_caps_is_empty (peer) && !gst_caps_is_any (peer)) {
    const GstStructure *s = gst_caps_get_structure (peer, 0);

    if (gst_layer_rates_structure_get (s, rates, n)) {
      *layers = *n;
      ret = TRUE;
    } else if (gst_structure_get_int (s, GST_LAYER_RATES_CAPS_LAYERS, &l)
        && l >= 1) {
      *layers = l;
      ret = TRUE;
    }
  }
  GST_DEBUG_OBJECT (self, "downstream %" GST_PTR_FORMAT " -> %u layers, "
      "%u rates", peer, *layers, *n);
  if (peer)
    gst_caps_unref (peer);
  return ret;
}

/* Output caps with @n_layers and @targets; the base class sets them on its
 * next negotiation. */
static void
set_output_caps (GstX264LayerEnc * self, guint n_layers, const guint * targets)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-h264",
      "stream-format", G_TYPE_STRING, "byte-stream",
      "alignment", G_TYPE_STRING, "au", NULL);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  GstVideoCodecState *out;

  gst_structure_set (s, GST_LAYER_RATES_CAPS_LAYERS, G_TYPE_INT,
      (gint) n_layers, NULL);
  gst_layer_rates_structure_set (s, targets, n_layers);
  out = gst_video_encoder_set_output_state (GST_VIDEO_ENCODER (self), caps,
      self->input_state);
  gst_video_codec_state_unref (out);
}

/* Takes what downstream proposes into the settings. Returns the number of
 * layers to run. */
static guint
take_downstream (GstX264LayerEnc * self, GstX264LayerEncGop gop)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n, layers, run_layers;

  GST_OBJECT_LOCK (self);
  run_layers = self->layers;
  GST_OBJECT_UNLOCK (self);

  if (downstream_rates (self, rates, &n, &layers)) {
    if (layers > max_layers_for (gop)) {
      GST_WARNING_OBJECT (self, "downstream asks for %u layers, %s has at "
          "most %u", layers, gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B ?
          "hierarchical-b" : "hierarchical-p", max_layers_for (gop));
      layers = max_layers_for (gop);
    }
    run_layers = layers;
    if (n > 0) {
      GST_OBJECT_LOCK (self);
      self->caps_rates = TRUE;
      memcpy (self->caps_rate, rates, n * sizeof (guint));
      self->caps_n = n;
      GST_OBJECT_UNLOCK (self);
    }
  }
  return MIN (run_layers, max_layers_for (gop));
}

static gboolean
gst_x264_layer_enc_set_format (GstVideoEncoder * venc,
    GstVideoCodecState * state)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  GstX264LayerEncGop gop;
  guint layers;
  GstClockTime latency;
  gint delayed;

  if (self->x264) {
    drain (self);
    close_x264 (self);
  }
  if (self->input_state)
    gst_video_codec_state_unref (self->input_state);
  self->input_state = gst_video_codec_state_ref (state);

  GST_OBJECT_LOCK (self);
  gop = self->gop;
  self->caps_rates = FALSE;
  GST_OBJECT_UNLOCK (self);
  layers = take_downstream (self, gop);

  if (!open_x264 (self, layers, gop))
    return FALSE;

  delayed = x264_encoder_maximum_delayed_frames (self->x264);
  latency = GST_VIDEO_INFO_FPS_N (&state->info) > 0 ?
      gst_util_uint64_scale (delayed * GST_SECOND,
      GST_VIDEO_INFO_FPS_D (&state->info), GST_VIDEO_INFO_FPS_N (&state->info))
      : 0;
  gst_video_encoder_set_latency (venc, latency, latency);

  update_output_caps (self);
  return gst_video_encoder_negotiate (venc);
}

/* Called on RECONFIGURE (and from set_format): takes new layers/rates from
 * downstream, puts them in the caps, and lets the base class set them. */
static gboolean
gst_x264_layer_enc_negotiate (GstVideoEncoder * venc)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n, layers;
  guint targets[GST_LAYER_RATES_MAX_LAYERS];

  if (self->x264 && self->input_state &&
      downstream_rates (self, rates, &n, &layers)) {
    layers = MIN (layers, max_layers_for (self->run_gop));
    GST_OBJECT_LOCK (self);
    if (n > 0) {
      self->caps_rates = TRUE;
      memcpy (self->caps_rate, rates, n * sizeof (guint));
      self->caps_n = n;
    }
    if (layers != self->n_layers) {
      /* Caps of the new layer count now; the encoder follows on the next
       * frame (handle_frame reopens it). */
      self->pending_layers = layers;
      settings_targets (self, layers, targets);
    } else {
      if (n > 0) {
        guint mapped[GST_LAYER_RATES_MAX_LAYERS];
        map_rates (rates, n, layers, self->targets, mapped);
        if (memcmp (mapped, self->targets, layers * sizeof (guint))) {
          memcpy (self->pending_rates, mapped, layers * sizeof (guint));
          self->pending_n = layers;
          self->rates_pending = TRUE;
          /* Stats and caps show them already. */
          memcpy (self->targets, mapped, layers * sizeof (guint));
        }
      }
      memcpy (targets, self->targets, sizeof (targets));
    }
    GST_OBJECT_UNLOCK (self);
    set_output_caps (self, layers, targets);
  }
  return GST_VIDEO_ENCODER_CLASS (parent_class)->negotiate (venc);
}

static GstFlowReturn
gst_x264_layer_enc_finish (GstVideoEncoder * venc)
{
  return drain (GST_X264_LAYER_ENC (venc));
}

static gboolean
gst_x264_layer_enc_flush (GstVideoEncoder * venc)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  guint layers = self->n_layers;

  /* Drop what x264 holds and start again with an IDR. */
  if (self->x264) {
    close_x264 (self);
    return open_x264 (self, layers, self->run_gop);
  }
  return TRUE;
}

static gboolean
gst_x264_layer_enc_src_event (GstVideoEncoder * venc, GstEvent * event)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n;

  if (gst_layer_rates_event_parse (event, rates, &n)) {
    GST_DEBUG_OBJECT (self, "layer-rates event with %u rate(s), first %u", n,
        rates[0]);
    GST_OBJECT_LOCK (self);
    memcpy (self->pending_rates, rates, n * sizeof (guint));
    self->pending_n = n;
    self->rates_pending = TRUE;
    /* Several rates are one per layer: their count is the layers the sink
     * sends (a payloader such as rtph264pay keeps the caps' "layers" from
     * reaching us, but passes the event). One rate is a total. */
    if (n > 1)
      self->pending_layers = MIN (n, max_layers_for (self->run_gop));
    GST_OBJECT_UNLOCK (self);
    gst_event_unref (event);
    return TRUE;
  }
  return GST_VIDEO_ENCODER_CLASS (parent_class)->src_event (venc, event);
}

static gboolean
gst_x264_layer_enc_start (GstVideoEncoder * venc)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);
  GstX264LayerEncGop gop;

  GST_OBJECT_LOCK (self);
  memset (self->layer_frames, 0, sizeof (self->layer_frames));
  memset (self->layer_bytes, 0, sizeof (self->layer_bytes));
  for (guint l = 0; l < MAX_LAYERS; l++)
    self->layer_qp[l] = -1;
  window_clear (self);
  self->first_pts = self->last_pts = GST_CLOCK_TIME_NONE;
  self->events_applied = self->keyframes = self->reconfigs = 0;
  self->rates_pending = FALSE;
  self->pending_layers = 0;
  gop = self->gop;
  GST_OBJECT_UNLOCK (self);
  self->pic_count = 0;
  gst_video_encoder_set_min_pts (venc,
      gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B ? B_FRAME_MIN_PTS :
      GST_CLOCK_TIME_NONE);
  return TRUE;
}

static gboolean
gst_x264_layer_enc_stop (GstVideoEncoder * venc)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (venc);

  close_x264 (self);
  if (self->input_state) {
    gst_video_codec_state_unref (self->input_state);
    self->input_state = NULL;
  }
  GST_OBJECT_LOCK (self);
  window_clear (self);
  self->caps_rates = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_x264_layer_enc_propose_allocation (GstVideoEncoder * venc,
    GstQuery * query)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return GST_VIDEO_ENCODER_CLASS (parent_class)->propose_allocation (venc,
      query);
}

/* ---------------------------------------------------------- properties */

static GstStructure *
make_stats (GstX264LayerEnc * self)
{
  GstStructure *s;
  GValue frames = G_VALUE_INIT, bytes = G_VALUE_INIT, targets = G_VALUE_INIT;
  GValue measured = G_VALUE_INIT, errors = G_VALUE_INIT, qps = G_VALUE_INIT;
  GValue v = G_VALUE_INIT;
  guint n;
  gdouble span;
  guint64 total_frames = 0, total_bytes = 0, win_total = 0;
  guint64 target_total = 0;

  g_value_init (&frames, GST_TYPE_ARRAY);
  g_value_init (&bytes, GST_TYPE_ARRAY);
  g_value_init (&targets, GST_TYPE_ARRAY);
  g_value_init (&measured, GST_TYPE_ARRAY);
  g_value_init (&errors, GST_TYPE_ARRAY);
  g_value_init (&qps, GST_TYPE_ARRAY);

  GST_OBJECT_LOCK (self);
  n = self->x264 ? self->n_layers : 0;
  /* The window spans 1 s of stream time once the stream is that long. */
  span = 1.0;
  if (GST_CLOCK_TIME_IS_VALID (self->first_pts) &&
      self->last_pts - self->first_pts < MEASURE_WINDOW) {
    gdouble dur = self->input_state &&
        GST_VIDEO_INFO_FPS_N (&self->input_state->info) > 0 ?
        (gdouble) GST_VIDEO_INFO_FPS_D (&self->input_state->info) /
        GST_VIDEO_INFO_FPS_N (&self->input_state->info) : 0;
    span = (gdouble) (self->last_pts - self->first_pts) / GST_SECOND + dur;
    if (span <= 0)
      span = 1.0;
  }
  for (guint l = 0; l < n; l++) {
    gdouble m = self->window_bytes[l] * 8.0 / span;
    total_frames += self->layer_frames[l];
    total_bytes += self->layer_bytes[l];
    win_total += self->window_bytes[l];
    target_total += self->targets[l];

    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, self->layer_frames[l]);
    gst_value_array_append_and_take_value (&frames, &v);
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, self->layer_bytes[l]);
    gst_value_array_append_and_take_value (&bytes, &v);
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, (gint) self->targets[l]);
    gst_value_array_append_and_take_value (&targets, &v);
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, (gint) m);
    gst_value_array_append_and_take_value (&measured, &v);
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, self->targets[l] ?
        (m - self->targets[l]) / self->targets[l] : 0.0);
    gst_value_array_append_and_take_value (&errors, &v);
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, self->layer_qp[l]);
    gst_value_array_append_and_take_value (&qps, &v);
  }
  s = gst_structure_new ("x264layerenc-stats",
      "layers", G_TYPE_UINT, n,
      "gop-structure", G_TYPE_STRING,
      self->run_gop == GST_X264_LAYER_ENC_GOP_HIERARCHICAL_B ?
      "hierarchical-b" : "hierarchical-p",
      "frames", G_TYPE_UINT64, total_frames,
      "bytes", G_TYPE_UINT64, total_bytes,
      "keyframes", G_TYPE_UINT64, self->keyframes,
      "rate-changes", G_TYPE_UINT64, self->events_applied,
      "reconfigurations", G_TYPE_UINT64, self->reconfigs,
      "bitrate-target", G_TYPE_UINT, (guint) MIN (target_total, G_MAXUINT),
      "bitrate-measured", G_TYPE_UINT, (guint) (win_total * 8.0 / span), NULL);
  GST_OBJECT_UNLOCK (self);

  gst_structure_take_value (s, "layer-frames", &frames);
  gst_structure_take_value (s, "layer-bytes", &bytes);
  gst_structure_take_value (s, "layer-targets", &targets);
  gst_structure_take_value (s, "layer-measured", &measured);
  gst_structure_take_value (s, "layer-errors", &errors);
  gst_structure_take_value (s, "layer-qp", &qps);
  return s;
}

static void
gst_x264_layer_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LAYERS:
      self->layers = g_value_get_uint (value);
      break;
    case PROP_LAYER_RATES:{
      guint n = gst_value_array_get_size (value);
      guint rates[GST_LAYER_RATES_MAX_LAYERS];
      guint k = 0;

      for (guint i = 0; i < n && k < GST_LAYER_RATES_MAX_LAYERS; i++) {
        const GValue *r = gst_value_array_get_value (value, i);
        gint64 x = 0;
        if (G_VALUE_HOLDS_INT (r))
          x = g_value_get_int (r);
        else if (G_VALUE_HOLDS_UINT (r))
          x = g_value_get_uint (r);
        if (x > 0)
          rates[k++] = (guint) x;
      }
      memcpy (self->rates, rates, k * sizeof (guint));
      self->n_rates = k;
      /* While running: applied on the next frame (caps from downstream are
       * replaced by an explicit setting). */
      if (k > 0 && self->x264) {
        memcpy (self->pending_rates, rates, k * sizeof (guint));
        self->pending_n = k;
        self->rates_pending = TRUE;
        self->caps_rates = FALSE;
      }
      break;
    }
    case PROP_BITRATE:
      self->bitrate = g_value_get_uint (value);
      if (self->n_rates == 0 && self->x264) {
        self->pending_rates[0] = self->bitrate * 1000;
        self->pending_n = 1;
        self->rates_pending = TRUE;
      }
      break;
    case PROP_GOP_STRUCTURE:
      self->gop = g_value_get_enum (value);
      break;
    case PROP_SPEED_PRESET:
      self->speed_preset = g_value_get_enum (value);
      break;
    case PROP_TUNE:
      self->tune = g_value_get_flags (value);
      break;
    case PROP_KEY_INT_MAX:
      self->key_int_max = g_value_get_uint (value);
      break;
    case PROP_QP_MIN:
      self->qp_min = g_value_get_uint (value);
      break;
    case PROP_QP_MAX:
      self->qp_max = g_value_get_uint (value);
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    case PROP_AQ_STRENGTH:
      self->aq_strength = g_value_get_double (value);
      break;
    case PROP_KEY_UNIT_MAX_DELAY:
      self->key_unit_max_delay = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_x264_layer_enc_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (object);

  switch (prop_id) {
    case PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      return;
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LAYERS:
      g_value_set_uint (value, self->layers);
      break;
    case PROP_LAYER_RATES:
      for (guint i = 0; i < self->n_rates; i++) {
        GValue r = G_VALUE_INIT;
        g_value_init (&r, G_TYPE_INT);
        g_value_set_int (&r, (gint) MIN (self->rates[i], (guint) G_MAXINT));
        gst_value_array_append_and_take_value (value, &r);
      }
      break;
    case PROP_BITRATE:
      g_value_set_uint (value, self->bitrate);
      break;
    case PROP_GOP_STRUCTURE:
      g_value_set_enum (value, self->gop);
      break;
    case PROP_SPEED_PRESET:
      g_value_set_enum (value, self->speed_preset);
      break;
    case PROP_TUNE:
      g_value_set_flags (value, self->tune);
      break;
    case PROP_KEY_INT_MAX:
      g_value_set_uint (value, self->key_int_max);
      break;
    case PROP_QP_MIN:
      g_value_set_uint (value, self->qp_min);
      break;
    case PROP_QP_MAX:
      g_value_set_uint (value, self->qp_max);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    case PROP_AQ_STRENGTH:
      g_value_set_double (value, self->aq_strength);
      break;
    case PROP_KEY_UNIT_MAX_DELAY:
      g_value_set_uint (value, self->key_unit_max_delay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_x264_layer_enc_finalize (GObject * object)
{
  GstX264LayerEnc *self = GST_X264_LAYER_ENC (object);

  window_clear (self);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_x264_layer_enc_class_init (GstX264LayerEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoEncoderClass *venc_class = GST_VIDEO_ENCODER_CLASS (klass);

  gobject_class->set_property = gst_x264_layer_enc_set_property;
  gobject_class->get_property = gst_x264_layer_enc_get_property;
  gobject_class->finalize = gst_x264_layer_enc_finalize;

  g_object_class_install_property (gobject_class, PROP_LAYERS,
      g_param_spec_uint ("layers", "Layers",
          "Number of cumulative temporal layers, in layers; layer k runs at "
          "1/2^(layers-1-k) of the frame rate (hierarchical-p: up to 5, "
          "hierarchical-b: up to 3). Downstream caps with a fixed "
          "\"layers\" field override it", 1, GST_X264_LAYER_ENC_MAX_LAYERS_P,
          DEFAULT_LAYERS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LAYER_RATES,
      gst_param_spec_array ("layer-rates", "Layer rates",
          "Target rate of every layer in bit/s (not kbit/s: the unit of the "
          "sinks' layer-rates, the caps and the GstLayerRates event), not "
          "cumulative, one entry per layer (another count, e.g. one entry: "
          "their total, split in proportion to the frames of each layer at "
          "the start, in the current proportions while running). Empty: use "
          "bitrate. Changes apply on the next frame",
          g_param_spec_int ("rate", "Rate", "Rate of one layer in bit/s", 1,
              G_MAXINT, 1000000, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bitrate",
          "Total target rate in kbit/s, as x264enc's bitrate, used when "
          "layer-rates is empty; split over the layers in proportion to "
          "their frames. Changes apply on the next frame", 1, MAX_BITRATE,
          DEFAULT_BITRATE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_GOP_STRUCTURE,
      g_param_spec_enum ("gop-structure", "GOP structure",
          "How the temporal layers are built (no unit)",
          GST_TYPE_X264_LAYER_ENC_GOP, DEFAULT_GOP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SPEED_PRESET,
      g_param_spec_enum ("speed-preset", "Speed preset",
          "x264 preset (speed against compression), as x264enc's (no unit)",
          GST_TYPE_X264_LAYER_ENC_PRESET, DEFAULT_SPEED_PRESET,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TUNE,
      g_param_spec_flags ("tune", "Tune",
          "x264 tunings, as x264enc's (no unit; zerolatency: no lookahead, "
          "sliced threads, zero frame delay with hierarchical-p)",
          GST_TYPE_X264_LAYER_ENC_TUNE, DEFAULT_TUNE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_KEY_INT_MAX,
      g_param_spec_uint ("key-int-max", "Key-frame interval",
          "Maximal distance between IDR frames in frames, moved to the next "
          "base-layer frame (0 = 250, x264's default)", 0, G_MAXINT,
          DEFAULT_KEY_INT_MAX, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_QP_MIN,
      g_param_spec_uint ("qp-min", "Minimum QP",
          "Lowest quantiser the rate control may choose, in QP (H.264 "
          "quantiser steps, 0..51)", 0, 51, DEFAULT_QP_MIN,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_QP_MAX,
      g_param_spec_uint ("qp-max", "Maximum QP",
          "Highest quantiser the rate control may choose, in QP (H.264 "
          "quantiser steps, 0..51)", 0, 51, DEFAULT_QP_MAX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "x264 worker threads, in threads (0 = automatic)", 0, 64,
          DEFAULT_THREADS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_AQ_STRENGTH,
      g_param_spec_double ("aq-strength", "AQ strength",
          "Strength of x264's adaptive quantisation (variance AQ), in x264's "
          "aq-strength units (1.0 = x264's and x264enc's default): moves "
          "each macroblock's QP around the frame's by its texture. "
          "0 = off: x264 then runs in constant-QP mode, about a fifth less "
          "CPU, lower quality (SSIM) at the same rate", 0, MAX_AQ_STRENGTH,
          DEFAULT_AQ_STRENGTH, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_KEY_UNIT_MAX_DELAY,
      g_param_spec_uint ("key-unit-max-delay", "Key unit max delay",
          "Most bits an IDR frame may take, in ms of its layer's rate: how "
          "long a key unit takes to cross a link that carries the base layer "
          "alone, e.g. to a member who just joined behind a slow link "
          "(0 = 3 frames of the layer's budget: with 3 temporal layers at "
          "15 fps, 800 ms)", 0, 10000, DEFAULT_KEY_UNIT_MAX_DELAY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Read-only x264layerenc-stats structure. Rates are bit/s (not "
          "kbit/s), measured over the last 1 s of stream time (PTS); per-layer "
          "fields are arrays, entry k = layer k. Fields: "
          "layers: layers of the running encoder (count, 0 before it runs); "
          "gop-structure: hierarchical-p or hierarchical-b (string); "
          "frames: frames coded since start, all layers (frames); "
          "bytes: coded bytes since start, all layers (bytes); "
          "keyframes: IDR frames coded (frames); "
          "rate-changes: rate changes applied from events, properties or "
          "caps (count); "
          "reconfigurations: x264 reopened for a new layer count (count); "
          "bitrate-target: sum of the layer targets (bit/s); "
          "bitrate-measured: rate of all layers over the last 1 s (bit/s); "
          "layer-frames: frames coded per layer since start (frames); "
          "layer-bytes: bytes coded per layer since start (bytes); "
          "layer-targets: target rate per layer now (bit/s); "
          "layer-measured: rate per layer over the last 1 s (bit/s); "
          "layer-errors: (measured - target) / target per layer (fraction, "
          "0.05 = 5% over); "
          "layer-qp: QP of the layer's last frame (QP, -1 = none yet)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "x264 temporal-layer encoder", "Codec/Encoder/Video",
      "H.264 encoder with temporal layers and per-layer rate control. "
      "bitrate is kbit/s as in x264enc; layer-rates and stats are bit/s. "
      "Example: gst-launch-1.0 videotestsrc is-live=true ! "
      "video/x-raw,width=640,height=360,framerate=30/1 ! x264layerenc "
      "layers=3 bitrate=800 ! rtph264pay ! udpsink host=127.0.0.1 port=5004",
      "gst-rtp-transports");

  venc_class->start = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_start);
  venc_class->stop = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_stop);
  venc_class->set_format = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_set_format);
  venc_class->handle_frame =
      GST_DEBUG_FUNCPTR (gst_x264_layer_enc_handle_frame);
  venc_class->finish = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_finish);
  venc_class->flush = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_flush);
  venc_class->negotiate = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_negotiate);
  venc_class->src_event = GST_DEBUG_FUNCPTR (gst_x264_layer_enc_src_event);
  venc_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_x264_layer_enc_propose_allocation);

  GST_DEBUG_CATEGORY_INIT (gst_x264_layer_enc_debug, "x264layerenc", 0,
      "x264 temporal-layer encoder");

  gst_type_mark_as_plugin_api (GST_TYPE_X264_LAYER_ENC_GOP, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_X264_LAYER_ENC_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_X264_LAYER_ENC_TUNE, 0);
}

static void
gst_x264_layer_enc_init (GstX264LayerEnc * self)
{
  self->layers = DEFAULT_LAYERS;
  self->bitrate = DEFAULT_BITRATE;
  self->gop = DEFAULT_GOP;
  self->speed_preset = DEFAULT_SPEED_PRESET;
  self->tune = DEFAULT_TUNE;
  self->key_int_max = DEFAULT_KEY_INT_MAX;
  self->qp_min = DEFAULT_QP_MIN;
  self->qp_max = DEFAULT_QP_MAX;
  self->threads = DEFAULT_THREADS;
  self->aq_strength = DEFAULT_AQ_STRENGTH;
  self->key_unit_max_delay = DEFAULT_KEY_UNIT_MAX_DELAY;
  g_queue_init (&self->window);
  self->first_pts = self->last_pts = GST_CLOCK_TIME_NONE;
  for (guint l = 0; l < MAX_LAYERS; l++)
    self->layer_qp[l] = -1;
}
