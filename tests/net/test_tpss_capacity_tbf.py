#!/usr/bin/env python3
"""Two-phase slow start against a capacity (issue 13, the paper's section 2
and 4.1): member 1 (tpsssink fed by tpss-rate-src, media that follows the
sink's `bitrate` as a rate-following encoder does) streams to member 2
(tpsssrc) through a token bucket (tbf, 6 Mbit/s, 50 ms queue) on the
sender's link; both start at 1 Mbit/s and climb by the section 4.1 rule
until they overshoot the bucket. slow-start=tpss probes every step up with
parity first (the overshoot's loss falls on packets the parity repairs) and
only a loss-free round trip at the raised rate makes it the data rate;
slow-start=traditional raises the data itself. Both run in the same test, one
after the other on the same bed.

Passes when TPSS loses at most a third of the application data the
traditional slow start loses (after FEC; the paper: 5.4% vs 21.9%) and its
application data, delivered, reaches at least 90% of the capacity over the
second half of the run (the capacity in application data: the bucket's rate
times payload / wire bytes of a packet).

run_flow() is also used by test_tpss_capacity_stall.py and
tests/bench/bench-tpss-tables.py."""
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
from test_tpss_burst_loss import first_assign, parse_stats  # noqa: E402

PORT = 5004
SECONDS = 20
CAPACITY = 6_000_000         # the bucket, bits/s on the wire (IP)
PAYLOAD = 1200               # bytes of application data per packet
# IP 20 + UDP 8 + RTP 12 + the <D, TT, HT> header extension 4 + 16
WIRE = PAYLOAD + 60
APP_CAPACITY = CAPACITY * PAYLOAD / WIRE
CAPS = ("application/x-rtp,media=video,clock-rate=90000,"
        "encoding-name=X-TEST,payload=96")
RATE_SRC = os.environ.get("TPSS_RATE_SRC", "")


def _delivered_timeline(lines):
    """[(monotonic time, packets delivered from member 1)] from the tpss-stats
    messages of a gst-launch -m output (timed lines)."""
    out = []
    for t, ln in lines:
        if "tpss-stats" not in ln:
            continue
        _, members = parse_stats(ln)
        if 1 in members:
            out.append((t, members[1].get("packets-delivered", 0)))
    return out


def _stall(proc, period, length, stop, stops):
    """Stops @proc (SIGSTOP) for @length s every @period s until @stop: a
    receiver that does not read its socket meanwhile overruns it. Appends
    (monotonic time, s it was stopped) of each stop to @stops: a loaded host
    that holds this thread off lengthens them."""
    while not stop.wait(period - length):
        a = time.monotonic()
        try:
            os.kill(proc.pid, signal.SIGSTOP)
            time.sleep(length)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
            stops.append((a, time.monotonic() - a))


_LOOP = re.compile(r"loop-late-(turns|time|max)=\(guint64\)(\d+)")


def _src_loop_timeline(lines, t0):
    """[(s after @t0, {"turns", "time", "max"})] of tpsssrc's loop-late-*
    fields from its tpss-stats messages (timed lines)."""
    out = []
    for t, ln in lines:
        if "tpss-stats" in ln:
            f = {k: int(v) for k, v in _LOOP.findall(ln)}
            if f:
                out.append((t - t0, f))
    return out


def _sink_loop_timeline(stdout):
    """[(s after the start, {"turns", "time", "max", "skipped"})] from
    tpss-rate-src's "sink-loop" lines."""
    out = []
    for ln in stdout.splitlines():
        if ln.startswith("sink-loop "):
            f = dict(kv.split("=") for kv in ln.split()[1:])
            out.append((float(f["t"]), {
                "turns": int(f["late-turns"]), "time": int(f["late-time"]),
                "max": int(f["late-max"]),
                "skipped": int(f["pacing-skipped"])}))
    return out


def late_between(timeline, t0, t1, key="time"):
    """The growth of @key in a loop timeline between the samples nearest
    @t0 and @t1 (0 with fewer than two samples)."""
    if len(timeline) < 2:
        return 0
    a = min(timeline, key=lambda x: abs(x[0] - t0))[1][key]
    b = min(timeline, key=lambda x: abs(x[0] - t1))[1][key]
    return max(0, b - a)


def run_flow(snd, rcv, slow_start, seconds=SECONDS, fixed_bps=0,
             rx_props="", stall=None, common_props="", report_ns=100_000_000):
    """One flow of `seconds`; returns a dict: pushed, delivered, lost (pushed -
    delivered), loss, recovered, raw_lost, parity, goodput (application bits/s
    delivered over the second half), goodput_paced (the same over the
    second half less `skipped`, the s of departures the sink's pacer skipped
    in it: time a host that held the sender off the CPU took from it;
    `span`, the second half's s), bitrates (the sink's, per second),
    holds, assign_s (the receiver's first ASSIGN, s after the sender
    started; None: none), sink_loop and src_loop (the loops' late-turn
    counts over time: see late_between())."""
    members = f"1@{snd.ip}:{PORT},2@{rcv.ip}:{PORT}"
    common = (f"members={members} slow-start={slow_start} "
              f"min-report-interval={report_ns} {common_props}")
    rx = rcv.popen(["sh", "-c",
                    f"exec gst-launch-1.0 -m tpsssrc name=s port={PORT} "
                    f"member-id=2 {common} {rx_props} stats-interval=100000000 "
                    f"caps=\"{CAPS}\" s.src_1 ! fakesink sync=false async=false"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines, reader = netbed.timed_lines(rx.stdout)
    time.sleep(1.0)
    stop = threading.Event()
    staller = None
    stops = []
    if stall:
        staller = threading.Thread(target=_stall,
                                   args=(rx, *stall, stop, stops),
                                   daemon=True)
        staller.start()
    t0 = time.monotonic()
    tx = snd.run([RATE_SRC, str(seconds), str(PAYLOAD), str(fixed_bps),
                  f"port={PORT}", "member-id=1"] + common.split(),
                 timeout=seconds + 30)
    stop.set()
    if staller:
        staller.join()
    time.sleep(1.0)
    rx.send_signal(signal.SIGINT)
    try:
        rx.wait(timeout=20)
    except subprocess.TimeoutExpired:
        rx.kill()
    reader.join(timeout=5)
    pushed = 0
    bitrates = []
    for ln in tx.stdout.splitlines():
        if ln.startswith("pushed="):
            pushed = int(ln.split("=")[1])
        elif ln.startswith("t="):
            bitrates.append(int(ln.split("bitrate=")[1]))
    _, members = parse_stats("\n".join(ln for _, ln in lines))
    m = members.get(1, {})
    delivered = m.get("packets-delivered", 0)
    tl = _delivered_timeline(lines)
    half = [(t, n) for t, n in tl if t0 + seconds / 2 <= t <= t0 + seconds]
    sink_loop = _sink_loop_timeline(tx.stdout)
    goodput = goodput_paced = skipped = span = 0.0
    if len(half) >= 2:
        bits = (half[-1][1] - half[0][1]) * PAYLOAD * 8
        span = half[-1][0] - half[0][0]
        skipped = min(late_between(sink_loop, half[0][0] - t0,
                                   half[-1][0] - t0, "skipped") / 1e9, span)
        goodput = bits / span
        goodput_paced = bits / (span - skipped) if skipped < span else 0.0
    return dict(pushed=pushed, delivered=delivered, lost=pushed - delivered,
                loss=(pushed - delivered) / pushed if pushed else 1.0,
                recovered=m.get("packets-recovered", 0),
                raw_lost=m.get("packets-lost", 0),
                parity=m.get("parity-received", 0), goodput=goodput,
                bitrates=bitrates, holds=m.get("holds", 0),
                assign_s=first_assign(lines, t0),
                goodput_paced=goodput_paced, skipped=skipped, span=span,
                sink_loop=sink_loop,
                src_loop=_src_loop_timeline(lines, t0),
                stops=[(t - t0, d) for t, d in stops],
                stderr="" if m else tx.stderr[-2000:])


def two_hosts(bed):
    snd, rcv = bed.host("snd"), bed.host("rcv")
    bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
    return snd, rcv


def loop_summary(r, t0, t1):
    """The loops' stalls of one flow between @t0 and @t1 s after its start,
    as printed text: the sink's and tpsssrc's late time and turns (their
    loop-late-* stats), the pacing time the sink skipped, and how long the
    test's stops of the receiver really lasted."""
    sk, sr = r["sink_loop"], r["src_loop"]
    return (f"sink late {late_between(sk, t0, t1) / 1e9:.2f} s in "
            f"{late_between(sk, t0, t1, 'turns')} turns "
            f"(longest of the run "
            f"{max((f['max'] for _, f in sk), default=0) / 1e6:.0f} ms), "
            f"pacing skipped {late_between(sk, t0, t1, 'skipped') / 1e9:.2f} s; "
            f"src late {late_between(sr, t0, t1) / 1e9:.2f} s in "
            f"{late_between(sr, t0, t1, 'turns')} turns "
            f"(longest of the run "
            f"{max((f['max'] for _, f in sr), default=0) / 1e6:.0f} ms)"
            + stops_summary(r.get("stops", []), t0, t1))


def stops_summary(stops, t0, t1):
    """The receiver's stops between @t0 and @t1 s, as printed text."""
    d = sorted(x for t, x in stops if t0 <= t < t1)
    if not d:
        return ""
    return (f"; receiver stopped {sum(d):.2f} s in {len(d)} stops (median "
            f"{1e3 * d[len(d) // 2]:.0f} ms, max {1e3 * d[-1]:.0f} ms)")


def report(res, capacity):
    for mode, r in res.items():
        print(f"{mode:12s} pushed={r['pushed']} delivered={r['delivered']} "
              f"lost={r['lost']} ({100 * r['loss']:.2f}%) "
              f"raw-lost={r['raw_lost']} recovered={r['recovered']} "
              f"parity={r['parity']} goodput={r['goodput'] / 1e6:.2f} Mbit/s "
              f"({100 * r['goodput'] / capacity:.0f}% of "
              f"{capacity / 1e6:.2f}) bitrate/s={r['bitrates']}", flush=True)
        secs = len(r["bitrates"]) or SECONDS
        print(f"{mode:12s} loops over {secs / 2:.0f}-{secs:.0f} s: "
              f"{loop_summary(r, secs / 2, secs)}", flush=True)
        if r["stderr"]:
            print(r["stderr"])


def compare(check, res, capacity, what="the capacity"):
    t, b = res["tpss"], res["traditional"]
    check("traditional slow start lost application data", b["loss"] > 0.01,
          f"{100 * b['loss']:.2f}%")
    check("TPSS loses at most a third of traditional's application data",
          t["loss"] <= b["loss"] / 3,
          f"{100 * t['loss']:.2f}% vs {100 * b['loss']:.2f}% "
          f"(paper: 5.4% vs 21.9%)")
    check(f"TPSS delivers at least 90% of {what} in application data",
          t["goodput"] >= 0.9 * capacity,
          f"{t['goodput'] / 1e6:.2f} of {capacity / 1e6:.2f} Mbit/s "
          f"(traditional {b['goodput'] / 1e6:.2f})")


def main():
    netbed.require_or_skip()
    if not RATE_SRC:
        print("SKIP: TPSS_RATE_SRC not set")
        return 77
    with netbed.NetBed() as bed:
        snd, rcv = two_hosts(bed)
        bed.bottleneck(snd, "eth0", CAPACITY, latency_ms=50)
        res = {mode: run_flow(snd, rcv, mode)
               for mode in ("tpss", "traditional")}
    report(res, APP_CAPACITY)
    check = netbed.Checks()
    compare(check, res, APP_CAPACITY)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
