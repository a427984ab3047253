#!/usr/bin/env python3
"""The table layouts measured in bench-erasure16-interleave (issue 20, the
field's tables), as copies of erasure16.c before the const tables (commit
8306bc3e): base (exp doubled 256 KiB + log 128 KiB), fold (exp not doubled,
the sum of logs folded mod 65535 without a branch: 256 KiB), inv (base + a
128 KiB inverse table for gf_inv and so the Cauchy entries), foldinv.
Usage: make_variants.py ERASURE16_C OUTDIR; then compile each with
tests/bench/bench-erasure16-interleave.c (see README.md)."""
import os
import sys

src, out = sys.argv[1], sys.argv[2]
s = open(src).read()
fold = s.replace("static guint16 gf_exp[2 * GF_ORDER];",
                 "static guint16 gf_exp[GF_ORDER + 1];")
fold = fold.replace("    gf_exp[i] = gf_exp[i + GF_ORDER] = (guint16) x;",
                    "    gf_exp[i] = (guint16) x;")
fold = fold.replace("      x ^= GF_POLY;\n  }\n  return NULL;",
                    "      x ^= GF_POLY;\n  }\n  gf_exp[GF_ORDER] = 1;\n"
                    "  return NULL;")
fold = fold.replace("  return gf_exp[gf_log[a] + gf_log[b]];",
                    "  guint s = (guint) gf_log[a] + gf_log[b];\n"
                    "  return gf_exp[(s & 0xffff) + (s >> 16)];")
assert fold != s


def add_inv(t):
    t = t.replace("static guint16 gf_log[GF_ORDER + 1];",
                  "static guint16 gf_log[GF_ORDER + 1];\n"
                  "static guint16 gf_invt[GF_ORDER + 1];")
    t = t.replace("  return NULL;\n}", "  for (guint a = 1; a <= GF_ORDER; a++)\n"
                  "    gf_invt[a] = gf_exp[GF_ORDER - gf_log[a]];\n"
                  "  return NULL;\n}", 1)
    return t.replace("  return a == 0 ? 0 : gf_exp[GF_ORDER - gf_log[a]];",
                     "  return gf_invt[a];")


for name, text in (("base", s), ("fold", fold), ("inv", add_inv(s)),
                   ("foldinv", add_inv(fold))):
    with open(os.path.join(out, name + ".c"), "w") as f:
        f.write(text)
