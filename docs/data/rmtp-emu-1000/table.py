#!/usr/bin/env python3
"""Medians of the runs in this directory (run.sh), one row a cell:
mode | loss | time, median (runs) | late/duplicates/sink-socket drops a run |
POLLs a run | rounds a run | DATA resent | PARITY sent | empty rounds |
verified a run | CPU user + sys | load range | max timer lag a run, s |
max fan-out of one datagram a run, s | runs that exited 0."""
import glob, os, re, statistics, sys
HERE = os.path.dirname(os.path.abspath(__file__))
cells = {}
for f in sorted(glob.glob(os.path.join(HERE, "p*-l*-s*.txt"))):
    m = re.match(r"p(\d+)-l([\d.]+)-s(\d+)\.txt", os.path.basename(f))
    kv, row, cpu, load = {}, None, {}, []
    for line in open(f):
        if line.startswith("# n="):
            kv = dict(x.split("=", 1) for x in line[2:].split())
        elif line.startswith("# exit="):
            kv["exit"] = line.split("=")[1].strip()
        elif line.startswith("# cpu"):
            cpu = dict(x.split("=", 1) for x in line[6:].split())
        elif line.startswith("# uptime"):
            load.append(float(line.split("average:")[1].split(",")[0]))
        elif "| emu |" in line:
            row = [x.strip() for x in line.strip().strip("|").split("|")]
    cells.setdefault((int(m[1]), float(m[2])), []).append((m[3], kv, row, cpu, load))
for (p, l), runs in sorted(cells.items(), key=lambda c: (c[0][1], c[0][0])):
    ok = [r for r in runs if r[1]]
    if not ok:
        print(f"| {'retransmit' if p == 0 else f'parity {p}'} | {l:.0%} | "
              "not run |")
        continue
    t = [float(r[1]["time"]) for r in ok]
    def med(key, src=1):
        v = [float(r[src][key]) for r in ok if key in r[src]]
        return statistics.median(v) if v else float("nan")
    polls = [int(r[2][8]) for r in ok]
    rounds = [int(r[2][9]) for r in ok]
    print(f"| {'retransmit' if p == 0 else f'parity {p}'} | {l:.0%} | "
          f"{statistics.median(t) if t else float('nan'):.2f} s "
          f"({', '.join(f'{x:.2f}' for x in t)}) | "
          f"{', '.join(r[1].get('late', '?') + '/' + r[1].get('duplicates', '?') + '/' + r[1].get('sink-socket-drops', '?') for r in ok)} | "
          f"{', '.join(map(str, polls))} | {', '.join(map(str, rounds))} | "
          f"{med('data-resent'):.0f} | {med('parity-sent'):.0f} | "
          f"{med('empty-rounds'):.0f} | "
          f"{', '.join(r[1].get('verified', '?') for r in ok)} | "
          f"{med('user', 3):.1f} + {med('sys', 3):.1f} s | "
          f"{min(x for r in ok for x in r[4]):.0f}-{max(x for r in ok for x in r[4]):.0f} | "
          f"{', '.join(r[1].get('max-timer-lag', '-') for r in ok)} | "
          f"{', '.join(r[1].get('max-fanout', '-') for r in ok)} | "
          f"{sum(r[1].get('exit', '1') == '0' for r in ok)}/{len(ok)} |")
