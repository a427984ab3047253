/* The conferencing application: one process per participant (see
 * conference.c). Shared between its parts: the options, the pipeline's
 * named elements, and the tiles of the remote participants. */
#ifndef __CONFERENCE_H__
#define __CONFERENCE_H__

#include <gst/gst.h>
#include <stdio.h>

#include "confcore.h"
#include "confsnap.h"
#include "confstale.h"

G_BEGIN_DECLS

/* GST_DEBUG=conference:5: the key frames' way from a request to a picture,
 * stamped on the monotonic clock (ms), which every participant on one
 * machine shares: one log per participant can be lined up. */
GST_DEBUG_CATEGORY_EXTERN (conference_debug);
#define GST_CAT_DEFAULT conference_debug
#define CONF_MONO_MS() (g_get_monotonic_time () / 1000)


/* Loss (%) the Opus in-band FEC is sized for: the rate control probes up
 * to 5 % on a full link, in bursts of more. */
#define CONF_AUDIO_EXPECTED_LOSS 10

typedef struct _ConfIce ConfIce;

typedef struct _Conference Conference;

/* One remote member's branch behind a tpsssrc pad: elements in stream
 * order (a queue first), the last one linked to a request pad of @mixer
 * (branches.c). */
#define CONF_BRANCH_MAX_ELEMENTS 8

typedef struct
{
  guint member;
  GstElement *mixer;
  GstPad *mix_pad;
  GstElement *elements[CONF_BRANCH_MAX_ELEMENTS];
  guint n_elements;
  gpointer data;                /* the kind's own (a Tile), or NULL */
  GDestroyNotify free_data;
  gsize bytes;                  /* RTP bytes into the branch (atomic) */
} ConfBranch;

/* The branches of one tpsssrc, member id -> ConfBranch (under
 * Conference.lock). */
typedef struct
{
  Conference *conf;
  GHashTable *table;
  ConfBranch *(*build) (Conference * conf, guint member);
  void (*changed) (Conference * conf, guint member, gboolean added);
} ConfBranches;

struct _Conference
{
  ConfOptions opt;
  GMainLoop *loop;
  GstElement *pipeline;
  GstElement *mix;              /* compositor */
  GstElement *tx, *rx;          /* tpsssink, tpsssrc */
  GstElement *arx, *amix;       /* audio: tpsssrc, audiomixer */
  GstElement *snap;             /* fakesink with the last mixed picture */
  ConfSnapshots snapshots;      /* its PNGs, written off the main loop */
  GstPad *self_pad;             /* compositor pad of our own camera */
  ConfIce *ice;                 /* with --ice, else NULL */
  ConfIce *audio_ice;           /* with --ice and audio */

  GMutex lock;                  /* tiles: pads come and go in other threads */
  ConfBranches tiles;           /* tiles.c */
  ConfBranches voices;          /* confaudio.c */
  guint grid_cols, grid_rows;

  ConfStaleFrames stale;        /* camera frames left out at the encoder */

  FILE *stats_json;
  GHashTable *last_counts;      /* member id -> MemberCounts, for rates */
  gint64 started;               /* monotonic, us */
  gboolean stopping;
};

/* tiles.c: a decode branch per remote participant, laid out on a grid. */
/* @factories: NULL-terminated; the elements are added to the pipeline
 * and linked in that order. NULL (said on stderr) if that fails. */
ConfBranch *conf_branch_new (Conference * conf, const gchar * kind,
    guint member, GstElement * mixer, const gchar * const *factories);
/* Links the branch's last element into a new request pad of its mixer. */
gboolean conf_branch_link (ConfBranch * b);
/* Starts its elements with the pipeline. */
void conf_branch_play (ConfBranch * b);
/* Takes a branch that could not be set up out of the pipeline, frees it. */
void conf_branch_discard (Conference * conf, ConfBranch * b);
void conf_branches_init (ConfBranches * bs, Conference * conf,
    GstElement * src, ConfBranch * (*build) (Conference *, guint),
    void (*changed) (Conference *, guint, gboolean));
void conf_branches_send_eos (ConfBranches * bs);
guint conf_branches_count (ConfBranches * bs);
/* RTP bytes @member's branch has taken in so far (0: no branch). */
guint64 conf_branches_bytes (ConfBranches * bs, guint member);
void conf_branches_clear (ConfBranches * bs);

/* FALSE when a tile's element is missing (or, with --preload-decoders,
 * its plugin does not load). */
gboolean conf_tiles_init (Conference * conf);
void conf_tiles_clear (Conference * conf);
void conf_tiles_layout (Conference * conf);
void conf_tiles_send_eos (Conference * conf);
guint conf_tiles_count (Conference * conf);
/* Pictures decoded from @member's stream so far (0: no tile). */
guint conf_tiles_frames (Conference * conf, guint member);

/* confaudio.c: a decode branch per remote participant's audio into
 * audiomixer. */
/* FALSE when a voice's element is missing (as the tiles'). */
gboolean conf_audio_init (Conference * conf);
void conf_audio_end_voices (Conference * conf);
void conf_audio_end_sources (Conference * conf);
guint conf_audio_count (Conference * conf);
guint64 conf_audio_gaps (Conference * conf, guint member);
void conf_audio_clear (Conference * conf);

/* confstats.c: the statistics printed every second. */
void conf_stats_print (Conference * conf);
void conf_stats_clear (Conference * conf);

/* confice.c (built with libnice): the ICE transport given to tpsssink and
 * tpsssrc, its peers and the rendezvous; call before the pipeline starts,
 * in the main loop's thread. */
gboolean conf_ice_start (Conference * conf, GError ** error);
void conf_ice_clear (Conference * conf);
/* @member's ICE state and the selected pair ("connected, srflx ip:port ->
 * srflx ip:port"), NULL if it is no peer; free it. */
gchar *conf_ice_describe (Conference * conf, guint member);
/* @member's ICE state (a static string) and the candidate types of the
 * selected pair (NULL before one is selected; free them); FALSE if it is
 * no peer. */
gboolean conf_ice_peer (Conference * conf, guint member, const gchar ** state,
    gchar ** local_type, gchar ** remote_type);
/* The member ids of our ICE peers (guint), NULL without --ice. */
GArray *conf_ice_members (Conference * conf);

G_END_DECLS

#endif /* __CONFERENCE_H__ */
