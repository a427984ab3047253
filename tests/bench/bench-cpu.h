/* Timing of the CPU-bound benchmarks (the erasure codes): this thread's CPU
 * time, as the machine is shared and the wall clock would count the others'
 * turns, and the median of a run's figures. */
#ifndef __BENCH_CPU_H__
#define __BENCH_CPU_H__

#include <glib.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of this thread, s */
static inline gdouble
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Sorts @v in place. */
static inline gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* __BENCH_CPU_H__ */
