/* Snapshots saved off the main loop: the mixed picture's conversion to PNG
 * took up to its 1 s timeout under load, and the main loop (statistics,
 * the leave) waited for it (docs/conference.md, "Snapshots"). Saves run
 * one at a time in a worker thread, in the order asked. */
#ifndef __CONF_SNAP_H__
#define __CONF_SNAP_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* What converts a sample to @to (gst_video_convert_sample's signature). */
typedef GstSample *(*ConfConvertFunc) (GstSample * sample,
    const GstCaps * to, GstClockTime timeout, GError ** error);

typedef struct
{
  GThreadPool *pool;
  ConfConvertFunc convert;
  guint skipped;                /* periodic saves left out: one was waiting */
} ConfSnapshots;

void conf_snapshots_init (ConfSnapshots * s, ConfConvertFunc convert);

/* Queues the PNG of @sample (its reference is taken) to be written to
 * @path atomically, and returns at once. A periodic save (@last FALSE) is
 * left out (counted in skipped) while another still waits its turn; the
 * last one always goes. */
void conf_snapshot_save (ConfSnapshots * s, GstSample * sample,
    const gchar * path, gboolean last);

/* Waits for the saves asked so far, then frees the worker. */
void conf_snapshots_finish (ConfSnapshots * s);

G_END_DECLS

#endif /* __CONF_SNAP_H__ */
