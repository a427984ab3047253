/* One branch per remote member behind a tpsssrc (tiles.c: video into the
 * compositor; confaudio.c: voices into audiomixer). tpsssrc adds a pad
 * src_<id> with a member's first packet and removes it after the member
 * leaves: a branch is built and linked in the pad-added handler, leaves
 * the table when its pad is removed, and is taken down in the main loop
 * then (no data flows through it any more). A member may come back, with a
 * new pad of the same name, before the main loop took its old branch
 * down: each branch's elements have names of their own. Branches are
 * looked up under conf->lock. */
#include "conference.h"

#include <stdlib.h>

typedef struct
{
  ConfBranches *branches;
  ConfBranch *branch;
} BranchRef;

/* Tells apart the element names of branches built for one member. */
static gint branch_serial;

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

static void
branch_free (gpointer data)
{
  ConfBranch *b = data;

  if (b->mix_pad)
    gst_object_unref (b->mix_pad);
  if (b->free_data)
    b->free_data (b->data);
  g_free (b);
}

/* Out of the pipeline, and freed. */
static void
branch_destroy (Conference * conf, ConfBranch * b)
{
  for (guint i = 0; i < b->n_elements; i++) {
    gst_element_set_locked_state (b->elements[i], TRUE);
    gst_element_set_state (b->elements[i], GST_STATE_NULL);
    gst_bin_remove (GST_BIN (conf->pipeline), b->elements[i]);
  }
  if (b->mix_pad)
    gst_element_release_request_pad (b->mixer, b->mix_pad);
  branch_free (b);
}

ConfBranch *
conf_branch_new (Conference * conf, const gchar * kind, guint member,
    GstElement * mixer, const gchar * const *factories)
{
  ConfBranch *b = g_new0 (ConfBranch, 1);
  gint serial = g_atomic_int_add (&branch_serial, 1);

  b->member = member;
  b->mixer = mixer;
  for (guint i = 0; factories[i] && i < CONF_BRANCH_MAX_ELEMENTS; i++) {
    gchar *name = g_strdup_printf ("%s%u-%d-%s", kind, member, serial,
        factories[i]);
    GstElement *e = gst_element_factory_make (factories[i], name);

    g_free (name);
    if (!e) {
      g_printerr ("conference: element %s is missing\n", factories[i]);
      goto failed;
    }
    /* a bin that refuses an element destroys it */
    if (!gst_bin_add (GST_BIN (conf->pipeline), e))
      goto failed;
    b->elements[b->n_elements++] = e;
  }
  for (guint i = 1; i < b->n_elements; i++)
    if (!gst_element_link (b->elements[i - 1], b->elements[i]))
      goto failed;
  return b;

failed:
  g_printerr ("conference: cannot build the %s of member %u\n", kind,
      member);
  branch_destroy (conf, b);
  return NULL;
}

gboolean
conf_branch_link (ConfBranch * b)
{
  GstPad *src = gst_element_get_static_pad (b->elements[b->n_elements - 1],
      "src");
  GstPadLinkReturn ret;

  b->mix_pad = gst_element_request_pad_simple (b->mixer, "sink_%u");
  ret = gst_pad_link (src, b->mix_pad);
  gst_object_unref (src);
  if (ret != GST_PAD_LINK_OK)
    g_printerr ("conference: cannot link the branch of member %u\n",
        b->member);
  return ret == GST_PAD_LINK_OK;
}

void
conf_branch_play (ConfBranch * b)
{
  /* downstream first, so that nothing pushes into an element not ready */
  for (guint i = b->n_elements; i > 0; i--)
    gst_element_sync_state_with_parent (b->elements[i - 1]);
}

/* A branch that could not be set up. */
void
conf_branch_discard (Conference * conf, ConfBranch * b)
{
  branch_destroy (conf, b);
}

/* What a member's stream brings, averaged by the statistics: the
 * session's receive-rate is measured over one round trip, and reads as the
 * rate the sender's queue drains at whenever it holds a burst. */
static GstPadProbeReturn
count_bytes (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ConfBranch *b = data;

  g_atomic_pointer_add (&b->bytes,
      gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

static void
on_pad_added (GstElement * src, GstPad * pad, gpointer data)
{
  ConfBranches *bs = data;
  Conference *conf = bs->conf;
  ConfBranch *b;
  GstPad *sink;
  guint member;

  if (!member_of_pad (pad, &member) || conf->stopping)
    return;
  b = bs->build (conf, member);
  if (!b)
    return;
  sink = gst_element_get_static_pad (b->elements[0], "sink");
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, count_bytes, b, NULL);
  gst_pad_link (pad, sink);
  gst_object_unref (sink);
  g_mutex_lock (&conf->lock);
  g_hash_table_insert (bs->table, GUINT_TO_POINTER (member), b);
  g_mutex_unlock (&conf->lock);
  if (bs->changed)
    bs->changed (conf, member, TRUE);
}

static gboolean
remove_branch (gpointer data)
{
  BranchRef *ref = data;
  ConfBranches *bs = ref->branches;
  guint member = ref->branch->member;

  branch_destroy (bs->conf, ref->branch);
  if (bs->changed)
    bs->changed (bs->conf, member, FALSE);
  g_free (ref);
  return G_SOURCE_REMOVE;
}

/* In tpsssrc's thread, after the member's EOS: the branch of the pad leaves
 * the table now (tpsssrc removes a member's pad before it adds the next),
 * and the main loop takes it down. */
static void
on_pad_removed (GstElement * src, GstPad * pad, gpointer data)
{
  ConfBranches *bs = data;
  BranchRef *ref;
  ConfBranch *b;
  guint member;

  /* as we leave, every branch ends by its EOS and stays until the exit:
   * taking one down then released a mixer pad under the drain, and the
   * mixer was seen never to end (docs/conference.md, "Leaving") */
  if (!member_of_pad (pad, &member) || bs->conf->stopping)
    return;
  g_mutex_lock (&bs->conf->lock);
  b = g_hash_table_lookup (bs->table, GUINT_TO_POINTER (member));
  g_hash_table_steal (bs->table, GUINT_TO_POINTER (member));
  g_mutex_unlock (&bs->conf->lock);
  if (!b)
    return;
  ref = g_new0 (BranchRef, 1);
  ref->branches = bs;
  ref->branch = b;
  g_idle_add (remove_branch, ref);
}

void
conf_branches_init (ConfBranches * bs, Conference * conf, GstElement * src,
    ConfBranch * (*build) (Conference *, guint),
    void (*changed) (Conference *, guint, gboolean))
{
  bs->conf = conf;
  bs->build = build;
  bs->changed = changed;
  bs->table = g_hash_table_new_full (NULL, NULL, NULL, branch_free);
  g_signal_connect (src, "pad-added", G_CALLBACK (on_pad_added), bs);
  g_signal_connect (src, "pad-removed", G_CALLBACK (on_pad_removed), bs);
}

/* At the end: every branch's input is cut off and ends, so the mixer and
 * the recording can finish. */
void
conf_branches_send_eos (ConfBranches * bs)
{
  GHashTableIter it;
  gpointer value;

  if (!bs->table)
    return;
  g_mutex_lock (&bs->conf->lock);
  g_hash_table_iter_init (&it, bs->table);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    ConfBranch *b = value;
    GstPad *sink = gst_element_get_static_pad (b->elements[0], "sink");
    GstPad *peer = gst_pad_get_peer (sink);

    /* nothing follows the EOS */
    if (peer) {
      gst_pad_unlink (peer, sink);
      gst_object_unref (peer);
    }
    gst_pad_send_event (sink, gst_event_new_eos ());
    gst_object_unref (sink);
  }
  g_mutex_unlock (&bs->conf->lock);
}

guint
conf_branches_count (ConfBranches * bs)
{
  guint n;

  if (!bs->table)
    return 0;
  g_mutex_lock (&bs->conf->lock);
  n = g_hash_table_size (bs->table);
  g_mutex_unlock (&bs->conf->lock);
  return n;
}

guint64
conf_branches_bytes (ConfBranches * bs, guint member)
{
  ConfBranch *b;
  guint64 n = 0;

  if (!bs->table)
    return 0;
  g_mutex_lock (&bs->conf->lock);
  b = g_hash_table_lookup (bs->table, GUINT_TO_POINTER (member));
  if (b)
    n = (guint64) g_atomic_pointer_get (&b->bytes);
  g_mutex_unlock (&bs->conf->lock);
  return n;
}

void
conf_branches_clear (ConfBranches * bs)
{
  g_clear_pointer (&bs->table, g_hash_table_destroy);
}
