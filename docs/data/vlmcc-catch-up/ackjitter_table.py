#!/usr/bin/env python3
"""Prints the ack-jitter runs (ackjitter-PAIR-ARM.log here) one a line and
the medians per arm: forward / min-rtt / rtt kbit/s, forward's sink (median W, Vegas delay in ms; its loop's
losses taken and halvings (pairs 7 on), late turns, late s over 7-15 s, longest late turn in ms since the start),
and the load at the start."""
import ast
import glob
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(path):
    text = open(path).read()
    res = re.search(r"RESULT vlmcc_ack_jitter \S+ rtt=(\d+) min-rtt=(\d+) forward=(\d+)", text)
    load = re.search(r"load average: ([\d.]+)", text)
    fwd = re.search(r"vegas-delay=forward: .*sink medians (\{.*\})", text)
    if not res:
        return None
    late = ast.literal_eval(fwd.group(1)) if fwd else {}
    return dict(rtt=int(res.group(1)), minrtt=int(res.group(2)), fwd=int(res.group(3)),
                load=float(load.group(1)), late_turns=late.get("late_turns"),
                late_s=late.get("late_s"), late_max_ms=late.get("late_max_ms"), window=late.get("window"),
                vegas_ms=late.get("vegas_ms"), lost=late.get("lost"),
                halvings=late.get("halvings"),
                passed="0 failed" in text)


def main():
    runs = {}
    keys = ("fwd", "minrtt", "rtt", "window", "vegas_ms", "late_turns", "late_s", "late_max_ms",
            "load")
    print("| pair | arm | load | forward / min-rtt / rtt kbit/s | forward: W / Vegas ms / lost / halvings / "
          "late turns / late s / longest ms | passed |\n|---|---|---|---|---|---|")
    logs = sorted(glob.glob(os.path.join(HERE, "ackjitter-*.log")),
                  key=lambda p: (int(p.split("-")[-2]), os.path.getmtime(p)))
    for path in logs:
        pair, arm = os.path.basename(path)[:-4].split("-")[1:]
        r = parse(path)
        if not r:
            print(f"| {pair} | {arm} | - | no RESULT | | |")
            continue
        runs.setdefault(arm, []).append(r)
        print(f"| {pair} | {arm} | {r['load']} | {r['fwd']} / {r['minrtt']} / {r['rtt']} | "
              f"{r['window']} / {r['vegas_ms']:.1f} / {r['lost']} / {r['halvings']} / {r['late_turns']} / {r['late_s']} / {r['late_max_ms']} | {r['passed']} |")
    print("\nmedians: " + ", ".join(keys))
    for arm, rs in sorted(runs.items()):
        print(arm, len(rs), [round(statistics.median(r[k] for r in rs if r[k] is not None), 3)
                             for k in keys])
    pairs = {}
    for path in logs:
        pair, arm = os.path.basename(path)[:-4].split("-")[1:]
        r = parse(path)
        if r:
            pairs.setdefault(pair, {})[arm] = r["fwd"]
    done = [p for p in pairs.values() if len(p) == 2]
    print(f"pairs: {len(done)}; on above off in {sum(p['on'] > p['off'] for p in done)}, "
          f"equal in {sum(p['on'] == p['off'] for p in done)}, below in "
          f"{sum(p['on'] < p['off'] for p in done)}")


if __name__ == "__main__":
    main()
