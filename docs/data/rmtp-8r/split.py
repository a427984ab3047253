#!/usr/bin/env python3
"""Splits each RMTP run of bench_rmtp_uftp.py logs into the pacer's time for
the DATA sent (2048 + resent packets of 17 + 1024 bytes at 8 Mbit/s), the
sink's other time (CONN, round answers, release: sink-conn-to-end minus the
pacer's), and the time outside the sink (gst-launch start, the last
receiver's EOS); prints medians per point and mode with the ratio of the
median time to the ARQ bound. Usage: split.py LOG..."""
import re
import statistics
import sys

LINE = 2097152 * 8 / 8e6


def sends(n, p):
    """Expected sends of a packet until all n receivers have it (the bench's
    ARQ bound over the line time)."""
    return sum(1 - (1 - p ** k) ** n for k in range(200))


RUN = re.compile(r"RUN n=(\d+) loss=(\d+)% (\S+) #\d+: ([\d.]+) s whole .*?"
                 r"sink-conn-to-end=([\d.]+) rounds=(\d+) resent=(\d+)")
rows = {}
for path in sys.argv[1:]:
    for m in RUN.finditer(open(path).read()):
        n, loss, mode, took, sink, rounds, resent = m.groups()
        pacer = (2048 + int(resent)) * 1041 * 8 / 8e6
        rows.setdefault((int(loss), mode), []).append(
            (float(took), pacer, float(sink) - pacer, float(took) - float(sink),
             int(rounds), int(resent)))
UFTP = re.compile(r"RUN n=\d+ loss=(\d+)% uftp #\d+: ([\d.]+) s whole")
uftp = {}
for path in sys.argv[1:]:
    for m in UFTP.finditer(open(path).read()):
        uftp.setdefault(int(m.group(1)), []).append(float(m.group(2)))
for loss, ts in sorted(uftp.items()):
    print(f"UFTP {loss} %: {len(ts)} runs, median {statistics.median(ts):.2f} s "
          f"({min(ts):.2f}-{max(ts):.2f})")
print("| loss | mode | runs | time | x ARQ bound | x UFTP | pacer | sink's other | outside sink | rounds | resent |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (loss, mode), rs in sorted(rows.items()):
    med = [statistics.median(r[i] for r in rs) for i in range(6)]
    vs = f"{med[0] / statistics.median(uftp[loss]):.2f}" if loss in uftp else "-"
    print(f"| {loss} % | {mode} | {len(rs)} | {med[0]:.2f} s ({min(r[0] for r in rs):.2f}-"
          f"{max(r[0] for r in rs):.2f}) | {med[0] / (LINE * sends(8, loss / 100)):.3f} "
          f"(max {max(r[0] for r in rs) / (LINE * sends(8, loss / 100)):.3f}) | {vs} | {med[1]:.3f} s | "
          f"{1e3 * med[2]:.0f} ms | {1e3 * med[3]:.0f} ms | {med[4]:.0f} | {med[5]:.0f} |")

# the traced runs (BENCH_RMTP_TRACE=1): where each run's time went
TRACE = re.compile(r"RUN .*? #(\d+): ([\d.]+) s .*?polls=(\d+)\n  trace: (.*)")
traced = [m for path in sys.argv[1:] for m in TRACE.finditer(open(path).read())]
if traced:
    print("\n| run | time | launch to CONN | CONN to first DATA | DATA behind the pacer "
          "| waits between rounds | release | last RACK to last EOS | POLLs |")
    print("|---|---|---|---|---|---|---|---|---|")


def ms(values):
    return f"{values[0]:.0f} ms" if values else "-"


for m in traced:
    run, took, polls, line = m.groups()

    def num(pat):
        return [float(x) for x in re.findall(pat, line)]
    behind = sum(a - b for a, b in zip(num(r"DATA (\d+)/"), num(r"DATA \d+/(\d+) ms")))
    waits = sum(num(r"next DATA [+](\d+)"))
    print(f"| {run} | {float(took):.2f} s | {ms(num(r'launch to CONN (-?[0-9]+)'))} | "
          f"{ms(num(r'conn ([0-9]+)'))} | {behind:+.0f} ms | {waits:.0f} ms | "
          f"{ms(num(r'release ([0-9]+)'))} | {ms(num(r'last EOS (-?[0-9]+)'))} | {polls} |")
