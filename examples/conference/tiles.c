/* The remote participants' tiles. tpsssrc adds a pad src_<id> with a
 * member's first packet and removes it after the member leaves; each pad
 * gets a decode branch into the compositor, and the grid is laid out again:
 * our own camera first, then the others by member id. */
#include "conference.h"

#include <gst/video/video.h>

/* A tile's own part of its branch. */
typedef struct
{
  Conference *conf;
  guint member;
  gint64 added;                 /* monotonic, us: the member's first packet */
  gint frames;                  /* decoded pictures (atomic) */
  /* key-unit requests: from the streaming thread and the retry timer */
  GMutex lock;
  gint64 asked;                 /* monotonic, us: the last one sent */
  gboolean awaiting_key;        /* no key frame out of the depayloader since */
  GstPad *depay_sink;           /* where the retry timer asks again */
  guint retry_source;           /* the timer, in the main loop */
} Tile;

/* How long a key-unit request waits for its key frame before it is sent
 * again: the member encodes one within a frame, its queue toward us holds
 * it HT (100 ms) plus what is ahead, and it crosses a 1 Mbit/s member's
 * share of its link in 150-250 ms. */
#define KEY_UNIT_RETRY_US (500 * G_TIME_SPAN_MILLISECOND)
/* How often the retry timer looks. */
#define KEY_UNIT_RETRY_CHECK_MS 50

static gdouble
seconds_since_start (Conference * conf)
{
  return (g_get_monotonic_time () - conf->started) / 1e6;
}

/* How long a member's picture takes to appear: from its first packet to its
 * first decoded frame (a key frame that the PLI on its pad asked for). */
static GstPadProbeReturn
on_first_picture (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tile *t = data;

  g_print ("t=%5.1f s  member %u: first picture %.0f ms after its first "
      "packet\n", seconds_since_start (t->conf), t->member,
      (g_get_monotonic_time () - t->added) / 1e3);
  return GST_PAD_PROBE_REMOVE;
}

/* Every key unit the tile asks its member for. */
static GstPadProbeReturn
trace_key_unit_request (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tile *t = data;

  if (gst_video_event_is_force_key_unit (GST_PAD_PROBE_INFO_EVENT (info)))
    GST_INFO ("member %u: key unit asked for at %" G_GINT64_FORMAT " ms",
        t->member, CONF_MONO_MS ());
  return GST_PAD_PROBE_OK;
}

static void
trace_tile (GstElement * depay, Tile * t)
{
  GstPad *sink = gst_element_get_static_pad (depay, "sink");

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      trace_key_unit_request, t, NULL);
  gst_object_unref (sink);
}

/* In the main loop: while a request has brought no key frame out of the
 * depayloader for KEY_UNIT_RETRY_US, asks again (a key frame lost or
 * damaged on the way, which the depayloader drops). A timer, not the next
 * packet: at the base layer's 3.75 fps packets come 267 ms apart, and after
 * a loss tpsssrc holds the next ones until the parity has had its chance,
 * so the retries that waited for a packet went up to 440 ms late. */
static gboolean
retry_key_unit (gpointer data)
{
  Tile *t = data;
  gboolean due;

  g_mutex_lock (&t->lock);
  due = t->awaiting_key &&
      g_get_monotonic_time () - t->asked >= KEY_UNIT_RETRY_US;
  g_mutex_unlock (&t->lock);
  if (due)
    /* upstream, through hold_key_unit_requests, which notes it */
    gst_pad_push_event (t->depay_sink,
        gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
            TRUE, 0));
  return G_SOURCE_CONTINUE;
}

/* Out of the depayloader (a gap in the packets) or the decoder: a request
 * while the last one has not brought a key frame yet, within
 * KEY_UNIT_RETRY_US, is dropped. Each would make the member encode another
 * key frame, several times the size of other frames; behind a slow link
 * they queue up, the link loses more, and every loss asks again (seen: five
 * key frames in 1.3 s to a joiner on a 1 Mbit/s link, its first picture
 * after 2.1-2.4 s). */
static GstPadProbeReturn
hold_key_unit_requests (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tile *t = data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  gboolean hold;

  if (!gst_video_event_is_force_key_unit (event))
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&t->lock);
  hold = t->awaiting_key &&
      g_get_monotonic_time () - t->asked < KEY_UNIT_RETRY_US;
  if (!hold) {
    t->asked = g_get_monotonic_time ();
    t->awaiting_key = TRUE;
  }
  g_mutex_unlock (&t->lock);
  return hold ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* A complete key frame out of the depayloader answers the requests. */
static GstPadProbeReturn
note_key_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tile *t = data;

  if (GST_BUFFER_FLAG_IS_SET (GST_PAD_PROBE_INFO_BUFFER (info),
          GST_BUFFER_FLAG_DELTA_UNIT))
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&t->lock);
  t->awaiting_key = FALSE;
  g_mutex_unlock (&t->lock);
  GST_INFO ("member %u: key frame depayloaded at %" G_GINT64_FORMAT
      " ms, %" G_GINT64_FORMAT " ms after its first packet", t->member,
      CONF_MONO_MS (), (g_get_monotonic_time () - t->added) / 1000);
  return GST_PAD_PROBE_OK;
}

/* tpsssrc asked the member for a key unit with its first packet; later
 * requests come from the depayloader and decoder, paced here. */
static void
pace_key_unit_requests (GstElement * depay, Tile * t)
{
  GstPad *sink = gst_element_get_static_pad (depay, "sink");
  GstPad *src = gst_element_get_static_pad (depay, "src");

  t->asked = t->added;
  t->awaiting_key = TRUE;
  t->depay_sink = gst_object_ref (sink);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      hold_key_unit_requests, t, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, note_key_frame, t, NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
}

/* A NAL unit without a picture, 0x0a: end of sequence. */
#define NAL_END_OF_SEQUENCE 0x0a

/* The bytes before a NAL unit in the decoder's input: a start code
 * (byte-stream) or a big-endian length of the size that codec_data gives
 * (avc). */
static gsize
nal_prefix_size (GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *format = gst_structure_get_string (s, "stream-format");
  const GValue *v = gst_structure_get_value (s, "codec_data");
  GstMapInfo map;
  gsize size = 4;

  if (g_strcmp0 (format, "avc") != 0 || !v || !GST_VALUE_HOLDS_BUFFER (v))
    return 4;
  if (gst_buffer_map (gst_value_get_buffer (v), &map, GST_MAP_READ)) {
    if (map.size > 4)
      size = (map.data[4] & 0x03) + 1;
    gst_buffer_unmap (gst_value_get_buffer (v), &map);
  }
  return size;
}

static GstBuffer *
end_of_sequence_unit (GstPad * dec_sink, GstBuffer * au)
{
  GstCaps *caps = gst_pad_get_current_caps (dec_sink);
  gsize prefix = caps ? nal_prefix_size (caps) : 4;
  guint8 data[5] = { 0 };
  GstBuffer *buf;

  /* a length of 1, or the start code 00 00 00 01: the same last byte */
  data[prefix - 1] = 1;
  data[prefix] = NAL_END_OF_SEQUENCE;
  buf = gst_buffer_new_memdup (data, prefix + 1);
  GST_BUFFER_PTS (buf) = GST_BUFFER_PTS (au);
  GST_BUFFER_DTS (buf) = GST_BUFFER_DTS (au);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  if (caps)
    gst_caps_unref (caps);
  return buf;
}

/* Out of the depayloader: each access unit goes into the decoder followed by
 * an end-of-sequence NAL unit. Why: avdec_h264 decodes with frame threads
 * (see tile_build), and libavcodec gives a frame out only once it has
 * taken in as many more packets as it has threads less one: with two, when
 * the next access unit arrives, 267 ms later at the base layer's 3.75 fps.
 * A joiner's first picture, and the one after every requested key frame,
 * came that late. The extra packet brings the picture out at once; it holds
 * no picture and changes nothing decoded (offline, 150 frames of every layer
 * and 38 of the base layer alone: the same pictures, 0.5 ms from input to
 * output instead of 67 or 262 ms). */
static GstPadProbeReturn
flush_access_unit (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstPad *dec_sink = data;
  GstBuffer *au = GST_PAD_PROBE_INFO_BUFFER (info);
  GstBuffer *eos_unit = end_of_sequence_unit (dec_sink, au);
  GstFlowReturn ret;

  ret = gst_pad_chain (dec_sink, au);
  if (ret == GST_FLOW_OK)
    ret = gst_pad_chain (dec_sink, eos_unit);
  else
    gst_buffer_unref (eos_unit);
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = ret;
  return GST_PAD_PROBE_HANDLED;
}

/* Added after pace_key_unit_requests' probes on the same pad, which see
 * each access unit first. */
static void
flush_decoder_per_access_unit (GstElement * depay, GstElement * dec)
{
  GstPad *src = gst_element_get_static_pad (depay, "src");
  GstPad *dec_sink = gst_element_get_static_pad (dec, "sink");

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, flush_access_unit,
      dec_sink, gst_object_unref);
  gst_object_unref (src);
}

/* In the main loop (branches.c takes branches down there), or where the
 * tile was built if its branch could not be set up (no timer yet). */
static void
tile_free (gpointer data)
{
  Tile *t = data;

  if (t->retry_source)
    g_source_remove (t->retry_source);
  if (t->depay_sink)
    gst_object_unref (t->depay_sink);
  g_mutex_clear (&t->lock);
  g_free (t);
}

static GstPadProbeReturn
count_picture (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((Tile *) data)->frames);
  return GST_PAD_PROBE_OK;
}

/* queue ! rtph264depay ! avdec_h264 ! videoconvert ! compositor */
static const gchar *const tile_factories[] = { "queue", "rtph264depay",
  "avdec_h264", "videoconvert", NULL
};

static ConfBranch *
tile_build (Conference * conf, guint member)
{
  ConfBranch *b = conf_branch_new (conf, "tile", member, conf->mix,
      tile_factories);
  GstElement *depay, *dec;
  GstPad *src;
  Tile *t;

  if (!b)
    return NULL;
  depay = b->elements[1];
  dec = b->elements[2];
  t = g_new0 (Tile, 1);
  g_mutex_init (&t->lock);
  t->conf = conf;
  t->member = member;
  t->added = g_get_monotonic_time ();
  b->data = t;
  b->free_data = tile_free;
  /* A packet that neither the network nor FEC brings back breaks the
   * picture until the next key frame: ask for one at once (a PLI). */
  g_object_set (depay, "request-keyframe", TRUE, NULL);
  pace_key_unit_requests (depay, t);
  /* A member behind a slow link gets the lower temporal layers, whose
   * frame_num gaps (allowed by the SPS) avdec_h264 fills only with frame
   * threads: sliced or single-threaded, in a live pipeline, it drops every
   * picture after a gap of more than one frame until the next key frame
   * (gst-libav 1.22: "Couldn't get codec frame"). libavcodec frees the
   * frames it makes up for a gap while it still decodes the frame after
   * it, and gst-libav then lets go of that frame; frame threads put the
   * freeing off. */
  gst_util_set_object_arg (G_OBJECT (dec), "thread-type", "frame");
  g_object_set (dec, "max-threads", 2, NULL);
  flush_decoder_per_access_unit (depay, dec);
  if (!conf_branch_link (b)) {
    conf_branch_discard (conf, b);
    return NULL;
  }
  src = gst_element_get_static_pad (dec, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_first_picture, t,
      NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_picture, t, NULL);
  gst_object_unref (src);
  if (gst_debug_category_get_threshold (conference_debug) >= GST_LEVEL_INFO) {
    GST_INFO ("member %u: first packet at %" G_GINT64_FORMAT " ms", member,
        t->added / 1000);
    trace_tile (depay, t);
  }
  /* Park the new tile off the canvas until the layout places it. */
  g_object_set (b->mix_pad, "xpos", -(gint) conf->opt.width * 4, NULL);
  conf_branch_play (b);
  t->retry_source = g_timeout_add (KEY_UNIT_RETRY_CHECK_MS, retry_key_unit,
      t);
  return b;
}

static void
tile_changed (Conference * conf, guint member, gboolean added)
{
  g_print ("t=%5.1f s  member %u %s\n", seconds_since_start (conf), member,
      added ? "joined: tile added" : "left: tile removed");
  conf_tiles_layout (conf);
}

static void
place (Conference * conf, GstPad * pad, guint cell)
{
  gint x, y;

  conf_grid_place (cell, conf->grid_cols, conf->grid_rows, conf->opt.width,
      conf->opt.height, &x, &y);
  g_object_set (pad, "xpos", x, "ypos", y, "width", (gint) conf->opt.width,
      "height", (gint) conf->opt.height, NULL);
}

/* Our camera in the first cell, the others in member id order; tiles past
 * the grid stay off the canvas. */
void
conf_tiles_layout (Conference * conf)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint));
  GHashTableIter it;
  gpointer key, value;

  g_mutex_lock (&conf->lock);
  g_hash_table_iter_init (&it, conf->tiles.table);
  while (g_hash_table_iter_next (&it, &key, NULL)) {
    guint id = GPOINTER_TO_UINT (key);
    g_array_append_val (ids, id);
  }
  place (conf, conf->self_pad, 0);
  g_hash_table_iter_init (&it, conf->tiles.table);
  while (g_hash_table_iter_next (&it, &key, &value))
    place (conf, ((ConfBranch *) value)->mix_pad,
        conf_grid_cell (GPOINTER_TO_UINT (key), (const guint *) ids->data,
            ids->len));
  g_mutex_unlock (&conf->lock);
  g_array_unref (ids);
}

/* FALSE, said on stderr, when a tile's element is missing (or, with
 * --preload-decoders, its plugin does not load). */
gboolean
conf_tiles_init (Conference * conf)
{
  GError *err = NULL;

  if (!(conf->opt.preload_decoders ?
          conf_plugins_preload (tile_factories, &err) :
          conf_plugins_find (tile_factories, &err))) {
    g_printerr ("conference: %s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  conf_branches_init (&conf->tiles, conf, conf->rx, tile_build,
      tile_changed);
  return TRUE;
}

guint
conf_tiles_count (Conference * conf)
{
  return conf_branches_count (&conf->tiles);
}

guint
conf_tiles_frames (Conference * conf, guint member)
{
  ConfBranch *b;
  guint n = 0;

  g_mutex_lock (&conf->lock);
  b = g_hash_table_lookup (conf->tiles.table, GUINT_TO_POINTER (member));
  if (b)
    n = (guint) g_atomic_int_get (&((Tile *) b->data)->frames);
  g_mutex_unlock (&conf->lock);
  return n;
}

/* At the end: every tile's branch ends, so the compositor and the recording
 * can finish. */
void
conf_tiles_send_eos (Conference * conf)
{
  conf_branches_send_eos (&conf->tiles);
}

void
conf_tiles_clear (Conference * conf)
{
  conf_branches_clear (&conf->tiles);
}
