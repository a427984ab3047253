/* The shared part of the network push sources (see gstnetsrc.h). */
#include "gstnetsrc.h"
#include "gstneturi.h"

void
gst_net_src_wait_init (GstNetSrcWait * wait)
{
  g_mutex_init (&wait->lock);
  g_cond_init (&wait->cond);
  wait->flushing = FALSE;
}

void
gst_net_src_wait_clear (GstNetSrcWait * wait)
{
  g_mutex_clear (&wait->lock);
  g_cond_clear (&wait->cond);
}

void
gst_net_src_wait_set_flushing (GstNetSrcWait * wait, gboolean flushing)
{
  g_mutex_lock (&wait->lock);
  wait->flushing = flushing;
  if (flushing)
    g_cond_broadcast (&wait->cond);
  g_mutex_unlock (&wait->lock);
}

/* @caps (under the object lock) or else @tmpl's caps, with @filter. */
static GstCaps *
caps_or_template (GstElement * element, GstCaps * const *caps,
    GstStaticPadTemplate * tmpl, GstCaps * filter)
{
  GstCaps *c, *res;

  GST_OBJECT_LOCK (element);
  c = *caps ? gst_caps_ref (*caps) : gst_static_pad_template_get_caps (tmpl);
  GST_OBJECT_UNLOCK (element);
  if (!filter)
    return c;
  res = gst_caps_intersect_full (filter, c, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (c);
  return res;
}

gboolean
gst_net_src_answer_latency (GstQuery * query, GstClockTime min)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return FALSE;
  gst_query_set_latency (query, TRUE, min, GST_CLOCK_TIME_NONE);
  return TRUE;
}

typedef struct
{
  gsize wait_offset, caps_offset;
  GstStaticPadTemplate *tmpl;
  gboolean (*parent_query) (GstBaseSrc * bsrc, GstQuery * query);
} SrcInfo;

static GQuark
src_info_quark (void)
{
  return g_quark_from_static_string ("gst-net-src-info");
}

/* The info of @self's type or of the nearest ancestor that set it. */
static const SrcInfo *
src_info (gpointer self)
{
  for (GType type = G_OBJECT_TYPE (self); type; type = g_type_parent (type)) {
    const SrcInfo *info = g_type_get_qdata (type, src_info_quark ());
    if (info)
      return info;
  }
  g_assert_not_reached ();
  return NULL;
}

static GstNetSrcWait *
src_wait (GstBaseSrc * bsrc)
{
  return G_STRUCT_MEMBER_P (bsrc, src_info (bsrc)->wait_offset);
}

static gboolean
src_unlock (GstBaseSrc * bsrc)
{
  gst_net_src_wait_set_flushing (src_wait (bsrc), TRUE);
  return TRUE;
}

static gboolean
src_unlock_stop (GstBaseSrc * bsrc)
{
  gst_net_src_wait_set_flushing (src_wait (bsrc), FALSE);
  return TRUE;
}

static GstCaps *
src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  const SrcInfo *info = src_info (bsrc);

  return caps_or_template (GST_ELEMENT (bsrc),
      G_STRUCT_MEMBER_P (bsrc, info->caps_offset), info->tmpl, filter);
}

static gboolean
src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  if (gst_base_src_is_live (bsrc) && gst_net_src_answer_latency (query, 0))
    return TRUE;
  return src_info (bsrc)->parent_query (bsrc, query);
}

void
gst_net_src_class_init (GstBaseSrcClass * klass, gsize wait_offset,
    gsize caps_offset, GstStaticPadTemplate * tmpl)
{
  SrcInfo *info = g_new0 (SrcInfo, 1);

  info->wait_offset = wait_offset;
  info->caps_offset = caps_offset;
  info->tmpl = tmpl;
  info->parent_query = klass->query;
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), src_info_quark (), info);
  klass->unlock = src_unlock;
  klass->unlock_stop = src_unlock_stop;
  klass->get_caps = src_get_caps;
  klass->query = src_query;
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

guint
gst_net_src_props_install (const GstNetSrcProps * p, GObjectClass * klass,
    guint first_id)
{
  if (p->source_address_blurb)
    g_object_class_install_property (klass,
        first_id + GST_NET_SRC_PROP_SOURCE_ADDRESS,
        g_param_spec_string ("source-address", "Source address",
            p->source_address_blurb, NULL, RW));
  if (p->caps_blurb)
    g_object_class_install_property (klass, first_id + GST_NET_SRC_PROP_CAPS,
        g_param_spec_boxed ("caps", "Caps", p->caps_blurb, GST_TYPE_CAPS,
            RW));
  if (p->stats_interval_blurb)
    g_object_class_install_property (klass,
        first_id + GST_NET_SRC_PROP_STATS_INTERVAL,
        g_param_spec_uint64 ("stats-interval", "Stats interval (ns)",
            p->stats_interval_blurb, 0, G_MAXINT64,
            p->stats_interval_default, RW));
  if (p->stats_blurb)
    g_object_class_install_property (klass, first_id + GST_NET_SRC_PROP_STATS,
        g_param_spec_boxed ("stats", "Statistics", p->stats_blurb,
            GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  if (p->uri_blurb)
    gst_net_uri_install_property (klass, first_id + GST_NET_SRC_PROP_URI,
        p->uri_blurb);
  if (p->bitrate_blurb)
    g_object_class_install_property (klass,
        first_id + GST_NET_SRC_PROP_BITRATE, g_param_spec_uint ("bitrate",
            "Bitrate", p->bitrate_blurb, 0, G_MAXUINT, 0,
            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  return first_id + GST_NET_SRC_N_PROPS;
}

void
gst_net_src_settings_init (const GstNetSrcProps * props,
    GstNetSrcSettings * s)
{
  GstNetSrcSettings init = { NULL, };

  *s = init;
  s->stats_interval = props->stats_interval_default;
}

void
gst_net_src_settings_clear (GstNetSrcSettings * s)
{
  g_clear_pointer (&s->source_address, g_free);
  gst_caps_replace (&s->caps, NULL);
  g_clear_error (&s->uri_error);
}

/* The GST_NET_SRC_PROP_* of @prop_id, or -1 if it is none of them. */
static gint
prop_offset (guint first_id, guint prop_id)
{
  return prop_id >= first_id && prop_id < first_id + GST_NET_SRC_N_PROPS ?
      (gint) (prop_id - first_id) : -1;
}

/* The settings kept under the object lock. */
static void
set_locked (GstNetSrcSettings * s, gint offset, const GValue * value)
{
  switch (offset) {
    case GST_NET_SRC_PROP_SOURCE_ADDRESS:
      g_free (s->source_address);
      s->source_address = g_value_dup_string (value);
      break;
    case GST_NET_SRC_PROP_CAPS:
      gst_caps_replace (&s->caps, (GstCaps *) gst_value_get_caps (value));
      break;
    case GST_NET_SRC_PROP_STATS_INTERVAL:
      s->stats_interval = g_value_get_uint64 (value);
      break;
    default:
      g_assert_not_reached ();
  }
}

gboolean
gst_net_props_set (GstElement * element, GstNetSrcSettings * s,
    guint first_id, guint prop_id, const GValue * value)
{
  gint offset = prop_offset (first_id, prop_id);

  /* stats and bitrate are read-only: GObject never sets them */
  if (offset < 0 || offset == GST_NET_SRC_PROP_STATS ||
      offset == GST_NET_SRC_PROP_BITRATE)
    return FALSE;
  if (offset == GST_NET_SRC_PROP_URI) {
    gst_net_uri_set_property (element, value, &s->uri_error);
    return TRUE;
  }
  GST_OBJECT_LOCK (element);
  set_locked (s, offset, value);
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

gboolean
gst_net_src_props_set (GstBaseSrc * src, GstNetSrcSettings * s,
    guint first_id, guint prop_id, const GValue * value)
{
  if (!gst_net_props_set (GST_ELEMENT (src), s, first_id, prop_id, value))
    return FALSE;
  if (prop_id == first_id + GST_NET_SRC_PROP_CAPS)
    gst_pad_mark_reconfigure (GST_BASE_SRC_PAD (src));
  return TRUE;
}

static void
get_locked (const GstNetSrcSettings * s, gint offset, GValue * value)
{
  switch (offset) {
    case GST_NET_SRC_PROP_SOURCE_ADDRESS:
      g_value_set_string (value, s->source_address);
      break;
    case GST_NET_SRC_PROP_CAPS:
      gst_value_set_caps (value, s->caps);
      break;
    case GST_NET_SRC_PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, s->stats_interval);
      break;
    default:
      g_assert_not_reached ();
  }
}

gboolean
gst_net_props_get (GstElement * element, GstNetSrcSettings * s,
    GstNetStatsFunc get_stats, GstRatePath * rates, guint first_id,
    guint prop_id, GValue * value)
{
  gint offset = prop_offset (first_id, prop_id);

  if (offset < 0)
    return FALSE;
  if (offset == GST_NET_SRC_PROP_URI) {
    gst_net_uri_get_property (element, value);
    return TRUE;
  }
  /* the element's get takes its own lock */
  if (offset == GST_NET_SRC_PROP_STATS) {
    g_value_take_boxed (value, get_stats (element));
    return TRUE;
  }
  if (offset == GST_NET_SRC_PROP_BITRATE) {
    g_value_set_uint (value, gst_rate_path_get_bitrate (rates));
    return TRUE;
  }
  GST_OBJECT_LOCK (element);
  get_locked (s, offset, value);
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

gboolean
gst_net_src_props_get (GstBaseSrc * src, GstNetSrcSettings * s,
    GstNetStats * stats, guint first_id, guint prop_id, GValue * value)
{
  return gst_net_props_get (GST_ELEMENT (src), s, stats->get, NULL,
      first_id, prop_id, value);
}
