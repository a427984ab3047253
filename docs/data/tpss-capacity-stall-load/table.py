#!/usr/bin/env python3
"""A table row per tpss-capacity-stall run: load at start, TPSS goodput over
the second half (and over the time its sender's pacer did not skip), what
the sink's pacer skipped, the loops' late time, the receiver's stops, the
reference's rate and loss, the checks that failed."""
import re, sys
def g(pat, t, default="?"):
    m = re.search(pat, t, re.M)
    return m.group(1) if m else default
for f in sys.argv[1:]:
    t = open(f).read()
    load = g(r"load average: ([\d.]+)", t)
    gp = g(r"^tpss +pushed=.*?goodput=([\d.]+)", t)
    tl = g(r"^tpss +pushed=.*?\(([\d.]+)%\)", t)
    bl = g(r"^traditional +pushed=.*?\(([\d.]+)%\)", t)
    lp = g(r"^tpss +loops over (.*)$", t)
    sk = g(r"pacing skipped ([\d.]+) s", lp)
    slate = g(r"sink late ([\d.]+) s", lp)
    smax = g(r"sink late .*?longest of the run (\d+) ms", lp)
    rlate = g(r"src late ([\d.]+) s", lp)
    stop = g(r"receiver stopped ([\d.]+) s in \d+ stops \(median \d+ ms, max (\d+) ms", lp)
    smx = g(r"receiver stopped [\d.]+ s in \d+ stops \(median \d+ ms, max (\d+) ms", lp)
    paced = "?"
    if gp != "?" and sk != "?":
        paced = f"{float(gp) * 10 / (10 - float(sk)):.2f}"
    rr = g(r"^reference +fixed ([\d.]+)", t)
    rl = g(r"^reference +fixed.*?lost=([\d.]+)%", t)
    fails = [x[:28] for x in re.findall(r"^FAIL: ([^:]+)", t, re.M)]
    print(f"| {f.split('/')[-1][:-4]} | {load} | {gp} | {paced} | {sk} | {slate} ({smax}) | {rlate} | {stop}/{smx} | {tl} / {bl} | {rr}: {rl} | {', '.join(fails) or '-'} |")
