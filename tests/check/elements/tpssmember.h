/* The group members the TPSS element tests run on loopback: a pipeline
 * whose tpsssrc pads are each linked, as they appear, to a fakesink that
 * counts what arrives. */
#ifndef __TPSS_MEMBER_H__
#define __TPSS_MEMBER_H__

#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
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

#define TPSS_MEMBER_RTP_CAPS "application/x-rtp,media=audio," \
    "clock-rate=8000,encoding-name=L16,channels=1"

/* As member_run, with @pad_added (given @data) as the pad-added handler;
 * it calls on_pad_added () with @m to link the pad. */
static inline void
member_run_with (Member * m, GstElement * pipeline, GCallback pad_added,
    gpointer data)
{
  GstElement *src;

  memset (m, 0, sizeof (*m));
  g_mutex_init (&m->lock);
  m->pipeline = pipeline;
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  g_signal_connect (src, "pad-added", pad_added, data);
  g_signal_connect (src, "pad-removed", G_CALLBACK (on_pad_removed), m);
  gst_object_unref (src);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

/* Runs @pipeline (taken) as member @m: its element "src" (a tpsssrc) has
 * each pad linked to a counting fakesink as it appears. */
static inline void
member_run (Member * m, GstElement * pipeline)
{
  member_run_with (m, pipeline, G_CALLBACK (on_pad_added), m);
}

/* One member's pipeline: @num_buffers packets of audio (-1: without end)
 * out through tpsssink "sink", everyone else's in on tpsssrc "src", both
 * with the properties @extra. */
static inline GstElement *
member_launch (guint id, guint port, const gchar * members,
    const gchar * extra, gint num_buffers)
{
  gchar *desc = g_strdup_printf ("audiotestsrc is-live=true num-buffers=%d "
      "samplesperbuffer=160 ! audio/x-raw,rate=8000,channels=1 ! rtpL16pay ! "
      "tpsssink name=sink port=%u member-id=%u members=%s %s "
      "tpsssrc name=src port=%u members=%s %s caps=\""
      TPSS_MEMBER_RTP_CAPS "\"", num_buffers, port, id, members, extra, port,
      members, extra);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);

  fail_unless (err == NULL, "%s", err ? err->message : "");
  g_free (desc);
  return pipeline;
}

/* member_launch () run as @m. */
static inline void
member_start_n (Member * m, guint id, guint port, const gchar * members,
    const gchar * extra, gint num_buffers)
{
  member_run (m, member_launch (id, port, members, extra, num_buffers));
}

static inline void
member_start (Member * m, guint id, guint port, const gchar * members,
    const gchar * extra)
{
  member_start_n (m, id, port, members, extra, -1);
}

static inline void
member_stop (Member * m)
{
  if (!m->pipeline)
    return;
  gst_element_set_state (m->pipeline, GST_STATE_NULL);
  gst_object_unref (m->pipeline);
  m->pipeline = NULL;
}

/* @len bytes from @sock to 127.0.0.1:@port. */
static inline void
member_send_bytes (GSocket * sock, guint port, const guint8 * data,
    gsize len)
{
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *to = g_inet_socket_address_new (lo, port);

  fail_unless (g_socket_send_to (sock, to, (const gchar *) data, len, NULL,
          NULL) == (gssize) len);
  g_object_unref (to);
  g_object_unref (lo);
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

/* The per-member structure for @id in @stats (a tpsssink's or tpsssrc's),
 * or NULL. */
static inline const GstStructure *
member_stats (const GstStructure * stats, guint id)
{
  const GValue *list = gst_structure_get_value (stats, "members");

  for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
    const GstStructure *ms =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    guint mid = 0;
    gst_structure_get_uint (ms, "id", &mid);
    if (mid == id)
      return ms;
  }
  return NULL;
}

/* The guint64 @field of member @id in @element's stats; 0 if absent. */
static inline guint64
member_stat_u64 (GstElement * element, guint id, const gchar * field)
{
  GstStructure *s;
  const GstStructure *ms;
  guint64 v = 0;

  g_object_get (element, "stats", &s, NULL);
  ms = member_stats (s, id);
  if (ms)
    gst_structure_get_uint64 (ms, field, &v);
  gst_structure_free (s);
  return v;
}

#endif /* __TPSS_MEMBER_H__ */
