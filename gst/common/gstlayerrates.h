/* The rate path from network elements to encoders (DESIGN.md, "Rates to the
 * encoder"): layer rates in caps, one custom upstream event, and a helper
 * that sinks use to propose, send and expose them. */
#ifndef __GST_LAYER_RATES_H__
#define __GST_LAYER_RATES_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Upstream event: GST_EVENT_CUSTOM_UPSTREAM with a structure of this name and
 * a field "layer-rates", an array (GstValueArray) of ints, bits/s per layer,
 * not cumulative. A single-rate sender sends one entry. */
#define GST_LAYER_RATES_EVENT_NAME "GstLayerRates"
/* Caps fields: "layers" (int) and "layer-rates" (GstValueArray of ints, bits/s
 * per layer, not cumulative). */
#define GST_LAYER_RATES_CAPS_LAYERS "layers"
#define GST_LAYER_RATES_CAPS_RATES "layer-rates"
#define GST_LAYER_RATES_MAX_LAYERS 8

GstEvent *gst_layer_rates_event_new (const guint * rates, guint n_layers);
/* Fills @rates (room for GST_LAYER_RATES_MAX_LAYERS); FALSE if @event is not
 * a well-formed layer-rates event. */
gboolean gst_layer_rates_event_parse (GstEvent * event, guint * rates,
    guint * n_layers);

/* Sets @array (a GstValueArray, or an unset GValue) to the rates. */
void gst_layer_rates_value_set (GValue * array, const guint * rates,
    guint n_layers);
/* Reads a fixed "layer-rates" field (and checks "layers" if present). */
gboolean gst_layer_rates_structure_get (const GstStructure * s, guint * rates,
    guint * n_layers);
void gst_layer_rates_structure_set (GstStructure * s, const guint * rates,
    guint n_layers);

/* The sink side: propose rates in caps queries, send the event upstream
 * when they change (at most once per interval), and keep the notifying
 * properties of the element up to date. */
typedef struct _GstRatePath GstRatePath;

/* @element must have properties named by @bitrate_prop (guint, bits/s, the
 * sum of the layers) and @layer_rates_prop (GstValueArray), or NULL to skip
 * one. @min_interval: the protocol's decision interval. */
GstRatePath *gst_rate_path_new (GstElement * element, GstPad * sinkpad,
    GstClockTime min_interval, const gchar * bitrate_prop,
    const gchar * layer_rates_prop);
void gst_rate_path_free (GstRatePath * path);

/* Sets the rates at running time @now; sends the event at once if the last
 * one is older than the interval, else when gst_rate_path_tick() is called
 * after it. Never holds a lock while sending or notifying. */
void gst_rate_path_set (GstRatePath * path, const guint * rates,
    guint n_layers, GstClockTime now);
/* Sends a pending change once the interval has passed. */
void gst_rate_path_tick (GstRatePath * path, GstClockTime now);

/* Current rates; returns the number of layers (0 before any set). */
guint gst_rate_path_get (GstRatePath * path, guint * rates);
guint gst_rate_path_get_bitrate (GstRatePath * path);
/* For the element's get_property of the layer-rates property. */
void gst_rate_path_get_value (GstRatePath * path, GValue * array);

/* Answers a CAPS query on the sink pad: the peer's caps intersected with the
 * filter, with the current rates added to each video/x-h264 structure.
 * Returns FALSE if it did not answer (let the default do it). */
gboolean gst_rate_path_caps_query (GstRatePath * path, GstQuery * query);

/* Counters for stats: events sent, changes coalesced by the interval. */
void gst_rate_path_get_counters (GstRatePath * path, guint64 * events_sent,
    guint64 * coalesced);

G_END_DECLS

#endif /* __GST_LAYER_RATES_H__ */
