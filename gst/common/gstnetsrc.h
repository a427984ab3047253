/* What a network push source shares: the loop thread queues packets under
 * a lock and signals a cond; create() waits on it until a packet or a
 * flush (unlock / unlock_stop); get_caps answers with the `caps` property
 * (as udpsrc's), else the pad template. And the properties every source
 * has alike (source-address, caps, stats-interval, stats, uri), installed
 * from one description and kept in a GstNetSrcSettings; the network sinks
 * take stats-interval, stats, uri and bitrate from the same description. */
#ifndef __GST_NET_SRC_H__
#define __GST_NET_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>
#include "gstlayerrates.h"
#include "gstnetstats.h"

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

/* Offsets from the element's first id (ids of absent ones are skipped). */
enum
{
  GST_NET_SRC_PROP_SOURCE_ADDRESS,
  GST_NET_SRC_PROP_CAPS,
  GST_NET_SRC_PROP_STATS_INTERVAL,
  GST_NET_SRC_PROP_STATS,
  GST_NET_SRC_PROP_URI,
  GST_NET_SRC_PROP_BITRATE,
  GST_NET_SRC_N_PROPS
};

/* One static description per element. Blurbs in the element's words
 * (units and what 0 or NULL means); NULL: the element has no such
 * property. All but stats are mutable in READY. */
typedef struct
{
  const gchar *source_address_blurb;    /* string, NULL by default */
  const gchar *caps_blurb;      /* GstCaps, NULL by default */
  const gchar *stats_interval_blurb;    /* ns, 0..G_MAXINT64 */
  guint64 stats_interval_default;
  const gchar *stats_blurb;     /* read-only GstStructure */
  const gchar *uri_blurb;       /* gst_net_uri_install_property */
  const gchar *bitrate_blurb;   /* a sink's: read-only guint, bit/s */
} GstNetSrcProps;

/* The element's values, under the object lock. */
typedef struct
{
  gchar *source_address;
  GstCaps *caps;                /* gst_net_src_class_init's caps_offset */
  guint64 stats_interval;       /* ns */
  GError *uri_error;            /* the last uri set, if it was bad */
} GstNetSrcSettings;

/* Installs the properties @props has at @first_id + GST_NET_SRC_PROP_*;
 * returns the first free id. */
guint gst_net_src_props_install (const GstNetSrcProps * props,
    GObjectClass * klass, guint first_id);
void gst_net_src_settings_init (const GstNetSrcProps * props,
    GstNetSrcSettings * settings);
void gst_net_src_settings_clear (GstNetSrcSettings * settings);

/* TRUE if @prop_id is one of the properties (then it was set / read).
 * Call holding no lock: they take the object lock, a uri is applied as
 * gst_net_uri_set_property does, new caps mark the source pad for
 * reconfiguration, and stats is what @stats' get builds. */
gboolean gst_net_src_props_set (GstBaseSrc * src,
    GstNetSrcSettings * settings, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_net_src_props_get (GstBaseSrc * src,
    GstNetSrcSettings * settings, GstNetStats * stats, guint first_id,
    guint prop_id, GValue * value);

/* A sink has the same description with no source-address and no caps
 * (gst_net_src_props_install, gst_net_src_settings_init and _clear), and
 * sets and gets them with these, which the source's wrap: @get_stats
 * builds stats, bitrate is @rates' (the property it notifies). */
typedef GstNetSrcProps GstNetSinkProps;
typedef GstNetSrcSettings GstNetSinkSettings;

gboolean gst_net_props_set (GstElement * element,
    GstNetSrcSettings * settings, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_net_props_get (GstElement * element,
    GstNetSrcSettings * settings, GstNetStatsFunc get_stats,
    GstRatePath * rates, guint first_id, guint prop_id, GValue * value);

G_END_DECLS

#endif /* __GST_NET_SRC_H__ */
