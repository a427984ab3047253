#!/usr/bin/env python3
"""Prints the runs here (ackjitter-PAIR-ARM.log) one a line, then the
medians per arm: forward kbit/s, and of forward's sink over 7-15 s the loop's
late turns, late s, and the diagnostic counts of this branch's build: late
turns whose deadline had passed before the work that set it returned
(overrun, overrun s), deadlines the work set before its own run (past),
late turns whose ppoll returned less than 2 ms after the due time (dispatch:
the sources dispatched first made them late) and late turns that dispatched
input (input; pairs 5 on only)."""
import ast
import glob
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("fwd", "late_turns", "late_s", "overrun", "overrun_s", "past", "dispatch", "input",
        "load")


def parse(path):
    text = open(path).read()
    res = re.search(r"RESULT vlmcc_ack_jitter \S+ rtt=\d+ min-rtt=\d+ forward=(\d+)", text)
    sink = re.search(r"vegas-delay=forward: .*sink medians (\{.*\})", text)
    if not res or not sink:
        return None
    r = ast.literal_eval(sink.group(1))
    if int(os.path.basename(path).split("-")[1]) < 5:
        r.pop("dispatch", None)   # pair 4 off ran the new script, not the new build
        r.pop("input", None)
    r["fwd"] = int(res.group(1))
    r["load"] = float(re.search(r"load average: ([\d.]+)", text).group(1))
    return r


def main():
    runs = {}
    print("| pair | arm | load | forward kbit/s | late turns / late s | overrun / overrun s | past | dispatch | input |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(HERE, "ackjitter-*.log")),
                       key=os.path.getmtime):
        pair, arm = os.path.basename(path)[:-4].split("-")[1:]
        r = parse(path)
        if not r:
            print(f"| {pair} | {arm} | - | no RESULT | | | |")
            continue
        runs.setdefault(arm, []).append(r)
        print(f"| {pair} | {arm} | {r['load']} | {r['fwd']} | {r['late_turns']} / {r['late_s']} | "
              f"{r['overrun']} / {r['overrun_s']} | {r['past']} | {r.get('dispatch', '-')} | "
              f"{r.get('input', '-')} |")
    print("\nmedians: " + ", ".join(KEYS))
    for arm, rs in sorted(runs.items()):
        print(arm, len(rs), [statistics.median(r[k] for r in rs if k in r) if any(k in r for r in rs)
                            else "-" for k in KEYS])


if __name__ == "__main__":
    main()
