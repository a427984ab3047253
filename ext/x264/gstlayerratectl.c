/* Per-layer rate control, see gstlayerratectl.h. */
#include "gstlayerratectl.h"

#include <math.h>
#include <stdlib.h>

/* Starting guesses for the complexity per luma sample (bits * 2^(qp/6)),
 * measured on videotestsrc smpte/ball at 360p and 720p with x264 veryfast;
 * the first coded frame replaces them. */
#define INIT_CPLX_INTRA 12.0
/* The same for noise (videotestsrc snow), the costliest content: the guess
 * for a first intra frame under a bound (intra_max_delay), which must not
 * overshoot it by the content's factor. */
#define INIT_CPLX_INTRA_BOUNDED 64.0
#define INIT_CPLX_INTER 2.0
#define ALPHA_MIN 4.0
#define ALPHA_MAX 12.0
#define INTRA_QP_OFFSET 2.0
/* Budget of an intra frame, in inter frames of its layer. */
#define INTRA_BUDGET 3.0
/* QP steps per halving of an intra frame's bits: the quantiser's own (its
 * step doubles every 6 QP). The inter frames' learnt slope is flatter on
 * simple content (static areas cost little at any QP), and taken for an
 * intra frame it under-predicts the bits of a finer QP by up to 1.6x. */
#define INTRA_ALPHA 6.0
/* Shared mode: QP of layer l over layer 0's, per layer. Measured (3 and 5
 * layers, 400 kbit/s and 1 Mbit/s, bars, zone plate, noisy detail) against
 * 0, 1 and 2: 1.5 is within 0.3 dB of the best of them on every clip. */
#define SHARE_QP_STEP 1.5

guint
layer_rate_ctl_frames_per_period (guint n_layers, guint layer)
{
  if (layer == 0 || n_layers <= 1)
    return 1;
  return 1u << (layer - 1);
}

void
layer_rate_ctl_init (LayerRateCtl * ctl, guint n_layers, gdouble fps,
    guint width, guint height, gdouble qp_min, gdouble qp_max)
{
  g_return_if_fail (n_layers >= 1 && n_layers <= LAYER_RATE_CTL_MAX_LAYERS);

  *ctl = (LayerRateCtl) {
  0};
  ctl->n_layers = n_layers;
  ctl->period = 1u << (n_layers - 1);
  ctl->fps = fps > 0 ? fps : 30.0;
  ctl->pixels = MAX (1.0, (gdouble) width * height);
  ctl->horizon = 0.5;
  ctl->qp_min = qp_min;
  ctl->qp_max = qp_max;
  ctl->max_step = 12.0;
  for (guint l = 0; l < n_layers; l++) {
    ctl->qp[l] = 30.0;
    ctl->alpha[l] = 6.0;
    ctl->target[l] = 500000.0 / n_layers;
    ctl->qp_offset[l] = SHARE_QP_STEP * l;
  }
}

void
layer_rate_ctl_set_targets (LayerRateCtl * ctl, const guint * rates)
{
  ctl->total = 0;
  for (guint l = 0; l < ctl->n_layers; l++) {
    gdouble old = ctl->target[l];
    ctl->target[l] = MAX (1.0, (gdouble) rates[l]);
    /* A new target starts a new account: what the layer owed or was owed
     * under the old rate would otherwise push the first second at the new
     * rate off target (measured: -20% then +15% after a 3x step). */
    if (old != ctl->target[l])
      ctl->bucket[l] = 0;
  }
}

static gdouble
layer_fps (const LayerRateCtl * ctl, guint layer)
{
  return ctl->fps * layer_rate_ctl_frames_per_period (ctl->n_layers, layer)
      / ctl->period;
}

void
layer_rate_ctl_set_total (LayerRateCtl * ctl, guint total)
{
  gdouble t = MAX (1.0, (gdouble) total);

  if (t != ctl->total)
    ctl->total_bucket = 0;
  /* Until the first split: in proportion to the frames. */
  for (guint l = 0; l < ctl->n_layers; l++) {
    gdouble share = ctl->total > 0 ? ctl->target[l] / ctl->total :
        (gdouble) layer_rate_ctl_frames_per_period (ctl->n_layers, l) /
        ctl->period;
    ctl->target[l] = share * t;
    ctl->bucket[l] = 0;
  }
  ctl->total = t;
}

/* log2 of the inter complexity of @layer: its model, else a stand-in. */
static gdouble
inter_lcplx (const LayerRateCtl * ctl, guint layer)
{
  if (ctl->have_cplx[layer][0])
    return ctl->lcplx[layer][0];
  if (ctl->have_cplx[layer][1])
    return ctl->lcplx[layer][1] + log2 (INIT_CPLX_INTER / INIT_CPLX_INTRA);
  if (layer > 0 && ctl->have_cplx[0][0])
    return ctl->lcplx[0][0] - 1;
  return log2 (ctl->pixels * INIT_CPLX_INTER);
}

/* Bits of one period of frames at base QP @q. */
static gdouble
period_bits (const LayerRateCtl * ctl, gdouble q)
{
  gdouble bits = 0;

  for (guint l = 0; l < ctl->n_layers; l++)
    bits += layer_rate_ctl_frames_per_period (ctl->n_layers, l) *
        exp2 (inter_lcplx (ctl, l) - (q + ctl->qp_offset[l]) / ctl->alpha[l]);
  return bits;
}

/* Shared mode: the base QP at which the next period meets the plan (the
 * total's budget less a share of the debt); sets the split it implies. */
static gdouble
shared_base_qp (LayerRateCtl * ctl)
{
  gdouble budget = ctl->total / ctl->fps * ctl->period;
  gdouble frames = MAX (2.0, ctl->fps * ctl->horizon);
  gdouble plan = budget - ctl->total_bucket * ctl->period / frames;
  gdouble lo = ctl->qp_min - 24, hi = ctl->qp_max + 24, q, sum;

  plan = CLAMP (plan, budget / 4, budget * 4);
  for (gint i = 0; i < 30; i++) {
    q = (lo + hi) / 2;
    if (period_bits (ctl, q) > plan)
      lo = q;
    else
      hi = q;
  }
  q = (lo + hi) / 2;
  sum = period_bits (ctl, q);
  for (guint l = 0; l < ctl->n_layers; l++)
    ctl->target[l] = ctl->total * layer_rate_ctl_frames_per_period
        (ctl->n_layers, l) * exp2 (inter_lcplx (ctl, l) -
        (q + ctl->qp_offset[l]) / ctl->alpha[l]) / sum;
  return q;
}

gint
layer_rate_ctl_qp (LayerRateCtl * ctl, guint layer, gboolean intra)
{
  gdouble fps_l, budget, frames, plan, qp, c;

  g_return_val_if_fail (layer < ctl->n_layers, 30);

  fps_l = layer_fps (ctl, layer);
  budget = ctl->target[layer] / fps_l;
  frames = MAX (2.0, fps_l * ctl->horizon);
  /* Shared mode: the layers' own accounts mean nothing (their shares
   * move), the total's is kept in shared_base_qp(). */
  plan = budget - (ctl->total > 0 ? 0 : ctl->bucket[layer]) / frames;
  plan = CLAMP (plan, budget / 4, budget * 4);

  if (intra) {
    /* An intra frame gets INTRA_BUDGET frames' worth; the surplus is
     * repaid by the next frames of the layer. Its model: the last intra
     * frame of the layer, else the inter model scaled, else a guess. */
    plan *= INTRA_BUDGET;
    if (ctl->intra_max_delay > 0)
      plan = MIN (plan, ctl->target[layer] * ctl->intra_max_delay);
    if (ctl->have_cplx[layer][1]) {
      qp = INTRA_ALPHA * (ctl->lcplx[layer][1] - log2 (plan));
    } else {
      c = ctl->have_cplx[layer][0] ? exp2 (ctl->lcplx[layer][0]) *
          INIT_CPLX_INTRA / INIT_CPLX_INTER : ctl->pixels *
          (ctl->intra_max_delay > 0 ? INIT_CPLX_INTRA_BOUNDED :
          INIT_CPLX_INTRA);
      qp = ctl->alpha[layer] * log2 (c / plan);
    }
    /* Not much finer than the inter frames around it. */
    if (ctl->have_cplx[layer][0])
      qp = MAX (qp, ctl->qp[layer] - INTRA_QP_OFFSET);
    qp = CLAMP (qp, ctl->qp_min, ctl->qp_max);
    return (gint) lround (qp);
  }

  if (ctl->total > 0) {
    qp = shared_base_qp (ctl) + ctl->qp_offset[layer];
  } else {
    c = exp2 (inter_lcplx (ctl, layer));
    qp = ctl->alpha[layer] * log2 (c / plan);
  }
  if (ctl->have_cplx[layer][0])
    qp = CLAMP (qp, ctl->qp[layer] - ctl->max_step,
        ctl->qp[layer] + ctl->max_step);
  qp = CLAMP (qp, ctl->qp_min, ctl->qp_max);
  ctl->qp[layer] = qp;
  return (gint) lround (qp);
}

void
layer_rate_ctl_update (LayerRateCtl * ctl, guint layer, gboolean intra,
    gint qp, gsize bits)
{
  gdouble fps_l, budget, c, lim_hi, lim_lo, b;
  guint k = intra ? 1 : 0;

  g_return_if_fail (layer < ctl->n_layers);

  fps_l = layer_fps (ctl, layer);
  budget = ctl->target[layer] / fps_l;
  b = MAX (8.0, (gdouble) bits);

  /* The slope: QP steps per halving of the bits, from two inter frames of
   * the layer at QPs at least 2 apart (x264 is near 6 at mid QPs, flatter at
   * high QPs on simple content: 9 measured on scrolled SMPTE bars). */
  if (!intra && ctl->have_last[layer] && abs (qp - ctl->last_qp[layer]) >= 2) {
    gdouble halvings = log2 (ctl->last_bits[layer] / b);
    if (halvings * (qp - ctl->last_qp[layer]) > 0) {
      gdouble a = (qp - ctl->last_qp[layer]) / halvings;
      a = CLAMP (a, ALPHA_MIN, ALPHA_MAX);
      ctl->alpha[layer] = 0.5 * ctl->alpha[layer] + 0.5 * a;
    }
  }
  if (!intra) {
    ctl->last_qp[layer] = qp;
    ctl->last_bits[layer] = b;
    ctl->have_last[layer] = TRUE;
  }

  /* The model in the log domain, so that a new slope applies at once. */
  c = log2 (b) + qp / (intra ? INTRA_ALPHA : ctl->alpha[layer]);
  if (ctl->have_cplx[layer][k])
    ctl->lcplx[layer][k] = 0.5 * ctl->lcplx[layer][k] + 0.5 * c;
  else
    ctl->lcplx[layer][k] = c;
  ctl->have_cplx[layer][k] = TRUE;

  if (ctl->total > 0) {
    ctl->total_bucket += (gdouble) bits - ctl->total / ctl->fps;
    ctl->total_bucket = CLAMP (ctl->total_bucket, -ctl->total / 2,
        ctl->total);
  }
  ctl->bucket[layer] += (gdouble) bits - budget;
  /* No wind-up: at most 1 s of the layer's rate owed, 0.5 s credited (a
   * source too simple to fill the budget at qp_min must not bank seconds of
   * bits for a later burst). */
  lim_hi = ctl->target[layer];
  lim_lo = -ctl->target[layer] / 2;
  ctl->bucket[layer] = CLAMP (ctl->bucket[layer], lim_lo, lim_hi);
}
