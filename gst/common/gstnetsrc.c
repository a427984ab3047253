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

GstCaps *
gst_net_src_get_caps (GstElement * element, GstCaps * const *caps,
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

void
gst_net_src_set_caps (GstCaps ** caps, const GValue * value)
{
  const GstCaps *c = gst_value_get_caps (value);

  gst_caps_replace (caps, (GstCaps *) c);
}
