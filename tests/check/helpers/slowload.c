/* A library whose loading holds glibc's loader lock, as loading a large
 * plugin does: its IFUNC resolver runs during relocation, with the lock
 * held, and waits there. pthread_create in any other thread of the process
 * waits for it (measured on glibc 2.36: 1.4 s for a thread created 0.1 s
 * into the load). x86-64 only: the resolver runs before the library's own
 * relocations are done, so it calls the kernel directly and touches no
 * instrumented stack.
 *
 * With a socket at fd SLOWLOAD_GATE_FD (the test's end of a socketpair),
 * the resolver writes one byte there once it holds the lock and holds it
 * until the test writes a byte back or closes its end: the test decides,
 * not a wall-clock window. Without one it holds the lock 1.5 s. */
#include <sys/syscall.h>
#include <time.h>

#ifndef SLOWLOAD_GATE_FD
#error "SLOWLOAD_GATE_FD: set by tests/check/meson.build"
#endif

static const struct timespec hold = { 1, 500000000 };

typedef int (*SlowloadFn) (void);

static int
slowload_impl (void)
{
  return 1;
}

__attribute__((no_sanitize ("address", "undefined")))
static long
raw_syscall3 (long nr, long a, long b, long c)
{
  long ret;

  __asm__ volatile ("syscall":"=a" (ret)
      :"0" (nr), "D" (a), "S" (b), "d" (c)
      :"rcx", "r11", "memory");
  return ret;
}

__attribute__((no_sanitize ("address", "undefined")))
static SlowloadFn
slowload_resolve (void)
{
  char byte = 'e';

  if (raw_syscall3 (SYS_write, SLOWLOAD_GATE_FD, (long) &byte, 1) == 1)
    raw_syscall3 (SYS_read, SLOWLOAD_GATE_FD, (long) &byte, 1);
  else
    raw_syscall3 (SYS_nanosleep, (long) &hold, 0, 0);
  return slowload_impl;
}

int slowload_fn (void) __attribute__((ifunc ("slowload_resolve")));

/* A relocation the loader resolves at load time, which runs the resolver. */
SlowloadFn slowload_ptr = slowload_fn;
