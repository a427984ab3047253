/* Per-destination layer prefixes and the encoder's layer rates; see
 * tpsslayers.h. */
#include "tpsslayers.h"

#include <math.h>

void
tpss_layer_filter_init (TpssLayerFilter * f, guint n_layers, guint16 first_seq)
{
  g_return_if_fail (n_layers >= 1 && n_layers <= TPSS_MAX_LAYERS);
  *f = (TpssLayerFilter) {
  0};
  f->n_layers = n_layers;
  f->prefix = f->wanted = n_layers;
  f->next_seq = first_seq;
}

void
tpss_layer_filter_want (TpssLayerFilter * f, guint prefix)
{
  f->wanted = CLAMP (prefix, 1, f->n_layers);
}

/* At the first packet of a frame: take the wanted prefix if this frame is
 * a safe place for it, then decide the whole frame. */
static void
start_frame (TpssLayerFilter * f, guint layer, guint32 ts)
{
  if (f->wanted < f->prefix || (f->wanted > f->prefix && layer == 0))
    f->prefix = f->wanted;
  f->in_frame = TRUE;
  f->frame_ts = ts;
  f->frame_passes = layer < f->prefix;
}

gboolean
tpss_layer_filter_pass (TpssLayerFilter * f, guint layer, guint32 ts,
    guint16 * seq)
{
  layer = MIN (layer, f->n_layers - 1);
  if (!f->in_frame || ts != f->frame_ts)
    start_frame (f, layer, ts);
  if (!f->frame_passes) {
    f->left_out++;
    return FALSE;
  }
  *seq = f->next_seq++;
  f->passed++;
  return TRUE;
}

guint16
tpss_layer_filter_take (TpssLayerFilter * f)
{
  f->passed++;
  return f->next_seq++;
}

guint
tpss_layers_prefix_for_rate (const guint64 * layer_rates, guint n_layers,
    guint64 rate)
{
  guint64 sum = 0;
  guint k;

  for (k = 0; k < n_layers; k++) {
    sum += layer_rates[k];
    if (sum > rate)
      break;
  }
  return MAX (k, 1);
}

/* The whole stream's rate: the slowest of the destinations within @spread
 * of the fastest @hi, so that all of them get every layer (at @hi alone,
 * a second fast destination a little below it gets one layer fewer: half
 * the frame rate). */
static guint64
top_group_rate (const guint64 * dest_rates, guint n_dest, guint64 hi,
    gdouble spread)
{
  guint64 top = hi;

  for (guint i = 0; i < n_dest; i++)
    if ((gdouble) dest_rates[i] * spread > (gdouble) hi)
      top = MIN (top, dest_rates[i]);
  return top;
}

guint
tpss_layers_encoder_rates (const guint64 * dest_rates, guint n_dest,
    guint n_layers, gdouble spread, guint64 * out)
{
  guint64 lo = G_MAXUINT64, hi = 0, below = 0;
  gdouble step;

  if (n_dest == 0 || n_layers == 0)
    return 0;
  for (guint i = 0; i < n_dest; i++) {
    lo = MIN (lo, dest_rates[i]);
    hi = MAX (hi, dest_rates[i]);
  }
  if (n_layers == 1 || lo == 0 || (gdouble) hi < spread * (gdouble) lo) {
    out[0] = lo;
    return 1;
  }
  hi = top_group_rate (dest_rates, n_dest, hi, spread);
  /* Cumulative rate of layers 0..k: lo * step^k, reaching hi at the top. */
  step = pow ((gdouble) hi / (gdouble) lo, 1.0 / (n_layers - 1));
  for (guint k = 0; k < n_layers; k++) {
    guint64 cumulative = k == n_layers - 1 ? hi :
        (guint64) llround ((gdouble) lo * pow (step, k));

    out[k] = cumulative - below;
    below = cumulative;
  }
  return n_layers;
}

guint64
tpss_layers_copies_rate (const guint64 * layer_rates, guint n_rates,
    const guint64 * data_rates, const guint64 * send_rates, guint n_dest)
{
  gdouble sum = 0;

  for (guint i = 0; i < n_dest; i++) {
    guint prefix = n_rates <= 1 ? 1 :
        tpss_layers_prefix_for_rate (layer_rates, n_rates, data_rates[i]);
    guint64 media = 0;

    for (guint k = 0; k < prefix && k < n_rates; k++)
      media += layer_rates[k];
    /* the parity S adds over D, in the same proportion */
    sum += data_rates[i] == 0 ? (gdouble) media :
        (gdouble) media * (gdouble) send_rates[i] / (gdouble) data_rates[i];
  }
  return sum >= (gdouble) G_MAXUINT64 ? G_MAXUINT64 : (guint64) sum;
}
