#!/usr/bin/env python3
"""Issue 17, running-queue-margin (docs/results.md, "Issue 17: a climb limit
that watches the queue"): the twenty-second pass's table (medians [ranges] of
the share of fair, Jain's f over mean rates and per 1 s, UDP share, kept / TCP,
TPBA / TCP while running and while probing), then, per case and per other TPBA
arm, the trials it shares with the ceiling-2 line: in how many its share was
nearer 1 and its f over mean rates higher.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUNS.json ..."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tpba-twenty-second-pass"))
import summarize as base  # noqa: E402

REF = "TPBA-ours-cap6-ratio3-step1-ceil2"


def pairs(groups):
    print("\n| case | arm against ceiling 2 r_s | trials with both | share nearer 1 | "
          "f over mean rates higher |\n|---|---|---|---|---|")
    for case in sorted({c for c, _ in groups}):
        if (case, REF) not in groups:
            continue
        ref = {r["trial"]: base.bench.metrics(r) for r in groups[(case, REF)]}
        for v in sorted(v for c, v in groups if c == case and v != REF
                        and base.bench.is_tpba(v)):
            by = {r["trial"]: base.bench.metrics(r) for r in groups[(case, v)]}
            both = sorted(set(by) & set(ref))
            nearer = sum(abs(by[t]["share1"] - 1) < abs(ref[t]["share1"] - 1) for t in both)
            higher = sum(by[t]["f_means"] > ref[t]["f_means"] for t in both)
            print(f"| {case} | {v} | {len(both)} | {nearer} | {higher} |")


base.pairs = pairs
if __name__ == "__main__":
    base.main(sys.argv[1:])
