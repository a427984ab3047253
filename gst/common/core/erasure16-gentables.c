/* Writes erasure16.c's field tables as C (run at build time, so they are
 * const: read-only pages that every process using the plugin shares, so a
 * receiver finds them in the caches after the others ran). Usage:
 * erasure16-gentables OUT.h */
#include <stdio.h>
#include <stdlib.h>

#define GF_ORDER 65535          /* nonzero elements */
#define GF_POLY 0x1100B         /* x^16 + x^12 + x^3 + x + 1, primitive */

static unsigned short gf_exp[2 * GF_ORDER], gf_log[GF_ORDER + 1];
static unsigned short gf_inv[GF_ORDER + 1];

/* exp[i] = x^i, doubled so that exp[log a + log b] needs no reduction;
 * log[0] and inv[0] are 0 (never used as logarithms) */
static void
build (void)
{
  unsigned long x = 1;

  for (unsigned i = 0; i < GF_ORDER; i++) {
    gf_exp[i] = gf_exp[i + GF_ORDER] = (unsigned short) x;
    gf_log[x] = (unsigned short) i;
    x <<= 1;
    if (x & 0x10000)
      x ^= GF_POLY;
  }
  for (unsigned a = 1; a <= GF_ORDER; a++)
    gf_inv[a] = gf_exp[GF_ORDER - gf_log[a]];
}

static void
write_table (FILE * f, const char *name, const unsigned short *t, unsigned n)
{
  fprintf (f, "static const guint16 %s[%u] = {", name, n);
  for (unsigned i = 0; i < n; i++)
    fprintf (f, "%s0x%04x,", i % 10 ? " " : "\n  ", t[i]);
  fprintf (f, "\n};\n\n");
}

int
main (int argc, char **argv)
{
  FILE *f;

  if (argc != 2 || !(f = fopen (argv[1], "w"))) {
    fprintf (stderr, "usage: erasure16-gentables OUT.h\n");
    return 1;
  }
  build ();
  fprintf (f, "/* GF(2^16) tables, written by erasure16-gentables.c at build"
      " time */\n\n");
  write_table (f, "gf_exp", gf_exp, 2 * GF_ORDER);
  write_table (f, "gf_log", gf_log, GF_ORDER + 1);
  write_table (f, "gf_inv_table", gf_inv, GF_ORDER + 1);
  return fclose (f) != 0;
}
