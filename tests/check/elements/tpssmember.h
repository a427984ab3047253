/* The group members the TPSS element tests run on loopback: a pipeline
 * whose tpsssrc pads are each linked, as they appear, to a fakesink that
 * counts what arrives. */
#ifndef __TPSS_MEMBER_H__
#define __TPSS_MEMBER_H__

#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <stdio.h>
#include "checkutil.h"

typedef struct
{
  GMutex lock;
  GstElement *pipeline;
  guint32 peer;                 /* member whose pad appeared */
  guint buffers;
  guint eos;
  guint pads_added, pads_removed;
} Member;

static inline GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Member *m = data;

  g_mutex_lock (&m->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    m->buffers++;
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    m->eos++;
  g_mutex_unlock (&m->lock);
  return GST_PAD_PROBE_OK;
}

static inline void
on_pad_added (GstElement * src, GstPad * pad, gpointer data)
{
  Member *m = data;
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *sinkpad;

  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (m->pipeline), sink);
  gst_element_sync_state_with_parent (sink);
  sinkpad = gst_element_get_static_pad (sink, "sink");
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_probe, m, NULL);
  gst_object_unref (sinkpad);
  g_mutex_lock (&m->lock);
  m->pads_added++;
  sscanf (GST_PAD_NAME (pad), "src_%u", &m->peer);
  g_mutex_unlock (&m->lock);
}

static inline void
on_pad_removed (GstElement * src, GstPad * pad, gpointer data)
{
  Member *m = data;

  g_mutex_lock (&m->lock);
  m->pads_removed++;
  g_mutex_unlock (&m->lock);
}

#define WAIT_UNTIL(cond, seconds) G_STMT_START { \
    for (guint _i = 0; _i < (seconds) * 20 && !(cond); _i++) \
      g_usleep (50000); \
  } G_STMT_END

static inline guint
locked_read (Member * m, guint * field)
{
  guint v;
  g_mutex_lock (&m->lock);
  v = *field;
  g_mutex_unlock (&m->lock);
  return v;
}

#endif /* __TPSS_MEMBER_H__ */
