#!/usr/bin/env python3
"""Issue 17, the rest of the grid (docs/results.md, "Issue 17: the rest of the grid").
Table 1, per cell and flow in TPBA's place (the README's line, the TCP reference):
medians [ranges] over the runs of the bench's metrics in [WARMUP, JOIN): share of
fair, Jain's f over the flows' mean rates and per 1 s (median over the windows), the
UDP share of TPBA's bytes, kept / TCP. Table 2, per cell: the issue's goals for the
README line on the medians (UDP share >= 0.70, share of fair in 0.85-1.15, f over mean
rates >= the reference's - 0.02) and, per trial (one JSON file a call, both flows in
it), in how many trials the line's f over mean rates was >= the reference's - 0.02;
Table 3, per cell (medians over the README line's runs): TPBA's rate over the TCP
flows' mean in its probing and in its running seconds, and the paced rate at a running
period's end over r_s (the climb; the ceiling is 2), with tpba-10m-160ms/summarize.py's
split. Then how many runs the bench flags for a start off the TCP flows'.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUN.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "..", "tests", "bench")
sys.path.insert(0, BENCH)               # the bench imports its neighbours
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(BENCH, "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
# the split of TPBA's rate into probing and running seconds, from the 10 Mbit/s pass
spec = importlib.util.spec_from_file_location(
    "split", os.path.join(HERE, "..", "tpba-10m-160ms", "summarize.py"))
split = importlib.util.module_from_spec(spec)
spec.loader.exec_module(split)
LINE = "TPBA-ours-cap6-ratio3-step1-ceil2"
ARMS = {"TCP": "TCP ref", LINE: "README line"}


def cell(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{format(statistics.median(xs), spec)} "
            f"[{format(min(xs), spec)}-{format(max(xs), spec)}]")


def case_name(r):
    bed = {"tbf": "drop-tail (tbf)"}.get(r.get("qdisc", "tbf"), r.get("qdisc"))
    return f"{r['b'] / 1e6:g} Mbit/s, {bed}, {r['ntcp']} {r['cc']}"


def goals(line, ref):
    """The goals the README line's medians meet, and the per-trial f count."""
    med = {k: statistics.median(m[k] for m in line.values()) for k in
           ("udp_share", "share1", "f_means")}
    ref_f = statistics.median(m["f_means"] for m in ref.values())
    met = []
    if med["udp_share"] >= 0.70:
        met.append("UDP")
    if 0.85 <= med["share1"] <= 1.15:
        met.append("share")
    if med["f_means"] >= ref_f - 0.02:
        met.append("f")
    both = sorted(set(line) & set(ref))
    ok = sum(line[t]["f_means"] >= ref[t]["f_means"] - 0.02 for t in both)
    return " ".join(met) or "none", f"{ok} of {len(both)}"


def main(paths):
    runs = [dict(r, file=p) for p in paths for r in json.load(open(p)) if r.get("ok")]
    groups = {}
    for r in runs:
        groups.setdefault((case_name(r), ARMS.get(r["variant"], r["variant"])), []).append(r)
    print("| cell | flow | runs | share of fair | f, mean rates | f per 1 s | UDP share | "
          "kept / TCP |\n" + "|---" * 8 + "|")
    metrics = {}
    for key, rs in sorted(groups.items()):
        ms = {r["file"]: bench.metrics(r) for r in rs}
        metrics[key] = ms
        v = list(ms.values())
        print(f"| {' | '.join(key)} | {len(rs)} | {cell([m['share1'] for m in v])} | "
              f"{cell([m['f_means'] for m in v], '.3f')} | "
              f"{cell([m['f1'] for m in v], '.3f')} | "
              f"{cell([m['udp_share'] for m in v])} | {cell([m['kept_bias'] for m in v])} |")
    print("\n| cell | goals met (medians) | trials: f >= reference's - 0.02 |\n|---|---|---|")
    for case in sorted({c for c, _ in groups}):
        line, ref = metrics.get((case, "README line")), metrics.get((case, "TCP ref"))
        if line and ref:
            print(f"| {case} | {' | '.join(goals(line, ref))} |")
    print("\n| cell | runs | TPBA / TCP probing | TPBA / TCP running | "
          "paced at a running period's end / r_s |\n|---|---|---|---|---|")
    for (case, flow), rs in sorted(groups.items()):
        if flow == "README line":
            o = [split.origin(r) for r in rs]
            print(f"| {case} | {len(rs)} | {split.med([x[0]['probing'] for x in o])} | "
                  f"{split.med([x[0]['running'] for x in o])} | "
                  f"{split.med([v for x in o for v in x[3]])} |")
    flagged = [r for r in runs if bench.start_warning(r)]
    print(f"\nruns flagged for a start off the TCP flows' by more than "
          f"{bench.MAX_START_SKEW} s: {len(flagged)} of {len(runs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
