/* RLM receiver output (see rlmmerge.h). */
#include "rlmmerge.h"

#include <string.h>

#include "core/rtp.h"

/* RFC 3550 A.1's MAX_DROPOUT: a larger jump in a layer's sequence is a
 * resynchronisation, not loss. */
#define MAX_DROPOUT 3000

typedef struct
{
  guint8 *data;
  gsize len;
  guint epoch;
  guint64 ext;                  /* extended source sequence number */
  guint layer;
  guint16 layer_seq;
  gint64 arrival;
} Held;

static void
held_free (gpointer p)
{
  Held *h = p;

  g_free (h->data);
  g_free (h);
}

void
rlm_merger_init (RlmMerger * m, guint ext_id, gint64 window, guint max_held,
    guint16 first_seq)
{
  memset (m, 0, sizeof (*m));
  g_queue_init (&m->held);
  m->ext_id = ext_id;
  m->window = window;
  m->max_held = MAX (max_held, 1);
  m->next_seq = first_seq;
}

void
rlm_merger_clear (RlmMerger * m)
{
  g_queue_clear_full (&m->held, held_free);
}

void
rlm_merger_reset_layer (RlmMerger * m, guint layer)
{
  if (layer < RLM_MAX_LAYERS)
    m->layer_known[layer] = FALSE;
}

static gint
held_cmp (gconstpointer a, gconstpointer b, gpointer unused)
{
  const Held *x = a, *y = b;

  if (x->epoch != y->epoch)
    return x->epoch < y->epoch ? -1 : 1;
  return x->ext < y->ext ? -1 : (x->ext > y->ext ? 1 : 0);
}

/* A new source (a restarted sender): its sequence numbers start afresh;
 * what the old one left is given out first. */
static void
new_source (RlmMerger * m, guint32 ssrc)
{
  if (m->have_ssrc)
    m->epoch++;
  m->have_ssrc = TRUE;
  m->ssrc = ssrc;
  m->have_in = m->have_out = FALSE;
  for (guint i = 0; i < RLM_MAX_LAYERS; i++)
    m->layer_known[i] = FALSE;
}

static guint64
extend (RlmMerger * m, guint16 seq)
{
  if (!m->have_in) {
    /* room below the first packet for the ones that overtook it */
    m->have_in = TRUE;
    m->highest_in = (G_GUINT64_CONSTANT (1) << 32) + seq;
    return m->highest_in;
  }
  return m->highest_in + (gint16) (seq - (guint16) m->highest_in);
}

static gboolean
is_held (RlmMerger * m, guint64 ext)
{
  for (GList * l = m->held.head; l; l = l->next) {
    const Held *h = l->data;
    if (h->epoch == m->epoch && h->ext == ext)
      return TRUE;
  }
  return FALSE;
}

gboolean
rlm_merger_push (RlmMerger * m, const guint8 * data, gsize len, gint64 now)
{
  RtpHeader rtp;
  guint layer;
  guint16 layer_seq;
  guint64 ext;
  Held *h;

  if (!rtp_header_parse (data, len, &rtp) ||
      !rlm_layer_ext_parse (data, len, m->ext_id, &layer, &layer_seq) ||
      layer >= RLM_MAX_LAYERS) {
    m->stats.malformed++;
    return FALSE;
  }
  if (!m->have_ssrc || rtp.ssrc != m->ssrc)
    new_source (m, rtp.ssrc);
  ext = extend (m, rtp.seq);
  if (m->have_out && ext <= m->last_out) {
    m->stats.late++;
    return FALSE;
  }
  if (is_held (m, ext)) {
    m->stats.duplicates++;
    return FALSE;
  }
  m->highest_in = MAX (m->highest_in, ext);
  h = g_new (Held, 1);
  h->data = g_memdup2 (data, len);
  h->len = len;
  h->epoch = m->epoch;
  h->ext = ext;
  h->layer = layer;
  h->layer_seq = layer_seq;
  h->arrival = now;
  g_queue_insert_sorted (&m->held, h, held_cmp, NULL);
  m->stats.pushed++;
  return TRUE;
}

/* Packets of @h's layer lost since that layer's last one given out. */
static guint
lost_before (RlmMerger * m, const Held * h)
{
  guint16 d;

  if (!m->layer_known[h->layer])
    return 0;
  d = h->layer_seq - m->layer_last[h->layer];
  /* 0 or behind: reordered within the layer; far ahead: a resync */
  if (d <= 1 || d > MAX_DROPOUT)
    return 0;
  return d - 1;
}

static gboolean
head_due (RlmMerger * m, const Held * h, gint64 now)
{
  if (h->epoch != m->epoch)
    return TRUE;
  if (m->have_out && h->ext == m->last_out + 1)
    return TRUE;
  return now - h->arrival >= m->window;
}

guint8 *
rlm_merger_pop (RlmMerger * m, gint64 now, gsize * len, gint64 * arrival)
{
  Held *h = g_queue_peek_head (&m->held);
  guint8 *data;
  guint lost;

  if (!h)
    return NULL;
  if (g_queue_get_length (&m->held) > m->max_held)
    m->stats.overflow++;
  else if (!head_due (m, h, now))
    return NULL;
  g_queue_pop_head (&m->held);
  lost = lost_before (m, h);
  m->stats.gaps += lost;
  m->next_seq += lost;
  rtp_set_seq (h->data, m->next_seq++);
  if (h->epoch == m->epoch) {
    m->have_out = TRUE;
    m->last_out = h->ext;
    m->layer_known[h->layer] = TRUE;
    m->layer_last[h->layer] = h->layer_seq;
  }
  m->stats.released++;
  data = h->data;
  *len = h->len;
  if (arrival)
    *arrival = h->arrival;
  g_free (h);
  return data;
}

gint64
rlm_merger_next_deadline (const RlmMerger * m)
{
  const Held *h = g_queue_peek_head ((GQueue *) & m->held);

  return h ? h->arrival + m->window : -1;
}

void
rlm_merger_get_stats (const RlmMerger * m, RlmMergeStats * st)
{
  *st = m->stats;
  st->held = g_queue_get_length ((GQueue *) & m->held);
}
