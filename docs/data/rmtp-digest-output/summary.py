#!/usr/bin/env python3
"""The tables of docs/results.md "RMTP: the digest taken with the data, output in large
buffers, answers first, early output (issue 20)" from this folder's bench logs and traces.

  summary.py            (run in this folder)

Per size, loss and arm: runs, the median time and its ratio to UFTP's median, and the
medians of the phases of ../rmtp-0loss-split/split.py (ms) over the arm's traced runs."""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "rmtp-0loss-split"))
from split import phases  # noqa: E402

RUN = re.compile(r"RUN n=(\d+) loss=(\d+)% (\S+) #(\d+): ([\d.]+) s whole")
# The first batches' "retransmit" ran the build's defaults of the time (drive.sh)
DEFAULTS = {("20mib", 0): "retransmit+rx-answers-first=true",
            ("100mib-1", 0): "retransmit+rx-answers-first=true",
            ("100mib-1", 10): "retransmit+rx-answers-first=false"}


def arm_of(name, batch, loss):
    if name == "retransmit":
        return DEFAULTS[(batch, loss)]
    return name


def batch_of(path):
    return re.search(r"(?:bench|traces)-([^/.]+)", path).group(1)


def fname(arm):
    return "".join(c if c.isalnum() or c in "-=." else "_" for c in arm)


def main():
    times = {}
    for log in sorted(glob.glob("bench-*.log")):
        size = "20 MiB" if "20mib" in log else "100 MiB"
        for m in RUN.finditer(open(log).read()):
            loss = int(m.group(2))
            arm = arm_of(m.group(3), batch_of(log), loss)
            times.setdefault((size, loss, arm), []).append(float(m.group(5)))
    traces = {}
    for t in glob.glob("traces-*/*.trace*"):
        size = "20 MiB" if "20mib" in t else "100 MiB"
        m = re.search(r"n\d+-loss(\d+)-(.+)-\d+\.trace", os.path.basename(t))
        loss = int(m.group(1))
        arm = fname(arm_of(m.group(2), batch_of(t), loss))
        traces.setdefault((size, loss, arm), []).append(phases(t, 8e6, 1024))
    keys = ("start", "answers", "release", "output")
    print("| size | loss | arm | runs | median s | / UFTP | "
          + " | ".join(keys) + " (ms) | POLLs |")
    print("|---" * (7 + len(keys)) + "|")
    for (size, loss, arm) in sorted(times, key=lambda k: (k[0] != "20 MiB",
                                                           k[1], k[2])):
        t = times[(size, loss, arm)]
        u = statistics.median(times[(size, loss, "uftp")])
        ph = traces.get((size, loss, fname(arm)), [])
        cells = [f"{1e3 * statistics.median(p[k] for p in ph):.0f}"
                 if ph else "-" for k in keys]
        polls = statistics.median(p["polls"] for p in ph) if ph else "-"
        print(f"| {size} | {loss} % | {arm} | {len(t)} | "
              f"{statistics.median(t):.2f} | {statistics.median(t) / u:.4f} | "
              + " | ".join(cells) + f" | {polls} |")


if __name__ == "__main__":
    main()
