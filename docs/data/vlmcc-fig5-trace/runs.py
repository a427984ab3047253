"""What the other scripts read from the runs run.sh left (RUNS, default
/tmp/h102/runs: one folder a run with out.txt, stats.txt and load.txt)."""
import glob
import os
import re

RUNS = os.environ.get("RUNS", "/tmp/h102/runs")
R2 = re.compile(r"r2: kbit/s before / with / after TCP: \[(\d+), (\d+), (\d+)\]")


def sink_rows(path):
    """The sink's stats lines in a stats.txt: (seconds, fields)."""
    rows = []
    for line in open(path):
        p = line.split()
        if p[0] != "sink":
            continue
        f = dict(kv.split("=", 1) for kv in p[2:] if "=" in kv)
        if "sent" in f:
            rows.append((float(p[1]), f))
    return rows


def runs(ordered=True):
    """(folder, the test's output, its r2 match) of every run that printed
    r2's rates."""
    dirs = glob.glob(RUNS + "/*")
    for d in sorted(dirs) if ordered else dirs:
        out = open(d + "/out.txt").read()
        m = R2.search(out)
        if m:
            yield d, out, m
