#!/usr/bin/env python3
"""Where the receivers' CPU goes, per arm, from the perf record samples
that bench_rmtp_uftp.py keeps with BENCH_RMTP_PERF=record.

Usage: record_split.py DIR  (files <tag>-<run>-r<i>.data)
Each sample is 1/499 s of cpu-clock. Prints, per arm (the tag without its
run), the median receiver's ms in each group and in all, and the mean over
receivers and runs (ms a receiver)."""
import collections
import os
import re
import statistics
import subprocess
import sys

MS = 1000 / 499

GROUPS = [
    ("parity decode (GF(2^16) region products, tables)",
     re.compile(r"mul_add|region_mul_add|basis_products|vector_tables|"
                r"split_tables|^erasure16|^decoder_|cauchy|invert|gf_")),
    ("sha256", re.compile(r"sha256|SHA256|sha_block", re.I)),
    ("memcpy/memset/malloc", re.compile(r"mem(cpy|move|set)|malloc|free|"
                                       r"_int_|calloc|realloc")),
]


def groups_of(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-n",
                          "--sort", "dso,symbol"], capture_output=True,
                         text=True).stdout
    g = collections.Counter()
    for ln in out.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(\S+)", ln)
        if not m:
            continue
        n, dso, kind, sym = int(m[1]), m[2], m[3], m[4]
        g["all"] += n
        if kind == "k":
            g["kernel"] += n
            continue
        for name, rx in GROUPS:
            if rx.search(sym):
                g[name] += n
                break
        else:
            g["other: " + dso] += n
    return g


def main():
    d = sys.argv[1]
    arms = collections.defaultdict(list)
    for f in sorted(os.listdir(d)):
        m = re.match(r"(.*)-(\d+)-r(\d+)\.data$", f)
        if m:
            arms[m[1]].append(groups_of(os.path.join(d, f)))
    for arm, recs in arms.items():
        keys = collections.Counter()
        for r in recs:
            keys.update(r)
        print(f"\n{arm}: {len(recs)} receiver runs\n")
        print("| group | median ms a receiver | mean ms a receiver |")
        print("|---|---|---|")
        for k, _ in keys.most_common(12):
            vals = [r.get(k, 0) * MS for r in recs]
            print(f"| {k} | {statistics.median(vals):.1f} | "
                  f"{statistics.mean(vals):.1f} |")


if __name__ == "__main__":
    main()
