#!/usr/bin/env python3
"""TPBA against one greedy TCP flow through a 2 Mbit/s tbf bottleneck: the
TPBA flow (a greedy raw-video RTP source: TCP, not the source, limits it
while probing) converges to about its fair share, bottleneck / 2.

Pass: over the window [WARMUP, END] s the TPBA goodput (RTP bytes the
tpbasrc received, both transports) is within 0.5x..1.5x of bottleneck / 2,
and so is the median of the probed rates r_s. Also printed: the cross
flow's goodput and Jain's fairness index of the two (not judged: the full
benchmark belongs in tests/bench)."""
import os
import re
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

BOTTLENECK = 2_000_000
FAIR = BOTTLENECK / 2
RUN = 40                     # s of TPBA
WARMUP, TAIL = 8, 2          # s left out at the start and the end
PORT, CROSS_PORT = 5004, 6000
# both TCP flows (TPBA's probing connection and the cross flow) use this
# congestion control: loss-based CUBIC is closer to the paper's TCP than the
# kernel's default BBR (TPBA_TEST_CC=bbr to compare)
CC = os.environ.get("TPBA_TEST_CC", "cubic")
MSG = re.compile(r'^Got message #\d+ from element "(\w+)" \(element\): '
                 r'([\w-]+), (.*)$')

SENDER = (
    "videotestsrc is-live=true pattern=snow num-buffers={frames} ! "
    "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! "
    "rtpvrawpay mtu=1200 ! "
    "tpbasink name=snk host={dst} port={port} end-criterion=proportional "
    "z=0.1 max-probe-cycles=10 t-running=5000000000 stats-interval=1000000000 "
    "tcp-congestion={cc}"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=250000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,"
    "sampling=YCbCr-4:2:0,depth=(string)8,width=(string)160,height=(string)120,"
    "payload=96\" ! fakesink sync=false"
)


def fields(text):
    return {k: v.strip('"') for k, v in
            re.findall(r'([\w-]+)=\([\w]+\)("[^"]*"|[^,;]+)', text)}


def rate(samples, t0, t1):
    """bits/s between the samples nearest to t0 and t1 ((t, bytes) pairs)."""
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if len(inside) < 2:
        return 0.0
    (ta, ba), (tb, bb) = inside[0], inside[-1]
    return 8 * (bb - ba) / (tb - ta)


def main():
    netbed.require_or_skip()
    check = netbed.Checks()

    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
        bed.bottleneck(snd, "eth0", rate_bps=BOTTLENECK, latency_ms=50)

        # the cross flow: a greedy TCP sender snd -> rcv
        stop = threading.Event()
        cross = []                      # (t, bytes received)
        netbed.greedy_tcp(snd, rcv, "10.77.1.2", CROSS_PORT, CC, stop, cross)
        time.sleep(2.0)

        tpba = []                       # (t, RTP bytes received)
        rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -e " +
                        RECEIVER.format(port=PORT)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def rx_reader():
            for line in rx.stdout:
                m = MSG.match(line.strip())
                if m and m.group(1) == "src" and m.group(2) == "tpba-stats":
                    f = fields(m.group(3))
                    tpba.append((time.monotonic(), int(f.get("bytes-udp", 0))
                                 + int(f.get("bytes-tcp", 0))))
        rt = threading.Thread(target=rx_reader, daemon=True)
        rt.start()
        time.sleep(1.0)
        t_start = time.monotonic()
        tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
            frames=RUN * 30, dst="10.77.1.2", port=PORT, cc=CC)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out_tx, err_tx = tx.communicate(timeout=RUN + 20)
        t_end = time.monotonic()
        stop.set()
        netbed.interrupt(rx)

    periods, last = [], {}
    for line in out_tx.splitlines():
        m = MSG.match(line.strip())
        if m and m.group(1) == "snk":
            f = fields(m.group(3))
            if m.group(2) == "tpba-period" and f.get("period") == "running":
                periods.append(int(f["r-s"]))
            elif m.group(2) == "tpba-stats":
                last = f
    w0, w1 = t_start + WARMUP, t_end - TAIL
    r_tpba, r_cross = rate(tpba, w0, w1), rate(cross, w0, w1)
    jain = (r_tpba + r_cross) ** 2 / (2 * (r_tpba ** 2 + r_cross ** 2)) \
        if r_tpba + r_cross else 0
    print(f"congestion control {CC} (both flows); window {WARMUP}..{w1 - t_start:.1f} s of "
          f"{t_end - t_start:.1f} s")
    print(f"r_s per running period (bit/s): {periods}")
    print(f"TPBA goodput {r_tpba / 1e3:.0f} kbit/s, cross TCP {r_cross / 1e3:.0f} "
          f"kbit/s, fair share {FAIR / 1e3:.0f} kbit/s, Jain index {jain:.3f}")
    print("sink:", {k: last.get(k) for k in (
        "switches", "probing-periods", "running-periods", "reductions",
        "dropped-adus", "packets-tcp", "packets-udp", "p-loss", "p-probe")})

    check("the sender ran", len(out_tx) > 0 and tx.returncode == 0,
          f"exit {tx.returncode}" + ("" if tx.returncode == 0 else err_tx[-400:]))
    check("TPBA probed and ran at least twice", len(periods) >= 2, f"{len(periods)}")
    med = statistics.median(periods) if periods else 0
    check("median r_s within 0.5x..1.5x of the fair share",
          0.5 * FAIR <= med <= 1.5 * FAIR, f"{med / 1e3:.0f} kbit/s")
    check("TPBA goodput within 0.5x..1.5x of the fair share",
          0.5 * FAIR <= r_tpba <= 1.5 * FAIR, f"{r_tpba / 1e3:.0f} kbit/s")
    p_probe = float(last.get("p-probe", -1))
    check("TCP's loss behind r_s measured from TCP_INFO (p-probe in [0, 1))",
          0 <= p_probe < 1, f"{p_probe}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
