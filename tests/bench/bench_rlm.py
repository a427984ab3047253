#!/usr/bin/env python3
"""RLM (issue 18): the paper's metrics, worst-case loss over 1, 10 and 100 s
windows and convergence time, on the namespace bed and in the simulator.

1. Simulator against bed at small N: rlm-sim -B (the bed's layers, packet
   size, tbf queue and prune latency) for topologies (1) and (3) over several
   seeds, with the bridge's 2 s prune and with fast leave (prune 0).
2. The namespace bed (needs root, else this part is skipped): topologies (1)
   and (3) of tests/net/test_rlm_single.py / test_rlm_two_sets.py, 70 s
   runs, with the bridge's default leave (IGMPv3 group-specific queries,
   about 2 s) and with fast leave on the receiver ports; the metrics are
   computed from rlmsrc's stats (every 250 ms) exactly as the simulator
   computes them from its packet bins.
3. The simulator sweep: topologies (2), (3) and (4), 10 to 1000 receivers,
   the paper's settings, 600 s; SVG plots like the paper's Figures 10, 11
   and 13 into BENCH_RLM_IMG (docs/img by default).
4. The goals (20 s, 1 %): what holds them back, in the simulator and on the
   bed (fast leave, start-level).

Environment: BENCH_RLM_RUNS (bed runs per case, 2), BENCH_RLM_SEEDS
(simulator seeds, "1,2"), BENCH_RLM_N ("10,32,100,316,1000"), BENCH_RLM_N3
and BENCH_RLM_N4 (topology 3's and 4's, BENCH_RLM_N by default; empty
leaves the topology out),
BENCH_RLM_SECONDS (sweep duration, 600), BENCH_RLM_PARTS
("compare,bed,goals,sweep"; without "bed" the bed is not used),
RLM_SIM (the rlm-sim binary), BENCH_RLM_CACHE (a directory keeping each
simulator run's output by its arguments)."""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))

from svgplot import svg_plot  # noqa: E402

WINDOWS = (1.0, 10.0, 100.0)


def env_list(name, default, conv=int):
    return [conv(x) for x in os.environ.get(name, default).split(",") if x]


# ---------------------------------------------------------------- simulator

def sim_output(args):
    """rlm-sim's output for @args; kept in BENCH_RLM_CACHE (a directory)
    when set, so that a sweep can be redone, or its plots redrawn, without
    rerunning the runs it has (a run is exact: same arguments, same
    output)."""
    exe = os.environ.get("RLM_SIM", "rlm-sim")
    cache = os.environ.get("BENCH_RLM_CACHE")
    path = None
    if cache:
        os.makedirs(cache, exist_ok=True)
        path = os.path.join(cache, "_".join(str(a) for a in args) + ".txt")
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
    out = subprocess.run(["nice", exe] + [str(a) for a in args], check=True,
                         capture_output=True, text=True).stdout
    if path:
        with open(path + ".part", "w") as f:
            f.write(out)
        os.replace(path + ".part", path)
    return out


def run_sim(args):
    """Runs rlm-sim; returns (per-receiver rows, summary dict)."""
    out = sim_output(args)
    rows = []
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        rows.append(dict(level=int(f[1]), optimal=int(f[2]), conv=float(f[3]),
                         loss=[float(f[5]), float(f[6]), float(f[7])]))
    worst = [max(r["loss"][w] for r in rows) for w in range(3)]
    convs = [r["conv"] for r in rows]
    return rows, dict(worst=worst, slowest=max(convs),
                      median_conv=statistics.median(c for c in convs if c >= 0)
                      if any(c >= 0 for c in convs) else -1,
                      unconverged=sum(c < 0 for c in convs))


# -------------------------------------------------------------------- bed

def worst_window_loss(st, t_start, window):
    """Worst loss fraction over any window of `window` s from the stats
    samples [(t, fields)], all layers together; the whole run's fraction
    when no window fits (as the simulator does)."""
    pts = [(t, sum(f["layer-lost"]), sum(f["layer-received"]))
           for t, f in st if t >= t_start and "layer-lost" in f]
    if len(pts) < 2:
        return None
    if pts[-1][0] - pts[0][0] < window:
        lost, got = pts[-1][1] - pts[0][1], pts[-1][2] - pts[0][2]
        return lost / max(1, lost + got)
    worst, j = 0.0, 0
    for i in range(len(pts)):
        while pts[i][0] - pts[j + 1][0] >= window:
            j += 1
        if pts[i][0] - pts[j][0] >= window:
            lost = pts[i][1] - pts[j][1]
            got = pts[i][2] - pts[j][2]
            if lost + got:
                worst = max(worst, lost / (lost + got))
    return worst


def bed_run(topology, fast_leave, start_level=1):
    """One 70 s run on the bed; [(receiver, best, convergence s, [loss per
    window])]. With @start_level > 1 each receiver starts at the lower of
    it and its best level (what it learned in an earlier session)."""
    import netbed
    import test_rlm_single as rlm
    sets = {"r1": (rlm.B, 3)} if topology == 1 else \
        {"fast": (rlm.B, 3), "slow": (rlm.B // 2, 2)}
    with netbed.NetBed() as bed:
        br, snd, hosts = rlm.make_bed(bed, list(sets))
        for name, (rate, _) in sets.items():
            bed.bottleneck(br, f"p-{name}", rate_bps=rate,
                           latency_ms=rlm.LATENCY_MS)
            if fast_leave:
                # one host per port: drop the group at once on its leave
                br.run(["ip", "link", "set", "dev", f"p-{name}", "type",
                        "bridge_slave", "fastleave", "on"])
        counter = rlm.GroupCounter(list(hosts.values())[-1])
        holds = [rlm.hold_base_group(h) for h in hosts.values()]
        if rlm.wait_snooping(snd, counter) is None:
            print("  the bridge did not start forwarding by membership")
        counter.close()
        t0 = time.monotonic()
        rxs = {name: rlm.start_receiver(
            h, f"start-level={min(start_level, sets[name][1])}")
            for name, h in hosts.items()}
        rlm.wait_members(br, [f"p-{n}" for n in sets])
        tx = rlm.start_sender(snd)
        time.sleep(rlm.SECONDS)
        for rx in rxs.values():
            rlm.stop(rx["proc"])
        rlm.stop(tx)
        for h in holds:
            h.close()
        out = []
        for name, (_, best) in sets.items():
            for t in rxs[name]["threads"]:
                t.join(5)
            lv, st = rlm.levels(rxs[name]), rlm.stats(rxs[name])
            conv = rlm.convergence(lv, best, t0)
            out.append((name, best, conv,
                        [worst_window_loss(st, t0, w) for w in WINDOWS]))
        return out


def bed_available():
    import netbed
    reason = netbed.missing(False)
    if reason:
        print(f"bed skipped: {reason}")
    return not reason


# ------------------------------------------------------------------ output

def pct(x):
    return "–" if x is None else f"{100 * x:.2f} %"


def secs(x):
    return "not converged" if x is None or x < 0 else f"{x:.1f} s"


def med(xs):
    xs = [x for x in xs if x is not None and x >= 0]
    return statistics.median(xs) if xs else None


def compare(seeds, runs, bed_ok):
    print("## Simulator (rlm-sim -B) against the bed, small N\n")
    print("| topology, receiver | prune | where | runs | convergence, "
          "median (range) | worst 1 s | worst 10 s | worst 100 s (= run) |")
    print("|---|---|---|---|---|---|---|---|")
    for topology in (1, 3):
        for fast in (False, True):
            prune = "fast leave" if fast else "2 s (queries)"
            args = ["-B", "-t", topology, "-n", 2 if topology == 3 else 1,
                    "-P", 0 if fast else 2000]
            per_rx = {}
            for s in seeds:
                rows, _ = run_sim(args + ["-s", s])
                for i, r in enumerate(rows):
                    per_rx.setdefault(i, []).append((r["conv"], r["loss"]))
            bed = {}
            for _ in range(runs if bed_ok else 0):
                for i, (name, best, conv, loss) in enumerate(
                        bed_run(topology, fast)):
                    bed.setdefault(i, []).append((conv, loss))
            for i in sorted(per_rx):
                label = f"({topology})" + ("" if topology == 1 else
                                           [" fast", " slow"][i])
                for where, res in (("sim", per_rx[i]), ("bed", bed.get(i))):
                    if not res:
                        continue
                    cs = [c if c is None or c >= 0 else None for c, _ in res]
                    ok = [c for c in cs if c is not None]
                    rng = f"{min(ok):.1f}–{max(ok):.1f}" if ok else "–"
                    ls = [med([lo[w] for _, lo in res]) for w in range(3)]
                    print(f"| {label} | {prune} | {where} | {len(res)} | "
                          f"{secs(med(cs))} ({rng}) | {pct(ls[0])} | "
                          f"{pct(ls[1])} | {pct(ls[2])} |")
            sys.stdout.flush()
    print()


def goals(seeds, runs, bed_ok, seconds):
    """What holds the goals (20 s, 1 %) back: the paper's receivers against
    the same ones all starting at once (-S: no newcomers' experiments
    suppress the others' climb) and against receivers that start at the
    level learned in an earlier session (-j 0, start_level) or that join up
    to the lowest level the session reports as settled (-R, join_reported;
    in (3) also with one receiver of 100 behind the slower link, -k 100);
    on the bed, fast leave and start-level."""
    print("## The goals: convergence within 20 s, loss over 100 s at most "
          "1 %\n")
    print("| case | N | worst 1 s | worst 10 s | worst 100 s | median "
          "convergence | slowest |")
    print("|---|---|---|---|---|---|---|")
    cases = [("sim (1), paper", ["-t", 1], [1]),
             ("sim (2), paper", ["-t", 2], [10, 100, 1000]),
             ("sim (2), all start at 0 s", ["-t", 2, "-S"], [10, 100, 1000]),
             ("sim (2), start_level learned", ["-t", 2, "-j", 0],
              [10, 100, 1000]),
             ("sim (2), join_reported", ["-t", 2, "-R"], [10, 100, 1000]),
             ("sim (3), paper", ["-t", 3], [10, 100, 1000]),
             ("sim (3), join_reported", ["-t", 3, "-R"], [10, 100, 1000]),
             ("sim (3), one slower than all, paper", ["-t", 3, "-k", 100],
              [100]),
             ("sim (3), one slower than all, join_reported",
              ["-t", 3, "-k", 100, "-R"], [100]),
             ("sim (4), start_level learned", ["-t", 4, "-j", 0], [10, 100]),
             ("sim bed profile, fast leave", ["-B", "-P", 0], [1]),
             ("sim bed profile, fast leave, start_level 3",
              ["-B", "-P", 0, "-j", 3], [1])]
    for label, args, ns in cases:
        for n in ns:
            res = [run_sim(args + ["-n", n, "-s", s] +
                           ([] if "-B" in args else ["-d", seconds]))
                   for s in seeds]
            worst = [max(r[1]["worst"][w] for r in res) for w in range(3)]
            convs = [row["conv"] for rows, _ in res for row in rows]
            print(f"| {label} | {n} | {pct(worst[0])} | {pct(worst[1])} | "
                  f"{pct(worst[2])} | {secs(med(convs))} | "
                  f"{secs(max(convs))} |")
            sys.stdout.flush()
    for fast, level in ((True, 1), (True, 3)):
        res = [r for _ in range(runs if bed_ok else 0)
               for r in bed_run(1, fast, level)]
        if res:
            worst = [max(r[3][w] for r in res) for w in range(3)]
            convs = [r[2] for r in res]
            print(f"| bed (1), fast leave, start-level {level} | 1 | "
                  f"{pct(worst[0])} | {pct(worst[1])} | {pct(worst[2])} | "
                  f"{secs(med(convs))} | "
                  f"{secs(max(c if c is not None else -1 for c in convs))} |")
    print()


def sweep(ns_by_topology, seeds, seconds):
    print(f"## Simulator sweep, paper settings, {seconds} s "
          f"(seeds {','.join(map(str, seeds))})\n")
    print("| topology | N | worst 1 s | worst 10 s | worst 100 s | "
          "median convergence | slowest | below optimal at end |")
    print("|---|---|---|---|---|---|---|---|")
    res = {}
    for topology, ns in ns_by_topology.items():
        for n in ns:
            agg = []
            for s in seeds:
                rows, summ = run_sim(["-t", topology, "-n", n, "-d", seconds,
                                      "-s", s])
                agg.append((rows, summ))
            worst = [max(a[1]["worst"][w] for a in agg) for w in range(3)]
            convs = [r["conv"] for rows, _ in agg for r in rows]
            unconv = sum(a[1]["unconverged"] for a in agg)
            res[(topology, n)] = dict(worst=worst, convs=convs)
            print(f"| ({topology}) | {n} | {pct(worst[0])} | {pct(worst[1])} "
                  f"| {pct(worst[2])} | {secs(med(convs))} | "
                  f"{secs(max(convs))} | {unconv} of {n * len(seeds)} |")
            sys.stdout.flush()
    print()
    return res


def plots(res, ns_by_topology, img):
    os.makedirs(img, exist_ok=True)
    for topology, fig in ((2, 10), (3, 12), (4, 13)):
        ns = ns_by_topology.get(topology)
        if not ns:
            continue
        series = [(f"{int(w)} s window",
                   [(n, 100 * res[(topology, n)]["worst"][k]) for n in ns],
                   "line") for k, w in enumerate(WINDOWS)]
        svg_plot(os.path.join(img, f"rlm-fig{fig}-loss-topology{topology}.svg"),
                 f"RLM sim, topology ({topology}): worst-case loss",
                 "receivers (log)", "worst loss over window (%, log)", series,
                 ylog=True)
    for topology, ns in ns_by_topology.items():
        pts = [(n, c) for n in ns for c in res[(topology, n)]["convs"]
               if c > 0]
        svg_plot(os.path.join(img, f"rlm-fig11-convergence-topology"
                              f"{topology}.svg"),
                 f"RLM sim, topology ({topology}): convergence",
                 "receivers (log)", "convergence time (s, log)",
                 [("each receiver", pts, "dots"),
                  ("median", [(n, med(res[(topology, n)]["convs"]) or 0)
                              for n in ns], "line")], ylog=True)


def main():
    parts = os.environ.get("BENCH_RLM_PARTS",
                           "compare,bed,goals,sweep").split(",")
    seeds = env_list("BENCH_RLM_SEEDS", "1,2")
    ns = env_list("BENCH_RLM_N", "10,32,100,316,1000")
    # topology (4) at 1000 sessions: about 3 CPU minutes, but 15-30 minutes
    # on this machine under load
    ns3 = env_list("BENCH_RLM_N3", ",".join(map(str, ns)))
    ns4 = env_list("BENCH_RLM_N4", ",".join(map(str, ns)))
    runs = int(os.environ.get("BENCH_RLM_RUNS", "2"))
    seconds = int(os.environ.get("BENCH_RLM_SECONDS", "600"))
    img = os.environ.get("BENCH_RLM_IMG",
                         os.path.join(HERE, "..", "..", "docs", "img"))
    bed_ok = "bed" in parts and bed_available()
    if "bed" in parts and not bed_ok:
        print("namespace bed not available (needs root): simulator only")
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
    if "compare" in parts:
        compare(env_list("BENCH_RLM_SEEDS", "1,2,3,4,5"), runs, bed_ok)
    if "goals" in parts:
        goals(seeds, runs, bed_ok, seconds)
    if "sweep" in parts:
        ns_by_topology = {t: n for t, n in ((2, ns), (3, ns3), (4, ns4))
                          if n}
        res = sweep(ns_by_topology, seeds, seconds)
        plots(res, ns_by_topology, img)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
