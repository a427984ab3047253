/* The rate path from network elements to encoders. See gstlayerrates.h. */
#include "gstlayerrates.h"

#include <string.h>

GstEvent *
gst_layer_rates_event_new (const guint * rates, guint n_layers)
{
  GstStructure *s = gst_structure_new_empty (GST_LAYER_RATES_EVENT_NAME);

  gst_layer_rates_structure_set (s, rates, n_layers);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

static gboolean
read_rates (const GValue * v, guint * rates, guint * n_layers)
{
  guint n;

  if (!v || !GST_VALUE_HOLDS_ARRAY (v))
    return FALSE;
  n = gst_value_array_get_size (v);
  if (n == 0 || n > GST_LAYER_RATES_MAX_LAYERS)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    const GValue *r = gst_value_array_get_value (v, i);
    if (!G_VALUE_HOLDS_INT (r) || g_value_get_int (r) <= 0)
      return FALSE;
    rates[i] = g_value_get_int (r);
  }
  *n_layers = n;
  return TRUE;
}

gboolean
gst_layer_rates_event_parse (GstEvent * event, guint * rates, guint * n_layers)
{
  const GstStructure *s;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_UPSTREAM)
    return FALSE;
  s = gst_event_get_structure (event);
  if (!s || !gst_structure_has_name (s, GST_LAYER_RATES_EVENT_NAME))
    return FALSE;
  return read_rates (gst_structure_get_value (s, GST_LAYER_RATES_CAPS_RATES),
      rates, n_layers);
}

void
gst_layer_rates_value_set (GValue * array, const guint * rates,
    guint n_layers)
{
  /* Initialised already when it is a get_property's return value. */
  if (G_IS_VALUE (array))
    g_value_reset (array);
  else
    g_value_init (array, GST_TYPE_ARRAY);
  for (guint i = 0; i < n_layers; i++) {
    GValue r = G_VALUE_INIT;
    g_value_init (&r, G_TYPE_INT);
    g_value_set_int (&r, (gint) MIN (rates[i], (guint) G_MAXINT));
    gst_value_array_append_and_take_value (array, &r);
  }
}

gboolean
gst_layer_rates_structure_get (const GstStructure * s, guint * rates,
    guint * n_layers)
{
  gint layers;

  if (!read_rates (gst_structure_get_value (s, GST_LAYER_RATES_CAPS_RATES),
          rates, n_layers))
    return FALSE;
  if (gst_structure_get_int (s, GST_LAYER_RATES_CAPS_LAYERS, &layers) &&
      (guint) layers != *n_layers)
    return FALSE;
  return TRUE;
}

void
gst_layer_rates_structure_set (GstStructure * s, const guint * rates,
    guint n_layers)
{
  GValue array = G_VALUE_INIT;

  gst_layer_rates_value_set (&array, rates, n_layers);
  gst_structure_take_value (s, GST_LAYER_RATES_CAPS_RATES, &array);
}

struct _GstRatePath
{
  GstElement *element;          /* not owned: the path belongs to it */
  GstPad *sinkpad;
  GstClockTime min_interval;
  gchar *bitrate_prop;
  gchar *layer_rates_prop;

  GMutex lock;
  guint rates[GST_LAYER_RATES_MAX_LAYERS];
  guint n_layers;
  gboolean pending;
  GstClockTime last_sent;
  guint64 sent, coalesced;
};

GstRatePath *
gst_rate_path_new (GstElement * element, GstPad * sinkpad,
    GstClockTime min_interval, const gchar * bitrate_prop,
    const gchar * layer_rates_prop)
{
  GstRatePath *path = g_new0 (GstRatePath, 1);

  path->element = element;
  path->sinkpad = gst_object_ref (sinkpad);
  path->min_interval = min_interval;
  path->bitrate_prop = g_strdup (bitrate_prop);
  path->layer_rates_prop = g_strdup (layer_rates_prop);
  path->last_sent = GST_CLOCK_TIME_NONE;
  g_mutex_init (&path->lock);
  return path;
}

void
gst_rate_path_free (GstRatePath * path)
{
  if (!path)
    return;
  gst_object_unref (path->sinkpad);
  g_free (path->bitrate_prop);
  g_free (path->layer_rates_prop);
  g_mutex_clear (&path->lock);
  g_free (path);
}

/* With the lock: whether a change may go out now; marks it sent. */
static gboolean
take_send_slot (GstRatePath * path, GstClockTime now)
{
  if (!path->pending)
    return FALSE;
  if (GST_CLOCK_TIME_IS_VALID (path->last_sent) &&
      GST_CLOCK_TIME_IS_VALID (now) && now < path->last_sent + path->min_interval)
    return FALSE;
  path->pending = FALSE;
  path->last_sent = now;
  path->sent++;
  return TRUE;
}

static void
send_event (GstRatePath * path, const guint * rates, guint n)
{
  GST_DEBUG_OBJECT (path->element, "asking upstream for %u layer(s), "
      "first %u bit/s", n, rates[0]);
  gst_pad_push_event (path->sinkpad, gst_layer_rates_event_new (rates, n));
}

void
gst_rate_path_set (GstRatePath * path, const guint * rates, guint n_layers,
    GstClockTime now)
{
  guint copy[GST_LAYER_RATES_MAX_LAYERS];
  gboolean send;

  g_return_if_fail (n_layers >= 1 && n_layers <= GST_LAYER_RATES_MAX_LAYERS);

  g_mutex_lock (&path->lock);
  if (n_layers == path->n_layers &&
      memcmp (rates, path->rates, n_layers * sizeof (guint)) == 0) {
    g_mutex_unlock (&path->lock);
    return;
  }
  if (path->pending)
    path->coalesced++;
  memcpy (path->rates, rates, n_layers * sizeof (guint));
  path->n_layers = n_layers;
  path->pending = TRUE;
  send = take_send_slot (path, now);
  memcpy (copy, path->rates, sizeof (copy));
  g_mutex_unlock (&path->lock);

  if (path->bitrate_prop)
    g_object_notify (G_OBJECT (path->element), path->bitrate_prop);
  if (path->layer_rates_prop)
    g_object_notify (G_OBJECT (path->element), path->layer_rates_prop);
  if (send)
    send_event (path, copy, n_layers);
}

void
gst_rate_path_tick (GstRatePath * path, GstClockTime now)
{
  guint copy[GST_LAYER_RATES_MAX_LAYERS], n;
  gboolean send;

  g_mutex_lock (&path->lock);
  send = take_send_slot (path, now);
  memcpy (copy, path->rates, sizeof (copy));
  n = path->n_layers;
  g_mutex_unlock (&path->lock);
  if (send)
    send_event (path, copy, n);
}

guint
gst_rate_path_get (GstRatePath * path, guint * rates)
{
  guint n;

  g_mutex_lock (&path->lock);
  n = path->n_layers;
  memcpy (rates, path->rates, n * sizeof (guint));
  g_mutex_unlock (&path->lock);
  return n;
}

guint
gst_rate_path_get_bitrate (GstRatePath * path)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n = gst_rate_path_get (path, rates);
  guint64 sum = 0;

  for (guint i = 0; i < n; i++)
    sum += rates[i];
  return (guint) MIN (sum, G_MAXUINT);
}

void
gst_rate_path_get_value (GstRatePath * path, GValue * array)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n = gst_rate_path_get (path, rates);

  gst_layer_rates_value_set (array, rates, n);
}

gboolean
gst_rate_path_caps_query (GstRatePath * path, GstQuery * query)
{
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n = gst_rate_path_get (path, rates);
  GstCaps *filter, *caps;

  if (n == 0)
    return FALSE;
  gst_query_parse_caps (query, &filter);
  caps = gst_pad_get_pad_template_caps (path->sinkpad);
  caps = gst_caps_make_writable (caps);
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    gst_layer_rates_structure_set (gst_caps_get_structure (caps, i), rates, n);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  return TRUE;
}

void
gst_rate_path_get_counters (GstRatePath * path, guint64 * events_sent,
    guint64 * coalesced)
{
  g_mutex_lock (&path->lock);
  *events_sent = path->sent;
  *coalesced = path->coalesced;
  g_mutex_unlock (&path->lock);
}
