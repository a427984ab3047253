/* An element that takes a while to go to PLAYING, for the tests of what
 * happens in between. It is a sink, so a bin starts it before the rest. A
 * pipeline going to PLAYING gives every element its clock at once, then
 * each its base time as the bin reaches it: while this one starts, the
 * elements after it have a clock and no base time yet, as under load in a
 * pipeline whose elements are slow to start. */
#ifndef __SLOW_START_H__
#define __SLOW_START_H__

#include <gst/gst.h>

typedef struct
{
  GstElement parent;
  guint hold_ms;
} SlowStart;

typedef struct
{
  GstElementClass parent_class;
} SlowStartClass;

GType slow_start_get_type (void);
G_DEFINE_TYPE (SlowStart, slow_start, GST_TYPE_ELEMENT);

/* 1 while a SlowStart holds its way to PLAYING */
static gint slow_start_holding;

static GstStateChangeReturn
slow_start_change_state (GstElement * element, GstStateChange transition)
{
  SlowStart *self = (SlowStart *) element;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING) {
    g_atomic_int_set (&slow_start_holding, 1);
    g_usleep (self->hold_ms * 1000);
    g_atomic_int_set (&slow_start_holding, 0);
  }
  return GST_ELEMENT_CLASS (slow_start_parent_class)->change_state (element,
      transition);
}

static void
slow_start_class_init (SlowStartClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  element_class->change_state = slow_start_change_state;
  gst_element_class_set_static_metadata (element_class, "Slow start",
      "Sink", "Takes a while to go to PLAYING", "tests");
}

static void
slow_start_init (SlowStart * self)
{
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SINK);
}

/* A SlowStart that holds its start @hold_ms ms. */
static inline GstElement *
slow_start_new (guint hold_ms)
{
  SlowStart *s = g_object_new (slow_start_get_type (), NULL);

  s->hold_ms = hold_ms;
  return GST_ELEMENT (s);
}

#endif
