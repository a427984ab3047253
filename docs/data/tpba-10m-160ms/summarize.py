#!/usr/bin/env python3
"""Issue 17 at 10 Mbit/s and +160 ms (docs/results.md, "Issue 17: TPBA above fair at
10 Mbit/s and at +160 ms"). Table 1, per case and flow in TPBA's place (the README's
line, the same with running-hold-on-loss, the TCP reference): medians [ranges] of the
bench's metrics over [WARMUP, JOIN): share of fair, Jain's f over the mean rates and
per 1 s, UDP share, kept / TCP. Table 2, where TPBA's rate comes from, per case and
TPBA arm (medians over the runs): TPBA's rate against the TCP flows' mean over the probing
and over the running seconds, the seconds of each, the probe's length, the paced rate
at a running period's end over r_s (the climb), and the running periods' adaptation
points by their loss: none, some but at most p_probe (allow-probe-loss tolerates it),
more (a cut). Table 3, per case: in how many trials (one JSON file a trial) the hold arm had the
share nearer 1 and the higher f over mean rates. A point is a run of equal (p-loss, p-probe) samples, the sink's 1 s
stats repeating the last point's loss.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUN.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "..", "tests", "bench")
sys.path.insert(0, BENCH)
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(BENCH, "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
W, J = bench.WARMUP, bench.JOIN
ARMS = {"TCP": "TCP ref", "TPBA-ours-cap6-ratio3-step1-ceil2": "README line",
        "TPBA-ours-cap6-ratio3-step1-ceil2-hold": "hold on loss"}


def cell(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{format(statistics.median(xs), spec)} "
            f"[{format(min(xs), spec)}-{format(max(xs), spec)}]")


def med(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    return format(statistics.median(xs), spec) if xs else "-"


def case_name(r):
    rtt = f", +{r['rtt']} ms" if r["rtt"] else ""
    return f"{r['b'] / 1e6:g} Mbit/s, {r['ntcp']} {r['cc']}{rtt}"


def spans(run):
    ps, out = run["periods"], []
    for i, (t, kind, rs) in enumerate(ps):
        out.append((t, ps[i + 1][0] if i + 1 < len(ps) else bench.END, kind, rs))
    if ps and ps[0][0] > 0:
        out.insert(0, (0.0, ps[0][0], "probing", ps[0][2]))
    return out


def paced_at(run, t):
    best = None
    for row in run["sink"]:
        if row[0] <= t:
            best = row[2]
    return best


def origin(run):
    """TPBA / TCP over probing and running seconds in [W, J), their seconds,
    probe lengths, the climb (paced rate at a running period's end over r_s)."""
    R = run["R"]
    got = {"probing": [0.0, 0.0, 0], "running": [0.0, 0.0, 0]}
    lengths, climbs = [], []
    for t0, t1, kind, rs in spans(run):
        js = [j for j in range(int(t0) + 1, min(int(t1), J)) if j >= W]
        if kind == "probing" and t0 > 0:
            lengths.append(t1 - t0)
        if kind == "running" and rs and t1 < bench.END:
            end = paced_at(run, t1 - 0.05)
            if end:
                climbs.append(end / rs)
        for j in js:
            got[kind][0] += R[0][j]
            got[kind][1] += statistics.mean(r[j] for r in R[1:run["ntcp"] + 1])
            got[kind][2] += 1
    ratio = {k: (v[0] / v[1] if v[1] else None) for k, v in got.items()}
    return ratio, {k: v[2] for k, v in got.items()}, lengths, climbs


def points(run):
    """(no loss, tolerated loss, cut) adaptation points of the running periods."""
    pts, last = [], None
    for p, q in run.get("losses", []):
        if (p, q) != last:
            pts.append((p, q))
        last = (p, q)
    none = sum(1 for p, _ in pts if p == 0)
    tol = sum(1 for p, q in pts if 0 < p <= q)
    return none, tol, len(pts) - none - tol


def main(paths):
    runs = [dict(r, file=p) for p in paths for r in json.load(open(p)) if r.get("ok")]
    groups = {}
    for r in runs:
        groups.setdefault((case_name(r), ARMS.get(r["variant"], r["variant"])), []).append(r)
    print("| case | flow | runs | share of fair | f, mean rates | f per 1 s | UDP share | "
          "kept / TCP |\n" + "|---" * 8 + "|")
    for key, rs in sorted(groups.items()):
        ms = [bench.metrics(r) for r in rs]
        print(f"| {' | '.join(key)} | {len(rs)} | {cell([m['share1'] for m in ms])} | "
              f"{cell([m['f_means'] for m in ms], '.3f')} | "
              f"{cell([m['f1'] for m in ms], '.3f')} | "
              f"{cell([m['udp_share'] for m in ms])} | {cell([m['kept_bias'] for m in ms])} |")
    print("\n| case | TPBA arm | runs | TPBA / TCP probing | TPBA / TCP running | "
          "probing s | running s | probe length s | paced at end / r_s | "
          "points: no loss / tolerated / cut |\n" + "|---" * 10 + "|")
    for key, rs in sorted(groups.items()):
        if key[1] == "TCP ref":
            continue
        o = [origin(r) for r in rs]
        pts = [points(r) for r in rs]
        print(f"| {' | '.join(key)} | {len(rs)} | "
              f"{med([x[0]['probing'] for x in o])} | {med([x[0]['running'] for x in o])} | "
              f"{med([x[1]['probing'] for x in o], '.0f')} | "
              f"{med([x[1]['running'] for x in o], '.0f')} | "
              f"{med([v for x in o for v in x[2]], '.1f')} | "
              f"{med([v for x in o for v in x[3]])} | "
              f"{sum(p[0] for p in pts)} / {sum(p[1] for p in pts)} / "
              f"{sum(p[2] for p in pts)} |")
    print("\n| case | trials with both TPBA arms | hold: share nearer 1 | hold: f, mean rates "
          "higher |\n|---|---|---|---|")
    for case in sorted({c for c, _ in groups}):
        by = {a: {r["file"]: bench.metrics(r) for r in groups.get((case, a), [])}
              for a in ("README line", "hold on loss")}
        ts = sorted(set(by["README line"]) & set(by["hold on loss"]))
        near = sum(abs(by["hold on loss"][t]["share1"] - 1) <
                   abs(by["README line"][t]["share1"] - 1) for t in ts)
        higher = sum(by["hold on loss"][t]["f_means"] > by["README line"][t]["f_means"]
                     for t in ts)
        print(f"| {case} | {len(ts)} | {near} | {higher} |")


if __name__ == "__main__":
    main(sys.argv[1:])
