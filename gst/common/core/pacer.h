/* Sending at a rate (GLib only): the pacer and the rate meter.
 *
 * The pacer is a token bucket kept as a virtual time @next_free: the bucket
 * holds (now - next_free) * rate bits, at most the burst. A packet may leave
 * when the bucket is not in debt (next_free <= now); sending it costs
 * bytes * 8 / rate. No credit accumulates while idle beyond the burst
 * bound: with a burst of 0, a sender that was idle for an hour still sends
 * its next packets one cost apart. */
#ifndef __CORE_PACER_H__
#define __CORE_PACER_H__

#include <glib.h>

typedef struct
{
  guint64 rate;                 /* bit/s, >= 1 */
  gint64 burst;                 /* ns of credit the bucket may hold */
  gint64 next_free;             /* ns; G_MININT64 before the first send */
} Pacer;

void pacer_init (Pacer * p, guint64 rate, gint64 burst);
void pacer_set_rate (Pacer * p, guint64 rate);
/* When the next packet may leave: @now or later. */
gint64 pacer_next_send_time (const Pacer * p, gint64 now);
/* A packet of @bytes left at @now. */
void pacer_on_send (Pacer * p, guint bytes, gint64 now);
/* Cost of @bytes at @rate bit/s, ns, rounded up. */
gint64 pacer_cost (guint64 bytes, guint64 rate);

/* Bytes over a sliding window of @window ns, counted in RATE_METER_SLOTS
 * slots: the rate covers the last full window (the current slot partly). */
#define RATE_METER_SLOTS 16

typedef struct
{
  gint64 window;
  gint64 slot_len;
  gint64 slot_index[RATE_METER_SLOTS];
  guint64 slot_bytes[RATE_METER_SLOTS];
} RateMeter;

void rate_meter_init (RateMeter * m, gint64 window);
void rate_meter_add (RateMeter * m, guint64 bytes, gint64 now);
/* Bytes seen in the window ending at @now. */
guint64 rate_meter_bytes (const RateMeter * m, gint64 now);
/* Bit/s over the window ending at @now. */
guint64 rate_meter_rate (const RateMeter * m, gint64 now);

#endif /* __CORE_PACER_H__ */
