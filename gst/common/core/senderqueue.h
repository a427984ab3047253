/* The sender queue (GLib only): RTP packets waiting to be sent, bounded in
 * bytes, dropping whole application data units (ADUs: the packets of one
 * frame, ending with the RTP marker or followed by a new timestamp) when
 * over the bound, and renumbering RTP sequence numbers so that the
 * receiver sees a contiguous stream: a dropped ADU leaves no gap it cannot
 * explain (it would count the gap as network loss and ask for repair).
 *
 * Policies: DROP_NEWEST refuses the ADU that does not fit (the packets
 * already queued are sent as they are; tpbasink's rule), DROP_OLDEST evicts
 * the oldest ADUs from the head until the new packet fits (the freshest
 * frames survive; a packet larger than the bound on its own is refused as
 * with DROP_NEWEST), DROP_PACKET refuses just the packet that does not fit
 * (every packet its own unit, as TPSS's MQ of section 3.1 does).
 * A flush drops everything queued, renumbered the same way.
 *
 * Ownership: the queue owns what it holds; a dropped or flushed packet is
 * released with the queue's @free_packet, a popped one passes to the
 * caller. */
#ifndef __CORE_SENDER_QUEUE_H__
#define __CORE_SENDER_QUEUE_H__

#include <glib.h>

typedef enum
{
  SENDER_QUEUE_DROP_NEWEST,
  SENDER_QUEUE_DROP_OLDEST,
  SENDER_QUEUE_DROP_PACKET,
} SenderQueuePolicy;

typedef struct
{
  GQueue items;
  GDestroyNotify free_packet;
  SenderQueuePolicy policy;
  guint64 max_bytes;            /* 0: no bound */
  guint64 bytes;
  /* ADU of the last packet offered */
  gboolean have_prev;
  gboolean prev_marker;
  guint32 prev_ts;
  gboolean in_drop;             /* the current ADU is being dropped */
  guint64 adu;                  /* number of the current ADU */
  /* renumbering: drops before packets yet to come, and before every packet
   * queued (head evictions) */
  guint32 shift_future;
  guint32 shift_queued;
  guint64 dropped_packets, dropped_adus, flushed_packets;
} SenderQueue;

void sender_queue_init (SenderQueue * q, SenderQueuePolicy policy,
    guint64 max_bytes, GDestroyNotify free_packet);
void sender_queue_clear (SenderQueue * q);

/* Offers @packet (@bytes long, with RTP @seq, @timestamp, @marker). FALSE
 * if it was dropped (and released). */
gboolean sender_queue_push (SenderQueue * q, gpointer packet, guint bytes,
    guint16 seq, guint32 timestamp, gboolean marker);
/* The oldest packet and the sequence number to send it with (rewrite it
 * with rtp_set_seq()), or NULL. */
gpointer sender_queue_pop (SenderQueue * q, guint16 * seq, guint * bytes);
/* The oldest packet without taking it, or NULL. */
gpointer sender_queue_peek (const SenderQueue * q, guint16 * seq,
    guint * bytes);
/* Drops everything queued; the ADU in progress starts anew. */
void sender_queue_flush (SenderQueue * q);

static inline guint
sender_queue_length (const SenderQueue * q)
{
  return q->items.length;
}

#endif /* __CORE_SENDER_QUEUE_H__ */
