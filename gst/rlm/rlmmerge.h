/* RLM receiver output: the subscribed layers merged into one RTP stream
 * that stock depayloaders play (GLib only, sans-I/O).
 *
 * The layers of one source leave it in decode order with one RTP sequence
 * number space; a receiver subscribed to a prefix of them sees gaps where
 * the other layers' packets were. The merger holds each packet for at most
 * a reorder window, releases them in the source's sequence order and
 * renumbers them: the output is continuous, except that a packet lost in a
 * subscribed layer (a gap in that layer's own sequence, the per-layer
 * extension) leaves a gap of its size, so the depayloader still sees real
 * loss. */
#ifndef __RLM_MERGE_H__
#define __RLM_MERGE_H__

#include <glib.h>
#include "rlmcore.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 pushed;               /* packets taken */
  guint64 released;             /* packets given out */
  guint64 late;                 /* behind what was already given out */
  guint64 duplicates;           /* the same source sequence number held */
  guint64 malformed;            /* not RTP with a layer extension */
  guint64 overflow;             /* released early: more than max_held */
  guint64 gaps;                 /* lost packets left as sequence gaps */
  guint held;                   /* packets held now */
} RlmMergeStats;

typedef struct
{
  guint ext_id;
  gint64 window;                /* ns */
  guint max_held;
  GQueue held;                  /* sorted by epoch, extended sequence */
  guint epoch;                  /* +1 on every new source SSRC */
  gboolean have_ssrc;
  guint32 ssrc;
  gboolean have_in;
  guint64 highest_in;           /* extended source seq of the newest packet */
  gboolean have_out;
  guint64 last_out;             /* extended source seq last given out */
  guint16 next_seq;             /* the next output sequence number */
  gboolean layer_known[RLM_MAX_LAYERS];
  guint16 layer_last[RLM_MAX_LAYERS];
  RlmMergeStats stats;
} RlmMerger;

/* Output sequence numbers start at @first_seq. */
void rlm_merger_init (RlmMerger * m, guint ext_id, gint64 window,
    guint max_held, guint16 first_seq);
void rlm_merger_clear (RlmMerger * m);

/* The layer was joined or left: its next packet sets a new baseline, so
 * the time it was not subscribed never counts as loss. */
void rlm_merger_reset_layer (RlmMerger * m, guint layer);

/* Copies one RTP packet of a subscribed layer in, arrived at @now. FALSE
 * (counted) if it is malformed, late or a duplicate. */
gboolean rlm_merger_push (RlmMerger * m, const guint8 * data, gsize len,
    gint64 now);

/* The next packet due at @now, renumbered (g_free it), or NULL; @arrival
 * (if not NULL): the time it was pushed. */
guint8 *rlm_merger_pop (RlmMerger * m, gint64 now, gsize * len,
    gint64 * arrival);

/* When the oldest held packet is due; -1: nothing held. */
gint64 rlm_merger_next_deadline (const RlmMerger * m);

void rlm_merger_get_stats (const RlmMerger * m, RlmMergeStats * st);

G_END_DECLS

#endif /* __RLM_MERGE_H__ */
