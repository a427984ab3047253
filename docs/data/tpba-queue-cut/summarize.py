#!/usr/bin/env python3
"""Issue 17, running-queue-cut (docs/results.md, "Issue 17: a running cut back toward
r_s while the queue is above the probe's"). Table 1, per cell and flow in TPBA's place
(the README's line, the line with running-queue-cut=10 ms, the TCP reference): medians
[ranges] over the runs of the bench's metrics in [WARMUP, JOIN): share of fair, Jain's
f over the flows' mean rates and per 1 s, the UDP share of TPBA's bytes, r_s over the
TCP flows' and over TPBA's own rate in the same probing period. Table 2, per cell and
TPBA arm: the goals the medians meet (tpba-grid-rest/summarize.py's rule). Table 3, per
cell and TPBA arm (medians over runs): TPBA / TCP in its probing and running seconds,
the paced rate at a running period's end over r_s (tpba-10m-160ms/summarize.py's
split), the points running-queue-cut acted on per run, and the last RR's RTT less the
probe's mean TCP RTT over the running seconds (ms).
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUN.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "grid", os.path.join(HERE, "..", "tpba-grid-rest", "summarize.py"))
grid = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grid)
bench, split, cell = grid.bench, grid.split, grid.cell
LINE = grid.LINE
ARMS = {"TCP": "TCP ref", LINE: "README line", LINE + "-qcut10": "queue cut 10 ms"}


def queue_excess_ms(run):
    """Median over the running seconds of the last RR's RTT less probe-rtt, ms."""
    xs = [(rtt - prtt) / 1e6 for _, period, rtt, prtt, *_ in run.get("rr_rtt", [])
          if period == "running" and rtt > 0 and prtt > 0]
    return statistics.median(xs) if xs else None


def queue_cuts(run):
    rows = run.get("rr_rtt", [])
    return rows[-1][5] if rows and len(rows[-1]) > 5 else None


def main(paths):
    runs = [dict(r, file=p) for p in paths for r in json.load(open(p)) if r.get("ok")]
    groups = {}
    for r in runs:
        groups.setdefault((grid.case_name(r), ARMS.get(r["variant"], r["variant"])),
                          []).append(r)
    print("| cell | flow | runs | share of fair | f, mean rates | f per 1 s | UDP share | "
          "r_s / TCP | r_s / TPBA |\n" + "|---" * 9 + "|")
    metrics = {}
    for key, rs in sorted(groups.items()):
        ms = {r["file"]: bench.metrics(r) for r in rs}
        metrics[key] = ms
        v = list(ms.values())
        print(f"| {' | '.join(key)} | {len(rs)} | {cell([m['share1'] for m in v])} | "
              f"{cell([m['f_means'] for m in v], '.3f')} | "
              f"{cell([m['f1'] for m in v], '.3f')} | "
              f"{cell([m['udp_share'] for m in v])} | {cell([m['kept_bias'] for m in v])} | "
              f"{cell([m['kept_own'] for m in v])} |")
    print("\n| cell | TPBA arm | goals met (medians) | trials: f >= reference's - 0.02 |\n"
          "|---|---|---|---|")
    for case, arm in sorted(groups):
        ref = metrics.get((case, "TCP ref"))
        if arm != "TCP ref" and ref:
            print(f"| {case} | {arm} | {' | '.join(grid.goals(metrics[(case, arm)], ref))} |")
    print("\n| cell | TPBA arm | runs | TPBA / TCP probing | TPBA / TCP running | "
          "paced at a running period's end / r_s | queue cuts a run | "
          "RR RTT - probe RTT, running, ms |\n" + "|---" * 8 + "|")
    for (case, arm), rs in sorted(groups.items()):
        if arm == "TCP ref":
            continue
        o = [split.origin(r) for r in rs]
        print(f"| {case} | {arm} | {len(rs)} | {split.med([x[0]['probing'] for x in o])} | "
              f"{split.med([x[0]['running'] for x in o])} | "
              f"{split.med([v for x in o for v in x[3]])} | "
              f"{split.med([queue_cuts(r) for r in rs], '.0f')} | "
              f"{split.med([queue_excess_ms(r) for r in rs], '.0f')} |")
    flagged = [r for r in runs if bench.start_warning(r)]
    print(f"\nruns flagged for a start off the TCP flows' by more than "
          f"{bench.MAX_START_SKEW} s: {len(flagged)} of {len(runs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
