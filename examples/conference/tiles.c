/* The remote participants' tiles. tpsssrc adds a pad src_<id> with a
 * member's first packet and removes it after the member leaves; each pad
 * gets a decode branch into the compositor, and the grid is laid out again:
 * our own camera first, then the others by member id. */
#include "conference.h"

#include <stdlib.h>

typedef struct
{
  Conference *conf;
  guint member;
  GstElement *queue, *depay, *dec, *convert;
  GstPad *mix_pad;
  gint64 added;                 /* monotonic, us: the member's first packet */
  gint frames;                  /* decoded pictures (atomic) */
} Tile;

typedef struct
{
  Conference *conf;
  guint member;
} TileRef;

static void
tile_free (gpointer data)
{
  Tile *t = data;

  if (t->mix_pad)
    gst_object_unref (t->mix_pad);
  g_free (t);
}

static gboolean
member_of_pad (GstPad * pad, guint * member)
{
  gchar *name = gst_pad_get_name (pad);
  gboolean ok = g_str_has_prefix (name, "src_");

  if (ok)
    *member = (guint) strtoul (name + 4, NULL, 10);
  g_free (name);
  return ok;
}

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

static GstElement *
tile_element (Tile * t, const gchar * factory, const gchar * role)
{
  gchar *name = g_strdup_printf ("tile%u-%s", t->member, role);
  GstElement *e = gst_element_factory_make (factory, name);

  g_free (name);
  if (!e)
    g_printerr ("conference: element %s is missing\n", factory);
  return e;
}

static GstPadProbeReturn
count_picture (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((Tile *) data)->frames);
  return GST_PAD_PROBE_OK;
}

/* queue ! rtph264depay ! avdec_h264 ! videoconvert ! compositor */
static Tile *
tile_build (Conference * conf, guint member)
{
  Tile *t = g_new0 (Tile, 1);
  GstPad *src;

  t->conf = conf;
  t->member = member;
  t->added = g_get_monotonic_time ();
  t->queue = tile_element (t, "queue", "queue");
  t->depay = tile_element (t, "rtph264depay", "depay");
  t->dec = tile_element (t, "avdec_h264", "dec");
  t->convert = tile_element (t, "videoconvert", "convert");
  if (!t->queue || !t->depay || !t->dec || !t->convert)
    goto failed;
  /* A packet that neither the network nor FEC brings back breaks the
   * picture until the next key frame: ask for one at once (a PLI). */
  g_object_set (t->depay, "request-keyframe", TRUE, NULL);
  /* A member behind a slow link gets the lower temporal layers, whose
   * frame_num gaps (allowed by the SPS) avdec_h264 fills only with frame
   * threads: sliced or single-threaded, in a live pipeline, it drops every
   * picture after a gap of more than one frame until the next key frame
   * (gst-libav 1.22: "Couldn't get codec frame"). */
  gst_util_set_object_arg (G_OBJECT (t->dec), "thread-type", "frame");
  g_object_set (t->dec, "max-threads", 2, NULL);
  gst_bin_add_many (GST_BIN (conf->pipeline), t->queue, t->depay, t->dec,
      t->convert, NULL);
  if (!gst_element_link_many (t->queue, t->depay, t->dec, t->convert, NULL))
    goto failed;
  t->mix_pad = gst_element_request_pad_simple (conf->mix, "sink_%u");
  src = gst_element_get_static_pad (t->convert, "src");
  if (gst_pad_link (src, t->mix_pad) != GST_PAD_LINK_OK) {
    gst_object_unref (src);
    goto failed;
  }
  gst_object_unref (src);
  src = gst_element_get_static_pad (t->dec, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_first_picture, t,
      NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_picture, t, NULL);
  gst_object_unref (src);
  /* Park the new tile off the canvas until the layout places it. */
  g_object_set (t->mix_pad, "xpos", -(gint) conf->opt.width * 4, NULL);
  gst_element_sync_state_with_parent (t->convert);
  gst_element_sync_state_with_parent (t->dec);
  gst_element_sync_state_with_parent (t->depay);
  gst_element_sync_state_with_parent (t->queue);
  return t;

failed:
  g_printerr ("conference: cannot build the tile of member %u\n", member);
  tile_free (t);
  return NULL;
}

static void
tile_destroy (Conference * conf, Tile * t)
{
  GstElement *elements[] = { t->queue, t->depay, t->dec, t->convert };

  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    gst_element_set_locked_state (elements[i], TRUE);
    gst_element_set_state (elements[i], GST_STATE_NULL);
    gst_bin_remove (GST_BIN (conf->pipeline), elements[i]);
  }
  gst_element_release_request_pad (conf->mix, t->mix_pad);
  tile_free (t);
}

static void
on_pad_added (GstElement * rx, GstPad * pad, gpointer data)
{
  Conference *conf = data;
  guint member;
  Tile *t;
  GstPad *sink;

  if (!member_of_pad (pad, &member))
    return;
  t = tile_build (conf, member);
  if (!t)
    return;
  sink = gst_element_get_static_pad (t->queue, "sink");
  gst_pad_link (pad, sink);
  gst_object_unref (sink);
  g_mutex_lock (&conf->lock);
  g_hash_table_insert (conf->tiles, GUINT_TO_POINTER (member), t);
  g_mutex_unlock (&conf->lock);
  g_print ("t=%5.1f s  member %u joined: tile added\n",
      seconds_since_start (conf), member);
  conf_tiles_layout (conf);
}

static gboolean
remove_tile (gpointer data)
{
  TileRef *ref = data;
  Conference *conf = ref->conf;
  Tile *t;

  g_mutex_lock (&conf->lock);
  t = g_hash_table_lookup (conf->tiles, GUINT_TO_POINTER (ref->member));
  g_hash_table_steal (conf->tiles, GUINT_TO_POINTER (ref->member));
  g_mutex_unlock (&conf->lock);
  if (t) {
    tile_destroy (conf, t);
    g_print ("t=%5.1f s  member %u left: tile removed\n",
        seconds_since_start (conf), ref->member);
    conf_tiles_layout (conf);
  }
  g_free (ref);
  return G_SOURCE_REMOVE;
}

/* In tpsssrc's thread, after the member's EOS: the branch is taken down in
 * the main loop, where no data flows through it any more. */
static void
on_pad_removed (GstElement * rx, GstPad * pad, gpointer data)
{
  Conference *conf = data;
  TileRef *ref;
  guint member;

  if (!member_of_pad (pad, &member))
    return;
  ref = g_new0 (TileRef, 1);
  ref->conf = conf;
  ref->member = member;
  g_idle_add (remove_tile, ref);
}

static gint
compare_ids (gconstpointer a, gconstpointer b)
{
  guint x = GPOINTER_TO_UINT (*(gconstpointer *) a);
  guint y = GPOINTER_TO_UINT (*(gconstpointer *) b);

  return x < y ? -1 : x > y;
}

static void
place (Conference * conf, GstPad * pad, guint cell)
{
  guint col = cell % conf->grid_cols, row = cell / conf->grid_cols;

  g_object_set (pad, "xpos", (gint) (col * conf->opt.width),
      "ypos", (gint) (row * conf->opt.height),
      "width", (gint) conf->opt.width, "height", (gint) conf->opt.height,
      NULL);
}

/* Our camera in the first cell, the others in member id order; tiles past
 * the grid stay off the canvas. */
void
conf_tiles_layout (Conference * conf)
{
  GPtrArray *ids = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  guint cells = conf->grid_cols * conf->grid_rows;

  g_mutex_lock (&conf->lock);
  g_hash_table_iter_init (&it, conf->tiles);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (ids, key);
  g_ptr_array_sort (ids, compare_ids);
  place (conf, conf->self_pad, 0);
  for (guint i = 0; i < ids->len; i++) {
    Tile *t = g_hash_table_lookup (conf->tiles, ids->pdata[i]);

    if (i + 1 < cells)
      place (conf, t->mix_pad, i + 1);
    else
      g_object_set (t->mix_pad, "xpos", -(gint) conf->opt.width * 4, NULL);
  }
  g_mutex_unlock (&conf->lock);
  g_ptr_array_unref (ids);
}

void
conf_tiles_init (Conference * conf)
{
  conf->tiles = g_hash_table_new_full (NULL, NULL, NULL, tile_free);
  g_signal_connect (conf->rx, "pad-added", G_CALLBACK (on_pad_added), conf);
  g_signal_connect (conf->rx, "pad-removed", G_CALLBACK (on_pad_removed),
      conf);
}

guint
conf_tiles_count (Conference * conf)
{
  guint n;

  g_mutex_lock (&conf->lock);
  n = g_hash_table_size (conf->tiles);
  g_mutex_unlock (&conf->lock);
  return n;
}

guint
conf_tiles_frames (Conference * conf, guint member)
{
  Tile *t;
  guint n = 0;

  g_mutex_lock (&conf->lock);
  t = g_hash_table_lookup (conf->tiles, GUINT_TO_POINTER (member));
  if (t)
    n = (guint) g_atomic_int_get (&t->frames);
  g_mutex_unlock (&conf->lock);
  return n;
}

/* At the end: every tile's branch ends, so the compositor and the recording
 * can finish. */
void
conf_tiles_send_eos (Conference * conf)
{
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&conf->lock);
  g_hash_table_iter_init (&it, conf->tiles);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Tile *t = value;
    GstPad *sink = gst_element_get_static_pad (t->queue, "sink");
    GstPad *peer = gst_pad_get_peer (sink);

    /* Cut the member's stream off first, so nothing follows the EOS. */
    if (peer) {
      gst_pad_unlink (peer, sink);
      gst_object_unref (peer);
    }
    gst_pad_send_event (sink, gst_event_new_eos ());
    gst_object_unref (sink);
  }
  g_mutex_unlock (&conf->lock);
}

void
conf_tiles_clear (Conference * conf)
{
  if (!conf->tiles)
    return;
  g_hash_table_destroy (conf->tiles);
  conf->tiles = NULL;
}
