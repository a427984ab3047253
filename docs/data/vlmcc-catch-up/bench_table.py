#!/usr/bin/env python3
"""The bench runs here (bench-*.json) per case and scheme: the trials'
shares of the fair rate, and the medians over the trials of f over mean
rates, f per 1 s, share, kbit/s, the sink's median W, halvings and packets
the receiver lost over 15-50 s, and its loop's late time (s) there.
The full per-run table: tests/bench/bench_vlmcc_fairness.py --report FILES."""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "bench"))
import bench_vlmcc_fairness as bench  # noqa: E402

ORDER = ("VLMCC-nocatch", "VLMCC", "VLMCC-vplus-nocatch", "VLMCC-vplus", "TCP")


def main():
    by = {}
    for path in sorted(glob.glob(os.path.join(HERE, "bench-*.json"))):
        for run in json.load(open(path)):
            if run["ok"]:
                by.setdefault(bench.scenario(run), {}).setdefault(run["scheme"], []).append(run)
    print("| case | scheme | trials | shares by trial | f means / f per 1 s / share "
          "(medians) | kbit/s | sink W / halvings / receiver lost / loop late s |\n"
          "|---|---|---|---|---|---|---|")
    for case, schemes in by.items():
        for name in ORDER:
            runs = schemes.get(name, [])
            if not runs:
                continue
            ms = [bench.metrics(r) for r in runs]

            def med(values, spec):
                return format(statistics.median(values), spec)
            sinks = [r["sink"] for r in runs if r.get("sink")]
            sink = " / ".join(med([s[k] for s in sinks], ".3g") for k in
                              ("window", "halvings", "rx_lost", "late_s")) if sinks else "-"
            print(f"| {case} | {name} | {len(runs)} | "
                  + ", ".join(f"{m['share']:.2f}" for m in ms) + " | "
                  + " / ".join(med([m[k] for m in ms], s) for k, s in
                               (("f_means", ".3f"), ("f_window", ".3f"), ("share", ".2f")))
                  + f" | {med([m['kbps'] for m in ms], '.0f')} | {sink} |")


if __name__ == "__main__":
    main()
