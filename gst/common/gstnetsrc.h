/* What a network push source shares: the loop thread queues packets under
 * a lock and signals a cond; create() waits on it until a packet or a
 * flush (unlock / unlock_stop); get_caps answers with the `caps` property
 * (as udpsrc's), else the pad template. */
#ifndef __GST_NET_SRC_H__
#define __GST_NET_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

/* Also what a sink that holds packets for its own thread waits on (render
 * waiting for room; unlock / unlock_stop set flushing). */
typedef struct
{
  GMutex lock;                  /* also guards the element's packet state */
  GCond cond;                   /* a packet was queued, or a flush began */
  gboolean flushing;            /* between unlock and unlock_stop */
} GstNetSrcWait;

void gst_net_src_wait_init (GstNetSrcWait * wait);
void gst_net_src_wait_clear (GstNetSrcWait * wait);

/* Called from the element's class_init: unlock, unlock_stop and get_caps
 * of @klass work on the instance's GstNetSrcWait at @wait_offset and its
 * `caps` (GstCaps *, under the object lock) at @caps_offset, with @tmpl's
 * caps when that is NULL; query answers LATENCY of a live source with
 * gst_net_src_answer_latency (query, 0) and passes the rest to the class's
 * previous query (an element that holds packets back sets its own query
 * after this call). Use G_STRUCT_OFFSET; @tmpl must be static. */
void gst_net_src_class_init (GstBaseSrcClass * klass, gsize wait_offset,
    gsize caps_offset, GstStaticPadTemplate * tmpl);

/* What unlock (TRUE) and unlock_stop (FALSE) do: a flush wakes create()
 * and keeps it from waiting again until it ends. */
void gst_net_src_wait_set_flushing (GstNetSrcWait * wait, gboolean flushing);

/* Answers a LATENCY query of a live network source whose buffers are
 * stamped as they leave create(): live, @min (what the element holds
 * packets back, 0 if nothing), no upper bound (while downstream blocks,
 * packets wait in the socket buffers). GstBaseSrc's default (max = min =
 * 0) leaves a synced sink no room for a decoder's latency. FALSE if
 * @query is no LATENCY query. */
gboolean gst_net_src_answer_latency (GstQuery * query, GstClockTime min);

/* The `caps` property's set, under the object lock (mark the source pad
 * for reconfiguration after releasing it). */
void gst_net_src_set_caps (GstCaps ** caps, const GValue * value);

G_END_DECLS

#endif /* __GST_NET_SRC_H__ */
