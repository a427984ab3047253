#!/usr/bin/env python3
"""Per-run ratios of bench_rmtp_uftp.py output (arms alternated run by run).

Usage: ratios.py FILE REF ARM [ARM ...]: for each loss, each ARM against
REF (mode names as in the RUN lines): runs, medians of the transfer time,
of the CPU s of all processes and of the median receiver's task-clock,
and the medians of the per-run ratios ARM / REF (run i against run i)."""
import collections
import re
import statistics
import sys

RUN = re.compile(r"RUN n=(\d+) loss=(\d+)% (\S+) #(\d+): ([\d.]+) s whole "
                 r"cpu=[\d.]+ cpu-s=([\d.]+) .*?polls=(\d+)"
                 r"(?: receiver-cpu-ms=([\d.]+))?")


def main():
    path, ref, arms = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = collections.defaultdict(dict)
    for ln in open(path):
        m = RUN.match(ln)
        if m:
            runs[(int(m[1]), int(m[2]), m[3])][int(m[4])] = (
                float(m[5]), float(m[6]), int(m[7]),
                float(m[8]) if m[8] else float("nan"))
    med = statistics.median
    print("| receivers | loss | arm | runs | transfer | CPU s (all) | "
          "receiver CPU ms | POLLs | transfer x | CPU x | receiver CPU x |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, loss in sorted({k[:2] for k in runs}):
        base = runs.get((n, loss, ref), {})
        for arm in [ref] + arms:
            r = runs.get((n, loss, arm), {})
            if not r:
                continue
            both = [i for i in r if i in base]
            ratio = [[r[i][f] / base[i][f] for i in both] for f in (0, 1, 3)]
            print(f"| {n} | {loss} % | {arm} | {len(r)} | "
                  f"{med(v[0] for v in r.values()):.2f} s | "
                  f"{med(v[1] for v in r.values()):.2f} | "
                  f"{med(v[3] for v in r.values()):.1f} | "
                  f"{med(v[2] for v in r.values()):.0f} | "
                  f"{med(ratio[0]):.2f} ("
                  f"{sum(1 for i in both if r[i][0] < base[i][0])} of "
                  f"{len(both)} faster) | {med(ratio[1]):.2f} | "
                  f"{med(ratio[2]):.2f} |")


if __name__ == "__main__":
    main()
