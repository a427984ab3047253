/* The remote participants' voices. The audio of a call is a second TPSS
 * session beside the video one, on each member's port + 1 with the same
 * member ids (conf_audio_members); its tpsssrc adds a pad src_<id> per
 * member, decoded into audiomixer. Both tpsssrc stamp from the members'
 * sender reports in one sync-group, so a member's voice and picture share
 * one offset (lip sync). */
#include "conference.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint member;
  GstElement *queue, *depay, *dec, *convert, *resample;
  GstPad *mix_pad;
} Voice;

typedef struct
{
  Conference *conf;
  guint member;
} VoiceRef;

/* A participant's tone: far enough from the others' that a recording
 * tells them apart, and no harmonic of one another for the first ids. */
guint
conf_audio_frequency (guint id)
{
  return 300 + 137 * ((id - 1) % 16);
}

/* @members with every entry's port + CONF_AUDIO_PORT_OFFSET; NULL if an
 * entry has no port. */
gchar *
conf_audio_members (const gchar * members)
{
  gchar **v = g_strsplit (members, ",", -1);
  GString *out = g_string_new (NULL);
  gboolean ok = TRUE;

  for (guint i = 0; ok && v[i]; i++) {
    gchar *colon = strrchr (v[i], ':'), *end;
    gulong port;

    if (!colon) {
      ok = FALSE;
      break;
    }
    port = strtoul (colon + 1, &end, 10);
    ok = *end == '\0' && colon[1] && port + CONF_AUDIO_PORT_OFFSET <= 65535;
    g_string_append_printf (out, "%s%.*s:%lu", i ? "," : "",
        (int) (colon - v[i]), v[i], port + CONF_AUDIO_PORT_OFFSET);
  }
  g_strfreev (v);
  return g_string_free (out, !ok);
}

static void
voice_free (gpointer data)
{
  Voice *v = data;

  if (v->mix_pad)
    gst_object_unref (v->mix_pad);
  g_free (v);
}

static GstElement *
voice_element (Voice * v, const gchar * factory, const gchar * role)
{
  gchar *name = g_strdup_printf ("voice%u-%s", v->member, role);
  GstElement *e = gst_element_factory_make (factory, name);

  g_free (name);
  if (!e)
    g_printerr ("conference: element %s is missing\n", factory);
  return e;
}

/* queue ! rtpopusdepay ! opusdec ! audioconvert ! audioresample ! mixer */
static Voice *
voice_build (Conference * conf, guint member)
{
  Voice *v = g_new0 (Voice, 1);
  GstElement *all[5];
  GstPad *src;

  v->member = member;
  v->queue = voice_element (v, "queue", "queue");
  v->depay = voice_element (v, "rtpopusdepay", "depay");
  v->dec = voice_element (v, "opusdec", "dec");
  v->convert = voice_element (v, "audioconvert", "convert");
  v->resample = voice_element (v, "audioresample", "resample");
  if (!v->queue || !v->depay || !v->dec || !v->convert || !v->resample)
    goto failed;
  /* a lost packet is concealed, not a gap in the mix */
  g_object_set (v->dec, "plc", TRUE, NULL);
  gst_bin_add_many (GST_BIN (conf->pipeline), v->queue, v->depay, v->dec,
      v->convert, v->resample, NULL);
  if (!gst_element_link_many (v->queue, v->depay, v->dec, v->convert,
          v->resample, NULL))
    goto failed;
  v->mix_pad = gst_element_request_pad_simple (conf->amix, "sink_%u");
  src = gst_element_get_static_pad (v->resample, "src");
  if (gst_pad_link (src, v->mix_pad) != GST_PAD_LINK_OK) {
    gst_object_unref (src);
    goto failed;
  }
  gst_object_unref (src);
  all[0] = v->resample;
  all[1] = v->convert;
  all[2] = v->dec;
  all[3] = v->depay;
  all[4] = v->queue;
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    gst_element_sync_state_with_parent (all[i]);
  return v;

failed:
  g_printerr ("conference: cannot build the audio of member %u\n", member);
  voice_free (v);
  return NULL;
}

static void
voice_destroy (Conference * conf, Voice * v)
{
  GstElement *elements[] = { v->queue, v->depay, v->dec, v->convert,
    v->resample
  };

  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    gst_element_set_locked_state (elements[i], TRUE);
    gst_element_set_state (elements[i], GST_STATE_NULL);
    gst_bin_remove (GST_BIN (conf->pipeline), elements[i]);
  }
  gst_element_release_request_pad (conf->amix, v->mix_pad);
  voice_free (v);
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

static void
on_pad_added (GstElement * arx, GstPad * pad, gpointer data)
{
  Conference *conf = data;
  guint member;
  Voice *v;
  GstPad *sink;

  if (!member_of_pad (pad, &member) || conf->stopping)
    return;
  v = voice_build (conf, member);
  if (!v)
    return;
  sink = gst_element_get_static_pad (v->queue, "sink");
  gst_pad_link (pad, sink);
  gst_object_unref (sink);
  g_mutex_lock (&conf->lock);
  g_hash_table_insert (conf->voices, GUINT_TO_POINTER (member), v);
  g_mutex_unlock (&conf->lock);
}

static gboolean
remove_voice (gpointer data)
{
  VoiceRef *ref = data;
  Conference *conf = ref->conf;
  Voice *v;

  g_mutex_lock (&conf->lock);
  v = g_hash_table_lookup (conf->voices, GUINT_TO_POINTER (ref->member));
  g_hash_table_steal (conf->voices, GUINT_TO_POINTER (ref->member));
  g_mutex_unlock (&conf->lock);
  if (v)
    voice_destroy (conf, v);
  g_free (ref);
  return G_SOURCE_REMOVE;
}

/* In tpsssrc's thread, after the member's EOS: taken down in the main
 * loop, as a tile is. */
static void
on_pad_removed (GstElement * arx, GstPad * pad, gpointer data)
{
  VoiceRef *ref;
  guint member;

  if (!member_of_pad (pad, &member))
    return;
  ref = g_new0 (VoiceRef, 1);
  ref->conf = data;
  ref->member = member;
  g_idle_add (remove_voice, ref);
}

void
conf_audio_init (Conference * conf)
{
  conf->voices = g_hash_table_new_full (NULL, NULL, NULL, voice_free);
  g_signal_connect (conf->arx, "pad-added", G_CALLBACK (on_pad_added), conf);
  g_signal_connect (conf->arx, "pad-removed", G_CALLBACK (on_pad_removed),
      conf);
}

/* At the end: every voice, our microphone and the mixer's silence end, so
 * the mix and the recording finish. */
void
conf_audio_send_eos (Conference * conf)
{
  const gchar *sources[] = { "mic", "silence" };
  GHashTableIter it;
  gpointer value;

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline),
        sources[i]);
    if (e) {
      gst_element_send_event (e, gst_event_new_eos ());
      gst_object_unref (e);
    }
  }
  g_mutex_lock (&conf->lock);
  g_hash_table_iter_init (&it, conf->voices);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Voice *v = value;
    GstPad *sink = gst_element_get_static_pad (v->queue, "sink");
    GstPad *peer = gst_pad_get_peer (sink);

    if (peer) {
      gst_pad_unlink (peer, sink);
      gst_object_unref (peer);
    }
    gst_pad_send_event (sink, gst_event_new_eos ());
    gst_object_unref (sink);
  }
  g_mutex_unlock (&conf->lock);
}

guint
conf_audio_count (Conference * conf)
{
  guint n;

  if (!conf->voices)
    return 0;
  g_mutex_lock (&conf->lock);
  n = g_hash_table_size (conf->voices);
  g_mutex_unlock (&conf->lock);
  return n;
}

void
conf_audio_clear (Conference * conf)
{
  if (!conf->voices)
    return;
  g_hash_table_destroy (conf->voices);
  conf->voices = NULL;
}
