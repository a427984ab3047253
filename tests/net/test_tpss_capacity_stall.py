#!/usr/bin/env python3
"""Two-phase slow start against a receiver that overruns (issue 13, the
paper's section 4.1, where the loss came from buffer overruns at the
receiver): member 2's tpsssrc is stopped (SIGSTOP) for 40 ms every 200 ms
with a small socket buffer (buffer-size), so whatever arrives during a stall
beyond the buffer is lost in a burst; the faster the sender, the longer the
burst. Member 1 (tpsssink fed by tpss-rate-src, media that follows the
sink's rate) starts at 1 Mbit/s; no other limit on the link.
slow-start=tpss against slow-start=traditional, one after the other, then a
reference flow at a fixed rate.

The receiver's capacity is the highest rate it takes without overrunning
(section 2.3: a rate "so small that no buffer overrun occurs"), which
depends on the kernel's buffer accounting; so the reference flow sends at
TPSS's delivered application rate / 0.9 and must overrun the receiver (lose
more than 1%): then TPSS delivered at least 90% of the capacity.
Passes when TPSS loses at most a third of the application data the
traditional slow start loses (after FEC; the paper: 5.4% vs 21.9%), and the
reference at TPSS's rate / 0.9 overruns the receiver.

Against the rate at which the receiver loses 5% (where the section 4.1
rule holds the traditional slow start) TPSS reaches about 85%, not 90%: the
loss grows slowly with the rate here (a 40 ms stall overflows a buffer), and
TPSS keeps its data below the overrun and its parity on top, which the rule
charges as loss (docs/results.md).

TPSS's rate for the reference is its delivered rate over the second half
less the time its sender's pacer skipped there (the sink's pacing-skipped):
a loaded host that holds the sender off the CPU takes that time, not TPSS.
A second half skipped more than half is left out (the test says so). A
TPSS held below the capacity still fails (its flow at max-rate=2000000:
1.96 Mbit/s paced, the reference at 2.17 Mbit/s lost 0.22%). Each
flow also prints the sink's and tpsssrc's loop-late-* and how long the
receiver's stops really lasted, to tell the host's stalls from TPSS's
(docs/results.md, "TPSS: tpss-capacity-stall under load: what fails")."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_tpss_capacity_tbf as cap  # noqa: E402

SECONDS = 20
REF_SECONDS = 8
STALL = (0.2, 0.04)          # every 200 ms, 40 ms
BUFFER = 32768               # tpsssrc's socket buffer, bytes (the kernel doubles it)
OVERRUN = 0.01               # a flow that loses more overran the receiver
# The report interval (no RTT to speak of here), as in the tbf test.
REPORT_NS = 100_000_000
# TPSS's rate is taken over the time its sender's pacer did not skip (the
# sink's pacing-skipped: departure time a loop held off the CPU longer than
# pacing-catch-up did not make up), which is the host, not TPSS. Past this
# share of the second half skipped, the rate says nothing about TPSS.
MAX_SKIPPED = 0.5


def fixed_rate_props(app_bps):
    """tpsssink settings that hold D at the rate of a fixed flow of @app_bps
    of payload (the core counts 16 bytes of header extension per packet)."""
    d = int(app_bps * (cap.PAYLOAD + 16) / cap.PAYLOAD * 1.02)
    return f"initial-rate={d} max-rate={d} increase=1.0 decrease=1.0"


def run_pair(seconds=SECONDS, ref_seconds=REF_SECONDS, reference=True):
    """TPSS, traditional, and (reference) the fixed flow at TPSS's delivered
    rate / 0.9: {"tpss": ..., "traditional": ..., "reference": ...}."""
    with netbed.NetBed() as bed:
        snd, rcv = cap.two_hosts(bed)
        rx = f"buffer-size={BUFFER}"
        res = {mode: cap.run_flow(snd, rcv, mode, seconds=seconds,
                                  rx_props=rx, stall=STALL,
                                  report_ns=REPORT_NS)
               for mode in ("tpss", "traditional")}
        if reference:
            ref = max(int(res["tpss"]["goodput_paced"] / 0.9), 100_000)
            res["reference"] = cap.run_flow(
                snd, rcv, "traditional", seconds=ref_seconds, fixed_bps=ref,
                rx_props=rx, stall=STALL, common_props=fixed_rate_props(ref),
                report_ns=REPORT_NS)
            res["reference"]["rate"] = ref
        return res


def main():
    netbed.require_or_skip()
    if not cap.RATE_SRC:
        print("SKIP: TPSS_RATE_SRC not set")
        return 77
    res = run_pair()
    ref = res.pop("reference")
    cap.report(res, ref["rate"] * 0.9)
    print(f"reference    fixed {ref['rate'] / 1e6:.2f} Mbit/s: "
          f"pushed={ref['pushed']} delivered={ref['delivered']} "
          f"lost={100 * ref['loss']:.2f}% raw-lost={ref['raw_lost']}")
    print(f"reference    loops over 0-{REF_SECONDS} s: "
          f"{cap.loop_summary(ref, 0, REF_SECONDS)}", flush=True)
    check = netbed.Checks()
    t, b = res["tpss"], res["traditional"]
    check("traditional slow start lost application data", b["loss"] > 0.01,
          f"{100 * b['loss']:.2f}%")
    check("TPSS recovered packets from parity", t["recovered"] > 0,
          f"{t['recovered']}")
    check("TPSS loses at most a third of traditional's application data",
          t["loss"] <= b["loss"] / 3,
          f"{100 * t['loss']:.2f}% vs {100 * b['loss']:.2f}% "
          f"(paper: 5.4% vs 21.9%)")
    skipped = (f"the sender's pacer skipped {t['skipped']:.2f} of "
               f"{t['span']:.1f} s")
    if t["skipped"] > MAX_SKIPPED * t["span"]:
        print(f"left out: TPSS's rate against the capacity ({skipped})")
    else:
        check("TPSS delivers at least 90% of the capacity in application "
              "data: a fixed flow at its rate / 0.9 overruns the receiver "
              "(the sender's stalls left out)",
              ref["loss"] > OVERRUN,
              f"TPSS {t['goodput_paced'] / 1e6:.2f} Mbit/s while paced "
              f"({t['goodput'] / 1e6:.2f} over the whole second half, "
              f"{skipped}); {ref['rate'] / 1e6:.2f} Mbit/s lost "
              f"{100 * ref['loss']:.2f}% (overrun: > {100 * OVERRUN:.0f}%)")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
