/* Snapshots saved in a worker thread (confsnap.h). */
#include "confsnap.h"

/* The conversion's bound, as when it ran in the main loop. */
#define CONVERT_TIMEOUT GST_SECOND

typedef struct
{
  GstSample *sample;
  gchar *path;
} SnapshotJob;

static void
snapshot_job_free (SnapshotJob * job)
{
  gst_sample_unref (job->sample);
  g_free (job->path);
  g_free (job);
}

static void
write_png (SnapshotJob * job, ConfSnapshots * s)
{
  GstCaps *caps = gst_caps_new_empty_simple ("image/png");
  GError *err = NULL;
  GstSample *png = s->convert (job->sample, caps, CONVERT_TIMEOUT, &err);
  GstMapInfo map;

  gst_caps_unref (caps);
  if (!png) {
    g_printerr ("conference: snapshot failed: %s\n",
        err ? err->message : "?");
    g_clear_error (&err);
    snapshot_job_free (job);
    return;
  }
  gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ);
  /* atomically: readers never see a half-written file */
  if (!g_file_set_contents (job->path, (const gchar *) map.data, map.size,
          &err)) {
    g_printerr ("conference: %s\n", err->message);
    g_clear_error (&err);
  }
  gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  gst_sample_unref (png);
  snapshot_job_free (job);
}

void
conf_snapshots_init (ConfSnapshots * s, ConfConvertFunc convert)
{
  s->convert = convert;
  s->skipped = 0;
  /* one thread: the saves go in order, the last one last */
  s->pool = g_thread_pool_new ((GFunc) write_png, s, 1, FALSE, NULL);
}

void
conf_snapshot_save (ConfSnapshots * s, GstSample * sample,
    const gchar * path, gboolean last)
{
  SnapshotJob *job;

  if (!last && g_thread_pool_unprocessed (s->pool) > 0) {
    s->skipped++;
    gst_sample_unref (sample);
    return;
  }
  job = g_new0 (SnapshotJob, 1);
  job->sample = sample;
  job->path = g_strdup (path);
  g_thread_pool_push (s->pool, job, NULL);
}

void
conf_snapshots_finish (ConfSnapshots * s)
{
  if (!s->pool)
    return;
  g_thread_pool_free (s->pool, FALSE, TRUE);
  s->pool = NULL;
}
