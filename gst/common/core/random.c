/* The injected random source and its seeded default. See random.h. */
#include "core/random.h"

/* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
static guint64
splitmix64_next (gpointer state)
{
  RandomSeeded *st = state;
  guint64 z = (st->s += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
random_source_init_seeded (RandomSource * src, RandomSeeded * state,
    guint64 seed)
{
  state->s = seed;
  src->next = splitmix64_next;
  src->state = state;
}

guint64
random_source_u64 (const RandomSource * src)
{
  return src->next (src->state);
}

gdouble
random_source_double (const RandomSource * src)
{
  /* the top 53 bits: every double in [0, 1) with that spacing */
  return (gdouble) (random_source_u64 (src) >> 11) * (1.0 / 9007199254740992.0);
}

gint64
random_source_range (const RandomSource * src, gint64 lo, gint64 hi)
{
  guint64 span, limit, v;

  if (hi <= lo)
    return lo;
  span = (guint64) hi - (guint64) lo + 1;
  if (span == 0)                /* the whole 64-bit range */
    return (gint64) random_source_u64 (src);
  /* rejection keeps it uniform: refuse the incomplete last block */
  limit = G_MAXUINT64 - G_MAXUINT64 % span;
  do
    v = random_source_u64 (src);
  while (v >= limit);
  return (gint64) ((guint64) lo + v % span);
}
