/* The remote participants' voices. The audio of a call is a second TPSS
 * session beside the video one, on each member's port + 1 with the same
 * member ids (conf_audio_members); its tpsssrc adds a pad src_<id> per
 * member, decoded into audiomixer. Both tpsssrc stamp from the members'
 * sender reports in one sync-group, so a member's voice and picture share
 * one offset (lip sync). */
#include "conference.h"

#include <stdlib.h>
#include <string.h>

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

/* queue ! rtpopusdepay ! opusdec ! audioconvert ! audioresample ! mixer */
static ConfBranch *
voice_build (Conference * conf, guint member)
{
  static const gchar *const factories[] = { "queue", "rtpopusdepay",
    "opusdec", "audioconvert", "audioresample", NULL
  };
  ConfBranch *b = conf_branch_new (conf, "voice", member, conf->amix,
      factories);

  if (!b)
    return NULL;
  /* a lost packet is concealed, not a gap in the mix */
  g_object_set (b->elements[2], "plc", TRUE, NULL);
  if (!conf_branch_link (b)) {
    conf_branch_discard (conf, b);
    return NULL;
  }
  conf_branch_play (b);
  return b;
}

void
conf_audio_init (Conference * conf)
{
  conf_branches_init (&conf->voices, conf, conf->arx, voice_build, NULL);
}

/* At the end: every voice, our microphone and the mixer's silence end, so
 * the mix and the recording finish. */
void
conf_audio_send_eos (Conference * conf)
{
  const gchar *sources[] = { "mic", "silence" };

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (conf->pipeline),
        sources[i]);
    if (e) {
      gst_element_send_event (e, gst_event_new_eos ());
      gst_object_unref (e);
    }
  }
  conf_branches_send_eos (&conf->voices);
}

guint
conf_audio_count (Conference * conf)
{
  return conf_branches_count (&conf->voices);
}

void
conf_audio_clear (Conference * conf)
{
  conf_branches_clear (&conf->voices);
}
