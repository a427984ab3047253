#!/usr/bin/env python3
"""The sixteenth pass's tables (docs/results.md): the fifteenth pass's
(summarize.py there, imported, which imports the fourteenth's) with this
pass's variant named, then per case and TPBA variant how many probing
periods the bound ended and in how many of them max-probe-peak-if-rising
found the cycles falling (the sink's probe-end-max-cycles and
probe-kept-falling at the run's end).
--pairs A B: variant B against A in the same trial (the fourteenth's).
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "summarize15", os.path.join(HERE, "..", "tpba-fifteenth-pass", "summarize.py"))
s15 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s15)
s14 = s15.s14

s14.LABEL.update({
    "TPBA-ours-cap6-ratio3-step1-ceil2-peakrise": "ceiling 2, peak if rising",
})


def falling(rows):
    print("| case | variant | runs | periods ended by the bound | kept the later median "
          "(falling) |")
    print("|---|---|---|---|---|")
    for (bw, cc, n), d in sorted(rows.items()):
        for v in sorted(d):
            if not s14.bench.is_tpba(v):
                continue
            last = [r["last"] for r, _ in d[v]]
            ends = sum(int(x.get("probe-end-max-cycles", 0)) for x in last)
            fell = sum(int(x.get("probe-kept-falling", 0)) for x in last)
            shown = fell if "peakrise" in v else "-"
            print(f"| {bw / 1e6:g} Mbit/s, {n} {cc} | {s14.LABEL.get(v, v)} | {len(last)} | "
                  f"{ends} | {shown} |")


def main(argv):
    if argv[:1] == ["--pairs"]:
        s14.main(argv)
        return
    rows = s14.load(argv)
    s14.table(rows)
    print()
    s15.goals(rows)
    print()
    falling(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
