#!/usr/bin/env python3
"""Splits each traced RMTP run of bench_rmtp_uftp.py (BENCH_RMTP_TRACE_DIR)
into its phases, beside the UFTP run of the same batch from the bench's log.

  split.py LOG TRACE_DIR [RATE bit/s, 8000000] [PACKET bytes, 1024] [MODE]

MODE (retransmit): the traces of that arm only, <...>-MODE-<run>.trace
(or .trace.xz, as committed).

Phases (ms), from the sender's interface (kernel timestamps) and the bench's
start and last EOS:
  start    the sender's launch to its first CONN (gst-launch, filesrc, the
           data set's SHA-256 before the CONN)
  conn     first CONN to first DATA (the CACKs)
  data     first to last DATA; pacer: DATA sent x (17 + PACKET) bytes at RATE
  answers  last DATA to the last NACK/ACK (EOR, answer window, any POLL)
  release  last answer to the last RACK (REL, RACK window)
  output   last RACK to the last receiver's EOS (the verified set pushed to
           filesink, gst-launch's exit)"""
import glob
import lzma
import os
import re
import statistics
import sys


def phases(path, rate, packet):
    start = end = None
    pk = []
    with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
        for ln in f:
            if ln.startswith("#"):
                _, _, start, _, end = ln.split()
                start, end = float(start), float(end)
                continue
            t, way, k, r, m = ln.split()
            pk.append((float(t), way, int(k), int(r), int(m)))
    conn = next(t for t, w, k, _, _ in pk if k == 1 and w == "out")
    data = [t for t, w, k, _, _ in pk if k == 3 and w == "out"]
    answers = [t for t, w, k, _, _ in pk if k in (5, 6) and w == "in"]
    racks = [t for t, w, k, _, _ in pk if k == 9 and w == "in"]
    polls = sum(1 for _, w, k, _, _ in pk if k == 7 and w == "out")
    pacer = len(data) * (17 + packet) * 8 / rate
    return dict(start=conn - start, conn=data[0] - conn,
                data=data[-1] - data[0], pacer=pacer,
                answers=answers[-1] - data[-1], release=racks[-1] - answers[-1],
                output=end - racks[-1], total=end - start, polls=polls,
                rounds=len({r for _, w, k, r, _ in pk if k == 3}))


def main():
    log, tdir = sys.argv[1], sys.argv[2]
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 8e6
    packet = int(sys.argv[4]) if len(sys.argv) > 4 else 1024
    mode = sys.argv[5] if len(sys.argv) > 5 else "retransmit"
    uftp = [float(m.group(1)) for m in re.finditer(
        r"uftp #\d+: ([\d.]+) s whole", open(log).read())]
    runs = [phases(p, rate, packet) for p in
            sorted(glob.glob(os.path.join(tdir, f"*-loss*-{mode}-*.trace*")),
                   key=lambda p: int(re.search(r"-(\d+)\.trace", p).group(1)))]
    keys = ("start", "conn", "data", "pacer", "answers", "release", "output",
            "total")
    print("| run | UFTP s | " + " | ".join(keys) + " (ms) | polls | RMTP - UFTP ms |")
    print("|---" * (len(keys) + 4) + "|")
    for i, r in enumerate(runs):
        u = uftp[i] if i < len(uftp) else float("nan")
        print(f"| {i + 1} | {u:.2f} | " + " | ".join(
            f"{1e3 * r[k]:.0f}" for k in keys)
            + f" | {r['polls']} | {1e3 * (r['total'] - u):.0f} |")
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    print(f"| median | {statistics.median(uftp):.2f} | " + " | ".join(
        f"{1e3 * med[k]:.0f}" for k in keys)
        + f" | {statistics.median(r['polls'] for r in runs)} | "
        f"{1e3 * (med['total'] - statistics.median(uftp)):.0f} |")


if __name__ == "__main__":
    main()
