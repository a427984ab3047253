#!/usr/bin/env python3
"""TPSS's join check on the bed (issue 21): member 2 joins member 1 by HELLO.
Member 1 (tpsssink, live audio) lists only itself and allows joins; member
2 (tpsssrc) lists both, so its HELLOs reach member 1. Each link direction
is delayed DELAY_MS. With join-check (the default) member 1 answers the
first HELLO with a cookie, member 2 echoes it, and member 1 posts
tpss-member-joined one round trip later than with join-check=false; in
both, member 2's fakesink gets media.

The join time is from member 2's start (its process spawned) to member 1's
tpss-member-joined line, so it includes member 2's start-up; RUNS runs per
arm alternate, and the medians are printed. Passes when every run joins and
delivers, and the checked median exceeds the unchecked one by at least
half a round trip (the check costs one)."""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
DELAY_MS = 100
RUNS = 3
WAIT = 5.0
SENDER = ("gst-launch-1.0 -m audiotestsrc is-live=true ! "
          "audio/x-raw,rate=8000,channels=1 ! rtpL16pay ! "
          "tpsssink port={port} member-id=1 members=1@{ip1}:{port} "
          "join-check={check}")
RECEIVER = ("gst-launch-1.0 -v tpsssrc port={port} member-id=2 "
            "members=1@{ip1}:{port},2@{ip2}:{port} "
            "caps=application/x-rtp,media=audio,clock-rate=8000,"
            "encoding-name=L16,channels=1 ! fakesink silent=false")


def wait_for(lines, text, timeout):
    """Monotonic time of the first line holding text, or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = lines.readline(end - time.monotonic())
        if line is None:
            return None
        if text in line:
            return time.monotonic()
    return None


def run_once(m1, m2, ip1, ip2, check):
    """(seconds from member 2's start to member 1's member-joined or None,
    whether member 2's pad appeared)."""
    env = dict(os.environ, GST_DEBUG="0")
    tx = m1.popen(["stdbuf", "-oL"] + SENDER.format(port=PORT, ip1=ip1, check=check).split(),
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    tx_lines = netbed._Lines(tx.stdout)
    wait_for(tx_lines, "Setting pipeline to PLAYING", WAIT)
    time.sleep(0.5)
    t0 = time.monotonic()
    rx = m2.popen(["stdbuf", "-oL"] + RECEIVER.format(port=PORT, ip1=ip1, ip2=ip2).split(),
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    rx_lines = netbed._Lines(rx.stdout)
    joined = wait_for(tx_lines, "tpss-member-joined", WAIT)
    pad = wait_for(rx_lines, "last-message = chain", WAIT) is not None
    for p in (rx, tx):
        netbed.interrupt(p, timeout=5)
    return (joined - t0 if joined else None), pad


def main():
    netbed.require_or_skip(nfq=True)
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        m1, m2 = bed.host("m1"), bed.host("m2")
        if1, if2 = bed.link(m1, m2, "10.77.32.1/24", "10.77.32.2/24")
        bed.delay(m1, if1, DELAY_MS)
        bed.delay(m2, if2, DELAY_MS)
        times = {"true": [], "false": []}
        pads = []
        for _ in range(RUNS):
            for arm in ("false", "true"):
                t, pad = run_once(m1, m2, "10.77.32.1", "10.77.32.2", arm)
                times[arm].append(t)
                pads.append(pad)
                print(f"join-check={arm}: joined after "
                      f"{'never' if t is None else f'{t * 1000:.0f} ms'}, media {pad}")
        ok = all(t is not None for v in times.values() for t in v)
        check("every run joins", ok, times)
        check("member 2 gets media in every run", all(pads), pads)
        if ok:
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"median join time: join-check=false {med['false'] * 1000:.0f} ms, "
                  f"join-check=true {med['true'] * 1000:.0f} ms "
                  f"(one-way delay {DELAY_MS} ms); load {os.getloadavg()}")
            check("the check costs about one round trip",
                  med["true"] - med["false"] >= DELAY_MS / 1000, med)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
