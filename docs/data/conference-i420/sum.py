#!/usr/bin/env python3
"""sum.py [RUNS.TXT] [-v]. Per call: CPU seconds of each participant process, and the frame rate the fast members
(p1-p3) decode of each other over 6-17 s; medians per arm and paired ratios."""
import json, os, statistics as st, sys
runs = next((a for a in sys.argv[1:] if a != "-v"), os.path.join(os.path.dirname(__file__), "runs.txt"))
rows = [l.split() for l in open(runs)]
res = {}
for arm, k, load, d in rows:
    try:
        cpu = {l.split()[0]: float(l.split()[1]) + float(l.split()[2]) for l in open(f"{d}/cpu.txt")}
    except OSError:
        continue
    fps = []
    for rx in (1, 2, 3):
        try:
            lines = [json.loads(l) for l in open(f"{d}/stats-{rx}.json") if l.strip()]
        except OSError:
            continue
        for s in lines:
            if 6 <= s["t"] <= 17:
                fps += [m["fps"] for m in s["members"] if m["id"] in (1, 2, 3) and m["id"] != rx]
    if "-v" in sys.argv:
        print(arm, k, load, "%.2f" % (sum(cpu.get(p, 0) for p in "123") / 3),
              "%.2f" % cpu.get("4", 0), "%.2f" % (st.median(fps) if fps else 0))
    res.setdefault(arm, []).append((float(load), sum(cpu.get(p, 0) for p in "123") / 3,
                                    cpu.get("4", 0), st.median(fps) if fps else 0))
for arm, v in res.items():
    print(arm, len(v), "load %.1f-%.1f" % (min(x[0] for x in v), max(x[0] for x in v)),
          "cpu p1-3 median %.2f s" % st.median(x[1] for x in v),
          "p4 %.2f s" % st.median(x[2] for x in v),
          "fast fps median %.2f (min %.2f)" % (st.median(x[3] for x in v), min(x[3] for x in v)))
if "new" in res and "old" in res:
    n = min(len(res["new"]), len(res["old"]))
    r = [a[1] / b[1] for a, b in zip(res["new"][:n], res["old"][:n])]
    print("cpu new/old per call pair: median %.2f, lower in %d of %d" % (st.median(r), sum(x < 1 for x in r), n))
