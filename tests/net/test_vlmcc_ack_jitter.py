#!/usr/bin/env python3
"""VLMCC (issue 19), jitter on the ack path only: the simulator's
`vlmcc-sim ack-jitter` on real sockets. One sender and one receiver on
test_vlmcc_fig5.py's bridge; the receiver's port is a 10 Mbit/s tbf with a
100 ms drop-tail queue, the sender's packets take 20 ms more (nfq delay),
and everything the receiver sends (its acks) is held a further time
uniform in [0, JITTER_MS] (netbed's jitter, order kept), so the forward
path is as idle as without it. No other flow.

vlmccsink runs in turn with vegas-delay=rtt (the paper's Vegas: the jitter
reads as queueing), min-rtt and forward (the leader's forward queueing
delay: the jitter is not seen), each for RUN_S with a fresh receiver; the
rate at the receiver over [WARMUP_S, RUN_S) must be at least FORWARD_MIN of
the bottleneck with `forward`, at most RTT_MAX with `rtt`, and `forward`'s
at least FORWARD_OVER_RTT times `rtt`'s."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_vlmcc_fig5 as fig5  # noqa: E402

RATE = 10_000_000
JITTER_MS = 10
RUN_S, WARMUP_S = 15.0, 7.0
VARIANTS = ("rtt", "min-rtt", "forward")
# Measured in 4 runs at load 8-13 (2 cores shared): `forward` 0.59-0.89 of
# the bottleneck (under load the sender's pacing, not its window, sets
# the rate), `rtt` 0.10-0.17, min-rtt 0.21-0.32 (docs/protocols/vlmcc.md,
# "Vegas delay input").
FORWARD_MIN, RTT_MAX, FORWARD_OVER_RTT = 0.4, 0.3, 2.5


def sink_medians(tx, t0, t1):
    """Median window (packets), smoothed RTT and Vegas delay (ms) from the
    sink's stats over [t0, t1), the losses it took and its halvings there,
    and how late its loop ran there (late turns, their total in s, the
    longest in ms since the start): on a loaded host the pace, not the
    window, sets the rate."""
    span = [f for t, line in list(tx["out"]) if t0 <= t < t1
            and (f := fig5.fields(line, "s", "vlmcc-sink-stats")) and "window" in f]
    if not span:
        return None
    late = [f for f in span if "loop-late-turns" in f]
    first, last = (late[0], late[-1]) if late else ({}, {})

    def grew(key):
        return int(last.get(key, 0)) - int(first.get(key, 0))
    return dict(window=statistics.median(float(f["window"]) for f in span),
                rtt_ms=statistics.median(int(f["rtt"]) for f in span) / 1e6,
                vegas_ms=statistics.median(int(f["vegas-rtt"]) for f in span) / 1e6,
                lost=grew("lost"), halvings=grew("halvings"),
                late_turns=grew("loop-late-turns"),
                late_s=round(grew("loop-late-time") / 1e9, 3),
                late_max_ms=round(int(last.get("loop-late-max", 0)) / 1e6, 1))


def run_variant(snd, rcv, variant):
    """The session alone for RUN_S with vegas-delay=variant: (kbit/s at the
    receiver over [WARMUP_S, RUN_S), the sink's medians)."""
    rx = fig5.start_receiver(rcv)
    time.sleep(0.5)
    t0 = time.monotonic()
    tx = fig5.start_sender(snd, f"ttl-mc=4&vegas-delay={variant}")
    time.sleep(RUN_S)
    for p in (tx, rx):
        fig5.stop(p["proc"])
        for t in p["threads"]:
            t.join(5)
    rate = fig5.received_rate(rx, t0 + WARMUP_S, t0 + RUN_S)
    return (rate or 0) / 1000, sink_medians(tx, t0 + WARMUP_S, t0 + RUN_S)


def main():
    netbed.require_or_skip(nfq=True)
    check = netbed.Checks()
    kbps = {}
    with netbed.NetBed() as bed:
        br, snd, _, hosts = fig5.make_bed(bed, ["r"])
        bed.bottleneck(br, "p-r", rate_bps=RATE, latency_ms=100)
        jitter = bed.jitter(hosts["r"], "eth0", JITTER_MS)
        for variant in VARIANTS:
            kbps[variant], sink = run_variant(snd, hosts["r"], variant)
            print(f"vegas-delay={variant}: {kbps[variant]:.0f} kbit/s over "
                  f"{WARMUP_S:g}-{RUN_S:g} s; sink medians {sink}", flush=True)
        held = jitter.remove()
    check(f"the acks were held up to {JITTER_MS} ms, about half on average",
          held["passed"] > 1000 and held["jitter_max_us"] <= JITTER_MS * 1000
          and held["jitter_mean_us"] >= JITTER_MS * 400, f"nfq-impair {held}")
    fwd, paper = kbps["forward"] / (RATE / 1000), kbps["rtt"] / (RATE / 1000)
    check(f"vegas-delay=forward keeps at least {FORWARD_MIN:.0%} of the bottleneck",
          fwd >= FORWARD_MIN, f"{kbps['forward']:.0f} kbit/s of {RATE // 1000}")
    check(f"vegas-delay=rtt (the paper) falls to {RTT_MAX:.0%} or less",
          paper <= RTT_MAX, f"{kbps['rtt']:.0f} kbit/s of {RATE // 1000}")
    check(f"forward gets at least {FORWARD_OVER_RTT:g} times what rtt gets",
          kbps["forward"] >= FORWARD_OVER_RTT * kbps["rtt"],
          f"{kbps['forward']:.0f} against {kbps['rtt']:.0f} kbit/s")
    print("RESULT vlmcc_ack_jitter jitter_ms=%d %s load=%.1f" % (
        JITTER_MS, " ".join(f"{v}={kbps[v]:.0f}" for v in VARIANTS), os.getloadavg()[0]))
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
