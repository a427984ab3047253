/* One encoding, a rate for every destination (DESIGN.md): the sender sends
 * each destination the prefix of temporal layers that fits the rate the
 * destination allows, and tells the encoder layer rates that span the
 * destinations, so the base layer fits the slowest and the whole stream the
 * fast ones (those within the spread of the fastest). GLib only, no I/O, no clock.
 *
 * A layer's frames reference only frames of its own or lower layers
 * (x264layerenc's hierarchical GOP), so dropping the layers above a prefix
 * leaves a stream that decodes. A destination's prefix changes only where
 * that stays true: down at the start of any frame, up at the start of a
 * base-layer frame. Each destination has its own RTP sequence numbers, so
 * the frames left out are not seen as loss. */
#ifndef __TPSS_LAYERS_H__
#define __TPSS_LAYERS_H__

#include <glib.h>

G_BEGIN_DECLS

#define TPSS_MAX_LAYERS 8

/* Per destination: which packets go to it, and their sequence numbers
 * there. */
typedef struct
{
  guint n_layers;
  guint prefix;                 /* layers 0..prefix-1 go now */
  guint wanted;                 /* the prefix to change to when allowed */
  gboolean in_frame;
  guint32 frame_ts;             /* RTP time of the frame being filtered */
  gboolean frame_passes;        /* whether that frame goes */
  guint16 next_seq;
  guint64 passed, left_out;     /* packets */
} TpssLayerFilter;

/* All @n_layers go at first (1..TPSS_MAX_LAYERS); sequence numbers there
 * start at @first_seq. */
void tpss_layer_filter_init (TpssLayerFilter * f, guint n_layers,
    guint16 first_seq);
/* The prefix the destination should get (clamped to 1..n_layers); applied
 * at the next frame where it is safe. */
void tpss_layer_filter_want (TpssLayerFilter * f, guint prefix);
/* Whether the packet of temporal layer @layer in the frame of RTP time @ts
 * goes to the destination; if so *seq is its sequence number there. A
 * layer of @n_layers or above (a stream with more layers than announced)
 * counts as the top layer. */
gboolean tpss_layer_filter_pass (TpssLayerFilter * f, guint layer,
    guint32 ts, guint16 * seq);
/* A packet outside the layering (no layer: parameter sets, another
 * payload) goes to the destination whatever its prefix; returns its
 * sequence number there. It does not start or decide a frame. */
guint16 tpss_layer_filter_take (TpssLayerFilter * f);

/* The longest prefix of layers whose rates (bit/s per layer, not
 * cumulative) add up to at most @rate; at least 1: the base layer always
 * goes. */
guint tpss_layers_prefix_for_rate (const guint64 * layer_rates,
    guint n_layers, guint64 rate);

/* The layer rates to tell the encoder for destinations that allow
 * @dest_rates (bit/s each). When the fastest allows less than @spread times
 * the slowest, one entry, the slowest's rate: every destination gets the
 * whole stream. Otherwise @n_layers entries (bit/s per layer) whose
 * cumulative sums rise geometrically from the slowest's rate to the
 * whole stream's: the rate of the slowest destination within @spread of
 * the fastest, so that each of those gets every layer. Returns the number of entries written to @out (0 if
 * @n_dest is 0). */
guint tpss_layers_encoder_rates (const guint64 * dest_rates, guint n_dest,
    guint n_layers, gdouble spread, guint64 * out);

/* What @n_dest copies send together (bits/s) under the layer rates
 * @layer_rates (@n_rates entries, as tpss_layers_encoder_rates writes
 * them): each destination the prefix that fits its @data_rates entry (the
 * whole stream when @n_rates is 1), its media raised by the parity its
 * @send_rates entry adds over its data rate. */
guint64 tpss_layers_copies_rate (const guint64 * layer_rates, guint n_rates,
    const guint64 * data_rates, const guint64 * send_rates, guint n_dest);

G_END_DECLS

#endif /* __TPSS_LAYERS_H__ */
