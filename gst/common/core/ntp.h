/* NTP timestamps and the round-trip arithmetic of RFC 3550 section 6.4.1
 * (GLib only, header only). Times are ns on whatever epoch the shell chose;
 * the "short" format is the middle 32 bits of the 64-bit NTP timestamp
 * (16.16 seconds), the unit of LSR, DLSR and round trips. */
#ifndef __CORE_NTP_H__
#define __CORE_NTP_H__

#include <glib.h>

#include "core/wire.h"

#define NTP_NS_PER_S G_GUINT64_CONSTANT (1000000000)

/* 32.32 fixed-point NTP timestamp of @ns (negative times give 0). */
static inline guint64
ntp_from_ns (gint64 ns)
{
  guint64 u = (guint64) MAX (ns, 0);

  return ((u / NTP_NS_PER_S) << 32) | muldiv (u % NTP_NS_PER_S,
      G_GUINT64_CONSTANT (1) << 32, NTP_NS_PER_S);
}

/* ns of a 32.32 fixed-point NTP timestamp: the inverse of ntp_from_ns
 * to within 1 ns (the fraction is rounded down). */
static inline gint64
ntp_to_ns (guint64 ntp)
{
  return (gint64) ((ntp >> 32) * NTP_NS_PER_S +
      muldiv (ntp & G_MAXUINT32, NTP_NS_PER_S, G_GUINT64_CONSTANT (1) << 32));
}

/* The middle 32 bits of ntp_from_ns (@ns): what an SR's timestamp becomes
 * in LSR. */
static inline guint32
ntp_short_from_ns (gint64 ns)
{
  return (guint32) muldiv ((guint64) MAX (ns, 0), 65536, NTP_NS_PER_S);
}

/* The middle 32 bits of a 64-bit NTP timestamp. */
static inline guint32
ntp_short (guint64 ntp)
{
  return (guint32) (ntp >> 16);
}

/* A duration (DLSR, a round trip) in 1/65536 s, saturating. */
static inline guint32
ntp_duration_to_short (gint64 ns)
{
  guint64 u = muldiv ((guint64) MAX (ns, 0), 65536, NTP_NS_PER_S);

  return u > G_MAXUINT32 ? G_MAXUINT32 : (guint32) u;
}

static inline gint64
ntp_short_to_ns (guint32 u)
{
  return (gint64) muldiv (u, NTP_NS_PER_S, 65536);
}

/* RFC 3550 6.4.1: the round trip is A - LSR - DLSR, A the arrival of the
 * report block (short format). FALSE (no sample) when the result is
 * negative, as clocks or a forged block can make it. */
static inline gboolean
ntp_round_trip (guint32 arrival, guint32 lsr, guint32 dlsr, gint64 * rtt)
{
  guint32 units = arrival - lsr - dlsr;

  if ((gint32) units < 0)
    return FALSE;
  *rtt = ntp_short_to_ns (units);
  return TRUE;
}

#endif /* __CORE_NTP_H__ */
