/* The shared part of the network push sources (see gstnetsrc.h). */
#include "gstnetsrc.h"

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

void
gst_net_src_set_caps (GstCaps ** caps, const GValue * value)
{
  const GstCaps *c = gst_value_get_caps (value);

  gst_caps_replace (caps, (GstCaps *) c);
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
