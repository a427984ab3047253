#!/usr/bin/env python3
"""How much of its paced UDP rate tpbasink sends (docs/results.md, "Eleventh
pass"): one tpbasink -> tpbasrc flow over a veth pair with no shaping, a
greedy raw-video RTP source (15.6 Mbit/s, as in bench-tpba-fairness.py) and
the sink held at one rate (mode=lda, r-0 = max-rate = the target: LDA paces
with the same pacer as TPBA's running period and cannot rise above max-rate),
with and without pace-burst, on an idle machine or beside busy-loop
processes at the sender's own priority.

Sent and received rates come from the two elements' tpba-stats (bytes-udp)
over [WARMUP, END); each is printed over the sink's rate (the `rate` field,
the pacer's).

Environment (comma-separated lists): BENCH_PACING_RATES (Mbit/s, 1.2,5,10),
BENCH_PACING_BURSTS (pace-burst, ns, 0,5000000), BENCH_PACING_LOAD (busy
loops beside the sender, 0,1), BENCH_PACING_TRIALS (3), BENCH_PACING_SECONDS
(20), BENCH_PACING_JSON (write the runs).

Needs root (network namespaces); exits 77 (skip) otherwise."""
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402


def env_list(name, default, conv=str):
    return [conv(x) for x in os.environ.get(name, default).split(",") if x]


RATES = env_list("BENCH_PACING_RATES", "1.2,5,10", float)
BURSTS = env_list("BENCH_PACING_BURSTS", "0,5000000", int)
LOADS = env_list("BENCH_PACING_LOAD", "0,1", int)
TRIALS = int(os.environ.get("BENCH_PACING_TRIALS", "3"))
END = int(os.environ.get("BENCH_PACING_SECONDS", "20"))
WARMUP = 5
PORT = 5004
W, H, FPS, MTU = 240, 180, 30, 1200
SENDER = (
    "videotestsrc is-live=true pattern=snow num-buffers={frames} ! "
    f"video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1 ! "
    f"rtpvrawpay mtu={MTU} ! "
    "tpbasink name=snk host={dst} port={port} mode=lda r-0={rate} max-rate={rate} "
    "pace-burst={burst} stats-interval=1000000000"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=1000000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,"
    f"sampling=YCbCr-4:2:0,depth=(string)8,width=(string){W},height=(string){H},"
    "payload=96\" ! fakesink sync=false"
)
MSG = re.compile(r'^Got message #\d+ from element "(\w+)" \(element\): '
                 r'tpba-stats, (.*)$')


def fields(text):
    return {k: v.strip('"') for k, v in
            re.findall(r'([\w-]+)=\([\w]+\)("[^"]*"|[^,;]+)', text)}


def read_stats(proc, t0, element, out):
    def reader():
        for line in proc.stdout:
            m = MSG.match(line.strip())
            if m and m.group(1) == element:
                out.append((time.monotonic() - t0, fields(m.group(2))))
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    return th


def rate_over(samples, key="bytes-udp"):
    """bit/s of `key` between the first sample from WARMUP and the last one."""
    s = [(t, int(f.get(key, 0))) for t, f in samples if t >= WARMUP]
    if len(s) < 2 or s[-1][0] <= s[0][0]:
        return None
    return (s[-1][1] - s[0][1]) * 8 / (s[-1][0] - s[0][0])


def run_one(case):
    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.3.1/24", "10.77.3.2/24")
        busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                for _ in range(case["load"])]
        rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -e " + RECEIVER.format(port=PORT)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        t0 = time.monotonic()
        rx_stats, tx_stats = [], []
        read_stats(rx, t0, "src", rx_stats)
        tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
            frames=END * FPS, dst="10.77.3.2", port=PORT, rate=int(case["rate"]),
            burst=case["burst"])], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        reader = read_stats(tx, t0, "snk", tx_stats)
        try:
            tx.wait(timeout=END + 20)
        except subprocess.TimeoutExpired:
            tx.kill()
        reader.join(5)
        netbed.interrupt(rx)
        for p in busy:
            p.kill()
            p.wait()
    # the pacer's rate while sending (LDA may start under max-rate if RRs
    # report loss; the mean of its 1 s samples in the window)
    paced = [int(f["rate"]) for t, f in tx_stats if t >= WARMUP and "rate" in f]
    sent, got = rate_over(tx_stats), rate_over(rx_stats)
    last = tx_stats[-1][1] if tx_stats else {}
    return dict(case, ok=bool(paced and sent and got), paced=statistics.mean(paced) if paced else 0,
                sent=sent, received=got, dropped=int(last.get("dropped-packets", 0)),
                load=case["load"], loadavg=os.getloadavg()[0])


def main():
    netbed.require_or_skip()
    cases = [dict(rate=r * 1e6, burst=b, load=ld, trial=t)
             for r in RATES for ld in LOADS for t in range(TRIALS) for b in BURSTS]
    print(f"# tpbasink paced at a fixed rate, {len(cases)} runs of {END} s", flush=True)
    runs = []
    for c in cases:
        run = run_one(c)
        runs.append(run)
        if run["ok"]:
            print(f"rate {c['rate'] / 1e6:g} Mbit/s, load {c['load']}, burst {c['burst']} ns: "
                  f"paced {run['paced'] / 1e6:.3f}, sent/paced {run['sent'] / run['paced']:.3f}, "
                  f"received/paced {run['received'] / run['paced']:.3f}, "
                  f"loadavg {run['loadavg']:.1f}", flush=True)
        else:
            print(f"FAILED {c}", flush=True)
        if os.environ.get("BENCH_PACING_JSON"):
            with open(os.environ["BENCH_PACING_JSON"], "w") as f:
                json.dump(runs, f, indent=1)
    print("\n| target | load | pace-burst | runs | sent / paced | received / paced |")
    print("|---|---|---|---|---|---|")
    for r in RATES:
        for ld in LOADS:
            for b in BURSTS:
                sel = [x for x in runs if x["ok"] and x["rate"] == r * 1e6 and x["load"] == ld
                       and x["burst"] == b]
                if not sel:
                    continue

                def med(key):
                    v = sorted(x[key] / x["paced"] for x in sel)
                    return f"{statistics.median(v):.3f} [{v[0]:.3f}-{v[-1]:.3f}]"
                print(f"| {r:g} Mbit/s | {ld} busy | {b / 1e6:g} ms | {len(sel)} | "
                      f"{med('sent')} | {med('received')} |")
    return 0 if all(x["ok"] for x in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
