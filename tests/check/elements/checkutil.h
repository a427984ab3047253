/* Small helpers the element tests share. */
#ifndef __CHECK_UTIL_H__
#define __CHECK_UTIL_H__

#include <gst/check/gstcheck.h>

/* The element made by @factory with "key=value ..." properties applied. */
static inline GstElement *
check_make_element (const gchar * factory, const gchar * props)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  gchar **kv = g_strsplit (props, " ", -1);

  fail_unless (e != NULL, "no element %s", factory);
  for (gchar ** p = kv; *p; p++) {
    gchar **pair = g_strsplit (*p, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg (G_OBJECT (e), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
  return e;
}

/* A guint64 field of an element's `stats` structure (0 if absent). */
static inline guint64
check_stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_uint64 (s, field, &v);
  gst_structure_free (s);
  return v;
}

#endif
