#!/usr/bin/env python3
"""ana.py OUTDIR (drive.sh's): per call, over 6-17 s (p4 in, p3 not yet gone), the fast
members' (p1-p3) frames step by step and the rest; then medians per arm and B/A ratios over
the pairs. Columns: load (1-min load average at the call's start); fast, fastmean (median
and mean of the per-second frame rates the fast members decode of each other, fps); l3, l2,
l1 (share of a fast sender's seconds with 3, 2, 1 layers sent to a fast member, sampled once
a second); enc (frames the encoder coded a second, median of p1-p3, fps); stale (camera
frames left out as too old, a second); sentexp (enc x the prefix's share of the frames:
frames sent a second, fps); loss, lossmean (loss after FEC between the fast members,
median and mean of the seconds, %); slow, slowmean (fps p4 decodes the others at, 7-17 s);
sloss (p4's loss after FEC, median, %); tgt (the whole stream's target, median, Mbit/s);
media (RTP into a fast member's tile from another, median, Mbit/s); cpu (CPU seconds,
user + sys, of p1-p3, mean), cpu4 (p4's)."""
import json, os, re, statistics as S, sys
OUT = sys.argv[1]
SHARE = {3: 1.0, 2: 0.5, 1: 0.25}   # of the frames: hierarchical 3 layers, 4-frame GOP

def load(d, i):
    try:
        return [json.loads(l) for l in open(f"{d}/stats-{i}.json") if l.strip()]
    except OSError:
        return []

def call(d):
    st = {i: load(d, i) for i in (1, 2, 3, 4)}
    encfps = {}
    for i in (1, 2, 3):
        pts = [(o["t"], o.get("enc_frames", 0), o["stale_frames"]) for o in st[i] if 6 <= o["t"] <= 17.5]
        if len(pts) >= 2:
            encfps[i] = ((pts[-1][1] - pts[0][1]) / (pts[-1][0] - pts[0][0]),
                         (pts[-1][2] - pts[0][2]) / (pts[-1][0] - pts[0][0]))
    fast_fps, layers, sent_exp, loss, pairfps = [], [], [], [], {}
    for s in (1, 2, 3):
        for r in (1, 2, 3):
            if s == r:
                continue
            snd = {round(o["t"]): m for o in st[s] for m in o["members"] if m["id"] == r and 6 <= o["t"] <= 17.5}
            rcv = {round(o["t"]): m for o in st[r] for m in o["members"] if m["id"] == s and 6 <= o["t"] <= 17.5}
            f = [m["fps"] for m in rcv.values()]
            fast_fps += f
            loss += [m["loss_after_fec"] for m in rcv.values()]
            L = [m["layers_sent"] for m in snd.values()]
            layers += L
            if s in encfps:
                sent_exp += [encfps[s][0] * SHARE.get(l, 0) for l in L]
            pairfps[(s, r)] = (S.mean(f) if f else 0, sum(1 for l in L if l == 3) / max(1, len(L)))
    tgt = [o["enc_target_bps"] / 1e6 for i in (1, 2, 3) for o in st[i] if 6 <= o["t"] <= 17.5]
    media = [m["media_bps"] / 1e6 for r in (1, 2, 3) for o in st[r] for m in o["members"]
             if m["id"] in (1, 2, 3) and m["id"] != r and 6 <= o["t"] <= 17.5]
    slow = [m["fps"] for o in st[4] for m in o["members"] if m["id"] in (1, 2, 3) and 7 <= o["t"] <= 17.5]
    sloss = [m["loss_after_fec"] for o in st[4] for m in o["members"] if m["id"] in (1, 2, 3) and 7 <= o["t"] <= 17.5]
    cpu = {}
    try:
        for l in open(f"{d}/cpu.txt"):
            p, u, sy = l.split()
            cpu[p] = float(u) + float(sy)
    except OSError:
        pass
    return dict(
        fast=S.median(fast_fps) if fast_fps else 0, fastmean=S.mean(fast_fps) if fast_fps else 0,
        l3=sum(1 for l in layers if l == 3) / max(1, len(layers)),
        l2=sum(1 for l in layers if l == 2) / max(1, len(layers)),
        l1=sum(1 for l in layers if l == 1) / max(1, len(layers)),
        enc=S.median(v[0] for v in encfps.values()) if encfps else 0,
        stale=S.median(v[1] for v in encfps.values()) if encfps else 0,
        sentexp=S.mean(sent_exp) if sent_exp else 0,
        loss=100 * S.median(loss) if loss else 0, lossmean=100 * S.mean(loss) if loss else 0,
        slow=S.median(slow) if slow else 0, slowmean=S.mean(slow) if slow else 0,
        sloss=100 * S.median(sloss) if sloss else 0,
        tgt=S.median(tgt) if tgt else 0, media=S.median(media) if media else 0,
        cpu=S.mean(cpu.get(p, 0) for p in "123") if cpu else 0, cpu4=cpu.get("4", 0))

loads = {}
for l in open(f"{OUT}/load.txt"):
    m = re.match(r"(\w) (\d+) \S+ (\S+)", l)
    if m:
        loads[(m[1], int(m[2]))] = float(m[3])
res = {}
keys = ["fast", "fastmean", "l3", "l2", "l1", "enc", "stale", "sentexp", "loss", "lossmean", "slow", "slowmean", "sloss", "tgt", "media", "cpu", "cpu4"]
print("arm k load " + " ".join(keys))
for (arm, k), ld in sorted(loads.items(), key=lambda x: (x[0][1], x[0][0])):
    d = f"{OUT}/{arm}-{k}"
    if not os.path.exists(f"{d}/summary.json"):
        continue
    c = call(d)
    res.setdefault(arm, {})[k] = (ld, c)
    print(arm, k, ld, " ".join(f"{c[x]:.2f}" for x in keys))
for arm, v in sorted(res.items()):
    print(arm, len(v), "load %.1f-%.1f" % (min(x[0] for x in v.values()), max(x[0] for x in v.values())),
          " ".join(f"{x} {S.median(c[x] for _, c in v.values()):.2f}" for x in keys))
common = sorted(set(res.get("A", {})) & set(res.get("B", {})))
for x in ("fast", "fastmean", "slow", "slowmean", "loss", "lossmean", "sloss", "tgt", "media", "cpu", "cpu4", "enc"):
    r = [res["B"][k][1][x] / res["A"][k][1][x] for k in common if res["A"][k][1][x]]
    if r:
        print(f"ratio B/A {x}: median {S.median(r):.2f} ({min(r):.2f}-{max(r):.2f}, {len(r)} pairs)")
