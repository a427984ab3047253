/* Token-bucket pacer and sliding-window rate meter. See pacer.h. */
#include "core/pacer.h"
#include "core/wire.h"

#define NS_PER_S G_GUINT64_CONSTANT (1000000000)

void
pacer_init (Pacer * p, guint64 rate, gint64 burst)
{
  p->rate = MAX (rate, 1);
  p->burst = MAX (burst, 0);
  p->next_free = G_MININT64;
}

void
pacer_set_rate (Pacer * p, guint64 rate)
{
  p->rate = MAX (rate, 1);
}

gint64
pacer_cost (guint64 bytes, guint64 rate)
{
  /* capped so that adding it to a time cannot overflow */
  return (gint64) MIN (muldiv_ceil (bytes * 8, NS_PER_S, MAX (rate, 1)),
      (guint64) G_MAXINT64 / 4);
}

gint64
pacer_next_send_time (const Pacer * p, gint64 now)
{
  return MAX (now, p->next_free);
}

void
pacer_on_send (Pacer * p, guint bytes, gint64 now)
{
  /* credit for idle time is capped at the burst */
  gint64 start = MAX (p->next_free, now - p->burst);

  p->next_free = start + pacer_cost (bytes, p->rate);
}

void
rate_meter_init (RateMeter * m, gint64 window)
{
  m->window = MAX (window, RATE_METER_SLOTS);
  m->slot_len = m->window / RATE_METER_SLOTS;
  for (guint i = 0; i < RATE_METER_SLOTS; i++) {
    m->slot_index[i] = G_MININT64;
    m->slot_bytes[i] = 0;
  }
}

static gint64
slot_of_time (const RateMeter * m, gint64 t)
{
  return t >= 0 ? t / m->slot_len : -((-t + m->slot_len - 1) / m->slot_len);
}

void
rate_meter_add (RateMeter * m, guint64 bytes, gint64 now)
{
  gint64 s = slot_of_time (m, now);
  guint i = (guint) (((s % RATE_METER_SLOTS) + RATE_METER_SLOTS) %
      RATE_METER_SLOTS);

  if (m->slot_index[i] != s) {
    m->slot_index[i] = s;
    m->slot_bytes[i] = 0;
  }
  m->slot_bytes[i] += bytes;
}

guint64
rate_meter_bytes (const RateMeter * m, gint64 now)
{
  gint64 s = slot_of_time (m, now);
  guint64 sum = 0;

  for (guint i = 0; i < RATE_METER_SLOTS; i++)
    if (m->slot_index[i] != G_MININT64 && m->slot_index[i] <= s &&
        m->slot_index[i] > s - RATE_METER_SLOTS)
      sum += m->slot_bytes[i];
  return sum;
}

guint64
rate_meter_rate (const RateMeter * m, gint64 now)
{
  return muldiv (rate_meter_bytes (m, now) * 8, NS_PER_S,
      (guint64) (m->slot_len * RATE_METER_SLOTS));
}
