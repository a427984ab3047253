#!/usr/bin/env python3
"""The fifteenth pass's tables (docs/results.md): the fourteenth pass's table
(summarize.py there, imported, with this pass's variants named), then per
case and TPBA variant the kept-rate goal beside the others: runs whose
kept / TCP median is within 0.9-1.1, and runs meeting all four goals (UDP
share >= 0.70, f over mean rates >= the TCP reference's median - 0.02,
share of fair 0.85-1.15, kept / TCP 0.9-1.1).
--pairs A B: variant B against A in the same trial (the fourteenth's).
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "summarize14", os.path.join(HERE, "..", "tpba-fourteenth-pass", "summarize.py"))
s14 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s14)

s14.LABEL.update({
    "TPBA-ours-cap6-ratio3-step1-ceil2-peak": "ceiling 2, peak",
    "TPBA-ours-cap8-ratio3-step1-ceil2-peak": "ceiling 2, peak, 8 cycles",
    "TCP": "TCP reference",
})


def goals(rows):
    print("| case | variant | runs | kept / TCP within 10 % (run medians) "
          "| runs meeting all four goals |")
    print("|---|---|---|---|---|")
    for (bw, cc, n), d in sorted(rows.items()):
        ref = statistics.median(m["f_means"] for _, m in d["TCP"]) if d.get("TCP") else None
        for v in sorted(d, key=lambda v: list(s14.LABEL).index(v) if v in s14.LABEL else 99):
            if not s14.bench.is_tpba(v):
                continue
            ms = [m for _, m in d[v]]
            kept = [m["kept_bias"] is not None and 0.9 <= m["kept_bias"] <= 1.1 for m in ms]
            alls = [k and m["udp_share"] >= 0.70 and ref is not None
                    and m["f_means"] >= ref - 0.02 and 0.85 <= m["share1"] <= 1.15
                    for k, m in zip(kept, ms)]
            print(f"| {bw / 1e6:g} Mbit/s, {n} {cc} | {s14.LABEL.get(v, v)} | {len(ms)} | "
                  f"{sum(kept)} | {sum(alls)} |")


def main(argv):
    if argv[:1] == ["--pairs"]:
        s14.main(argv)
        return
    rows = s14.load(argv)
    s14.table(rows)
    print()
    goals(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
