/* Pipelines and files of the RMTP element tests. */
#ifndef __RMTP_CHECK_H__
#define __RMTP_CHECK_H__

#include <gst/check/gstcheck.h>
#include <string.h>

static inline GstElement *
launch (const gchar * desc, const gchar * name, GstElement ** element)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  *element = gst_bin_get_by_name (GST_BIN (p), name);
  fail_unless (*element != NULL);
  return p;
}

static inline void
stop_pipeline (GstElement ** pipe, GstElement ** element)
{
  if (!*pipe)
    return;
  gst_element_set_state (*pipe, GST_STATE_NULL);
  gst_object_unref (*element);
  gst_object_unref (*pipe);
  *pipe = *element = NULL;
}

static inline void
assert_same_file (const gchar * a, const gchar * b)
{
  gchar *da, *db;
  gsize na, nb;

  fail_unless (g_file_get_contents (a, &da, &na, NULL));
  fail_unless (g_file_get_contents (b, &db, &nb, NULL));
  fail_unless_equals_uint64 (nb, na);
  fail_unless (memcmp (da, db, na) == 0, "%s differs from %s", b, a);
  g_free (da);
  g_free (db);
}

#endif /* __RMTP_CHECK_H__ */
