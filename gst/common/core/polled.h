/* What a core keeps for its caller to poll (core.h: output and events are
 * polled), GLib only: records of one type in a GQueue, each a zeroed block
 * the queue owns, taken in the order they were queued. */
#ifndef __CORE_POLLED_H__
#define __CORE_POLLED_H__

#include <glib.h>
#include <string.h>

/* A new zeroed record of @size bytes at the tail of @q, for the caller to
 * fill in. */
static inline gpointer
polled_push (GQueue * q, gsize size)
{
  gpointer rec = g_malloc0 (size);

  g_queue_push_tail (q, rec);
  return rec;
}

/* Moves the oldest record of @q into @out (@size bytes; NULL discards
 * it). FALSE if @q is empty. */
static inline gboolean
polled_pop (GQueue * q, gpointer out, gsize size)
{
  gpointer rec = g_queue_pop_head (q);

  if (!rec)
    return FALSE;
  if (out)
    memcpy (out, rec, size);
  g_free (rec);
  return TRUE;
}

static inline void
polled_clear (GQueue * q)
{
  g_queue_clear_full (q, g_free);
}

#endif /* __CORE_POLLED_H__ */
