#!/usr/bin/env python3
"""bytime.py OUTDIR [FROM TO]: drive.sh's calls, per arm: the loss after FEC between the fast
members (p1-p3, each stream into each other fast member, seconds FROM-TO, default 6-17),
mean of the pair-seconds in 3 s steps (%), over all of them (mean, share of seconds with none)
and the frames decoded a second (mean); with uplink-estimate the bound each fast
sender held (median of its seconds with one, Mbit/s) and when it first had one (s)."""
import json, os, re, statistics as S, sys

out = sys.argv[1]
lo, hi = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (6, 17)
calls = {}
for name in sorted(os.listdir(out)):
    m = re.fullmatch(r"([A-Z])-(\d+)", name)
    if m:
        calls.setdefault(m.group(1), []).append(os.path.join(out, name))
for arm, dirs in sorted(calls.items()):
    steps, bounds, first, fps = {}, [], [], []
    for d in dirs:
        for p in (1, 2, 3):
            rows = [json.loads(line) for line in open(f"{d}/stats-{p}.json")]
            have = [r["t"] for r in rows if r.get("uplink_estimate_bps", 0) > 0]
            first.append(have[0] if have else None)
            for r in rows:
                t = int(r["t"])
                if not lo <= t <= hi:
                    continue
                if r.get("uplink_estimate_bps", 0) > 0:
                    bounds.append(r["uplink_estimate_bps"] / 1e6)
                for mem in r["members"]:
                    if mem["id"] in (1, 2, 3) and not mem.get("left"):
                        steps.setdefault((t - lo) // 3, []).append(100 * mem["loss_after_fec"])
                        fps.append(mem["fps"])
    line = " ".join(f"{lo + 3 * k}-{min(lo + 3 * k + 2, hi)} s {S.mean(v):.2f} %"
                    for k, v in sorted(steps.items()))
    every = [x for v in steps.values() for x in v]
    print(f"{arm}: {len(dirs)} calls; loss after FEC {line}")
    print(f"   {lo}-{hi} s: loss after FEC {S.mean(every):.2f} %, clean "
          f"{100 * S.mean(x == 0 for x in every):.0f} %, fast members {S.mean(fps):.2f} fps")
    if bounds:
        got = sorted(x for x in first if x is not None)
        print(f"   bound {S.median(bounds):.2f} Mbit/s ({min(bounds):.2f}-{max(bounds):.2f}), "
              f"first at {S.median(got):.1f} s (median; {len(got)} of {len(first)} senders)")
