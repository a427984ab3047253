#!/usr/bin/env python3
"""The paper's Figure 8 group (section 4.2, Table 2) in four namespaces on a
bridge, as a unicast mesh: p1, p2 and p3 send to everyone (tpsssink +
tpsssrc), p4 only receives (tpsssrc alone). Each sender offers a fixed load
(L16 audio, 500 packets/s, about 1.7 Mbit/s on the wire); p4's
max-receive-rate (3.5 Mbit/s) is, as in the paper, above what p2 alone
offers and below the total offered (5.1 Mbit/s), and p4 gives p2 the highest
priority, so p1 and p3 share the remainder (about 0.9 Mbit/s each, ~47% cut;
the paper: 23.5% and 3.1%, with unequal loads). At 4.25 Mbit/s the feedback
baseline happens to spare p2 too, so the p2 comparison would not
discriminate. With control=notification (NQCP) p4 allocates its
capacity by priority, so p2's packets are delivered and p1's and p3's are
the ones cut; with control=feedback (the baseline) admission is first come,
first served and every sender is cut by loss feedback.
Passes when p2's loss at p4 is lower with notification than with feedback
(the paper: 5.0% vs 12.7%), p2 gets at least its offered rate delivered
at p4 with notification (the paper's "p2 would like to send at 100 Mbps"),
p4's admission refused none of p2's packets with notification,
and p1 and p3 are cut but not starved with notification (each delivers at
least half its fair share of the capacity p2 leaves, about 27% of what it
offers; a high-priority grant that claimed the whole capacity would leave
them ~7%). Measured: ~40% lost here, up to ~60% on a slower CI machine.

run_group() is also used by tests/bench/bench-tpss-tables.py."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
from test_tpss_burst_loss import parse_stats, gst  # noqa: E402

PORT = 5004
SECONDS = 12
PPS = 500                    # 48 kHz stereo L16, 2 ms per packet
CAPACITY = 3_500_000         # p4's max-receive-rate, bits/s: above p2's 1.7, below the 5.1 offered
WIRE_RATE = PPS * (384 + 12 + 8 + 20) * 8   # one sender's L16 packets with RTP/UDP/IP headers, bits/s
# Fraction of its offer p1 (or p3) gets when it and p3 split what p2 leaves.
FAIR_REMAINDER = (CAPACITY - WIRE_RATE) / 2 / WIRE_RATE
# Table 2 of the paper: average packet loss at p4, percent.
PAPER = {1: {"notification": 23.5, "feedback": 15.5},
         2: {"notification": 5.0, "feedback": 12.7},
         3: {"notification": 3.1, "feedback": 4.2}}
CAPS = ("application/x-rtp,media=audio,clock-rate=48000,encoding-name=L16,"
        "channels=2")


def run_mode(hosts, control, seconds=SECONDS):
    """One run; returns {sender id: dict(offered, delivered, lost, loss,
    not_delivered, rate)} as seen at p4, and the senders' queue drops."""
    n = seconds * PPS
    members = ",".join(f"{i}@{h.ip}:{PORT}" for i, h in hosts.items())
    common = (f"members={members} control={control} initial-rate=2500000 "
              f"max-queue-bytes=200000 min-report-interval=100000000")
    procs = {}
    # p4: receive only, capacity below the offered total, p2 first.
    procs[4] = hosts[4].popen(gst(
        f"-m tpsssrc name=s port={PORT} member-id=4 {common} "
        f"max-receive-rate={CAPACITY} delivery=priority priorities=2:10 "
        f"stats-interval=250000000 caps=\"{CAPS}\" "
        + " ".join(f"s.src_{i} ! fakesink sync=false async=false"
                   for i in (1, 2, 3))),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    for i in (1, 2, 3):
        others = " ".join(f"r.src_{j} ! fakesink sync=false async=false"
                          for j in (1, 2, 3) if j != i)
        procs[i] = hosts[i].popen(gst(
            f"-m audiotestsrc is-live=true num-buffers={n} samplesperbuffer=96 "
            f"! audio/x-raw,rate=48000,channels=2 ! rtpL16pay ! "
            f"tpsssink name=k port={PORT} member-id={i} {common} "
            f"stats-interval=500000000 "
            f"tpsssrc name=r port={PORT} member-id={i} {common} "
            f"caps=\"{CAPS}\" {others}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds + 2.0)
    outs = {}
    for i in (1, 2, 3, 4):
        procs[i].send_signal(signal.SIGINT)
    for i in (1, 2, 3, 4):
        try:
            outs[i], _ = procs[i].communicate(timeout=20)
        except subprocess.TimeoutExpired:
            procs[i].kill()
            outs[i], _ = procs[i].communicate()
    _, at_p4 = parse_stats(outs[4])
    res = {}
    for i in (1, 2, 3):
        m = at_p4.get(i, {})
        sess, _ = parse_stats(outs[i])
        delivered = m.get("packets-delivered", 0)
        res[i] = dict(offered=n, delivered=delivered, lost=n - delivered,
                      loss=(n - delivered) / n,
                      not_delivered=m.get("packets-not-delivered", 0),
                      rate=m.get("receive-rate", 0),
                      allocated=m.get("allocated-rate", 0),
                      queue_dropped=sess.get("queue-dropped", 0))
    return res


def run_group(seconds=SECONDS):
    with netbed.NetBed() as bed:
        br = bed.bridge("br")
        hosts = {i: bed.host(f"p{i}") for i in (1, 2, 3, 4)}
        for i, h in hosts.items():
            bed.attach(h, br, f"10.77.2.{i}/24")
        return {c: run_mode(hosts, c, seconds)
                for c in ("notification", "feedback")}


def main():
    netbed.require_or_skip()
    res = run_group()
    failed = passed = 0
    for control, r in res.items():
        for i, s in r.items():
            print(f"{control:12s} p{i}->p4 offered={s['offered']} "
                  f"delivered={s['delivered']} lost={s['lost']} "
                  f"({100 * s['loss']:.1f}%) not-delivered={s['not_delivered']} "
                  f"sender-queue-dropped={s['queue_dropped']} "
                  f"last-rate={s['rate']} allocated={s['allocated']}")

    def check(name, ok, detail):
        nonlocal failed, passed
        print(f"{'ok' if ok else 'FAIL'}: {name}: {detail}")
        failed += not ok
        passed += bool(ok)

    n, f = res["notification"], res["feedback"]
    check("p4 received from every sender in both runs",
          all(r[i]["delivered"] > 0 for r in (n, f) for i in (1, 2, 3)), "")
    check("p4 was overloaded (something not delivered or cut)",
          sum(f[i]["lost"] for i in (1, 2, 3)) > 0, "")
    check("p2's loss at p4 lower with notification than with feedback",
          n[2]["loss"] < f[2]["loss"],
          f"{100 * n[2]['loss']:.1f}% vs {100 * f[2]['loss']:.1f}% "
          f"(paper: 5.0% vs 12.7%)")
    check("p2 got (nearly) all it offered at p4 with notification",
          n[2]["loss"] <= 0.05, f"{100 * n[2]['loss']:.1f}% lost")
    # Issue 13: per-slot admission without a burst allowance refused
    # 0.4-1.3% of p2's packets that the wire had delivered.
    check("admission refused none of p2's packets with notification",
          n[2]["not_delivered"] == 0, f"not-delivered={n[2]['not_delivered']}")
    for i in (1, 3):
        check(f"p{i} cut but not starved at p4 with notification",
              0 < n[i]["lost"] and
              1 - n[i]["loss"] >= FAIR_REMAINDER / 2,
              f"{100 * n[i]['loss']:.1f}% lost, fair share of the remainder "
              f"{100 * (1 - FAIR_REMAINDER):.0f}% lost (paper: "
              f"{PAPER[i]['notification']:.1f}%)")
    print("Table 2 at p4 (ours; paper):")
    print(f"{'':4s}{'':24s}{'notification':>28s}{'feedback':>28s}")
    for i in (1, 2, 3):
        for label, key in (("# of packets delivered", "delivered"),
                           ("# of packets lost", "lost")):
            print(f"p{i:<3d}{label:24s}" + "".join(
                f"{r[i][key]:>14d}{'':14s}" for r in (n, f)))
        print(f"p{i:<3d}{'(average packet loss)':24s}" + "".join(
            f"{100 * r[i]['loss']:>13.1f}%{PAPER[i][c]:>13.1f}%"
            for c, r in (("notification", n), ("feedback", f))))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
