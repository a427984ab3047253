/* Per-layer rate control for x264layerenc: GLib only, no I/O, no clock
 * (DESIGN.md, "protocol cores are sans-I/O"). The encoder forces
 * x264's QP of every frame, asking this core for it; after the
 * frame is coded it reports the bits. One controller per temporal layer:
 *
 *   model    bits = C * 2^(-qp/alpha)   (C: the layer's complexity, learnt
 *            from every coded frame as an exponential average of
 *            log2(bits) + qp/alpha, separately for intra and inter frames;
 *            alpha, the QP steps per halving of the bits, 6 at first, learnt
 *            from pairs of inter frames at different QPs, kept in [4, 12])
 *   plan     each frame of layer l is planned  T_l - D_l / H_l  bits, where
 *            T_l = rate_l / fps_l is the per-frame budget, D_l the bits the
 *            layer is over its budget so far (the bucket), H_l the frames of
 *            the layer in `horizon` seconds; clamped to [T_l/4, 4 T_l]
 *   qp       alpha * log2 (C / plan), moved at most max_step per frame,
 *            clamped to [qp_min, qp_max].
 *
 * The bucket makes the long-run rate of every layer exact (closed loop), the
 * model makes a rate change take effect on the next frame. An intra frame
 * (IDR) is planned 3 frames' budget from its own model (the layer's last
 * intra frame), at most 2 QP finer than the inter frames around it, and
 * at most intra_max_delay s of the layer's rate when that is set; the
 * surplus is repaid by the following frames of the layer.
 *
 * Shared mode (only a total is given, e.g. x264layerenc's `bitrate`): one
 * bucket for the total, and every frame of layer l at a common base QP plus
 * 1.5 l, the base QP solved so that the layers' models add up
 * to the period's plan. How a total is split over the layers decides the
 * quality more than the temporal structure does, and the best split depends
 * on the content (3 layers at 1 Mbit/s: scrolled bars want each frame the
 * same bits, a moving zone plate wants half the bits in the base layer,
 * +2.9 dB over the split by frames); QPs rising gently with the layer are
 * close to the best split on both.
 */
#ifndef __GST_LAYER_RATE_CTL_H__
#define __GST_LAYER_RATE_CTL_H__

#include <glib.h>

G_BEGIN_DECLS

#define LAYER_RATE_CTL_MAX_LAYERS 8

typedef struct
{
  guint n_layers;
  guint period;                 /* frames per layering period */
  gdouble fps;                  /* frames/s of the whole stream */
  gdouble pixels;               /* luma samples per frame */
  gdouble horizon;              /* s over which the bucket is repaid */
  gdouble qp_min, qp_max, max_step;
  /* Most an intra frame may take, in s of its layer's rate (0: no bound
   * beyond its INTRA_BUDGET frames): how long a key unit takes to cross a
   * link that carries just that layer. */
  gdouble intra_max_delay;

  gdouble target[LAYER_RATE_CTL_MAX_LAYERS];    /* bits/s */
  gdouble qp[LAYER_RATE_CTL_MAX_LAYERS];        /* last QP used */
  /* log2 of the complexity C, [inter, intra]: bits = C * 2^(-qp/alpha) */
  gdouble lcplx[LAYER_RATE_CTL_MAX_LAYERS][2];
  gdouble alpha[LAYER_RATE_CTL_MAX_LAYERS];     /* QP per halving of bits */
  gint last_qp[LAYER_RATE_CTL_MAX_LAYERS];
  gdouble last_bits[LAYER_RATE_CTL_MAX_LAYERS];
  gboolean have_last[LAYER_RATE_CTL_MAX_LAYERS];
  gboolean have_cplx[LAYER_RATE_CTL_MAX_LAYERS][2];
  gdouble bucket[LAYER_RATE_CTL_MAX_LAYERS];    /* bits over budget */

  /* Shared mode: one total (bits/s) for all layers, 0 = per-layer targets.
   * One bucket for the total; layer l runs at a common base QP plus
   * qp_offset[l], and target[] holds the split that results. */
  gdouble total;
  gdouble total_bucket;
  gdouble qp_offset[LAYER_RATE_CTL_MAX_LAYERS];
} LayerRateCtl;

/* Frames of layer @layer per layering period of @n_layers layers. */
guint layer_rate_ctl_frames_per_period (guint n_layers, guint layer);

void layer_rate_ctl_init (LayerRateCtl * ctl, guint n_layers, gdouble fps,
    guint width, guint height, gdouble qp_min, gdouble qp_max);
/* Targets in bits/s, one per layer; keeps what was learnt. */
void layer_rate_ctl_set_targets (LayerRateCtl * ctl, const guint * rates);
/* Shared mode: one total in bits/s for all layers (see above). */
void layer_rate_ctl_set_total (LayerRateCtl * ctl, guint total);
/* QP (integer, for x264's i_qpplus1 - 1) for the next frame of @layer. */
gint layer_rate_ctl_qp (LayerRateCtl * ctl, guint layer, gboolean intra);
/* Reports a coded frame. */
void layer_rate_ctl_update (LayerRateCtl * ctl, guint layer, gboolean intra,
    gint qp, gsize bits);

G_END_DECLS

#endif /* __GST_LAYER_RATE_CTL_H__ */
