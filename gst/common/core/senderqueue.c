/* Byte-bounded RTP sender queue with ADU drop and renumbering. See
 * senderqueue.h. */
#include "core/senderqueue.h"

#include <string.h>

typedef struct
{
  gpointer packet;
  guint bytes;
  guint16 seq;
  guint64 adu;                  /* which ADU it belongs to */
  guint32 shift;                /* shift_future - shift_queued at push */
} Item;

void
sender_queue_init (SenderQueue * q, SenderQueuePolicy policy,
    guint64 max_bytes, GDestroyNotify free_packet)
{
  memset (q, 0, sizeof (*q));
  g_queue_init (&q->items);
  q->policy = policy;
  q->max_bytes = max_bytes;
  q->free_packet = free_packet;
}

static void
item_free (SenderQueue * q, Item * it)
{
  if (q->free_packet)
    q->free_packet (it->packet);
  g_free (it);
}

void
sender_queue_clear (SenderQueue * q)
{
  Item *it;

  while ((it = g_queue_pop_head (&q->items)))
    item_free (q, it);
  q->bytes = 0;
}

static gboolean
fits (const SenderQueue * q, guint bytes)
{
  return q->max_bytes == 0 || q->bytes + bytes <= q->max_bytes;
}

/* Evicts the ADU at the head, if it is older than the one being offered. */
static gboolean
evict_oldest_adu (SenderQueue * q)
{
  Item *it = g_queue_peek_head (&q->items);
  guint64 adu;
  guint n = 0;

  if (!it || it->adu == q->adu)
    return FALSE;
  adu = it->adu;
  while ((it = g_queue_peek_head (&q->items)) && it->adu == adu) {
    g_queue_pop_head (&q->items);
    q->bytes -= it->bytes;
    item_free (q, it);
    n++;
  }
  /* every packet still queued and every later one follows the evicted */
  q->shift_queued += n;
  q->shift_future += n;
  q->dropped_packets += n;
  q->dropped_adus++;
  return TRUE;
}

/* Whether the packet may be queued: the bound is decided at the start of
 * an ADU (the whole ADU goes or stays); DROP_OLDEST also evicts older ADUs
 * for the later packets of the ADU. */
static gboolean
admit (SenderQueue * q, guint bytes, gboolean new_adu)
{
  if (q->policy == SENDER_QUEUE_DROP_OLDEST && (new_adu || !q->in_drop))
    while (!fits (q, bytes) && evict_oldest_adu (q)) {
    }
  if (new_adu)
    q->in_drop = !fits (q, bytes);
  return !q->in_drop;
}

gboolean
sender_queue_push (SenderQueue * q, gpointer packet, guint bytes,
    guint16 seq, guint32 timestamp, gboolean marker)
{
  gboolean new_adu = !q->have_prev || q->prev_marker ||
      timestamp != q->prev_ts || q->policy == SENDER_QUEUE_DROP_PACKET;
  Item *it;

  q->have_prev = TRUE;
  q->prev_marker = marker;
  q->prev_ts = timestamp;
  if (new_adu)
    q->adu++;
  if (!admit (q, bytes, new_adu)) {
    q->dropped_packets++;
    q->dropped_adus += new_adu;
    q->shift_future++;
    if (q->free_packet)
      q->free_packet (packet);
    return FALSE;
  }
  it = g_new (Item, 1);
  it->packet = packet;
  it->bytes = bytes;
  it->seq = seq;
  it->adu = q->adu;
  it->shift = q->shift_future - q->shift_queued;
  g_queue_push_tail (&q->items, it);
  q->bytes += bytes;
  return TRUE;
}

gpointer
sender_queue_peek (const SenderQueue * q, guint16 * seq, guint * bytes)
{
  Item *it = g_queue_peek_head ((GQueue *) & q->items);

  if (!it)
    return NULL;
  if (seq)
    *seq = (guint16) (it->seq - (it->shift + q->shift_queued));
  if (bytes)
    *bytes = it->bytes;
  return it->packet;
}

gpointer
sender_queue_pop (SenderQueue * q, guint16 * seq, guint * bytes)
{
  gpointer packet = sender_queue_peek (q, seq, bytes);
  Item *it;

  if (!packet)
    return NULL;
  it = g_queue_pop_head (&q->items);
  q->bytes -= it->bytes;
  g_free (it);
  return packet;
}

void
sender_queue_flush (SenderQueue * q)
{
  guint n = q->items.length;

  sender_queue_clear (q);
  q->flushed_packets += n;
  q->shift_future += n;
  q->have_prev = q->in_drop = FALSE;
}
