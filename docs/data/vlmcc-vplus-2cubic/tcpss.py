#!/usr/bin/env python3
"""From a run saved with BENCH_VLMCC_SS=1: per TCP flow over [15, 50) s, the
median cwnd, the reductions seen (ssthresh changes between 0.25 s samples)
and the ratio of the new ssthresh to the largest cwnd sampled since the
previous reduction (an estimate of the reduction's depth; samples are
about 2 RTTs apart, so the peak is a lower bound and the ratio an upper
one). Usage: tcpss.py RUNS.json ..."""
import json
import statistics
import sys

for path in sys.argv[1:]:
    for r in json.load(open(path)):
        tw = [(t, s) for t, s in r.get("tcp_windows", []) if 15 <= t < 50]
        ports = sorted({p for _, s in tw for p, *_ in s})
        for p in ports:
            seq = [(t, c, st) for t, s in tw for pp, c, st, *_ in s if pp == p]
            peak, prev, ratios = 0, None, []
            for t, c, st in seq:
                if prev is not None and st != prev and peak:
                    ratios.append(st / peak)
                    peak = 0
                peak = max(peak, c)
                prev = st
            print(f"{r['scheme']:12s} t{r['trial']} port {p}: cwnd median "
                  f"{statistics.median(c for _, c, _ in seq)}, reductions {len(ratios)}, "
                  f"new ssthresh / peak cwnd median {statistics.median(ratios):.2f} "
                  f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.2f}-"
                  f"{statistics.quantiles(ratios, n=4)[2]:.2f})")
