/* Lip sync of a member's streams from its sender reports: see tpsssync.h. */
#include "tpsssync.h"
#include "core/ntp.h"

#define STALE_WINDOWS 4

typedef struct
{
  guint32 member;
  gpointer stream;
  gint64 window_start;          /* local ns */
  gint64 cur_min, prev_min;     /* least delay of this and the last window */
  gint64 last;                  /* local ns of its latest packet */
} SyncStream;

struct _TpssSync
{
  gint64 window;
  GArray *streams;              /* SyncStream */
};

TpssSync *
tpss_sync_new (gint64 window)
{
  TpssSync *s = g_new0 (TpssSync, 1);

  s->window = MAX (window, 1);
  s->streams = g_array_new (FALSE, TRUE, sizeof (SyncStream));
  return s;
}

void
tpss_sync_free (TpssSync * s)
{
  if (!s)
    return;
  g_array_unref (s->streams);
  g_free (s);
}

gint64
tpss_sync_sender_time (const TpssSenderReport * sr, guint32 rtp_ts,
    guint clock_rate)
{
  gint32 ticks = (gint32) (rtp_ts - sr->rtp_ts);
  gint64 d = (gint64) muldiv ((guint64) ABS ((gint64) ticks), NTP_NS_PER_S,
      MAX (clock_rate, 1));

  return ntp_to_ns (sr->ntp) + (ticks >= 0 ? d : -d);
}

static SyncStream *
find_stream (TpssSync * s, guint32 member, gpointer stream)
{
  SyncStream add = { member, stream, -1, G_MAXINT64, G_MAXINT64, 0 };

  for (guint i = 0; i < s->streams->len; i++) {
    SyncStream *st = &g_array_index (s->streams, SyncStream, i);
    if (st->member == member && st->stream == stream)
      return st;
  }
  g_array_append_val (s->streams, add);
  return &g_array_index (s->streams, SyncStream, s->streams->len - 1);
}

/* The window slides: what the last one saw is kept one more window, so a
 * stream's delay never rests on a handful of packets. */
static void
stream_add_delay (TpssSync * s, SyncStream * st, gint64 delay, gint64 now)
{
  if (st->window_start < 0 || now - st->window_start >= s->window) {
    st->prev_min = st->window_start < 0 ? G_MAXINT64 : st->cur_min;
    st->cur_min = G_MAXINT64;
    st->window_start = now;
  }
  st->cur_min = MIN (st->cur_min, delay);
  st->last = now;
}

gint64
tpss_sync_update (TpssSync * s, guint32 member, gpointer stream,
    gint64 sender_time, gint64 arrival, gint64 max_hold)
{
  SyncStream *st = find_stream (s, member, stream);
  gint64 offset = 0, own;

  stream_add_delay (s, st, arrival - sender_time, arrival);
  own = MIN (st->cur_min, st->prev_min);
  tpss_sync_get_offset (s, member, arrival, &offset);
  if (max_hold >= 0 && offset - own > max_hold)
    return own;
  return offset;
}

gboolean
tpss_sync_get_offset (const TpssSync * s, guint32 member, gint64 now,
    gint64 * offset)
{
  gboolean any = FALSE;
  gint64 best = G_MININT64;

  for (guint i = 0; i < s->streams->len; i++) {
    const SyncStream *st = &g_array_index (s->streams, SyncStream, i);
    if (st->member != member || now - st->last > STALE_WINDOWS * s->window)
      continue;
    best = MAX (best, MIN (st->cur_min, st->prev_min));
    any = TRUE;
  }
  if (any)
    *offset = best;
  return any;
}

gboolean
tpss_sync_get_stream_delay (const TpssSync * s, guint32 member,
    gpointer stream, gint64 * delay)
{
  for (guint i = 0; i < s->streams->len; i++) {
    const SyncStream *st = &g_array_index (s->streams, SyncStream, i);
    if (st->member == member && st->stream == stream) {
      *delay = MIN (st->cur_min, st->prev_min);
      return TRUE;
    }
  }
  return FALSE;
}

void
tpss_sync_remove_stream (TpssSync * s, gpointer stream)
{
  for (guint i = s->streams->len; i-- > 0;)
    if (g_array_index (s->streams, SyncStream, i).stream == stream)
      g_array_remove_index (s->streams, i);
}
