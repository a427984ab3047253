/* The wire of the RMTP core tests: datagrams in flight between a server
 * and its receivers, each handed over at its time, the earliest sent
 * first. */
#ifndef __RMTP_TEST_WIRE_H__
#define __RMTP_TEST_WIRE_H__

#include <glib.h>

#include "rmtpcore.h"

typedef struct {
  gint64 at;
  guint64 order;
  gint rx;                      /* destination: receiver index, -1 server */
  guint32 from;                 /* member id at the server */
  GBytes *bytes;
} RmtpFlight;

typedef struct {
  GArray *flights;              /* RmtpFlight */
  guint64 order;
} RmtpWire;

static inline void
rmtp_wire_init (RmtpWire * w)
{
  w->flights = g_array_new (FALSE, FALSE, sizeof (RmtpFlight));
  w->order = 0;
}

static inline void
rmtp_wire_clear (RmtpWire * w)
{
  for (guint i = 0; i < w->flights->len; i++)
    g_bytes_unref (g_array_index (w->flights, RmtpFlight, i).bytes);
  g_array_unref (w->flights);
}

/* @b arrives at @at at receiver @rx (-1: the server, as from @from). */
static inline void
rmtp_wire_launch (RmtpWire * w, gint64 at, gint rx, guint32 from, GBytes * b)
{
  RmtpFlight f = { at, w->order++, rx, from, g_bytes_ref (b) };

  g_array_append_val (w->flights, f);
}

static inline gint64
rmtp_wire_next (const RmtpWire * w)
{
  gint64 t = G_MAXINT64;

  for (guint i = 0; i < w->flights->len; i++)
    t = MIN (t, g_array_index (w->flights, RmtpFlight, i).at);
  return t;
}

/* Hands the earliest-sent datagram due at @now to the server or to its
 * receiver in @r; FALSE if none is due. */
static inline gboolean
rmtp_wire_deliver_one (RmtpWire * w, gint64 now, RmtpServer * s,
    RmtpReceiver ** r)
{
  guint best = G_MAXUINT;
  RmtpFlight f;

  for (guint i = 0; i < w->flights->len; i++) {
    RmtpFlight *x = &g_array_index (w->flights, RmtpFlight, i);

    if (x->at <= now && (best == G_MAXUINT ||
            x->order < g_array_index (w->flights, RmtpFlight, best).order))
      best = i;
  }
  if (best == G_MAXUINT)
    return FALSE;
  f = g_array_index (w->flights, RmtpFlight, best);
  g_array_remove_index_fast (w->flights, best);
  if (f.rx < 0)
    rmtp_server_handle (s, f.from, g_bytes_get_data (f.bytes, NULL),
        g_bytes_get_size (f.bytes), now);
  else
    rmtp_receiver_handle (r[f.rx], g_bytes_get_data (f.bytes, NULL),
        g_bytes_get_size (f.bytes), now);
  g_bytes_unref (f.bytes);
  return TRUE;
}

#endif /* __RMTP_TEST_WIRE_H__ */
