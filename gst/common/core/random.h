/* An injected random source (GLib only). A core never draws from a
 * generator of its own: it is given a RandomSource, so that randomized
 * timers (RTCP's interval randomization, join timers, backoff) are exact
 * and repeatable in tests and simulations. The seeded default is
 * SplitMix64: small, fast, and the same sequence on every platform. */
#ifndef __CORE_RANDOM_H__
#define __CORE_RANDOM_H__

#include <glib.h>

typedef struct
{
  /* 64 uniformly distributed bits from @state */
  guint64 (*next) (gpointer state);
  gpointer state;
} RandomSource;

/* The seeded default's state. */
typedef struct
{
  guint64 s;
} RandomSeeded;

/* @src draws from @state, seeded with @seed; @state must outlive @src. */
void random_source_init_seeded (RandomSource * src, RandomSeeded * state,
    guint64 seed);

guint64 random_source_u64 (const RandomSource * src);
/* Uniform in [0, 1). */
gdouble random_source_double (const RandomSource * src);
/* Uniform in [@lo, @hi] (inclusive; @hi < @lo gives @lo). */
gint64 random_source_range (const RandomSource * src, gint64 lo, gint64 hi);

#endif /* __CORE_RANDOM_H__ */
