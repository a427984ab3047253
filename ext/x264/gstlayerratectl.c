/* Per-layer rate control, see gstlayerratectl.h. */
#include "gstlayerratectl.h"

#include <math.h>
#include <stdlib.h>

/* Starting guesses for the complexity per luma sample (bits * 2^(qp/6)),
 * measured on videotestsrc smpte/ball at 360p and 720p with x264 veryfast;
 * the first coded frame replaces them. */
#define INIT_CPLX_INTRA 12.0
#define INIT_CPLX_INTER 2.0
#define ALPHA_MIN 4.0
#define ALPHA_MAX 12.0
#define INTRA_QP_OFFSET 2.0
/* Budget of an intra frame, in inter frames of its layer. */
#define INTRA_BUDGET 3.0

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
  }
}

void
layer_rate_ctl_set_targets (LayerRateCtl * ctl, const guint * rates)
{
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

gint
layer_rate_ctl_qp (LayerRateCtl * ctl, guint layer, gboolean intra)
{
  gdouble fps_l, budget, frames, plan, qp, c;

  g_return_val_if_fail (layer < ctl->n_layers, 30);

  fps_l = layer_fps (ctl, layer);
  budget = ctl->target[layer] / fps_l;
  frames = MAX (2.0, fps_l * ctl->horizon);
  plan = budget - ctl->bucket[layer] / frames;
  plan = CLAMP (plan, budget / 4, budget * 4);

  if (intra) {
    /* An intra frame gets INTRA_BUDGET frames' worth; the surplus is
     * repaid by the next frames of the layer. Its model: the last intra
     * frame of the layer, else the inter model scaled, else a guess. */
    plan *= INTRA_BUDGET;
    if (ctl->have_cplx[layer][1])
      c = exp2 (ctl->lcplx[layer][1]);
    else if (ctl->have_cplx[layer][0])
      c = exp2 (ctl->lcplx[layer][0]) * INIT_CPLX_INTRA / INIT_CPLX_INTER;
    else
      c = ctl->pixels * INIT_CPLX_INTRA;
    qp = ctl->alpha[layer] * log2 (c / plan);
    /* Not much finer than the inter frames around it. */
    if (ctl->have_cplx[layer][0])
      qp = MAX (qp, ctl->qp[layer] - INTRA_QP_OFFSET);
    qp = CLAMP (qp, ctl->qp_min, ctl->qp_max);
    return (gint) lround (qp);
  }

  if (ctl->have_cplx[layer][0])
    c = exp2 (ctl->lcplx[layer][0]);
  else if (ctl->have_cplx[layer][1])
    c = exp2 (ctl->lcplx[layer][1]) * INIT_CPLX_INTER / INIT_CPLX_INTRA;
  else if (layer > 0 && ctl->have_cplx[0][0])
    c = exp2 (ctl->lcplx[0][0]) / 2;
  else
    c = ctl->pixels * INIT_CPLX_INTER;

  qp = ctl->alpha[layer] * log2 (c / plan);
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
  c = log2 (b) + qp / ctl->alpha[layer];
  if (ctl->have_cplx[layer][k])
    ctl->lcplx[layer][k] = 0.5 * ctl->lcplx[layer][k] + 0.5 * c;
  else
    ctl->lcplx[layer][k] = c;
  ctl->have_cplx[layer][k] = TRUE;

  ctl->bucket[layer] += (gdouble) bits - budget;
  /* No wind-up: at most 1 s of the layer's rate owed, 0.5 s credited (a
   * source too simple to fill the budget at qp_min must not bank seconds of
   * bits for a later burst). */
  lim_hi = ctl->target[layer];
  lim_lo = -ctl->target[layer] / 2;
  ctl->bucket[layer] = CLAMP (ctl->bucket[layer], lim_lo, lim_hi);
}
