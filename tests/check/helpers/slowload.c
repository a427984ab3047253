/* A library whose loading holds glibc's loader lock for 1.5 s, as loading
 * a large plugin does for a shorter while: its IFUNC resolver runs during
 * relocation, with the lock held, and sleeps there. pthread_create in any
 * other thread of the process waits for it (measured on glibc 2.36: 1.4 s
 * for a thread created 0.1 s into the load). x86-64 only: the resolver
 * runs before the library's own relocations are done, so it calls the
 * kernel directly and touches no instrumented stack. */
#include <sys/syscall.h>
#include <time.h>

#define SLOWLOAD_HOLD_S 1
#define SLOWLOAD_HOLD_NS 500000000

static const struct timespec hold = { SLOWLOAD_HOLD_S, SLOWLOAD_HOLD_NS };

typedef int (*SlowloadFn) (void);

static int
slowload_impl (void)
{
  return 1;
}

__attribute__((no_sanitize ("address", "undefined")))
static SlowloadFn
slowload_resolve (void)
{
  long ret;

  __asm__ volatile ("syscall":"=a" (ret)
      :"0" ((long) SYS_nanosleep), "D" (&hold), "S" (0L)
      :"rcx", "r11", "memory");
  return slowload_impl;
}

int slowload_fn (void) __attribute__((ifunc ("slowload_resolve")));

/* A relocation the loader resolves at load time, which runs the resolver. */
SlowloadFn slowload_ptr = slowload_fn;
